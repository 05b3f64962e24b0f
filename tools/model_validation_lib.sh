# shellcheck shell=sh
# Shared by the time model's validation scripts (tools/sgemm_ladder.sh,
# tools/reduction_ladder.sh); sourced, not run.

# gpu_arch GPU: the compute capability digits of a row of the GPU table (emulator/vm/gpus.c).
gpu_arch() {
    case $1 in t4) echo 75 ;; a6000 | rtx3090) echo 86 ;; a100) echo 80 ;; l4) echo 89 ;; *) echo 90 ;; esac
}

# ptxas_regs PTXAS_LOG: "NAME REGISTERS" lines from ptxas -v output (what tools/sass.py reads),
# the COURSE_EMU_MODEL_REGS format.
ptxas_regs() {
    awk "/Compiling entry function '/ { split(\$0, q, \"'\"); name = q[2] }
         /Used [0-9]+ registers/ && name { match(\$0, /Used [0-9]+/); print name, substr(\$0, RSTART + 5, RLENGTH - 5); name = \"\" }" "$1"
}

# validation_setup NAME GPU: root (the course), build (BUILD, or root/build), work (build/NAME,
# made), arch (the GPU's) and bin (work/NAME_smARCH), for the script NAME.
# shellcheck disable=SC2034 # the scripts that source this file use them
validation_setup() {
    root=$(cd "$(dirname "$0")/.." && pwd)
    build=${BUILD:-$root/build}
    work=$build/$1
    mkdir -p "$work"
    arch=$(gpu_arch "$2")
    bin=$work/$1_sm$arch
}
