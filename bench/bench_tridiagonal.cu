// Benchmark of the tridiagonal inversion, with the peers measured in the same run,
// double precision, device data, a random tridiagonal matrix diagonally dominant by rows
// (nonzero off-diagonals: the paper's conditions hold, so every path runs as asked):
//   gpu    minv's GPU paths (write-once, the paper's Sherman-Morrison, pivoted) against the
//          floor, the time to write n^2 doubles once (cudaMemset, and a store kernel), and
//          against cuSPARSE gtsv2 (pivoting) with an identity right-hand side
//   paper  the paper's comparison: the GPU against minv's sequential (1 thread) and
//          multi-core CPU versions of the same algorithms (host data on the CPU)
// minv is timed through its public API (minv_invert_tridiagonal_device_d, so the host-side
// plan, the uploads, the residual and the report are included); the peers and the floor by
// CUDA events. Every time, CPU and GPU, is bench_measure's (bench_common.h): a warm-up run,
// then the median of at least three runs (five under 10 ms), the output written before.
// Usage: bench_tridiagonal [gpu|paper|all] [--max-n N] [--cpu-max-n N]
#include <cuda_runtime.h>
#include <cusparse.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

namespace {

int64_t max_n = 32768, cpu_max_n = 32768;

void check_cuda(cudaError_t err, const char *what) {
    if (err != cudaSuccess) {
        fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(err));
        exit(4);
    }
}

/* The bands, gtsv convention (dl[i] = A(i+1, i), du[i] = A(i, i+1), n - 1 each, padded to n):
 * off-diagonals uniform in [-1, 1) kept away from zero, |d_i| = row sum + [0.5, 1.5). */
struct bands {
    int64_t n;
    double *dl, *d, *du;
};

bands make_bands(int64_t n) {
    bands b = {n, (double *)calloc(n, sizeof(double)), (double *)malloc(n * sizeof(double)), (double *)calloc(n, sizeof(double))};
    double *u = (double *)malloc(3 * n * sizeof(double));
    bench_random(u, n, 3, 17);
    for (int64_t i = 0; i + 1 < n; i++) {
        b.dl[i] = u[i] < 0 ? u[i] - 0.05 : u[i] + 0.05;
        b.du[i] = u[n + i] < 0 ? u[n + i] - 0.05 : u[n + i] + 0.05;
    }
    for (int64_t i = 0; i < n; i++) {
        double row = (i > 0 ? fabs(b.dl[i - 1]) : 0) + fabs(b.du[i]);
        b.d[i] = (u[2 * n + i] < 0 ? -1 : 1) * (row + 1.0 + 0.5 * u[2 * n + i]);
    }
    free(u);
    return b;
}

double *device_copy(const double *h, int64_t count) {
    double *d;
    check_cuda(cudaMalloc((void **)&d, count * sizeof(double)), "cudaMalloc");
    check_cuda(cudaMemcpy(d, h, count * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    return d;
}

__global__ void store_kernel(double *x, size_t count) {
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
        x[k] = (double)k;
}

__global__ void identity_kernel(double *x, int64_t n) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = blockIdx.y; j < n && i < n; j += gridDim.y) x[j * n + i] = i == j ? 1.0 : 0.0;
}

/* Device work timed by events on stream 0, and minv's calls (synchronous: results are ready
 * on return) on the host clock: bench_measure's medians. */
template <typename F> double time_events(F work) { return bench_median_events([] {}, work); }
template <typename F> double time_calls(F call) { return bench_median_wall(call); }

/* cuSPARSE gtsv2 (with pivoting) for an identity right-hand side, the identity set first;
 * NaN when its workspace does not fit. */
double gtsv2_seconds(const bands &b, double *x) {
    const int64_t n = b.n;
    /* cuSPARSE wants dl[0] = 0 and du[n - 1] = 0: dl_cs[i] = A(i, i - 1) */
    double *dl = (double *)calloc(n, sizeof(double));
    for (int64_t i = 1; i < n; i++) dl[i] = b.dl[i - 1];
    double *d_dl = device_copy(dl, n), *d_d = device_copy(b.d, n), *d_du = device_copy(b.du, n);
    cusparseHandle_t h;
    cusparseCreate(&h);
    size_t bytes = 0;
    void *buffer = NULL;
    double s = NAN;
    if (cusparseDgtsv2_bufferSizeExt(h, (int)n, (int)n, d_dl, d_d, d_du, x, (int)n, &bytes) != CUSPARSE_STATUS_SUCCESS ||
        cudaMalloc(&buffer, bytes) != cudaSuccess) {
        fprintf(stderr, "bench: n = %lld: no room for cusparseDgtsv2's %.3g GB workspace\n", (long long)n, bytes / 1e9);
        cudaGetLastError();
    } else {
        dim3 grid((unsigned)((n + 255) / 256), (unsigned)(n < 65535 ? n : 65535));
        s = time_events([&] {
            identity_kernel<<<grid, 256>>>(x, n);
            if (cusparseDgtsv2(h, (int)n, (int)n, d_dl, d_d, d_du, x, (int)n, buffer) != CUSPARSE_STATUS_SUCCESS) {
                fprintf(stderr, "bench: cusparseDgtsv2 failed\n");
                exit(5);
            }
        });
    }
    cudaFree(buffer);
    cudaFree(d_dl), cudaFree(d_d), cudaFree(d_du);
    cusparseDestroy(h);
    free(dl);
    return s;
}

struct gpu_times {
    double memset, store, write_once, write_once_quiet, sherman_morrison, pivoted, gtsv2;
    double residual;
};

double minv_device(minv_context *gpu, minv_tridiagonal_algorithm alg, int residual, const bands &b, double *const dev[3],
                   double *x, minv_report *rep) {
    minv_set_option(gpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, alg);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, residual);
    return time_calls([&] {
        bench_check(gpu, minv_invert_tridiagonal_device_d(gpu, b.n, dev[0], dev[1], dev[2], x, b.n, rep), "minv device");
    });
}

/* Each n is measured once, for whichever table asks first. */
gpu_times measure_gpu(minv_context *gpu, const bands &b) {
    static gpu_times cache[64];
    static int64_t cached_n[64];
    const int64_t n = b.n;
    const int slot = (int)log2((double)n);
    if (cached_n[slot] == n)
        return cache[slot];
    const size_t count = (size_t)n * (size_t)n;
    gpu_times t;
    double *x, *dev[3] = {device_copy(b.dl, n), device_copy(b.d, n), device_copy(b.du, n)};
    check_cuda(cudaMalloc((void **)&x, count * sizeof(double)), "cudaMalloc X");
    t.memset = time_events([&] { cudaMemsetAsync(x, 0, count * sizeof(double)); });
    t.store = time_events([&] { store_kernel<<<132 * 16, 256>>>(x, count); });
    minv_report rep;
    t.write_once = minv_device(gpu, MINV_TRIDIAGONAL_WRITE_ONCE, 1, b, dev, x, &rep);
    t.residual = rep.residual / 2.220446049250313e-16;
    if (!strstr(rep.reason, "written once")) fprintf(stderr, "bench: write-once did not run: %s\n", rep.reason);
    t.write_once_quiet = minv_device(gpu, MINV_TRIDIAGONAL_WRITE_ONCE, 0, b, dev, x, &rep);
    t.sherman_morrison = minv_device(gpu, MINV_TRIDIAGONAL_SHERMAN_MORRISON, 0, b, dev, x, &rep);
    if (!strstr(rep.reason, "Sherman-Morrison,")) fprintf(stderr, "bench: Sherman-Morrison did not run: %s\n", rep.reason);
    t.pivoted = minv_device(gpu, MINV_TRIDIAGONAL_PIVOTED, 0, b, dev, x, &rep);
    t.gtsv2 = gtsv2_seconds(b, x);
    minv_set_option(gpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_TRIDIAGONAL_AUTO);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, 1);
    cudaFree(x);
    for (int k = 0; k < 3; k++) cudaFree(dev[k]);
    cached_n[slot] = n;
    return cache[slot] = t;
}

void table_gpu(minv_context *gpu) {
    printf("\n## GPU, device data, double: minv against the time to write n^2 doubles and cuSPARSE gtsv2 (identity RHS)\n\n");
    printf("minv times are whole API calls (bands down, plan, uploads, kernels, report); write-once with the default "
           "sampled residual (fused into its kernel), and every path \"quiet\" (no residual; Sherman-Morrison and pivoted "
           "still read X once for rcond). The floor is the faster of cudaMemset and a store kernel; gtsv2 includes setting "
           "the identity.\n\n");
    printf("| n | memset (ms) | store kernel (ms) | write-once (ms) | write-once / floor | write-once quiet (ms) | "
           "Sherman-Morrison quiet (ms) | SM / floor | pivoted quiet (ms) | gtsv2 (ms) | gtsv2 / write-once | residual (eps) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n = 1024; n <= max_n; n *= 2) {
        bands b = make_bands(n);
        gpu_times t = measure_gpu(gpu, b);
        double floor = fmin(t.memset, t.store);
        printf("| %lld | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.3f | %.2f | %.1f | %.2g |\n", (long long)n,
               1e3 * t.memset, 1e3 * t.store, 1e3 * t.write_once, t.write_once / floor, 1e3 * t.write_once_quiet,
               1e3 * t.sherman_morrison, t.sherman_morrison / floor, 1e3 * t.pivoted, 1e3 * t.gtsv2, t.gtsv2 / t.write_once,
               t.residual);
        fflush(stdout);
        if (n == 16384)
            printf("\nn = 16384 targets: gtsv2 / write-once = %.1f (at least 50), write-once / floor = %.2f (at most 3)\n\n",
                   t.gtsv2 / t.write_once, t.write_once / floor);
        free(b.dl), free(b.d), free(b.du);
    }
}

/* x was written before (bench_touch): no path pays the first touch of its pages. */
double minv_cpu(minv_context *cpu, minv_tridiagonal_algorithm alg, const bands &b, double *x) {
    minv_report rep;
    minv_set_option(cpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, alg);
    return time_calls([&] { bench_check(cpu, minv_invert_tridiagonal_d(cpu, b.n, b.dl, b.d, b.du, x, b.n, &rep), "minv cpu"); });
}

void table_paper(minv_context *gpu) {
    minv_context *seq = bench_context(MINV_BACKEND_CPU, 0, 1), *multi = bench_context(MINV_BACKEND_CPU, 0, 0);
    minv_set_option(seq, MINV_OPT_RESIDUAL, 0);
    minv_set_option(multi, MINV_OPT_RESIDUAL, 0);
    printf("\n## The paper's comparison: GPU against sequential and multi-core CPU versions, double\n\n");
    printf("CPU: minv's own loops on 1 thread and on %d threads, host data; GPU: device data, whole API calls; all "
           "without the residual (\"quiet\" above).\n\n", omp_get_max_threads());
    printf("| n | CPU seq write-once (s) | CPU multi write-once (s) | GPU write-once (s) | write-once speed-up vs seq | "
           "write-once speed-up vs multi | CPU seq SM (s) | CPU multi SM (s) | GPU SM (s) | SM speed-up vs seq | "
           "SM speed-up vs multi |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n = 1024; n <= 32768 && n <= max_n && n <= cpu_max_n; n *= 2) {
        bands b = make_bands(n);
        double *x = (double *)malloc((size_t)n * n * sizeof(double));
        bench_touch(x, (size_t)n * n * sizeof(double));
        const double sw = minv_cpu(seq, MINV_TRIDIAGONAL_WRITE_ONCE, b, x), mw = minv_cpu(multi, MINV_TRIDIAGONAL_WRITE_ONCE, b, x);
        const double ss = minv_cpu(seq, MINV_TRIDIAGONAL_SHERMAN_MORRISON, b, x);
        const double ms = minv_cpu(multi, MINV_TRIDIAGONAL_SHERMAN_MORRISON, b, x);
        gpu_times t = measure_gpu(gpu, b);
        printf("| %lld | %.4f | %.4f | %.5f | %.0f | %.0f | %.4f | %.4f | %.5f | %.0f | %.0f |\n", (long long)n, sw, mw,
               t.write_once_quiet, sw / t.write_once_quiet, mw / t.write_once_quiet, ss, ms, t.sherman_morrison,
               ss / t.sherman_morrison, ms / t.sherman_morrison);
        fflush(stdout);
        free(x);
        free(b.dl), free(b.d), free(b.du);
    }
    minv_destroy(seq);
    minv_destroy(multi);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 && argv[1][0] != '-' ? argv[1] : "all";
    for (int k = 1; k + 1 < argc; k++) {
        if (!strcmp(argv[k], "--max-n")) max_n = atoll(argv[k + 1]);
        if (!strcmp(argv[k], "--cpu-max-n")) cpu_max_n = atoll(argv[k + 1]);
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_tridiagonal: no GPU, nothing to measure\n");
        return 0;
    }
    bench_header(stdout, argc, argv);
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    if (!strcmp(what, "gpu") || !strcmp(what, "all")) table_gpu(gpu);
    if (!strcmp(what, "paper") || !strcmp(what, "all")) table_paper(gpu);
    minv_destroy(gpu);
    return 0;
}
