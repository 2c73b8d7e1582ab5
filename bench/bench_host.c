/* See bench_common.h: the helpers that need no GPU, shared by the CUDA benchmarks and the CPU
 * one (bench_cpu_calls). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

static minv_context *create_or_exit(const minv_options *o) {
    minv_context *ctx = NULL;
    if (minv_create(&ctx, o) != MINV_SUCCESS) {
        fprintf(stderr, "bench: cannot create a %s context with %d device(s)\n", minv_backend_name(o->backend),
                o->ndevices);
        exit(2);
    }
    return ctx;
}

minv_context *bench_context(minv_backend backend, int64_t budget, int threads) {
    return bench_context_gpus(backend, budget, threads, 1);
}

minv_context *bench_context_gpus(minv_backend backend, int64_t budget, int threads, int gpus) {
    minv_options o;
    minv_options_default(&o);
    o.backend = backend;
    o.device_memory = budget;
    o.cpu_threads = threads;
    o.ndevices = gpus;
    for (int k = 0; k < gpus && k < MINV_MAX_DEVICES; k++) o.devices[k] = k;
    return create_or_exit(&o);
}

void bench_check(minv_context *ctx, minv_status st, const char *what) {
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "bench: %s: %s\n", what, minv_last_error(ctx));
        exit(3);
    }
}

double bench_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void bench_random(double *a, int64_t rows, int64_t cols, uint64_t seed) {
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < cols; j++) {
        uint64_t s = seed * 0x9E3779B97F4A7C15ull + (uint64_t)j * 0xD1B54A32D192ED03ull + 1;
        for (int64_t i = 0; i < rows; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            a[j * rows + i] = (double)(s >> 11) / 4503599627370496.0 - 1.0;
        }
    }
}

void bench_kms(double *a, int64_t n, double rho) {
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * n + i] = pow(rho, fabs((double)(i - j)));
}

void bench_spd(double *a, int64_t n, uint64_t seed) {
    /* SOAR correlation (length 2 points) on a periodic 1-D grid, plus 0.2 on the diagonal as
     * observation-error-like regularisation: SPD, condition about 40 */
    (void)seed;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t d0 = i > j ? i - j : j - i;
            double d = (double)(d0 < n - d0 ? d0 : n - d0) / 2.0;
            a[j * n + i] = (1 + d) * exp(-d) + (i == j ? 0.2 : 0.0);
        }
}

static int by_value(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double bench_median(double *v, int count) {
    qsort(v, (size_t)count, sizeof *v, by_value);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}
