// A matrix that arrives band by band (src_c/banded.c): each band is filled by the caller (a
// file's reader, on the host's threads) into one of two pinned buffers while the other
// crosses PCIe, and the result leaves the same way, each band drained (written to the file)
// while the next comes down. A band of rows is a strided copy into the column-major device
// matrix (rows x cols, ld = rows); a band of columns a contiguous one.
#include "gpu.h"

namespace {

/* The device matrix: rows x cols, ld = rows. */
struct shape {
    minv_dtype t;
    int64_t rows, cols;
    int64_t lines(const minv_banded *io) const { return io->by_rows ? rows : cols; }
};

/* A band's host buffer as the caller sees it. */
minv_mat band_view(const minv_banded *io, shape m, int64_t count, void *buf) {
    return io->by_rows ? minv_mat{m.t, count, m.cols, count, buf} : minv_mat{m.t, m.rows, count, m.rows, buf};
}

cudaError_t copy_band(const minv_banded *io, shape m, int64_t at, int64_t count, void *dev, void *buf, int up,
                      cudaStream_t s) {
    const size_t es = (size_t)m.t;
    if (io->by_rows) {
        char *d = (char *)dev + (size_t)at * es;
        const size_t width = (size_t)count * es, pitch = (size_t)m.rows * es;
        return up ? cudaMemcpy2DAsync(d, pitch, buf, width, width, (size_t)m.cols, cudaMemcpyHostToDevice, s)
                  : cudaMemcpy2DAsync(buf, width, d, pitch, width, (size_t)m.cols, cudaMemcpyDeviceToHost, s);
    }
    char *d = (char *)dev + (size_t)at * (size_t)m.rows * es;
    const size_t bytes = (size_t)count * (size_t)m.rows * es;
    return up ? cudaMemcpyAsync(d, buf, bytes, cudaMemcpyHostToDevice, s)
              : cudaMemcpyAsync(buf, d, bytes, cudaMemcpyDeviceToHost, s);
}

/* The transfers' own time, from events around each copy: they overlap the caller's fill or
 * drain, so the report's upload and download stages give what PCIe took, not what the host
 * waited for. */
struct copy_clock {
    cudaEvent_t start[2] = {}, stop[2] = {};
    int pending[2] = {};
    double seconds = 0;
    cudaError_t init() {
        for (int b = 0; b < 2; b++) {
            cudaError_t e = cudaEventCreate(&start[b]);
            if (e == cudaSuccess) e = cudaEventCreate(&stop[b]);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    }
    /* buffer b's copy is done (its stream synchronised): its time counted */
    void settle(int b) {
        float ms = 0;
        if (pending[b] && cudaEventElapsedTime(&ms, start[b], stop[b]) == cudaSuccess) seconds += 1e-3 * ms;
        pending[b] = 0;
    }
    ~copy_clock() {
        for (int b = 0; b < 2; b++) {
            if (start[b]) cudaEventDestroy(start[b]);
            if (stop[b]) cudaEventDestroy(stop[b]);
        }
    }
};

cudaError_t timed_copy(copy_clock &clock, int b, const minv_banded *io, shape m, int64_t at, int64_t count, void *dev,
                       void *buf, int up, cudaStream_t s) {
    cudaError_t e = cudaEventRecord(clock.start[b], s);
    if (e == cudaSuccess) e = copy_band(io, m, at, count, dev, buf, up, s);
    if (e == cudaSuccess) e = cudaEventRecord(clock.stop[b], s);
    clock.pending[b] = e == cudaSuccess;
    return e;
}

} // namespace

minv_status minv_gpu_banded_upload(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                   const minv_banded *io, void *dev, double *io_seconds) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const shape m = {t, rows, cols};
    const int64_t n = m.lines(io);
    const size_t band_bytes = (size_t)band * (size_t)(rows * cols / n) * (size_t)t;
    double filling = 0;
    copy_clock clock;
    void *buf[2];
    CUDA_TRY(clock.init());
    for (int b = 0; b < 2; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, band_bytes, &buf[b]));
    for (int64_t at = 0, k = 0; at < n; at += band, k++) {
        const int b = (int)(k % 2);
        const int64_t count = n - at < band ? n - at : band;
        CUDA_TRY(cudaStreamSynchronize(g->copy[b])); /* band k - 2 has crossed from buffer b */
        clock.settle(b);
        minv_mat part = band_view(io, m, count, buf[b]);
        const double f0 = minv_now();
        status = io->fill(io->user, at, count, &part);
        filling += minv_now() - f0;
        if (status != MINV_SUCCESS)
            goto cleanup;
        CUDA_TRY(timed_copy(clock, b, io, m, at, count, dev, buf[b], 1, g->copy[b]));
    }
    for (int b = 0; b < 2; b++) {
        CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
        clock.settle(b);
    }
    ctx->moved.upload_seconds += clock.seconds;
    ctx->moved.upload_bytes += (double)rows * (double)cols * (double)t;
cleanup:
    for (int b = 0; b < 2; b++) cudaStreamSynchronize(g->copy[b]); /* no copy outlives a failure */
    *io_seconds += filling;
    return status;
}

minv_status minv_gpu_banded_download(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                     const void *dev, const minv_banded *io, double *io_seconds) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const shape m = {t, rows, cols};
    const int64_t n = m.lines(io);
    const size_t band_bytes = (size_t)band * (size_t)(rows * cols / n) * (size_t)t;
    double draining = 0;
    copy_clock clock;
    void *buf[2];
    CUDA_TRY(clock.init());
    for (int b = 0; b < 2; b++) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + b, band_bytes, &buf[b]));
    CUDA_TRY(cudaStreamSynchronize(g->stream)); /* the result is complete */
    CUDA_TRY(timed_copy(clock, 0, io, m, 0, band < n ? band : n, (void *)dev, buf[0], 0, g->copy[0]));
    /* band k + 1 comes down into the other buffer while band k is drained */
    for (int64_t at = 0, k = 0; at < n; at += band, k++) {
        const int b = (int)(k % 2);
        const int64_t count = n - at < band ? n - at : band, next = at + band;
        if (next < n)
            CUDA_TRY(timed_copy(clock, 1 - b, io, m, next, n - next < band ? n - next : band, (void *)dev, buf[1 - b], 0,
                                g->copy[1 - b]));
        CUDA_TRY(cudaStreamSynchronize(g->copy[b]));
        clock.settle(b);
        const minv_mat part = band_view(io, m, count, buf[b]);
        const double d0 = minv_now();
        status = io->drain(io->user, at, count, &part);
        draining += minv_now() - d0;
        if (status != MINV_SUCCESS)
            goto cleanup;
    }
    ctx->moved.download_seconds += clock.seconds;
    ctx->moved.download_bytes += (double)rows * (double)cols * (double)t;
cleanup:
    for (int b = 0; b < 2; b++) cudaStreamSynchronize(g->copy[b]);
    *io_seconds += draining;
    return status;
}
