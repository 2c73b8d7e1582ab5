/* The tile plan, and the copies between row-major tiles of doubles (as nc_get_vara and
 * nc_put_vara see the last two dimensions) and column-major matrices in either view. */
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

void minv_nc_tile_to_mat(const double *tile, const size_t start[2], const size_t count[2],
                         minv_nc_view view, minv_mat *m) {
    const size_t tc = count[1];
    for (size_t r = 0; r < count[0]; r++) {
        const double *src = tile + r * tc;
        int64_t R = (int64_t)(start[0] + r), C0 = (int64_t)start[1];
        if (view == MINV_NC_FORTRAN_VIEW) { /* M(C, R): a contiguous run of column R */
            if (m->dtype == MINV_R64) {
                double *dst = minv_at(m, C0, R);
                for (size_t c = 0; c < tc; c++) dst[c] = src[c];
            } else {
                float *dst = minv_at(m, C0, R);
                for (size_t c = 0; c < tc; c++) dst[c] = (float)src[c];
            }
        } else { /* M(R, C): row R, a stride of ld */
            if (m->dtype == MINV_R64) {
                double *dst = minv_at(m, R, C0);
                for (size_t c = 0; c < tc; c++) dst[(size_t)m->ld * c] = src[c];
            } else {
                float *dst = minv_at(m, R, C0);
                for (size_t c = 0; c < tc; c++) dst[(size_t)m->ld * c] = (float)src[c];
            }
        }
    }
}

void minv_nc_mat_to_tile(const minv_mat *m, minv_nc_view view, const size_t start[2],
                         const size_t count[2], double *tile) {
    const size_t tc = count[1];
    for (size_t r = 0; r < count[0]; r++) {
        double *dst = tile + r * tc;
        int64_t R = (int64_t)(start[0] + r), C0 = (int64_t)start[1];
        if (view == MINV_NC_FORTRAN_VIEW) {
            if (m->dtype == MINV_R64) {
                const double *src = minv_at(m, C0, R);
                for (size_t c = 0; c < tc; c++) dst[c] = src[c];
            } else {
                const float *src = minv_at(m, C0, R);
                for (size_t c = 0; c < tc; c++) dst[c] = src[c];
            }
        } else {
            if (m->dtype == MINV_R64) {
                const double *src = minv_at(m, R, C0);
                for (size_t c = 0; c < tc; c++) dst[c] = src[(size_t)m->ld * c];
            } else {
                const float *src = minv_at(m, R, C0);
                for (size_t c = 0; c < tc; c++) dst[c] = src[(size_t)m->ld * c];
            }
        }
    }
}
