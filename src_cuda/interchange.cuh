/* A GETRF panel's row interchanges as one permutation, shared by the Gauss-Jordan elimination
 * (on the device, one thread beside the update) and the blocked LUs (lu_blocked.cu, and the
 * low-precision one; on the host, on the critical path: a GPU thread takes about 1 us a step in
 * global memory, the host a few ns); and their application to the other columns. */
#ifndef MINV_INTERCHANGE_CUH
#define MINV_INTERCHANGE_CUH

#include <stdint.h>

/* The w interchanges from row k0 (ipiv 1-based within the panel) replayed on cur (the original
 * row now at each position; the identity on entry and on return), listed for every touched
 * position as (destination, source) pairs, 2 w of them in 4 w entries: the source is the
 * original row that lands at the destination. Repeated positions give identical pairs. */
__host__ __device__ inline void minv_interchange_pairs(const int64_t *ipiv, int64_t k0, int64_t w, int64_t *cur,
                                                       int64_t *pairs) {
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
    for (int64_t t = 0; t < w; t++) {
        cur[k0 + t] = k0 + t;
        cur[k0 + ipiv[t] - 1] = k0 + ipiv[t] - 1;
    }
}

/* The interchanges of a panel of w <= MINV_SWAP_MAX_W columns from row k0, as
 * minv_interchange_pairs lists them, applied to every column outside the panel, [0, k0) and
 * [k0 + w, n): a block a column, the sources read before any destination is written. Launch
 * with a grid of min(n - w, 65535) blocks. */
constexpr int64_t MINV_SWAP_MAX_W = 1024;
template <typename T>
__global__ void minv_swap_rows(T *a, int64_t ld, int64_t n, int64_t k0, int64_t w, const int64_t *pairs) {
    __shared__ T moved[2 * MINV_SWAP_MAX_W];
    for (int64_t c = blockIdx.x; c < n - w; c += gridDim.x) {
        T *col = a + (c < k0 ? c : c + w) * ld;
        for (int64_t s = threadIdx.x; s < 2 * w; s += blockDim.x) moved[s] = col[pairs[2 * s + 1]];
        __syncthreads();
        for (int64_t s = threadIdx.x; s < 2 * w; s += blockDim.x)
            if (pairs[2 * s] != pairs[2 * s + 1]) col[pairs[2 * s]] = moved[s];
        __syncthreads();
    }
}

/* cuSOLVER's pivots of panels of nb columns are 1-based within each panel; LAPACK's count over
 * the whole matrix. */
static __global__ void minv_globalise_pivots(int64_t *ipiv, int64_t n, int64_t nb) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ipiv[i] += i / nb * nb;
}

#endif
