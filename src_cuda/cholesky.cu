// Symmetric positive definite inversion and solve on the GPU: cuSOLVER's potrf, then the
// inverse or the solve from the factor in BLAS3 (triangular.cu; the inverse mirrored to both
// triangles).
#include <stdlib.h>

#include "gpu.h"

namespace {

/* Factor x = L L^T in place (lower); on failure report the column. */
minv_status factor(minv_context *ctx, minv_mat *x, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    size_t dev_bytes = 0;
    void *work[2];
    MINV_TRY(minv_gpu_potrf_workspace(ctx, x->dtype, x->rows, x->ld, x->data, &dev_bytes));
    {
        const int slots[2] = {WS_SOLVER, WS_SCALAR};
        const size_t bytes[2] = {dev_bytes, 64};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, work));
    }
    status = minv_gpu_potrf(ctx, x, 0, work[0], dev_bytes, (int *)work[1], report);
cleanup:
    return status;
}

template <typename T>
minv_status invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    const int64_t n = x->rows;
    const int slot = WS_SMALL;
    const size_t bytes = (size_t)n * sizeof(T);
    void *diag;
    MINV_TRY(minv_gpu_copy(ctx, a, x));
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, x, &res));
    /* potrf overwrites the lower triangle; the upper one and this diagonal give A back */
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &diag));
    minv_k_diagonal<T>((T *)x->data, n, x->ld, (T *)diag, 1, g->stream);
    LAUNCH_TRY();
    minv_progress(ctx, "cholesky factor", 0);
    status = factor(ctx, x, report);
    if (status == MINV_ERR_NOT_SPD) {
        minv_k_diagonal<T>((T *)x->data, n, x->ld, (T *)diag, 0, g->stream);
        minv_k_mirror<T>((T *)x->data, n, x->ld, 0, g->stream);
        CUDA_TRY(cudaStreamSynchronize(g->stream));
        status = MINV_ERR_NOT_SPD;
        goto cleanup;
    }
    if (status != MINV_SUCCESS) goto cleanup;
    minv_progress(ctx, "cholesky invert", 0);
    MINV_TRY(minv_gpu_spd_inverse_from_factor(ctx, x));
    minv_k_mirror<T>((T *)x->data, n, x->ld, 1, g->stream);
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    return status;
}

/* The condition estimate's vector solves, L^-T L^-1 v, by cuBLAS TRSV: potrs's TRSM is
 * slow on one right-hand side. */
template <typename T> minv_status trsv_vector(minv_context *ctx, const minv_mat *l, T *v) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    CUBLAS_TRY(minv_trsv(g->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, l->rows, (const T *)l->data,
                         l->ld, v));
    CUBLAS_TRY(minv_trsv(g->blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, l->rows, (const T *)l->data,
                         l->ld, v));
cleanup:
    return status;
}

minv_status factor_vector(minv_context *ctx, void *vec, int transpose, void *user) {
    (void)transpose; /* A = A^T */
    const minv_mat *l = (const minv_mat *)user;
    return l->dtype == MINV_R64 ? trsv_vector<double>(ctx, l, (double *)vec) : trsv_vector<float>(ctx, l, (float *)vec);
}

} // namespace

minv_status minv_gpu_potrf_workspace(minv_context *ctx, minv_dtype t, int64_t n, int64_t ld, const void *a,
                                     size_t *dev_bytes) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const cudaDataType dt = minv_cuda_type(t);
    size_t host_bytes = 0;
    CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, a, ld, dt,
                                             dev_bytes, &host_bytes));
cleanup:
    return status;
}

minv_status minv_gpu_potrf(minv_context *ctx, minv_mat *x, int64_t col0, void *work, size_t work_bytes, int *info_dev,
                           minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const cudaDataType dt = minv_cuda_type(x->dtype);
    size_t dev_bytes = 0, host_bytes = 0;
    void *host_work = NULL;
    int64_t n = x->rows;
    int info = 0;
    void *back;
    CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, x->data, x->ld,
                                             dt, &dev_bytes, &host_bytes));
    if (dev_bytes > work_bytes) {
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "potrf of order %lld needs %zu bytes of workspace, %zu reserved",
                           (long long)n, dev_bytes, work_bytes);
        goto cleanup;
    }
    if (host_bytes && !(host_work = malloc(host_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", host_bytes);
        goto cleanup;
    }
    CUSOLVER_TRY(cusolverDnXpotrf(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, x->data, x->ld, dt, work,
                                  dev_bytes, host_work, host_bytes, info_dev));
    MINV_TRY(minv_gpu_read_back(ctx, info_dev, sizeof info, &back));
    info = *(const int *)back;
    if (info > 0) {
        report->info = col0 + info - 1;
        status = minv_fail(ctx, MINV_ERR_NOT_SPD,
                           "the leading minor of order %lld is not positive definite (column %lld, 1-based)",
                           (long long)report->info + 1, (long long)report->info + 1);
    } else if (info < 0) {
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "cuSOLVER potrf rejected argument %d", -info);
    }
cleanup:
    free(host_work);
    return status;
}

minv_status minv_gpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                     minv_report *r) {
    return x->dtype == MINV_R64 ? invert<double>(ctx, a, x, an, r) : invert<float>(ctx, a, x, an, r);
}

minv_status minv_gpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_gpu_rhs rhs;
    const int64_t n = a->rows;
    const int slot = WS_B;
    const size_t bytes = (size_t)n * (size_t)n * (size_t)a->dtype;
    void *p;
    minv_mat l;
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(minv_gpu_rhs_begin(ctx, b, x, &rhs));
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &p));
    l = (minv_mat){a->dtype, n, n, n, p};
    MINV_TRY(minv_gpu_copy(ctx, a, &l));
    minv_progress(ctx, "cholesky factor", 0);
    MINV_TRY(factor(ctx, &l, report));
    minv_progress(ctx, "cholesky solve", 0);
    MINV_TRY(minv_gpu_spd_solve_with_factor(ctx, &l, &rhs.w));
    if (rhs.h.data) MINV_TRY(minv_gpu_spd_solve_with_factor(ctx, &l, &rhs.h));
    MINV_TRY(minv_gpu_rhs_end(ctx, &rhs, x, &l, 1, an->norm_1, &report->rcond));
    MINV_TRY(minv_gpu_solve_rcond(ctx, &l, 1, an->norm_1, factor_vector, &l, minv_gpu_rhs_vector(&rhs), report));
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
cleanup:
    return status;
}
