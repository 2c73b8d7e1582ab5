/* Batches on the CPU: members in parallel over the context's threads, each gathered into a
 * dense scratch matrix in the compute precision (through its subset index, if any), checked,
 * factored by LAPACK (potrf for the SPD path, getrf for LU) or inverted by Gauss-Jordan, and
 * scattered back in the storage precision. A member's failure is its own: its status and
 * column are recorded and its output is left alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "lapack.h"

typedef struct {
    int64_t bad_col;
    double anorm_inf, asym, max_abs;
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

/* getri's workspace per column: its blocked form needs n times its block size, 64 at most. */
enum { GETRI_BLOCK = 64 };

/* One thread's scratch, sized for the largest member. */
typedef struct {
    void *s, *c, *g;  /* n x n: the member and its factor or inverse; a copy of it for the full
                         residual; the Gauss-Jordan inverse */
    void *t, *u;      /* n x nrhs: right-hand sides and Gauss-Jordan products */
    void *f;          /* n: a column */
    void *work;       /* GETRI_BLOCK * n: getri's */
    int *ipiv;
    int64_t *steps;
    int8_t *used;
    double *rowabs, *v, *av, *w; /* residual probes */
} scratch;

/* Only what the call will use: the copy for the full residual, the Gauss-Jordan inverse. */
static int scratch_alloc(scratch *w, minv_dtype t, int64_t n, int64_t nrhs, int copy, int gauss_jordan) {
    const size_t nn = (size_t)(n > 0 ? n : 1), es = (size_t)t, m = (size_t)(nrhs > 0 ? nrhs : 1);
    memset(w, 0, sizeof *w);
    w->s = malloc(nn * nn * es);
    w->c = copy ? malloc(nn * nn * es) : NULL;
    w->g = gauss_jordan ? malloc(nn * nn * es) : NULL;
    w->t = malloc(nn * m * es);
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
    return w->s && (w->c || !copy) && (w->g || !gauss_jordan) && w->t && w->u && w->f && w->work && w->ipiv && w->steps && w->used && w->rowabs && w->v &&
           w->av && w->w;
}

static void scratch_free(scratch *w) {
    free(w->s); free(w->c); free(w->g); free(w->t); free(w->u); free(w->f); free(w->work); free(w->ipiv); free(w->steps);
    free(w->used); free(w->rowabs); free(w->v); free(w->av); free(w->w);
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

/* Gathers member m into w->s and checks it. Returns 0 with the member's status set when it
 * fails here; else 1 with *spd telling the path. */
static int load_member(const job *jb, int64_t m, int64_t n, scratch *w, member_scan *sc, int *spd) {
    minv_batch_gather(jb->a, m, jb->tc, w->s, n);
    scan(jb->tc, w->s, n, jb->method == MINV_METHOD_AUTO || jb->method == MINV_METHOD_CHOLESKY, w->rowabs, sc);
    if (sc->bad_col >= 0) {
        jb->res->status[m] = MINV_ERR_NOT_FINITE;
        jb->res->info[m] = sc->bad_col;
        return 0;
    }
    const int symmetric = sc->asym <= minv_symmetry_tol(jb->ctx, jb->tc) * sc->max_abs;
    if (jb->method == MINV_METHOD_CHOLESKY && !symmetric) {
        jb->res->status[m] = MINV_ERR_NOT_SPD;
        return 0;
    }
    *spd = jb->method == MINV_METHOD_CHOLESKY || (jb->method == MINV_METHOD_AUTO && symmetric && sc->diag_positive);
    return 1;
}

/* Factors w->s (n x n): potrf on the SPD path, which under AUTO hands an indefinite member to
 * getrf; Gauss-Jordan inverts into w->g at once. Returns 0 with the status set on failure. */
static int factor_member(const job *jb, int64_t m, int64_t n, scratch *w, int *spd) {
    const minv_dtype tc = jb->tc;
    if (*spd) {
        int info = la_potrf(tc, n, w->s, n);
        if (info == 0)
            return 1;
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
        col = la_getrf(tc, n, n, w->s, n, w->ipiv) - 1;
    if (col >= 0) {
        jb->res->status[m] = MINV_ERR_SINGULAR;
        jb->res->info[m] = col;
        return 0;
    }
    return 1;
}

/* Sampled residual of an inverse in w->s: probes A v are taken before the factorisation. */
static void probes_before(const job *jb, int64_t n, scratch *w) {
    minv_mat s = {jb->tc, n, n, n, w->s};
    minv_probe_vectors(w->v, n, MINV_PROBES);
    for (int p = 0; p < MINV_PROBES; p++)
        minv_gemv_double(&s, w->v + (size_t)p * (size_t)n, w->av + (size_t)p * (size_t)n, NULL);
}

static double probes_after(const job *jb, int64_t n, scratch *w, const void *x, double anorm_inf) {
    minv_mat xm = {jb->tc, n, n, n, (void *)x};
    for (int p = 0; p < MINV_PROBES; p++)
        minv_gemv_double(&xm, w->av + (size_t)p * (size_t)n, w->w + (size_t)p * (size_t)n, p == 0 ? w->rowabs : NULL);
    double xnorm = 0;
    for (int64_t i = 0; i < n; i++) if (w->rowabs[i] > xnorm) xnorm = w->rowabs[i];
    return minv_probe_ratio(n, MINV_PROBES, w->v, w->w, xnorm, anorm_inf);
}

static void invert_member(const job *jb, int64_t m, scratch *w) {
    const int64_t n = minv_batch_order(jb->a, m);
    const minv_dtype tc = jb->tc;
    const int mode = jb->ctx->residual_mode;
    member_scan sc;
    int spd = 0;
    if (n == 0 || !load_member(jb, m, n, w, &sc, &spd))
        return;
    if (mode == 1)
        probes_before(jb, n, w);
    if (mode == 2)
        memcpy(w->c, w->s, (size_t)n * (size_t)n * (size_t)tc);
    if (!factor_member(jb, m, n, w, &spd))
        return;
    /* the inverse: in w->s after potri/getri, in w->g after Gauss-Jordan */
    void *inv = w->s;
    if (spd) {
        la_potri(tc, n, w->s, n);
        minv_mat s = {tc, n, n, n, w->s};
        minv_mat_mirror_lower(&s);
    } else if (general_method(jb->method) == MINV_METHOD_LU) {
        la_getri(tc, n, w->s, n, w->ipiv, w->work, GETRI_BLOCK * n);
    } else {
        inv = w->g;
    }
    jb->res->spd[m] = (int8_t)spd;
    jb->res->rcond[m] = 1.0 / (sc.anorm_inf * norm_inf(tc, inv, n, w->rowabs));
    if (!(jb->res->rcond[m] >= minv_eps(tc)))
        jb->res->status[m] = MINV_ERR_SINGULAR; /* singular to working precision; still written */
    if (mode == 1) {
        jb->res->residual[m] = probes_after(jb, n, w, inv, sc.anorm_inf);
    } else if (mode == 2) {
        minv_mat am = {tc, n, n, n, w->c}, xm = {tc, n, n, n, inv};
        double r = -1;
        if (minv_residual_inverse_full(NULL, &am, &xm, minv_norm1(&am), &r) == MINV_SUCCESS)
            jb->res->residual[m] = r;
    }
    minv_batch_scatter(jb->x, m, tc, inv, n);
}

static void solve_member(const job *jb, int64_t m, scratch *w) {
    const int64_t n = minv_batch_order(jb->a, m), nrhs = jb->b->cols;
    const minv_dtype tc = jb->tc;
    member_scan sc;
    int spd = 0;
    if (n == 0 || !load_member(jb, m, n, w, &sc, &spd))
        return;
    minv_batch_gather(jb->b, m, tc, w->t, n);
    minv_mat bm = {tc, n, nrhs, n, w->t}, am = {tc, n, n, n, w->s};
    int64_t bi, bj;
    double bv;
    if (!minv_all_finite(&bm, &bi, &bj, &bv)) {
        jb->res->status[m] = MINV_ERR_NOT_FINITE;
        return;
    }
    const double anorm_1 = minv_norm1(&am);
    if (!factor_member(jb, m, n, w, &spd))
        return;
    jb->res->spd[m] = (int8_t)spd;
    double rcond = -1;
    void *sol = w->t;
    if (spd) {
        la_pocon(tc, n, w->s, n, anorm_1, &rcond);
        la_potrs(tc, n, nrhs, w->s, n, w->t, n);
    } else if (general_method(jb->method) == MINV_METHOD_LU) {
        la_gecon(tc, n, w->s, n, anorm_1, &rcond);
        la_getrs(tc, n, nrhs, w->s, n, w->ipiv, w->t, n);
    } else { /* Gauss-Jordan: the inverse in w->g, times B */
        rcond = 1.0 / (sc.anorm_inf * norm_inf(tc, w->g, n, w->rowabs));
        la_gemm(tc, 'N', 'N', n, nrhs, n, 1.0, w->g, n, w->t, n, 0.0, w->u, n);
        sol = w->u;
    }
    jb->res->rcond[m] = rcond;
    if (rcond >= 0 && rcond < minv_eps(tc))
        jb->res->status[m] = MINV_ERR_SINGULAR;
    minv_batch_scatter(jb->x, m, tc, sol, n);
    minv_mat a0 = minv_batch_member(jb->a, m), b0 = minv_batch_member(jb->b, m), x0 = minv_batch_member(jb->x, m);
    double r = -1;
    if (jb->ctx->residual_mode > 0 && b0.data != x0.data &&
        minv_residual_solve(NULL, jb->ctx->residual_mode, &a0, &b0, &x0, &r) == MINV_SUCCESS)
        jb->res->residual[m] = r;
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

/* Every member by `one`, in parallel; scratch per thread for the largest member. */
static minv_status run(const job *jb, void (*one)(const job *, int64_t, scratch *), minv_batch_report *report) {
    const int64_t count = jb->a->count, nrhs = jb->b ? jb->b->cols : 0;
    const int threads = thread_count(jb);
    int failed = 0;
    if (threads > 1) la_threads_single_begin();
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        minv_worker guard;
        minv_worker_begin(&guard);
        scratch w;
        if (scratch_alloc(&w, jb->tc, jb->a->rows, nrhs, jb->ctx->residual_mode == 2 && !jb->b,
                          jb->method == MINV_METHOD_GAUSS_JORDAN)) {
#pragma omp for schedule(dynamic, 16)
            for (int64_t m = 0; m < count; m++)
                one(jb, m, &w);
        } else {
#pragma omp atomic write
            failed = 1;
        }
        scratch_free(&w);
        minv_worker_end(&guard);
    }
    if (threads > 1) la_threads_single_end();
    if (failed)
        return minv_fail(jb->ctx, MINV_ERR_ALLOC, "cannot allocate the scratch of members of order %lld",
                         (long long)jb->a->rows);
    report->residual_kind = jb->ctx->residual_mode;
    minv_batch_note(report, "CPU: %lld member%s on %d thread%s, %s in each%s", (long long)count,
                    count == 1 ? "" : "s", threads, threads == 1 ? "" : "s", jb->method == MINV_METHOD_GAUSS_JORDAN ? "Gauss-Jordan" : "LAPACK",
                    jb->tc != jb->a->dtype ? ", computed in double" : "");
    return MINV_SUCCESS;
}

minv_status minv_cpu_invert_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                    const minv_batch *a, const minv_batch *x,
                                    minv_batch_results *res, minv_batch_report *report) {
    job jb = {ctx, method, compute, a, NULL, x, res};
    report->method = method == MINV_METHOD_CHOLESKY ? method : general_method(method);
    return run(&jb, invert_member, report);
}

minv_status minv_cpu_solve_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                   const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                   minv_batch_results *res, minv_batch_report *report) {
    job jb = {ctx, method, compute, a, b, x, res};
    report->method = method == MINV_METHOD_CHOLESKY ? method : general_method(method);
    return run(&jb, solve_member, report);
}
