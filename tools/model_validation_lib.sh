# shellcheck shell=sh
# Shared by the time model's validation scripts (tools/*_ladder.sh, which
# tools/model_validation.py runs); sourced, not run.

# gpu_arch GPU: the compute capability digits of a row of the GPU table (emulator/vm/gpus.c).
gpu_arch() {
    case $1 in t4) echo 75 ;; a6000 | rtx3090) echo 86 ;; a100 | a100-40gb) echo 80 ;; l4) echo 89 ;; *) echo 90 ;; esac  # h100, h200
}

# ptxas_regs PTXAS_LOG: "NAME REGISTERS" lines from ptxas -v output (what tools/sass.py reads),
# the COURSE_EMU_MODEL_REGS format.
ptxas_regs() {
    awk "/Compiling entry function '/ { split(\$0, q, \"'\"); name = q[2] }
         /Used [0-9]+ registers/ && name { match(\$0, /Used [0-9]+/); print name, substr(\$0, RSTART + 5, RLENGTH - 5); name = \"\" }" "$1"
}

# cuda_tool NAME: the path of NAME (nvdisasm, cuobjdump): on PATH, beside nvcc, in
# BUILD/nvdisasm (where ./course installs nvdisasm and sass_setup installs both) or from a user's
# pip install of nvidia-cuda-NAME; empty if none.
cuda_tool() {
    command -v "$1" 2>/dev/null && return 0
    for dir in "$(dirname "$(command -v nvcc)")" "$build/nvdisasm" "$HOME"/.local/lib/python3*/site-packages/nvidia; do
        [ -d "$dir" ] && find "$dir" -name "$1" -type f 2>/dev/null | head -n 1 | grep . && return 0
    done
    return 0
}

# sass_setup BINARY: SASS (the COURSE_EMU_MODEL_SASS file, work/sass.txt, from BINARY's sm_ARCH
# code: tools/sass.py --lines), with nvdisasm and cuobjdump found by cuda_tool or installed from
# PyPI (nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump, nvcc's major version) into BUILD/nvdisasm;
# where neither works, empty, and the model counts PTX instructions: the script's output says so
# on a line of its own, which tools/model_validation.py shows beside the set.
# shellcheck disable=SC2034 # the scripts that source this file use SASS
sass_setup() {
    if [ -z "$(cuda_tool nvdisasm)" ] || [ -z "$(cuda_tool cuobjdump)" ]; then
        major=$(nvcc --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
        python3 -m pip install -q --target "$build/nvdisasm" "nvidia-cuda-nvdisasm==$major.*" \
            "nvidia-cuda-cuobjdump==$major.*" >"$work/pip.txt" 2>&1 ||
            echo "pip could not install nvdisasm and cuobjdump (log: $work/pip.txt)" >&2
    fi
    nvdisasm=$(cuda_tool nvdisasm)
    cuobjdump=$(cuda_tool cuobjdump)
    SASS=
    if [ -n "$nvdisasm" ] && [ -n "$cuobjdump" ]; then
        python3 "$root/tools/sass.py" --lines "$1" --arch "$arch" --nvdisasm "$nvdisasm" \
            --cuobjdump "$cuobjdump" --out "$work/elf" >"$work/sass.txt" && SASS=$work/sass.txt
    fi
    [ -n "$SASS" ] || echo "# PTX counted: no nvdisasm and cuobjdump (PyPI: nvidia-cuda-nvdisasm, nvidia-cuda-cuobjdump)"
}

# validation_setup NAME GPU: root (the course), build (BUILD, or root/build), work
# (build/NAME/smARCH, made: one per architecture, so that sets of two GPUs can run at once
# without overwriting each other's registers and SASS), arch (the GPU's) and bin
# (work/NAME_smARCH), for the script NAME.
# shellcheck disable=SC2034 # the scripts that source this file use them
validation_setup() {
    root=$(cd "$(dirname "$0")/.." && pwd)
    build=${BUILD:-$root/build}
    arch=$(gpu_arch "$2")
    work=$build/$1/sm$arch
    mkdir -p "$work"
    bin=$work/$1_sm$arch
}

# ladder_build NVCC_ARGS...: build $bin with nvcc for the GPU's architecture (-O3, C++17, line
# info, the shared runtime, ptxas -v into work/ptxas.txt) and NVCC_ARGS (the ladder's own flags and
# sources); on failure print ptxas's log and exit 1.
# shellcheck disable=SC2154 # arch, work and bin: set by validation_setup
ladder_build() {
    nice nvcc -O3 -std=c++17 -lineinfo -cudart shared -Xptxas -v \
        -gencode "arch=compute_$arch,code=[sm_$arch,compute_$arch]" "$@" -o "$bin" \
        2>"$work/ptxas.txt" || { cat "$work/ptxas.txt" >&2; exit 1; }
}

# ladder_code: the registers (work/regs.txt, from the build's ptxas log) and the SASS (sass_setup)
# of $bin's kernels, for model_run.
ladder_code() {
    ptxas_regs "$work/ptxas.txt" >"$work/regs.txt"
    sass_setup "$bin"
}

# ladder_check SIZE WHAT KERNEL...: run $bin KERNEL SIZE --check on the CPU emulator for each
# KERNEL (the ladder's main compares the kernel's output with the host's); at the first that
# fails, print "SCRIPT: kernel KERNEL WHAT on the emulator" and exit 1.
# shellcheck disable=SC2154 # build and bin: set by validation_setup
ladder_check() {
    check_size=$1 check_what=$2
    shift 2
    for k in "$@"; do
        LD_LIBRARY_PATH=$build/emulator/lib "$bin" "$k" "$check_size" --check ||
            { echo "$(basename "$0"): kernel $k $check_what on the emulator" >&2; exit 1; }
    done
}

# model_run GPU OUT ARGS...: run $bin ARGS once on the CPU emulator with the model of GPU
# (registers from $work/regs.txt, SASS from $SASS), its model lines to OUT (emptied first), and
# print the CPU seconds it and the processes it started took (the emulator's device server among
# them: tools/cpu_seconds.py, which writes them to OUT.cpu).
# shellcheck disable=SC2154 # work, build, bin and SASS: set by the sourcing script
model_run() {
    rm -f "$2"
    python3 "$root/tools/cpu_seconds.py" "$2.cpu" env LD_LIBRARY_PATH="$build/emulator/lib" \
        COURSE_EMU_MODEL="$1" COURSE_EMU_MODEL_REGS="$work/regs.txt" COURSE_EMU_MODEL_SASS="$SASS" \
        COURSE_EMU_MODEL_OUT="$2" "$bin" "$3" ${4:+"$4"} >/dev/null
    cat "$2.cpu"
}

# ladder_rows GPU PUBLISHED WORK UNIT NOTE: for each of $kernels, run $bin KERNEL $size once on
# the CPU emulator with the model of GPU (registers from $work/regs.txt, SASS from $SASS) and
# print one line: the model's throughput (WORK, a run's flops or bytes, over its modelled time, in
# giga-UNIT), the published one (the command PUBLISHED KERNEL prints it, 0 for none), the error,
# the bound and the CPU seconds the estimate took, after a header line ending in NOTE.
# shellcheck disable=SC2154 # size, kernels, work, build, bin and SASS: set by the sourcing script
ladder_rows() {
    printf '%-3s %12s %12s %8s %-8s %s\n' "#" "model $4" "published" "error" "bound" "$5"
    for k in $kernels; do
        out=$work/model_$k.txt
        secs=$(model_run "$1" "$out" "$k" "$size")
        # shellcheck disable=SC2086 # PUBLISHED is a command with its leading arguments
        awk -v k="$k" -v amount="$3" -v pub="$($2 "$k")" -v secs="$secs" '
            /^model / { for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } ms += f["ms"]; bound = f["bound"] }
            END { rate = amount / (ms * 1e-3) / 1e9
                  err = pub > 0 ? sprintf("%+.0f%%", 100 * (rate - pub) / pub) : "-"
                  printf "%-3s %12.1f %12s %8s %-8s (%s s of CPU on the emulator)\n", k, rate, pub, err, bound, secs }' "$out"
    done
}

# gemm_ladder_rows GPU PUBLISHED: ladder_rows for GEMMs of $size^3, in GFLOP/s (2 size^3 flops).
gemm_ladder_rows() {
    ladder_rows "$1" "$2" "$(awk -v n="$size" 'BEGIN { printf "%.0f", 2 * n * n * n }')" "GF/s" \
        "(model, $1, $size^3; published: emulator/MODEL.md)"
}
