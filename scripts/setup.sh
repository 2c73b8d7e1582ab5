#!/usr/bin/env bash
# Set-up shared by the README's two commands: install what is missing (Debian/Ubuntu, as root
# or through sudo), then configure and build minv in ./build. Sourced, not run.
set -euo pipefail

MINV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MINV_BUILD=${MINV_BUILD:-$MINV_ROOT/build}
MINV_JOBS=${MINV_JOBS:-$(nproc 2>/dev/null || echo 2)}

minv_install_packages() {
    # The MPI layer (minv::mpi): Open MPI, ScaLAPACK for it, PnetCDF for collective I/O of
    # classic and CDF-5 files (netCDF-4 files go through the serial libnetcdf).
    local want=(build-essential cmake gfortran pkg-config libopenblas-dev liblapack-dev
                libnetcdf-dev libnetcdff-dev netcdf-bin
                openmpi-bin libopenmpi-dev libscalapack-openmpi-dev libpnetcdf-dev)
    local missing=()
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# minv_build DIR [cmake options...]
minv_build() {
    local dir=$1; shift
    cmake -S "$MINV_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$dir/configure.log" 2>&1 ||
        { cat "$dir/configure.log"; return 1; }
    cmake --build "$dir" -j "$MINV_JOBS" >"$dir/build.log" 2>&1 ||
        { tail -n 60 "$dir/build.log"; return 1; }
    echo "setup: built $dir ($(grep -c '^#define MINV_HAVE_CUDA 1' "$dir/include/minv_config.h" | sed 's/1/with CUDA/;s/0/CPU only/'))"
}

if command -v apt-get >/dev/null 2>&1; then
    minv_install_packages
fi
mkdir -p "$MINV_BUILD"
minv_build "$MINV_BUILD"
