// Blocked Gauss-Jordan elimination with partial pivoting on one GPU or several (the many-RHS
// paper's Algorithm 1 and its section 2.3; src_c/cpu/gauss_jordan.c is the CPU half). As the
// paper argues, D = [A | B] lives row-major on the devices, so a row interchange moves whole
// contiguous rows: each device holds its columns of D transposed, column-major, and every
// logical row operation on D is a column operation there. Columns of D are dealt to the
// devices in blocks of NB, cyclically (src_c/cyclic.c). Per block column K of A, of width w:
//   its owner factors the panel A[k0:n, K] (GETRF, on a side stream, one step ahead of the
//   update: the look-ahead; beside the rest of its update, or before it where the other GPUs
//   would otherwise wait for the panel), turns the interchanges into one permutation, inverts
//   L11 and U11, forms the multipliers P = [A01 U11^-1; 0; L21], and sends these to the other
//   devices (peer-to-peer copies, overlapped with their update);
//   every device then applies the interchanges to its columns and eliminates: the pivot rows
//   through L11^-1 (H), one GEMM D -= P H over its columns, the pivot rows through U11^-1.
//   Inverting the w x w pivot block once turns the TRSMs of the textbook step into GEMMs,
//   which run near the DGEMM rate.
// Inversion also writes block column K of the inverse, -P L11^-1 with U11^-1 L11^-1 on its
// pivot block (2 n^3 flops in all); a solve never touches the columns of A already eliminated
// (n^3 + 2 n^2 nrhs).
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "interchange.cuh"

namespace {

/* The row interchanges of one panel as one permutation (interchange.cuh), by one thread. */
__global__ void panel_permutation(const int64_t *ipiv, int64_t k0, int64_t w, int64_t *cur, int64_t *pairs) {
    minv_interchange_pairs(ipiv, k0, w, cur, pairs);
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

/* out(i, dest[c]) = a(c, i) (out(i, c) where dest is NULL) for c < rows, i < cols: row-major
 * results back to column-major, their columns put in place as they go. Reads and writes are
 * both coalesced through a shared tile. */
template <typename T>
__global__ void transpose_scatter(const T *a, int64_t rows, int64_t cols, int64_t lda, T *out, int64_t ldo,
                                  const int64_t *dest) {
    __shared__ T tile[32][33];
    const int64_t c0 = (int64_t)blockIdx.x * 32, i0 = (int64_t)blockIdx.y * 32;
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int64_t c = c0 + threadIdx.x, i = i0 + k;
        if (c < rows && i < cols) tile[k][threadIdx.x] = a[c + i * lda];
    }
    __syncthreads();
    for (int k = threadIdx.y; k < 32; k += blockDim.y) {
        const int64_t c = c0 + k, i = i0 + threadIdx.x;
        if (c < rows && i < cols) out[i + (dest ? dest[c] : c) * ldo] = tile[threadIdx.x][k];
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

/* What a panel step sends to every device: its interchanges as (destination, source) pairs,
 * L11^-1 and U11^-1, and the multipliers P^T (w x n, ld w). One allocation, one copy. */
template <typename T> struct package {
    int64_t *pairs; /* 4 nb */
    T *linv, *uinv; /* nb x nb each, ld w */
    T *p;           /* nb x n */
};
size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }
template <typename T> size_t package_bytes(int64_t n, int64_t nb) {
    return aligned(4 * (size_t)nb * sizeof(int64_t) + (2 * (size_t)nb * nb + (size_t)nb * n) * sizeof(T));
}
template <typename T> package<T> package_at(void *base, int64_t nb) {
    package<T> k;
    k.pairs = (int64_t *)base;
    k.linv = (T *)(k.pairs + 4 * nb);
    k.uinv = k.linv + nb * nb;
    k.p = k.uinv + nb * nb;
    return k;
}

/* Rows of the row-major matrix that one elimination updates: rows x n column-major, ld. */
template <typename T> struct rm_view {
    T *v;
    int64_t rows, ld;
};

/* One device's share. */
template <typename T> struct gj_dev {
    minv_gpu *g;
    T *v;                 /* its columns of D, transposed: rows x n */
    int64_t rows, ld;     /* ld of v and h: rows rounded up, so that every column of the GEMMs'
                             operands starts aligned (an odd ld, as n + nrhs + 1 often is, puts
                             cuBLAS on kernels that run at about half the rate) */
    T *panel;             /* n x nb: the owner's GETRF scratch; staging for peer copies */
    void *pkg[2];         /* the package of the panel of that parity (its own or received) */
    T *h;                 /* rows x nb, ld ld */
    T *tmp;               /* interchange scratch, 2 nb x rows */
    double *norms;        /* solve: column 1-norms of X over its columns of B' */
    int64_t *ipiv, *cur;  /* n each: cuSOLVER's pivots (1-based within each panel); identity */
    int *info;            /* per block column of A */
    void *work, *hwork;
    cudaEvent_t updated[2];  /* the next panel's columns are up to date (main stream) */
    cudaEvent_t factored[2]; /* the package is ready (side stream) */
    cudaEvent_t sent[2];     /* the package has reached every other device (copy stream) */
    cudaEvent_t consumed[2]; /* the package of that parity is no longer read (main stream) */
};

template <typename T> struct gj {
    minv_context *ctx;
    minv_cyclic lay; /* lay.rhs: columns of B' (B and Hager's vector); 0 for an inversion */
    size_t pkg_bytes, work_bytes, hwork_bytes;
    gj_dev<T> dev[MINV_MAX_DEVICES];
};

/* Each device should own this many block columns of A at least; below it, fewer devices. */
const int64_t MIN_BLOCKS_PER_DEVICE = 8;

/* A pitched 2-D copy between devices (or within one): height rows of width bytes. */
cudaError_t copy_2d(void *dst, int dst_dev, size_t dpitch, const void *src, int src_dev, size_t spitch, size_t width,
                    size_t height, cudaStream_t st) {
    cudaMemcpy3DPeerParms p = {};
    p.srcPtr = make_cudaPitchedPtr((void *)src, spitch, width, height);
    p.srcDevice = src_dev;
    p.dstPtr = make_cudaPitchedPtr(dst, dpitch, width, height);
    p.dstDevice = dst_dev;
    p.extent = make_cudaExtent(width, height, 1);
    return cudaMemcpy3DPeerAsync(&p, st);
}

template <typename T> void interchange_on(T *v, int64_t rows, int64_t ld, int64_t w, const int64_t *pairs, T *tmp,
                                          cudaStream_t st) {
    const dim3 grid((unsigned)((rows + 255) / 256 < 64 ? (rows + 255) / 256 : 64), (unsigned)(2 * w));
    if (rows == 0) return;
    gather_columns<T><<<grid, 256, 0, st>>>(v, rows, ld, pairs, tmp);
    scatter_columns<T><<<grid, 256, 0, st>>>(v, rows, ld, pairs, tmp);
}

/* The owner of block column k: GETRF of its panel, the package, and its sending, all on the
 * side and copy streams so that they overlap the update of the other columns. */
template <typename T> minv_status factor_panel(gj<T> *s, int64_t k) {
    minv_context *ctx = s->ctx;
    const minv_cyclic *lay = &s->lay;
    const int o = minv_cyclic_owner(lay, k), kp = (int)(k % 2);
    gj_dev<T> *dv = &s->dev[o];
    minv_gpu *g = dv->g;
    minv_status status = MINV_SUCCESS;
    const int64_t n = lay->n, k0 = minv_cyclic_start(lay, k), w = minv_cyclic_width(lay, k), m = n - k0,
                  below = m - w, off = minv_cyclic_local(lay, k);
    const cudaStream_t side = g->copy[MINV_GPU_STREAMS - 1], send = g->copy[0];
    const package<T> pk = package_at<T>(dv->pkg[kp], lay->nb);
    const T *a01 = dv->v + off; /* rows K of the row-major A, columns 0 .. k0 */
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaStreamWaitEvent(side, dv->updated[kp], 0));
    if (lay->ndev > 1) CUDA_TRY(cudaStreamWaitEvent(side, dv->sent[kp], 0)); /* the package two panels ago */
    minv_k_transpose<T>(dv->v + off + k0 * dv->ld, w, m, dv->ld, dv->panel, n, T(1), side);
    LAUNCH_TRY();
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, side));
    CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, m, w, minv_cuda_type((minv_dtype)sizeof(T)), dv->panel,
                                  n, dv->ipiv + k0, minv_cuda_type((minv_dtype)sizeof(T)), dv->work, s->work_bytes,
                                  dv->hwork, s->hwork_bytes, dv->info + k));
    panel_permutation<<<1, 1, 0, side>>>(dv->ipiv + k0, k0, w, dv->cur, pk.pairs);
    minv_k_set_identity<T>(pk.linv, w, w, T(1), side);
    minv_k_set_identity<T>(pk.uinv, w, w, T(1), side);
    LAUNCH_TRY();
    CUBLAS_TRY(minv_trsm(g->blas_side, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, w, w, 1.0,
                         dv->panel, n, pk.linv, w));
    CUBLAS_TRY(minv_trsm(g->blas_side, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, w, w,
                         1.0, dv->panel, n, pk.uinv, w));
    /* P^T = [U11^-T A01^T, 0, L21^T]: A01 from rows K of the row-major A, L21 from the panel */
    if (k0 > 0)
        CUBLAS_TRY(minv_gemm(g->blas_side, CUBLAS_OP_T, CUBLAS_OP_N, w, k0, w, 1.0, pk.uinv, w, a01, dv->ld, 0.0,
                             pk.p, w));
    CUDA_TRY(cudaMemset2DAsync(pk.p + k0 * w, (size_t)w * sizeof(T), 0, (size_t)w * sizeof(T), (size_t)w, side));
    if (below > 0) {
        minv_k_transpose<T>(dv->panel + w, below, w, n, pk.p + (k0 + w) * w, w, T(1), side);
        LAUNCH_TRY();
    }
    CUDA_TRY(cudaEventRecord(dv->factored[kp], side));
    if (lay->ndev > 1) {
        CUDA_TRY(cudaStreamWaitEvent(send, dv->factored[kp], 0));
        for (int d = 0; d < lay->ndev; d++) {
            if (d == o) continue;
            /* the receiver no longer reads its copy of two panels ago, nor sends from it */
            CUDA_TRY(cudaStreamWaitEvent(send, s->dev[d].consumed[kp], 0));
            CUDA_TRY(cudaStreamWaitEvent(send, s->dev[d].sent[kp], 0));
            CUDA_TRY(cudaMemcpyPeerAsync(s->dev[d].pkg[kp], s->dev[d].g->device, dv->pkg[kp], g->device, s->pkg_bytes,
                                         send));
        }
        CUDA_TRY(cudaEventRecord(dv->sent[kp], send));
    }
cleanup:
    cusolverDnSetStream(g->solver, g->stream);
    return status;
}

/* The elimination of block column K from one device's view, first the pivot rows (storage
 * columns K): H1 = L11^-1 D[K, :], which then become U11^-1 H1. */
template <typename T>
minv_status eliminate_pivot_rows(gj<T> *s, gj_dev<T> *dv, int64_t k0, int64_t w, const package<T> &pk, rm_view<T> v) {
    minv_context *ctx = s->ctx;
    minv_gpu *g = dv->g;
    minv_status status = MINV_SUCCESS;
    if (v.rows > 0) {
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, v.rows, w, w, 1.0, v.v + k0 * v.ld, v.ld, pk.linv, w,
                             0.0, dv->h, dv->ld));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, v.rows, w, w, 1.0, dv->h, dv->ld, pk.uinv, w, 0.0,
                             v.v + k0 * v.ld, v.ld));
    }
cleanup:
    return status;
}

/* Then storage rows [r0, r1) lose P[I, :] H1 in one GEMM (P's pivot block is zero, so that
 * leaves the pivot rows as they are). */
template <typename T>
minv_status eliminate_rows(gj<T> *s, gj_dev<T> *dv, int64_t w, const package<T> &pk, rm_view<T> v, int64_t r0,
                           int64_t r1) {
    minv_context *ctx = s->ctx;
    minv_status status = MINV_SUCCESS;
    if (r1 > r0)
        CUBLAS_TRY(minv_gemm(dv->g->blas, CUBLAS_OP_N, CUBLAS_OP_N, r1 - r0, s->lay.n, w, -1.0, dv->h + r0, dv->ld, pk.p,
                             w, 1.0, v.v + r0, v.ld));
cleanup:
    return status;
}

/* Whether the next panel's owner should factor it alone rather than beside the rest of its
 * update. Beside a GEMM, cuSOLVER's GETRF gets few SMs and takes 2-3x its time alone (7 ms
 * against 2.5 for 16384 x 512 on an H100). One GPU loses nothing by it, but where the other
 * GPUs' step is short they would wait that long for the panel: below 1.5e11 flops a step per
 * GPU (3 ms of DGEMM), factoring it alone measured faster on two H200s (n = 16384 inversion
 * 0.149 s against 0.176, n = 8192 solve 0.051 against 0.061; no change at n = 32768). */
template <typename T> bool panel_alone(const gj<T> *s, int64_t rows, int64_t w) {
    return s->lay.ndev > 1 && 2.0 * (double)s->lay.n * (double)rows * (double)w < 1.5e11;
}

/* Block column K of the inverse, over its owner's rows K: -P L11^-1 for the other rows
 * (-A01 A11^-1 above, -A21 A11^-1 below) and A11^-1 = U11^-1 L11^-1 on the pivot block. */
template <typename T>
minv_status inverse_columns(gj<T> *s, gj_dev<T> *dv, int64_t k0, int64_t w, int64_t off, const package<T> &pk) {
    minv_context *ctx = s->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t n = s->lay.n, ld = dv->ld;
    CUBLAS_TRY(minv_gemm(dv->g->blas, CUBLAS_OP_T, CUBLAS_OP_N, w, n, w, -1.0, pk.linv, w, pk.p, w, 0.0, dv->v + off,
                         ld));
    CUBLAS_TRY(minv_gemm(dv->g->blas, CUBLAS_OP_T, CUBLAS_OP_T, w, w, w, 1.0, pk.linv, w, pk.uinv, w, 0.0,
                         dv->v + off + k0 * ld, ld));
cleanup:
    return status;
}

/* The whole elimination, every device's work queued step by step, then waited for. */
template <typename T> minv_status run(gj<T> *s) {
    minv_context *ctx = s->ctx;
    const minv_cyclic *lay = &s->lay;
    minv_status status = MINV_SUCCESS;
    const int solve = lay->rhs > 0;
    CUDA_TRY(cudaSetDevice(s->dev[0].g->device));
    CUDA_TRY(cudaEventRecord(s->dev[0].updated[0], s->dev[0].g->stream)); /* block 0 is device 0's */
    MINV_TRY(factor_panel<T>(s, 0));
    for (int64_t k = 0; k < lay->a_blocks; k++) {
        const int o = minv_cyclic_owner(lay, k), kp = (int)(k % 2);
        const int64_t k0 = minv_cyclic_start(lay, k), w = minv_cyclic_width(lay, k), next = k + 1;
        const int next_owner = next < lay->a_blocks ? minv_cyclic_owner(lay, next) : -1;
        for (int d = 0; d < lay->ndev; d++) {
            gj_dev<T> *dv = &s->dev[d];
            const cudaStream_t st = dv->g->stream;
            const package<T> pk = package_at<T>(dv->pkg[kp], lay->nb);
            /* a solve leaves alone the columns of A already eliminated and the panel's own */
            const int64_t a0 = solve ? minv_cyclic_local_from(lay, d, k + 1) : 0;
            const rm_view<T> va = {dv->v + a0, dv->rows - a0, dv->ld};
            const int64_t first = d == next_owner ? minv_cyclic_local(lay, next) - a0 : 0,
                          firstn = d == next_owner ? minv_cyclic_width(lay, next) : 0;
            CUDA_TRY(cudaSetDevice(dv->g->device));
            CUDA_TRY(cudaStreamWaitEvent(st, d == o ? dv->factored[kp] : s->dev[o].sent[kp], 0));
            interchange_on<T>(va.v, va.rows, va.ld, w, pk.pairs, dv->tmp, st);
            LAUNCH_TRY();
            MINV_TRY(eliminate_pivot_rows<T>(s, dv, k0, w, pk, va));
            /* the next panel's columns first: from there on its GETRF may read them whole (its
             * multipliers read the pivot rows too), on this device's side stream */
            MINV_TRY(eliminate_rows<T>(s, dv, w, pk, va, first, first + firstn));
            if (d == next_owner) {
                CUDA_TRY(cudaEventRecord(dv->updated[next % 2], st));
                MINV_TRY(factor_panel<T>(s, next));
                if (panel_alone<T>(s, va.rows, w)) CUDA_TRY(cudaStreamWaitEvent(st, dv->factored[next % 2], 0));
            }
            MINV_TRY(eliminate_rows<T>(s, dv, w, pk, va, 0, first));
            MINV_TRY(eliminate_rows<T>(s, dv, w, pk, va, first + firstn, va.rows));
            if (!solve && d == o) MINV_TRY(inverse_columns<T>(s, dv, k0, w, minv_cyclic_local(lay, k), pk));
            CUDA_TRY(cudaEventRecord(dv->consumed[kp], st));
        }
        minv_progress(ctx, "gauss-jordan", (double)(k0 + w) / (double)lay->n);
    }
    for (int d = 0; d < lay->ndev; d++) { /* the pivots, and every device's columns, are final */
        CUDA_TRY(cudaSetDevice(s->dev[d].g->device));
        CUDA_TRY(cudaStreamSynchronize(s->dev[d].g->stream));
    }
cleanup:
    cudaSetDevice(s->dev[0].g->device);
    return status;
}

/* The devices, their workspace, events and the layout, for an n x n elimination with rhs
 * columns of B' beside it (0 for an inversion). */
template <typename T> minv_status setup(minv_context *ctx, int64_t n, int64_t rhs, gj<T> *s) {
    minv_status status = MINV_SUCCESS;
    const size_t es = sizeof(T);
    minv_gpu *team[MINV_MAX_DEVICES] = {ctx->gpu};
    int64_t nb = ctx->block_size > 0 ? ctx->block_size : (n >= 8192 ? 512 : n >= 2048 ? 256 : 128), ndev;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    if (nb > n) nb = n;
    ndev = (n + nb - 1) / nb / MIN_BLOCKS_PER_DEVICE;
    ndev = ndev < 1 ? 1 : ndev > ctx->device_count ? ctx->device_count : ndev;
    if (ndev > 1) MINV_TRY(minv_gpu_team(ctx, team));
    minv_cyclic_init(&s->lay, n, rhs, nb, (int)ndev);
    s->pkg_bytes = package_bytes<T>(n, nb);
    CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(ctx->gpu->solver, ctx->gpu->solver_params, n, nb,
                                             minv_cuda_type((minv_dtype)es), NULL, n, minv_cuda_type((minv_dtype)es),
                                             &s->work_bytes, &s->hwork_bytes));
    for (int d = 0; d < ndev; d++) {
        gj_dev<T> *dv = &s->dev[d];
        const int64_t rows = s->lay.rows[d], ld = (rows + 31) / 32 * 32;
        const int slots[4] = {WS_B, WS_D, WS_SOLVER, WS_SMALL};
        const size_t bytes[4] = {(size_t)ld * n * es,
                                 2 * s->pkg_bytes + aligned(rows * sizeof(double)) +
                                     ((size_t)n * nb + (size_t)ld * nb + 2 * (size_t)rows * nb) * es,
                                 s->work_bytes + 16,
                                 2 * (size_t)n * sizeof(int64_t) + (size_t)s->lay.a_blocks * sizeof(int) + 64};
        void *p[4];
        dv->g = team[d];
        dv->rows = rows;
        dv->ld = ld;
        MINV_TRY(minv_gpu_reserve_on(ctx, dv->g, 4, slots, bytes, p));
        dv->v = (T *)p[0];
        dv->pkg[0] = p[1];
        dv->pkg[1] = (char *)p[1] + s->pkg_bytes;
        dv->norms = (double *)((char *)p[1] + 2 * s->pkg_bytes);
        dv->panel = (T *)((char *)dv->norms + aligned(rows * sizeof(double)));
        dv->h = dv->panel + n * nb;
        dv->tmp = dv->h + ld * nb;
        dv->work = p[2];
        dv->ipiv = (int64_t *)p[3];
        dv->cur = dv->ipiv + n;
        dv->info = (int *)(dv->cur + n);
        if (s->hwork_bytes && !(dv->hwork = malloc(s->hwork_bytes))) {
            status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", s->hwork_bytes);
            goto cleanup;
        }
        CUDA_TRY(cudaSetDevice(dv->g->device));
        CUDA_TRY(cudaMemsetAsync(dv->info, 0, (size_t)s->lay.a_blocks * sizeof(int), dv->g->stream));
        iota<<<(unsigned)((n + 255) / 256), 256, 0, dv->g->stream>>>(dv->cur, n);
        LAUNCH_TRY();
        for (int k = 0; k < 2; k++) {
            CUDA_TRY(cudaEventCreateWithFlags(&dv->updated[k], cudaEventDisableTiming));
            CUDA_TRY(cudaEventCreateWithFlags(&dv->factored[k], cudaEventDisableTiming));
            CUDA_TRY(cudaEventCreateWithFlags(&dv->sent[k], cudaEventDisableTiming));
            CUDA_TRY(cudaEventCreateWithFlags(&dv->consumed[k], cudaEventDisableTiming));
        }
    }
cleanup:
    cudaSetDevice(ctx->gpu->device);
    return status;
}

template <typename T> void teardown(gj<T> *s) {
    for (int d = 0; d < MINV_MAX_DEVICES && s->dev[d].g; d++) {
        gj_dev<T> *dv = &s->dev[d];
        cudaSetDevice(dv->g->device);
        /* a failed call may have left work queued */
        cudaStreamSynchronize(dv->g->stream);
        cudaStreamSynchronize(dv->g->copy[0]);
        cudaStreamSynchronize(dv->g->copy[MINV_GPU_STREAMS - 1]);
        for (int k = 0; k < 2; k++) {
            cudaEvent_t *events[4] = {&dv->updated[k], &dv->factored[k], &dv->sent[k], &dv->consumed[k]};
            for (int e = 0; e < 4; e++)
                if (*events[e]) cudaEventDestroy(*events[e]);
        }
        free(dv->hwork);
    }
    if (s->ctx) cudaSetDevice(s->ctx->gpu->device);
}

/* D's columns from the first device to their owners, transposed: A's block columns and then
 * B's (ld ldb; NULL for an inversion), with Hager's vector (1/n, ...) as B''s last column. */
template <typename T> minv_status distribute(gj<T> *s, const T *a, int64_t lda, const T *b, int64_t ldb) {
    minv_context *ctx = s->ctx;
    const minv_cyclic *lay = &s->lay;
    minv_status status = MINV_SUCCESS;
    const int64_t n = lay->n, m = lay->rhs - 1;
    const size_t es = sizeof(T);
    for (int64_t j = 0; j < lay->blocks; j++) {
        gj_dev<T> *dv = &s->dev[minv_cyclic_owner(lay, j)];
        const cudaStream_t st = dv->g->stream;
        const int64_t c0 = minv_cyclic_start(lay, j), w = minv_cyclic_width(lay, j), off = minv_cyclic_local(lay, j);
        const int of_a = j < lay->a_blocks;
        const int64_t cols = of_a ? w : (m - c0 < w ? m - c0 : w), ld = of_a ? lda : ldb;
        const T *src = (of_a ? a : b) + c0 * ld;
        CUDA_TRY(cudaSetDevice(dv->g->device));
        if (cols > 0 && dv == &s->dev[0]) {
            minv_k_transpose<T>(src, n, cols, ld, dv->v + off, dv->ld, T(1), st);
        } else if (cols > 0) {
            CUDA_TRY(copy_2d(dv->panel, dv->g->device, (size_t)n * es, src, s->dev[0].g->device, (size_t)ld * es,
                             (size_t)n * es, (size_t)cols, st));
            minv_k_transpose<T>(dv->panel, n, cols, n, dv->v + off, dv->ld, T(1), st);
        }
        LAUNCH_TRY();
        if (!of_a && cols < w)
            fill<T><<<(unsigned)((n + 255) / 256), 256, 0, st>>>(dv->v + off + cols, n, dv->ld, T(1) / T(n));
        LAUNCH_TRY();
    }
cleanup:
    cudaSetDevice(s->dev[0].g->device);
    return status;
}

/* The columns of the result to the first device: out(:, dest[c]) = column c of R for block
 * columns of A (dest: the inversion's column order), or out(:, c) = column c of X for those
 * of B (dest NULL), skipping Hager's. */
template <typename T> minv_status gather(gj<T> *s, T *out, int64_t ldo, const int64_t *dest) {
    minv_context *ctx = s->ctx;
    const minv_cyclic *lay = &s->lay;
    gj_dev<T> *first = &s->dev[0];
    minv_status status = MINV_SUCCESS;
    const int64_t n = lay->n, m = lay->rhs - 1;
    const size_t es = sizeof(T);
    for (int64_t j = dest ? 0 : lay->a_blocks; j < (dest ? lay->a_blocks : lay->blocks); j++) {
        gj_dev<T> *dv = &s->dev[minv_cyclic_owner(lay, j)];
        const int64_t c0 = minv_cyclic_start(lay, j), w = minv_cyclic_width(lay, j), off = minv_cyclic_local(lay, j);
        const int64_t cols = dest ? w : (m - c0 < w ? m - c0 : w);
        const T *src = dv->v + off;
        int64_t ld = dv->ld;
        if (cols <= 0) continue;
        if (dv != first) { /* the storage rows come over as they are; the transpose runs here */
            CUDA_TRY(copy_2d(first->panel, first->g->device, (size_t)cols * es, src, dv->g->device, (size_t)ld * es,
                             (size_t)cols * es, (size_t)n, first->g->stream));
            src = first->panel;
            ld = cols;
        }
        dim3 grid((unsigned)((cols + 31) / 32), (unsigned)((n + 31) / 32)), block(32, 8);
        transpose_scatter<T><<<grid, block, 0, first->g->stream>>>(src, cols, n, ld, dest ? out : out + c0 * ldo, ldo,
                                                                    dest ? dest + c0 : NULL);
        LAUNCH_TRY();
    }
cleanup:
    return status;
}

/* The first panel whose GETRF met an exactly zero pivot, as SINGULAR with its column; the
 * pivots come back to the host (from each block's owner) for the column order of the inverse. */
template <typename T> minv_status check_pivots(gj<T> *s, int64_t *ipiv_host, minv_report *report) {
    minv_context *ctx = s->ctx;
    const minv_cyclic *lay = &s->lay;
    minv_status status = MINV_SUCCESS;
    const int64_t n = lay->n;
    int *info = (int *)malloc((size_t)lay->a_blocks * sizeof(int) * 2);
    int64_t *piv = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    if (!info || !piv) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
        goto cleanup;
    }
    for (int d = 0; d < lay->ndev; d++) {
        CUDA_TRY(cudaSetDevice(s->dev[d].g->device));
        CUDA_TRY(cudaMemcpy(info + lay->a_blocks, s->dev[d].info, (size_t)lay->a_blocks * sizeof(int),
                            cudaMemcpyDeviceToHost));
        if (ipiv_host) CUDA_TRY(cudaMemcpy(piv, s->dev[d].ipiv, (size_t)n * sizeof(int64_t), cudaMemcpyDeviceToHost));
        for (int64_t k = d; k < lay->a_blocks; k += lay->ndev) {
            const int64_t k0 = minv_cyclic_start(lay, k), w = minv_cyclic_width(lay, k);
            info[k] = info[lay->a_blocks + k];
            if (ipiv_host) memcpy(ipiv_host + k0, piv + k0, (size_t)w * sizeof(int64_t));
        }
    }
    for (int64_t k = 0; k < lay->a_blocks; k++)
        if (info[k] > 0) {
            report->info = minv_cyclic_start(lay, k) + info[k] - 1;
            status = minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based): the matrix is singular",
                               (long long)report->info + 1);
            break;
        }
cleanup:
    cudaSetDevice(s->dev[0].g->device);
    free(info);
    free(piv);
    return status;
}

/* In the report, where the work ran. */
template <typename T> void note_devices(const gj<T> *s, minv_report *report) {
    if (s->lay.ndev > 1)
        minv_report_note(report, "Gauss-Jordan over %d GPUs, columns dealt in blocks of %lld", s->lay.ndev,
                         (long long)s->lay.nb);
}

template <typename T>
minv_status invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    gj<T> s;
    minv_gpu_residual res;
    int64_t *host = (int64_t *)malloc(2 * (size_t)n * sizeof(int64_t)), *dest = host + n;
    memset(&s, 0, sizeof s);
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, &res));
    MINV_TRY(setup<T>(ctx, n, 0, &s));
    MINV_TRY(distribute<T>(&s, (const T *)a->data, a->ld, NULL, 0));
    MINV_TRY(run<T>(&s));
    MINV_TRY(check_pivots<T>(&s, host, report));
    {
        /* A^-1 = R P: undo the interchanges on the columns, last first; column c of R goes to
         * column dest[c] */
        int64_t *idx = dest; /* idx[j]: the column of R that column j of A^-1 is */
        for (int64_t j = 0; j < n; j++) idx[j] = j;
        for (int64_t t = n - 1; t >= 0; t--) {
            const int64_t p = t / s.lay.nb * s.lay.nb + host[t] - 1, swap = idx[t];
            idx[t] = idx[p];
            idx[p] = swap;
        }
        for (int64_t j = 0; j < n; j++) host[idx[j]] = j;
        CUDA_TRY(cudaMemcpyAsync(s.dev[0].ipiv, host, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
    }
    MINV_TRY(gather<T>(&s, (T *)x->data, x->ld, s.dev[0].ipiv));
    CUDA_TRY(cudaStreamSynchronize(g->stream)); /* host is read by the copy above */
    note_devices<T>(&s, report);
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    teardown<T>(&s);
    free(host);
    return status;
}

/* rcond bounded from the 1-norms of the columns of X and B' (Hager's vector last, of norm 1).
 * B's are taken before anything overwrites it (the solve may run in place). */
template <typename T> minv_status column_norms(minv_context *ctx, const T *a, int64_t count, int64_t len,
                                               int64_t vstride, int64_t estride, double *out, cudaStream_t st) {
    minv_status status = MINV_SUCCESS;
    if (count > 0) abs_sums<T><<<(unsigned)((count + 127) / 128), 128, 0, st>>>(a, count, len, vstride, estride, out);
    LAUNCH_TRY();
cleanup:
    return status;
}

template <typename T>
minv_status solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                  minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, m = b->cols, rhs = m + 1; /* B and Hager's vector (1/n, ...) */
    const int slot = WS_E;                                /* WS_VEC holds the residual's columns of B */
    const size_t bytes = (size_t)rhs * sizeof(double);
    gj<T> s;
    minv_gpu_residual res;
    double *bnorm_dev, *host = (double *)malloc(3 * (size_t)rhs * sizeof(double)), *xnorm = host, *bnorm = host + rhs,
                       *local = host + 2 * rhs;
    memset(&s, 0, sizeof s);
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld norms", (long long)rhs);
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, (void **)&bnorm_dev));
    MINV_TRY(column_norms<T>(ctx, (const T *)b->data, m, n, b->ld, 1, bnorm_dev, g->stream));
    CUDA_TRY(cudaMemcpyAsync(bnorm, bnorm_dev, (size_t)m * sizeof(double), cudaMemcpyDeviceToHost, g->stream));
    MINV_TRY(setup<T>(ctx, n, rhs, &s));
    MINV_TRY(distribute<T>(&s, (const T *)a->data, a->ld, (const T *)b->data, b->ld));
    MINV_TRY(run<T>(&s));
    MINV_TRY(check_pivots<T>(&s, NULL, report));
    for (int d = 0; d < s.lay.ndev; d++) { /* the norms of X's columns where they are */
        gj_dev<T> *dv = &s.dev[d];
        const int64_t b0 = minv_cyclic_local_from(&s.lay, d, s.lay.a_blocks);
        CUDA_TRY(cudaSetDevice(dv->g->device));
        MINV_TRY(column_norms<T>(ctx, dv->v + b0, dv->rows - b0, n, 1, dv->ld, dv->norms, dv->g->stream));
        CUDA_TRY(cudaMemcpyAsync(local, dv->norms, (size_t)(dv->rows - b0) * sizeof(double), cudaMemcpyDeviceToHost,
                                 dv->g->stream));
        CUDA_TRY(cudaStreamSynchronize(dv->g->stream));
        for (int64_t j = s.lay.a_blocks; j < s.lay.blocks; j++)
            if (minv_cyclic_owner(&s.lay, j) == d)
                memcpy(xnorm + minv_cyclic_start(&s.lay, j), local + minv_cyclic_local(&s.lay, j) - b0,
                       (size_t)minv_cyclic_width(&s.lay, j) * sizeof(double));
    }
    CUDA_TRY(cudaSetDevice(g->device));
    bnorm[m] = 1;
    report->rcond = minv_rcond_lower_bound(rhs, xnorm, bnorm, an->norm_1);
    MINV_TRY(gather<T>(&s, (T *)x->data, x->ld, NULL));
    note_devices<T>(&s, report);
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
cleanup:
    teardown<T>(&s);
    free(host);
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
    if (t == MINV_R64) interchange_on<double>((double *)v, rows, ld, w, pairs, (double *)tmp, ctx->gpu->stream);
    else interchange_on<float>((float *)v, rows, ld, w, pairs, (float *)tmp, ctx->gpu->stream);
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
