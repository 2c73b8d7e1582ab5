// Moving matrices between host and device: whole matrices for the in-core methods, and
// column panels streamed through pinned buffers on several streams for the out-of-core ones,
// so that the host copy of panel p+1, the transfer of panel p and the kernels of panel p-1
// run at the same time. Whole-matrix copies are timed into the call's tally (ctx->moved) for
// the report's upload and download stages; streamed panels count their bytes only, their
// time overlapping the computation.
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gpu.h"

/* Pageable memory crosses PCIe at about 8.5 GB/s on an H100 host (the driver copies it through
 * its own small pinned buffers, one thread); pinned memory at 55. Matrices beyond STAGE_MIN go
 * through the context's two pinned buffers in chunks of STAGE_CHUNK: the host's threads fill one
 * while the other crosses (or empty one while the other arrives). Below STAGE_MIN one pageable
 * copy has less latency (all through the pinned buffers, orders 64-256 took 10-25% longer on an
 * H200 host). */
constexpr size_t STAGE_MIN = (size_t)4 << 20, STAGE_CHUNK = (size_t)16 << 20;

/* Columns per chunk, and the pinned buffers for them. */
static minv_status stage_buffers(minv_context *ctx, const minv_mat *host, int64_t *chunk_cols, void *buf[2]) {
    minv_status status = MINV_SUCCESS;
    const size_t col = (size_t)host->rows * (size_t)host->dtype;
    int64_t c = (int64_t)(STAGE_CHUNK / col);
    *chunk_cols = c < 1 ? 1 : c > host->cols ? host->cols : c;
    for (int b = 0; b < 2; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, (size_t)*chunk_cols * col, &buf[b]));
cleanup:
    return status;
}

static int direct(const minv_mat *host) {
    return (size_t)host->rows * (size_t)host->cols * (size_t)host->dtype < STAGE_MIN || minv_host_is_pinned(host->data);
}

minv_status minv_gpu_upload(minv_context *ctx, const minv_mat *host, void *dev) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)host->dtype, col = (size_t)host->rows * es;
    const double t0 = minv_now();
    int64_t chunk;
    void *buf[2];
    if (direct(host)) {
        CUDA_TRY(cudaMemcpy2DAsync(dev, col, host->data, (size_t)host->ld * es, col, (size_t)host->cols,
                                   cudaMemcpyHostToDevice, g->stream));
        CUDA_TRY(cudaStreamSynchronize(g->stream));
    } else {
        MINV_TRY(stage_buffers(ctx, host, &chunk, buf));
        for (int64_t j0 = 0, c = 0; j0 < host->cols; j0 += chunk, c++) {
            const int b = (int)(c % 2);
            const int64_t cols = host->cols - j0 < chunk ? host->cols - j0 : chunk;
            minv_mat from = {host->dtype, host->rows, cols, host->ld, minv_at(host, 0, j0)},
                     to = {host->dtype, host->rows, cols, host->rows, buf[b]};
            CUDA_TRY(cudaStreamSynchronize(g->copy[b])); /* buffer b has crossed */
            minv_host_copy(&from, &to);
            CUDA_TRY(cudaMemcpyAsync((char *)dev + (size_t)j0 * col, buf[b], (size_t)cols * col, cudaMemcpyHostToDevice,
                                     g->copy[b]));
        }
        for (int b = 0; b < 2; b++) CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
    }
    ctx->moved.upload_seconds += minv_now() - t0;
    ctx->moved.upload_bytes += (double)host->rows * (double)host->cols * (double)es;
cleanup:
    return status;
}

minv_status minv_gpu_download(minv_context *ctx, const void *dev, const minv_mat *host) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)host->dtype, col = (size_t)host->rows * es;
    const double t0 = minv_now();
    int64_t chunk;
    void *buf[2];
    if (direct(host)) {
        CUDA_TRY(cudaMemcpy2DAsync(host->data, (size_t)host->ld * es, dev, col, col, (size_t)host->cols,
                                   cudaMemcpyDeviceToHost, g->stream));
        CUDA_TRY(cudaStreamSynchronize(g->stream));
    } else {
        MINV_TRY(stage_buffers(ctx, host, &chunk, buf));
        CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the result is complete */
        /* chunk c comes down into buffer c % 2 while the host empties chunk c - 1 */
        for (int64_t j0 = 0, c = 0; j0 < host->cols + chunk; j0 += chunk, c++) {
            if (j0 < host->cols) {
                const int64_t cols = host->cols - j0 < chunk ? host->cols - j0 : chunk;
                CUDA_TRY(cudaMemcpyAsync(buf[c % 2], (const char *)dev + (size_t)j0 * col, (size_t)cols * col,
                                         cudaMemcpyDeviceToHost, g->copy[c % 2]));
            }
            if (c > 0) {
                const int64_t p0 = j0 - chunk, cols = host->cols - p0 < chunk ? host->cols - p0 : chunk;
                const int b = (int)((c - 1) % 2);
                minv_mat from = {host->dtype, host->rows, cols, host->rows, buf[b]},
                         to = {host->dtype, host->rows, cols, host->ld, minv_at(host, 0, p0)};
                CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
                minv_host_copy(&from, &to);
            }
        }
    }
    ctx->moved.download_seconds += minv_now() - t0;
    ctx->moved.download_bytes += (double)host->rows * (double)host->cols * (double)es;
cleanup:
    return status;
}

minv_status minv_gpu_stage_input(minv_context *ctx, const minv_mat *host, void **dev) {
    minv_gpu *g = ctx->gpu;
    const size_t bytes = (size_t)host->rows * (size_t)host->cols * (size_t)host->dtype;
    const int slot = WS_A;
    minv_status status = minv_gpu_reserve(ctx, 1, &slot, &bytes, dev);
    if (status != MINV_SUCCESS)
        return status;
    if (g->staged_host == host->data && g->staged_n == host->rows && g->staged_ld == host->ld &&
        g->staged_dtype == host->dtype)
        return MINV_SUCCESS;
    g->staged_host = NULL;
    status = minv_gpu_upload(ctx, host, *dev);
    if (status == MINV_SUCCESS) {
        g->staged_host = host->data;
        g->staged_n = host->rows;
        g->staged_ld = host->ld;
        g->staged_dtype = host->dtype;
    }
    return status;
}

int minv_host_is_pinned(const void *p) {
    cudaPointerAttributes attr;
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return attr.type == cudaMemoryTypeHost;
}

int minv_host_range_pinned(const void *p, size_t bytes) {
    return bytes > 0 && minv_host_is_pinned(p) && minv_host_is_pinned((const char *)p + bytes - 1);
}

minv_status minv_gpu_host_register(minv_context *ctx, void *p, size_t bytes) {
    const cudaError_t err = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
    if (err == cudaSuccess) return MINV_SUCCESS;
    cudaGetLastError();
    if (err == cudaErrorHostMemoryAlreadyRegistered) return MINV_SUCCESS;
    return minv_fail(ctx, err == cudaErrorMemoryAllocation ? MINV_ERR_ALLOC : MINV_ERR_INVALID_ARG,
                     "minv_host_register: %zu bytes at %p could not be page-locked (%s)%s", bytes, p,
                     cudaGetErrorString(err),
                     err == cudaErrorMemoryAllocation ? ": the locked-memory limit (ulimit -l) or the host's memory"
                                                      : "");
}

minv_status minv_gpu_host_unregister(minv_context *ctx, void *p) {
    const cudaError_t err = cudaHostUnregister(p);
    if (err == cudaSuccess) return MINV_SUCCESS;
    cudaGetLastError();
    return minv_fail(ctx, MINV_ERR_INVALID_ARG, "minv_host_unregister: %p does not start a registered range (%s)", p,
                     cudaGetErrorString(err));
}

cudaError_t minv_gpu_copy_block(const minv_mat *host, int64_t i0, int64_t j0, int64_t rows, int64_t cols, void *dev, int up,
                                cudaStream_t s) {
    const size_t es = (size_t)host->dtype;
    void *h = minv_at(host, i0, j0);
    return up ? cudaMemcpy2DAsync(dev, (size_t)rows * es, h, (size_t)host->ld * es, (size_t)rows * es, (size_t)cols,
                                  cudaMemcpyHostToDevice, s)
              : cudaMemcpy2DAsync(h, (size_t)host->ld * es, dev, (size_t)rows * es, (size_t)rows * es, (size_t)cols,
                                  cudaMemcpyDeviceToHost, s);
}

/* Staging chunks of more than half STAGE_CHUNK take all the caller's threads; smaller copies
 * a thread a COPY_SHARE bytes. Measured with OpenMP's default waiting (H200 host, 16 cores, pageable
 * 30-column solves): at order 1024 (one 8 MB copy of A) 1.9 ms with 4 threads, 8 ms with 8 and
 * 8-12 ms with 16 (2.0 with OMP_WAIT_POLICY=passive): the workers left spinning starved the
 * CUDA calls that follow; at 4096 (16 MB chunks) 8.5 ms with 16 threads, 12.6-13.7 with 8. */
constexpr size_t COPY_SHARE = (size_t)2 << 20;

void minv_host_copy(const minv_mat *src, minv_mat *dst) {
    const size_t col = (size_t)src->rows * (size_t)src->dtype, bytes = col * (size_t)src->cols;
    int team = 1;
#ifdef _OPENMP
    const int most = omp_get_max_threads();
    team = 2 * bytes > STAGE_CHUNK || bytes / COPY_SHARE >= (size_t)most ? most : (int)(bytes / COPY_SHARE);
#endif
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
    for (int64_t j = 0; j < src->cols; j++) memcpy(minv_at(dst, 0, j), minv_at(src, 0, j), col);
}

minv_status minv_gpu_stream_panels(minv_context *ctx, const minv_mat *host, int64_t panel_cols, size_t aux_bytes,
                                   minv_panel_fn work, void *user) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)host->dtype, panel_bytes = (size_t)host->rows * (size_t)panel_cols * es;
    const int nbuf = MINV_GPU_STREAMS;
    const int pinned_src = minv_host_is_pinned(host->data);
    int slots[2 * MINV_GPU_STREAMS];
    size_t bytes[2 * MINV_GPU_STREAMS];
    void *dev[2 * MINV_GPU_STREAMS], *stage[MINV_GPU_STREAMS] = {NULL};
    void **aux = dev + nbuf;
    for (int b = 0; b < nbuf; b++) {
        slots[b] = WS_PANEL + b;
        bytes[b] = panel_bytes;
        slots[nbuf + b] = WS_AUX + b;
        bytes[nbuf + b] = aux_bytes;
    }
    MINV_TRY(minv_gpu_reserve(ctx, aux_bytes ? 2 * nbuf : nbuf, slots, bytes, dev));
    if (!aux_bytes)
        for (int b = 0; b < nbuf; b++) aux[b] = NULL;
    if (!pinned_src)
        for (int b = 0; b < nbuf; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, panel_bytes, &stage[b]));
    for (int64_t j0 = 0, p = 0; j0 < host->cols; j0 += panel_cols, p++) {
        const int b = (int)(p % nbuf);
        const int64_t cols = host->cols - j0 < panel_cols ? host->cols - j0 : panel_cols;
        cudaStream_t s = g->copy[b];
        CUDA_TRY(cudaStreamSynchronize(s)); /* buffer b is free again */
        if (pinned_src) {
            CUDA_TRY(cudaMemcpy2DAsync(dev[b], (size_t)host->rows * es, minv_at(host, 0, j0), (size_t)host->ld * es,
                                       (size_t)host->rows * es, (size_t)cols, cudaMemcpyHostToDevice, s));
        } else {
            minv_mat from = {host->dtype, host->rows, cols, host->ld, minv_at(host, 0, j0)},
                     to = {host->dtype, host->rows, cols, host->rows, stage[b]};
            minv_host_copy(&from, &to);
            CUDA_TRY(cudaMemcpyAsync(dev[b], stage[b], (size_t)host->rows * (size_t)cols * es,
                                     cudaMemcpyHostToDevice, s));
        }
        ctx->moved.upload_bytes += (double)host->rows * (double)cols * (double)es;
        minv_mat panel = {host->dtype, host->rows, cols, host->rows, dev[b]};
        MINV_TRY(work(ctx, &panel, j0, s, b, aux[b], user));
        minv_progress(ctx, "stream", (double)(j0 + cols) / (double)host->cols);
    }
    for (int b = 0; b < nbuf; b++) CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
cleanup:
    return status;
}
