// Benchmark for blocked Gauss-Jordan, cuSOLVER measured in the same run, device
// data on both sides:
//   invert   the paper's Table 4: inversion time and speed-up against cuSOLVER getrf +
//            getrs(I), n = min-n (1024) ... max-n, and the rate against DGEMM; minv's LU beside it
//   solve    A X = B with nrhs = n against cuSOLVER getrf + getrs, minv's Gauss-Jordan and
//            minv's LU (getrf, then triangular solves by GEMM)
//   nb       block-size sweep
//   swap     the row interchanges' share, column-major storage (before) against row-major
//            (after), the paper's argument for row-major
//   parts    one step's panel GETRF against its GEMM, for the look-ahead
//   ooc      host data: in core against out of core with the device budget at a quarter of
//            the matrix, n = 16384 and 32768, and the ratio of their rates
//   odd      odd orders (8191, 16383) beside their even neighbours, inversion and solve: the
//            caller's ld = n is odd there, which puts cuBLAS on slower GEMM kernels (the
//            library pads its own storage; cuSOLVER works on the caller's layout)
// Usage: bench_gauss_jordan [invert|solve|nb|swap|parts|ooc|odd|all] [--min-n N] [--max-n N] [--gpus G]
// (--min-n: the invert table's first order; --gpus: minv's Gauss-Jordan over GPUs 0 .. G-1,
// cuSOLVER still on one; bench_multi_gpu compares several GPUs with cuSOLVER's multi-GPU
// solver)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

namespace {

int64_t min_n = 1024, max_n = 32768;
int gpus = 1;

/* minv on the GPU, with the default (sampled) residual in every report. */
minv_context *gj_context() {
    minv_context *ctx = bench_context_gpus(MINV_BACKEND_GPU, 0, 0, gpus);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    return ctx;
}

double *host_random(int64_t rows, int64_t cols, uint64_t seed, int dominant) {
    double *h = (double *)malloc(sizeof(double) * rows * cols);
    if (!h) {
        fprintf(stderr, "bench: cannot allocate a %lld x %lld matrix\n", (long long)rows, (long long)cols);
        exit(2);
    }
    bench_random(h, rows, cols, seed);
    if (dominant) /* well conditioned, but still pivoting: no diagonal dominance by rows */
        for (int64_t i = 0; i < rows && i < cols; i++) h[i * rows + i] += 0.5 * sqrt((double)rows);
    return h;
}

double *device_random(int64_t rows, int64_t cols, uint64_t seed, int dominant) {
    double *h = host_random(rows, cols, seed, dominant), *d;
    BENCH_CK(cudaMalloc((void **)&d, sizeof(double) * rows * cols));
    BENCH_CK(cudaMemcpy(d, h, sizeof(double) * rows * cols, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

/* cuSOLVER getrf + getrs on a copy of A with B (nrhs columns; the identity when b is NULL):
 * median of three, seconds. */
double peer(cusolverDnHandle_t h, const double *d_a, int64_t n, const double *d_b, int64_t nrhs) {
    double *lu, *x, *work;
    int64_t *ipiv;
    int *info;
    size_t dws = 0, hws = 0;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreateParams(&params));
    BENCH_CK(cudaMalloc((void **)&lu, sizeof(double) * n * n));
    BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * nrhs));
    BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int64_t) * n));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    BENCH_CK(cusolverDnXgetrf_bufferSize(h, params, n, n, CUDA_R_64F, lu, n, CUDA_R_64F, &dws, &hws));
    BENCH_CK(cudaMalloc((void **)&work, dws + 8));
    void *hwork = hws ? malloc(hws) : NULL;
    double *ident = NULL;
    if (!d_b) { /* the identity, built once on the host */
        double *hi = (double *)calloc((size_t)n * n, sizeof(double));
        for (int64_t i = 0; i < n; i++) hi[i * n + i] = 1;
        BENCH_CK(cudaMalloc((void **)&ident, sizeof(double) * n * n));
        BENCH_CK(cudaMemcpy(ident, hi, sizeof(double) * n * n, cudaMemcpyHostToDevice));
        free(hi);
        d_b = ident;
    }
    const double s = bench_median_events(
        [&] {
            BENCH_CK(cudaMemcpy(lu, d_a, sizeof(double) * n * n, cudaMemcpyDeviceToDevice));
            BENCH_CK(cudaMemcpy(x, d_b, sizeof(double) * n * nrhs, cudaMemcpyDeviceToDevice));
        },
        [&] {
            BENCH_CK(cusolverDnXgetrf(h, params, n, n, CUDA_R_64F, lu, n, ipiv, CUDA_R_64F, work, dws, hwork, hws, info));
            BENCH_CK(cusolverDnXgetrs(h, params, CUBLAS_OP_N, n, nrhs, CUDA_R_64F, lu, n, ipiv, CUDA_R_64F, x, n, info));
        });
    cusolverDnDestroyParams(params);
    free(hwork);
    cudaFree(lu); cudaFree(x); cudaFree(ipiv); cudaFree(info); cudaFree(work); cudaFree(ident);
    return s;
}

double minv_time(minv_context *ctx, minv_method method, int solve, const double *d_a, int64_t n, const double *d_b,
                 int64_t nrhs, double *d_x, minv_report *rep) {
    return bench_median_wall([&] {
        if (solve) BENCH_CK(minv_solve_device_d(ctx, method, n, nrhs, d_a, n, d_b, n, d_x, n, rep));
        else BENCH_CK(minv_invert_device_d(ctx, method, n, d_a, n, d_x, n, rep));
    });
}

void invert() {
    printf("\n## Table 4: inversion, minv Gauss-Jordan vs cuSOLVER getrf + getrs(I), device data; minv LU beside\n\n");
    printf("| n | cuSOLVER (s) | minv GJ (s) | speed-up | minv TFLOP/s (2n^3) | DGEMM TFLOP/s | of DGEMM | residual |"
           " minv LU (s) | LU speed-up | LU residual |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    minv_context *ctx = gj_context();
    cusolverDnHandle_t h;
    BENCH_CK(cusolverDnCreate(&h));
    for (int64_t n = min_n; n <= max_n; n *= 2) {
        double *a = device_random(n, n, 11, 1), *x;
        BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
        minv_report rep, rlu;
        double p = peer(h, a, n, NULL, n), m = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 0, a, n, NULL, 0, x, &rep);
        double lu = minv_time(ctx, MINV_METHOD_LU, 0, a, n, NULL, 0, x, &rlu);
        double tf = 2.0 * n * n * n / m / 1e12, gemm = bench_dgemm_tflops(n, 1); /* 2 n^3: one product's flops */
        printf("| %lld | %.4f | %.4f | %.2f | %.1f | %.1f | %.2f | %.2g | %.4f | %.2f | %.2g |\n", (long long)n, p, m, p / m,
               tf, gemm, tf / gemm, rep.residual, lu, p / lu, rlu.residual);
        fflush(stdout);
        cudaFree(a);
        cudaFree(x);
    }
    cusolverDnDestroy(h);
    minv_destroy(ctx);
}

void solve() {
    printf("\n## A X = B with nrhs = n: minv Gauss-Jordan and minv LU vs cuSOLVER getrf + getrs, device data\n\n");
    printf("| n = nrhs | cuSOLVER (s) | minv GJ (s) | speed-up | minv TFLOP/s (3n^3) | residual |"
           " minv LU (s) | LU speed-up | LU TFLOP/s (8n^3/3) | LU residual |\n|---|---|---|---|---|---|---|---|---|---|\n");
    minv_context *ctx = gj_context();
    cusolverDnHandle_t h;
    BENCH_CK(cusolverDnCreate(&h));
    for (int64_t n = 2048; n <= max_n && n <= 16384; n *= 2) {
        double *a = device_random(n, n, 12, 1), *b = device_random(n, n, 13, 0), *x;
        BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
        minv_report rep, rlu;
        double p = peer(h, a, n, b, n), m = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 1, a, n, b, n, x, &rep);
        double lu = minv_time(ctx, MINV_METHOD_LU, 1, a, n, b, n, x, &rlu);
        printf("| %lld | %.4f | %.4f | %.2f | %.1f | %.2g | %.4f | %.2f | %.1f | %.2g |\n", (long long)n, p, m, p / m,
               3.0 * n * n * n / m / 1e12, rep.residual, lu, p / lu, 8.0 * n * n * n / 3 / lu / 1e12, rlu.residual);
        fflush(stdout);
        cudaFree(a);
        cudaFree(b);
        cudaFree(x);
    }
    cusolverDnDestroy(h);
    minv_destroy(ctx);
}

void nb_sweep() {
    printf("\n## Block size sweep (inversion, device data; seconds)\n\n| n | ");
    const int64_t nbs[] = {128, 256, 384, 512, 768, 1024};
    for (int b = 0; b < 6; b++) printf("NB %lld | ", (long long)nbs[b]);
    printf("best |\n|---|---|---|---|---|---|---|---|\n");
    minv_context *ctx = gj_context();
    for (int64_t n = 4096; n <= max_n && n <= 16384; n *= 2) {
        double *a = device_random(n, n, 14, 1), *x, best = 1e30;
        int64_t best_nb = 0;
        BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
        printf("| %lld | ", (long long)n);
        for (int b = 0; b < 6; b++) {
            minv_report rep;
            minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)nbs[b]);
            double t = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 0, a, n, NULL, 0, x, &rep);
            if (t < best) { best = t; best_nb = nbs[b]; }
            printf("%.4f | ", t);
            fflush(stdout);
        }
        printf("%lld |\n", (long long)best_nb);
        cudaFree(a);
        cudaFree(x);
    }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0);
    minv_destroy(ctx);
}

/* Before: the interchanges of one panel on column-major storage, a row strided across the
 * matrix (the layout the paper moves away from), one thread per column. */
__global__ void swap_col_major(double *v, int64_t n, const int64_t *piv, int64_t k0, int64_t nb) {
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x)
        for (int64_t t = 0; t < nb; t++) {
            const int64_t r = k0 + t, p = piv[t];
            double x = v[r + j * n];
            v[r + j * n] = v[p + j * n];
            v[p + j * n] = x;
        }
}

void swap_share() {
    printf("\n## Row interchanges of one inversion (all n/NB panels): column-major storage (before) vs the library's\n");
    printf("## row-major storage with the panel's interchanges as one gathered permutation (after)\n\n");
    printf("| n | NB | interchanges column-major (s) | interchanges row-major (s) | GJ inversion (s) | share before | share after |\n");
    printf("|---|---|---|---|---|---|---|\n");
    minv_context *ctx = gj_context();
    for (int64_t n = 4096; n <= max_n && n <= 16384; n *= 2) {
        const int64_t nb = n >= 8192 ? 512 : 256;
        double *a = device_random(n, n, 15, 1), *x, *tmp;
        int64_t *piv, *local, *cur, *pairs;
        int64_t *hp = (int64_t *)malloc(sizeof(int64_t) * n), *hl = (int64_t *)malloc(sizeof(int64_t) * n);
        BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&tmp, sizeof(double) * 2 * nb * n));
        BENCH_CK(cudaMalloc((void **)&piv, sizeof(int64_t) * n));
        BENCH_CK(cudaMalloc((void **)&local, sizeof(int64_t) * n));
        BENCH_CK(cudaMalloc((void **)&cur, sizeof(int64_t) * n));
        BENCH_CK(cudaMalloc((void **)&pairs, sizeof(int64_t) * 4 * nb));
        for (int64_t i = 0; i < n; i++) { /* partial pivoting's far interchanges */
            hp[i] = i + (n - i) / 2;
            hl[i] = hp[i] - i / nb * nb + 1;
            hl[i] = hl[i] < 1 ? 1 : hl[i];
        }
        BENCH_CK(cudaMemcpy(piv, hp, sizeof(int64_t) * n, cudaMemcpyHostToDevice));
        BENCH_CK(cudaMemcpy(local, hl, sizeof(int64_t) * n, cudaMemcpyHostToDevice));
        for (int64_t i = 0; i < n; i++) hp[i] = i; /* the permutation so far: none */
        BENCH_CK(cudaMemset(x, 0, sizeof(double) * n * n));
        const double tc = bench_median_events([] {}, [&] {
            for (int64_t k0 = 0; k0 < n; k0 += nb) swap_col_major<<<1024, 256>>>(x, n, piv + k0, k0, nb < n - k0 ? nb : n - k0);
        });
        const double tr = bench_median_wall(
            [&] { BENCH_CK(cudaMemcpy(cur, hp, sizeof(int64_t) * n, cudaMemcpyHostToDevice)); },
            [&] {
                for (int64_t k0 = 0; k0 < n; k0 += nb) { /* the library plans on its look-ahead stream, off the critical path */
                    const int64_t w = nb < n - k0 ? nb : n - k0;
                    BENCH_CK(minv_gpu_interchange_plan(ctx, local + k0, k0, w, cur, pairs));
                    BENCH_CK(minv_gpu_apply_interchange(ctx, MINV_R64, x, n, n, w, pairs, tmp));
                }
                cudaStreamSynchronize(ctx->gpu->stream);
            });
        minv_report rep;
        minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)nb);
        double total = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 0, a, n, NULL, 0, x, &rep);
        printf("| %lld | %lld | %.4f | %.4f | %.4f | %.1f%% | %.1f%% |\n", (long long)n, (long long)nb, tc, tr, total,
               100 * tc / (total - tr + tc), 100 * tr / total);
        fflush(stdout);
        cudaFree(a); cudaFree(x); cudaFree(tmp); cudaFree(piv); cudaFree(local); cudaFree(cur); cudaFree(pairs);
        free(hp);
        free(hl);
    }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0);
    minv_destroy(ctx);
}

/* What one step costs at the top: cuSOLVER's GETRF of a full-height panel (on the look-ahead
 * stream) against the step's GEMM, which must hide it. */
void parts() {
    printf("\n## One step's parts at n = 16384: panel GETRF (look-ahead) vs the step's GEMM, ms\n\n");
    printf("| NB | GETRF n x NB | GETRF n/2 x NB | GEMM n x n x NB |\n|---|---|---|---|\n");
    const int64_t n = max_n < 16384 ? max_n : 16384;
    cusolverDnHandle_t h;
    cublasHandle_t b;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreate(&h));
    BENCH_CK(cublasCreate(&b));
    BENCH_CK(cusolverDnCreateParams(&params));
    double *a = device_random(n, n, 16, 0), *c;
    BENCH_CK(cudaMalloc((void **)&c, sizeof(double) * n * n));
    int64_t *ipiv;
    int *info;
    BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int64_t) * n));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    const int64_t nbs[] = {128, 256, 512, 1024};
    for (int k = 0; k < 4; k++) {
        const int64_t w = nbs[k];
        double ms[3];
        for (int part = 0; part < 3; part++) {
            const int64_t m = part == 1 ? n / 2 : n;
            size_t dws = 0, hws = 0;
            void *dw = NULL;
            if (part < 2) {
                BENCH_CK(cusolverDnXgetrf_bufferSize(h, params, m, w, CUDA_R_64F, c, n, CUDA_R_64F, &dws, &hws));
                BENCH_CK(cudaMalloc(&dw, dws + 8));
            }
            const double one = 1, minus = -1;
            ms[part] = 1e3 * bench_median_events(
                               [&] { BENCH_CK(cudaMemcpy(c, a, sizeof(double) * n * w, cudaMemcpyDeviceToDevice)); },
                               [&] {
                                   if (part < 2)
                                       BENCH_CK(cusolverDnXgetrf(h, params, m, w, CUDA_R_64F, c, n, ipiv, CUDA_R_64F,
                                                                 dw, dws, NULL, 0, info));
                                   else
                                       BENCH_CK(cublasDgemm_64(b, CUBLAS_OP_N, CUBLAS_OP_N, n, n, w, &minus, a, n, a, w,
                                                               &one, c, n));
                               });
            cudaFree(dw);
        }
        printf("| %lld | %.2f | %.2f | %.2f |\n", (long long)w, ms[0], ms[1], ms[2]);
        fflush(stdout);
    }
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    cublasDestroy(b);
    cudaFree(a); cudaFree(c); cudaFree(ipiv); cudaFree(info);
}

/* Whole calls on host data (transfers and host copies included): median of three after a
 * warm-up, which also allocates what the context keeps (pinned host memory among it). */
double host_time(minv_context *ctx, const double *a, int64_t n, double *x, minv_report *rep) {
    return bench_median_wall(
        [&] { bench_check(ctx, minv_invert_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, a, n, x, n, rep), "gauss-jordan"); });
}

void out_of_core() {
    printf("\n## Out of core: host data, in core (budget: the free memory) vs a device budget of a quarter of the matrix\n\n");
    printf("| n | budget (GB) | in core (s) | TFLOP/s | out of core (s) | TFLOP/s | rate out / in | residual in / out | W | chunk |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    minv_context *in = gj_context();
    for (int64_t n = 16384; n <= max_n && n <= 32768; n *= 2) {
        const int64_t budget = n * n * (int64_t)sizeof(double) / 4;
        minv_context *ooc = bench_context(MINV_BACKEND_GPU, budget, 0);
        double *a = host_random(n, n, 18, 1), *x = (double *)malloc(sizeof(double) * n * n);
        minv_report rin, rout;
        long long w = 0, c = 0;
        minv_set_option(ooc, MINV_OPT_RESIDUAL, 1);
        const double tin = host_time(in, a, n, x, &rin), tout = host_time(ooc, a, n, x, &rout);
        const char *plan = strstr(rout.reason, "W = "), *chunk = strstr(rout.reason, "chunks of ");
        if (rout.backend != MINV_BACKEND_GPU || !plan || !chunk || sscanf(plan, "W = %lld", &w) != 1 ||
            sscanf(chunk, "chunks of %lld", &c) != 1) {
            printf("| %lld | not out of core on the GPU: %s |\n", (long long)n, rout.reason);
        } else {
            const double flops = 2.0 * n * n * n;
            printf("| %lld | %.2f | %.3f | %.1f | %.3f | %.1f | %.2f | %.2g / %.2g | %lld | %lld |\n", (long long)n,
                   budget / 1e9, tin, flops / tin / 1e12, tout, flops / tout / 1e12, tin / tout, rin.residual,
                   rout.residual, w, c);
        }
        fflush(stdout);
        minv_destroy(ooc);
        free(a);
        free(x);
    }
    minv_destroy(in);
}

void odd_orders() {
    printf("\n## Odd orders: minv Gauss-Jordan vs cuSOLVER getrf + getrs (identity, or nrhs = n), device data, ld = n\n\n");
    printf("| n | inversion: cuSOLVER (s) | minv (s) | speed-up | solve: cuSOLVER (s) | minv (s) | speed-up |\n");
    printf("|---|---|---|---|---|---|---|\n");
    minv_context *ctx = gj_context();
    cusolverDnHandle_t h;
    BENCH_CK(cusolverDnCreate(&h));
    const int64_t sizes[] = {8191, 8192, 16383, 16384};
    for (int k = 0; k < 4 && sizes[k] <= max_n; k++) {
        const int64_t n = sizes[k];
        double *a = device_random(n, n, 19, 1), *b = device_random(n, n, 20, 0), *x;
        BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
        minv_report rep;
        double pi = peer(h, a, n, NULL, n), mi = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 0, a, n, NULL, 0, x, &rep);
        double ps = peer(h, a, n, b, n), ms = minv_time(ctx, MINV_METHOD_GAUSS_JORDAN, 1, a, n, b, n, x, &rep);
        printf("| %lld | %.4f | %.4f | %.2f | %.4f | %.4f | %.2f |\n", (long long)n, pi, mi, pi / mi, ps, ms, ps / ms);
        fflush(stdout);
        cudaFree(a); cudaFree(b); cudaFree(x);
    }
    cusolverDnDestroy(h);
    minv_destroy(ctx);
}

/* One warm-up and one measured inversion at --max-n, nothing else: for a profiler
 * (ncu --metrics gpu__time_duration.sum). */
void profile_one() {
    minv_context *ctx = gj_context();
    const int64_t n = max_n;
    double *a = device_random(n, n, 17, 1), *x;
    minv_report rep;
    BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * n));
    for (int k = 0; k < 2; k++) BENCH_CK(minv_invert_device_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, a, n, x, n, &rep));
    printf("profile: n = %lld, %.4f s\n", (long long)n, rep.seconds);
    cudaFree(a);
    cudaFree(x);
    minv_destroy(ctx);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "all";
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--max-n") && k + 1 < argc) max_n = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--min-n") && k + 1 < argc) min_n = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--gpus") && k + 1 < argc) gpus = atoi(argv[k + 1]);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_gauss_jordan: no GPU, nothing to measure\n");
        return 0;
    }
    if (!strcmp(what, "profile")) {
        profile_one();
        return 0;
    }
    bench_header(stdout, argc, argv);
    if (!strcmp(what, "invert") || !strcmp(what, "all")) invert();
    if (!strcmp(what, "solve") || !strcmp(what, "all")) solve();
    if (!strcmp(what, "nb") || !strcmp(what, "all")) nb_sweep();
    if (!strcmp(what, "swap") || !strcmp(what, "all")) swap_share();
    if (!strcmp(what, "parts") || !strcmp(what, "all")) parts();
    if (!strcmp(what, "ooc") || !strcmp(what, "all")) out_of_core();
    if (!strcmp(what, "odd") || !strcmp(what, "all")) odd_orders();
    return 0;
}
