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

/* y_p += M(:, j .. j + 3) x_p(j .. j + 3) for the K vectors (a constant
 * where it is inlined, so that the loop over them unrolls): each entry of M is loaded once for
 * all K, and each y_p once for four columns. */
MINV_INLINE void FN(gemv_columns4)(const T *c0, int64_t ld, int64_t rows, const double *x, int64_t cols, int64_t j,
                                    double *y, const int K) {
    const T *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    double xs[MINV_GEMV_MAX][4];
    for (int p = 0; p < K; p++)
        for (int c = 0; c < 4; c++) xs[p][c] = x[(size_t)p * (size_t)cols + (size_t)(j + c)];
#pragma omp simd
    for (int64_t i = 0; i < rows; i++) {
        const double a0 = (double)c0[i], a1 = (double)c1[i], a2 = (double)c2[i], a3 = (double)c3[i];
        for (int p = 0; p < K; p++)
            y[(size_t)p * (size_t)rows + (size_t)i] += a0 * xs[p][0] + a1 * xs[p][1] + a2 * xs[p][2] + a3 * xs[p][3];
    }
}

/* Y = M X for k <= MINV_GEMV_MAX columns x_p (cols long) and y_p (rows long), ldx = cols,
 * ldy = rows, in one pass over M, four of its columns at a time; the row sums of |M| into
 * rowabs when it is not NULL. The BLAS's gemm packs M first: 3-4x slower than this for a few
 * vectors (n = 128-2048). */
MINV_SIMD_CLONES static void FN(gemv_multi)(const minv_mat *m, const double *x, int k, double *y, double *rowabs) {
    const T *a = (const T *)m->data;
    const int64_t rows = m->rows, cols = m->cols;
    for (int64_t i = 0; i < rows * k; i++) y[i] = 0;
    if (rowabs)
        for (int64_t i = 0; i < rows; i++) rowabs[i] = 0;
    int64_t j = 0;
    for (; j + 4 <= cols; j += 4) {
        const T *c0 = a + (size_t)j * (size_t)m->ld;
        switch (k) {
        case 1: FN(gemv_columns4)(c0, m->ld, rows, x, cols, j, y, 1); break;
        case 2: FN(gemv_columns4)(c0, m->ld, rows, x, cols, j, y, 2); break;
        case 3: FN(gemv_columns4)(c0, m->ld, rows, x, cols, j, y, 3); break;
        default: FN(gemv_columns4)(c0, m->ld, rows, x, cols, j, y, MINV_GEMV_MAX); break;
        }
        if (rowabs) {
            const T *c1 = c0 + m->ld, *c2 = c1 + m->ld, *c3 = c2 + m->ld;
#pragma omp simd
            for (int64_t i = 0; i < rows; i++)
                rowabs[i] += fabs((double)c0[i]) + fabs((double)c1[i]) + fabs((double)c2[i]) + fabs((double)c3[i]);
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

/* Y = M X for k <= MINV_GEMV_MAX vectors as gemv_multi, for a symmetric M read from its lower
 * triangle alone: half gemv_multi's memory traffic, where the pass runs at memory speed (the
 * residual of a solve, A long out of cache). Four columns at a time, each vector in turn (the
 * four columns stay in cache meanwhile): every entry below the diagonal block is multiplied
 * into y as M(i, j) x(j) and, as its mirror M(j, i), into column j's dot product with x. */
MINV_SIMD_CLONES static void FN(gemv_sym_multi)(const minv_mat *m, const double *x, int k, double *y) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows;
    const size_t ld = (size_t)m->ld;
    for (int64_t i = 0; i < n * k; i++) y[i] = 0;
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
        const T *c0 = a + (size_t)j * ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
        for (int p = 0; p < k; p++) {
            const double *xp = x + (size_t)p * (size_t)n;
            double *yp = y + (size_t)p * (size_t)n;
            for (int r = 0; r < 4; r++) /* the diagonal block, its upper part from the lower */
                for (int c = 0; c < 4; c++)
                    yp[j + r] += (double)(r >= c ? a[(size_t)(j + c) * ld + (size_t)(j + r)]
                                                 : a[(size_t)(j + r) * ld + (size_t)(j + c)]) * xp[j + c];
            const double x0 = xp[j], x1 = xp[j + 1], x2 = xp[j + 2], x3 = xp[j + 3];
            double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
#pragma omp simd reduction(+ : t0, t1, t2, t3)
            for (int64_t i = j + 4; i < n; i++) {
                const double a0 = (double)c0[i], a1 = (double)c1[i], a2 = (double)c2[i], a3 = (double)c3[i], xi = xp[i];
                yp[i] += a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
                t0 += a0 * xi;
                t1 += a1 * xi;
                t2 += a2 * xi;
                t3 += a3 * xi;
            }
            yp[j] += t0;
            yp[j + 1] += t1;
            yp[j + 2] += t2;
            yp[j + 3] += t3;
        }
    }
    for (; j < n; j++) { /* the last columns of an order not divisible by four */
        const T *col = a + (size_t)j * ld;
        for (int p = 0; p < k; p++) {
            const double *xp = x + (size_t)p * (size_t)n;
            double *yp = y + (size_t)p * (size_t)n, t = (double)col[j] * xp[j];
            for (int64_t i = j + 1; i < n; i++) {
                yp[i] += (double)col[i] * xp[j];
                t += (double)col[i] * xp[i];
            }
            yp[j] += t;
        }
    }
}

static void FN(column_to_double)(const minv_mat *m, int64_t j, double *out) {
    const T *col = (const T *)m->data + (size_t)j * (size_t)m->ld;
    for (int64_t i = 0; i < m->rows; i++) out[i] = (double)col[i];
}
