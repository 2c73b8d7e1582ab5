#!/usr/bin/env bash
# The MPI layer's benchmarks for the issue's goals, one part a call (each fits 10 minutes on a
# 16-core host with 2 GPUs); markdown tables to OUT/mpi_<part>.md (default bench/results):
#   scripts/bench-mpi.sh PART [OUT]
#   dense-N    one matrix, ScaLAPACK through minv against ScaLAPACK called directly, on N ranks
#              (1, 4, 16: strong scaling; n = 8192 on 1 rank, 16384 on 4 and 16)
#   batched    distributed batches, weak scaling 1, 2, 4, 8, 16 ranks (k = 32 and 64), and an
#              uneven decomposition with and without the rebalance
#   io         a 2 GB variable (n = 16384) read by 4 and 16 ranks against the serial reader
#   gpu        one matrix on 1 and 2 GPUs (cuSOLVERMp; n = 32768, 65536, inversion and solve),
#              distributed batches on 1 and 2 GPUs, with minv's single-process multi-GPU
#              Gauss-Jordan and cusolverMg (bench_multi_gpu)
# On the GPU machine: scripts/device-mpi.sh devlibs scripts/bench-mpi.sh PART $OUT
set -euo pipefail
part=$1
out=${2:-$(cd "$(dirname "$0")/.." && pwd)/bench/results}
bin=${MINV_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}/src_mpi
mkdir -p "$out"
mpi() { local np=$1; shift; mpirun --oversubscribe --bind-to core -np "$np" -x OPENBLAS_NUM_THREADS=1 "$@"; }
case $part in
    dense-1) mpi 1 "$bin/bench_mpi_dense" --n 8192 --ops lu,spd --reps 1 --nb 128 | tee -a "$out/mpi_dense.md" ;;
    dense-4 | dense-16)
        np=${part#dense-}
        mpi "$np" "$bin/bench_mpi_dense" --n 8192,16384 --ops lu,spd,lu-solve,spd-solve --nrhs 1024 --reps 1 --nb 128 |
            tee -a "$out/mpi_dense.md" ;;
    batched)
        for np in 1 2 4 8 16; do mpi "$np" "$bin/bench_mpi_batched" --k 32,64 --per-rank 4000 --reps 3; done | tee -a "$out/mpi_batched.md"
        mpi 16 "$bin/bench_mpi_batched" --k 32,64 --per-rank 4000 --reps 3 --uneven 1 | tee -a "$out/mpi_batched.md" ;;
    io)
        for np in 4 16; do mpi "$np" "$bin/bench_mpi_io" --n 16384 --format nc4,cdf5 --reps 3 --dir /tmp; done |
            tee -a "$out/mpi_io.md" ;;
    gpu)
        # each rank bound to its share of the cores for minv's checks (one core a rank by default;
        # unbound, two ranks' threads share cores)
        for np in 1 2; do
            mpirun --oversubscribe --map-by slot:PE=$(($(nproc) / np)) --bind-to core -np "$np" -x NCCL_NVLS_ENABLE=0 \
                "$bin/bench_mpi_dense" --backend gpu \
                --direct none --n 32768,65536 --ops lu,spd,lu-solve,spd-solve --nrhs 4096 --nb 1024 --reps 1 --residual 0 \
                --stages 1
        done | tee -a "$out/mpi_gpu.md"
        for np in 1 2; do
            mpirun --oversubscribe --map-by slot:PE=$(($(nproc) / np)) --bind-to core -np "$np" \
                "$bin/bench_mpi_batched" --backend gpu --k 16,64 --per-rank 20000 --reps 5
        done | tee -a "$out/mpi_gpu.md"
        "$bin/../bench/bench_multi_gpu" compare --n 32768 2>&1 | tee -a "$out/mpi_gpu.md" ;;
    *) echo "bench-mpi: PART $part: expected dense-1, dense-4, dense-16, batched, io or gpu" >&2; exit 2 ;;
esac
