/* Type template for analyze.c: included once per precision with T (the element type) and
 * FN(name) (name with the precision suffix) defined.
 *
 * One pass over A by pairs of tiles: the block A(I, J) below the diagonal and its mirror
 * A(J, I) are read together (the mirror through a small transposed buffer), so that every
 * entry is loaded once for finiteness, the row and column sums of |a_ij|, the largest |a_ij|,
 * the sum of squares and the asymmetry, and, when the call asks, copied into the staging
 * matrix and multiplied by the residual's probe vectors. */

/* Adds column segment v[0 .. len) of column `col` (rows row0 ..) to the sums of s. */
MINV_INLINE void FN(scan_segment)(const T *v, int64_t len, int64_t row0, int64_t col, scan_sums *s) {
    double cs = 0, mx = s->max_abs, fin = s->finite, sq = s->sumsq;
    double *rs = s->rowsum + row0;
#pragma omp simd reduction(+ : cs, fin, sq) reduction(max : mx)
    for (int64_t i = 0; i < len; i++) {
        const double x = (double)v[i], ax = fabs(x);
        rs[i] += ax;
        cs += ax;
        mx = ax > mx ? ax : mx;
        fin += x * 0.0; /* NaN once an entry is NaN or Inf */
        sq += x * x;
    }
    s->colsum[col] += cs;
    s->max_abs = mx;
    s->finite = fin;
    s->sumsq = sq;
}

/* y_p[row0 + i] += v[i] x_p[col] for each probe p. */
MINV_INLINE void FN(scan_probes)(const T *v, int64_t len, int64_t row0, int64_t col, const scan_job *job,
                                   double *y) {
    for (int p = 0; p < job->nprobes; p++) {
        const double xc = job->probes[(size_t)p * (size_t)job->n + (size_t)col];
        double *yp = y + (size_t)p * (size_t)job->n + (size_t)row0;
#pragma omp simd
        for (int64_t i = 0; i < len; i++) yp[i] += (double)v[i] * xc;
    }
}

/* max(m, max_i |x_i - y_i|) */
MINV_INLINE double FN(max_difference)(const T *x, const T *y, int64_t len, double m) {
#pragma omp simd reduction(max : m)
    for (int64_t i = 0; i < len; i++) {
        const double d = fabs((double)x[i] - (double)y[i]);
        m = d > m ? d : m;
    }
    return m;
}

MINV_INLINE void FN(copy_segment)(const T *v, int64_t len, T *dst) {
    for (int64_t i = 0; i < len; i++) dst[i] = v[i];
}

/* The tiles of tile column tj: its diagonal tile, then each tile below with its mirror. AVX2
 * where the processor has it (twice the SSE2 width of the baseline x86-64 build). */
MINV_SIMD_CLONES static void FN(scan_tile_column)(const scan_job *job, int64_t tj, scan_sums *s, T *tbuf) {
    const T *a = (const T *)job->a;
    T *copy = (T *)job->copy;
    const int64_t n = job->n, ld = job->ld, j0 = tj * SCAN_TILE;
    const int64_t j1 = j0 + SCAN_TILE < n ? j0 + SCAN_TILE : n, w = j1 - j0;
    double asym = s->asym;
    /* the diagonal tile, kept transposed too, then each column against its row */
    for (int64_t j = j0; j < j1; j++) {
        const T *col = a + (size_t)j * (size_t)ld + (size_t)j0;
        FN(scan_segment)(col, w, j0, j, s);
        if (job->nprobes) FN(scan_probes)(col, w, j0, j, job, s->y);
        if (copy) FN(copy_segment)(col, w, copy + (size_t)j * (size_t)n + (size_t)j0);
        for (int64_t ii = 0; ii < w; ii++) tbuf[ii * SCAN_TILE + (j - j0)] = col[ii];
    }
    for (int64_t j = j0; j < j1; j++)
        asym = FN(max_difference)(a + (size_t)j * (size_t)ld + (size_t)j0, tbuf + (j - j0) * SCAN_TILE, w, asym);
    for (int64_t i0 = j1; i0 < n; i0 += SCAN_TILE) {
        const int64_t i1 = i0 + SCAN_TILE < n ? i0 + SCAN_TILE : n, h = i1 - i0;
        /* the mirror A(J, I): columns i0 .. i1, rows j0 .. j1, kept transposed in tbuf */
        for (int64_t i = i0; i < i1; i++) {
            const T *col = a + (size_t)i * (size_t)ld + (size_t)j0;
            /* short segments a column apart defeat the hardware prefetcher */
            if (i + SCAN_PREFETCH < n)
                for (int64_t jj = 0; jj < w; jj += 64 / (int64_t)sizeof(T))
                    __builtin_prefetch(col + (size_t)SCAN_PREFETCH * (size_t)ld + (size_t)jj);
            FN(scan_segment)(col, w, j0, i, s);
            if (job->nprobes) FN(scan_probes)(col, w, j0, i, job, s->y);
            if (copy) FN(copy_segment)(col, w, copy + (size_t)i * (size_t)n + (size_t)j0);
            for (int64_t jj = 0; jj < w; jj++) tbuf[jj * SCAN_TILE + (i - i0)] = col[jj];
        }
        /* A(I, J), column by column against the mirror's rows */
        for (int64_t j = j0; j < j1; j++) {
            const T *col = a + (size_t)j * (size_t)ld + (size_t)i0, *mirror = tbuf + (j - j0) * SCAN_TILE;
            FN(scan_segment)(col, h, i0, j, s);
            if (job->nprobes) FN(scan_probes)(col, h, i0, j, job, s->y);
            if (copy) FN(copy_segment)(col, h, copy + (size_t)j * (size_t)n + (size_t)i0);
            asym = FN(max_difference)(col, mirror, h, asym);
        }
    }
    s->asym = asym;
}

/* Every tile column, by `threads` threads (1: the calling thread alone, no parallel region),
 * each with its own sums, sums[t]. Returns the threads that ran. */
static int FN(scan)(const scan_job *job, scan_sums *sums, int threads) {
    const int64_t tiles = (job->n + SCAN_TILE - 1) / SCAN_TILE;
    if (threads <= 1) {
        T tbuf[SCAN_TILE * SCAN_TILE];
        for (int64_t tj = 0; tj < tiles; tj++) FN(scan_tile_column)(job, tj, &sums[0], tbuf);
        return 1;
    }
    int team = 1;
#pragma omp parallel num_threads(threads)
    {
        minv_worker w;
        minv_worker_begin(&w);
        T tbuf[SCAN_TILE * SCAN_TILE];
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
        if (t == 0) team = omp_get_num_threads();
#endif
#pragma omp for schedule(dynamic, 1)
        for (int64_t tj = 0; tj < tiles; tj++) FN(scan_tile_column)(job, tj, &sums[t], tbuf);
        minv_worker_end(&w);
    }
    return team;
}

/* Column-major index of the first NaN or Inf (the scan only knows that there is one). */
static int64_t FN(first_bad)(const minv_mat *m) {
    const T *a = (const T *)m->data;
    for (int64_t j = 0; j < m->cols; j++)
        for (int64_t i = 0; i < m->rows; i++)
            if (!isfinite((double)a[(size_t)j * (size_t)m->ld + (size_t)i])) return j * m->rows + i;
    return INT64_MAX;
}

/* ||A||_F by Blue's algorithm, for entries too large or too small for a plain sum of
 * squares. */
static double FN(frobenius_scaled)(const minv_mat *m) {
    const T *a = (const T *)m->data;
    minv_sumsq s = {0, 0, 0};
    for (int64_t j = 0; j < m->cols; j++)
        for (int64_t i = 0; i < m->rows; i++) minv_sumsq_add(&s, (double)a[(size_t)j * (size_t)m->ld + (size_t)i]);
    return minv_sumsq_norm(&s);
}

/* Lower and upper bandwidth from each column's first and last nonzero: O(1) per column of a
 * dense matrix, since both searches stop at once. */
static void FN(bandwidths)(const minv_mat *m, int64_t *lower, int64_t *upper) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows;
    *lower = *upper = 0;
    for (int64_t j = 0; j < n; j++) {
        const T *col = a + (size_t)j * (size_t)m->ld;
        int64_t first = -1, last = -1;
        for (int64_t i = 0; i < n; i++) if (col[i] != 0) { first = i; break; }
        if (first < 0) continue;
        for (int64_t i = n - 1; i >= 0; i--) if (col[i] != 0) { last = i; break; }
        if (j - first > *upper) *upper = j - first;
        if (last - j > *lower) *lower = last - j;
    }
}

static double FN(diagonal)(const minv_mat *m, int64_t i) {
    return (double)((const T *)m->data)[(size_t)i * (size_t)m->ld + (size_t)i];
}
