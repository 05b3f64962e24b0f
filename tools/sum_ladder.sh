#!/bin/sh
# The time model against a published vector-sum ladder, memory-bound: Simon Veitner's ten int
# reductions (github.com/simveit/effective_reduction: a grid-stride loop and a shared tree in two
# passes, then warp-synchronous last steps, one pass with an atomic a block, 12 ints a thread,
# int4 loads, CUB's DeviceReduce::Sum, shuffles, __reduce_add_sync), measured on 2^30 ints on an
# H100 and published in the checkout's README.md (GB/s, the 4 GiB read over the time; emulator/
# MODEL.md cites it).
#
#   tools/sum_ladder.sh CHECKOUT [GPU] [N] [KERNELS]
#
# CHECKOUT is a checkout of that repository at 0a26e98, the README's table (its code is not part
# of this course: this script only builds it). Builds its kernel_0.cu to kernel_9.cu with
# tools/sum_ladder_main.cu and its Makefile's flags for the GPU's architecture (h100: sm_90; the
# Makefile's sm_90a adds nothing these kernels use), reads each kernel's registers from ptxas -v
# and its SASS per source line (tools/sass.py --lines), checks every kernel's sum on the emulator
# (sum_ladder --check), then runs each of KERNELS (default 0-9) once on N ints (default 2^30)
# with COURSE_EMU_MODEL=GPU (default h100) and prints one line per kernel: the model's GB/s beside
# the published ones, with the error. Needs nvcc and a built emulator (build/emulator); BUILD
# overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/sum_ladder.sh CHECKOUT [GPU] [N] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
for k in 0 1 2 3 4 5 6 7 8 9; do
    [ -f "$src/kernel_$k.cu" ] || { echo "sum_ladder.sh: $src holds no kernel_$k.cu" >&2; exit 2; }
    # sum_ladder_main.cu launches each as the checkout's main() does: 512 threads, batches of 12.
    if ! grep -q 'const int threadsPerBlock = 512;' "$src/kernel_$k.cu" ||
        { [ "$k" -ge 3 ] && ! grep -q 'const int batchSize = 12;' "$src/kernel_$k.cu"; }; then
        echo "sum_ladder.sh: kernel_$k.cu's main() is not 0a26e98's (512 threads, 12 ints)" >&2
        exit 2
    fi
done
gpu=${2:-h100}
size=${3:-1073741824}
kernels=${4:-"0 1 2 3 4 5 6 7 8 9"}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup sum_ladder "$gpu"
ladder_build -w --use_fast_math --expt-relaxed-constexpr -I"$src" "$root/tools/sum_ladder_main.cu"
ladder_code
ladder_check 1001471 "sums wrongly" 0 1 2 3 4 5 6 7 8 9
# The README's GB/s (H100, 2^30 ints), kernel number first.
published() {
    printf '%s\n' 639.37 661.16 882.823 3226.86 3229.98 3190.53 3229.01 3229.62 3231.03 3231.54 |
        sed -n "$(($1 + 1))p"
}
# A run reads the input once: 4 N bytes.
ladder_rows "$gpu" published "$((4 * size))" "GB/s" \
    "(model, $gpu, $size ints; published: effective_reduction README, H100)"
