/* The GPU's one-launch solve stage of orders up to 512 (small_solve.cu) against the CPU's
 * LAPACK: SPD (Cholesky) and general (LU) matrices; orders of one row, of a panel and one row
 * (33), of several whole panels (256) and of a short last panel (511); one, five and n
 * right-hand sides; device data with leading dimensions past n (A, B and X each their own);
 * the solve, its residual and rcond as the CPU reports them, the inverse (the SPD one symmetric
 * to the bit) and a float solve; a Cholesky that fails past its first panels (potrf's info, X
 * left as it was); one device array refilled between calls (the factor begun beside the analysis
 * is of the call's own matrix). The path's in-place and AUTO's failed-factor cases are test_gpu's. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static double *to_device(const double *h, size_t count) {
    double *d = NULL;
    cudaMalloc((void **)&d, sizeof(double) * count);
    cudaMemcpy(d, h, sizeof(double) * count, cudaMemcpyHostToDevice);
    return d;
}

static void from_device(double *h, const double *d, size_t count) {
    cudaMemcpy(h, d, sizeof(double) * count, cudaMemcpyDeviceToHost);
}

static void one_case(minv_context *gpu, minv_context *cpu, int spd, int64_t n, int64_t k) {
    const int64_t lda = n + 3, ldb = n + 5, ldx = n + 2;
    const minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    const char *kind = spd ? "SPD" : "general";
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(100 * n + k + spd));
    double *a = tu_alloc(n, n, lda), *b = tu_alloc(n, k, ldb), *xg = tu_alloc(n, k, ldx), *xc = tu_alloc(n, k, ldx);
    double *ig = tu_alloc(n, n, ldx), *ic = tu_alloc(n, n, ldx);
    if (spd) tu_spd(&rng, n, a, lda);
    else tu_general(&rng, n, a, lda);
    tu_rect(&rng, n, k, b, ldb);
    double *da = to_device(a, (size_t)(lda * n)), *db = to_device(b, (size_t)(ldb * k));
    double *dx = to_device(xg, (size_t)(ldx * k)), *di = to_device(ig, (size_t)(ldx * n));
    minv_report rg, rc;

    CHECK_STATUS(minv_solve_device_d(gpu, method, n, k, da, lda, db, ldb, dx, ldx, &rg), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_solve_d(cpu, method, n, k, a, lda, b, ldb, xc, ldx, &rc), MINV_SUCCESS, cpu);
    from_device(xg, dx, (size_t)(ldx * k));
    const double ratio = tu_solve_ratio(n, k, a, lda, b, ldb, xg, ldx, DBL_EPSILON);
    const double diff = tu_rel_diff(n, k, xg, ldx, xc, ldx), agree = 1e3 * DBL_EPSILON / rc.rcond;
    printf("test_small_solve_gpu: %s n=%lld k=%lld: solve ratio %.3g, GPU-CPU %.3g (bound %.3g), residual %.3g / %.3g, "
           "rcond %.4g / %.4g\n", kind, (long long)n, (long long)k, ratio, diff, agree, rg.residual, rc.residual,
           rg.rcond, rc.rcond);
    CHECK(rg.backend == MINV_BACKEND_GPU && rg.method == method, "%s n=%lld: ran %s on %s", kind, (long long)n,
          minv_method_name(rg.method), minv_backend_name(rg.backend));
    CHECK(ratio < 30 && diff < agree, "%s n=%lld k=%lld: ratio %.3g, GPU-CPU %.3g", kind, (long long)n, (long long)k,
          ratio, diff);
    /* the residual of the same sampled columns, each backend's own rounding; rcond the same bound
     * (or, under 1e-4, each backend's estimate, within the method's own accuracy) */
    const double rcond_tol = rc.rcond >= 1e-4 ? 1e-6 * rc.rcond : 10 * rc.rcond;
    CHECK(rg.residual_kind == rc.residual_kind && rg.residual >= 0 && rg.residual < 100 * n * DBL_EPSILON,
          "%s n=%lld k=%lld: residual %.3g (kind %d; CPU %.3g)", kind, (long long)n, (long long)k, rg.residual,
          rg.residual_kind, rc.residual);
    CHECK(rg.rcond > 0 && fabs(rg.rcond - rc.rcond) <= rcond_tol, "%s n=%lld k=%lld: rcond %.6g, CPU %.6g", kind,
          (long long)n, (long long)k, rg.rcond, rc.rcond);

    CHECK_STATUS(minv_invert_device_d(gpu, method, n, da, lda, di, ldx, &rg), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_invert_d(cpu, method, n, a, lda, ic, ldx, &rc), MINV_SUCCESS, cpu);
    from_device(ig, di, (size_t)(ldx * n));
    const double iratio = tu_inverse_ratio(n, a, lda, ig, ldx, DBL_EPSILON);
    const double idiff = tu_rel_diff(n, n, ig, ldx, ic, ldx);
    int symmetric = 1;
    for (int64_t j = 0; spd && j < n; j++)
        for (int64_t i = j + 1; i < n; i++) symmetric &= ig[i + j * ldx] == ig[j + i * ldx];
    CHECK(iratio < 30 && idiff < agree && symmetric, "%s n=%lld: inverse ratio %.3g, GPU-CPU %.3g, symmetric %d", kind,
          (long long)n, iratio, idiff, symmetric);
    CHECK(rg.residual >= 0 && rg.residual < 100 * n * DBL_EPSILON && fabs(rg.rcond - rc.rcond) <= 1e-6 * rc.rcond,
          "%s n=%lld: inverse residual %.3g, rcond %.6g (CPU %.6g)", kind, (long long)n, rg.residual, rg.rcond,
          rc.rcond);

    /* float, host arrays (the host form puts them on the device whole) */
    float *af = tu_to_float(n, n, a, lda, lda), *bf = tu_to_float(n, k, b, ldb, ldb), *xf = tu_to_float(n, k, xc, ldx, ldx);
    CHECK_STATUS(minv_solve_s(gpu, method, n, k, af, lda, bf, ldb, xf, ldx, &rg), MINV_SUCCESS, gpu);
    double *a2 = tu_to_double(n, n, af, lda), *b2 = tu_to_double(n, k, bf, ldb), *x2 = tu_to_double(n, k, xf, ldx);
    const double fratio = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON);
    CHECK(rg.backend == MINV_BACKEND_GPU && fratio < 30, "%s n=%lld k=%lld float: ratio %.3g", kind, (long long)n,
          (long long)k, fratio);

    cudaFree(da); cudaFree(db); cudaFree(dx); cudaFree(di);
    free(a); free(b); free(xg); free(xc); free(ig); free(ic);
    free(af); free(bf); free(xf); free(a2); free(b2); free(x2);
}

/* A minor that is not positive definite past potrf's first panels: NOT_SPD at that column, X on
 * the device left as it was; double and float. */
static void not_spd(minv_context *gpu, int64_t n, int64_t bad) {
    const int64_t k = 2;
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(7 * n + bad));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *x = tu_alloc(n, k, n), *back = tu_alloc(n, k, n);
    tu_spd(&rng, n, a, n);
    a[bad + bad * n] = -a[bad + bad * n];
    tu_rect(&rng, n, k, b, n);
    for (int64_t e = 0; e < n * k; e++) x[e] = 0.5 + (double)e;
    double *da = to_device(a, (size_t)(n * n)), *db = to_device(b, (size_t)(n * k)), *dx = to_device(x, (size_t)(n * k));
    minv_report rep;
    CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_CHOLESKY, n, k, da, n, db, n, dx, n, &rep), MINV_ERR_NOT_SPD, gpu);
    from_device(back, dx, (size_t)(n * k));
    /* the small solve writes nothing where its factor failed; the large one may have put B in X */
    const int kept = memcmp(back, x, sizeof(double) * (size_t)(n * k)) == 0;
    CHECK(rep.info == bad && (kept || n > 512), "not SPD n=%lld: info %lld (expected %lld), X %s", (long long)n,
          (long long)rep.info, (long long)bad, kept ? "kept" : "changed");
    float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n), *xf = tu_to_float(n, k, x, n, n);
    CHECK_STATUS(minv_solve_s(gpu, MINV_METHOD_CHOLESKY, n, k, af, n, bf, n, xf, n, &rep), MINV_ERR_NOT_SPD, gpu);
    CHECK(rep.info == bad, "not SPD n=%lld float: info %lld (expected %lld)", (long long)n, (long long)rep.info,
          (long long)bad);
    cudaFree(da); cudaFree(db); cudaFree(dx);
    free(a); free(b); free(x); free(back); free(af); free(bf); free(xf);
}

/* The factor that the GPU begins beside the analysis is of this call's matrix: the same device
 * array refilled between AUTO solves (a DA cycle's next covariance), SPD, SPD, general (the factor
 * begun and not taken), SPD (none begun after that), SPD, each answer checked against its own
 * matrix. */
static void refilled(minv_context *gpu, int64_t n) {
    const int64_t k = 3;
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(11 * n));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *x = tu_alloc(n, k, n);
    double *da = to_device(a, (size_t)(n * n)), *db = to_device(b, (size_t)(n * k)), *dx = to_device(x, (size_t)(n * k));
    minv_report rep;
    for (int round = 0; round < 5; round++) {
        const int general = round == 2;
        if (!general) tu_spd(&rng, n, a, n);
        else tu_general(&rng, n, a, n);
        tu_rect(&rng, n, k, b, n);
        cudaMemcpy(da, a, sizeof(double) * (size_t)(n * n), cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, sizeof(double) * (size_t)(n * k), cudaMemcpyHostToDevice);
        CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_AUTO, n, k, da, n, db, n, dx, n, &rep), MINV_SUCCESS, gpu);
        from_device(x, dx, (size_t)(n * k));
        const double ratio = tu_solve_ratio(n, k, a, n, b, n, x, n, DBL_EPSILON);
        CHECK(ratio < 30 && rep.method == (general ? MINV_METHOD_LU : MINV_METHOD_CHOLESKY),
              "refilled n=%lld round %d: ratio %.3g, %s", (long long)n, round, ratio, minv_method_name(rep.method));
    }
    cudaFree(da); cudaFree(db); cudaFree(dx);
    free(a); free(b); free(x);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int early = tu_gpu_and_cpu("test_small_solve_gpu", &gpu, &cpu);
    if (early)
        return early;
    static const struct { int64_t n, k; } cases[] = {{1, 1}, {33, 5}, {33, 33}, {256, 1}, {256, 256}, {511, 5}};
    for (int spd = 0; spd <= 1; spd++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) one_case(gpu, cpu, spd, cases[c].n, cases[c].k);
    not_spd(gpu, 33, 32);
    not_spd(gpu, 511, 300);
    not_spd(gpu, 700, 600); /* above the small orders: the large solve's factor begun beside the analysis */
    refilled(gpu, 200);
    refilled(gpu, 700); /* there, under AUTO, the general matrix's potrf turned away by the gate */
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_small_solve_gpu");
}
