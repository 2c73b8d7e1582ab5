// Device and pinned host workspaces owned by the context. Grown on demand, never shrunk
// between calls, so a DA cycle after the first allocates nothing; the device total is held
// under the context's budget.
#include <stdio.h>
#include <stdlib.h>

#include "gpu.h"

const char *minv_gpu_slot_name(int slot, char name[MINV_SLOT_NAME_LEN]) {
    static const char *const fixed[] = {"WS_A", "WS_B", "WS_C", "WS_D", "WS_E", "WS_F", "WS_G", "WS_H"};
    static const char *const last[] = {"WS_SOLVER", "WS_SMALL", "WS_SCALAR", "WS_VEC", "WS_RESID", "WS_AHEAD",
                                       "WS_AHEAD_WORK"};
    if (slot < 0 || slot >= WS_COUNT)
        snprintf(name, MINV_SLOT_NAME_LEN, "slot %d", slot);
    else if (slot < WS_LOW)
        snprintf(name, MINV_SLOT_NAME_LEN, "%s", fixed[slot]);
    else if (slot < WS_PANEL)
        snprintf(name, MINV_SLOT_NAME_LEN, "WS_LOW+%d", slot - WS_LOW);
    else if (slot < WS_AUX)
        snprintf(name, MINV_SLOT_NAME_LEN, "WS_PANEL+%d", slot - WS_PANEL);
    else if (slot < WS_SOLVER)
        snprintf(name, MINV_SLOT_NAME_LEN, "WS_AUX+%d", slot - WS_AUX);
    else
        snprintf(name, MINV_SLOT_NAME_LEN, "%s", last[slot - WS_SOLVER]);
    return name;
}

static void release_slot(minv_gpu *g, int k) {
    if (g->ws[k]) cudaFree(g->ws[k]);
    g->ws[k] = NULL;
    g->ws_bytes[k] = 0;
    if (k == WS_A) g->staged_host = NULL; /* the analysis's upload is gone with it */
    if (k == WS_AHEAD || k == WS_AHEAD_WORK) g->ahead.live = 0; /* and so is the factor made beside it */
}

int minv_gpu_fits(const minv_context *ctx, double bytes) { return bytes <= (double)ctx->gpu->budget; }

double minv_gpu_available(const minv_context *ctx) {
    const minv_gpu *g = ctx->gpu;
    double held = 0;
    for (int k = 0; k < WS_COUNT; k++)
        if (g->ws_held[k]) held += (double)g->ws_bytes[k];
    return (double)g->budget - held;
}

minv_gpu_mark minv_gpu_mark_now(const minv_context *ctx) { return ctx->gpu->ws_clock; }

void minv_gpu_release_since(minv_context *ctx, minv_gpu_mark mark) {
    for (int d = 0; d < MINV_MAX_DEVICES; d++) {
        minv_gpu *g = ctx->gpu->team[d];
        if (g)
            for (int k = 0; k < WS_COUNT; k++)
                if (g->ws_held[k] > mark) g->ws_held[k] = 0;
    }
}

minv_status minv_gpu_reserve(minv_context *ctx, int count, const int *slots, const size_t *bytes, void **ptrs) {
    return minv_gpu_reserve_on(ctx, ctx->gpu, count, slots, bytes, ptrs);
}

minv_status minv_gpu_reserve_on(minv_context *ctx, minv_gpu *g, int count, const int *slots, const size_t *bytes,
                                void **ptrs) {
    minv_status status = MINV_SUCCESS;
    /* What the call will hold: the slots it holds plus this request. */
    double want = 0;
    int wanted[WS_COUNT] = {0};
    for (int k = 0; k < count; k++) {
        char name[MINV_SLOT_NAME_LEN];
        if (slots[k] < 0 || slots[k] >= WS_COUNT)
            return minv_fail(ctx, MINV_ERR_INTERNAL, "internal error: workspace slot %d does not exist (%d slots)",
                             slots[k], (int)WS_COUNT);
        if (wanted[slots[k]])
            return minv_fail(ctx, MINV_ERR_INTERNAL,
                             "internal error: workspace %s is reserved twice in one request (the buffers would alias)",
                             minv_gpu_slot_name(slots[k], name));
        if (g->ws_held[slots[k]])
            return minv_fail(ctx, MINV_ERR_INTERNAL,
                             "internal error: workspace %s is reserved again while an earlier request of this call "
                             "holds it (the buffers would alias)",
                             minv_gpu_slot_name(slots[k], name));
        wanted[slots[k]] = 1;
    }
    for (int k = 0; k < count; k++) want += (double)bytes[k];
    for (int k = 0; k < WS_COUNT; k++)
        if (g->ws_held[k]) want += (double)g->ws_bytes[k];
    if (want > (double)g->budget)
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "needs %.3g GB of memory on device %d, the budget is %.3g GB",
                         want / 1e9, g->device, (double)g->budget / 1e9);
    /* Make room by releasing cached slots this call does not hold. */
    double cached = 0;
    for (int k = 0; k < WS_COUNT; k++)
        if (!wanted[k] && !g->ws_held[k]) cached += (double)g->ws_bytes[k];
    for (int k = 0; k < WS_COUNT && cached + want > (double)g->budget; k++)
        if (!wanted[k] && !g->ws_held[k]) {
            cached -= (double)g->ws_bytes[k];
            release_slot(g, k);
        }
    CUDA_TRY(cudaSetDevice(g->device));
    for (int k = 0; k < count; k++) {
        int s = slots[k];
        g->ws_held[s] = ++ctx->gpu->ws_clock;
        if (g->ws_bytes[s] >= bytes[k] && g->ws[s]) {
            ptrs[k] = g->ws[s];
            continue;
        }
        release_slot(g, s);
        size_t size = bytes[k] > 0 ? bytes[k] : 1;
        CUDA_TRY(cudaMalloc(&g->ws[s], size));
        g->ws_bytes[s] = size;
        ptrs[k] = g->ws[s];
    }
cleanup:
    return status;
}

minv_status minv_gpu_own_alloc(minv_context *ctx, size_t bytes, void **dev) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    *dev = NULL;
    if ((double)bytes > minv_gpu_available(ctx))
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "needs %.3g GB more on device %d, the budget leaves %.3g GB",
                         (double)bytes / 1e9, g->device, minv_gpu_available(ctx) / 1e9);
    for (int k = 0; k < WS_COUNT; k++) /* the cached workspaces make room; the method reserves its own later */
        if (!g->ws_held[k]) release_slot(g, k);
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaMalloc(dev, bytes > 0 ? bytes : 1));
    g->budget -= bytes;
cleanup:
    return status;
}

void minv_gpu_own_free(minv_context *ctx, void *dev, size_t bytes) {
    cudaFree(dev);
    ctx->gpu->budget += bytes;
}

minv_status minv_gpu_pinned(minv_context *ctx, int slot, size_t bytes, void **ptr) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    if (g->pinned[slot] && g->pinned_bytes[slot] >= bytes) {
        *ptr = g->pinned[slot];
        return MINV_SUCCESS;
    }
    if (g->pinned[slot]) cudaFreeHost(g->pinned[slot]);
    g->pinned[slot] = NULL;
    g->pinned_bytes[slot] = 0;
    CUDA_TRY(cudaHostAlloc(&g->pinned[slot], bytes > 0 ? bytes : 1, cudaHostAllocDefault));
    g->pinned_bytes[slot] = bytes;
    *ptr = g->pinned[slot];
cleanup:
    return status;
}

minv_status minv_gpu_read_back(minv_context *ctx, const void *dev, size_t bytes, void **host) {
    minv_status status = MINV_SUCCESS;
    MINV_TRY(minv_gpu_pinned(ctx, PIN_READ_BACK, bytes, host));
    CUDA_TRY(cudaMemcpyAsync(*host, dev, bytes, cudaMemcpyDeviceToHost, ctx->gpu->stream));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}

void minv_gpu_release_all(minv_gpu *g) {
    for (int k = 0; k < WS_COUNT; k++) release_slot(g, k);
    for (int k = 0; k < PIN_COUNT; k++) {
        if (g->pinned[k]) cudaFreeHost(g->pinned[k]);
        g->pinned[k] = NULL;
        g->pinned_bytes[k] = 0;
    }
    g->staged_host = NULL;
}

void minv_gpu_end_call(minv_context *ctx) {
    minv_gpu *g = ctx->gpu;
    /* Without the caller's stream every call is synchronous: device-pointer results are
     * ready, and the report's seconds true, when it returns. With it, a device call's results
     * are ordered before the stream's later work instead (a context with several devices
     * still waits here).
     * Errors were checked where they arose. */
    const int joined = g->joined && minv_gpu_join_caller(g);
    if (!joined || ctx->device_count > 1) {
        cudaStreamSynchronize(g->stream);
        if (g->joined)
            for (int k = 0; k < MINV_GPU_STREAMS; k++) cudaStreamSynchronize(g->copy[k]);
    }
    if (g->ahead.live) { /* a factor nobody took: done before the call returns */
        if (!joined) cudaEventSynchronize(g->ahead.done);
        g->ahead.skip = 1;
    }
    g->ahead.live = 0;
    g->narrow_by_trsm = 0;
    g->joined = 0;
    for (int d = 0; d < MINV_MAX_DEVICES; d++)
        if (g->team[d])
            for (int k = 0; k < WS_COUNT; k++) g->team[d]->ws_held[k] = 0;
    g->staged_host = NULL;
}
