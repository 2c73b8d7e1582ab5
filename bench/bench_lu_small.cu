// LU with partial pivoting of one device matrix of order <= 512: minv's thread-block cluster
// (src_cuda/lu_cluster.cu) against cuSOLVER's cusolverDnXgetrf on the same matrix, side by
// side in one run. Each timed run factors a fresh device copy of A (the copy untimed); host
// clock around the call and a device synchronisation, medians after a warm-up. Checks on the
// cluster's factors: the backward error max |P A - L U| / (n max |A|) from the factors brought
// back, the pivots and factors against getrf's, and the permutation it writes against the one
// the pivots make. A matrix with a zero column checks info.
//
// Usage: bench_lu_small [--sizes 32,64,...]
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

namespace {

/* max |P A - L U| / (n max |A|): the interchanges applied to a copy of A in turn. */
double backward_error(const std::vector<double> &a, const std::vector<double> &lu, const std::vector<int64_t> &ipiv,
                      int64_t n) {
    std::vector<double> pa(a);
    double amax = 0, worst = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t r = ipiv[k] - 1;
        if (r != k)
            for (int64_t j = 0; j < n; j++) std::swap(pa[k + j * n], pa[r + j * n]);
    }
    for (double v : a) amax = fmax(amax, fabs(v));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            const int64_t kmax = i < j ? i : j;
            for (int64_t k = 0; k <= kmax; k++) s += (k == i ? 1.0 : lu[i + k * n]) * lu[k + j * n];
            worst = fmax(worst, fabs(pa[i + j * n] - s));
        }
    return worst / ((double)n * amax);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<int64_t> sizes = {32, 64, 128, 200, 256, 384, 512};
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--sizes") && k + 1 < argc) {
            sizes = bench_list(argv[++k]);
        } else {
            fprintf(stderr, "usage: bench_lu_small [--sizes N,N,...]\n");
            return 2;
        }
    }
    bench_header(stdout, argc, argv);
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    cusolverDnHandle_t solver;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreate(&solver));
    BENCH_CK(cusolverDnCreateParams(&params));
    printf("\n| n | matrix | getrf (us) | cluster (us) | speed-up | backward error, cluster | pivots as getrf's | max factor difference | info getrf / cluster | permutation as the pivots' |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n : sizes) {
        for (int singular = 0; singular < 2; singular++) {
            std::vector<double> a((size_t)(n * n)), lu_c((size_t)(n * n)), lu_g((size_t)(n * n));
            std::vector<int64_t> piv_c((size_t)n), piv_g((size_t)n);
            bench_random(a.data(), n, n, 1000 + (uint64_t)n);
            if (singular) /* column n/3 zero: info n/3 + 1 */
                for (int64_t i = 0; i < n; i++) a[(size_t)(i + n / 3 * n)] = 0.0;
            double *da, *dw;
            int64_t *dpiv, *dperm;
            int *dinfo;
            size_t dev_bytes = 0, host_bytes = 0;
            void *dwork = NULL;
            BENCH_CK(cudaMalloc(&da, (size_t)(n * n) * sizeof(double)));
            BENCH_CK(cudaMalloc(&dw, (size_t)(n * n) * sizeof(double)));
            BENCH_CK(cudaMalloc(&dpiv, (size_t)n * sizeof(int64_t)));
            BENCH_CK(cudaMalloc(&dperm, (size_t)n * sizeof(int64_t)));
            BENCH_CK(cudaMalloc(&dinfo, sizeof(int)));
            BENCH_CK(cudaMemcpy(da, a.data(), (size_t)(n * n) * sizeof(double), cudaMemcpyHostToDevice));
            BENCH_CK(cusolverDnXgetrf_bufferSize(solver, params, n, n, CUDA_R_64F, dw, n, CUDA_R_64F, &dev_bytes,
                                                 &host_bytes));
            BENCH_CK(cudaMalloc(&dwork, dev_bytes ? dev_bytes : 1));
            std::vector<char> hwork(host_bytes + 1);
            const auto fresh = [&] {
                BENCH_CK(cudaMemcpy(dw, da, (size_t)(n * n) * sizeof(double), cudaMemcpyDeviceToDevice));
            };
            minv_mat m = {MINV_R64, n, n, n, dw};
            int launched = 0, info_g = 0, info_c = 0;
            const double tg = bench_median_wall(fresh, [&] {
                BENCH_CK(cusolverDnXgetrf(solver, params, n, n, CUDA_R_64F, dw, n, dpiv, CUDA_R_64F, dwork, dev_bytes,
                                          hwork.data(), host_bytes, dinfo));
            });
            BENCH_CK(cudaMemcpy(lu_g.data(), dw, (size_t)(n * n) * sizeof(double), cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(piv_g.data(), dpiv, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
            BENCH_CK(cudaMemcpy(&info_g, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
            const double tc = bench_median_wall(fresh, [&] {
                BENCH_CK(minv_gpu_lu_cluster(ctx, &m, dpiv, dperm, dinfo, &launched));
                BENCH_CK(cudaStreamSynchronize(ctx->gpu->stream));
            });
            if (!launched) {
                printf("| %lld | %s | %.1f | (no cluster of %lld blocks fits) | | | | | | |\n", (long long)n,
                       singular ? "zero column" : "random", tg * 1e6, (long long)((n + 31) / 32));
            } else {
                BENCH_CK(cudaMemcpy(lu_c.data(), dw, (size_t)(n * n) * sizeof(double), cudaMemcpyDeviceToHost));
                BENCH_CK(cudaMemcpy(piv_c.data(), dpiv, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
                BENCH_CK(cudaMemcpy(&info_c, dinfo, sizeof(int), cudaMemcpyDeviceToHost));
                std::vector<int64_t> perm_c((size_t)n), perm_h((size_t)n);
                BENCH_CK(cudaMemcpy(perm_c.data(), dperm, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
                for (int64_t k = 0; k < n; k++) perm_h[(size_t)k] = k; /* the pivots' interchanges in turn */
                for (int64_t k = 0; k < n; k++) std::swap(perm_h[(size_t)k], perm_h[(size_t)(piv_c[(size_t)k] - 1)]);
                int64_t same = 0;
                double diff = 0, lmax = 0;
                for (int64_t k = 0; k < n; k++) same += piv_c[(size_t)k] == piv_g[(size_t)k];
                for (size_t e = 0; e < lu_c.size(); e++) {
                    diff = fmax(diff, fabs(lu_c[e] - lu_g[e]));
                    lmax = fmax(lmax, fabs(lu_g[e]));
                }
                printf("| %lld | %s | %.1f | %.1f | %.2f | %.2g | %lld of %lld | %.2g | %d / %d | %s |\n", (long long)n,
                       singular ? "zero column" : "random", tg * 1e6, tc * 1e6, tg / tc,
                       backward_error(a, lu_c, piv_c, n), (long long)same, (long long)n, diff / lmax, info_g, info_c,
                       perm_c == perm_h ? "yes" : "NO");
            }
            cudaFree(da);
            cudaFree(dw);
            cudaFree(dpiv);
            cudaFree(dperm);
            cudaFree(dinfo);
            cudaFree(dwork);
        }
    }
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(solver);
    minv_destroy(ctx);
    return 0;
}
