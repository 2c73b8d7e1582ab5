// Solves on device data at every width of B that a DA code uses: nrhs = 1, 30, n/8 and n,
// SPD (a SOAR covariance) and general (uniform random entries), minv's whole call (analysis,
// residual and condition estimate included; AUTO, so minv picks the method) against
// cuSOLVER's factor + solve (Xpotrf + Xpotrs, Xgetrf + Xgetrs) in the same run, on the same
// data. The peer's copy of A into its factor buffer is not timed; minv's is.
// Beside: minv without the residual check, and one cuBLAS TRSV pair (L then L^T), the unit of
// a condition estimate's vector solves.
// With --stages, where one call of each case spends its time: host clock between the stages
// minv reports (its progress callback), the device waited for at each and idle before the call.
// Usage: bench_solves [--min-n N] [--max-n N] [--spd-only|--general-only] [--stages]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

namespace {

struct peer_solver {
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    peer_solver() {
        BENCH_CK(cusolverDnCreate(&h));
        BENCH_CK(cusolverDnCreateParams(&params));
    }
    ~peer_solver() {
        cusolverDnDestroyParams(params);
        cusolverDnDestroy(h);
    }
};

/* cuSOLVER's factor + solve on copies of A and B (copies untimed): median seconds. */
double peer_time(peer_solver &p, int spd, const double *d_a, int64_t n, const double *d_b, int64_t nrhs) {
    double *f, *x;
    int64_t *ipiv;
    int *info;
    void *work;
    size_t dws = 0, hws = 0;
    BENCH_CK(cudaMalloc((void **)&f, sizeof(double) * n * n));
    BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n * nrhs));
    BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int64_t) * n));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    if (spd)
        BENCH_CK(cusolverDnXpotrf_bufferSize(p.h, p.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, f, n, CUDA_R_64F, &dws,
                                             &hws));
    else
        BENCH_CK(cusolverDnXgetrf_bufferSize(p.h, p.params, n, n, CUDA_R_64F, f, n, CUDA_R_64F, &dws, &hws));
    BENCH_CK(cudaMalloc(&work, dws + 8));
    void *hwork = hws ? malloc(hws) : NULL;
    const double s = bench_median_events(
        [&] {
            BENCH_CK(cudaMemcpy(f, d_a, sizeof(double) * n * n, cudaMemcpyDeviceToDevice));
            BENCH_CK(cudaMemcpy(x, d_b, sizeof(double) * n * nrhs, cudaMemcpyDeviceToDevice));
        },
        [&] {
            if (spd) {
                BENCH_CK(cusolverDnXpotrf(p.h, p.params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, f, n, CUDA_R_64F, work, dws,
                                          hwork, hws, info));
                BENCH_CK(cusolverDnXpotrs(p.h, p.params, CUBLAS_FILL_MODE_LOWER, n, nrhs, CUDA_R_64F, f, n, CUDA_R_64F, x, n,
                                          info));
            } else {
                BENCH_CK(cusolverDnXgetrf(p.h, p.params, n, n, CUDA_R_64F, f, n, ipiv, CUDA_R_64F, work, dws, hwork, hws,
                                          info));
                BENCH_CK(cusolverDnXgetrs(p.h, p.params, CUBLAS_OP_N, n, nrhs, CUDA_R_64F, f, n, ipiv, CUDA_R_64F, x, n,
                                          info));
            }
        });
    free(hwork);
    cudaFree(f);
    cudaFree(x);
    cudaFree(ipiv);
    cudaFree(info);
    cudaFree(work);
    return s;
}

/* One TRSV pair on an n x n lower triangle: what each vector solve of a condition estimate
 * costs on the device. */
double trsv_pair_time(cublasHandle_t blas, const double *d_a, int64_t n, double *v) {
    return bench_median_events([] {}, [&] {
        BENCH_CK(cublasDtrsv(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, (int)n, d_a, (int)n, v, 1));
        BENCH_CK(cublasDtrsv(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, (int)n, d_a, (int)n, v, 1));
    });
}

double *to_device(const double *h, size_t count) {
    double *d;
    BENCH_CK(cudaMalloc((void **)&d, sizeof(double) * count));
    BENCH_CK(cudaMemcpy(d, h, sizeof(double) * count, cudaMemcpyHostToDevice));
    return d;
}

} // namespace

int main(int argc, char **argv) {
    int64_t min_n = 256, max_n = 16384;
    int spd_from = 0, spd_to = 1, stages = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--min-n") && k + 1 < argc) min_n = atoll(argv[++k]);
        else if (!strcmp(argv[k], "--max-n") && k + 1 < argc) max_n = atoll(argv[++k]);
        else if (!strcmp(argv[k], "--spd-only")) spd_from = spd_to = 1;
        else if (!strcmp(argv[k], "--general-only")) spd_from = spd_to = 0;
        else if (!strcmp(argv[k], "--stages")) stages = 1;
        else {
            fprintf(stderr, "usage: bench_solves [--min-n N] [--max-n N] [--spd-only|--general-only] [--stages]\n");
            return 2;
        }
    }
    bench_header(stdout, argc, argv);
    printf("\n## Solves on device data, whole minv calls (AUTO) against cuSOLVER factor + solve\n\n");
    printf("| matrix | n | nrhs | cuSOLVER (s) | minv (s) | speed-up | minv, no residual (s) | TRSV pair (s) | method | "
           "residual | rcond |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    peer_solver peer;
    cublasHandle_t blas;
    BENCH_CK(cublasCreate(&blas));
    for (int spd = spd_to; spd >= spd_from; spd--)
        for (int64_t n = min_n; n <= max_n; n *= 2) {
            double *h = (double *)malloc(sizeof(double) * n * n);
            if (spd) bench_spd(h, n, 1);
            else bench_random(h, n, n, 11);
            double *d_a = to_device(h, (size_t)n * n);
            bench_random(h, n, n, 17);
            double *d_b = to_device(h, (size_t)n * n), *d_x, *v = to_device(h, (size_t)n);
            free(h);
            BENCH_CK(cudaMalloc((void **)&d_x, sizeof(double) * n * n));
            const double trsv = trsv_pair_time(blas, d_a, n, v);
            const int64_t widths[4] = {1, 30, n / 8, n};
            for (int w = 0; w < 4; w++) {
                const int64_t nrhs = widths[w];
                if (w > 0 && nrhs <= widths[w - 1]) continue;
                minv_report rep, quick;
                const double p = peer_time(peer, spd, d_a, n, d_b, nrhs);
                minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
                const double m = bench_median_wall([&] {
                    BENCH_CK(minv_solve_device_d(ctx, MINV_METHOD_AUTO, n, nrhs, d_a, n, d_b, n, d_x, n, &rep));
                });
                minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
                const double q = bench_median_wall([&] {
                    BENCH_CK(minv_solve_device_d(ctx, MINV_METHOD_AUTO, n, nrhs, d_a, n, d_b, n, d_x, n, &quick));
                });
                printf("| %s | %lld | %lld | %.5f | %.5f | %.2f | %.5f | %.5f | %s | %.2g | %.2g |\n", spd ? "SPD" : "general",
                       (long long)n, (long long)nrhs, p, m, p / m, q, trsv, minv_method_name(rep.method), rep.residual,
                       rep.rcond);
                if (stages) {
                    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
                    bench_print_stages(stdout, ctx, true, [&] {
                        BENCH_CK(minv_solve_device_d(ctx, MINV_METHOD_AUTO, n, nrhs, d_a, n, d_b, n, d_x, n, &rep));
                    });
                }
                fflush(stdout);
            }
            cudaFree(d_a);
            cudaFree(d_b);
            cudaFree(d_x);
            cudaFree(v);
        }
    cublasDestroy(blas);
    minv_destroy(ctx);
    return 0;
}
