/* Moving matrices between host and device: uploads, downloads, streamed panels, and the
 * out-of-core products and transposes built on them. */
#ifndef MINV_GPU_TRANSFER_H
#define MINV_GPU_TRANSFER_H

#include "gpu_state.h"

/* ---- transfers (transfer.cu) ---- */
/* dst = src, host matrices of one shape, column by column on the host's threads (matrices
 * this large saturate one thread's memory bandwidth). */
void minv_host_copy(const minv_mat *src, minv_mat *dst);
/* Whether p is page-locked host memory (minv's or registered by the caller). */
int minv_host_is_pinned(const void *p);
/* Whether all of [p, p + bytes) is (its first and last bytes; a registration is one range). */
int minv_host_range_pinned(const void *p, size_t bytes);
/* minv_host_register / unregister (host_memory.c) on this backend. */
minv_status minv_gpu_host_register(minv_context *ctx, void *p, size_t bytes);
minv_status minv_gpu_host_unregister(minv_context *ctx, void *p);
/* Rows [i0, i0+rows) x columns [j0, j0+cols) of a host matrix to (up) or from a dense device
 * block (ld = rows), enqueued on s. */
cudaError_t minv_gpu_copy_block(const minv_mat *host, int64_t i0, int64_t j0, int64_t rows, int64_t cols, void *dev,
                                int up, cudaStream_t s);
/* Host column-major matrix to a dense device matrix (ld = rows) and back, on the compute
 * stream; synchronous with respect to the host on return. */
minv_status minv_gpu_upload(minv_context *ctx, const minv_mat *host, void *dev);
minv_status minv_gpu_download(minv_context *ctx, const void *dev, const minv_mat *host);
/* A on the device in WS_A: reuses the analysis's upload of the same host matrix. */
minv_status minv_gpu_stage_input(minv_context *ctx, const minv_mat *host, void **dev);
/* Streams a host matrix to the device in column panels of at most panel_cols, through pinned
 * buffers and MINV_GPU_STREAMS streams so that copies overlap the work; `work` enqueues its
 * kernels for the panel (dense, ld = rows, columns j0...) on `stream`. Panels in flight at
 * once use different `buffer` indices, each with a device companion of aux_bytes (in slot
 * WS_AUX + buffer, held until the last panel's work is done, as the panels are) and the
 * pinned slot PIN_AUX + buffer, the callback's own. */
typedef minv_status (*minv_panel_fn)(minv_context *ctx, const minv_mat *panel, int64_t j0,
                                     cudaStream_t stream, int buffer, void *aux, void *user);
minv_status minv_gpu_stream_panels(minv_context *ctx, const minv_mat *host, int64_t panel_cols, size_t aux_bytes,
                                   minv_panel_fn work, void *user);

/* ---- a matrix arriving and leaving in bands (banded.cu): the backend's banded_upload and
 * banded_download (internal.h), through the pinned slots PIN_STAGE and PIN_STAGE + 1 ---- */
minv_status minv_gpu_banded_upload(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                   const minv_banded *io, void *dev, double *io_seconds);
minv_status minv_gpu_banded_download(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                     const void *dev, const minv_banded *io, double *io_seconds);

/* ---- out of core (ooc_gemm.cu, transpose.cu): n x n matrices in host memory, streamed ----
 * C-stationary tiles: a tile x tile block of C stays on the device while slabs of X (tile x
 * slab) and Y (slab x tile) stream in on one stream (or, with 4 streams, X's and Y's on two),
 * GEMMs run on another and finished tiles stream out on a third; two buffers of each let all
 * of them overlap. */
typedef struct {
    int64_t tile, slab;
    int streams; /* 3 or 4: ctx->ooc_streams */
} minv_ooc_plan;
/* The largest tiles that fit the budget for n x n matrices of type t. */
minv_status minv_gpu_ooc_plan(minv_context *ctx, minv_dtype t, int64_t n, minv_ooc_plan *plan);
/* c = alpha x y + beta s + gamma I (s may be NULL); *residual (if not NULL) = ||I - c||_F.
 * c must not be x or y; it may be s. Host memory should be pinned for full speed. */
minv_status minv_gpu_ooc_gemm(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *x, const minv_mat *y,
                              double alpha, const minv_mat *s, double beta, double gamma, minv_mat *c,
                              double *residual);
/* dst = scale src^T for square host matrices, tile by tile through the device. */
minv_status minv_gpu_ooc_transpose(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *src, double scale,
                                   minv_mat *dst);

#endif
