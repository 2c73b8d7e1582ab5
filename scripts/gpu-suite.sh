#!/usr/bin/env bash
# On the GPU machine, through scripts/device-run.sh: every test that can run there (the C and
# Fortran suites run each check on the CPU and the GPU backend; the gpu label holds the GPU
# specifics), then the benchmarks named in BENCH ("bench_iterative all" and the like, ';'
# separated), each under its own time limit. Tests that need tools the GPU machine lacks
# (gfortran for the install test, ncgen) are left out. Logs go to $OUT when it is set.
# Writes gpu-evidence.md (the commit, the device, each test's outcome and time) to $OUT and
# to tests/; commit it as tests/gpu-evidence.md after each device run (README: "GPU evidence").
#   BENCH="bench_iterative rate" scripts/device-run.sh devlibs bash scripts/gpu-suite.sh
set -u
build=${MINV_BUILD:-build}
out=${OUT:-/tmp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/junit.sh"
# CTest files name the development machine's cmake and the tests' working folders
[ -x /usr/bin/cmake ] || ln -s "$(command -v cmake)" /usr/bin/cmake
grep -rho 'WORKING_DIRECTORY "[^"]*"' "$build" --include=CTestTestfile.cmake | cut -d'"' -f2 | xargs -r mkdir -p
left_out="install|ncgen|test_cli${MINV_SUITE_EXCLUDE:+|$MINV_SUITE_EXCLUDE}" # MINV_SUITE_EXCLUDE: tests run apart
# 8 tests at once, each with its share of the cores: 8 tests each spinning a thread per core
# (OpenMP and OpenBLAS) made the CPU halves take minutes
jobs=8
share=$(( $(nproc) / jobs > 0 ? $(nproc) / jobs : 1 ))
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$share} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$share}
ctest --test-dir "$build" -j "$jobs" --timeout 600 -E "$left_out" --output-on-failure --output-junit "$out/junit.xml" \
    >"$out/ctest.log" 2>&1
grep -E 'tests passed|Failed|\*\*\*|Skipped|Not Run' "$out/ctest.log" | tail -n 20
junit_report "$out/junit.xml" "GPU machine"

# the evidence file
gpu_tests=" $(ctest --test-dir "$build" -N -L gpu | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ') "
{
    read -r -a c < <(junit_counts "$out/junit.xml")
    echo "# GPU test evidence"
    echo
    echo "Written by scripts/gpu-suite.sh on the GPU machine; commit it after each device run."
    echo
    echo "- commit: $(cat "$build/commit.txt" 2>/dev/null || echo unknown)"
    device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | paste -sd ';')
    echo "- device: ${device:-none (nvidia-smi found no GPU)}"
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "- command: ${MINV_DEVICE_WRAPPER:-scripts/device-run.sh devlibs} bash scripts/gpu-suite.sh (ctest -E '$left_out': tools the GPU machine lacks, and tests run apart)"
    echo "- outcome: ${c[0]} passed, ${c[1]} failed, ${c[2]} skipped of ${c[4]}"
    echo
    echo "| test | gpu label | outcome | seconds |"
    echo "| --- | --- | --- | --- |"
    junit_rows "$out/junit.xml" | while IFS='|' read -r name outcome seconds; do
        label=no
        [[ "$gpu_tests" == *" $name "* ]] && label=yes
        echo "| $name | $label | $outcome | $seconds |"
    done | sort -t'|' -k3,3r -k2,2
} >"$out/gpu-evidence.md"
cp "$out/gpu-evidence.md" "$here/tests/gpu-evidence.md"

IFS=';' read -ra benches <<<"${BENCH:-}"
for b in "${benches[@]}"; do
    [ -z "$b" ] && continue
    name=$(echo "$b" | tr -c 'a-zA-Z0-9_\n' '_' | sed 's/_*$//')
    echo "== $b"
    # shellcheck disable=SC2086
    timeout "${BENCH_LIMIT:-300}" "$build/bench/"$b >"$out/$name.md" 2>&1
    echo "(exit $?)"
    cat "$out/$name.md"
done
