/* minv_analyze on matrices whose properties are known by construction, and the small calls
 * that analyse A on their way. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static double ref_norm_inf(int64_t n, const double *a) {
    double worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++) s += fabs(a[j * n + i]);
        if (s > worst) worst = s;
    }
    return worst;
}

static void tridiagonal_dominant(minv_context *ctx) {
    const int64_t n = 7;
    double a[49] = {0};
    for (int64_t i = 0; i < n; i++) {
        a[i * n + i] = 4.0 + i;
        if (i > 0) a[(i - 1) * n + i] = -1.0 - 0.1 * i; /* sub-diagonal */
        if (i < n - 1) a[(i + 1) * n + i] = 2.0;        /* super-diagonal */
    }
    minv_analysis an;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(an.tridiagonal && an.lower_bandwidth == 1 && an.upper_bandwidth == 1, "bands %lld %lld",
          (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
    CHECK(an.diag_dominant, "dominant");
    CHECK(!an.symmetric && an.asymmetry > 0.1, "asymmetry %.3g", an.asymmetry);
    CHECK(an.diag_positive && an.diag_min == 4.0 && an.diag_max == 10.0, "diag %g %g", an.diag_min, an.diag_max);
    CHECK(an.finite && an.first_bad_row == -1 && an.first_bad_col == -1, "finite");
    CHECK(fabs(an.norm_1 - tu_norm1(n, n, a, n)) < 1e-14, "norm1 %.17g", an.norm_1);
    CHECK(fabs(an.norm_inf - ref_norm_inf(n, a)) < 1e-14, "norminf %.17g", an.norm_inf);
    CHECK(an.auto_method == MINV_METHOD_TRIDIAGONAL, "auto %s", minv_method_name(an.auto_method));
    /* weaken one row below dominance */
    a[3 * n + 3] = 0.5;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(!an.diag_dominant, "not dominant");
}

static void banded_and_symmetric(minv_context *ctx) {
    const int64_t n = 40;
    tu_rng rng;
    tu_seed(&rng, 5);
    double *a = tu_alloc(n, n, n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * n + i] = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j; i < n && i <= j + 3; i++) a[j * n + i] = a[i * n + j] = tu_uniform(&rng);
    for (int64_t i = 0; i < n; i++) a[i * n + i] = 10 + tu_uniform(&rng);
    minv_analysis an;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(an.lower_bandwidth == 3 && an.upper_bandwidth == 3 && !an.tridiagonal, "bands %lld %lld",
          (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
    CHECK(an.symmetric && an.asymmetry == 0, "symmetric");
    CHECK(an.auto_method == MINV_METHOD_CHOLESKY, "auto %s", minv_method_name(an.auto_method));
    double fro = 0;
    for (int64_t k = 0; k < n * n; k++) fro += a[k] * a[k];
    CHECK(fabs(an.norm_fro - sqrt(fro)) < 1e-13 * sqrt(fro), "fro %.17g vs %.17g", an.norm_fro, sqrt(fro));
    /* an asymmetry of 1e-13 relative: symmetric only under a tolerance */
    a[5 * n + 7] *= 1 + 1e-13;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(!an.symmetric && an.asymmetry > 0 && an.asymmetry < 1e-12, "asym %.3g", an.asymmetry);
    minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-12);
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(an.symmetric, "symmetric within tolerance");
    minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 0);
    /* lower triangular: upper bandwidth 0 */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < j; i++) a[j * n + i] = 0;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(an.upper_bandwidth == 0 && an.lower_bandwidth == 3, "triangular bands");
    /* float gives the same structure */
    float *f = tu_to_float(n, n, a, n, n + 2);
    CHECK_STATUS(minv_analyze_s(ctx, n, f, n + 2, &an), MINV_SUCCESS, ctx);
    CHECK(an.upper_bandwidth == 0 && an.lower_bandwidth == 3 && !an.symmetric, "float bands");
    free(f);
    free(a);
}

static void extremes(minv_context *ctx) {
    const int64_t n = 30;
    double *a = tu_alloc(n, n, n);
    for (int64_t k = 0; k < n * n; k++) a[k] = 1e300;
    minv_analysis an;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(fabs(an.norm_fro / (30 * 1e300) - 1) < 1e-13, "fro of huge %.6g", an.norm_fro);
    for (int64_t k = 0; k < n * n; k++) a[k] = 1e-300;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(fabs(an.norm_fro / (30 * 1e-300) - 1) < 1e-13, "fro of tiny %.6g", an.norm_fro);
    a[4 * n + 2] = NAN;
    a[7 * n + 1] = INFINITY;
    CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
    CHECK(!an.finite && an.first_bad_row == 2 && an.first_bad_col == 4, "first bad (%lld,%lld)",
          (long long)an.first_bad_row, (long long)an.first_bad_col);
    CHECK(!an.symmetric, "NaN matrix is not symmetric");
    free(a);
}

/* The calls at small orders, on both sides of the analysis' switch from sums on the stack to
 * the workspace (n (2 + probes) + n doubles up to 128: a solve up to order 42, an inversion
 * with its probes up to 25), with a report reused from call to call: the answers against
 * LAPACK, the analysis against a reference, a NaN at the last entry named, an asymmetric
 * matrix measured and taken to LU, and each call's reason its own. */
static void small_calls(minv_context *ctx) {
    static const int64_t orders[] = {1, 2, 3, 7, 8, 16, 25, 26, 42, 43, 64};
    tu_rng rng;
    tu_seed(&rng, 19);
    minv_report rep;
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        const int64_t n = orders[k], nrhs = 3;
        const int64_t cols = n > nrhs ? n : nrhs;
        double *a = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *x = tu_alloc(n, cols, n), *y = tu_alloc(n, cols, n);
        tu_spd(&rng, n, a, n);
        tu_rect(&rng, n, nrhs, b, n);
        minv_analysis an;
        CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
        double dmin = INFINITY, dmax = -INFINITY;
        for (int64_t i = 0; i < n; i++) dmin = fmin(dmin, a[i * n + i]), dmax = fmax(dmax, a[i * n + i]);
        CHECK(an.n == n && an.finite && an.symmetric && an.asymmetry == 0 && an.diag_positive && an.reserved == 0,
              "n = %lld: finite %d symmetric %d asymmetry %.3g", (long long)n, an.finite, an.symmetric, an.asymmetry);
        CHECK(fabs(an.norm_1 - tu_norm1(n, n, a, n)) <= 1e-14 * an.norm_1 &&
                  fabs(an.norm_inf - ref_norm_inf(n, a)) <= 1e-14 * an.norm_inf,
              "n = %lld: norms %.17g %.17g", (long long)n, an.norm_1, an.norm_inf);
        CHECK(an.diag_min == dmin && an.diag_max == dmax, "n = %lld: diagonal %g %g", (long long)n, an.diag_min, an.diag_max);
        CHECK(an.lower_bandwidth == n - 1 && an.upper_bandwidth == n - 1, "n = %lld: bands %lld %lld", (long long)n,
              (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
        if (n > 2) { /* one far corner zero: the upper bandwidth from the columns' searches */
            const double corner = a[(n - 1) * n], next = a[(n - 1) * n + 1];
            a[(n - 1) * n] = 0;
            a[(n - 1) * n + 1] = 0;
            CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
            CHECK(an.lower_bandwidth == n - 1 && an.upper_bandwidth == n - 2 && !an.symmetric, "n = %lld: bands %lld %lld",
                  (long long)n, (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
            a[(n - 1) * n] = corner;
            a[(n - 1) * n + 1] = next;
        }
        for (int call = 0; call < 2; call++) { /* the second call's reason is the first's, not longer */
            char first[MINV_REASON_LEN];
            snprintf(first, sizeof first, "%s", rep.reason);
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
            CHECK(rep.method == MINV_METHOD_CHOLESKY && rep.asymmetry == 0 && rep.residual >= 0 &&
                      rep.residual <= 100 * n * DBL_EPSILON && rep.rcond > 0 && rep.seconds > 0 && rep.info == -1,
                  "n = %lld solve: %s residual %.3g rcond %.3g", (long long)n, minv_method_name(rep.method), rep.residual,
                  rep.rcond);
            CHECK(strncmp(rep.reason, "AUTO: symmetric with a positive diagonal, so Cholesky", 53) == 0 &&
                      (call == 0 || strcmp(rep.reason, first) == 0),
                  "n = %lld reason: %s", (long long)n, rep.reason);
        }
        CHECK(tu_lapack_solve(n, nrhs, a, n, b, n, 1, y, n) == 0 && tu_rel_diff(n, nrhs, x, n, y, n) <= 1e3 * DBL_EPSILON,
              "n = %lld: solve differs from dposv by %.3g", (long long)n, tu_rel_diff(n, nrhs, x, n, y, n));
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
        /* orders 1 and 2 are tridiagonal */
        CHECK(rep.method == (n <= 2 ? MINV_METHOD_TRIDIAGONAL : MINV_METHOD_CHOLESKY) && rep.residual_kind > 0 &&
                  rep.residual >= 0 &&
                  rep.residual <= 100 * n * DBL_EPSILON && rep.rcond > 0,
              "n = %lld invert: residual %.3g (kind %d) rcond %.3g", (long long)n, rep.residual, rep.residual_kind,
              rep.rcond);
        CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "n = %lld: inverse ratio %.3g", (long long)n,
              tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON));

        /* asymmetric well beyond the tolerance: measured, and LU */
        const double keep = a[(n - 1) * n];
        a[(n - 1) * n] += 0.25; /* a(0, n - 1) */
        double largest = 0;
        for (int64_t e = 0; e < n * n; e++) largest = fmax(largest, fabs(a[e]));
        if (n > 1) {
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
            CHECK(rep.method != MINV_METHOD_CHOLESKY && fabs(rep.asymmetry - 0.25 / largest) <= 1e-14 * rep.asymmetry &&
                      strstr(rep.reason, "not symmetric") != NULL,
                  "n = %lld asymmetric: %s asymmetry %.17g (%.17g) reason %s", (long long)n, minv_method_name(rep.method),
                  rep.asymmetry, 0.25 / largest, rep.reason);
            CHECK(tu_lapack_solve(n, nrhs, a, n, b, n, 0, y, n) == 0 && tu_rel_diff(n, nrhs, x, n, y, n) <= 1e3 * DBL_EPSILON,
                  "n = %lld asymmetric: solve differs from dgesv by %.3g", (long long)n, tu_rel_diff(n, nrhs, x, n, y, n));
        }
        a[(n - 1) * n] = keep;

        /* a NaN at the last entry, the scan's last: named, for the solve and the inversion */
        a[n * n - 1] = NAN;
        char want[64];
        snprintf(want, sizeof want, "A(%lld,%lld) = nan", (long long)n, (long long)n);
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
        CHECK(strstr(minv_last_error(ctx), want) != NULL, "n = %lld solve: %s", (long long)n, minv_last_error(ctx));
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
        CHECK(strstr(minv_last_error(ctx), want) != NULL, "n = %lld invert: %s", (long long)n, minv_last_error(ctx));
        free(a);
        free(b);
        free(x);
        free(y);
    }
}

/* Orders that span several of the scan's 32 x 32 tiles, with and without a remainder of one to
 * three rows (n mod 4) and a last tile shorter than the others: the norms, the Frobenius norm
 * and the asymmetry against direct sums, an asymmetry planted in a tile far
 * from the diagonal found at its size, a NaN named, and the staged copies that Cholesky and LU
 * (AUTO's and forced) factor against LAPACK's answers. */
static void tiled_orders(minv_context *ctx) {
    static const int64_t orders[] = {33, 67, 100, 131, 263};
    tu_rng rng;
    tu_seed(&rng, 23);
    minv_report rep;
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        const int64_t n = orders[k], nrhs = 2;
        double *a = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *x = tu_alloc(n, nrhs, n), *y = tu_alloc(n, nrhs, n);
        tu_rect(&rng, n, nrhs, b, n);
        for (int general = 0; general < 2; general++) {
            if (general) {
                tu_rect(&rng, n, n, a, n);
                for (int64_t i = 0; i < n; i++) a[i * n + i] += (double)n;
            } else {
                tu_spd(&rng, n, a, n);
            }
            double largest = 0, asym = 0, sumsq = 0;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) {
                    largest = fmax(largest, fabs(a[j * n + i]));
                    asym = fmax(asym, fabs(a[j * n + i] - a[i * n + j]));
                    sumsq += a[j * n + i] * a[j * n + i];
                }
            minv_analysis an;
            CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
            CHECK(an.finite && an.symmetric == !general && fabs(an.asymmetry - asym / largest) <= 1e-15,
                  "n = %lld general %d: symmetric %d asymmetry %.17g (%.17g)", (long long)n, general, an.symmetric,
                  an.asymmetry, asym / largest);
            CHECK(fabs(an.norm_1 - tu_norm1(n, n, a, n)) <= 1e-14 * an.norm_1 &&
                      fabs(an.norm_inf - ref_norm_inf(n, a)) <= 1e-14 * an.norm_inf &&
                      fabs(an.norm_fro - sqrt(sumsq)) <= 1e-14 * an.norm_fro,
                  "n = %lld general %d: norms %.17g %.17g %.17g", (long long)n, general, an.norm_1, an.norm_inf,
                  an.norm_fro);
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
            CHECK(rep.method == (general ? MINV_METHOD_LU : MINV_METHOD_CHOLESKY) && rep.residual >= 0 &&
                      rep.residual <= 100 * n * DBL_EPSILON,
                  "n = %lld general %d: %s residual %.3g", (long long)n, general, minv_method_name(rep.method),
                  rep.residual);
            CHECK(tu_lapack_solve(n, nrhs, a, n, b, n, !general, y, n) == 0 &&
                      tu_rel_diff(n, nrhs, x, n, y, n) <= 1e3 * DBL_EPSILON,
                  "n = %lld general %d: solve differs from LAPACK by %.3g", (long long)n, general,
                  tu_rel_diff(n, nrhs, x, n, y, n));
        }
        /* LU forced on the SPD matrix: the staged lower triangle and the upper one from A */
        tu_spd(&rng, n, a, n);
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, n, nrhs, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(tu_lapack_solve(n, nrhs, a, n, b, n, 0, y, n) == 0 && tu_rel_diff(n, nrhs, x, n, y, n) <= 1e3 * DBL_EPSILON,
              "n = %lld forced LU: solve differs from dgesv by %.3g", (long long)n, tu_rel_diff(n, nrhs, x, n, y, n));
        /* symmetric in its first tile columns, not in row 40 (the second's) */
        if (n > 64) {
            a[(n - 1) * n + 40] += 1e-3;
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
            CHECK(rep.method == MINV_METHOD_LU && tu_lapack_solve(n, nrhs, a, n, b, n, 0, y, n) == 0 &&
                      tu_rel_diff(n, nrhs, x, n, y, n) <= 1e3 * DBL_EPSILON,
                  "n = %lld asymmetric in row 40: %s, solve differs from dgesv by %.3g", (long long)n,
                  minv_method_name(rep.method), tu_rel_diff(n, nrhs, x, n, y, n));
            a[(n - 1) * n + 40] -= 1e-3;
        }
        /* one pair apart by 1e-3 in the last tile column's mirror, the rest symmetric */
        tu_spd(&rng, n, a, n);
        const int64_t i = 3, j = n - 2;
        a[j * n + i] += 1e-3;
        double largest = 0;
        for (int64_t e = 0; e < n * n; e++) largest = fmax(largest, fabs(a[e]));
        minv_analysis an;
        CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
        CHECK(!an.symmetric && fabs(an.asymmetry - fabs(a[j * n + i] - a[i * n + j]) / largest) <= 1e-15,
              "n = %lld planted asymmetry %.17g", (long long)n, an.asymmetry);
        a[j * n + i] = NAN;
        CHECK_STATUS(minv_analyze_d(ctx, n, a, n, &an), MINV_SUCCESS, ctx);
        CHECK(!an.finite && an.first_bad_row == i && an.first_bad_col == j, "n = %lld NaN at %lld %lld", (long long)n,
              (long long)an.first_bad_row, (long long)an.first_bad_col);
        free(a);
        free(b);
        free(x);
        free(y);
    }
}

int main(void) {
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) return 1;
    tridiagonal_dominant(ctx);
    banded_and_symmetric(ctx);
    extremes(ctx);
    small_calls(ctx);
    tiled_orders(ctx);
    minv_destroy(ctx);
    return tu_finish("test_analyze");
}
