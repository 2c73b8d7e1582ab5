/* minv_analyze on matrices whose properties are known by construction. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

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

int main(void) {
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) return 1;
    tridiagonal_dominant(ctx);
    banded_and_symmetric(ctx);
    extremes(ctx);
    minv_destroy(ctx);
    return tu_finish("test_analyze");
}
