// Cholesky of one device matrix of order <= 512: minv's one-block factorisation
// (src_cuda/cholesky_small.cu) against cuSOLVER's cusolverDnXpotrf on the same SPD matrix, side
// by side in one run. Each timed run factors a fresh device copy of A (the copy untimed; potrf
// in place, minv from the copy into another buffer, as the small solves call it); host clock
// around the call and a device synchronisation, medians after a warm-up. Checks on minv's factor:
// the backward error max |A - L L^T| / (n max |A|), the difference from potrf's L, the upper
// triangle holding L^T; a matrix with a negative diagonal entry at n/3 checks info against potrf's.
//
// Usage: bench_cholesky_small [--sizes 32,64,...]
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

namespace {

/* max |A - L L^T| / (n max |A|) over the lower triangle, L in f's lower triangle. */
double cholesky_error(const std::vector<double> &a, const std::vector<double> &f, int64_t n) {
    double amax = 0, worst = 0;
    for (double v : a) amax = fmax(amax, fabs(v));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j; i < n; i++) {
            double s = 0;
            for (int64_t k = 0; k <= j; k++) s += f[i + k * n] * f[j + k * n];
            worst = fmax(worst, fabs(a[i + j * n] - s));
        }
    return worst / ((double)n * amax);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<int64_t> sizes = {8, 32, 64, 128, 192, 256, 320, 384, 448, 512};
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--sizes") && k + 1 < argc) {
            sizes = bench_list(argv[++k]);
        } else {
            fprintf(stderr, "usage: bench_cholesky_small [--sizes N,N,...]\n");
            return 2;
        }
    }
    bench_header(stdout, argc, argv);
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    cusolverDnHandle_t solver;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreate(&solver));
    BENCH_CK(cusolverDnCreateParams(&params));
    BENCH_CK(cusolverDnSetStream(solver, ctx->gpu->stream));
    printf("\n| n | matrix | potrf (us) | minv (us) | speed-up | backward error, minv | max difference from potrf's L | upper = L^T | info potrf / minv |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n : sizes) {
        if (n > MINV_CHOLESKY_SMALL_MAX) continue;
        for (int broken = 0; broken < 2; broken++) {
            const size_t nn = (size_t)(n * n);
            std::vector<double> a(nn), f_m(nn), f_g(nn);
            bench_spd(a.data(), n, 2000 + (uint64_t)n);
            if (broken) a[(size_t)(n / 3 + n / 3 * n)] = -1.0; /* info n/3 + 1 */
            double *da, *dw, *dl;
            int *dinfo;
            size_t dev_bytes = 0, host_bytes = 0;
            void *dwork = NULL;
            BENCH_CK(cudaMalloc(&da, nn * sizeof(double)));
            BENCH_CK(cudaMalloc(&dw, nn * sizeof(double)));
            BENCH_CK(cudaMalloc(&dl, nn * sizeof(double)));
            BENCH_CK(cudaMalloc(&dinfo, sizeof(int)));
            BENCH_CK(cudaMemcpy(da, a.data(), nn * sizeof(double), cudaMemcpyHostToDevice));
            BENCH_CK(cusolverDnXpotrf_bufferSize(solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dw, n, CUDA_R_64F,
                                                 &dev_bytes, &host_bytes));
            BENCH_CK(cudaMalloc(&dwork, dev_bytes ? dev_bytes : 1));
            std::vector<char> hwork(host_bytes + 1);
            const auto fresh = [&] {
                BENCH_CK(cudaMemcpy(dw, da, nn * sizeof(double), cudaMemcpyDeviceToDevice));
                BENCH_CK(cudaMemset(dl, 0, nn * sizeof(double)));
            };
            const minv_mat am = {MINV_R64, n, n, n, dw};
            minv_mat lm = {MINV_R64, n, n, n, dl};
            int info_g = 0, info_m = 0;
            const double tg = bench_median_wall(fresh, [&] {
                BENCH_CK(cusolverDnXpotrf(solver, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, dw, n, CUDA_R_64F,
                                          dwork, dev_bytes, hwork.data(), host_bytes, dinfo));
                BENCH_CK(cudaStreamSynchronize(ctx->gpu->stream));
            });
            BENCH_CK(cudaMemcpy(f_g.data(), dw, nn * sizeof(double), cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(&info_g, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
            const double tm = bench_median_wall(fresh, [&] {
                BENCH_CK(minv_gpu_cholesky_small(ctx, &am, &lm, dinfo));
                BENCH_CK(cudaStreamSynchronize(ctx->gpu->stream));
            });
            BENCH_CK(cudaMemcpy(f_m.data(), dl, nn * sizeof(double), cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(&info_m, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
            double diff = 0, lmax = 0;
            bool mirrored = true;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = j; i < n; i++) {
                    diff = fmax(diff, fabs(f_m[(size_t)(i + j * n)] - f_g[(size_t)(i + j * n)]));
                    lmax = fmax(lmax, fabs(f_g[(size_t)(i + j * n)]));
                    mirrored = mirrored && f_m[(size_t)(j + i * n)] == f_m[(size_t)(i + j * n)];
                }
            if (broken)
                printf("| %lld | diagonal entry %lld negative | %.1f | %.1f | %.2f | - | - | - | %d / %d |\n",
                       (long long)n, (long long)(n / 3 + 1), tg * 1e6, tm * 1e6, tg / tm, info_g, info_m);
            else
                printf("| %lld | SOAR | %.1f | %.1f | %.2f | %.2g | %.2g | %s | %d / %d |\n", (long long)n, tg * 1e6,
                       tm * 1e6, tg / tm, cholesky_error(a, f_m, n), diff / lmax, mirrored ? "yes" : "NO", info_g,
                       info_m);
            cudaFree(da);
            cudaFree(dw);
            cudaFree(dl);
            cudaFree(dinfo);
            cudaFree(dwork);
        }
    }
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(solver);
    minv_destroy(ctx);
    return 0;
}
