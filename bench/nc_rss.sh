#!/usr/bin/env bash
# Long-run memory of the file calls: test_nc_rss for 100000 cycles (default) of
# minv_analyze_file, minv_invert_file and minv_solve_file, each beside netCDF-C alone doing
# the same netCDF work, and the table into bench/results/nc_rss_<host>.md with the date,
# commit, machine and command.
#   bench/nc_rss.sh [BUILD_DIR (default build)] [CYCLES (default 100000)]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
cycles=${2:-100000}
exe="$build/tests/netcdf/test_nc_rss"
[ -x "$exe" ] || { echo "nc_rss: $exe not built (cmake --build $build --target test_nc_rss)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$root/bench/results/nc_rss_$(hostname -s).md"
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
table=$(cd "$work" && "$exe" "$cycles" 2>&1) && verdict="passed" || verdict="FAILED"
{
    echo "# Memory of the file calls over $cycles cycles"
    echo
    echo "- date: $start to $(date -u +%Y-%m-%dT%H:%M:%SZ); commit $(git -C "$root" rev-parse --short HEAD)"
    echo "- machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "- libraries: $(nc-config --version 2>/dev/null), HDF5 $(grep -m1 'HDF5 Version' /usr/lib/x86_64-linux-gnu/hdf5/serial/libhdf5.settings 2>/dev/null | cut -d: -f2 | sed 's/^ //')"
    echo "- command: bench/nc_rss.sh $build $cycles ($exe $cycles)"
    echo "- verdict: $verdict (minv's heap within 128 B/call, RSS within 1024 B/call of netCDF-C alone)"
    echo
    echo '```'
    echo "$table"
    echo '```'
} >"$out"
cat "$out"
[ "$verdict" = passed ]
