#!/usr/bin/env bash
# Fuzzes minv's NetCDF reader for a bounded time under AddressSanitizer and
# UndefinedBehaviorSanitizer (libFuzzer, clang):
#   fuzz/run.sh [SECONDS (default 60)] [extra libFuzzer options...]
# Builds build-fuzz (clang, -DMINV_BUILD_FUZZ=ON) first. New inputs collect in
# build-fuzz/corpus; a crash, hang or sanitizer report stops the run with a non-zero status
# and leaves the input in build-fuzz/artifacts/ (replay it: build-fuzz/fuzz/fuzz_reader FILE).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MINV_FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-60}
shift || true
mkdir -p "$build/corpus" "$build/artifacts"
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found (apt-get install clang libclang-rt-dev); skipped"
    exit 0
fi
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINV_BUILD_FUZZ=ON \
    -DMINV_ENABLE_CUDA=OFF -DMINV_BUILD_TESTS=OFF \
    -DMINV_BUILD_EXAMPLES=OFF -DMINV_BUILD_BENCH=OFF >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target fuzz_reader -j "${MINV_JOBS:-2}" >"$build/build.log" 2>&1 ||
    { tail -n 40 "$build/build.log"; exit 1; }
echo "fuzz: ${seconds} s of fuzz_reader over fuzz/corpus (ASan, UBSan)"
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
LSAN_OPTIONS=suppressions="$root/scripts/lsan.supp" \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz/fuzz_reader" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -dict="$root/fuzz/netcdf.dict" -artifact_prefix="$build/artifacts/" -print_final_stats=1 \
    "$@" "$build/corpus" "$root/fuzz/corpus"
