/* Type template for residual.c: y = M x in double, and the row sums of |M| when rowabs is
 * not NULL. Column order streams through memory. */
MINV_SIMD_CLONES static void FN(gemv_double)(const minv_mat *m, const double *x, double *y, double *rowabs) {
    const T *a = (const T *)m->data;
    for (int64_t i = 0; i < m->rows; i++) {
        y[i] = 0;
        if (rowabs) rowabs[i] = 0;
    }
    for (int64_t j = 0; j < m->cols; j++) {
        const T *col = a + (size_t)j * (size_t)m->ld;
        const double xj = x[j];
        for (int64_t i = 0; i < m->rows; i++) y[i] += (double)col[i] * xj;
        if (rowabs)
            for (int64_t i = 0; i < m->rows; i++) rowabs[i] += fabs((double)col[i]);
    }
}

/* Y = M X for k <= MINV_GEMV_MAX columns x_p (cols long) and y_p (rows long), ldx = cols,
 * ldy = rows, in one pass over M; the row sums of |M| into rowabs when it is not NULL. Four
 * columns of M at a time, so that each y_p is loaded and stored once for four of them, and
 * rows in chunks that keep the four columns in L1 while every y_p takes them: the BLAS's gemm
 * packs M first, 3-4x slower than this for a few vectors (n = 128-2048). */
MINV_SIMD_CLONES static void FN(gemv_multi)(const minv_mat *m, const double *x, int k, double *y, double *rowabs) {
    enum { CHUNK = 512 };
    const T *a = (const T *)m->data;
    const int64_t rows = m->rows, cols = m->cols;
    for (int64_t i = 0; i < rows * k; i++) y[i] = 0;
    if (rowabs)
        for (int64_t i = 0; i < rows; i++) rowabs[i] = 0;
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4) {
        const T *c0 = a + (size_t)j * (size_t)m->ld, *c1 = c0 + m->ld, *c2 = c1 + m->ld, *c3 = c2 + m->ld;
        for (int64_t i0 = 0; i0 < rows; i0 += CHUNK) {
            const int64_t i1 = i0 + CHUNK < rows ? i0 + CHUNK : rows;
            for (int p = 0; p < k; p++) {
                const double *xp = x + (size_t)p * (size_t)cols + (size_t)j;
                const double x0 = xp[0], x1 = xp[1], x2 = xp[2], x3 = xp[3];
                double *yp = y + (size_t)p * (size_t)rows;
#pragma omp simd
                for (int64_t i = i0; i < i1; i++)
                    yp[i] += (double)c0[i] * x0 + (double)c1[i] * x1 + (double)c2[i] * x2 + (double)c3[i] * x3;
            }
            if (rowabs) {
#pragma omp simd
                for (int64_t i = i0; i < i1; i++)
                    rowabs[i] += fabs((double)c0[i]) + fabs((double)c1[i]) + fabs((double)c2[i]) + fabs((double)c3[i]);
            }
        }
    }
    for (; j < cols; j++) {
        const T *col = a + (size_t)j * (size_t)m->ld;
        for (int p = 0; p < k; p++) {
            const double xj = x[(size_t)p * (size_t)cols + (size_t)j];
            double *yp = y + (size_t)p * (size_t)rows;
#pragma omp simd
            for (int64_t i = 0; i < rows; i++) yp[i] += (double)col[i] * xj;
        }
        if (rowabs) {
#pragma omp simd
            for (int64_t i = 0; i < rows; i++) rowabs[i] += fabs((double)col[i]);
        }
    }
}

static void FN(column_to_double)(const minv_mat *m, int64_t j, double *out) {
    const T *col = (const T *)m->data + (size_t)j * (size_t)m->ld;
    for (int64_t i = 0; i < m->rows; i++) out[i] = (double)col[i];
}
