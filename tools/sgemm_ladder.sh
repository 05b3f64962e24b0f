#!/bin/sh
# The time model against published measurements: Simon Boehm's SGEMM_CUDA ladder, as measured
# on three GPUs at 4096^3 (its README on an RTX A6000; two public reruns on an A100 and an
# H100, emulator/MODEL.md cites them).
#
#   tools/sgemm_ladder.sh CHECKOUT [GPU] [SIZE] [KERNELS]
#
# CHECKOUT is a checkout of github.com/siboehm/SGEMM_CUDA (its code is not part of this
# course: this script only builds it). Builds its kernels with tools/sgemm_ladder_main.cu
# for the GPU's architecture (a6000: sm_86, a100: sm_80, h100: sm_90), reads each kernel's
# registers from ptxas -v and its SASS per source line (tools/sass.py --lines), runs each of
# KERNELS (default: the ones published for GPU) once on the CPU emulator at SIZE (default
# 4096) with COURSE_EMU_MODEL=GPU (default a6000), and prints one line per kernel: the model's
# GFLOP/s beside the published ones, with the error. Needs nvcc and a built emulator
# (build/emulator); BUILD overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/sgemm_ladder.sh CHECKOUT [GPU] [SIZE] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
gpu=${2:-a6000}
size=${3:-4096}
case $gpu in h100) all="1 2 3 4 5 6 9 10" ;; *) all="1 2 3 4 5 6 7 8 9 10" ;; esac
kernels=${4:-$all}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup sgemm_ladder "$gpu"
if [ ! -x "$bin" ] || [ "$src/src/runner.cu" -nt "$bin" ] || [ "$root/tools/sgemm_ladder_main.cu" -nt "$bin" ]; then
    ladder_build -I"$src/src" "$root/tools/sgemm_ladder_main.cu" "$src/src/runner.cu" -lcublas
fi
ladder_code
# The published GFLOP/s at 4096^3, GPU and kernel number first (sources: emulator/MODEL.md).
published() {
    case $1/$2 in
    a6000/1) echo 309.0 ;; a6000/2) echo 1986.5 ;; a6000/3) echo 2980.3 ;; a6000/4) echo 8474.7 ;;
    a6000/5) echo 15971.7 ;; a6000/6) echo 18237.3 ;; a6000/7) echo 16213.4 ;; a6000/8) echo 16459.2 ;;
    a6000/9) echo 19721.0 ;; a6000/10) echo 21779.3 ;; a6000/11) echo 17278.3 ;;
    a100/1) echo 290 ;; a100/2) echo 3010 ;; a100/3) echo 5440 ;; a100/4) echo 10200 ;;
    a100/5) echo 14470 ;; a100/6) echo 15370 ;; a100/7) echo 15280 ;; a100/8) echo 14950 ;;
    a100/9) echo 15860 ;; a100/10) echo 16780 ;;
    h100/1) echo 498.7 ;; h100/2) echo 6048.1 ;; h100/3) echo 9189.8 ;; h100/4) echo 17152.5 ;;
    h100/5) echo 25860.5 ;; h100/6) echo 31626.7 ;; h100/9) echo 31264.4 ;; h100/10) echo 36318.5 ;;
    *) echo 0 ;;
    esac
}
gemm_ladder_rows "$gpu" "published $gpu"
