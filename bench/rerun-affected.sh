#!/usr/bin/env bash
# Re-runs, on the GPU machine, every table first measured before bench_common's one discipline
# (warm-up, medians of 3 or more, buffers written first, DGEMM and floors measured alike,
# energy from one reading of every GPU), and writes each results file under
# its name in bench/results/ (the device's suffix: h100, h200) into $OUT, or into
# bench/results/ when $OUT is unset. Sizes are cut where the full table would not fit one
# 10-minute device command (each file's first line gives its command; the README says what
# was cut). Step times and exit codes go to stdout.
#   single  (default; one GPU, about 6 minutes): bench_iterative table1, table2, rate, ooc (3
#           against 4 streams), bench_gauss_jordan swap, bench_tridiagonal gpu and paper
#   multi   (two GPUs or more, about 8 minutes): bench_multi_gpu compare and the 2-GPU sweep
#   headline (one GPU, about 6 minutes): the README's headline rows measured before then:
#           bench_gauss_jordan invert (Table 4) and solve, bench_spd invert and solve,
#           bench_batched gpu
# On the development machine first: a CUDA build in build/ and scripts/device-pack.sh; then
# through the device tool, carrying build and devlibs:
#   scripts/device-run.sh devlibs bash bench/rerun-affected.sh [single|multi]
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${MINV_BUILD:-build}
out=${OUT:-bench/results}
mode=${1:-single}
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
case "$name" in
*H200*) sfx=h200 ;;
*H100*) sfx=h100 ;;
*) sfx=$(echo "$name" | tr -cd 'A-Za-z0-9' | tr 'A-Z' 'a-z') ;;
esac
if [ "$gpus" -lt 1 ]; then
    echo "rerun-affected: no GPU here" >&2
    exit 2
fi
echo "rerun-affected: $mode on $gpus x $name, commit $(cat "$build/commit.txt" 2>/dev/null || echo unknown)"

# step FILE LIMIT_S PROGRAM ARGS...: one results file, under a time limit of its own
status=0
step() {
    local file=$1 limit=$2 t0=$SECONDS rc
    shift 2
    timeout "$limit" "$build/bench/$@" >"$out/$file" 2>&1
    rc=$?
    [ "$rc" -ne 0 ] && status=1
    echo "$file: exit $rc$([ "$rc" -eq 124 ] && echo ' (time limit: the table is cut short)'), $((SECONDS - t0)) s"
}

case "$mode" in
single)
    step "iterative_table1_$sfx.md" 80 bench_iterative table1 --max-n 16384
    step "iterative_table2_$sfx.md" 75 bench_iterative table2
    step "iterative_rate_$sfx.md" 60 bench_iterative rate --max-n 8192
    step "iterative_ooc_$sfx.md" 170 bench_iterative ooc --min-n 16384 --max-n 16384
    step "gauss_jordan_swap_$sfx.md" 30 bench_gauss_jordan swap --max-n 16384
    step "tridiagonal_gpu_$sfx.md" 50 bench_tridiagonal gpu --max-n 32768
    step "tridiagonal_paper_$sfx.md" 100 bench_tridiagonal paper --max-n 32768
    ;;
multi)
    if [ "$gpus" -lt 2 ]; then
        echo "rerun-affected: multi needs two GPUs, this machine has $gpus" >&2
        exit 2
    fi
    step "multi_gpu_compare_${sfx}x$gpus.md" 330 bench_multi_gpu compare --n 16384,32768
    step "multi_gpu_sweep_2gpu_${sfx}x$gpus.md" 200 bench_multi_gpu sweep --gpus 2 --n 16384
    ;;
headline)
    step "gauss_jordan_table4_$sfx.md" 150 bench_gauss_jordan invert
    step "gauss_jordan_solve_$sfx.md" 60 bench_gauss_jordan solve
    step "spd_invert_$sfx.md" 100 bench_spd invert
    step "spd_solve_$sfx.md" 60 bench_spd solve
    step "batched_gpu_$sfx.md" 150 bench_batched gpu
    ;;
*)
    echo "usage: bench/rerun-affected.sh [single|multi|headline]" >&2
    exit 2
    ;;
esac
exit $status
