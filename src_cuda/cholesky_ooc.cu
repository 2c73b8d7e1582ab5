// Cholesky inversion and SPD solve for matrices beyond the device budget (out of core): A, its
// factor L and the result stay in pinned host memory and pass through the GPU in panels (block
// columns, resident while they are worked on) and slabs (kb columns streamed past them), the
// copies on two streams beside the compute stream, ordered by events.
//
// Factor, left-looking: panel J (columns j0 .. j0+w, rows j0 ..) goes up, the finished columns
// left of it stream past in slabs (SYRK on its diagonal block, GEMM below it), potrf and TRSM
// finish it and it comes down. The panel buffer takes what the budget leaves beside two slabs,
// P elements, so w = P / (n - j0) widens as the rows shrink. PCIe: A up and L down once (n^2/2
// each way), plus the slabs' re-reads, sum_J j0 (n - j0) ~ n^4 / (12 P) up: 0.4 n^2 when P is
// a fifth of the matrix. A right-looking tiled scheme sends the trailing matrix up and down at
// every step, ~n^3 / (6 t) each way with tiles of t, and its tiles keep changing on the host.
// Inverse: X(j0:, J) = L22^-T L22^-1 [I; 0] with L22 = L(j0:, j0:), a forward and a backward
// sweep over slabs of L22, 2 (n - j0)^2 w flops, n^3 in all with the factor (the forward sweep
// skips the zeros above the identity's columns). L22 goes up twice a panel, n^4 / (4 P) in all
// (1.25 n^2 at P a fifth), and X comes down once into each triangle. Panels run left to right
// and overwrite the columns of L that no later panel reads; the transpose of a panel's rows
// below its diagonal block goes to the rows above the diagonal and the diagonal block is
// mirrored, so X is symmetric to the bit.
// Solve: the same sweeps over all of L for panels of right-hand sides, L up twice a panel.
// The host's copies between the caller's matrices and the pinned ones overlap the GPU's work:
// A's next panel goes in while a panel is factored, and a panel of X goes out while the next
// is computed.
#include <cub/block/block_reduce.cuh>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

namespace {

constexpr int THREADS = 256;

/* Events: the panel's (ready: uploaded; done: computed; free: downloaded) and two per slab
 * buffer (ready: filled; free: its last reader is done). A stream waits on an event's latest
 * record, so the order in which this file enqueues is the order that holds. */
enum { P_READY, P_DONE, P_FREE, S_READY, S_FREE = S_READY + 2, EVENTS = S_FREE + 2 };

/* One out-of-core call. */
template <typename T> struct ooc {
    minv_context *ctx;
    int64_t n, kb, panel;       /* slab width; elements of the panel buffer */
    const minv_mat *h;          /* host, pinned: A's lower triangle, then L, then X */
    T *p, *s[2];                /* device: the panel; two slabs of n x kb */
    double *colsum;             /* device: column sums of |X| (the inverse) */
    void *work;                 /* device: potrf's workspace */
    size_t work_bytes;
    int *info;
    int64_t slabs;              /* slab buffers handed out so far: the next is s[slabs % 2] */
    cudaStream_t up, down, comp;
    cudaEvent_t ev[EVENTS];
};

minv_status create_events(minv_context *ctx, cudaEvent_t *ev, int64_t count) {
    minv_status status = MINV_SUCCESS;
    for (int64_t k = 0; k < count; k++) ev[k] = NULL;
    for (int64_t k = 0; k < count; k++) CUDA_TRY(cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming));
cleanup:
    return status;
}

void destroy_events(cudaEvent_t *ev, int64_t count) {
    for (int64_t k = 0; k < count; k++)
        if (ev[k]) cudaEventDestroy(ev[k]);
}

/* Panel width at row j0, w columns of n - j0 rows in `panel` elements: all that is left when it
 * fits, else a multiple of 128 when wide, so that the panels after it start aligned. */
int64_t panel_width(int64_t n, int64_t panel, int64_t j0) {
    const int64_t h = n - j0, w = panel / h;
    return w >= h ? h : w > 128 ? w / 128 * 128 : w;
}

/* Slabs of kb columns (MINV_OPT_TILE_SIZE, else up to 512 with both slabs in an eighth of the
 * budget), the column sums, potrf's workspace for the panels' diagonal blocks, and the panel in
 * what is left: narrower panels need no more workspace, so the loop settles at once. */
template <typename T> minv_status plan(ooc<T> *o, minv_dtype t) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t n = o->n;
    const double es = (double)sizeof(T), avail = minv_gpu_available(ctx) - 8.0 * (double)n - 64;
    int64_t kb = ctx->tile_size;
    if (kb <= 0) {
        kb = (int64_t)(avail / (16.0 * (double)n * es)) / 32 * 32;
        kb = kb < 32 ? 32 : kb > 512 ? 512 : kb;
    }
    if (kb > n) kb = n;
    const double left = avail - 2.0 * (double)n * (double)kb * es;
    for (;;) {
        const double room = left - (double)o->work_bytes;
        size_t need = 0;
        o->panel = room > 0 ? (int64_t)(room / es) : 0;
        if (o->panel / n < (n < 16 ? n : 16)) {
            status = minv_fail(ctx, MINV_ERR_DEVICE_MEMORY,
                               "device budget %.3g MB is too small for out-of-core Cholesky panels of %lld rows",
                               (double)ctx->gpu->budget / 1e6, (long long)n);
            goto cleanup;
        }
        for (int64_t j0 = 0, w = 0; j0 < n; j0 += w) {
            size_t bytes;
            w = panel_width(n, o->panel, j0);
            MINV_TRY(minv_gpu_potrf_workspace(ctx, t, w, n - j0, NULL, &bytes));
            if (bytes > need) need = bytes;
        }
        if (need <= o->work_bytes) break;
        o->work_bytes = need;
    }
    o->kb = kb;
cleanup:
    return status;
}

/* The plan, its device buffers in one reservation (nothing is reserved later, so what this
 * call holds is what the plan counted) and the events. */
template <typename T> minv_status begin(minv_context *ctx, minv_dtype t, int64_t n, ooc<T> *o) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    void *p[5];
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->n = n;
    o->up = g->copy[0];
    o->down = g->copy[1];
    o->comp = g->stream;
    MINV_TRY(plan(o, t));
    {
        const int slots[5] = {WS_B, WS_C, WS_VEC, WS_SOLVER, WS_SCALAR};
        const size_t bytes[5] = {(size_t)o->panel * sizeof(T), 2 * (size_t)n * (size_t)o->kb * sizeof(T),
                                 (size_t)n * sizeof(double), o->work_bytes, 64};
        MINV_TRY(minv_gpu_reserve(ctx, 5, slots, bytes, p));
    }
    o->p = (T *)p[0];
    o->s[0] = (T *)p[1];
    o->s[1] = o->s[0] + n * o->kb;
    o->colsum = (double *)p[2];
    o->work = p[3];
    o->info = (int *)p[4];
    MINV_TRY(create_events(ctx, o->ev, EVENTS));
cleanup:
    return status;
}

/* Waits for all that was enqueued (the data are home, or the call failed) and drops the events. */
template <typename T> void end(ooc<T> *o) {
    if (!o->ctx) return;
    cudaStreamSynchronize(o->up);
    cudaStreamSynchronize(o->down);
    cudaStreamSynchronize(o->comp);
    destroy_events(o->ev, EVENTS);
}

/* How many panels, and their least and greatest widths. */
template <typename T> int64_t panel_count(const ooc<T> *o, int64_t *narrow = NULL, int64_t *wide = NULL) {
    int64_t count = 0;
    if (narrow) *narrow = o->n;
    if (wide) *wide = 0;
    for (int64_t j0 = 0, w = 0; j0 < o->n; j0 += w, count++) {
        w = panel_width(o->n, o->panel, j0);
        if (narrow && w < *narrow) *narrow = w;
        if (wide && w > *wide) *wide = w;
    }
    return count;
}

/* What the report says: the panels and the slabs. */
template <typename T> void note(const ooc<T> *o, const char *what, minv_report *report) {
    int64_t narrow, wide, count = panel_count(o, &narrow, &wide);
    minv_report_note(report,
                     "out of core: %s in pinned host memory, %lld panels of %lld to %lld columns and slabs of %lld "
                     "through a %.3g GB device budget",
                     what, (long long)count, (long long)narrow, (long long)wide, (long long)o->kb,
                     (double)o->ctx->gpu->budget / 1e9);
}

/* The panel buffer gets rows [i0, i0+rows) x columns [j0, j0+cols) of host once its last
 * download is done; comp waits for them. */
template <typename T>
minv_status panel_up(ooc<T> *o, const minv_mat *host, int64_t i0, int64_t j0, int64_t rows, int64_t cols) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    CUDA_TRY(cudaStreamWaitEvent(o->up, o->ev[P_FREE], 0));
    CUDA_TRY(minv_gpu_copy_block(host, i0, j0, rows, cols, o->p, 1, o->up));
    CUDA_TRY(cudaEventRecord(o->ev[P_READY], o->up));
    CUDA_TRY(cudaStreamWaitEvent(o->comp, o->ev[P_READY], 0));
cleanup:
    return status;
}

/* The panel goes to rows [i0, i0+rows) x columns [j0, j0+cols) of host once comp is done. */
template <typename T>
minv_status panel_down(ooc<T> *o, const minv_mat *host, int64_t i0, int64_t j0, int64_t rows, int64_t cols) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    CUDA_TRY(cudaEventRecord(o->ev[P_DONE], o->comp));
    CUDA_TRY(cudaStreamWaitEvent(o->down, o->ev[P_DONE], 0));
    CUDA_TRY(minv_gpu_copy_block(host, i0, j0, rows, cols, o->p, 0, o->down));
    CUDA_TRY(cudaEventRecord(o->ev[P_FREE], o->down));
cleanup:
    return status;
}

/* The next slab buffer, *b, gets rows [i0, n) of columns [k0, k0+kw) of L (dense, ld n - i0)
 * once its last reader is done; comp waits for them. Its user records S_FREE + *b after. */
template <typename T> minv_status slab_up(ooc<T> *o, int64_t i0, int64_t k0, int64_t kw, int *b) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    *b = (int)(o->slabs++ % 2);
    CUDA_TRY(cudaStreamWaitEvent(o->up, o->ev[S_FREE + *b], 0));
    CUDA_TRY(minv_gpu_copy_block(o->h, i0, k0, o->n - i0, kw, o->s[*b], 1, o->up));
    CUDA_TRY(cudaEventRecord(o->ev[S_READY + *b], o->up));
    CUDA_TRY(cudaStreamWaitEvent(o->comp, o->ev[S_READY + *b], 0));
cleanup:
    return status;
}

/* Columns [j0, j0+w) of the lower triangle of src, the diagonal included, into dst, on the
 * host's threads (dynamic: the columns shrink). */
void copy_lower(const minv_mat *src, const minv_mat *dst, int64_t j0, int64_t w) {
    const size_t es = (size_t)src->dtype;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t j = j0; j < j0 + w; j++) memcpy(minv_at(dst, j, j), minv_at(src, j, j), (size_t)(src->rows - j) * es);
}

/* What panel J of the inverse wrote into w (its columns from row j0 down, its rows right of its
 * diagonal block) into x, on the host's threads. */
void copy_panel(const minv_mat *w, const minv_mat *x, int64_t j0, int64_t cols) {
    const int64_t n = w->rows;
    const size_t es = (size_t)w->dtype;
#pragma omp parallel for schedule(dynamic, 16)
    for (int64_t j = j0; j < n; j++)
        memcpy(minv_at(x, j0, j), minv_at(w, j0, j), (size_t)(j < j0 + cols ? n - j0 : cols) * es);
}

/* L = the Cholesky factor of the lower triangle of a, in o->h, panel by panel. */
template <typename T> minv_status factor(ooc<T> *o, const minv_mat *a, minv_report *report) {
    minv_context *ctx = o->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = o->n;
    copy_lower(a, o->h, 0, panel_width(n, o->panel, 0));
    for (int64_t j0 = 0, w = 0; j0 < n; j0 += w) {
        const int64_t h = n - j0;
        T *const p = o->p;
        w = panel_width(n, o->panel, j0);
        /* P_FREE is also the previous panel's download: the slabs read what it wrote */
        MINV_TRY(panel_up(o, o->h, j0, j0, h, w));
        for (int64_t k0 = 0; k0 < j0; k0 += o->kb) {
            const int64_t kw = j0 - k0 < o->kb ? j0 - k0 : o->kb;
            int b;
            MINV_TRY(slab_up(o, j0, k0, kw, &b));
            const T *s = o->s[b]; /* L(j0:, K): its first w rows are L(J, K) */
            CUBLAS_TRY(minv_syrk(g->blas, CUBLAS_OP_N, w, kw, -1.0, s, h, 1.0, p, h));
            if (h > w)
                CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, h - w, w, kw, -1.0, s + w, h, s, h, 1.0, p + w, h));
            CUDA_TRY(cudaEventRecord(o->ev[S_FREE + b], o->comp));
        }
        /* the next panel's columns of A, while the GPU updates this one */
        if (j0 + w < n) copy_lower(a, o->h, j0 + w, panel_width(n, o->panel, j0 + w));
        minv_mat d = {o->h->dtype, w, w, h, p};
        MINV_TRY(minv_gpu_potrf(ctx, &d, j0, o->work, o->work_bytes, o->info, report));
        if (h > w)
            CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT,
                                 h - w, w, 1.0, p, h, p + w, h));
        MINV_TRY(panel_down(o, o->h, j0, j0, h, w));
        minv_progress(ctx, "cholesky factor", (double)(j0 + w) / (double)n);
    }
    CUDA_TRY(cudaStreamSynchronize(o->down));
cleanup:
    return status;
}

/* y = L22^-T L22^-1 y for L22 = L(j0:, j0:), y of h = n - j0 rows and `cols` columns (ld h), by
 * slabs of L22: forward from the top, then backward from the bottom. When y starts as [I; 0]
 * (identity), the rows of a slab are still zero in the columns right of its last row during
 * the forward sweep, which skips them. */
template <typename T> minv_status sweeps(ooc<T> *o, int64_t j0, T *y, int64_t cols, int identity) {
    minv_context *ctx = o->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t h = o->n - j0, kb = o->kb, count = (h + kb - 1) / kb;
    for (int64_t q = 0; q < count; q++) { /* Y_K = L_KK^-1 Y_K, then the rows below -= L(below, K) Y_K */
        const int64_t r0 = q * kb, hs = h - r0, kw = hs < kb ? hs : kb;
        const int64_t c = identity && r0 + kw < cols ? r0 + kw : cols;
        int b;
        MINV_TRY(slab_up(o, j0 + r0, j0 + r0, kw, &b));
        const T *s = o->s[b];
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, kw, c,
                             1.0, s, hs, y + r0, h));
        if (hs > kw)
            CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, hs - kw, c, kw, -1.0, s + kw, hs, y + r0, h, 1.0,
                                 y + r0 + kw, h));
        CUDA_TRY(cudaEventRecord(o->ev[S_FREE + b], o->comp));
    }
    for (int64_t q = count - 1; q >= 0; q--) { /* Y_K = L_KK^-T (Y_K - L(below, K)^T Y_below) */
        const int64_t r0 = q * kb, hs = h - r0, kw = hs < kb ? hs : kb;
        int b;
        MINV_TRY(slab_up(o, j0 + r0, j0 + r0, kw, &b));
        const T *s = o->s[b];
        if (hs > kw)
            CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, kw, cols, hs - kw, -1.0, s + kw, hs, y + r0 + kw, h,
                                 1.0, y + r0, h));
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, kw,
                             cols, 1.0, s, hs, y + r0, h));
        CUDA_TRY(cudaEventRecord(o->ev[S_FREE + b], o->comp));
    }
cleanup:
    return status;
}

/* A panel's share of the column sums of |X| (colsum from its column j0): its columns over its
 * rows, and its rows below the diagonal block over its columns, X(r, J) being X(J, r), the part
 * of column r above r's own panel. Every entry of X is counted once. */
template <typename T> __global__ void column_sums(const T *y, int64_t h, int64_t w, double *colsum) {
    typedef cub::BlockReduce<double, THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    for (int64_t c = blockIdx.x; c < w; c += gridDim.x) {
        double s = 0;
        for (int64_t r = threadIdx.x; r < h; r += THREADS) s += fabs((double)y[c * h + r]);
        s = Reduce(tmp).Sum(s);
        if (threadIdx.x == 0) colsum[c] += s;
        __syncthreads(); /* tmp is reused */
    }
}

template <typename T> __global__ void row_sums(const T *y, int64_t h, int64_t w, double *colsum) {
    const int64_t r = w + (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (r >= h) return;
    double s = 0;
    for (int64_t c = 0; c < w; c++) s += fabs((double)y[c * h + r]);
    colsum[r] += s;
}

/* The rows of panel J above the diagonal, X(J, j0+w:) = Y(w:, :)^T: transposed on comp into
 * the slab buffers, in chunks that fit them, each going home on down. */
template <typename T> minv_status upper_down(ooc<T> *o, int64_t j0, const T *y, int64_t w) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t h = o->n - j0, chunk = o->n * o->kb / w;
    for (int64_t r = w; r < h; r += chunk) {
        const int64_t rows = h - r < chunk ? h - r : chunk;
        const int b = (int)(o->slabs++ % 2);
        CUDA_TRY(cudaStreamWaitEvent(o->comp, o->ev[S_FREE + b], 0));
        minv_k_transpose<T>(y + r, rows, w, h, o->s[b], w, T(1), o->comp);
        LAUNCH_TRY();
        CUDA_TRY(cudaEventRecord(o->ev[S_READY + b], o->comp));
        CUDA_TRY(cudaStreamWaitEvent(o->down, o->ev[S_READY + b], 0));
        CUDA_TRY(minv_gpu_copy_block(o->h, j0, j0 + r, w, rows, o->s[b], 0, o->down));
        CUDA_TRY(cudaEventRecord(o->ev[S_FREE + b], o->down));
    }
cleanup:
    return status;
}

/* X = A^-1 from L in o->h, in place, both triangles, and into x unless x is NULL (o->h is X);
 * o->colsum = the column sums of |X|. Every panel is enqueued first; the host then sends each
 * to x as it comes home, while the GPU works on the next. */
template <typename T> minv_status inverse(ooc<T> *o, const minv_mat *x) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t n = o->n, count = panel_count(o);
    int64_t j0, w, k;
    cudaEvent_t *home = (cudaEvent_t *)calloc((size_t)count, sizeof *home); /* panel k is in o->h */
    if (!home)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld events", (long long)count);
    MINV_TRY(create_events(ctx, home, count));
    CUDA_TRY(cudaMemsetAsync(o->colsum, 0, (size_t)n * sizeof(double), o->comp));
    for (j0 = 0, k = 0; j0 < n; j0 += w, k++) {
        const int64_t h = n - j0;
        T *const y = o->p;
        w = panel_width(n, o->panel, j0);
        CUDA_TRY(cudaStreamWaitEvent(o->comp, o->ev[P_FREE], 0));
        CUDA_TRY(cudaMemsetAsync(y, 0, (size_t)h * (size_t)w * sizeof(T), o->comp));
        minv_k_add_diagonal<T>(y, w, h, T(1), o->comp);
        LAUNCH_TRY();
        MINV_TRY(sweeps(o, j0, y, w, 1));
        minv_k_mirror<T>(y, w, h, 1, o->comp);
        column_sums<T><<<(unsigned)(w < 65535 ? w : 65535), THREADS, 0, o->comp>>>(y, h, w, o->colsum + j0);
        if (h > w) row_sums<T><<<(unsigned)((h - w + THREADS - 1) / THREADS), THREADS, 0, o->comp>>>(y, h, w, o->colsum + j0);
        LAUNCH_TRY();
        MINV_TRY(panel_down(o, o->h, j0, j0, h, w));
        MINV_TRY(upper_down(o, j0, y, w));
        CUDA_TRY(cudaEventRecord(home[k], o->down));
    }
    for (j0 = 0, k = 0; j0 < n; j0 += w, k++) {
        w = panel_width(n, o->panel, j0);
        CUDA_TRY(cudaEventSynchronize(home[k]));
        if (x) copy_panel(o->h, x, j0, w);
        minv_progress(ctx, "cholesky invert", (double)(j0 + w) / (double)n);
    }
    CUDA_TRY(cudaStreamSynchronize(o->comp));
cleanup:
    destroy_events(home, count);
    free(home);
    return status;
}

/* Columns [c0, c0+cols) of src into dst, those below `limit` (R's last two columns, the
 * estimator's, are no column of B or X), on the host's threads. */
void copy_columns(const minv_mat *src, const minv_mat *dst, int64_t c0, int64_t cols, int64_t limit) {
    const size_t bytes = (size_t)src->rows * (size_t)src->dtype;
    const int64_t c1 = c0 + cols < limit ? c0 + cols : limit;
#pragma omp parallel for schedule(static)
    for (int64_t j = c0; j < c1; j++) memcpy(minv_at(dst, 0, j), minv_at(src, 0, j), bytes);
}

/* Panels of m right-hand sides: as few as the panel buffer allows, of balanced widths (the last
 * is no sliver that reads all of L twice for a few columns); returns the width. */
template <typename T> int64_t rhs_panels(const ooc<T> *o, int64_t m, int64_t *count) {
    const int64_t most = o->panel / o->n;
    *count = (m + most - 1) / most;
    return (m + *count - 1) / *count;
}

/* X = A^-1 B from L in o->h through r (pinned: B's columns, then the estimator's two), by
 * panels of right-hand sides. While the GPU works on a panel, the host fills the next from B
 * and sends the one before to X. */
template <typename T> minv_status solve_panels(ooc<T> *o, const minv_mat *b, const minv_mat *r, const minv_mat *x) {
    minv_context *ctx = o->ctx;
    minv_status status = MINV_SUCCESS;
    int64_t count;
    const int64_t n = o->n, m = r->cols, w = rhs_panels(o, m, &count);
    cudaEvent_t home[2]; /* home[k % 2]: panel k is in r */
    MINV_TRY(create_events(ctx, home, 2));
    copy_columns(b, r, 0, w, b->cols);
    for (int64_t k = 0; k < count; k++) {
        const int64_t c0 = k * w, cols = m - c0 < w ? m - c0 : w;
        MINV_TRY(panel_up(o, r, 0, c0, n, cols));
        MINV_TRY(sweeps(o, 0, o->p, cols, 0));
        MINV_TRY(panel_down(o, r, 0, c0, n, cols));
        CUDA_TRY(cudaEventRecord(home[k % 2], o->down));
        if (k + 1 < count) copy_columns(b, r, c0 + w, w, b->cols);
        if (k > 0) {
            CUDA_TRY(cudaEventSynchronize(home[(k - 1) % 2]));
            copy_columns(r, x, c0 - w, w, x->cols);
        }
        minv_progress(ctx, "cholesky solve", (double)(c0 + cols) / (double)m);
    }
    CUDA_TRY(cudaEventSynchronize(home[(count - 1) % 2]));
    copy_columns(r, x, (count - 1) * w, w, x->cols);
cleanup:
    destroy_events(home, 2);
    return status;
}

/* Columns m and m + 1 of r: Hager's start vector (1/n, ...) and Higham's alternating one, the
 * estimator's vectors that need no earlier solve (condition.cu runs the whole estimator in
 * core); bnorm = their 1-norms. */
template <typename T> void estimator_columns(minv_mat *r, int64_t m, double *bnorm) {
    const int64_t n = r->rows;
    T *hager = (T *)minv_at(r, 0, m), *higham = (T *)minv_at(r, 0, m + 1);
    bnorm[0] = bnorm[1] = 0;
    for (int64_t i = 0; i < n; i++) {
        hager[i] = T(1) / T(n);
        higham[i] = T((i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (double)(n > 1 ? n - 1 : 1)));
        bnorm[0] += fabs((double)hager[i]);
        bnorm[1] += fabs((double)higham[i]);
    }
}

/* rcond of a solve from below ||A^-1||_1: the estimator's two solutions, and the factor's
 * diagonal, (A^-1)_ii = ||L^-1 e_i||^2 >= 1 / l_ii^2, which catches a tiny pivot. */
template <typename T> double solve_rcond(const minv_mat *r, int64_t m, const double *bnorm, const minv_mat *l, double anorm) {
    const int64_t n = r->rows;
    double xnorm[3] = {0, 0, 0}, bn[3] = {bnorm[0], bnorm[1], 1};
    for (int64_t i = 0; i < n; i++) {
        const double d = (double)*(const T *)minv_at(l, i, i);
        xnorm[0] += fabs((double)*(const T *)minv_at(r, i, m));
        xnorm[1] += fabs((double)*(const T *)minv_at(r, i, m + 1));
        xnorm[2] = fmax(xnorm[2], 1 / (d * d));
    }
    return minv_rcond_lower_bound(3, xnorm, bn, anorm);
}

template <typename T>
minv_status invert_out_of_core(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                               minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    ooc<T> o;
    minv_probes probes = {};
    minv_mat w = *x;
    double *colsum = (double *)malloc((size_t)n * sizeof(double)), xnorm = 0;
    MINV_TRY(begin(ctx, a->dtype, n, &o));
    if (!colsum) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld column sums", (long long)n);
        goto cleanup;
    }
    if (ctx->residual_mode > 0) /* A is intact until X is written */
        MINV_TRY(minv_probes_make(ctx, a, an, &probes));
    /* X itself when it is pinned and not A (so that A outlives a failure), else the context's */
    if (x->data == a->data || !minv_host_is_pinned(x->data)) {
        void *p;
        MINV_TRY(minv_gpu_pinned(ctx, PIN_OOC, (size_t)n * (size_t)n * sizeof(T), &p));
        w = (minv_mat){a->dtype, n, n, n, p};
    }
    o.h = &w;
    note(&o, "the factor and the inverse", report);
    MINV_TRY(factor(&o, a, report));
    MINV_TRY(inverse(&o, w.data == x->data ? NULL : x));
    CUDA_TRY(cudaMemcpy(colsum, o.colsum, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < n; j++)
        if (colsum[j] > xnorm || isnan(colsum[j])) xnorm = colsum[j];
    report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0.0;
    if (ctx->residual_mode > 0) {
        report->residual = minv_residual_inverse_sampled(x, &probes);
        report->residual_kind = report->residual >= 0;
        if (ctx->residual_mode == 2) minv_report_note(report, "no full residual out of core: a sampled one");
    }
cleanup:
    end(&o);
    minv_probes_free(&probes);
    free(colsum);
    return status;
}

template <typename T>
minv_status solve_out_of_core(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, m = b->cols;
    ooc<T> o;
    void *p[2];
    minv_mat l, r;
    double bnorm[2];
    MINV_TRY(begin(ctx, a->dtype, n, &o));
    MINV_TRY(minv_gpu_pinned(ctx, PIN_OOC, (size_t)n * (size_t)n * sizeof(T), &p[0]));
    MINV_TRY(minv_gpu_pinned(ctx, PIN_OOC + 1, (size_t)n * (size_t)(m + 2) * sizeof(T), &p[1]));
    l = (minv_mat){a->dtype, n, n, n, p[0]};
    r = (minv_mat){a->dtype, n, m + 2, n, p[1]}; /* B, then the estimator's two columns */
    o.h = &l;
    note(&o, "the factor and the right-hand sides", report);
    {
        int64_t count;
        const int64_t w = rhs_panels(&o, m + 2, &count);
        minv_report_note(report, "%lld right-hand sides and the condition estimator's 2 in %lld panels of %lld",
                         (long long)m, (long long)count, (long long)w);
    }
    estimator_columns<T>(&r, m, bnorm);
    MINV_TRY(factor(&o, a, report));
    MINV_TRY(solve_panels(&o, b, &r, x));
    report->rcond = solve_rcond<T>(&r, m, bnorm, &l, an->norm_1);
    if (ctx->residual_mode > 0) {
        if (b->data == x->data) {
            minv_report_note(report, "no residual: B and X share memory");
        } else {
            minv_status rs = minv_residual_solve(ctx, ctx->residual_mode, a, b, x, &report->residual);
            report->residual_kind = rs == MINV_SUCCESS ? ctx->residual_mode : 0;
        }
    }
cleanup:
    end(&o);
    return status;
}

/* An in-core attempt found the budget too small after all: the report says so (what it
 * reserved went with its scope). */
void in_core_failed(minv_context *ctx, minv_report *report) {
    minv_report_note(report, "in core failed: %s", minv_last_error(ctx));
    minv_clear_error(ctx);
    ctx->gpu->staged_host = NULL;
}

} // namespace

minv_status minv_gpu_cholesky_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                          minv_report *report) {
    const double n = (double)a->rows;
    /* in core holds A and its inverted diagonal blocks */
    if (minv_gpu_fits(ctx, (n * n + (double)MINV_TRI_INVERSE_NB * n) * (double)a->dtype)) {
        minv_status status = minv_gpu_invert_host(ctx, minv_gpu_cholesky_invert, a, x, an, report);
        if (status != MINV_ERR_DEVICE_MEMORY)
            return status;
        in_core_failed(ctx, report);
    }
    return a->dtype == MINV_R64 ? invert_out_of_core<double>(ctx, a, x, an, report)
                                : invert_out_of_core<float>(ctx, a, x, an, report);
}

minv_status minv_gpu_cholesky_solve_host(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                         const minv_analysis *an, minv_report *report) {
    const double n = (double)a->rows;
    /* in core holds A, its factor, B and the inverted diagonal blocks */
    if (minv_gpu_fits(ctx, (2 * n * n + n * (double)b->cols + (double)MINV_TRI_SOLVE_NB * n) * (double)a->dtype)) {
        minv_status status = minv_gpu_solve_host(ctx, minv_gpu_cholesky_solve, a, b, x, an, report);
        if (status != MINV_ERR_DEVICE_MEMORY)
            return status;
        in_core_failed(ctx, report);
    }
    return a->dtype == MINV_R64 ? solve_out_of_core<double>(ctx, a, b, x, an, report)
                                : solve_out_of_core<float>(ctx, a, b, x, an, report);
}
