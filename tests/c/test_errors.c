/* Every error path of the C API: a clear status, a message naming what is wrong, the input
 * untouched, and the report saying how far the call got. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (text))

static void context_errors(void) {
    minv_context *ctx = (minv_context *)&ctx; /* must be reset to NULL on failure */
    minv_options o;
    CHECK(minv_create(NULL, NULL) == MINV_ERR_INVALID_ARG, "NULL out");
    HAS(minv_last_error(NULL), "invalid argument: minv_create: out is NULL");
    /* a refused option is named, with its value, for minv_last_error(NULL) */
    minv_options_default(&o);
    o.backend = (minv_backend)7;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG && ctx == NULL, "bad backend");
    HAS(minv_last_error(NULL), "invalid argument: minv_create: backend = 7 is not MINV_BACKEND_AUTO");
    minv_options_default(&o);
    o.device = -1;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG, "bad device");
    HAS(minv_last_error(NULL), "device = -1 must be >= 0");
    minv_options_default(&o);
    o.cpu_threads = -2;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG, "bad threads");
    HAS(minv_last_error(NULL), "cpu_threads = -2 must be >= 0");
    minv_options_default(&o);
    o.device_memory = -5;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG, "bad memory");
    HAS(minv_last_error(NULL), "device_memory = -5 must be >= 0");
    minv_options_default(&o);
    o.ndevices = 17;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG, "bad ndevices");
    HAS(minv_last_error(NULL), "ndevices = 17 must be -1");
    o.ndevices = 2;
    o.devices[1] = -4;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_INVALID_ARG, "bad devices");
    HAS(minv_last_error(NULL), "devices entry 2 (1-based) = -4 must be >= 0");
    /* a success after a failure: nothing failed, so nothing to say (minv.h) */
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    CHECK(minv_create(&ctx, &o) == MINV_SUCCESS, "CPU context");
    CHECK(strcmp(minv_last_error(NULL), "") == 0, "after a success, minv_last_error(NULL) = \"%s\"", minv_last_error(NULL));
    minv_destroy(ctx);
    /* forcing the GPU where none is usable fails; where one is, it succeeds */
    minv_options_default(&o);
    o.backend = MINV_BACKEND_GPU;
    minv_status st = minv_create(&ctx, &o);
    CHECK(st == MINV_ERR_NO_GPU || (st == MINV_SUCCESS && minv_context_backend(ctx) == MINV_BACKEND_GPU),
          "forced GPU: %s", minv_status_string(st));
    if (st == MINV_SUCCESS) minv_destroy(ctx);
    o.device = 1000;
    CHECK(minv_create(&ctx, &o) == MINV_ERR_NO_GPU, "device 1000");
    CHECK(minv_destroy(NULL) == MINV_SUCCESS, "destroy NULL");
    CHECK(minv_context_backend(NULL) == MINV_BACKEND_AUTO, "backend of no context: %s",
          minv_backend_name(minv_context_backend(NULL)));
    double a = 1, x;
    CHECK(minv_invert_d(NULL, MINV_METHOD_AUTO, 1, &a, 1, &x, 1, NULL) == MINV_ERR_INVALID_ARG, "NULL ctx");
    CHECK(minv_solve_d(NULL, MINV_METHOD_AUTO, 1, 1, &a, 1, &a, 1, &x, 1, NULL) == MINV_ERR_INVALID_ARG, "NULL ctx");
    CHECK(strlen(minv_last_error(NULL)) > 0, "message for NULL");
}

static void options(minv_context *ctx) {
    double v;
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_TOLERANCE, -1), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "tolerance");
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_TOLERANCE, NAN), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_MAX_ITERATIONS, 0), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_MAX_ITERATIONS, 2.5), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, -3), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_RESIDUAL, 3), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, (minv_option)99, 1), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_MAX_ITERATIONS, 42), MINV_SUCCESS, ctx);
    CHECK(strcmp(minv_last_error(ctx), "") == 0, "error cleared after success");
    CHECK(minv_get_option(ctx, MINV_OPT_MAX_ITERATIONS, &v) == MINV_SUCCESS && v == 42, "get %g", v);
    CHECK(minv_get_option(ctx, MINV_OPT_RESIDUAL, &v) == MINV_SUCCESS && v == 1, "default residual %g", v);
    /* the inquiry functions name what is wrong, and clear the message when they succeed */
    CHECK_STATUS(minv_get_option(ctx, (minv_option)99, &v), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "unknown option 99");
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_RESIDUAL, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (value) is NULL");
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_TOLERANCE, -1), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_RESIDUAL, &v), MINV_SUCCESS, ctx);
    CHECK(strcmp(minv_last_error(ctx), "") == 0, "error cleared after get_option: %s", minv_last_error(ctx));
    int32_t count, devices[MINV_MAX_DEVICES];
    CHECK_STATUS(minv_context_devices(ctx, NULL, devices), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 2 (count) is NULL");
    CHECK_STATUS(minv_context_devices(ctx, &count, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (devices) is NULL");
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_TOLERANCE, -1), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_context_devices(ctx, &count, devices), MINV_SUCCESS, ctx);
    CHECK(strcmp(minv_last_error(ctx), "") == 0, "error cleared after context_devices: %s", minv_last_error(ctx));
}

static void argument_errors(minv_context *ctx) {
    double a[16] = {4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4, 1, 0, 0, 1, 4}, x[16], b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    minv_report rep;
    /* n = 0 (or nrhs = 0) is LAPACK's quick return: success, nothing read or written, the
     * arrays may be NULL; the analysis has nothing to give and refuses it */
    x[0] = 7;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 0, a, 1, x, 1, &rep), MINV_SUCCESS, ctx);
    CHECK(x[0] == 7 && rep.n == 0 && rep.rcond == -1, "n = 0: x[0] = %g, report n %lld rcond %g", x[0], (long long)rep.n,
          rep.rcond);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, 0, NULL, 1, NULL, 1, &rep), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 0, 3, NULL, 1, NULL, 1, NULL, 1, &rep), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, 4, 0, a, 4, NULL, 4, x, 4, &rep), MINV_SUCCESS, ctx);
    CHECK(x[0] == 7, "nrhs = 0 wrote x");
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, 0, NULL, NULL, NULL, NULL, 1, &rep), MINV_SUCCESS, ctx);
    int64_t idx[2] = {1, 1};
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, 4, a, 4, 0, NULL, NULL, 1, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.n == 0 && rep.rcond == -1 && rep.residual == -1, "m = 0: report n %lld rcond %g", (long long)rep.n, rep.rcond);
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, 0, NULL, 1, 0, NULL, NULL, 1, &rep), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, 4, NULL, 4, 2, idx, x, 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "minv_invert_subset_d: argument 4 (a) is NULL");
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, -1, a, 4, 0, NULL, x, 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (n) = -1 must be >= 0");
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, 4, a, 4, 5, idx, x, 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 6 (m) = 5 must be in 0..n = 4");
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, 4, a, 4, 2, idx, x, 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (idx): index 2 (1-based) appears twice");
    minv_analysis an;
    CHECK_STATUS(minv_analyze_d(ctx, 0, a, 1, &an), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 2 (n) = 0");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, -4, a, 4, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (n) = -4 must be >= 0");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 4, NULL, 4, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 4 (a)");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 4, a, 3, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 5 (lda)");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 4, a, 4, NULL, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 6 (ainv)");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 4, a, 4, x, 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (ldainv)");
    CHECK_STATUS(minv_invert_d(ctx, (minv_method)17, 4, a, 4, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "method");
    /* one past the last public method: the benchmarks' internal baseline is not reachable */
    CHECK_STATUS(minv_invert_d(ctx, (minv_method)(MINV_METHOD_TRIDIAGONAL + 1), 4, a, 4, x, 4, &rep), MINV_ERR_INVALID_ARG,
                 ctx);
    HAS(minv_last_error(ctx), "argument 2 (method) = 6 is not a minv_method");
    CHECK_STATUS(minv_invert_inplace_s(ctx, MINV_METHOD_AUTO, 3, NULL, 3, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "minv_invert_inplace_s");
    /* sizes whose byte count overflows are refused before anything is touched */
    int64_t huge = (int64_t)1 << 40;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, huge, a, huge, x, huge, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "overflow");
    /* B's bytes just past INT64_MAX (a product that fits 64 unsigned bits), and past 2^64 */
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, ((int64_t)1 << 58) + 1, a, 4, b, 4, x, 4, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "b of 4 x 288230376151711745 with ldb = 4 overflows the address space");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, (int64_t)1 << 61, a, 4, b, 4, x, 4, &rep), MINV_ERR_INVALID_ARG,
                 ctx);
    HAS(minv_last_error(ctx), "overflows the address space");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, -1, a, 4, b, 4, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 4 (nrhs)");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, 2, a, 4, NULL, 4, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (b)");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, 2, a, 4, b, 3, x, 4, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 8 (ldb)");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, 4, 2, a, 4, b, 4, x, 1, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 10 (ldx)");
    CHECK_STATUS(minv_analyze_d(ctx, 4, a, 4, NULL), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_analyze_d(ctx, 4, a, 2, &an), MINV_ERR_INVALID_ARG, ctx);
    /* a valid call after errors succeeds and clears the message; report may be NULL */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 4, a, 4, x, 4, NULL), MINV_SUCCESS, ctx);
    CHECK(minv_last_error(ctx)[0] == '\0', "message cleared");
}

static void not_finite(minv_context *ctx) {
    const int64_t n = 6;
    tu_rng rng;
    tu_seed(&rng, 11);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 2, n);
    tu_spd(&rng, n, a, n);
    tu_rect(&rng, n, 2, b, n);
    a[4 * n + 2] = NAN; /* row 3, column 5 (1-based) */
    a[5 * n + 1] = INFINITY;
    minv_report rep;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
    HAS(minv_last_error(ctx), "row 3, column 5");
    float *af = tu_to_float(n, n, a, n, n), *xf = tu_to_float(n, n, a, n, n);
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_LU, n, af, n, xf, n, &rep), MINV_ERR_NOT_FINITE, ctx);
    HAS(minv_last_error(ctx), "row 3, column 5");
    a[4 * n + 2] = 0;
    a[5 * n + 1] = 0;
    a[1 * n + 1] = 10;
    b[1 * n + 4] = -INFINITY;
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 2, a, n, b, n, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
    HAS(minv_last_error(ctx), "B(5,2)");
    free(a); free(x); free(b); free(af); free(xf);
}

static void singular(minv_context *ctx) {
    const int64_t n = 20;
    tu_rng rng;
    tu_seed(&rng, 12);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *copy = tu_alloc(n, n, n);
    minv_report rep;
    /* an exactly zero column: no pivot there */
    tu_general(&rng, n, a, n);
    for (int64_t i = 0; i < n; i++) a[7 * n + i] = 0;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK(rep.info == 7, "singular column %lld", (long long)rep.info);
    HAS(minv_last_error(ctx), "column 8 (1-based)");
    /* rank 2: singular to working precision even if no pivot is exactly zero */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * n + i] = sin(1.0 + i) * cos(2.0 * j) + cos(3.0 * i) * sin(0.5 + j);
    memcpy(copy, a, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    HAS(minv_last_error(ctx), "singular");
    CHECK(memcmp(a, copy, sizeof(double) * n * n) == 0, "input modified on failure");
    double b[20] = {1};
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    /* all zero: said so, whatever method AUTO would pick for its bandwidth of 0 */
    memset(a, 0, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    HAS(minv_last_error(ctx), "A is zero");
    CHECK(rep.info == 0, "zero matrix info %lld", (long long)rep.info);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    HAS(minv_last_error(ctx), "A is zero");
    free(a); free(x); free(copy);
}

static void not_spd(minv_context *ctx) {
    const int64_t n = 12;
    tu_rng rng;
    tu_seed(&rng, 13);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *copy = tu_alloc(n, n, n);
    minv_report rep;
    /* symmetric, diagonal positive except one entry: forced Cholesky fails at that column */
    tu_spd(&rng, n, a, n);
    a[7 * n + 7] = -3;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == 7, "not SPD at %lld", (long long)rep.info);
    HAS(minv_last_error(ctx), "column 8");
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, 1, a, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    /* symmetric with a positive diagonal but indefinite: AUTO tries Cholesky, then LU, and
     * says so; in place too, where the factorisation must first be undone */
    tu_spd(&rng, n, a, n);
    a[1 * n + 0] = a[0 * n + 1] = 10 * sqrt(a[0] * a[n + 1]);
    memcpy(copy, a, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU && strstr(rep.reason, "so LU instead"), "fallback: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "fallback result");
    memcpy(x, a, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_inplace_d(ctx, MINV_METHOD_AUTO, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "in-place fallback method %s", minv_method_name(rep.method));
    CHECK(tu_inverse_ratio(n, copy, n, x, n, DBL_EPSILON) < 30, "in-place fallback result");
    double b[12] = {1, 2, 3}, xs[12];
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 1, a, n, b, n, xs, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU && tu_solve_ratio(n, 1, a, n, b, n, xs, n, DBL_EPSILON) < 30, "solve fallback");
    /* Cholesky forced on a non-symmetric matrix would invert another matrix: refused */
    tu_general(&rng, n, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    HAS(minv_last_error(ctx), "symmetric");
    CHECK(strstr(rep.reason, "within the symmetry tolerance") == NULL, "reason of a refused Cholesky: %s", rep.reason);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, 1, a, n, b, n, xs, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(strstr(rep.reason, "within the symmetry tolerance") == NULL, "reason of a refused Cholesky solve: %s", rep.reason);
    free(a); free(x); free(copy);
}

/* The methods beyond Cholesky and LU on a 2 x 2 matrix whose inverse is known exactly:
 * [2 1; 1 3]^-1 = [3 -1; -1 2] / 5. */
static void other_methods(minv_context *ctx) {
    const double a[4] = {2, 1, 1, 3}, want[4] = {0.6, -0.2, -0.2, 0.4};
    const minv_method methods[] = {MINV_METHOD_GAUSS_JORDAN, MINV_METHOD_ITERATIVE, MINV_METHOD_TRIDIAGONAL};
    for (int k = 0; k < 3; k++) {
        double x[4] = {NAN, NAN, NAN, NAN};
        minv_report rep;
        CHECK_STATUS(minv_invert_d(ctx, methods[k], 2, a, 2, x, 2, &rep), MINV_SUCCESS, ctx);
        for (int e = 0; e < 4; e++)
            CHECK(fabs(x[e] - want[e]) < 1e-14, "%s: x[%d] = %.17g, want %g", minv_method_name(methods[k]), e, x[e],
                  want[e]);
        CHECK(rep.method == methods[k], "%s ran %s", minv_method_name(methods[k]), minv_method_name(rep.method));
    }
}

static void names(void) {
    for (int s = 0; s <= MINV_ERR_INTERNAL; s++)
        CHECK(strlen(minv_status_string((minv_status)s)) > 3, "status %d", s);
    CHECK(strcmp(minv_status_string((minv_status)99), "unknown status") == 0, "unknown");
    CHECK(strcmp(minv_method_name(MINV_METHOD_GAUSS_JORDAN), "gauss-jordan") == 0, "name");
    /* past the public methods (the first is the benchmarks' internal baseline): unknown */
    CHECK(strcmp(minv_method_name((minv_method)(MINV_METHOD_TRIDIAGONAL + 1)), "unknown") == 0, "method 6: %s",
          minv_method_name((minv_method)(MINV_METHOD_TRIDIAGONAL + 1)));
    CHECK(strcmp(minv_method_name((minv_method)-1), "unknown") == 0, "method -1");
    CHECK(strlen(minv_version()) >= 5, "version %s", minv_version());
}

int main(void) {
    context_errors();
    names();
    minv_context *ctx;
    if (minv_create(&ctx, NULL) != MINV_SUCCESS) return 1;
    options(ctx);
    argument_errors(ctx);
    not_finite(ctx);
    singular(ctx);
    not_spd(ctx);
    other_methods(ctx);
    minv_destroy(ctx);
    return tu_finish("test_errors");
}
