/* Type template for residual.c: y = M x in double, and the row sums of |M| when rowabs is
 * not NULL. Column order streams through memory. */
static void FN(gemv_double)(const minv_mat *m, const double *x, double *y, double *rowabs) {
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

static void FN(column_to_double)(const minv_mat *m, int64_t j, double *out) {
    const T *col = (const T *)m->data + (size_t)j * (size_t)m->ld;
    for (int64_t i = 0; i < m->rows; i++) out[i] = (double)col[i];
}
