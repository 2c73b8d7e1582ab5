/* Symmetric positive definite inversion and solve on the CPU: LAPACK potrf, then potri
 * (inverse, mirrored to both triangles) or potrs (solve), on a copy of A in the context's
 * workspace. Only the lower triangle of A is read. The reciprocal condition number is exact
 * for the inverse (its norm is at hand) and, for a solve, estimated from the factor's
 * diagonal and the solution (factor.h), which costs nothing beside the solve: LAPACK's pocon
 * would cost more than the factorisation below n = 128 and half of it at 256. */
#include <math.h>

#include "factor.h"
#include "lapack.h"

/* Factor A = L L^T in place; on failure the column is reported. Returns, through
 * *inverse_bound, 1 / min l_ii^2, a lower bound on ||A^-1||_2 <= ||A^-1||_1 (the Schur
 * complements' pivots l_ii^2 are at least A's smallest eigenvalue). */
static minv_status factor(minv_context *ctx, minv_mat *f, minv_report *report, double *inverse_bound) {
    int info = la_potrf(f->dtype, f->rows, f->data, f->ld);
    if (info > 0) {
        report->info = info - 1;
        return minv_fail(ctx, MINV_ERR_NOT_SPD,
                         "the leading minor of order %d is not positive definite (column %d, 1-based)",
                         info, info);
    }
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrf rejected argument %d", -info);
    if (inverse_bound) {
        double smallest = INFINITY;
        for (int64_t i = 0; i < f->rows; i++) {
            const double l = f->dtype == MINV_R64 ? ((const double *)f->data)[(size_t)i * (size_t)f->ld + (size_t)i]
                                                  : (double)((const float *)f->data)[(size_t)i * (size_t)f->ld + (size_t)i];
            smallest = fmin(smallest, l * l);
        }
        *inverse_bound = 1.0 / smallest;
    }
    return MINV_SUCCESS;
}

minv_status minv_cpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                     const minv_analysis *an, minv_report *report) {
    minv_mat f;
    minv_status status = minv_cpu_factor_input(ctx, a, &f);
    if (status == MINV_SUCCESS)
        status = factor(ctx, &f, report, NULL);
    if (status != MINV_SUCCESS) /* x untouched: in place, it still holds A for a fallback */
        return status;
    int info = la_potri(f.dtype, f.rows, f.data, f.ld);
    if (info != 0)
        return minv_fail(ctx, info > 0 ? MINV_ERR_SINGULAR : MINV_ERR_INTERNAL, "LAPACK potri returned info = %d", info);
    report->rcond = minv_cpu_rcond(an->norm_1, minv_cpu_write_inverse(&f, 1, x));
    return MINV_SUCCESS;
}

minv_status minv_cpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                    minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_mat f, w;
    double from_factor = 0;
    minv_status status = minv_cpu_factor_input(ctx, a, &f);
    if (status == MINV_SUCCESS)
        status = factor(ctx, &f, report, &from_factor);
    if (status == MINV_SUCCESS)
        status = minv_cpu_rhs_input(ctx, b, &w);
    if (status != MINV_SUCCESS)
        return status;
    if (la_potrs(f.dtype, f.rows, w.cols, f.data, f.ld, w.data, w.ld) != 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrs rejected its arguments");
    report->rcond = minv_cpu_rcond(an->norm_1, fmax(from_factor, minv_cpu_rhs_output(b, &w, x)));
    return MINV_SUCCESS;
}
