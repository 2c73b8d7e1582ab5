/* Blocked Gauss-Jordan on every backend, against LAPACK on the same input: sizes
 * around the block size and not multiples of it, matrices that need pivoting (zero or tiny
 * leading diagonal), condition 1e10, singular ones (SINGULAR with the column), solves with one
 * and with more right-hand sides than unknowns, float and double; the GPU against the CPU. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void inversion(minv_context *ctx, minv_context *cpu) {
    static const int64_t sizes[] = {1, 2, 3, 5, 63, 64, 65, 127, 129, 300, 555};
    static const int64_t blocks[] = {0, 16, 64};
    tu_rng rng;
    tu_seed(&rng, 601);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
            const int64_t n = sizes[s], lda = n + 2;
            double *a = tu_alloc(n, n, lda), *x = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n);
            minv_report rep;
            minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)blocks[b]);
            if (b == 2) tu_with_cond(&rng, n, 1e10, 0, a, lda);
            else tu_needs_pivoting(&rng, n, a, lda);
            CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, a, lda, x, n, &rep), MINV_SUCCESS, ctx);
            double ratio = tu_inverse_ratio(n, a, lda, x, n, DBL_EPSILON);
            CHECK(ratio < 30, "%s n=%lld nb=%lld: ratio %.3g", minv_backend_name(rep.backend), (long long)n,
                  (long long)blocks[b], ratio);
            CHECK(rep.method == MINV_METHOD_GAUSS_JORDAN && rep.rcond > 0, "report: method %d rcond %.3g", rep.method,
                  rep.rcond);
            if (b < 2) { /* well conditioned: close to LAPACK's inverse */
                CHECK(tu_lapack_inverse(n, a, lda, 0, ref, n) == 0, "LAPACK");
                CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "n=%lld: vs LAPACK %.3g", (long long)n,
                      tu_rel_diff(n, n, x, n, ref, n));
            }
            if (ctx != cpu && b == 0) { /* the GPU against the CPU on the same input */
                CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_GAUSS_JORDAN, n, a, lda, ref, n, &rep), MINV_SUCCESS, cpu);
                CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-11, "GPU vs CPU n=%lld: %.3g", (long long)n,
                      tu_rel_diff(n, n, x, n, ref, n));
            }
            /* single precision */
            float *af = tu_to_float(n, n, a, lda, n), *xf = (float *)malloc(sizeof(float) * n * n);
            if (b < 2) {
                tu_general(&rng, n, a, lda);
                free(af);
                af = tu_to_float(n, n, a, lda, n);
                CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_GAUSS_JORDAN, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
                double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
                ratio = tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON);
                CHECK(ratio < 30, "float n=%lld nb=%lld: ratio %.3g", (long long)n, (long long)blocks[b], ratio);
                free(a2);
                free(x2);
            }
            free(a); free(x); free(ref); free(af); free(xf);
        }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0);
}

static void singular(minv_context *ctx) {
    const int64_t n = 150;
    tu_rng rng;
    tu_seed(&rng, 602);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 3, n);
    minv_report rep;
    for (int pass = 0; pass < 2; pass++) {
        const int64_t col = pass ? 0 : 97;
        tu_general(&rng, n, a, n);
        for (int64_t i = 0; i < n; i++) a[col * n + i] = 0;
        minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 32);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
        CHECK(rep.info == col, "singular column %lld, reported %lld", (long long)col, (long long)rep.info);
        CHECK(strstr(minv_last_error(ctx), "column") != NULL, "message: %s", minv_last_error(ctx));
        tu_rect(&rng, n, 3, b, n);
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, 3, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
        CHECK(rep.info == col, "solve: singular column %lld, reported %lld", (long long)col, (long long)rep.info);
    }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0);
    free(a); free(x); free(b);
}

static void solves(minv_context *ctx, minv_context *cpu) {
    static const int64_t sizes[] = {1, 7, 64, 130, 400};
    static const int64_t rhs[] = {1, 5, 600};
    tu_rng rng;
    tu_seed(&rng, 603);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t r = 0; r < sizeof rhs / sizeof rhs[0]; r++) {
            const int64_t n = sizes[s], k = rhs[r], ld = n + 1;
            double *a = tu_alloc(n, n, ld), *b = tu_alloc(n, k, ld), *x = tu_alloc(n, k, ld), *y = tu_alloc(n, k, ld);
            minv_report rep;
            minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, r == 1 ? 32 : 0);
            if (r == 1) tu_with_cond(&rng, n, 1e10, 0, a, ld);
            else tu_needs_pivoting(&rng, n, a, ld);
            tu_rect(&rng, n, k, b, ld);
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, k, a, ld, b, ld, x, ld, &rep), MINV_SUCCESS, ctx);
            double ratio = tu_solve_ratio(n, k, a, ld, b, ld, x, ld, DBL_EPSILON);
            CHECK(ratio < 30, "%s solve n=%lld k=%lld: ratio %.3g", minv_backend_name(rep.backend), (long long)n,
                  (long long)k, ratio);
            CHECK(rep.rcond > 0 && rep.rcond <= 1, "solve rcond %.3g", rep.rcond);
            if (r == 1 && n > 1) CHECK(rep.rcond < 1e-6, "condition 1e10: rcond %.3g", rep.rcond);
            if (ctx != cpu && r != 1) {
                CHECK_STATUS(minv_solve_d(cpu, MINV_METHOD_GAUSS_JORDAN, n, k, a, ld, b, ld, y, ld, &rep), MINV_SUCCESS, cpu);
                CHECK(tu_rel_diff(n, k, x, ld, y, ld) < 1e-11, "solve GPU vs CPU n=%lld: %.3g", (long long)n,
                      tu_rel_diff(n, k, x, ld, y, ld));
            }
            if (r != 1) {
                float *af = tu_to_float(n, n, a, ld, n), *bf = tu_to_float(n, k, b, ld, n), *xf = tu_to_float(n, k, b, ld, n);
                CHECK_STATUS(minv_solve_s(ctx, MINV_METHOD_GAUSS_JORDAN, n, k, af, n, bf, n, xf, n, &rep), MINV_SUCCESS, ctx);
                double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n), *x2 = tu_to_double(n, k, xf, n);
                ratio = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON);
                CHECK(ratio < 30, "float solve n=%lld k=%lld: ratio %.3g", (long long)n, (long long)k, ratio);
                free(af); free(bf); free(xf); free(a2); free(b2); free(x2);
            }
            free(a); free(b); free(x); free(y);
        }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0);
}

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        inversion(ctx[c], ctx[0]);
        singular(ctx[c]);
        solves(ctx[c], ctx[0]);
    }
    for (int c = 0; c < count; c++) minv_destroy(ctx[c]);
    return tu_finish("test_gauss_jordan");
}
