/* General inversion and solve on the CPU: LAPACK getrf with partial pivoting, gecon, then
 * getri (inverse) or getrs (solve). */
#include <stdlib.h>

#include "cpu.h"
#include "lapack.h"

/* Factor P A = L U in place; a zero pivot is reported by its column. */
static minv_status factor(minv_context *ctx, minv_mat *a, const minv_analysis *an, int *ipiv,
                          minv_report *report) {
    minv_progress(ctx, "lu factor", 0);
    int info = la_getrf(a->dtype, a->rows, a->rows, a->data, a->ld, ipiv);
    if (info > 0) {
        report->info = info - 1;
        return minv_fail(ctx, MINV_ERR_SINGULAR,
                         "U(%d,%d) is exactly zero: no pivot in column %d (1-based)", info, info, info);
    }
    if (info < 0 || la_gecon(a->dtype, a->rows, a->data, a->ld, an->norm_1, &report->rcond) != 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK getrf/gecon rejected argument %d", -info);
    return MINV_SUCCESS;
}

static minv_status alloc_pivots(minv_context *ctx, int64_t n, int **ipiv) {
    *ipiv = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    return *ipiv ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
}

minv_status minv_cpu_lu_invert(minv_context *ctx, const minv_mat *in, minv_mat *a,
                               const minv_analysis *an, minv_report *report) {
    int *ipiv = NULL;
    minv_status status = MINV_SUCCESS;
    minv_mat_copy(in, a);
    MINV_TRY(alloc_pivots(ctx, a->rows, &ipiv));
    MINV_TRY(factor(ctx, a, an, ipiv, report));
    minv_progress(ctx, "lu invert", 0);
    int info = la_getri(a->dtype, a->rows, a->data, a->ld, ipiv, NULL, 0);
    if (info != 0)
        status = minv_fail(ctx, info > 0 ? MINV_ERR_SINGULAR : MINV_ERR_ALLOC,
                           "LAPACK getri returned info = %d", info);
    minv_progress(ctx, "lu invert", 1);
cleanup:
    free(ipiv);
    return status;
}

minv_status minv_cpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report) {
    int *ipiv = NULL;
    minv_mat lu = {0};
    minv_status status = MINV_SUCCESS;
    minv_mat_copy(b, x);
    MINV_TRY(alloc_pivots(ctx, a->rows, &ipiv));
    MINV_TRY(minv_mat_alloc(ctx, &lu, a->dtype, a->rows, a->rows));
    minv_mat_copy(a, &lu);
    MINV_TRY(factor(ctx, &lu, an, ipiv, report));
    minv_progress(ctx, "lu solve", 0);
    if (la_getrs(a->dtype, a->rows, x->cols, lu.data, lu.ld, ipiv, x->data, x->ld) != 0)
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK getrs rejected its arguments");
cleanup:
    free(ipiv);
    minv_mat_free(&lu);
    return status;
}
