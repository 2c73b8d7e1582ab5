// LU with partial pivoting of a large device matrix in panels with look-ahead. cuSOLVER's getrf
// factors its panels and applies their updates one after the other: on an H100 at n = 16384
// the panels took 62-66 ms and the updates 60-68 of its 143 (bench/results/lu_parts_h100.md).
// Here each tall panel goes to cuSOLVER's getrf on a side stream, and the compute stream updates
// the next panel's columns first, so that the next panel is factored while the rest of the
// update runs. A panel's pivots come to the host (which waits for that panel alone), are made
// into one permutation there (interchange.cuh) and applied to the columns outside the panel by
// one kernel; U12 by TRSM, the trailing update by GEMM. Outputs as getrf's: the factors in place,
// LAPACK's 1-based pivots, the first zero pivot's column in info (factoring goes on past it).
#include <stdlib.h>

#include "gpu.h"
#include "interchange.cuh"

namespace {

/* Below this order getrf's panels are most of its time and look-ahead gains little
 * (lu_parts_h100.md: 4096, panels 12.0 of 14.3 ms). */
constexpr int64_t MIN_ORDER = 4096;

/* Panels of 256 columns below 12288, 512 from there (lu_parts_h100.md: the larger of the
 * panels' and the updates' time least at 256 for 4096 and 8192, at 512 for 16384). */
int64_t panel_width(int64_t n) { return n < 12288 ? 256 : 512; }

/* info = the first panel's zero pivot, as a column of the whole matrix (1-based), or 0. */
__global__ void first_zero_pivot(const int *infos, int64_t panels, int64_t nb, int *info) {
    int first = 0;
    for (int64_t k = panels - 1; k >= 0; k--)
        if (infos[k] > 0) first = (int)(k * nb + infos[k]);
    *info = first;
}

template <typename T>
minv_status factor(minv_context *ctx, minv_mat *x, int64_t *ipiv, int *info_dev) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = x->rows, ld = x->ld, nb = panel_width(n), panels = (n + nb - 1) / nb;
    const cudaDataType dt = minv_cuda_type(x->dtype);
    const cudaStream_t side = g->copy[MINV_GPU_STREAMS - 1];
    T *const a = (T *)x->data;
    size_t dev_bytes = 0, host_bytes = 0;
    void *host_work = NULL, *p[2], *pinned;
    int64_t *cur = (int64_t *)malloc((size_t)n * sizeof(int64_t)), *piv_host, *pairs_host, *pairs_dev;
    int *infos;
    cudaEvent_t ready = NULL, factored = NULL;
    if (!cur) return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    for (int64_t i = 0; i < n; i++) cur[i] = i;
    CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, nb, dt, a, ld, dt, &dev_bytes, &host_bytes));
    if (host_bytes && !(host_work = malloc(host_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", host_bytes);
        goto cleanup;
    }
    {
        /* getrf's workspace; each panel's info, and two panels' interchange pairs */
        const int slots[2] = {WS_SOLVER, WS_SCALAR};
        const size_t bytes[2] = {dev_bytes, 8 * (size_t)nb * sizeof(int64_t) + (size_t)panels * sizeof(int)};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
        pairs_dev = (int64_t *)p[1];
        infos = (int *)(pairs_dev + 8 * nb);
    }
    MINV_TRY(minv_gpu_pinned(ctx, PIN_SMALL, 9 * (size_t)nb * sizeof(int64_t), &pinned));
    piv_host = (int64_t *)pinned;
    pairs_host = piv_host + nb;
    CUDA_TRY(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&factored, cudaEventDisableTiming));
    CUDA_TRY(cudaEventRecord(ready, g->stream)); /* the matrix is in place */
    for (int64_t k = 0; k < panels; k++) {
        const int64_t k0 = k * nb, w = n - k0 < nb ? n - k0 : nb, m = n - k0, right = n - k0 - w;
        T *const panel = a + k0 + k0 * ld;
        int64_t *const pairs_h = pairs_host + (k % 2) * 4 * nb, *const pairs_d = pairs_dev + (k % 2) * 4 * nb;
        /* the panel, on the side stream once the update has reached its columns */
        CUDA_TRY(cudaStreamWaitEvent(side, ready, 0));
        CUSOLVER_TRY(cusolverDnSetStream(g->solver, side));
        CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, m, w, dt, panel, ld, ipiv + k0, dt, p[0], dev_bytes,
                                      host_work, host_bytes, infos + k));
        CUSOLVER_TRY(cusolverDnSetStream(g->solver, g->stream));
        CUDA_TRY(cudaMemcpyAsync(piv_host, ipiv + k0, (size_t)w * sizeof(int64_t), cudaMemcpyDeviceToHost, side));
        CUDA_TRY(cudaEventRecord(factored, side));
        CUDA_TRY(cudaEventSynchronize(factored)); /* this panel only: the update before it may still run */
        /* two buffers of pairs: the copy up of panel k is done before the host writes its buffer
         * again at panel k + 2, whose factorisation waited for the update of panel k + 1 */
        minv_interchange_pairs(piv_host, k0, w, cur, pairs_h);
        CUDA_TRY(cudaStreamWaitEvent(g->stream, factored, 0));
        CUDA_TRY(cudaMemcpyAsync(pairs_d, pairs_h, 4 * (size_t)w * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
        if (n > w) {
            minv_swap_rows<T><<<(unsigned)(n - w < 65535 ? n - w : 65535), 256, 0, g->stream>>>(a, ld, n, k0, w, pairs_d);
            LAUNCH_TRY();
        }
        if (right > 0) { /* U12 = L11^-1 A12; the next panel's columns of A22 -= L21 U12 first */
            T *const a12 = panel + w * ld, *const l21 = panel + w, *const a22 = a12 + w;
            const int64_t ahead = right < nb ? right : nb;
            CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, w,
                                 right, 1.0, panel, ld, a12, ld));
            CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, m - w, ahead, w, -1.0, l21, ld, a12, ld, 1.0, a22,
                                 ld));
            CUDA_TRY(cudaEventRecord(ready, g->stream));
            if (right > ahead)
                CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, m - w, right - ahead, w, -1.0, l21, ld,
                                     a12 + ahead * ld, ld, 1.0, a22 + ahead * ld, ld));
        }
    }
    minv_globalise_pivots<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(ipiv, n, nb);
    first_zero_pivot<<<1, 1, 0, g->stream>>>(infos, panels, nb, info_dev);
    LAUNCH_TRY();
cleanup:
    cusolverDnSetStream(g->solver, g->stream);
    if (status != MINV_SUCCESS) cudaStreamSynchronize(side); /* nothing outlives a failure */
    if (ready) cudaEventDestroy(ready);
    if (factored) cudaEventDestroy(factored);
    free(host_work);
    free(cur);
    return status;
}

} // namespace

int minv_gpu_lu_blocked_applies(int64_t n) { return n >= MIN_ORDER; }

minv_status minv_gpu_lu_blocked(minv_context *ctx, minv_mat *x, int64_t *ipiv, int *info_dev) {
    return x->dtype == MINV_R64 ? factor<double>(ctx, x, ipiv, info_dev) : factor<float>(ctx, x, ipiv, info_dev);
}
