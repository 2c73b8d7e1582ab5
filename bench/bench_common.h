// Helpers shared by the benchmark programs: clocks, seeded random matrices, medians, and the
// header every result file starts with (device, date, command).
#ifndef MINV_BENCH_COMMON_H
#define MINV_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "minv.h"

/* ---- bench_host.c: no GPU needed ---- */
#ifdef __cplusplus
extern "C" {
#endif
double bench_now(void);
/* A context on one GPU, as its peers run (budget 0: all free device memory; threads 0: all),
 * or exit(2); bench_context_gpus: on GPUs 0 .. gpus-1 (-1: all visible). */
minv_context *bench_context(minv_backend backend, int64_t budget, int threads);
minv_context *bench_context_gpus(minv_backend backend, int64_t budget, int threads, int gpus);
/* exit(3) with the library's message unless st is MINV_SUCCESS. */
void bench_check(minv_context *ctx, minv_status st, const char *what);
void bench_random(double *a, int64_t rows, int64_t cols, uint64_t seed); /* uniform [-1, 1) */
void bench_spd(double *a, int64_t n, uint64_t seed);                      /* SOAR covariance, cond ~ 40 */
double bench_median(double *v, int count);
#ifdef __cplusplus
}
#endif

/* ---- bench_common.cu: CUDA ---- */
/* "# device: ..., date: ..., command: ..."; several GPUs are named all ("2 x NVIDIA H200"). */
void bench_header(FILE *out, int argc, char **argv);
/* cuBLAS DGEMM on n x n device operands (no zeros in them): the peer rate, TFLOP/s, median of
 * three after a warm-up. */
double bench_dgemm_tflops(int64_t n);

/* A CUDA, cuBLAS or cuSOLVER call that must succeed: else the call and line, and exit(3). */
#define BENCH_CK(call)                                                                       \
    do {                                                                                     \
        if ((call) != 0) {                                                                   \
            fprintf(stderr, "bench: %s failed at %s:%d\n", #call, __FILE__, __LINE__);      \
            exit(3);                                                                         \
        }                                                                                    \
    } while (0)

#ifdef __cplusplus
#include <cuda_runtime.h>
/* Device time between start() and stop(), in seconds, by CUDA events on the default stream. */
struct bench_timer {
    cudaEvent_t e0, e1;
    bench_timer() { cudaEventCreate(&e0); cudaEventCreate(&e1); }
    ~bench_timer() { cudaEventDestroy(e0); cudaEventDestroy(e1); }
    void start() { cudaEventRecord(e0); }
    double stop() {
        float ms;
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        return ms / 1e3;
    }
};

/* Median of three runs after a warm-up, seconds. bench_median_wall: the whole call() on the
 * host clock, the device idle before it (minv's calls return when their work is done);
 * bench_median_events: prepare() untimed, then call() between CUDA events on the default
 * stream (library calls that return before their kernels end). */
template <typename Call> double bench_median_wall(Call call) {
    double times[3];
    for (int k = -1; k < 3; k++) {
        cudaDeviceSynchronize();
        const double t0 = bench_now();
        call();
        if (k >= 0) times[k] = bench_now() - t0;
    }
    return bench_median(times, 3);
}
template <typename Prepare, typename Call> double bench_median_events(Prepare prepare, Call call) {
    bench_timer t;
    double times[3];
    for (int k = -1; k < 3; k++) {
        prepare();
        t.start();
        call();
        const double s = t.stop();
        if (k >= 0) times[k] = s;
    }
    return bench_median(times, 3);
}
#endif

#endif
