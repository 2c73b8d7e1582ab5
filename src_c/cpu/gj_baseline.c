/* The Gauss-Jordan inversion the iterative paper compares against (its Figures 16 and 17),
 * kept as a baseline: one pivot row at a time over the whole matrix, in place, with partial
 * pivoting (the paper pivots on the diagonal and fails on a zero there; a baseline that
 * returns wrong answers would compare nothing). Each step is a rank-one update, so the
 * method moves n^3 elements through memory where a blocked one moves far fewer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"

#define T double
#define FN(name) name##_d
#include "gj_baseline_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "gj_baseline_t.h"
#undef T
#undef FN

minv_status minv_cpu_gj_baseline_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                        const minv_analysis *an, minv_report *report) {
    const size_t n = (size_t)a->rows;
    int64_t *piv = malloc(n * (sizeof *piv + 2 * sizeof(double)));
    if (!piv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)a->rows);
    void *row = piv + n, *col = (char *)row + n * (size_t)a->dtype;
    minv_mat_copy(a, x);
    int64_t zero = x->dtype == MINV_R64 ? gj_d(x, piv, row, col, ctx->cpu_threads)
                                        : gj_s(x, piv, row, col, ctx->cpu_threads);
    free(piv);
    if (zero >= 0) {
        report->info = zero;
        return minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based)", (long long)zero + 1);
    }
    double xnorm = minv_norm1(x);
    report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
    return MINV_SUCCESS;
}
