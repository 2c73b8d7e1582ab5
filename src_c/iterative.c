/* The iterative inversion of the paper (iterative-inversion-out-of-core-gpu.txt): an initial
 * inverse V0 chosen from the matrix type, then Soleymani's seventh-order matrix-multiplication
 * iteration (nine products a step, Horner form), or the order-8 member of the same
 * hyperpower family in six products, until ||I - A V|| reaches the tolerance. The starts are
 * the paper's three, in its order of fallback under AUTO: diag(1/a_ii) for a diagonally
 * dominant A, A^T/(||A||_1 ||A||_inf), and alpha I with alpha found adaptively such that
 * ||I - alpha A|| < 1. Every backend runs this same driver on its own engine (CPU BLAS, GPU
 * cuBLAS in core or out of core). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* Below this residual the iteration is in its fast phase; a step that then fails to improve
 * has reached the rounding floor of the arithmetic, which is convergence, not failure. */
static const double FLOOR_PHASE = 1e-2;
/* Single precision (TF32 on the GPU's tensor cores) stops helping near its own floor. */
static const double LOW_PRECISION_FLOOR = 1e-3;
/* alpha I: the candidates alpha_0 / ALPHA_SHRINK^k, k < ALPHA_TRIES, of each sign tried, and
 * at most MAX_SQUARINGS products to decide each. */
enum { ALPHA_TRIES = 3, MAX_SQUARINGS = 64 };
static const double ALPHA_SHRINK = 4;

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

/* Whether the iteration converges from alpha I: it does exactly when the spectral radius of
 * R = I - alpha A is below 1, and rho(R)^k <= ||R^k||_F, so ||R^(2^m)||_F < 1 for some m
 * proves it. X = I - R^(2^m) is carried, X <- 2X - X^2 (one product, whose residual is
 * ||I - X||_F = ||R^(2^(m+1))||_F); a norm that stops falling (or is not finite) rejects
 * alpha: for a normal R with rho(R) < 1 it falls at every squaring. *m and *norm: the
 * squarings done and the last norm. Uses V0 (alpha I), P, T0 and T1. */
static minv_status alpha_converges(minv_iter_engine *e, double alpha, int *ok, int *m, double *norm,
                                   minv_report *report) {
    const double n3 = (double)e->n * (double)e->n * (double)e->n;
    minv_status status;
    double f, prev = INFINITY;
    int x = IT_P, next = IT_T0;
    *ok = 0;
    MINV_TRY(e->guess(e, IT_V0, MINV_GUESS_IDENTITY, alpha));
    MINV_TRY(e->product(e, IT_P, IT_A, IT_V0, 1, IT_NONE, 0, 0, &f)); /* X = alpha A: ||I - X|| = ||R|| */
    report->flops += 2 * n3;
    for (*m = 0; isfinite(f) && f < prev && *m < MAX_SQUARINGS; ++*m) {
        if (f < 1) {
            *ok = 1;
            break;
        }
        prev = f;
        MINV_TRY(e->product(e, next, x, x, -1, x, 2, 0, &f)); /* 2X - X^2 */
        report->flops += 2 * n3;
        const int swap = x;
        x = next;
        next = swap == IT_P ? IT_T1 : swap;
    }
    *norm = f;
cleanup:
    return status;
}

/* The paper's third start: V0 = alpha I, "alpha adaptively determined such that
 * ||I - alpha A|| < 1". alpha_0 = 1/sqrt(||A||_1 ||A||_inf) keeps every eigenvalue of
 * alpha_0 A in the unit disc; smaller alpha reach eigenvalues far from the real axis
 * (|1 - alpha lambda| < 1 needs alpha < 2 Re(lambda) / |lambda|^2); the sign follows the
 * diagonal, both signs where it has both. NO_CONVERGENCE when no candidate passes: the
 * eigenvalues of A do not lie in one open half-plane (or too close to its edge). */
static minv_status alpha_guess(minv_context *ctx, minv_iter_engine *e, const minv_analysis *an, minv_report *report) {
    const double alpha0 = 1.0 / sqrt(an->norm_1 * an->norm_inf);
    const double signs[2] = {an->diag_max <= 0 ? -1 : 1, an->diag_max <= 0 ? 1 : -1};
    const int nsigns = an->diag_min < 0 && an->diag_max > 0 ? 2 : 1;
    minv_status status = MINV_SUCCESS;
    char tried[256] = "";
    for (int si = 0; si < nsigns; si++)
        for (int k = 0; k < ALPHA_TRIES; k++) {
            const double alpha = signs[si] * alpha0 / pow(ALPHA_SHRINK, k);
            int ok, m;
            double norm;
            MINV_TRY(alpha_converges(e, alpha, &ok, &m, &norm, report));
            if (ok) {
                minv_report_note(report, "alpha = %.3g: ||(I - alpha A)^%lld||_F = %.3g < 1", alpha, 1LL << m, norm);
                return e->guess(e, IT_V0, MINV_GUESS_IDENTITY, alpha);
            }
            const size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%.3g", used ? ", " : "", alpha);
        }
    return minv_fail(ctx, MINV_ERR_NO_CONVERGENCE,
                     "V0 = alpha I: no alpha gives ||I - alpha A|| < 1 (tried %s: the powers of I - alpha A diverged "
                     "or stalled), so the eigenvalues of A do not lie in one open half-plane, or one is at or near 0 "
                     "(A singular or nearly so)",
                     tried);
cleanup:
    return status;
}

static minv_status make_guess(minv_context *ctx, minv_iter_engine *e, minv_guess kind,
                              const minv_analysis *an, minv_report *report) {
    if (kind == MINV_GUESS_DIAGONAL)
        return e->guess(e, IT_V0, kind, 0);
    if (kind == MINV_GUESS_TRANSPOSE)
        return e->guess(e, IT_V0, kind, 1.0 / (an->norm_1 * an->norm_inf));
    return alpha_guess(ctx, e, an, report);
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
        status = run(ctx, e, t, tol, report, &v, &r);
    } else {
        status = make_guess(ctx, e, kind, an, report);
        if (status == MINV_SUCCESS)
            status = run(ctx, e, t, tol, report, &v, &r);
    }
    /* The paper's fallback under AUTO: a diagonal start that fails gives way to the
     * transpose, and the transpose to alpha I; if all fail, the error names each failure. */
    char earlier[MINV_ERROR_LEN] = "";
    int singular = 0;
    while (status == MINV_ERR_NO_CONVERGENCE && !ctx->call_guess && ctx->initial_guess == MINV_GUESS_AUTO &&
           kind != MINV_GUESS_IDENTITY) {
        /* R = I - A A^T c has its eigenvalues in [0, 1) for every nonsingular A: a transpose start
         * that stops short of the cap has met a singular A, or one too ill-conditioned for it */
        singular |= kind == MINV_GUESS_TRANSPOSE && report->iterations < ctx->max_iterations;
        const minv_guess next = kind == MINV_GUESS_DIAGONAL ? MINV_GUESS_TRANSPOSE : MINV_GUESS_IDENTITY;
        const char *why = minv_error_detail(ctx, status);
        const size_t used = strlen(earlier);
        snprintf(earlier + used, sizeof earlier - used, "V0 = %s: %s; ", guess_name(kind), why);
        minv_report_note(report, "V0 = %s did not converge (%s), so V0 = %s", guess_name(kind), why, guess_name(next));
        minv_clear_error(ctx);
        kind = next;
        status = make_guess(ctx, e, kind, an, report);
        if (status == MINV_SUCCESS) { /* the history is of the start that ran last */
            report->history_len = 0;
            status = run(ctx, e, t, tol, report, &v, &r);
        }
    }
    if (status == MINV_ERR_NO_CONVERGENCE && earlier[0]) {
        char last[MINV_ERROR_LEN];
        snprintf(last, sizeof last, "%s", minv_error_detail(ctx, status));
        const char *conclusion = singular ? "; the transpose start converges for every nonsingular A, so A is singular "
                                            "or too ill-conditioned for this precision" : "";
        if (strncmp(last, "V0 = ", 5) == 0) /* alpha_guess names its start itself */
            minv_fail(ctx, status, "no start converged: %s%s%s", earlier, last, conclusion);
        else
            minv_fail(ctx, status, "no start converged: %sV0 = %s: %s%s", earlier, guess_name(kind), last, conclusion);
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
