/* Type template for tridiagonal.c: the three paths on a host X of type T, the entries from
 * tridiagonal.h's shared arithmetic (the GPU kernels use the same). */

/* Write-once over the tile rows [r0, r1) x columns [c0, c1) (c0 and c1 multiples of the tile,
 * or n): each row's running product advances along the row, the columns are written in turn. */
static void FN(write_once_tile)(const minv_tri_gen *g, T *x, int64_t ld, int64_t r0, int64_t r1, int64_t c0,
                                int64_t c1) {
    double p[MINV_TRI_TILE];
    for (int64_t i = r0; i < r1; i++) p[i - r0] = minv_tri_upper_start(g, i, c0);
    for (int64_t j = c0; j < c1; j++) { /* rows i <= j, left to right */
        const double sc = minv_tri_scale(g->scol, j), m = g->mup[j];
        T *col = x + j * ld;
        for (int64_t i = r0; i < j && i < r1; i++) {
            p[i - r0] *= m;
            col[i] = (T)(minv_tri_scale(g->srow, i) * sc * p[i - r0]);
        }
        if (j >= r0 && j < r1) col[j] = (T)(minv_tri_scale(g->srow, j) * sc * p[j - r0]);
    }
    for (int64_t i = r0; i < r1; i++) p[i - r0] = minv_tri_lower_start(g, i, c1);
    for (int64_t j = c1 - 1; j >= c0; j--) { /* rows i > j, right to left */
        const double sc = minv_tri_scale(g->scol, j), m = g->mlo[j];
        T *col = x + j * ld;
        for (int64_t i = j + 1 > r0 ? j + 1 : r0; i < r1; i++) {
            p[i - r0] *= m;
            col[i] = (T)(minv_tri_scale(g->srow, i) * sc * p[i - r0]);
        }
    }
}

static void FN(write_once)(const minv_tri_gen *g, minv_mat *xm, int threads) {
    const int64_t n = g->n, nt = g->nt, T_ = MINV_TRI_TILE;
    const int team = minv_threads_for(threads, (double)n * (double)n);
#pragma omp parallel num_threads(team) if (team > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
#pragma omp for collapse(2) schedule(static)
        for (int64_t tc = 0; tc < nt; tc++)
            for (int64_t tr = 0; tr < nt; tr++)
                FN(write_once_tile)(g, (T *)xm->data, xm->ld, tr * T_, (tr + 1) * T_ < n ? (tr + 1) * T_ : n, tc * T_,
                                    (tc + 1) * T_ < n ? (tc + 1) * T_ : n);
        minv_worker_end(&w);
    }
}

/* The paper's Sherman-Morrison: leaves, then the merges level by level, each a gather of w
 * and z (n each) and a rank-one update of the merged blocks. Returns 0, or the level (1 for
 * the leaves) where a block was singular. */
static int FN(sherman_morrison)(const minv_tri_plan *pl, minv_mat *xm, double *w, double *z, int threads) {
    const int64_t n = pl->n, ld = xm->ld;
    const int team = minv_threads_for(threads, (double)n * (double)n);
    T *x = (T *)xm->data;
    for (int64_t b = 0; 2 * b < n; b++) {
        double inv[4];
        double det = minv_tri_sm_leaf(n, pl->dmod, pl->dl, pl->du, b, inv);
        if (det == 0 || !isfinite(det))
            return 1;
        const int64_t r = 2 * b;
        x[r + r * ld] = (T)inv[0];
        if (r + 1 < n) {
            x[r + 1 + r * ld] = (T)inv[1];
            x[r + (r + 1) * ld] = (T)inv[2];
            x[r + 1 + (r + 1) * ld] = (T)inv[3];
        }
    }
    int level = 1;
    for (int64_t h = 2; h < n; h *= 2) {
        level++;
        for (int64_t i = 0; i < n; i++) {
            int64_t s, mid, end;
            if (!minv_tri_sm_block(n, h, i, &s, &mid, &end))
                continue;
            const int64_t k = mid - 1, at = i < mid ? k : mid;
            double den = minv_tri_sm_wz(i < mid, pl->sign[k], pl->dl[k], pl->du[k], x[k + k * ld], x[mid + mid * ld],
                                        x[i + at * ld], x[at + i * ld], &w[i], &z[i]);
            if (den == 0 || !isfinite(den))
                return level;
        }
#pragma omp parallel num_threads(team) if (team > 1)
        {
            minv_worker wk;
            minv_worker_begin(&wk);
#pragma omp for schedule(static)
            for (int64_t j = 0; j < n; j++) {
                int64_t s, mid, end;
                if (!minv_tri_sm_block(n, h, j, &s, &mid, &end))
                    continue;
                T *col = x + j * ld;
                for (int64_t i = s; i < end; i++)
                    col[i] = (T)(((i < mid) == (j < mid) ? (double)col[i] : 0.0) - w[i] * z[j]);
            }
            minv_worker_end(&wk);
        }
    }
    return 0;
}

/* Rows [t0, t1) of A^-1, a row y = A^-T e_t each: the forward sweep leaves z in the row, the
 * backward sweep turns it into y; the rows advance together so that each step writes a
 * contiguous piece of a column. */
static void FN(pivoted_rows)(const minv_tri_piv *f, T *x, int64_t ld, int64_t t0, int64_t t1) {
    const int64_t n = f->n;
    double c[MINV_TRI_TILE], y1[MINV_TRI_TILE], y2[MINV_TRI_TILE];
    for (int64_t t = t0; t < t1; t++) c[t - t0] = t == 0 ? 1.0 : 0.0;
    for (int64_t i = minv_tri_piv_first(t0); i + 1 < n; i++)
        for (int64_t t = t0; t < t1; t++)
            if (i >= minv_tri_piv_first(t)) x[t + i * ld] = (T)minv_tri_piv_forward(f, t, i, &c[t - t0]);
    for (int64_t t = t0; t < t1; t++) {
        x[t + (n - 1) * ld] = (T)c[t - t0];
        y1[t - t0] = y2[t - t0] = 0.0;
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        T *col = x + i * ld;
        for (int64_t t = t0; t < t1; t++) {
            double y = minv_tri_piv_backward(f, i, i >= minv_tri_piv_first(t) ? (double)col[t] : 0.0, y1[t - t0],
                                             y2[t - t0]);
            col[t] = (T)y;
            y2[t - t0] = y1[t - t0];
            y1[t - t0] = y;
        }
    }
}

static void FN(pivoted)(const minv_tri_piv *f, minv_mat *xm, int threads) {
    const int64_t n = f->n, T_ = MINV_TRI_TILE;
    const int team = minv_threads_for(threads, (double)n * (double)n);
#pragma omp parallel num_threads(team) if (team > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
#pragma omp for schedule(dynamic, 1)
        for (int64_t t0 = 0; t0 < n; t0 += T_)
            FN(pivoted_rows)(f, (T *)xm->data, xm->ld, t0, t0 + T_ < n ? t0 + T_ : n);
        minv_worker_end(&w);
    }
}
