#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int tu_failures = 0;

int tu_finish(const char *name) {
    if (tu_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, tu_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

int tu_contexts(minv_context *ctx[2]) {
    int count = 0;
    if ((ctx[count] = tu_context(MINV_BACKEND_CPU, 0))) count++;
    if ((ctx[count] = tu_context(MINV_BACKEND_GPU, 0))) count++;
    else /* scripts/junit.sh counts the tests that print this */
        printf("GPU half not run: no usable GPU, the checks ran on the CPU backend only\n");
    return count;
}

minv_context *tu_context(minv_backend backend, int64_t budget) {
    minv_options o;
    minv_options_default(&o);
    o.backend = backend;
    o.device_memory = budget;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

int tu_skip_no_gpu(const char *test) {
    printf("%s: no usable GPU, skipped\n", test);
    return TU_SKIP;
}

int tu_gpu_and_cpu(const char *test, minv_context **gpu, minv_context **cpu) {
    *gpu = tu_context(MINV_BACKEND_GPU, 0);
    *cpu = tu_context(MINV_BACKEND_CPU, 0);
    if (*gpu && *cpu) return 0;
    minv_destroy(*gpu);
    minv_destroy(*cpu);
    return *gpu ? 1 : tu_skip_no_gpu(test);
}

void tu_seed(tu_rng *r, uint64_t seed) { r->state = seed * 2862933555777941757ull + 3037000493ull; }

static uint32_t pcg32(tu_rng *r) {
    uint64_t old = r->state;
    r->state = old * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = (uint32_t)(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

double tu_uniform(tu_rng *r) {
    uint64_t hi = pcg32(r), lo = pcg32(r);
    return ((double)((hi << 21) ^ lo) / 9007199254740992.0) * 2.0 - 1.0;
}

double tu_normal(tu_rng *r) {
    double u1 = 0.5 * (tu_uniform(r) + 1.0), u2 = 0.5 * (tu_uniform(r) + 1.0);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double *tu_alloc(int64_t rows, int64_t cols, int64_t ld) {
    (void)rows;
    size_t count = (size_t)ld * (size_t)cols;
    double *a = malloc((count ? count : 1) * sizeof(double));
    for (size_t k = 0; k < count; k++) a[k] = NAN; /* padding must never be read */
    return a;
}

void tu_rect(tu_rng *r, int64_t rows, int64_t cols, double *b, int64_t ldb) {
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) b[j * ldb + i] = tu_uniform(r);
}

void tu_kms(int64_t n, double rho, double *a, int64_t lda) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * lda + i] = pow(rho, (double)labs((long)(i - j)));
}

/* The inverse is (1 / (1 - rho^2)) times 1 at both ends of the diagonal, 1 + rho^2 inside it,
 * and -rho beside it. */
double tu_kms_inverse_error(int64_t n, double rho, const double *x, int64_t ldx) {
    const double s = 1 / (1 - rho * rho);
    double err = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double want = i == j ? (i == 0 || i == n - 1 ? s : s * (1 + rho * rho)) : (labs((long)(i - j)) == 1 ? -rho * s : 0);
            err = fmax(err, fabs(x[j * ldx + i] - want));
        }
    return err / ((1 + rho) / (1 - rho) * s);
}

void tu_soar(int64_t n, double len, double *a, int64_t lda) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double r = fabs((double)(i - j)) / len;
            a[j * lda + i] = (1 + r) * exp(-r) + (i == j ? 1e-3 : 0);
        }
}

int tu_symmetric(int64_t n, const double *x, int64_t ldx) {
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = j + 1; i < n; i++)
            if (x[j * ldx + i] != x[i * ldx + j]) return 0;
    return 1;
}

void tu_general(tu_rng *r, int64_t n, double *a, int64_t lda) {
    tu_rect(r, n, n, a, lda);
    /* a modest diagonal shift keeps random matrices away from near-singularity without
     * making them diagonally dominant */
    for (int64_t i = 0; i < n; i++) a[i * lda + i] += 0.5 * sqrt((double)n);
}

void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *, size_t, size_t);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void dorgqr_(const int *, const int *, const int *, double *, const int *, const double *, double *,
             const int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dpotri_(const char *, const int *, double *, const int *, int *, size_t);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dposv_(const char *, const int *, const int *, double *, const int *, double *, const int *, int *, size_t);

void tu_spd(tu_rng *r, int64_t n, double *a, int64_t lda) {
    int ni = (int)n, ldai = (int)lda;
    double *m = malloc(sizeof(double) * n * n);
    tu_rect(r, n, n, m, n);
    double alpha = 1.0 / (double)n, beta = 0.0;
    dsyrk_("L", "N", &ni, &ni, &alpha, m, &ni, &beta, a, &ldai, 1, 1);
    for (int64_t j = 0; j < n; j++) {
        a[j * lda + j] += 1.0;
        for (int64_t i = 0; i < j; i++) a[j * lda + i] = a[i * lda + j];
    }
    free(m);
}

static void random_orthogonal(tu_rng *r, int64_t n, double *q) {
    int ni = (int)n, info = 0, lwork = (int)(64 * n + 64);
    double *tau = malloc(sizeof(double) * n), *work = malloc(sizeof(double) * lwork);
    for (int64_t k = 0; k < n * n; k++) q[k] = tu_normal(r);
    dgeqrf_(&ni, &ni, q, &ni, tau, work, &lwork, &info);
    dorgqr_(&ni, &ni, &ni, q, &ni, tau, work, &lwork, &info);
    free(tau);
    free(work);
}

void tu_needs_pivoting(tu_rng *r, int64_t n, double *a, int64_t lda) {
    tu_general(r, n, a, lda);
    if (n > 1)
        for (int64_t i = 0; i < n; i++) a[i * lda + i] = i % 3 == 0 ? 0 : (i % 3 == 1 ? 1e-13 : a[i * lda + i]);
}

void tu_with_cond(tu_rng *r, int64_t n, double cond, int spd, double *a, int64_t lda) {
    double *q1 = malloc(sizeof(double) * n * n), *q2 = spd ? q1 : malloc(sizeof(double) * n * n);
    double *qs = malloc(sizeof(double) * n * n);
    random_orthogonal(r, n, q1);
    if (!spd) random_orthogonal(r, n, q2);
    for (int64_t j = 0; j < n; j++) {
        double s = n > 1 ? pow(cond, -(double)j / (double)(n - 1)) : 1.0;
        for (int64_t i = 0; i < n; i++) qs[j * n + i] = q1[j * n + i] * s;
    }
    int ni = (int)n, ldai = (int)lda;
    double one = 1.0, zero = 0.0;
    dgemm_("N", "T", &ni, &ni, &ni, &one, qs, &ni, q2, &ni, &zero, a, &ldai, 1, 1);
    if (spd) /* exact symmetry: rounding leaves the two triangles a few ulps apart */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < j; i++) a[j * lda + i] = a[i * lda + j];
    free(q1);
    if (!spd) free(q2);
    free(qs);
}

float *tu_to_float(int64_t rows, int64_t cols, const double *a, int64_t lda, int64_t ldf) {
    float *f = malloc(sizeof(float) * (size_t)ldf * (size_t)(cols ? cols : 1));
    for (int64_t k = 0; k < ldf * cols; k++) f[k] = NAN;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) f[j * ldf + i] = (float)a[j * lda + i];
    return f;
}

double *tu_to_double(int64_t rows, int64_t cols, const float *a, int64_t lda) {
    double *d = malloc(sizeof(double) * (size_t)rows * (size_t)(cols ? cols : 1));
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) d[j * rows + i] = (double)a[j * lda + i];
    return d;
}

int tu_lapack_inverse(int64_t n, const double *a, int64_t lda, int spd, double *x, int64_t ldx) {
    int ni = (int)n, ldxi = (int)ldx, info = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) x[j * ldx + i] = a[j * lda + i];
    if (spd) {
        dpotrf_("L", &ni, x, &ldxi, &info, 1);
        if (info == 0) dpotri_("L", &ni, x, &ldxi, &info, 1);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < j; i++) x[j * ldx + i] = x[i * ldx + j];
        return info;
    }
    int *ipiv = malloc(sizeof(int) * n), lwork = (int)(64 * n);
    double *work = malloc(sizeof(double) * lwork);
    dgetrf_(&ni, &ni, x, &ldxi, ipiv, &info);
    if (info == 0) dgetri_(&ni, x, &ldxi, ipiv, work, &lwork, &info);
    free(ipiv);
    free(work);
    return info;
}

int tu_lapack_solve(int64_t n, int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb, int spd,
                    double *x, int64_t ldx) {
    int ni = (int)n, ki = (int)k, ldxi = (int)ldx, info = 0;
    double *f = malloc(sizeof(double) * n * n);
    int *ipiv = malloc(sizeof(int) * n);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) f[j * n + i] = a[j * lda + i];
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) x[j * ldx + i] = b[j * ldb + i];
    if (spd) dposv_("L", &ni, &ki, f, &ni, x, &ldxi, &info, 1);
    else dgesv_(&ni, &ki, f, &ni, ipiv, x, &ldxi, &info);
    free(f);
    free(ipiv);
    return info;
}

double tu_cond1(int64_t n, const double *a, int64_t lda) {
    double *x = malloc(sizeof(double) * n * n);
    double cond = tu_lapack_inverse(n, a, lda, 0, x, n) == 0 ? tu_norm1(n, n, a, lda) * tu_norm1(n, n, x, n) : INFINITY;
    free(x);
    return cond;
}

double tu_norm1(int64_t rows, int64_t cols, const double *a, int64_t lda) {
    double worst = 0;
    for (int64_t j = 0; j < cols; j++) {
        double s = 0;
        for (int64_t i = 0; i < rows; i++) s += fabs(a[j * lda + i]);
        if (s > worst || isnan(s)) worst = s;
    }
    return worst;
}

double tu_inverse_ratio(int64_t n, const double *a, int64_t lda, const double *x, int64_t ldx, double eps) {
    double *r = malloc(sizeof(double) * n * n);
    int ni = (int)n, ldai = (int)lda, ldxi = (int)ldx;
    double one = 1.0, zero = 0.0;
    dgemm_("N", "N", &ni, &ni, &ni, &one, a, &ldai, x, &ldxi, &zero, r, &ni, 1, 1);
    for (int64_t i = 0; i < n; i++) r[i * n + i] -= 1.0;
    double ratio = tu_norm1(n, n, r, n) / ((double)n * tu_norm1(n, n, a, lda) * tu_norm1(n, n, x, ldx) * eps);
    free(r);
    return ratio;
}

double tu_solve_ratio(int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                      int64_t ldb, const double *x, int64_t ldx, double eps) {
    double *r = malloc(sizeof(double) * n * k);
    for (int64_t j = 0; j < k; j++)
        for (int64_t i = 0; i < n; i++) r[j * n + i] = b[j * ldb + i];
    int ni = (int)n, ki = (int)k, ldai = (int)lda, ldxi = (int)ldx;
    double mone = -1.0, one = 1.0;
    dgemm_("N", "N", &ni, &ki, &ni, &mone, a, &ldai, x, &ldxi, &one, r, &ni, 1, 1);
    /* dget02: max over columns of ||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 n eps) */
    double anorm = tu_norm1(n, n, a, lda), worst = 0;
    for (int64_t j = 0; j < k; j++) {
        double rn = tu_norm1(n, 1, r + j * n, n), xn = tu_norm1(n, 1, x + j * ldx, ldx);
        double q = rn == 0 ? 0 : rn / (anorm * xn * (double)n * eps);
        if (q > worst || isnan(q)) worst = q;
    }
    free(r);
    return worst;
}

double tu_rel_diff(int64_t rows, int64_t cols, const double *x, int64_t ldx, const double *y, int64_t ldy) {
    double worst = 0, ynorm = tu_norm1(rows, cols, y, ldy);
    for (int64_t j = 0; j < cols; j++) {
        double s = 0;
        for (int64_t i = 0; i < rows; i++) s += fabs(x[j * ldx + i] - y[j * ldy + i]);
        if (s > worst || isnan(s)) worst = s;
    }
    return worst / ynorm;
}
