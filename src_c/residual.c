/* Residuals for the report. The sampled kind costs O(n^2) per probe and is the default; the
 * full kind costs a GEMM and is for users (and tests) that want the LAPACK-tester ratio. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lapack.h"
#include "internal.h"

#define T double
#define FN(name) name##_d
#include "residual_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "residual_t.h"
#undef T
#undef FN

void minv_gemv_double(const minv_mat *m, const double *x, double *y, double *rowabs) {
    if (m->dtype == MINV_R64) gemv_double_d(m, x, y, rowabs);
    else gemv_double_s(m, x, y, rowabs);
}

void minv_gemv_double_multi(const minv_mat *m, const double *x, int k, double *y, double *rowabs) {
    if (m->dtype == MINV_R64) gemv_multi_d(m, x, k, y, rowabs);
    else gemv_multi_s(m, x, k, y, rowabs);
}

static void gemv_sym_multi(const minv_mat *m, const double *x, int k, double *y) {
    if (m->dtype == MINV_R64) gemv_sym_multi_d(m, x, k, y);
    else gemv_sym_multi_s(m, x, k, y);
}

static void column_to_double(const minv_mat *m, int64_t j, double *out) {
    if (m->dtype == MINV_R64) column_to_double_d(m, j, out);
    else column_to_double_s(m, j, out);
}

/* max |v_i|, NaN if any v_i is. */
static double norm_inf(const double *v, int64_t n) {
    double r = 0, nan = 0; /* nan a double: an int flag keeps the loop from vectorising */
#pragma omp simd reduction(max : r, nan)
    for (int64_t i = 0; i < n; i++) {
        const double a = fabs(v[i]);
        r = a > r ? a : r;
        nan = a != a ? 1 : nan;
    }
    return nan > 0 ? NAN : r;
}

/* num / den where 0 / 0 means an exact result, not NaN. */
static double ratio(double num, double den) { return num == 0 ? 0 : num / den; }

void minv_probe_vectors(double *v, int64_t n, int count) {
    /* Fixed pseudo-random signs: reproducible, and no structure for an error to hide in. */
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int64_t k = 0; k < n * count; k++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v[k] = (state >> 63) ? 1.0 : -1.0;
    }
}

double minv_probe_ratio(int64_t n, int count, const double *v, const double *w, double xnorm_inf,
                        double anorm_inf) {
    double worst = 0;
    for (int k = 0; k < count; k++) {
        const double *vk = v + (size_t)k * n, *wk = w + (size_t)k * n;
        double diff = 0, nan = 0;
#pragma omp simd reduction(max : diff, nan)
        for (int64_t i = 0; i < n; i++) {
            const double d = fabs(wk[i] - vk[i]);
            diff = d > diff ? d : diff;
            nan = d != d ? 1 : nan;
        }
        if (nan > 0) diff = NAN;
        double r = ratio(diff, xnorm_inf * anorm_inf * norm_inf(vk, n));
        if (r > worst || isnan(r)) worst = r;
    }
    return worst;
}

double minv_solve_column_ratio(int64_t n, const double *ax_minus_b, const double *x,
                               const double *b, double anorm_inf) {
    double r = 0, xm = 0, bm = 0, nan = 0; /* the three max norms in one pass */
#pragma omp simd reduction(max : r, xm, bm, nan)
    for (int64_t i = 0; i < n; i++) {
        const double a = fabs(ax_minus_b[i]), c = fabs(x[i]), d = fabs(b[i]);
        r = a > r ? a : r;
        xm = c > xm ? c : xm;
        bm = d > bm ? d : bm;
        nan = a != a || c != c || d != d ? 1 : nan;
    }
    return nan > 0 ? NAN : ratio(r, anorm_inf * xm + bm);
}

int64_t minv_residual_columns(int mode, int64_t nrhs) { return mode == 2 || nrhs <= 4 ? nrhs : 4; }

int64_t minv_residual_column(int64_t s, int64_t count, int64_t nrhs) {
    return count == nrhs ? s : s * (nrhs - 1) / (count - 1);
}

minv_status minv_probes_make(minv_context *ctx, const minv_mat *a, const minv_analysis *an,
                             minv_probes *p) {
    const int64_t n = a->rows;
    p->count = MINV_PROBES;
    p->anorm_inf = an->norm_inf;
    p->borrowed = 0;
    if (ctx && ctx->stage.probes_of == a->data) { /* the CPU analysis computed A v on its pass */
        p->v = ctx->work[MINV_WORK_PROBES].data;
        p->av = p->v + (size_t)n * MINV_PROBES;
        p->borrowed = 1;
        return MINV_SUCCESS;
    }
    p->v = malloc((size_t)n * MINV_PROBES * sizeof(double));
    p->av = malloc((size_t)n * MINV_PROBES * sizeof(double));
    if (!p->v || !p->av) {
        minv_probes_free(p);
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate residual probes");
    }
    minv_probe_vectors(p->v, n, MINV_PROBES);
    minv_gemv_double_multi(a, p->v, MINV_PROBES, p->av, NULL);
    return MINV_SUCCESS;
}

void minv_probes_free(minv_probes *p) {
    if (!p->borrowed) {
        free(p->v);
        free(p->av);
    }
    p->v = p->av = NULL;
}

/* max over probes of ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf), one pass over X;
 * -1 without memory. */
double minv_residual_inverse_sampled(const minv_mat *x, const minv_probes *p) {
    const int64_t n = x->rows;
    double *w = malloc((size_t)n * (size_t)(p->count + 1) * sizeof(double)), *rowabs = w + (size_t)n * p->count;
    double worst = -1;
    if (w) {
        minv_gemv_double_multi(x, p->av, (int)p->count, w, rowabs);
        worst = minv_probe_ratio(n, (int)p->count, p->v, w, norm_inf(rowabs, n), p->anorm_inf);
    }
    free(w);
    return worst;
}

double minv_norm1(const minv_mat *m) {
    double worst = 0;
    for (int64_t j = 0; j < m->cols; j++) {
        double s = 0;
        for (int64_t i = 0; i < m->rows; i++)
            s += m->dtype == MINV_R64 ? fabs(*(const double *)minv_at(m, i, j))
                                      : fabs((double)*(const float *)minv_at(m, i, j));
        if (s > worst || isnan(s)) worst = s;
    }
    return worst;
}

/* ||I - A X||_1 / (n ||A||_1 ||X||_1), with A X formed by GEMM in the working precision. */
minv_status minv_residual_inverse_full(minv_context *ctx, const minv_mat *a, const minv_mat *x,
                                       double anorm_1, double *residual) {
    const int64_t n = a->rows;
    minv_mat r;
    minv_status status = minv_mat_alloc(ctx, &r, a->dtype, n, n);
    if (status != MINV_SUCCESS)
        return status;
    la_gemm(a->dtype, 'N', 'N', n, n, n, 1.0, a->data, a->ld, x->data, x->ld, 0.0, r.data, r.ld);
    for (int64_t i = 0; i < n; i++) {
        if (r.dtype == MINV_R64) *(double *)minv_at(&r, i, i) -= 1.0;
        else *(float *)minv_at(&r, i, i) -= 1.0f;
    }
    *residual = minv_norm1(&r) / ((double)n * anorm_1 * minv_norm1(x));
    minv_mat_free(&r);
    return MINV_SUCCESS;
}

/* Below this order A is in cache, and the plain product, which vectorises down its columns, is
 * faster than the lower triangle's (a whole solve with one right-hand side, one thread:
 * n = 8 0.663 -> 0.624 us, 16 1.14 -> 1.03, 29 2.26 -> 2.16). */
enum { MINV_SYM_RESIDUAL_MIN = 64 };

/* max over columns j of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf): all
 * columns (mode 2) or up to four spread over them (mode 1), in double: MINV_GEMV_MAX columns a
 * pass over A (over its lower triangle where A is exactly symmetric and not small), but by one
 * GEMM for more columns of double data (mode 2). anorm_inf < 0: not known yet. */

minv_status minv_residual_solve_norm(minv_context *ctx, int mode, const minv_mat *a, double anorm_inf, int symmetric,
                                     const minv_mat *b, const minv_mat *x, double *residual) {
    const int64_t n = a->rows, k = x->cols;
    const int64_t samples = minv_residual_columns(mode, k);
    /* below n = 64, the BLAS's set-up costs more than the product */
    const int by_gemm = a->dtype == MINV_R64 && n >= 64 && samples > MINV_GEMV_MAX;
    const int64_t group_max = by_gemm ? samples : MINV_GEMV_MAX;
    /* small calls' columns on the stack: malloc and free were 3% of a call at n = 8 */
    enum { ON_STACK = 1024 };
    double on_stack[ON_STACK];
    const size_t need = (size_t)n * (size_t)(3 * group_max + 1);
    double *const buffer = need <= ON_STACK ? on_stack : malloc(need * sizeof(double)), *xs = buffer;
    if (!buffer)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate residual workspace");
    double *bs = xs + (size_t)n * (size_t)group_max, *ax = bs + (size_t)n * (size_t)group_max;
    double *rowabs = ax + (size_t)n * (size_t)group_max, worst = 0;
    if (anorm_inf < 0) {
        memset(xs, 0, (size_t)n * sizeof(double)); /* only the row sums count: a defined product */
        minv_gemv_double(a, xs, ax, rowabs);
        anorm_inf = norm_inf(rowabs, n);
    }
    /* double columns side by side where they are (every column sampled, leading dimension n),
     * else copied */
    const int in_place = a->dtype == MINV_R64 && samples == k && x->ld == n && b->ld == n;
    for (int64_t s0 = 0; s0 < samples; s0 += group_max) {
        const int64_t group = samples - s0 < group_max ? samples - s0 : group_max;
        if (in_place) {
            xs = (double *)minv_at(x, 0, s0);
            bs = (double *)minv_at(b, 0, s0);
        }
        for (int64_t g = 0; g < group && !in_place; g++) {
            const int64_t j = minv_residual_column(s0 + g, samples, k);
            column_to_double(x, j, xs + (size_t)g * (size_t)n);
            column_to_double(b, j, bs + (size_t)g * (size_t)n);
        }
        if (by_gemm)
            la_gemm(MINV_R64, 'N', 'N', n, group, n, 1.0, a->data, a->ld, xs, n, 0.0, ax, n);
        else if (symmetric && n >= MINV_SYM_RESIDUAL_MIN)
            gemv_sym_multi(a, xs, (int)group, ax);
        else
            minv_gemv_double_multi(a, xs, (int)group, ax, NULL);
        for (int64_t g = 0; g < group; g++) {
            double *axg = ax + (size_t)g * (size_t)n;
            const double *xg = xs + (size_t)g * (size_t)n, *bg = bs + (size_t)g * (size_t)n;
            for (int64_t i = 0; i < n; i++) axg[i] -= bg[i];
            const double r = minv_solve_column_ratio(n, axg, xg, bg, anorm_inf);
            if (r > worst || isnan(r)) worst = r;
        }
    }
    *residual = worst;
    if (buffer != on_stack)
        free(buffer);
    return MINV_SUCCESS;
}

minv_status minv_residual_solve(minv_context *ctx, int mode, const minv_mat *a,
                                const minv_mat *b, const minv_mat *x, double *residual) {
    return minv_residual_solve_norm(ctx, mode, a, -1, 0, b, x, residual);
}

double minv_rcond_lower_bound(int64_t count, const double *xnorm_1, const double *bnorm_1, double anorm_1) {
    double est = 0;
    for (int64_t j = 0; j < count; j++)
        if (bnorm_1[j] > 0 && isfinite(xnorm_1[j])) est = fmax(est, xnorm_1[j] / bnorm_1[j]);
    return minv_cpu_rcond(anorm_1, est);
}

double minv_rcond_from_solution(const minv_mat *b, const minv_mat *x, double anorm_1) {
    const int64_t m = b->cols;
    double *norms = malloc(2 * (size_t)(m + 1) * sizeof(double));
    if (!norms) return -1;
    for (int64_t j = 0; j <= m; j++) {
        minv_mat xj = {x->dtype, x->rows, 1, x->ld, minv_at(x, 0, j)};
        norms[j] = minv_norm1(&xj);
        norms[m + 1 + j] = 1;
        if (j < m) {
            minv_mat bj = {b->dtype, b->rows, 1, b->ld, minv_at(b, 0, j)};
            norms[m + 1 + j] = minv_norm1(&bj);
        }
    }
    double r = minv_rcond_lower_bound(m + 1, norms, norms + m + 1, anorm_1);
    free(norms);
    return r;
}
