#!/bin/sh
# Every course binary loads the CUDA runtime as a shared library (NEEDED libcudart.so.13, or
# .so.12 when built with CUDA 12), and every CUDA, cuBLAS and NCCL symbol any of them imports
# is defined by the emulator's stand-ins of the same soname and version, so LD_LIBRARY_PATH
# alone can swap them.
#   test_runtime_linkage.sh BIN_DIR EMULATOR_LIB_DIR
set -eu
bin=$1
lib=$2
# The toolkit's major version, from the runtime stand-in the build made.
cudart=$(ls "$lib"/libcudart.so.[0-9]* | head -n 1)
v=${cudart##*.so.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
n=0
for exe in "$bin"/*; do
    [ -f "$exe" ] && [ -x "$exe" ] || continue
    n=$((n + 1))
    if ! readelf -d "$exe" | grep -q "NEEDED.*\[libcudart\.so\.$v\]"; then
        echo "$exe: does not load libcudart.so.$v (is the CUDA runtime linked statically?)"
        bad=1
    fi
    nm -D --undefined-only "$exe" | awk '{ print $2 }' >>"$tmp/imports"
done
[ "$n" -gt 0 ] || { echo "no binaries in $bin"; exit 1; }
grep -E "@libcudart\.so\.$v\$|@libcublas\.so\.$v\$|^nccl" "$tmp/imports" | sed 's/@.*//' |
    sort -u >"$tmp/want"
nm -D --defined-only "$lib/libcudart.so.$v" "$lib/libcublas.so.$v" $(ls "$lib"/libnccl.so.2 2>/dev/null) |
    awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/have"
# The stand-ins' symbols carry the version the binaries ask for (cudaMalloc@libcudart.so.13).
for stand_in in libcudart libcublas; do
    if ! nm -D --defined-only "$lib/$stand_in.so.$v" | grep -q "@@$stand_in\.so\.$v\$"; then
        echo "$lib/$stand_in.so.$v: its symbols are not of version $stand_in.so.$v"
        bad=1
    fi
done
missing=$(comm -23 "$tmp/want" "$tmp/have")
if [ -n "$missing" ]; then
    echo "imported by the course but not defined by the emulator's stand-ins:" $missing
    bad=1
fi
[ "$bad" = 0 ] && echo "$n binaries load libcudart.so.$v; the stand-ins define all $(wc -l <"$tmp/want") symbols they import"
exit "$bad"
