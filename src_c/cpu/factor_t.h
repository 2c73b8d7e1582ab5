/* Type template for factor.c. */

/* sum |src_i| over n entries, src copied to dst as it is read (dst may be NULL). */
static double FN(copy_norm1)(const T *src, T *dst, int64_t n) {
    double s = 0;
    if (dst) {
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < n; i++) {
            dst[i] = src[i];
            s += fabs((double)src[i]);
        }
    } else {
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < n; i++) s += fabs((double)src[i]);
    }
    return s;
}

/* x = f (lower_only: f's lower triangle mirrored to both of x's), by tiles of columns so that
 * the mirrored writes stay in cache, the mirror by 4 x 4 blocks transposed in registers;
 * returns ||x||_1, summed while x is written. */
MINV_SIMD_CLONES static double FN(write_inverse)(const minv_mat *fm, int lower_only, minv_mat *xm) {
    enum { TILE = 32 };
    const T *f = (const T *)fm->data;
    T *x = (T *)xm->data;
    const int64_t n = fm->rows, ldf = fm->ld, ldx = xm->ld;
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
    for (int64_t j0 = 0; j0 < n; j0 += TILE) {
        const int64_t j1 = j0 + TILE < n ? j0 + TILE : n;
        double sums[TILE];
        for (int64_t j = j0; j < j1; j++) {
            const T *src = f + (size_t)j * (size_t)ldf;
            T *dst = x + (size_t)j * (size_t)ldx;
            double s = 0;
#pragma omp simd reduction(+ : s)
            for (int64_t i = j; i < n; i++) {
                dst[i] = src[i];
                s += fabs((double)src[i]);
            }
            sums[j - j0] = s;
        }
        int64_t j = j0;
        for (; j + 4 <= j1; j += 4) { /* rows 0 .. j0 of columns j .. j + 3: blocks of f's rows j .. j + 3 */
            minv_v4_d part[4] = {{0}};
            for (int64_t i0 = 0; i0 < j0; i0 += 4) {
                minv_v4_d v[4], t[4];
                for (int c = 0; c < 4; c++)
                    v[c] = __builtin_convertvector(FN(minv_load4)(f + (size_t)(i0 + c) * (size_t)ldf + (size_t)j), minv_v4_d);
                minv_transpose4(v, t); /* t[k] = f(j + k, i0 .. i0 + 3) */
                for (int k = 0; k < 4; k++) {
                    FN(minv_store4)(x + (size_t)(j + k) * (size_t)ldx + (size_t)i0, __builtin_convertvector(t[k], FN(minv_v4)));
                    part[k] += minv_abs4(t[k]);
                }
            }
            for (int k = 0; k < 4; k++) sums[j + k - j0] += minv_sum4(part[k]);
        }
        for (; j < j1; j++) /* the last columns of an order not divisible by four */
            for (int64_t i = 0; i < j0; i++) {
                const T e = f[(size_t)i * (size_t)ldf + (size_t)j];
                x[(size_t)j * (size_t)ldx + (size_t)i] = e;
                sums[j - j0] += fabs((double)e);
            }
        for (j = j0; j < j1; j++) { /* and inside the diagonal tile */
            for (int64_t i = j0; i < j; i++) {
                const T e = f[(size_t)i * (size_t)ldf + (size_t)j];
                x[(size_t)j * (size_t)ldx + (size_t)i] = e;
                sums[j - j0] += fabs((double)e);
            }
            if (sums[j - j0] > worst || isnan(sums[j - j0])) worst = sums[j - j0];
        }
    }
    return worst;
}
