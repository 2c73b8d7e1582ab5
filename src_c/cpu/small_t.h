/* Type template for small.c: unblocked kernels for small orders, in T with FN(name) the name
 * with the precision suffix. Column-major with a leading dimension; every inner loop runs down
 * a column, so that it vectorises. */

/* A = L L^T, L in the lower triangle (the strict upper one untouched). Returns 0, or the
 * 1-based column whose pivot is not positive (NaN included), as potrf's info. Left-looking:
 * column j is a(j:n, j) - L(j:n, 0:j) L(j, 0:j)^T, eight rows at a time with the even and
 * the odd k summed apart, so that four chains of vector FMAs run at once and each entry of L
 * is loaded once per column it updates (the right-looking form loads and stores the trailing
 * matrix at every step, and one chain per column waits on the FMA's latency). */
MINV_SIMD_CLONES static int64_t FN(small_potrf)(int64_t n, T *a, int64_t ld) {
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)ld;
        const int64_t pairs = j / 2 * 2;
        int64_t i = j;
        for (; i + 8 <= n; i += 8) {
            FN(minv_v4) s0 = FN(minv_load4)(cj + i), s1 = FN(minv_load4)(cj + i + 4), t0 = {0}, t1 = {0};
            for (int64_t k = 0; k < pairs; k += 2) {
                const T *ck = a + (size_t)k * (size_t)ld, *ck1 = ck + ld, l = ck[j], l1 = ck1[j];
                s0 -= FN(minv_load4)(ck + i) * l;
                s1 -= FN(minv_load4)(ck + i + 4) * l;
                t0 -= FN(minv_load4)(ck1 + i) * l1;
                t1 -= FN(minv_load4)(ck1 + i + 4) * l1;
            }
            if (pairs < j) {
                const T *ck = a + (size_t)pairs * (size_t)ld, l = ck[j];
                s0 -= FN(minv_load4)(ck + i) * l;
                s1 -= FN(minv_load4)(ck + i + 4) * l;
            }
            FN(minv_store4)(cj + i, s0 + t0);
            FN(minv_store4)(cj + i + 4, s1 + t1);
        }
        for (; i + 4 <= n; i += 4) {
            FN(minv_v4) s0 = FN(minv_load4)(cj + i), t0 = {0};
            for (int64_t k = 0; k < pairs; k += 2) {
                const T *ck = a + (size_t)k * (size_t)ld, *ck1 = ck + ld;
                s0 -= FN(minv_load4)(ck + i) * ck[j];
                t0 -= FN(minv_load4)(ck1 + i) * ck1[j];
            }
            if (pairs < j) {
                const T *ck = a + (size_t)pairs * (size_t)ld;
                s0 -= FN(minv_load4)(ck + i) * ck[j];
            }
            FN(minv_store4)(cj + i, s0 + t0);
        }
        for (; i < n; i++) {
            T s = cj[i];
            for (int64_t k = 0; k < j; k++) s -= a[(size_t)k * (size_t)ld + (size_t)i] * a[(size_t)k * (size_t)ld + (size_t)j];
            cj[i] = s;
        }
        const T d = cj[j];
        if (!(d > 0)) return j + 1;
        /* 1 / sqrt(d) as sqrt(d) (1 / d): the square root and the division run side by side
         * instead of one after the other, on the chain that every later column waits on */
        const T l = (T)__builtin_sqrt((double)d), inv = l * ((T)1 / d);
        cj[j] = l;
#pragma omp simd
        for (int64_t r = j + 1; r < n; r++) cj[r] *= inv;
    }
    return 0;
}

/* x(j .. j + 3) from the 4 x 4 triangle of a lower triangular factor at column j (unit: its
 * diagonal is 1, LU's L), then x(j + 4 .. n) -= L(j + 4 .. n, j .. j + 3) x(j .. j + 3), for the
 * R right-hand sides at b (R <= 4, a constant where it is inlined, so that the loop over them
 * unrolls): each entry of L is loaded once for all R, each x once for four columns of L. */
MINV_INLINE void FN(lower_block4)(int64_t n, int64_t j, const T *l, int64_t ld, int unit, T *b, int64_t ldb,
                                  const int R) {
    const T *c0 = l + (size_t)j * (size_t)ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    /* the diagonal's reciprocals: four divisions that do not wait on x, so that the chain of
     * dependent steps down x multiplies (a division's latency is 4-5 multiplications') */
    const T d0 = unit ? 1 : (T)1 / c0[j], d1 = unit ? 1 : (T)1 / c1[j + 1], d2 = unit ? 1 : (T)1 / c2[j + 2],
            d3 = unit ? 1 : (T)1 / c3[j + 3];
    T xs[4][4];
    for (int r = 0; r < R; r++) {
        T *x = b + (size_t)r * (size_t)ldb;
        T x0 = x[j];
        if (!unit) x0 *= d0;
        T x1 = x[j + 1] - c0[j + 1] * x0;
        if (!unit) x1 *= d1;
        T x2 = x[j + 2] - c0[j + 2] * x0 - c1[j + 2] * x1;
        if (!unit) x2 *= d2;
        T x3 = x[j + 3] - c0[j + 3] * x0 - c1[j + 3] * x1 - c2[j + 3] * x2;
        if (!unit) x3 *= d3;
        x[j] = xs[r][0] = x0;
        x[j + 1] = xs[r][1] = x1;
        x[j + 2] = xs[r][2] = x2;
        x[j + 3] = xs[r][3] = x3;
    }
#pragma omp simd
    for (int64_t i = j + 4; i < n; i++) {
        const T a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i];
        for (int r = 0; r < R; r++)
            b[(size_t)r * (size_t)ldb + (size_t)i] -= a0 * xs[r][0] + a1 * xs[r][1] + a2 * xs[r][2] + a3 * xs[r][3];
    }
}

/* L^T x = y for rows j .. j + 3, the rows below them solved, for the R <= 2 right-hand sides at
 * b: four dot products each with L's columns j .. j + 3 in one pass, then the 4 x 4
 * triangle. */
MINV_INLINE void FN(lower_t_block4)(int64_t n, int64_t j, const T *l, int64_t ld, T *b, int64_t ldb, const int R) {
    const T *c0 = l + (size_t)j * (size_t)ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    const T *y0 = b, *y1 = b + (R > 1 ? ldb : 0);
    T s00 = 0, s01 = 0, s02 = 0, s03 = 0, s10 = 0, s11 = 0, s12 = 0, s13 = 0;
#pragma omp simd reduction(+ : s00, s01, s02, s03, s10, s11, s12, s13)
    for (int64_t i = j + 4; i < n; i++) {
        const T a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i];
        s00 += a0 * y0[i];
        s01 += a1 * y0[i];
        s02 += a2 * y0[i];
        s03 += a3 * y0[i];
        if (R > 1) {
            s10 += a0 * y1[i];
            s11 += a1 * y1[i];
            s12 += a2 * y1[i];
            s13 += a3 * y1[i];
        }
    }
    const T s[2][4] = {{s00, s01, s02, s03}, {s10, s11, s12, s13}};
    const T d0 = (T)1 / c0[j], d1 = (T)1 / c1[j + 1], d2 = (T)1 / c2[j + 2], d3 = (T)1 / c3[j + 3]; /* as in lower_block4 */
    for (int r = 0; r < R; r++) {
        T *x = b + (size_t)r * (size_t)ldb;
        const T x3 = (x[j + 3] - s[r][3]) * d3;
        const T x2 = (x[j + 2] - s[r][2] - c2[j + 3] * x3) * d2;
        const T x1 = (x[j + 1] - s[r][1] - c1[j + 2] * x2 - c1[j + 3] * x3) * d1;
        x[j] = (x[j] - s[r][0] - c0[j + 1] * x1 - c0[j + 2] * x2 - c0[j + 3] * x3) * d0;
        x[j + 1] = x1;
        x[j + 2] = x2;
        x[j + 3] = x3;
    }
}

/* L y = b for every right-hand side (unit: L's diagonal is 1): four columns of L and up to
 * four right-hand sides a step, the last n % 4 columns one at a time. */
MINV_INLINE void FN(lower_sweep)(int64_t n, int64_t nrhs, const T *l, int64_t ld, int unit, T *b, int64_t ldb) {
    const int64_t top = n / 4 * 4;
    for (int64_t j = 0; j < top; j += 4)
        for (int64_t r = 0; r < nrhs; r += 4) {
            T *br = b + (size_t)r * (size_t)ldb;
            switch (nrhs - r) {
            case 1: FN(lower_block4)(n, j, l, ld, unit, br, ldb, 1); break;
            case 2: FN(lower_block4)(n, j, l, ld, unit, br, ldb, 2); break;
            case 3: FN(lower_block4)(n, j, l, ld, unit, br, ldb, 3); break;
            default: FN(lower_block4)(n, j, l, ld, unit, br, ldb, 4); break;
            }
        }
    for (int64_t j = top; j < n; j++) {
        const T *cj = l + (size_t)j * (size_t)ld;
        for (int64_t r = 0; r < nrhs; r++) {
            T *x = b + (size_t)r * (size_t)ldb;
            const T xj = unit ? x[j] : x[j] / cj[j];
            x[j] = xj;
            for (int64_t i = j + 1; i < n; i++) x[i] -= xj * cj[i];
        }
    }
}

/* L^T x = y, the back half of small_potrs. */
MINV_INLINE void FN(potrs_back)(int64_t n, int64_t nrhs, const T *l, int64_t ld, T *b, int64_t ldb) {
    const int64_t top = n / 4 * 4; /* rows top .. n - 1 one at a time */
    for (int64_t j = n - 1; j >= top; j--) {
        const T *cj = l + (size_t)j * (size_t)ld;
        for (int64_t r = 0; r < nrhs; r++) {
            T *x = b + (size_t)r * (size_t)ldb, s = 0;
            for (int64_t i = j + 1; i < n; i++) s += cj[i] * x[i];
            x[j] = (x[j] - s) / cj[j];
        }
    }
    for (int64_t j = top - 4; j >= 0; j -= 4)
        for (int64_t r = 0; r < nrhs; r += 2) {
            T *br = b + (size_t)r * (size_t)ldb;
            if (nrhs - r == 1) FN(lower_t_block4)(n, j, l, ld, br, ldb, 1);
            else FN(lower_t_block4)(n, j, l, ld, br, ldb, 2);
        }
}

/* Cholesky's forward sweep of one right-hand side up to order MINV_SMALL_SCALAR_N, in
 * scalars (as getrs_one); its back half, dot products, stays in vectors. */
MINV_SIMD_CLONES MINV_NO_VECTORIZE static void FN(lower_one)(int64_t n, const T *l, int64_t ld, T *b) {
    FN(lower_sweep)(n, 1, l, ld, 0, b, n);
}

/* B = A^-1 B from potrf's L: L y = b down the columns of L, then L^T x = y by dot products
 * with the same columns, four columns of L at a time and every right-hand side at each step,
 * so that L is read in place (no transposed copy), once a sweep, and the sweeps' chains of
 * dependent steps overlap across the right-hand sides. */
MINV_SIMD_CLONES static void FN(small_potrs)(int64_t n, int64_t nrhs, const T *l, int64_t ld, T *b, int64_t ldb) {
    if (nrhs == 1 && n <= MINV_SMALL_SCALAR_N) FN(lower_one)(n, l, ld, b);
    else FN(lower_sweep)(n, nrhs, l, ld, 0, b, ldb);
    FN(potrs_back)(n, nrhs, l, ld, b, ldb);
}

/* Rows r and p of the n columns of a interchanged (nothing where r == p). */
MINV_INLINE void FN(swap_rows)(int64_t n, T *a, int64_t ld, int64_t r, int64_t p) {
    if (p == r) return;
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)ld;
        const T t = cj[r];
        cj[r] = cj[p];
        cj[p] = t;
    }
}

/* P A = L U with partial pivoting (getf2's pivots: the first largest |a_ij| of the column),
 * ipiv 0-based. Returns 0, or the 1-based column with no nonzero pivot. */
MINV_SIMD_CLONES static int64_t FN(small_getrf)(int64_t n, T *a, int64_t ld, int *ipiv) {
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)ld;
        int64_t p = j;
        for (int64_t i = j + 1; i < n; i++)
            if (fabs((double)cj[i]) > fabs((double)cj[p])) p = i;
        ipiv[j] = (int)p;
        if (cj[p] == 0) return j + 1;
        FN(swap_rows)(n, a, ld, j, p);
        const T inv = (T)1 / cj[j];
#pragma omp simd
        for (int64_t i = j + 1; i < n; i++) cj[i] *= inv;
        for (int64_t k = j + 1; k < n; k++) {
            T *ck = a + (size_t)k * (size_t)ld;
            const T f = ck[j];
#pragma omp simd
            for (int64_t i = j + 1; i < n; i++) ck[i] -= f * cj[i];
        }
    }
    return 0;
}

/* U x = y for columns j .. j + 3, the columns right of them solved: the 4 x 4 triangle, then
 * x(0 .. j) -= U(0 .. j, j .. j + 3) x(j .. j + 3), for the R <= 4 right-hand sides at b as in
 * lower_block4. */
MINV_INLINE void FN(upper_block4)(int64_t j, const T *u, int64_t ld, T *b, int64_t ldb, const int R) {
    const T *c0 = u + (size_t)j * (size_t)ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld;
    const T d0 = (T)1 / c0[j], d1 = (T)1 / c1[j + 1], d2 = (T)1 / c2[j + 2], d3 = (T)1 / c3[j + 3]; /* as in lower_block4 */
    T xs[4][4];
    for (int r = 0; r < R; r++) {
        T *x = b + (size_t)r * (size_t)ldb;
        const T x3 = x[j + 3] * d3;
        const T x2 = (x[j + 2] - c3[j + 2] * x3) * d2;
        const T x1 = (x[j + 1] - c2[j + 1] * x2 - c3[j + 1] * x3) * d1;
        const T x0 = (x[j] - c1[j] * x1 - c2[j] * x2 - c3[j] * x3) * d0;
        x[j] = xs[r][0] = x0;
        x[j + 1] = xs[r][1] = x1;
        x[j + 2] = xs[r][2] = x2;
        x[j + 3] = xs[r][3] = x3;
    }
#pragma omp simd
    for (int64_t i = 0; i < j; i++) {
        const T a0 = c0[i], a1 = c1[i], a2 = c2[i], a3 = c3[i];
        for (int r = 0; r < R; r++)
            b[(size_t)r * (size_t)ldb + (size_t)i] -= a0 * xs[r][0] + a1 * xs[r][1] + a2 * xs[r][2] + a3 * xs[r][3];
    }
}

/* U x = y, the back half of small_getrs. */
MINV_INLINE void FN(getrs_back)(int64_t n, int64_t nrhs, const T *lu, int64_t ld, T *b, int64_t ldb) {
    const int64_t rem = n % 4; /* U's columns 0 .. rem - 1 one at a time */
    for (int64_t j = n - 4; j >= rem; j -= 4)
        for (int64_t r = 0; r < nrhs; r += 4) {
            T *br = b + (size_t)r * (size_t)ldb;
            switch (nrhs - r) {
            case 1: FN(upper_block4)(j, lu, ld, br, ldb, 1); break;
            case 2: FN(upper_block4)(j, lu, ld, br, ldb, 2); break;
            case 3: FN(upper_block4)(j, lu, ld, br, ldb, 3); break;
            default: FN(upper_block4)(j, lu, ld, br, ldb, 4); break;
            }
        }
    for (int64_t j = rem - 1; j >= 0; j--) {
        const T *cj = lu + (size_t)j * (size_t)ld;
        for (int64_t r = 0; r < nrhs; r++) {
            T *x = b + (size_t)r * (size_t)ldb;
            const T xj = x[j] / cj[j];
            x[j] = xj;
            for (int64_t i = 0; i < j; i++) x[i] -= xj * cj[i];
        }
    }
}

/* small_getrs's sweeps of one right-hand side up to order MINV_SMALL_SCALAR_N, in scalars (so
 * the same result to the bit as the column among others): vectors of x at an offset that
 * shifts each step defeat store-to-load forwarding there. */
MINV_SIMD_CLONES MINV_NO_VECTORIZE static void FN(getrs_one)(int64_t n, const T *lu, int64_t ld, T *b) {
    FN(lower_sweep)(n, 1, lu, ld, 1, b, n);
    FN(getrs_back)(n, 1, lu, ld, b, n);
}

/* B = A^-1 B from small_getrf's factors and pivots (0-based; NULL: B = (L U)^-1 B, no
 * interchanges), four columns of L and U at a time and every right-hand side at each step, so
 * that the factors are read once a sweep whatever nrhs. */
MINV_SIMD_CLONES static void FN(small_getrs)(int64_t n, int64_t nrhs, const T *lu, int64_t ld, const int *ipiv, T *b,
                                             int64_t ldb) {
    for (int64_t r = 0; ipiv && r < nrhs; r++) {
        T *x = b + (size_t)r * (size_t)ldb;
        for (int64_t j = 0; j < n; j++)
            if (ipiv[j] != j) {
                const T t = x[j];
                x[j] = x[ipiv[j]];
                x[ipiv[j]] = t;
            }
    }
    if (nrhs == 1 && n <= MINV_SMALL_SCALAR_N) {
        FN(getrs_one)(n, lu, ld, b);
    } else {
        FN(lower_sweep)(n, nrhs, lu, ld, 1, b, ldb);
        FN(getrs_back)(n, nrhs, lu, ld, b, ldb);
    }
}

/* x = A^-1 x for one vector whose entries above `first` are zero, from Cholesky's L (spd) or
 * LU's factor without interchanges: the forward sweep starts at first's block of four, the
 * blocks of the whole sweep, whose steps before it only carry those zeros, so the result is
 * the whole solve's to the bit for (n - first)^2 / 2 of its n^2 / 2 multiply-adds. */
MINV_SIMD_CLONES static void FN(small_solve_from)(int64_t n, int64_t first, const T *f, int64_t ld, int spd, T *x) {
    const int64_t j0 = first / 4 * 4;
    FN(lower_sweep)(n - j0, 1, f + (size_t)j0 * (size_t)ld + (size_t)j0, ld, !spd, x + j0, n);
    if (spd) FN(potrs_back)(n, 1, f, ld, x, n);
    else FN(getrs_back)(n, 1, f, ld, x, n);
}

/* x = (L U)^-T x = L^-T U^-T x for one vector, from an LU factor (unit L below the diagonal,
 * U on and above it; no interchanges): U^T z = x forward, then L^T y = z backward, each step a
 * dot product down one column of the factor. The condition estimator's transposed solves. */
MINV_SIMD_CLONES static void FN(small_lu_trans_solve)(int64_t n, const T *lu, int64_t ld, T *x) {
    for (int64_t j = 0; j < n; j++) {
        const T *cj = lu + (size_t)j * (size_t)ld;
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t i = 0; i < j; i++) s += cj[i] * x[i];
        x[j] = (x[j] - s) / cj[j];
    }
    for (int64_t j = n - 1; j >= 0; j--) {
        const T *cj = lu + (size_t)j * (size_t)ld;
        T s = 0;
#pragma omp simd reduction(+ : s)
        for (int64_t i = j + 1; i < n; i++) s += cj[i] * x[i];
        x[j] -= s;
    }
}

/* Gauss-Jordan's step k with pivot row p: rows k and p interchanged in every column, row k
 * divided by the pivot and eliminated from the others (f: the multipliers, n entries). */
MINV_INLINE void FN(gj_step)(int64_t n, T *a, int64_t ld, T *f, int64_t k, int64_t p) {
    T *ck = a + (size_t)k * (size_t)ld;
    FN(swap_rows)(n, a, ld, k, p);
    const T inv = (T)1 / ck[k];
#pragma omp simd
    for (int64_t i = 0; i < n; i++) {
        f[i] = ck[i]; /* the multipliers; none for the pivot row */
        ck[i] = 0;
    }
    f[k] = 0;
    ck[k] = 1;
    for (int64_t j = 0; j < n; j++) { /* row k over the pivot, then eliminated from the others */
        T *cj = a + (size_t)j * (size_t)ld;
        const T t = cj[k] * inv;
        cj[k] = t;
#pragma omp simd
        for (int64_t i = 0; i < n; i++) cj[i] -= f[i] * t;
    }
}

/* gj_step with rows k and p trading places inside each column's one vector pass, and row k's
 * new entry blended in there too: scalar stores into a column just before its pass loads it
 * as vectors stall store-to-load forwarding (MINV_SMALL_BLEND_N). Column k is e_k by now, and
 * row k of each column t before its update, f_k = 0, so t - f_k t as in gj_step, which keeps
 * the sign of a zero t: the same bits. */
MINV_INLINE void FN(gj_step_in_pass)(int64_t n, T *a, int64_t ld, T *f, int64_t k, int64_t p) {
    const T *ck = a + (size_t)k * (size_t)ld;
    const T inv = (T)1 / ck[p], kk = ck[k], zero = 0;
#pragma omp simd
    for (int64_t i = 0; i < n; i++) f[i] = i == k ? zero : i == p ? kk : ck[i]; /* the multipliers */
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)ld;
        const T at_k = j == k ? zero : cj[k], t = j == k ? inv : cj[p] * inv;
#pragma omp simd
        for (int64_t i = 0; i < n; i++) {
            const T x = i == k ? t : i == p ? at_k : j == k ? zero : cj[i];
            cj[i] = x - f[i] * t;
        }
    }
}

/* A = A^-1 in place by Gauss-Jordan with partial pivoting (row interchanges, undone on the
 * columns at the end). f: n elements of work, perm: n. Returns 0, or the 1-based column where
 * no nonzero pivot was found, as getrf's info. (For SPD matrices the sweep operator below;
 * Gauss-Jordan without pivoting is not backward stable for ||I - A X||.) */
MINV_SIMD_CLONES static int64_t FN(small_gauss_jordan)(int64_t n, T *a, int64_t ld, T *f, int *perm) {
    for (int64_t k = 0; k < n; k++) {
        T *ck = a + (size_t)k * (size_t)ld;
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (fabs((double)ck[i]) > fabs((double)ck[p])) p = i;
        perm[k] = (int)p;
        if (ck[p] == 0) return k + 1;
        if (n <= MINV_SMALL_BLEND_N) FN(gj_step_in_pass)(n, a, ld, f, k, p);
        else FN(gj_step)(n, a, ld, f, k, p);
    }
    for (int64_t k = n - 1; k >= 0; k--) /* (P A)^-1 P = A^-1: the interchanges, last first, on the columns */
            if (perm[k] != k) {
                T *ck = a + (size_t)k * (size_t)ld, *cp = a + (size_t)perm[k] * (size_t)ld;
#pragma omp simd
                for (int64_t i = 0; i < n; i++) {
                    const T t = ck[i];
                    ck[i] = cp[i];
                    cp[i] = t;
                }
            }
    return 0;
}

/* A = A^-1 in place for an SPD A by the sweep operator on its lower triangle (Goodnight 1979):
 * the matrix stays symmetric, so each step updates one triangle, n^3 flops in all (half of
 * Gauss-Jordan's), and its pivots are potrf's. The sweeps leave -A^-1; the sign is turned
 * at the end. The strict upper triangle is not read; on return it is not meaningful. f: n
 * elements of work. Returns 0, or the 1-based column whose pivot is not positive. */
MINV_SIMD_CLONES static int64_t FN(small_sweep)(int64_t n, T *a, int64_t ld, T *f) {
    for (int64_t k = 0; k < n; k++) {
        T *ck = a + (size_t)k * (size_t)ld;
        const T d = ck[k];
        if (!(d > 0)) return k + 1;
        const T inv = (T)1 / d;
        for (int64_t i = 0; i < k; i++) f[i] = a[(size_t)i * (size_t)ld + (size_t)k]; /* row k, left of the diagonal */
        for (int64_t i = k + 1; i < n; i++) f[i] = ck[i];                               /* column k, below it */
        f[k] = 0;
        for (int64_t j = 0; j < n; j++) { /* a_ij -= f_i f_j / d on the lower triangle, i, j != k */
            if (j == k) continue;
            T *cj = a + (size_t)j * (size_t)ld;
            const T t = f[j] * inv;
#pragma omp simd
            for (int64_t i = j; i < n; i++) cj[i] -= f[i] * t;
        }
        for (int64_t i = 0; i < k; i++) a[(size_t)i * (size_t)ld + (size_t)k] = f[i] * inv;
        for (int64_t i = k + 1; i < n; i++) ck[i] = f[i] * inv;
        ck[k] = -inv;
    }
    for (int64_t j = 0; j < n; j++) {
        T *cj = a + (size_t)j * (size_t)ld;
#pragma omp simd
        for (int64_t i = j; i < n; i++) cj[i] = -cj[i];
    }
    return 0;
}
