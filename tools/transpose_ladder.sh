#!/bin/sh
# The time model against a published transpose ladder, memory-bound: Yen Cal's twenty float
# matrix transposes (naive; shared-memory tiles, padded; rows per thread; float2 and float4
# accesses; 64 x 64 tiles), measured at 32768 x 32768 on an H100 80GB HBM3 and published in the
# checkout's README.md (effective GB/s, the bytes read and written over the time; emulator/MODEL.md
# cites it).
#
#   tools/transpose_ladder.sh CHECKOUT [GPU] [N] [KERNELS]
#
# CHECKOUT is a checkout of github.com/yencal/gpu-matrix-transpose at 91de071, the README's
# table (its code is not part of this course: this script only builds it). Builds its
# transpose_kernels.cuh with tools/transpose_ladder_main.cu and its README's flags for the GPU's
# architecture (h100: sm_90), reads each kernel's registers from ptxas -v and its SASS per source
# line (tools/sass.py --lines), checks every kernel's output on the emulator at 320
# (transpose_ladder --check), then runs each of KERNELS (default 1-20) once at N (default 32768)
# with COURSE_EMU_MODEL=GPU (default h100) and prints one line per kernel: the model's GB/s
# beside the published ones, with the error. Needs nvcc and a built emulator (build/emulator);
# BUILD overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/transpose_ladder.sh CHECKOUT [GPU] [N] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
[ -f "$src/transpose_kernels.cuh" ] ||
    { echo "transpose_ladder.sh: $src holds no transpose_kernels.cuh" >&2; exit 2; }
gpu=${2:-h100}
size=${3:-32768}
kernels=${4:-$(seq 1 20)}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup transpose_ladder "$gpu"
ladder_build -I"$src" "$root/tools/transpose_ladder_main.cu"
ladder_code
ladder_check 320 "transposes wrongly" $(seq 1 20)
# The README's effective GB/s (H100 80GB HBM3, 32768 x 32768), in its table's order.
published() {
    printf '%s\n' 475.5 996.1 1693.4 2385.1 2772.4 2775.3 2383.4 2772.5 2775.1 2775.4 2771.2 \
        2774.0 2774.5 2773.4 2872.0 2939.8 2927.2 2938.9 2927.0 2940.5 | sed -n "$1p"
}
# A run reads and writes the matrix once: 8 N^2 bytes.
ladder_rows "$gpu" published "$(awk -v n="$size" 'BEGIN { printf "%.0f", 8 * n * n }')" "GB/s" \
    "(model, $gpu, $size x $size floats; published: gpu-matrix-transpose README, H100 80GB HBM3)"
