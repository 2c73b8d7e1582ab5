/* Ill-conditioned inputs: condition 1e10 in double (1e4 in float), SPD and general. Backward
 * stable methods keep the residual ratios small, and the reciprocal condition estimate must
 * match the constructed condition within the 1-norm/2-norm slack, for the inverse (exact) and
 * for the solve (an estimate; below 1e-4 LAPACK's, whatever the order). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "testutil.h"

static void check(minv_context *ctx, int64_t n, double cond, int spd, int single) {
    tu_rng rng;
    tu_seed(&rng, 4000 + (uint64_t)n + (uint64_t)spd * 17 + (uint64_t)single * 3);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 4, n), *xs = tu_alloc(n, 4, n);
    tu_with_cond(&rng, n, cond, spd, a, n);
    tu_rect(&rng, n, 4, b, n);
    minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    minv_report rep, srep;
    double eps = single ? FLT_EPSILON : DBL_EPSILON, inv_ratio, solve_ratio;
    minv_status st, st2;
    if (single) {
        float *af = tu_to_float(n, n, a, n, n), *xf = tu_to_float(n, n, x, n, n);
        float *bf = tu_to_float(n, 4, b, n, n), *xsf = tu_to_float(n, 4, b, n, n);
        st = minv_invert_s(ctx, method, n, af, n, xf, n, &rep);
        st2 = minv_solve_s(ctx, method, n, 4, af, n, bf, n, xsf, n, &srep);
        double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
        double *b2 = tu_to_double(n, 4, bf, n), *xs2 = tu_to_double(n, 4, xsf, n);
        inv_ratio = tu_inverse_ratio(n, a2, n, x2, n, eps);
        solve_ratio = tu_solve_ratio(n, 4, a2, n, b2, n, xs2, n, eps);
        free(af); free(xf); free(bf); free(xsf); free(a2); free(x2); free(b2); free(xs2);
    } else {
        st = minv_invert_d(ctx, method, n, a, n, x, n, &rep);
        st2 = minv_solve_d(ctx, method, n, 4, a, n, b, n, xs, n, &srep);
        inv_ratio = tu_inverse_ratio(n, a, n, x, n, eps);
        solve_ratio = tu_solve_ratio(n, 4, a, n, b, n, xs, n, eps);
    }
    CHECK(st == MINV_SUCCESS && st2 == MINV_SUCCESS, "cond %.0e n=%lld spd=%d: %s", cond, (long long)n, spd,
          minv_last_error(ctx));
    CHECK(inv_ratio < 30, "cond %.0e n=%lld spd=%d single=%d: inverse ratio %.3g", cond, (long long)n, spd, single, inv_ratio);
    CHECK(solve_ratio < 30, "cond %.0e n=%lld spd=%d single=%d: solve ratio %.3g", cond, (long long)n, spd, single, solve_ratio);
    double est = 1.0 / rep.rcond;
    CHECK(est > cond / (10.0 * n) && est < cond * 10.0 * n, "condition estimate %.3g for cond %.3g", est, cond);
    est = 1.0 / srep.rcond;
    CHECK(est > cond / (10.0 * n) && est < cond * 10.0 * n, "n=%lld spd=%d single=%d: the solve's estimate %.3g for cond %.3g",
          (long long)n, spd, single, est, cond);
    free(a); free(x); free(b); free(xs);
}

int main(void) {
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) return 1;
    for (int spd = 0; spd <= 1; spd++) {
        check(ctx, 20, 1e10, spd, 0); /* the small kernels' path */
        check(ctx, 60, 1e10, spd, 0);
        check(ctx, 150, 1e10, spd, 0);
        check(ctx, 60, 1e4, spd, 1);
    }
    minv_destroy(ctx);
    return tu_finish("test_illcond");
}
