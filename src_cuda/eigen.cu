// Symmetric eigen-decomposition on the GPU (cuSOLVER syevd) for reconditioning, on host data
// (src_c/cpu/eigen.c is the CPU half): the eigenvalues, and the inverse (or the solve) with
// the eigenvalues raised to a floor, from W = V diag(1 / sqrt(lambda')): A'^-1 = W W^T by
// SYRK, A'^-1 B = W (W^T B) by two GEMMs.
#include <math.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

/* v(:, j) *= 1 / sqrt(max(w_j, floor)) */
template <typename T> __global__ void scale_columns(T *v, int64_t n, int64_t ld, const T *w, double floor) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) v[j * ld + i] *= (T)(1 / sqrt(fmax((double)w[j], floor)));
}

template <typename T>
minv_status eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b, minv_mat *x,
                  int *applied) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, m = b ? b->cols : n;
    const cudaDataType dt = minv_cuda_type(a->dtype);
    const cusolverEigMode_t mode = x ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    size_t dws = 0, hws = 0;
    void *v, *hwork = NULL;
    T *dev_w = NULL, *out = NULL, *y = NULL;
    int *info = NULL, host_info = 0;
    T *wt = (T *)malloc((size_t)n * sizeof(T));
    if (!wt)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld eigenvalues", (long long)n);
    MINV_TRY(minv_gpu_stage_input(ctx, a, &v));
    g->staged_host = NULL; /* syevd overwrites it with the eigenvectors */
    CUSOLVER_TRY(cusolverDnXsyevd_bufferSize(g->solver, g->solver_params, mode, CUBLAS_FILL_MODE_LOWER, n, dt, v, n, dt,
                                             NULL, dt, &dws, &hws));
    {
        const int slots[4] = {WS_SOLVER, WS_SMALL, WS_B, WS_C};
        const size_t bytes[4] = {dws + 16, (size_t)n * sizeof(T) + 64, x ? (size_t)n * m * sizeof(T) : 16,
                                 b ? (size_t)n * m * sizeof(T) : 16};
        void *p[4];
        MINV_TRY(minv_gpu_reserve(ctx, 4, slots, bytes, p));
        dev_w = (T *)p[1];
        info = (int *)(dev_w + n);
        out = (T *)p[2];
        y = (T *)p[3];
        if (hws && !(hwork = malloc(hws))) {
            status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", hws);
            goto cleanup;
        }
        CUSOLVER_TRY(cusolverDnXsyevd(g->solver, g->solver_params, mode, CUBLAS_FILL_MODE_LOWER, n, dt, v, n, dt, dev_w,
                                      dt, p[0], dws, hwork, hws, info));
    }
    CUDA_TRY(cudaMemcpyAsync(wt, dev_w, (size_t)n * sizeof(T), cudaMemcpyDeviceToHost, g->stream));
    CUDA_TRY(cudaMemcpyAsync(&host_info, info, sizeof(int), cudaMemcpyDeviceToHost, g->stream));
    CUDA_TRY(cudaStreamSynchronize(g->stream));
    if (host_info != 0) {
        status = minv_fail(ctx, MINV_ERR_NO_CONVERGENCE, "cuSOLVER syevd returned info = %d (the eigen-decomposition did not converge)",
                           host_info);
        goto cleanup;
    }
    for (int64_t i = 0; i < n; i++) w[i] = (double)wt[i];
    if (applied) *applied = 0;
    if (!x || !(w[n - 1] > 0) || !(w[0] < fraction * w[n - 1]))
        goto cleanup;
    *applied = 1;
    scale_columns<T><<<dim3((unsigned)((n + 255) / 256), (unsigned)(n < 65535 ? n : 65535)), 256, 0, g->stream>>>(
        (T *)v, n, n, dev_w, fraction * w[n - 1]);
    LAUNCH_TRY();
    if (!b) {
        CUBLAS_TRY(minv_syrk(g->blas, CUBLAS_OP_N, n, n, 1.0, (const T *)v, n, 0.0, out, n));
        minv_k_mirror<T>(out, n, n, 1, g->stream);
        LAUNCH_TRY();
    } else {
        MINV_TRY(minv_gpu_upload(ctx, b, out));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, n, 1.0, (const T *)v, n, out, n, 0.0, y, n));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, m, n, 1.0, (const T *)v, n, y, n, 0.0, out, n));
    }
    MINV_TRY(minv_gpu_download(ctx, out, x));
cleanup:
    free(wt);
    free(hwork);
    return status;
}

} // namespace

minv_status minv_gpu_eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                           minv_mat *x, int *applied) {
    return a->dtype == MINV_R64 ? eigen<double>(ctx, a, w, fraction, b, x, applied)
                                : eigen<float>(ctx, a, w, fraction, b, x, applied);
}
