#!/usr/bin/env bash
# On the GPU machine, through scripts/device-run.sh: every test that can run there (the C and
# Fortran suites run each check on the CPU and the GPU backend; the gpu label holds the GPU
# specifics), then the benchmarks named in BENCH ("bench_iterative all" and the like, ';'
# separated), each under its own time limit. Tests that need tools the GPU machine lacks
# (gfortran for the install test, ncgen) are left out. Logs go to $OUT when it is set.
#   BENCH="bench_iterative rate" scripts/device-run.sh devlibs bash scripts/gpu-suite.sh
set -u
build=${MINV_BUILD:-build}
out=${OUT:-/tmp}
# CTest files name the development machine's cmake and the tests' working folders
[ -x /usr/bin/cmake ] || ln -s "$(command -v cmake)" /usr/bin/cmake
grep -rho 'WORKING_DIRECTORY "[^"]*"' "$build" --include=CTestTestfile.cmake | cut -d'"' -f2 | xargs -r mkdir -p
ctest --test-dir "$build" -j 8 --timeout 600 -E 'install|ncgen|test_cli' --output-on-failure \
    >"$out/ctest.log" 2>&1
grep -E 'tests passed|Failed|\*\*\*|Skipped|Not Run' "$out/ctest.log" | tail -n 20
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
