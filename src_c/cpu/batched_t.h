/* Type template for batched.c: the per-member loops in the compute type T, with FN(name) the
 * name with the precision suffix. Members are dense (leading dimension n). */

/* First column holding a NaN or Inf (-1 if none), ||A||_inf and ||A||_1, and (when
 * `symmetry`) what the SPD path needs: one vectorised pass for the sums, then the asymmetry
 * against the transposed entries (the member is small and in cache). */
static void FN(scan)(const T *a, int64_t n, int symmetry, double *rowabs, member_scan *o) {
    double mx = 0, an1 = 0;
    o->bad_col = -1;
    o->asym = 0;
    o->diag_positive = 1;
    for (int64_t i = 0; i < n; i++) rowabs[i] = 0;
    for (int64_t j = 0; j < n; j++) {
        const T *col = a + (size_t)j * (size_t)n;
        double fin = 0, cs = 0;
#pragma omp simd reduction(+ : fin, cs) reduction(max : mx)
        for (int64_t i = 0; i < n; i++) {
            const double v = (double)col[i], av = fabs(v);
            rowabs[i] += av;
            cs += av;
            mx = av > mx ? av : mx;
            fin += v * 0.0; /* NaN once an entry is NaN or Inf */
        }
        if (fin != 0 && o->bad_col < 0) o->bad_col = j;
        an1 = cs > an1 ? cs : an1;
        o->diag_positive &= col[j] > 0;
    }
    o->max_abs = mx;
    o->anorm_1 = an1;
    o->anorm_inf = 0;
    for (int64_t i = 0; i < n; i++) if (rowabs[i] > o->anorm_inf) o->anorm_inf = rowabs[i];
    if (!symmetry || o->bad_col >= 0)
        return;
    double asym = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j + 1; i < n; i++) {
            const double d = fabs((double)a[(size_t)j * (size_t)n + (size_t)i] - (double)a[(size_t)i * (size_t)n + (size_t)j]);
            asym = d > asym ? d : asym;
        }
    o->asym = asym;
}

static double FN(norm_inf)(const T *a, int64_t n, double *rowabs) {
    double r = 0;
    for (int64_t i = 0; i < n; i++) rowabs[i] = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) rowabs[i] += fabs((double)a[(size_t)j * (size_t)n + (size_t)i]);
    for (int64_t i = 0; i < n; i++) if (rowabs[i] > r || isnan(rowabs[i])) r = rowabs[i];
    return r;
}

/* In-place Gauss-Jordan with partial pivoting, rows never moved: the pivot of step j is the
 * largest unused row p_j of column j, and in the end row p_j of a holds row j of
 * (P A)^-1 = A^-1 P^T, that is x(j, p_c) = a(p_j, c). The GPU kernels do the same, so this is
 * their reference. Returns -1, or the column with no pivot; x receives the inverse. */
static int64_t FN(gauss_jordan)(T *a, int64_t n, int64_t *row_of_step, int8_t *used, T *f, T *x) {
    for (int64_t i = 0; i < n; i++) used[i] = 0;
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)n;
        int64_t p = -1;
        for (int64_t i = 0; i < n; i++)
            if (!used[i] && (p < 0 || fabs((double)cj[i]) > fabs((double)cj[p]))) p = i;
        if (cj[p] == 0)
            return j;
        used[p] = 1;
        row_of_step[j] = p;
        const T inv = (T)1 / cj[p];
        for (int64_t i = 0; i < n; i++) f[i] = cj[i];
        for (int64_t c = 0; c < n; c++) {
            T *col = a + (size_t)c * (size_t)n;
            const T t = c == j ? inv : col[p] * inv; /* the pivot row's new entry */
            for (int64_t i = 0; i < n; i++)
                col[i] = i == p ? t : (c == j ? (T)0 : col[i]) - f[i] * t;
        }
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t c = 0; c < n; c++)
            x[(size_t)row_of_step[c] * (size_t)n + (size_t)j] = a[(size_t)c * (size_t)n + (size_t)row_of_step[j]];
    return -1;
}
