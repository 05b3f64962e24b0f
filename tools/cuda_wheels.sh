#!/bin/sh
# cuda_wheels.sh PREFIX SPEC: install NVIDIA's CUDA toolkit from PyPI into PREFIX/cuda-X.Y (no
# root, nothing outside PREFIX) and print the folder of its nvcc. Run by ./course when this
# machine has no supported nvcc, or when COURSE_CUDA=X.Y asks for that release.
#
# Why wheels: NVIDIA publishes nvcc, the runtime, cuBLAS and NCCL on PyPI, so any machine with
# python3 and pip gets a toolkit without NVIDIA's apt repository or root. The metapackage
# cuda-toolkit pins its components to one release; its extras pick the parts the course builds
# with (nvcc, the runtime, cuBLAS, cuRAND, CCCL, the profiler API header, nvdisasm for ./course
# sass), and nvidia-nccl-cuN brings NCCL. cuRAND's wheel (nvidia-curand for CUDA 13, the
# metapackage's extra curand) holds curand.h, which the emulator's cuRAND stand-in is built
# against, and libcurand.so.10, whose host generators its tests hold the stand-in to. SPEC is
# pip's version range for the metapackage (">=13,<14": the newest 13.x; "==13.0.*": release
# 13.0); the newest release in it is installed.
#
# The wheels lay the toolkit out as PREFIX/cuda-X.Y/nvidia/cuN/{bin,include,lib,nvvm} and NCCL
# in nvidia/nccl, with versioned libraries alone (libcudart.so.13). What a build looks for is
# added beside them: the unversioned names (libcudart.so, libcublas.so...) and NCCL's header
# and library in the toolkit's include/ and lib/, so that CMake's FindCUDAToolkit finds
# everything from nvcc's folder. A folder is complete once it has lost its .part suffix; one
# installed before cuRAND was in the list (no curand.h) is installed again, once.
set -eu
[ $# -eq 2 ] || { echo "usage: cuda_wheels.sh PREFIX SPEC" >&2; exit 2; }
prefix=$1
spec=$2
say() { printf 'course: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

python3 -m pip --version >/dev/null 2>&1 || die "pip is missing (Debian/Ubuntu: apt-get install python3-pip)"
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)

# The release the spec names today: the metapackage alone is a few kB.
meta=$(mktemp -d "${TMPDIR:-/tmp}/course-cuda.XXXXXX")
trap 'rm -rf "$meta"' EXIT
python3 -m pip download -q --no-deps --no-cache-dir -d "$meta" "cuda-toolkit$spec" \
    >"$meta/log" 2>&1 || die "pip found no cuda-toolkit$spec on PyPI: $(tail -n 1 "$meta/log")"
full=$(basename "$meta"/cuda_toolkit-*.whl | cut -d- -f2)
release=$(echo "$full" | cut -d. -f1-2)
major=${release%%.*}
dir=$prefix/cuda-$release
cuda=$dir/nvidia/cu$major
if [ ! -x "$cuda/bin/nvcc" ] || [ ! -e "$cuda/include/curand.h" ]; then
    say "installing CUDA $release from PyPI (cuda-toolkit $full, nvidia-nccl-cu$major) into $dir: about 1.5 GB, once"
    rm -rf "$dir.part"
    python3 -m pip install -q --no-cache-dir --target "$dir.part" \
        "cuda-toolkit[nvcc,cudart,cublas,curand,cccl,profiler,nvdisasm]==$full" \
        "nvidia-nccl-cu$major" \
        >"$prefix/pip-$release.log" 2>&1 ||
        die "pip could not install CUDA $release (log: $prefix/pip-$release.log)"
    part=$dir.part/nvidia/cu$major
    [ -x "$part/bin/nvcc" ] || die "no nvcc in the wheels of CUDA $release (log: $prefix/pip-$release.log)"
    for lib in "$part"/lib/lib*.so.* "$dir.part"/nvidia/nccl/lib/libnccl.so.*; do
        [ -e "$lib" ] || continue
        name=$(basename "$lib")
        [ -e "$part/lib/$name" ] || ln -s "../../nccl/lib/$name" "$part/lib/$name"
        [ -e "$part/lib/${name%%.so.*}.so" ] || ln -s "$name" "$part/lib/${name%%.so.*}.so"
    done
    ln -s ../../nccl/include/nccl.h "$part/include/nccl.h"
    rm -rf "$dir"
    mv "$dir.part" "$dir"
fi
echo "$cuda/bin"
