/* Batches on the CPU: members in parallel over the context's threads, each gathered into a
 * dense scratch matrix in the compute precision (through its subset index, if any), checked,
 * factored (up to order 64 by the unblocked kernels of small.c, whose cost is arithmetic, above
 * by LAPACK: potrf for the SPD path, getrf for LU) or inverted by Gauss-Jordan, and scattered
 * back in the storage precision. A member's failure is its own: its status and column are
 * recorded and its output is left alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "factor.h"
#include "../lapack.h"
#include "lanes.h"
#include "small.h"

typedef struct {
    int64_t bad_col;
    double anorm_inf, anorm_1, asym, max_abs;
    int diag_positive;
} member_scan;

#define T double
#define FN(name) name##_d
#include "batched_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "batched_t.h"
#undef T
#undef FN

static void scan(minv_dtype t, const void *a, int64_t n, int symmetry, double *rowabs, member_scan *o) {
    if (t == MINV_R64) scan_d(a, n, symmetry, rowabs, o);
    else scan_s(a, n, symmetry, rowabs, o);
}

static double norm_inf(minv_dtype t, const void *a, int64_t n, double *rowabs) {
    return t == MINV_R64 ? norm_inf_d(a, n, rowabs) : norm_inf_s(a, n, rowabs);
}

static double element(minv_dtype t, const void *p, int64_t k) {
    return t == MINV_R64 ? ((const double *)p)[k] : (double)((const float *)p)[k];
}

/* getri's workspace per column: its blocked form needs n times its block size, 64 at most. */
enum { GETRI_BLOCK = 64 };

/* One thread's scratch, sized for the largest member. */
typedef struct {
    void *s, *c, *g;  /* n x n: the member and its factor or inverse; a copy of it (the full
                         residual, a subset's solve residual); the Gauss-Jordan inverse */
    void *t, *f2;     /* n x (nrhs + 1): right-hand sides and Hager's column; a product */
    void *u;          /* n x nrhs: B kept for the residual */
    void *f;          /* n: a column */
    void *work;       /* GETRI_BLOCK * n: getri's */
    int *ipiv;
    int64_t *steps;
    int8_t *used;
    double *rowabs, *v, *av, *w; /* residual probes */
} scratch;

/* Only what the call will use: the Gauss-Jordan inverse. */
static int scratch_alloc(scratch *w, minv_dtype t, int64_t n, int64_t nrhs, int gauss_jordan) {
    const size_t nn = (size_t)(n > 0 ? n : 1), es = (size_t)t, m = (size_t)(nrhs > 0 ? nrhs : 1);
    memset(w, 0, sizeof *w);
    w->s = malloc(nn * nn * es);
    w->c = malloc(nn * nn * es);
    w->g = gauss_jordan ? malloc(nn * nn * es) : NULL;
    w->t = malloc(nn * (m + 1) * es);
    w->f2 = malloc(nn * (m + 1) * es);
    w->u = malloc(nn * m * es);
    w->f = malloc(nn * es);
    w->work = malloc(nn * GETRI_BLOCK * es);
    w->ipiv = malloc(nn * sizeof(int));
    w->steps = malloc(nn * sizeof(int64_t));
    w->used = malloc(nn);
    w->rowabs = malloc(nn * sizeof(double));
    w->v = malloc(nn * MINV_PROBES * sizeof(double));
    w->av = malloc(nn * MINV_PROBES * sizeof(double));
    w->w = malloc(nn * MINV_PROBES * sizeof(double));
    return w->s && w->c && (w->g || !gauss_jordan) && w->t && w->f2 && w->u && w->f && w->work && w->ipiv && w->steps &&
           w->used && w->rowabs && w->v && w->av && w->w;
}

static void scratch_free(scratch *w) {
    free(w->s); free(w->c); free(w->g); free(w->t); free(w->f2); free(w->u); free(w->f); free(w->work); free(w->ipiv);
    free(w->steps); free(w->used); free(w->rowabs); free(w->v); free(w->av); free(w->w);
}

/* The general path of a method: LU unless Gauss-Jordan was asked for. */
static minv_method general_method(minv_method m) {
    return m == MINV_METHOD_GAUSS_JORDAN ? MINV_METHOD_GAUSS_JORDAN : MINV_METHOD_LU;
}

typedef struct {
    minv_context *ctx;
    minv_method method;
    minv_dtype tc;
    const minv_batch *a, *b, *x;
    minv_batch_results *res;
} job;

/* The path of member m from its checks: 1 SPD, 0 general, or -1 with the member's status set
 * (a NaN or Inf; not symmetric where Cholesky was asked for). */
static int member_path(const job *jb, int64_t m, int64_t bad_col, double asym, double max_abs, int diag_positive) {
    if (bad_col >= 0) {
        jb->res->status[m] = MINV_ERR_NOT_FINITE;
        jb->res->info[m] = bad_col;
        return -1;
    }
    /* The storage type's tolerance: a float member computed in double carries float's roundings. */
    const int symmetric = asym <= minv_symmetry_tol(jb->ctx, jb->a->dtype) * max_abs;
    if (jb->method == MINV_METHOD_CHOLESKY && !symmetric) {
        jb->res->status[m] = MINV_ERR_NOT_SPD;
        return -1;
    }
    return jb->method == MINV_METHOD_CHOLESKY || (jb->method == MINV_METHOD_AUTO && symmetric && diag_positive);
}

/* Gathers member m into w->s and checks it. Returns 0 with the member's status set when it
 * fails here; else 1 with *spd telling the path. */
static int load_member(const job *jb, int64_t m, int64_t n, scratch *w, member_scan *sc, int *spd) {
    minv_batch_gather(jb->a, m, jb->tc, w->s, n);
    scan(jb->tc, w->s, n, jb->method == MINV_METHOD_AUTO || jb->method == MINV_METHOD_CHOLESKY, w->rowabs, sc);
    const int path = member_path(jb, m, sc->bad_col, sc->asym, sc->max_abs, sc->diag_positive);
    *spd = path == 1;
    return path >= 0;
}

/* The unblocked kernels (small.c) take the members up to this order: LAPACK's per-call set-up
 * costs more than a member's arithmetic there. */
enum { SMALL_MEMBER = 64 };

/* Factors w->s (n x n): potrf on the SPD path, which under AUTO hands an indefinite member to
 * getrf; Gauss-Jordan inverts into w->g at once. Returns 0 with the status set on failure; on
 * success *inverse_bound is the factor's lower bound on ||A^-1||_1 (factor.h's). */
static int factor_member(const job *jb, int64_t m, int64_t n, scratch *w, int *spd, double *inverse_bound) {
    const minv_dtype tc = jb->tc;
    const int small = n <= SMALL_MEMBER;
    if (*spd) {
        const int64_t info = small ? minv_small_potrf(tc, n, w->s, n) : la_potrf(tc, n, w->s, n);
        if (info == 0) {
            const minv_mat f = {tc, n, n, n, w->s};
            const double l = minv_cpu_min_abs_diagonal(&f);
            *inverse_bound = 1 / (l * l);
            return 1;
        }
        if (jb->method != MINV_METHOD_AUTO) {
            jb->res->status[m] = MINV_ERR_NOT_SPD;
            jb->res->info[m] = info - 1;
            return 0;
        }
        *spd = 0;
        minv_batch_gather(jb->a, m, tc, w->s, n);
    }
    int64_t col;
    if (general_method(jb->method) == MINV_METHOD_GAUSS_JORDAN)
        col = tc == MINV_R64 ? gauss_jordan_d(w->s, n, w->steps, w->used, w->f, w->g)
                             : gauss_jordan_s(w->s, n, w->steps, w->used, w->f, w->g);
    else
        col = (small ? minv_small_getrf(tc, n, w->s, n, w->ipiv) : la_getrf(tc, n, n, w->s, n, w->ipiv)) - 1;
    if (col >= 0) {
        jb->res->status[m] = MINV_ERR_SINGULAR;
        jb->res->info[m] = col;
        return 0;
    }
    const minv_mat f = {tc, n, n, n, w->s};
    *inverse_bound = general_method(jb->method) == MINV_METHOD_GAUSS_JORDAN ? 0 : 1 / (minv_cpu_min_abs_diagonal(&f) * (double)n);
    return 1;
}

/* Sampled residual of an inverse in w->s: probes A v are taken before the factorisation. */
static void probes_before(const job *jb, int64_t n, scratch *w) {
    minv_mat s = {jb->tc, n, n, n, w->s};
    minv_probe_vectors(w->v, n, MINV_PROBES);
    minv_gemv_double_multi(&s, w->v, MINV_PROBES, w->av, NULL);
}

static double probes_after(const job *jb, int64_t n, scratch *w, const void *x, double anorm_inf) {
    minv_mat xm = {jb->tc, n, n, n, (void *)x};
    minv_gemv_double_multi(&xm, w->av, MINV_PROBES, w->w, w->rowabs);
    double xnorm = 0;
    for (int64_t i = 0; i < n; i++) if (w->rowabs[i] > xnorm) xnorm = w->rowabs[i];
    return minv_probe_ratio(n, MINV_PROBES, w->v, w->w, xnorm, anorm_inf);
}

/* The inverse of the member in w->s, in w->s (or w->g for Gauss-Jordan); 0 on failure, with
 * the status set. Small SPD members: the sweep operator, symmetric by construction; small
 * general ones: Gauss-Jordan with LU's pivots. */
static void *invert_in_scratch(const job *jb, int64_t m, int64_t n, scratch *w, int *spd) {
    const minv_dtype tc = jb->tc;
    double unused;
    if (n <= SMALL_MEMBER && general_method(jb->method) == MINV_METHOD_LU) {
        if (*spd) {
            const int64_t info = minv_small_sweep(tc, n, w->s, n, w->f);
            if (info == 0) {
                minv_mat s = {tc, n, n, n, w->s};
                minv_mat_mirror_lower(&s);
                return w->s;
            }
            if (jb->method != MINV_METHOD_AUTO) {
                jb->res->status[m] = MINV_ERR_NOT_SPD;
                jb->res->info[m] = info - 1;
                return NULL;
            }
            *spd = 0;
            minv_batch_gather(jb->a, m, tc, w->s, n);
        }
        const int64_t info = minv_small_gauss_jordan(tc, n, w->s, n, w->f, w->ipiv);
        if (info > 0) {
            jb->res->status[m] = MINV_ERR_SINGULAR;
            jb->res->info[m] = info - 1;
            return NULL;
        }
        return w->s;
    }
    if (!factor_member(jb, m, n, w, spd, &unused))
        return NULL;
    if (*spd) {
        minv_cpu_potri(tc, n, w->s, n);
        minv_mat s = {tc, n, n, n, w->s};
        minv_mat_mirror_lower(&s);
        return w->s;
    }
    if (general_method(jb->method) == MINV_METHOD_LU) {
        la_getri(tc, n, w->s, n, w->ipiv, w->work, GETRI_BLOCK * n);
        return w->s;
    }
    return w->g;
}

/* Gathers and checks member m, and takes what the residual needs before the inversion (the
 * probes A v, or a copy of A). 0 when the member stops here, its status set. */
static int invert_prepare(const job *jb, int64_t m, int64_t n, scratch *w, member_scan *sc, int *spd) {
    if (!load_member(jb, m, n, w, sc, spd))
        return 0;
    if (jb->ctx->residual_mode == 1)
        probes_before(jb, n, w);
    if (jb->ctx->residual_mode == 2)
        memcpy(w->c, w->s, (size_t)n * (size_t)n * (size_t)jb->tc);
    return 1;
}

/* The member's outcome from its inverse inv (in w): path, rcond, residual; then written out. */
static void invert_finish(const job *jb, int64_t m, int64_t n, scratch *w, const member_scan *sc, int spd,
                          const void *inv) {
    const minv_dtype tc = jb->tc;
    const int mode = jb->ctx->residual_mode;
    jb->res->spd[m] = (int8_t)spd;
    jb->res->rcond[m] = 1.0 / (sc->anorm_inf * norm_inf(tc, inv, n, w->rowabs));
    if (!(jb->res->rcond[m] >= minv_eps(tc)))
        jb->res->status[m] = MINV_ERR_SINGULAR; /* singular to working precision; still written */
    if (mode == 1) {
        jb->res->residual[m] = probes_after(jb, n, w, inv, sc->anorm_inf);
    } else if (mode == 2) {
        minv_mat am = {tc, n, n, n, w->c}, xm = {tc, n, n, n, (void *)inv};
        double r = -1;
        if (minv_residual_inverse_full(NULL, &am, &xm, minv_norm1(&am), &r) == MINV_SUCCESS)
            jb->res->residual[m] = r;
    }
    minv_batch_scatter(jb->x, m, tc, inv, n);
}

static void invert_member(const job *jb, int64_t m, scratch *w) {
    const int64_t n = minv_batch_order(jb->a, m);
    member_scan sc;
    int spd = 0;
    if (n == 0 || !invert_prepare(jb, m, n, w, &sc, &spd))
        return;
    const void *inv = invert_in_scratch(jb, m, n, w, &spd);
    if (inv)
        invert_finish(jb, m, n, w, &sc, spd, inv);
}

/* Column j of the n-row matrix p (type t) as doubles. */
static void column_double(minv_dtype t, const void *p, int64_t n, int64_t j, double *out) {
    for (int64_t i = 0; i < n; i++)
        out[i] = t == MINV_R64 ? ((const double *)p)[j * n + i] : (double)((const float *)p)[j * n + i];
}

/* max over the sampled columns of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf),
 * A the member as stored, B kept in w->u before the solve, X in w->t. */
static double solve_residual(const job *jb, int64_t m, int64_t n, int64_t nrhs, scratch *w, double anorm_inf) {
    const minv_mat a0 = minv_batch_member(jb->a, m);
    const int64_t samples = minv_residual_columns(jb->ctx->residual_mode, nrhs);
    double *x = w->v, *b = w->v + n, *ax = w->av, worst = 0;
    for (int64_t s = 0; s < samples; s++) {
        const int64_t j = minv_residual_column(s, samples, nrhs);
        column_double(jb->tc, w->t, n, j, x);
        column_double(jb->tc, w->u, n, j, b);
        if (jb->a->index) { /* a subset: the member is its principal sub-matrix, in w->c */
            minv_mat sub = {jb->tc, n, n, n, w->c};
            minv_gemv_double(&sub, x, ax, NULL);
        } else {
            minv_gemv_double(&a0, x, ax, NULL);
        }
        for (int64_t i = 0; i < n; i++) ax[i] -= b[i];
        const double r = minv_solve_column_ratio(n, ax, x, b, anorm_inf);
        if (r > worst || isnan(r)) worst = r;
    }
    return worst;
}

/* Gathers and checks member m and its right-hand sides into w->t, Hager's start vector after
 * them (the estimator's first step, solved with B), B kept in w->u for the residual and the
 * bounds. 0 when the member stops here, its status set. */
static int solve_prepare(const job *jb, int64_t m, int64_t n, scratch *w, member_scan *sc, int *spd) {
    const int64_t nrhs = jb->b->cols;
    const minv_dtype tc = jb->tc;
    const size_t es = (size_t)tc;
    if (!load_member(jb, m, n, w, sc, spd))
        return 0;
    minv_batch_gather(jb->b, m, tc, w->t, n);
    minv_mat bm = {tc, n, nrhs, n, w->t};
    int64_t bi, bj;
    double bv;
    if (!minv_all_finite(&bm, &bi, &bj, &bv)) {
        jb->res->status[m] = MINV_ERR_NOT_FINITE;
        return 0;
    }
    memcpy(w->u, w->t, (size_t)n * (size_t)nrhs * es);
    for (int64_t i = 0; i < n; i++) {
        if (tc == MINV_R64) ((double *)w->t)[nrhs * n + i] = 1.0 / (double)n;
        else ((float *)w->t)[nrhs * n + i] = 1.0f / (float)n;
    }
    if (jb->a->index && jb->ctx->residual_mode > 0)
        memcpy(w->c, w->s, (size_t)n * (size_t)n * es);
    return 1;
}

/* Factors member m (in w->s) and solves for the nrhs + 1 columns of w->t. 0 on failure, with
 * the status set; else *inverse_bound is the factor's lower bound on ||A^-1||_1. */
static int solve_in_scratch(const job *jb, int64_t m, int64_t n, scratch *w, int *spd, double *inverse_bound) {
    const int64_t nrhs = jb->b->cols;
    const minv_dtype tc = jb->tc;
    if (!factor_member(jb, m, n, w, spd, inverse_bound))
        return 0;
    const int small = n <= SMALL_MEMBER;
    if (*spd) {
        if (small) minv_small_potrs(tc, n, nrhs + 1, w->s, n, w->t, n);
        else la_potrs(tc, n, nrhs + 1, w->s, n, w->t, n);
    } else if (general_method(jb->method) == MINV_METHOD_LU) {
        if (small) minv_small_getrs(tc, n, nrhs + 1, w->s, n, w->ipiv, w->t, n);
        else la_getrs(tc, n, nrhs + 1, w->s, n, w->ipiv, w->t, n);
    } else { /* Gauss-Jordan: the inverse in w->g, times B and Hager's column */
        la_gemm(tc, 'N', 'N', n, nrhs + 1, n, 1.0, w->g, n, w->t, n, 0.0, w->f2, n);
        memcpy(w->t, w->f2, (size_t)n * (size_t)(nrhs + 1) * (size_t)tc);
    }
    return 1;
}

/* The member's outcome from its solution in w->t: path, rcond, residual; then written out. */
static void solve_finish(const job *jb, int64_t m, int64_t n, scratch *w, const member_scan *sc, int spd,
                         double inverse_bound) {
    const int64_t nrhs = jb->b->cols;
    const minv_dtype tc = jb->tc;
    jb->res->spd[m] = (int8_t)spd;
    /* lower bounds on ||A^-1||_1: the factor's, each column's ||x_j||_1 / ||b_j||_1, Hager's */
    for (int64_t j = 0; j <= nrhs; j++) {
        double xn = 0, bn = 1;
        for (int64_t i = 0; i < n; i++) xn += fabs(element(tc, w->t, j * n + i));
        if (j < nrhs) {
            bn = 0;
            for (int64_t i = 0; i < n; i++) bn += fabs(element(tc, w->u, j * n + i));
        }
        if (bn > 0 && isfinite(xn)) inverse_bound = fmax(inverse_bound, xn / bn);
    }
    const double rcond = minv_cpu_rcond(sc->anorm_1, inverse_bound);
    jb->res->rcond[m] = rcond;
    if (rcond < minv_eps(tc))
        jb->res->status[m] = MINV_ERR_SINGULAR;
    if (jb->ctx->residual_mode > 0)
        jb->res->residual[m] = solve_residual(jb, m, n, nrhs, w, sc->anorm_inf);
    minv_batch_scatter(jb->x, m, tc, w->t, n);
}

static void solve_member(const job *jb, int64_t m, scratch *w) {
    const int64_t n = minv_batch_order(jb->a, m);
    member_scan sc;
    int spd = 0;
    double inverse_bound = 0;
    if (n == 0 || !solve_prepare(jb, m, n, w, &sc, &spd))
        return;
    if (solve_in_scratch(jb, m, n, w, &spd, &inverse_bound))
        solve_finish(jb, m, n, w, &sc, spd, inverse_bound);
}

/* ---- groups of members side by side (lanes.h) ---- */

/* A thread's buffers for a group: its members and their copy for the residual, right-hand
 * sides and their copy, work vectors (32 bytes a lane each), pivots; wide vectors for the
 * checks and residuals (n x MINV_PROBES), the columns' sums, one lane's column in double. */
typedef struct {
    void *a, *a0, *b, *u, *f;
    double *rowabs, *av, *y, *bsums, *xsums, *col;
    int *ipiv;
} lanes_scratch;

static void *alloc32(size_t bytes) { return aligned_alloc(32, (bytes + 31) / 32 * 32); }

static int lanes_alloc(lanes_scratch *g, minv_dtype t, int64_t n, int64_t nrhs) {
    const size_t vec = 32, nn = (size_t)n, cols = (size_t)nrhs + 1, wide = minv_lanes_wide_bytes(t);
    g->a = alloc32(nn * nn * vec);
    g->a0 = alloc32(nn * nn * vec);
    g->b = alloc32(nn * cols * vec);
    g->u = alloc32(nn * cols * vec);
    g->f = alloc32(2 * nn * vec);
    g->rowabs = alloc32(2 * nn * wide);
    g->av = alloc32(nn * MINV_PROBES * wide);
    g->y = alloc32(nn * MINV_PROBES * wide);
    g->bsums = malloc(cols * MINV_LANES_MAX * sizeof(double));
    g->xsums = malloc(cols * MINV_LANES_MAX * sizeof(double));
    g->col = malloc(nn * 3 * MINV_PROBES * sizeof(double));
    g->ipiv = malloc(nn * MINV_LANES_MAX * sizeof(int));
    return g->a && g->a0 && g->b && g->u && g->f && g->rowabs && g->av && g->y && g->bsums && g->xsums && g->col &&
           g->ipiv;
}

static void lanes_free(lanes_scratch *g) {
    free(g->a); free(g->a0); free(g->b); free(g->u); free(g->f); free(g->rowabs); free(g->av); free(g->y);
    free(g->bsums); free(g->xsums); free(g->col); free(g->ipiv);
}

/* Members per group: one where the interleaved kernels do not apply (Gauss-Jordan asked for,
 * members beyond the small kernels' orders, where LAPACK's blocked ones are the better). */
static int group_size(const job *jb) {
    if (general_method(jb->method) != MINV_METHOD_LU || jb->a->rows > SMALL_MEMBER || jb->a->rows == 0)
        return 1;
    return minv_lanes(jb->tc);
}

/* Member m of batch bt (its n x cols in the compute type t) into lane l of c: straight from
 * its storage where the types agree and no subset index applies, else through the dense
 * scratch s. */
static void lanes_gather(const minv_batch *bt, int64_t m, minv_dtype t, int64_t n, int64_t cols, int l, void *c,
                         void *s) {
    if (bt->dtype == t && !bt->index) {
        const minv_mat mm = minv_batch_member(bt, m);
        minv_lanes_pack(t, n, cols, mm.data, mm.ld, l, c);
    } else {
        minv_batch_gather(bt, m, t, s, n);
        minv_lanes_pack(t, n, cols, s, n, l, c);
    }
}

static void lanes_scatter(const minv_batch *bt, int64_t m, minv_dtype t, int64_t n, int64_t cols, const void *c, int l,
                          void *s) {
    if (bt->dtype == t) {
        const minv_mat mm = minv_batch_member(bt, m);
        minv_lanes_unpack(t, n, cols, c, l, mm.data, mm.ld);
    } else {
        minv_lanes_unpack(t, n, cols, c, l, s, n);
        minv_batch_scatter(bt, m, t, s, n);
    }
}

/* The lanes written[l] of c back to their members mem[l]: every lane at once where all are
 * written straight into storage of the compute type, else lane by lane. */
static void lanes_scatter_group(const minv_batch *bt, const int64_t *mem, const int *written, minv_dtype t, int64_t n,
                                int64_t cols, const void *c, void *s) {
    const int lanes = minv_lanes(t);
    int all = bt->dtype == t;
    for (int l = 0; l < lanes; l++) all &= written[l];
    if (!all) {
        for (int l = 0; l < lanes; l++)
            if (written[l]) lanes_scatter(bt, mem[l], t, n, cols, c, l, s);
        return;
    }
    void *dst[MINV_LANES_MAX];
    int64_t lds[MINV_LANES_MAX];
    for (int l = 0; l < lanes; l++) {
        const minv_mat mm = minv_batch_member(bt, mem[l]);
        dst[l] = mm.data;
        lds[l] = mm.ld;
    }
    minv_lanes_unpack_all(t, n, cols, c, dst, lds);
}

/* Lane l of the wide vectors p (count of them) as doubles. */
static void wide_lane(const double *p, int64_t count, int lanes, int l, double *out) {
    for (int64_t i = 0; i < count; i++) out[i] = p[i * lanes + l];
}

/* Lane l of the column c (n vectors of type t) as doubles. */
static void lane_column(minv_dtype t, const void *c, int64_t n, int l, double *out) {
    const int lanes = minv_lanes(t);
    for (int64_t i = 0; i < n; i++)
        out[i] = t == MINV_R64 ? ((const double *)c)[i * lanes + l] : (double)((const float *)c)[i * lanes + l];
}

static double largest_or_nan(const double *p, int64_t count) {
    double r = 0;
    for (int64_t i = 0; i < count; i++) if (p[i] > r || isnan(p[i])) r = p[i];
    return r;
}

/* The group's members from g->a0 into g->a for one pass: the lanes `on`, the identity in the
 * others. */
static void lanes_start(minv_dtype t, int64_t n, const int *on, lanes_scratch *g) {
    memcpy(g->a, g->a0, (size_t)n * (size_t)n * 32);
    for (int l = 0; l < minv_lanes(t); l++)
        if (!on[l]) minv_lanes_fill(t, n, n, l, g->a);
}

/* Whether the member of a lane whose kernel returned info goes on to its outcome: a failure
 * sets its status and column, or, on the SPD path under AUTO, marks it for the general pass. */
static int lane_done(const job *jb, int64_t m, int64_t info, int spd, int *redo) {
    if (info > 0 && spd && jb->method == MINV_METHOD_AUTO) {
        *redo = 1;
        return 0;
    }
    if (info > 0) {
        jb->res->status[m] = spd ? MINV_ERR_NOT_SPD : MINV_ERR_SINGULAR;
        jb->res->info[m] = info - 1;
        return 0;
    }
    jb->res->spd[m] = (int8_t)spd;
    return 1;
}

/* One pass of a group: the inversion of the members mem[l] of the lanes `on`, all of order n
 * on path spd, their outcomes, and their inverses written out; redo[l] = 1 for a member the
 * SPD path refuses under AUTO (the next pass takes it to LU, as the one-member path does). */
static void lanes_invert(const job *jb, const int64_t *mem, int64_t n, const int *on, int spd,
                         const minv_lanes_checks *ck, scratch *w, lanes_scratch *g, int *redo) {
    const minv_dtype tc = jb->tc;
    const int lanes = minv_lanes(tc), mode = jb->ctx->residual_mode;
    int64_t info[MINV_LANES_MAX];
    lanes_start(tc, n, on, g);
    if (mode == 1) {
        minv_probe_vectors(w->v, n, MINV_PROBES);
        minv_lanes_probes(tc, n, g->a, w->v, MINV_PROBES, g->av);
    }
    if (spd) minv_lanes_sweep(tc, n, g->a, g->f, info);
    else minv_lanes_gauss_jordan(tc, n, g->a, g->ipiv, info);
    minv_lanes_times(tc, n, g->a, g->av, mode == 1 ? MINV_PROBES : 0, g->y, g->rowabs);
    int written[MINV_LANES_MAX] = {0};
    for (int l = 0; l < lanes; l++) {
        const int64_t m = mem[l];
        if (!on[l] || !(written[l] = lane_done(jb, m, info[l], spd, &redo[l]))) continue;
        wide_lane(g->rowabs, n, lanes, l, g->col);
        const double xnorm = largest_or_nan(g->col, n);
        jb->res->rcond[m] = 1.0 / (ck->anorm_inf[l] * xnorm);
        if (!(jb->res->rcond[m] >= minv_eps(tc)))
            jb->res->status[m] = MINV_ERR_SINGULAR; /* singular to working precision; still written */
        if (mode == 1) {
            wide_lane(g->y, n * MINV_PROBES, lanes, l, g->col);
            jb->res->residual[m] = minv_probe_ratio(n, MINV_PROBES, w->v, g->col, xnorm, ck->anorm_inf[l]);
        } else if (mode == 2) {
            minv_lanes_unpack(tc, n, n, g->a0, l, w->c, n);
            minv_lanes_unpack(tc, n, n, g->a, l, w->s, n);
            minv_mat am = {tc, n, n, n, w->c}, xm = {tc, n, n, n, w->s};
            double r = -1;
            if (minv_residual_inverse_full(NULL, &am, &xm, minv_norm1(&am), &r) == MINV_SUCCESS)
                jb->res->residual[m] = r;
        }
    }
    lanes_scatter_group(jb->x, mem, written, tc, n, n, g->a, w->s);
}

/* One pass of a group's solves, as lanes_invert: B from g->u (its column sums in g->bsums),
 * Hager's start vector the column after it, solved with it. */
static void lanes_solve(const job *jb, const int64_t *mem, int64_t n, const int *on, int spd,
                        const minv_lanes_checks *ck, scratch *w, lanes_scratch *g, int *redo) {
    const minv_dtype tc = jb->tc;
    const int lanes = minv_lanes(tc), mode = jb->ctx->residual_mode;
    const int64_t nrhs = jb->b->cols, cols = nrhs + 1;
    int64_t info[MINV_LANES_MAX];
    double min_diag[MINV_LANES_MAX];
    int finite[MINV_LANES_MAX];
    lanes_start(tc, n, on, g);
    memcpy(g->b, g->u, (size_t)n * (size_t)nrhs * 32);
    const size_t vec = 32 / (size_t)tc, hager = (size_t)nrhs * (size_t)n * vec;
    for (size_t k = 0; k < (size_t)n * vec; k++) {
        if (tc == MINV_R64) ((double *)g->b)[hager + k] = 1.0 / (double)n;
        else ((float *)g->b)[hager + k] = 1.0f / (float)n;
    }
    if (spd) {
        minv_lanes_potrf(tc, n, g->a, info, min_diag);
        minv_lanes_potrs(tc, n, cols, g->a, g->b);
    } else {
        minv_lanes_getrf(tc, n, g->a, g->ipiv, info, min_diag);
        minv_lanes_getrs(tc, n, cols, g->a, g->ipiv, g->b);
    }
    minv_lanes_column_sums(tc, n, cols, g->b, g->xsums, finite);
    double worst[MINV_LANES_MAX] = {0};
    if (mode > 0) { /* the sampled columns for every lane at once */
        const int64_t samples = minv_residual_columns(mode, nrhs);
        const size_t colbytes = (size_t)n * 32;
        for (int64_t s = 0; s < samples; s++) {
            const int64_t j = minv_residual_column(s, samples, nrhs);
            const char *xj = (const char *)g->b + (size_t)j * colbytes, *bj = (const char *)g->u + (size_t)j * colbytes;
            minv_lanes_residual(tc, n, g->a0, xj, bj, g->y);
            for (int l = 0; l < lanes; l++) {
                if (!on[l] || info[l] > 0) continue;
                double *r = g->col, *x = r + n, *b = x + n;
                wide_lane(g->y, n, lanes, l, r);
                lane_column(tc, xj, n, l, x);
                lane_column(tc, bj, n, l, b);
                const double q = minv_solve_column_ratio(n, r, x, b, ck->anorm_inf[l]);
                if (q > worst[l] || isnan(q)) worst[l] = q;
            }
        }
    }
    int written[MINV_LANES_MAX] = {0};
    for (int l = 0; l < lanes; l++) {
        const int64_t m = mem[l];
        if (!on[l] || !(written[l] = lane_done(jb, m, info[l], spd, &redo[l]))) continue;
        /* lower bounds on ||A^-1||_1: the factor's, each column's ||x_j||_1 / ||b_j||_1, Hager's */
        double bound = spd ? 1 / (min_diag[l] * min_diag[l]) : 1 / (min_diag[l] * (double)n);
        for (int64_t j = 0; j <= nrhs; j++) {
            const double xn = g->xsums[j * lanes + l], bn = j < nrhs ? g->bsums[j * lanes + l] : 1;
            if (bn > 0 && isfinite(xn)) bound = fmax(bound, xn / bn);
        }
        const double rcond = minv_cpu_rcond(ck->anorm_1[l], bound);
        jb->res->rcond[m] = rcond;
        if (rcond < minv_eps(tc))
            jb->res->status[m] = MINV_ERR_SINGULAR;
        if (mode > 0)
            jb->res->residual[m] = worst[l];
    }
    lanes_scatter_group(jb->x, mem, written, tc, n, nrhs, g->b, w->t);
}

/* The members mem[l] (-1: an empty lane), all of order n > 0, side by side: gathered straight
 * into the lanes and checked there, then the SPD ones computed together, then the general ones
 * with those the SPD path refused under AUTO. Each lane's arithmetic is its own, so a member's
 * answer does not depend on its neighbours or on where the batch was cut. */
static void run_lanes(const job *jb, const int64_t *mem, int64_t n, scratch *w, lanes_scratch *g) {
    const minv_dtype tc = jb->tc;
    const int lanes = minv_lanes(tc);
    const int symmetry = jb->method == MINV_METHOD_AUTO || jb->method == MINV_METHOD_CHOLESKY;
    minv_lanes_checks ck;
    int full = jb->a->dtype == tc && !jb->a->index;
    for (int l = 0; l < lanes; l++) full &= mem[l] >= 0;
    if (full) { /* whole vectors of every member at a time */
        const void *src[MINV_LANES_MAX];
        int64_t lds[MINV_LANES_MAX];
        for (int l = 0; l < lanes; l++) {
            const minv_mat mm = minv_batch_member(jb->a, mem[l]);
            src[l] = mm.data;
            lds[l] = mm.ld;
        }
        minv_lanes_pack_scan(tc, n, src, lds, g->a0, symmetry, g->rowabs, &ck);
    } else {
        for (int l = 0; l < lanes; l++) {
            if (mem[l] >= 0) lanes_gather(jb->a, mem[l], tc, n, n, l, g->a0, w->s);
            else minv_lanes_fill(tc, n, n, l, g->a0);
        }
        minv_lanes_scan(tc, n, g->a0, symmetry, g->rowabs, &ck);
    }
    int path[MINV_LANES_MAX];
    for (int l = 0; l < lanes; l++)
        path[l] = mem[l] < 0 ? -1 : member_path(jb, mem[l], ck.bad_col[l], ck.asym[l], ck.max_abs[l], ck.diag_positive[l]);
    if (jb->b) { /* the right-hand sides of the members that go on */
        const int64_t nrhs = jb->b->cols;
        int finite[MINV_LANES_MAX];
        for (int l = 0; l < lanes; l++) {
            if (path[l] >= 0) lanes_gather(jb->b, mem[l], tc, n, nrhs, l, g->u, w->t);
            else minv_lanes_fill(tc, n, nrhs, l, g->u);
        }
        minv_lanes_column_sums(tc, n, nrhs, g->u, g->bsums, finite);
        for (int l = 0; l < lanes; l++)
            if (path[l] >= 0 && !finite[l]) {
                jb->res->status[mem[l]] = MINV_ERR_NOT_FINITE;
                path[l] = -1;
            }
    }
    int on[MINV_LANES_MAX], redo[MINV_LANES_MAX] = {0}, any = 0;
    for (int l = 0; l < lanes; l++) any |= on[l] = path[l] == 1;
    if (any) (jb->b ? lanes_solve : lanes_invert)(jb, mem, n, on, 1, &ck, w, g, redo);
    any = 0;
    for (int l = 0; l < lanes; l++) any |= on[l] = path[l] == 0 || redo[l];
    if (any) (jb->b ? lanes_solve : lanes_invert)(jb, mem, n, on, 0, &ck, w, g, redo);
}

/* Members m0 .. m0 + count - 1 (count <= lanes): those of one order side by side, each order
 * in turn (members of order 0 have nothing to do). */
static void run_group(const job *jb, int64_t m0, int count, scratch *w, lanes_scratch *g) {
    const int lanes = minv_lanes(jb->tc);
    int done[MINV_LANES_MAX] = {0};
    for (int first = 0; first < count; first++) {
        const int64_t n = minv_batch_order(jb->a, m0 + first);
        if (done[first] || n == 0) continue;
        int64_t mem[MINV_LANES_MAX];
        for (int l = 0; l < lanes; l++) {
            mem[l] = -1;
            if (l >= first && l < count && !done[l] && minv_batch_order(jb->a, m0 + l) == n) {
                mem[l] = m0 + l;
                done[l] = 1;
            }
        }
        run_lanes(jb, mem, n, w, g);
    }
}

/* Threads over the members: none for fewer members than threads (a threaded BLAS does better
 * inside each), and only as many as have a few hundred microseconds of work each. */
static int thread_count(const job *jb) {
    const double per_thread = 1e6;
    double flops = 0;
    if (jb->a->count < jb->ctx->cpu_threads)
        return 1;
    for (int64_t m = 0; m < jb->a->count && flops < per_thread * jb->ctx->cpu_threads; m++)
        flops += minv_batch_flops(0, minv_batch_order(jb->a, m), jb->b ? jb->b->cols : 0);
    const double t = flops / per_thread;
    return t < 1 ? 1 : t < jb->ctx->cpu_threads ? (int)t : jb->ctx->cpu_threads;
}

/* Every member, in groups (group_size) spread over the threads; scratch per thread for a
 * group of the largest members. */
static minv_status run(const job *jb, minv_batch_report *report) {
    const int64_t count = jb->a->count, nrhs = jb->b ? jb->b->cols : 0;
    const int threads = thread_count(jb), size = group_size(jb);
    const int64_t groups = (count + size - 1) / size;
    int failed = 0;
    if (threads > 1) la_threads_single_begin();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        minv_worker guard;
        minv_worker_begin(&guard);
        scratch w;
        lanes_scratch g = {0};
        int ok = scratch_alloc(&w, jb->tc, jb->a->rows, nrhs, jb->method == MINV_METHOD_GAUSS_JORDAN) &&
                 (size == 1 || lanes_alloc(&g, jb->tc, jb->a->rows, nrhs));
        if (ok) {
#pragma omp for schedule(dynamic, size > 1 ? 4 : 16)
            for (int64_t q = 0; q < groups; q++) {
                const int64_t m0 = q * size;
                if (size == 1) (jb->b ? solve_member : invert_member)(jb, m0, &w);
                else run_group(jb, m0, (int)(count - m0 < size ? count - m0 : size), &w, &g);
            }
        } else {
#pragma omp atomic write
            failed = 1;
        }
        scratch_free(&w);
        lanes_free(&g);
        minv_worker_end(&guard);
    }
    if (threads > 1) la_threads_single_end();
    if (failed)
        return minv_fail(jb->ctx, MINV_ERR_ALLOC, "cannot allocate the scratch of members of order %lld",
                         (long long)jb->a->rows);
    report->residual_kind = jb->ctx->residual_mode;
    minv_batch_note(report, "CPU: %lld member%s on %d thread%s, %s%s", (long long)count,
                    count == 1 ? "" : "s", threads, threads == 1 ? "" : "s",
                    jb->method == MINV_METHOD_GAUSS_JORDAN ? "Gauss-Jordan in each"
                    : size > 1 ? "small members side by side in vector lanes" : "LAPACK in each",
                    jb->tc != jb->a->dtype ? ", computed in double" : "");
    return MINV_SUCCESS;
}

minv_status minv_cpu_invert_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                    const minv_batch *a, const minv_batch *x,
                                    minv_batch_results *res, minv_batch_report *report) {
    job jb = {ctx, method, compute, a, NULL, x, res};
    report->method = method == MINV_METHOD_CHOLESKY ? method : general_method(method);
    return run(&jb, report);
}

minv_status minv_cpu_solve_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                   const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                   minv_batch_results *res, minv_batch_report *report) {
    job jb = {ctx, method, compute, a, b, x, res};
    report->method = method == MINV_METHOD_CHOLESKY ? method : general_method(method);
    return run(&jb, report);
}
