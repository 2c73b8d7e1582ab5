/* minv_host_register / minv_host_unregister: the caller's host arrays page-locked for the
 * GPU's copy engines (the backend does it; the CPU has nothing to do). */
#include "internal.h"

/* Registers [p, p + bytes) with lock, or unregisters the range at p. */
static minv_status host_memory(minv_context *ctx, void *p, int64_t bytes, int lock) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(ctx);
    const char *fn = lock ? "minv_host_register" : "minv_host_unregister";
    if (lock && (bytes < 0 || (uint64_t)bytes > SIZE_MAX))
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 3 (bytes) = %lld %s", fn, (long long)bytes,
                           bytes < 0 ? "is negative" : "overflows the address space");
    else if (!p && (!lock || bytes > 0))
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 2 (p) is NULL", fn);
    else if (lock && bytes > 0 && ctx->ops->host_register)
        status = ctx->ops->host_register(ctx, p, (size_t)bytes);
    else if (!lock && ctx->ops->host_unregister)
        status = ctx->ops->host_unregister(ctx, p);
    minv_context_leave(ctx);
    return status;
}

minv_status minv_host_register(minv_context *ctx, void *p, int64_t bytes) { return host_memory(ctx, p, bytes, 1); }

minv_status minv_host_unregister(minv_context *ctx, void *p) { return host_memory(ctx, p, 0, 0); }
