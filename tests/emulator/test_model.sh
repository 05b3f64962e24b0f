#!/bin/sh
# The time model (emulator/vm/model.c), on a copy whose traffic is known by hand:
#
#   test_model.sh TEST_MODEL_BINARY EMULATOR_LIB_DIR
#
# 1. 2^24 floats copied on the h100 row: 2^24 * 8 bytes of DRAM traffic (every sector read
#    and written once, nothing reused) at 3350 GB/s is 40.065 us, plus the 3 us launch
#    overhead: 0.04307 ms, bound by DRAM. The test fails outside [0.0430, 0.0432] ms.
# 2. Shared memory: 256 threads each store 4 floats, then load them, one 4-byte access at a
#    time, lanes 16 bytes apart: 4 wavefronts per access (4-way conflicts) in the PTX counts,
#    16 per warp for the loads (lds_wavefronts 128 over 8 warps); merged as ptxas merges them,
#    one conflict-free 16-byte access of 4 wavefronts for the stores and one for the loads:
#    smem_wavefronts 8 per warp, 64.
# 3. Sampling: 2^22 + 33 floats (16385 blocks, a partial last block) with the sample (first
#    wave and tail) and without: each count within 2%, and the time within 2%.
set -eu
bin=$1
lib=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # N SAMPLE FILE
    LD_LIBRARY_PATH=$lib COURSE_EMU_MODEL=h100 COURSE_EMU_MODEL_SAMPLE=$2 COURSE_EMU_MODEL_OUT=$3 "$bin" "$1"
}
field() { # FILE KEY: from the copy's line
    grep 'kernel=[^ ]*model_copy' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}
run 16777216 1 "$out/copy"
ms=$(field "$out/copy" ms)
bound=$(field "$out/copy" bound)
awk -v ms="$ms" -v b="$bound" 'BEGIN { if (ms < 0.0430 || ms > 0.0432 || b != "dram") {
    printf "test_model.sh:%d: copy of 2^24 floats on h100: model %s ms bound %s, want 0.04307 ms (DRAM bytes / 3350 GB/s + 3 us) bound dram\n", 30, ms, b; exit 1 } }'
smem=$(grep 'kernel=[^ ]*model_smem' "$out/copy" | tr ' ' '\n' | grep -E '^(smem|lds)_wavefronts=' | tr '\n' ' ')
[ "$smem" = "smem_wavefronts=64 lds_wavefronts=128 " ] || {
    echo "test_model.sh:33: shared round trip of 4 x 4-byte pieces: got $smem, want smem_wavefronts=64 lds_wavefronts=128"
    exit 1
}
run 4194337 1 "$out/sampled"
run 4194337 0 "$out/full"
grep -q 'sampled=1601/16385' "$out/sampled" || {
    echo "test_model.sh:39: 2^22+33 floats: want the first wave (1056 blocks) and the tail (545) sampled, got: $(field "$out/sampled" sampled)"
    exit 1
}
for key in ms warp_insts gld_sectors gst_sectors dram_bytes; do
    awk -v k="$key" -v s="$(field "$out/sampled" "$key")" -v f="$(field "$out/full" "$key")" 'BEGIN {
        if (s < 0.98 * f || s > 1.02 * f) {
            printf "test_model.sh:44: 2^22+33 floats: %s sampled %s, full run %s: more than 2%% apart\n", k, s, f; exit 1 } }'
done
echo "test_model.sh: copy estimate $ms ms (dram); shared accesses merged; sample within 2% of the full run"
