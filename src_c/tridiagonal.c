/* Tridiagonal inversion: the entry points (band arrays on the host or the device, and the
 * MINV_METHOD_TRIDIAGONAL ops of minv_invert, which extract the bands of a dense A), and the
 * plan. The plan reads the bands once in O(n): norms, dominance, the path and why, and the
 * path's recurrences; a backend then writes the n^2 entries. Residuals of host results are
 * computed here, the GPU's where its data lives. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapack.h"
#include "tridiagonal.h"

enum { WHY_LEN = 256 };

/* ---- the bands ---- */

static double band_value(minv_dtype t, const void *p, int64_t k) {
    return t == MINV_R64 ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

/* dst[k] = src[k] in double for k < count, zero up to n (a band padded to n entries); the
 * first non-finite value fails with its 1-based index. */
static minv_status load_band(minv_context *ctx, minv_dtype t, const void *src, int64_t count,
                             int64_t n, const char *name, const char *what, double *dst) {
    for (int64_t k = 0; k < n; k++) {
        dst[k] = k < count ? band_value(t, src, k) : 0.0;
        if (!isfinite(dst[k]))
            return minv_fail(ctx, MINV_ERR_NOT_FINITE, "%s(%lld) = %g (1-based) is the first non-finite entry of the %s",
                             name, (long long)k + 1, dst[k], what);
    }
    return MINV_SUCCESS;
}

/* The first row (by_rows) or column where |d| < the sum of the off-diagonal magnitudes, or
 * -1 (weakly diagonally dominant); *strict: some row or column dominates strictly. */
static int64_t not_dominant(const minv_tri_plan *p, int by_rows, int *strict) {
    *strict = 0;
    for (int64_t i = 0; i < p->n; i++) {
        double off = by_rows ? (i > 0 ? fabs(p->dl[i - 1]) : 0.0) + fabs(p->du[i])
                             : (i > 0 ? fabs(p->du[i - 1]) : 0.0) + fabs(p->dl[i]);
        if (fabs(p->d[i]) < off)
            return i;
        *strict |= fabs(p->d[i]) > off;
    }
    return -1;
}

/* ---- write-once ---- */

/* f_k = theta_k / theta_k-1 (LU pivots, top down), g_k = phi_k / phi_k+1 (bottom up), and the
 * diagonal of A^-1, D_k = 1 / (f_k + g_k - d_k). 0 when a pivot or D_k is zero or not
 * finite (weak dominance and a vanishing pivot mean A is singular). */
static int pivots(const minv_tri_plan *p, double *f, double *g, double *diag) {
    const int64_t n = p->n;
    f[0] = p->d[0];
    g[n - 1] = p->d[n - 1];
    for (int64_t k = 1; k < n; k++) { /* the two chains of divisions overlap */
        const int64_t b = n - 1 - k;
        f[k] = p->d[k] - p->dl[k - 1] * p->du[k - 1] / f[k - 1];
        g[b] = p->d[b] - p->du[b] * p->dl[b] / g[b + 1];
    }
    for (int64_t k = 0; k < n; k++) {
        diag[k] = 1.0 / (f[k] + g[k] - p->d[k]);
        if (!(f[k] != 0 && g[k] != 0 && isfinite(f[k]) && isfinite(g[k]) && isfinite(diag[k]) && diag[k] != 0))
            return 0;
    }
    return 1;
}

/* The generators of minv_tri_gen. Dominance by rows bounds the column ratios by 1, so each
 * entry is D_j times a product down or up its column (column-anchored); dominance by columns
 * bounds the row ratios, so each is D_i times a product along its row. */
static void write_once_fill(minv_tri_plan *p, const double *f, const double *g, double *diag, int by_rows,
                            double *mup, double *mlo, double *su, double *pl, double *anchor, double *scratch) {
    const int64_t n = p->n, T = MINV_TRI_TILE, nt = (n + T - 1) / T;
    const double *dl = p->dl, *du = p->du;
    mup[0] = mlo[n - 1] = 1.0;
    for (int64_t j = 1; j < n; j++) mup[j] = -du[j - 1] / (by_rows ? f[j - 1] : g[j]);
    for (int64_t j = 0; j + 1 < n; j++) mlo[j] = -dl[j] / (by_rows ? g[j + 1] : f[j]);
    for (int64_t r0 = 0; r0 < n; r0 += T) {
        const int64_t end = r0 + T < n ? r0 + T : n;
        su[end - 1] = 1.0;
        for (int64_t i = end - 2; i >= r0; i--) su[i] = mup[i + 1] * su[i + 1];
        pl[r0] = 1.0;
        for (int64_t i = r0 + 1; i < end; i++) pl[i] = pl[i - 1] * mlo[i - 1];
    }
    /* tile products, then the anchors as running products from each tile row outwards */
    double *tup = scratch, *tlo = scratch + nt;
    for (int64_t m = 0; m < nt; m++) {
        tup[m] = tlo[m] = 1.0;
        for (int64_t j = m * T; j < (m + 1) * T && j < n; j++) {
            tup[m] *= mup[j];
            tlo[m] *= mlo[j];
        }
    }
    for (int64_t tr = 0; tr < nt; tr++) {
        double a = 1.0;
        for (int64_t mc = tr + 1; mc < nt; mc++) {
            anchor[tr + mc * nt] = a;
            a *= tup[mc];
        }
        a = 1.0;
        for (int64_t mc = tr; mc >= 0; mc--) {
            anchor[tr + mc * nt] = a;
            if (mc > 0) a *= tlo[mc - 1];
        }
    }
    p->gen = (minv_tri_gen){n, nt, by_rows ? NULL : diag, by_rows ? diag : NULL, mup, mlo, su, pl, anchor};
    /* ||A^-1||_1: column j sums |D_j| times the products of the column ratios
     * U_j-1 = -du_j-1 / f_j-1 upwards and L_j+1 = -dl_j / g_j+1 downwards, each a recurrence */
    double *down = scratch;
    down[n - 1] = 0.0;
    for (int64_t j = n - 2; j >= 0; j--) down[j] = fabs(dl[j] / g[j + 1]) * (1.0 + down[j + 1]);
    double up = 0.0;
    p->xnorm_1 = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (j > 0) up = fabs(du[j - 1] / f[j - 1]) * (1.0 + up);
        double s = fabs(diag[j]) * (1.0 + up + down[j]);
        if (s > p->xnorm_1 || isnan(s)) p->xnorm_1 = s;
    }
    p->flops = 2.0 * (double)n * (double)n;
}

/* ---- Sherman-Morrison ---- */

/* The paper's conditions: nonzero off-diagonals and diagonal dominance by rows (one row
 * strictly, so that A is nonsingular); then, per junction between leaves, the sign g whose
 * reorganised rows keep the most dominance, which must stay strict, so that every block of
 * every level is nonsingular (irreducible, dominant, strict at its ends). Writes why not. */
static int sherman_morrison_fill(minv_tri_plan *p, double *dmod, double *sign, char *why) {
    const int64_t n = p->n;
    const double *dl = p->dl, *d = p->d, *du = p->du;
    int strict;
    for (int64_t k = 0; k + 1 < n; k++)
        if (dl[k] == 0 || du[k] == 0) {
            snprintf(why, WHY_LEN, "the paper needs nonzero off-diagonals, and %s(%lld) = 0 (1-based)",
                     dl[k] == 0 ? "dl" : "du", (long long)k + 1);
            return 0;
        }
    int64_t row = not_dominant(p, 1, &strict);
    if (row >= 0 || !strict) {
        if (row >= 0)
            snprintf(why, WHY_LEN, "the paper needs diagonal dominance by rows, and row %lld is not dominant", (long long)row + 1);
        else
            snprintf(why, WHY_LEN, "no row is strictly diagonally dominant, so A may be singular");
        return 0;
    }
    memcpy(dmod, d, (size_t)n * sizeof *dmod);
    for (int64_t k = 0; k < n; k++) sign[k] = 0.0;
    for (int64_t k = 1; k + 1 < n; k += 2) {
        double best = -INFINITY;
        for (int s = 1; s >= -1; s -= 2) { /* on a tie, the paper's g = 1 */
            double left = fabs(d[k] - s * dl[k]) - fabs(dl[k - 1]);
            double right = fabs(d[k + 1] - s * du[k]) - (k + 2 < n ? fabs(du[k + 1]) : 0.0);
            double margin = left < right ? left : right;
            if (margin > best) {
                best = margin;
                sign[k] = s;
            }
        }
        if (!(best > 0)) {
            snprintf(why, WHY_LEN, "the reorganised diagonal at rows %lld and %lld is not strictly dominant",
                     (long long)k + 1, (long long)k + 2);
            return 0;
        }
        dmod[k] = d[k] - sign[k] * dl[k];
        dmod[k + 1] = d[k + 1] - sign[k] * du[k];
    }
    p->dmod = dmod;
    p->sign = sign;
    p->levels = 0;
    p->flops = 3.0 * (double)n; /* the leaves */
    for (int64_t h = 2; h < n; h *= 2) {
        p->levels++;
        for (int64_t s = 0; s + h < n; s += 2 * h) {
            double m = (double)((s + 2 * h < n ? s + 2 * h : n) - s);
            p->flops += 2 * m * m;
        }
    }
    return 1;
}

/* ---- pivoted ---- */

/* A^T = P L U by LAPACK's gttrf (A^T has sub-diagonal du and super-diagonal dl). An exactly
 * singular A is reported at the column where gttrf of A itself finds no pivot. */
static minv_status pivoted_fill(minv_context *ctx, minv_tri_plan *p, double *l, double *rd, double *u1,
                                double *u2, int *swap, int *ipiv, minv_report *report) {
    const int64_t n = p->n;
    memcpy(l, p->du, (size_t)n * sizeof *l);
    memcpy(rd, p->d, (size_t)n * sizeof *rd);
    memcpy(u1, p->dl, (size_t)n * sizeof *u1);
    int info = la_gttrf(n, l, rd, u1, u2, ipiv);
    if (info > 0) {
        memcpy(l, p->dl, (size_t)n * sizeof *l);
        memcpy(rd, p->d, (size_t)n * sizeof *rd);
        memcpy(u1, p->du, (size_t)n * sizeof *u1);
        int column = la_gttrf(n, l, rd, u1, u2, ipiv);
        report->info = (column > 0 ? column : info) - 1;
        return minv_fail(ctx, MINV_ERR_SINGULAR, "the tridiagonal matrix is singular: LU with partial pivoting finds no pivot in column %lld (1-based)",
                         (long long)report->info + 1);
    }
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "LAPACK gttrf rejected argument %d", -info);
    for (int64_t i = 0; i < n; i++) {
        rd[i] = 1.0 / rd[i];
        swap[i] = i + 1 < n && ipiv[i] != i + 1;
    }
    u1[n - 1] = 0.0;
    for (int64_t i = n - 2 > 0 ? n - 2 : 0; i < n; i++) u2[i] = 0.0;
    p->piv = (minv_tri_piv){n, l, u1, u2, rd, swap};
    p->flops = 6.0 * (double)n * (double)n;
    return MINV_SUCCESS;
}

/* ---- the plan ---- */

static void plan_free(minv_tri_plan *p) {
    free(p->memory);
    p->memory = NULL;
}

/* Reads the bands (type t, host memory), picks the path (the context's algorithm where its
 * conditions hold; the report says what ran and why) and computes what it needs. */
static minv_status plan_make(minv_context *ctx, minv_dtype t, int64_t n, const void *dl, const void *d,
                             const void *du, minv_tridiagonal_algorithm want, minv_tri_plan *p,
                             minv_report *report) {
    const int64_t nt = (n + MINV_TRI_TILE - 1) / MINV_TRI_TILE;
    const size_t nn = (size_t)n;
    minv_status status = MINV_SUCCESS;
    char why[WHY_LEN];
    memset(p, 0, sizeof *p);
    p->dtype = t;
    p->n = n;
    /* vectors of n doubles, the anchors, and 2 vectors of n ints; the write-once generators
     * (diag ... anchor) lie together, so that a GPU uploads them in one copy */
    p->memory = malloc(((18 + 2 * MINV_PROBES) * nn + (size_t)(nt * nt)) * sizeof(double) + 2 * nn * sizeof(int));
    if (!p->memory)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the plan of a tridiagonal matrix of order %lld", (long long)n);
    double *v = p->memory;
    double *bdl = v, *bd = v + nn, *bdu = v + 2 * nn, *f = v + 3 * nn, *g = v + 4 * nn, *diag = v + 5 * nn;
    double *mup = v + 6 * nn, *mlo = v + 7 * nn, *su = v + 8 * nn, *pl = v + 9 * nn, *anchor = v + 10 * nn;
    double *scratch = anchor + nt * nt, *dmod = scratch + 2 * nn, *sign = dmod + nn, *probe = sign + nn;
    double *aprobe = probe + MINV_PROBES * nn, *l = aprobe + MINV_PROBES * nn, *rd = l + nn, *u1 = rd + nn, *u2 = u1 + nn;
    int *swap = (int *)(u2 + nn), *ipiv = swap + nn;

    MINV_TRY(load_band(ctx, t, dl, n - 1, n, "dl", "sub-diagonal", bdl));
    MINV_TRY(load_band(ctx, t, d, n, n, "d", "diagonal", bd));
    MINV_TRY(load_band(ctx, t, du, n - 1, n, "du", "super-diagonal", bdu));
    p->dl = bdl;
    p->d = bd;
    p->du = bdu;
    for (int64_t i = 0; i < n; i++) {
        double row = (i > 0 ? fabs(bdl[i - 1]) : 0.0) + fabs(bd[i]) + fabs(bdu[i]);
        double col = (i > 0 ? fabs(bdu[i - 1]) : 0.0) + fabs(bd[i]) + fabs(bdl[i]);
        if (row > p->anorm_inf) p->anorm_inf = row;
        if (col > p->anorm_1) p->anorm_1 = col;
    }
    /* residual probes: v and A v */
    minv_probe_vectors(probe, n, ctx->residual_mode == 1 ? MINV_PROBES : 0);
    for (int k = 0; k < MINV_PROBES && ctx->residual_mode == 1; k++) {
        const double *pv = probe + (size_t)k * nn;
        double *av = aprobe + (size_t)k * nn;
        for (int64_t i = 0; i < n; i++)
            av[i] = (i > 0 ? bdl[i - 1] * pv[i - 1] : 0.0) + bd[i] * pv[i] + (i + 1 < n ? bdu[i] * pv[i + 1] : 0.0);
    }
    p->v = probe;
    p->av = aprobe;

    if (want == MINV_TRIDIAGONAL_SHERMAN_MORRISON) {
        if (sherman_morrison_fill(p, dmod, sign, why)) {
            p->path = want;
            minv_report_note(report, "tridiagonal: the paper's recursive Sherman-Morrison, %d merge level%s", p->levels,
                             p->levels == 1 ? "" : "s");
            goto cleanup;
        }
        minv_report_note(report, "Sherman-Morrison refused: %s", why);
    }
    if (want != MINV_TRIDIAGONAL_PIVOTED) {
        int strict;
        int64_t row = not_dominant(p, 1, &strict), col = row < 0 ? -1 : not_dominant(p, 0, &strict);
        if ((row < 0 || col < 0) && pivots(p, f, g, diag)) {
            write_once_fill(p, f, g, diag, row < 0, mup, mlo, su, pl, anchor, scratch);
            p->path = MINV_TRIDIAGONAL_WRITE_ONCE;
            minv_report_note(report, "tridiagonal: each entry written once from O(n) recurrences, A diagonally dominant by %s",
                             row < 0 ? "rows" : "columns");
            goto cleanup;
        }
        if (row >= 0 && col >= 0)
            minv_report_note(report, "write-once needs diagonal dominance, by rows (row %lld is not) or by columns (column %lld is not)",
                             (long long)row + 1, (long long)col + 1);
        else
            minv_report_note(report, "write-once needs nonzero leading and trailing minors, and one vanishes");
    }
    MINV_TRY(pivoted_fill(ctx, p, l, rd, u1, u2, swap, ipiv, report));
    p->path = MINV_TRIDIAGONAL_PIVOTED;
    minv_report_note(report, "tridiagonal: LU with partial pivoting (gttrf of A^T) solved for the identity, row by row");
cleanup:
    if (status != MINV_SUCCESS)
        plan_free(p);
    return status;
}

/* ---- residuals of a host result ---- */

static double entry(const minv_mat *x, int64_t i, int64_t j) {
    return x->dtype == MINV_R64 ? *(const double *)minv_at(x, i, j) : (double)*(const float *)minv_at(x, i, j);
}

/* ||I - A X||_1 / (n ||A||_1 ||X||_1) in O(n^2): A X from the bands. */
static minv_status residual_full(minv_context *ctx, const minv_tri_plan *p, const minv_mat *x, double *residual) {
    const int64_t n = p->n;
    double *sums = malloc(2 * (size_t)n * sizeof *sums);
    if (!sums)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the residual's column sums");
    const int team = minv_threads_for(ctx->cpu_threads, (double)n * (double)n);
#pragma omp parallel num_threads(team) if (team > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
#pragma omp for schedule(static)
        for (int64_t j = 0; j < n; j++) {
            double r = 0.0, s = 0.0;
            for (int64_t i = 0; i < n; i++) {
                double here = entry(x, i, j);
                r += fabs(minv_tri_residual_entry(p->dl, p->d, p->du, n, i, j, i > 0 ? entry(x, i - 1, j) : 0.0,
                                                  here, i + 1 < n ? entry(x, i + 1, j) : 0.0));
                s += fabs(here);
            }
            sums[j] = r;
            sums[n + j] = s;
        }
        minv_worker_end(&w);
    }
    double rnorm = 0.0, xnorm = 0.0;
    for (int64_t j = 0; j < n; j++) {
        if (sums[j] > rnorm || isnan(sums[j])) rnorm = sums[j];
        if (sums[n + j] > xnorm || isnan(sums[n + j])) xnorm = sums[n + j];
    }
    free(sums);
    *residual = rnorm == 0 ? 0.0 : rnorm / ((double)n * p->anorm_1 * xnorm);
    return MINV_SUCCESS;
}

static minv_status residual_host(minv_context *ctx, const minv_tri_plan *p, const minv_mat *x, minv_report *report) {
    if (ctx->residual_mode == 1) {
        minv_probes probes = {MINV_PROBES, (double *)p->v, (double *)p->av, p->anorm_inf, 1};
        report->residual = minv_residual_inverse_sampled(x, &probes);
        report->residual_kind = report->residual >= 0;
    } else if (ctx->residual_mode == 2) {
        minv_status status = residual_full(ctx, p, x, &report->residual);
        if (status != MINV_SUCCESS)
            return status;
        report->residual_kind = 2;
    }
    return MINV_SUCCESS;
}

/* ---- running a plan ---- */

/* Bands (host memory, type t) to x (host or device memory, per place): plan, backend, and the
 * fallbacks the report states: a GPU without the memory hands host data to the CPU, and a
 * Sherman-Morrison merge that meets a singular block hands the matrix to the other paths.
 * host_residual: the caller computes no residual of host results itself. */
static minv_status invert_bands(minv_context *ctx, minv_place place, minv_dtype t, int64_t n, const void *dl,
                                const void *d, const void *du, minv_mat *x, int host_residual, minv_report *report) {
    minv_tri_plan plan = {0};
    minv_status status = MINV_SUCCESS;
    const minv_backend_ops *ops = ctx->ops;
    MINV_TRY(plan_make(ctx, t, n, dl, d, du, ctx->tridiagonal_algorithm, &plan, report));
    for (;;) {
        status = place == MINV_ON_DEVICE ? ops->invert_tridiagonal_device(ctx, &plan, x, report)
                                         : ops->invert_tridiagonal(ctx, &plan, x, report);
        if (minv_fall_back_to_cpu(ctx, status, place, 1, "it", &ops, MINV_REPORT_SINK(report)))
            continue;
        if (status != MINV_ERR_SINGULAR || plan.path != MINV_TRIDIAGONAL_SHERMAN_MORRISON)
            break;
        minv_report_note(report, "%s, so another path", ctx->last_error);
        report->fallbacks |= MINV_FALLBACK_PATH;
        minv_clear_error(ctx);
        plan_free(&plan);
        MINV_TRY(plan_make(ctx, t, n, dl, d, du, MINV_TRIDIAGONAL_AUTO, &plan, report));
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    report->flops = plan.flops;
    if (!ops->computes_residual && (host_residual || ctx->ops->computes_residual))
        status = residual_host(ctx, &plan, x, report);
cleanup:
    plan_free(&plan);
    return status;
}

/* ---- MINV_METHOD_TRIDIAGONAL of minv_invert ---- */

static minv_status check_tridiagonal(minv_context *ctx, const minv_analysis *an) {
    if (an->tridiagonal)
        return MINV_SUCCESS;
    return minv_fail(ctx, MINV_ERR_SHAPE, "the tridiagonal method needs a tridiagonal matrix, and A has lower bandwidth %lld and upper bandwidth %lld (use LU, or AUTO)",
                     (long long)an->lower_bandwidth, (long long)an->upper_bandwidth);
}

/* Room for the three bands of an order-n matrix of type t: d, then dl and du (n - 1 each). */
static minv_status alloc_bands(minv_context *ctx, minv_dtype t, int64_t n, char **bands) {
    *bands = malloc(3 * (size_t)n * (size_t)t);
    return *bands ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the bands of a matrix of order %lld", (long long)n);
}

/* The bands of a dense A in host or device memory (strided vectors of A: the diagonal from
 * A(0, 0), the sub-diagonal from A(1, 0), the super-diagonal from A(0, 1), ld + 1 apart). */
static minv_status invert_dense(minv_context *ctx, minv_place place, const minv_mat *a, minv_mat *x,
                                const minv_analysis *an, minv_report *report) {
    const int64_t n = a->rows, stride = a->ld + 1;
    const size_t es = (size_t)a->dtype;
    char *bands = NULL;
    minv_status status = MINV_SUCCESS;
    MINV_TRY(check_tridiagonal(ctx, an));
    MINV_TRY(alloc_bands(ctx, a->dtype, n, &bands));
    char *band[3] = {bands + (size_t)n * es, bands, bands + 2 * (size_t)n * es}; /* dl, d, du */
    const char *from[3] = {(const char *)a->data + es, a->data, (const char *)a->data + (size_t)a->ld * es};
    for (int k = 0; k < 3; k++) {
        const int64_t count = k == 1 ? n : n - 1;
        if (place == MINV_ON_DEVICE)
            MINV_TRY(ctx->ops->download_vector(ctx, from[k], stride, count, a->dtype, band[k]));
        else
            for (int64_t i = 0; i < count; i++) memcpy(band[k] + (size_t)i * es, from[k] + (size_t)(i * stride) * es, es);
    }
    status = invert_bands(ctx, place, a->dtype, n, band[0], band[1], band[2], x, 0, report);
cleanup:
    free(bands);
    return status;
}

minv_status minv_tridiagonal_invert_dense(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                          const minv_analysis *an, minv_report *report) {
    return invert_dense(ctx, MINV_ON_HOST, a, x, an, report);
}

minv_status minv_tridiagonal_invert_dense_device(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                                 const minv_analysis *an, minv_report *report) {
    return invert_dense(ctx, MINV_ON_DEVICE, a, x, an, report);
}

/* ---- the entry points ---- */

static minv_status check_band(minv_context *ctx, const char *fn, const void *p, int pos, const char *name, int64_t count) {
    if (!p && count > 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL", fn, pos, name);
    return MINV_SUCCESS;
}

static minv_status tridiagonal_expert(minv_context *ctx, const char *fn, minv_place place, minv_dtype t, int64_t n,
                                      const void *dl, const void *d, const void *du, void *ainv, int64_t ldainv,
                                      minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_mat x = {t, n, n, ldainv, ainv};
    char *bands = NULL;
    minv_report_init(report, MINV_METHOD_TRIDIAGONAL, n, 0);
    report->backend = ctx->backend;
    MINV_TRY(minv_check_place(ctx, fn, place));
    MINV_TRY(minv_check_order(ctx, fn, 2, "n", n));
    MINV_TRY(check_band(ctx, fn, dl, 3, "dl", n - 1));
    MINV_TRY(check_band(ctx, fn, d, 4, "d", n));
    MINV_TRY(check_band(ctx, fn, du, 5, "du", n - 1));
    MINV_TRY(minv_check_matrix(ctx, fn, ainv, 6, "ainv", n, n, ldainv, "ldainv", t));
    if (n == 0) /* LAPACK's quick return */
        goto cleanup;
    if (place == MINV_ON_DEVICE) {
        const size_t es = (size_t)t;
        MINV_TRY(alloc_bands(ctx, t, n, &bands));
        char *hd = bands, *hdl = bands + (size_t)n * es, *hdu = hdl + (size_t)n * es;
        MINV_TRY(ctx->ops->download_vector(ctx, d, 1, n, t, hd));
        if (n > 1) {
            MINV_TRY(ctx->ops->download_vector(ctx, dl, 1, n - 1, t, hdl));
            MINV_TRY(ctx->ops->download_vector(ctx, du, 1, n - 1, t, hdu));
        }
        MINV_TRY(invert_bands(ctx, place, t, n, hdl, hd, hdu, &x, 1, report));
    } else {
        MINV_TRY(invert_bands(ctx, place, t, n, dl, d, du, &x, 1, report));
    }
    status = minv_check_rcond(ctx, t, report);
cleanup:
    free(bands);
    return status;
}

static minv_status tridiagonal_entry(minv_context *ctx, const char *fn, minv_place place, minv_dtype t, int64_t n,
                                     const void *dl, const void *d, const void *du, void *ainv, int64_t ldainv,
                                     minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    minv_status status = minv_call_open(ctx, &call, place, r, MINV_METHOD_TRIDIAGONAL, n, 0);
    if (status == MINV_SUCCESS)
        status = tridiagonal_expert(ctx, fn, place, t, n, dl, d, du, ainv, ldainv, r);
    minv_call_end(ctx, &call, r);
    return status;
}

minv_status minv_invert_tridiagonal_d(minv_context *ctx, int64_t n, const double *dl, const double *d,
                                      const double *du, double *ainv, int64_t ldainv, minv_report *report) {
    return tridiagonal_entry(ctx, "minv_invert_tridiagonal_d", MINV_ON_HOST, MINV_R64, n, dl, d, du, ainv, ldainv, report);
}

minv_status minv_invert_tridiagonal_s(minv_context *ctx, int64_t n, const float *dl, const float *d,
                                      const float *du, float *ainv, int64_t ldainv, minv_report *report) {
    return tridiagonal_entry(ctx, "minv_invert_tridiagonal_s", MINV_ON_HOST, MINV_R32, n, dl, d, du, ainv, ldainv, report);
}

minv_status minv_invert_tridiagonal_device_d(minv_context *ctx, int64_t n, const double *dl, const double *d,
                                             const double *du, double *ainv, int64_t ldainv, minv_report *report) {
    return tridiagonal_entry(ctx, "minv_invert_tridiagonal_device_d", MINV_ON_DEVICE, MINV_R64, n, dl, d, du, ainv,
                             ldainv, report);
}

minv_status minv_invert_tridiagonal_device_s(minv_context *ctx, int64_t n, const float *dl, const float *d,
                                             const float *du, float *ainv, int64_t ldainv, minv_report *report) {
    return tridiagonal_entry(ctx, "minv_invert_tridiagonal_device_s", MINV_ON_DEVICE, MINV_R32, n, dl, d, du, ainv,
                             ldainv, report);
}
