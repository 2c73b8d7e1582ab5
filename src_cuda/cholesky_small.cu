// Cholesky factorisation A = L L^T of one matrix of order n <= 512 in one thread block, in place
// of cuSOLVER's potrf before the small solves and inversions (small_solve.cu): potrf runs these
// orders at about 0.4 us a column (launches, each a short step), and one block goes through a
// column in a few hundred cycles. Right-looking in panels of 32 columns, the matrix in the
// output (where it stays in L2), each panel in shared memory, transposed:
//   - one warp factors the diagonal block in registers, a lane a row, the column's entries
//     exchanged by shuffles and one reciprocal square root a column;
//   - a thread a row solves L21 = A21 L11^-T in registers;
//   - every thread updates 4 x 4 tiles of the trailing lower triangle, A22 -= L21 L21^T.
// A is read once (the first panel reads it where it is). Output: L in the lower triangle and L^T
// in the upper one (small_solve.cu's back solve reads it there); info as potrf's, the order of
// the first leading minor that is not positive definite (0 if none), where the factorisation
// stops.
#include "gpu.h"

namespace {

constexpr int W = 32, THREADS = 512;
constexpr unsigned FULL = 0xffffffffu;

template <typename T> struct pair_of;
template <> struct pair_of<double> { using type = double2; };
template <> struct pair_of<float> { using type = float2; };

__device__ __forceinline__ double rsqrt_of(double x) { return rsqrt(x); }
__device__ __forceinline__ float rsqrt_of(float x) { return rsqrtf(x); }

/* The panel in shared memory, transposed: L(j0 + r, j0 + k) at pt[k * lds + r]. */
template <typename T> size_t panel_bytes(int n) { return (size_t)W * (size_t)((n + 3) & ~3) * sizeof(T); }

/* The diagonal block of the panel at j0 (w columns) by warp 0: L11 into pt and into l (both
 * triangles); dinv its diagonal's reciprocals. Returns the failing order (1-based) or 0. */
template <typename T>
__device__ __forceinline__ int factor_diagonal(const T *src, int64_t ld, T *l, int64_t ldl, int j0, int w, T *pt,
                                               int lds, T *dinv) {
    const int lane = threadIdx.x;
    T r[W];
#pragma unroll
    for (int c = 0; c < W; c++) r[c] = c < w && lane < w && c <= lane ? src[j0 + lane + (int64_t)(j0 + c) * ld] : T(0);
    int bad = 0;
#pragma unroll
    for (int c = 0; c < W; c++) {
        if (c >= w || bad) continue; /* the same in every lane */
        const T dcc = __shfl_sync(FULL, r[c], c);
        if (!(dcc > T(0))) { /* not positive, or NaN */
            bad = j0 + c + 1;
            continue;
        }
        const T inv = rsqrt_of(dcc);
        r[c] = lane == c ? dcc * inv : r[c] * inv;
        if (lane == 0) dinv[c] = inv;
#pragma unroll
        for (int j = c + 1; j < W; j++) {
            const T ljc = __shfl_sync(FULL, r[c], j);
            if (lane >= j) r[j] -= r[c] * ljc;
        }
    }
    if (!bad && lane < w) {
#pragma unroll
        for (int c = 0; c < W; c++)
            if (c <= lane && c < w) {
                pt[c * lds + lane] = r[c];
                l[j0 + lane + (int64_t)(j0 + c) * ldl] = r[c];
                l[j0 + c + (int64_t)(j0 + lane) * ldl] = r[c];
            }
    }
    return bad;
}

/* Row j0 + W + t of L21 (t < m), by forward substitution with L11 in registers. */
template <typename T>
__device__ __forceinline__ void solve_row(const T *src, int64_t ld, T *l, int64_t ldl, int j0, int t, T *pt, int lds,
                                          const T *dinv) {
    const int64_t row = j0 + W + t;
    T x[W];
#pragma unroll
    for (int c = 0; c < W; c++) x[c] = src[row + (int64_t)(j0 + c) * ld];
#pragma unroll
    for (int c = 0; c < W; c++) {
        x[c] *= dinv[c];
#pragma unroll
        for (int j = c + 1; j < W; j++) x[j] -= x[c] * pt[c * lds + j];
    }
#pragma unroll
    for (int c = 0; c < W; c++) {
        pt[c * lds + W + t] = x[c];
        l[row + (int64_t)(j0 + c) * ldl] = x[c];
        l[j0 + c + row * ldl] = x[c];
    }
}

/* The 4 x 4 tile (tr, tc), tr >= tc, of the trailing m x m matrix at j0 + W: A22 -= L21 L21^T. */
template <typename T>
__device__ __forceinline__ void update_tile(const T *src, int64_t ld, T *l, int64_t ldl, int j0, int m, int tr, int tc,
                                            const T *pt, int lds) {
    using P = typename pair_of<T>::type;
    const int r0 = 4 * tr, c0 = 4 * tc;
    const int64_t base = j0 + W;
    T acc[4][4];
#pragma unroll
    for (int b = 0; b < 4; b++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            acc[q][b] = r0 + q < m && c0 + b < m ? src[base + r0 + q + (base + c0 + b) * ld] : T(0);
#pragma unroll 8
    for (int k = 0; k < W; k++) {
        const P ra = *(const P *)&pt[k * lds + W + r0], rb = *(const P *)&pt[k * lds + W + r0 + 2];
        const P ca = *(const P *)&pt[k * lds + W + c0], cb = *(const P *)&pt[k * lds + W + c0 + 2];
        const T av[4] = {ra.x, ra.y, rb.x, rb.y}, bv[4] = {ca.x, ca.y, cb.x, cb.y};
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int b = 0; b < 4; b++) acc[q][b] -= av[q] * bv[b];
    }
#pragma unroll
    for (int b = 0; b < 4; b++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (r0 + q < m && c0 + b < m) l[base + r0 + q + (base + c0 + b) * ldl] = acc[q][b];
}

template <typename T>
__global__ void __launch_bounds__(THREADS) cholesky_small_kernel(const T *a, int64_t lda, T *l, int64_t ldl, int n,
                                                                 int *info) {
    extern __shared__ __align__(16) unsigned char smem[];
    T *const pt = (T *)smem;
    __shared__ T dinv[W];
    __shared__ int failed;
    const int lds = (n + 3) & ~3, tid = threadIdx.x;
    for (int j0 = 0; j0 < n; j0 += W) {
        const int w = min(W, n - j0), m = n - j0 - w, mpad = (m + 3) & ~3;
        const T *const src = j0 ? l : a; /* A itself until the first panel has written l */
        const int64_t ld = j0 ? ldl : lda;
        if (tid < W) {
            const int bad = factor_diagonal(src, ld, l, ldl, j0, w, pt, lds, dinv);
            if (tid == 0) failed = bad;
        }
        __syncthreads();
        if (failed) break;
        if (tid < m) solve_row(src, ld, l, ldl, j0, tid, pt, lds, dinv);
        else if (tid < mpad)
            for (int c = 0; c < W; c++) pt[c * lds + W + tid] = T(0); /* the last tiles' rows past n */
        __syncthreads();
        const int mt = mpad / 4, tiles = mt * (mt + 1) / 2;
        for (int t = tid; t < tiles; t += THREADS) { /* tiles row by row: a warp shares its rows */
            int tr = (int)((sqrtf(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
            while (tr * (tr + 1) / 2 > t) tr--;
            while ((tr + 1) * (tr + 2) / 2 <= t) tr++;
            update_tile(src, ld, l, ldl, j0, m, tr, t - tr * (tr + 1) / 2, pt, lds);
        }
        __syncthreads();
    }
    if (tid == 0) *info = failed;
}

template <typename T> cudaError_t launch(const minv_mat *a, minv_mat *l, int *info, cudaStream_t stream) {
    const int n = (int)a->rows;
    /* the largest panel, so that contexts on other threads never lower it under each other */
    cudaError_t e = cudaFuncSetAttribute(cholesky_small_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)panel_bytes<T>(MINV_CHOLESKY_SMALL_MAX));
    if (e != cudaSuccess) return e;
    cholesky_small_kernel<T><<<1, THREADS, panel_bytes<T>(n), stream>>>((const T *)a->data, a->ld, (T *)l->data,
                                                                        l->ld, n, info);
    return cudaGetLastError();
}

} // namespace

minv_status minv_gpu_cholesky_small(minv_context *ctx, const minv_mat *a, minv_mat *l, int *info_dev) {
    minv_status status = MINV_SUCCESS;
    if (a->rows != a->cols || a->rows < 1 || a->rows > MINV_CHOLESKY_SMALL_MAX || l->rows != a->rows ||
        l->cols != a->rows || l->dtype != a->dtype)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "cholesky_small: order %lld outside 1 .. %d or the shapes differ",
                         (long long)a->rows, MINV_CHOLESKY_SMALL_MAX);
    if (a->dtype == MINV_R64) CUDA_TRY(launch<double>(a, l, info_dev, ctx->gpu->stream));
    else CUDA_TRY(launch<float>(a, l, info_dev, ctx->gpu->stream));
cleanup:
    return status;
}
