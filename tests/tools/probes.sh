#!/bin/sh
# course_probes on the CPU emulator: every probe's kernel runs and its result is right, no time is
# shown (not run), the model's column is the row asked for, the GPU file it writes reads back as
# that row (nothing measured), GPUs' names find their rows, and bad flags get one line and exit 2.
# Usage: probes.sh BIN_DIR (the emulator's libraries first on LD_LIBRARY_PATH)
set -u
bin=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
complain() {
    echo "FAIL $*"
    fail=1
}
"$bin/course_probes" --gpu=h200 --csv="$work/p.csv" --gpu-file="$work/h200.gpu" >"$work/out" 2>&1 ||
    complain "exit $?: $(cat "$work/out")"
"$bin/course_probes" --gpu="$work/h200.gpu" --csv="$work/back.csv" >/dev/null 2>&1 ||
    complain "the GPU file it wrote does not read back: $(head -3 "$work/h200.gpu")"
sed 's/,h200-probed,/,h200,/' "$work/back.csv" | cmp -s - "$work/p.csv" ||
    complain "the GPU file read back is not the h200 row: $(diff "$work/back.csv" "$work/p.csv" | head -4)"
rows=$(grep -c ',not run,[^,]*,-,h200,ok,' "$work/p.csv")
[ "$rows" = 19 ] || complain "want 19 probes run, checked and not timed, have $rows: $(cat "$work/p.csv")"
grep -q 'not run' "$work/out" || complain "the table does not say 'not run'"
grep -q '^lat_dram,not run,600,-,h200,ok,' "$work/p.csv" || complain "lat_dram is not the h200 row's 600 clocks"
grep -q '^dram_share,not run,0.88,' "$work/p.csv" || complain "dram_share is not the model's copy, 0.88"
grep -q '^dram_read_share,not run,0.964,' "$work/p.csv" ||
    complain "dram_read_share is not the model's read, 0.964"
# nvidia-smi's names of the GPUs the model has rows for find their own row (gpu-report asks).
while IFS='|' read -r name want; do
    got=$("$bin/course_probes" --row-of="$name" 2>&1)
    [ "$got" = "$want" ] || complain "--row-of='$name': $got, want $want"
done <<'EOT'
NVIDIA H200|h200
NVIDIA H100 80GB HBM3|h100
NVIDIA A100-SXM4-40GB|a100-40gb
NVIDIA A100-PCIE-40GB|a100-40gb
NVIDIA A100-SXM4-80GB|a100
NVIDIA RTX A6000|a6000
NVIDIA GeForce RTX 3090|rtx3090
NVIDIA L4|l4
NVIDIA L40S|h100
Tesla T4|t4
NVIDIA GeForce RTX 4090|h100
EOT
for args in "--gpu=nonesuch" "--bogus" "--csv=$work/no/such/dir/p.csv" "--gpu-file=$work/no/such/dir/g"; do
    err=$("$bin/course_probes" "$args" 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$rc" != 2 ] || [ "$lines" != 1 ]; then
        complain "$args: exit $rc, $lines lines on stderr: $err"
    fi
done
[ "$fail" = 0 ] && echo "course_probes: 19 probes checked on the emulator, its GPU file read back, 11 GPU names mapped to their rows, bad flags rejected"
exit "$fail"
