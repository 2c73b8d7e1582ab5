// Out-of-core blocked Gauss-Jordan with partial pivoting, for host matrices whose in-core
// elimination (gauss_jordan.cu, tried first) does not fit the device budget. D = [A] for an
// inversion, [A | B | h] for a solve (h = Hager's vector (1/n, ...) for the rcond bound), stays
// in pinned host memory, column-major. It is the many-RHS paper's Algorithm 1 with a wide
// block: a super-panel S of W columns (as wide as the budget allows) is factored on the device,
// then every other column of D that still changes streams through once, up, through one GEMM
// of depth W, and down, in chunks of c columns on three streams so that uploads, GEMMs and
// downloads overlap. Streaming every column once per nb-wide panel instead would move W/nb
// times as much over PCIe.
//
// The algebra, for S = columns [s0, s0 + W) and Y = D[:, S] (up to date: every earlier pass
// streamed through it). GETRF of Y[s0:n, :] = P^T [L; L21] U picks each pivot among all rows
// not yet pivot rows. The paper's panel matrix
//     C = [ -Y[0:s0, :] U^-1 L^-1 ;  U^-1 L^-1 ;  -L21 L^-1 ]      (rows above S, S, below S)
// replaces Y, by TRSMs. Eliminating S's columns one after another multiplies D from the left by
// G P, where G differs from the identity in columns S only; G P must turn P Y into the unit
// columns of S, which makes G's columns S equal to C. So every other column block X becomes
//     X := P X;   H := X[S, :];   X[S, :] := 0;   X += C H.
// For an inversion C is also block column S of the result, and the "other" columns are all
// the others, the inverse's columns already made included (as in place in gauss_jordan.c);
// at the end A^-1 = R P with R what D holds, and its columns are put back in order as the
// in-core code does. A solve streams only the columns right of S and B (those left of S are
// unit columns by then), and X is what B's columns hold at the end.
//
// An inversion's checks come from what passes through the device anyway: pass 0 sees A (the
// probes' products A v for the sampled residual), the last pass sees every column of R (their
// 1-norms for rcond, R u and the row sums of |R|, u being A v in R's column order), so no
// host loop runs over the n^2 entries. A solve's come from host data.
//
// PCIe: an inversion's pass moves the n (n - W) elements outside S up and down (and S itself
// once each way), n / W passes in all, about 2 n^3 / W elements against 2 n^3 flops: the GEMM
// does 2 W / es flops for each byte that crosses in either direction, so in double the H100's
// 55 GB/s each way keeps a 50 TFLOP/s GEMM fed from W = 3600 or so.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

namespace {

enum { CHUNK_BUFFERS = 3 }; /* one uploading, one in its GEMM, one downloading */

/* The row interchanges of a super-panel on a column-major chunk (ld, cols columns), as the
 * (destination, source) pairs of minv_gpu_interchange_plan: every listed row goes to scratch
 * (count x cols), then back in its new place. Both passes read or write scratch coalesced. */
template <typename T>
__global__ void gather_rows(const T *x, int64_t cols, int64_t ld, const int64_t *pairs, int64_t count, T *tmp) {
    const int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count || pairs[2 * s] == pairs[2 * s + 1]) return;
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y) tmp[s + j * count] = x[pairs[2 * s + 1] + j * ld];
}
template <typename T>
__global__ void scatter_rows(T *x, int64_t cols, int64_t ld, const int64_t *pairs, int64_t count, const T *tmp) {
    const int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count || pairs[2 * s] == pairs[2 * s + 1]) return;
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y) x[pairs[2 * s] + j * ld] = tmp[s + j * count];
}

/* Super-panel width w and chunk width c for n rows and ncols columns of D. Elements: the
 * super-panel n w; the chunks 3 n c, with 2 w c of interchange scratch beside them; the
 * pivot block's LU (w^2) overlays the chunks while a super-panel is factored, as they are
 * idle then. The chunks get at most a quarter of the room and 512 columns (enough for the
 * GEMM's rate), the super-panel the rest: the wider it is, the less crosses PCIe. */
minv_status plan_widths(minv_context *ctx, int64_t n, int64_t ncols, size_t es, int64_t *w_out, int64_t *c_out) {
    const double room = 0.9 * minv_gpu_available(ctx) / (double)es; /* the rest: cuSOLVER, pivots */
    int64_t c = (int64_t)(room / (4.0 * CHUNK_BUFFERS * (double)n)), w;
    if (c > 512) c = 512;
    if (c > ncols) c = ncols;
    w = c > 0 ? (int64_t)((room - CHUNK_BUFFERS * (double)n * (double)c) / ((double)n + 2.0 * (double)c)) : 0;
    {
        const int64_t w_lu = (int64_t)((sqrt((double)n * (double)n + 4 * room) - (double)n) / 2); /* n w + w^2 */
        if (w > w_lu) w = w_lu;
    }
    if (w > n) w = n;
    if (w >= 128) w = w / 64 * 64;
    if (c >= 64) c = c / 32 * 32;
    if (w < (n < 64 ? n : 64) || c < 1)
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY,
                         "a device budget of %.3g MB is too small for out-of-core Gauss-Jordan at n = %lld",
                         (double)ctx->gpu->budget / 1e6, (long long)n);
    *w_out = w;
    *c_out = c;
    return MINV_SUCCESS;
}

template <typename T> struct ooc_gj {
    minv_context *ctx;
    minv_mat d;            /* pinned host: n x ncols, ld n */
    int64_t n, w, c;
    T *y;                  /* the super-panel, n x w, ld n; C once factored */
    T *buf[CHUNK_BUFFERS]; /* chunks of D, n x c each; the pivot block's LU from buf[0] on */
    T *scratch;            /* the interchanged rows, 2 w x c; then H, w x c */
    int64_t *ipiv;         /* w, cuSOLVER's: 1-based from row s0 */
    int64_t *cur, *pairs;  /* n (the identity between uses) and 4 w: minv_gpu_interchange_plan's */
    int *info;
    void *work, *hwork;
    size_t work_bytes, hwork_bytes;
    int64_t *piv;          /* host, n: the row each pivot came from, 0-based */
    int64_t *order;        /* host, n: column j of A^-1 is column order[j] of R */
    cudaEvent_t factored;  /* C is ready and the LU copy free */
    cudaEvent_t uploaded[CHUNK_BUFFERS], updated[CHUNK_BUFFERS], home[CHUNK_BUFFERS];
    /* An inversion's checks, on the device: the probes v, A v, u (A v in R's column order), R u,
     * the row sums of |R| (for the sampled residual, when probes is set), the gemv's scratch
     * (2 n), and the 1-norms of R's columns, the maximum over each chunk of the last pass. */
    int inversion, probes;
    double *v, *av, *u, *ru, *rowabs, *tmp, *colmax;
    int64_t colmax_count;
    double *host_vec;      /* host: v, R u and the row sums, 5 n */
};

template <typename T> minv_status setup(minv_context *ctx, const minv_mat *d, int inversion, ooc_gj<T> *s) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    const cudaDataType type = minv_cuda_type((minv_dtype)es);
    const int64_t n = d->rows;
    s->ctx = ctx;
    s->d = *d;
    s->n = n;
    s->inversion = inversion;
    s->probes = inversion && ctx->residual_mode == 1;
    MINV_TRY(plan_widths(ctx, n, d->cols, es, &s->w, &s->c));
    CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, s->w, type, NULL, n, type, &s->work_bytes,
                                             &s->hwork_bytes));
    {
        const int64_t w = s->w, c = s->c;
        const double chunks = (double)CHUNK_BUFFERS * (double)n * (double)c + 2.0 * (double)w * (double)c;
        const int slots[5] = {WS_B, WS_C, WS_SOLVER, WS_SMALL, WS_VEC};
        const size_t bytes[5] = {(size_t)n * (size_t)w * es, (size_t)fmax(chunks, (double)w * (double)w) * es,
                                 s->work_bytes + 16, (size_t)(n + 5 * w) * sizeof(int64_t) + 64,
                                 (size_t)(11 * n + n / c + 2) * sizeof(double)};
        void *p[5];
        MINV_TRY(minv_gpu_reserve(ctx, inversion ? 5 : 4, slots, bytes, p)); /* a solve's checks are on the host */
        s->y = (T *)p[0];
        for (int b = 0; b < CHUNK_BUFFERS; b++) s->buf[b] = (T *)p[1] + (size_t)b * (size_t)n * (size_t)c;
        s->scratch = s->buf[CHUNK_BUFFERS - 1] + (size_t)n * (size_t)c;
        s->work = p[2];
        s->ipiv = (int64_t *)p[3];
        s->cur = s->ipiv + w;
        s->pairs = s->cur + n;
        s->info = (int *)(s->pairs + 4 * w);
        if (inversion) {
            s->v = (double *)p[4];
            s->av = s->v + 2 * n;
            s->u = s->av + 2 * n;
            s->ru = s->u + 2 * n;
            s->rowabs = s->ru + 2 * n;
            s->tmp = s->rowabs + n;
            s->colmax = s->tmp + 2 * n;
        }
    }
    if (!(s->piv = (int64_t *)malloc(2 * (size_t)n * sizeof(int64_t)))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
        goto cleanup;
    }
    s->order = s->piv + n;
    if (s->probes && !(s->host_vec = (double *)malloc(5 * (size_t)n * sizeof(double)))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate residual probes");
        goto cleanup;
    }
    if (s->hwork_bytes && !(s->hwork = malloc(s->hwork_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", s->hwork_bytes);
        goto cleanup;
    }
    CUDA_TRY(cudaEventCreateWithFlags(&s->factored, cudaEventDisableTiming));
    for (int b = 0; b < CHUNK_BUFFERS; b++) {
        CUDA_TRY(cudaEventCreateWithFlags(&s->uploaded[b], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&s->updated[b], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&s->home[b], cudaEventDisableTiming));
    }
    /* cur starts as the identity (each plan leaves it so); the pageable source is consumed
     * before the call returns, so piv may change afterwards */
    for (int64_t i = 0; i < n; i++) s->piv[i] = i;
    CUDA_TRY(cudaMemcpyAsync(s->cur, s->piv, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
    if (s->probes) { /* A v and R u accumulate chunk by chunk */
        minv_probe_vectors(s->host_vec, n, MINV_PROBES);
        CUDA_TRY(cudaMemcpyAsync(s->v, s->host_vec, 2 * (size_t)n * sizeof(double), cudaMemcpyHostToDevice, g->stream));
        CUDA_TRY(cudaMemsetAsync(s->av, 0, 2 * (size_t)n * sizeof(double), g->stream));
        CUDA_TRY(cudaMemsetAsync(s->ru, 0, 3 * (size_t)n * sizeof(double), g->stream)); /* R u, rowabs */
    }
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, g->stream)); /* every step below is on the compute stream */
cleanup:
    return status;
}

/* Waits for every stream (so that nothing still reads or writes D or the buffers), then frees. */
template <typename T> void teardown(ooc_gj<T> *s) {
    minv_gpu *g = s->ctx ? s->ctx->gpu : NULL;
    if (g) {
        cudaStreamSynchronize(g->copy[0]);
        cudaStreamSynchronize(g->copy[1]);
        cudaStreamSynchronize(g->stream);
    }
    cudaEvent_t *all[3] = {s->uploaded, s->updated, s->home};
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < CHUNK_BUFFERS; b++)
            if (all[k][b]) cudaEventDestroy(all[k][b]);
    if (s->factored) cudaEventDestroy(s->factored);
    free(s->piv);
    free(s->hwork);
    free(s->host_vec);
}

/* y += M x for both probes (x and y: n-vectors n apart; x from M's first column on) and, when
 * rowabs is not NULL, rowabs += the row sums of |M|; M is n x cols, ld n; in double. */
template <typename T>
minv_status accumulate(ooc_gj<T> *s, const T *m, int64_t cols, const double *x, double *y, double *rowabs) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n;
    const double one = 1;
    for (int k = 0; k < MINV_PROBES; k++) {
        double *sums = k == 0 && rowabs ? s->tmp + n : NULL;
        minv_k_gemv_double<T>(m, n, cols, n, x + k * n, s->tmp, sums, g->stream);
        LAUNCH_TRY();
        CUBLAS_TRY(cublasDaxpy_64(g->blas, n, &one, s->tmp, 1, y + k * n, 1));
        if (sums) CUBLAS_TRY(cublasDaxpy_64(g->blas, n, &one, sums, 1, rowabs, 1));
    }
cleanup:
    return status;
}

/* Final columns of R (n x cols from column j0 on) seen in the last pass: their largest 1-norm,
 * and R u with the row sums of |R| for the probes. */
template <typename T> minv_status check_final(ooc_gj<T> *s, const T *r, int64_t j0, int64_t cols) {
    minv_context *ctx = s->ctx;
    minv_status status = MINV_SUCCESS;
    minv_k_norm1<T>(r, s->n, cols, s->n, s->colmax + s->colmax_count++, ctx->gpu->stream);
    LAUNCH_TRY();
    if (s->probes) MINV_TRY(accumulate<T>(s, r, cols, s->u + j0, s->ru, s->rowabs));
cleanup:
    return status;
}

/* A^-1 = R P: column j of A^-1 is column order[j] of R, the interchanges undone on the
 * columns, last first, as in the in-core code. */
void column_order(const int64_t *piv, int64_t n, int64_t *order) {
    for (int64_t j = 0; j < n; j++) order[j] = j;
    for (int64_t t = n - 1; t >= 0; t--) {
        const int64_t swap = order[t];
        order[t] = order[piv[t]];
        order[piv[t]] = swap;
    }
}

/* Before the last pass of an inversion, every pivot known: u, A v in R's column order
 * (R u = A^-1 A v), and C's own checks. */
template <typename T> minv_status begin_final(ooc_gj<T> *s, int64_t s0, int64_t ws) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n;
    column_order(s->piv, n, s->order);
    if (s->probes) {
        double *u = s->host_vec, *av = u + 2 * n; /* over v's host copy, made again at the end */
        CUDA_TRY(cudaMemcpyAsync(av, s->av, 2 * (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, g->stream));
        CUDA_TRY(cudaStreamSynchronize(g->stream));
        for (int k = 0; k < MINV_PROBES; k++)
            for (int64_t j = 0; j < n; j++) u[k * n + s->order[j]] = av[k * n + j];
        CUDA_TRY(cudaMemcpyAsync(s->u, u, 2 * (size_t)n * sizeof(double), cudaMemcpyHostToDevice, g->stream));
    }
    MINV_TRY(check_final<T>(s, s->y, s0, ws));
cleanup:
    return status;
}

/* Super-panel S = [s0, s0 + ws) up, GETRF of its rows from s0 (SINGULAR with the column where a
 * pivot is exactly zero), its pivots to the host, C in place of it (then `factored` is
 * recorded), and its interchanges as pairs. */
template <typename T> minv_status factor(ooc_gj<T> *s, int64_t s0, int64_t ws, minv_report *report) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    const cudaDataType type = minv_cuda_type((minv_dtype)es);
    const int64_t n = s->n, below = n - s0 - ws;
    const cudaStream_t st = g->stream;
    T *y = s->y, *lu = s->buf[0];
    int info = 0;
    CUDA_TRY(cudaMemcpyAsync(y, minv_at(&s->d, 0, s0), (size_t)n * (size_t)ws * es, cudaMemcpyHostToDevice, st));
    if (s->probes && s0 == 0) MINV_TRY(accumulate<T>(s, y, ws, s->v, s->av, NULL)); /* A itself */
    CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, n - s0, ws, type, y + s0, n, s->ipiv, type, s->work,
                                  s->work_bytes, s->hwork, s->hwork_bytes, s->info));
    CUDA_TRY(cudaMemcpyAsync(&info, s->info, sizeof info, cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaMemcpyAsync(s->piv + s0, s->ipiv, (size_t)ws * sizeof(int64_t), cudaMemcpyDeviceToHost, st));
    CUDA_TRY(cudaStreamSynchronize(st));
    if (info > 0) {
        report->info = s0 + info - 1;
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based): the matrix is singular",
                           (long long)report->info + 1);
        goto cleanup;
    }
    for (int64_t t = 0; t < ws; t++) s->piv[s0 + t] += s0 - 1;
    /* C: the LU of the pivot block copied aside, so that its rows can become U^-1 L^-1 */
    CUDA_TRY(cudaMemcpy2DAsync(lu, (size_t)ws * es, y + s0, (size_t)n * es, (size_t)ws * es, (size_t)ws,
                               cudaMemcpyDeviceToDevice, st));
    if (s0 > 0) {
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, s0, ws,
                             1.0, lu, ws, y, n));
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, s0, ws,
                             -1.0, lu, ws, y, n));
    }
    if (below > 0)
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, below, ws,
                             -1.0, lu, ws, y + s0 + ws, n));
    minv_k_set_identity<T>(y + s0, ws, n, T(1), st);
    LAUNCH_TRY();
    CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, ws, ws, 1.0, lu,
                         ws, y + s0, n));
    CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, ws, ws, 1.0,
                         lu, ws, y + s0, n));
    CUDA_TRY(cudaEventRecord(s->factored, st));
    /* after the record, so that the first chunk's upload hides this single-thread kernel */
    MINV_TRY(minv_gpu_interchange_plan(ctx, s->ipiv, s0, ws, s->cur, s->pairs));
cleanup:
    return status;
}

/* Columns [j0, j1) of D through the device, chunk by chunk: X := P X, H := X[S], X[S] := 0,
 * X += C H (and an inversion's checks, on A in pass 0 and on R in the last). Chunk k uses
 * buffer k mod 3: its upload waits for that buffer's last download, its GEMM for its upload,
 * its download for its GEMM and checks; H and the interchange scratch serve one chunk at a
 * time, in the compute stream's order. */
template <typename T> minv_status stream_columns(ooc_gj<T> *s, int64_t s0, int64_t ws, int64_t j0, int64_t j1, int64_t *count) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    const int64_t n = s->n, npairs = 2 * ws;
    const cudaStream_t up = g->copy[0], down = g->copy[1], comp = g->stream;
    const int sees_a = s->probes && s0 == 0, sees_r = s->inversion && s0 + ws == n;
    for (int64_t j = j0; j < j1; j += s->c, (*count)++) {
        const int b = (int)(*count % CHUNK_BUFFERS);
        const int64_t cols = j1 - j < s->c ? j1 - j : s->c;
        const size_t bytes = (size_t)n * (size_t)cols * es;
        T *x = s->buf[b], *h = s->scratch;
        CUDA_TRY(cudaStreamWaitEvent(up, s->home[b], 0));
        CUDA_TRY(cudaMemcpyAsync(x, minv_at(&s->d, 0, j), bytes, cudaMemcpyHostToDevice, up));
        CUDA_TRY(cudaEventRecord(s->uploaded[b], up));
        CUDA_TRY(cudaStreamWaitEvent(comp, s->uploaded[b], 0));
        if (sees_a) MINV_TRY(accumulate<T>(s, x, cols, s->v + j, s->av, NULL));
        {
            const dim3 grid((unsigned)((npairs + 127) / 128), (unsigned)(cols < 65535 ? cols : 65535));
            gather_rows<T><<<grid, 128, 0, comp>>>(x, cols, n, s->pairs, npairs, s->scratch);
            scatter_rows<T><<<grid, 128, 0, comp>>>(x, cols, n, s->pairs, npairs, s->scratch);
            LAUNCH_TRY();
        }
        CUDA_TRY(cudaMemcpy2DAsync(h, (size_t)ws * es, x + s0, (size_t)n * es, (size_t)ws * es, (size_t)cols,
                                   cudaMemcpyDeviceToDevice, comp));
        CUDA_TRY(cudaMemset2DAsync(x + s0, (size_t)n * es, 0, (size_t)ws * es, (size_t)cols, comp));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, cols, ws, 1.0, s->y, n, h, ws, 1.0, x, n));
        if (sees_r) MINV_TRY(check_final<T>(s, x, j, cols));
        CUDA_TRY(cudaEventRecord(s->updated[b], comp));
        CUDA_TRY(cudaStreamWaitEvent(down, s->updated[b], 0));
        CUDA_TRY(cudaMemcpyAsync(minv_at(&s->d, 0, j), x, bytes, cudaMemcpyDeviceToHost, down));
        CUDA_TRY(cudaEventRecord(s->home[b], down));
    }
cleanup:
    return status;
}

/* Every pass: factor a super-panel, stream the columns it changes, wait for all of it. An
 * inversion writes C back as block column S of the result (a solve needs it no more). */
template <typename T> minv_status run(ooc_gj<T> *s, minv_report *report) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n;
    int64_t count = 0;
    for (int64_t s0 = 0; s0 < n; s0 += s->w) {
        const int64_t ws = n - s0 < s->w ? n - s0 : s->w;
        MINV_TRY(factor<T>(s, s0, ws, report));
        if (s->inversion && s0 + ws == n) MINV_TRY(begin_final<T>(s, s0, ws));
        /* the chunk buffers held the LU copy; C must be whole before it goes home */
        CUDA_TRY(cudaStreamWaitEvent(g->copy[0], s->factored, 0));
        CUDA_TRY(cudaStreamWaitEvent(g->copy[1], s->factored, 0));
        if (s->inversion) {
            CUDA_TRY(cudaMemcpyAsync(minv_at(&s->d, 0, s0), s->y, (size_t)n * (size_t)ws * sizeof(T),
                                     cudaMemcpyDeviceToHost, g->copy[1]));
            MINV_TRY(stream_columns<T>(s, s0, ws, 0, s0, &count));
            MINV_TRY(stream_columns<T>(s, s0, ws, s0 + ws, n, &count));
        } else {
            MINV_TRY(stream_columns<T>(s, s0, ws, s0 + ws, s->d.cols, &count));
        }
        /* the next super-panel reads what this pass wrote */
        CUDA_TRY(cudaStreamSynchronize(g->copy[0]));
        CUDA_TRY(cudaStreamSynchronize(g->stream));
        CUDA_TRY(cudaStreamSynchronize(g->copy[1]));
        minv_progress(ctx, "gauss-jordan", (double)(s0 + ws) / (double)n);
    }
cleanup:
    return status;
}

/* The pinned host matrix D (n x cols, ld n), cached in the context for the next call. */
minv_status pinned_d(minv_context *ctx, minv_dtype t, int64_t n, int64_t cols, minv_mat *d) {
    void *p;
    minv_status status = minv_gpu_pinned(ctx, PIN_OOC, (size_t)n * (size_t)cols * (size_t)t, &p);
    *d = (minv_mat){t, n, cols, n, p};
    return status;
}

void note_plan(minv_report *report, const minv_mat *d, int64_t w, int64_t c) {
    minv_report_note(report,
                     "out of core: super-panels of W = %lld columns, the rest of D (%.3g GB in pinned host memory) "
                     "streamed through once per super-panel in chunks of %lld columns",
                     (long long)w, (double)d->rows * (double)d->cols * (double)d->dtype / 1e9, (long long)c);
}

/* x[:, j] = R[:, order[j]], on the host's threads. */
void put_columns_back(const minv_mat *r, const int64_t *order, minv_mat *x) {
    const size_t bytes = (size_t)r->rows * (size_t)r->dtype;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < r->cols; j++) memcpy(minv_at(x, 0, j), minv_at(r, 0, order[j]), bytes);
}

/* rcond and the sampled residual from the last pass's checks, as the in-core path reports
 * them. */
template <typename T> minv_status finish_checks(ooc_gj<T> *s, const minv_analysis *an, minv_report *report) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n;
    double xnorm = 0, *colmax = (double *)malloc((size_t)s->colmax_count * sizeof(double));
    if (!colmax) return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld norms", (long long)s->colmax_count);
    CUDA_TRY(cudaMemcpyAsync(colmax, s->colmax, (size_t)s->colmax_count * sizeof(double), cudaMemcpyDeviceToHost,
                             g->stream));
    if (s->probes) /* R u and the row sums after v; v again in front (begin_final wrote u there) */
        CUDA_TRY(cudaMemcpyAsync(s->host_vec + 2 * n, s->ru, 3 * (size_t)n * sizeof(double), cudaMemcpyDeviceToHost,
                                 g->stream));
    CUDA_TRY(cudaStreamSynchronize(g->stream));
    for (int64_t k = 0; k < s->colmax_count; k++)
        if (colmax[k] > xnorm || isnan(colmax[k])) xnorm = colmax[k];
    report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
    if (s->probes) {
        const double *v = s->host_vec, *ru = v + 2 * n, *rowabs = ru + 2 * n;
        double rnorm = 0;
        minv_probe_vectors(s->host_vec, n, MINV_PROBES);
        for (int64_t i = 0; i < n; i++)
            if (rowabs[i] > rnorm || isnan(rowabs[i])) rnorm = rowabs[i];
        report->residual = minv_probe_ratio(n, MINV_PROBES, v, ru, rnorm, an->norm_inf);
        report->residual_kind = 1;
    }
cleanup:
    free(colmax);
    return status;
}

template <typename T>
minv_status invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    minv_mat d;
    ooc_gj<T> s;
    memset(&s, 0, sizeof s);
    MINV_TRY(pinned_d(ctx, a->dtype, n, n, &d));
    minv_host_copy(a, &d);
    MINV_TRY(setup<T>(ctx, &d, 1, &s));
    note_plan(report, &d, s.w, s.c);
    MINV_TRY(run<T>(&s, report));
    MINV_TRY(finish_checks<T>(&s, an, report));
    put_columns_back(&d, s.order, x);
    if (ctx->residual_mode == 2) minv_report_note(report, "no full residual out of core");
cleanup:
    teardown<T>(&s);
    return status;
}

template <typename T>
minv_status solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                  minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, m = b->cols;
    minv_mat d, bd, xh;
    ooc_gj<T> s;
    memset(&s, 0, sizeof s);
    MINV_TRY(pinned_d(ctx, a->dtype, n, n + m + 1, &d));
    bd = (minv_mat){a->dtype, n, m, n, minv_at(&d, 0, n)};
    xh = (minv_mat){a->dtype, n, m + 1, n, bd.data}; /* X and Hager's column */
    minv_host_copy(a, &d);
    minv_host_copy(b, &bd);
    for (int64_t i = 0; i < n; i++) *(T *)minv_at(&d, i, n + m) = T(1) / T(n);
    MINV_TRY(setup<T>(ctx, &d, 0, &s));
    note_plan(report, &d, s.w, s.c);
    MINV_TRY(run<T>(&s, report));
    report->rcond = minv_rcond_from_solution(b, &xh, an->norm_1);
    if (ctx->residual_mode > 0) { /* b is intact until x, which may be b, is written */
        const minv_status rs = minv_residual_solve(ctx, ctx->residual_mode, a, b, &bd, &report->residual);
        report->residual_kind = rs == MINV_SUCCESS ? ctx->residual_mode : 0;
    }
    minv_host_copy(&bd, x);
cleanup:
    teardown<T>(&s);
    return status;
}

/* After the in-core attempt ran out of device memory: why, in the report, and nothing of it
 * kept (its slots went with its scope; the analysis's upload forgotten, its failed
 * allocation's error cleared so that the next launch check does not see it). */
void leave_in_core(minv_context *ctx, minv_report *report) {
    minv_report_note(report, "in core: %s", minv_last_error(ctx));
    minv_clear_error(ctx);
    ctx->gpu->staged_host = NULL;
    cudaGetLastError();
}

} // namespace

minv_status minv_gpu_gauss_jordan_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                              const minv_analysis *an, minv_report *r) {
    minv_status status = minv_gpu_invert_host(ctx, minv_gpu_gauss_jordan_invert, a, x, an, r);
    if (status != MINV_ERR_DEVICE_MEMORY)
        return status;
    leave_in_core(ctx, r);
    return a->dtype == MINV_R64 ? invert<double>(ctx, a, x, an, r) : invert<float>(ctx, a, x, an, r);
}

minv_status minv_gpu_gauss_jordan_solve_host(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                             const minv_analysis *an, minv_report *r) {
    minv_status status = minv_gpu_solve_host(ctx, minv_gpu_gauss_jordan_solve, a, b, x, an, r);
    if (status != MINV_ERR_DEVICE_MEMORY)
        return status;
    leave_in_core(ctx, r);
    return a->dtype == MINV_R64 ? solve<double>(ctx, a, b, x, an, r) : solve<float>(ctx, a, b, x, an, r);
}
