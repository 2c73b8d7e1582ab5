/* minv_solve_inplace_d/_s (B overwritten by X, as gesv and posv) against the out-of-place
 * solve, on every backend this machine has (the GPU's host forms too): the same X to the bit,
 * the same method, a residual in the report; batched solves in place (x = b) likewise. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void one(minv_context *ctx, int64_t n, int64_t k, int spd, int pad) {
    tu_rng rng;
    tu_seed(&rng, 41 + (uint64_t)n + (uint64_t)k);
    const int64_t lda = n + pad, ldb = n + 2 * pad;
    double *a = tu_alloc(n, n, lda), *b = tu_alloc(n, k, ldb), *x = tu_alloc(n, k, ldb), *y = tu_alloc(n, k, ldb);
    if (spd) tu_spd(&rng, n, a, lda);
    else tu_general(&rng, n, a, lda);
    tu_rect(&rng, n, k, b, ldb);
    minv_report out, in;
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, a, lda, b, ldb, x, ldb, &out), MINV_SUCCESS, ctx);
    memcpy(y, b, sizeof(double) * (size_t)(ldb * k));
    CHECK_STATUS(minv_solve_inplace_d(ctx, MINV_METHOD_AUTO, n, k, a, lda, y, ldb, &in), MINV_SUCCESS, ctx);
    int same = 1;
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) same &= x[j * ldb + i] == y[j * ldb + i];
    CHECK(same, "n %lld k %lld spd %d: in place differs from out of place", (long long)n, (long long)k, spd);
    CHECK(in.method == out.method && in.residual_kind == out.residual_kind && in.residual >= 0 &&
              in.residual < 100 * (double)n * DBL_EPSILON,
          "n %lld: in place %s residual %.3g (kind %d), out of place %s", (long long)n, minv_method_name(in.method),
          in.residual, in.residual_kind, minv_method_name(out.method));
    /* the same columns of B and X sampled, whether kept aside (in place) or read where they are:
     * the same residual, to the bit on the CPU; the GPU sums its products atomically, in either
     * order (a last-bit difference seen at n 130 on an H100) */
    const double same_residual = minv_context_backend(ctx) == MINV_BACKEND_GPU ? 1e-12 * out.residual : 0;
    CHECK(fabs(in.residual - out.residual) <= same_residual, "n %lld k %lld: in place residual %.17g, out of place %.17g",
          (long long)n, (long long)k, in.residual, out.residual);
    CHECK(tu_solve_ratio(n, k, a, lda, b, ldb, y, ldb, DBL_EPSILON) < 30, "n %lld: in place solves A", (long long)n);
    /* float */
    float *af = tu_to_float(n, n, a, lda, lda), *bf = tu_to_float(n, k, b, ldb, ldb);
    float *xf = tu_to_float(n, k, b, ldb, ldb);
    CHECK_STATUS(minv_solve_s(ctx, MINV_METHOD_AUTO, n, k, af, lda, bf, ldb, xf, ldb, &out), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_inplace_s(ctx, MINV_METHOD_AUTO, n, k, af, lda, bf, ldb, &in), MINV_SUCCESS, ctx);
    same = 1;
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) same &= xf[j * ldb + i] == bf[j * ldb + i];
    CHECK(same, "float n %lld: in place differs", (long long)n);
    free(a); free(b); free(x); free(y); free(af); free(bf); free(xf);
}

static void batched(minv_context *ctx) {
    const int64_t k = 12, nrhs = 3, count = 50;
    tu_rng rng;
    tu_seed(&rng, 43);
    double *a = malloc(sizeof(double) * (size_t)(k * k * count)), *b = malloc(sizeof(double) * (size_t)(k * nrhs * count));
    double *x = malloc(sizeof(double) * (size_t)(k * nrhs * count));
    for (int64_t m = 0; m < count; m++) {
        if (m % 2) tu_spd(&rng, k, a + m * k * k, k);
        else tu_general(&rng, k, a + m * k * k, k);
    }
    tu_rect(&rng, k, nrhs * count, b, k);
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, nrhs, count, a, k, k * k, b, k, k * nrhs, x, k, k * nrhs,
                                      NULL, NULL), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, nrhs, count, a, k, k * k, b, k, k * nrhs, b, k, k * nrhs,
                                      NULL, NULL), MINV_SUCCESS, ctx);
    CHECK(memcmp(x, b, sizeof(double) * (size_t)(k * nrhs * count)) == 0, "batched in place = out of place");
    free(a); free(b); free(x);
}

int main(void) {
    minv_context *ctx[2];
    const int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        const int64_t ns[] = {1, 5, 29, 48, 49, 130};
        for (int s = 0; s < 6; s++)
            for (int spd = 0; spd < 2; spd++) {
                one(ctx[c], ns[s], 1, spd, 0);
                one(ctx[c], ns[s], 7, spd, 3);
            }
        batched(ctx[c]);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_solve_inplace");
}
