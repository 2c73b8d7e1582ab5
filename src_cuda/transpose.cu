// Out-of-core transpose (the iterative paper's third reduction-style kernel, used for the
// A^T initial guess): square tiles of a host matrix go up, are transposed through shared
// memory on the device, and come down to the mirrored position, copies overlapping kernels.
#include <math.h>

#include "gpu.h"

minv_status minv_gpu_ooc_transpose(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *src, double scale,
                                   minv_mat *dst) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const minv_dtype t = src->dtype;
    const size_t es = (size_t)t;
    const int64_t n = src->rows;
    /* four tiles on the device: two in, two out */
    int64_t ts = (int64_t)sqrt(fmax(0, 0.9 * minv_gpu_available(ctx)) / (double)es / 4);
    if (ts > plan->tile) ts = plan->tile;
    if (ts > n) ts = n;
    if (ts < 1)
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "device budget %.3g MB is too small to transpose by tiles",
                         (double)g->budget / 1e6);
    const int64_t tiles = (n + ts - 1) / ts;
    const size_t tile_bytes = (size_t)ts * (size_t)ts * es;
    const int slots[2] = {WS_B, WS_C};
    const size_t bytes[2] = {2 * tile_bytes, 2 * tile_bytes};
    void *p[2];
    cudaStream_t up = g->copy[0], down = g->copy[1], comp = g->stream;
    cudaEvent_t ev[6] = {NULL};
    int64_t count = 0;
    MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    for (int k = 0; k < 6; k++) CUDA_TRY(cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming));
    for (int64_t ti = 0; ti < tiles; ti++)
        for (int64_t tj = 0; tj < tiles; tj++, count++) {
            const int b = (int)(count % 2);
            const int64_t i0 = ti * ts, j0 = tj * ts, rows = n - i0 < ts ? n - i0 : ts, cols = n - j0 < ts ? n - j0 : ts;
            void *tin = (char *)p[0] + b * tile_bytes, *tout = (char *)p[1] + b * tile_bytes;
            cudaEvent_t in_ready = ev[b], done = ev[2 + b], out_done = ev[4 + b];
            CUDA_TRY(cudaStreamWaitEvent(up, done, 0)); /* tin[b] was read by the previous kernel */
            CUDA_TRY(cudaMemcpy2DAsync(tin, (size_t)rows * es, minv_at(src, i0, j0), (size_t)src->ld * es,
                                       (size_t)rows * es, (size_t)cols, cudaMemcpyHostToDevice, up));
            CUDA_TRY(cudaEventRecord(in_ready, up));
            CUDA_TRY(cudaStreamWaitEvent(comp, in_ready, 0));
            CUDA_TRY(cudaStreamWaitEvent(comp, out_done, 0)); /* tout[b] is home */
            if (t == MINV_R64)
                minv_k_transpose<double>((const double *)tin, rows, cols, rows, (double *)tout, cols, scale, comp);
            else
                minv_k_transpose<float>((const float *)tin, rows, cols, rows, (float *)tout, cols, (float)scale, comp);
            LAUNCH_TRY();
            CUDA_TRY(cudaEventRecord(done, comp));
            CUDA_TRY(cudaStreamWaitEvent(down, done, 0));
            CUDA_TRY(cudaMemcpy2DAsync(minv_at(dst, j0, i0), (size_t)dst->ld * es, tout, (size_t)cols * es,
                                       (size_t)cols * es, (size_t)rows, cudaMemcpyDeviceToHost, down));
            CUDA_TRY(cudaEventRecord(out_done, down));
        }
    CUDA_TRY(cudaStreamSynchronize(down));
cleanup: /* every stream idle before the tiles' slots are released */
    cudaStreamSynchronize(up);
    cudaStreamSynchronize(comp);
    cudaStreamSynchronize(down);
    for (int k = 0; k < 6; k++)
        if (ev[k]) cudaEventDestroy(ev[k]);
    return status;
}
