/* What the CPU's Cholesky and LU share around their LAPACK calls: the matrix to factor (the
 * copy the analysis left, else one made here), the right-hand sides with the condition
 * estimator's column, and the inverse written out with its norm. All of it lives in the
 * context's workspaces, so a loop of calls allocates nothing after the first. */
#include <math.h>
#include <string.h>

#include "factor.h"
#include "../lapack.h"
#include "vec4.h"

#define T double
#define FN(name) name##_d
#include "factor_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "factor_t.h"
#undef T
#undef FN

/* ||src(:, j)||_1, and the column copied to dst(:, jd) when dst is not NULL: one pass. */
static double copy_norm1(const minv_mat *src, int64_t j, minv_mat *dst, int64_t jd) {
    void *to = dst ? minv_at(dst, 0, jd) : NULL;
    return src->dtype == MINV_R64 ? copy_norm1_d(minv_at(src, 0, j), to, src->rows)
                                  : copy_norm1_s(minv_at(src, 0, j), to, src->rows);
}

minv_status minv_cpu_lapack_fits(minv_context *ctx, int64_t n, int64_t cols) {
    if (n <= MINV_LAPACK_INT_MAX && cols <= MINV_LAPACK_INT_MAX)
        return MINV_SUCCESS;
    return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                     "%lld x %lld is beyond LAPACK's 32-bit integers (at most %d rows or columns) on the CPU; "
                     "split the right-hand sides into calls of fewer columns, or use the GPU backend",
                     (long long)n, (long long)cols, MINV_LAPACK_INT_MAX);
}

minv_status minv_cpu_factor_input(minv_context *ctx, const minv_mat *a, int lower, minv_mat *f) {
    const int64_t n = a->rows;
    minv_status status = minv_cpu_lapack_fits(ctx, n, n);
    if (status != MINV_SUCCESS)
        return status;
    *f = (minv_mat){a->dtype, n, n, minv_cpu_copy_ld(n), minv_cpu_staged(ctx, a)};
    if (f->data) {
        if (!lower) /* rows 0 .. j - 1 of each column j, contiguous in both */
            for (int64_t j = 1; j < n; j++)
                memcpy(minv_at(f, 0, j), minv_at(a, 0, j), (size_t)j * (size_t)a->dtype);
        return MINV_SUCCESS;
    }
    status = minv_workspace(ctx, MINV_WORK_MATRIX, (size_t)f->ld * (size_t)n * (size_t)a->dtype, &f->data);
    if (status == MINV_SUCCESS)
        minv_mat_copy(a, f);
    return status;
}

minv_status minv_cpu_pivots(minv_context *ctx, int64_t n, int64_t work_elements, minv_dtype t, int **ipiv,
                            void **work) {
    const size_t pivots = ((size_t)n * sizeof(int) + 63) / 64 * 64;
    void *p;
    minv_status status = minv_workspace(ctx, MINV_WORK_LAPACK, pivots + (size_t)work_elements * (size_t)t, &p);
    if (status != MINV_SUCCESS)
        return status;
    *ipiv = p;
    if (work)
        *work = (char *)p + pivots;
    return MINV_SUCCESS;
}

/* Column h of w = (1/n, ..., 1/n), Hager's start vector. */
static void hager_start(minv_mat *w, int64_t h) {
    const int64_t n = w->rows;
    for (int64_t i = 0; i < n; i++) {
        if (w->dtype == MINV_R64) ((double *)w->data)[(size_t)h * (size_t)n + (size_t)i] = 1.0 / (double)n;
        else ((float *)w->data)[(size_t)h * (size_t)n + (size_t)i] = 1.0f / (float)n;
    }
}

minv_status minv_cpu_rhs_input(minv_context *ctx, const minv_mat *b, minv_mat *w, double **bnorm) {
    const int64_t n = b->rows, m = b->cols;
    minv_status status = minv_cpu_lapack_fits(ctx, n, m + 1);
    if (status != MINV_SUCCESS)
        return status;
    /* [B | h] and a column for the estimator's signs (minv_cpu_solve_rcond), then B's norms */
    const size_t columns = ((size_t)n * (size_t)(m + 2) * (size_t)b->dtype + 7) / 8 * 8;
    const int hager = n > MINV_RCOND_CHEAP_N;
    status = minv_workspace(ctx, MINV_WORK_RHS, columns + (size_t)m * sizeof(double), &w->data);
    if (status != MINV_SUCCESS)
        return status;
    *bnorm = (double *)((char *)w->data + columns);
    *w = (minv_mat){b->dtype, n, m + hager, n, w->data};
    for (int64_t j = 0; j < m; j++) {
        (*bnorm)[j] = copy_norm1(b, j, w, j);
        if (!isfinite((*bnorm)[j])) { /* a NaN or Inf, or a sum beyond the range that the search clears */
            const minv_mat column = {b->dtype, n, 1, b->ld, minv_at(b, 0, j)};
            int64_t bi, bj;
            double value;
            if (!minv_all_finite(&column, &bi, &bj, &value))
                return minv_fail_not_finite(ctx, MINV_ON_HOST, "B", b, bi, j);
        }
    }
    if (hager)
        hager_start(w, m);
    return MINV_SUCCESS;
}

double minv_cpu_rhs_output(const double *bnorm, const minv_mat *w, minv_mat *x) {
    const int64_t m = x->cols;
    double bound = w->cols > m ? copy_norm1(w, m, NULL, 0) : 0; /* Hager's vector has 1-norm 1 */
    for (int64_t j = 0; j < m; j++) {
        const double xn = copy_norm1(w, j, x, j);
        if (bnorm[j] > 0) bound = fmax(bound, xn / bnorm[j]);
    }
    return bound;
}

double minv_cpu_min_abs_diagonal(const minv_mat *f) {
    double least = INFINITY;
    for (int64_t i = 0; i < f->rows; i++)
        least = fmin(least, fabs(f->dtype == MINV_R64 ? *(const double *)minv_at(f, i, i)
                                                      : (double)*(const float *)minv_at(f, i, i)));
    return least;
}

double minv_cpu_rcond(double anorm_1, double inverse_norm_1) {
    if (!(inverse_norm_1 > 0) || !isfinite(inverse_norm_1) || !(anorm_1 > 0))
        return 0;
    return fmin(1, 1.0 / (anorm_1 * inverse_norm_1)); /* rounding may pass 1 */
}

void minv_cpu_solve_rcond(const minv_mat *f, int spd, double anorm_1, double inverse_bound, minv_mat *w, int64_t nrhs,
                          minv_report *report) {
    const int cheap = w->cols == nrhs; /* no Hager's column */
    const double bound = minv_cpu_rcond(anorm_1, inverse_bound);
    report->rcond = bound;
    if (bound == 0 || bound >= MINV_RCOND_ESTIMATE_BELOW) {
        if (cheap)
            minv_report_note_text(report, "rcond: the cheap form, a bound from the factor's diagonal and the solution (order <= 128)");
        return;
    }
    const int64_t n = w->rows;
    if (minv_rcond_exact_applies(n, spd)) {
        report->rcond = fmin(bound, minv_cpu_rcond(anorm_1, minv_cpu_inverse_norm_exact(f, spd)));
        minv_report_note_text(report, MINV_NOTE_RCOND_EXACT);
        return;
    }
    /* Hager's column (solved with B, the estimator's first step; in the cheap form solved now),
     * then one for the signs */
    void *h = (char *)w->data + (size_t)nrhs * (size_t)n * (size_t)w->dtype;
    if (cheap)
        hager_start(w, nrhs);
    const double estimate = minv_cpu_rcond(anorm_1, minv_cpu_inverse_norm_estimate(f, spd, h, !cheap,
                                                                                   (char *)h + (size_t)n * (size_t)w->dtype));
    report->rcond = fmin(bound, estimate); /* both overstate rcond, if at all */
    /* a fixed text: formatting the bound into it took a microsecond, 20% of a call at n = 8 */
    minv_report_note_text(report, MINV_NOTE_RCOND_ESTIMATED);
}

double minv_cpu_write_inverse(const minv_mat *f, int lower_only, minv_mat *x) {
    return f->dtype == MINV_R64 ? write_inverse_d(f, lower_only, x) : write_inverse_s(f, lower_only, x);
}
