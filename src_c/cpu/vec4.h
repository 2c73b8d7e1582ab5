/* Four-lane vectors (GNU C vector extensions) for the CPU kernels that work on 4 x 4 blocks
 * and groups of four rows: minv_v4_d holds four doubles (one AVX2 register, or two SSE2 ones in
 * the baseline build), minv_v4_s four floats. Every helper is always inlined into the
 * MINV_SIMD_CLONES function that calls it, so each clone compiles it for its own target. */
#ifndef MINV_CPU_VEC4_H
#define MINV_CPU_VEC4_H

#include <string.h>

#include "../internal.h"

/* No vector crosses a call (the helpers are always inlined), whatever the clone's target: GCC
 * warns of the AVX calling convention all the same. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef double minv_v4_d __attribute__((vector_size(32)));
typedef float minv_v4_s __attribute__((vector_size(16)));
typedef long long minv_v4i __attribute__((vector_size(32)));

/* Unaligned loads and stores of four consecutive entries. */
MINV_INLINE minv_v4_d minv_load4_d(const double *p) {
    minv_v4_d v;
    memcpy(&v, p, sizeof v);
    return v;
}
MINV_INLINE minv_v4_s minv_load4_s(const float *p) {
    minv_v4_s v;
    memcpy(&v, p, sizeof v);
    return v;
}
MINV_INLINE void minv_store4_d(double *p, minv_v4_d v) { memcpy(p, &v, sizeof v); }
MINV_INLINE void minv_store4_s(float *p, minv_v4_s v) { memcpy(p, &v, sizeof v); }

MINV_INLINE void minv_add4_to(double *p, minv_v4_d x) { minv_store4_d(p, minv_load4_d(p) + x); }

MINV_INLINE minv_v4_d minv_abs4(minv_v4_d x) {
    return (minv_v4_d)((minv_v4i)x & (minv_v4i){INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX});
}

MINV_INLINE minv_v4_d minv_max4(minv_v4_d x, minv_v4_d y) {
    const minv_v4i greater = x > y;
    return (minv_v4_d)((greater & (minv_v4i)x) | (~greater & (minv_v4i)y));
}

/* max(x, y) without fmax's call, for sums where a NaN is caught otherwise */
MINV_INLINE double minv_max(double x, double y) { return x > y ? x : y; }

MINV_INLINE double minv_sum4(minv_v4_d x) { return (x[0] + x[1]) + (x[2] + x[3]); }

MINV_INLINE double minv_largest4(minv_v4_d x) { return minv_max(minv_max(x[0], x[1]), minv_max(x[2], x[3])); }

#ifdef __clang__
#define MINV_SHUFFLE4(x, y, i0, i1, i2, i3) __builtin_shufflevector(x, y, i0, i1, i2, i3)
#else
#define MINV_SHUFFLE4(x, y, i0, i1, i2, i3) __builtin_shuffle(x, y, (minv_v4i){i0, i1, i2, i3})
#endif

/* t[c][k] = y[k][c] */
MINV_INLINE void minv_transpose4(const minv_v4_d y[4], minv_v4_d t[4]) {
    const minv_v4_d lo01 = MINV_SHUFFLE4(y[0], y[1], 0, 4, 2, 6), hi01 = MINV_SHUFFLE4(y[0], y[1], 1, 5, 3, 7);
    const minv_v4_d lo23 = MINV_SHUFFLE4(y[2], y[3], 0, 4, 2, 6), hi23 = MINV_SHUFFLE4(y[2], y[3], 1, 5, 3, 7);
    t[0] = MINV_SHUFFLE4(lo01, lo23, 0, 1, 4, 5);
    t[1] = MINV_SHUFFLE4(hi01, hi23, 0, 1, 4, 5);
    t[2] = MINV_SHUFFLE4(lo01, lo23, 2, 3, 6, 7);
    t[3] = MINV_SHUFFLE4(hi01, hi23, 2, 3, 6, 7);
}

#endif
