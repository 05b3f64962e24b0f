#!/bin/sh
# The time model against a published histogram ladder, bound by atomics and then by memory: Yen
# Cal's 256-bin histograms of bytes (github.com/yencal/gpu-histogram-optimization: one global
# atomic a byte; a shared histogram a block, merged with global atomics; the same with 16-byte
# loads; CUB's DeviceHistogram::HistogramEven), measured on 2^30 uniform random bytes on an H100
# and published in the checkout's README.md (GB/s, the bytes read over the time; emulator/MODEL.md
# cites it).
#
#   tools/histogram_ladder.sh CHECKOUT [GPU] [N] [KERNELS]
#
# CHECKOUT is a checkout of that repository at b71f5c0, the README's table (its code is not part
# of this course: this script only builds it). Builds its src/histogram_kernels.cuh with
# tools/histogram_ladder_main.cu and its README's flags for the GPU's architecture (h100: sm_90),
# reads each kernel's registers from ptxas -v and its SASS per source line (tools/sass.py
# --lines), checks every kernel's histogram on the emulator (histogram_ladder --check, 100003
# bytes), then runs each of KERNELS (default 1-4) once on N bytes (default 2^30) with
# COURSE_EMU_MODEL=GPU (default h100) and prints one line per kernel: the model's GB/s beside the
# published ones, with the error. Needs nvcc and a built emulator (build/emulator); BUILD
# overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/histogram_ladder.sh CHECKOUT [GPU] [N] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)/src
[ -f "$src/histogram_kernels.cuh" ] ||
    { echo "histogram_ladder.sh: $src holds no histogram_kernels.cuh" >&2; exit 2; }
# histogram_ladder_main.cu launches each as the checkout's main() does: 256 bins, 512 threads.
for line in 'constexpr int BLOCK_SIZE = 512;' 'constexpr int NUM_BINS = 256;'; do
    grep -q "$line" "$src/main.cu" ||
        { echo "histogram_ladder.sh: $src/main.cu is not b71f5c0's (256 bins, 512 threads)" >&2; exit 2; }
done
gpu=${2:-h100}
size=${3:-1073741824}
kernels=${4:-"1 2 3 4"}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup histogram_ladder "$gpu"
ladder_build -I"$src" "$root/tools/histogram_ladder_main.cu"
ladder_code
ladder_check 100003 "counts wrongly" 1 2 3 4
# The README's GB/s (H100, 2^30 bytes), kernel number first.
published() {
    printf '%s\n' 3.89 703.10 2297.21 2139.35 | sed -n "${1}p"
}
# A run reads the input once: N bytes.
ladder_rows "$gpu" published "$size" "GB/s" \
    "(model, $gpu, $size bytes; published: gpu-histogram-optimization README, H100)"
