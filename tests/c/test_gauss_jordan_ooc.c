/* Out-of-core Gauss-Jordan on the GPU: host matrices under a device budget of a
 * quarter of what the in-core elimination needs, so that super-panels are factored on the
 * device and the rest of D streams through. Random general matrices and ones that pivot in
 * every column, orders that are multiples of neither the super-panel width W nor the chunk
 * width, float and double, in place; against the CPU's Gauss-Jordan and the GPU's in-core one;
 * singular matrices (SINGULAR with the column, in the first, a middle and the last
 * super-panel); solves with one right-hand side and with more than n. Skips without a GPU. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* An in-core host call holds at least A twice on the device (staged, and transposed for the
 * elimination), and B twice for a solve: a quarter of that. */
static minv_context *ooc_context(int64_t n, int64_t nrhs, size_t es) {
    minv_context *ctx = tu_context(MINV_BACKEND_GPU, (int64_t)(2 * (size_t)n * (size_t)(n + nrhs) * es / 4));
    CHECK(ctx != NULL, "a GPU context with a budget");
    return ctx;
}

/* The report says the call ran out of core, with W short of n and not dividing it. */
static void check_out_of_core(const minv_report *rep, int64_t n) {
    const char *p = strstr(rep->reason, "W = ");
    long long w = 0;
    CHECK(rep->backend == MINV_BACKEND_GPU && strstr(rep->reason, "out of core") && p && sscanf(p, "W = %lld", &w) == 1,
          "not out of core: %s", rep->reason);
    CHECK(w > 0 && w < n && n % w != 0, "n = %lld, W = %lld: not several super-panels, the last one partial", (long long)n, w);
}

/* A general matrix with a zero or tiny diagonal: every column pivots, often from a row of a
 * later super-panel. */
static void zero_diagonal(tu_rng *rng, int64_t n, double *a, int64_t lda) {
    tu_rect(rng, n, n, a, lda);
    for (int64_t i = 0; i < n; i++) a[i * lda + i] = i % 2 ? 1e-13 : 0;
}

static void inversion(minv_context *gpu, minv_context *cpu) {
    static const int64_t sizes[] = {2311, 3001};
    tu_rng rng;
    tu_seed(&rng, 661);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int pivoting = 0; pivoting < 2; pivoting++) {
            const int64_t n = sizes[s], lda = n + 3;
            double *a = tu_alloc(n, n, lda), *x = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n);
            minv_context *ooc = ooc_context(n, 0, sizeof(double));
            minv_report rep;
            if (!ooc) return;
            if (pivoting) zero_diagonal(&rng, n, a, lda);
            else tu_general(&rng, n, a, lda);
            CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_GAUSS_JORDAN, n, a, lda, x, n, &rep), MINV_SUCCESS, ooc);
            check_out_of_core(&rep, n);
            double ratio = tu_inverse_ratio(n, a, lda, x, n, DBL_EPSILON);
            CHECK(ratio < 30, "n=%lld pivoting=%d: ratio %.3g", (long long)n, pivoting, ratio);
            CHECK(rep.rcond > 0 && rep.rcond <= 1 && rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 1e-10,
                  "report: rcond %.3g, residual %.3g (kind %d)", rep.rcond, rep.residual, rep.residual_kind);
            printf("test_gauss_jordan_ooc: n=%lld pivoting=%d ratio %.3g, %s\n", (long long)n, pivoting, ratio, rep.reason);
            const double rcond = rep.rcond; /* from the device's column norms of the result */
            CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_GAUSS_JORDAN, n, a, lda, ref, n, &rep), MINV_SUCCESS, cpu);
            CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "n=%lld: out of core vs CPU %.3g", (long long)n,
                  tu_rel_diff(n, n, x, n, ref, n));
            CHECK(fabs(rcond - rep.rcond) < 1e-8 * rep.rcond, "rcond %.17g, CPU %.17g", rcond, rep.rcond);
            CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_GAUSS_JORDAN, n, a, lda, ref, n, &rep), MINV_SUCCESS, gpu);
            CHECK(rep.backend == MINV_BACKEND_GPU && !strstr(rep.reason, "out of core"), "in core: %s", rep.reason);
            CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "n=%lld: out of core vs in core %.3g", (long long)n,
                  tu_rel_diff(n, n, x, n, ref, n));
            if (s == 0 && pivoting) { /* in place: the result over A */
                for (int64_t j = 0; j < n; j++) memcpy(ref + j * n, a + j * lda, sizeof(double) * n);
                CHECK_STATUS(minv_invert_inplace_d(ooc, MINV_METHOD_GAUSS_JORDAN, n, ref, n, &rep), MINV_SUCCESS, ooc);
                check_out_of_core(&rep, n);
                CHECK(tu_rel_diff(n, n, ref, n, x, n) < 1e-10, "in place vs out of place %.3g", tu_rel_diff(n, n, ref, n, x, n));
            }
            minv_destroy(ooc);
            free(a); free(x); free(ref);
        }
}

static void inversion_float(void) {
    const int64_t n = 2311;
    tu_rng rng;
    tu_seed(&rng, 662);
    double *a = tu_alloc(n, n, n);
    minv_context *ooc = ooc_context(n, 0, sizeof(float));
    minv_report rep;
    if (!ooc) return;
    tu_general(&rng, n, a, n);
    float *af = tu_to_float(n, n, a, n, n), *xf = (float *)malloc(sizeof(float) * n * n);
    CHECK_STATUS(minv_invert_s(ooc, MINV_METHOD_GAUSS_JORDAN, n, af, n, xf, n, &rep), MINV_SUCCESS, ooc);
    check_out_of_core(&rep, n);
    double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
    double ratio = tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON);
    CHECK(ratio < 30, "float: ratio %.3g", ratio);
    minv_destroy(ooc);
    free(a); free(af); free(xf); free(a2); free(x2);
}

/* A zero column makes the pivot of that column exactly zero whatever came before. */
static void singular(void) {
    const int64_t n = 2311;
    const int64_t cols[] = {0, n / 2, n - 3};
    tu_rng rng;
    tu_seed(&rng, 663);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, 2, n);
    minv_context *ooc = ooc_context(n, 0, sizeof(double)), *ooc_solve = ooc_context(n, 2, sizeof(double));
    minv_report rep;
    if (!ooc || !ooc_solve) return;
    for (int k = 0; k < 3; k++) {
        tu_general(&rng, n, a, n);
        for (int64_t i = 0; i < n; i++) a[cols[k] * n + i] = 0;
        CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_GAUSS_JORDAN, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, ooc);
        CHECK(rep.info == cols[k], "singular column %lld, reported %lld", (long long)cols[k], (long long)rep.info);
        CHECK(strstr(minv_last_error(ooc), "column") != NULL, "message: %s", minv_last_error(ooc));
        tu_rect(&rng, n, 2, b, n);
        CHECK_STATUS(minv_solve_d(ooc_solve, MINV_METHOD_GAUSS_JORDAN, n, 2, a, n, b, n, x, n, &rep), MINV_ERR_SINGULAR,
                     ooc_solve);
        CHECK(rep.info == cols[k], "solve: singular column %lld, reported %lld", (long long)cols[k], (long long)rep.info);
    }
    minv_destroy(ooc);
    minv_destroy(ooc_solve);
    free(a); free(x); free(b);
}

static void solves(minv_context *cpu) {
    static const int64_t cases[][2] = {{2311, 1}, {1500, 1700}}; /* n, nrhs */
    tu_rng rng;
    tu_seed(&rng, 664);
    for (int c = 0; c < 2; c++)
        for (int pivoting = 0; pivoting < 2; pivoting++) {
            const int64_t n = cases[c][0], k = cases[c][1], ld = n + 1;
            double *a = tu_alloc(n, n, ld), *b = tu_alloc(n, k, ld), *x = tu_alloc(n, k, ld), *y = tu_alloc(n, k, ld);
            minv_context *ooc = ooc_context(n, k, sizeof(double));
            minv_report rep;
            if (!ooc) return;
            if (pivoting) zero_diagonal(&rng, n, a, ld);
            else tu_general(&rng, n, a, ld);
            tu_rect(&rng, n, k, b, ld);
            CHECK_STATUS(minv_solve_d(ooc, MINV_METHOD_GAUSS_JORDAN, n, k, a, ld, b, ld, x, ld, &rep), MINV_SUCCESS, ooc);
            check_out_of_core(&rep, n);
            double ratio = tu_solve_ratio(n, k, a, ld, b, ld, x, ld, DBL_EPSILON);
            CHECK(ratio < 30, "solve n=%lld k=%lld pivoting=%d: ratio %.3g", (long long)n, (long long)k, pivoting, ratio);
            CHECK(rep.rcond > 0 && rep.rcond <= 1 && rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 1e-10,
                  "solve report: rcond %.3g, residual %.3g (kind %d)", rep.rcond, rep.residual, rep.residual_kind);
            printf("test_gauss_jordan_ooc: solve n=%lld k=%lld pivoting=%d ratio %.3g\n", (long long)n, (long long)k,
                   pivoting, ratio);
            CHECK_STATUS(minv_solve_d(cpu, MINV_METHOD_GAUSS_JORDAN, n, k, a, ld, b, ld, y, ld, &rep), MINV_SUCCESS, cpu);
            CHECK(tu_rel_diff(n, k, x, ld, y, ld) < 1e-10, "solve out of core vs CPU: %.3g", tu_rel_diff(n, k, x, ld, y, ld));
            if (c == 1 && !pivoting) { /* in place, X over B; and in float */
                for (int64_t j = 0; j < k; j++) memcpy(y + j * ld, b + j * ld, sizeof(double) * n);
                CHECK_STATUS(minv_solve_d(ooc, MINV_METHOD_GAUSS_JORDAN, n, k, a, ld, y, ld, y, ld, &rep), MINV_SUCCESS, ooc);
                CHECK(tu_rel_diff(n, k, y, ld, x, ld) < 1e-10 && rep.residual_kind == 1 && rep.residual < 1e-10,
                      "in-place solve: %.3g, residual %.3g", tu_rel_diff(n, k, y, ld, x, ld), rep.residual);
                minv_context *f = ooc_context(n, k, sizeof(float));
                float *af = tu_to_float(n, n, a, ld, n), *bf = tu_to_float(n, k, b, ld, n), *xf = tu_to_float(n, k, b, ld, n);
                if (f) {
                    CHECK_STATUS(minv_solve_s(f, MINV_METHOD_GAUSS_JORDAN, n, k, af, n, bf, n, xf, n, &rep), MINV_SUCCESS, f);
                    check_out_of_core(&rep, n);
                    double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n), *x2 = tu_to_double(n, k, xf, n);
                    ratio = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON);
                    CHECK(ratio < 30, "float solve: ratio %.3g", ratio);
                    free(a2); free(b2); free(x2);
                    minv_destroy(f);
                }
                free(af); free(bf); free(xf);
            }
            minv_destroy(ooc);
            free(a); free(b); free(x); free(y);
        }
}

int main(void) {
    minv_context *gpu, *cpu;
    const int early = tu_gpu_and_cpu("test_gauss_jordan_ooc", &gpu, &cpu);
    if (early) return early;
    inversion(gpu, cpu);
    inversion_float();
    singular();
    solves(cpu);
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_gauss_jordan_ooc");
}
