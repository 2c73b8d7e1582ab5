/* Blocked Gauss-Jordan elimination with partial pivoting on the CPU (the many-RHS paper's
 * Algorithm 1; src_cuda/gauss_jordan.cu is the GPU half). Per block column K of width w:
 * GETRF of the panel below the rows already done, LASWP of the other columns, TRSM of the
 * pivot rows, and GEMMs that eliminate K from every other row, above and below. Inversion
 * runs in place (2 n^3 flops); a solve eliminates [A | B] and leaves X in B (n^3 + 2 n^2 nrhs).
 * Column-major here: the CPU's row swaps are cheap, unlike the GPU's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "../lapack.h"

static minv_mat view(const minv_mat *m, int64_t i, int64_t j, int64_t rows, int64_t cols) {
    return (minv_mat){m->dtype, rows, cols, m->ld, minv_at(m, i, j)};
}

/* One block column's factors: L11 (unit lower) and U11 share the diagonal block of `lu`,
 * L21 is below it; above = A01 U11^-1 for the k0 rows already done. */
typedef struct {
    int64_t k0, w, n;
    minv_mat lu;    /* the panel from row k0 down: w columns, n - k0 rows */
    minv_mat above; /* k0 x w */
} gj_panel;

/* The GJ update of columns c (rows 0..n-1, pivot rows already interchanged): C_K = U11^-1
 * L11^-1 C_K, and every other row loses its multiple of them. */
static void eliminate_columns(const gj_panel *p, minv_mat *c) {
    const minv_dtype t = c->dtype;
    const int64_t below = p->n - p->k0 - p->w;
    void *ck = minv_at(c, p->k0, 0);
    if (c->cols == 0) return;
    la_trsm(t, 'L', 'L', 'N', 'U', p->w, c->cols, 1, p->lu.data, p->lu.ld, ck, c->ld);
    if (p->k0 > 0)
        la_gemm(t, 'N', 'N', p->k0, c->cols, p->w, -1, p->above.data, p->above.ld, ck, c->ld, 1, c->data, c->ld);
    if (below > 0)
        la_gemm(t, 'N', 'N', below, c->cols, p->w, -1, minv_at(&p->lu, p->w, 0), p->lu.ld, ck, c->ld, 1,
                minv_at(c, p->k0 + p->w, 0), c->ld);
    la_trsm(t, 'L', 'U', 'N', 'N', p->w, c->cols, 1, p->lu.data, p->lu.ld, ck, c->ld);
}

/* Factors the panel of block column k0 of d and interchanges the rows of `others` (count
 * blocks of columns, each with d's rows). Fails on a column without a nonzero pivot. */
static minv_status factor_panel(minv_context *ctx, minv_mat *d, int64_t k0, int64_t w, int *ipiv, minv_mat *work,
                                minv_mat *others, int count, gj_panel *p, minv_report *report) {
    const int64_t n = d->rows;
    p->k0 = k0;
    p->w = w;
    p->n = n;
    p->lu = view(d, k0, k0, n - k0, w);
    int info = la_getrf(d->dtype, n - k0, w, p->lu.data, p->lu.ld, ipiv + k0);
    if (info > 0) {
        report->info = k0 + info - 1;
        return minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based): the matrix is singular",
                         (long long)(k0 + info));
    }
    for (int64_t i = k0; i < k0 + w; i++) ipiv[i] += (int)k0;
    for (int c = 0; c < count; c++)
        if (others[c].cols > 0) la_laswp(d->dtype, others[c].cols, others[c].data, others[c].ld, k0 + 1, k0 + w, ipiv);
    p->above = (minv_mat){d->dtype, k0, w, work->ld, work->data};
    if (k0 > 0) {
        minv_mat a01 = view(d, 0, k0, k0, w);
        minv_mat_copy(&a01, &p->above);
        la_trsm(d->dtype, 'R', 'U', 'N', 'N', k0, w, 1, p->lu.data, p->lu.ld, p->above.data, p->above.ld);
    }
    return MINV_SUCCESS;
}

static void set_identity(minv_mat *m) {
    for (int64_t j = 0; j < m->cols; j++)
        for (int64_t i = 0; i < m->rows; i++) {
            if (m->dtype == MINV_R64) *(double *)minv_at(m, i, j) = i == j;
            else *(float *)minv_at(m, i, j) = (float)(i == j);
        }
}

/* The block size: the context's, else one that keeps the GEMMs near the BLAS's peak. */
static int64_t block_size(const minv_context *ctx, int64_t n) {
    int64_t w = ctx->block_size > 0 ? ctx->block_size : 128;
    return w < n ? w : n;
}

minv_status minv_cpu_gauss_jordan_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                         minv_report *report) {
    const int64_t n = a->rows, nb = block_size(ctx, n);
    const minv_dtype t = a->dtype;
    minv_status status = MINV_SUCCESS;
    minv_mat work = {0}, diag = {0};
    int *ipiv = malloc((size_t)n * sizeof(int));
    if (!ipiv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    MINV_TRY(minv_mat_alloc(ctx, &work, t, n, nb));
    MINV_TRY(minv_mat_alloc(ctx, &diag, t, nb, nb));
    minv_mat_copy(a, x);
    for (int64_t k0 = 0; k0 < n; k0 += nb) {
        const int64_t w = n - k0 < nb ? n - k0 : nb, below = n - k0 - w;
        minv_mat cols[2] = {view(x, 0, 0, n, k0), view(x, 0, k0 + w, n, below)};
        gj_panel p;
        MINV_TRY(factor_panel(ctx, x, k0, w, ipiv, &work, cols, 2, &p, report));
        eliminate_columns(&p, &cols[0]);
        eliminate_columns(&p, &cols[1]);
        /* block column K of the inverse: -A01 A11^-1, A11^-1, -A21 A11^-1 */
        if (k0 > 0) {
            minv_mat top = view(x, 0, k0, k0, w);
            minv_mat_copy(&p.above, &top);
            la_trsm(t, 'R', 'L', 'N', 'U', k0, w, -1, p.lu.data, p.lu.ld, top.data, top.ld);
        }
        if (below > 0)
            la_trsm(t, 'R', 'L', 'N', 'U', below, w, -1, p.lu.data, p.lu.ld, minv_at(x, k0 + w, k0), x->ld);
        minv_mat f = view(&diag, 0, 0, w, w), dkk = view(x, k0, k0, w, w);
        minv_mat_copy(&dkk, &f);
        set_identity(&dkk);
        la_trsm(t, 'L', 'L', 'N', 'U', w, w, 1, f.data, f.ld, dkk.data, dkk.ld);
        la_trsm(t, 'L', 'U', 'N', 'N', w, w, 1, f.data, f.ld, dkk.data, dkk.ld);
        minv_progress(ctx, "gauss-jordan", (double)(k0 + w) / (double)n);
    }
    /* rows were interchanged: A^-1 is the result with its columns interchanged back, last first */
    for (int64_t i = n - 1; i >= 0; i--)
        if (ipiv[i] - 1 != i) {
            const size_t bytes = (size_t)n * (size_t)t;
            void *ci = minv_at(x, 0, i), *cp = minv_at(x, 0, ipiv[i] - 1);
            memcpy(work.data, ci, bytes);
            memcpy(ci, cp, bytes);
            memcpy(cp, work.data, bytes);
        }
    {
        double xnorm = minv_norm1(x);
        report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
    }
cleanup:
    free(ipiv);
    minv_mat_free(&work);
    minv_mat_free(&diag);
    return status;
}

minv_status minv_cpu_gauss_jordan_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                        const minv_analysis *an, minv_report *report) {
    const int64_t n = a->rows, m = b->cols, nb = block_size(ctx, n);
    const minv_dtype t = a->dtype;
    minv_status status = MINV_SUCCESS;
    minv_mat d = {0}, rhs = {0}, work = {0};
    int *ipiv = malloc((size_t)n * sizeof(int));
    if (!ipiv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    MINV_TRY(minv_mat_alloc(ctx, &d, t, n, n));
    MINV_TRY(minv_mat_alloc(ctx, &rhs, t, n, m + 1)); /* B and Hager's vector for the rcond bound */
    MINV_TRY(minv_mat_alloc(ctx, &work, t, n, nb));
    minv_mat_copy(a, &d);
    {
        minv_mat bpart = view(&rhs, 0, 0, n, m);
        minv_mat_copy(b, &bpart);
        for (int64_t i = 0; i < n; i++) {
            if (t == MINV_R64) *(double *)minv_at(&rhs, i, m) = 1.0 / (double)n;
            else *(float *)minv_at(&rhs, i, m) = 1.0f / (float)n;
        }
    }
    for (int64_t k0 = 0; k0 < n; k0 += nb) {
        const int64_t w = n - k0 < nb ? n - k0 : nb;
        minv_mat cols[2] = {view(&d, 0, k0 + w, n, n - k0 - w), rhs};
        gj_panel p;
        MINV_TRY(factor_panel(ctx, &d, k0, w, ipiv, &work, cols, 2, &p, report));
        eliminate_columns(&p, &cols[0]);
        eliminate_columns(&p, &cols[1]);
        minv_progress(ctx, "gauss-jordan", (double)(k0 + w) / (double)n);
    }
    {
        minv_mat xpart = view(&rhs, 0, 0, n, m);
        minv_mat_copy(&xpart, x);
        report->rcond = minv_rcond_from_solution(b, &rhs, an->norm_1);
    }
cleanup:
    free(ipiv);
    minv_mat_free(&d);
    minv_mat_free(&rhs);
    minv_mat_free(&work);
    return status;
}
