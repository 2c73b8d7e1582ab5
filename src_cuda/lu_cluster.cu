// LU with partial pivoting of one matrix of order n <= 512 in one thread-block cluster, in
// place of cuSOLVER's getrf, which spends about 2 us a column at these orders on an H100
// (0.5 ms at 256, 1.2 ms at 512: a launch or more a column). Block b holds columns
// 32 b .. 32 b + 31 in shared memory, a thread a row, and the factorisation runs right-looking
// in panels of those 32 columns:
//   - the panel's block factors it as LAPACK's getf2 does: per column a block argmax for the
//     pivot (the lowest row on ties, NaN never chosen over a number), the interchange across
//     the panel, the scaling and the rank-1 update of the panel's columns to the right: two
//     block barriers a column;
//   - one cluster barrier; then each block to the right applies the panel's interchanges to
//     its columns, solves its 32 rows of U against the panel's unit-lower block (a thread a
//     column) and updates its rows below with the panel's L, read from the owner's shared
//     memory; each block to the left applies the interchanges to its L.
// Output as cusolverDnXgetrf's: L and U in place, 1-based int64 pivots, info the first zero
// pivot's column (1-based; 0 if none), the factorisation carried on past it as LAPACK does;
// and the interchanges as one permutation, which the solves apply (lu.cu takes it from the
// pivots on the host otherwise: a read-back and a copy up).
#include <climits>
#include <type_traits>

#include <cooperative_groups.h>

#include "gpu.h"

namespace cg = cooperative_groups;

namespace {

constexpr int W = 32;          /* columns a block, and the panel width */
constexpr int MAX_THREADS = 512; /* a thread a row: n rounded up to a warp */
constexpr int WARPS = MAX_THREADS / 32;
constexpr int MAX_BLOCKS = 16; /* a non-portable cluster; 8 is the portable size */
static_assert(sizeof(((minv_gpu *)0)->lu_cluster_fits[0]) > MAX_BLOCKS,
              "minv_gpu::lu_cluster_fits has an entry for every block count");

/* The dynamic shared memory of a block, in this order: the slab (W columns of n rows), the
 * panel's unit-lower block (W x W, copied from its owner), the pivot row of a step of the
 * panel's factorisation, the pivots of this block's panel (global rows, 0-based), the
 * argmax's partial results, the owner's pivots as read for the interchanges, the first zero
 * pivot, and the rows' permutation after this block's panel (perm[i]: the row of A at row i). */
template <typename T> struct lu_smem {
    int ld; /* the slab's leading dimension: n made odd, so that a row's entries lie in
             * different banks (the interchanges read rows) */
    T *slab, *l11, *prow;
    int64_t *ipiv;
    uint2 *red_k;
    int *red_i, *swaps, *info, *perm;
    __device__ lu_smem(unsigned char *base, int n) {
        ld = n | 1;
        slab = (T *)base;
        l11 = slab + (size_t)W * ld;
        prow = l11 + W * W;
        ipiv = (int64_t *)(prow + W);
        red_k = (uint2 *)(ipiv + W);
        red_i = (int *)(red_k + WARPS);
        swaps = red_i + WARPS;
        info = swaps + W;
        perm = info + 1;
    }
};

template <typename T> size_t smem_bytes(int n) {
    return (size_t)W * (n | 1) * sizeof(T) + (W * W + W) * sizeof(T) + W * sizeof(int64_t) + WARPS * sizeof(uint2) +
           (WARPS + W + 1 + (size_t)n) * sizeof(int);
}

/* Thread-block clusters need compute capability 9.0: for older targets the kernel is empty
 * (and never launched: launch() asks the device first). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define MINV_LU_CLUSTER_CODE 1
#endif

#ifdef MINV_LU_CLUSTER_CODE
constexpr unsigned ALL_LANES = 0xffffffffu;

/* 1 / x correctly rounded, as LAPACK's getf2 forms it before scaling the column. */
__device__ __forceinline__ double reciprocal(double x) { return __drcp_rn(x); }
__device__ __forceinline__ float reciprocal(float x) { return __frcp_rn(x); }

/* Entries FROM .. W-1 of a row to shared memory, two at a time where aligned (FROM is a
 * constant: the copy unrolls to vector stores). */
template <typename T> struct pair_of;
template <> struct pair_of<double> { using type = double2; };
template <> struct pair_of<float> { using type = float2; };
template <typename T, int FROM> __device__ __forceinline__ void put_row(T *row, const T (&r)[W]) {
    using P = typename pair_of<T>::type;
    if (FROM % 2) row[FROM] = r[FROM];
#pragma unroll
    for (int c = (FROM + 1) / 2 * 2; c < W; c += 2) reinterpret_cast<P *>(row)[c / 2] = P{r[c], r[c + 1]};
}
/* r[c] -= l row[c] for c = FROM .. W-1, the row read two entries at a time where aligned. */
template <typename T, int FROM> __device__ __forceinline__ void update_row(T (&r)[W], T l, const T *row) {
    using P = typename pair_of<T>::type;
    if (FROM % 2 && FROM < W) r[FROM] -= l * row[FROM];
#pragma unroll
    for (int c = (FROM + 1) / 2 * 2; c < W; c += 2) {
        const P q = reinterpret_cast<const P *>(row)[c / 2];
        r[c] -= l * q.x;
        r[c + 1] -= l * q.y;
    }
}

/* A candidate pivot's rank as two words compared in turn, the largest first: rows that are
 * no candidates (0, 0), a NaN (1, 0), a number |x| (its bits' high word + 2, its low word):
 * the bits of non-negative doubles order as their values. A zero column: (2, 0) at most. */
__device__ __forceinline__ uint2 pivot_key(double x, bool candidate) {
    if (!candidate) return make_uint2(0u, 0u);
    if (x != x) return make_uint2(1u, 0u);
    const unsigned long long bits = (unsigned long long)__double_as_longlong(fabs(x));
    return make_uint2((unsigned)(bits >> 32) + 2u, (unsigned)bits);
}

/* The warp's largest key and, among the lanes that hold it, the lowest place: three hardware
 * warp reductions. */
__device__ __forceinline__ void warp_argmax(uint2 &key, int &place) {
    const unsigned hi = __reduce_max_sync(ALL_LANES, key.x);
    const unsigned lo = __reduce_max_sync(ALL_LANES, key.x == hi ? key.y : 0u);
    place = __reduce_min_sync(ALL_LANES, key.x == hi && key.y == lo ? place : INT_MAX);
    key = make_uint2(hi, lo);
}

/* getf2 on this block's slab, rows j0 .. n-1 of its wp columns. Each thread keeps its row of
 * the panel in registers, indexed by constants: the steps run in stretches of U, unrolled,
 * after each of which the stretch's columns, final, go to shared memory and the row shifts left
 * by U, zeros coming in (all 32 steps unrolled miss the instruction cache at every instruction:
 * 1.6 us a column, measured); in the stretch from step k0, r[c] is column c + k0. Rows are not
 * moved during the panel: each thread tracks where LAPACK's interchanges have put its row
 * (pos), and the rows go to those places at the end. A step: each warp's argmax over the rows
 * not yet pivot rows (the largest |a|, the lowest position on ties), a barrier, the warps'
 * results reduced the same way, the pivot row into shared memory, a barrier, the update of the
 * columns to the right. Warps with no row below the panel's top only meet the barriers. */
template <typename T>
__device__ __forceinline__ void factor_panel(const lu_smem<T> s, int n, int j0, int wp, const int *perm_before) {
    constexpr int U = 4; /* the steps called below */
    const int i = threadIdx.x, lane = i % 32, warp = i / 32, warps = blockDim.x / 32;
    const int ld = s.ld;
    const bool below = i >= j0 && i < n;                /* rows above the panel hold U and stay */
    const bool active = warp * 32 + 31 >= j0 && warp * 32 < n; /* the same in the warp */
    bool pivoted = !below;
    int pos = i;
    T r[W];
    __syncthreads(); /* this block's update of its slab by the previous panel is done */
#pragma unroll
    for (int c = 0; c < W; c++) r[c] = below ? s.slab[(size_t)c * ld + i] : T(0);
#pragma unroll 1
    for (int k0 = 0; k0 < wp; k0 += U) {
        /* step k0 + u, u a constant (so that r is indexed by constants) */
        const auto step = [&](auto u_const) {
            constexpr int u = decltype(u_const)::value;
            const int k = k0 + u, j = j0 + k;
            if (k >= wp) return;
            uint2 key = make_uint2(0u, 0u); /* candidates: rows not yet pivot rows */
            int at = INT_MAX;
            if (active) {
                key = pivot_key((double)r[u], !pivoted);
                at = pivoted ? INT_MAX : pos;
                warp_argmax(key, at);
            }
            if (lane == 0) {
                s.red_k[warp] = key;
                s.red_i[warp] = at;
            }
            __syncthreads();
            bool mine = false, go = false;
            if (active) {
                key = lane < warps ? s.red_k[lane] : make_uint2(0u, 0u);
                at = lane < warps ? s.red_i[lane] : INT_MAX;
                warp_argmax(key, at);
                go = key.x != 2u || key.y != 0u; /* else a zero column below the diagonal */
                mine = !pivoted && pos == at;
                if (mine) {
                    s.ipiv[k] = at;
                    if (!go && *s.info == 0) *s.info = j + 1;
                    if (go) put_row<T, u>(s.prow, r);
                }
            }
            __syncthreads();
            if (active) { /* LAPACK's interchange of rows j and at, as places */
                if (mine) {
                    pos = j;
                    pivoted = true;
                } else if (!pivoted && pos == j) {
                    pos = at;
                }
                if (go && !pivoted) {
                    const T l = r[u] * reciprocal(s.prow[u]);
                    r[u] = l;
                    update_row<T, u + 1>(r, l, s.prow);
                }
            }
        };
        step(std::integral_constant<int, 0>());
        step(std::integral_constant<int, 1>());
        step(std::integral_constant<int, 2>());
        step(std::integral_constant<int, 3>());
        if (below)
#pragma unroll
            for (int c = 0; c < U; c++)
                if (k0 + c < W) s.slab[(size_t)(k0 + c) * ld + i] = r[c];
#pragma unroll
        for (int c = 0; c + U < W; c++) r[c] = r[c + U];
#pragma unroll
        for (int c = W - U; c < W; c++) r[c] = T(0);
    }
    /* the rows to their places, and the permutation so far (perm_before: the previous panel
     * owner's, NULL for the identity) */
    const int row_of_a = i < n ? (perm_before ? perm_before[i] : i) : 0;
    __syncthreads();
    if (below)
#pragma unroll
        for (int c = 0; c < W; c++) r[c] = s.slab[(size_t)c * ld + i];
    __syncthreads();
    if (below) {
#pragma unroll
        for (int c = 0; c < W; c++) s.slab[(size_t)c * ld + pos] = r[c];
        s.perm[pos] = row_of_a;
    } else if (i < n) {
        s.perm[i] = row_of_a;
    }
}

/* The update of this block's slab (columns c0 .., wb of them) by panel p, owned by block p. */
template <typename T>
__device__ __noinline__ void apply_panel(const lu_smem<T> s, cg::cluster_group &cluster, int n, int p, int b, int wb) {
    const int i = threadIdx.x;
    const int j0 = p * W, wp = min(W, n - j0), ld = s.ld;
    T *const slab = s.slab;
    const T *const owner = cluster.map_shared_rank(s.slab, p);
    /* out of line, the compiler is told these are this block's shared memory (shared loads) */
    __builtin_assume(__isShared(slab) && __isShared(s.l11) && __isShared(s.swaps));
    if (i < wp) s.swaps[i] = (int)*cluster.map_shared_rank(s.ipiv + i, p);
    if (b > p)
#pragma unroll 8
        for (int e = i; e < W * W; e += (int)blockDim.x) {
            const int r = e % W, c = e / W;
            s.l11[e] = r < wp && c < wp ? owner[(size_t)c * ld + j0 + r] : T(0);
        }
    __syncthreads();
    if (i < wb) /* thread i applies the interchanges, in turn, to column i */
        for (int k = 0; k < wp; k++) {
            const int r = s.swaps[k];
            if (r != j0 + k) {
                const T t = slab[(size_t)i * ld + j0 + k];
                slab[(size_t)i * ld + j0 + k] = slab[(size_t)i * ld + r];
                slab[(size_t)i * ld + r] = t;
            }
        }
    __syncthreads();
    if (b < p) return;
    /* U12 = L11^-1 A12: thread c solves column c, its rows in registers, the steps unrolled
     * (each entry of L11 is read by the threads together: a broadcast) */
    if (i < wb) {
        T x[W];
#pragma unroll
        for (int r = 0; r < W; r++) x[r] = r < wp ? slab[(size_t)i * ld + j0 + r] : T(0);
#pragma unroll
        for (int k = 0; k + 1 < W; k++)
#pragma unroll
            for (int r = k + 1; r < W; r++) x[r] -= s.l11[k * W + r] * x[k];
#pragma unroll
        for (int r = 0; r < W; r++)
            if (r < wp) slab[(size_t)i * ld + j0 + r] = x[r];
    }
    __syncthreads();
    /* A22 -= L21 U12: thread i, row i; its W entries of the owner's L read at once (their
     * latencies overlapping), the columns in two halves */
    if (i >= j0 + wp && i < n) {
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
                for (int c = 0; c < W / 2; c++) acc[c] -= l[k] * slab[(size_t)(h + c) * ld + j0 + k];
#pragma unroll
            for (int c = 0; c < W / 2; c++) slab[(size_t)(h + c) * ld + i] = acc[c];
        }
    }
}

#endif

template <typename T>
__global__ void __launch_bounds__(MAX_THREADS) lu_cluster_kernel(T *a, int64_t lda, int n, int64_t *ipiv, int64_t *perm, int *info) {
#ifdef MINV_LU_CLUSTER_CODE
    extern __shared__ __align__(16) unsigned char smem[];
    cg::cluster_group cluster = cg::this_cluster();
    const lu_smem<T> s(smem, n);
    const int ld = s.ld;
    const int i = threadIdx.x, b = (int)cluster.block_rank(), blocks = (int)cluster.num_blocks();
    const int c0 = b * W, wb = min(W, n - c0);
    if (i < n)
        for (int c = 0; c < W; c++) s.slab[(size_t)c * ld + i] = c < wb ? a[i + (c0 + c) * lda] : T(0);
    if (i == 0) *s.info = 0;
    cluster.sync(); /* every block runs before one reads another's shared memory */
    for (int p = 0; p < blocks; p++) {
        if (b == p) factor_panel(s, n, p * W, min(W, n - p * W), p ? cluster.map_shared_rank(s.perm, p - 1) : nullptr);
        cluster.sync(); /* panel p is factored; every block is done with panel p - 1 */
        if (b != p) apply_panel(s, cluster, n, p, b, wb);
    }
    cluster.sync(); /* nobody reads another block's slab any more */
    if (i < n)
        for (int c = 0; c < wb; c++) a[i + (c0 + c) * lda] = s.slab[(size_t)c * ld + i];
    if (i < wb) ipiv[c0 + i] = s.ipiv[i] + 1;
    if (perm && b == blocks - 1 && i < n) perm[i] = s.perm[i];
    if (b == 0 && i == 0) {
        int first = 0;
        for (int q = 0; q < blocks; q++) {
            const int f = *cluster.map_shared_rank(s.info, q);
            if (f && (!first || f < first)) first = f;
        }
        *info = first;
    }
    cluster.sync(); /* block 0 has read every block's info */
#endif
}

/* The kernel's launch as one cluster of `blocks` blocks (one a 32 columns, 32 threads a block
 * each: a thread a row); attr holds the cluster's shape. */
inline cudaLaunchConfig_t cluster_config(int blocks, size_t smem, cudaStream_t stream, cudaLaunchAttribute *attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3((unsigned)(blocks * 32));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)blocks;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

/* Whether the kernel runs in a cluster of `blocks` blocks on g's device, asked once per
 * context and device (the attributes and the occupancy query cost about 10 us a call): for the
 * largest order of that many blocks, the kernel's attributes set for the largest order of all. */
template <typename T> bool cluster_fits(minv_gpu *g, int blocks) {
    signed char *known = &g->lu_cluster_fits[sizeof(T) == sizeof(float)][blocks];
    if (*known == 0) {
        int major = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, g->device) != cudaSuccess || major < 9) {
            (void)cudaGetLastError();
            *known = -1; /* no clusters before compute capability 9.0 */
            return false;
        }
        void (*kernel)(T *, int64_t, int, int64_t *, int64_t *, int *) = lu_cluster_kernel<T>;
        cudaLaunchAttribute attr;
        const cudaLaunchConfig_t cfg = cluster_config(blocks, smem_bytes<T>(W * blocks), g->stream, &attr);
        int clusters = 0;
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem_bytes<T>(W * MAX_BLOCKS));
        if (e == cudaSuccess) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (e == cudaSuccess) e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
        if (e != cudaSuccess) (void)cudaGetLastError(); /* not sticky: getrf runs instead */
        *known = e == cudaSuccess && clusters >= 1 ? 1 : -1;
    }
    return *known > 0;
}

template <typename T>
cudaError_t launch(minv_gpu *g, minv_mat *x, int64_t *ipiv, int64_t *perm, int *info, int *launched) {
    const int n = (int)x->rows, blocks = (n + W - 1) / W;
    void (*kernel)(T *, int64_t, int, int64_t *, int64_t *, int *) = lu_cluster_kernel<T>;
    cudaLaunchAttribute attr;
    *launched = cluster_fits<T>(g, blocks);
    if (!*launched) return cudaSuccess;
    const cudaLaunchConfig_t cfg = cluster_config(blocks, smem_bytes<T>(n), g->stream, &attr);
    return cudaLaunchKernelEx(&cfg, kernel, (T *)x->data, (int64_t)x->ld, n, ipiv, perm, info);
}

bool applies(int64_t n) { return n >= 1 && n <= (int64_t)W * MAX_BLOCKS; }

} // namespace

minv_status minv_gpu_lu_cluster(minv_context *ctx, minv_mat *x, int64_t *ipiv, int64_t *perm, int *info_dev,
                                int *launched) {
    minv_status status = MINV_SUCCESS;
    *launched = 0;
    if (!applies(x->rows) || x->rows != x->cols) return MINV_SUCCESS;
    if (x->dtype == MINV_R64) CUDA_TRY(launch<double>(ctx->gpu, x, ipiv, perm, info_dev, launched));
    else CUDA_TRY(launch<float>(ctx->gpu, x, ipiv, perm, info_dev, launched));
cleanup:
    return status;
}
