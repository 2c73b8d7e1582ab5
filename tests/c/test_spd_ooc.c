/* Out-of-core Cholesky: SPD matrices of a few thousand under a device budget of a
 * quarter of the matrix, so that the factor, the inverse and the solve stream panels and slabs
 * from host memory; against the CPU, the in-core GPU and closed-form KMS inverses; orders that
 * are no multiple of the panels or slabs, pageable, pinned and in-place outputs, the column
 * where a matrix is not SPD, one right-hand side and more than n, float. Skips without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "\"%s\" lacks \"%s\"", (msg), (text))

/* A GPU context whose budget is a quarter of an n x n matrix of es-byte elements; slabs of
 * `slab` columns (0: automatic). */
static minv_context *quarter(int64_t n, int64_t es, int64_t slab) {
    minv_context *ctx = tu_context(MINV_BACKEND_GPU, n * n * es / 4);
    if (ctx && slab) minv_set_option(ctx, MINV_OPT_TILE_SIZE, (double)slab);
    return ctx;
}

static int streamed(const minv_report *rep) {
    return rep->backend == MINV_BACKEND_GPU && strstr(rep->reason, "out of core") != NULL;
}

/* SOAR of 3001 (odd: no multiple of a panel or a slab) against the CPU and in core; the same
 * result with other slabs, in place, and into pinned memory. */
static void inverse(minv_context *gpu, minv_context *cpu) {
    const int64_t n = 3001, lda = n + 3, ldx = n + 1;
    double *a = tu_alloc(n, n, lda), *x = tu_alloc(n, n, ldx), *ref = tu_alloc(n, n, n), *in = tu_alloc(n, n, n);
    double *pinned = NULL;
    minv_context *ooc = quarter(n, 8, 0), *ooc100 = quarter(n, 8, 100);
    minv_report rep, rin;
    if (!ooc || !ooc100 || cudaMallocHost((void **)&pinned, sizeof(double) * n * n) != cudaSuccess) {
        CHECK(0, "contexts and pinned memory");
        return;
    }
    tu_soar(n, 4, a, lda);
    CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_CHOLESKY, n, a, lda, x, ldx, &rep), MINV_SUCCESS, ooc);
    printf("test_spd_ooc: %s\n", rep.reason);
    CHECK(streamed(&rep), "out of core on the GPU: %s", rep.reason);
    double ratio = tu_inverse_ratio(n, a, lda, x, ldx, DBL_EPSILON);
    CHECK(ratio < 30, "ratio %.3g", ratio);
    CHECK(tu_symmetric(n, x, ldx), "both triangles, symmetric to the bit");
    CHECK(rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 1e-12, "sampled residual %.3g", rep.residual);
    CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_CHOLESKY, n, a, lda, ref, n, &rin), MINV_SUCCESS, cpu);
    /* SOAR's condition is about 7e3: results of different blockings agree to some 1e-12 */
    CHECK(tu_rel_diff(n, n, x, ldx, ref, n) < 1e-9, "vs CPU %.3g", tu_rel_diff(n, n, x, ldx, ref, n));
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_CHOLESKY, n, a, lda, in, n, &rin), MINV_SUCCESS, gpu);
    CHECK(!strstr(rin.reason, "out of core"), "in core with the whole device: %s", rin.reason);
    CHECK(tu_rel_diff(n, n, x, ldx, in, n) < 1e-9, "vs in core %.3g", tu_rel_diff(n, n, x, ldx, in, n));
    CHECK(fabs(rep.rcond - rin.rcond) <= 1e-9 * rin.rcond, "rcond %.6g vs in core %.6g", rep.rcond, rin.rcond);
    /* slabs of 100: more panels, ragged slabs */
    CHECK_STATUS(minv_invert_d(ooc100, MINV_METHOD_CHOLESKY, n, a, lda, ref, n, &rin), MINV_SUCCESS, ooc100);
    CHECK(streamed(&rin) && strstr(rin.reason, "slabs of 100"), "slabs of 100: %s", rin.reason);
    CHECK(tu_rel_diff(n, n, ref, n, x, ldx) < 1e-9, "slabs of 100: %.3g", tu_rel_diff(n, n, ref, n, x, ldx));
    /* in place, and into pinned memory (the factor and the inverse then live in X): the same
     * plan, so the same result */
    for (int64_t j = 0; j < n; j++) memcpy(in + j * n, a + j * lda, sizeof(double) * n);
    CHECK_STATUS(minv_invert_inplace_d(ooc, MINV_METHOD_CHOLESKY, n, in, n, &rin), MINV_SUCCESS, ooc);
    CHECK(streamed(&rin) && tu_rel_diff(n, n, in, n, x, ldx) < 1e-13, "in place: %.3g", tu_rel_diff(n, n, in, n, x, ldx));
    CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_CHOLESKY, n, a, lda, pinned, n, &rin), MINV_SUCCESS, ooc);
    CHECK(streamed(&rin) && tu_rel_diff(n, n, pinned, n, x, ldx) < 1e-13, "pinned: %.3g",
          tu_rel_diff(n, n, pinned, n, x, ldx));
    CHECK(tu_symmetric(n, pinned, n), "pinned: symmetric");
    /* the full residual is not formed out of core: a sampled one, and the report says so */
    minv_set_option(ooc, MINV_OPT_RESIDUAL, 2);
    CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_AUTO, n, a, lda, x, ldx, &rep), MINV_SUCCESS, ooc);
    CHECK(rep.method == MINV_METHOD_CHOLESKY && rep.residual_kind == 1 && strstr(rep.reason, "no full residual"),
          "residual 2: %s", rep.reason);
    cudaFreeHost(pinned);
    minv_destroy(ooc);
    minv_destroy(ooc100);
    free(a); free(x); free(ref); free(in);
}

/* KMS inverses are tridiagonal, known in closed form. */
static void known_inverses(void) {
    const int64_t n = 2500;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    minv_context *ooc = quarter(n, 8, 0);
    minv_report rep;
    if (!ooc) {
        CHECK(0, "context");
        return;
    }
    for (int k = 0; k < 2; k++) {
        const double rho = k ? 0.9 : 0.5;
        tu_kms(n, rho, a, n);
        CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, ooc);
        CHECK(rep.method == MINV_METHOD_CHOLESKY && streamed(&rep), "KMS: %s", rep.reason);
        double err = tu_kms_inverse_error(n, rho, x, n);
        CHECK(err < 50 * DBL_EPSILON, "KMS rho=%.1f: error %.3g eps", rho, err / DBL_EPSILON);
    }
    minv_destroy(ooc);
    free(a);
    free(x);
}

/* Indefinite at a column of the first panel and of a later one, its diagonal positive but its
 * row outweighing it: NOT_SPD with that column, and A intact for AUTO's LU, in place too. */
static void not_spd(void) {
    const int64_t n = 2000, cols[2] = {7, 1500};
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *copy = tu_alloc(n, n, n), *b = tu_alloc(n, 3, n);
    minv_context *ooc = quarter(n, 8, 0);
    minv_report rep;
    tu_rng rng;
    tu_seed(&rng, 811);
    if (!ooc) {
        CHECK(0, "context");
        return;
    }
    tu_rect(&rng, n, 3, b, n);
    for (int k = 0; k < 2; k++) {
        const int64_t c = cols[k];
        char want[64];
        tu_soar(n, 4, a, n);
        for (int64_t i = 0; i < n; i++) a[i * n + c] = a[c * n + i] = i == c ? 0.5 : (i % 2 ? 3 : -3);
        snprintf(want, sizeof want, "(column %lld, 1-based)", (long long)c + 1);
        CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, ooc);
        CHECK(rep.info == c && rep.backend == MINV_BACKEND_GPU, "not SPD at %lld, want %lld", (long long)rep.info, (long long)c);
        HAS(minv_last_error(ooc), want);
        CHECK_STATUS(minv_solve_d(ooc, MINV_METHOD_CHOLESKY, n, 3, a, n, b, n, x, n, &rep), MINV_ERR_NOT_SPD, ooc);
        CHECK(rep.info == c, "solve: not SPD at %lld, want %lld", (long long)rep.info, (long long)c);
        memcpy(copy, a, sizeof(double) * n * n);
        CHECK_STATUS(minv_invert_inplace_d(ooc, MINV_METHOD_AUTO, n, a, n, &rep), MINV_SUCCESS, ooc);
        CHECK(rep.method == MINV_METHOD_LU && strstr(rep.reason, "LU instead"), "AUTO falls back: %s", rep.reason);
        CHECK(tu_inverse_ratio(n, copy, n, a, n, DBL_EPSILON) < 30, "LU after the out-of-core attempt, in place");
    }
    minv_destroy(ooc);
    free(a); free(x); free(copy); free(b);
}

/* One right-hand side, a few, and more than n, against the CPU; B and X the same memory. */
static void solves(minv_context *cpu) {
    const int64_t n = 2001, ld = n + 2, rhs[3] = {1, 7, 2600};
    double *a = tu_alloc(n, n, ld);
    minv_context *ooc = quarter(n, 8, 0);
    tu_rng rng;
    tu_seed(&rng, 812);
    if (!ooc) {
        CHECK(0, "context");
        return;
    }
    tu_soar(n, 4, a, ld);
    double exact = -1; /* 1 / (||A||_1 ||A^-1||_1), from the CPU's inverse */
    {
        double *inv = tu_alloc(n, n, n);
        minv_report ri;
        CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_CHOLESKY, n, a, ld, inv, n, &ri), MINV_SUCCESS, cpu);
        exact = ri.rcond;
        free(inv);
    }
    for (int r = 0; r < 3; r++) {
        const int64_t k = rhs[r];
        double *b = tu_alloc(n, k, ld), *x = tu_alloc(n, k, ld), *ref = tu_alloc(n, k, n);
        minv_report rep, rc;
        tu_rect(&rng, n, k, b, ld);
        CHECK_STATUS(minv_solve_d(ooc, MINV_METHOD_CHOLESKY, n, k, a, ld, b, ld, x, ld, &rep), MINV_SUCCESS, ooc);
        CHECK(streamed(&rep), "k=%lld: %s", (long long)k, rep.reason);
        double ratio = tu_solve_ratio(n, k, a, ld, b, ld, x, ld, DBL_EPSILON);
        CHECK(ratio < 30, "k=%lld: ratio %.3g", (long long)k, ratio);
        CHECK(rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 1e-12, "k=%lld: residual %.3g", (long long)k,
              rep.residual);
        CHECK_STATUS(minv_solve_d(cpu, MINV_METHOD_CHOLESKY, n, k, a, ld, b, ld, ref, n, &rc), MINV_SUCCESS, cpu);
        CHECK(tu_rel_diff(n, k, x, ld, ref, n) < 1e-9, "k=%lld: vs CPU %.3g", (long long)k, tu_rel_diff(n, k, x, ld, ref, n));
        /* a bound from below on ||A^-1||_1 overstates rcond, never understates it; the alternating
         * vector keeps it close for SOAR (the CPU solve's own bound is no reference: it may be
         * further off, 2x here) */
        CHECK(rep.rcond >= 0.999 * exact && rep.rcond <= 10 * exact, "k=%lld: rcond %.3g, exact %.3g", (long long)k,
              rep.rcond, exact);
        if (r == 1) { /* in place: X is B */
            CHECK_STATUS(minv_solve_d(ooc, MINV_METHOD_CHOLESKY, n, k, a, ld, b, ld, b, ld, &rep), MINV_SUCCESS, ooc);
            CHECK(tu_rel_diff(n, k, b, ld, x, ld) < 1e-13 && strstr(rep.reason, "share memory"), "in place: %s", rep.reason);
        }
        free(b); free(x); free(ref);
    }
    minv_destroy(ooc);
    free(a);
}

/* Single precision, and a budget of 1 MB: dozens of narrow panels. */
static void float_and_tiny(void) {
    const int64_t n = 2000, k = 5, m = 1000;
    tu_rng rng;
    tu_seed(&rng, 813);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *x = tu_alloc(n, n, n);
    minv_context *ooc = quarter(n, 4, 0), *tiny = tu_context(MINV_BACKEND_GPU, 1 << 20);
    minv_report rep;
    if (!ooc || !tiny) {
        CHECK(0, "contexts");
        return;
    }
    tu_spd(&rng, n, a, n);
    tu_rect(&rng, n, k, b, n);
    float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n), *xf = tu_to_float(n, n, a, n, n);
    double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n);
    CHECK_STATUS(minv_invert_s(ooc, MINV_METHOD_CHOLESKY, n, af, n, xf, n, &rep), MINV_SUCCESS, ooc);
    double *x2 = tu_to_double(n, n, xf, n);
    CHECK(streamed(&rep) && tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON) < 30, "float inverse: %s", rep.reason);
    free(x2);
    CHECK_STATUS(minv_solve_s(ooc, MINV_METHOD_CHOLESKY, n, k, af, n, bf, n, xf, n, &rep), MINV_SUCCESS, ooc);
    x2 = tu_to_double(n, k, xf, n);
    CHECK(streamed(&rep) && tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON) < 30, "float solve: %s", rep.reason);
    free(x2);
    /* 1 MB for an 8 MB matrix */
    tu_soar(m, 4, a, m);
    CHECK_STATUS(minv_invert_d(tiny, MINV_METHOD_CHOLESKY, m, a, m, x, m, &rep), MINV_SUCCESS, tiny);
    CHECK(streamed(&rep) && tu_inverse_ratio(m, a, m, x, m, DBL_EPSILON) < 30 && tu_symmetric(m, x, m), "1 MB: %s",
          rep.reason);
    CHECK_STATUS(minv_solve_d(tiny, MINV_METHOD_CHOLESKY, m, 3, a, m, b, m, x, m, &rep), MINV_SUCCESS, tiny);
    CHECK(streamed(&rep) && tu_solve_ratio(m, 3, a, m, b, m, x, m, DBL_EPSILON) < 30, "1 MB solve: %s", rep.reason);
    minv_destroy(ooc);
    minv_destroy(tiny);
    free(a); free(b); free(x); free(af); free(bf); free(xf); free(a2); free(b2);
}

/* A budget the analysis can stream through but no panel fits: the CPU runs it, and says why. */
static void too_small(void) {
    const int64_t n = 3000;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    minv_context *small = tu_context(MINV_BACKEND_GPU, 500 << 10);
    minv_report rep;
    if (!small) {
        CHECK(0, "context");
        return;
    }
    tu_soar(n, 4, a, n);
    CHECK_STATUS(minv_invert_d(small, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_SUCCESS, small);
    CHECK(rep.backend == MINV_BACKEND_CPU && strstr(rep.reason, "too small for out-of-core Cholesky") &&
              strstr(rep.reason, "so the CPU ran it"),
          "fallback: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "fallback result");
    minv_destroy(small);
    free(a);
    free(x);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int early = tu_gpu_and_cpu("test_spd_ooc", &gpu, &cpu);
    if (early) return early;
    inverse(gpu, cpu);
    known_inverses();
    not_spd();
    solves(cpu);
    float_and_tiny();
    too_small();
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_spd_ooc");
}
