/* Type template for lanes.c: the kernels on interleaved groups of members, in T with FN(name)
 * the name with the precision suffix, TI the integer type of T's width. A group holds LANES
 * members of one order n; entry (i, j) of member l is element l of the vector c[j * n + i], so
 * that every step of a factorisation is one vector operation for all the members at once. A
 * lane that fails (a pivot not positive, or exactly zero) records its column and goes on with
 * a pivot of 1, so that nothing of it reaches the other lanes; its values are then not used. */

#define LANES ((int)(32 / sizeof(T)))
typedef T FN(vec) __attribute__((vector_size(32), aligned(32)));
typedef TI FN(mask) __attribute__((vector_size(32), aligned(32)));
typedef double FN(vecd) __attribute__((vector_size(32 / sizeof(T) * 8), aligned(32)));
typedef long long FN(maskd) __attribute__((vector_size(32 / sizeof(T) * 8), aligned(32)));
#define V FN(vec)
#define M FN(mask)
#define VD FN(vecd)
#define MD FN(maskd)

MINV_INLINE V FN(splat)(T x) { return (V){0} + x; }

MINV_INLINE V FN(blend)(M m, V a, V b) { return (V)(((M)a & m) | ((M)b & ~m)); }

MINV_INLINE V FN(vabs)(V x) { return (V)((M)x & ((M){0} + (TI)(((unsigned TI)-1) >> 1))); }

/* The lanes of `fails` not failed before get `column + 1` in info; all of them in *failed. */
MINV_INLINE void FN(record)(M fails, M *failed, int64_t column, int64_t *info) {
    const M fresh = fails & ~*failed;
    for (int l = 0; l < LANES; l++)
        if (fresh[l]) info[l] = column + 1;
    *failed |= fails;
}

/* The lanes of a vector in double, for sums that must not round as T does. */
MINV_INLINE VD FN(wide)(V x) { return __builtin_convertvector(x, VD); }

MINV_INLINE VD FN(wabs)(VD x) { return (VD)((MD)x & ((MD){0} + INT64_MAX)); }

MINV_INLINE VD FN(wmax)(VD x, VD y) {
    const MD larger = x > y;
    return (VD)(((MD)x & larger) | ((MD)y & ~larger));
}

MINV_INLINE V FN(vsqrt)(V x) {
    V r;
    for (int l = 0; l < LANES; l++) r[l] = (T)sqrt((double)x[l]);
    return r;
}

/* The smallest |diagonal| of each lane's factor, in double. */
MINV_INLINE void FN(min_diagonal)(int64_t n, const V *c, double *out) {
    V least = FN(vabs)(c[0]);
    for (int64_t j = 1; j < n; j++) {
        const V d = FN(vabs)(c[(size_t)j * (size_t)n + (size_t)j]);
        least = FN(blend)(d < least, d, least);
    }
    for (int l = 0; l < LANES; l++) out[l] = (double)least[l];
}

/* Rows i .. i + R - 1 of columns j and j + 1 together: each L(i, k) loaded once for both
 * columns' sums (the k = j term of column j + 1 is left for after column j is done). */
MINV_INLINE void FN(potrf_rows2)(int64_t n, V *c, int64_t j, int64_t i, const int R) {
    V s[6], t[6];
    V *cj = c + (size_t)j * (size_t)n, *cj1 = cj + n;
    for (int q = 0; q < R; q++) {
        s[q] = cj[i + q];
        t[q] = cj1[i + q];
    }
    for (int64_t k = 0; k < j; k++) {
        const V *ck = c + (size_t)k * (size_t)n, l0 = ck[j], l1 = ck[j + 1];
        for (int q = 0; q < R; q++) {
            const V x = ck[i + q];
            s[q] -= x * l0;
            t[q] -= x * l1;
        }
    }
    for (int q = 0; q < R; q++) {
        cj[i + q] = s[q];
        cj1[i + q] = t[q];
    }
}

/* Column j from its sums: the pivot checked, its square root, the rows below scaled. */
MINV_INLINE void FN(potrf_finish)(int64_t n, V *cj, int64_t j, M *failed, int64_t *info) {
    const V d = cj[j];
    const M ok = d > 0;
    FN(record)(~ok, failed, j, info);
    const V l = FN(vsqrt)(FN(blend)(ok, d, FN(splat)(1))), inv = 1 / l;
    cj[j] = l;
    for (int64_t r = j + 1; r < n; r++) cj[r] *= inv;
}

/* A = L L^T in every lane, L in the lower triangle (the strict upper one is work space). info[l]:
 * 0, or the 1-based column whose pivot is not positive (NaN included), as potrf's; min_diag:
 * the smallest diagonal entry of L. Left-looking, two columns at a time from row j (row j of
 * column j + 1 lies above the diagonal and is not used), six rows a block: twelve chains of
 * FMAs at once (enough to cover their latency), eight loads for twelve of them. */
MINV_SIMD_CLONES static void FN(lanes_potrf)(int64_t n, V *c, int64_t *info, double *min_diag) {
    M failed = {0};
    for (int l = 0; l < LANES; l++) info[l] = 0;
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
        V *cj = c + (size_t)j * (size_t)n, *cj1 = cj + n;
        int64_t i = j;
        for (; i + 6 <= n; i += 6) FN(potrf_rows2)(n, c, j, i, 6);
        switch (n - i) {
        case 1: FN(potrf_rows2)(n, c, j, i, 1); break;
        case 2: FN(potrf_rows2)(n, c, j, i, 2); break;
        case 3: FN(potrf_rows2)(n, c, j, i, 3); break;
        case 4: FN(potrf_rows2)(n, c, j, i, 4); break;
        case 5: FN(potrf_rows2)(n, c, j, i, 5); break;
        default: break;
        }
        FN(potrf_finish)(n, cj, j, &failed, info);
        const V l = cj[j + 1];
        for (int64_t r = j + 1; r < n; r++) cj1[r] -= cj[r] * l;
        FN(potrf_finish)(n, cj1, j + 1, &failed, info);
    }
    if (j < n) { /* the last column of an odd order */
        V *cj = c + (size_t)j * (size_t)n, s = cj[j];
        for (int64_t k = 0; k < j; k++) s -= c[(size_t)k * (size_t)n + (size_t)j] * c[(size_t)k * (size_t)n + (size_t)j];
        cj[j] = s;
        FN(potrf_finish)(n, cj, j, &failed, info);
    }
    FN(min_diagonal)(n, c, min_diag);
}

/* Rows i .. i + R - 1 of C columns of L y = b (from the top) or L^T x = y (from the bottom,
 * rows i - R + 1 .. i): the solved rows' terms summed in registers, each entry of L loaded once
 * for the C columns, then the R x R triangle. */
MINV_INLINE void FN(potrs_rows)(int64_t n, const V *c, V *b, int64_t i, const int R, const int C, const int up) {
    V s[4][2];
    for (int q = 0; q < R; q++)
        for (int r = 0; r < C; r++) s[q][r] = b[(size_t)r * (size_t)n + (size_t)(up ? i - q : i + q)];
    if (!up) {
        for (int64_t k = 0; k < i; k++) {
            const V *ck = c + (size_t)k * (size_t)n;
            for (int q = 0; q < R; q++)
                for (int r = 0; r < C; r++) s[q][r] -= ck[i + q] * b[(size_t)r * (size_t)n + (size_t)k];
        }
        for (int q = 0; q < R; q++) {
            const V *cq = c + (size_t)(i + q) * (size_t)n;
            for (int r = 0; r < C; r++) {
                for (int p = 0; p < q; p++) s[q][r] -= c[(size_t)(i + p) * (size_t)n + (size_t)(i + q)] * s[p][r];
                s[q][r] /= cq[i + q];
            }
        }
    } else {
        for (int64_t k = n - 1; k > i; k--)
            for (int q = 0; q < R; q++) {
                const V l = c[(size_t)(i - q) * (size_t)n + (size_t)k];
                for (int r = 0; r < C; r++) s[q][r] -= l * b[(size_t)r * (size_t)n + (size_t)k];
            }
        for (int q = 0; q < R; q++) {
            const V *cq = c + (size_t)(i - q) * (size_t)n;
            for (int r = 0; r < C; r++) {
                for (int p = 0; p < q; p++) s[q][r] -= cq[i - p] * s[p][r];
                s[q][r] /= cq[i - q];
            }
        }
    }
    for (int q = 0; q < R; q++)
        for (int r = 0; r < C; r++) b[(size_t)r * (size_t)n + (size_t)(up ? i - q : i + q)] = s[q][r];
}

/* One sweep of potrs over C columns at b, four rows a block. */
MINV_INLINE void FN(potrs_sweep)(int64_t n, const V *c, V *b, const int C, const int up) {
    int64_t done = 0;
    for (; done + 4 <= n; done += 4) FN(potrs_rows)(n, c, b, up ? n - 1 - done : done, 4, C, up);
    const int64_t i = up ? n - 1 - done : done;
    switch (n - done) {
    case 1: FN(potrs_rows)(n, c, b, i, 1, C, up); break;
    case 2: FN(potrs_rows)(n, c, b, i, 2, C, up); break;
    case 3: FN(potrs_rows)(n, c, b, i, 3, C, up); break;
    default: break;
    }
}

/* B = A^-1 B from lanes_potrf's L, nrhs columns of n vectors: L y = b, then L^T x = y, both as
 * sums over the rows solved (in registers; L^T's rows are L's columns), two columns of B a
 * pass. */
MINV_SIMD_CLONES static void FN(lanes_potrs)(int64_t n, int64_t nrhs, const V *c, V *b) {
    for (int up = 0; up <= 1; up++) {
        int64_t r = 0;
        for (; r + 2 <= nrhs; r += 2) FN(potrs_sweep)(n, c, b + (size_t)r * (size_t)n, 2, up);
        if (r < nrhs) FN(potrs_sweep)(n, c, b + (size_t)r * (size_t)n, 1, up);
    }
}

/* Rows j and p[l] of lane l swapped over `cols` columns of n entries, for the lanes where
 * they differ. */
MINV_INLINE void FN(swap_rows)(int64_t n, int64_t cols, V *c, int64_t j, const int *p) {
    T *e = (T *)c;
    for (int l = 0; l < LANES; l++) {
        if (p[l] == j) continue;
        for (int64_t k = 0; k < cols; k++) {
            T *col = e + (size_t)k * (size_t)n * LANES;
            const T t = col[(size_t)j * LANES + l];
            col[(size_t)j * LANES + l] = col[(size_t)p[l] * LANES + l];
            col[(size_t)p[l] * LANES + l] = t;
        }
    }
}

/* Each lane's pivot row for column j: the first largest |a(i, j)|, i >= from (getf2's). */
MINV_INLINE void FN(pivot_rows)(int64_t n, const V *cj, int64_t from, int *p) {
    V best = FN(vabs)(cj[from]);
    M at = (M){0} + (TI)from;
    for (int64_t i = from + 1; i < n; i++) {
        const V v = FN(vabs)(cj[i]);
        const M larger = v > best;
        best = FN(blend)(larger, v, best);
        at = (larger & ((M){0} + (TI)i)) | (~larger & at);
    }
    for (int l = 0; l < LANES; l++) p[l] = (int)at[l];
}

/* Rows i .. i + R - 1 of columns j .. j + C - 1 of the left-looking LU, through the columns
 * left of j (or, above the diagonal, left of i, then the unit triangle of L's rows i .. i + R -
 * 1: U's entries): the sums in registers, each entry of L loaded once for the C columns, the
 * terms subtracted in the order the right-looking form subtracts them. */
MINV_INLINE void FN(getrf_rows)(int64_t n, V *c, int64_t j, int64_t i, const int R, const int C, const int upper) {
    V s[4][2];
    V *cj = c + (size_t)j * (size_t)n;
    for (int q = 0; q < R; q++)
        for (int b = 0; b < C; b++) s[q][b] = cj[(size_t)b * (size_t)n + (size_t)(i + q)];
    const int64_t kmax = upper ? i : j;
    for (int64_t k = 0; k < kmax; k++) {
        const V *ck = c + (size_t)k * (size_t)n;
        V u[2];
        for (int b = 0; b < C; b++) u[b] = cj[(size_t)b * (size_t)n + (size_t)k];
        for (int q = 0; q < R; q++) {
            const V x = ck[i + q];
            for (int b = 0; b < C; b++) s[q][b] -= x * u[b];
        }
    }
    if (upper)
        for (int q = 1; q < R; q++)
            for (int r = 0; r < q; r++) {
                const V x = c[(size_t)(i + r) * (size_t)n + (size_t)(i + q)];
                for (int b = 0; b < C; b++) s[q][b] -= x * s[r][b];
            }
    for (int q = 0; q < R; q++)
        for (int b = 0; b < C; b++) cj[(size_t)b * (size_t)n + (size_t)(i + q)] = s[q][b];
}

/* Columns j .. j + C - 1 through the columns left of j: U's entries above row j, the sums from
 * row j down; four rows a block. */
MINV_INLINE void FN(getrf_columns)(int64_t n, V *c, int64_t j, const int C) {
    int64_t i = 0;
    for (; i + 4 <= j; i += 4) FN(getrf_rows)(n, c, j, i, 4, C, 1);
    switch (j - i) {
    case 1: FN(getrf_rows)(n, c, j, i, 1, C, 1); break;
    case 2: FN(getrf_rows)(n, c, j, i, 2, C, 1); break;
    case 3: FN(getrf_rows)(n, c, j, i, 3, C, 1); break;
    default: break;
    }
    for (i = j; i + 4 <= n; i += 4) FN(getrf_rows)(n, c, j, i, 4, C, 0);
    switch (n - i) {
    case 1: FN(getrf_rows)(n, c, j, i, 1, C, 0); break;
    case 2: FN(getrf_rows)(n, c, j, i, 2, C, 0); break;
    case 3: FN(getrf_rows)(n, c, j, i, 3, C, 0); break;
    default: break;
    }
}

/* Column j's pivot row in each lane (getf2's: the first largest |a_ij|, i >= j, into p) swapped
 * in across the whole row; returns 1 / pivot (1 in a lane whose pivot is zero, recorded). */
MINV_INLINE V FN(pivot_step)(int64_t n, V *c, int64_t j, int *p, M *failed, int64_t *info) {
    V *cj = c + (size_t)j * (size_t)n;
    FN(pivot_rows)(n, cj, j, p);
    FN(swap_rows)(n, n, c, j, p);
    const V d = cj[j];
    const M zero = d == 0;
    FN(record)(zero, failed, j, info);
    return 1 / FN(blend)(zero, FN(splat)(1), d);
}

/* Column j's pivot swapped in, then the multipliers below it. */
MINV_INLINE void FN(getrf_pivot)(int64_t n, V *c, int64_t j, int *ipiv, M *failed, int64_t *info) {
    V *cj = c + (size_t)j * (size_t)n;
    const V inv = FN(pivot_step)(n, c, j, ipiv + (size_t)j * LANES, failed, info);
    for (int64_t i = j + 1; i < n; i++) cj[i] *= inv;
}

/* P A = L U in every lane with partial pivoting; ipiv: n x LANES, 0-based, row j of lane l
 * swapped with ipiv[j * LANES + l]. info[l]: 0, or the 1-based column with no nonzero pivot;
 * min_diag: the smallest |U(j, j)|. Left-looking (Crout), two columns at a time: the entries
 * of a column are sums kept in registers, where the right-looking form loads and stores the
 * trailing matrix at every step; the pivots and the rounding are getf2's. */
MINV_SIMD_CLONES static void FN(lanes_getrf)(int64_t n, V *c, int *ipiv, int64_t *info, double *min_diag) {
    M failed = {0};
    for (int l = 0; l < LANES; l++) info[l] = 0;
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
        FN(getrf_columns)(n, c, j, 2);
        FN(getrf_pivot)(n, c, j, ipiv, &failed, info);
        V *cj = c + (size_t)j * (size_t)n, *cj1 = cj + n;
        const V u = cj1[j]; /* column j + 1 through column j */
        for (int64_t i = j + 1; i < n; i++) cj1[i] -= cj[i] * u;
        FN(getrf_pivot)(n, c, j + 1, ipiv, &failed, info);
    }
    if (j < n) {
        FN(getrf_columns)(n, c, j, 1);
        FN(getrf_pivot)(n, c, j, ipiv, &failed, info);
    }
    FN(min_diagonal)(n, c, min_diag);
}

/* B = A^-1 B from lanes_getrf's factors and pivots, nrhs columns of n vectors. */
MINV_SIMD_CLONES static void FN(lanes_getrs)(int64_t n, int64_t nrhs, const V *c, const int *ipiv, V *b) {
    for (int64_t j = 0; j < n; j++) FN(swap_rows)(n, nrhs, b, j, ipiv + (size_t)j * LANES);
    for (int64_t r = 0; r < nrhs; r++) {
        V *x = b + (size_t)r * (size_t)n;
        for (int64_t j = 0; j < n; j++) {
            const V *cj = c + (size_t)j * (size_t)n, xj = x[j];
            for (int64_t i = j + 1; i < n; i++) x[i] -= cj[i] * xj;
        }
        for (int64_t j = n - 1; j >= 0; j--) {
            const V *cj = c + (size_t)j * (size_t)n, xj = x[j] / cj[j];
            x[j] = xj;
            for (int64_t i = 0; i < j; i++) x[i] -= cj[i] * xj;
        }
    }
}

/* Steps an inversion pass takes at once: each entry outside the pass's pivots is loaded and
 * stored once for BLOCK steps (one step a pass is bound by the stores, and at order 64 a group
 * of doubles, 128 KB, streams from L2 at every pass); four, so that two columns' multipliers
 * stay in the sixteen vector registers of AVX2 beside the four loads of F they share. */
#ifndef MINV_LANES_BLOCK
#define MINV_LANES_BLOCK 4
#endif
#define BLOCK MINV_LANES_BLOCK

/* x(i) = (((x(i) - F_0(i) tx_0) - F_1(i) tx_1) - ...), and so y with ty: BLOCK
 * steps on two columns (y may be null), F the steps' n-vector columns one after another. */
MINV_INLINE void FN(block_update)(int64_t n, V *x, V *y, const V *F, const V *tx, const V *ty) {
    V a[BLOCK], b[BLOCK];
    for (int q = 0; q < BLOCK; q++) {
        a[q] = tx[q];
        b[q] = y ? ty[q] : (V){0};
    }
    if (!y) {
        for (int64_t i = 0; i < n; i++) {
            V u = x[i];
            for (int q = 0; q < BLOCK; q++) u -= F[(size_t)q * (size_t)n + (size_t)i] * a[q];
            x[i] = u;
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        V u = x[i], w = y[i];
        for (int q = 0; q < BLOCK; q++) {
            const V fq = F[(size_t)q * (size_t)n + (size_t)i];
            u -= fq * a[q];
            w -= fq * b[q];
        }
        x[i] = u;
        y[i] = w;
    }
}

/* One sweep of the lower triangle on pivot k (small_sweep's step): a_ij -= f_i f_j / d, then
 * row and column k scaled and a_kk = -1 / d. */
MINV_INLINE void FN(sweep_one)(int64_t n, V *c, V *f, int64_t k, M *failed, int64_t *info) {
    V *ck = c + (size_t)k * (size_t)n;
    const V d = ck[k];
    const M ok = d > 0;
    FN(record)(~ok, failed, k, info);
    const V inv = 1 / FN(blend)(ok, d, FN(splat)(1));
    for (int64_t i = 0; i < k; i++) f[i] = c[(size_t)i * (size_t)n + (size_t)k]; /* row k, left of the diagonal */
    for (int64_t i = k + 1; i < n; i++) f[i] = ck[i];                             /* column k, below it */
    f[k] = (V){0};
    for (int64_t j = 0; j < n; j++) {
        if (j == k) continue;
        V *cj = c + (size_t)j * (size_t)n;
        const V t = f[j] * inv;
        for (int64_t i = j; i < n; i++) cj[i] -= f[i] * t;
    }
    for (int64_t i = 0; i < k; i++) c[(size_t)i * (size_t)n + (size_t)k] = f[i] * inv;
    for (int64_t i = k + 1; i < n; i++) ck[i] = f[i] * inv;
    ck[k] = -inv;
}

/* A = A^-1 in every lane for SPD members, by the sweep operator on the lower triangle (as
 * small_sweep: symmetric by construction, potrf's pivots), both triangles written at the end.
 * Pivots go two at a time: with f column k, d its pivot, g column k + 1 after the sweep on k
 * and d2 its pivot then, both sweeps are a_ij -= f_i f_j / d + g_i g_j / d2 off rows and columns
 * k and k + 1, which are then written from f and g; each entry is loaded and stored once for
 * two pivots (the rank-1 step is bound by the stores). f: 2n vectors of work. info[l]: 0, or
 * the 1-based column whose pivot is not positive. */
MINV_SIMD_CLONES static void FN(lanes_sweep)(int64_t n, V *c, V *f, int64_t *info) {
    V *g = f + n;
    M failed = {0};
    for (int l = 0; l < LANES; l++) info[l] = 0;
    int64_t k = 0;
    for (; k + 2 <= n; k += 2) {
        V *ck = c + (size_t)k * (size_t)n, *ck1 = ck + n;
        const V d = ck[k];
        const M ok = d > 0;
        FN(record)(~ok, &failed, k, info);
        const V inv = 1 / FN(blend)(ok, d, FN(splat)(1));
        for (int64_t i = 0; i < k; i++) f[i] = c[(size_t)i * (size_t)n + (size_t)k];
        for (int64_t i = k + 1; i < n; i++) f[i] = ck[i];
        const V tk1 = f[k + 1] * inv; /* a(k + 1, k) after the sweep on k */
        for (int64_t i = 0; i < k; i++) g[i] = c[(size_t)i * (size_t)n + (size_t)k + 1] - f[i] * tk1;
        for (int64_t i = k + 2; i < n; i++) g[i] = ck1[i] - f[i] * tk1;
        const V d2 = ck1[k + 1] - f[k + 1] * tk1;
        const M ok2 = d2 > 0;
        FN(record)(~ok2, &failed, k + 1, info);
        const V inv2 = 1 / FN(blend)(ok2, d2, FN(splat)(1));
        f[k] = f[k + 1] = g[k] = g[k + 1] = (V){0}; /* rows k and k + 1 are written below */
        for (int64_t j = 0; j < n; j++) {
            if (j == k || j == k + 1) continue;
            V *cj = c + (size_t)j * (size_t)n;
            const V tf = f[j] * inv, tg = g[j] * inv2;
            for (int64_t i = j; i < n; i++) cj[i] = (cj[i] - f[i] * tf) - g[i] * tg;
        }
        const V tk = tk1 * inv2;
        for (int64_t i = 0; i < k; i++) {
            c[(size_t)i * (size_t)n + (size_t)k] = f[i] * inv - g[i] * tk;
            c[(size_t)i * (size_t)n + (size_t)k + 1] = g[i] * inv2;
        }
        for (int64_t i = k + 2; i < n; i++) {
            ck[i] = f[i] * inv - g[i] * tk;
            ck1[i] = g[i] * inv2;
        }
        ck[k] = -inv - tk1 * tk;
        ck[k + 1] = tk;
        ck1[k + 1] = -inv2;
    }
    if (k < n) FN(sweep_one)(n, c, f, k, &failed, info);
    for (int64_t j = 0; j < n; j++) /* the sweeps leave -A^-1 */
        for (int64_t i = j; i < n; i++) {
            const V v = -c[(size_t)j * (size_t)n + (size_t)i];
            c[(size_t)j * (size_t)n + (size_t)i] = v;
            c[(size_t)i * (size_t)n + (size_t)j] = v;
        }
}

/* Rows j and p[l] of each lane l interchanged in the column x, by whole vectors (a scalar
 * store into a vector that is then loaded whole stalls its forwarding). */
MINV_INLINE void FN(swap_in_column)(V *x, int64_t j, const int *p) {
    V a = x[j];
    for (int l = 0; l < LANES; l++) {
        if (p[l] == j) continue;
        M lane = {0};
        lane[l] = -1;
        const V b = x[p[l]];
        x[p[l]] = FN(blend)(lane, a, b);
        a = FN(blend)(lane, b, a);
    }
    x[j] = a;
}

/* Gauss-Jordan steps k .. k + bs - 1 (bs <= BLOCK), each as small_gauss_jordan's (the pivot row
 * chosen and swapped in, column k replaced by e_k, row k over the pivot and eliminated from
 * the others) with the same operations in the same order. The pivots' columns first take the
 * steps before their own, one at a time, which gives each step's multipliers F_q and its
 * pivot (the row interchanges commute with the earlier steps' row operations once F is
 * interchanged too); every column then takes the pass's interchanges (there, while it is in L1,
 * rather than across the group at each pivot: at order 64 a row's entries lie 2 KB apart, all
 * in the same few sets of L1) and all bs steps at once, the pivots' rows (a small triangle of
 * work) first. */
MINV_INLINE void FN(gj_block)(int64_t n, V *c, V *F, int *perm, int64_t k, int bs, M *failed, int64_t *info) {
    V inv[BLOCK], fp[BLOCK][BLOCK];
    for (int q = 0; q < bs; q++) {
        const int64_t p = k + q;
        int *pq = perm + (size_t)p * LANES;
        V *cp = c + (size_t)p * (size_t)n, *fq = F + (size_t)q * (size_t)n;
        FN(pivot_rows)(n, cp, p, pq);
        for (int s = q; s < bs; s++) FN(swap_in_column)(c + (size_t)(k + s) * (size_t)n, p, pq);
        for (int r = 0; r < q; r++) FN(swap_in_column)(F + (size_t)r * (size_t)n, p, pq);
        const V d = cp[p];
        const M zero = d == 0;
        FN(record)(zero, failed, p, info);
        inv[q] = 1 / FN(blend)(zero, FN(splat)(1), d);
        for (int64_t i = 0; i < n; i++) fq[i] = cp[i];
        fq[p] = (V){0};
        for (int s = q + 1; s < bs; s++) {
            V *cs = c + (size_t)(k + s) * (size_t)n;
            const V t = cs[p] * inv[q];
            for (int64_t i = 0; i < n; i++) cs[i] -= fq[i] * t;
            cs[p] = t;
        }
    }
    for (int q = 0; q < BLOCK; q++) {
        for (int r = 0; r < bs; r++) fp[q][r] = q < bs ? F[(size_t)q * (size_t)n + (size_t)(k + r)] : (V){0};
        for (int64_t i = 0; i < n; i++) /* the pivots' rows are fp's; steps past bs do nothing */
            if (q >= bs || (i >= k && i < k + bs)) F[(size_t)q * (size_t)n + (size_t)i] = (V){0};
    }
    for (int s = 0; s < bs; s++) {
        V *cs = c + (size_t)(k + s) * (size_t)n;
        for (int64_t i = 0; i < n; i++) cs[i] = (V){0};
        cs[k + s] = FN(splat)(1);
    }
    for (int64_t j = 0; j < n; j += 2) {
        V t[2][BLOCK], x[2][BLOCK];
        const int cols = j + 1 < n ? 2 : 1;
        for (int h = 0; h < cols; h++) {
            V *cj = c + (size_t)(j + h) * (size_t)n;
            if (j + h < k || j + h >= k + bs)
                for (int q = 0; q < bs; q++) FN(swap_in_column)(cj, k + q, perm + (size_t)(k + q) * LANES);
            for (int r = 0; r < bs; r++) x[h][r] = cj[k + r];
            for (int q = 0; q < BLOCK; q++) {
                if (q >= bs) {
                    t[h][q] = (V){0};
                    continue;
                }
                t[h][q] = x[h][q] * inv[q];
                x[h][q] = t[h][q];
                for (int r = 0; r < bs; r++)
                    if (r != q) x[h][r] -= fp[q][r] * t[h][q];
            }
        }
        V *cj = c + (size_t)j * (size_t)n;
        FN(block_update)(n, cj, cols == 2 ? cj + n : NULL, F, t[0], t[1]);
        for (int h = 0; h < cols; h++)
            for (int r = 0; r < bs; r++) cj[(size_t)h * (size_t)n + (size_t)(k + r)] = x[h][r];
    }
}

/* A = A^-1 in every lane by Gauss-Jordan with partial pivoting: small_gauss_jordan's steps
 * (row interchanges, undone on the columns at the end), BLOCK steps a pass. The group's order
 * is a batched member's (at most 64): the pass's work, BLOCK n vectors, is on the stack. perm:
 * n x LANES. info[l]: 0, or the 1-based column with no nonzero pivot. */
MINV_SIMD_CLONES static void FN(lanes_gauss_jordan)(int64_t n, V *c, int *perm, int64_t *info) {
    V F[BLOCK * n];
    M failed = {0};
    for (int l = 0; l < LANES; l++) info[l] = 0;
    for (int64_t k = 0; k < n; k += BLOCK) FN(gj_block)(n, c, F, perm, k, (int)(n - k < BLOCK ? n - k : BLOCK), &failed, info);
    T *e = (T *)c;
    for (int64_t s = n - 1; s >= 0; s--) /* (P A)^-1 P = A^-1: the interchanges, last first, on the columns */
        for (int l = 0; l < LANES; l++) {
            const int p = perm[(size_t)s * LANES + l];
            if (p == s) continue;
            T *ck = e + (size_t)s * (size_t)n * LANES + l, *cp = e + (size_t)p * (size_t)n * LANES + l;
            for (int64_t i = 0; i < n; i++) {
                const T t = ck[(size_t)i * LANES];
                ck[(size_t)i * LANES] = cp[(size_t)i * LANES];
                cp[(size_t)i * LANES] = t;
            }
        }
}

#undef BLOCK
/* The n x cols matrix s (leading dimension lds) into lane l of c, and back. */
static void FN(lanes_pack)(int64_t n, int64_t cols, const T *s, int64_t lds, int l, T *c) {
    for (int64_t j = 0; j < cols; j++) {
        const T *sj = s + (size_t)j * (size_t)lds;
        T *cj = c + (size_t)j * (size_t)n * LANES + (size_t)l;
        for (int64_t i = 0; i < n; i++) cj[(size_t)i * LANES] = sj[i];
    }
}

static void FN(lanes_unpack)(int64_t n, int64_t cols, const T *c, int l, T *s, int64_t lds) {
    for (int64_t j = 0; j < cols; j++) {
        T *sj = s + (size_t)j * (size_t)lds;
        const T *cj = c + (size_t)j * (size_t)n * LANES + (size_t)l;
        for (int64_t i = 0; i < n; i++) sj[i] = cj[(size_t)i * LANES];
    }
}

/* Column j's part of the checks, its n vectors in double at v (the row sums of |a_ij| in
 * rowabs; the column's, the largest entry, the non-finite sum and the diagonal's sign kept in
 * the lanes of *colmax, *largest, *positive; the first bad column in o). */
MINV_INLINE void FN(check_column)(int64_t n, int64_t j, const VD *v, VD *rowabs, VD *norm1, VD *largest, MD *positive,
                                  minv_lanes_checks *o) {
    VD sum[4] = {{0}}, big[4] = {{0}}; /* four chains apart: one would wait on each add */
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int q = 0; q < 4; q++) {
            const VD av = FN(wabs)(v[i + q]);
            rowabs[i + q] += av;
            sum[q] += av;
            big[q] = FN(wmax)(av, big[q]);
        }
    for (; i < n; i++) {
        const VD av = FN(wabs)(v[i]);
        rowabs[i] += av;
        sum[0] += av;
        big[0] = FN(wmax)(av, big[0]);
    }
    const VD colsum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    *largest = FN(wmax)(FN(wmax)(FN(wmax)(big[0], big[1]), FN(wmax)(big[2], big[3])), *largest);
    /* a NaN or Inf makes the column's sum so; so may an overflow of finite entries, which the
     * entries themselves then tell apart */
    for (int l = 0; l < LANES; l++)
        if (!(colsum[l] <= DBL_MAX) && o->bad_col[l] < 0) {
            double nonfinite = 0;
            for (int64_t r = 0; r < n; r++) nonfinite += v[r][l] * 0;
            if (nonfinite != 0) o->bad_col[l] = j;
        }
    *norm1 = FN(wmax)(colsum, *norm1);
    *positive &= v[j] > 0;
}

/* The checks' results from their sums, and with `symmetry` the largest |a_ij - a_ji| over
 * the contiguous vectors of the mirror. */
MINV_INLINE void FN(check_finish)(int64_t n, const V *c, int symmetry, const VD *rowabs, VD norm1, VD largest, MD positive,
                                  minv_lanes_checks *o) {
    VD norminf = {0}, asym = {0};
    for (int64_t i = 0; i < n; i++) norminf = FN(wmax)(rowabs[i], norminf);
    if (symmetry)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j + 1; i < n; i++)
                asym = FN(wmax)(FN(wabs)(FN(wide)(c[(size_t)j * (size_t)n + (size_t)i]) - FN(wide)(c[(size_t)i * (size_t)n + (size_t)j])), asym);
    for (int l = 0; l < LANES; l++) {
        o->anorm_inf[l] = norminf[l];
        o->anorm_1[l] = norm1[l];
        o->max_abs[l] = largest[l];
        o->asym[l] = asym[l];
        o->diag_positive[l] = positive[l] != 0;
    }
}

/* Each lane's checks, in double (batched.c's scan for one member): the first column holding a
 * NaN or Inf, the norms, the largest |a_ij|, whether the diagonal is positive, and with
 * `symmetry` the asymmetry. rowabs: n + n wide vectors of work. */
MINV_SIMD_CLONES static void FN(lanes_scan)(int64_t n, const V *c, int symmetry, VD *rowabs, minv_lanes_checks *o) {
    VD largest = {0}, norm1 = {0}, *v = rowabs + n;
    MD positive = (MD){0} - 1;
    for (int l = 0; l < LANES; l++) o->bad_col[l] = -1;
    for (int64_t i = 0; i < n; i++) rowabs[i] = (VD){0};
    for (int64_t j = 0; j < n; j++) {
        for (int64_t i = 0; i < n; i++) v[i] = FN(wide)(c[(size_t)j * (size_t)n + (size_t)i]);
        FN(check_column)(n, j, v, rowabs, &norm1, &largest, &positive, o);
    }
    FN(check_finish)(n, c, symmetry, rowabs, norm1, largest, positive, o);
}

/* av(:, p) = A v(:, p) in double for `probes` vectors v (n x probes, the same for every lane). */
MINV_SIMD_CLONES static void FN(lanes_probes)(int64_t n, const V *c, const double *v, int probes, VD *av) {
    for (int64_t k = 0; k < n * probes; k++) av[k] = (VD){0};
    for (int64_t j = 0; j < n; j++) {
        const V *cj = c + (size_t)j * (size_t)n;
        for (int p = 0; p < probes; p++) {
            const double vj = v[(size_t)p * (size_t)n + (size_t)j];
            VD *y = av + (size_t)p * (size_t)n;
            for (int64_t i = 0; i < n; i++) y[i] += FN(wide)(cj[i]) * vj;
        }
    }
}

/* y(:, p) = X x(:, p) in double for `probes` columns x of n vectors, and the row sums of |X|. */
MINV_SIMD_CLONES static void FN(lanes_times)(int64_t n, const V *c, const VD *x, int probes, VD *y, VD *rowabs) {
    for (int64_t k = 0; k < n * probes; k++) y[k] = (VD){0};
    for (int64_t i = 0; i < n; i++) rowabs[i] = (VD){0};
    for (int64_t j = 0; j < n; j++) {
        const V *cj = c + (size_t)j * (size_t)n;
        for (int64_t i = 0; i < n; i++) rowabs[i] += FN(wabs)(FN(wide)(cj[i]));
        for (int p = 0; p < probes; p++) {
            const VD xj = x[(size_t)p * (size_t)n + (size_t)j];
            VD *yp = y + (size_t)p * (size_t)n;
            for (int64_t i = 0; i < n; i++) yp[i] += FN(wide)(cj[i]) * xj;
        }
    }
}

/* r = A x - b in double, x and b one column of n vectors each. */
MINV_SIMD_CLONES static void FN(lanes_residual)(int64_t n, const V *c, const V *x, const V *b, VD *r) {
    for (int64_t i = 0; i < n; i++) r[i] = -FN(wide)(b[i]);
    for (int64_t j = 0; j < n; j++) {
        const V *cj = c + (size_t)j * (size_t)n;
        const VD xj = FN(wide)(x[j]);
        for (int64_t i = 0; i < n; i++) r[i] += FN(wide)(cj[i]) * xj;
    }
}

/* sums[j * LANES + l] = ||column j of lane l||_1 in double, for cols columns of n vectors;
 * finite[l] = 0 where one of lane l's entries is NaN or Inf. */
MINV_SIMD_CLONES static void FN(lanes_column_sums)(int64_t n, int64_t cols, const V *b, double *sums, int *finite) {
    VD nonfinite = {0};
    for (int64_t j = 0; j < cols; j++) {
        const V *bj = b + (size_t)j * (size_t)n;
        VD s = {0};
        for (int64_t i = 0; i < n; i++) {
            const VD v = FN(wide)(bj[i]);
            s += FN(wabs)(v);
            nonfinite += v * 0;
        }
        for (int l = 0; l < LANES; l++) sums[(size_t)j * LANES + (size_t)l] = s[l];
    }
    for (int l = 0; l < LANES; l++) finite[l] = nonfinite[l] == 0;
}

/* Lane l of c: the identity (the first n columns) and zeros, for a lane no member fills. */
static void FN(lanes_fill)(int64_t n, int64_t cols, int l, T *c) {
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < n; i++) c[((size_t)j * (size_t)n + (size_t)i) * LANES + (size_t)l] = (T)(i == j);
}

#undef V
#undef M
#undef VD
#undef MD
#undef LANES
