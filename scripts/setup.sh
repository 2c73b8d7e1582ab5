#!/usr/bin/env bash
# Set-up shared by the README's two commands: install what is missing (Debian/Ubuntu, as root
# or through sudo), then configure and build minv in ./build. Sourced, not run.
set -euo pipefail

MINV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MINV_BUILD=${MINV_BUILD:-$MINV_ROOT/build}
MINV_JOBS=${MINV_JOBS:-$(nproc 2>/dev/null || echo 2)}
source "$MINV_ROOT/scripts/progress.sh"

minv_install_packages() {
    # The MPI layer (minv::mpi): Open MPI, ScaLAPACK for it, PnetCDF for collective I/O of
    # classic and CDF-5 files (netCDF-4 files go through the serial libnetcdf).
    local want=(build-essential cmake gfortran pkg-config libopenblas-dev liblapack-dev
                libnetcdf-dev libnetcdff-dev netcdf-bin libhdf5-dev zlib1g-dev libzstd-dev libbz2-dev
                python3 clang libclang-rt-dev
                openmpi-bin libopenmpi-dev libscalapack-openmpi-dev libpnetcdf-dev)
    # HDF5's bzip2 and LZ4 plugins for NetCDF-C: Debian 12 and later; taken where the
    # distribution has them
    local optional=(hdf5-filter-plugin)
    local missing=() p
    for p in "${want[@]}" "${optional[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    export DEBIAN_FRONTEND=noninteractive
    minv_step "setup: apt-get update" "$MINV_BUILD/apt-update.log" minv_no_progress $sudo apt-get update -q
    for p in "${optional[@]}"; do
        if [[ " ${missing[*]} " == *" $p "* ]] && ! grep -q 'Candidate: [0-9]' <<<"$(apt-cache policy "$p" 2>/dev/null)"; then
            echo "setup: $p is not in this distribution, left out"
            missing=("${missing[@]/$p}")
        fi
    done
    read -r -a missing <<< "${missing[*]}"
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    minv_step "setup: apt-get install" "$MINV_BUILD/apt-install.log" minv_apt_progress \
        $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# minv_build DIR [cmake options...]
minv_build() {
    local dir=$1; shift
    minv_step "setup: configuring ${dir#"$MINV_ROOT"/}" "$dir/configure.log" minv_no_progress \
        cmake -S "$MINV_ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" || return 1
    minv_step "setup: building ${dir#"$MINV_ROOT"/} with $MINV_JOBS jobs" "$dir/build.log" minv_build_progress \
        cmake --build "$dir" -j "$MINV_JOBS" || return 1
    echo "setup: built $dir ($(grep -c '^#define MINV_HAVE_CUDA 1' "$dir/include/minv_config.h" | sed 's/1/with CUDA/;s/0/CPU only/'))"
}

mkdir -p "$MINV_BUILD"
if command -v apt-get >/dev/null 2>&1; then
    minv_install_packages
fi
minv_build "$MINV_BUILD"
