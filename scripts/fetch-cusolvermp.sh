#!/usr/bin/env bash
# The GPU half of the MPI layer needs cuSOLVERMp and NCCL >= 2.29 (CUDA 13.0's own NCCL, 2.28,
# lacks a symbol cuSOLVERMp 0.9 calls), which come as PyPI wheels. This downloads them and
# unpacks them into DIR (default deps/cusolvermp of the source tree, where CMake looks without
# -DMINV_CUSOLVERMP_ROOT); then reconfigure the CUDA build:
#   scripts/fetch-cusolvermp.sh [DIR] && cmake -S . -B build
# At run time the plugin libminv_mpi_cusolvermp finds them by its RPATH; on another machine,
# unpack them there and point LD_LIBRARY_PATH at DIR/nvidia/{cu13,nccl,cublasmp/cu13}/lib.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$root/deps/cusolvermp}
mkdir -p "$dir/wheels"
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$dir/wheels" \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    'nvidia-cusolvermp-cu13>=0.9,<0.10' 'nvidia-cublasmp-cu13>=0.10.0.3695,<0.11' 'nvidia-nccl-cu13>=2.29'
for w in "$dir"/wheels/*.whl; do
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$dir"
done
ls "$dir"/nvidia/cu13/include/cusolverMp.h "$dir"/nvidia/nccl/lib/libnccl.so.2 "$dir"/nvidia/cublasmp/cu13/lib/libcublasmp.so.0
echo "fetch-cusolvermp: unpacked into $dir"
