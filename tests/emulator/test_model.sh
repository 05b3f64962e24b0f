#!/bin/sh
# The time model (emulator/vm/model.c), on a copy whose traffic is known by hand:
#
#   test_model.sh TEST_MODEL_BINARY EMULATOR_LIB_DIR
#
# 1. 2^24 floats copied on the h100 row: 2^24 * 8 bytes of DRAM traffic (every sector read
#    and written once, nothing reused) at 3350 GB/s is 40.065 us, plus the 3 us launch
#    overhead: 0.04307 ms, bound by DRAM. The test fails outside [0.0430, 0.0432] ms.
# 2. Sampling: 2^22 + 33 floats (16385 blocks, a partial last block) with the sample (first
#    wave and tail) and without: each count within 2%, and the time within 2%.
set -eu
bin=$1
lib=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # N SAMPLE FILE
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SAMPLE=$2 COURSE_EMU_MODEL_OUT=$3 "$bin" "$1"
}
field() { # FILE KEY
    tr ' ' '\n' <"$1" | sed -n "s/^$2=//p"
}
run 16777216 1 "$out/copy"
ms=$(field "$out/copy" ms)
bound=$(field "$out/copy" bound)
awk -v ms="$ms" -v b="$bound" 'BEGIN { if (ms < 0.0430 || ms > 0.0432 || b != "dram") {
    printf "test_model.sh:%d: copy of 2^24 floats on h100: model %s ms bound %s, want 0.04307 ms (DRAM bytes / 3350 GB/s + 3 us) bound dram\n", 25, ms, b; exit 1 } }'
run 4194337 1 "$out/sampled"
run 4194337 0 "$out/full"
grep -q 'sampled=1601/16385' "$out/sampled" || {
    echo "test_model.sh:29: 2^22+33 floats: want the first wave (1056 blocks) and the tail (545) sampled, got: $(field "$out/sampled" sampled)"
    exit 1
}
for key in ms warp_insts gld_sectors gst_sectors dram_bytes; do
    awk -v k="$key" -v s="$(field "$out/sampled" "$key")" -v f="$(field "$out/full" "$key")" 'BEGIN {
        if (s < 0.98 * f || s > 1.02 * f) {
            printf "test_model.sh:34: 2^22+33 floats: %s sampled %s, full run %s: more than 2%% apart\n", k, s, f; exit 1 } }'
done
echo "test_model.sh: copy estimate $ms ms (dram); sample within 2% of the full run"
