// Out-of-core matrix product for matrices that live in host memory. The product of two
// n x n matrices with tiles of edge s moves 2 n^3 / s elements over PCIe for 2 n^3 flops,
// so s of a few thousand keeps the GPU busy; tiles of C stay resident while slabs of the
// operands stream past them, and every copy overlaps the GEMMs.
#include <math.h>

#include "gpu.h"

namespace {

/* Device buffers of one product: two C tiles, two slabs of each operand. */
struct ooc_buffers {
    void *c[2], *x[2], *y[2];
    double *scalar;
};

minv_status reserve_buffers(minv_context *ctx, minv_dtype t, const minv_ooc_plan *p, ooc_buffers *b) {
    const size_t es = (size_t)t, tile = (size_t)p->tile * (size_t)p->tile * es, slab = (size_t)p->tile * (size_t)p->slab * es;
    const int slots[4] = {WS_B, WS_C, WS_D, WS_SCALAR};
    const size_t bytes[4] = {2 * tile, 2 * slab, 2 * slab, 64};
    void *ptr[4];
    minv_status status = minv_gpu_reserve(ctx, 4, slots, bytes, ptr);
    if (status != MINV_SUCCESS)
        return status;
    for (int k = 0; k < 2; k++) {
        b->c[k] = (char *)ptr[0] + k * tile;
        b->x[k] = (char *)ptr[1] + k * slab;
        b->y[k] = (char *)ptr[2] + k * slab;
    }
    b->scalar = (double *)ptr[3];
    return MINV_SUCCESS;
}

cublasStatus_t gemm(cublasHandle_t h, minv_dtype t, int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                    int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc) {
    if (t == MINV_R64)
        return minv_gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, (const double *)a, lda, (const double *)b, ldb,
                         beta, (double *)c, ldc);
    return minv_gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, (const float *)a, lda, (const float *)b, ldb, beta,
                     (float *)c, ldc);
}

/* The events that order the streams; created per product (cheap, and no state kept).
 * slab_ready_y: Y's slab, when it has an upload stream of its own. */
struct ooc_events {
    cudaEvent_t slab_ready[2], slab_ready_y[2], slab_free[2], tile_ready[2], tile_done[2], tile_out[2];
};
enum { OOC_EVENTS = 12 };

minv_status create_events(minv_context *ctx, ooc_events *ev) {
    minv_status status = MINV_SUCCESS;
    cudaEvent_t *all = &ev->slab_ready[0];
    for (int k = 0; k < OOC_EVENTS; k++) all[k] = NULL;
    for (int k = 0; k < OOC_EVENTS; k++) CUDA_TRY(cudaEventCreateWithFlags(&all[k], cudaEventDisableTiming));
cleanup:
    return status;
}

void destroy_events(ooc_events *ev) {
    cudaEvent_t *all = &ev->slab_ready[0];
    for (int k = 0; k < OOC_EVENTS; k++)
        if (all[k]) cudaEventDestroy(all[k]);
}

} // namespace

/* Slab depth for tiles of s: a Y slab is k x s, copied as s column segments of k elements,
 * and PCIe moves segments of 4.9 KB at two thirds of the rate of 9.7 KB ones (H100,
 * bench_iterative pcie); beyond that, the tiles get the memory (traffic falls as 1/s). */
static int64_t slab_for(int64_t s, int64_t n) {
    int64_t k = s >= 2048 ? s / 4 : (s < 256 ? s : 256);
    return k < n ? k : n;
}

minv_status minv_gpu_ooc_plan(minv_context *ctx, minv_dtype t, int64_t n, minv_ooc_plan *plan) {
    /* two C tiles (s^2) and two slabs of each operand (s k) in 90% of what the call may hold */
    const double elems = 0.9 * minv_gpu_available(ctx) / (double)t;
    int64_t s = elems > 0 ? (int64_t)sqrt(elems / 2) : 0;
    if (s > n) s = n;
    while (s >= 16 && 2.0 * (double)s * (double)s + 4.0 * (double)s * (double)slab_for(s, n) > elems)
        s = s > 256 ? (s - 1) / 128 * 128 : s - 8;
    if (s < 16)
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "device budget %.3g MB is too small for out-of-core tiles",
                         (double)ctx->gpu->budget / 1e6);
    plan->tile = s;
    plan->slab = slab_for(s, n);
    plan->streams = ctx->ooc_streams == 4 ? 4 : 3;
    return MINV_SUCCESS;
}

minv_status minv_gpu_ooc_gemm(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *x, const minv_mat *y,
                              double alpha, const minv_mat *s, double beta, double gamma, minv_mat *c,
                              double *residual) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const minv_dtype t = c->dtype;
    const int64_t n = c->rows, ts = plan->tile, kb = plan->slab, tiles = (n + ts - 1) / ts;
    cudaStream_t up = g->copy[0], down = g->copy[1], comp = g->stream;
    cudaStream_t up_y = plan->streams == 4 ? g->copy[2] : up; /* Y's slabs */
    ooc_buffers b;
    ooc_events ev;
    int64_t slab_count = 0, tile_count = 0;
    MINV_TRY(create_events(ctx, &ev));
    MINV_TRY(reserve_buffers(ctx, t, plan, &b));
    CUDA_TRY(cudaMemsetAsync(b.scalar, 0, sizeof(double), comp));
    for (int64_t ti = 0; ti < tiles; ti++)
        for (int64_t tj = 0; tj < tiles; tj++, tile_count++) {
            const int cb = (int)(tile_count % 2);
            const int64_t i0 = ti * ts, j0 = tj * ts, rows = n - i0 < ts ? n - i0 : ts, cols = n - j0 < ts ? n - j0 : ts;
            /* the C buffer is free once its previous tile is home */
            CUDA_TRY(cudaStreamWaitEvent(up, ev.tile_out[cb], 0));
            CUDA_TRY(cudaStreamWaitEvent(comp, ev.tile_out[cb], 0));
            if (s) {
                CUDA_TRY(minv_gpu_copy_block(s, i0, j0, rows, cols, b.c[cb], 1, up));
                CUDA_TRY(cudaEventRecord(ev.tile_ready[cb], up));
                CUDA_TRY(cudaStreamWaitEvent(comp, ev.tile_ready[cb], 0));
            }
            for (int64_t k0 = 0; k0 < n; k0 += kb, slab_count++) {
                const int sb = (int)(slab_count % 2);
                const int64_t kw = n - k0 < kb ? n - k0 : kb;
                CUDA_TRY(cudaStreamWaitEvent(up, ev.slab_free[sb], 0));
                CUDA_TRY(minv_gpu_copy_block(x, i0, k0, rows, kw, b.x[sb], 1, up));
                if (up_y != up)
                    CUDA_TRY(cudaStreamWaitEvent(up_y, ev.slab_free[sb], 0));
                CUDA_TRY(minv_gpu_copy_block(y, k0, j0, kw, cols, b.y[sb], 1, up_y));
                CUDA_TRY(cudaEventRecord(ev.slab_ready[sb], up));
                CUDA_TRY(cudaStreamWaitEvent(comp, ev.slab_ready[sb], 0));
                if (up_y != up) {
                    CUDA_TRY(cudaEventRecord(ev.slab_ready_y[sb], up_y));
                    CUDA_TRY(cudaStreamWaitEvent(comp, ev.slab_ready_y[sb], 0));
                }
                double beta_k = k0 > 0 ? 1.0 : (s ? beta : 0.0);
                CUBLAS_TRY(gemm(g->blas, t, rows, cols, kw, alpha, b.x[sb], rows, b.y[sb], kw, beta_k, b.c[cb], rows));
                CUDA_TRY(cudaEventRecord(ev.slab_free[sb], comp));
            }
            if (ti == tj && gamma != 0) {
                if (t == MINV_R64) minv_k_add_diagonal<double>((double *)b.c[cb], rows, rows, gamma, comp);
                else minv_k_add_diagonal<float>((float *)b.c[cb], rows, rows, (float)gamma, comp);
            }
            if (residual) {
                if (t == MINV_R64)
                    minv_k_identity_residual_tile<double>((const double *)b.c[cb], rows, cols, rows, i0, j0, b.scalar, comp);
                else
                    minv_k_identity_residual_tile<float>((const float *)b.c[cb], rows, cols, rows, i0, j0, b.scalar, comp);
            }
            LAUNCH_TRY();
            CUDA_TRY(cudaEventRecord(ev.tile_done[cb], comp));
            CUDA_TRY(cudaStreamWaitEvent(down, ev.tile_done[cb], 0));
            CUDA_TRY(minv_gpu_copy_block(c, i0, j0, rows, cols, b.c[cb], 0, down));
            CUDA_TRY(cudaEventRecord(ev.tile_out[cb], down));
        }
    CUDA_TRY(cudaStreamSynchronize(down));
    CUDA_TRY(cudaStreamSynchronize(comp));
    if (residual) {
        double sumsq;
        CUDA_TRY(cudaMemcpy(&sumsq, b.scalar, sizeof sumsq, cudaMemcpyDeviceToHost));
        *residual = sqrt(sumsq);
    }
cleanup:
    if (status != MINV_SUCCESS) {
        cudaStreamSynchronize(up);
        cudaStreamSynchronize(up_y);
        cudaStreamSynchronize(down);
        cudaStreamSynchronize(comp);
    }
    destroy_events(&ev);
    return status;
}
