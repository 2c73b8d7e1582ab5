// A matrix that arrives band by band (src_c/banded.c): each band is filled by the caller (a
// file's reader, on the host's threads) into one of two pinned buffers while the other
// crosses PCIe, and the result leaves the same way, each band drained (written to the file)
// while the next comes down. A band of rows is a strided copy into the column-major device
// matrix; a band of columns a contiguous one.
#include "gpu.h"

namespace {

/* Band k's host buffer as the caller sees it. */
minv_mat band_view(const minv_banded *io, minv_dtype t, int64_t n, int64_t count, void *buf) {
    return io->by_rows ? minv_mat{t, count, n, count, buf} : minv_mat{t, n, count, n, buf};
}

cudaError_t copy_band(const minv_banded *io, minv_dtype t, int64_t n, int64_t at, int64_t count, void *dev,
                      void *buf, int up, cudaStream_t s) {
    const size_t es = (size_t)t;
    if (io->by_rows) {
        char *d = (char *)dev + (size_t)at * es;
        const size_t width = (size_t)count * es, pitch = (size_t)n * es;
        return up ? cudaMemcpy2DAsync(d, pitch, buf, width, width, (size_t)n, cudaMemcpyHostToDevice, s)
                  : cudaMemcpy2DAsync(buf, width, d, pitch, width, (size_t)n, cudaMemcpyDeviceToHost, s);
    }
    char *d = (char *)dev + (size_t)at * (size_t)n * es;
    const size_t bytes = (size_t)count * (size_t)n * es;
    return up ? cudaMemcpyAsync(d, buf, bytes, cudaMemcpyHostToDevice, s)
              : cudaMemcpyAsync(buf, d, bytes, cudaMemcpyDeviceToHost, s);
}

} // namespace

minv_status minv_gpu_banded_upload(minv_context *ctx, minv_dtype t, int64_t n, int64_t band, const minv_banded *io,
                                   void *dev, double *io_seconds) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t band_bytes = (size_t)band * (size_t)n * (size_t)t;
    const double t0 = minv_now();
    double filling = 0;
    void *buf[2];
    for (int b = 0; b < 2; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, band_bytes, &buf[b]));
    for (int64_t at = 0, k = 0; at < n; at += band, k++) {
        const int b = (int)(k % 2);
        const int64_t count = n - at < band ? n - at : band;
        CUDA_TRY(cudaStreamSynchronize(g->copy[b])); /* band k - 2 has crossed from buffer b */
        minv_mat m = band_view(io, t, n, count, buf[b]);
        const double f0 = minv_now();
        status = io->fill(io->user, at, count, &m);
        filling += minv_now() - f0;
        if (status != MINV_SUCCESS)
            goto cleanup;
        CUDA_TRY(copy_band(io, t, n, at, count, dev, buf[b], 1, g->copy[b]));
    }
    for (int b = 0; b < 2; b++) CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
    ctx->moved.upload_seconds += minv_now() - t0 - filling;
    ctx->moved.upload_bytes += (double)n * (double)n * (double)t;
cleanup:
    for (int b = 0; b < 2; b++) cudaStreamSynchronize(g->copy[b]); /* no copy outlives a failure */
    *io_seconds += filling;
    return status;
}

minv_status minv_gpu_banded_download(minv_context *ctx, minv_dtype t, int64_t n, int64_t band, const void *dev,
                                     const minv_banded *io, double *io_seconds) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t band_bytes = (size_t)band * (size_t)n * (size_t)t;
    const double t0 = minv_now();
    double draining = 0;
    void *buf[2];
    for (int b = 0; b < 2; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, band_bytes, &buf[b]));
    CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the result is complete */
    CUDA_TRY(copy_band(io, t, n, 0, band < n ? band : n, (void *)dev, buf[0], 0, g->copy[0]));
    /* band k + 1 comes down into the other buffer while band k is drained */
    for (int64_t at = 0, k = 0; at < n; at += band, k++) {
        const int b = (int)(k % 2);
        const int64_t count = n - at < band ? n - at : band, next = at + band;
        if (next < n)
            CUDA_TRY(copy_band(io, t, n, next, n - next < band ? n - next : band, (void *)dev, buf[1 - b], 0,
                               g->copy[1 - b]));
        CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
        const minv_mat m = band_view(io, t, n, count, buf[b]);
        const double d0 = minv_now();
        status = io->drain(io->user, at, count, &m);
        draining += minv_now() - d0;
        if (status != MINV_SUCCESS)
            goto cleanup;
    }
    ctx->moved.download_seconds += minv_now() - t0 - draining;
    ctx->moved.download_bytes += (double)n * (double)n * (double)t;
cleanup:
    for (int b = 0; b < 2; b++) cudaStreamSynchronize(g->copy[b]);
    *io_seconds += draining;
    return status;
}
