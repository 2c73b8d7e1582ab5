/* The tile plan, and the copies between row-major tiles of doubles (as nc_get_vara and
 * nc_put_vara see the last two dimensions) and column-major matrices in either view. */
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ncio.h"

static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

const char *minv_nc_plan_tiles(size_t d0, size_t d1, const size_t *chunk, int64_t edge,
                               size_t tile[2]) {
    const size_t budget = MINV_NC_TILE_ELEMS;
    if (edge > 0) {
        tile[0] = min_size((size_t)edge, d0);
        tile[1] = min_size((size_t)edge, d1);
        return "as asked";
    }
    if (chunk) {
        /* Whole chunks only, so that each is decompressed once and no chunk cache is needed;
         * grouped along d1 first (the fast direction), then along d0. */
        size_t c0 = min_size(chunk[0], d0), c1 = min_size(chunk[1], d1);
        size_t k1 = budget / (c0 * c1);
        tile[1] = min_size(d1, c1 * (k1 > 1 ? k1 : 1));
        size_t k0 = budget / (c0 * tile[1]);
        tile[0] = min_size(d0, c0 * (k0 > 1 ? k0 : 1));
        return "whole chunks";
    }
    /* Contiguous storage: bands of whole rows are contiguous on disk. */
    tile[1] = d1;
    tile[0] = budget / d1 > 1 ? min_size(d0, budget / d1) : 1;
    return "bands of whole rows";
}

/* The C view transposes: blocks of BLOCK x BLOCK values, whose source lines stay in L1 while
 * each destination column receives BLOCK consecutive values. */
enum { BLOCK = 32 };

/* dst[c ldd + r] = src[r lds + c] for a rows x cols block of doubles, two by two with SSE2
 * (two loads, two shuffles and two stores move four values). */
static void transpose_block(const double *src, size_t lds, double *dst, size_t ldd, size_t rows, size_t cols) {
    size_t c = 0;
#if defined(__SSE2__)
    for (; c + 1 < cols; c += 2) {
        double *d0 = dst + c * ldd, *d1 = d0 + ldd;
        size_t r = 0;
        for (; r + 1 < rows; r += 2) {
            const __m128d x = _mm_loadu_pd(src + r * lds + c), y = _mm_loadu_pd(src + (r + 1) * lds + c);
            _mm_storeu_pd(d0 + r, _mm_unpacklo_pd(x, y));
            _mm_storeu_pd(d1 + r, _mm_unpackhi_pd(x, y));
        }
        if (r < rows) {
            d0[r] = src[r * lds + c];
            d1[r] = src[r * lds + c + 1];
        }
    }
#endif
    for (; c < cols; c++)
        for (size_t r = 0; r < rows; r++)
            dst[c * ldd + r] = src[r * lds + c];
}

static inline double unpacked(const minv_nc_values *v, double x) { return minv_nc_stored(v, x) * v->scale + v->offset; }

#define TILE_TO_MAT(T)                                                                             \
    do {                                                                                           \
        T *out = m->data;                                                                          \
        const size_t ldm = (size_t)m->ld, R0 = start[0], C0 = start[1];                            \
        if (view == MINV_NC_FORTRAN_VIEW) { /* M(C, R): row r of the tile is a run of column R */  \
            for (size_t r = 0; r < count[0]; r++) {                                                \
                const double *src = tile + r * ld;                                                 \
                T *dst = out + (R0 + r) * ldm + C0;                                                \
                if (unpack)                                                                        \
                    for (size_t c = 0; c < count[1]; c++) dst[c] = (T)unpacked(v, src[c]);         \
                else                                                                               \
                    for (size_t c = 0; c < count[1]; c++) dst[c] = (T)src[c];                      \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        for (size_t r0 = 0; r0 < count[0]; r0 += BLOCK) { /* M(R, C): row R, a stride of ld */    \
            const size_t rows = count[0] - r0 < BLOCK ? count[0] - r0 : BLOCK;                     \
            for (size_t c0 = 0; c0 < count[1]; c0 += BLOCK) {                                      \
                const size_t cols = count[1] - c0 < BLOCK ? count[1] - c0 : BLOCK;                 \
                if (sizeof(T) == sizeof(double) && !unpack) {                                      \
                    transpose_block(tile + r0 * ld + c0, ld, (double *)out + (C0 + c0) * ldm + R0 + r0, \
                                    ldm, rows, cols);                                              \
                    continue;                                                                      \
                }                                                                                  \
                for (size_t c = c0; c < c0 + cols; c++) {                                          \
                    const double *src = tile + r0 * ld + c;                                        \
                    T *dst = out + (C0 + c) * ldm + R0 + r0;                                       \
                    if (unpack)                                                                    \
                        for (size_t r = 0; r < rows; r++) dst[r] = (T)unpacked(v, src[r * ld]);      \
                    else                                                                           \
                        for (size_t r = 0; r < rows; r++) dst[r] = (T)src[r * ld];                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

size_t minv_nc_unit_rows(size_t row_bytes, size_t d0) {
    enum { UNIT = 1 << 20, AT_LEAST = 32 }; /* AT_LEAST: a transpose block */
    size_t rows = UNIT / row_bytes;
    if (rows < AT_LEAST)
        rows = 8 * UNIT / row_bytes < AT_LEAST ? 8 * UNIT / row_bytes : AT_LEAST;
    rows = rows < 1 ? 1 : rows;
    return rows > d0 ? d0 : rows;
}

void minv_nc_tile_to_mat(const double *tile, size_t ld, const size_t start[2], const size_t count[2],
                         minv_nc_view view, const minv_nc_values *v, minv_mat *m) {
    const int unpack = v->scale != 1 || v->offset != 0 || v->wrap != 0;
    if (m->dtype == MINV_R64)
        TILE_TO_MAT(double);
    else
        TILE_TO_MAT(float);
}

#define MAT_TO_TILE(T)                                                                             \
    do {                                                                                           \
        const T *in = m->data;                                                                     \
        const size_t ldm = (size_t)m->ld, R0 = start[0], C0 = start[1];                            \
        if (view == MINV_NC_FORTRAN_VIEW) {                                                        \
            for (size_t r = 0; r < count[0]; r++) {                                                \
                const T *src = in + (R0 + r) * ldm + C0;                                           \
                double *dst = tile + r * ld;                                                       \
                for (size_t c = 0; c < count[1]; c++) dst[c] = src[c];                             \
            }                                                                                      \
            break;                                                                                 \
        }                                                                                          \
        for (size_t r0 = 0; r0 < count[0]; r0 += BLOCK) {                                          \
            const size_t rows = count[0] - r0 < BLOCK ? count[0] - r0 : BLOCK;                     \
            for (size_t c0 = 0; c0 < count[1]; c0 += BLOCK) {                                      \
                const size_t cols = count[1] - c0 < BLOCK ? count[1] - c0 : BLOCK;                 \
                if (sizeof(T) == sizeof(double)) { /* column c of m is row c of a transpose */    \
                    transpose_block((const double *)in + (C0 + c0) * ldm + R0 + r0, ldm,           \
                                    tile + r0 * ld + c0, ld, cols, rows);                          \
                    continue;                                                                      \
                }                                                                                  \
                for (size_t c = c0; c < c0 + cols; c++) {                                          \
                    const T *src = in + (C0 + c) * ldm + R0 + r0;                                  \
                    double *dst = tile + r0 * ld + c;                                              \
                    for (size_t r = 0; r < rows; r++) dst[r * ld] = src[r];                        \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    } while (0)

void minv_nc_mat_to_tile(const minv_mat *m, minv_nc_view view, const size_t start[2],
                         const size_t count[2], double *tile, size_t ld) {
    if (m->dtype == MINV_R64)
        MAT_TO_TILE(double);
    else
        MAT_TO_TILE(float);
}
