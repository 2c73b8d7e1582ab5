/* The CPU backend's two paths per call, the unblocked kernels of small orders and LAPACK above
 * them (src_c/cpu/small.h), around the switch and with the right-hand-side counts where the
 * sweeps change hands (up to seven right-hand sides take the sweeps at every order, up to 31
 * below n = 384, on LAPACK's factor above MINV_SMALL_N): every result against LAPACK by the tester ratios, and failures named at
 * the column LAPACK names (potrf's and getrf's info). Also the residual's products (the
 * four-column gemv that replaced a GEMM) against plain loops, the solve residual against one
 * computed here for a solution perturbed on purpose, and the SPD inverse by halves against
 * LAPACK's potri; one right-hand side alone and among up to eight, the same to the bit. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "internal.h"
#include "testutil.h"

static const int64_t sizes[] = {1, 2, 7, 8, 16, 17, 29, 47, 48, 49, 64, 65, 130}; /* 16, 17: one right-hand side's scalar LU solve ends */
static const int64_t rhs_counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 30, 31, 40}; /* 32 columns and beyond: LAPACK's */

static minv_context *cpu(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = 1;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

static void solves(minv_context *ctx, int64_t n, int kind) {
    tu_rng rng;
    tu_seed(&rng, 31 + (uint64_t)n * 3 + (uint64_t)kind);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, 40, n), *x = tu_alloc(n, 40, n);
    if (kind == 0) tu_spd(&rng, n, a, n);
    else if (kind == 1) tu_general(&rng, n, a, n);
    else tu_needs_pivoting(&rng, n, a, n);
    tu_rect(&rng, n, 40, b, n);
    double *alone = tu_alloc(n, 1, n);
    for (size_t r = 0; r < sizeof rhs_counts / sizeof rhs_counts[0]; r++) {
        const int64_t k = rhs_counts[r];
        minv_report rep;
        CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
        /* up to eight right-hand sides every column takes the same sweeps' steps, one alone
         * (in scalars up to MINV_SMALL_SCALAR_N) or among others: the same X to the bit */
        if (k == 1)
            memcpy(alone, x, sizeof(double) * (size_t)n);
        else if (k <= 8)
            CHECK(memcmp(alone, x, sizeof(double) * (size_t)n) == 0, "n %lld kind %d: x_1 alone and among %lld columns differ",
                  (long long)n, kind, (long long)k);
        const double ratio = tu_solve_ratio(n, k, a, n, b, n, x, n, DBL_EPSILON);
        CHECK(ratio < 30, "solve n %lld nrhs %lld kind %d: ratio %.3g", (long long)n, (long long)k, kind, ratio);
        CHECK(rep.rcond > 0 && rep.rcond <= 1, "solve n %lld: rcond %.3g", (long long)n, rep.rcond);
        if (n > 1) /* a 1 x 1 matrix is symmetric */
            CHECK(rep.method == (kind == 0 ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU), "method %s", minv_method_name(rep.method));
    }
    double *ainv = tu_alloc(n, n, n);
    minv_report rep;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, ainv, n, &rep), MINV_SUCCESS, ctx);
    const double ratio = tu_inverse_ratio(n, a, n, ainv, n, DBL_EPSILON);
    CHECK(ratio < 30, "invert n %lld kind %d: ratio %.3g", (long long)n, kind, ratio);
    if (kind == 0 && n > 2) /* (AUTO inverts orders 1 and 2 as tridiagonal matrices) */
        CHECK(tu_symmetric(n, ainv, n), "the SPD inverse of order %lld is symmetric", (long long)n);
    /* the exact rcond of an inverse: 1 / (||A||_1 ||A^-1||_1) */
    const double exact = 1 / (tu_norm1(n, n, a, n) * tu_norm1(n, n, ainv, n));
    CHECK(fabs(rep.rcond - exact) <= 1e-12 * exact, "invert n %lld: rcond %.17g, exact %.17g", (long long)n, rep.rcond, exact);
    /* float too */
    float *af = tu_to_float(n, n, a, n, n), *xf = malloc(sizeof(float) * (size_t)(n * n));
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_AUTO, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
    double *xd = tu_to_double(n, n, xf, n), *ad = tu_to_double(n, n, af, n);
    CHECK(tu_inverse_ratio(n, ad, n, xd, n, FLT_EPSILON) < 30, "float invert n %lld kind %d", (long long)n, kind);
    free(a); free(b); free(x); free(ainv); free(af); free(xf); free(xd); free(ad); free(alone);
}

void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);

/* Failures name LAPACK's column: an indefinite matrix forced to Cholesky, a singular one to LU. */
static void failures(minv_context *ctx, int64_t n) {
    if (n < 3) return;
    tu_rng rng;
    tu_seed(&rng, 77 + (uint64_t)n);
    double *a = tu_alloc(n, n, n), *f = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 1, n);
    tu_spd(&rng, n, a, n);
    tu_rect(&rng, n, 1, b, n);
    const int64_t bad = n / 2;
    a[bad * n + bad] = -1; /* the leading minor of order bad + 1 is indefinite */
    memcpy(f, a, sizeof(double) * (size_t)(n * n));
    int ni = (int)n, info = 0;
    dpotrf_("L", &ni, f, &ni, &info, 1);
    minv_report rep;
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == info - 1, "n %lld: not SPD at column %lld, potrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == info - 1, "n %lld: invert not SPD at column %lld, potrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 1, a, n, b, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "AUTO falls back to LU: %s", minv_method_name(rep.method));
    /* an exactly singular matrix: a zero column */
    tu_general(&rng, n, a, n);
    for (int64_t i = 0; i < n; i++) a[bad * n + i] = 0;
    memcpy(f, a, sizeof(double) * (size_t)(n * n));
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    dgetrf_(&ni, &ni, f, &ni, ipiv, &info);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK(rep.info == info - 1, "n %lld: singular at column %lld, getrf says %d", (long long)n, (long long)rep.info, info);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, n, 1, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK(rep.info == info - 1, "n %lld: solve singular at column %lld, getrf says %d", (long long)n, (long long)rep.info, info);
    free(a); free(f); free(x); free(b); free(ipiv);
}

/* Y = M X and the row sums of |M| for 1-4 vectors, orders not divisible by four and beyond the
 * product's row chunk, a leading dimension with padding, double and float M: every entry
 * against a plain loop. */
static void products(void) {
    static const int64_t shapes[][2] = {{1, 1}, {5, 3}, {7, 9}, {130, 67}, {1031, 6}, {9, 1030}};
    tu_rng rng;
    tu_seed(&rng, 5);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const int64_t rows = shapes[s][0], cols = shapes[s][1], ld = rows + 3;
        double *m = tu_alloc(rows, cols, ld), *x = tu_alloc(cols, MINV_GEMV_MAX, cols);
        double *y = malloc(sizeof(double) * (size_t)(rows * MINV_GEMV_MAX)), *rowabs = malloc(sizeof(double) * (size_t)rows);
        tu_rect(&rng, rows, cols, m, ld);
        tu_rect(&rng, cols, MINV_GEMV_MAX, x, cols);
        float *mf = tu_to_float(rows, cols, m, ld, ld);
        for (int single = 0; single < 2; single++) {
            const minv_mat mm = {single ? MINV_R32 : MINV_R64, rows, cols, ld, single ? (void *)mf : (void *)m};
            for (int k = 1; k <= MINV_GEMV_MAX; k++) {
                minv_gemv_double_multi(&mm, x, k, y, k == 2 ? rowabs : NULL);
                double worst = 0, worst_abs = 0;
                for (int p = 0; p < k; p++)
                    for (int64_t i = 0; i < rows; i++) {
                        double want = 0, scale = 0, sum_abs = 0;
                        for (int64_t j = 0; j < cols; j++) {
                            const double e = single ? (double)mf[j * ld + i] : m[j * ld + i];
                            want += e * x[p * cols + j];
                            scale += fabs(e * x[p * cols + j]);
                            sum_abs += fabs(e);
                        }
                        worst = fmax(worst, fabs(y[p * rows + i] - want) / scale);
                        if (k == 2 && p == 0) worst_abs = fmax(worst_abs, fabs(rowabs[i] - sum_abs) / sum_abs);
                    }
                CHECK(worst < 8 * (double)cols * DBL_EPSILON && worst_abs < 8 * (double)cols * DBL_EPSILON,
                      "product %lld x %lld, %d vectors, %s: error %.3g, row sums %.3g", (long long)rows, (long long)cols,
                      k, single ? "float" : "double", worst, worst_abs);
            }
        }
        free(m); free(x); free(y); free(rowabs); free(mf);
    }
}

/* The sampled solve residual, max_j ||A x_j - b_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf)
 * over its columns, for a solution wrong by 1e-6 in one entry of each column: the value the
 * report would give, against the same ratio computed here. */
static void solve_residual(void) {
    static const int64_t orders[] = {7, 64, 300};
    static const int64_t counts[] = {1, 4, 30};
    tu_rng rng;
    tu_seed(&rng, 9);
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            const int64_t n = orders[o], k = counts[c];
            double *a = tu_alloc(n, n, n), *x = tu_alloc(n, k, n), *b = tu_alloc(n, k, n);
            tu_general(&rng, n, a, n);
            tu_rect(&rng, n, k, x, n);
            double anorm = 0, want = 0;
            for (int64_t i = 0; i < n; i++) {
                double r = 0;
                for (int64_t j = 0; j < n; j++) r += fabs(a[j * n + i]);
                anorm = fmax(anorm, r);
            }
            for (int64_t j = 0; j < k; j++) /* b = A x exactly enough, then x off by 1e-6 * (j + 1) */
                for (int64_t i = 0; i < n; i++) {
                    double s = 0;
                    for (int64_t l = 0; l < n; l++) s += a[l * n + i] * x[j * n + l];
                    b[j * n + i] = s;
                }
            for (int64_t j = 0; j < k; j++) x[j * n + (j * 7) % n] += 1e-6 * (double)(j + 1);
            const int64_t samples = minv_residual_columns(1, k);
            for (int64_t s = 0; s < samples; s++) {
                const int64_t j = minv_residual_column(s, samples, k);
                double r = 0, xn = 0, bn = 0;
                for (int64_t i = 0; i < n; i++) {
                    double ax = 0;
                    for (int64_t l = 0; l < n; l++) ax += a[l * n + i] * x[j * n + l];
                    r = fmax(r, fabs(ax - b[j * n + i]));
                    xn = fmax(xn, fabs(x[j * n + i]));
                    bn = fmax(bn, fabs(b[j * n + i]));
                }
                want = fmax(want, r / (anorm * xn + bn));
            }
            const minv_mat am = {MINV_R64, n, n, n, a}, bm = {MINV_R64, n, k, n, b}, xm = {MINV_R64, n, k, n, x};
            double got = -1;
            CHECK(minv_residual_solve(NULL, 1, &am, &bm, &xm, &got) == MINV_SUCCESS, "residual n %lld", (long long)n);
            CHECK(want > 1e-9 && fabs(got - want) <= 1e-6 * want, "residual n %lld nrhs %lld: %.6g, computed here %.6g",
                  (long long)n, (long long)k, got, want);
            x[(k - 1) * n + n / 2] = NAN; /* the last column is always sampled */
            CHECK(minv_residual_solve(NULL, 1, &am, &bm, &xm, &got) == MINV_SUCCESS && isnan(got),
                  "residual n %lld nrhs %lld with a NaN in X: %.6g", (long long)n, (long long)k, got);
            double v[2] = {1, -1}, w[2] = {1, NAN};
            CHECK(isnan(minv_probe_ratio(2, 1, v, w, 1, 1)), "a probe with a NaN in X A v");
            free(a); free(x); free(b);
        }
}

void dpotri_(const char *, const int *, double *, const int *, int *, size_t);

/* potri's result by halves (cpu/potri.c) against LAPACK's potri itself, around the block where
 * trtri takes over and at orders that split unevenly. */
static void spd_inverse(void) {
    static const int64_t orders[] = {1, 31, 32, 33, 65, 100, 257};
    tu_rng rng;
    tu_seed(&rng, 13);
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
        const int64_t n = orders[o];
        double *l = tu_alloc(n, n, n), *mine = tu_alloc(n, n, n), *theirs = tu_alloc(n, n, n);
        tu_spd(&rng, n, l, n);
        int ni = (int)n, info = 0;
        dpotrf_("L", &ni, l, &ni, &info, 1);
        memcpy(mine, l, sizeof(double) * (size_t)(n * n));
        memcpy(theirs, l, sizeof(double) * (size_t)(n * n));
        dpotri_("L", &ni, theirs, &ni, &info, 1);
        CHECK(minv_cpu_potri(MINV_R64, n, mine, n) == 0, "potri n %lld", (long long)n);
        double diff = 0, scale = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j; i < n; i++) {
                diff = fmax(diff, fabs(mine[j * n + i] - theirs[j * n + i]));
                scale = fmax(scale, fabs(theirs[j * n + i]));
            }
        CHECK(diff <= 1e-13 * scale, "potri n %lld: %.3g from LAPACK's, relative to its largest entry", (long long)n,
              diff / scale);
        free(l); free(mine); free(theirs);
    }
}

int main(void) {
    products();
    spd_inverse();
    solve_residual();
    minv_context *ctx = cpu();
    if (!ctx) return 1;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int kind = 0; kind < 3; kind++) solves(ctx, sizes[s], kind);
        failures(ctx, sizes[s]);
    }
    minv_destroy(ctx);
    return tu_finish("test_cpu_kernels");
}
