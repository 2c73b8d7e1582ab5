/* Inversion of a principal sub-matrix A(idx, idx), such as the channels of an observation-
 * error covariance that passed quality control, without the caller copying it: the indices
 * are checked, the m x m sub-matrix gathered, and the inversion runs as minv_invert would;
 * positions in its failures are A's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static minv_status gather(minv_context *ctx, const char *fn, int64_t n, const minv_mat *a, int64_t m,
                          const int64_t *idx, minv_mat *sub) {
    minv_status status = MINV_SUCCESS;
    unsigned char *seen = calloc((size_t)n, 1);
    if (!seen)
        return minv_fail(ctx, MINV_ERR_ALLOC, "%s: cannot allocate %lld flags", fn, (long long)n);
    for (int64_t k = 0; k < m; k++) {
        if (idx[k] < 0 || idx[k] >= n) {
            status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 7 (idx): idx(%lld) = %lld is outside 1..%lld (1-based)",
                               fn, (long long)k + 1, (long long)idx[k] + 1, (long long)n);
            goto cleanup;
        }
        if (seen[idx[k]]++) {
            status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 7 (idx): index %lld (1-based) appears twice", fn,
                               (long long)idx[k] + 1);
            goto cleanup;
        }
    }
    MINV_TRY(minv_mat_alloc(ctx, sub, a->dtype, m, m));
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) {
            memcpy(minv_at(sub, i, j), minv_at(a, idx[i], idx[j]), (size_t)a->dtype);
            /* named here, where its place in A is known, rather than by the inner call */
            const double v = a->dtype == MINV_R64 ? *(const double *)minv_at(sub, i, j) : *(const float *)minv_at(sub, i, j);
            if (!isfinite(v)) {
                status = minv_fail_not_finite(ctx, MINV_ON_HOST, "A", a, idx[i], idx[j]);
                goto cleanup;
            }
        }
cleanup:
    free(seen);
    return status;
}

static minv_status subset_entry(minv_context *ctx, const char *fn, minv_method method, minv_dtype t, int64_t n,
                                const void *a, int64_t lda, int64_t m, const int64_t *idx, void *ainv, int64_t ldainv,
                                minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_mat in = {t, n, n, lda, (void *)a}, sub = {0};
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return minv_call_refused(r, status, method, m, 0);
    minv_clear_error(ctx);
    minv_report_init(r, method, m, 0);
    MINV_TRY(minv_check_order(ctx, fn, 3, "n", n));
    MINV_TRY(minv_check_matrix(ctx, fn, a, 4, "a", n, n, lda, "lda", t));
    if (m < 0 || m > n || (!idx && m > 0)) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 6 (m) = %lld must be in 0..n = %lld, with idx not NULL",
                           fn, (long long)m, (long long)n);
        goto cleanup;
    }
    if (m > 0) /* m = 0: minv_invert's quick return, with its checks of the other arguments */
        MINV_TRY(gather(ctx, fn, n, &in, m, idx, &sub));
    status = t == MINV_R64 ? minv_invert_d(ctx, method, m, sub.data, m > 0 ? m : 1, ainv, ldainv, r)
                           : minv_invert_s(ctx, method, m, sub.data, m > 0 ? m : 1, ainv, ldainv, r);
    if (status != MINV_SUCCESS && r->info >= 0 && r->info < m) { /* the inner call's column is A(idx, idx)'s */
        const size_t len = strlen(ctx->last_error);
        snprintf(ctx->last_error + len, sizeof ctx->last_error - len,
                 "; positions above are in A(idx, idx), whose column %lld is A's column %lld (1-based)",
                 (long long)r->info + 1, (long long)idx[r->info] + 1);
        r->info = idx[r->info];
    }
    minv_report_note(r, "principal sub-matrix: %lld of the %lld rows and columns", (long long)m, (long long)n);
cleanup:
    minv_mat_free(&sub);
    minv_context_leave(ctx);
    return status;
}

minv_status minv_invert_subset_d(minv_context *ctx, minv_method method, int64_t n, const double *a, int64_t lda,
                                 int64_t m, const int64_t *idx, double *ainv, int64_t ldainv, minv_report *report) {
    return subset_entry(ctx, "minv_invert_subset_d", method, MINV_R64, n, a, lda, m, idx, ainv, ldainv, report);
}

minv_status minv_invert_subset_s(minv_context *ctx, minv_method method, int64_t n, const float *a, int64_t lda,
                                 int64_t m, const int64_t *idx, float *ainv, int64_t ldainv, minv_report *report) {
    return subset_entry(ctx, "minv_invert_subset_s", method, MINV_R32, n, a, lda, m, idx, ainv, ldainv, report);
}
