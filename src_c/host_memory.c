/* minv_host_register / minv_host_unregister: the caller's host arrays page-locked for the
 * GPU's copy engines (the backend does it; the CPU has nothing to do). */
#include "internal.h"

minv_status minv_host_register(minv_context *ctx, void *p, int64_t bytes) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(ctx);
    if (bytes < 0 || (!p && bytes > 0) || (uint64_t)bytes > SIZE_MAX)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "minv_host_register: %s",
                           bytes < 0 ? "argument 3 (bytes) is negative" : !p ? "argument 2 (p) is NULL"
                                                                            : "argument 3 (bytes) overflows the address space");
    else if (bytes > 0 && ctx->ops->host_register)
        status = ctx->ops->host_register(ctx, p, (size_t)bytes);
    minv_context_leave(ctx);
    return status;
}

minv_status minv_host_unregister(minv_context *ctx, void *p) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_clear_error(ctx);
    if (!p)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "minv_host_unregister: argument 2 (p) is NULL");
    else if (ctx->ops->host_unregister)
        status = ctx->ops->host_unregister(ctx, p);
    minv_context_leave(ctx);
    return status;
}
