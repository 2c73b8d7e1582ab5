#!/usr/bin/env bash
# On the GPU machine (scripts/device-pack-mpi.sh packs on this one): device-run.sh for the MPI
# layer. Unpacks the carried cuSOLVERMp wheel where the plugin's RPATH looks (deps/cusolvermp),
# lets Open MPI run as root with more ranks than cores, keeps NVLink multicast off, then runs
# what follows:
#   scripts/device-mpi.sh LIBDIR COMMAND...
set -u
libdir=$1; shift
here=$(pwd)
for w in "$here/$libdir"/nvidia_cusolvermp_cu13-*.whl; do
    [ -f "$w" ] || continue
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$here/deps/cusolvermp"
done
export LD_LIBRARY_PATH="$here/deps/cusolvermp/nvidia/cu13/lib:${LD_LIBRARY_PATH:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export NCCL_NVLS_ENABLE=0
export MINV_DEVICE_WRAPPER="scripts/device-mpi.sh $libdir" # what gpu-suite.sh names as its command
exec bash "$here/scripts/device-run.sh" "$libdir" "$@"
