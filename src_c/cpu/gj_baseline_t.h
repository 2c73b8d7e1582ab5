/* Type template for gj_baseline.c. row and col hold n elements of work. Returns the column
 * without a pivot, or -1. */
static int64_t FN(gj)(minv_mat *m, int64_t *piv, T *row, T *col, int threads) {
    T *a = (T *)m->data;
    const int64_t n = m->rows, ld = m->ld;
    const int team = minv_threads_for(threads, (double)n * (double)n);
    int64_t failed = -1;
    for (int64_t k = 0; k < n && failed < 0; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs((double)a[k * ld + i]) > fabs((double)a[k * ld + p])) p = i;
        piv[k] = p;
        if (a[k * ld + p] == 0) {
            failed = k;
            break;
        }
        if (p != k)
            for (int64_t j = 0; j < n; j++) {
                T t = a[j * ld + k];
                a[j * ld + k] = a[j * ld + p];
                a[j * ld + p] = t;
            }
        /* the scaled pivot row, whose column k holds 1 / pivot, and the multipliers */
        const T inv = (T)1 / a[k * ld + k];
        for (int64_t j = 0; j < n; j++) row[j] = j == k ? inv : a[j * ld + k] * inv;
        for (int64_t i = 0; i < n; i++) col[i] = a[k * ld + i];
#pragma omp parallel num_threads(team) if (team > 1)
        {
            minv_worker w;
            minv_worker_begin(&w);
#pragma omp for schedule(static)
            for (int64_t j = 0; j < n; j++) {
                T *cj = a + j * ld;
                const T rj = row[j];
                for (int64_t i = 0; i < n; i++)
                    cj[i] = i == k ? rj : (j == k ? (T)0 : cj[i]) - col[i] * rj;
            }
            minv_worker_end(&w);
        }
    }
    /* undo the row interchanges as column interchanges, last first */
    for (int64_t k = (failed < 0 ? n : failed) - 1; k >= 0; k--)
        if (piv[k] != k)
            for (int64_t i = 0; i < n; i++) {
                T t = a[k * ld + i];
                a[k * ld + i] = a[piv[k] * ld + i];
                a[piv[k] * ld + i] = t;
            }
    return failed;
}
