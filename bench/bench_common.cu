// See bench_common.h.
#include <algorithm>
#include <cublas_v2.h>
#include <cuda_runtime.h>
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

void bench_spd(double *a, int64_t n, uint64_t seed) {
    /* SOAR correlation (length 2 points) on a periodic 1-D grid, plus 0.2 on the diagonal as
     * observation-error-like regularisation: SPD, condition about 40 */
    (void)seed;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            int64_t d0 = i > j ? i - j : j - i;
            double d = (double)std::min(d0, n - d0) / 2.0;
            a[j * n + i] = (1 + d) * exp(-d) + (i == j ? 0.2 : 0.0);
        }
}

double bench_median(double *v, int count) {
    std::sort(v, v + count);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

void bench_header(FILE *out, int argc, char **argv) {
    cudaDeviceProp prop;
    char date[64], first[sizeof prop.name] = "no GPU", name[4 * sizeof prop.name];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    int count = 0, same = 1;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    for (int d = 0; d < count; d++) { /* "NVIDIA H200", "2 x NVIDIA H200", or "A + B" when they differ */
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
        if (d == 0) snprintf(first, sizeof first, "%s", prop.name);
        else same = same && !strcmp(first, prop.name);
    }
    if (count > 1 && same) snprintf(name, sizeof name, "%d x %s", count, first);
    else snprintf(name, sizeof name, "%s", first);
    for (int d = 1; d < count && !same; d++)
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess && strlen(name) + strlen(prop.name) + 4 < sizeof name)
            snprintf(name + strlen(name), sizeof name - strlen(name), " + %s", prop.name);
    fprintf(out, "# device: %s, date: %s, command:", name, date);
    for (int k = 0; k < argc; k++) fprintf(out, " %s", argv[k]);
    fprintf(out, "\n");
}

double bench_dgemm_tflops(int64_t n) {
    const size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
    const double one = 1, zero = 0;
    double *a, *b, *c;
    cublasHandle_t h;
    BENCH_CK(cublasCreate(&h));
    BENCH_CK(cudaMalloc((void **)&a, bytes));
    BENCH_CK(cudaMalloc((void **)&b, bytes));
    BENCH_CK(cudaMalloc((void **)&c, bytes));
    BENCH_CK(cudaMemset(a, 0x3f, bytes)); /* about 0.5: no zeros or denormals */
    BENCH_CK(cudaMemset(b, 0x3f, bytes));
    const double s = bench_median_events([] {}, [&] {
        BENCH_CK(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    });
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 2.0 * (double)n * (double)n * (double)n / s / 1e12;
}
