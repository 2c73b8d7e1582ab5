// Benchmark for the iterative-inversion paper, with the peers measured in the
// same run:
//   table1   the paper's Table 1: matrix type identification and norms, and the transpose,
//            sequential CPU against the GPU (host data, transfers included), in core and out
//            of core (matrix four times the device budget)
//   table2   the paper's Table 2: the iterative inversion against the Gauss-Jordan baseline,
//            in core and out of core
//   rate     the iteration's rate against cuBLAS DGEMM on the same GPU; steps and time to
//            1e-12 cold and warm; the mixed-precision gain
//   ooc      out-of-core iteration (matrix 4x the budget) against in core
//   pcie     what PCIe gives the out-of-core copies, contiguous and strided
// Usage: bench_iterative [table1|table2|rate|ooc|pcie|all] [--min-n N] [--max-n N]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

namespace {

int64_t max_n = 32768, min_n = 0;

/* The paper's sequential CPU norms: one pass for the 1-norm, one for the inf-norm. */
double cpu_sequential_norms(const double *a, int64_t n) {
    double t0 = bench_now(), n1 = 0, ninf = 0;
    double *rows = (double *)calloc((size_t)n, sizeof(double));
    for (int64_t j = 0; j < n; j++) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += fabs(a[j * n + i]);
        n1 = fmax(n1, s);
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) rows[i] += fabs(a[j * n + i]);
    for (int64_t i = 0; i < n; i++) ninf = fmax(ninf, rows[i]);
    free(rows);
    volatile double sink = n1 + ninf;
    (void)sink;
    return bench_now() - t0;
}

double cpu_sequential_transpose(const double *a, double *t, int64_t n) {
    double t0 = bench_now();
    const int64_t b = 64;
    for (int64_t jj = 0; jj < n; jj += b)
        for (int64_t ii = 0; ii < n; ii += b)
            for (int64_t j = jj; j < jj + b && j < n; j++)
                for (int64_t i = ii; i < ii + b && i < n; i++) t[i * n + j] = a[j * n + i];
    return bench_now() - t0;
}

void table1() {
    printf("\n## Table 1: type identification + norms, and transpose; sequential CPU vs GPU (host data, transfers included)\n\n");
    printf("| n | CPU seq norms (s) | GPU analysis in core (s) | speed-up | GPU analysis out of core (s) | CPU seq transpose (s) | GPU transpose out of core (s) | speed-up |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    for (int64_t n = 512; n <= max_n; n *= 2) {
        double *a = (double *)malloc(sizeof(double) * n * n), *t = (double *)malloc(sizeof(double) * n * n);
        bench_random(a, n, n, (uint64_t)n);
        minv_analysis an;
        /* out of core: the matrix is four times the budget */
        minv_context *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_ooc_plan plan;
        bench_check(ooc, minv_gpu_ooc_plan(ooc, MINV_R64, n, &plan), "plan");
        bench_check(gpu, minv_analyze_d(gpu, n, a, n, &an), "warm-up");
        double cpu_norm = cpu_sequential_norms(a, n);
        double t0 = bench_now();
        bench_check(gpu, minv_analyze_d(gpu, n, a, n, &an), "analysis");
        double gpu_in = bench_now() - t0;
        t0 = bench_now();
        bench_check(ooc, minv_analyze_d(ooc, n, a, n, &an), "analysis out of core");
        double gpu_ooc = bench_now() - t0;
        double cpu_tr = cpu_sequential_transpose(a, t, n);
        minv_mat src = {MINV_R64, n, n, n, a}, dst = {MINV_R64, n, n, n, t};
        t0 = bench_now();
        bench_check(ooc, minv_gpu_ooc_transpose(ooc, &plan, &src, 1.0, &dst), "transpose");
        double gpu_tr = bench_now() - t0;
        printf("| %lld | %.4f | %.4f | %.1f | %.4f | %.4f | %.4f | %.1f |\n", (long long)n, cpu_norm, gpu_in,
               cpu_norm / gpu_in, gpu_ooc, cpu_tr, gpu_tr, cpu_tr / gpu_tr);
        fflush(stdout);
        minv_destroy(ooc);
        free(a);
        free(t);
    }
    minv_destroy(gpu);
}

/* Out-of-core runs must not pass a CPU fallback off as GPU time. */
const char *where(const minv_report *rep) {
    return rep->backend != MINV_BACKEND_GPU ? " (CPU fallback)" : strstr(rep->reason, "out of core") ? "" : " (in core)";
}

double time_invert(minv_context *ctx, minv_method m, int64_t n, const double *a, double *x, minv_report *rep) {
    double t0 = bench_now();
    bench_check(ctx, minv_invert_d(ctx, m, n, a, n, x, n, rep), minv_method_name(m));
    return bench_now() - t0;
}

void table2() {
    printf("\n## Table 2: iterative inversion vs the Gauss-Jordan baseline (host data, transfers included)\n\n");
    printf("| n | iterative in core (s) | GJ baseline in core (s) | iterative out of core (s) | GJ baseline out of core (s) | baseline / iterative (out of core) |\n");
    printf("|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    for (int64_t n = 512; n <= 4096 && n <= max_n; n *= 2) {
        double *a = (double *)malloc(sizeof(double) * n * n), *x = (double *)malloc(sizeof(double) * n * n);
        bench_random(a, n, n, 7 + (uint64_t)n);
        for (int64_t i = 0; i < n; i++) a[i * n + i] += sqrt((double)n); /* modest conditioning */
        minv_context *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_report rep;
        time_invert(gpu, MINV_METHOD_ITERATIVE, n, a, x, &rep); /* warm-up */
        double it_in = time_invert(gpu, MINV_METHOD_ITERATIVE, n, a, x, &rep);
        double gj_in = time_invert(gpu, MINV_METHOD_GJ_BASELINE, n, a, x, &rep);
        double it_ooc = time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &rep);
        const char *it_where = where(&rep);
        double gj_ooc = n <= 2048 ? time_invert(ooc, MINV_METHOD_GJ_BASELINE, n, a, x, &rep) : NAN;
        printf("| %lld | %.4f | %.4f | %.4f%s | %.4f%s | %.1f |\n", (long long)n, it_in, gj_in, it_ooc, it_where, gj_ooc,
               n <= 2048 ? where(&rep) : "", gj_ooc / it_ooc);
        fflush(stdout);
        minv_destroy(ooc);
        free(a);
        free(x);
    }
    minv_destroy(gpu);
}

/* The iteration on device data (no transfers): seconds and the report. */
double device_iterate(minv_context *ctx, int64_t n, const double *d_a, double *d_x, minv_report *rep) {
    cudaDeviceSynchronize();
    double t0 = bench_now();
    bench_check(ctx, minv_invert_device_d(ctx, MINV_METHOD_ITERATIVE, n, d_a, n, d_x, n, rep), "device iterate");
    return bench_now() - t0;
}

void rate() {
    printf("\n## Iteration rate against cuBLAS DGEMM (device data), steps and time to 1e-12, warm start, mixed precision\n\n");
    printf("| n | DGEMM TFLOP/s | iteration | steps | time (s) | iteration TFLOP/s | rate / DGEMM | efficiency (order^(1/products)) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, 0);
    minv_set_option(gpu, MINV_OPT_TOLERANCE, 1e-12);
    for (int64_t n = 8192; n <= 16384 && n <= max_n; n *= 2) {
        double peer = bench_dgemm_tflops(n);
        double *h = (double *)malloc(sizeof(double) * n * n), *d_a, *d_x;
        bench_spd(h, n, 3);
        cudaMalloc((void **)&d_a, sizeof(double) * n * n);
        cudaMalloc((void **)&d_x, sizeof(double) * n * n);
        cudaMemcpy(d_a, h, sizeof(double) * n * n, cudaMemcpyHostToDevice);
        minv_report rep;
        for (int it = 0; it <= 1; it++) {
            minv_set_option(gpu, MINV_OPT_ITERATION, it);
            device_iterate(gpu, n, d_a, d_x, &rep); /* warm-up */
            double t = device_iterate(gpu, n, d_a, d_x, &rep);
            /* the rate of the products alone: the report's flops over the time */
            double tf = rep.flops / t / 1e12;
            printf("| %lld | %.1f | %s | %lld | %.3f | %.1f | %.2f | %.3f |\n", (long long)n, peer,
                   it ? "hyperpower 8" : "Soleymani 7", (long long)rep.iterations, t, tf, tf / peer,
                   it ? pow(8.0, 1.0 / 6) : pow(7.0, 1.0 / 9));
            fflush(stdout);
        }
        /* warm start: the converged inverse perturbed by 1e-6, through the host API */
        minv_set_option(gpu, MINV_OPT_ITERATION, 0);
        double *x = (double *)malloc(sizeof(double) * n * n);
        cudaMemcpy(x, d_x, sizeof(double) * n * n, cudaMemcpyDeviceToHost);
        for (int64_t k = 0; k < n * n; k++) x[k] *= 1 + 1e-6 * sin((double)k);
        double t0 = bench_now();
        bench_check(gpu, minv_invert_d(gpu, MINV_METHOD_ITERATIVE, n, h, n, x, n, &rep), "cold host");
        double cold = bench_now() - t0;
        int64_t cold_steps = rep.iterations;
        for (int64_t k = 0; k < n * n; k++) x[k] *= 1 + 1e-6 * sin((double)k);
        t0 = bench_now();
        bench_check(gpu, minv_invert_warm_d(gpu, MINV_METHOD_ITERATIVE, n, h, n, x, n, x, n, &rep), "warm host");
        double warm = bench_now() - t0;
        printf("\nn = %lld, host data: cold start %lld steps %.3f s; warm start (inverse perturbed 1e-6) %lld steps %.3f s\n",
               (long long)n, (long long)cold_steps, cold, (long long)rep.iterations, warm);
        minv_set_option(gpu, MINV_OPT_MIXED_PRECISION, 1);
        device_iterate(gpu, n, d_a, d_x, &rep);
        double mixed = device_iterate(gpu, n, d_a, d_x, &rep);
        minv_set_option(gpu, MINV_OPT_MIXED_PRECISION, 0);
        double plain = device_iterate(gpu, n, d_a, d_x, &rep);
        printf("n = %lld, device data, tolerance 1e-12: double %.3f s, mixed (TF32 then FP64) %.3f s, gain %.2fx\n\n",
               (long long)n, plain, mixed, plain / mixed);
        fflush(stdout);
        cudaFree(d_a);
        cudaFree(d_x);
        free(h);
        free(x);
    }
    minv_destroy(gpu);
}

void ooc() {
    printf("\n## Out-of-core iteration (matrix 4x the device budget) against in core, host data\n\n");
    printf("A strictly diagonally dominant SOAR covariance (diagonal guess, a few steps to 1e-12).\n\n");
    printf("| n | in core (s) | TFLOP/s | out of core (s) | TFLOP/s | out of core / in core rate |\n|---|---|---|---|---|---|\n");
    for (int64_t n = min_n > 16384 ? min_n : 16384; n <= max_n; n *= 2) {
        double *a = (double *)malloc(sizeof(double) * n * n), *x = (double *)malloc(sizeof(double) * n * n);
        bench_spd(a, n, 5);
        for (int64_t i = 0; i < n; i++) a[i * n + i] += 8; /* rows sum to about 8: dominant */
        minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0), *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_set_option(gpu, MINV_OPT_TOLERANCE, 1e-12);
        minv_set_option(ooc, MINV_OPT_TOLERANCE, 1e-12);
        minv_report rin, rout;
        { /* handles and kernels warm, on a small matrix of the same kind */
            double *w = (double *)malloc(sizeof(double) * 1024 * 1024), *wx = (double *)malloc(sizeof(double) * 1024 * 1024);
            bench_spd(w, 1024, 5);
            for (int64_t i = 0; i < 1024; i++) w[i * 1024 + i] += 8;
            time_invert(gpu, MINV_METHOD_ITERATIVE, 1024, w, wx, &rin);
            free(w);
            free(wx);
        }
        double tin = time_invert(gpu, MINV_METHOD_ITERATIVE, n, a, x, &rin);
        time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &rout); /* pinned host buffers allocated */
        double tout = time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &rout);
        double rin_tf = rin.flops / tin / 1e12, rout_tf = rout.flops / tout / 1e12;
        printf("| %lld | %.2f | %.1f | %.2f%s | %.1f | %.2f |\n", (long long)n, tin, rin_tf, tout, where(&rout), rout_tf,
               rout_tf / rin_tf);
        printf("\n%s\n\n", rout.reason);
        fflush(stdout);
        minv_destroy(gpu);
        minv_destroy(ooc);
        free(a);
        free(x);
    }
}

/* What the out-of-core engine's copies get from PCIe: pinned host matrix of n x n, blocks of
 * rows x cols copied up and down, contiguous or strided (segments of rows elements). */
void pcie() {
    printf("\n## PCIe, pinned host memory: contiguous and strided (column segments) copies, GB/s\n\n");
    printf("| block (rows x cols) | segment (KB) | up | down |\n|---|---|---|---|\n");
    const int64_t n = 16384;
    double *h, *d;
    cudaMallocHost((void **)&h, sizeof(double) * n * n);
    cudaMalloc((void **)&d, sizeof(double) * 4864 * 4864);
    bench_random(h, n, n, 5);
    const int64_t shapes[][2] = {{4864, 4864}, {4864, 608}, {608, 4864}, {1216, 4864}, {2432, 4864}};
    for (int k = -1; k < 5; k++) {
        const int64_t rows = shapes[k < 0 ? 0 : k][0], cols = shapes[k < 0 ? 0 : k][1];
        const size_t bytes = sizeof(double) * rows * cols;
        double up[3], down[3];
        for (int r = 0; r < 3; r++) {
            double t0 = bench_now();
            if (k < 0) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
            else cudaMemcpy2D(d, rows * 8, h, n * 8, rows * 8, cols, cudaMemcpyHostToDevice);
            up[r] = bytes / (bench_now() - t0) / 1e9;
            t0 = bench_now();
            if (k < 0) cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
            else cudaMemcpy2D(h, n * 8, d, rows * 8, rows * 8, cols, cudaMemcpyDeviceToHost);
            down[r] = bytes / (bench_now() - t0) / 1e9;
        }
        printf("| %lld x %lld%s | %.1f | %.1f | %.1f |\n", (long long)rows, (long long)cols, k < 0 ? " contiguous" : "",
               k < 0 ? bytes / 1e3 : rows * 8 / 1e3, bench_median(up, 3), bench_median(down, 3));
    }
    cudaFreeHost(h);
    cudaFree(d);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "all";
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--max-n") && k + 1 < argc) max_n = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--min-n") && k + 1 < argc) min_n = atoll(argv[k + 1]);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_iterative: no GPU, nothing to measure\n");
        return 0;
    }
    bench_header(stdout, argc, argv);
    if (!strcmp(what, "table1") || !strcmp(what, "all")) table1();
    if (!strcmp(what, "table2") || !strcmp(what, "all")) table2();
    if (!strcmp(what, "rate") || !strcmp(what, "all")) rate();
    if (!strcmp(what, "ooc") || !strcmp(what, "all")) ooc();
    if (!strcmp(what, "pcie") || !strcmp(what, "all")) pcie();
    return 0;
}
