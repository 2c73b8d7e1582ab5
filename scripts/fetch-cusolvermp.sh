#!/usr/bin/env bash
# The GPU half of the MPI layer needs cuSOLVERMp, which comes as PyPI wheels. This downloads
# them and unpacks them into DIR (default deps/cusolvermp of the source tree, where CMake looks
# without -DMINV_CUSOLVERMP_ROOT); then reconfigure the CUDA build:
#   scripts/fetch-cusolvermp.sh [DIR] && cmake -S . -B build
#   MINV_CUSOLVERMP=0.8 scripts/fetch-cusolvermp.sh [DIR]
# 0.9 (the default) needs nvidia-cublasmp-cu13 and nvidia-nccl-cu13 >= 2.29 too (CUDA 13.0's
# own NCCL, 2.28, lacks a symbol it calls; that NCCL wheel is 300 MB). 0.8 needs neither: CUDA's
# own NCCL serves it, so it is the one to carry to a machine whose NCCL is CUDA's (23 MB).
# At run time the plugin libminv_mpi_cusolvermp finds the libraries by its RPATH; on another
# machine, unpack them there and put DIR/nvidia/cu13/lib (and, for 0.9, the nccl and cublasmp
# lib folders) on LD_LIBRARY_PATH.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-$root/deps/cusolvermp}
version=${MINV_CUSOLVERMP:-0.9}
case $version in
    0.8) wheels=('nvidia-cusolvermp-cu13>=0.8,<0.9') ;;
    0.9) wheels=('nvidia-cusolvermp-cu13>=0.9,<0.10' 'nvidia-cublasmp-cu13>=0.10.0.3695,<0.11' 'nvidia-nccl-cu13>=2.29') ;;
    *) echo "fetch-cusolvermp: MINV_CUSOLVERMP=$version: expected 0.8 or 0.9" >&2; exit 2 ;;
esac
rm -rf "$dir/nvidia" "$dir/wheels"
mkdir -p "$dir/wheels"
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$dir/wheels" \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 "${wheels[@]}"
for w in "$dir"/wheels/*.whl; do
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$dir"
done
ls "$dir"/nvidia/cu13/include/cusolverMp.h "$dir"/nvidia/cu13/lib/libcusolverMp.so.0
echo "fetch-cusolvermp: cuSOLVERMp $version unpacked into $dir"
