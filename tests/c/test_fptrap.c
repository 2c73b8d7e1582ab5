/* DA codes run with floating-point traps on. minv must never raise one, whatever the input
 * (singular, near-overflow, NaN), and must hand back the caller's trap mask and flags. */
#define _GNU_SOURCE
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int main(void) {
    const int traps = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW;
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) return 1;
    feclearexcept(FE_ALL_EXCEPT);
    feenableexcept(traps);
    const int64_t n = 40;
    tu_rng rng;
    tu_seed(&rng, 21);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 3, n);
    tu_rect(&rng, n, 3, b, n);
    minv_report rep;

    /* rank one: singular to working precision, the condition estimator overflows inside */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * n + i] = (1.0 + i) * (2.0 + j);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 3, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    /* exactly singular: zero pivots */
    memset(a, 0, sizeof(double) * n * n);
    a[0] = 1;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    /* entries near overflow: norms overflow, the analysis must not trap */
    for (int64_t k = 0; k < n * n; k++) a[k] = 1e307 * tu_uniform(&rng);
    minv_status st = minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep);
    CHECK(st == MINV_SUCCESS || st == MINV_ERR_SINGULAR, "huge entries: %s", minv_last_error(ctx));
    /* NaN input is an error, not a trap */
    a[3] = NAN;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
    float af[4] = {1, 2, 2, 4}, xf[4];
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_AUTO, 2, af, 2, xf, 2, &rep), MINV_ERR_SINGULAR, ctx);
    /* an ill-conditioned matrix works */
    tu_with_cond(&rng, n, 1e12, 1, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "ill-conditioned: ratio %.3g", tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON));
    tu_general(&rng, n, a, n);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 3, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_solve_ratio(n, 3, a, n, b, n, x, n, DBL_EPSILON) < 30, "solve: ratio %.3g", tu_solve_ratio(n, 3, a, n, b, n, x, n, DBL_EPSILON));

    CHECK(fegetexcept() == traps, "trap mask changed to %#x", fegetexcept());
    CHECK(fetestexcept(FE_ALL_EXCEPT & ~FE_INEXACT) == 0, "flags leaked: %#x", fetestexcept(FE_ALL_EXCEPT));
    fedisableexcept(traps);
    minv_destroy(ctx);
    free(a); free(x); free(b);
    return tu_finish("test_fptrap");
}
