#!/bin/sh
# The time model against a published Ampere mma.sync ladder: Thien Tran's (gau-nernst) seven
# BF16 GEMM kernels (block and warp tiling with mma.sync m16n8k16 and ldmatrix; then cp.async,
# padded and swizzled shared memory, ldmatrix.x4 for B, two-stage pipelining, threadblock
# swizzling), measured at 4096^3 on an A100-SXM4-40GB (Modal) and published in the checkout's
# 02b_matmul_sm80/README.md (emulator/MODEL.md cites it).
#
#   tools/mma_ladder.sh CHECKOUT [SIZE] [KERNELS]
#
# CHECKOUT is a checkout of github.com/gau-nernst/learn-cuda (its code is not part of this
# course: this script only builds it). Builds its 02b_matmul_sm80/matmul_v*.cu with
# tools/mma_ladder_main.cu for sm_80 and PyTorch's flags (below), reads each kernel's registers from ptxas -v and its SASS
# per source line (tools/sass.py --lines), checks every kernel's result on the emulator at 256
# (mma_ladder --check), then runs each of KERNELS (default 1-7) once at SIZE (default 4096) with
# COURSE_EMU_MODEL=a100-40gb and prints one line per kernel: the model's GFLOP/s beside the
# published ones, with the error. Needs nvcc and a built emulator (build/emulator); BUILD
# overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/mma_ladder.sh CHECKOUT [SIZE] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)/02b_matmul_sm80
[ -f "$src/matmul_v6.cu" ] || { echo "mma_ladder.sh: $1 holds no 02b_matmul_sm80/matmul_v6.cu" >&2; exit 2; }
size=${2:-4096}
kernels=${3:-1 2 3 4 5 6 7}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup mma_ladder a100-40gb
# The checkout builds through PyTorch's cpp_extension, whose nvcc flags these are: -O3
# -lineinfo -Xptxas=-v from its main.py, --expt-relaxed-constexpr and the no-conversion
# macros from PyTorch's defaults.
ladder_build --expt-relaxed-constexpr \
    -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ \
    -D__CUDA_NO_HALF2_OPERATORS__ -I"$src" \
    "$root/tools/mma_ladder_main.cu" "$src"/matmul_v1.cu "$src"/matmul_v5.cu "$src"/matmul_v6.cu
ladder_code
ladder_check 256 "computes a wrong product" 1 2 3 4 5 6 7
# The published TFLOP/s at 4096^3 (A100-SXM4-40GB column), in GFLOP/s.
published() {
    case $1 in
    1) echo 59920 ;; 2) echo 64940 ;; 3) echo 166780 ;; 4) echo 190940 ;; 5) echo 160420 ;;
    6) echo 220770 ;; 7) echo 220660 ;; *) echo 0 ;;
    esac
}
gemm_ladder_rows a100-40gb published
