/* Mixed-precision solves on the CPU, the engine of refine.c: LAPACK's spotrf or sgetrf on a
 * single-precision copy of A (twice the double rate in the vector units), spotrs or sgetrs for
 * each correction, and the residual b - A x by dgemm on A in double. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "../lapack.h"

typedef struct {
    minv_refine_engine e; /* first: refine.c's callbacks get this struct */
    const minv_mat *a, *b;
    minv_mat *x;
    int spd;          /* Cholesky; 0 once it broke down in single precision and LU took over */
    minv_report *report;
    int64_t cols;     /* nrhs + Hager's column */
    double anorm_inf, anorm_1;
    minv_mat ad;      /* A in double: a itself, or a copy of float data */
    minv_mat f;       /* the single-precision factors */
    int *ipiv;
    minv_mat r, xw;   /* double, n x cols: residual and solution */
    minv_mat w;       /* float, n x cols: the corrections */
    double *norms;    /* cols each: ||b_j||_inf, ||b_j||_1, scale_j */
} cpu_mixed;

static double value(const minv_mat *m, int64_t i, int64_t j) {
    return m->dtype == MINV_R64 ? *(const double *)minv_at(m, i, j) : (double)*(const float *)minv_at(m, i, j);
}

/* dst = src as double (src double or float), column by column. */
static void to_double(const minv_mat *src, minv_mat *dst) {
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < src->cols; j++)
        for (int64_t i = 0; i < src->rows; i++) *(double *)minv_at(dst, i, j) = value(src, i, j);
}

/* f = A in single (the lower triangle for Cholesky), factored. */
static int factor_single(cpu_mixed *m) {
    const int64_t n = m->e.n;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = m->spd ? j : 0; i < n; i++)
            *(float *)minv_at(&m->f, i, j) = (float)*(const double *)minv_at(&m->ad, i, j);
    return m->spd ? la_potrf(MINV_R32, n, m->f.data, m->f.ld) : la_getrf(MINV_R32, n, n, m->f.data, m->f.ld, m->ipiv);
}

static minv_status factor(minv_refine_engine *eng, int level) {
    cpu_mixed *m = (cpu_mixed *)eng;
    minv_context *ctx = eng->ctx;
    int info = factor_single(m);
    (void)level;
    if (info > 0 && m->spd) { /* rounding to single can take a positive definite A of condition
                                 near 1/u_single past the edge: pivoted LU still factors it */
        minv_report_note(m->report, "single-precision Cholesky broke down at column %d (condition near 1e7, or A "
                                    "indefinite), so single-precision LU", info);
        m->report->method = MINV_METHOD_LU;
        m->spd = 0;
        info = factor_single(m);
    }
    if (info > 0)
        return minv_fail(ctx, MINV_ERR_SINGULAR, "single-precision U(%d,%d) is zero", info, info);
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK %s rejected argument %d", m->spd ? "spotrf" : "sgetrf", -info);
    return MINV_SUCCESS;
}

/* r = [b, (1/n, ...)] */
static void load_b(cpu_mixed *m) {
    const int64_t n = m->e.n, k = m->e.nrhs;
    to_double(m->b, &(minv_mat){MINV_R64, n, k, m->r.ld, m->r.data});
    for (int64_t i = 0; i < n; i++) *(double *)minv_at(&m->r, i, k) = 1.0 / (double)n;
}

static double column_norm(const minv_mat *v, int64_t j, int one) {
    double s = 0;
    for (int64_t i = 0; i < v->rows; i++) {
        const double a = fabs(*(const double *)minv_at(v, i, j));
        s = one ? s + a : (a > s || isnan(a) ? a : s);
    }
    return s;
}

static minv_status reset(minv_refine_engine *eng) {
    cpu_mixed *m = (cpu_mixed *)eng;
    load_b(m);
    memset(m->xw.data, 0, (size_t)m->xw.ld * (size_t)m->cols * sizeof(double));
    for (int64_t j = 0; j < m->cols; j++) {
        m->norms[j] = column_norm(&m->r, j, 0);
        m->norms[m->cols + j] = column_norm(&m->r, j, 1);
        m->norms[2 * m->cols + j] = m->norms[j] > 0 ? m->norms[j] : 1;
    }
    return MINV_SUCCESS;
}

/* r = b - A x, and the backward errors of the caller's columns; the next step's scales. */
static void residual(cpu_mixed *m, double *berr) {
    const int64_t n = m->e.n;
    load_b(m);
    la_gemm(MINV_R64, 'N', 'N', n, m->cols, n, -1.0, m->ad.data, m->ad.ld, m->xw.data, m->xw.ld, 1.0, m->r.data,
            m->r.ld);
    for (int64_t j = 0; j < m->cols; j++) {
        const double rn = column_norm(&m->r, j, 0), xn = column_norm(&m->xw, j, 0), den = m->anorm_inf * xn + m->norms[j];
        m->norms[2 * m->cols + j] = rn > 0 && isfinite(rn) ? rn : 1;
        if (j < m->e.nrhs) berr[j] = rn == 0 ? 0 : rn / den;
    }
}

static minv_status step(minv_refine_engine *eng, double *berr) {
    cpu_mixed *m = (cpu_mixed *)eng;
    const int64_t n = eng->n;
    const double *scale = m->norms + 2 * m->cols;
    /* w = r / scale in single (each column at unit size: no underflow), solved in place */
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < m->cols; j++)
        for (int64_t i = 0; i < n; i++)
            *(float *)minv_at(&m->w, i, j) = (float)(*(const double *)minv_at(&m->r, i, j) / scale[j]);
    const int info = m->spd ? la_potrs(MINV_R32, n, m->cols, m->f.data, m->f.ld, m->w.data, m->w.ld)
                            : la_getrs(MINV_R32, n, m->cols, m->f.data, m->f.ld, m->ipiv, m->w.data, m->w.ld);
    if (info != 0)
        return minv_fail(eng->ctx, MINV_ERR_INTERNAL, "LAPACK %s rejected argument %d", m->spd ? "spotrs" : "sgetrs",
                         -info);
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < m->cols; j++)
        for (int64_t i = 0; i < n; i++)
            *(double *)minv_at(&m->xw, i, j) += scale[j] * (double)*(const float *)minv_at(&m->w, i, j);
    residual(m, berr);
    return MINV_SUCCESS;
}

static minv_status finish(minv_refine_engine *eng, double *rcond, double *berr) {
    cpu_mixed *m = (cpu_mixed *)eng;
    const int64_t n = eng->n, k = eng->nrhs;
    double *xnorm = malloc((size_t)m->cols * sizeof(double));
    if (!xnorm)
        return minv_fail(eng->ctx, MINV_ERR_ALLOC, "cannot allocate %lld norms", (long long)m->cols);
    for (int64_t j = 0; j < m->cols; j++) xnorm[j] = column_norm(&m->xw, j, 1);
    *rcond = minv_rcond_lower_bound(m->cols, xnorm, m->norms + m->cols, m->anorm_1);
    free(xnorm);
    if (m->x->dtype == MINV_R32) { /* the caller gets x rounded: report that one's backward error */
        for (int64_t j = 0; j < k; j++)
            for (int64_t i = 0; i < n; i++) {
                double *v = (double *)minv_at(&m->xw, i, j);
                *v = (double)(float)*v;
            }
        residual(m, berr); /* before x is written: b may be x */
    }
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) {
            const double v = *(const double *)minv_at(&m->xw, i, j);
            if (m->x->dtype == MINV_R64) *(double *)minv_at(m->x, i, j) = v;
            else *(float *)minv_at(m->x, i, j) = (float)v;
        }
    return MINV_SUCCESS;
}

static minv_status solve(minv_context *ctx, int spd, const minv_mat *a, const minv_mat *b, minv_mat *x,
                         const minv_analysis *an, minv_report *report) {
    const int64_t n = a->rows, k = b->cols, cols = k + 1;
    minv_status status = MINV_SUCCESS;
    cpu_mixed m = {.a = a, .b = b, .x = x, .spd = spd, .report = report, .cols = cols, .anorm_inf = an->norm_inf,
                   .anorm_1 = an->norm_1};
    m.e = (minv_refine_engine){.ctx = ctx, .n = n, .nrhs = k, .levels = 1,
                               .level_names = {"single-precision"},
                               .factor = factor, .reset = reset, .step = step, .finish = finish};
    if (a->dtype == MINV_R64) {
        m.ad = *a;
    } else {
        MINV_TRY(minv_mat_alloc(ctx, &m.ad, MINV_R64, n, n));
        to_double(a, &m.ad);
    }
    MINV_TRY(minv_mat_alloc(ctx, &m.f, MINV_R32, n, n));
    MINV_TRY(minv_mat_alloc(ctx, &m.r, MINV_R64, n, cols));
    MINV_TRY(minv_mat_alloc(ctx, &m.xw, MINV_R64, n, cols));
    MINV_TRY(minv_mat_alloc(ctx, &m.w, MINV_R32, n, cols));
    m.norms = malloc(3 * (size_t)cols * sizeof(double));
    m.ipiv = malloc((size_t)n * sizeof(int));
    if (!m.norms || !m.ipiv) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "mixed precision: cannot allocate %lld norms and pivots", (long long)n);
        goto cleanup;
    }
    status = minv_refine(ctx, &m.e, report);
cleanup:
    if (m.ad.data != a->data) minv_mat_free(&m.ad);
    minv_mat_free(&m.f);
    minv_mat_free(&m.r);
    minv_mat_free(&m.xw);
    minv_mat_free(&m.w);
    free(m.norms);
    free(m.ipiv);
    return status;
}

minv_status minv_cpu_cholesky_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                          const minv_analysis *an, minv_report *report) {
    return solve(ctx, 1, a, b, x, an, report);
}

minv_status minv_cpu_lu_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *report) {
    return solve(ctx, 0, a, b, x, an, report);
}
