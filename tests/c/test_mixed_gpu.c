/* Mixed-precision solves on device data (minv_solve_device_d/_s with MINV_OPT_PRECISION mixed):
 * TF32 factors for condition 1e2, the 3xTF32 level for 1e6, the double solve for 1e10 (the
 * report says which), SPD and general, LU panels narrower than n and not dividing it, against
 * the CPU's double solve of the same matrices. Skips without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "reason \"%s\" lacks \"%s\"", (msg), (text))

static void *to_device(const void *h, size_t bytes) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return NULL;
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static void check(minv_context *gpu, minv_context *cpu, int64_t n, int64_t k, double cond, int spd, int single) {
    tu_rng rng;
    tu_seed(&rng, 500 + (uint64_t)n + (uint64_t)spd * 7 + (uint64_t)single * 3 + (uint64_t)log10(cond));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *ref = tu_alloc(n, k, n), *x = tu_alloc(n, k, n);
    tu_with_cond(&rng, n, cond, spd, a, n);
    tu_rect(&rng, n, k, b, n);
    const minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    minv_report r;
    if (single) { /* the reference solves the float data in double */
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n);
        double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n);
        memcpy(a, a2, sizeof(double) * (size_t)(n * n));
        memcpy(b, b2, sizeof(double) * (size_t)(n * k));
        free(af); free(bf); free(a2); free(b2);
    }
    CHECK_STATUS(minv_solve_d(cpu, method, n, k, a, n, b, n, ref, n, NULL), MINV_SUCCESS, cpu);
    const size_t es = single ? sizeof(float) : sizeof(double);
    void *ha = single ? (void *)tu_to_float(n, n, a, n, n) : (void *)a, *hb = single ? (void *)tu_to_float(n, k, b, n, n) : (void *)b;
    void *da = to_device(ha, es * (size_t)(n * n)), *db = to_device(hb, es * (size_t)(n * k)), *dx = NULL;
    cudaMalloc(&dx, es * (size_t)(n * k));
    cudaMemset(dx, 0xff, es * (size_t)(n * k)); /* NaN: every entry must be written */
    CHECK_STATUS(minv_set_option(gpu, MINV_OPT_PRECISION, MINV_PRECISION_MIXED), MINV_SUCCESS, gpu);
    CHECK_STATUS(single ? minv_solve_device_s(gpu, method, n, k, da, n, db, n, dx, n, &r)
                        : minv_solve_device_d(gpu, method, n, k, da, n, db, n, dx, n, &r),
                 MINV_SUCCESS, gpu);
    if (single) {
        float *xf = (float *)malloc(es * (size_t)(n * k));
        cudaMemcpy(xf, dx, es * (size_t)(n * k), cudaMemcpyDeviceToHost);
        double *x2 = tu_to_double(n, k, xf, n);
        memcpy(x, x2, sizeof(double) * (size_t)(n * k));
        free(xf); free(x2);
        free(ha); free(hb);
    } else {
        cudaMemcpy(x, dx, es * (size_t)(n * k), cudaMemcpyDeviceToHost);
    }
    const double diff = tu_rel_diff(n, k, x, n, ref, n), bound = single ? 2 * FLT_EPSILON : cond * 1e-13;
    CHECK(diff < bound, "n=%lld cond %.0e spd=%d single=%d: %.3g from the CPU's double solve (%s)", (long long)n, cond, spd,
          single, diff, r.reason);
    if (cond > 1e8) {
        HAS(r.reason, "so the double solve ran");
    } else {
        HAS(r.reason, "mixed precision:");
        HAS(r.reason, cond > 1e4 ? "3xTF32" : "TF32 factors");
        CHECK(r.residual <= (single ? 2 * FLT_EPSILON : 2 * DBL_EPSILON * 1.0001), "n=%lld cond %.0e spd=%d: residual %.3g",
              (long long)n, cond, spd, r.residual);
    }
    CHECK(tu_solve_ratio(n, k, a, n, b, n, x, n, single ? FLT_EPSILON : DBL_EPSILON) < 30, "n=%lld cond %.0e: solve ratio",
          (long long)n, cond);
    CHECK_STATUS(minv_set_option(gpu, MINV_OPT_PRECISION, MINV_PRECISION_DOUBLE), MINV_SUCCESS, gpu);
    cudaFree(da); cudaFree(db); cudaFree(dx);
    free(a); free(b); free(ref); free(x);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int skip = tu_gpu_and_cpu("test_mixed_gpu", &gpu, &cpu);
    if (skip) return skip;
    for (int spd = 1; spd >= 0; spd--) {
        check(gpu, cpu, 1300, 9, 1e2, spd, 0);
        check(gpu, cpu, 1300, 9, 1e6, spd, 0);
        check(gpu, cpu, 700, 3, 1e10, spd, 0);
        check(gpu, cpu, 1300, 9, 1e2, spd, 1);
    }
    /* LU panels of 192 columns, the last one narrower */
    CHECK_STATUS(minv_set_option(gpu, MINV_OPT_BLOCK_SIZE, 192), MINV_SUCCESS, gpu);
    check(gpu, cpu, 1000, 5, 1e2, 0, 0);
    check(gpu, cpu, 1000, 5, 1e6, 0, 0);
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_mixed_gpu");
}
