/* Many-right-hand-side solves against LAPACK's dget02 ratio ||B - A X||_1 / (n ||A||_1 ||X||_1
 * eps) < 30: SPD and general, nrhs = 1, a few, n and 2n, padded leading dimensions, double
 * and float, and B left untouched; LU at orders that are no multiple of the GPU solve's
 * 256-row diagonal blocks and that its halving splits twice. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void check(minv_context *ctx, int64_t n, int64_t k, int spd, minv_method method, int single) {
    tu_rng rng;
    tu_seed(&rng, 3000 + (uint64_t)(n * 31 + k) + (uint64_t)spd);
    int64_t lda = n + 2, ldb = n + 1, ldx = n + 3;
    double *a = tu_alloc(n, n, lda), *b = tu_alloc(n, k, ldb), *x = tu_alloc(n, k, ldx);
    if (spd) tu_spd(&rng, n, a, lda);
    else tu_general(&rng, n, a, lda);
    tu_rect(&rng, n, k, b, ldb);
    minv_report rep;
    minv_status st;
    double ratio;
    if (!single) {
        double *b_before = malloc(sizeof(double) * ldb * k);
        memcpy(b_before, b, sizeof(double) * ldb * k);
        st = minv_solve_d(ctx, method, n, k, a, lda, b, ldb, x, ldx, &rep);
        ratio = st == MINV_SUCCESS ? tu_solve_ratio(n, k, a, lda, b, ldb, x, ldx, DBL_EPSILON) : INFINITY;
        CHECK(memcmp(b, b_before, sizeof(double) * ldb * k) == 0, "B modified");
        free(b_before);
    } else {
        float *af = tu_to_float(n, n, a, lda, lda), *bf = tu_to_float(n, k, b, ldb, ldb);
        float *xf = tu_to_float(n, k, x, ldx, ldx);
        st = minv_solve_s(ctx, method, n, k, af, lda, bf, ldb, xf, ldx, &rep);
        double *a2 = tu_to_double(n, n, af, lda), *b2 = tu_to_double(n, k, bf, ldb), *x2 = tu_to_double(n, k, xf, ldx);
        ratio = st == MINV_SUCCESS ? tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON) : INFINITY;
        free(af); free(bf); free(xf); free(a2); free(b2); free(x2);
    }
    CHECK(st == MINV_SUCCESS, "n=%lld k=%lld: %s", (long long)n, (long long)k, minv_last_error(ctx));
    CHECK(ratio < 30, "n=%lld k=%lld spd=%d %s single=%d: ratio %.3g", (long long)n, (long long)k, spd,
          minv_method_name(rep.method), single, ratio);
    CHECK(rep.nrhs == k && rep.n == n, "report sizes %lld %lld", (long long)rep.n, (long long)rep.nrhs);
    CHECK(rep.residual >= 0 && rep.residual < 100 * n * (single ? FLT_EPSILON : DBL_EPSILON),
          "report residual %.3g", rep.residual);
    free(a); free(b); free(x);
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
    return tu_finish("test_solve");
}

static void run(minv_context *ctx) {
    const int64_t ns[] = {1, 2, 7, 33, 100};
    for (int i = 0; i < 5; i++) {
        int64_t n = ns[i];
        const int64_t ks[] = {1, 3, n, 2 * n};
        for (int j = 0; j < 4; j++) {
            check(ctx, n, ks[j], 1, MINV_METHOD_CHOLESKY, 0);
            check(ctx, n, ks[j], 1, MINV_METHOD_AUTO, 1);
            check(ctx, n, ks[j], 0, MINV_METHOD_LU, 0);
            check(ctx, n, ks[j], 0, MINV_METHOD_AUTO, 1);
        }
    }
    const int64_t lu[][2] = {{700, 1}, {1000, 1003}, {2100, 5}};
    for (int i = 0; i < 3; i++) {
        check(ctx, lu[i][0], lu[i][1], 0, MINV_METHOD_LU, 0);
        check(ctx, lu[i][0], lu[i][1], 0, MINV_METHOD_LU, 1);
    }
    CHECK(minv_set_option(ctx, MINV_OPT_RESIDUAL, 2) == MINV_SUCCESS, "set residual");
    check(ctx, 60, 70, 0, MINV_METHOD_AUTO, 0);
    CHECK(minv_set_option(ctx, MINV_OPT_RESIDUAL, 1) == MINV_SUCCESS, "reset residual");
}
