#!/bin/sh
# Every course binary loads the CUDA runtime as a shared library (NEEDED libcudart.so.13),
# and every CUDA, cuBLAS and NCCL symbol any of them imports is defined by the emulator's
# stand-ins, so LD_LIBRARY_PATH alone can swap them.
#   test_runtime_linkage.sh BIN_DIR EMULATOR_LIB_DIR
set -eu
bin=$1
lib=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
n=0
for exe in "$bin"/*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    n=$((n + 1))
    if ! readelf -d "$exe" | grep -q 'NEEDED.*\[libcudart\.so\.13\]'; then
        echo "$exe: does not load libcudart.so.13 (is the CUDA runtime linked statically?)"
        bad=1
    fi
    nm -D --undefined-only "$exe" | awk '{ print $2 }' >>"$tmp/imports"
done
[ "$n" -gt 0 ] || { echo "no binaries in $bin"; exit 1; }
grep -E '@libcudart\.so\.13$|@libcublas\.so\.13$|^nccl' "$tmp/imports" | sed 's/@.*//' |
    sort -u >"$tmp/want"
nm -D --defined-only "$lib/libcudart.so.13" "$lib/libcublas.so.13" "$lib/libnccl.so.2" |
    awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/have"
missing=$(comm -23 "$tmp/want" "$tmp/have")
if [ -n "$missing" ]; then
    echo "imported by the course but not defined by the emulator's stand-ins:" $missing
    bad=1
fi
[ "$bad" = 0 ] && echo "$n binaries load libcudart.so.13; the stand-ins define all $(wc -l <"$tmp/want") symbols they import"
exit "$bad"
