#!/bin/sh
# Every lesson driver answers bad input with one line on stderr and exit status 2,
# and --help with exit 0. Usage: driver_bad_input.sh BIN_DIR
set -u
bin=$1
fail=0
drivers=$(ls "$bin" | grep -E '^[0-9][0-9]_[a-z_]+$' | grep -v '_exercise$')
[ -n "$drivers" ] || { echo "no drivers in $bin"; exit 1; }
for d in $drivers; do
    for args in "--bogus" "--m=0" "--m=-5" "--m=abc" "--m=12x" "--m" "--reps=0" \
                "--size=99999999" "stray" "--m=65536 --n=65536" "--csv="; do
        # shellcheck disable=SC2086
        err=$("$bin/$d" $args 2>&1 >/dev/null)
        rc=$?
        lines=$(printf '%s\n' "$err" | grep -c .)
        if [ "$rc" != 2 ] || [ "$lines" != 1 ]; then
            echo "FAIL $d $args: exit $rc, $lines lines on stderr: $err"
            fail=1
        fi
    done
    if ! "$bin/$d" --help >/dev/null 2>&1; then
        echo "FAIL $d --help does not exit 0"
        fail=1
    fi
done
[ "$fail" = 0 ] && echo "all drivers reject bad input with one line and exit 2"
exit "$fail"
