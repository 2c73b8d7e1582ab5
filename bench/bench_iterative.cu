// Benchmark for the iterative-inversion paper, with the peers measured in the
// same run:
//   table1   the paper's Table 1: matrix type identification and norms, and the transpose,
//            sequential CPU against the GPU (host data, transfers included), in core and out
//            of core (matrix four times the device budget)
//   table2   the paper's Table 2: the iterative inversion against the Gauss-Jordan baseline,
//            in core and out of core
//   rate     the iteration's rate against cuBLAS DGEMM on the same GPU; steps and time to
//            1e-12 cold and warm; the mixed-precision gain
//   ooc      out-of-core iteration (matrix 4x the device budget) against in core, its
//            product on 3 streams (the library's) and on 4 (the paper's count)
//   pcie     what PCIe gives the out-of-core copies, contiguous and strided
// Every figure is bench_measure's (bench_common.h): a warm-up run, then the median of at least
// three runs (five under 10 ms), every buffer written before the first timed run; the DGEMM
// reference runs as many products back to back as the iteration it is compared with.
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
void cpu_sequential_norms(const double *a, int64_t n) {
    double n1 = 0, ninf = 0;
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
}

void cpu_sequential_transpose(const double *a, double *t, int64_t n) {
    const int64_t b = 64;
    for (int64_t jj = 0; jj < n; jj += b)
        for (int64_t ii = 0; ii < n; ii += b)
            for (int64_t j = jj; j < jj + b && j < n; j++)
                for (int64_t i = ii; i < ii + b && i < n; i++) t[i * n + j] = a[j * n + i];
}

void table1() {
    printf("\n## Table 1: type identification + norms, and transpose; sequential CPU vs GPU (host data, transfers included)\n\n");
    printf("| n | CPU seq norms (s) | GPU analysis in core (s) | speed-up | GPU analysis out of core (s) | CPU seq transpose (s) | GPU transpose out of core (s) | speed-up |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    for (int64_t n = 512; n <= max_n; n *= 2) {
        if (n < min_n) continue;
        double *a = (double *)malloc(sizeof(double) * n * n), *t = (double *)malloc(sizeof(double) * n * n);
        bench_random(a, n, n, (uint64_t)n);
        bench_touch(t, sizeof(double) * n * n); /* both sides write t: neither pays its first touch */
        minv_analysis an;
        /* out of core: the matrix is four times the budget */
        minv_context *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_ooc_plan plan;
        bench_check(ooc, minv_gpu_ooc_plan(ooc, MINV_R64, n, &plan), "plan");
        const double cpu_norm = bench_median_wall([&] { cpu_sequential_norms(a, n); });
        const double gpu_in = bench_median_wall([&] { bench_check(gpu, minv_analyze_d(gpu, n, a, n, &an), "analysis"); });
        const double gpu_ooc =
            bench_median_wall([&] { bench_check(ooc, minv_analyze_d(ooc, n, a, n, &an), "analysis out of core"); });
        const double cpu_tr = bench_median_wall([&] { cpu_sequential_transpose(a, t, n); });
        minv_mat src = {MINV_R64, n, n, n, a}, dst = {MINV_R64, n, n, n, t};
        const double gpu_tr =
            bench_median_wall([&] { bench_check(ooc, minv_gpu_ooc_transpose(ooc, &plan, &src, 1.0, &dst), "transpose"); });
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

/* Host data, the whole call: bench_measure's median (the warm-up also allocates what a fresh
 * context keeps, pinned host buffers among it). */
double time_invert(minv_context *ctx, minv_method m, int64_t n, const double *a, double *x, minv_report *rep) {
    return bench_median_wall([&] { bench_check(ctx, minv_invert_d(ctx, m, n, a, n, x, n, rep), minv_method_name(m)); });
}

/* The same for the paper's Gauss-Jordan baseline, which the library keeps internal. */
double time_baseline(minv_context *ctx, int64_t n, const double *a, double *x, minv_report *rep) {
    return bench_median_wall(
        [&] { bench_check(ctx, minv_invert_gj_baseline(ctx, MINV_R64, n, a, n, x, n, rep), "gj-baseline"); });
}

void table2() {
    printf("\n## Table 2: iterative inversion vs the Gauss-Jordan baseline (host data, transfers included)\n\n");
    printf("| n | iterative in core (s) | GJ baseline in core (s) | iterative out of core (s) | GJ baseline out of core (s) | baseline / iterative (out of core) |\n");
    printf("|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    for (int64_t n = 512; n <= 4096 && n <= max_n; n *= 2) {
        double *a = (double *)malloc(sizeof(double) * n * n), *x = (double *)malloc(sizeof(double) * n * n);
        bench_random(a, n, n, 7 + (uint64_t)n);
        bench_touch(x, sizeof(double) * n * n);
        for (int64_t i = 0; i < n; i++) a[i * n + i] += sqrt((double)n); /* modest conditioning */
        minv_context *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_report rep;
        double it_in = time_invert(gpu, MINV_METHOD_ITERATIVE, n, a, x, &rep);
        double gj_in = time_baseline(gpu, n, a, x, &rep);
        double it_ooc = time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &rep);
        const char *it_where = where(&rep);
        double gj_ooc = n <= 2048 ? time_baseline(ooc, n, a, x, &rep) : NAN;
        printf("| %lld | %.4f | %.4f | %.4f%s | %.4f%s | %.1f |\n", (long long)n, it_in, gj_in, it_ooc, it_where, gj_ooc,
               n <= 2048 ? where(&rep) : "", gj_ooc / it_ooc);
        fflush(stdout);
        minv_destroy(ooc);
        free(a);
        free(x);
    }
    minv_destroy(gpu);
}

/* The iteration on device data (no transfers), measured; the report is the last run's. */
double device_iterate(minv_context *ctx, int64_t n, const double *d_a, double *d_x, minv_report *rep) {
    return bench_median_wall(
        [&] { bench_check(ctx, minv_invert_device_d(ctx, MINV_METHOD_ITERATIVE, n, d_a, n, d_x, n, rep), "device iterate"); });
}

void rate() {
    printf("\n## Iteration rate against cuBLAS DGEMM (device data), steps and time to 1e-12, warm start, mixed precision\n\n");
    printf("DGEMM runs as many n x n products back to back as the iteration does (its report's flops / 2n^3), measured "
           "the same way.\n\n");
    printf("| n | iteration | steps | products | time (s) | iteration TFLOP/s | DGEMM TFLOP/s (same products) | rate / DGEMM | "
           "efficiency (order^(1/products)) |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, 0);
    minv_set_option(gpu, MINV_OPT_TOLERANCE, 1e-12);
    for (int64_t n = 8192; n <= 16384 && n <= max_n; n *= 2) {
        if (n < min_n) continue;
        double *h = (double *)malloc(sizeof(double) * n * n), *d_a, *d_x;
        bench_spd(h, n, 3);
        cudaMalloc((void **)&d_a, sizeof(double) * n * n);
        cudaMalloc((void **)&d_x, sizeof(double) * n * n);
        cudaMemcpy(d_a, h, sizeof(double) * n * n, cudaMemcpyHostToDevice);
        minv_report rep;
        for (int it = 0; it <= 1; it++) {
            minv_set_option(gpu, MINV_OPT_ITERATION, it);
            const double t = device_iterate(gpu, n, d_a, d_x, &rep);
            const int64_t products = (int64_t)llround(rep.flops / (2.0 * n * n * n));
            const double tf = rep.flops / t / 1e12, peer = bench_dgemm_tflops(n, products);
            printf("| %lld | %s | %lld | %lld | %.3f | %.1f | %.1f | %.2f | %.3f |\n", (long long)n,
                   it ? "hyperpower 8" : "Soleymani 7", (long long)rep.iterations, (long long)products, t, tf, peer,
                   tf / peer, it ? pow(8.0, 1.0 / 6) : pow(7.0, 1.0 / 9));
            fflush(stdout);
        }
        /* cold and warm start through the host API; the warm start from the converged inverse
         * perturbed by 1e-6 */
        minv_set_option(gpu, MINV_OPT_ITERATION, 0);
        double *x = (double *)malloc(sizeof(double) * n * n), *v0 = (double *)malloc(sizeof(double) * n * n);
        cudaMemcpy(v0, d_x, sizeof(double) * n * n, cudaMemcpyDeviceToHost);
        for (int64_t k = 0; k < n * n; k++) v0[k] *= 1 + 1e-6 * sin((double)k);
        bench_touch(x, sizeof(double) * n * n);
        const double cold = time_invert(gpu, MINV_METHOD_ITERATIVE, n, h, x, &rep);
        const int64_t cold_steps = rep.iterations;
        const double warm = bench_median_wall([&] {
            bench_check(gpu, minv_invert_warm_d(gpu, MINV_METHOD_ITERATIVE, n, h, n, v0, n, x, n, &rep), "warm host");
        });
        printf("\nn = %lld, host data: cold start %lld steps %.3f s; warm start (inverse perturbed 1e-6) %lld steps %.3f s\n",
               (long long)n, (long long)cold_steps, cold, (long long)rep.iterations, warm);
        minv_set_option(gpu, MINV_OPT_MIXED_PRECISION, 1);
        const double mixed = device_iterate(gpu, n, d_a, d_x, &rep);
        minv_set_option(gpu, MINV_OPT_MIXED_PRECISION, 0);
        const double plain = device_iterate(gpu, n, d_a, d_x, &rep);
        printf("n = %lld, device data, tolerance 1e-12: double %.3f s, mixed (TF32 then FP64) %.3f s, gain %.2fx\n\n",
               (long long)n, plain, mixed, plain / mixed);
        fflush(stdout);
        cudaFree(d_a);
        cudaFree(d_x);
        free(h);
        free(x);
        free(v0);
    }
    minv_destroy(gpu);
}

void ooc() {
    printf("\n## Out-of-core iteration (matrix 4x the device budget) against in core, host data; the product on 3 and 4 streams\n\n");
    printf("A strictly diagonally dominant SOAR covariance (diagonal guess, a few steps to 1e-12). 3 streams: one upload, one "
           "compute, one download (the library's default); 4 streams (the paper's count): the two operands' slabs on an upload "
           "stream each.\n\n");
    printf("| n | in core (s) | TFLOP/s | out of core, 3 streams (s) | TFLOP/s | out of core, 4 streams (s) | TFLOP/s | "
           "3 streams / in core rate | 4 streams / 3 streams rate |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n = min_n > 16384 ? min_n : 16384; n <= max_n; n *= 2) {
        double *a = (double *)malloc(sizeof(double) * n * n), *x = (double *)malloc(sizeof(double) * n * n);
        bench_spd(a, n, 5);
        bench_touch(x, sizeof(double) * n * n);
        for (int64_t i = 0; i < n; i++) a[i * n + i] += 8; /* rows sum to about 8: dominant */
        minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0), *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)n * n * 8 / 4, 0);
        minv_set_option(gpu, MINV_OPT_TOLERANCE, 1e-12);
        minv_set_option(ooc, MINV_OPT_TOLERANCE, 1e-12);
        minv_report rin, r3, r4;
        const double tin = time_invert(gpu, MINV_METHOD_ITERATIVE, n, a, x, &rin);
        ooc->ooc_streams = 3; /* internal: the library's default */
        const double t3 = time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &r3);
        ooc->ooc_streams = 4;
        const double t4 = time_invert(ooc, MINV_METHOD_ITERATIVE, n, a, x, &r4);
        ooc->ooc_streams = 3;
        const double in_tf = rin.flops / tin / 1e12, tf3 = r3.flops / t3 / 1e12, tf4 = r4.flops / t4 / 1e12;
        printf("| %lld | %.2f | %.1f | %.2f%s | %.1f | %.2f%s | %.1f | %.2f | %.3f |\n", (long long)n, tin, in_tf, t3, where(&r3),
               tf3, t4, where(&r4), tf4, tf3 / in_tf, tf4 / tf3);
        printf("\n%s\n\n%s\n\n", r3.reason, r4.reason);
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
        const double up = bytes / 1e9 / bench_median_wall([&] {
            if (k < 0) cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
            else cudaMemcpy2D(d, rows * 8, h, n * 8, rows * 8, cols, cudaMemcpyHostToDevice);
        });
        const double down = bytes / 1e9 / bench_median_wall([&] {
            if (k < 0) cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);
            else cudaMemcpy2D(h, n * 8, d, rows * 8, rows * 8, cols, cudaMemcpyDeviceToHost);
        });
        printf("| %lld x %lld%s | %.1f | %.1f | %.1f |\n", (long long)rows, (long long)cols, k < 0 ? " contiguous" : "",
               k < 0 ? bytes / 1e3 : rows * 8 / 1e3, up, down);
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
