#!/usr/bin/env bash
# scripts/progress.sh, which the README's commands use to say what they do while they do it:
# the build's percentage from real cmake output (Makefiles) and from Ninja-style lines, the
# packages apt-get sets up, each step's start, duration and log, a failing step's log tail and
# status; one line per tenth in a log, one redrawn line on a terminal (by script(1)).
#   test_progress.sh REPO WORK
set -uo pipefail
repo=$1 work=$2
source "$repo/scripts/progress.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
failures=0
expect() { # expect WHAT REGEX TEXT
    if ! grep -Eq -- "$2" <<<"$3"; then
        echo "FAIL: $1: no /$2/ in:"; echo "$3"; failures=$((failures + 1))
    fi
}
count() { grep -Ec -- "$1" <<<"$2"; }

# a real build: a small CMake project of 12 files
mkdir -p proj
{ echo 'cmake_minimum_required(VERSION 3.16)'; echo 'project(p C)'; } >proj/CMakeLists.txt
for k in $(seq 1 12); do
    echo "int f$k(int x) { return x + $k; }" >"proj/f$k.c"
    echo "add_library(l$k STATIC f$k.c)" >>proj/CMakeLists.txt
done
out=$(minv_step "t: configuring" configure.log minv_no_progress "${CMAKE:-cmake}" -S proj -B build -G "Unix Makefiles")
expect "configure step" '^t: configuring \(log: configure.log\)$' "$out"
expect "configure step" '^t: configuring: done in [0-9]+ s$' "$out"
out=$(minv_step "t: building" build.log minv_build_progress "${CMAKE:-cmake}" --build build -j 2)
expect "build step" '^t: building \(log: build.log\)$' "$out"
expect "build percentage" '^t: building: +[0-9]+% \([0-9]+ s\)$' "$out"
expect "build end" '^t: building: 100% \(' "$out"
expect "build step" '^t: building: done in [0-9]+ s$' "$out"
[ "$(count '%' "$out")" -le 11 ] || { echo "FAIL: more than one line per tenth:"; echo "$out"; failures=$((failures + 1)); }
expect "build log" 'Built target l12' "$(cat build.log)"

# Ninja's counts, and apt-get's packages
out=$(printf '[%d/40] Building C object f%d.o\n' $(for k in $(seq 1 40); do echo "$k $k"; done) | minv_build_progress "n")
expect "ninja" '^n:  50% \(' "$out"
[ "$(count '^n: ' "$out")" -eq 11 ] || { echo "FAIL: ninja: not one line per tenth:"; echo "$out"; failures=$((failures + 1)); }
out=$({ echo "0 upgraded, 4 newly installed, 0 to remove and 0 not upgraded."
        for p in cmake gfortran libnetcdf-dev netcdf-bin; do echo "Unpacking $p (1.0) ..."; done
        for p in cmake gfortran libnetcdf-dev netcdf-bin; do echo "Setting up $p (1.0) ..."; done; } | minv_apt_progress "a")
expect "apt" '^a:  25% \(' "$out"
expect "apt" '^a: 100% \(' "$out"

# a failing step: its log's end, how long it ran, its status
out=$(minv_step "t: failing" fail.log minv_no_progress bash -c 'echo the reason; exit 3')
status=$?
[ "$status" -ne 0 ] || { echo "FAIL: a failing step returned 0"; failures=$((failures + 1)); }
expect "failing step" '^the reason$' "$out"
expect "failing step" '^t: failing: failed after [0-9]+ s; the whole output is in fail.log$' "$out"

# on a terminal: one line redrawn in place, cleared at the end
if command -v script >/dev/null 2>&1; then
    out=$(script -qec "bash -c 'source \"$repo/scripts/progress.sh\"; printf \"[ 47%%] Building C object x.o\\n\" | minv_build_progress tty'" /dev/null </dev/null)
    expect "terminal" $'\rtty:  47% \\([0-9]+ s\\) Building C object x.o' "$out"
    expect "terminal" $'\r\e\\[K' "$out"
fi

[ "$failures" -eq 0 ] && echo "test_script_progress: ok"
exit $((failures > 0))
