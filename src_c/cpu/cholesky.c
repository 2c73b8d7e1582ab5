/* Symmetric positive definite inversion and solve on the CPU: LAPACK potrf, pocon, then
 * potri (inverse, mirrored to both triangles) or potrs (solve). Only the lower triangle of A
 * is read. */
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "lapack.h"

/* potrf overwrites the lower triangle and the diagonal; the strict upper triangle still holds
 * A, so A is restored from it and the saved diagonal. */
static void restore_from_upper(minv_mat *a, const void *diag) {
    const size_t es = (size_t)a->dtype;
    for (int64_t j = 0; j < a->rows; j++) {
        memcpy(minv_at(a, j, j), (const char *)diag + (size_t)j * es, es);
        for (int64_t i = j + 1; i < a->rows; i++)
            memcpy(minv_at(a, i, j), minv_at(a, j, i), es);
    }
}

/* Factor A = L L^T in place and estimate its condition; on failure the column is reported. */
static minv_status factor(minv_context *ctx, minv_mat *a, const minv_analysis *an,
                          minv_report *report) {
    minv_progress(ctx, "cholesky factor", 0);
    int info = la_potrf(a->dtype, a->rows, a->data, a->ld);
    if (info > 0) {
        report->info = info - 1;
        return minv_fail(ctx, MINV_ERR_NOT_SPD,
                         "the leading minor of order %d is not positive definite (column %d, 1-based)",
                         info, info);
    }
    if (info < 0 || la_pocon(a->dtype, a->rows, a->data, a->ld, an->norm_1, &report->rcond) != 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrf/pocon rejected argument %d", -info);
    return MINV_SUCCESS;
}

minv_status minv_cpu_cholesky_invert(minv_context *ctx, const minv_mat *in, minv_mat *a,
                                     const minv_analysis *an, minv_report *report) {
    const size_t es = (size_t)a->dtype;
    minv_mat_copy(in, a);
    minv_status status = MINV_SUCCESS;
    void *diag = malloc((size_t)a->rows * es);
    if (!diag)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the saved diagonal");
    for (int64_t j = 0; j < a->rows; j++)
        memcpy((char *)diag + (size_t)j * es, minv_at(a, j, j), es);

    status = factor(ctx, a, an, report);
    if (status == MINV_ERR_NOT_SPD) {
        restore_from_upper(a, diag);
        goto cleanup;
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    minv_progress(ctx, "cholesky invert", 0);
    int info = la_potri(a->dtype, a->rows, a->data, a->ld);
    if (info != 0) {
        status = minv_fail(ctx, info > 0 ? MINV_ERR_SINGULAR : MINV_ERR_INTERNAL,
                           "LAPACK potri returned info = %d", info);
        goto cleanup;
    }
    minv_mat_mirror_lower(a);
    minv_progress(ctx, "cholesky invert", 1);
cleanup:
    free(diag);
    return status;
}

minv_status minv_cpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                    minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_mat l;
    minv_mat_copy(b, x);
    minv_status status = minv_mat_alloc(ctx, &l, a->dtype, a->rows, a->rows);
    if (status != MINV_SUCCESS)
        return status;
    minv_mat_copy(a, &l);
    MINV_TRY(factor(ctx, &l, an, report));
    minv_progress(ctx, "cholesky solve", 0);
    if (la_potrs(a->dtype, a->rows, x->cols, l.data, l.ld, x->data, x->ld) != 0)
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK potrs rejected its arguments");
cleanup:
    minv_mat_free(&l);
    return status;
}
