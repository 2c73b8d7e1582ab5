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
 * ldy = rows, in one pass over M; the row sums of |M| into rowabs when it is not NULL. */
MINV_SIMD_CLONES static void FN(gemv_multi)(const minv_mat *m, const double *x, int k, double *y, double *rowabs) {
    const T *a = (const T *)m->data;
    const int64_t rows = m->rows, cols = m->cols;
    for (int64_t i = 0; i < rows * k; i++) y[i] = 0;
    if (rowabs)
        for (int64_t i = 0; i < rows; i++) rowabs[i] = 0;
    for (int64_t j = 0; j < cols; j++) {
        const T *col = a + (size_t)j * (size_t)m->ld;
        double xj[MINV_GEMV_MAX];
        for (int p = 0; p < k; p++) xj[p] = x[(size_t)p * (size_t)cols + (size_t)j];
        if (k == 1) {
#pragma omp simd
            for (int64_t i = 0; i < rows; i++) y[i] += (double)col[i] * xj[0];
        } else {
            for (int p = 0; p < k; p++) {
                double *yp = y + (size_t)p * (size_t)rows;
#pragma omp simd
                for (int64_t i = 0; i < rows; i++) yp[i] += (double)col[i] * xj[p];
            }
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
