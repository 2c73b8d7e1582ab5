// The caller's CUDA stream (minv_set_stream): a device call's work is ordered after the
// stream's earlier work and before its later work by events, so a GPU model's own kernels and
// minv's need no host synchronisation between them. Without one, a device call starts after
// the legacy default stream's work and returns when its own is done. minv's kernels stay on
// minv's streams and handles, whose look-ahead and copy overlap the algorithms are written for.
#include "gpu.h"

/* The events of g's device: the fork, and a join per stream of minv's (compute, then copy). */
static minv_status create_events(minv_context *ctx, minv_gpu *g) {
    minv_status status = MINV_SUCCESS;
    if (g->fork)
        return MINV_SUCCESS;
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaEventCreateWithFlags(&g->fork, cudaEventDisableTiming));
    for (int k = 0; k <= MINV_GPU_STREAMS; k++) CUDA_TRY(cudaEventCreateWithFlags(&g->join[k], cudaEventDisableTiming));
cleanup:
    if (status != MINV_SUCCESS) minv_gpu_stream_close(g);
    return status;
}

void minv_gpu_stream_close(minv_gpu *g) {
    if (g->fork) cudaEventDestroy(g->fork);
    for (int k = 0; k <= MINV_GPU_STREAMS; k++)
        if (g->join[k]) cudaEventDestroy(g->join[k]);
    if (g->ahead.start) cudaEventDestroy(g->ahead.start);
    if (g->ahead.done) cudaEventDestroy(g->ahead.done);
    g->fork = g->ahead.start = g->ahead.done = NULL;
    g->ahead.live = 0;
    for (int k = 0; k <= MINV_GPU_STREAMS; k++) g->join[k] = NULL;
    g->caller = NULL;
}

minv_status minv_gpu_set_stream(minv_context *ctx, void *stream) {
    minv_gpu *g = ctx->gpu;
    if (!stream) {
        g->caller = NULL;
        return MINV_SUCCESS;
    }
    minv_status status = create_events(ctx, g);
    if (status != MINV_SUCCESS)
        return status;
    /* Recording an event of the context's device on the stream is what every call will do:
     * it fails at once for a stream of another device or one destroyed. */
    cudaError_t err = cudaEventRecord(g->fork, (cudaStream_t)stream);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "minv_set_stream: %p is not a usable CUDA stream of device %d, the context's (%s: %s)", stream,
                         g->device, cudaGetErrorName(err), cudaGetErrorString(err));
    }
    g->caller = (cudaStream_t)stream;
    return MINV_SUCCESS;
}

minv_status minv_gpu_begin_device_call(minv_context *ctx) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    if (g->joined)
        return MINV_SUCCESS;
    if (!g->caller) {
        /* Without the caller's stream, after the legacy default stream's work: a caller that
         * filled its arrays with cudaMemcpy (whose DMA from pageable memory may still run when
         * it returns) or with kernels on stream 0, or on any blocking stream, which that stream
         * waits for. minv's streams are non-blocking and would not wait. */
        MINV_TRY(create_events(ctx, g));
        CUDA_TRY(cudaSetDevice(g->device));
        CUDA_TRY(cudaEventRecord(g->fork, cudaStreamLegacy));
        CUDA_TRY(cudaStreamWaitEvent(g->stream, g->fork, 0));
        for (int k = 0; k < MINV_GPU_STREAMS; k++) CUDA_TRY(cudaStreamWaitEvent(g->copy[k], g->fork, 0));
        return MINV_SUCCESS;
    }
    CUDA_TRY(cudaSetDevice(g->device));
    g->joined = 1; /* from here end_call orders the stream after minv's, or synchronises */
    if (ctx->device_count > 1) {
        CUDA_TRY(cudaStreamSynchronize(g->caller));
        return MINV_SUCCESS;
    }
    CUDA_TRY(cudaEventRecord(g->fork, g->caller));
    CUDA_TRY(cudaStreamWaitEvent(g->stream, g->fork, 0));
    for (int k = 0; k < MINV_GPU_STREAMS; k++) CUDA_TRY(cudaStreamWaitEvent(g->copy[k], g->fork, 0));
cleanup:
    return status;
}

int minv_gpu_join_caller(minv_gpu *g) {
    for (int k = 0; k <= MINV_GPU_STREAMS; k++) {
        cudaStream_t s = k == 0 ? g->stream : g->copy[k - 1];
        if (cudaEventRecord(g->join[k], s) != cudaSuccess || cudaStreamWaitEvent(g->caller, g->join[k], 0) != cudaSuccess) {
            cudaGetLastError();
            return 0;
        }
    }
    return 1;
}
