/* minv called from OpenMP code, as DA codes call LAPACK: inside a parallel region (a smaller
 * team than the context asks for, or nested regions), under OMP_THREAD_LIMIT (CTest runs this
 * program a second time with OMP_THREAD_LIMIT=2 OMP_NUM_THREADS=1), and in a parallel loop of
 * local solves with a context per thread. Every answer must equal LAPACK's to rounding and no
 * call may fail. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <omp.h>

#include "testutil.h"

/* One solve, one inversion and one analysis of a seeded matrix on ctx, checked against LAPACK
 * on the same input; returns the number of failed checks (each printed). */
static int check_calls(minv_context *ctx, uint64_t seed, int64_t n, int64_t nrhs, int spd, const char *where) {
    int failures = 0;
    tu_rng rng;
    tu_seed(&rng, seed);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *x = tu_alloc(n, nrhs, n), *ref = tu_alloc(n, nrhs, n);
    double *ainv = tu_alloc(n, n, n), *inv_ref = tu_alloc(n, n, n);
    if (spd) tu_spd(&rng, n, a, n);
    else tu_general(&rng, n, a, n);
    tu_rect(&rng, n, nrhs, b, n);
    minv_report rep;
    minv_status st = minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep);
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "FAIL %s: solve n %lld: %s\n", where, (long long)n, minv_last_error(ctx));
        failures++;
    } else if (tu_lapack_solve(n, nrhs, a, n, b, n, spd, ref, n) != 0 || !(tu_rel_diff(n, nrhs, x, n, ref, n) < 1e-12)) {
        fprintf(stderr, "FAIL %s: solve n %lld differs from LAPACK by %.3g\n", where, (long long)n,
                tu_rel_diff(n, nrhs, x, n, ref, n));
        failures++;
    }
    st = minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, ainv, n, &rep);
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "FAIL %s: invert n %lld: %s\n", where, (long long)n, minv_last_error(ctx));
        failures++;
    } else if (tu_lapack_inverse(n, a, n, spd, inv_ref, n) != 0 || !(tu_rel_diff(n, n, ainv, n, inv_ref, n) < 1e-12)) {
        fprintf(stderr, "FAIL %s: inverse n %lld differs from LAPACK by %.3g\n", where, (long long)n,
                tu_rel_diff(n, n, ainv, n, inv_ref, n));
        failures++;
    }
    minv_analysis an;
    st = minv_analyze_d(ctx, n, a, n, &an);
    const double norm1 = tu_norm1(n, n, a, n);
    if (st != MINV_SUCCESS || !an.finite || an.first_bad_row != -1 || fabs(an.norm_1 - norm1) > 1e-13 * norm1 ||
        an.symmetric != spd) {
        fprintf(stderr, "FAIL %s: analysis n %lld: finite %d, first bad (%lld, %lld), norm_1 %.17g vs %.17g, symmetric %d\n",
                where, (long long)n, an.finite, (long long)an.first_bad_row, (long long)an.first_bad_col, an.norm_1,
                norm1, an.symmetric);
        failures++;
    }
    free(a); free(b); free(x); free(ref); free(ainv); free(inv_ref);
    return failures;
}

/* The sizes of a local analysis and of a global one, SPD and general. */
static int check_sizes(minv_context *ctx, uint64_t seed, const char *where) {
    static const int64_t sizes[][2] = {{29, 1}, {40, 30}, {301, 5}};
    int failures = 0;
    for (int s = 0; s < 3; s++)
        for (int spd = 0; spd < 2; spd++)
            failures += check_calls(ctx, seed + (uint64_t)(2 * s + spd), sizes[s][0], sizes[s][1], spd, where);
    return failures;
}

static minv_context *context(int threads) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = threads;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

/* Outside any parallel region: under OMP_THREAD_LIMIT the team is smaller than asked. */
static void top_level(void) {
    minv_context *dflt = context(0), *four = context(4);
    CHECK(dflt && four, "contexts");
    CHECK(check_sizes(dflt, 10, "top level, default threads") == 0, "top level, default context");
    CHECK(check_sizes(four, 20, "top level, cpu_threads 4") == 0, "top level, 4 threads");
    minv_destroy(dflt);
    minv_destroy(four);
}

/* The report: a call inside `omp parallel num_threads(2)` / `omp single`. */
static void inside_single(void) {
    minv_context *dflt = context(0), *four = context(4);
    int failures = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        {
            failures += check_sizes(dflt, 30, "single, default threads");
            failures += check_sizes(four, 40, "single, cpu_threads 4");
        }
    }
    CHECK(failures == 0, "inside omp single: %d failures", failures);
    minv_destroy(dflt);
    minv_destroy(four);
}

/* Each thread of a region with its own context, nested regions allowed or not. */
static void nested(int levels) {
    int failures = 0;
    omp_set_max_active_levels(levels);
#pragma omp parallel num_threads(2) reduction(+ : failures)
    {
        minv_context *ctx = context(2);
        if (!ctx) failures++;
        else failures += check_sizes(ctx, 50 + 10 * (uint64_t)omp_get_thread_num(), levels > 1 ? "nested" : "nested, inactive");
        minv_destroy(ctx);
    }
    omp_set_max_active_levels(1);
    CHECK(failures == 0, "max active levels %d: %d failures", levels, failures);
}

/* A DA local analysis: 10000 solves of order 29 in a parallel loop, a context per thread (each
 * asking for more threads than the loop leaves it), every answer against LAPACK's. */
static void local_solves(int threads) {
    enum { POINTS = 10000, N = 29 };
    minv_context *ctx[4] = {0};
    int failures = 0;
    double worst = 0;
    for (int t = 0; t < threads; t++) CHECK((ctx[t] = context(4)) != NULL, "context %d", t);
    const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads) reduction(+ : failures) reduction(max : worst)
    {
        minv_context *mine = ctx[omp_get_thread_num()];
        double *a = tu_alloc(N, N, N), *b = tu_alloc(N, 1, N), *x = tu_alloc(N, 1, N), *ref = tu_alloc(N, 1, N);
#pragma omp for schedule(dynamic, 64)
        for (int p = 0; p < POINTS; p++) {
            tu_rng rng;
            tu_seed(&rng, 1000 + (uint64_t)p);
            const int spd = p % 3 != 0;
            if (spd) tu_spd(&rng, N, a, N);
            else tu_general(&rng, N, a, N);
            tu_rect(&rng, N, 1, b, N);
            minv_report rep;
            if (minv_solve_d(mine, MINV_METHOD_AUTO, N, 1, a, N, b, N, x, N, &rep) != MINV_SUCCESS ||
                tu_lapack_solve(N, 1, a, N, b, N, spd, ref, N) != 0) {
                if (failures++ == 0)
                    fprintf(stderr, "FAIL local solve %d on %d threads: %s\n", p, threads, minv_last_error(mine));
                continue;
            }
            /* the forward error bound of two backward-stable solves, in units of it: the true
             * condition number (the report's rcond may overstate rcond several times) */
            const double d = tu_rel_diff(N, 1, x, N, ref, N) / (tu_cond1(N, a, N) * DBL_EPSILON);
            if (d > worst || isnan(d)) worst = d;
        }
        free(a); free(b); free(x); free(ref);
    }
    CHECK(failures == 0, "%d threads: %d of %d local solves failed", threads, failures, (int)POINTS);
    CHECK(worst < 30, "%d threads: the largest difference from LAPACK is %.3g eps cond", threads, worst);
    printf("%d threads: %d local solves of order %d in %.3f s, largest relative difference from LAPACK %.3g eps cond\n",
           threads, (int)POINTS, (int)N, omp_get_wtime() - t0, worst);
    for (int t = 0; t < threads; t++) minv_destroy(ctx[t]);
}

int main(void) {
    printf("omp_get_max_threads %d, omp_get_thread_limit %d\n", omp_get_max_threads(), omp_get_thread_limit());
    double t0 = omp_get_wtime();
    top_level();
    printf("top level: %.3f s\n", omp_get_wtime() - t0);
    t0 = omp_get_wtime();
    inside_single();
    printf("inside omp single: %.3f s\n", omp_get_wtime() - t0);
    t0 = omp_get_wtime();
    nested(2);
    nested(1);
    printf("nested: %.3f s\n", omp_get_wtime() - t0);
    for (int threads = 1; threads <= 4; threads *= 2) local_solves(threads);
    return tu_finish("test_openmp");
}
