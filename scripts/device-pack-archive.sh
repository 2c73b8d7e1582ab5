#!/usr/bin/env bash
# When the build no longer fits the GPU machine's carry limit (64 MiB with the working tree and
# devlibs; the CUDA plugin alone is about 17 MB): run device-pack.sh (or device-pack-mpi.sh)
# first, then this, which writes the build's programs and libraries, stripped, into
# carry/build.tar.xz (about 5 MB where the build is 40), and, with a second build or library
# folder named, its libraries into carry/baseline.tar.xz for an A/B run in one call. Carry
# `devlibs` and `carry`; on the GPU machine start the command with
#   rm -rf build && mkdir build && tar -C build -xJf carry/build.tar.xz &&
# and for the baseline, unpacked to a folder put first on LD_LIBRARY_PATH (libminv finds the
# plugin beside itself):
#   mkdir -p /tmp/base && tar -C /tmp/base -xJf carry/baseline.tar.xz
#   scripts/device-pack-archive.sh [BASELINE_BUILD_OR_LIB_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MINV_BUILD:-build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p carry
grep -qx '/carry/' .git/info/exclude 2>/dev/null || echo '/carry/' >>.git/info/exclude
rsync -a --exclude '*.o' --exclude CMakeFiles --exclude '*.a' --exclude '*.mod' --exclude Testing \
    --exclude '*.log' --exclude 'run_*' --exclude default --exclude '*.nc' "$build"/ "$stage"/build/
find "$stage"/build -type f -perm -u+x -exec sh -c 'file "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
tar -C "$stage"/build -cf - . | xz -T0 -6 >carry/build.tar.xz
if [ $# -ge 1 ]; then
    base=$1
    [ -d "$base/src_c" ] && base=$base/src_c # a build folder: its libraries
    mkdir -p "$stage"/base
    cp -L "$base"/libminv.so.0 "$base"/libminv_cuda.so "$stage"/base/
    tar -C "$stage"/base -cf - . | xz -T0 -6 >carry/baseline.tar.xz
fi
du -sh carry/* devlibs 2>/dev/null
