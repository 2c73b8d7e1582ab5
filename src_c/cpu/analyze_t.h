/* Type template for analyze.c: included once per precision with T (the element type) and
 * FN(name) (name with the precision suffix) defined. */

/* One thread's columns [j0, j1): row sums into its own rowsum array, the rest into *p. */
static void FN(scan_columns)(const minv_mat *m, int64_t j0, int64_t j1, double *rowsum,
                             minv_scan_totals *p) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows, ld = m->ld;
    for (int64_t j = j0; j < j1; j++) {
        const T *col = a + (size_t)j * (size_t)ld;
        double colsum = 0, max_abs = 0;
        int finite = 1;
        for (int64_t i = 0; i < n; i++) {
            double v = (double)col[i], av = fabs(v);
            colsum += av;
            rowsum[i] += av;
            if (av > max_abs) max_abs = av;
            finite &= isfinite(v);
            minv_sumsq_add(&p->sumsq, v);
        }
        if (!finite) {
            for (int64_t i = 0; i < n; i++) {
                if (!isfinite((double)col[i])) {
                    int64_t idx = j * n + i;
                    if (idx < p->first_bad) p->first_bad = idx;
                    break;
                }
            }
        }
        int64_t first_nonzero = -1, last_nonzero = -1;
        for (int64_t i = 0; i < n; i++) if (col[i] != 0) { first_nonzero = i; break; }
        for (int64_t i = n - 1; i >= 0; i--) if (col[i] != 0) { last_nonzero = i; break; }
        if (first_nonzero >= 0 && j - first_nonzero > p->upper_bw) p->upper_bw = j - first_nonzero;
        if (last_nonzero >= 0 && last_nonzero - j > p->lower_bw) p->lower_bw = last_nonzero - j;
        if (colsum > p->max_colsum || isnan(colsum)) p->max_colsum = colsum;
        if (max_abs > p->max_abs) p->max_abs = max_abs;
    }
}

/* max |a_ij - a_ji| over tile pairs, so both accesses stream through cache. */
static double FN(asymmetry)(const minv_mat *m, int threads) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows, ld = m->ld, tile = 64;
    const int64_t tiles = (n + tile - 1) / tile;
    double worst = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : worst) num_threads(threads) if (threads > 1)
    for (int64_t tj = 0; tj < tiles; tj++) {
        minv_worker w;
        minv_worker_begin(&w);
        for (int64_t ti = tj; ti < tiles; ti++) {
            int64_t i1 = (ti + 1) * tile < n ? (ti + 1) * tile : n;
            int64_t j1 = (tj + 1) * tile < n ? (tj + 1) * tile : n;
            for (int64_t j = tj * tile; j < j1; j++)
                for (int64_t i = (ti * tile > j ? ti * tile : j + 1); i < i1; i++) {
                    double d = fabs((double)a[(size_t)j * ld + i] - (double)a[(size_t)i * ld + j]);
                    if (d > worst) worst = d;
                }
        }
        minv_worker_end(&w);
    }
    return worst;
}

static minv_status FN(analyze)(minv_context *ctx, const minv_mat *m, minv_analysis *out) {
    const T *a = (const T *)m->data;
    const int64_t n = m->rows, ld = m->ld;
    const int threads = minv_threads_for(ctx->cpu_threads, (double)n * (double)n);
    double *rowsums = calloc((size_t)threads * (size_t)n + (size_t)n, sizeof(double));
    minv_scan_totals *parts = calloc((size_t)threads, sizeof *parts);
    if (!rowsums || !parts) {
        free(rowsums);
        free(parts);
        return minv_fail(ctx, MINV_ERR_ALLOC, "analysis needs %d x %lld doubles of workspace",
                         threads + 1, (long long)n);
    }
    double *diag = rowsums + (size_t)threads * (size_t)n;
    /* OpenMP may run fewer threads than asked (inside a parallel region, under a thread
     * limit): only the parts of the team that ran are merged. */
    int team = 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        minv_worker w;
        minv_worker_begin(&w);
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        if (t == 0)
            team = nt;
        minv_scan_totals *p = &parts[t];
        p->first_bad = INT64_MAX;
        FN(scan_columns)(m, n * t / nt, n * (t + 1) / nt, rowsums + (size_t)t * (size_t)n, p);
        minv_worker_end(&w);
    }
    minv_scan_totals all = parts[0];
    for (int t = 1; t < team; t++) {
        minv_scan_totals *p = &parts[t];
        if (p->max_colsum > all.max_colsum || isnan(p->max_colsum)) all.max_colsum = p->max_colsum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        minv_sumsq_merge(&all.sumsq, &p->sumsq);
        if (p->first_bad < all.first_bad) all.first_bad = p->first_bad;
        if (p->lower_bw > all.lower_bw) all.lower_bw = p->lower_bw;
        if (p->upper_bw > all.upper_bw) all.upper_bw = p->upper_bw;
    }
    for (int t = 1; t < team; t++)
        for (int64_t i = 0; i < n; i++) rowsums[i] += rowsums[(size_t)t * (size_t)n + i];
    for (int64_t i = 0; i < n; i++) diag[i] = (double)a[(size_t)i * ld + i];
    int finite = all.first_bad == INT64_MAX;
    double asym = finite && all.max_abs > 0 ? FN(asymmetry)(m, threads) : 0;
    minv_analysis_assemble(ctx, n, &all, rowsums, diag, asym, out);
    free(rowsums);
    free(parts);
    return MINV_SUCCESS;
}
