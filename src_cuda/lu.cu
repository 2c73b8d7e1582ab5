// General inversion and solve on the GPU through cuSOLVER: getrf with partial pivoting, then
// getrs with the identity (inverse) or with B (solve). The Gauss-Jordan issue replaces the
// inversion; this is the reference the benchmark measures it against.
#include <stdlib.h>

#include "gpu.h"

namespace {

/* The LU factors of A in WS_B, the pivots in WS_SMALL. */
struct lu_factors {
    minv_mat lu;
    int64_t *ipiv;
};

minv_status factor(minv_context *ctx, const minv_mat *a, lu_factors *f, minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    const cudaDataType dt = minv_cuda_type(a->dtype);
    size_t dev_bytes = 0, host_bytes = 0;
    void *host_work = NULL, *p[4];
    int info = 0;
    {
        const int slots[2] = {WS_B, WS_SMALL};
        const size_t bytes[2] = {(size_t)n * (size_t)n * (size_t)a->dtype, (size_t)n * sizeof(int64_t) + 64};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    }
    f->lu = (minv_mat){a->dtype, n, n, n, p[0]};
    f->ipiv = (int64_t *)((char *)p[1] + 64);
    MINV_TRY(minv_gpu_copy(ctx, a, &f->lu));
    CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, n, dt, f->lu.data, n, dt, &dev_bytes,
                                             &host_bytes));
    {
        const int slot = WS_SOLVER;
        MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &dev_bytes, &p[2]));
    }
    if (host_bytes && !(host_work = malloc(host_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", host_bytes);
        goto cleanup;
    }
    CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, n, n, dt, f->lu.data, n, f->ipiv, dt, p[2], dev_bytes,
                                  host_work, host_bytes, (int *)p[1]));
    CUDA_TRY(cudaMemcpyAsync(&info, p[1], sizeof info, cudaMemcpyDeviceToHost, g->stream));
    CUDA_TRY(cudaStreamSynchronize(g->stream));
    if (info > 0) {
        report->info = info - 1;
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "U(%d,%d) is exactly zero: no pivot in column %d (1-based)", info,
                           info, info);
    } else if (info < 0) {
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "cuSOLVER getrf rejected argument %d", -info);
    }
cleanup:
    free(host_work);
    return status;
}

minv_status getrs(minv_context *ctx, const lu_factors *f, int transpose, minv_mat *x) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const cudaDataType dt = minv_cuda_type(x->dtype);
    /* the info word sits in front of the pivots */
    CUSOLVER_TRY(cusolverDnXgetrs(g->solver, g->solver_params, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, f->lu.rows,
                                  x->cols, dt, f->lu.data, f->lu.ld, f->ipiv, dt, x->data, x->ld,
                                  (int *)((char *)f->ipiv - 64)));
cleanup:
    return status;
}

minv_status getrs_vector(minv_context *ctx, void *vec, int transpose, void *user) {
    const lu_factors *f = (const lu_factors *)user;
    minv_mat v = {f->lu.dtype, f->lu.rows, 1, f->lu.rows, vec};
    return getrs(ctx, f, transpose, &v);
}

} // namespace

minv_status minv_gpu_lu_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                               minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    lu_factors f;
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, &res));
    MINV_TRY(factor(ctx, a, &f, report));
    if (x->dtype == MINV_R64)
        minv_k_set_identity<double>((double *)x->data, x->rows, x->ld, 1.0, ctx->gpu->stream);
    else
        minv_k_set_identity<float>((float *)x->data, x->rows, x->ld, 1.0f, ctx->gpu->stream);
    LAUNCH_TRY();
    MINV_TRY(getrs(ctx, &f, 0, x));
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    return status;
}

minv_status minv_gpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    lu_factors f;
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(minv_gpu_copy(ctx, b, x));
    MINV_TRY(factor(ctx, a, &f, report));
    MINV_TRY(minv_gpu_rcond_estimate(ctx, a->dtype, a->rows, an->norm_1, getrs_vector, &f, &report->rcond));
    MINV_TRY(getrs(ctx, &f, 0, x));
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
cleanup:
    return status;
}
