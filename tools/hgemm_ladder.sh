#!/bin/sh
# The time model against a published mma.sync ladder: Alex Armbruster's six HGEMM kernels
# (fp16 in and out, mma.sync m16n8k8, ldmatrix, swizzled shared memory, register-staged copies),
# measured on a Tesla T4 with its clocks locked at 1590 MHz (the README's figure, read at
# 4096^3; emulator/MODEL.md cites it).
#
#   tools/hgemm_ladder.sh CHECKOUT [SIZE] [KERNELS]
#
# CHECKOUT is a checkout of github.com/alexarmbr/matmul-playground (its code is not part of this
# course: this script only builds it). Builds its src/kernel*.cu with tools/hgemm_ladder_main.cu
# for sm_75 and its own flags (-Xptxas -dlcm=cg, --expt-relaxed-constexpr), reads each kernel's
# registers from ptxas -v and its SASS per source line (tools/sass.py --lines), runs each of
# KERNELS (default 1-6) once on the CPU emulator at SIZE (default 4096) with
# COURSE_EMU_MODEL=t4, and prints one line per kernel: the model's GFLOP/s beside the published
# ones, with the error. Needs nvcc and a built emulator (build/emulator); BUILD overrides the
# build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/hgemm_ladder.sh CHECKOUT [SIZE] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
size=${2:-4096}
kernels=${3:-1 2 3 4 5 6}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup hgemm_ladder t4
if [ ! -x "$bin" ] || [ "$src/src/kernel6.cu" -nt "$bin" ] || [ "$root/tools/hgemm_ladder_main.cu" -nt "$bin" ]; then
    ladder_build -Xptxas -dlcm=cg --expt-relaxed-constexpr -I"$src/src" \
        "$root/tools/hgemm_ladder_main.cu" "$src"/src/kernel[1-6].cu
fi
ladder_code
# The published GFLOP/s at 4096^3, read off the checkout's hgemm_performance.png (to about
# 100 GFLOP/s: a line is 2 pixels, 88 GFLOP/s a pixel); cuBLAS HGEMM there: 49400.
published() {
    case $1 in
    1) echo 4000 ;; 2) echo 14000 ;; 3) echo 28700 ;; 4) echo 33800 ;; 5) echo 41800 ;;
    6) echo 43100 ;; *) echo 0 ;;
    esac
}
gemm_ladder_rows t4 published
