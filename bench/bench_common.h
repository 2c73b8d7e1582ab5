// Helpers shared by the benchmark programs: clocks, seeded random matrices, the one way every
// benchmark measures (warm-up, median of enough runs, energy from one meter reading), and the
// header every result file starts with (device, date, commit, command).
#ifndef MINV_BENCH_COMMON_H
#define MINV_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "minv.h"

#ifdef __cplusplus
#include <functional>
#include <vector>
#endif

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
void bench_kms(double *a, int64_t n, double rho);                         /* KMS: a_ij = rho^|i-j| */
double bench_median(double *v, int count);
#ifdef __cplusplus
}
#endif

/* ---- bench_common.cu: CUDA (C++: the C programs see only the part above) ---- */
#ifdef __cplusplus
/* "# device: ..., date: ..., commit: ..., command: ..."; several GPUs are named all ("2 x
 * NVIDIA H200"); the commit is the build's (minv_commit.h). */
void bench_header(FILE *out, int argc, char **argv);
/* Writes every page of a host buffer, so that no timed run pays its first-touch faults. */
void bench_touch(void *p, size_t bytes);

/* NVML, read by the benchmarks themselves: the energy counters of every visible GPU in one
 * pass, and each board's enforced power limit. Loaded at run time; count = 0 without it. */
struct bench_meter {
    int count;                /* GPUs read (all visible ones), 0: no meter */
    double limit_w[16];       /* enforced power limit of each, watts (0: unknown) */
    void *lib, *dev[16];
    int (*energy)(void *, unsigned long long *);
};
bench_meter *bench_meter_get(void); /* opened once per process */
/* Joules of every GPU since a fixed moment, into j[0 .. count); false when a read fails. */
bool bench_meter_read(bench_meter *m, double *j);

/* ---- the measurement every benchmark makes ----
 * BENCH_WARMUPS untimed runs, then timed runs until there are at least BENCH_MIN_RUNS, and
 * BENCH_MIN_RUNS_SHORT when a run takes under BENCH_SHORT seconds; the median is reported.
 * Before each run prepare() (untimed: restoring an in-place input, say) and the device idle.
 * With energy on (a mask of the GPUs involved, bit d for device d), NVML's counters of every
 * visible GPU are read in one pass right before and right after each timed run, runs go on
 * until BENCH_ENERGY_SECONDS of timed work (the counters move in steps), and the figures are
 * per run: joules over the runs of the GPUs involved, and of all visible GPUs, from the same
 * readings; watts = their sum over the timed seconds, flagged `impossible` above 1.05 times
 * the sum of those boards' power limits. */
enum { BENCH_WARMUPS = 1, BENCH_MIN_RUNS = 3, BENCH_MIN_RUNS_SHORT = 5, BENCH_MAX_RUNS = 64 };
static const double BENCH_SHORT = 0.010, BENCH_ENERGY_SECONDS = 1.0;
struct bench_result {
    double seconds;              /* median of the timed runs */
    double fastest, slowest;
    int runs;
    double joules, joules_all;   /* per run; -1 without energy */
    double watts, limit_w;       /* mean power of the GPUs involved, and their limit (0: unknown) */
    bool impossible;             /* watts above the boards' limit: not a valid reading */
};
/* Whether the timed runs so far suffice (see above). */
bool bench_enough(const double *t, int runs, double energy_seconds);
/* The result of runs t[0 .. runs), with the energy readings' sums (mask 0: none). */
bench_result bench_summarise(double *t, int runs, unsigned gpus, double joules, double joules_all);
/* "%.1f J" or "-", and " (IMPOSSIBLE: W > limit)" where flagged; for result tables. */
const char *bench_energy_text(const bench_result &r, char *buf, size_t len);

/* Where one call spends its time: runs call() once with a progress callback that reads the
 * host clock where each stage starts, and prints "    stages (ms): start ..., NAME ms, ...".
 * With sync, the callback first waits for the device, so that each figure is the GPU work of
 * its stage and not only its launches (each wait adds a few microseconds). */
void bench_print_stages(FILE *out, minv_context *ctx, bool sync, const std::function<void()> &call);

/* An option's list "a,b,c" of numbers (--sizes and the like); argv stays as given, for
 * bench_header. Stops at the first entry that is not a number. */
std::vector<int64_t> bench_list(const char *arg);

/* DGEMM on n x n device operands (no zeros in them), run `products` times back to back per
 * timed run, as an iteration of that many products runs: TFLOP/s, measured as above. */
double bench_dgemm_tflops(int64_t n, int64_t products = 1);

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

/* The whole call() on the host clock, every device idle before it (minv's calls return when
 * their work is done); energy over the GPUs in the mask `gpus` (0: none). */
template <typename Prepare, typename Call> bench_result bench_measure(Prepare prepare, Call call, unsigned gpus = 0) {
    bench_meter *m = gpus ? bench_meter_get() : NULL;
    const bool metered = m && m->count > 0;
    double t[BENCH_MAX_RUNS], before[16], after[16], joules = 0, joules_all = 0, timed = 0;
    bool energy_ok = metered;
    int runs = 0;
    for (int k = -BENCH_WARMUPS; k < 0 || !bench_enough(t, runs, metered ? timed : -1); k++) {
        prepare();
        cudaDeviceSynchronize();
        if (k >= 0 && metered) energy_ok = bench_meter_read(m, before) && energy_ok;
        const double t0 = bench_now();
        call();
        cudaDeviceSynchronize();
        const double s = bench_now() - t0;
        if (k < 0) continue;
        if (metered) {
            energy_ok = bench_meter_read(m, after) && energy_ok;
            for (int d = 0; d < m->count; d++) {
                joules_all += after[d] - before[d];
                if (gpus >> d & 1u) joules += after[d] - before[d];
            }
        }
        t[runs++] = s;
        timed += s;
    }
    return bench_summarise(t, runs, energy_ok ? gpus : 0, joules, joules_all);
}
template <typename Call> bench_result bench_measure(Call call, unsigned gpus = 0) {
    return bench_measure([] {}, call, gpus);
}

/* prepare() untimed, then call() between CUDA events on the default stream (library calls
 * and kernels that return before their work ends); no energy. */
template <typename Prepare, typename Call> bench_result bench_measure_events(Prepare prepare, Call call) {
    bench_timer timer;
    double t[BENCH_MAX_RUNS];
    int runs = 0;
    for (int k = -BENCH_WARMUPS; k < 0 || !bench_enough(t, runs, -1); k++) {
        prepare();
        timer.start();
        call();
        const double s = timer.stop();
        if (k >= 0) t[runs++] = s;
    }
    return bench_summarise(t, runs, 0, 0, 0);
}

/* The medians alone, for tables without energy. */
template <typename Call> double bench_median_wall(Call call) { return bench_measure(call).seconds; }
template <typename Prepare, typename Call> double bench_median_wall(Prepare prepare, Call call) {
    return bench_measure(prepare, call).seconds;
}
template <typename Prepare, typename Call> double bench_median_events(Prepare prepare, Call call) {
    return bench_measure_events(prepare, call).seconds;
}
#endif

#endif /* __cplusplus */

#endif
