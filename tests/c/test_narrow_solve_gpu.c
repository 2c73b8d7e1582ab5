/* The GPU's triangular solves of a few columns in one launch (triangular_narrow.cu), through
 * the solves that take them above order 512: one to three right-hand sides (with Hager's
 * vector beside them, two to four columns in one sweep), SPD (L, then L^T) and general (getrf's
 * unit L, then U), orders whose last block of 64 rows is short (513, 700, 2111) or whole
 * (1024), leading dimensions past n; against the CPU's LAPACK, the rcond bound the same as the
 * CPU's; the same X bit for bit when a call is repeated (each block of rows sums its products
 * in one order). Ill-conditioned matrices (condition 1e8) send the condition estimate's vectors
 * through the same kernel one column at a time, also transposed (U^T, then L^T for LU): its
 * estimate within the method's accuracy of LAPACK's. Float solves on the same paths. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void *to_device(const void *h, size_t bytes) {
    void *d = NULL;
    cudaMalloc(&d, bytes);
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static void one_case(minv_context *gpu, minv_context *cpu, int spd, int64_t n, int64_t k, double cond) {
    const int64_t lda = n + 3, ldb = n + 5, ldx = n + 2;
    const minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    const char *kind = spd ? "SPD" : "general";
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(1000 * n + 10 * k + spd));
    double *a = tu_alloc(n, n, lda), *b = tu_alloc(n, k, ldb), *xg = tu_alloc(n, k, ldx), *xc = tu_alloc(n, k, ldx),
           *again = tu_alloc(n, k, ldx);
    if (cond > 0) tu_with_cond(&rng, n, cond, spd, a, lda);
    else if (spd) tu_spd(&rng, n, a, lda);
    else tu_general(&rng, n, a, lda);
    tu_rect(&rng, n, k, b, ldb);
    double *da = to_device(a, sizeof(double) * (size_t)(lda * n)), *db = to_device(b, sizeof(double) * (size_t)(ldb * k));
    double *dx = to_device(xg, sizeof(double) * (size_t)(ldx * k));
    minv_report rg, rc, r2;

    CHECK_STATUS(minv_solve_device_d(gpu, method, n, k, da, lda, db, ldb, dx, ldx, &rg), MINV_SUCCESS, gpu);
    cudaMemcpy(xg, dx, sizeof(double) * (size_t)(ldx * k), cudaMemcpyDeviceToHost);
    CHECK_STATUS(minv_solve_device_d(gpu, method, n, k, da, lda, db, ldb, dx, ldx, &r2), MINV_SUCCESS, gpu);
    cudaMemcpy(again, dx, sizeof(double) * (size_t)(ldx * k), cudaMemcpyDeviceToHost);
    CHECK_STATUS(minv_solve_d(cpu, method, n, k, a, lda, b, ldb, xc, ldx, &rc), MINV_SUCCESS, cpu);
    const double ratio = tu_solve_ratio(n, k, a, lda, b, ldb, xg, ldx, DBL_EPSILON);
    const double diff = tu_rel_diff(n, k, xg, ldx, xc, ldx), agree = 1e3 * DBL_EPSILON / rc.rcond;
    int same = 1;
    for (int64_t j = 0; j < k; j++) same &= memcmp(xg + j * ldx, again + j * ldx, sizeof(double) * (size_t)n) == 0;
    printf("test_narrow_solve_gpu: %s n=%lld k=%lld cond %.0e: solve ratio %.3g, GPU-CPU %.3g (bound %.3g), rcond %.4g / "
           "%.4g, repeated %s\n", kind, (long long)n, (long long)k, cond, ratio, diff, agree, rg.rcond, rc.rcond,
           same ? "bit for bit" : "DIFFERENT");
    CHECK(rg.backend == MINV_BACKEND_GPU && rg.method == method, "%s n=%lld: ran %s on %s", kind, (long long)n,
          minv_method_name(rg.method), minv_backend_name(rg.backend));
    CHECK(ratio < 30 && diff < agree, "%s n=%lld k=%lld: ratio %.3g, GPU-CPU %.3g", kind, (long long)n, (long long)k,
          ratio, diff);
    CHECK(same, "%s n=%lld k=%lld: a repeated call gave another X", kind, (long long)n, (long long)k);
    if (cond > 0) { /* both estimated: the same quantity, each method's accuracy (a factor of 10) */
        CHECK(rg.rcond < 1e-4 && rc.rcond < 1e-4 && rg.rcond <= 10 * rc.rcond && rc.rcond <= 10 * rg.rcond &&
                  strstr(rg.reason, "Higham") != NULL,
              "%s n=%lld cond %.0e: rcond %.4g, CPU %.4g (reason: %s)", kind, (long long)n, cond, rg.rcond, rc.rcond,
              rg.reason);
    } else {
        CHECK(rg.rcond > 0 && fabs(rg.rcond - rc.rcond) <= 1e-6 * rc.rcond, "%s n=%lld k=%lld: rcond %.6g, CPU %.6g",
              kind, (long long)n, (long long)k, rg.rcond, rc.rcond);
    }

    /* float, device data */
    float *af = tu_to_float(n, n, a, lda, lda), *bf = tu_to_float(n, k, b, ldb, ldb), *xf = tu_to_float(n, k, xc, ldx, ldx);
    float *daf = to_device(af, sizeof(float) * (size_t)(lda * n)), *dbf = to_device(bf, sizeof(float) * (size_t)(ldb * k));
    float *dxf = to_device(xf, sizeof(float) * (size_t)(ldx * k));
    if (cond == 0) {
        CHECK_STATUS(minv_solve_device_s(gpu, method, n, k, daf, lda, dbf, ldb, dxf, ldx, &rg), MINV_SUCCESS, gpu);
        cudaMemcpy(xf, dxf, sizeof(float) * (size_t)(ldx * k), cudaMemcpyDeviceToHost);
        double *a2 = tu_to_double(n, n, af, lda), *b2 = tu_to_double(n, k, bf, ldb), *x2 = tu_to_double(n, k, xf, ldx);
        const double fratio = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, FLT_EPSILON);
        CHECK(rg.backend == MINV_BACKEND_GPU && fratio < 30, "%s n=%lld k=%lld float: ratio %.3g", kind, (long long)n,
              (long long)k, fratio);
        free(a2); free(b2); free(x2);
    }
    cudaFree(da); cudaFree(db); cudaFree(dx); cudaFree(daf); cudaFree(dbf); cudaFree(dxf);
    free(a); free(b); free(xg); free(xc); free(again); free(af); free(bf); free(xf);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int ready = tu_gpu_and_cpu("test_narrow_solve_gpu", &gpu, &cpu);
    if (ready != 0) return ready;
    static const int64_t orders[] = {513, 700, 1024, 2111};
    for (int spd = 1; spd >= 0; spd--) {
        for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
            for (int64_t k = 1; k <= 3; k++) one_case(gpu, cpu, spd, orders[o], k, 0);
        one_case(gpu, cpu, spd, 700, 1, 1e8);
        one_case(gpu, cpu, spd, 2111, 2, 1e8);
    }
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_narrow_solve_gpu");
}
