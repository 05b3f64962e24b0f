#!/bin/sh
# differential.sh SUITE OUT MODE [CASE...]: the differential harness. Runs the GPU cases of one
# judge (test_NN_<side>; timing cases aside), or the CASEs named, with COURSE_DIFF=MODE: each
# runner gets a twin that receives every request, and every output read back is compared with
# the twin's (tests/common/course_diff.h).
#   MODE gpu       the emulator (the case's own runner) against the GPU (needs one)
#   MODE schedule  the emulator against itself with the other warp schedule (CI's smoke test)
# It appends to OUT, one line each, fields separated by single spaces, `what` last (it holds
# spaces):
#   mismatch case=C call=LAUNCHER args=A,B,.. kernels=K1,K2 compare=bitwise|within:BOUND(REASON)
#            output=TYPE:COUNT first=INDEX primary=VALUE twin=VALUE differing=COUNT what=TEXT
#   failed case=C suite=SUITE why=TEXT          a case that failed under the differential
#   summary suite=SUITE mode=MODE cases=N failed=F mismatches=M
# (args: integers, floats, bN+OFFSET for buffer N, null; output: b32/b16/b8 for a bitwise
# comparison, f32 within an exception's bound, return or status for what the call returned).
# On stdout, one line per case. Exit 0 when no line but the summary was written, 1 when one
# was, 77 when the suite has no GPU case or the device cannot run it. With COURSE_DIFF_COUNTS=FILE
# the judge appends every observed launch's counters there ("case=C call=L launch ...", the
# device server's observer format, emulator/server/server.c). For schedule the caller puts the
# emulator's libraries first on LD_LIBRARY_PATH (CTest's tools.differential_smoke does); for gpu
# it must not.
set -u
[ $# -ge 3 ] || { echo "usage: differential.sh SUITE OUT gpu|schedule [CASE...]" >&2; exit 2; }
suite=$1
out=$2
mode=$3
shift 3
case $mode in
gpu | schedule) ;;
*) echo "differential.sh: MODE is gpu or schedule, not '$mode'" >&2; exit 2 ;;
esac
cases=${*:-$("$suite" --list | awk -F '\t' '$2 ~ /gpu/ && $2 !~ /perf/ { print $1 }')}
[ -n "$cases" ] || { echo "differential: $suite has no GPU cases"; exit 77; }
name=$(basename "$suite")
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.log"' EXIT
failed=0
mismatches=0
n=0
for c in $cases; do
    : >"$tmp"
    COURSE_DIFF=$mode COURSE_DIFF_OUT=$tmp "$suite" --case "$c" >"$tmp.log" 2>&1
    rc=$?
    n=$((n + 1))
    m=$(grep -c '^mismatch ' "$tmp")
    cat "$tmp" >>"$out"
    mismatches=$((mismatches + m))
    if [ "$rc" = 77 ]; then
        echo "  not run  $c: $(grep -m 1 SKIPPED "$tmp.log")"
        exit 77
    elif [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        # Check's failure line: FILE:LINE:F:CASE:TEST:0: MESSAGE.
        why=$(sed -n 's/^[^:]*:[0-9]*:[FE]:[^:]*:[^:]*:-*[0-9]*: //p' "$tmp.log" | head -n 1)
        echo "failed case=$c suite=$name why=${why:-exit status $rc}" >>"$out"
        echo "  FAIL     $c: ${why:-exit status $rc}"
    elif [ "$m" != 0 ]; then
        echo "  DIFFER   $c: $m mismatches"
    else
        echo "  same     $c"
    fi
done
echo "summary suite=$name mode=$mode cases=$n failed=$failed mismatches=$mismatches" >>"$out"
echo "differential: $mismatches mismatches, $failed failed, in $n cases of $name ($mode)"
[ "$failed" = 0 ] && [ "$mismatches" = 0 ]
