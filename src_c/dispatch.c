/* Public entry points for analysis, inversion and solve: argument checks, the AUTO method
 * choice, routing to a backend (with a CPU fallback that the report states), fallbacks
 * between methods, residuals and timing. The algorithms live in the backends. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "lapack.h"

static const char *auto_reason(const minv_analysis *an, minv_method m) {
    switch (m) {
    case MINV_METHOD_CHOLESKY: return "AUTO: symmetric with a positive diagonal, so Cholesky";
    case MINV_METHOD_TRIDIAGONAL: return "AUTO: tridiagonal, so the O(n^2) tridiagonal inversion";
    case MINV_METHOD_GAUSS_JORDAN:
        return an->symmetric ? "AUTO: symmetric but a diagonal entry is <= 0, so Gauss-Jordan (faster than LU on "
                               "this backend at this order)"
                             : "AUTO: not symmetric, so Gauss-Jordan (faster than LU on this backend at this order)";
    default:
        return an->symmetric ? "AUTO: symmetric but a diagonal entry is <= 0, so LU"
                             : "AUTO: not symmetric, so LU";
    }
}

/* Why AUTO took its method; for Cholesky on a matrix symmetric within the tolerance only, the
 * asymmetry and that the lower triangle is read. */
static void note_method(minv_report *r, const minv_context *ctx, minv_dtype t, const minv_analysis *an, minv_method m,
                        int auto_chosen) {
    if (m == MINV_METHOD_CHOLESKY && an->symmetric && an->asymmetry > 0)
        minv_report_note(r, "%s (relative asymmetry %.2g, within the symmetry tolerance %.2g), so Cholesky on the lower triangle",
                         auto_chosen ? "AUTO: symmetric with a positive diagonal" : "symmetric", an->asymmetry,
                         minv_symmetry_tol(ctx, t));
    else if (auto_chosen)
        minv_report_note_text(r, auto_reason(an, m));
}

/* The residual a call computes: the context's kind, and the sampled one at least where Cholesky
 * reads the lower triangle of a matrix symmetric only within a raised tolerance, since the
 * residual is what shows whether that asymmetry mattered (minv_cholesky_residual_too_large). */
int minv_residual_mode(const minv_context *ctx, minv_dtype t, double asymmetry, minv_method method) {
    if (ctx->residual_mode == 0 && method == MINV_METHOD_CHOLESKY && asymmetry > MINV_SYMMETRY_EPS * minv_eps(t))
        return 1;
    return ctx->residual_mode;
}

/* A Cholesky result is returned as a success only if it solves A itself. Cholesky's backward
 * error is a few n eps; the lower triangle of a matrix symmetric only to a relative delta is
 * the inverse of a matrix up to n delta away, which shows here. The bound is the test suites'
 * own pass mark for residuals. */
int minv_cholesky_residual_too_large(minv_dtype t, int64_t n, const minv_report *r) {
    return r->method == MINV_METHOD_CHOLESKY && r->residual_kind > 0 && !(r->residual <= 100.0 * (double)n * minv_eps(t));
}

minv_status minv_fail_cholesky_residual(minv_context *ctx, minv_dtype t, int64_t n, double asymmetry,
                                        const minv_report *r) {
    return minv_fail(ctx, MINV_ERR_NOT_SPD,
                     "Cholesky's result leaves a residual of %.3g, above 100 n eps = %.3g: it does not solve A (relative "
                     "asymmetry %.3g; Cholesky read the lower triangle). Lower MINV_OPT_SYMMETRY_TOL or use LU",
                     r->residual, 100.0 * (double)n * minv_eps(t), asymmetry);
}

void minv_report_init(minv_report *r, minv_method method, int64_t n, int64_t nrhs) {
    minv_zero(r, sizeof *r); /* every byte: reports are compared whole (across MPI ranks) */
    r->method = method;
    r->backend = MINV_BACKEND_CPU;
    r->n = n;
    r->nrhs = nrhs;
    r->info = -1;
    r->residual = -1;
    r->rcond = -1;
    r->energy = -1;
    r->asymmetry = -1;
    r->device = -1;
    r->condition_before = -1;
    r->condition_after = -1;
    r->matrices = 1;
    r->worst = -1;
}

/* ---- argument checks: the bad argument is named with its position, as LAPACK does ---- */

minv_status minv_check_matrix(minv_context *ctx, const char *fn, const void *p, int pos,
                              const char *name, int64_t rows, int64_t cols, int64_t ld,
                              const char *ldname, minv_dtype t) {
    if (!p && rows > 0 && cols > 0) /* an empty matrix may be NULL, as Fortran's may be */
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL", fn, pos, name);
    if (ld < (rows > 1 ? rows : 1))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) = %lld must be >= %lld",
                         fn, pos + 1, ldname, (long long)ld, (long long)(rows > 1 ? rows : 1));
    /* ld * cols elements must be addressable (by overflow checks: the divisions were 3% of a
     * call at n = 8) */
    uint64_t bytes = 0;
    if (cols > 0 && (__builtin_mul_overflow((uint64_t)ld, (uint64_t)cols, &bytes) ||
                     __builtin_mul_overflow(bytes, (uint64_t)t, &bytes) || bytes > (uint64_t)INT64_MAX ||
                     bytes > (uint64_t)SIZE_MAX))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s of %lld x %lld with %s = %lld overflows the address space",
                         fn, name, (long long)rows, (long long)cols, ldname, (long long)ld);
    return MINV_SUCCESS;
}

minv_status minv_check_order(minv_context *ctx, const char *fn, int pos, const char *name, int64_t n) {
    if (n < 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) = %lld must be >= 0",
                         fn, pos, name, (long long)n);
    return MINV_SUCCESS;
}

minv_status minv_check_method(minv_context *ctx, const char *fn, int pos, minv_method m) {
    if ((int)m < 0 || (int)m >= MINV_METHOD_COUNT)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (method) = %d is not a minv_method",
                         fn, pos, (int)m);
    return MINV_SUCCESS;
}

/* ---- routing ---- */

minv_status minv_check_place(minv_context *ctx, const char *fn, minv_place place) {
    if (place == MINV_ON_DEVICE && ctx->backend != MINV_BACKEND_GPU)
        return minv_fail(ctx, MINV_ERR_NO_GPU, "%s takes device pointers and needs the GPU backend; this context runs on the %s (%s)",
                         fn, minv_backend_name(ctx->backend), ctx->backend_note[0] ? ctx->backend_note : "chosen at creation");
    return MINV_SUCCESS;
}

/* Host calls that finish sooner on the CPU than the GPU's round trip does (transfers,
 * launches, the checks' kernels and their synchronisations), measured on an H100 host by
 * bench_host_calls (2026-11-25, and 2026-11-26 with the BLAS on one thread for small calls):
 * the GPU call took 0.23-0.6 ms at n = 64 where the CPU took 0.03-0.08 ms; solves with 30
 * right-hand sides went to the CPU's favour up to n = 256 (0.41 against 1.16 ms), inversions
 * up to n = 128 (0.12 against 0.34 ms; at 256 0.64 against 0.57). Since LU's factor runs in
 * one thread-block cluster and small solves' stage in one launch (small_solve.cu; 2026-11-27,
 * bench_host_calls --sizes 128,192,256,384,512 with 1 and 30 right-hand sides, two runs whose
 * CPU halves differed by up to 1.5x): the GPU against the CPU, 30 right-hand sides, Cholesky
 * 0.19 / 0.11-0.14 ms at 128, 0.27 / 0.31-0.35 at 192, 0.39 / 0.55-0.62 at 256; LU 0.49 /
 * 0.29-0.36 at 128, 0.38 / 0.41-0.64 at 192; one right-hand side, Cholesky 0.25 / 0.14 at 192,
 * 0.30 / 0.29-0.39 at 256, LU 0.48 / 0.21 at 128, 0.33 / 0.28-0.43 at 192. So: solves whose CPU
 * work (the method's factor, n^3 / 3 for Cholesky and 2 n^3 / 3 for LU, and 2 n^2 nrhs) is at
 * most 4e6 flops, inversions of order at most 128. */
static const double SMALL_HOST_SOLVE_WORK = 4e6;
static const int64_t SMALL_HOST_INVERSION = 128;

/* OpenBLAS's threads cost more than they give below this many flops (bench_host_calls on the
 * 16-core H100 host, 2026-11-26: an SPD inversion of order 128 took 0.35 ms with its 16
 * threads and 0.12 with one, of order 256 0.97 and 0.64; a solve of order 256 with 30
 * right-hand sides 0.67 and 0.43), so the CPU's small calls run the BLAS on one thread. */
static const double SINGLE_THREAD_BLAS_WORK = 4e7;

static int blas_on_one_thread(const minv_backend_ops *ops, minv_place place, double flops) {
    return ops == &minv_cpu_backend && place == MINV_ON_HOST && flops <= SINGLE_THREAD_BLAS_WORK;
}

/* Whether a host call goes to the CPU for its size: where AUTO chose the GPU. Before the
 * analysis an AUTO method counts as Cholesky (the analysis then runs where the smaller factor
 * would); the route after it decides by the method taken. */
static int small_host_call(const minv_context *ctx, minv_place place, minv_method method, int64_t order, int64_t nrhs,
                           int solve) {
    const double n = (double)order, factor = method == MINV_METHOD_CHOLESKY || method == MINV_METHOD_AUTO ? 1 : 2;
    const int small = solve ? factor * n * n * n / 3 + 2 * n * n * (double)nrhs <= SMALL_HOST_SOLVE_WORK
                            : order <= SMALL_HOST_INVERSION;
    return place == MINV_ON_HOST && ctx->ops != &minv_cpu_backend && ctx->opts.backend == MINV_BACKEND_AUTO && small;
}

/* What the analysis does besides: on the CPU, for host data, copy A for a factorisation that
 * will run there (AUTO, Cholesky, LU) and multiply it by the probes of an inverse's sampled
 * residual; on the GPU, begin the Cholesky factor of a small A that may take one (the columns
 * of the solve or inversion that would follow). */
static void request_staging(minv_context *ctx, minv_place place, minv_method method, int64_t n, int64_t nrhs,
                            int inverse, int small) {
    const int cpu = ctx->ops == &minv_cpu_backend || small;
    ctx->stage.wanted = cpu && place == MINV_ON_HOST &&
                        (method == MINV_METHOD_AUTO || method == MINV_METHOD_CHOLESKY || method == MINV_METHOD_LU);
    ctx->stage.probes = cpu && place == MINV_ON_HOST && inverse && ctx->residual_mode == 1;
    /* the double Cholesky of A itself: not a mixed-precision solve's, nor a reconditioned A's */
    const int plain = ctx->recondition == MINV_RECONDITION_NONE && (inverse || ctx->precision != MINV_PRECISION_MIXED);
    ctx->stage.cholesky_columns =
        plain && (method == MINV_METHOD_AUTO || method == MINV_METHOD_CHOLESKY) ? (inverse ? n : nrhs) : 0;
    ctx->stage.cholesky_inverse = inverse;
    ctx->stage.cholesky_asked = method == MINV_METHOD_CHOLESKY;
}

/* The analysis, where the data is: on the context's backend (or the CPU's for host data, and
 * for a small host call). */
static minv_status analyze(minv_context *ctx, minv_place place, const minv_mat *a, minv_analysis *an, int small) {
    const int on_cpu = place == MINV_ON_HOST && (small || !ctx->ops->analyze);
    if (on_cpu) /* the CPU's fills every field (minv_analysis_assemble) */
        return minv_cpu_backend.analyze(ctx, a, an);
    memset(an, 0, sizeof *an);
    return place == MINV_ON_DEVICE ? ctx->ops->analyze_device(ctx, a, an) : ctx->ops->analyze(ctx, a, an);
}

/* ---- the CPU in the GPU's place ---- */

/* The call, or the step of it that `to` reports (backend NULL), goes to the CPU's backend. */
static void switch_to_cpu(const minv_backend_ops **ops, minv_report_sink to, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void switch_to_cpu(const minv_backend_ops **ops, minv_report_sink to, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    minv_reason_vnote(to.reason, MINV_REASON_LEN, fmt, args);
    va_end(args);
    *to.fallbacks |= MINV_FALLBACK_CPU;
    if (to.backend)
        *to.backend = MINV_BACKEND_CPU;
    *ops = &minv_cpu_backend;
}

int minv_fall_back_to_cpu(minv_context *ctx, minv_status status, minv_place place, int cpu_has, const char *what,
                          const minv_backend_ops **ops, minv_report_sink to) {
    if ((status != MINV_ERR_DEVICE_MEMORY && status != MINV_ERR_NOT_IMPLEMENTED) || place != MINV_ON_HOST ||
        *ops == &minv_cpu_backend || !cpu_has)
        return 0;
    switch_to_cpu(ops, to, "%s, so the CPU ran %s", ctx->last_error, what);
    minv_clear_error(ctx);
    return 1;
}

/* The backend that runs `method`: the context's, else (host data only) the CPU's, which the
 * report states; and where AUTO chose the GPU, the CPU for host calls too small for it. */
static minv_status route(minv_context *ctx, minv_place place, minv_method method, int solve,
                         minv_report *report, const minv_backend_ops **ops) {
    const minv_backend_ops *own = ctx->ops;
    const char *what = solve ? "solve" : "inversion";
    int own_has = place == MINV_ON_DEVICE ? (solve ? own->solve_device[method] != NULL : own->invert_device[method] != NULL)
                                          : (solve ? own->solve[method] != NULL : own->invert[method] != NULL);
    int cpu_has = solve ? minv_cpu_backend.solve[method] != NULL : minv_cpu_backend.invert[method] != NULL;
    if (own_has && cpu_has && small_host_call(ctx, place, method, report->n, report->nrhs, solve)) {
        *ops = &minv_cpu_backend;
        report->backend = MINV_BACKEND_CPU;
        minv_report_note(report, "the CPU ran this %s of order %lld: at this size it is faster than a round trip to the GPU",
                         what, (long long)report->n);
        return MINV_SUCCESS;
    }
    *ops = own;
    if (own_has) {
        report->backend = ctx->backend;
        return MINV_SUCCESS;
    }
    if (place == MINV_ON_HOST && cpu_has) {
        switch_to_cpu(ops, MINV_REPORT_SINK(report), "%s %s is not available on the %s backend, so the CPU ran it",
                      minv_method_name(method), what, own->name);
        return MINV_SUCCESS;
    }
    return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "%s %s is not implemented on the %s backend%s",
                     minv_method_name(method), what, own->name, place == MINV_ON_DEVICE ? " for device data" : "");
}

/* After a Cholesky whose residual shows that A's asymmetry mattered: AUTO with A and B still at
 * hand (retry) goes on by LU, anything else fails. The reason is cut back to its length before
 * the attempt (mark): the notes on the discarded result (its rcond's) would stand beside LU's. */
static minv_status redo_by_lu(minv_context *ctx, minv_dtype t, int64_t n, const minv_analysis *an, int retry,
                              minv_place place, int solve, size_t mark, minv_method *method, minv_report *report,
                              const minv_backend_ops **ops) {
    if (!retry)
        return minv_fail_cholesky_residual(ctx, t, n, an->asymmetry, report);
    report->reason[mark] = '\0';
    minv_report_note(report, "Cholesky's residual %.3g is above 100 n eps: the asymmetry mattered, so LU instead",
                     report->residual);
    *method = report->method = MINV_METHOD_LU;
    report->residual = -1;
    report->residual_kind = 0;
    return route(ctx, place, *method, solve, report, ops);
}

/* After an attempt that returned *status: whether another follows, on the CPU (host data that
 * the GPU could not take) or by LU (an AUTO Cholesky that found A indefinite). *status is
 * routing LU's where that fails. */
static int try_again(minv_context *ctx, minv_status *status, minv_place place, int solve, int auto_chosen,
                     minv_method *method, minv_report *report, const minv_backend_ops **ops) {
    const int cpu_has = solve ? minv_cpu_backend.solve[*method] != NULL : minv_cpu_backend.invert[*method] != NULL;
    if (minv_fall_back_to_cpu(ctx, *status, place, cpu_has, "it", ops, MINV_REPORT_SINK(report)))
        return 1;
    if (*status != MINV_ERR_NOT_SPD || !auto_chosen || *method != MINV_METHOD_CHOLESKY)
        return 0;
    minv_report_note(report, "not positive definite at column %lld, so LU instead", (long long)report->info + 1);
    report->fallbacks |= MINV_FALLBACK_LU;
    minv_clear_error(ctx);
    *method = report->method = MINV_METHOD_LU;
    report->info = -1;
    *status = route(ctx, place, *method, solve, report, ops);
    return *status == MINV_SUCCESS;
}

static minv_status run_invert(minv_context *ctx, const minv_backend_ops *ops, minv_place place,
                              minv_method method, const minv_mat *a, minv_mat *x,
                              const minv_analysis *an, minv_report *r) {
    const double n = (double)a->rows;
    const int single = blas_on_one_thread(ops, place, (method == MINV_METHOD_CHOLESKY ? 1 : 2) * n * n * n);
    if (single)
        la_threads_single_begin();
    const minv_status status = (place == MINV_ON_DEVICE ? ops->invert_device : ops->invert)[method](ctx, a, x, an, r);
    if (single)
        la_threads_single_end();
    return status;
}

static minv_status run_solve(minv_context *ctx, const minv_backend_ops *ops, minv_place place,
                             minv_method method, const minv_mat *a, const minv_mat *b, minv_mat *x,
                             const minv_analysis *an, minv_report *r) {
    const double n = (double)a->rows;
    const int single = blas_on_one_thread(ops, place, n * n * n / 3 + 2 * n * n * (double)b->cols);
    if (single)
        la_threads_single_begin();
    const minv_status status = (place == MINV_ON_DEVICE ? ops->solve_device : ops->solve)[method](ctx, a, b, x, an, r);
    if (single)
        la_threads_single_end();
    return status;
}

/* MINV_OPT_PRECISION: the mixed-precision solve where the backend has one for this method, and
 * the double solve where it has not or where refinement does not converge; the report says
 * which. Inversions stay in double and say so. */
static minv_status run_solve_in_precision(minv_context *ctx, const minv_backend_ops *ops, minv_place place,
                                          minv_method method, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                          const minv_analysis *an, minv_report *r) {
    if (ctx->precision == MINV_PRECISION_MIXED) {
        const minv_solve_op mixed = (place == MINV_ON_DEVICE ? ops->solve_mixed_device : ops->solve_mixed)[method];
        if (!mixed) {
            minv_report_note(r, "mixed precision is not available for %s on the %s backend, so the solve ran in double",
                             minv_method_name(method), ops->name);
        } else {
            const minv_status status = mixed(ctx, a, b, x, an, r);
            if (status != MINV_ERR_NO_CONVERGENCE)
                return status;
            /* a note of what happened, without the error's status prefix: the call goes on */
            minv_report_note(r, "%s, so the double solve ran", minv_error_detail(ctx, status));
            r->fallbacks |= MINV_FALLBACK_DIRECT;
            minv_clear_error(ctx);
            r->iterations = 0;
            r->method = method; /* an engine may have gone from Cholesky to LU */
        }
    }
    return run_solve(ctx, ops, place, method, a, b, x, an, r);
}

static void note_precision_of_inversion(const minv_context *ctx, minv_report *r) {
    if (ctx->precision == MINV_PRECISION_MIXED)
        minv_report_note(r, "mixed precision applies to solves: the inversion ran in double (refining an inverse "
                            "costs more than inverting in double)");
}

/* The first NaN/Inf that the analysis found, named; host data also gets its value. */
minv_status minv_fail_not_finite(minv_context *ctx, minv_place place, const char *name, const minv_mat *m, int64_t i,
                                 int64_t j) {
    char value[64] = "NaN or Inf";
    if (place == MINV_ON_HOST)
        snprintf(value, sizeof value, "%g",
                 m->dtype == MINV_R64 ? *(const double *)minv_at(m, i, j) : (double)*(const float *)minv_at(m, i, j));
    return minv_fail(ctx, MINV_ERR_NOT_FINITE, "%s(%lld,%lld) = %s (row %lld, column %lld, 1-based) is the first non-finite entry",
                     name, (long long)i + 1, (long long)j + 1, value, (long long)i + 1, (long long)j + 1);
}

/* An all-zero A (a variable never filled, the wrong file) is named as such rather than left to
 * a factorisation to report a singular first column. */
static minv_status check_not_zero(minv_context *ctx, const minv_analysis *an, minv_report *report) {
    if (an->norm_1 > 0)
        return MINV_SUCCESS;
    report->info = 0;
    return minv_fail(ctx, MINV_ERR_SINGULAR, "A is zero: every entry is 0");
}

/* Cholesky reads one triangle: forced on a non-symmetric matrix it would invert another one. */
static minv_status check_cholesky_input(minv_context *ctx, minv_dtype t, const minv_analysis *an) {
    if (an->symmetric)
        return MINV_SUCCESS;
    return minv_fail(ctx, MINV_ERR_NOT_SPD,
                     "Cholesky needs a symmetric matrix; relative asymmetry max|a_ij - a_ji| / max|a_ij| = %.3g exceeds the symmetry tolerance %.3g",
                     an->asymmetry, minv_symmetry_tol(ctx, t));
}

/* MINV_OPT_RECONDITION, on host data of a symmetric matrix: either the result itself (*done;
 * the floor) or, for the ridge, *a becomes A + delta I (held in shifted) with its analysis, for
 * the rest of the call to invert or solve with. */
static minv_status recondition(minv_context *ctx, const char *fn, minv_place place, minv_method method, minv_mat *a,
                               const minv_mat *b, minv_mat *x, minv_mat *shifted, minv_analysis *an, int *done, minv_report *report) {
    minv_status status;
    if (place == MINV_ON_DEVICE)
        return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "%s: reconditioning (MINV_OPT_RECONDITION) takes host data", fn);
    /* the floor's result is the eigen-decomposition's own: no other method would run */
    if (ctx->recondition == MINV_RECONDITION_FLOOR && method != MINV_METHOD_AUTO)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "%s: the eigenvalue floor (MINV_OPT_RECONDITION) computes the result from A's eigen-decomposition, "
                         "so it takes method auto, not %s (the ridge runs any method on A + delta I)",
                         fn, minv_method_name(method));
    if (!an->symmetric)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "%s: reconditioning needs a symmetric matrix; relative asymmetry %.3g exceeds the symmetry tolerance %.3g",
                         fn, an->asymmetry, minv_symmetry_tol(ctx, a->dtype));
    minv_progress(ctx, "recondition", 0);
    status = minv_recondition_apply(ctx, a, b, x, shifted, done, report);
    if (status != MINV_SUCCESS || *done || !shifted->data)
        return status;
    *a = *shifted;
    return analyze(ctx, place, a, an, small_host_call(ctx, place, method, a->rows, b ? b->cols : 0, b != NULL));
}

static double invert_flops(minv_method m, int64_t n) {
    double dn = (double)n;
    return m == MINV_METHOD_CHOLESKY ? dn * dn * dn : 2.0 * dn * dn * dn;
}

static double solve_flops(minv_method m, int64_t n, int64_t k) {
    double dn = (double)n, factor = m == MINV_METHOD_CHOLESKY ? dn * dn * dn / 3 : 2 * dn * dn * dn / 3;
    return factor + 2.0 * dn * dn * (double)k;
}

/* A finished factorisation whose condition is below working precision is singular in all but
 * name; the result is still returned, as LAPACK's xGESVX does. */
minv_status minv_check_rcond(minv_context *ctx, minv_dtype t, const minv_report *r) {
    if (r->rcond >= 0 && r->rcond < minv_eps(t))
        return minv_fail(ctx, MINV_ERR_SINGULAR,
                         "singular to working precision: reciprocal condition estimate %.3g < eps %.3g; the result is unreliable",
                         r->rcond, minv_eps(t));
    return MINV_SUCCESS;
}

/* NVML's energy counter moves in steps; a call shorter than this, or one in which it did not
 * move, gets no energy figure rather than a wrong one. */
static const double MIN_ENERGY_WINDOW = 0.05;

/* The counter at its next step after `seen`. A reading between steps holds the energy up to
 * the last step, which may lie tens of milliseconds back, at whatever power the GPU drew then;
 * read at steps, the window starts with the call and ends within one step after it. Gives up
 * after half a second (a counter that never moves). */
static double energy_at_step(minv_context *ctx, double seen) {
    const double t0 = minv_now();
    double e = seen;
    while (e == seen && e >= 0 && minv_now() - t0 < 0.5) {
        const struct timespec pause = {0, 200000};
        nanosleep(&pause, NULL);
        e = ctx->ops->energy(ctx);
    }
    return e;
}

static minv_status call_begin(minv_context *ctx, minv_call *c, int timed) {
    minv_status status = minv_context_enter(ctx);
    c->entered = status == MINV_SUCCESS;
    if (status != MINV_SUCCESS)
        return status;
    minv_fpguard_begin(&c->guard);
    c->e0 = timed && ctx->measure_energy && ctx->ops->energy ? energy_at_step(ctx, ctx->ops->energy(ctx)) : -1;
    c->t0 = timed ? minv_now() : 0;
    memset(&ctx->moved, 0, sizeof ctx->moved);
    /* an earlier call's copy of A or products A v, which it may not have used (a call routed to
     * the GPU after the CPU analysis, a failure), are of data the caller may since have changed;
     * and only an entry point that may take Cholesky asks for its factor beside the analysis */
    ctx->stage.src = NULL;
    ctx->stage.probes_of = NULL;
    ctx->stage.cholesky_columns = 0;
    minv_clear_error(ctx);
    return MINV_SUCCESS;
}

minv_status minv_call_begin(minv_context *ctx, minv_call *c) { return call_begin(ctx, c, 1); }

minv_status minv_call_refused(minv_report *r, minv_status status, minv_method method, int64_t n, int64_t nrhs) {
    minv_report_init(r, method, n, nrhs);
    minv_report_note(r, "refused: %s", minv_status_string(status));
    return status;
}

void minv_report_stages(const minv_context *ctx, minv_backend backend, double seconds, minv_stages *stages,
                        int32_t *device, int32_t *fallbacks) {
    const minv_moved *m = &ctx->moved;
    stages->upload_seconds = m->upload_seconds;
    stages->download_seconds = m->download_seconds;
    stages->upload_bytes = m->upload_bytes;
    stages->download_bytes = m->download_bytes;
    stages->compute_seconds = fmax(0, seconds - m->upload_seconds - m->download_seconds);
    *device = backend == MINV_BACKEND_GPU && ctx->device_count > 0 ? ctx->devices[0] : -1;
    if (ctx->backend_note[0])
        *fallbacks |= MINV_FALLBACK_NO_GPU;
}

minv_status minv_call_place(minv_context *ctx, minv_place place) {
    if (place == MINV_ON_DEVICE && ctx->ops->begin_device_call)
        return ctx->ops->begin_device_call(ctx);
    return MINV_SUCCESS;
}

minv_status minv_call_open(minv_context *ctx, minv_call *c, minv_place place, minv_report *r, minv_method method,
                           int64_t n, int64_t nrhs) {
    minv_status status = call_begin(ctx, c, r != NULL);
    if (status == MINV_SUCCESS)
        status = minv_call_place(ctx, place);
    return status == MINV_SUCCESS || !r ? status : minv_call_refused(r, status, method, n, nrhs);
}

void minv_call_end(minv_context *ctx, minv_call *c, minv_report *r) {
    if (!c->entered)
        return;
    if (ctx->ops->end_call)
        ctx->ops->end_call(ctx);
    memset(&ctx->stage, 0, sizeof ctx->stage);
    if (r) {
        if (ctx->backend_note[0])
            minv_report_note(r, "CPU backend: %s", ctx->backend_note);
        r->seconds = minv_now() - c->t0;
        r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
        minv_report_stages(ctx, r->backend, r->seconds, &r->stages, &r->device, &r->fallbacks);
        const double e1 = c->e0 >= 0 ? energy_at_step(ctx, ctx->ops->energy(ctx)) : -1;
        const double window = e1 >= 0 ? minv_now() - c->t0 : 0; /* the clock only where it counts */
        /* the mean power over the window (the call, and up to a step after it) times the call's
         * time: the window's whole energy would count the step after the call too */
        if (e1 > c->e0 && r->seconds >= MIN_ENERGY_WINDOW)
            r->energy = (e1 - c->e0) * r->seconds / window;
        else if (c->e0 >= 0)
            minv_report_note(r, "energy not measured: the %.3g s call is too short for the GPU's energy counter", r->seconds);
    }
    minv_fpguard_end(&c->guard);
    minv_context_leave(ctx);
}

/* ---- inversion ---- */

/* method_pos: the method's argument position, for its check; 0 where the library chose it
 * (minv_invert_gj_baseline's internal id). */
minv_status minv_invert_expert(minv_context *ctx, const char *fn, minv_place place, minv_method method, int method_pos,
                               minv_dtype t, int64_t n, const void *a, int64_t lda, void *ainv, int64_t ldainv,
                               int inplace, minv_report *report) {
    minv_analysis an;
    minv_probes probes = {0};
    minv_mat acopy = {0}, shifted = {0};
    minv_status status = MINV_SUCCESS;
    minv_mat in = {t, n, n, lda, (void *)a}, out = {t, n, n, ldainv, ainv};
    const minv_backend_ops *ops = NULL;
    int auto_chosen = method == MINV_METHOD_AUTO;

    minv_report_init(report, method, n, 0);
    MINV_TRY(minv_check_place(ctx, fn, place));
    if (method_pos)
        MINV_TRY(minv_check_method(ctx, fn, method_pos, method));
    MINV_TRY(minv_check_order(ctx, fn, 3, "n", n));
    MINV_TRY(minv_check_matrix(ctx, fn, a, 4, "a", n, n, lda, "lda", t));
    if (!inplace)
        MINV_TRY(minv_check_matrix(ctx, fn, ainv, 6, "ainv", n, n, ldainv, "ldainv", t));
    if (n == 0) /* LAPACK's quick return */
        goto cleanup;

    minv_progress(ctx, "analysis", 0);
    {
        const int small = small_host_call(ctx, place, method, n, 0, 0);
        request_staging(ctx, place, method, n, n, 1, small);
        MINV_TRY(analyze(ctx, place, &in, &an, small));
    }
    if (!an.finite)
        MINV_TRY(minv_fail_not_finite(ctx, place, "A", &in, an.first_bad_row, an.first_bad_col));
    MINV_TRY(check_not_zero(ctx, &an, report));
    if (ctx->recondition != MINV_RECONDITION_NONE) {
        int done = 0;
        MINV_TRY(recondition(ctx, fn, place, method, &in, NULL, &out, &shifted, &an, &done, report));
        if (done)
            goto cleanup;
        if (shifted.data) /* in is now A + delta I, out of place */
            inplace = 0;
    }
    report->asymmetry = an.asymmetry;
    if (auto_chosen)
        method = an.auto_method;
    note_method(report, ctx, t, &an, method, auto_chosen);
    if (method == MINV_METHOD_CHOLESKY)
        MINV_TRY(check_cholesky_input(ctx, t, &an));
    report->method = method;
    MINV_TRY(route(ctx, place, method, 0, report, &ops));
    note_precision_of_inversion(ctx, report);

    /* Until an attempt succeeds: a GPU out of memory hands host data to the CPU, and an AUTO
     * Cholesky that finds A indefinite, or whose residual shows that A's asymmetry mattered,
     * hands it to LU; A is intact for each attempt (but for that last case in place). */
    for (;;) {
        const int mode = minv_residual_mode(ctx, t, an.asymmetry, method), host_residual = !ops->computes_residual;
        if (host_residual && mode == 1 && !probes.v)
            MINV_TRY(minv_probes_make(ctx, &in, &an, &probes));
        if (host_residual && mode == 2 && inplace && !acopy.data) {
            MINV_TRY(minv_mat_alloc(ctx, &acopy, t, n, n));
            minv_mat_copy(&in, &acopy);
        }
        const size_t mark = strlen(report->reason);
        status = run_invert(ctx, ops, place, method, &in, &out, &an, report);
        if (try_again(ctx, &status, place, 0, auto_chosen, &method, report, &ops))
            continue;
        if (status != MINV_SUCCESS)
            goto cleanup;
        if (host_residual && mode > 0)
            minv_progress(ctx, "residual", 0);
        if (host_residual && mode == 1) {
            report->residual = minv_residual_inverse_sampled(&out, &probes);
            report->residual_kind = report->residual >= 0;
        } else if (host_residual && mode == 2) {
            minv_status rs = minv_residual_inverse_full(ctx, inplace ? &acopy : &in, &out, an.norm_1,
                                                        &report->residual);
            report->residual_kind = rs == MINV_SUCCESS ? 2 : 0;
        }
        if (minv_cholesky_residual_too_large(t, n, report)) {
            MINV_TRY(redo_by_lu(ctx, t, n, &an, auto_chosen && !inplace, place, 0, mark, &method, report, &ops));
            continue;
        }
        break;
    }
    status = minv_check_rcond(ctx, t, report);
    if (report->flops == 0) /* iterative methods count their own */
        report->flops = invert_flops(method, n);
cleanup:
    minv_probes_free(&probes);
    minv_mat_free(&acopy);
    minv_mat_free(&shifted);
    return status;
}

static minv_status invert_entry(minv_context *ctx, const char *fn, minv_place place,
                                minv_method method, int method_pos, minv_dtype t, int64_t n, const void *a,
                                int64_t lda, void *ainv, int64_t ldainv, int inplace,
                                minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    minv_status status = minv_call_open(ctx, &call, place, report, method, n, 0);
    if (status == MINV_SUCCESS)
        status = minv_invert_expert(ctx, fn, place, method, method_pos, t, n, a, lda, ainv, ldainv, inplace, r);
    minv_call_end(ctx, &call, report);
    return status;
}

minv_status minv_invert_d(minv_context *ctx, minv_method method, int64_t n, const double *a,
                          int64_t lda, double *ainv, int64_t ldainv, minv_report *report) {
    return invert_entry(ctx, "minv_invert_d", MINV_ON_HOST, method, 2, MINV_R64, n, a, lda, ainv, ldainv,
                        a == ainv && lda == ldainv, report);
}

minv_status minv_invert_s(minv_context *ctx, minv_method method, int64_t n, const float *a,
                          int64_t lda, float *ainv, int64_t ldainv, minv_report *report) {
    return invert_entry(ctx, "minv_invert_s", MINV_ON_HOST, method, 2, MINV_R32, n, a, lda, ainv, ldainv,
                        a == ainv && lda == ldainv, report);
}

minv_status minv_invert_inplace_d(minv_context *ctx, minv_method method, int64_t n, double *a,
                                  int64_t lda, minv_report *report) {
    return invert_entry(ctx, "minv_invert_inplace_d", MINV_ON_HOST, method, 2, MINV_R64, n, a, lda, a, lda, 1, report);
}

minv_status minv_invert_inplace_s(minv_context *ctx, minv_method method, int64_t n, float *a,
                                  int64_t lda, minv_report *report) {
    return invert_entry(ctx, "minv_invert_inplace_s", MINV_ON_HOST, method, 2, MINV_R32, n, a, lda, a, lda, 1, report);
}

minv_status minv_invert_device_d(minv_context *ctx, minv_method method, int64_t n,
                                 const double *a, int64_t lda, double *ainv, int64_t ldainv,
                                 minv_report *report) {
    return invert_entry(ctx, "minv_invert_device_d", MINV_ON_DEVICE, method, 2, MINV_R64, n, a, lda, ainv, ldainv,
                        a == ainv, report);
}

minv_status minv_invert_device_s(minv_context *ctx, minv_method method, int64_t n,
                                 const float *a, int64_t lda, float *ainv, int64_t ldainv,
                                 minv_report *report) {
    return invert_entry(ctx, "minv_invert_device_s", MINV_ON_DEVICE, method, 2, MINV_R32, n, a, lda, ainv, ldainv,
                        a == ainv, report);
}

minv_status minv_invert_gj_baseline(minv_context *ctx, minv_dtype t, int64_t n, const void *a, int64_t lda, void *ainv,
                                    int64_t ldainv, minv_report *report) {
    return invert_entry(ctx, "minv_invert_gj_baseline", MINV_ON_HOST, (minv_method)MINV_METHOD_GJ_BASELINE, 0, t, n, a,
                        lda, ainv, ldainv, 0, report);
}

static minv_status warm_entry(minv_context *ctx, const char *fn, minv_method method, minv_dtype t,
                              int64_t n, const void *a, int64_t lda, const void *v0, int64_t ldv0,
                              void *ainv, int64_t ldainv, minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    minv_status status = MINV_SUCCESS;
    minv_mat guess = {t, n, n, ldv0, (void *)v0};
    if ((status = minv_call_begin(ctx, &call)) != MINV_SUCCESS)
        return minv_call_refused(r, status, method, n, 0);
    minv_report_init(r, method, n, 0);
    if (method != MINV_METHOD_AUTO && method != MINV_METHOD_ITERATIVE) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 2 (method) must be auto or iterative, got %s", fn,
                           minv_method_name(method));
        goto cleanup;
    }
    MINV_TRY(minv_check_order(ctx, fn, 3, "n", n));
    MINV_TRY(minv_check_matrix(ctx, fn, v0, 6, "v0", n, n, ldv0, "ldv0", t));
    {
        int64_t bi, bj;
        double bv;
        if (!minv_all_finite(&guess, &bi, &bj, &bv))
            MINV_TRY(minv_fail_not_finite(ctx, MINV_ON_HOST, "V0", &guess, bi, bj));
    }
    ctx->call_guess = &guess;
    status = minv_invert_expert(ctx, fn, MINV_ON_HOST, MINV_METHOD_ITERATIVE, 2, t, n, a, lda, ainv, ldainv, 0, r);
    ctx->call_guess = NULL;
    if (status == MINV_ERR_NO_CONVERGENCE && method == MINV_METHOD_AUTO) {
        char why[MINV_ERROR_LEN];
        snprintf(why, sizeof why, "%s", minv_last_error(ctx));
        minv_clear_error(ctx);
        status = minv_invert_expert(ctx, fn, MINV_ON_HOST, MINV_METHOD_AUTO, 2, t, n, a, lda, ainv, ldainv, 0, r);
        minv_report_note(r, "the warm start did not converge (%.200s), so a direct method", why);
        r->fallbacks |= MINV_FALLBACK_DIRECT;
    }
cleanup:
    ctx->call_guess = NULL;
    minv_call_end(ctx, &call, r);
    return status;
}

minv_status minv_invert_warm_d(minv_context *ctx, minv_method method, int64_t n, const double *a,
                               int64_t lda, const double *v0, int64_t ldv0, double *ainv,
                               int64_t ldainv, minv_report *report) {
    return warm_entry(ctx, "minv_invert_warm_d", method, MINV_R64, n, a, lda, v0, ldv0, ainv, ldainv, report);
}

minv_status minv_invert_warm_s(minv_context *ctx, minv_method method, int64_t n, const float *a,
                               int64_t lda, const float *v0, int64_t ldv0, float *ainv,
                               int64_t ldainv, minv_report *report) {
    return warm_entry(ctx, "minv_invert_warm_s", method, MINV_R32, n, a, lda, v0, ldv0, ainv, ldainv, report);
}

/* ---- solve ---- */

/* Whether B's finiteness is left to the CPU's Cholesky or LU, which check it in the pass that
 * copies B into their workspace (minv_cpu_rhs_input) before they factor A: a host solve on a
 * CPU context, neither reconditioned nor in mixed precision. The separate scan of B was 2-3%
 * of a call at n = 8-40. */
static int cpu_copy_checks_b(const minv_context *ctx, minv_place place, minv_method method) {
    return place == MINV_ON_HOST && ctx->ops == &minv_cpu_backend && ctx->recondition == MINV_RECONDITION_NONE &&
           ctx->precision != MINV_PRECISION_MIXED &&
           (method == MINV_METHOD_AUTO || method == MINV_METHOD_CHOLESKY || method == MINV_METHOD_LU);
}

/* The columns of m a solve's residual samples (all of them in mode 2), side by side: in place,
 * B's are kept before X overwrites them; X's are X itself where they are all of it (view).
 * Up to local_bytes they go to local, else to memory allocated here (*owned): a malloc and a
 * free for each of the two were 8% of an in-place solve at n = 8. */
static minv_status sampled_columns(minv_context *ctx, int mode, const minv_mat *m, int view, void *local,
                                   size_t local_bytes, minv_mat *out, int *owned) {
    const int64_t count = minv_residual_columns(mode, m->cols);
    minv_status status = MINV_SUCCESS;
    *owned = 0;
    if (view && count == m->cols) {
        *out = *m;
        return status;
    }
    if ((size_t)m->rows * (size_t)count * (size_t)m->dtype <= local_bytes) {
        *out = (minv_mat){m->dtype, m->rows, count, m->rows, local};
    } else {
        status = minv_mat_alloc(ctx, out, m->dtype, m->rows, count);
        *owned = status == MINV_SUCCESS;
    }
    for (int64_t s = 0; s < count && status == MINV_SUCCESS; s++) {
        minv_mat from = {m->dtype, m->rows, 1, m->ld, minv_at(m, 0, minv_residual_column(s, count, m->cols))};
        minv_mat to = {m->dtype, m->rows, 1, out->ld, minv_at(out, 0, s)};
        minv_mat_copy(&from, &to);
    }
    return status;
}

minv_status minv_solve_expert(minv_context *ctx, const char *fn, minv_place place, minv_method method, minv_dtype t,
                              int64_t n, int64_t nrhs, const void *a, int64_t lda, const void *b, int64_t ldb, void *x,
                              int64_t ldx, minv_report *report) {
    minv_analysis an;
    minv_status status = MINV_SUCCESS;
    minv_mat am = {t, n, n, lda, (void *)a}, bm = {t, n, nrhs, ldb, (void *)b},
             xm = {t, n, nrhs, ldx, x}, shifted = {0}, kept_b = {0}, kept_x = {0};
    const minv_backend_ops *ops = NULL;
    int auto_chosen = method == MINV_METHOD_AUTO, b_owned = 0, x_owned = 0;
    double b_local[256], x_local[256]; /* an in-place call's sampled columns, where they fit */

    minv_report_init(report, method, n, nrhs);
    MINV_TRY(minv_check_place(ctx, fn, place));
    MINV_TRY(minv_check_method(ctx, fn, 2, method));
    MINV_TRY(minv_check_order(ctx, fn, 3, "n", n));
    MINV_TRY(minv_check_order(ctx, fn, 4, "nrhs", nrhs));
    MINV_TRY(minv_check_matrix(ctx, fn, a, 5, "a", n, n, lda, "lda", t));
    MINV_TRY(minv_check_matrix(ctx, fn, b, 7, "b", n, nrhs, ldb, "ldb", t));
    MINV_TRY(minv_check_matrix(ctx, fn, x, 9, "x", n, nrhs, ldx, "ldx", t));
    if (n == 0 || nrhs == 0) /* LAPACK's quick return (which factors A all the same for nrhs = 0) */
        goto cleanup;

    minv_progress(ctx, "analysis", 0);
    {
        const int small = small_host_call(ctx, place, method, n, nrhs, 1);
        request_staging(ctx, place, method, n, nrhs, 0, small);
        MINV_TRY(analyze(ctx, place, &am, &an, small));
    }
    if (!an.finite)
        MINV_TRY(minv_fail_not_finite(ctx, place, "A", &am, an.first_bad_row, an.first_bad_col));
    MINV_TRY(check_not_zero(ctx, &an, report));
    if (!cpu_copy_checks_b(ctx, place, method)) {
        int64_t bi = 0, bj = 0;
        double bv;
        int finite = 1;
        if (place == MINV_ON_HOST)
            finite = minv_all_finite(&bm, &bi, &bj, &bv);
        else
            MINV_TRY(ctx->ops->all_finite_device(ctx, &bm, &bi, &bj, &finite));
        if (!finite)
            MINV_TRY(minv_fail_not_finite(ctx, place, "B", &bm, bi, bj));
    }
    if (ctx->recondition != MINV_RECONDITION_NONE) {
        int done = 0;
        MINV_TRY(recondition(ctx, fn, place, method, &am, &bm, &xm, &shifted, &an, &done, report));
        if (done)
            goto cleanup;
    }
    report->asymmetry = an.asymmetry;
    if (auto_chosen)
        method = minv_choose_dense_method(ctx, &an, nrhs);
    note_method(report, ctx, t, &an, method, auto_chosen);
    if (method == MINV_METHOD_CHOLESKY)
        MINV_TRY(check_cholesky_input(ctx, t, &an));
    report->method = method;
    MINV_TRY(route(ctx, place, method, 1, report, &ops));
    if (place == MINV_ON_HOST && b == x && minv_residual_mode(ctx, t, an.asymmetry, method) > 0)
        MINV_TRY(sampled_columns(ctx, minv_residual_mode(ctx, t, an.asymmetry, method), &bm, 0, b_local,
                                 sizeof b_local, &kept_b, &b_owned));

    /* Fallbacks as for the inversion. */
    for (;;) {
        const int mode = minv_residual_mode(ctx, t, an.asymmetry, method);
        const size_t mark = strlen(report->reason);
        status = run_solve_in_precision(ctx, ops, place, method, &am, &bm, &xm, &an, report);
        if (try_again(ctx, &status, place, 1, auto_chosen, &method, report, &ops))
            continue;
        if (status != MINV_SUCCESS)
            goto cleanup;
        if (!ops->computes_residual && mode > 0) {
            minv_status rs;
            minv_progress(ctx, "residual", 0);
            if (kept_b.data) { /* in place: the kept columns of B against the same columns of X */
                if (x_owned)
                    minv_mat_free(&kept_x);
                rs = sampled_columns(ctx, mode, &xm, 1, x_local, sizeof x_local, &kept_x, &x_owned);
                if (rs == MINV_SUCCESS)
                    rs = minv_residual_solve_norm(ctx, 2, &am, an.norm_inf, an.asymmetry == 0, &kept_b, &kept_x,
                                                  &report->residual);
            } else {
                rs = minv_residual_solve_norm(ctx, mode, &am, an.norm_inf, an.asymmetry == 0, &bm, &xm, &report->residual);
            }
            report->residual_kind = rs == MINV_SUCCESS ? mode : 0;
        }
        if (minv_cholesky_residual_too_large(t, n, report)) { /* in place, B is gone */
            MINV_TRY(redo_by_lu(ctx, t, n, &an, auto_chosen && b != x, place, 1, mark, &method, report, &ops));
            continue;
        }
        break;
    }
    status = minv_check_rcond(ctx, t, report);
    report->flops = solve_flops(method, n, nrhs);
cleanup:
    minv_mat_free(&shifted);
    if (b_owned)
        minv_mat_free(&kept_b);
    if (x_owned)
        minv_mat_free(&kept_x);
    return status;
}

static minv_status solve_entry(minv_context *ctx, const char *fn, minv_place place,
                               minv_method method, minv_dtype t, int64_t n, int64_t nrhs,
                               const void *a, int64_t lda, const void *b, int64_t ldb, void *x,
                               int64_t ldx, minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    minv_status status = minv_call_open(ctx, &call, place, report, method, n, nrhs);
    if (status == MINV_SUCCESS)
        status = minv_solve_expert(ctx, fn, place, method, t, n, nrhs, a, lda, b, ldb, x, ldx, r);
    minv_call_end(ctx, &call, report);
    return status;
}

minv_status minv_solve_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                         const double *a, int64_t lda, const double *b, int64_t ldb, double *x,
                         int64_t ldx, minv_report *report) {
    return solve_entry(ctx, "minv_solve_d", MINV_ON_HOST, method, MINV_R64, n, nrhs, a, lda, b, ldb, x, ldx, report);
}

minv_status minv_solve_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float *x,
                         int64_t ldx, minv_report *report) {
    return solve_entry(ctx, "minv_solve_s", MINV_ON_HOST, method, MINV_R32, n, nrhs, a, lda, b, ldb, x, ldx, report);
}

minv_status minv_solve_inplace_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                 const double *a, int64_t lda, double *b, int64_t ldb, minv_report *report) {
    return solve_entry(ctx, "minv_solve_inplace_d", MINV_ON_HOST, method, MINV_R64, n, nrhs, a, lda, b, ldb, b, ldb, report);
}

minv_status minv_solve_inplace_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                 const float *a, int64_t lda, float *b, int64_t ldb, minv_report *report) {
    return solve_entry(ctx, "minv_solve_inplace_s", MINV_ON_HOST, method, MINV_R32, n, nrhs, a, lda, b, ldb, b, ldb, report);
}

minv_status minv_solve_device_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                const double *a, int64_t lda, const double *b, int64_t ldb,
                                double *x, int64_t ldx, minv_report *report) {
    return solve_entry(ctx, "minv_solve_device_d", MINV_ON_DEVICE, method, MINV_R64, n, nrhs, a, lda, b, ldb, x, ldx, report);
}

minv_status minv_solve_device_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                const float *a, int64_t lda, const float *b, int64_t ldb,
                                float *x, int64_t ldx, minv_report *report) {
    return solve_entry(ctx, "minv_solve_device_s", MINV_ON_DEVICE, method, MINV_R32, n, nrhs, a, lda, b, ldb, x, ldx, report);
}

/* ---- analysis ---- */

static minv_status analyze_entry(minv_context *ctx, const char *fn, minv_dtype t, int64_t n,
                                 const void *a, int64_t lda, minv_analysis *out) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_call call;
    minv_status status = minv_call_begin(ctx, &call);
    if (status != MINV_SUCCESS)
        return status;
    minv_mat m = {t, n, n, lda, (void *)a};
    if (n == 0) { /* unlike the calls, no quick return: there is no analysis to give */
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 2 (n) = 0: an empty matrix has nothing to analyse", fn);
        goto cleanup;
    }
    MINV_TRY(minv_check_order(ctx, fn, 2, "n", n));
    MINV_TRY(minv_check_matrix(ctx, fn, a, 3, "a", n, n, lda, "lda", t));
    if (!out) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 5 (analysis) is NULL", fn);
        goto cleanup;
    }
    status = analyze(ctx, MINV_ON_HOST, &m, out, 0);
cleanup:
    minv_call_end(ctx, &call, NULL);
    return status;
}

minv_status minv_analyze_d(minv_context *ctx, int64_t n, const double *a, int64_t lda,
                           minv_analysis *analysis) {
    return analyze_entry(ctx, "minv_analyze_d", MINV_R64, n, a, lda, analysis);
}

minv_status minv_analyze_s(minv_context *ctx, int64_t n, const float *a, int64_t lda,
                           minv_analysis *analysis) {
    return analyze_entry(ctx, "minv_analyze_s", MINV_R32, n, a, lda, analysis);
}
