#!/usr/bin/env bash
# On the GPU machine (scripts/device-pack.sh prepares the build and devlibs on this one): make a build carried from the
# development machine usable there, then run what follows. CTest files and RPATHs hold the
# development machine's absolute paths, so that path is linked to this checkout; the
# NetCDF/HDF5/gfortran libraries the GPU machine lacks come in LIBDIR.
#   scripts/device-run.sh LIBDIR COMMAND...
set -u
libdir=$1; shift
here=$(pwd)
origin=${MINV_ORIGIN:-/work/main}
if [ "$here" != "$origin" ] && [ ! -e "$origin" ]; then
    mkdir -p "$(dirname "$origin")" && ln -s "$here" "$origin"
fi
export LD_LIBRARY_PATH="$here/$libdir:${LD_LIBRARY_PATH:-}"
export MINV_DEVICE_WRAPPER=${MINV_DEVICE_WRAPPER:-"scripts/device-run.sh $libdir"} # what gpu-suite.sh names as its command
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
exec "$@"
