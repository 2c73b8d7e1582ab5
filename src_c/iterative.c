/* The iterative inversion of the paper (iterative-inversion-out-of-core-gpu.txt): an initial
 * inverse V0 chosen from the matrix type, then Soleymani's seventh-order matrix-multiplication
 * iteration (nine products a step, Horner form), or the order-8 member of the same
 * hyperpower family in six products, until ||I - A V|| reaches the tolerance. Every backend
 * runs this same driver on its own engine (CPU BLAS, GPU cuBLAS in core or out of core). */
#include <math.h>
#include <string.h>

#include "internal.h"

/* Below this residual the iteration is in its fast phase; a step that then fails to improve
 * has reached the rounding floor of the arithmetic, which is convergence, not failure. */
static const double FLOOR_PHASE = 1e-2;
/* Single precision (TF32 on the GPU's tensor cores) stops helping near its own floor. */
static const double LOW_PRECISION_FLOOR = 1e-3;

static const char *guess_name(minv_guess g) {
    switch (g) {
    case MINV_GUESS_DIAGONAL: return "diag(1/a_ii)";
    case MINV_GUESS_TRANSPOSE: return "A^T/(||A||_1 ||A||_inf)";
    case MINV_GUESS_IDENTITY: return "alpha I";
    default: return "auto";
    }
}

/* V_new = V (I + R + ... + R^6) as the paper writes it: P = A V, then Horner in P. */
static minv_status step_soleymani(minv_iter_engine *e, int v, int v_new) {
    static const double c[8] = {-15, 93, -315, 651, -861, 735, -393, 120};
    minv_status status;
    /* T0 = P (P - 15 I) + 93 I, then T <- P T + c_k I, alternating T0 and T1 */
    MINV_TRY(e->product(e, IT_T0, IT_P, IT_P, 1, IT_P, c[0], c[1], NULL));
    int cur = IT_T0, next = IT_T1;
    for (int k = 2; k < 8; k++) {
        MINV_TRY(e->product(e, next, IT_P, cur, 1, IT_NONE, 0, c[k], NULL));
        int swap = cur;
        cur = next;
        next = swap;
    }
    MINV_TRY(e->product(e, v_new, v, cur, 1.0 / 16, IT_NONE, 0, 0, NULL));
cleanup:
    return status;
}

/* V_new = V (I + R)(I + R^2)(I + R^4), R = I - P: order 8 in six products. */
static minv_status step_hyperpower8(minv_iter_engine *e, int v, int v_new) {
    minv_status status;
    MINV_TRY(e->product(e, IT_T0, IT_P, IT_P, 1, IT_P, -2, 1, NULL));    /* R^2 = P^2 - 2P + I */
    MINV_TRY(e->product(e, IT_T1, IT_T0, IT_T0, 1, IT_NONE, 0, 0, NULL)); /* R^4 */
    MINV_TRY(e->product(e, v_new, v, IT_P, -1, v, 2, 0, NULL));          /* W = V (2I - P) */
    MINV_TRY(e->product(e, IT_P, v_new, IT_T0, 1, v_new, 1, 0, NULL));   /* W (I + R^2) */
    MINV_TRY(e->product(e, v_new, IT_P, IT_T1, 1, IT_P, 1, 0, NULL));    /* ... (I + R^4) */
cleanup:
    return status;
}

static minv_status make_guess(minv_context *ctx, minv_iter_engine *e, minv_guess kind,
                              const minv_analysis *an) {
    if (kind == MINV_GUESS_DIAGONAL)
        return e->guess(e, IT_V0, kind, 0);
    if (kind == MINV_GUESS_TRANSPOSE)
        return e->guess(e, IT_V0, kind, 1.0 / (an->norm_1 * an->norm_inf));
    /* alpha I with ||I - alpha A|| < 1: 1/||A||_inf bounds every eigenvalue of alpha A by 1 in
     * modulus; the sign follows the diagonal so that a negative definite A converges too. */
    (void)ctx;
    double alpha = 1.0 / an->norm_inf;
    return e->guess(e, IT_V0, kind, an->diag_max <= 0 ? -alpha : alpha);
}

/* One run from a given start; *converged_v names the buffer holding the answer. */
static minv_status run(minv_context *ctx, minv_iter_engine *e, minv_dtype t, double tol,
                       minv_report *report, int *converged_v, double *final_r) {
    const double sqrt_n = sqrt((double)e->n), n3 = (double)e->n * (double)e->n * (double)e->n;
    const int products = ctx->iteration == MINV_ITERATION_HYPERPOWER8 ? 6 : 9;
    minv_status status = MINV_SUCCESS;
    int v = IT_V0, other = IT_V1, low = 0;
    int64_t steps = 0;
    double r_prev = INFINITY;
    if (ctx->mixed_precision && t == MINV_R64 && e->set_precision) {
        MINV_TRY(e->set_precision(e, 1, v));
        low = 1;
    } else if (ctx->mixed_precision && t == MINV_R64) {
        minv_report_note(report, "mixed precision is not available on this path; all steps in double");
    }
    for (;;) {
        double r;
        MINV_TRY(e->product(e, IT_P, IT_A, v, 1, IT_NONE, 0, 0, &r));
        r /= sqrt_n;
        report->flops += 2 * n3;
        report->iterations = steps;
        if (report->history_len < MINV_HISTORY_LEN)
            report->residual_history[report->history_len++] = r;
        minv_progress(ctx, "iterate", r < 1 ? fmin(1, log(r) / log(tol > 0 ? tol : minv_eps(t))) : 0);
        int improved = isfinite(r) && r < r_prev;
        if (low && !(improved && r >= LOW_PRECISION_FLOOR)) {
            /* single precision has done its part: on in double from its best V */
            int best = improved || steps == 0 ? v : other;
            MINV_TRY(e->set_precision(e, 0, best));
            if (best != v) {
                other = v;
                v = best;
            }
            minv_report_note(report, "%lld step(s) in single precision, then double", (long long)steps);
            low = 0;
            r_prev = INFINITY;
            continue;
        }
        if (!isfinite(r))
            return minv_fail(ctx, MINV_ERR_NO_CONVERGENCE, "the iteration diverged: ||I - A V||_F/sqrt(n) is %g after %lld step(s)",
                             r, (long long)steps);
        if (r <= tol) {
            *converged_v = v;
            *final_r = r;
            return MINV_SUCCESS;
        }
        if (!improved) {
            report->iterations = steps - 1;
            if (r_prev < FLOOR_PHASE) { /* the previous V is as good as this arithmetic allows */
                *converged_v = other;
                *final_r = r_prev;
                return MINV_SUCCESS;
            }
            return minv_fail(ctx, MINV_ERR_NO_CONVERGENCE,
                             "the iteration %s: ||I - A V||_F/sqrt(n) went from %.3g to %.3g at step %lld",
                             r > r_prev * 1.5 ? "diverged" : "stagnated", r_prev, r, (long long)steps);
        }
        if (steps >= ctx->max_iterations)
            return minv_fail(ctx, MINV_ERR_NO_CONVERGENCE,
                             "no convergence in %lld steps: ||I - A V||_F/sqrt(n) = %.3g (raise MINV_OPT_MAX_ITERATIONS)",
                             (long long)steps, r);
        MINV_TRY(ctx->iteration == MINV_ITERATION_HYPERPOWER8 ? step_hyperpower8(e, v, other)
                                                              : step_soleymani(e, v, other));
        report->flops += (products - 1) * 2 * n3;
        steps++;
        int swap = v;
        v = other;
        other = swap;
        r_prev = r;
    }
cleanup:
    return status;
}

minv_status minv_iterate(minv_context *ctx, minv_iter_engine *e, minv_dtype t,
                         const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const double tol = ctx->tolerance;
    int v = IT_V0;
    double r = 0;
    minv_guess kind = ctx->initial_guess;
    if (kind == MINV_GUESS_AUTO)
        kind = an->diag_dominant ? MINV_GUESS_DIAGONAL : MINV_GUESS_TRANSPOSE;
    if (ctx->call_guess) {
        MINV_TRY(e->load(e, IT_V0, ctx->call_guess));
        minv_report_note(report, "warm start from the caller's V0");
    } else {
        MINV_TRY(make_guess(ctx, e, kind, an));
    }
    status = run(ctx, e, t, tol, report, &v, &r);
    /* The paper's fallback: a diagonal guess that fails gives way to the transpose. */
    if (status == MINV_ERR_NO_CONVERGENCE && !ctx->call_guess && ctx->initial_guess == MINV_GUESS_AUTO &&
        kind == MINV_GUESS_DIAGONAL) {
        minv_report_note(report, "V0 = %s did not converge (%s), so V0 = %s", guess_name(kind), minv_last_error(ctx),
                         guess_name(MINV_GUESS_TRANSPOSE));
        minv_clear_error(ctx);
        kind = MINV_GUESS_TRANSPOSE;
        report->history_len = 0;
        MINV_TRY(make_guess(ctx, e, kind, an));
        status = run(ctx, e, t, tol, report, &v, &r);
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    if (!ctx->call_guess)
        minv_report_note(report, "V0 = %s", guess_name(kind));
    minv_report_note(report, "%s: %lld step(s), ||I - A V||_F/sqrt(n) = %.3g",
                     ctx->iteration == MINV_ITERATION_HYPERPOWER8 ? "hyperpower order 8" : "Soleymani order 7",
                     (long long)report->iterations, r);
    MINV_TRY(e->finish(e, v));
cleanup:
    return status;
}
