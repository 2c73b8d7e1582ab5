/* Kernels on interleaved groups of small members (lanes.h), in both precisions. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lanes.h"
#include "vec4.h"

/* No vector crosses a call (the helpers are always inlined), whatever the clone's target. */
#pragma GCC diagnostic ignored "-Wpsabi"

#define T double
#define TI long long
#define FN(name) name##_d
#include "lanes_t.h"
#undef T
#undef TI
#undef FN
#define T float
#define TI int
#define FN(name) name##_s
#include "lanes_t.h"
#undef T
#undef TI
#undef FN

void minv_lanes_pack(minv_dtype t, int64_t n, int64_t cols, const void *s, int64_t lds, int l, void *c) {
    if (t == MINV_R64) lanes_pack_d(n, cols, s, lds, l, c);
    else lanes_pack_s(n, cols, s, lds, l, c);
}

/* Four double members at once: four rows of a column from each, transposed in registers into
 * four interleaved vectors, so that the members are read and the group written whole vectors
 * at a time; each column checked while it is at hand (lanes_t.h's checks). */
MINV_SIMD_CLONES static void pack4_d(int64_t n, const double *const *s, const int64_t *lds, double *c, int symmetry,
                                     vecd_d *rowabs, minv_lanes_checks *o) {
    const int64_t top = n / 4 * 4;
    vecd_d largest = {0}, norm1 = {0};
    maskd_d positive = (maskd_d){0} - 1;
    for (int l = 0; l < 4; l++) o->bad_col[l] = -1;
    for (int64_t i = 0; i < n; i++) rowabs[i] = (vecd_d){0};
    for (int64_t j = 0; j < n; j++) {
        const double *s0 = s[0] + (size_t)j * (size_t)lds[0], *s1 = s[1] + (size_t)j * (size_t)lds[1];
        const double *s2 = s[2] + (size_t)j * (size_t)lds[2], *s3 = s[3] + (size_t)j * (size_t)lds[3];
        double *cj = c + (size_t)j * (size_t)n * 4;
        for (int64_t i = 0; i < top; i += 4) {
            const minv_v4_d y[4] = {minv_load4_d(s0 + i), minv_load4_d(s1 + i), minv_load4_d(s2 + i), minv_load4_d(s3 + i)};
            minv_v4_d t[4];
            minv_transpose4(y, t);
            for (int q = 0; q < 4; q++) minv_store4_d(cj + (size_t)(i + q) * 4, t[q]);
        }
        for (int64_t i = top; i < n; i++) {
            cj[i * 4] = s0[i];
            cj[i * 4 + 1] = s1[i];
            cj[i * 4 + 2] = s2[i];
            cj[i * 4 + 3] = s3[i];
        }
        check_column_d(n, j, (const vecd_d *)cj, rowabs, &norm1, &largest, &positive, o);
    }
    check_finish_d(n, (const vec_d *)c, symmetry, rowabs, norm1, largest, positive, o);
}

/* pack4_d's way back, column by column: the rows 0 .. top of a column's four interleaved vectors
 * (one member a lane), four at a time, transposed in registers into four rows of each member's
 * column d[l], whole vectors written where one lane at a time took a scalar load and store per
 * entry. */
MINV_SIMD_CLONES static void unpack4_d(int64_t top, const double *cj, double *const *d) {
    for (int64_t i = 0; i < top; i += 4) {
        const minv_v4_d y[4] = {minv_load4_d(cj + (size_t)i * 4), minv_load4_d(cj + (size_t)(i + 1) * 4),
                                minv_load4_d(cj + (size_t)(i + 2) * 4), minv_load4_d(cj + (size_t)(i + 3) * 4)};
        minv_v4_d t[4];
        minv_transpose4(y, t);
        for (int l = 0; l < 4; l++) minv_store4_d(d[l] + i, t[l]);
    }
}

/* The same for eight float lanes: each 8 x 8 block transposed by three rounds of two-vector
 * shuffles (pairs, pairs of pairs, halves). */
typedef float v8_s __attribute__((vector_size(32)));
#if defined(__clang__) || __GNUC__ >= 12
#define SHUFFLE8(x, y, ...) __builtin_shufflevector(x, y, __VA_ARGS__)
#else
typedef int v8_i __attribute__((vector_size(32)));
#define SHUFFLE8(x, y, ...) __builtin_shuffle(x, y, (v8_i){__VA_ARGS__})
#endif

MINV_SIMD_CLONES static void unpack8_s(int64_t top, const float *cj, float *const *d) {
    for (int64_t i = 0; i < top; i += 8) {
        v8_s r[8], a[8], b[8];
        for (int q = 0; q < 8; q++) memcpy(&r[q], cj + (size_t)(i + q) * 8, sizeof r[q]);
        for (int k = 0; k < 8; k += 2) {
            a[k] = SHUFFLE8(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
            a[k + 1] = SHUFFLE8(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
        }
        for (int base = 0; base < 8; base += 4) {
            b[base] = SHUFFLE8(a[base], a[base + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            b[base + 1] = SHUFFLE8(a[base], a[base + 2], 2, 3, 10, 11, 6, 7, 14, 15);
            b[base + 2] = SHUFFLE8(a[base + 1], a[base + 3], 0, 1, 8, 9, 4, 5, 12, 13);
            b[base + 3] = SHUFFLE8(a[base + 1], a[base + 3], 2, 3, 10, 11, 6, 7, 14, 15);
        }
        for (int q = 0; q < 4; q++) {
            const v8_s lo = SHUFFLE8(b[q], b[q + 4], 0, 1, 2, 3, 8, 9, 10, 11);
            const v8_s hi = SHUFFLE8(b[q], b[q + 4], 4, 5, 6, 7, 12, 13, 14, 15);
            memcpy(d[q] + i, &lo, sizeof lo);
            memcpy(d[q + 4] + i, &hi, sizeof hi);
        }
    }
}

void minv_lanes_pack_scan(minv_dtype t, int64_t n, const void *const *s, const int64_t *lds, void *c, int symmetry,
                          double *rowabs, minv_lanes_checks *o) {
    if (t == MINV_R64) {
        pack4_d(n, (const double *const *)s, lds, c, symmetry, (void *)rowabs, o);
        return;
    }
    for (int l = 0; l < minv_lanes(t); l++) lanes_pack_s(n, n, s[l], lds[l], l, c);
    minv_lanes_scan(t, n, c, symmetry, rowabs, o);
}

void minv_lanes_unpack(minv_dtype t, int64_t n, int64_t cols, const void *c, int l, void *s, int64_t lds) {
    if (t == MINV_R64) lanes_unpack_d(n, cols, c, l, s, lds);
    else lanes_unpack_s(n, cols, c, l, s, lds);
}

void minv_lanes_unpack_all(minv_dtype t, int64_t n, int64_t cols, const void *c, void *const *s, const int64_t *lds) {
    const int lanes = minv_lanes(t);
    const size_t es = (size_t)t;
    const int64_t top = n / lanes * lanes;
    for (int64_t j = 0; j < cols; j++) {
        const char *cj = (const char *)c + (size_t)j * (size_t)n * (size_t)lanes * es;
        void *d[MINV_LANES_MAX];
        for (int l = 0; l < lanes; l++) d[l] = (char *)s[l] + (size_t)j * (size_t)lds[l] * es;
        if (t == MINV_R64) unpack4_d(top, (const double *)cj, (double *const *)d);
        else unpack8_s(top, (const float *)cj, (float *const *)d);
        for (int64_t i = top; i < n; i++) /* the rows below the last whole block */
            for (int l = 0; l < lanes; l++) memcpy((char *)d[l] + (size_t)i * es, cj + ((size_t)i * (size_t)lanes + (size_t)l) * es, es);
    }
}

void minv_lanes_scan(minv_dtype t, int64_t n, const void *c, int symmetry, double *rowabs, minv_lanes_checks *o) {
    if (t == MINV_R64) lanes_scan_d(n, c, symmetry, (void *)rowabs, o);
    else lanes_scan_s(n, c, symmetry, (void *)rowabs, o);
}

void minv_lanes_probes(minv_dtype t, int64_t n, const void *c, const double *v, int probes, double *av) {
    if (t == MINV_R64) lanes_probes_d(n, c, v, probes, (void *)av);
    else lanes_probes_s(n, c, v, probes, (void *)av);
}

void minv_lanes_times(minv_dtype t, int64_t n, const void *c, const double *x, int probes, double *y, double *rowabs) {
    if (t == MINV_R64) lanes_times_d(n, c, (const void *)x, probes, (void *)y, (void *)rowabs);
    else lanes_times_s(n, c, (const void *)x, probes, (void *)y, (void *)rowabs);
}

void minv_lanes_residual(minv_dtype t, int64_t n, const void *c, const void *x, const void *b, double *r) {
    if (t == MINV_R64) lanes_residual_d(n, c, x, b, (void *)r);
    else lanes_residual_s(n, c, x, b, (void *)r);
}

void minv_lanes_column_sums(minv_dtype t, int64_t n, int64_t cols, const void *b, double *sums, int *finite) {
    if (t == MINV_R64) lanes_column_sums_d(n, cols, b, sums, finite);
    else lanes_column_sums_s(n, cols, b, sums, finite);
}

void minv_lanes_fill(minv_dtype t, int64_t n, int64_t cols, int l, void *c) {
    if (t == MINV_R64) lanes_fill_d(n, cols, l, c);
    else lanes_fill_s(n, cols, l, c);
}

void minv_lanes_potrf(minv_dtype t, int64_t n, void *c, int64_t *info, double *min_diag) {
    if (t == MINV_R64) lanes_potrf_d(n, c, info, min_diag);
    else lanes_potrf_s(n, c, info, min_diag);
}

void minv_lanes_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *c, void *b) {
    if (t == MINV_R64) lanes_potrs_d(n, nrhs, c, b);
    else lanes_potrs_s(n, nrhs, c, b);
}

void minv_lanes_getrf(minv_dtype t, int64_t n, void *c, int *ipiv, int64_t *info, double *min_diag) {
    if (t == MINV_R64) lanes_getrf_d(n, c, ipiv, info, min_diag);
    else lanes_getrf_s(n, c, ipiv, info, min_diag);
}

void minv_lanes_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *c, const int *ipiv, void *b) {
    if (t == MINV_R64) lanes_getrs_d(n, nrhs, c, ipiv, b);
    else lanes_getrs_s(n, nrhs, c, ipiv, b);
}

void minv_lanes_sweep(minv_dtype t, int64_t n, void *c, void *f, int64_t *info) {
    if (t == MINV_R64) lanes_sweep_d(n, c, f, info);
    else lanes_sweep_s(n, c, f, info);
}

void minv_lanes_gauss_jordan(minv_dtype t, int64_t n, void *c, int *perm, int64_t *info) {
    if (t == MINV_R64) lanes_gauss_jordan_d(n, c, perm, info);
    else lanes_gauss_jordan_s(n, c, perm, info);
}
