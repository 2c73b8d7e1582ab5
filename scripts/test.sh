#!/usr/bin/env bash
# The README's second command: set up, build, run the whole test suite; then rebuild with
# AddressSanitizer and UndefinedBehaviorSanitizer (CPU backend) and run the suite again.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
ctest --test-dir "$MINV_BUILD" --output-on-failure -j "$MINV_JOBS"

san="$MINV_ROOT/build-sanitize"
mkdir -p "$san"
minv_build "$san" -DCMAKE_BUILD_TYPE=Debug -DMINV_ENABLE_CUDA=OFF -DMINV_BUILD_BENCH=OFF \
    -DMINV_SANITIZE=address,undefined
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
LSAN_OPTIONS=suppressions="$MINV_ROOT/scripts/lsan.supp" \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$san" --output-on-failure -j "$MINV_JOBS" -LE gpu

# Fuzz the NetCDF reader for a bounded time (libFuzzer, ASan, UBSan; fuzz/run.sh, skipped where
# clang is missing): fails when an input fails in minv's own code.
MINV_JOBS="$MINV_JOBS" "$MINV_ROOT/fuzz/run.sh" "${MINV_FUZZ_SECONDS:-60}"
