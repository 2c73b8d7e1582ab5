/* The CPU backend's two paths per call, the unblocked kernels of small orders and LAPACK above
 * them (src_c/cpu/small.h), around the switch and with the right-hand-side counts where the
 * sweeps change hands: every result against LAPACK by the tester ratios, and failures named at
 * the column LAPACK names (potrf's and getrf's info). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const int64_t sizes[] = {1, 2, 7, 8, 29, 47, 48, 49, 64};
static const int64_t rhs_counts[] = {1, 3, 4, 5, 30};

static minv_context *cpu(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = 1;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

static void solves(minv_context *ctx, int64_t n, int kind) {
    tu_rng rng;
    tu_seed(&rng, 31 + (uint64_t)n * 3 + (uint64_t)kind);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, 30, n), *x = tu_alloc(n, 30, n);
    if (kind == 0) tu_spd(&rng, n, a, n);
    else if (kind == 1) tu_general(&rng, n, a, n);
    else tu_needs_pivoting(&rng, n, a, n);
    tu_rect(&rng, n, 30, b, n);
    for (size_t r = 0; r < sizeof rhs_counts / sizeof rhs_counts[0]; r++) {
        const int64_t k = rhs_counts[r];
        minv_report rep;
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
        const double ratio = tu_solve_ratio(n, k, a, n, b, n, x, n, DBL_EPSILON);
        CHECK(ratio < 30, "solve n %lld nrhs %lld kind %d: ratio %.3g", (long long)n, (long long)k, kind, ratio);
        CHECK(rep.rcond > 0 && rep.rcond <= 1, "solve n %lld: rcond %.3g", (long long)n, rep.rcond);
        if (n > 1) /* a 1 x 1 matrix is symmetric */
            CHECK(rep.method == (kind == 0 ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU), "method %s", minv_method_name(rep.method));
    }
    double *ainv = tu_alloc(n, n, n);
    minv_report rep;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, ainv, n, &rep), MINV_SUCCESS, ctx);
    const double ratio = tu_inverse_ratio(n, a, n, ainv, n, DBL_EPSILON);
    CHECK(ratio < 30, "invert n %lld kind %d: ratio %.3g", (long long)n, kind, ratio);
    if (kind == 0 && n > 2) /* (AUTO inverts orders 1 and 2 as tridiagonal matrices) */
        CHECK(tu_symmetric(n, ainv, n), "the SPD inverse of order %lld is symmetric", (long long)n);
    /* the exact rcond of an inverse: 1 / (||A||_1 ||A^-1||_1) */
    const double exact = 1 / (tu_norm1(n, n, a, n) * tu_norm1(n, n, ainv, n));
    CHECK(fabs(rep.rcond - exact) <= 1e-12 * exact, "invert n %lld: rcond %.17g, exact %.17g", (long long)n, rep.rcond, exact);
    /* float too */
    float *af = tu_to_float(n, n, a, n, n), *xf = malloc(sizeof(float) * (size_t)(n * n));
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_AUTO, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
    double *xd = tu_to_double(n, n, xf, n), *ad = tu_to_double(n, n, af, n);
    CHECK(tu_inverse_ratio(n, ad, n, xd, n, FLT_EPSILON) < 30, "float invert n %lld kind %d", (long long)n, kind);
    free(a); free(b); free(x); free(ainv); free(af); free(xf); free(xd); free(ad);
}

void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);

/* Failures name LAPACK's column: an indefinite matrix forced to Cholesky, a singular one to LU. */
static void failures(minv_context *ctx, int64_t n) {
    if (n < 3) return;
    tu_rng rng;
    tu_seed(&rng, 77 + (uint64_t)n);
    double *a = tu_alloc(n, n, n), *f = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 1, n);
    tu_spd(&rng, n, a, n);
    tu_rect(&rng, n, 1, b, n);
    const int64_t bad = n / 2;
    a[bad * n + bad] = -1; /* the leading minor of order bad + 1 is indefinite */
    memcpy(f, a, sizeof(double) * (size_t)(n * n));
    int ni = (int)n, info = 0;
    dpotrf_("L", &ni, f, &ni, &info, 1);
    minv_report rep;
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == info - 1, "n %lld: not SPD at column %lld, potrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == info - 1, "n %lld: invert not SPD at column %lld, potrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 1, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "AUTO falls back to LU: %s", minv_method_name(rep.method));
    /* an exactly singular matrix: a zero column */
    tu_general(&rng, n, a, n);
    for (int64_t i = 0; i < n; i++) a[bad * n + i] = 0;
    memcpy(f, a, sizeof(double) * (size_t)(n * n));
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    dgetrf_(&ni, &ni, f, &ni, ipiv, &info);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK(rep.info == info - 1, "n %lld: singular at column %lld, getrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK(rep.info == info - 1, "n %lld: solve singular at column %lld, getrf says %d", (long long)n, (long long)rep.info, info);
    free(a); free(f); free(x); free(b); free(ipiv);
}

int main(void) {
    minv_context *ctx = cpu();
    if (!ctx) return 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int kind = 0; kind < 3; kind++) solves(ctx, sizes[s], kind);
        failures(ctx, sizes[s]);
    }
    minv_destroy(ctx);
    return tu_finish("test_cpu_kernels");
}
