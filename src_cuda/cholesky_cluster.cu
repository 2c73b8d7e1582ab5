// Cholesky factorisation A = L L^T (lower, in place) of one matrix of order n <= 512 in one
// thread-block cluster (cluster.cuh), in place of cuSOLVER's potrf at those orders. Right-looking
// in panels of the 32 columns a block holds, without the LU's pivot search, so that a panel's
// columns need no block barrier each:
//   - the panel's block factors its 32 x 32 diagonal block with the one warp that holds its rows,
//     then, past one barrier, each row below solves its 32 entries against it (L21 = A21 L11^-T,
//     a thread a row, in registers);
//   - one cluster barrier; then each block to the right updates its columns from their diagonal
//     down by the panel's L, A(i, c) -= L(i, :) L(c, :)^T, the panel read from its owner's shared
//     memory.
// Output as cusolverDnXpotrf's: L in the lower triangle, the strictly upper triangle untouched,
// info the order of the first leading minor that is not positive definite (0 if none), where
// the factorisation stops.
#include "cluster.cuh"

namespace cg = cooperative_groups;

namespace {

using minv_cluster::MAX_THREADS;
using minv_cluster::W;

/* A block's dynamic shared memory: its slab (W columns of n rows, the leading dimension odd so
 * that a row's entries lie in different banks), W x W scratch (the owner: the reciprocals of
 * the diagonal; the others: the panel's rows that meet their columns), and the failing order. */
template <typename T> struct chol_smem {
    int ld;
    T *slab, *scratch;
    int *info;
    __device__ chol_smem(unsigned char *base, int n) {
        ld = n | 1;
        slab = (T *)base;
        scratch = slab + (size_t)W * ld;
        info = (int *)(scratch + W * W);
    }
};

template <typename T> size_t smem_bytes(int n) { return (size_t)W * (n | 1) * sizeof(T) + W * W * sizeof(T) + sizeof(int); }

/* The panel: this block's columns, rows j0 .. n-1. Sets *s.info where a minor fails. */
template <typename T> __device__ __forceinline__ void factor_panel(const chol_smem<T> s, int n, int j0, int wp) {
    const int i = threadIdx.x, lane = i % 32, ld = s.ld;
    T *const slab = s.slab, *const dinv = s.scratch;
    __syncthreads(); /* this block's updates by the previous panels are done */
    if (i / 32 == j0 / 32) { /* the diagonal block by its warp, lane r holding row j0 + r */
        const int r = lane;
        for (int k = 0; k < wp; k++) {
            const T akk = slab[(size_t)k * ld + j0 + k]; /* the same in every lane */
            if (!(akk > T(0))) {                         /* not positive, or NaN */
                if (r == 0) *s.info = j0 + k + 1;
                break;
            }
            const T d = sqrt(akk), inv = T(1) / d;
            __syncwarp();
            if (r == k) {
                slab[(size_t)k * ld + j0 + k] = d;
                dinv[k] = inv;
            } else if (r > k && r < wp) {
                slab[(size_t)k * ld + j0 + r] *= inv;
            }
            __syncwarp();
            if (r > k && r < wp) {
                const T lrk = slab[(size_t)k * ld + j0 + r];
                for (int c = k + 1; c <= r; c++) slab[(size_t)c * ld + j0 + r] -= lrk * slab[(size_t)k * ld + j0 + c];
            }
            __syncwarp();
        }
    }
    __syncthreads();
    if (*s.info) return;
    if (i >= j0 + wp && i < n) { /* L21's row i: forward substitution with L11, in registers */
        T x[W];
#pragma unroll
        for (int k = 0; k < W; k++) x[k] = k < wp ? slab[(size_t)k * ld + i] : T(0);
#pragma unroll
        for (int k = 0; k < W; k++) {
            if (k < wp) {
                x[k] *= dinv[k];
#pragma unroll
                for (int r = k + 1; r < W; r++) x[r] -= x[k] * slab[(size_t)k * ld + j0 + r];
            }
        }
#pragma unroll
        for (int k = 0; k < W; k++)
            if (k < wp) slab[(size_t)k * ld + i] = x[k];
    }
}

/* This block's columns (c0 .., wb of them) from their diagonal down, updated by panel p. */
template <typename T>
__device__ __noinline__ void apply_panel(const chol_smem<T> s, cg::cluster_group &cluster, int n, int p, int c0, int wb) {
    const int i = threadIdx.x, j0 = p * W, wp = min(W, n - j0), ld = s.ld;
    T *const slab = s.slab, *const lc = s.scratch;
    const T *const owner = cluster.map_shared_rank(s.slab, p);
    /* out of line, the compiler is told these are this block's shared memory (shared loads) */
    __builtin_assume(__isShared(slab) && __isShared(lc));
#pragma unroll 8
    for (int e = i; e < W * W; e += (int)blockDim.x) { /* lc[k W + c] = L(c0 + c, j0 + k) */
        const int c = e % W, k = e / W;
        lc[e] = c < wb && k < wp ? owner[(size_t)k * ld + c0 + c] : T(0);
    }
    __syncthreads();
    if (i >= c0 && i < n) { /* row i: its entries of the panel's L read at once, the columns in halves */
        T l[W];
#pragma unroll
        for (int k = 0; k < W; k++) l[k] = k < wp ? owner[(size_t)k * ld + i] : T(0);
#pragma unroll
        for (int h = 0; h < W; h += W / 2) {
            T acc[W / 2];
#pragma unroll
            for (int c = 0; c < W / 2; c++) acc[c] = slab[(size_t)(h + c) * ld + i];
#pragma unroll
            for (int k = 0; k < W; k++)
#pragma unroll
                for (int c = 0; c < W / 2; c++) acc[c] -= l[k] * lc[k * W + h + c];
#pragma unroll
            for (int c = 0; c < W / 2; c++) slab[(size_t)(h + c) * ld + i] = acc[c];
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(MAX_THREADS) cholesky_cluster_kernel(T *a, int64_t lda, int n, int *info) {
    extern __shared__ __align__(16) unsigned char smem[];
    cg::cluster_group cluster = cg::this_cluster();
    const chol_smem<T> s(smem, n);
    const int ld = s.ld, i = threadIdx.x, b = (int)cluster.block_rank(), blocks = (int)cluster.num_blocks();
    const int c0 = b * W, wb = min(W, n - c0);
    int failed = 0;
    if (i < n) /* the lower triangle only: the upper one is neither read nor written */
        for (int c = 0; c < W; c++) s.slab[(size_t)c * ld + i] = c < wb && i >= c0 + c ? a[i + (c0 + c) * lda] : T(0);
    if (i == 0) *s.info = 0;
    cluster.sync(); /* every block runs before one reads another's shared memory */
    for (int p = 0; p < blocks; p++) {
        if (b == p) factor_panel(s, n, p * W, min(W, n - p * W));
        cluster.sync(); /* panel p is factored; every block is done with panel p - 1 */
        failed = *cluster.map_shared_rank(s.info, p);
        if (failed) break; /* the same in every block: potrf stops at the first failing minor */
        if (b > p) apply_panel(s, cluster, n, p, c0, wb);
    }
    cluster.sync(); /* nobody reads another block's shared memory any more */
    if (i < n)
        for (int c = 0; c < wb; c++)
            if (i >= c0 + c) a[i + (c0 + c) * lda] = s.slab[(size_t)c * ld + i];
    if (b == 0 && i == 0) *info = failed;
}

template <typename T> cudaError_t launch(minv_gpu *g, minv_mat *x, int *info, int *launched) {
    const int n = (int)x->rows, blocks = minv_cluster::blocks_for(n);
    void (*kernel)(T *, int64_t, int, int *) = cholesky_cluster_kernel<T>;
    signed char *known = &g->cluster_fits[2 * MINV_CLUSTER_CHOLESKY + (sizeof(T) == sizeof(float))][blocks];
    cudaLaunchAttribute attr;
    *launched = minv_cluster::fits(g, kernel, blocks, smem_bytes<T>(W * blocks),
                                   smem_bytes<T>(W * minv_cluster::MAX_BLOCKS), known);
    if (!*launched) return cudaSuccess;
    const cudaLaunchConfig_t cfg = minv_cluster::config(blocks, smem_bytes<T>(n), g->stream, &attr);
    return cudaLaunchKernelEx(&cfg, kernel, (T *)x->data, (int64_t)x->ld, n, info);
}

} // namespace

minv_status minv_gpu_cholesky_cluster(minv_context *ctx, minv_mat *x, int *info_dev, int *launched) {
    minv_status status = MINV_SUCCESS;
    *launched = 0;
    if (!minv_cluster::applies(x->rows) || x->rows != x->cols) return MINV_SUCCESS;
    if (x->dtype == MINV_R64) CUDA_TRY(launch<double>(ctx->gpu, x, info_dev, launched));
    else CUDA_TRY(launch<float>(ctx->gpu, x, info_dev, launched));
cleanup:
    return status;
}
