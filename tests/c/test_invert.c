/* Inversion against LAPACK on the same input: random SPD and general matrices of sizes around
 * small edge cases and block sizes, padded leading dimensions, out of place and in place,
 * double and float, every direct method and AUTO. The residual ratio
 * ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) must stay below 30 (LAPACK's dget03 threshold). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const int64_t sizes[] = {1, 2, 3, 5, 10, 31, 32, 33, 64, 65, 129, 200};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void check_double(minv_context *ctx, int64_t n, int spd, minv_method method, int inplace, int pad) {
    tu_rng rng;
    tu_seed(&rng, 1000 + (uint64_t)n * 7 + (uint64_t)spd);
    int64_t lda = n + pad;
    double *a = tu_alloc(n, n, lda), *x = tu_alloc(n, n, lda), *ref = tu_alloc(n, n, n);
    if (spd) tu_spd(&rng, n, a, lda);
    else tu_general(&rng, n, a, lda);
    double *a_before = malloc(sizeof(double) * lda * n);
    memcpy(a_before, a, sizeof(double) * lda * n);
    minv_report rep;
    minv_status st;
    if (inplace) {
        memcpy(x, a, sizeof(double) * lda * n);
        st = minv_invert_inplace_d(ctx, method, n, x, lda, &rep);
    } else {
        st = minv_invert_d(ctx, method, n, a, lda, x, lda, &rep);
    }
    CHECK(st == MINV_SUCCESS, "n=%lld spd=%d method=%s: %s", (long long)n, spd, minv_method_name(method), minv_last_error(ctx));
    if (st == MINV_SUCCESS) {
        double ratio = tu_inverse_ratio(n, a, lda, x, lda, DBL_EPSILON);
        CHECK(ratio < 30, "n=%lld spd=%d %s inplace=%d: residual ratio %.3g", (long long)n, spd,
              minv_method_name(rep.method), inplace, ratio);
        CHECK(tu_lapack_inverse(n, a, lda, spd, ref, n) == 0, "LAPACK reference failed");
        double diff = tu_rel_diff(n, n, x, lda, ref, n);
        /* both inverses are backward stable: they agree to cond * n * eps, cond < 1e3 here */
        CHECK(diff < 1e3 * (double)n * DBL_EPSILON, "n=%lld: differs from LAPACK by %.3g", (long long)n, diff);
        CHECK(rep.rcond > 0 && rep.rcond <= 1 + 1e-12, "rcond %.17g", rep.rcond);
        CHECK(rep.residual >= 0 && rep.residual < 10 * DBL_EPSILON * n, "report residual %.3g", rep.residual);
        CHECK(rep.backend == MINV_BACKEND_CPU || rep.backend == MINV_BACKEND_GPU, "backend %d", rep.backend);
        CHECK(rep.seconds >= 0 && rep.flops > 0, "timing %.3g flops %.3g", rep.seconds, rep.flops);
        if (method == MINV_METHOD_AUTO)
            /* orders 1 and 2 are tridiagonal, which AUTO inverts as such */
            CHECK(rep.method == (n <= 2 ? MINV_METHOD_TRIDIAGONAL : spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU) &&
                      strstr(rep.reason, "AUTO"),
                  "AUTO chose %s: %s", minv_method_name(rep.method), rep.reason);
        if (rep.method == MINV_METHOD_CHOLESKY) /* both triangles filled, exactly symmetric */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < j; i++)
                    if (x[j * lda + i] != x[i * lda + j]) {
                        CHECK(0, "inverse not symmetric at (%lld,%lld)", (long long)i, (long long)j);
                        j = n;
                        break;
                    }
    }
    if (!inplace) /* the input is untouched, padding included (NaN == NaN bitwise) */
        CHECK(memcmp(a, a_before, sizeof(double) * lda * n) == 0, "input modified");
    free(a); free(x); free(ref); free(a_before);
}

static void check_float(minv_context *ctx, int64_t n, int spd, minv_method method) {
    tu_rng rng;
    tu_seed(&rng, 2000 + (uint64_t)n);
    int64_t lda = n + 1;
    double *ad = tu_alloc(n, n, n);
    if (spd) tu_spd(&rng, n, ad, n);
    else tu_general(&rng, n, ad, n);
    float *a = tu_to_float(n, n, ad, n, lda), *x = tu_to_float(n, n, ad, n, lda);
    minv_report rep;
    minv_status st = minv_invert_s(ctx, method, n, a, lda, x, lda, &rep);
    CHECK(st == MINV_SUCCESS, "float n=%lld: %s", (long long)n, minv_last_error(ctx));
    if (st == MINV_SUCCESS) {
        double *a2 = tu_to_double(n, n, a, lda), *x2 = tu_to_double(n, n, x, lda);
        double ratio = tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON);
        CHECK(ratio < 30, "float n=%lld spd=%d: residual ratio %.3g", (long long)n, spd, ratio);
        free(a2); free(x2);
    }
    free(ad); free(a); free(x);
}

static void run(minv_context *ctx);

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    for (int k = 0; k < count; k++) {
        printf("backend %s\n", minv_backend_name(minv_context_backend(ctx[k])));
        run(ctx[k]);
        minv_destroy(ctx[k]);
    }
    return tu_finish("test_invert");
}

static void run(minv_context *ctx) {
    for (int k = 0; k < NSIZES; k++) {
        int64_t n = sizes[k];
        check_double(ctx, n, 1, MINV_METHOD_CHOLESKY, 0, 0);
        check_double(ctx, n, 1, MINV_METHOD_AUTO, 0, 3);
        check_double(ctx, n, 1, MINV_METHOD_LU, 1, 2);
        check_double(ctx, n, 0, MINV_METHOD_LU, 0, 5);
        check_double(ctx, n, 0, MINV_METHOD_AUTO, 1, 0);
        check_float(ctx, n, 1, MINV_METHOD_AUTO);
        check_float(ctx, n, 0, MINV_METHOD_LU);
    }
    /* the full residual mode gives the same ratio the test computes */
    CHECK(minv_set_option(ctx, MINV_OPT_RESIDUAL, 2) == MINV_SUCCESS, "set residual");
    check_double(ctx, 50, 0, MINV_METHOD_LU, 1, 1);
    { /* minv_invert_d with ainv == a is in place: the full residual is of A, not of its inverse */
        const int64_t n = 40;
        tu_rng rng;
        tu_seed(&rng, 1077);
        double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
        minv_report rep;
        tu_spd(&rng, n, a, n);
        memcpy(x, a, sizeof(double) * n * n);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, x, n, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.residual_kind == 2 && rep.residual < 10 * DBL_EPSILON * n && tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30,
              "ainv == a: residual %.3g (kind %d)", rep.residual, rep.residual_kind);
        free(a); free(x);
    }
    CHECK(minv_set_option(ctx, MINV_OPT_RESIDUAL, 1) == MINV_SUCCESS, "reset residual");
}
