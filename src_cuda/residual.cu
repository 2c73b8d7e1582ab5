// Residuals and condition numbers of GPU results, computed where the data lives: the
// products run on the device in double, only n-vectors come back, and the ratios are the
// CPU's (residual.c), so both backends report the same quantities.
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

void gemv_double(const minv_mat *m, const double *x, double *y, double *rowabs, cudaStream_t s) {
    if (m->dtype == MINV_R64)
        minv_k_gemv_double<double>((const double *)m->data, m->rows, m->cols, m->ld, x, y, rowabs, s);
    else
        minv_k_gemv_double<float>((const float *)m->data, m->rows, m->cols, m->ld, x, y, rowabs, s);
}

/* Column j of m as doubles into out (device). */
void column_to_double(const minv_mat *m, int64_t j, double *out, cudaStream_t s) {
    if (m->dtype == MINV_R64)
        minv_k_convert<double, double>((const double *)minv_at(m, 0, j), m->rows, out, m->rows, m->rows, 1, s);
    else
        minv_k_convert<float, double>((const float *)minv_at(m, 0, j), m->rows, out, m->rows, m->rows, 1, s);
}

double host_norm_inf(const double *v, int64_t n) {
    double r = 0;
    for (int64_t i = 0; i < n; i++) if (fabs(v[i]) > r || isnan(v[i])) r = fabs(v[i]);
    return r;
}

minv_status reserve_one(minv_context *ctx, int slot, size_t bytes, void **p) {
    return minv_gpu_reserve(ctx, 1, &slot, &bytes, p);
}

} // namespace

minv_status minv_gpu_inverse_residual_begin(minv_context *ctx, const minv_mat *a, minv_gpu_residual *r) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    cudaStream_t s = ctx->gpu->stream;
    double *host = NULL;
    void *p;
    r->mode = ctx->residual_mode;
    r->n = n;
    r->count = MINV_PROBES;
    r->acopy.data = NULL;
    if (r->mode == 1) {
        /* v, A v, then X A v and the row sums of |X| (written at the end) */
        MINV_TRY(reserve_one(ctx, WS_VEC, (size_t)n * (3 * MINV_PROBES + 1) * sizeof(double), &p));
        r->v = (double *)p;
        r->av = r->v + (size_t)n * MINV_PROBES;
        host = (double *)malloc((size_t)n * MINV_PROBES * sizeof(double));
        if (!host) {
            status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate residual probes");
            goto cleanup;
        }
        minv_probe_vectors(host, n, MINV_PROBES);
        CUDA_TRY(cudaMemcpyAsync(r->v, host, (size_t)n * MINV_PROBES * sizeof(double), cudaMemcpyHostToDevice, s));
        for (int k = 0; k < MINV_PROBES; k++) gemv_double(a, r->v + (size_t)k * n, r->av + (size_t)k * n, NULL, s);
        LAUNCH_TRY(); /* no synchronisation: a pageable copy up has read `host` when it returns */
    } else if (r->mode == 2) {
        MINV_TRY(reserve_one(ctx, WS_RESID, (size_t)n * (size_t)n * (size_t)a->dtype, &p));
        r->acopy = (minv_mat){a->dtype, n, n, n, p};
        MINV_TRY(minv_gpu_copy(ctx, a, &r->acopy));
    }
cleanup:
    free(host);
    return status;
}

minv_status minv_gpu_inverse_residual_end(minv_context *ctx, const minv_gpu_residual *r, const minv_mat *x,
                                          const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = r->n;
    cudaStream_t s = ctx->gpu->stream;
    if (r->mode > 0) minv_progress(ctx, "residual", 0);
    if (r->mode == 1) {
        double *w = r->av + (size_t)n * MINV_PROBES, *rowabs = w + (size_t)n * MINV_PROBES;
        for (int k = 0; k < MINV_PROBES; k++)
            gemv_double(x, r->av + (size_t)k * n, w + (size_t)k * n, k == 0 ? rowabs : NULL, s);
        LAUNCH_TRY();
        void *back; /* v, A v, X A v and the row sums, one after the other from r->v */
        MINV_TRY(minv_gpu_read_back(ctx, r->v, (size_t)n * (3 * MINV_PROBES + 1) * sizeof(double), &back));
        const double *hv = (const double *)back, *hw = hv + 2 * (size_t)n * MINV_PROBES,
                     *hrow = hw + (size_t)n * MINV_PROBES;
        report->residual = minv_probe_ratio(n, MINV_PROBES, hv, hw, host_norm_inf(hrow, n), an->norm_inf);
        report->residual_kind = 1;
    } else if (r->mode == 2) {
        /* ||A X - I||_1 / (n ||A||_1 ||X||_1), the product in the working precision */
        void *p;
        double norms[2];
        MINV_TRY(reserve_one(ctx, WS_VEC, (size_t)n * (size_t)n * (size_t)x->dtype + 64, &p));
        double *dnorm = (double *)p;
        void *prod = (char *)p + 64;
        if (x->dtype == MINV_R64) {
            CUBLAS_TRY(minv_gemm(ctx->gpu->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, 1.0, (const double *)r->acopy.data,
                                 n, (const double *)x->data, x->ld, 0.0, (double *)prod, n));
            minv_k_add_diagonal<double>((double *)prod, n, n, -1.0, s);
            minv_k_norm1<double>((const double *)prod, n, n, n, dnorm, s);
            minv_k_norm1<double>((const double *)x->data, n, n, x->ld, dnorm + 1, s);
        } else {
            CUBLAS_TRY(minv_gemm(ctx->gpu->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, 1.0, (const float *)r->acopy.data,
                                 n, (const float *)x->data, x->ld, 0.0, (float *)prod, n));
            minv_k_add_diagonal<float>((float *)prod, n, n, -1.0f, s);
            minv_k_norm1<float>((const float *)prod, n, n, n, dnorm, s);
            minv_k_norm1<float>((const float *)x->data, n, n, x->ld, dnorm + 1, s);
        }
        LAUNCH_TRY();
        CUDA_TRY(cudaMemcpyAsync(norms, dnorm, sizeof norms, cudaMemcpyDeviceToHost, s));
        CUDA_TRY(cudaStreamSynchronize(s));
        report->residual = norms[0] == 0 ? 0 : norms[0] / ((double)n * an->norm_1 * norms[1]);
        report->residual_kind = 2;
    }
cleanup:
    return status;
}

void minv_gpu_solve_residual_plan(const minv_context *ctx, const minv_mat *b, minv_gpu_residual *r) {
    r->mode = ctx->residual_mode;
    r->n = b->rows;
    r->count = r->mode ? minv_residual_columns(r->mode, b->cols) : 0;
    r->v = r->av = NULL;
    r->acopy.data = NULL;
}

minv_status minv_gpu_solve_residual_begin(minv_context *ctx, const minv_mat *b, minv_gpu_residual *r) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = b->rows;
    void *p;
    minv_gpu_solve_residual_plan(ctx, b, r);
    if (r->mode == 0)
        return MINV_SUCCESS;
    /* the sampled columns of B, then room for every x_j and A x_j */
    MINV_TRY(reserve_one(ctx, WS_VEC, (size_t)n * (size_t)(3 * r->count) * sizeof(double), &p));
    r->v = (double *)p;
    r->av = r->v + (size_t)n * r->count;
    for (int64_t k = 0; k < r->count; k++)
        column_to_double(b, minv_residual_column(k, r->count, b->cols), r->v + (size_t)k * n, ctx->gpu->stream);
    LAUNCH_TRY();
cleanup:
    return status;
}

void minv_gpu_solve_residual_finish(const minv_gpu_residual *r, double *host, const minv_analysis *an,
                                    minv_report *report) {
    const int64_t n = r->n;
    double worst = 0;
    if (r->mode == 0)
        return;
    for (int64_t k = 0; k < r->count; k++) {
        double *hb = host + (size_t)k * n, *hx = host + (size_t)n * (r->count + 2 * k), *hax = hx + n;
        for (int64_t i = 0; i < n; i++) hax[i] -= hb[i];
        const double q = minv_solve_column_ratio(n, hax, hx, hb, an->norm_inf);
        if (q > worst || isnan(q)) worst = q;
    }
    report->residual = worst;
    report->residual_kind = r->mode;
}

minv_status minv_gpu_solve_residual_end(minv_context *ctx, const minv_gpu_residual *r, const minv_mat *a,
                                        const minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = r->n;
    cudaStream_t s = ctx->gpu->stream;
    void *back;
    if (r->mode == 0) { /* nothing to check, but the solve must have finished without error */
        CUDA_TRY(cudaStreamSynchronize(s));
        return MINV_SUCCESS;
    }
    minv_progress(ctx, "residual", 0);
    /* every sampled column's x_j and A x_j, then one copy back: one synchronisation in all */
    for (int64_t k = 0; k < r->count; k++) {
        double *xj = r->av + 2 * (size_t)k * n, *axj = xj + n;
        column_to_double(x, minv_residual_column(k, r->count, x->cols), xj, s);
        gemv_double(a, xj, axj, NULL, s);
    }
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_read_back(ctx, r->v, 3 * (size_t)n * (size_t)r->count * sizeof(double), &back));
    minv_gpu_solve_residual_finish(r, (double *)back, an, report);
cleanup:
    return status;
}

minv_status minv_gpu_rcond_from_inverse(minv_context *ctx, const minv_mat *x, const minv_analysis *an,
                                        minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    void *p, *back;
    double xnorm;
    MINV_TRY(reserve_one(ctx, WS_SCALAR, 64, &p));
    if (x->dtype == MINV_R64)
        minv_k_norm1<double>((const double *)x->data, x->rows, x->cols, x->ld, (double *)p, ctx->gpu->stream);
    else
        minv_k_norm1<float>((const float *)x->data, x->rows, x->cols, x->ld, (double *)p, ctx->gpu->stream);
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_read_back(ctx, p, sizeof xnorm, &back));
    xnorm = *(const double *)back;
    report->rcond = minv_cpu_rcond(an->norm_1, xnorm);
cleanup:
    return status;
}

minv_status minv_gpu_all_finite(minv_context *ctx, const minv_mat *m, int64_t *bad_i, int64_t *bad_j, int *finite) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    void *p;
    unsigned long long first = ULLONG_MAX;
    cudaStream_t s = ctx->gpu->stream;
    MINV_TRY(reserve_one(ctx, WS_SCALAR, 64, &p));
    CUDA_TRY(cudaMemcpyAsync(p, &first, sizeof first, cudaMemcpyHostToDevice, s));
    if (m->dtype == MINV_R64)
        minv_k_first_nonfinite<double>((const double *)m->data, m->rows, m->cols, m->ld, (unsigned long long *)p, s);
    else
        minv_k_first_nonfinite<float>((const float *)m->data, m->rows, m->cols, m->ld, (unsigned long long *)p, s);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(&first, p, sizeof first, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    *finite = first == ULLONG_MAX;
    if (!*finite) {
        *bad_i = (int64_t)(first % (unsigned long long)m->rows);
        *bad_j = (int64_t)(first / (unsigned long long)m->rows);
    }
cleanup:
    return status;
}
