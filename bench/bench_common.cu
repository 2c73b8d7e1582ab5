// See bench_common.h: the parts that need CUDA (bench_host.c has the others).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

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
