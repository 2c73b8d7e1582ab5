/* The GPU's triangular solves of a few columns in one launch (triangular_narrow.cu), through
 * the solves that take them above order 512: one to three right-hand sides (with Hager's
 * vector beside them, two to four columns in one sweep), SPD (L, then L^T) and general (getrf's
 * unit L, then U), orders whose last block of 64 rows is short (513, 700, 2111) or whole
 * (1024), leading dimensions past n; against the CPU's LAPACK, the rcond bound the same as the
 * CPU's; the same X bit for bit when a call is repeated (each block of rows sums its products
 * in one order). Ill-conditioned matrices (condition 1e8) send the condition estimate's vectors
 * through the same kernel one column at a time, also transposed (U^T, then L^T for LU): its
 * estimate within the method's accuracy of LAPACK's. Float solves on the same paths. A device
 * budget with room for everything but the launch's sums: cuBLAS's TRSM solves instead, the
 * report says so, and X is LAPACK's solution still. */
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

/* One device solve of order n, one right-hand side, on a fresh context with this budget: 0 when
 * it is too small for the call (MINV_ERR_DEVICE_MEMORY), 1 when it ran as usual, 2 when the
 * few-column solves went to cuBLAS's TRSM (the report's note); x on the host. */
static int solve_under(int64_t budget, int spd, int64_t n, const double *da, const double *db, double *dx, double *x,
                       minv_report *rep) {
    minv_context *ctx = tu_context(MINV_BACKEND_GPU, budget);
    if (!ctx) {
        CHECK(0, "a GPU context with a budget of %lld bytes", (long long)budget);
        return 0;
    }
    const minv_status st = minv_solve_device_d(ctx, spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU, n, 1, da, n, db, n, dx, n, rep);
    CHECK(st == MINV_SUCCESS || st == MINV_ERR_DEVICE_MEMORY, "budget %lld: %s", (long long)budget, minv_last_error(ctx));
    minv_destroy(ctx);
    if (st != MINV_SUCCESS) return 0;
    cudaMemcpy(x, dx, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost);
    return strstr(rep->reason, "cuBLAS TRSM") ? 2 : 1;
}

/* The smallest budget (to 64 KB) under which the call runs is where all but the launch's sums
 * fit: the sums, 2 MB at this order, do not, so TRSM solves there; a budget 16 MB larger has
 * room for them. Both answers are LAPACK's solution. */
static void tight_budget(minv_context *cpu, int spd) {
    const int64_t n = 2111;
    const char *kind = spd ? "SPD" : "general";
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(77 + spd));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, 1, n), *x = tu_alloc(n, 1, n), *xc = tu_alloc(n, 1, n);
    if (spd) tu_spd(&rng, n, a, n);
    else tu_general(&rng, n, a, n);
    tu_rect(&rng, n, 1, b, n);
    double *da = to_device(a, sizeof(double) * (size_t)(n * n)), *db = to_device(b, sizeof(double) * (size_t)n);
    double *dx = to_device(x, sizeof(double) * (size_t)n);
    minv_report rep, rc;
    CHECK_STATUS(minv_solve_d(cpu, spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU, n, 1, a, n, b, n, xc, n, &rc), MINV_SUCCESS, cpu);
    int64_t lo = 1 << 20, hi = 1 << 30; /* lo too small (the factor alone is 36 MB), hi enough */
    CHECK(solve_under(lo, spd, n, da, db, dx, x, &rep) == 0 && solve_under(hi, spd, n, da, db, dx, x, &rep) == 1,
          "%s: budgets of 1 MB and 1 GB", kind);
    while (hi - lo > (64 << 10)) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (solve_under(mid, spd, n, da, db, dx, x, &rep)) hi = mid;
        else lo = mid;
    }
    const int tight = solve_under(hi, spd, n, da, db, dx, x, &rep);
    const double ratio = tu_solve_ratio(n, 1, a, n, b, n, x, n, DBL_EPSILON), diff = tu_rel_diff(n, 1, x, n, xc, n);
    printf("test_narrow_solve_gpu: %s n=%lld, smallest budget %.2f MB: %s, solve ratio %.3g, GPU-CPU %.3g\n", kind,
           (long long)n, (double)hi / (1 << 20), tight == 2 ? "by TRSM, and said so" : "NOT by TRSM", ratio, diff);
    CHECK(tight == 2 && ratio < 30 && diff < 1e3 * DBL_EPSILON / rc.rcond, "%s: under %lld bytes: %d, ratio %.3g, diff %.3g (%s)",
          kind, (long long)hi, tight, ratio, diff, rep.reason);
    const int roomy = solve_under(hi + (16 << 20), spd, n, da, db, dx, x, &rep);
    CHECK(roomy == 1 && tu_solve_ratio(n, 1, a, n, b, n, x, n, DBL_EPSILON) < 30,
          "%s: 16 MB more should run the one-launch solve (%d: %s)", kind, roomy, rep.reason);
    cudaFree(da); cudaFree(db); cudaFree(dx);
    free(a); free(b); free(x); free(xc);
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
        tight_budget(cpu, spd);
    }
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_narrow_solve_gpu");
}
