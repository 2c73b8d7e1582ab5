/* A GETRF panel's row interchanges as one permutation, shared by the Gauss-Jordan elimination
 * (on the device, one thread beside the update) and the low-precision LU (on the host, on the
 * critical path: a GPU thread takes about 1 us a step in global memory, the host a few ns). */
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

#endif
