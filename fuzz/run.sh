#!/usr/bin/env bash
# Fuzzes minv's NetCDF reader for a bounded time under AddressSanitizer and
# UndefinedBehaviorSanitizer (libFuzzer, clang):
#   fuzz/run.sh [SECONDS (default 60)] [extra libFuzzer options...]
# Builds build-fuzz (clang, -DMINV_BUILD_FUZZ=ON) first, then fuzzes in libFuzzer's fork mode,
# which goes on past a crash, a hang (over 10 s) or an input that wants more than 2 GB. New
# inputs collect in build-fuzz/corpus. Each input that failed is replayed and sorted by where
# it failed: in minv's code (the run fails, and the input stays in build-fuzz/artifacts/) or
# inside netCDF-C or HDF5 (reported; fuzz/library_crashes/ keeps such inputs, see its README).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MINV_FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-60}
shift || true
if ! command -v clang >/dev/null; then
    echo "fuzz: clang not found (apt-get install clang libclang-rt-dev); skipped"
    exit 0
fi
mkdir -p "$build/corpus"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINV_BUILD_FUZZ=ON \
    -DMINV_ENABLE_CUDA=OFF -DMINV_BUILD_TESTS=OFF -DMINV_BUILD_EXAMPLES=OFF -DMINV_BUILD_BENCH=OFF \
    >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target fuzz_reader -j "${MINV_JOBS:-2}" >"$build/build.log" 2>&1 ||
    { tail -n 40 "$build/build.log"; exit 1; }

artifacts="$build/artifacts/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$artifacts"
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export LSAN_OPTIONS=suppressions="$root/scripts/lsan.supp"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "fuzz: ${seconds} s of fuzz_reader over fuzz/corpus (ASan, UBSan)"
"$build/fuzz/fuzz_reader" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -dict="$root/fuzz/netcdf.dict" \
    -artifact_prefix="$artifacts/" "$@" "$build/corpus" "$root/fuzz/corpus" >"$artifacts/fuzz.log" 2>&1 || true
grep -E '^#[0-9]+' "$artifacts/fuzz.log" | tail -n 1 | sed 's/^/fuzz: /' || true

# Where did each failed input fail? The first frame of its report that is neither the
# sanitizer's nor the C library's says: minv's sources, or libnetcdf / libhdf5. The runtime's
# frames in the fuzz binary have no source line ("(fuzz_reader+0x...)"): newer compiler-rt names
# its allocator interceptors plain malloc and the like, which once put HDF5's own allocation
# on minv's account. A frame in a compression library (zlib, bzip2, Zstandard) is skipped too:
# minv and HDF5's filter plugins both call them, so their caller decides. A plugin HDF5 has
# closed again by the time the report is written shows as "<unknown module>"; it and the
# plugins' own folder count as the libraries'.
runtime='__interceptor|__asan|__sanitizer|__ubsan|libc\.so|libc-|/libsanitizer/|compiler-rt|fuzzer::|fuzz_reader\+0x'
codecs='libbz2\.so|libz\.so|libzstd\.so'
libraries='libnetcdf|libhdf5|/hdf5/[^ ]*plugins/|<unknown module>'
in_minv=0
in_libraries=0
not_alone=0
for input in "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/oom-* "$artifacts"/leak-*; do
    [ -e "$input" ] || continue
    # unwound slowly: libraries built without frame pointers cut fast stacks short, and
    # lsan.supp's library names then find no frame to match
    report=$(ASAN_OPTIONS=$ASAN_OPTIONS:fast_unwind_on_malloc=0 \
             timeout 60 "$build/fuzz/fuzz_reader" -timeout=10 -rss_limit_mb=2048 "$input" 2>&1 || true)
    frames=$(echo "$report" | grep -E '^ +#[0-9]+ 0x' | grep -vE "$runtime" || true)
    frame=$(echo "$frames" | head -n 1)
    caller=$(echo "$frames" | grep -vE "$codecs" | head -n 1 || true)
    if ! echo "$report" | grep -qE 'ERROR|runtime error|SUMMARY'; then
        # HDF5 reads memory it never set on some corrupt files: such a failure comes and goes
        not_alone=$((not_alone + 1))
        echo "fuzz: $(basename "$input") does not fail when replayed alone (its report is in fuzz.log)"
    elif echo "$frame" | grep -qE "$libraries" ||
         { echo "$frame" | grep -qE "$codecs" && ! echo "$caller" | grep -qE "$root/|libminv"; }; then
        in_libraries=$((in_libraries + 1))
        [ "$caller" = "$frame" ] && caller= # the frame itself: no caller outside the codecs
        echo "fuzz: $(basename "$input") fails inside netCDF-C/HDF5: ${frame#*in }${caller:+ (called from ${caller#*in })}"
    else
        in_minv=$((in_minv + 1))
        echo "fuzz: $(basename "$input") fails in minv: ${frame#*in }"
        echo "$report" | grep -E 'ERROR|SUMMARY|runtime error' | head -n 3 | sed 's/^/fuzz:   /'
    fi
done
echo "fuzz: $in_minv failing input(s) in minv's code, $in_libraries inside netCDF-C/HDF5, $not_alone not failing alone ($artifacts)"
[ "$in_minv" -eq 0 ]
