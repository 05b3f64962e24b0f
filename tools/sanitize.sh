#!/bin/sh
# sanitize.sh SUITE LOG_DIR: every GPU case of one lesson's suite (timing cases aside) on the
# CPU emulator with all of its checks on: memcheck (with the leak check), racecheck (shared
# memory, and global memory: race-global), synccheck,
# initcheck and hostcheck (a host access to pinned memory a queued copy still uses). One line per case, and for a failed one why (the fault first) and its first
# reports, leaks last; exit 1 when a case fails or a check reports anything, 77
# when the suite has no GPU case or the emulator cannot run it. Each case's output and report
# go to LOG_DIR. The caller puts the emulator's libraries first on LD_LIBRARY_PATH
# (./course sanitize does, and CTest's NN.solution.sanitize).
set -u
suite=$1
dir=$2
mkdir -p "$dir"
cases=$("$suite" --list | awk -F '\t' '$2 ~ /gpu/ && $2 !~ /perf/ { print $1 }')
[ -n "$cases" ] || { echo "sanitize: $suite has no GPU cases"; exit 77; }
bad=0
found=0
for c in $cases; do
    report=$dir/$c.report
    log=$dir/$c.log
    : >"$report"
    COURSE_EMU_CHECKS=mem,race,sync,init,race-global,host COURSE_EMU_REPORT=$report "$suite" --case "$c" >"$log" 2>&1
    rc=$?
    n=$(grep -c . "$report")
    found=$((found + n))
    if [ "$rc" = 77 ]; then
        echo "  not run  $c: $(grep -m 1 SKIPPED "$log")"
        exit 77
    elif [ "$rc" = 0 ] && [ "$n" = 0 ]; then
        echo "  ok       $c"
    else
        bad=1
        [ "$rc" = 0 ] && what="$n reports" || what="the case failed, $n reports"
        echo "  FAIL     $c: $what (log: $log)"
        # The failure first (the judge puts the emulator's fault line first in it), then the
        # checks' reports, leaks last: a crash leaks what it had not freed yet.
        sed -n 's/^[^:]*:[0-9]*:[FE]:[^:]*:[^:]*:-*[0-9]*: /             failed: /p' "$log" | head -n 1
        { grep -v '^leak-check' "$report"; grep '^leak-check' "$report"; } |
            sed -n '1,3s/^/             /p'
    fi
done
echo "sanitize: $found reports in $(echo "$cases" | wc -l) cases of $(basename "$suite")"
exit "$bad"
