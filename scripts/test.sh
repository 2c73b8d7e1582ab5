#!/usr/bin/env bash
# The README's second command: set up, build, run the whole test suite; then rebuild with
# AddressSanitizer and UndefinedBehaviorSanitizer (CPU backend) and run the suite again. After
# each ctest run: how many tests were skipped for want of a GPU and which ran their CPU half
# only; the last line gives the totals of both suites.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
source "$MINV_ROOT/scripts/junit.sh"

normal_rc=0
ctest --test-dir "$MINV_BUILD" --output-on-failure -j "$MINV_JOBS" --output-junit "$MINV_BUILD/junit.xml" ||
    normal_rc=$?
junit_report "$MINV_BUILD/junit.xml" "normal build"

san="$MINV_ROOT/build-sanitize"
mkdir -p "$san"
minv_build "$san" -DCMAKE_BUILD_TYPE=Debug -DMINV_ENABLE_CUDA=OFF -DMINV_BUILD_BENCH=OFF \
    -DMINV_SANITIZE=address,undefined
san_rc=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
LSAN_OPTIONS=suppressions="$MINV_ROOT/scripts/lsan.supp" \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$san" --output-on-failure -j "$MINV_JOBS" -LE gpu --output-junit "$san/junit.xml" || san_rc=$?
junit_report "$san/junit.xml" "sanitizer build"

# Fuzz the NetCDF reader for a bounded time (libFuzzer, ASan, UBSan; fuzz/run.sh, skipped where
# clang is missing): fails when an input fails in minv's own code.
fuzz_rc=0
MINV_JOBS="$MINV_JOBS" "$MINV_ROOT/fuzz/run.sh" "${MINV_FUZZ_SECONDS:-60}" || fuzz_rc=$?

read -r -a n < <(junit_counts "$MINV_BUILD/junit.xml")
read -r -a s < <(junit_counts "$san/junit.xml")
verdict="all passed"
if [ "$normal_rc" -ne 0 ] || [ "$san_rc" -ne 0 ] || [ "$fuzz_rc" -ne 0 ]; then verdict="FAILED"; fi
fuzz_verdict="passed"; [ "$fuzz_rc" -eq 0 ] || fuzz_verdict="FAILED"
echo "minv tests: normal build ${n[0]} passed, ${n[1]} failed, ${n[2]} skipped (no GPU) of ${n[4]};" \
     "sanitizer build ${s[0]} passed, ${s[1]} failed, ${s[2]} skipped of ${s[4]} (GPU tests left out); fuzzing $fuzz_verdict." \
     "In all: $verdict"
[ "$verdict" = "all passed" ]
