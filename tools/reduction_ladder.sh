#!/bin/sh
# The time model against published measurements, memory-bound: the reduction ladder of
# github.com/MasterSkepticista/parallel_reductions_cuda (kernels 1-6, 2^25 floats, effective
# GB/s on a GeForce RTX 3090 in its README).
#
#   tools/reduction_ladder.sh CHECKOUT [GPU] [KERNELS]
#
# CHECKOUT is a checkout of that repository (its code is not part of this course: this script
# only builds it). Compiles its reduce_sum.cu with its main() renamed, beside
# tools/reduction_ladder_main.cu, for the GPU's architecture (rtx3090: sm_86), reads each
# kernel's registers from ptxas -v, runs each of KERNELS (default 1 to 6) once per block size
# (64 to 1024) on the CPU emulator with COURSE_EMU_MODEL=GPU (default rtx3090), and prints one
# line per kernel: the model's best effective GB/s over the block sizes (4 * 2^25 bytes over
# the modelled time, as the checkout counts) beside the README's, with the error. The README
# does not say which block size its table used; its main() prints all five, so the best is
# assumed. Needs nvcc and a built emulator (build/emulator); BUILD overrides the build folder.
set -eu
[ $# -ge 1 ] || { echo "usage: tools/reduction_ladder.sh CHECKOUT [GPU] [KERNELS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
[ -f "$src/reduce_sum.cu" ] || { echo "reduction_ladder.sh: $src holds no reduce_sum.cu" >&2; exit 2; }
gpu=${2:-rtx3090}
kernels=${3:-"1 2 3 4 5 6"}
# shellcheck source=tools/model_validation_lib.sh
. "$(dirname "$0")/model_validation_lib.sh"
validation_setup reduction_ladder "$gpu"
gencode="arch=compute_$arch,code=[sm_$arch,compute_$arch]"
nice nvcc -O3 -lineinfo -Xptxas -v -gencode "$gencode" -Dmain=upstream_main \
    -c "$src/reduce_sum.cu" -o "$work/reduce_sum.o" 2>"$work/ptxas.txt" ||
    { cat "$work/ptxas.txt" >&2; exit 1; }
nice nvcc -O3 -cudart shared -gencode "$gencode" "$root/tools/reduction_ladder_main.cu" \
    "$work/reduce_sum.o" -lcublas -lcublasLt -o "$bin"
ladder_code
# The README's table (effective GB/s on an RTX 3090, N = 2^25), kernel number first.
published() {
    case $1 in 1) echo 9.9 ;; 2) echo 223 ;; 3) echo 317 ;; 4) echo 331 ;; 5) echo 618 ;; 6) echo 859 ;; *) echo 0 ;; esac
}
printf '%-3s %10s %10s %8s %6s %-8s %s\n' "#" "model GB/s" "published" "error" "block" "bound" \
    "(model, $gpu, 2^25 floats; published: parallel_reductions_cuda README, RTX 3090)"
for k in $kernels; do
    out=$work/model_$k.txt
    secs=$(model_run "$gpu" "$out" "$k")
    # One model line per block size, in the order 64 .. 1024: the fastest is kept.
    awk -v k="$k" -v pub="$(published "$k")" -v secs="$secs" '
        /^model / { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
          split(f["block"], b, ","); gbs = 4 * 2 ^ 25 / (f["ms"] * 1e6)
          if (gbs > best) { best = gbs; block = b[1]; bound = f["bound"] } }
        END { err = pub > 0 ? sprintf("%+.0f%%", 100 * (best - pub) / pub) : "-"
              printf "%-3s %10.1f %10s %8s %6s %-8s (%s s of CPU on the emulator)\n", k, best, pub, err, block, bound, secs }' "$out"
done
