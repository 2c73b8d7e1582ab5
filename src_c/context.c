/* Context life cycle, options, and the choice of backend. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"

void minv_options_default(minv_options *opts) {
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->backend = MINV_BACKEND_AUTO;
    opts->ndevices = -1;
}

/* Why the last minv_create of this thread failed, for minv_last_error(NULL): no context is
 * left to hold it. "" after a success. */
static _Thread_local char create_error[MINV_ERROR_LEN] = "no context (minv_create was not called)";

static void keep_create_error(const char *text) { snprintf(create_error, sizeof create_error, "%s", text); }

const char *minv_create_error(void) { return create_error; }

/* A refused argument of minv_create, kept for minv_last_error(NULL) as minv_fail words a
 * context's errors. */
__attribute__((format(printf, 1, 2))) static minv_status refuse_create(const char *fmt, ...) {
    int len = snprintf(create_error, sizeof create_error, "%s: minv_create: ", minv_status_string(MINV_ERR_INVALID_ARG));
    va_list args;
    va_start(args, fmt);
    vsnprintf(create_error + len, sizeof create_error - (size_t)len, fmt, args);
    va_end(args);
    return MINV_ERR_INVALID_ARG;
}

/* Options are named as minv_options' fields, which are minv_init's keywords in Fortran too. */
static minv_status check_options(const minv_options *o) {
    if (o->backend < MINV_BACKEND_AUTO || o->backend > MINV_BACKEND_GPU)
        return refuse_create("backend = %d is not MINV_BACKEND_AUTO (0), MINV_BACKEND_CPU (1) or MINV_BACKEND_GPU (2)",
                             (int)o->backend);
    if (o->device < 0)
        return refuse_create("device = %d must be >= 0", (int)o->device);
    if (o->cpu_threads < 0)
        return refuse_create("cpu_threads = %d must be >= 0 (0: all available)", (int)o->cpu_threads);
    if (o->device_memory < 0)
        return refuse_create("device_memory = %lld must be >= 0 (0: all free)", (long long)o->device_memory);
    if (o->ndevices < -1 || o->ndevices > MINV_MAX_DEVICES)
        return refuse_create("ndevices = %d must be -1 (every visible device) to MINV_MAX_DEVICES = %d", (int)o->ndevices,
                             MINV_MAX_DEVICES);
    for (int k = 0; k < o->ndevices; k++)
        if (o->devices[k] < 0)
            return refuse_create("devices entry %d (1-based) = %d must be >= 0", k + 1, (int)o->devices[k]);
    return MINV_SUCCESS;
}

/* The CPU, the GPU, or (AUTO) the GPU where one is usable: the GPU backend is opened on the
 * first context that may use it (gpu_plugin.c). AUTO without one takes the CPU and keeps why
 * for the reports, once; a context asked for the CPU notes nothing. */
static minv_status choose_backend(minv_context *ctx) {
    ctx->backend = MINV_BACKEND_CPU;
    ctx->ops = &minv_cpu_backend;
    if (ctx->opts.backend == MINV_BACKEND_CPU)
        return MINV_SUCCESS;
    const minv_status status = minv_gpu_create(ctx);
    if (status == MINV_SUCCESS || ctx->opts.backend == MINV_BACKEND_GPU)
        return status;
    /* the reason without minv_fail's "no usable GPU: " */
    const char *why = ctx->last_error, *prefix = minv_status_string(status);
    if (strncmp(why, prefix, strlen(prefix)) == 0 && strncmp(why + strlen(prefix), ": ", 2) == 0)
        why += strlen(prefix) + 2;
    snprintf(ctx->backend_note, sizeof ctx->backend_note, "%.*s", (int)sizeof ctx->backend_note - 1, why);
    minv_clear_error(ctx);
    return MINV_SUCCESS;
}

minv_status minv_create(minv_context **out, const minv_options *opts) {
    keep_create_error("no context (minv_create failed)"); /* until it succeeds or says why not */
    if (!out)
        return refuse_create("out is NULL");
    *out = NULL;
    minv_options o;
    minv_options_default(&o);
    if (opts)
        o = *opts;
    minv_status status = check_options(&o);
    if (status != MINV_SUCCESS)
        return status;

    minv_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return MINV_ERR_ALLOC;
    ctx->opts = o;
    ctx->tolerance = 0.0;
    ctx->max_iterations = 100;
    ctx->block_size = 0;
    ctx->tile_size = 0;
    ctx->symmetry_tol = -1; /* MINV_SYMMETRY_EPS roundings of each call's precision */
    ctx->residual_mode = 1;
    ctx->initial_guess = MINV_GUESS_AUTO;
    ctx->iteration = MINV_ITERATION_SOLEYMANI7;
    ctx->mixed_precision = 0;
    ctx->precision = MINV_PRECISION_DOUBLE;
    ctx->recondition = MINV_RECONDITION_NONE;
    ctx->target_condition = 1000;
    ctx->tridiagonal_algorithm = MINV_TRIDIAGONAL_AUTO;
    ctx->measure_energy = 0;
    ctx->ooc_streams = 3;
#ifdef _OPENMP
    ctx->cpu_threads = o.cpu_threads > 0 ? o.cpu_threads : omp_get_max_threads();
#else
    ctx->cpu_threads = 1;
#endif

    status = choose_backend(ctx);
    if (status != MINV_SUCCESS) {
        if (ctx->last_error[0])
            keep_create_error(ctx->last_error);
        free(ctx);
        return status;
    }
    keep_create_error("");
    *out = ctx;
    return MINV_SUCCESS;
}

minv_status minv_destroy(minv_context *ctx) {
    if (!ctx)
        return MINV_SUCCESS;
    if (minv_context_enter(ctx) != MINV_SUCCESS)
        return MINV_ERR_CONTEXT_BUSY; /* freeing it would pull it from under the other call */
    if (ctx->attached.release)
        ctx->attached.release(ctx->attached.state);
    minv_gpu_destroy(ctx);
    minv_batch_outcomes_free(&ctx->batch_outcomes);
    minv_workspace_free(ctx);
    free(ctx);
    return MINV_SUCCESS;
}

/* An atomic owner and a depth only its owner touches: a compare-and-swap per call, a few
 * nanoseconds (GCC's builtins, as this header is also compiled as CUDA C++). */
minv_status minv_context_enter(minv_context *ctx) {
    const uintptr_t self = (uintptr_t)pthread_self();
    uintptr_t none = 0;
    if (__atomic_compare_exchange_n(&ctx->owner, &none, self, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        ctx->depth = 1;
        return MINV_SUCCESS;
    }
    if (none != self)
        return MINV_ERR_CONTEXT_BUSY;
    ctx->depth++;
    return MINV_SUCCESS;
}

void minv_context_leave(minv_context *ctx) {
    if (--ctx->depth == 0)
        __atomic_store_n(&ctx->owner, (uintptr_t)0, __ATOMIC_RELEASE);
}

int minv_threads_for(int cap, double work) {
    const double t = work / MINV_THREAD_GRAIN;
    return t < 2 ? 1 : t < cap ? (int)t : cap;
}

minv_backend minv_context_backend(const minv_context *ctx) {
    return ctx ? ctx->backend : MINV_BACKEND_AUTO; /* no context: the value no context has */
}

/* The inquiry functions take a const context but, as every call does, leave their message (or
 * "") in its last_error; they enter it so as not to write under another thread's call. */
minv_status minv_context_devices(const minv_context *ctx, int32_t *count, int32_t *devices) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_context *c = (minv_context *)ctx;
    minv_status status = minv_context_enter(c);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(c);
    if (!count || !devices) {
        status = minv_fail(c, MINV_ERR_INVALID_ARG, "minv_context_devices: argument %d (%s) is NULL", count ? 3 : 2,
                           count ? "devices" : "count");
    } else {
        *count = c->gpu ? c->device_count : 0;
        for (int k = 0; k < *count; k++) devices[k] = c->devices[k];
    }
    minv_context_leave(c);
    return status;
}

minv_status minv_set_stream(minv_context *ctx, void *stream) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(ctx);
    if (ctx->ops->set_stream)
        status = ctx->ops->set_stream(ctx, stream);
    else if (stream)
        status = minv_fail(ctx, MINV_ERR_NO_GPU, "this context runs on the %s (%s): it has no device calls to put on a CUDA stream",
                           minv_backend_name(ctx->backend), ctx->backend_note[0] ? ctx->backend_note : "chosen at creation");
    minv_context_leave(ctx);
    return status;
}

minv_status minv_energy_counter(minv_context *ctx, double *joules) {
    if (!ctx || !joules)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(ctx);
    const double e = ctx->ops->energy ? ctx->ops->energy(ctx) : -1;
    if (e < 0)
        status = minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "no energy meter: %s",
                           ctx->gpu ? "NVML could not be loaded or does not report energy for these GPUs"
                                    : "the CPU backend has none");
    else
        *joules = e;
    minv_context_leave(ctx);
    return status;
}

static int is_count(double v, double lo) { return isfinite(v) && v >= lo && v == floor(v) && v < 9.2e18; }

static minv_status set_option(minv_context *ctx, minv_option option, double value) {
    minv_clear_error(ctx);
    switch (option) {
    case MINV_OPT_TOLERANCE:
        if (!(isfinite(value) && value >= 0))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "tolerance must be finite and >= 0, got %g", value);
        ctx->tolerance = value;
        return MINV_SUCCESS;
    case MINV_OPT_MAX_ITERATIONS:
        if (!is_count(value, 1))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "max iterations must be an integer >= 1, got %g", value);
        ctx->max_iterations = (int64_t)value;
        return MINV_SUCCESS;
    case MINV_OPT_BLOCK_SIZE:
        if (!is_count(value, 0))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "block size must be an integer >= 0, got %g", value);
        ctx->block_size = (int64_t)value;
        return MINV_SUCCESS;
    case MINV_OPT_TILE_SIZE:
        if (!is_count(value, 0))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "tile size must be an integer >= 0, got %g", value);
        ctx->tile_size = (int64_t)value;
        return MINV_SUCCESS;
    case MINV_OPT_SYMMETRY_TOL:
        /* beyond the cap a matrix is not symmetric by any rounding argument, and Cholesky would
         * invert its lower triangle mirrored, another matrix */
        if (!(value == -1 || (value >= 0 && value <= MINV_SYMMETRY_TOL_MAX)))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                             "symmetry tolerance must be from 0 (exactly symmetric) to %g, or -1 for the default "
                             "(%d roundings of the working precision), got %g",
                             MINV_SYMMETRY_TOL_MAX, MINV_SYMMETRY_EPS, value);
        ctx->symmetry_tol = value;
        return MINV_SUCCESS;
    case MINV_OPT_RESIDUAL:
        if (!(value == 0 || value == 1 || value == 2))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "residual mode must be 0, 1 or 2, got %g", value);
        ctx->residual_mode = (int)value;
        return MINV_SUCCESS;
    case MINV_OPT_INITIAL_GUESS:
        if (!is_count(value, 0) || value > MINV_GUESS_IDENTITY)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "initial guess must be a minv_guess (0 to 3), got %g", value);
        ctx->initial_guess = (minv_guess)value;
        return MINV_SUCCESS;
    case MINV_OPT_ITERATION:
        if (!is_count(value, 0) || value > MINV_ITERATION_HYPERPOWER8)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "iteration must be a minv_iteration (0 or 1), got %g", value);
        ctx->iteration = (minv_iteration)value;
        return MINV_SUCCESS;
    case MINV_OPT_MIXED_PRECISION:
        if (!(value == 0 || value == 1))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "mixed precision must be 0 or 1, got %g", value);
        ctx->mixed_precision = (int)value;
        return MINV_SUCCESS;
    case MINV_OPT_RECONDITION:
        if (!is_count(value, 0) || value > MINV_RECONDITION_FLOOR)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "reconditioning must be a minv_recondition (0 to 2), got %g", value);
        ctx->recondition = (minv_recondition)value;
        return MINV_SUCCESS;
    case MINV_OPT_TARGET_CONDITION:
        if (!(isfinite(value) && value > 1))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "target condition number must be finite and > 1, got %g", value);
        ctx->target_condition = value;
        return MINV_SUCCESS;
    case MINV_OPT_TRIDIAGONAL_ALGORITHM:
        if (!is_count(value, 0) || value > MINV_TRIDIAGONAL_PIVOTED)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "tridiagonal algorithm must be a minv_tridiagonal_algorithm (0 to 3), got %g", value);
        ctx->tridiagonal_algorithm = (minv_tridiagonal_algorithm)value;
        return MINV_SUCCESS;
    case MINV_OPT_ENERGY:
        if (!(value == 0 || value == 1))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "energy must be 0 or 1, got %g", value);
        ctx->measure_energy = (int)value;
        return MINV_SUCCESS;
    case MINV_OPT_PRECISION:
        if (!(value == MINV_PRECISION_DOUBLE || value == MINV_PRECISION_MIXED))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                             "precision must be MINV_PRECISION_DOUBLE (0) or MINV_PRECISION_MIXED (2), got %g%s", value,
                             value == MINV_PRECISION_SINGLE ? " (single precision: call the _s routines)" : "");
        ctx->precision = (minv_precision)value;
        return MINV_SUCCESS;
    }
    return minv_fail(ctx, MINV_ERR_INVALID_ARG, "unknown option %d", (int)option);
}

/* Options change between calls, never under one: another thread's call is refused instead. */
minv_status minv_set_option(minv_context *ctx, minv_option option, double value) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    status = set_option(ctx, option, value);
    minv_context_leave(ctx);
    return status;
}

static minv_status get_option(minv_context *ctx, minv_option option, double *value) {
    if (!value)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "minv_get_option: argument 3 (value) is NULL");
    switch (option) {
    case MINV_OPT_TOLERANCE: *value = ctx->tolerance; return MINV_SUCCESS;
    case MINV_OPT_MAX_ITERATIONS: *value = (double)ctx->max_iterations; return MINV_SUCCESS;
    case MINV_OPT_BLOCK_SIZE: *value = (double)ctx->block_size; return MINV_SUCCESS;
    case MINV_OPT_TILE_SIZE: *value = (double)ctx->tile_size; return MINV_SUCCESS;
    case MINV_OPT_SYMMETRY_TOL: *value = ctx->symmetry_tol; return MINV_SUCCESS;
    case MINV_OPT_RESIDUAL: *value = (double)ctx->residual_mode; return MINV_SUCCESS;
    case MINV_OPT_INITIAL_GUESS: *value = (double)ctx->initial_guess; return MINV_SUCCESS;
    case MINV_OPT_ITERATION: *value = (double)ctx->iteration; return MINV_SUCCESS;
    case MINV_OPT_MIXED_PRECISION: *value = (double)ctx->mixed_precision; return MINV_SUCCESS;
    case MINV_OPT_RECONDITION: *value = (double)ctx->recondition; return MINV_SUCCESS;
    case MINV_OPT_TARGET_CONDITION: *value = ctx->target_condition; return MINV_SUCCESS;
    case MINV_OPT_TRIDIAGONAL_ALGORITHM: *value = (double)ctx->tridiagonal_algorithm; return MINV_SUCCESS;
    case MINV_OPT_ENERGY: *value = (double)ctx->measure_energy; return MINV_SUCCESS;
    case MINV_OPT_PRECISION: *value = (double)ctx->precision; return MINV_SUCCESS;
    }
    return minv_fail(ctx, MINV_ERR_INVALID_ARG, "unknown option %d", (int)option);
}

minv_status minv_get_option(const minv_context *ctx, minv_option option, double *value) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_context *c = (minv_context *)ctx; /* for last_error, as minv_context_devices */
    minv_status status = minv_context_enter(c);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(c);
    status = get_option(c, option, value);
    minv_context_leave(c);
    return status;
}

minv_status minv_set_progress(minv_context *ctx, minv_progress_fn fn, void *user) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    ctx->progress = fn;
    ctx->progress_user = user;
    minv_context_leave(ctx);
    return MINV_SUCCESS;
}

void minv_progress(minv_context *ctx, const char *stage, double fraction) {
    if (ctx->progress)
        ctx->progress(ctx->progress_user, stage, fraction);
}
