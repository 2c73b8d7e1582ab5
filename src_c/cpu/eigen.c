/* Symmetric eigen-decomposition on the CPU (LAPACK syevd) for reconditioning: the eigenvalues,
 * and the inverse (or the solve) with the eigenvalues raised to a floor, from W = V diag(1 /
 * sqrt(lambda')): A'^-1 = W W^T by SYRK, A'^-1 B = W (W^T B) by two GEMMs. */
#include <math.h>
#include <stdlib.h>

#include "cpu.h"
#include "../lapack.h"

minv_status minv_cpu_eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                           minv_mat *x, int *applied) {
    const int64_t n = a->rows;
    const minv_dtype t = a->dtype;
    minv_status status = MINV_SUCCESS;
    minv_mat v = {0}, y = {0};
    void *wt = malloc((size_t)n * (size_t)t);
    if (!wt)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld eigenvalues", (long long)n);
    MINV_TRY(minv_mat_alloc(ctx, &v, t, n, n));
    minv_mat_copy(a, &v);
    int info = la_syevd(t, x ? 'V' : 'N', n, v.data, v.ld, wt);
    if (info == LA_TOO_LARGE) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG,
                           "the eigen-decomposition of order %lld needs a workspace beyond LAPACK's 32-bit sizes on the "
                           "CPU (up to about 32000); the GPU backend takes it",
                           (long long)n);
        goto cleanup;
    }
    if (info != 0) {
        status = minv_fail(ctx, info < 0 ? MINV_ERR_ALLOC : MINV_ERR_NO_CONVERGENCE,
                           "LAPACK syevd returned info = %d (the eigen-decomposition did not converge)", info);
        goto cleanup;
    }
    for (int64_t i = 0; i < n; i++) w[i] = t == MINV_R64 ? ((double *)wt)[i] : (double)((float *)wt)[i];
    const double floor = fraction * w[n - 1];
    if (applied) *applied = 0;
    if (!x || !(w[n - 1] > 0) || !(w[0] < floor))
        goto cleanup;
    *applied = 1;
    /* W = V diag(1 / sqrt(max(lambda, floor))), in place over V */
    for (int64_t j = 0; j < n; j++) {
        const double s = 1 / sqrt(fmax(w[j], floor));
        for (int64_t i = 0; i < n; i++) {
            if (t == MINV_R64) *(double *)minv_at(&v, i, j) *= s;
            else *(float *)minv_at(&v, i, j) *= (float)s;
        }
    }
    if (!b) {
        la_syrk(t, n, n, 1, v.data, v.ld, 0, x->data, x->ld);
        minv_mat_mirror_lower(x);
    } else {
        MINV_TRY(minv_mat_alloc(ctx, &y, t, n, b->cols));
        la_gemm(t, 'T', 'N', n, b->cols, n, 1, v.data, v.ld, b->data, b->ld, 0, y.data, y.ld);
        la_gemm(t, 'N', 'N', n, b->cols, n, 1, v.data, v.ld, y.data, y.ld, 0, x->data, x->ld);
    }
cleanup:
    free(wt);
    minv_mat_free(&v);
    minv_mat_free(&y);
    return status;
}
