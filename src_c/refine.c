/* Mixed-precision solves (MINV_OPT_PRECISION = MINV_PRECISION_MIXED): classical iterative
 * refinement (Wilkinson; Moler 1967; in three precisions Carson & Higham 2018) around a
 * factorisation in a lower precision. Each step solves for a correction with the low-precision
 * factors and forms the residual of the caller's A in double, so the backward error it reaches
 * is the double solve's whatever the factors' precision; that precision sets only the rate,
 * about cond(A) u_low a step. The engine's levels run from fastest to most accurate: a level
 * whose factorisation breaks down, or whose rate predicts more than SLOW_STEPS further steps,
 * hands its solution to the next; when the last stalls, the caller runs the double solve. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The double solve's backward error on SPD and general matrices of condition 1e2 to 1e10 is
 * 1.5 to 3 x 1e-16 (bench_spd, bench_mixed): refinement stops at 2 eps. */
static const double TARGET = 2 * DBL_EPSILON;
/* Steps in all, as LAPACK's dsgesv (ITERMAX). */
enum { MAX_STEPS = 30 };
/* A level whose rate predicts more further steps than this hands over to the next; the last
 * level goes on while each step at least halves the backward error. */
static const double SLOW_STEPS = 5;

static double worst_of(const double *berr, int64_t k) {
    double w = 0;
    for (int64_t j = 0; j < k; j++)
        if (!(berr[j] <= w)) w = isnan(berr[j]) ? INFINITY : berr[j];
    return w;
}

/* Appends ", then text" (or text) to the account of what each level did: one note, no ';',
 * which separates a report's notes. */
static void append(char *trail, size_t len, const char *fmt, ...) {
    size_t used = strlen(trail);
    va_list ap;
    if (used + 3 >= len) return;
    if (used) used += (size_t)snprintf(trail + used, len - used, ", then ");
    va_start(ap, fmt);
    vsnprintf(trail + used, len - used, fmt, ap);
    va_end(ap);
}

minv_status minv_refine(minv_context *ctx, minv_refine_engine *e, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t k = e->nrhs;
    double *berr = malloc((size_t)(k > 0 ? k : 1) * sizeof *berr), worst = INFINITY, rcond = -1;
    int steps = 0, converged = 0;
    char trail[MINV_REASON_LEN / 2] = "";
    if (!berr)
        return minv_fail(ctx, MINV_ERR_ALLOC, "mixed precision: cannot allocate %lld backward errors", (long long)k);
    MINV_TRY(e->reset(e));
    for (int level = 0; level < e->levels && !converged && steps < MAX_STEPS; level++) {
        const char *name = e->level_names[level];
        int level_steps = 0;
        double prev = INFINITY;
        status = e->factor(e, level);
        if (status == MINV_ERR_NOT_SPD || status == MINV_ERR_SINGULAR) {
            append(trail, sizeof trail, "%s factors broke down", name);
            minv_clear_error(ctx);
            status = MINV_SUCCESS;
            continue;
        }
        if (status != MINV_SUCCESS)
            goto cleanup;
        if (!(worst < 0.5)) /* the last level diverged: its x is no start */
            MINV_TRY(e->reset(e));
        while (steps < MAX_STEPS) {
            MINV_TRY(e->step(e, berr));
            steps++;
            level_steps++;
            const double now = worst_of(berr, k), rate = now / prev;
            worst = now;
            prev = now;
            if (now <= TARGET) {
                converged = 1;
                break;
            }
            if (level_steps >= 2 && !(rate <= 0.5)) /* stalled or diverging */
                break;
            if (level_steps >= 2 && level + 1 < e->levels && log(TARGET / now) / log(rate) > SLOW_STEPS)
                break;
        }
        append(trail, sizeof trail, "%s factors, %d step%s to %.1e", name, level_steps, level_steps == 1 ? "" : "s",
               worst);
    }
    if (!converged) {
        status = minv_fail(ctx, MINV_ERR_NO_CONVERGENCE,
                           "mixed precision stopped short of backward error %.1e (%s: condition too large for them)",
                           TARGET, trail);
        goto cleanup;
    }
    MINV_TRY(e->finish(e, &rcond, berr));
    report->rcond = rcond;
    report->iterations = steps;
    if (ctx->residual_mode > 0) {
        report->residual = worst_of(berr, k);
        report->residual_kind = 2;
    }
    minv_report_note(report, "mixed precision: %s (backward errors, the residuals in double)", trail);
cleanup:
    free(berr);
    return status;
}
