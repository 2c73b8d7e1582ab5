/* FP traps in minv's worker threads: a program enables traps in every thread of an
 * OpenMP region before it calls minv, so the threads OpenMP then lends to minv's own regions
 * start with traps on. Batched members near overflow or holding a NaN, and a pivoted
 * tridiagonal inversion on a subnormal diagonal, must end in statuses, never SIGFPE, and every
 * thread must keep its traps and find no flag raised. */
#define _GNU_SOURCE
#include <fenv.h>
#include <math.h>
#include <stdlib.h>
#include <omp.h>

#include "testutil.h"

enum { TRAPS = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW, THREADS = 2 };

/* Traps on in every thread of a team of THREADS (the team minv's regions will reuse). */
static void enable_traps_everywhere(void) {
#pragma omp parallel num_threads(THREADS)
    {
        feclearexcept(FE_ALL_EXCEPT);
        feenableexcept(TRAPS);
    }
}

/* Every thread of the team still has its traps and no flag but inexact. */
static void check_threads_untouched(const char *after) {
    int bad = 0;
#pragma omp parallel num_threads(THREADS) reduction(+ : bad)
    {
        if (fegetexcept() != TRAPS || fetestexcept(FE_ALL_EXCEPT & ~FE_INEXACT)) bad++;
    }
    CHECK(bad == 0, "after %s: %d thread(s) lost their traps or kept a flag", after, bad);
}

static void batches(minv_context *ctx) {
    const int64_t k = 32, nbatch = 256, kk = k * k;
    tu_rng rng;
    tu_seed(&rng, 5);
    double *a = malloc(sizeof(double) * (size_t)(kk * nbatch)), *x = malloc(sizeof(double) * (size_t)(kk * nbatch));
    double *b = malloc(sizeof(double) * (size_t)(k * nbatch));
    minv_status *st = malloc(sizeof *st * (size_t)nbatch);
    for (int64_t m = 0; m < nbatch; m++) {
        double *am = a + m * kk;
        tu_spd(&rng, k, am, k);
        if (m % 7 == 3) /* near overflow: row sums and norms overflow inside */
            for (int64_t e = 0; e < kk; e++) am[e] *= 1e306;
        if (m % 11 == 5) am[k + 2] = NAN;
    }
    tu_rect(&rng, k, nbatch, b, k);
    minv_status s = minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, a, k, kk, x, k, kk, st, NULL);
    CHECK(s == MINV_ERR_NOT_FINITE, "invert: %s", minv_last_error(ctx));
    CHECK(st[5] == MINV_ERR_NOT_FINITE && st[0] == MINV_SUCCESS, "invert member statuses %d %d", st[5], st[0]);
    s = minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, 1, nbatch, a, k, kk, b, k, k, x, k, k, st, NULL);
    CHECK(s == MINV_ERR_NOT_FINITE, "solve: %s", minv_last_error(ctx));
    CHECK(st[16] == MINV_ERR_NOT_FINITE && st[1] == MINV_SUCCESS, "solve member statuses %d %d", st[16], st[1]);
    free(a); free(x); free(b); free(st);
}

static void subnormal_tridiagonal(minv_context *ctx) {
    const int64_t n = 2048; /* large enough for the pivoted inversion to use every thread */
    double *dl = malloc(sizeof(double) * (size_t)n), *d = malloc(sizeof(double) * (size_t)n);
    double *du = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)(n * n));
    for (int64_t i = 0; i < n; i++) {
        d[i] = 4.9e-322 * (double)(1 + i % 5); /* subnormal */
        dl[i] = 1e-3;
        du[i] = 1e300;
    }
    minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_TRIDIAGONAL_PIVOTED);
    minv_report rep;
    minv_status s = minv_invert_tridiagonal_d(ctx, n, dl, d, du, x, n, &rep);
    CHECK(s == MINV_SUCCESS || s == MINV_ERR_SINGULAR, "subnormal tridiagonal: %s", minv_last_error(ctx));
    minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_TRIDIAGONAL_AUTO);
    free(dl); free(d); free(du); free(x);
}

/* A large matrix near overflow: the analysis' threads sum and compare huge entries. */
static void large_analysis(minv_context *ctx) {
    const int64_t n = 1024;
    tu_rng rng;
    tu_seed(&rng, 9);
    double *a = tu_alloc(n, n, n);
    for (int64_t e = 0; e < n * n; e++) a[e] = 1e307 * tu_uniform(&rng);
    minv_analysis an;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    a[7 * n + 3] = INFINITY;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(!an.finite && an.first_bad_row == 3 && an.first_bad_col == 7, "first bad (%lld, %lld)",
          (long long)an.first_bad_row, (long long)an.first_bad_col);
    free(a);
}

int main(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = THREADS;
    minv_context *ctx;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) return 1;
    enable_traps_everywhere();
    batches(ctx);
    check_threads_untouched("the batches");
    subnormal_tridiagonal(ctx);
    check_threads_untouched("the tridiagonal inversion");
    large_analysis(ctx);
    check_threads_untouched("the analysis");
#pragma omp parallel num_threads(THREADS)
    fedisableexcept(TRAPS);
    minv_destroy(ctx);
    return tu_finish("test_fptrap_workers");
}
