// Reciprocal condition estimate for GPU factorisations: Hager's method with Higham's extra
// vector (the algorithm behind LAPACK's xLACN2), a few solves with one right-hand side each.
// The iteration runs on the host; the solves run on the device with the factors.
#include <math.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

minv_status solve_host_vector(minv_context *ctx, minv_dtype t, int64_t n, double *host, void *dev, void *stage,
                              int transpose, minv_gpu_vec_solve solve, void *user) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    const size_t es = (size_t)t;
    if (t == MINV_R32)
        for (int64_t i = 0; i < n; i++) ((float *)stage)[i] = (float)host[i];
    CUDA_TRY(cudaMemcpyAsync(dev, t == MINV_R64 ? (void *)host : stage, (size_t)n * es, cudaMemcpyHostToDevice, s));
    MINV_TRY(solve(ctx, dev, transpose, user));
    CUDA_TRY(cudaMemcpyAsync(t == MINV_R64 ? (void *)host : stage, dev, (size_t)n * es, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    if (t == MINV_R32)
        for (int64_t i = 0; i < n; i++) host[i] = ((float *)stage)[i];
cleanup:
    return status;
}

double norm1(const double *v, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += fabs(v[i]);
    return s;
}

} // namespace

minv_status minv_gpu_rcond_estimate(minv_context *ctx, minv_dtype t, int64_t n, double anorm,
                                    minv_gpu_vec_solve solve, void *user, double *rcond) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int slot = WS_SCALAR;
    const size_t bytes = (size_t)n * 8 + 64;
    void *dev = NULL;
    double *x = (double *)malloc((size_t)n * sizeof(double) * 2), *z = x ? x + n : NULL, est = 0;
    float *stage = (float *)malloc((size_t)n * sizeof(float));
    if (!x || !stage) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "condition estimate: cannot allocate 3 vectors of %lld", (long long)n);
        goto cleanup;
    }
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev));
    for (int64_t i = 0; i < n; i++) x[i] = 1.0 / (double)n;
    for (int iter = 0; iter < 5; iter++) {
        MINV_TRY(solve_host_vector(ctx, t, n, x, dev, stage, 0, solve, user)); /* x <- A^-1 x */
        double e = norm1(x, n);
        if (iter > 0 && e <= est) break;
        est = e;
        for (int64_t i = 0; i < n; i++) z[i] = x[i] >= 0 ? 1.0 : -1.0;
        MINV_TRY(solve_host_vector(ctx, t, n, z, dev, stage, 1, solve, user)); /* z <- A^-T sign(x) */
        int64_t jmax = 0;
        for (int64_t i = 1; i < n; i++) if (fabs(z[i]) > fabs(z[jmax])) jmax = i;
        for (int64_t i = 0; i < n; i++) x[i] = i == jmax ? 1.0 : 0.0;
    }
    /* Higham's alternating vector catches matrices that fool the power-like iteration. */
    for (int64_t i = 0; i < n; i++) x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (double)(n > 1 ? n - 1 : 1));
    MINV_TRY(solve_host_vector(ctx, t, n, x, dev, stage, 0, solve, user));
    est = fmax(est, 2.0 * norm1(x, n) / (3.0 * (double)n));
    *rcond = est > 0 && isfinite(est) && anorm > 0 ? 1.0 / (anorm * est) : 0.0;
cleanup:
    free(x);
    free(stage);
    return status;
}
