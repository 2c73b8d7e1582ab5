/* General inversion and solve on the CPU: LAPACK getrf with partial pivoting, then getri
 * (inverse) or getrs (solve), on a copy of A in the context's workspace; below MINV_SMALL_N
 * the unblocked kernels of small.c (Gauss-Jordan with the same pivots for the inverse), and
 * small.c's triangular sweeps for a few right-hand sides at any order. The
 * reciprocal condition number is exact for the inverse and, for a solve, a bound from the
 * factor's diagonal and the solution, with Higham's estimate (gecon's, by the sweeps:
 * estimate.c) where that is small (factor.h). */
#include <math.h>

#include "factor.h"
#include "../lapack.h"
#include "small.h"

static minv_status no_pivot(minv_context *ctx, int64_t info, minv_report *report) {
    report->info = info - 1;
    return minv_fail(ctx, MINV_ERR_SINGULAR, "U(%lld,%lld) is exactly zero: no pivot in column %lld (1-based)",
                     (long long)info, (long long)info, (long long)info);
}

enum { GETRI_BLOCK = 64 }; /* getri's workspace: n times its block size */

/* Factor P A = L U in place (subnormals flushed where ||A||_1 allows: internal.h); a zero
 * pivot is reported by its column. Returns, through
 * *inverse_bound, max 1 / |u_ii| / n, a lower bound on ||A^-1||_1 (U^-1 = A^-1 P^T L and
 * ||L||_1 <= n with partial pivoting). */
static minv_status factor(minv_context *ctx, minv_mat *f, double norm_1, int *ipiv, minv_report *report,
                          double *inverse_bound) {
    minv_progress(ctx, "lu factor", 0);
    int64_t info;
    if (f->rows <= MINV_SMALL_N) {
        info = minv_small_getrf(f->dtype, f->rows, f->data, f->ld, ipiv);
    } else {
        const minv_flush flush = minv_flush_subnormals_begin(f->dtype, f->rows, norm_1);
        info = la_getrf(f->dtype, f->rows, f->rows, f->data, f->ld, ipiv);
        minv_flush_subnormals_end(flush);
    }
    if (info > 0)
        return no_pivot(ctx, info, report);
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK getrf rejected argument %lld", (long long)-info);
    if (inverse_bound)
        *inverse_bound = 1.0 / (minv_cpu_min_abs_diagonal(f) * (double)f->rows);
    return MINV_SUCCESS;
}

minv_status minv_cpu_lu_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                               const minv_analysis *an, minv_report *report) {
    minv_mat f;
    int *ipiv;
    void *work;
    const int small = a->rows <= MINV_SMALL_N;
    minv_status status = minv_cpu_factor_input(ctx, a, 0, &f);
    if (status == MINV_SUCCESS)
        status = minv_cpu_pivots(ctx, f.rows, small ? f.rows : GETRI_BLOCK * f.rows, f.dtype, &ipiv, &work);
    if (status != MINV_SUCCESS)
        return status;
    if (small) {
        const int64_t info = minv_small_gauss_jordan(f.dtype, f.rows, f.data, f.ld, work, ipiv);
        if (info > 0)
            return no_pivot(ctx, info, report);
    } else {
        if ((status = factor(ctx, &f, an->norm_1, ipiv, report, NULL)) != MINV_SUCCESS)
            return status;
        minv_progress(ctx, "lu invert", 0);
        const minv_flush flush = minv_flush_subnormals_begin(f.dtype, f.rows, an->norm_1);
        const int info = la_getri(f.dtype, f.rows, f.data, f.ld, ipiv, work, GETRI_BLOCK * f.rows);
        minv_flush_subnormals_end(flush);
        if (info != 0)
            return minv_fail(ctx, info > 0 ? MINV_ERR_SINGULAR : MINV_ERR_INTERNAL, "LAPACK getri returned info = %d", info);
    }
    report->rcond = minv_cpu_rcond(an->norm_1, minv_cpu_write_inverse(&f, 0, x));
    return MINV_SUCCESS;
}

minv_status minv_cpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report) {
    minv_mat f, w;
    int *ipiv;
    double from_factor = 0, *bnorm;
    minv_status status = minv_cpu_factor_input(ctx, a, 0, &f);
    if (status == MINV_SUCCESS)
        status = minv_cpu_pivots(ctx, f.rows, 0, f.dtype, &ipiv, NULL);
    if (status == MINV_SUCCESS) /* first: a NaN in B is named before A's factorisation fails */
        status = minv_cpu_rhs_input(ctx, b, &w, &bnorm);
    if (status == MINV_SUCCESS)
        status = factor(ctx, &f, an->norm_1, ipiv, report, &from_factor);
    if (status != MINV_SUCCESS)
        return status;
    minv_progress(ctx, "lu solve", 0);
    const int small = f.rows <= MINV_SMALL_N;
    if (minv_small_sweeps(f.rows, w.cols)) {
        if (!small) /* the sweeps count LAPACK's pivots from 0 */
            for (int64_t i = 0; i < f.rows; i++) ipiv[i]--;
        minv_small_getrs(f.dtype, f.rows, w.cols, f.data, f.ld, ipiv, w.data, w.ld);
    } else {
        if (small) /* LAPACK counts the small factorisation's pivots from 1 */
            for (int64_t i = 0; i < f.rows; i++) ipiv[i]++;
        if (la_getrs(f.dtype, f.rows, w.cols, f.data, f.ld, ipiv, w.data, w.ld) != 0)
            return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK getrs rejected its arguments");
    }
    minv_cpu_solve_rcond(&f, 0, an->norm_1, fmax(from_factor, minv_cpu_rhs_output(bnorm, &w, x)), &w, x->cols, report);
    return MINV_SUCCESS;
}
