/* The symmetry tolerance: a covariance formed by GEMM, H P H^T + R,
 * symmetric only to rounding, takes Cholesky by default (the report gives its asymmetry and
 * that the lower triangle was read) and agrees with dposv on that triangle; matrices on both
 * sides of the default bound go their ways; the setting is bounded; and a Cholesky result
 * that does not solve A is never a success (AUTO redoes it by LU). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);

/* S = H P H^T + R by two GEMMs, as a DA code forms it: P a SOAR correlation over `state` points,
 * H random, R = 0.5 I. */
static void gemm_covariance(tu_rng *rng, int m, int state, double *s) {
    double *h = tu_alloc(m, state, m), *p = tu_alloc(state, state, state), *hp = tu_alloc(m, state, m);
    tu_soar(state, 5, p, state);
    tu_rect(rng, m, state, h, m);
    const double one = 1, zero = 0;
    dgemm_("N", "N", &m, &state, &state, &one, h, &m, p, &state, &zero, hp, &m, 1, 1);
    dgemm_("N", "T", &m, &m, &state, &one, hp, &m, h, &m, &zero, s, &m, 1, 1);
    for (int i = 0; i < m; i++) s[i * m + i] += 0.5;
    free(h); free(p); free(hp);
}

static minv_context *cpu(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

static void gemm_formed(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 19);
    const int sizes[][2] = {{29, 500}, {200, 1000}};
    for (int c = 0; c < 2; c++) {
        const int m = sizes[c][0];
        double *s = tu_alloc(m, m, m), *b = tu_alloc(m, 3, m), *x = tu_alloc(m, 3, m), *ref = tu_alloc(m, 3, m);
        gemm_covariance(&rng, m, sizes[c][1], s);
        tu_rect(&rng, m, 3, b, m);
        minv_analysis an;
        CHECK_STATUS(minv_analyze_d(ctx, m, s, m, &an), MINV_SUCCESS, ctx);
        CHECK(an.asymmetry > 0 && an.symmetric, "m %d: H P H^T + R is symmetric to rounding only (asymmetry %.3g), "
              "and symmetric by default", m, an.asymmetry);
        minv_report rep;
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, m, 3, s, m, b, m, x, m, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_CHOLESKY, "m %d: AUTO took %s", m, minv_method_name(rep.method));
        CHECK(rep.asymmetry == an.asymmetry, "the report's asymmetry %.3g is the analysis' %.3g", rep.asymmetry, an.asymmetry);
        CHECK(strstr(rep.reason, "lower triangle") && strstr(rep.reason, "relative asymmetry"), "the reason says so: %s",
              rep.reason);
        /* dposv on the same (lower) triangle */
        CHECK(tu_lapack_solve(m, 3, s, m, b, m, 1, ref, m) == 0, "dposv");
        CHECK(tu_rel_diff(m, 3, x, m, ref, m) < 1e-12, "m %d: against dposv %.3g", m, tu_rel_diff(m, 3, x, m, ref, m));
        /* the same in float, formed in float by rounding each entry: still Cholesky */
        float *sf = tu_to_float(m, m, s, m, m), *bf = tu_to_float(m, 3, b, m, m), *xf = malloc(sizeof(float) * (size_t)(3 * m));
        CHECK_STATUS(minv_solve_s(ctx, MINV_METHOD_AUTO, m, 3, sf, m, bf, m, xf, m, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_CHOLESKY, "float m %d: AUTO took %s", m, minv_method_name(rep.method));
        /* a forced Cholesky is no longer refused where dposv succeeds */
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, m, s, m, x = realloc(x, sizeof(double) * (size_t)(m * m)), m,
                                   &rep), MINV_SUCCESS, ctx);
        free(s); free(b); free(x); free(ref); free(sf); free(bf); free(xf);
    }
}

/* An SPD matrix with one pair a_ij != a_ji apart by `eps_count` roundings of its largest entry. */
static void asymmetric_by(tu_rng *rng, int64_t n, double eps_count, double *a) {
    tu_spd(rng, n, a, n);
    double largest = 0;
    for (int64_t k = 0; k < n * n; k++) largest = fmax(largest, fabs(a[k]));
    a[3 * n + 1] += eps_count * DBL_EPSILON * largest;
}

static void both_sides_of_the_default(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 23);
    const int64_t n = 60;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    minv_report rep;
    asymmetric_by(&rng, n, 10, a); /* inside the default 16 roundings */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_CHOLESKY && rep.asymmetry > 8 * DBL_EPSILON, "10 roundings: %s, asymmetry %.3g",
          minv_method_name(rep.method), rep.asymmetry);
    asymmetric_by(&rng, n, 30, a); /* outside */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "30 roundings: %s", minv_method_name(rep.method));
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(strstr(minv_last_error(ctx), "symmetry tolerance"), "names the tolerance: %s", minv_last_error(ctx));
    /* exactly symmetric (0) refuses even rounding */
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 0), MINV_SUCCESS, ctx);
    asymmetric_by(&rng, n, 1, a);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "tolerance 0: %s", minv_method_name(rep.method));
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, -1), MINV_SUCCESS, ctx);
    free(a); free(x);
}

static void bounded_setting(minv_context *ctx) {
    double v = 0;
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_SYMMETRY_TOL, &v), MINV_SUCCESS, ctx);
    CHECK(v == -1, "the default reads -1 (16 roundings of the precision), got %g", v);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-5), MINV_SUCCESS, ctx);
    const double refused[] = {0.5, 1.01e-5, -0.5, NAN, INFINITY};
    for (int k = 0; k < 5; k++) {
        CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, refused[k]), MINV_ERR_INVALID_ARG, ctx);
        CHECK(strstr(minv_last_error(ctx), "to 1e-05"), "%g: %s", refused[k], minv_last_error(ctx));
    }
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_SYMMETRY_TOL, &v), MINV_SUCCESS, ctx);
    CHECK(v == 1e-5, "a refused setting leaves the last one: %g", v);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, -1), MINV_SUCCESS, ctx);
}

static int occurrences(const char *text, const char *part) {
    int k = 0;
    for (const char *p = text; (p = strstr(p, part)) != NULL; p++) k++;
    return k;
}

/* Within a raised tolerance a matrix that is not symmetric enough for its lower triangle to
 * stand for it: the residual shows it, and no call returns it as a success. */
static void residual_guard(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 29);
    const int64_t n = 100;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 2, n), *xs = tu_alloc(n, 2, n);
    tu_spd(&rng, n, a, n);
    double largest = 0;
    for (int64_t k = 0; k < n * n; k++) largest = fmax(largest, fabs(a[k]));
    for (int64_t j = 0; j < n; j++) /* every upper entry off by up to 5e-6 of the largest */
        for (int64_t i = 0; i < j; i++) a[j * n + i] += 5e-6 * largest * tu_uniform(&rng);
    tu_rect(&rng, n, 2, b, n);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-5), MINV_SUCCESS, ctx);
    for (int mode = 0; mode <= 2; mode++) {
        minv_report rep;
        CHECK_STATUS(minv_set_option(ctx, MINV_OPT_RESIDUAL, mode), MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_LU && strstr(rep.reason, "so LU instead"), "mode %d: AUTO redid it by LU: %s",
              mode, rep.reason);
        CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "mode %d: the answer is A's inverse", mode);
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 2, a, n, b, n, xs, n, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_LU && tu_solve_ratio(n, 2, a, n, b, n, xs, n, DBL_EPSILON) < 30,
              "mode %d: solve redone by LU: %s", mode, rep.reason);
        /* LU's rcond note only: the discarded Cholesky's went with it */
        CHECK(occurrences(rep.reason, "rcond: ") == 1 && strstr(rep.reason, "so LU instead; rcond: "),
              "mode %d: one rcond note, LU's: %s", mode, rep.reason);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
        CHECK(strstr(minv_last_error(ctx), "does not solve A"), "mode %d: %s", mode, minv_last_error(ctx));
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, 2, a, n, b, n, xs, n, &rep), MINV_ERR_NOT_SPD, ctx);
        /* in place, A (or B) is gone when the residual tells: an error, never a wrong success */
        memcpy(x, a, sizeof(double) * (size_t)(n * n));
        CHECK_STATUS(minv_invert_inplace_d(ctx, MINV_METHOD_AUTO, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
        memcpy(xs, b, sizeof(double) * (size_t)(2 * n));
        CHECK_STATUS(minv_solve_inplace_d(ctx, MINV_METHOD_AUTO, n, 2, a, n, xs, n, &rep), MINV_ERR_NOT_SPD, ctx);
    }
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_RESIDUAL, 1), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, -1), MINV_SUCCESS, ctx);
    free(a); free(x); free(b); free(xs);
}

int main(void) {
    minv_context *ctx = cpu();
    if (!ctx) return 1;
    gemm_formed(ctx);
    both_sides_of_the_default(ctx);
    bounded_setting(ctx);
    residual_guard(ctx);
    minv_destroy(ctx);
    return tu_finish("test_symmetry");
}
