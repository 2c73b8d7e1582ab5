/* Subnormal numbers: the CPU's factorisations flush them where A's scale makes them
 * irrelevant (internal.h says why). KMS(0.5) of order 1100 passes through them; its answers
 * must still match the exact inverse and LAPACK's, the caller's FTZ/DAZ modes must come back as
 * they were, and matrices scaled near the ends of the range (where flushing would lose digits)
 * must keep full accuracy. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "testutil.h"

enum { FLUSH_MODES = 0x8040 }; /* MXCSR's FTZ and DAZ */

#if defined(__x86_64__)
static const unsigned caller_flushes = FLUSH_MODES;
#else
static const unsigned caller_flushes = 0;
#endif

static unsigned flush_modes(void) {
#if defined(__x86_64__)
    return _mm_getcsr() & FLUSH_MODES;
#else
    return 0;
#endif
}

/* Inverse and 3-column solve of s * KMS(0.5) by `method` (B scaled by sb), checked against
 * the exact inverse and LAPACK's solve, with the caller's flush modes `modes` (x86-64)
 * unchanged by the calls. */
static void check_kms(minv_context *ctx, minv_method method, int64_t n, double s, double sb, unsigned modes) {
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 3, n), *y = tu_alloc(n, 3, n),
           *z = tu_alloc(n, 3, n);
    tu_rng rng;
    tu_seed(&rng, 5);
    tu_kms(n, 0.5, a, n);
    for (int64_t k = 0; k < n * n; k++) a[k] *= s;
    tu_rect(&rng, n, 3, b, n);
    for (int64_t k = 0; k < n * 3; k++) b[k] *= sb;
#if defined(__x86_64__)
    _mm_setcsr((_mm_getcsr() & ~FLUSH_MODES) | modes);
#endif
    minv_report rep;
    CHECK_STATUS(minv_invert_d(ctx, method, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(flush_modes() == modes, "inversion: the caller's flush modes %#x came back as %#x", modes, flush_modes());
    CHECK_STATUS(minv_solve_d(ctx, method, n, 3, a, n, b, n, y, n, &rep), MINV_SUCCESS, ctx);
    CHECK(flush_modes() == modes, "solve: the caller's flush modes %#x came back as %#x", modes, flush_modes());
#if defined(__x86_64__)
    _mm_setcsr(_mm_getcsr() & ~FLUSH_MODES);
#endif
    for (int64_t k = 0; k < n * n; k++) x[k] *= s; /* the inverse of KMS(0.5) itself */
    const double err = tu_kms_inverse_error(n, 0.5, x, n);
    CHECK(err < 1e-13, "%s, scale %g: inverse error %.3g against the exact one", minv_method_name(method), s, err);
    CHECK(tu_lapack_solve(n, 3, a, n, b, n, method == MINV_METHOD_CHOLESKY, z, n) == 0, "LAPACK's solve failed");
    const double diff = tu_rel_diff(n, 3, y, n, z, n);
    CHECK(diff < 1e-13, "%s, scale %g: solve differs from LAPACK's by %.3g", minv_method_name(method), s, diff);
    CHECK(tu_solve_ratio(n, 3, a, n, b, n, y, n, DBL_EPSILON) < 30, "%s, scale %g: solve ratio %.3g",
          minv_method_name(method), s, tu_solve_ratio(n, 3, a, n, b, n, y, n, DBL_EPSILON));
    free(a); free(x); free(b); free(y); free(z);
}

int main(void) {
    minv_context *ctx = tu_context(MINV_BACKEND_CPU, 0);
    if (!ctx) return 1;
    const int64_t n = 1100; /* 0.5^|i-j| products fall below DBL_MIN from |i-j| + |k-l| > 1022 */
    const minv_method methods[2] = {MINV_METHOD_CHOLESKY, MINV_METHOD_LU};
    for (int m = 0; m < 2; m++) {
        check_kms(ctx, methods[m], n, 1, 1, 0);
        check_kms(ctx, methods[m], n, 1, 1, caller_flushes); /* a caller that flushes itself */
        /* the factor is flushed, but not the solve of a tiny B with it */
        check_kms(ctx, methods[m], n, 1, 1e-300, 0);
        /* near the ends of the range flushing would cost digits (1e-300 * 0.5^27 is subnormal):
         * minv must not flush there */
        check_kms(ctx, methods[m], n, 1e-300, 1, 0);
        check_kms(ctx, methods[m], n, 1e295, 1, 0);
    }
    minv_destroy(ctx);
    return tu_finish("test_subnormal");
}
