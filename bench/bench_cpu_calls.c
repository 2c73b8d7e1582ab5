/* Per-call cost of minv on the CPU against the LAPACK calls it replaces, in the
 * same run, on the same data:
 *   calls    minv_solve_d / minv_solve_inplace_d and minv_invert_d (AUTO, checks on: analysis,
 *            rcond, sampled residual) against dposv / dgesv and dpotrf + dpotri / dgetrf +
 *            dgetri, SPD and general matrices, 1 and 30 right-hand sides, and solves of an
 *            ill-conditioned SPD one (the condition estimator's case), on one thread: run
 *            it with OPENBLAS_NUM_THREADS=1 (the context has cpu_threads = 1).
 *   batched  minv_solve_batched_d and minv_invert_batched_d on every core against an OpenMP
 *            loop of the same LAPACK calls over the members, as DA codes write it.
 * Each call is timed alone (LAPACK's input copies are made before its timer starts, and they
 * touch its buffers as minv's calls touch its own), alternating minv and LAPACK, after a
 * warm-up; the table gives medians in microseconds (the clock's own cost subtracted), the
 * ratio minv / LAPACK, and the largest relative difference between the two answers.
 * Usage: bench_cpu_calls [calls|batched|all] [--sizes 8,16,...] [--ks 8,16,...] [--nbatch N]
 *                        [--seconds S] (time per case and side, default 0.3)
 *                        [--no-report] (minv's calls given no report, as a drop-in for LAPACK
 *                        is called: the checks run, the call is not timed or described) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_common.h"
#include "minv.h"

typedef size_t flen;
void dposv_(const char *, const int *, const int *, double *, const int *, double *, const int *, int *, flen);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, flen);
void dpotri_(const char *, const int *, double *, const int *, int *, flen);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);

static double seconds_per_case = 0.3;
static int with_report = 1;

/* ---- one call of each side ---- */

typedef enum { SOLVE, SOLVE_INPLACE, INVERT } operation;
static const char *operation_name[] = {"solve", "solve in place", "invert"};

typedef struct {
    operation op;
    int spd;
    int n, nrhs;
    double *a, *b;   /* the input, never written */
    double *x;       /* minv's result */
    double *f, *y;   /* LAPACK's: factor (or inverse), solution */
    int *ipiv;
    double *work;
    int lwork;
    minv_context *ctx;
    minv_report report;
} call_case;

static void lapack_prepare(call_case *c) {
    memcpy(c->f, c->a, sizeof(double) * (size_t)c->n * (size_t)c->n);
    if (c->op != INVERT) memcpy(c->y, c->b, sizeof(double) * (size_t)c->n * (size_t)c->nrhs);
}

static void lapack_run(call_case *c) {
    int info = 0;
    if (c->op != INVERT && c->spd) dposv_("L", &c->n, &c->nrhs, c->f, &c->n, c->y, &c->n, &info, 1);
    else if (c->op != INVERT) dgesv_(&c->n, &c->nrhs, c->f, &c->n, c->ipiv, c->y, &c->n, &info);
    else if (c->spd) {
        dpotrf_("L", &c->n, c->f, &c->n, &info, 1);
        dpotri_("L", &c->n, c->f, &c->n, &info, 1);
    } else {
        dgetrf_(&c->n, &c->n, c->f, &c->n, c->ipiv, &info);
        dgetri_(&c->n, c->f, &c->n, c->ipiv, c->work, &c->lwork, &info);
    }
    if (info != 0) {
        fprintf(stderr, "bench_cpu_calls: LAPACK info %d\n", info);
        exit(3);
    }
}

static void minv_prepare(call_case *c) {
    if (c->op == SOLVE_INPLACE) memcpy(c->x, c->b, sizeof(double) * (size_t)c->n * (size_t)c->nrhs);
}

static void minv_run(call_case *c) {
    minv_status st;
    minv_report *r = with_report ? &c->report : NULL;
    if (c->op == SOLVE)
        st = minv_solve_d(c->ctx, MINV_METHOD_AUTO, c->n, c->nrhs, c->a, c->n, c->b, c->n, c->x, c->n, r);
    else if (c->op == SOLVE_INPLACE)
        st = minv_solve_inplace_d(c->ctx, MINV_METHOD_AUTO, c->n, c->nrhs, c->a, c->n, c->x, c->n, r);
    else
        st = minv_invert_d(c->ctx, MINV_METHOD_AUTO, c->n, c->a, c->n, c->x, c->n, r);
    bench_check(c->ctx, st, operation_name[c->op]);
}

/* The clock's own cost, to subtract from each timed call. */
static double clock_cost(void) {
    double t[101];
    for (int k = 0; k < 101; k++) {
        const double t0 = bench_now();
        t[k] = bench_now() - t0;
    }
    return bench_median(t, 101);
}

/* Median seconds of each side: calls alternate (LAPACK first on even samples, minv first on
 * odd ones), each timed alone; the number of samples fills seconds_per_case per side. */
static void measure(call_case *c, double overhead, double *t_minv, double *t_lapack) {
    double warm = bench_now(), per_call;
    int calls = 0;
    do {
        lapack_prepare(c);
        lapack_run(c);
        minv_prepare(c);
        minv_run(c);
        calls++;
    } while (bench_now() - warm < 0.05 && calls < 1000);
    per_call = (bench_now() - warm) / (2 * calls);
    int samples = (int)(seconds_per_case / per_call);
    samples = samples < 5 ? 5 : samples > 2001 ? 2001 : samples | 1;
    double *tm = malloc(sizeof(double) * (size_t)samples), *tl = malloc(sizeof(double) * (size_t)samples);
    for (int s = 0; s < samples; s++) {
        for (int side = 0; side < 2; side++) {
            const int lapack = (side + s) % 2 == 0;
            if (lapack) lapack_prepare(c);
            else minv_prepare(c);
            const double t0 = bench_now();
            if (lapack) lapack_run(c);
            else minv_run(c);
            const double t = bench_now() - t0 - overhead;
            if (lapack) tl[s] = t;
            else tm[s] = t;
        }
    }
    *t_minv = bench_median(tm, samples);
    *t_lapack = bench_median(tl, samples);
    free(tm);
    free(tl);
}

/* Largest |x - y| relative to max |y|. */
static double rel_diff(const double *x, const double *y, size_t count) {
    double d = 0, m = 0;
    for (size_t k = 0; k < count; k++) {
        d = fmax(d, fabs(x[k] - y[k]));
        m = fmax(m, fabs(y[k]));
    }
    return d / m;
}

/* The matrices: SPD, a SOAR covariance (condition about 40); general, uniform entries with a
 * diagonal shift; and a DA covariance without observation error, SOAR of length 10 grid
 * points alone (rcond about 2e-6 from n = 100), whose solves' rcond bound falls below 1e-4, so
 * that the condition estimator runs (solves only); from order 512, KMS(0.5) (a_ij = 0.5^|i-j|),
 * whose factorisations pass through subnormal numbers from order 1000 or so (30 right-hand
 * sides and the inverse: internal.h says why minv flushes them). */
enum { SPD = 1, GENERAL = 0, SPD_ILL = 2, SPD_KMS = 3 };
static const char *matrix_name[] = {"general", "SPD", "SPD, rcond 2e-6", "SPD, KMS(0.5)"};

static void fill_matrix(double *a, int n, int kind, uint64_t seed) {
    if (kind == SPD_ILL) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const double r = fabs((double)(i - j)) / 10;
                a[(size_t)j * n + i] = exp(-r) * (1 + r);
            }
        return;
    }
    if (kind == SPD_KMS) {
        bench_kms(a, n, 0.5);
        return;
    }
    if (kind == SPD) {
        bench_spd(a, n, seed);
        return;
    }
    bench_random(a, n, n, seed);
    for (int i = 0; i < n; i++) a[(size_t)i * n + i] += sqrt((double)n);
}

/* Which form of rcond a solve's report names: the bound alone (nothing said past the cheap
 * form), Higham's estimate, or the exact norm from the factor's inverse. */
static const char *rcond_form(const minv_report *r) {
    if (strstr(r->reason, "rcond: exact")) return ", rcond exact";
    if (strstr(r->reason, "rcond: Higham's estimate")) return ", rcond estimated";
    if (strstr(r->reason, "rcond: the cheap form")) return ", rcond bound (cheap form)";
    return "";
}

static void run_calls(const int *sizes, int nsizes) {
    const double overhead = clock_cost();
    minv_context *ctx = bench_context(MINV_BACKEND_CPU, 0, 1);
    printf("\n## One call, one thread (clock cost %.0f ns subtracted%s)\n\n", overhead * 1e9,
           with_report ? "" : "; minv's calls timed without a report, the 'minv ran' column from one call with it");
    printf("| n | matrix | operation | nrhs | LAPACK (us) | minv (us) | minv / LAPACK | difference | minv ran |\n");
    printf("|---:|---|---|---:|---:|---:|---:|---:|---|\n");
    for (int s = 0; s < nsizes; s++) {
        const int n = sizes[s];
        call_case c = {0};
        c.n = n;
        c.ctx = ctx;
        const size_t nn = (size_t)n * (size_t)n, big = (size_t)n * (size_t)(n > 30 ? n : 30);
        c.a = malloc(sizeof(double) * nn);
        c.b = malloc(sizeof(double) * (size_t)n * 30);
        c.x = malloc(sizeof(double) * big);
        c.f = malloc(sizeof(double) * nn);
        c.y = malloc(sizeof(double) * (size_t)n * 30);
        c.ipiv = malloc(sizeof(int) * (size_t)n);
        c.lwork = 64 * n;
        c.work = malloc(sizeof(double) * (size_t)c.lwork);
        bench_random(c.b, n, 30, 7);
        static const int kinds[] = {SPD, GENERAL, SPD_ILL, SPD_KMS};
        for (int k = 0; k < (n >= 512 ? 4 : 3); k++) {
            const int spd = kinds[k] != GENERAL;
            c.spd = spd;
            fill_matrix(c.a, n, kinds[k], 11);
            for (int op = SOLVE; op <= INVERT; op++) {
                for (int nrhs = 1; nrhs <= 30; nrhs += 29) {
                    if ((op == INVERT && nrhs > 1) || (kinds[k] == SPD_ILL && op != SOLVE) ||
                        (kinds[k] == SPD_KMS && (op == SOLVE_INPLACE || (op == SOLVE && nrhs == 1))))
                        continue;
                    c.op = (operation)op;
                    c.nrhs = op == INVERT ? 0 : nrhs;
                    double tm, tl;
                    measure(&c, overhead, &tm, &tl);
                    if (!with_report) { /* what ran, from one more call that asks */
                        with_report = 1;
                        minv_prepare(&c);
                        minv_run(&c);
                        with_report = 0;
                    }
                    const double d = rel_diff(c.x, op == INVERT ? c.f : c.y, op == INVERT ? nn : (size_t)n * nrhs);
                    if (op == INVERT && spd) /* LAPACK's inverse is its lower triangle: compare that */
                        for (int j = 0; j < n; j++)
                            for (int i = 0; i < j; i++) c.f[(size_t)j * n + i] = c.x[(size_t)j * n + i];
                    printf("| %d | %s | %s | %d | %.2f | %.2f | %.3f | %.1e | %s%s |\n", n, matrix_name[kinds[k]],
                           operation_name[op], c.nrhs, tl * 1e6, tm * 1e6, tm / tl,
                           op == INVERT && spd ? rel_diff(c.x, c.f, nn) : d, minv_method_name(c.report.method),
                           rcond_form(&c.report));
                    fflush(stdout);
                }
            }
        }
        free(c.a); free(c.b); free(c.x); free(c.f); free(c.y); free(c.ipiv); free(c.work);
    }
    minv_destroy(ctx);
}

/* ---- batches: minv's batched calls against an OpenMP loop of LAPACK calls ---- */

static double lapack_batch(int k, int nbatch, int spd, int invert, const double *a, const double *b, double *x) {
    const double t0 = bench_now();
#pragma omp parallel
    {
        double *f = malloc(sizeof(double) * (size_t)k * k), *work = malloc(sizeof(double) * 64 * (size_t)k);
        int *ipiv = malloc(sizeof(int) * (size_t)k), one = 1, lwork = 64 * k, info;
#pragma omp for schedule(static)
        for (int m = 0; m < nbatch; m++) {
            const double *am = a + (size_t)m * k * k;
            double *xm = x + (size_t)m * (invert ? (size_t)k * k : (size_t)k);
            if (invert) {
                memcpy(xm, am, sizeof(double) * (size_t)k * k);
                if (spd) {
                    dpotrf_("L", &k, xm, &k, &info, 1);
                    dpotri_("L", &k, xm, &k, &info, 1);
                } else {
                    dgetrf_(&k, &k, xm, &k, ipiv, &info);
                    dgetri_(&k, xm, &k, ipiv, work, &lwork, &info);
                }
            } else {
                memcpy(f, am, sizeof(double) * (size_t)k * k);
                memcpy(xm, b + (size_t)m * k, sizeof(double) * (size_t)k);
                if (spd) dposv_("L", &k, &one, f, &k, xm, &k, &info, 1);
                else dgesv_(&k, &one, f, &k, ipiv, xm, &k, &info);
            }
        }
        free(f); free(work); free(ipiv);
    }
    return bench_now() - t0;
}

static void run_batched(const int *ks, int nks, int nbatch) {
    minv_context *ctx = bench_context(MINV_BACKEND_CPU, 0, 0);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("\n## Batches of %d members, %d threads (median of 5 after a warm-up)\n\n", nbatch, threads);
    printf("| k | matrix | operation | LAPACK loop (ms) | minv (ms) | LAPACK / minv | difference |\n");
    printf("|---:|---|---|---:|---:|---:|---:|\n");
    for (int s = 0; s < nks; s++) {
        const int k = ks[s];
        const size_t kk = (size_t)k * k, members = (size_t)nbatch;
        double *a = malloc(sizeof(double) * kk * members), *b = malloc(sizeof(double) * k * members);
        double *x = malloc(sizeof(double) * kk * members), *y = malloc(sizeof(double) * kk * members);
        bench_random(b, k, nbatch, 5);
        for (int spd = 1; spd >= 0; spd--) {
            for (int m = 0; m < nbatch; m++) fill_matrix(a + m * kk, k, spd, 100 + (uint64_t)m);
            for (int invert = 0; invert < 2; invert++) {
                double tm[5], tl[5];
                for (int r = -1; r < 5; r++) {
                    const double l = lapack_batch(k, nbatch, spd, invert, a, b, y);
                    minv_batch_report rep;
                    const double t0 = bench_now();
                    minv_status st = invert ? minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, a, k, (int64_t)kk, x,
                                                                    k, (int64_t)kk, NULL, &rep)
                                            : minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, 1, nbatch, a, k, (int64_t)kk,
                                                                   b, k, k, x, k, k, NULL, &rep);
                    const double t = bench_now() - t0;
                    bench_check(ctx, st, "batched");
                    if (r >= 0) {
                        tm[r] = t;
                        tl[r] = l;
                    }
                }
                double d = 0;
                for (int m = 0; m < nbatch; m++) {
                    double *xm = x + m * (invert ? kk : (size_t)k), *ym = y + m * (invert ? kk : (size_t)k);
                    if (invert && spd) /* LAPACK's inverse is its lower triangle */
                        for (int j = 0; j < k; j++)
                            for (int i = 0; i < j; i++) ym[(size_t)j * k + i] = xm[(size_t)j * k + i];
                    d = fmax(d, rel_diff(xm, ym, invert ? kk : (size_t)k));
                }
                const double mm = bench_median(tm, 5), ml = bench_median(tl, 5);
                printf("| %d | %s | %s | %.2f | %.2f | %.2f | %.1e |\n", k, spd ? "SPD" : "general",
                       invert ? "invert" : "solve, 1 rhs", ml * 1e3, mm * 1e3, ml / mm, d);
                fflush(stdout);
            }
        }
        free(a); free(b); free(x); free(y);
    }
    minv_destroy(ctx);
}

/* ---- the command ---- */

static int parse_list(const char *s, int *out, int max) {
    int count = 0;
    while (*s && count < max) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1) break;
        out[count++] = (int)v;
        s = *end == ',' ? end + 1 : end;
    }
    return count;
}

static void header(int argc, char **argv) {
    char model[256] = "unknown CPU", line[512], date[64];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    if (f) fclose(f);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    printf("# device: %s, %d threads, OPENBLAS_NUM_THREADS=%s, date: %s, command:", model,
#ifdef _OPENMP
           omp_get_max_threads(),
#else
           1,
#endif
           getenv("OPENBLAS_NUM_THREADS") ? getenv("OPENBLAS_NUM_THREADS") : "unset", date);
    for (int k = 0; k < argc; k++) printf(" %s", argv[k]);
    printf("\n");
}

int main(int argc, char **argv) {
    int sizes[64] = {8, 16, 29, 32, 40, 64, 100, 128, 256, 512, 1000, 1024, 2048, 4096}, nsizes = 14;
    int ks[64] = {8, 16, 29, 32, 64}, nks = 5, nbatch = 10000;
    const char *part = "all";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) nsizes = parse_list(argv[++i], sizes, 64);
        else if (!strcmp(argv[i], "--ks") && i + 1 < argc) nks = parse_list(argv[++i], ks, 64);
        else if (!strcmp(argv[i], "--nbatch") && i + 1 < argc) nbatch = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds_per_case = atof(argv[++i]);
        else if (!strcmp(argv[i], "--no-report")) with_report = 0;
        else if (!strcmp(argv[i], "calls") || !strcmp(argv[i], "batched") || !strcmp(argv[i], "all")) part = argv[i];
        else {
            fprintf(stderr, "usage: bench_cpu_calls [calls|batched|all] [--sizes 8,16,...] [--ks 8,16,...] "
                            "[--nbatch N] [--seconds S] [--no-report]\n");
            return 2;
        }
    }
    header(argc, argv);
    if (strcmp(part, "batched")) run_calls(sizes, nsizes);
    if (strcmp(part, "calls")) run_batched(ks, nks, nbatch);
    return 0;
}
