#!/usr/bin/env bash
# On the development machine, before a run on the GPU machine: drop the test outputs from the
# build (the carried tree is size-limited) and bundle the NetCDF/HDF5/gfortran libraries the
# GPU machine lacks into devlibs/. Then carry `build` and `devlibs`. The CUDA plugin
# (libminv_cuda.so) lies in the build beside libminv, where libminv looks for it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MINV_BUILD:-build}
find "$build" -maxdepth 3 -type d -name 'run_*' -exec sh -c 'rm -rf "$1"/*' _ {} \;
rm -rf "$build"/tests/fortran/install_test "$build"/default  # main.sh makes default/ again
# the programs, and the CUDA plugin libminv opens at run time (not among their ldd's)
bins=$(find "$build" -type f \( -perm -u+x \( -name 'test_*' -o -name 'example_*' -o -name 'bench_*' -o -name minv \) \
            -o -name 'libminv_cuda.so' \) | grep -v CMakeFiles)
# shellcheck disable=SC2086
../shared/device/bundle-libs devlibs $bins
du -sh "$build" devlibs
