/* Symmetric positive definite inversion and solve on the CPU: LAPACK potrf, then potri's
 * result (potri.c; mirrored to both triangles) or potrs (solve), on a copy of A in the context's
 * workspace; below MINV_SMALL_N the unblocked kernels of small.c (the sweep operator for
 * the inverse), and small.c's triangular sweeps for a few right-hand sides at any order.
 * Only the lower triangle of A is read. The reciprocal condition
 * number is exact for the inverse (its norm is at hand) and, for a solve, a bound from the
 * factor's diagonal and the solution, with Higham's estimate (pocon's, by the sweeps:
 * estimate.c) where that is small (factor.h). */
#include <math.h>
#include <string.h>

#include "factor.h"
#include "../lapack.h"
#include "small.h"

static minv_status not_spd(minv_context *ctx, int64_t info, minv_report *report) {
    report->info = info - 1;
    return minv_fail(ctx, MINV_ERR_NOT_SPD, "the leading minor of order %lld is not positive definite (column %lld, 1-based)",
                     (long long)info, (long long)info);
}

/* Factor A = L L^T in place (subnormals flushed where ||A||_1 allows: internal.h); on
 * failure the column is reported. Returns, through
 * *inverse_bound, 1 / min l_ii^2, a lower bound on ||A^-1||_2 <= ||A^-1||_1 (the Schur
 * complements' pivots l_ii^2 are at least A's smallest eigenvalue). */
static minv_status factor(minv_context *ctx, minv_mat *f, double norm_1, minv_report *report, double *inverse_bound) {
    minv_progress(ctx, "cholesky factor", 0);
    int64_t info;
    if (f->rows <= MINV_SMALL_N) {
        info = minv_small_potrf(f->dtype, f->rows, f->data, f->ld);
    } else {
        const minv_flush flush = minv_flush_subnormals_begin(f->dtype, f->rows, norm_1);
        info = la_potrf(f->dtype, f->rows, f->data, f->ld);
        minv_flush_subnormals_end(flush);
    }
    if (info > 0)
        return not_spd(ctx, info, report);
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrf rejected argument %lld", (long long)-info);
    if (inverse_bound) {
        const double l = minv_cpu_min_abs_diagonal(f);
        *inverse_bound = 1.0 / (l * l);
    }
    return MINV_SUCCESS;
}

/* Small orders: the sweep operator on the lower triangle (n^3 flops, symmetric by
 * construction), as the batched members take it; its pivots are potrf's, so a failure names
 * the same column. (Gauss-Jordan without pivoting on the mirrored matrix, used before, left
 * ||I - A X|| near cond^2 eps at condition 1e10: test_illcond.) */
static minv_status invert_small(minv_context *ctx, minv_mat *f, minv_report *report) {
    void *work;
    minv_status status = minv_workspace(ctx, MINV_WORK_LAPACK, (size_t)f->rows * (size_t)f->dtype, &work);
    if (status != MINV_SUCCESS)
        return status;
    const int64_t info = minv_small_sweep(f->dtype, f->rows, f->data, f->ld, work);
    return info > 0 ? not_spd(ctx, info, report) : MINV_SUCCESS;
}

minv_status minv_cpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                     const minv_analysis *an, minv_report *report) {
    minv_mat f;
    minv_status status = minv_cpu_factor_input(ctx, a, 1, &f);
    if (status == MINV_SUCCESS)
        status = f.rows <= MINV_SMALL_N ? invert_small(ctx, &f, report) : factor(ctx, &f, an->norm_1, report, NULL);
    if (status != MINV_SUCCESS) /* x untouched: in place, it still holds A for a fallback */
        return status;
    if (f.rows > MINV_SMALL_N) {
        minv_progress(ctx, "cholesky invert", 0);
        const minv_flush flush = minv_flush_subnormals_begin(f.dtype, f.rows, an->norm_1);
        const int info = minv_cpu_potri(f.dtype, f.rows, f.data, f.ld);
        minv_flush_subnormals_end(flush);
        if (info != 0)
            return minv_fail(ctx, info > 0 ? MINV_ERR_SINGULAR : MINV_ERR_INTERNAL, "potri (trtri, lauum) returned info = %d", info);
    }
    report->rcond = minv_cpu_rcond(an->norm_1, minv_cpu_write_inverse(&f, 1, x));
    return MINV_SUCCESS;
}

minv_status minv_cpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                    minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_mat f, w;
    double from_factor = 0, *bnorm;
    minv_status status = minv_cpu_factor_input(ctx, a, 1, &f);
    if (status == MINV_SUCCESS) /* first: a NaN in B is named before A's factorisation fails */
        status = minv_cpu_rhs_input(ctx, b, &w, &bnorm);
    if (status == MINV_SUCCESS)
        status = factor(ctx, &f, an->norm_1, report, &from_factor);
    if (status != MINV_SUCCESS)
        return status;
    minv_progress(ctx, "cholesky solve", 0);
    if (minv_small_sweeps(f.rows, w.cols))
        minv_small_potrs(f.dtype, f.rows, w.cols, f.data, f.ld, w.data, w.ld);
    else if (la_potrs(f.dtype, f.rows, w.cols, f.data, f.ld, w.data, w.ld) != 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrs rejected its arguments");
    minv_cpu_solve_rcond(&f, 1, an->norm_1, fmax(from_factor, minv_cpu_rhs_output(bnorm, &w, x)), &w, x->cols, report);
    return MINV_SUCCESS;
}
