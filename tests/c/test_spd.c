/* The covariance fast path on every backend: SPD inversion at sizes around the GPU's
 * recursion base (256) and beyond, against LAPACK; KMS matrices, whose inverse is known in
 * closed form; SOAR correlations; near-singular and indefinite inputs. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void sizes_against_lapack(minv_context *ctx) {
    static const int64_t sizes[] = {255, 256, 257, 300, 513, 1100};
    tu_rng rng;
    tu_seed(&rng, 801);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int64_t n = sizes[s], lda = n + 5;
        double *a = tu_alloc(n, n, lda), *x = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n);
        minv_report rep;
        tu_spd(&rng, n, a, lda);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, lda, x, n, &rep), MINV_SUCCESS, ctx);
        double ratio = tu_inverse_ratio(n, a, lda, x, n, DBL_EPSILON);
        CHECK(ratio < 30, "%s n=%lld: ratio %.3g", minv_backend_name(rep.backend), (long long)n, ratio);
        CHECK(tu_lapack_inverse(n, a, lda, 1, ref, n) == 0, "LAPACK reference");
        CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-11, "n=%lld: vs LAPACK %.3g", (long long)n, tu_rel_diff(n, n, x, n, ref, n));
        CHECK(tu_symmetric(n, x, n), "n=%lld: both triangles, mirrored", (long long)n);
        CHECK(rep.rcond > 0 && rep.rcond <= 1, "rcond %.3g", rep.rcond);
        /* single precision */
        float *af = tu_to_float(n, n, a, lda, n), *xf = (float *)malloc(sizeof(float) * n * n);
        CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_CHOLESKY, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
        double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
        ratio = tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON);
        CHECK(ratio < 30, "float n=%lld: ratio %.3g", (long long)n, ratio);
        free(a); free(x); free(ref); free(af); free(xf); free(a2); free(x2);
    }
}

static void known_inverses(minv_context *ctx) {
    const int64_t n = 700;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    minv_report rep;
    for (int k = 0; k < 2; k++) {
        const double rho = k ? 0.9 : 0.5;
        tu_kms(n, rho, a, n);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(rep.method == MINV_METHOD_CHOLESKY, "AUTO picks Cholesky for KMS");
        double err = tu_kms_inverse_error(n, rho, x, n);
        CHECK(err < 50 * DBL_EPSILON, "KMS rho=%.1f: error %.3g eps", rho, err / DBL_EPSILON);
    }
    tu_soar(n, 4, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "SOAR: ratio %.3g", tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON));
    free(a);
    free(x);
}

static void hard_inputs(minv_context *ctx) {
    const int64_t n = 400;
    tu_rng rng;
    tu_seed(&rng, 802);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    minv_report rep;
    /* condition 1e10: the residual ratio still holds; the relative error is cond-bound */
    tu_with_cond(&rng, n, 1e10, 1, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "cond 1e10: ratio %.3g", tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON));
    CHECK(rep.rcond > 1e-12 && rep.rcond < 1e-8, "cond 1e10: rcond %.3g", rep.rcond);
    /* symmetric, positive diagonal, indefinite at column 301: NOT_SPD forced, LU under AUTO */
    tu_spd(&rng, n, a, n);
    a[300 * n + 300] = -1e3;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ctx);
    CHECK(rep.info == 300, "not SPD at column %lld", (long long)rep.info);
    /* a positive diagonal, so AUTO tries Cholesky, but row 301 outweighs it */
    for (int64_t i = 0; i < n; i++) a[i * n + 300] = a[300 * n + i] = i == 300 ? 0.5 : (i % 2 ? 3 : -3);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU && strstr(rep.reason, "LU instead"), "AUTO falls back: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "indefinite by LU");
    free(a);
    free(x);
}

/* Many right-hand sides around the GPU's block of 256 and beyond: k = 1, a few, and k > n. */
static void solves(minv_context *ctx) {
    static const int64_t sizes[] = {200, 256, 300, 700};
    static const int64_t rhs[] = {1, 7, 900};
    tu_rng rng;
    tu_seed(&rng, 803);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t r = 0; r < sizeof rhs / sizeof rhs[0]; r++) {
            const int64_t n = sizes[s], k = rhs[r], ld = n + 3;
            double *a = tu_alloc(n, n, ld), *b = tu_alloc(n, k, ld), *x = tu_alloc(n, k, ld);
            minv_report rep;
            if (r == 1) tu_with_cond(&rng, n, 1e10, 1, a, ld);
            else tu_spd(&rng, n, a, ld);
            tu_rect(&rng, n, k, b, ld);
            CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, k, a, ld, b, ld, x, ld, &rep), MINV_SUCCESS, ctx);
            double ratio = tu_solve_ratio(n, k, a, ld, b, ld, x, ld, DBL_EPSILON);
            CHECK(ratio < 30, "%s solve n=%lld k=%lld: ratio %.3g", minv_backend_name(rep.backend), (long long)n,
                  (long long)k, ratio);
            float *af = tu_to_float(n, n, a, ld, n), *bf = tu_to_float(n, k, b, ld, n), *xf = tu_to_float(n, k, b, ld, n);
            if (r != 1) { /* single precision cannot hold condition 1e10 */
                CHECK_STATUS(minv_solve_s(ctx, MINV_METHOD_CHOLESKY, n, k, af, n, bf, n, xf, n, &rep), MINV_SUCCESS, ctx);
                double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n), *x2 = tu_to_double(n, k, xf, n);
                ratio = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON);
                CHECK(ratio < 30, "float solve n=%lld k=%lld: ratio %.3g", (long long)n, (long long)k, ratio);
                free(a2); free(b2); free(x2);
            }
            free(a); free(b); free(x); free(af); free(bf); free(xf);
        }
}

void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, int *,
             const int *, int *, size_t, size_t);

/* The expected floor inverse, V diag(1 / max(lambda, f)) V^T, from LAPACK's eigen-decomposition. */
static void floor_inverse(int64_t n, const double *a, double target, double *x) {
    int nn = (int)n, lwork = 1 + 6 * nn + 2 * nn * nn, liwork = 3 + 5 * nn, info = 0;
    double *v = malloc(sizeof(double) * n * n), *w = malloc(sizeof(double) * n), *work = malloc(sizeof(double) * lwork);
    int *iwork = malloc(sizeof(int) * liwork);
    memcpy(v, a, sizeof(double) * n * n);
    dsyevd_("V", "L", &nn, v, &nn, w, work, &lwork, iwork, &liwork, &info, 1, 1);
    const double f = w[n - 1] / target;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int64_t k = 0; k < n; k++) s += v[k * n + i] * v[k * n + j] / fmax(w[k], f);
            x[j * n + i] = s;
        }
    free(v); free(w); free(work); free(iwork);
}

/* Reconditioning (ridge and eigenvalue floor) to a target condition, for inversion and solve;
 * errors where it does not apply. */
static void reconditioning(minv_context *ctx) {
    const int64_t n = 120, k = 3;
    const double cond = 1e8, target = 100;
    tu_rng rng;
    tu_seed(&rng, 804);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n), *shifted = tu_alloc(n, n, n);
    double *b = tu_alloc(n, k, n), *y = tu_alloc(n, k, n);
    minv_report rep;
    tu_with_cond(&rng, n, cond, 1, a, n); /* eigenvalues 1 down to 1e-8 */
    tu_rect(&rng, n, k, b, n);
    minv_set_option(ctx, MINV_OPT_TARGET_CONDITION, target);
    /* ridge: the inverse of A + delta I, delta = (1 - target / cond) / (target - 1) */
    minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_RIDGE);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    const double delta = (1 - target / cond) / (target - 1);
    memcpy(shifted, a, sizeof(double) * n * n);
    for (int64_t i = 0; i < n; i++) shifted[i * n + i] += delta;
    CHECK(tu_inverse_ratio(n, shifted, n, x, n, DBL_EPSILON) < 30, "ridge: ratio %.3g against A + delta I",
          tu_inverse_ratio(n, shifted, n, x, n, DBL_EPSILON));
    /* rcond is a 1-norm estimate: within n of 1 / cond_2 */
    CHECK(strstr(rep.reason, "ridge") && rep.rcond > 1 / (n * target), "ridge report: rcond %.3g, %s", rep.rcond, rep.reason);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, a, n, b, n, y, n, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_solve_ratio(n, k, shifted, n, b, n, y, n, DBL_EPSILON) < 30, "ridge solve");
    /* the ridge runs the method asked for on A + delta I */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU && rep.recondition == MINV_RECONDITION_RIDGE &&
              tu_inverse_ratio(n, shifted, n, x, n, DBL_EPSILON) < 30,
          "ridge by LU: method %s", minv_method_name(rep.method));
    /* floor: V diag(1 / max(lambda, lambda_max / target)) V^T */
    minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_FLOOR);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    floor_inverse(n, a, target, ref);
    CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "floor: vs LAPACK %.3g", tu_rel_diff(n, n, x, n, ref, n));
    CHECK(strstr(rep.reason, "eigenvalue floor") && fabs(rep.rcond - 1 / target) < 1e-12, "floor report: %s", rep.reason);
    CHECK(rep.method == MINV_METHOD_AUTO && rep.recondition == MINV_RECONDITION_FLOOR, "floor: method %s, recondition %d",
          minv_method_name(rep.method), (int)rep.recondition);
    /* no factorisation runs under the floor: a method asked for is refused, not replaced */
    const minv_method others[] = {MINV_METHOD_CHOLESKY, MINV_METHOD_LU, MINV_METHOD_ITERATIVE, MINV_METHOD_TRIDIAGONAL};
    for (int m = 0; m < 4; m++) {
        CHECK_STATUS(minv_invert_d(ctx, others[m], n, a, n, x, n, &rep), MINV_ERR_INVALID_ARG, ctx);
        CHECK(strstr(minv_last_error(ctx), "eigenvalue floor") != NULL, "floor with %s: %s", minv_method_name(others[m]),
              minv_last_error(ctx));
    }
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_LU, n, k, a, n, b, n, y, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, a, n, b, n, y, n, &rep), MINV_SUCCESS, ctx);
    double *want = tu_alloc(n, k, n);
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int64_t l = 0; l < n; l++) s += ref[l * n + i] * b[j * n + l];
            want[j * n + i] = s;
        }
    CHECK(tu_rel_diff(n, k, y, n, want, n) < 1e-10, "floor solve: %.3g", tu_rel_diff(n, k, y, n, want, n));
    /* already within the target: unchanged, and said so */
    tu_with_cond(&rng, n, 10, 1, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(strstr(rep.reason, "already within") && tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "within: %s", rep.reason);
    { /* indefinite, eigenvalues -1, 3, 3: condition 3 before, and made SPD all the same */
        const double ind[9] = {1, 2, 0, 2, 1, 0, 0, 0, 3};
        double indi[9];
        minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_RIDGE);
        CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, 3, ind, 3, indi, 3, &rep), MINV_SUCCESS, ctx);
        CHECK(fabs(rep.condition_before - 3) < 1e-12 && rep.recondition == MINV_RECONDITION_RIDGE &&
                  rep.condition_after == target,
              "indefinite: condition %g -> %g, recondition %d", rep.condition_before, rep.condition_after, (int)rep.recondition);
        minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_FLOOR);
    }
    /* not symmetric: refused, named */
    tu_general(&rng, n, a, n);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    CHECK(strstr(minv_last_error(ctx), "symmetric") != NULL, "message: %s", minv_last_error(ctx));
    minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_NONE);
    free(a); free(x); free(ref); free(shifted); free(b); free(y); free(want);
}

/* A principal sub-matrix by an index list, against LAPACK on the gathered copy. */
static void subsets(minv_context *ctx) {
    const int64_t n = 400, m = 150;
    tu_rng rng;
    tu_seed(&rng, 805);
    double *a = tu_alloc(n, n, n + 1), *sub = tu_alloc(m, m, m), *x = tu_alloc(m, m, m + 2), *ref = tu_alloc(m, m, m);
    int64_t *idx = malloc(sizeof(int64_t) * m);
    minv_report rep;
    tu_spd(&rng, n, a, n + 1);
    for (int64_t k = 0; k < m; k++) idx[k] = (k * 7 + 3) % n; /* out of order, no repeats */
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++) sub[j * m + i] = a[idx[j] * (n + 1) + idx[i]];
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, n, a, n + 1, m, idx, x, m + 2, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.n == m && rep.method == MINV_METHOD_CHOLESKY && strstr(rep.reason, "principal sub-matrix"), "report: %s", rep.reason);
    CHECK(tu_lapack_inverse(m, sub, m, 1, ref, m) == 0, "LAPACK");
    CHECK(tu_rel_diff(m, m, x, m + 2, ref, m) < 1e-12, "subset vs LAPACK %.3g", tu_rel_diff(m, m, x, m + 2, ref, m));
    float *af = tu_to_float(n, n, a, n + 1, n), *xf = tu_to_float(m, m, x, m + 2, m);
    CHECK_STATUS(minv_invert_subset_s(ctx, MINV_METHOD_CHOLESKY, n, af, n, m, idx, xf, m, &rep), MINV_SUCCESS, ctx);
    double *x2 = tu_to_double(m, m, xf, m);
    CHECK(tu_rel_diff(m, m, x2, m, ref, m) < 1e-4, "float subset %.3g", tu_rel_diff(m, m, x2, m, ref, m));
    idx[5] = idx[9];
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, n, a, n + 1, m, idx, x, m + 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    CHECK(strstr(minv_last_error(ctx), "appears twice") != NULL, "duplicate: %s", minv_last_error(ctx));
    idx[5] = n;
    CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, n, a, n + 1, m, idx, x, m + 2, &rep), MINV_ERR_INVALID_ARG, ctx);
    CHECK(strstr(minv_last_error(ctx), "idx(6) = 401") != NULL, "out of range: %s", minv_last_error(ctx));
    /* failures name A's positions, not A(idx, idx)'s: A(7,5) (1-based) is the sub-matrix's (3,2) */
    {
        enum { N = 12 };
        double k[N * N], kx[16];
        const int64_t kidx[4] = {1, 4, 6, 10};
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) k[j * N + i] = pow(0.6, abs(i - j));
        k[4 * N + 6] = NAN;
        CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_AUTO, N, k, N, 4, kidx, kx, 4, &rep), MINV_ERR_NOT_FINITE, ctx);
        CHECK(strstr(minv_last_error(ctx), "A(7,5) = nan (row 7, column 5, 1-based)") != NULL, "NaN: %s", minv_last_error(ctx));
        for (int j = 0; j < N; j++) /* rows and columns 5 and 7 (1-based) equal */
            for (int i = 0; i < N; i++) k[j * N + i] = pow(0.6, abs((i == 6 ? 4 : i) - (j == 6 ? 4 : j)));
        CHECK_STATUS(minv_invert_subset_d(ctx, MINV_METHOD_LU, N, k, N, 4, kidx, kx, 4, &rep), MINV_ERR_SINGULAR, ctx);
        /* the zero pivot in the sub-matrix's column 3 or 4 (1-based; the GPU's LU may round the
         * third pivot to a tiny number and meet exact zero in the fourth), named as A's */
        const int c = rep.info == kidx[2] ? 2 : 3;
        char mapped[96];
        snprintf(mapped, sizeof mapped, "whose column %d is A's column %lld (1-based)", c + 1, (long long)kidx[c] + 1);
        CHECK(rep.info == kidx[c], "singular: info %lld is none of A's columns 6 and 10 (0-based)", (long long)rep.info);
        CHECK(strstr(minv_last_error(ctx), mapped) != NULL, "singular: \"%s\" lacks \"%s\"", minv_last_error(ctx), mapped);
    }
    free(a); free(sub); free(x); free(ref); free(idx); free(af); free(xf); free(x2);
}

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        sizes_against_lapack(ctx[c]);
        known_inverses(ctx[c]);
        hard_inputs(ctx[c]);
        solves(ctx[c]);
        reconditioning(ctx[c]);
        subsets(ctx[c]);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_spd");
}
