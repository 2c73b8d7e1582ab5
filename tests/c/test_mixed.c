/* Mixed-precision solves (MINV_OPT_PRECISION) on host data, on every backend here: matrices of
 * known condition 1e2, 1e6 (refined to the double solve's backward error) and 1e10 (beyond the
 * low-precision factors: the double solve runs and the report says so), SPD and general, double
 * and float data, against the double solve of the same data; inversions stay in double. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "reason \"%s\" lacks \"%s\"", (msg), (text))
#define LACKS(msg, text) CHECK(strstr((msg), (text)) == NULL, "reason \"%s\" has \"%s\"", (msg), (text))

/* max over columns of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf), as the
 * report defines it, in double. */
static double backward_error(int64_t n, int64_t k, const double *a, const double *b, const double *x) {
    double anorm = 0, worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++) s += fabs(a[j * n + i]);
        anorm = fmax(anorm, s);
    }
    for (int64_t c = 0; c < k; c++) {
        double rn = 0, xn = 0, bn = 0;
        for (int64_t i = 0; i < n; i++) {
            double r = b[c * n + i];
            for (int64_t j = 0; j < n; j++) r -= a[j * n + i] * x[c * n + j];
            rn = fmax(rn, fabs(r));
            xn = fmax(xn, fabs(x[c * n + i]));
            bn = fmax(bn, fabs(b[c * n + i]));
        }
        worst = fmax(worst, rn / (anorm * xn + bn));
    }
    return worst;
}

static void check(minv_context *ctx, const char *where, int64_t n, double cond, int spd) {
    const int64_t k = 7;
    tu_rng rng;
    tu_seed(&rng, 9100 + (uint64_t)n + (uint64_t)spd * 31 + (uint64_t)log10(cond));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *xd = tu_alloc(n, k, n), *xm = tu_alloc(n, k, n);
    tu_with_cond(&rng, n, cond, spd, a, n);
    tu_rect(&rng, n, k, b, n);
    const minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    const int beyond = cond > 1e8; /* the low-precision factors cannot reach double here */
    minv_report rd, rm;

    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_DOUBLE), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_d(ctx, method, n, k, a, n, b, n, xd, n, &rd), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_MIXED), MINV_SUCCESS, ctx);
    memset(xm, 0xff, sizeof(double) * (size_t)(n * k)); /* NaN: every entry must be written */
    CHECK_STATUS(minv_solve_d(ctx, method, n, k, a, n, b, n, xm, n, &rm), MINV_SUCCESS, ctx);
    const double ed = backward_error(n, k, a, b, xd), em = backward_error(n, k, a, b, xm);
    CHECK(em <= 2 * ed + 2 * DBL_EPSILON, "%s n=%lld cond %.0e spd=%d: backward error %.3g, double solve's %.3g", where,
          (long long)n, cond, spd, em, ed);
    CHECK(tu_rel_diff(n, k, xm, n, xd, n) < cond * 1e-13, "%s cond %.0e spd=%d: mixed and double solutions differ by %.3g",
          where, cond, spd, tu_rel_diff(n, k, xm, n, xd, n));
    /* a positive definite A of condition 1e6 can be indefinite once rounded to single: LU then */
    CHECK(rm.method == method || (spd && rm.method == MINV_METHOD_LU && strstr(rm.reason, "Cholesky broke down")),
          "%s: method %s (%s)", where, minv_method_name(rm.method), rm.reason);
    if (beyond) {
        HAS(rm.reason, "so the double solve ran");
        LACKS(rm.reason, minv_status_string(MINV_ERR_NO_CONVERGENCE)); /* a note, not an error's text */
        CHECK(rm.fallbacks & MINV_FALLBACK_DIRECT, "%s: fallbacks %d after the double solve", where, (int)rm.fallbacks);
        CHECK(rm.rcond == rd.rcond, "%s: after the fallback rcond %.3g is the double solve's %.3g", where, rm.rcond, rd.rcond);
    } else {
        HAS(rm.reason, "mixed precision:");
        LACKS(rm.reason, "double solve ran");
        CHECK(!(rm.fallbacks & MINV_FALLBACK_DIRECT), "%s: fallbacks %d", where, (int)rm.fallbacks);
        CHECK(rm.iterations >= 1 && rm.iterations <= 30, "%s: %lld refinement steps", where, (long long)rm.iterations);
        CHECK(rm.residual_kind >= 1 && rm.residual >= 0 && rm.residual <= 2 * DBL_EPSILON * 1.0001,
              "%s cond %.0e spd=%d: reported residual %.3g (kind %d)", where, cond, spd, rm.residual, rm.residual_kind);
        CHECK(rm.residual <= 2 * em + 2 * DBL_EPSILON, "%s: reported residual %.3g, measured %.3g", where, rm.residual, em);
        const double est = 1.0 / rm.rcond;
        CHECK(rm.rcond > 0 && est > cond / (10.0 * n) && est < cond * 10.0 * n, "%s: condition estimate %.3g for %.3g",
              where, est, cond);
    }

    /* float data: the double solution of the same (float) data, rounded */
    if (!beyond) {
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n), *xf = tu_to_float(n, k, b, n, n);
        double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n), *ref = tu_alloc(n, k, n);
        CHECK_STATUS(minv_solve_s(ctx, method, n, k, af, n, bf, n, xf, n, &rm), MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_DOUBLE), MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_solve_d(ctx, method, n, k, a2, n, b2, n, ref, n, NULL), MINV_SUCCESS, ctx);
        double *x2 = tu_to_double(n, k, xf, n);
        CHECK(tu_rel_diff(n, k, x2, n, ref, n) < 2 * FLT_EPSILON, "%s float cond %.0e spd=%d: differs from the double solve by %.3g",
              where, cond, spd, tu_rel_diff(n, k, x2, n, ref, n));
        HAS(rm.reason, "mixed precision:");
        CHECK(rm.residual < 2 * FLT_EPSILON, "%s float: reported residual %.3g", where, rm.residual);
        free(af); free(bf); free(xf); free(a2); free(b2); free(ref); free(x2);
    }
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_DOUBLE), MINV_SUCCESS, ctx);
    free(a); free(b); free(xd); free(xm);
}

/* An inversion asked for in mixed precision runs in double and says so; B = X in place works. */
static void inversion_and_in_place(minv_context *ctx, const char *where) {
    const int64_t n = 40;
    tu_rng rng;
    tu_seed(&rng, 77);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 3, n), *bx = tu_alloc(n, 3, n);
    minv_report r;
    tu_spd(&rng, n, a, n);
    tu_rect(&rng, n, 3, b, n);
    memcpy(bx, b, sizeof(double) * (size_t)(n * 3));
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_MIXED), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &r), MINV_SUCCESS, ctx);
    HAS(r.reason, "the inversion ran in double");
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "%s: inverse ratio", where);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 3, a, n, bx, n, bx, n, &r), MINV_SUCCESS, ctx);
    HAS(r.reason, "mixed precision:");
    CHECK(backward_error(n, 3, a, b, bx) <= 4 * DBL_EPSILON, "%s: in place, backward error %.3g", where,
          backward_error(n, 3, a, b, bx));
    double v = -1;
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_PRECISION, &v), MINV_SUCCESS, ctx);
    CHECK(v == MINV_PRECISION_MIXED, "%s: option reads back %g", where, v);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_SINGLE), MINV_ERR_INVALID_ARG, ctx);
    CHECK(strstr(minv_last_error(ctx), "_s routines") != NULL, "%s: %s", where, minv_last_error(ctx));
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, 3), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_PRECISION, MINV_PRECISION_DOUBLE), MINV_SUCCESS, ctx);
    free(a); free(x); free(b); free(bx);
}

int main(void) {
    minv_context *ctx[2];
    const int count = tu_contexts(ctx);
    if (count == 0) return 1;
    for (int c = 0; c < count; c++) {
        const char *where = minv_backend_name(minv_context_backend(ctx[c]));
        /* the GPU's factors go to cuSOLVER below 512 columns and are blocked above */
        const int64_t n = minv_context_backend(ctx[c]) == MINV_BACKEND_GPU ? 1100 : 150;
        for (int spd = 1; spd >= 0; spd--) {
            check(ctx[c], where, 60, 1e2, spd);
            check(ctx[c], where, n, 1e2, spd);
            check(ctx[c], where, n, 1e6, spd);
            check(ctx[c], where, n, 1e10, spd);
        }
        inversion_and_in_place(ctx[c], where);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_mixed");
}
