// Blocked Gauss-Jordan elimination with partial pivoting on the GPU (the many-RHS paper's
// Algorithm 1; src_c/cpu/gauss_jordan.c is the CPU half). As the paper argues, the matrix
// lives row-major on the device, so a row interchange moves whole contiguous rows: the buffer
// holds A^T column-major, and every logical row operation on A is a column operation on it.
// Per block column K of width w:
//   GETRF of the panel A[k0:n, K] (transposed into a column-major scratch, on a side stream,
//   one step ahead of the update: the look-ahead); the interchanges, as one permutation;
//   A11^-1 from the panel's L11 U11; the pivot rows H = A11^-1 A[K, :]; one GEMM A -= P H over
//   every row, P = A[:, K] with its pivot block zero. Inverting the w x w pivot block once turns
//   the TRSMs of the textbook step into GEMMs, which run near the DGEMM rate.
// Inversion also writes block column K of the inverse, -A[:, K] A11^-1 (2 n^3 flops in all); a
// solve carries B^T beside A^T and never touches the columns of A already eliminated (n^3 +
// 2 n^2 nrhs).
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

namespace {

/* The row interchanges of one panel as one permutation: a single thread replays the
 * transpositions on cur (the original row now at each position; the identity between panels)
 * and lists, for every touched position, which original row lands there. */
__global__ void panel_permutation(const int64_t *ipiv, int64_t k0, int64_t w, int64_t *cur, int64_t *pairs) {
    for (int64_t t = 0; t < w; t++) {
        const int64_t a = k0 + t, b = k0 + ipiv[t] - 1, x = cur[a];
        cur[a] = cur[b];
        cur[b] = x;
    }
    for (int64_t t = 0; t < w; t++) {
        const int64_t a = k0 + t, b = k0 + ipiv[t] - 1;
        pairs[4 * t] = a;
        pairs[4 * t + 1] = cur[a];
        pairs[4 * t + 2] = b;
        pairs[4 * t + 3] = cur[b];
    }
    for (int64_t t = 0; t < w; t++) { /* back to the identity; repeated positions are harmless */
        cur[k0 + t] = k0 + t;
        cur[k0 + ipiv[t] - 1] = k0 + ipiv[t] - 1;
    }
}

/* Rows of A are columns of the row-major buffer v (rows storage rows): every listed column
 * goes to scratch, then comes back in its new place; all elements in parallel and coalesced,
 * where w sequential swaps per element would be latency-bound. */
template <typename T> __global__ void gather_columns(const T *v, int64_t rows, int64_t ld, const int64_t *pairs, T *tmp) {
    const int64_t s = blockIdx.y, src = pairs[2 * s + 1];
    if (src == pairs[2 * s]) return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x)
        tmp[s * rows + i] = v[i + src * ld];
}
template <typename T>
__global__ void scatter_columns(T *v, int64_t rows, int64_t ld, const int64_t *pairs, const T *tmp) {
    const int64_t s = blockIdx.y, dst = pairs[2 * s];
    if (dst == pairs[2 * s + 1]) return;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x)
        v[i + dst * ld] = tmp[s * rows + i];
}

/* out(i, dest[c]) = a(c, i): the row-major result back to column-major, its columns put in
 * place as it goes. Reads and writes are both coalesced through a shared tile. */
template <typename T>
__global__ void transpose_scatter(const T *a, int64_t n, int64_t lda, T *out, int64_t ldo, const int64_t *dest) {
    __shared__ T tile[32][33];
    const int64_t c0 = (int64_t)blockIdx.x * 32, i0 = (int64_t)blockIdx.y * 32;
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int64_t c = c0 + threadIdx.x, i = i0 + k;
        if (c < n && i < n) tile[k][threadIdx.x] = a[c + i * lda];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int64_t c = c0 + k, i = i0 + threadIdx.x;
        if (c < n && i < n) out[i + dest[c] * ldo] = tile[threadIdx.x][k];
    }
}

/* out[v] = sum_e |a[v * vstride + e * estride]| for v < count, e < len. Thread per vector:
 * coalesced when consecutive vectors are adjacent (vstride 1). */
template <typename T>
__global__ void abs_sums(const T *a, int64_t count, int64_t len, int64_t vstride, int64_t estride, double *out) {
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= count) return;
    double s = 0;
    for (int64_t e = 0; e < len; e++) s += fabs((double)a[v * vstride + e * estride]);
    out[v] = s;
}

__global__ void iota(int64_t *v, int64_t n) {
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) v[k] = k;
}

template <typename T> __global__ void fill(T *p, int64_t count, int64_t stride, T value) {
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < count) p[k * stride] = value;
}

/* One matrix row-major on the device that the elimination updates: rows x n in storage terms
 * (rows = logical columns of A or B), leading dimension ld. */
template <typename T> struct rm_view {
    T *v;
    int64_t rows, ld;
};

template <typename T> struct gj {
    minv_context *ctx;
    int64_t n, nb, count;
    T *at;         /* A^T, n x n, ld n */
    T *panel[2];   /* GETRF scratch, (n - k0) x w, ld n, alternating */
    T *p;          /* the multipliers, transposed: [A01 U11^-1; 0; L21]^T, nb x n, ld nb */
    T *h;          /* the pivot rows through L11^-1, transposed: hrows x nb, ld rows of the view */
    T *linv[2], *uinv[2]; /* L11^-1 and U11^-1, nb x nb each, of the panel of that parity */
    T *tmp;        /* interchange scratch, 2 nb x hrows */
    int64_t hrows;
    int64_t *ipiv; /* n, cuSOLVER's: 1-based within each panel */
    int64_t *cur;  /* n: the identity between panels (panel_permutation) */
    int64_t *pairs[2]; /* 4 nb each: the interchanges of the panel of that parity */
    int *info;     /* count */
    void *work, *hwork;
    size_t work_bytes, hwork_bytes;
    cudaStream_t side;
    cudaEvent_t updated[2], factored[2];
};

template <typename T> minv_status factor_panel(gj<T> *s, int64_t k) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t k0 = k * s->nb, w = s->n - k0 < s->nb ? s->n - k0 : s->nb, m = s->n - k0;
    T *pan = s->panel[k % 2];
    CUDA_TRY(cudaStreamWaitEvent(s->side, s->updated[k % 2], 0));
    minv_k_transpose<T>(s->at + k0 + k0 * s->n, w, m, s->n, pan, s->n, T(1), s->side);
    LAUNCH_TRY();
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, s->side));
    CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, m, w, minv_cuda_type((minv_dtype)sizeof(T)), pan, s->n,
                                  s->ipiv + k0, minv_cuda_type((minv_dtype)sizeof(T)), s->work, s->work_bytes, s->hwork,
                                  s->hwork_bytes, s->info + k));
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, g->stream));
    /* the interchanges as one permutation, and L11^-1, U11^-1: here, off the critical path */
    panel_permutation<<<1, 1, 0, s->side>>>(s->ipiv + k0, k0, w, s->cur, s->pairs[k % 2]);
    minv_k_set_identity<T>(s->linv[k % 2], w, w, T(1), s->side);
    minv_k_set_identity<T>(s->uinv[k % 2], w, w, T(1), s->side);
    LAUNCH_TRY();
    CUBLAS_TRY(minv_trsm(g->blas_side, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, w, w, 1.0, pan,
                    s->n, s->linv[k % 2], w));
    CUBLAS_TRY(minv_trsm(g->blas_side, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, w, w, 1.0,
                    pan, s->n, s->uinv[k % 2], w));
    CUDA_TRY(cudaEventRecord(s->factored[k % 2], s->side));
cleanup:
    cusolverDnSetStream(g->solver, g->stream);
    return status;
}

/* The interchanges of panel k (its permutation is ready) on one view. */
template <typename T> minv_status interchange(gj<T> *s, rm_view<T> v, int64_t k, int64_t w) {
    return minv_gpu_apply_interchange(s->ctx, (minv_dtype)sizeof(T), v.v, v.rows, v.ld, w, s->pairs[k % 2], s->tmp);
}

/* The elimination of block column K from one view: H1 = L11^-1 A[K, :] from the pivot rows
 * (storage columns K), every row loses P[I, :] H1 in one GEMM (P's pivot block is zero, so the
 * pivot rows are left as they are), and the pivot rows become U11^-1 H1. Storage rows [first,
 * first + firstn) go first, and `updated` is recorded after them for the look-ahead. */
template <typename T>
minv_status eliminate(gj<T> *s, int64_t k0, int64_t w, const T *linv, const T *uinv, rm_view<T> v, int64_t first,
                      int64_t firstn, cudaEvent_t updated) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n, parts[3][2] = {{first, first + firstn}, {0, first}, {first + firstn, v.rows}};
    if (v.rows > 0)
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, v.rows, w, w, 1.0, v.v + k0 * v.ld, v.ld, linv, w, 0.0,
                             s->h, v.rows));
    for (int part = 0; part < 3; part++) {
        const int64_t r0 = parts[part][0], r1 = parts[part][1];
        if (r1 > r0)
            CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, r1 - r0, n, w, -1.0, s->h + r0, v.rows, s->p, w, 1.0,
                                 v.v + r0, v.ld));
        if (part == 0 && updated) CUDA_TRY(cudaEventRecord(updated, g->stream));
    }
    if (v.rows > 0)
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, v.rows, w, w, 1.0, s->h, v.rows, uinv, w, 0.0,
                             v.v + k0 * v.ld, v.ld));
cleanup:
    return status;
}

/* The multipliers of panel K, P = [A01 U11^-1; 0; L21], stored transposed: A01 comes from the
 * row-major buffer's rows K, L21 from the factored panel. */
template <typename T> minv_status multipliers(gj<T> *s, int64_t k0, int64_t w, const T *lu, const T *uinv) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    const int64_t n = s->n, below = n - k0 - w;
    if (k0 > 0)
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, w, k0, w, 1.0, uinv, w, s->at + k0, n, 0.0, s->p, w));
    CUDA_TRY(cudaMemset2DAsync(s->p + k0 * w, (size_t)w * es, 0, (size_t)w * es, (size_t)w, g->stream));
    if (below > 0) {
        minv_k_transpose<T>(lu + w, below, w, n, s->p + (k0 + w) * w, w, T(1), g->stream);
        LAUNCH_TRY();
    }
cleanup:
    return status;
}

/* Block column K of the inverse, over the row-major buffer's rows K: -P L11^-1 for the other
 * rows (-A01 A11^-1 above, -A21 A11^-1 below) and A11^-1 = U11^-1 L11^-1 on the pivot block. */
template <typename T> minv_status inverse_columns(gj<T> *s, int64_t k0, int64_t w, const T *linv, const T *uinv) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n;
    CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, w, n, w, -1.0, linv, w, s->p, w, 0.0, s->at + k0, n));
    CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_T, w, w, w, 1.0, linv, w, uinv, w, 0.0, s->at + k0 + k0 * n, n));
cleanup:
    return status;
}

/* The whole elimination over A^T (and B^T for a solve: rhs rows, else NULL). */
template <typename T> minv_status run(gj<T> *s, T *bt, int64_t rhs) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->n, nb = s->nb;
    CUDA_TRY(cudaEventRecord(s->updated[0], g->stream));
    MINV_TRY(factor_panel<T>(s, 0));
    for (int64_t k = 0; k < s->count; k++) {
        const int64_t k0 = k * nb, w = n - k0 < nb ? n - k0 : nb, next_w = n - k0 - w < nb ? n - k0 - w : nb;
        const T *lu = s->panel[k % 2], *linv = s->linv[k % 2], *uinv = s->uinv[k % 2];
        cudaEvent_t updated = k + 1 < s->count ? s->updated[(k + 1) % 2] : NULL;
        /* a solve leaves alone the columns of A already eliminated and the panel's own */
        const rm_view<T> va = bt ? rm_view<T>{s->at + k0 + w, n - k0 - w, n} : rm_view<T>{s->at, n, n};
        CUDA_TRY(cudaStreamWaitEvent(g->stream, s->factored[k % 2], 0));
        MINV_TRY(interchange<T>(s, va, k, w));
        if (bt) MINV_TRY(interchange<T>(s, rm_view<T>{bt, rhs, rhs}, k, w));
        MINV_TRY(multipliers<T>(s, k0, w, lu, uinv));
        MINV_TRY(eliminate<T>(s, k0, w, linv, uinv, va, bt ? 0 : k0 + w, next_w, updated));
        if (updated) MINV_TRY(factor_panel<T>(s, k + 1));
        if (bt) MINV_TRY(eliminate<T>(s, k0, w, linv, uinv, rm_view<T>{bt, rhs, rhs}, 0, 0, NULL));
        else MINV_TRY(inverse_columns<T>(s, k0, w, linv, uinv));
        minv_progress(ctx, "gauss-jordan", (double)(k0 + w) / (double)n);
    }
    CUDA_TRY(cudaStreamSynchronize(g->stream));
cleanup:
    return status;
}

/* Workspace, events and the look-ahead stream for an n x n elimination with rhs rows of B^T
 * beside it (0 for an inversion). */
template <typename T> minv_status setup(minv_context *ctx, int64_t n, int64_t rhs, gj<T> *s) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->n = n;
    s->nb = ctx->block_size > 0 ? ctx->block_size : (n >= 8192 ? 512 : n >= 2048 ? 256 : 128);
    if (s->nb > n) s->nb = n;
    s->count = (n + s->nb - 1) / s->nb;
    s->hrows = rhs > n ? rhs : n;
    s->side = g->copy[MINV_GPU_STREAMS - 1];
    CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, s->nb, minv_cuda_type((minv_dtype)es), NULL,
                                             n, minv_cuda_type((minv_dtype)es), &s->work_bytes, &s->hwork_bytes));
    {
        const int64_t nb = s->nb;
        const int slots[4] = {WS_B, WS_D, WS_SOLVER, WS_SMALL};
        const size_t bytes[4] = {(size_t)n * n * es + (size_t)rhs * n * es,
                                 ((2 * (size_t)n + (size_t)s->hrows + (size_t)n) * (size_t)nb + 4 * (size_t)nb * nb +
                                  2 * (size_t)nb * (size_t)s->hrows) * es,
                                 s->work_bytes + 16,
                                 (2 * (size_t)n + 8 * (size_t)nb) * sizeof(int64_t) + (size_t)s->count * sizeof(int) + 64};
        void *p[4];
        MINV_TRY(minv_gpu_reserve(ctx, 4, slots, bytes, p));
        s->at = (T *)p[0];
        s->panel[0] = (T *)p[1];
        s->panel[1] = s->panel[0] + n * nb;
        s->p = s->panel[1] + n * nb;
        s->h = s->p + n * nb;
        s->linv[0] = s->h + s->hrows * nb;
        s->linv[1] = s->linv[0] + nb * nb;
        s->uinv[0] = s->linv[1] + nb * nb;
        s->uinv[1] = s->uinv[0] + nb * nb;
        s->tmp = s->uinv[1] + nb * nb;
        s->work = p[2];
        s->ipiv = (int64_t *)p[3];
        s->cur = s->ipiv + n;
        s->pairs[0] = s->cur + n;
        s->pairs[1] = s->pairs[0] + 4 * nb;
        s->info = (int *)(s->pairs[1] + 4 * nb);
    }
    if (s->hwork_bytes && !(s->hwork = malloc(s->hwork_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", s->hwork_bytes);
        goto cleanup;
    }
    CUDA_TRY(cudaMemsetAsync(s->info, 0, (size_t)s->count * sizeof(int), g->stream));
    iota<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(s->cur, n);
    LAUNCH_TRY();
    for (int k = 0; k < 2; k++) {
        CUDA_TRY(cudaEventCreateWithFlags(&s->updated[k], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&s->factored[k], cudaEventDisableTiming));
    }
cleanup:
    return status;
}

template <typename T> void teardown(gj<T> *s) {
    if (s->ctx) cudaStreamSynchronize(s->side);
    for (int k = 0; k < 2; k++) {
        if (s->updated[k]) cudaEventDestroy(s->updated[k]);
        if (s->factored[k]) cudaEventDestroy(s->factored[k]);
    }
    free(s->hwork);
}

/* The first panel whose GETRF met an exactly zero pivot, as SINGULAR with its column; the
 * pivots come back to the host for the column order of the inverse. */
template <typename T> minv_status check_pivots(gj<T> *s, int64_t *ipiv_host, minv_report *report) {
    minv_context *ctx = s->ctx;
    minv_status status = MINV_SUCCESS;
    int *info = (int *)malloc((size_t)s->count * sizeof(int));
    if (!info)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld panel statuses", (long long)s->count);
    CUDA_TRY(cudaMemcpy(info, s->info, (size_t)s->count * sizeof(int), cudaMemcpyDeviceToHost));
    if (ipiv_host) CUDA_TRY(cudaMemcpy(ipiv_host, s->ipiv, (size_t)s->n * sizeof(int64_t), cudaMemcpyDeviceToHost));
    for (int64_t k = 0; k < s->count; k++)
        if (info[k] > 0) {
            report->info = k * s->nb + info[k] - 1;
            status = minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based): the matrix is singular",
                               (long long)report->info + 1);
            break;
        }
cleanup:
    free(info);
    return status;
}

template <typename T>
minv_status invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    gj<T> s;
    minv_gpu_residual res;
    int64_t *host = (int64_t *)malloc(2 * (size_t)n * sizeof(int64_t)), *dest = host + n;
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    memset(&s, 0, sizeof s);
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, &res));
    MINV_TRY(setup<T>(ctx, n, 0, &s));
    minv_k_transpose<T>((const T *)a->data, n, n, a->ld, s.at, n, T(1), g->stream);
    LAUNCH_TRY();
    MINV_TRY(run<T>(&s, NULL, 0));
    MINV_TRY(check_pivots<T>(&s, host, report));
    {
        /* A^-1 = R P: undo the interchanges on the columns, last first; column c of R goes to
         * column dest[c] */
        int64_t *idx = dest; /* idx[j]: the column of R that column j of A^-1 is */
        for (int64_t j = 0; j < n; j++) idx[j] = j;
        for (int64_t t = n - 1; t >= 0; t--) {
            const int64_t p = t / s.nb * s.nb + host[t] - 1, swap = idx[t];
            idx[t] = idx[p];
            idx[p] = swap;
        }
        for (int64_t j = 0; j < n; j++) host[idx[j]] = j;
        CUDA_TRY(cudaMemcpy(s.ipiv, host, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice));
    }
    {
        dim3 grid((unsigned)((n + 31) / 32), (unsigned)((n + 31) / 32)), block(32, 8);
        transpose_scatter<T><<<grid, block, 0, g->stream>>>(s.at, n, n, (T *)x->data, x->ld, s.ipiv);
        LAUNCH_TRY();
    }
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    teardown<T>(&s);
    free(host);
    return status;
}

/* rcond bounded from the solution's and B's column 1-norms and Hager's column (row rhs - 1 of
 * B^T, of norm 1). */
template <typename T>
minv_status solve_rcond(minv_context *ctx, const minv_mat *b, const T *bt, int64_t rhs, int64_t n,
                        const minv_analysis *an, minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int slot = WS_E; /* WS_VEC holds the residual's columns of B */
    const size_t bytes = 2 * (size_t)rhs * sizeof(double);
    double *dev, *host = (double *)malloc(bytes);
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld norms", (long long)rhs);
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, (void **)&dev));
    abs_sums<T><<<(unsigned)((rhs + 127) / 128), 128, 0, g->stream>>>(bt, rhs, n, 1, rhs, dev);
    abs_sums<T><<<(unsigned)((b->cols + 127) / 128), 128, 0, g->stream>>>((const T *)b->data, b->cols, n, b->ld, 1,
                                                                         dev + rhs);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, g->stream));
    CUDA_TRY(cudaStreamSynchronize(g->stream));
    host[2 * rhs - 1] = 1;
    report->rcond = minv_rcond_lower_bound(rhs, host, host + rhs, an->norm_1);
cleanup:
    free(host);
    return status;
}

template <typename T>
minv_status solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                  minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, m = b->cols, rhs = m + 1; /* B and Hager's vector (1/n, ...) */
    gj<T> s;
    minv_gpu_residual res;
    T *bt;
    memset(&s, 0, sizeof s);
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(setup<T>(ctx, n, rhs, &s));
    bt = s.at + n * n;
    minv_k_transpose<T>((const T *)a->data, n, n, a->ld, s.at, n, T(1), g->stream);
    minv_k_transpose<T>((const T *)b->data, n, m, b->ld, bt, rhs, T(1), g->stream);
    LAUNCH_TRY();
    /* row m of B^T: Hager's vector, 1/n everywhere */
    fill<T><<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(bt + m, n, rhs, T(1) / T(n));
    LAUNCH_TRY();
    MINV_TRY(run<T>(&s, bt, rhs));
    MINV_TRY(check_pivots<T>(&s, NULL, report));
    MINV_TRY(solve_rcond<T>(ctx, b, bt, rhs, n, an, report));
    minv_k_transpose<T>(bt, m, n, rhs, (T *)x->data, x->ld, T(1), g->stream);
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
cleanup:
    teardown<T>(&s);
    return status;
}

} // namespace

minv_status minv_gpu_interchange_plan(minv_context *ctx, const int64_t *ipiv, int64_t k0, int64_t w, int64_t *cur,
                                      int64_t *pairs) {
    minv_status status = MINV_SUCCESS;
    panel_permutation<<<1, 1, 0, ctx->gpu->stream>>>(ipiv, k0, w, cur, pairs);
    LAUNCH_TRY();
cleanup:
    return status;
}

minv_status minv_gpu_apply_interchange(minv_context *ctx, minv_dtype t, void *v, int64_t rows, int64_t ld, int64_t w,
                                       const int64_t *pairs, void *tmp) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t st = ctx->gpu->stream;
    const dim3 grid((unsigned)((rows + 255) / 256 < 64 ? (rows + 255) / 256 : 64), (unsigned)(2 * w));
    if (rows == 0) return MINV_SUCCESS;
    if (t == MINV_R64) {
        gather_columns<double><<<grid, 256, 0, st>>>((const double *)v, rows, ld, pairs, (double *)tmp);
        scatter_columns<double><<<grid, 256, 0, st>>>((double *)v, rows, ld, pairs, (const double *)tmp);
    } else {
        gather_columns<float><<<grid, 256, 0, st>>>((const float *)v, rows, ld, pairs, (float *)tmp);
        scatter_columns<float><<<grid, 256, 0, st>>>((float *)v, rows, ld, pairs, (const float *)tmp);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

minv_status minv_gpu_gauss_jordan_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                         minv_report *r) {
    return a->dtype == MINV_R64 ? invert<double>(ctx, a, x, an, r) : invert<float>(ctx, a, x, an, r);
}

minv_status minv_gpu_gauss_jordan_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                        const minv_analysis *an, minv_report *r) {
    return a->dtype == MINV_R64 ? solve<double>(ctx, a, b, x, an, r) : solve<float>(ctx, a, b, x, an, r);
}
