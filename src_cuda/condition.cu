// Reciprocal condition numbers of GPU factor solves, made as the CPU solves make them
// (cpu/factor.c), so both backends report the same figure: the solve carries Hager's first
// vector e/n beside B, and max_j ||x_j||_1 / ||b_j||_1 with the factor's diagonal bound
// ||A^-1||_1 from below at no cost beyond one column; only where that leaves rcond under
// MINV_RCOND_ESTIMATE_BELOW does Hager's method with Higham's extra vector (LAPACK's xLACN2)
// run, its iteration on the host and its vector solves on the device; at small orders the exact
// norm from the factor's inverse instead, by the CPU's code on a host copy of the factor.
#include <math.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

/* B with Hager's vector in one workspace costs a copy of B in and of X out; where B is wide
 * the vector's own solve costs less than that. A few columns with it are solved in one sweep
 * of each triangle (minv_gpu_narrow_solve), the vector at no extra read of the factor. */
bool append_vector(int64_t n, int64_t m) { return m < 64 || 4 * m <= n; }

/* The device norms: ||b_j||_1 for B's m columns and two more slots, then ||x_j||_1 for its
 * m + 1 (Hager's vector last) and min |f_ii|. */
int64_t norm_slots(int64_t m) { return m + 2; }

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

int64_t argmax_abs(const double *v, int64_t n) {
    int64_t j = 0;
    for (int64_t i = 1; i < n; i++)
        if (fabs(v[i]) > fabs(v[j])) j = i;
    return j;
}

/* sign[i] = sign(x_i) (1 for zero); returns whether it was already so. */
bool take_signs(const double *x, double *sign, int64_t n) {
    bool same = true;
    for (int64_t i = 0; i < n; i++) {
        const double s = x[i] >= 0 ? 1.0 : -1.0;
        same = same && sign[i] == s;
        sign[i] = s;
    }
    return same;
}

} // namespace

minv_status minv_gpu_rcond_estimate(minv_context *ctx, minv_dtype t, int64_t n, double anorm,
                                    minv_gpu_vec_solve solve, void *user, const void *first, double *rcond) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int slot = WS_SCALAR;
    const size_t bytes = (size_t)n * 8 + 64;
    void *dev = NULL;
    double *x = (double *)malloc((size_t)n * sizeof(double) * 3), *z = x ? x + n : NULL, *sign = x ? z + n : NULL,
           est = 0;
    float *stage = (float *)malloc((size_t)n * sizeof(float));
    int64_t j;
    if (!x || !stage) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "condition estimate: cannot allocate 4 vectors of %lld", (long long)n);
        goto cleanup;
    }
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev));
    if (first) { /* x <- A^-1 e / n, solved beside B */
        void *back;
        MINV_TRY(minv_gpu_read_back(ctx, first, (size_t)n * (size_t)t, &back));
        for (int64_t i = 0; i < n; i++) x[i] = t == MINV_R64 ? ((const double *)back)[i] : ((const float *)back)[i];
    } else {
        for (int64_t i = 0; i < n; i++) x[i] = 1.0 / (double)n;
        MINV_TRY(solve_host_vector(ctx, t, n, x, dev, stage, 0, solve, user)); /* x <- A^-1 e / n */
    }
    est = norm1(x, n);
    for (int64_t i = 0; i < n; i++) sign[i] = 0;
    take_signs(x, sign, n);
    for (int64_t i = 0; i < n; i++) z[i] = sign[i];
    MINV_TRY(solve_host_vector(ctx, t, n, z, dev, stage, 1, solve, user)); /* z <- A^-T sign(x) */
    j = argmax_abs(z, n);
    for (int iter = 1; iter < 5; iter++) { /* xLACN2's steps and stopping tests */
        for (int64_t i = 0; i < n; i++) x[i] = i == j ? 1.0 : 0.0;
        MINV_TRY(solve_host_vector(ctx, t, n, x, dev, stage, 0, solve, user));
        const double e = norm1(x, n);
        const bool repeated = take_signs(x, sign, n);
        if (repeated || e <= est) { /* converged, or cycling */
            est = fmax(est, e);
            break;
        }
        est = e;
        for (int64_t i = 0; i < n; i++) z[i] = sign[i];
        MINV_TRY(solve_host_vector(ctx, t, n, z, dev, stage, 1, solve, user));
        const int64_t last = j;
        j = argmax_abs(z, n);
        if (fabs(z[last]) == fabs(z[j])) break;
    }
    /* Higham's alternating vector catches matrices that fool the power-like iteration. */
    for (int64_t i = 0; i < n; i++) x[i] = (i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (double)(n > 1 ? n - 1 : 1));
    MINV_TRY(solve_host_vector(ctx, t, n, x, dev, stage, 0, solve, user));
    est = fmax(est, 2.0 * norm1(x, n) / (3.0 * (double)n));
    *rcond = minv_cpu_rcond(anorm, est);
cleanup:
    free(x);
    free(stage);
    return status;
}

minv_status minv_gpu_rhs_begin(minv_context *ctx, const minv_mat *b, minv_mat *x, minv_gpu_rhs *r) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = b->rows, m = b->cols, c = norm_slots(m);
    const size_t es = (size_t)b->dtype, norms = 2 * (size_t)c * sizeof(double);
    const bool append = append_vector(n, m) && minv_gpu_available(ctx) >= (double)((size_t)n * (size_t)(m + 1) * es + norms);
    const int slots[2] = {WS_E, WS_F};
    const size_t bytes[2] = {(size_t)n * (size_t)(append ? m + 1 : 1) * es, norms};
    void *p[2], *vector;
    r->m = m;
    MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    r->norms = (double *)p[1];
    if (b->dtype == MINV_R64) minv_k_column_norms1<double>((const double *)b->data, n, m, b->ld, r->norms, g->stream);
    else minv_k_column_norms1<float>((const float *)b->data, n, m, b->ld, r->norms, g->stream);
    if (append) {
        const minv_mat bw = {b->dtype, n, m, n, p[0]};
        r->w = (minv_mat){b->dtype, n, m + 1, n, p[0]};
        r->h = (minv_mat){b->dtype, n, 1, n, NULL};
        vector = (char *)p[0] + (size_t)m * (size_t)n * es;
        MINV_TRY(minv_gpu_copy(ctx, b, (minv_mat *)&bw));
    } else {
        r->w = *x;
        r->h = (minv_mat){b->dtype, n, 1, n, p[0]};
        vector = p[0];
        if (b->data != x->data) MINV_TRY(minv_gpu_copy(ctx, b, x));
    }
    if (b->dtype == MINV_R64) minv_k_fill<double>((double *)vector, n, 1.0 / (double)n, g->stream);
    else minv_k_fill<float>((float *)vector, n, 1.0f / (float)n, g->stream);
    LAUNCH_TRY();
cleanup:
    return status;
}

double minv_gpu_rcond_bound(double *norms, int64_t m, int64_t n, int spd, double anorm) {
    const int64_t c = norm_slots(m);
    /* Hager's vector has 1-norm 1. The factor's pivots bound ||A^-1||_1 from below as one more
     * "column" of norm 1: l_ii^2 >= lambda_min(A), so 1 / min l_ii^2 <= ||A^-1||_2 <= ||A^-1||_1
     * for symmetric A; U^-1 = A^-1 P^T L has a column of 1-norm >= 1 / min |u_ii|, ||L||_1 <= n. */
    const double smallest = norms[c + m + 1];
    norms[m] = norms[m + 1] = 1;
    norms[c + m + 1] = smallest > 0 ? (spd ? 1.0 / (smallest * smallest) : 1.0 / (smallest * (double)n)) : 0;
    return minv_rcond_lower_bound(c, norms + c, norms, anorm);
}

minv_status minv_gpu_rhs_end(minv_context *ctx, const minv_gpu_rhs *r, minv_mat *x, const minv_mat *f, int spd,
                             double anorm, double *rcond) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = f->rows, m = r->m, c = norm_slots(m);
    double *xnorm = r->norms + c;
    void *back;
    if (f->dtype == MINV_R64) {
        minv_k_column_norms1<double>((const double *)r->w.data, n, r->w.cols, r->w.ld, xnorm, g->stream);
        if (r->h.data) minv_k_column_norms1<double>((const double *)r->h.data, n, 1, n, xnorm + m, g->stream);
        minv_k_min_abs_diagonal<double>((const double *)f->data, n, f->ld, xnorm + m + 1, g->stream);
    } else {
        minv_k_column_norms1<float>((const float *)r->w.data, n, r->w.cols, r->w.ld, xnorm, g->stream);
        if (r->h.data) minv_k_column_norms1<float>((const float *)r->h.data, n, 1, n, xnorm + m, g->stream);
        minv_k_min_abs_diagonal<float>((const float *)f->data, n, f->ld, xnorm + m + 1, g->stream);
    }
    LAUNCH_TRY();
    if (r->w.data != x->data) {
        const minv_mat solved = {r->w.dtype, n, m, r->w.ld, r->w.data};
        MINV_TRY(minv_gpu_copy(ctx, &solved, x));
    }
    MINV_TRY(minv_gpu_read_back(ctx, r->norms, 2 * (size_t)c * sizeof(double), &back));
    *rcond = minv_gpu_rcond_bound((double *)back, m, n, spd, anorm);
cleanup:
    return status;
}

/* ||A^-1||_1 as the CPU takes it at small orders (minv_rcond_exact_applies): the factor
 * copied to the host (32 KB at most) and inverted there by the CPU's code, so that both
 * backends report the same figure; one copy, where Higham's iteration takes five to ten
 * vector solves, each a round trip. */
static minv_status exact_inverse_norm(minv_context *ctx, const minv_mat *f, int spd, double *norm) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = f->rows;
    const size_t es = (size_t)f->dtype;
    minv_mat host = {f->dtype, n, n, n, malloc((size_t)n * (size_t)n * es)};
    if (!host.data)
        return minv_fail(ctx, MINV_ERR_ALLOC, "condition: cannot allocate a %lld x %lld factor on the host", (long long)n,
                         (long long)n);
    CUDA_TRY(cudaMemcpy2DAsync(host.data, (size_t)n * es, f->data, (size_t)f->ld * es, (size_t)n * es, (size_t)n,
                               cudaMemcpyDeviceToHost, ctx->gpu->stream));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    *norm = minv_cpu_inverse_norm_exact(&host, spd);
cleanup:
    free(host.data);
    return status;
}

minv_status minv_gpu_solve_rcond(minv_context *ctx, const minv_mat *f, int spd, double anorm, minv_gpu_vec_solve solve,
                                 void *user, const void *first, minv_report *report) {
    double estimate;
    if (report->rcond == 0 || report->rcond >= MINV_RCOND_ESTIMATE_BELOW)
        return MINV_SUCCESS;
    if (minv_rcond_exact_applies(f->rows, spd)) {
        double norm;
        minv_status status = exact_inverse_norm(ctx, f, spd, &norm);
        if (status == MINV_SUCCESS) {
            report->rcond = fmin(report->rcond, minv_cpu_rcond(anorm, norm));
            minv_report_note(report, "%s", MINV_NOTE_RCOND_EXACT);
        }
        return status;
    }
    minv_status status = minv_gpu_rcond_estimate(ctx, f->dtype, f->rows, anorm, solve, user, first, &estimate);
    if (status == MINV_SUCCESS) {
        report->rcond = fmin(report->rcond, estimate); /* both overstate rcond, if at all */
        minv_report_note(report, "%s", MINV_NOTE_RCOND_ESTIMATED);
    }
    return status;
}
