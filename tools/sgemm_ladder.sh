#!/bin/sh
# The time model against published measurements: Simon Boehm's SGEMM_CUDA ladder.
#
#   tools/sgemm_ladder.sh CHECKOUT [GPU] [SIZE] [KERNELS]
#
# CHECKOUT is a checkout of github.com/siboehm/SGEMM_CUDA (its code is not part of this
# course: this script only builds it). Builds its kernels with tools/sgemm_ladder_main.cu
# for the GPU's architecture (a6000: sm_86), reads each kernel's registers from ptxas -v
# (as tools/sass.py does), runs each of KERNELS (default 1 to 10) once on the CPU
# emulator at SIZE (default 4096) with COURSE_EMU_MODEL=GPU (default a6000), and prints one
# line per kernel: the model's GFLOP/s beside the README's published ones (A6000), with the
# error. Needs nvcc and a built emulator (build/emulator); BUILD overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/sgemm_ladder.sh CHECKOUT [GPU] [SIZE] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
gpu=${2:-a6000}
size=${3:-4096}
kernels=${4:-"1 2 3 4 5 6 7 8 9 10"}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup sgemm_ladder "$gpu"
if [ ! -x "$bin" ] || [ "$src/src/runner.cu" -nt "$bin" ] || [ "$root/tools/sgemm_ladder_main.cu" -nt "$bin" ]; then
    nice nvcc -O3 -std=c++17 -lineinfo -cudart shared -Xptxas -v \
        -gencode "arch=compute_$arch,code=[sm_$arch,compute_$arch]" -I"$src/src" \
        "$root/tools/sgemm_ladder_main.cu" "$src/src/runner.cu" -lcublas -o "$bin" 2>"$work/ptxas.txt" ||
        { cat "$work/ptxas.txt" >&2; exit 1; }
fi
ptxas_regs "$work/ptxas.txt" >"$work/regs.txt"
# The README's table (GFLOP/s on an A6000 at 4096), kernel number first.
published() {
    case $1 in 1) echo 309.0 ;; 2) echo 1986.5 ;; 3) echo 2980.3 ;; 4) echo 8474.7 ;; 5) echo 15971.7 ;;
    6) echo 18237.3 ;; 7) echo 16213.4 ;; 8) echo 16459.2 ;; 9) echo 19721.0 ;; 10) echo 21779.3 ;;
    11) echo 17278.3 ;; *) echo 0 ;; esac
}
printf '%-3s %12s %12s %8s %-8s %s\n' "#" "model GF/s" "published" "error" "bound" "(model, $gpu, $size^3; published: SGEMM_CUDA README, A6000)"
for k in $kernels; do
    out=$work/model_$k.txt
    rm -f "$out"
    start=$(date +%s)
    LD_LIBRARY_PATH=$build/emulator/lib COURSE_EMU_MODEL=$gpu COURSE_EMU_MODEL_REGS=$work/regs.txt \
        COURSE_EMU_MODEL_OUT=$out "$bin" "$k" "$size"
    secs=$(($(date +%s) - start))
    awk -v k="$k" -v n="$size" -v pub="$(published "$k")" -v secs="$secs" '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } ms += f["ms"]; bound = f["bound"] }
        END { gf = 2 * n * n * n / (ms * 1e-3) / 1e9
              err = pub > 0 ? sprintf("%+.0f%%", 100 * (gf - pub) / pub) : "-"
              printf "%-3s %12.1f %12s %8s %-8s (%ss on the emulator)\n", k, gf, pub, err, bound, secs }' "$out"
done
