/* Type template for analyze.c: included once per precision with T (the element type) and
 * FN(name) (name with the precision suffix) defined.
 *
 * One pass over A by pairs of tiles, A(I, J) below the diagonal with its mirror A(J, I), strip
 * by strip of four columns: each 4 x 4 block is read with its mirror and the mirror transposed
 * in registers, so that every entry is loaded once, as whole vectors, for the row and column
 * sums of |a_ij|, the largest |a_ij|, the sum of squares (which is also the finiteness check:
 * a NaN or Inf makes it non-finite) and the asymmetry, and, when the call asks, copied into
 * the staging matrix (the lower triangle only: Cholesky reads no more, and the mirror's
 * stores, four entries of a column apiece, cost as much as the rest of the copy; LU copies
 * the upper triangle afterwards, by whole columns) and multiplied by the residual's probe
 * vectors. Sums are kept in double in both precisions. The last rows and columns of an order
 * not divisible by four go entry by entry. */

/* The sums of one entry of the diagonal, x = a(i, i). */
MINV_INLINE void FN(scan_diagonal)(const scan_job *job, scan_sums *s, int64_t i, T x) {
    const double ax = fabs((double)x);
    s->rowsum[i] += ax;
    s->colsum[i] += ax;
    s->max_abs = minv_max(s->max_abs, ax);
    s->sumsq += (double)x * (double)x;
    if (job->copy) ((T *)job->copy)[(size_t)i * (size_t)job->ldc + (size_t)i] = x;
    for (int p = 0; p < job->nprobes; p++)
        s->y[(size_t)p * (size_t)job->n + (size_t)i] += (double)x * job->probes[(size_t)p * (size_t)job->n + (size_t)i];
}

/* The sums of a pair of mirrored entries, x = a(i, j) and y = a(j, i), i > j. */
MINV_INLINE void FN(scan_pair)(const scan_job *job, scan_sums *s, int64_t i, int64_t j, T x, T y) {
    const double ax = fabs((double)x), ay = fabs((double)y);
    const size_t n = (size_t)job->n;
    s->rowsum[i] += ax;
    s->colsum[j] += ax;
    s->rowsum[j] += ay;
    s->colsum[i] += ay;
    s->max_abs = minv_max(s->max_abs, minv_max(ax, ay));
    s->sumsq += (double)x * (double)x + (double)y * (double)y;
    s->asym = minv_max(s->asym, fabs((double)x - (double)y));
    if (job->copy) ((T *)job->copy)[(size_t)j * (size_t)job->ldc + (size_t)i] = x;
    for (int p = 0; p < job->nprobes; p++) {
        const double *v = job->probes + (size_t)p * n;
        double *yp = s->y + (size_t)p * n;
        yp[i] += (double)x * v[j];
        yp[j] += (double)y * v[i];
    }
}

/* The 4 x 4 diagonal block of columns j0 .. j0 + 3, each entry once, against its own
 * transpose. */
MINV_INLINE void FN(scan_diagonal_block)(const scan_job *job, int64_t j0, scan_strip_sums *acc, scan_vec_sums *v) {
    const T *a = (const T *)job->a;
    T *copy = (T *)job->copy;
    const size_t ld = (size_t)job->ld, ldc = (size_t)job->ldc;
    FN(minv_v4) dr[4];
    minv_v4_d d[4], dt[4];
    for (int c = 0; c < 4; c++) {
        dr[c] = FN(minv_load4)(a + (size_t)(j0 + c) * ld + (size_t)j0);
        d[c] = __builtin_convertvector(dr[c], minv_v4_d);
        if (copy) FN(minv_store4)(copy + (size_t)(j0 + c) * ldc + (size_t)j0, dr[c]);
    }
    minv_transpose4(d, dt);
    for (int c = 0; c < 4; c++) {
        const minv_v4_d ad = minv_abs4(d[c]);
        acc->col[c] += ad;
        acc->row += ad;
        v->largest = minv_max4(v->largest, ad);
        v->squares += d[c] * d[c];
        v->asym = minv_max4(v->asym, minv_abs4(d[c] - dt[c]));
        for (int p = 0; p < job->nprobes; p++)
            acc->y[p] += d[c] * job->probes[(size_t)p * (size_t)job->n + (size_t)(j0 + c)];
    }
}

/* Rows i0 .. i1 (multiples of four, below the diagonal block) of columns j0 .. j0 + 3, with
 * their mirror, columns i0 .. i1 of rows j0 .. j0 + 3: each 4 x 4 block A(I, J) is read with
 * A(J, I), the mirror transposed in registers, so that every entry is loaded once. */
MINV_INLINE void FN(scan_block)(const scan_job *job, int64_t j0, int64_t i0, int64_t i1, scan_sums *s,
                                scan_strip_sums *acc, scan_vec_sums *v) {
    const T *a = (const T *)job->a;
    T *copy = (T *)job->copy;
    const size_t ld = (size_t)job->ld, ldc = (size_t)job->ldc, sn = (size_t)job->n;
    double vj[MINV_PROBES][4];
    for (int p = 0; p < job->nprobes; p++)
        for (int c = 0; c < 4; c++) vj[p][c] = job->probes[(size_t)p * sn + (size_t)(j0 + c)];
    for (int64_t r = i0; r < i1; r += 4) {
        FN(minv_v4) xr[4], yr[4];
        minv_v4_d x[4], y[4], yt[4];
        for (int c = 0; c < 4; c++) {
            xr[c] = FN(minv_load4)(a + (size_t)(j0 + c) * ld + (size_t)r); /* A(R, j0 + c) */
            yr[c] = FN(minv_load4)(a + (size_t)(r + c) * ld + (size_t)j0); /* A(J, r + c) */
            x[c] = __builtin_convertvector(xr[c], minv_v4_d);
            y[c] = __builtin_convertvector(yr[c], minv_v4_d);
        }
        if (copy)
            for (int c = 0; c < 4; c++) FN(minv_store4)(copy + (size_t)(j0 + c) * ldc + (size_t)r, xr[c]);
        minv_transpose4(y, yt); /* yt[c][k] = a(j0 + c, r + k), the mirror of x[c][k] */
        minv_v4_d row_r = {0}, col_r = {0};
        for (int c = 0; c < 4; c++) {
            const minv_v4_d ax = minv_abs4(x[c]), ay = minv_abs4(y[c]);
            row_r += ax;
            acc->col[c] += ax;
            col_r += minv_abs4(yt[c]);
            acc->row += ay;
            v->largest = minv_max4(v->largest, minv_max4(ax, ay));
            v->squares += x[c] * x[c] + y[c] * y[c];
            v->asym = minv_max4(v->asym, minv_abs4(x[c] - yt[c]));
        }
        minv_add4_to(s->rowsum + r, row_r);
        minv_add4_to(s->colsum + r, col_r);
        for (int p = 0; p < job->nprobes; p++) {
            const double *vp = job->probes + (size_t)p * sn;
            minv_v4_d yr4 = {0};
            for (int c = 0; c < 4; c++) {
                yr4 += x[c] * vj[p][c];
                acc->y[p] += y[c] * vp[r + c];
            }
            minv_add4_to(s->y + (size_t)p * sn + (size_t)r, yr4);
        }
    }
}

/* Prefetch of count entries from p. */
MINV_INLINE void FN(scan_prefetch)(const T *p, int64_t count) {
    const char *b = (const char *)p;
    const int64_t bytes = count * (int64_t)sizeof(T);
    for (int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(b + o);
    __builtin_prefetch(b + bytes - 1);
}

/* Tile column tj (columns tj SCAN_TILE ..) by pairs of tiles: the diagonal tile, then each
 * tile A(I, J) below it with its mirror A(J, I), so that the mirror is read by column
 * segments of a tile's height, not one line a column apart (each in another page) as strips
 * down the whole matrix read it: 3.4 -> 2.0 ms of an SPD solve at n = 1000 on the dev VM;
 * then the last rows and columns of an order not divisible by four, entry by entry. AVX2
 * where the processor has it (twice the SSE2 width of the baseline x86-64 build). */
MINV_SIMD_CLONES static void FN(scan_tile_column)(const scan_job *job, int64_t tj, scan_sums *s) {
    const T *a = (const T *)job->a;
    const int64_t n = job->n, ld = job->ld, n4 = n / 4 * 4, j0 = tj * SCAN_TILE;
    const int64_t j1 = j0 + SCAN_TILE < n ? j0 + SCAN_TILE : n, strips_end = j1 < n4 ? j1 : n4;
    const size_t sn = (size_t)n;
    scan_strip_sums acc[SCAN_TILE / 4];
    scan_vec_sums v = {{0}, {0}, {0}};
    for (int64_t j = j0; j < strips_end; j += 4) {
        /* each strip's sums cleared as it starts, by vector stores: a memset of all of them
         * compiled to rep stos, 4% of a whole solve at n = 8 */
        scan_strip_sums *t = &acc[(j - j0) / 4];
        for (int c = 0; c < 4; c++) t->col[c] = (minv_v4_d){0};
        t->row = (minv_v4_d){0};
        for (int p = 0; p < MINV_PROBES; p++) t->y[p] = (minv_v4_d){0};
        FN(scan_diagonal_block)(job, j, t, &v);
        FN(scan_block)(job, j, j + 4, strips_end, s, t, &v);
    }
    const int64_t strips = (strips_end - j0) / 4;
    for (int64_t i0 = strips_end; i0 < n4; i0 += SCAN_ROWS) {
        const int64_t i1 = i0 + SCAN_ROWS < n4 ? i0 + SCAN_ROWS : n4;
        const int64_t next = i1 + SCAN_ROWS < n4 ? i1 + SCAN_ROWS : n4;
        for (int64_t k = 0; k < strips; k++) {
            /* the next mirror tile's column segments, a strip's share at a time: a column
             * apart, they are beyond the hardware prefetcher */
            for (int64_t c = i1 + k * (next - i1) / strips; c < i1 + (k + 1) * (next - i1) / strips; c++)
                FN(scan_prefetch)(a + (size_t)c * (size_t)ld + (size_t)j0, strips_end - j0);
            FN(scan_block)(job, j0 + 4 * k, i0, i1, s, &acc[k], &v);
        }
    }
    for (int64_t j = j0; j < strips_end; j += 4) {
        const scan_strip_sums *t = &acc[(j - j0) / 4];
        for (int c = 0; c < 4; c++) s->colsum[j + c] += minv_sum4(t->col[c]);
        minv_add4_to(s->rowsum + j, t->row);
        for (int p = 0; p < job->nprobes; p++) minv_add4_to(s->y + (size_t)p * sn + (size_t)j, t->y[p]);
    }
    s->max_abs = minv_max(s->max_abs, minv_largest4(v.largest));
    s->sumsq += minv_sum4(v.squares);
    s->asym = minv_max(s->asym, minv_largest4(v.asym));
    for (int64_t i = n4; i < n; i++) /* the last rows, below the strips */
        for (int64_t j = j0; j < strips_end; j++)
            FN(scan_pair)(job, s, i, j, a[(size_t)j * (size_t)ld + (size_t)i], a[(size_t)i * (size_t)ld + (size_t)j]);
    for (int64_t j = strips_end; j < j1; j++) { /* the last columns */
        FN(scan_diagonal)(job, s, j, a[(size_t)j * (size_t)ld + (size_t)j]);
        for (int64_t i = j + 1; i < n; i++)
            FN(scan_pair)(job, s, i, j, a[(size_t)j * (size_t)ld + (size_t)i], a[(size_t)i * (size_t)ld + (size_t)j]);
    }
}

/* Every tile column, by `threads` threads (1: the calling thread alone, no parallel region),
 * each with its own sums, sums[t]. Returns the threads that ran. */
static int FN(scan)(const scan_job *job, scan_sums *sums, int threads) {
    const int64_t tiles = (job->n + SCAN_TILE - 1) / SCAN_TILE;
    if (threads <= 1) {
        for (int64_t tj = 0; tj < tiles; tj++) FN(scan_tile_column)(job, tj, &sums[0]);
        return 1;
    }
    int team = 1;
#pragma omp parallel num_threads(threads)
    {
        minv_worker w;
        minv_worker_begin(&w);
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
        if (t == 0) team = omp_get_num_threads();
#endif
#pragma omp for schedule(dynamic, 1)
        for (int64_t tj = 0; tj < tiles; tj++) FN(scan_tile_column)(job, tj, &sums[t]);
        minv_worker_end(&w);
    }
    return team;
}

/* Column-major index of the first NaN or Inf (the scan only knows that there may be one). */
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
 * dense matrix, since both searches stop at once, and O(1) in all where both far corners are
 * nonzero (a fixed cost of the small calls otherwise). */
static void FN(bandwidths)(const minv_mat *m, int64_t *lower, int64_t *upper) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows;
    if (n > 1 && a[n - 1] != 0 && a[(size_t)(n - 1) * (size_t)m->ld] != 0) { /* both corners: dense */
        *lower = *upper = n - 1;
        return;
    }
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

static void FN(diagonal)(const minv_mat *m, double *diag) {
    const T *a = (const T *)m->data;
    for (int64_t i = 0; i < m->rows; i++) diag[i] = (double)a[(size_t)i * (size_t)m->ld + (size_t)i];
}
