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
        /* e_j: the forward sweep from row j on, which the vector's zeros leave unchanged (the
         * largest entries sat near the end, j = 490-509 of 512, on the SOAR matrices) */
        minv_small_solve_from(f->dtype, n, j, f->data, f->ld, spd, x);
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


/* The exact form (minv_rcond_exact_applies): explicit inverses of the factor in squares of
 * order p, n rounded up to 4, zeros outside their triangles, so that every column is whole
 * vectors from an aligned row. */

/* s(r .. r + 7) += sum over k in [k0, k1) of m(r .. r + 7, k) c_k, even and odd k apart: four
 * chains of vector FMAs (one chain waits on each FMA's latency). */
MINV_INLINE void FN(gemv8)(const T *m, int64_t p, int64_t r, int64_t k0, int64_t k1, const T *c, FN(minv_v4) *s0,
                           FN(minv_v4) *s1) {
    FN(minv_v4) a0 = {0}, a1 = {0}, b0 = {0}, b1 = {0};
    int64_t k = k0;
    for (; k + 2 <= k1; k += 2) {
        const T *mk = m + (size_t)k * (size_t)p + r, *mk1 = mk + p;
        a0 += FN(minv_load4)(mk) * c[k];
        a1 += FN(minv_load4)(mk + 4) * c[k];
        b0 += FN(minv_load4)(mk1) * c[k + 1];
        b1 += FN(minv_load4)(mk1 + 4) * c[k + 1];
    }
    if (k < k1) {
        const T *mk = m + (size_t)k * (size_t)p + r;
        a0 += FN(minv_load4)(mk) * c[k];
        a1 += FN(minv_load4)(mk + 4) * c[k];
    }
    *s0 = a0 + b0;
    *s1 = a1 + b1;
}

/* The four rows r .. r + 3 of gemv8. */
MINV_INLINE FN(minv_v4) FN(gemv4)(const T *m, int64_t p, int64_t r, int64_t k0, int64_t k1, const T *c) {
    FN(minv_v4) a = {0}, b = {0};
    int64_t k = k0;
    for (; k + 2 <= k1; k += 2) {
        a += FN(minv_load4)(m + (size_t)k * (size_t)p + r) * c[k];
        b += FN(minv_load4)(m + (size_t)(k + 1) * (size_t)p + r) * c[k + 1];
    }
    if (k < k1) a += FN(minv_load4)(m + (size_t)k * (size_t)p + r) * c[k];
    return a + b;
}

/* m = L^-1 for L lower triangular (unit: its diagonal taken as 1, LU's L), as trti2 builds it
 * from the right: m_j = M22 c with c = -L(j+1:n, j) / l_jj, rows r of m_j summing over the
 * columns k <= r + 7 of M22 that reach them; then m_jj = 1 / l_jj. c: n elements. */
MINV_INLINE void FN(lower_inverse)(int64_t n, const T *l, int64_t ld, int unit, T *m, int64_t p, T *c) {
    for (int64_t j = n - 1; j >= 0; j--) {
        const T *lj = l + (size_t)j * (size_t)ld;
        T *mj = m + (size_t)j * (size_t)p;
        const T d = unit ? (T)1 : (T)1 / lj[j];
        for (int64_t k = j + 1; k < n; k++) c[k] = -lj[k] * d;
        int64_t r = j / 4 * 4;
        for (; r + 8 <= p; r += 8) {
            FN(minv_v4) s0, s1;
            FN(gemv8)(m, p, r, j + 1, r + 8 < n ? r + 8 : n, c, &s0, &s1);
            FN(minv_store4)(mj + r, s0);
            FN(minv_store4)(mj + r + 4, s1);
        }
        if (r < p) FN(minv_store4)(mj + r, FN(gemv4)(m, p, r, j + 1, n, c));
        mj[j] = d; /* the rows above it summed to zero */
    }
}

/* v = U^-1 for U upper triangular, from the left: v_j = V11 c with c = -U(0:j, j) / u_jj,
 * rows r of v_j summing over the columns r <= k < j of V11 that reach them; v_jj = 1 / u_jj. */
MINV_INLINE void FN(upper_inverse)(int64_t n, const T *u, int64_t ld, T *v, int64_t p, T *c) {
    for (int64_t j = 0; j < n; j++) {
        const T *uj = u + (size_t)j * (size_t)ld;
        T *vj = v + (size_t)j * (size_t)p;
        const T d = (T)1 / uj[j];
        for (int64_t k = 0; k < j; k++) c[k] = -uj[k] * d;
        int64_t r = 0;
        for (; r + 8 <= j + 1; r += 8) {
            FN(minv_v4) s0, s1;
            FN(gemv8)(v, p, r, r, j, c, &s0, &s1);
            FN(minv_store4)(vj + r, s0);
            FN(minv_store4)(vj + r + 4, s1);
        }
        for (; r <= j; r += 4) FN(minv_store4)(vj + r, FN(gemv4)(v, p, r, r, j, c));
        vj[j] = d; /* the rows below it summed to zero */
    }
}

/* ||A^-1||_1 = max_j ||M^T M e_j||_1 with M = L^-1 (Cholesky, n^3 / 3 flops): the lower
 * triangle of M^T M by dot products of M's columns, four at a time, each |entry| added to its
 * column's sum and its mirror's. The work on the stack, 32 KB at most in double. */
MINV_SIMD_CLONES static double FN(exact_spd)(const minv_mat *f) {
    enum { P = (MINV_RCOND_EXACT_SPD_N + 3) / 4 * 4 };
    const int64_t n = f->rows, p = (n + 3) / 4 * 4;
    T m[P * P], c[P];
    double sums[P], own_sums[P], worst = 0;
    /* by the C library: GCC's inline rep stos of a fixed-size clear took 50 ns here at n = 8 */
    minv_zero(sums, (size_t)p * sizeof(double));
    minv_zero(m, (size_t)p * (size_t)p * sizeof(T));
    FN(lower_inverse)(n, (const T *)f->data, f->ld, 0, m, p, c);
    for (int64_t j = 0; j < n; j++) {
        const T *mj = m + (size_t)j * (size_t)p;
        minv_v4_d own = {0};
        for (int64_t i0 = j / 4 * 4; i0 < n; i0 += 4) { /* |G(i0 .. i0 + 3, j)| */
            const T *mi = m + (size_t)i0 * (size_t)p;
            minv_v4_d g[4] = {{0}}, t[4];
            for (int64_t r = i0; r < p; r += 4) {
                const FN(minv_v4) x = FN(minv_load4)(mj + r);
                for (int q = 0; q < 4; q++)
                    g[q] += __builtin_convertvector(FN(minv_load4)(mi + (size_t)q * (size_t)p + r) * x, minv_v4_d);
            }
            minv_transpose4(g, t);
            minv_v4_d e = minv_abs4((t[0] + t[1]) + (t[2] + t[3]));
            if (i0 <= j) /* the diagonal's block: the rows below j are mirrored, j itself is not */
                for (int q = 0; q < 4; q++) {
                    if (i0 + q == j) own[0] += e[q];
                    if (i0 + q <= j) e[q] = 0;
                }
            own += e;
            minv_add4_to(sums + i0, e);
        }
        /* added after the loop: a scalar store into sums here, loaded whole by the next
         * column's vector of it, stalled store-to-load forwarding (sums[j] is final here: the
         * later columns add only below their own rows) */
        own_sums[j] = minv_sum4(own);
    }
    for (int64_t j = 0; j < n; j++) {
        const double total = sums[j] + own_sums[j];
        if (total > worst || isnan(total)) worst = total;
    }
    return worst;
}

/* ||A^-1||_1 = max_j ||U^-1 L^-1 e_j||_1 (LU, 2 n^3 / 3 flops: A^-1 = U^-1 L^-1 P, whose
 * columns are U^-1 L^-1's in another order), each column by gemv8 over the columns k >= j
 * of U^-1 that reach its rows. The work on the stack, 36 KB at most in double. */
MINV_SIMD_CLONES static double FN(exact_lu)(const minv_mat *f) {
    enum { P = (MINV_RCOND_EXACT_LU_N + 3) / 4 * 4 };
    const int64_t n = f->rows, p = (n + 3) / 4 * 4;
    T y[P * P], v[P * P], c[P];
    double worst = 0;
    minv_zero(y, (size_t)p * (size_t)p * sizeof(T));
    minv_zero(v, (size_t)p * (size_t)p * sizeof(T));
    FN(lower_inverse)(n, (const T *)f->data, f->ld, 1, y, p, c);
    FN(upper_inverse)(n, (const T *)f->data, f->ld, v, p, c);
    for (int64_t j = 0; j < n; j++) {
        const T *yj = y + (size_t)j * (size_t)p;
        minv_v4_d sum = {0};
        int64_t r = 0;
        for (; r + 8 <= p; r += 8) {
            FN(minv_v4) s0, s1;
            FN(gemv8)(v, p, r, r > j ? r : j, n, yj, &s0, &s1);
            sum += minv_abs4(__builtin_convertvector(s0, minv_v4_d)) + minv_abs4(__builtin_convertvector(s1, minv_v4_d));
        }
        if (r < p) sum += minv_abs4(__builtin_convertvector(FN(gemv4)(v, p, r, r > j ? r : j, n, yj), minv_v4_d));
        const double s = minv_sum4(sum);
        if (s > worst || isnan(s)) worst = s;
    }
    return worst;
}
