/* What every backend's analysis ends with: the per-row and per-column reductions a backend
 * computed (on the CPU or the GPU) turned into a minv_analysis, and the AUTO choice. */
#include <math.h>

#include "internal.h"

/* A general matrix goes to the method the backend measured fastest at its order (LU where
 * the backend has no preference). */
minv_method minv_choose_dense_method(const minv_context *ctx, const minv_analysis *an, int64_t nrhs) {
    if (an->symmetric && an->diag_positive)
        return MINV_METHOD_CHOLESKY;
    return ctx->ops->general_method ? ctx->ops->general_method(ctx, an->n, nrhs) : MINV_METHOD_LU;
}

/* A tridiagonal inverse is written in O(n^2), and stably whatever the matrix. */
static minv_method choose_inverse_method(const minv_context *ctx, const minv_analysis *an) {
    return an->tridiagonal ? MINV_METHOD_TRIDIAGONAL : minv_choose_dense_method(ctx, an, 0);
}

/* GEMM-formed covariances (H P H^T + R) come out symmetric to 1-3 roundings relative to their
 * largest entry (bench/results/cpu_calls_devmachine.md), DA systems' up to 8: 16 takes them to
 * Cholesky with room to spare, and a matrix made asymmetric on purpose at 36 roundings (the
 * analysis test's) is still not symmetric. */
double minv_symmetry_tol(const minv_context *ctx, minv_dtype t) {
    return ctx->symmetry_tol >= 0 ? ctx->symmetry_tol : MINV_SYMMETRY_EPS * minv_eps(t);
}

void minv_analysis_assemble(const minv_context *ctx, minv_dtype dtype, int64_t n, const minv_scan_totals *t,
                            const double *rowsum, const double *diag, double max_asymmetry,
                            minv_analysis *out) {
    out->n = n;
    out->reserved = 0;
    out->finite = t->first_bad == INT64_MAX;
    out->first_bad_row = out->finite ? -1 : t->first_bad % n;
    out->first_bad_col = out->finite ? -1 : t->first_bad / n;
    out->norm_1 = t->max_colsum;
    /* in locals: out may alias the sums, which kept every step's results in memory */
    double norm_inf = 0, diag_min = INFINITY, diag_max = -INFINITY;
    int dominant = 1, positive = 1;
    for (int64_t i = 0; i < n; i++) {
        const double d = diag[i], s = rowsum[i];
        norm_inf = s > norm_inf || isnan(s) ? s : norm_inf;
        dominant &= fabs(d) > s - fabs(d);
        positive &= d > 0;
        diag_min = d < diag_min ? d : diag_min;
        diag_max = d > diag_max ? d : diag_max;
    }
    out->norm_inf = norm_inf;
    out->diag_dominant = dominant;
    out->diag_positive = positive;
    out->diag_min = diag_min;
    out->diag_max = diag_max;
    out->norm_fro = minv_sumsq_norm(&t->sumsq);
    out->lower_bandwidth = t->lower_bw;
    out->upper_bandwidth = t->upper_bw;
    out->tridiagonal = t->lower_bw <= 1 && t->upper_bw <= 1;
    out->asymmetry = !out->finite ? NAN : t->max_abs > 0 ? max_asymmetry / t->max_abs : 0;
    out->symmetric = out->finite && out->asymmetry <= minv_symmetry_tol(ctx, dtype);
    out->auto_method = choose_inverse_method(ctx, out);
}
