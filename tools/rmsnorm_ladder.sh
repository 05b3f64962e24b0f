#!/bin/sh
# The time model against a published RMSNorm ladder, memory-bound: Simon Veitner's five fp32
# RMSNorm kernels (github.com/simveit/effective_rms_norm: a block of 512 threads a row of 4096
# floats; a shared tree; the row kept in shared memory; warp shuffles; float4 accesses), measured
# on 2^18 rows on an sm_90a GPU of 3300 GB/s and published in the checkout's README.md (GB/s, the
# 4 GiB read and the 4 GiB written over the time; emulator/MODEL.md cites it).
#
#   tools/rmsnorm_ladder.sh CHECKOUT [GPU] [TOKENS] [KERNELS]
#
# CHECKOUT is a checkout of that repository at 0d9236b, the README's table (its code is not part
# of this course: this script only builds it). Builds its kernels/rms_*.cu with
# tools/rmsnorm_ladder_main.cu and its Makefile's flags for the GPU's architecture (h100: sm_90;
# the Makefile's sm_90a adds nothing these kernels use), reads each kernel's registers from ptxas
# -v and its SASS per source line (tools/sass.py --lines), checks every kernel's output on the
# emulator (rmsnorm_ladder --check, 37 rows), then runs each of KERNELS (default 1-5) once on
# TOKENS rows (2^18: the only size the checkout's launch functions are built for here) with
# COURSE_EMU_MODEL=GPU (default h100) and prints one line per kernel: the model's GB/s beside the
# published ones, with the error. Needs nvcc and a built emulator (build/emulator); BUILD
# overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/rmsnorm_ladder.sh CHECKOUT [GPU] [TOKENS] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)/kernels
for f in rms_naive rms_smem rms_warp rms_smem_float4 rms_warp_float4; do
    [ -f "$src/$f.cu" ] || { echo "rmsnorm_ladder.sh: $src holds no $f.cu" >&2; exit 2; }
    # rmsnorm_ladder_main.cu launches each as the checkout's main() does: 2^18 rows of 2^12, 512 threads.
    for line in 'const int numTokens = 1 << 18;' 'const int hiddenDim = 1 << 12;' 'const int threadsPerBlock = 1 << 9;'; do
        grep -q "$line" "$src/$f.cu" ||
            { echo "rmsnorm_ladder.sh: $f.cu's main() is not 0d9236b's (2^18 rows of 4096, 512 threads)" >&2; exit 2; }
    done
done
gpu=${2:-h100}
size=${3:-262144}
[ "$size" = 262144 ] ||
    { echo "rmsnorm_ladder.sh: TOKENS must be 262144, the checkout's (its launch functions are built for it)" >&2; exit 2; }
kernels=${4:-"1 2 3 4 5"}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup rmsnorm_ladder "$gpu"
ladder_build -w --use_fast_math --expt-relaxed-constexpr -I"$src" "$root/tools/rmsnorm_ladder_main.cu"
ladder_code
ladder_check 37 "normalises wrongly" 1 2 3 4 5
# The README's GB/s (2^18 rows), kernel number first.
published() {
    printf '%s\n' 3015.30 3044.99 3043.23 3062.86 3062.63 | sed -n "${1}p"
}
# A run reads the input once and writes the output once: 8 bytes an element.
ladder_rows "$gpu" published "$((8 * size * 4096))" "GB/s" \
    "(model, $gpu, $size rows of 4096; published: effective_rms_norm README)"
