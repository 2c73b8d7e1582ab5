// Triangular solves of a few columns (issue 20's one-right-hand-side solves): minv's one-launch
// narrow solve (src_cuda/triangular_narrow.cu) against cuBLAS's TRSV (one column, as potrs and
// getrs solve one) and TRSM (several), on the Cholesky factor of a SOAR covariance on device
// data: L x = b and L^T x = b, 1, 2 and 4 columns, each call timed to its end on the host
// (medians), and the floor of reading the triangle once at 3 TB/s.
//   bench_narrow [--min-n N] [--max-n N]      (orders N, 2N, ... ; 1024 ... 16384 by default)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

int main(int argc, char **argv) {
    int64_t min_n = 1024, max_n = 16384;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--min-n") && k + 1 < argc) min_n = atoll(argv[++k]);
        else if (!strcmp(argv[k], "--max-n") && k + 1 < argc) max_n = atoll(argv[++k]);
        else {
            fprintf(stderr, "usage: bench_narrow [--min-n N] [--max-n N]\n");
            return 1;
        }
    }
    bench_header(stdout, argc, argv);
    printf("\n## x = op(L)^-1 x, L the Cholesky factor of a SOAR covariance, device data (ms a call)\n\n");
    printf("| n | op | columns | cuBLAS (ms) | minv narrow (ms) | speed-up | reading the triangle at 3 TB/s (ms) |\n");
    printf("|---|---|---|---|---|---|---|\n");
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    BENCH_CK(cublasCreate(&blas));
    BENCH_CK(cusolverDnCreate(&solver));
    for (int64_t n = min_n; n <= max_n; n *= 2) {
        double *h = (double *)malloc(sizeof(double) * n * n), *d_l, *d_b, *d_x, *work;
        int *info, lwork = 0;
        bench_spd(h, n, 1);
        BENCH_CK(cudaMalloc((void **)&d_l, sizeof(double) * n * n));
        BENCH_CK(cudaMemcpy(d_l, h, sizeof(double) * n * n, cudaMemcpyHostToDevice));
        BENCH_CK(cusolverDnDpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, (int)n, d_l, (int)n, &lwork));
        BENCH_CK(cudaMalloc((void **)&work, sizeof(double) * (size_t)lwork));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
        BENCH_CK(cusolverDnDpotrf(solver, CUBLAS_FILL_MODE_LOWER, (int)n, d_l, (int)n, work, lwork, info));
        bench_random(h, n, 4, 17);
        BENCH_CK(cudaMalloc((void **)&d_b, sizeof(double) * n * 4));
        BENCH_CK(cudaMalloc((void **)&d_x, sizeof(double) * n * 4));
        BENCH_CK(cudaMemcpy(d_b, h, sizeof(double) * n * 4, cudaMemcpyHostToDevice));
        BENCH_CK(cudaDeviceSynchronize());
        free(h);
        const minv_mat l = {MINV_R64, n, n, n, d_l};
        const double floor_ms = (double)n * (double)n * 4.0 / 3e12 * 1e3, one = 1.0;
        for (int t = 0; t < 2; t++) {
            const cublasOperation_t op = t ? CUBLAS_OP_T : CUBLAS_OP_N;
            for (int64_t k : {1, 2, 4}) {
                minv_mat x = {MINV_R64, n, k, n, d_x};
                auto reset = [&] { BENCH_CK(cudaMemcpy(d_x, d_b, sizeof(double) * n * k, cudaMemcpyDeviceToDevice)); };
                const double peer = bench_median_wall(reset, [&] {
                    if (k == 1) BENCH_CK(cublasDtrsv(blas, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, (int)n, d_l, (int)n, d_x, 1));
                    else BENCH_CK(cublasDtrsm(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, (int)n,
                                              (int)k, &one, d_l, (int)n, d_x, (int)n));
                    BENCH_CK(cudaDeviceSynchronize());
                });
                const double mine = bench_median_wall(reset, [&] {
                    bench_check(ctx, minv_gpu_narrow_solve(ctx, &l, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, &x),
                                "narrow solve");
                    BENCH_CK(cudaDeviceSynchronize());
                });
                printf("| %lld | %s | %lld | %.4f | %.4f | %.2f | %.4f |\n", (long long)n, t ? "L^T" : "L", (long long)k,
                       1e3 * peer, 1e3 * mine, peer / mine, floor_ms);
                fflush(stdout);
            }
        }
        cudaFree(d_l); cudaFree(d_b); cudaFree(d_x); cudaFree(work); cudaFree(info);
    }
    cusolverDnDestroy(solver);
    cublasDestroy(blas);
    minv_destroy(ctx);
    return 0;
}
