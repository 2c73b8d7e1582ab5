/* The iterative inversion on every backend: both iteration formulas and every initial guess
 * reach the LAPACK-tester residual bound; the residual history falls; a warm start from a
 * nearby inverse converges in one or two steps; mixed precision reaches the same tolerance;
 * alpha I finds its alpha (||I - alpha A|| < 1) or says there is none, and is the last of
 * AUTO's fallbacks; a matrix on which the iteration diverges gets NO_CONVERGENCE, not a wrong
 * answer. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* minv_invert_gj_baseline */
#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "\"%s\" lacks \"%s\"", (msg), (text))

static void set(minv_context *ctx, minv_option o, double v) {
    CHECK(minv_set_option(ctx, o, v) == MINV_SUCCESS, "option %d = %g: %s", (int)o, v, minv_last_error(ctx));
}

static void converges(minv_context *ctx, int64_t n, int kind, minv_iteration it, minv_guess g) {
    tu_rng rng;
    tu_seed(&rng, 7000 + (uint64_t)n * 3 + (uint64_t)kind);
    double *a = tu_alloc(n, n, n + 1), *x = tu_alloc(n, n, n);
    if (kind == 0) tu_spd(&rng, n, a, n + 1);
    else if (kind == 1) tu_with_cond(&rng, n, 50, 0, a, n + 1);
    else if (kind == 3) { /* 2 I + a skew-symmetric part: eigenvalues 2 +- i y, off the real axis */
        tu_rect(&rng, n, n, a, n + 1);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i <= j; i++) {
                const double v = i == j ? 2 : 0.3 * a[j * (n + 1) + i];
                a[j * (n + 1) + i] = v;
                a[i * (n + 1) + j] = i == j ? v : -v;
            }
    } else { /* strictly diagonally dominant */
        tu_rect(&rng, n, n, a, n + 1);
        for (int64_t i = 0; i < n; i++) a[i * (n + 1) + i] = (double)n * (1.2 + 0.5 * tu_uniform(&rng));
    }
    set(ctx, MINV_OPT_ITERATION, it);
    set(ctx, MINV_OPT_INITIAL_GUESS, g);
    set(ctx, MINV_OPT_TOLERANCE, 0);
    minv_report rep;
    minv_status st = minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n + 1, x, n, &rep);
    CHECK(st == MINV_SUCCESS, "n=%lld kind=%d it=%d guess=%d: %s", (long long)n, kind, it, g, minv_last_error(ctx));
    if (st == MINV_SUCCESS) {
        double ratio = tu_inverse_ratio(n, a, n + 1, x, n, DBL_EPSILON);
        CHECK(ratio < 30, "n=%lld kind=%d it=%d guess=%d: ratio %.3g", (long long)n, kind, it, g, ratio);
        CHECK(rep.method == MINV_METHOD_ITERATIVE && rep.history_len == rep.iterations + 1 + (rep.history_len > rep.iterations + 1),
              "report: %lld steps, %lld residuals", (long long)rep.iterations, (long long)rep.history_len);
        for (int64_t k = 1; k < rep.iterations; k++)
            CHECK(rep.residual_history[k] < rep.residual_history[k - 1], "history not falling at %lld: %s",
                  (long long)k, rep.reason);
        CHECK(rep.rcond > 0, "rcond");
        CHECK(rep.flops >= (double)n * n * n * 2 * ((it == MINV_ITERATION_HYPERPOWER8 ? 6 : 9) * rep.iterations + 1),
              "flops %.3g", rep.flops);
        minv_analysis an;
        minv_analyze_d(ctx, n, a, n + 1, &an);
        if (g == MINV_GUESS_AUTO)
            HAS(rep.reason, an.diag_dominant ? "diag(1/a_ii)" : "A^T/");
        if (g == MINV_GUESS_IDENTITY)
            HAS(rep.reason, "< 1"); /* the alpha found, and its check */
        if (n > 16)
            CHECK(rep.iterations >= 2, "n=%lld kind=%d: only %lld steps", (long long)n, kind, (long long)rep.iterations);
    }
    free(a);
    free(x);
}

static void tolerance_warm_mixed(minv_context *ctx) {
    const int64_t n = 150;
    tu_rng rng;
    tu_seed(&rng, 7100);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *v0 = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n);
    tu_with_cond(&rng, n, 100, 0, a, n);
    minv_report rep;
    set(ctx, MINV_OPT_INITIAL_GUESS, MINV_GUESS_AUTO);
    set(ctx, MINV_OPT_ITERATION, MINV_ITERATION_SOLEYMANI7);
    set(ctx, MINV_OPT_TOLERANCE, 1e-12);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.residual_history[rep.history_len - 1] <= 1e-12, "tolerance: last %.3g", rep.residual_history[rep.history_len - 1]);
    int64_t cold = rep.iterations;
    /* warm start: the exact inverse perturbed by 1e-6 relative */
    tu_lapack_inverse(n, a, n, 0, ref, n);
    for (int64_t k = 0; k < n * n; k++) v0[k] = ref[k] * (1 + 1e-6 * tu_uniform(&rng));
    CHECK_STATUS(minv_invert_warm_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, v0, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.iterations >= 1 && rep.iterations <= 2 && rep.iterations < cold, "warm start took %lld steps (cold %lld)",
          (long long)rep.iterations, (long long)cold);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "warm result");
    HAS(rep.reason, "warm start");
    /* v0 may be the output itself */
    memcpy(x, v0, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_warm_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_ITERATIVE && tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "warm in place");
    /* a useless warm start: ITERATIVE fails, AUTO falls back to a direct method and says so */
    for (int64_t k = 0; k < n * n; k++) v0[k] = 5 * tu_uniform(&rng);
    CHECK_STATUS(minv_invert_warm_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, v0, n, x, n, &rep), MINV_ERR_NO_CONVERGENCE, ctx);
    CHECK_STATUS(minv_invert_warm_d(ctx, MINV_METHOD_AUTO, n, a, n, v0, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU && strstr(rep.reason, "did not converge"), "warm fallback: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "warm fallback result");
    CHECK_STATUS(minv_invert_warm_d(ctx, MINV_METHOD_LU, n, a, n, v0, n, x, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    /* mixed precision: same tolerance, fewer double steps */
    set(ctx, MINV_OPT_MIXED_PRECISION, 1);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.residual_history[rep.history_len - 1] <= 1e-12, "mixed: last %.3g", rep.residual_history[rep.history_len - 1]);
    HAS(rep.reason, "single precision");
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "mixed result");
    set(ctx, MINV_OPT_MIXED_PRECISION, 0);
    set(ctx, MINV_OPT_TOLERANCE, 0);
    free(a); free(x); free(v0); free(ref);
}

static void failures(minv_context *ctx) {
    const int64_t n = 60;
    tu_rng rng;
    tu_seed(&rng, 7200);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *q = tu_alloc(n, n, n);
    minv_report rep;
    /* eigenvalues of both signs: alpha I cannot converge, and must not pretend to */
    tu_with_cond(&rng, n, 10, 1, q, n);
    tu_rect(&rng, n, n, a, n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * n + i] = (i == j) ? (i % 2 ? -1.0 : 1.0) * (1 + i) : 0.01 * a[j * n + i];
    set(ctx, MINV_OPT_INITIAL_GUESS, MINV_GUESS_IDENTITY);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_ERR_NO_CONVERGENCE, ctx);
    HAS(minv_last_error(ctx), "no alpha gives ||I - alpha A|| < 1");
    HAS(minv_last_error(ctx), "half-plane");
    set(ctx, MINV_OPT_INITIAL_GUESS, MINV_GUESS_AUTO);
    /* the same matrix from A^T converges */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "A^T start result");
    /* AUTO's last fallback: SPD of condition 1e4, whose transpose start (condition 1e8 for
     * A A^T) needs more steps than the cap allows, while alpha I (condition 1e4) does not */
    tu_with_cond(&rng, n, 1e4, 1, a, n);
    set(ctx, MINV_OPT_MAX_ITERATIONS, 10);
    set(ctx, MINV_OPT_TOLERANCE, 0);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    HAS(rep.reason, "A^T/(||A||_1 ||A||_inf) did not converge");
    HAS(rep.reason, "so V0 = alpha I");
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "alpha I fallback: ratio %.3g (%s)",
          tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON), rep.reason);
    /* an iteration cap that is too low */
    tu_with_cond(&rng, n, 1e4, 0, a, n);
    set(ctx, MINV_OPT_MAX_ITERATIONS, 2);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_ERR_NO_CONVERGENCE, ctx);
    HAS(minv_last_error(ctx), "MINV_OPT_MAX_ITERATIONS");
    HAS(minv_last_error(ctx), "no start converged: V0 = A^T/(||A||_1 ||A||_inf): no convergence in 2 steps");
    HAS(minv_last_error(ctx), "; V0 = alpha I: ");
    CHECK(strstr(minv_last_error(ctx), "so A is singular") == NULL, "the cap is not singularity: %s", minv_last_error(ctx));
    /* the report as far as it got: the history of the steps counted */
    CHECK(rep.history_len > 0 && rep.history_len == rep.iterations + 1, "history %lld for %lld step(s)",
          (long long)rep.history_len, (long long)rep.iterations);
    set(ctx, MINV_OPT_MAX_ITERATIONS, 100);
    /* singular PSD (rank n - 1): every start fails, and the message says why */
    tu_rect(&rng, n, n, q, n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double sum = 0;
            for (int64_t k = 0; k + 1 < n; k++) sum += q[k * n + i] * q[k * n + j];
            a[j * n + i] = sum;
        }
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_ERR_NO_CONVERGENCE, ctx);
    HAS(minv_last_error(ctx), "so A is singular or too ill-conditioned");
    /* float */
    tu_spd(&rng, n, a, n);
    float *af = tu_to_float(n, n, a, n, n), *xf = tu_to_float(n, n, a, n, n);
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_ITERATIVE, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
    double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
    CHECK(tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON) < 30, "float iterative");
    free(a); free(x); free(q); free(af); free(xf); free(a2); free(x2);
}

/* The paper's Gauss-Jordan baseline (the benchmarks' internal entry): pivoting where the diagonal
 * is zero, singular columns. */
static void gj_baseline(minv_context *ctx) {
    const int64_t sizes[] = {1, 7, 100};
    tu_rng rng;
    tu_seed(&rng, 7300);
    for (int s = 0; s < 3; s++) {
        const int64_t n = sizes[s];
        double *a = tu_alloc(n, n, n + 2), *x = tu_alloc(n, n, n);
        minv_report rep;
        tu_general(&rng, n, a, n + 2);
        for (int64_t i = 0; i + 1 < n; i += 2) a[i * (n + 2) + i] = 0; /* needs row interchanges */
        CHECK_STATUS(minv_invert_gj_baseline(ctx, MINV_R64, n, a, n + 2, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_GJ_BASELINE, "gj baseline ran %s", minv_method_name(rep.method));
        CHECK(tu_inverse_ratio(n, a, n + 2, x, n, DBL_EPSILON) < 30, "gj baseline n=%lld: ratio %.3g", (long long)n,
              tu_inverse_ratio(n, a, n + 2, x, n, DBL_EPSILON));
        float *af = tu_to_float(n, n, a, n + 2, n), *xf = tu_to_float(n, n, a, n + 2, n);
        CHECK_STATUS(minv_invert_gj_baseline(ctx, MINV_R32, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
        double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
        CHECK(tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON) < 30, "gj baseline float n=%lld", (long long)n);
        if (n > 5) {
            for (int64_t i = 0; i < n; i++) a[4 * (n + 2) + i] = 0;
            CHECK_STATUS(minv_invert_gj_baseline(ctx, MINV_R64, n, a, n + 2, x, n, &rep), MINV_ERR_SINGULAR, ctx);
            CHECK(rep.info == 4, "gj baseline singular column %lld", (long long)rep.info);
        }
        free(a); free(x); free(af); free(xf); free(a2); free(x2);
    }
}

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        printf("backend %s\n", minv_backend_name(minv_context_backend(ctx[c])));
        const int64_t sizes[] = {1, 2, 17, 64, 130};
        for (int s = 0; s < 5; s++)
            for (int kind = 0; kind < 3; kind++) {
                converges(ctx[c], sizes[s], kind, MINV_ITERATION_SOLEYMANI7, MINV_GUESS_AUTO);
                converges(ctx[c], sizes[s], kind, MINV_ITERATION_HYPERPOWER8, MINV_GUESS_AUTO);
            }
        for (int s = 0; s < 5; s++)
            for (int kind = 0; kind <= 3; kind += 1 + (kind == 0)) /* SPD, dominant, off the real axis */
                converges(ctx[c], sizes[s], kind, s % 2 ? MINV_ITERATION_HYPERPOWER8 : MINV_ITERATION_SOLEYMANI7,
                          MINV_GUESS_IDENTITY);
        converges(ctx[c], 90, 1, MINV_ITERATION_HYPERPOWER8, MINV_GUESS_TRANSPOSE);
        converges(ctx[c], 90, 2, MINV_ITERATION_SOLEYMANI7, MINV_GUESS_DIAGONAL);
        tolerance_warm_mixed(ctx[c]);
        failures(ctx[c]);
        gj_baseline(ctx[c]);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_iterative");
}
