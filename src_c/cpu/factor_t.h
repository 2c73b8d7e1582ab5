/* Type template for factor.c. */

/* x = f (lower_only: f's lower triangle mirrored to both of x's), by tiles so that the
 * mirrored writes stay in cache; returns ||x||_1. */
static double FN(write_inverse)(const minv_mat *fm, int lower_only, minv_mat *xm) {
    const T *f = (const T *)fm->data;
    T *x = (T *)xm->data;
    const int64_t n = fm->rows, ldf = fm->ld, ldx = xm->ld, tile = 32;
    double worst = 0;
    if (!lower_only) {
        for (int64_t j = 0; j < n; j++) {
            const T *src = f + (size_t)j * (size_t)ldf;
            T *dst = x + (size_t)j * (size_t)ldx;
            double s = 0;
#pragma omp simd reduction(+ : s)
            for (int64_t i = 0; i < n; i++) {
                dst[i] = src[i];
                s += fabs((double)src[i]);
            }
            if (s > worst || isnan(s)) worst = s;
        }
        return worst;
    }
    /* column j of x: f(j .. n, j) below the diagonal, f(j, 0 .. j) (row j) above it */
    for (int64_t j0 = 0; j0 < n; j0 += tile) {
        const int64_t j1 = j0 + tile < n ? j0 + tile : n;
        for (int64_t j = j0; j < j1; j++) {
            const T *src = f + (size_t)j * (size_t)ldf;
            T *dst = x + (size_t)j * (size_t)ldx;
#pragma omp simd
            for (int64_t i = j; i < n; i++) dst[i] = src[i];
        }
        for (int64_t i0 = 0; i0 < j0; i0 += tile) /* the upper part of these columns */
            for (int64_t j = j0; j < j1; j++)
                for (int64_t i = i0; i < i0 + tile; i++) x[(size_t)j * (size_t)ldx + (size_t)i] = f[(size_t)i * (size_t)ldf + (size_t)j];
        for (int64_t j = j0; j < j1; j++) /* and inside the diagonal tile */
            for (int64_t i = j0; i < j; i++) x[(size_t)j * (size_t)ldx + (size_t)i] = f[(size_t)i * (size_t)ldf + (size_t)j];
        for (int64_t j = j0; j < j1; j++) {
            const T *col = x + (size_t)j * (size_t)ldx;
            double s = 0;
#pragma omp simd reduction(+ : s)
            for (int64_t i = 0; i < n; i++) s += fabs((double)col[i]);
            if (s > worst || isnan(s)) worst = s;
        }
    }
    return worst;
}
