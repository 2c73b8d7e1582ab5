/* Host workspaces held by the context: the copies, factors and vectors of one call stay for
 * the next, so that a loop of calls (a DA cycle, the local analyses of a filter) allocates
 * nothing after its first call. */
#include <stdlib.h>

#include "internal.h"

minv_status minv_workspace(minv_context *ctx, minv_work_slot slot, size_t bytes, void **p) {
    if (bytes > ctx->work[slot].bytes) {
        void *grown = NULL;
        free(ctx->work[slot].data);
        ctx->work[slot].data = NULL;
        ctx->work[slot].bytes = 0;
        if (posix_memalign(&grown, 64, bytes ? bytes : 64) != 0)
            return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %.3g MB of host workspace", (double)bytes / 1e6);
        ctx->work[slot].data = grown;
        ctx->work[slot].bytes = bytes;
    }
    *p = ctx->work[slot].data;
    return MINV_SUCCESS;
}

void minv_workspace_free(minv_context *ctx) {
    for (int s = 0; s < MINV_WORK_SLOTS; s++) {
        free(ctx->work[s].data);
        ctx->work[s].data = NULL;
        ctx->work[s].bytes = 0;
    }
}
