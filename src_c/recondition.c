/* Reconditioning of symmetric matrices (MINV_OPT_RECONDITION), as DA systems do for
 * observation-error covariances (Weston et al. 2014, Tabeart et al. 2020): A is replaced by
 * a nearby SPD matrix A' with cond_2(A') = T, the target. The ridge adds delta I, delta =
 * (lambda_max - T lambda_min) / (T - 1); the floor raises every eigenvalue below
 * lambda_max / T to it. Both need A's eigenvalues, from the backend's eigen op where the
 * data lives (the CPU's where the backend has none). */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

/* The eigen op where the data lives; the CPU's where the backend has none or runs out of
 * device memory, and the report says so. */
static minv_status eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                         minv_mat *x, int *applied, minv_report *report) {
    const minv_backend_ops *ops = ctx->ops->eigen ? ctx->ops : &minv_cpu_backend;
    const minv_status status = ops->eigen(ctx, a, w, fraction, b, x, applied);
    if (!minv_fall_back_to_cpu(ctx, status, MINV_ON_HOST, 1, "the eigen-decomposition", &ops,
                               (minv_report_sink){report->reason, &report->fallbacks, NULL}))
        return status;
    return ops->eigen(ctx, a, w, fraction, b, x, applied);
}

static void add_to_diagonal(minv_mat *m, double delta) {
    for (int64_t i = 0; i < m->rows; i++) {
        if (m->dtype == MINV_R64) *(double *)minv_at(m, i, i) += delta;
        else *(float *)minv_at(m, i, i) += (float)delta;
    }
}

minv_status minv_recondition_apply(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                             minv_mat *shifted, int *done, minv_report *report) {
    const int64_t n = a->rows;
    const double target = ctx->target_condition;
    minv_status status = MINV_SUCCESS;
    double *w = malloc((size_t)n * sizeof(double));
    *done = 0;
    if (!w)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld eigenvalues", (long long)n);
    /* the floor's result comes from the same decomposition as the eigenvalues */
    const int floor_mode = ctx->recondition == MINV_RECONDITION_FLOOR;
    int applied = 0;
    MINV_TRY(eigen(ctx, a, w, 1 / target, b, floor_mode ? x : NULL, &applied, report));
    /* the 2-norm condition max|lambda| / min|lambda|, finite for an indefinite A too */
    double amin = INFINITY;
    for (int64_t i = 0; i < n; i++) amin = fmin(amin, fabs(w[i]));
    const double lmin = w[0], lmax = w[n - 1], cond = amin > 0 ? fmax(-lmin, lmax) / amin : INFINITY;
    report->condition_before = report->condition_after = cond;
    if (!(lmax > 0)) {
        status = minv_fail(ctx, MINV_ERR_NOT_SPD,
                           "reconditioning needs a positive largest eigenvalue; lambda_max = %.3g", lmax);
        goto cleanup;
    }
    if (lmin > 0 && cond <= target) { /* an indefinite A is reconditioned whatever its condition */
        minv_report_note(report, "reconditioning: condition number %.3g is already within the target %.3g; A unchanged",
                         cond, target);
        goto cleanup;
    }
    if (ctx->recondition == MINV_RECONDITION_RIDGE) {
        const double delta = (lmax - target * lmin) / (target - 1);
        MINV_TRY(minv_mat_alloc(ctx, shifted, a->dtype, n, n));
        minv_mat_copy(a, shifted);
        add_to_diagonal(shifted, delta);
        report->recondition = MINV_RECONDITION_RIDGE;
        report->recondition_shift = delta;
        report->condition_after = target;
        minv_report_note(report, "reconditioned by ridge: delta = %.6g added to the diagonal, condition number %.3g -> %.3g",
                         delta, cond, target);
    } else {
        const double floor = lmax / target;
        int64_t raised = 0;
        while (raised < n && w[raised] < floor) raised++;
        *done = applied;
        report->recondition = MINV_RECONDITION_FLOOR;
        report->recondition_shift = floor;
        report->condition_after = target;
        report->method = MINV_METHOD_AUTO;
        report->rcond = 1 / target;
        report->flops = (b ? 4.0 : 3.0 + 1.0) * (double)n * n * n + (b ? 4.0 * n * n * (double)b->cols : 0);
        minv_report_note(report,
                         "reconditioned by eigenvalue floor: %lld of %lld eigenvalues raised to lambda_max / %.3g = %.6g, "
                         "condition number %.3g -> %.3g; the result is V diag(1/lambda') V^T%s (rcond is 1/cond_2; no "
                         "residual, A' is not formed)",
                         (long long)raised, (long long)n, target, floor, cond, target, b ? " B" : "");
    }
cleanup:
    free(w);
    return status;
}
