#!/usr/bin/env bash
# device-pack.sh for the MPI layer: besides what device-pack.sh bundles (NetCDF, HDF5,
# gfortran), the GPU machine lacks ScaLAPACK and PnetCDF (it has Open MPI and OpenBLAS), and
# cuSOLVERMp, carried as its wheel (0.8: 23 MB; fetch it with MINV_CUSOLVERMP=0.8
# scripts/fetch-cusolvermp.sh, so that CUDA's own NCCL serves it) and unpacked there by
# scripts/device-mpi.sh. Then carry `build` and `devlibs`.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MINV_BUILD:-build}
bash scripts/device-pack.sh
mpi_bins=$(find "$build" -type f -perm -u+x \( -name 'test_mpi_*' -o -name 'bench_mpi_*' -o -name 'example_*_mpi' -o -name 'minv-mpi' \) | grep -v CMakeFiles)
for bin in $mpi_bins "$build"/src_mpi/libminv_mpi.so.*[0-9]; do
    ldd "$bin" | awk '$3 ~ /^\// {print $1, $3}' | while read -r name path; do
        if [[ $name =~ ^(libscalapack|libpnetcdf) ]]; then cp -L -n "$path" "devlibs/$name"; fi
    done
done
cp -n deps/cusolvermp/wheels/nvidia_cusolvermp_cu13-*.whl devlibs/ 2>/dev/null ||
    echo "device-pack-mpi: no cuSOLVERMp wheel in deps/cusolvermp/wheels: the GPU half will fall back to ScaLAPACK"
du -sh devlibs
