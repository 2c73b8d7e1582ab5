/* Type template for estimate.c: Higham's iteration, as LAPACK's dlacn2 runs it (same start,
 * sign tests, five iterations at most, and the alternating-sign vector at the end), with the
 * solves A^-1 x and A^-T x of solve_with. */

static double FN(asum)(const T *x, int64_t n) {
    double s = 0;
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < n; i++) s += fabs((double)x[i]);
    return s;
}

/* The first index of the largest |x_i| (idamax's). */
static int64_t FN(iamax)(const T *x, int64_t n) {
    int64_t j = 0;
    for (int64_t i = 1; i < n; i++)
        if (fabs((double)x[i]) > fabs((double)x[j])) j = i;
    return j;
}

/* sign(x) into x and sgn; returns whether it equals sgn's previous content (check_same). */
static int FN(signs)(T *x, T *sgn, int64_t n, int check_same) {
    int same = 1;
    for (int64_t i = 0; i < n; i++) {
        const T s = x[i] >= 0 ? (T)1 : (T)-1;
        if (check_same && s != sgn[i]) same = 0;
        x[i] = sgn[i] = s;
    }
    return same;
}

static double FN(estimate)(const minv_mat *f, int spd, T *x, int solved, T *sgn) {
    const int64_t n = f->rows;
    enum { ITMAX = 5 };
    if (!solved) solve_with(f, spd, 0, x);
    if (n == 1) return fabs((double)x[0]);
    double est = FN(asum)(x, n);
    FN(signs)(x, sgn, n, 0);
    solve_with(f, spd, 1, x);
    int64_t j = FN(iamax)(x, n);
    for (int iter = 2;; iter++) {
        memset(x, 0, (size_t)n * sizeof(T));
        x[j] = 1;
        solve_with(f, spd, 0, x);
        const double estold = est;
        est = FN(asum)(x, n);
        /* a repeated sign vector, or no growth: converged (x is not read after a break) */
        if (FN(signs)(x, sgn, n, 1) || est <= estold) break;
        solve_with(f, spd, 1, x);
        const int64_t jlast = j;
        j = FN(iamax)(x, n);
        if (!((double)x[jlast] != fabs((double)x[j]) && iter < ITMAX)) break;
    }
    /* the alternating-sign vector, which catches what the iteration's start misses */
    for (int64_t i = 0; i < n; i++) x[i] = (T)((i % 2 ? -1.0 : 1.0) * (1.0 + (double)i / (double)(n - 1)));
    solve_with(f, spd, 0, x);
    const double alt = 2.0 * FN(asum)(x, n) / (3.0 * (double)n);
    return alt > est ? alt : est;
}
