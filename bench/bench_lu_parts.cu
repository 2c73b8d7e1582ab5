// Where cuSOLVER's LU of a large matrix spends its time, against the parts of a right-looking
// blocked LU in panels of nb columns: cusolverDnXgetrf of the whole n x n matrix; of each tall
// m x nb panel on its own (m = n - k0); the DGEMM of each trailing update, (m - nb) x (n - k0 - nb)
// x nb. Where getrf takes the panels' sum plus the updates', a blocked LU that factors the next
// panel while the update runs (look-ahead) would take about the larger of the two. One panel in
// four is timed and the sums scaled; each timed call works on a fresh device copy of a uniform
// random matrix (the copy untimed); CUDA events, medians after a warm-up (bench_common).
// bench_gauss_jordan parts times one such step at 16384; this sums every step, at each n.
//
// Usage: bench_lu_parts [--sizes 4096,8192,16384] [--nb 256,512]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <string.h>

#include <vector>

#include "bench_common.h"

int main(int argc, char **argv) {
    std::vector<int64_t> sizes = {4096, 8192, 16384}, widths = {256, 512};
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--sizes") && k + 1 < argc) sizes = bench_list(argv[++k]);
        else if (!strcmp(argv[k], "--nb") && k + 1 < argc) widths = bench_list(argv[++k]);
        else {
            fprintf(stderr, "usage: bench_lu_parts [--sizes N,N,...] [--nb NB,NB,...]\n");
            return 2;
        }
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_lu_parts: no GPU, nothing to measure\n");
        return 0;
    }
    bench_header(stdout, argc, argv);
    cusolverDnHandle_t solver;
    cusolverDnParams_t params;
    cublasHandle_t blas;
    BENCH_CK(cusolverDnCreate(&solver));
    BENCH_CK(cusolverDnCreateParams(&params));
    BENCH_CK(cublasCreate(&blas));
    printf("\n## cuSOLVER getrf against a blocked LU's parts (device data, ms)\n\n"
           "| n | getrf | getrf TFLOP/s | nb | the panels' getrf | the trailing DGEMMs | sum | larger of the two |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (const int64_t n : sizes) {
        std::vector<double> host((size_t)(n * n));
        bench_random(host.data(), n, n, 7);
        double *a, *w, *work;
        int64_t *ipiv;
        int *info;
        size_t dev_bytes = 0, host_bytes = 0;
        BENCH_CK(cudaMalloc((void **)&a, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&w, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int64_t) * n));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
        BENCH_CK(cudaMemcpy(a, host.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice));
        BENCH_CK(cusolverDnXgetrf_bufferSize(solver, params, n, n, CUDA_R_64F, a, n, CUDA_R_64F, &dev_bytes, &host_bytes));
        BENCH_CK(cudaMalloc((void **)&work, dev_bytes + 64));
        const auto fresh = [&] { BENCH_CK(cudaMemcpy(w, a, sizeof(double) * n * n, cudaMemcpyDeviceToDevice)); };
        const auto getrf = [&](int64_t m, int64_t cols) {
            BENCH_CK(cusolverDnXgetrf(solver, params, m, cols, CUDA_R_64F, w, n, ipiv, CUDA_R_64F, work, dev_bytes, NULL, 0,
                                      info));
        };
        const double whole = bench_median_events(fresh, [&] { getrf(n, n); });
        for (const int64_t nb : widths) {
            double panels = 0, updates = 0;
            for (int64_t k0 = 0; k0 < n; k0 += 4 * nb) {
                const int64_t m = n - k0, right = n - k0 - nb;
                panels += 4 * bench_median_events(fresh, [&] { getrf(m, nb); });
                if (right <= 0) continue;
                const double one = 1, minus_one = -1;
                updates += 4 * bench_median_events(fresh, [&] {
                    BENCH_CK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)(m - nb), (int)right, (int)nb, &minus_one,
                                         w + nb, (int)n, w + nb * n, (int)n, &one, w + nb + nb * n, (int)n));
                });
            }
            printf("| %lld | %.1f | %.1f | %lld | %.1f | %.1f | %.1f | %.1f |\n", (long long)n, whole * 1e3,
                   2.0 / 3.0 * (double)n * n * n / whole / 1e12, (long long)nb, panels * 1e3, updates * 1e3,
                   (panels + updates) * 1e3, (panels > updates ? panels : updates) * 1e3);
            fflush(stdout);
        }
        cudaFree(a);
        cudaFree(w);
        cudaFree(work);
        cudaFree(ipiv);
        cudaFree(info);
    }
    cublasDestroy(blas);
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(solver);
    return 0;
}
