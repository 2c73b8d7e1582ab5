/* The condition numbers the GPU's Cholesky and LU solves report, made as the CPU's are: a
 * bound from the solutions (Hager's first vector solved beside B) and the factor's diagonal,
 * refined by Hager's estimate below 1e-4 (by the exact norm from the factor's inverse at orders up
 * to 64 for Cholesky and 48 for LU: there the same figure as the CPU's and the true one, to
 * the factors' rounding). Against the CPU's figure on the same input and the
 * true rcond from LAPACK's inverse: the same bound to rounding where the bound is at least
 * 1e-4 (it overstated rcond 15-25x on these matrices of condition 1e2-1e3), and under it an
 * estimate that neither understates rcond nor overstates it by more than 10x; B narrow (the vector appended to B's workspace), B wide (solved apart)
 * and B in place on the device; double and float. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static double true_rcond(int64_t n, const double *a) { return 1.0 / tu_cond1(n, a, n); }

static void check_case(minv_context *gpu, minv_context *cpu, int spd, int64_t n, int64_t k, double cond) {
    tu_rng rng;
    tu_seed(&rng, (uint64_t)(1000 * spd + n + k));
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *xg = tu_alloc(n, k, n), *xc = tu_alloc(n, k, n);
    tu_with_cond(&rng, n, cond, spd, a, n);
    tu_rect(&rng, n, k, b, n);
    const minv_method method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    const double truth = true_rcond(n, a);
    minv_report rg, rc;
    CHECK_STATUS(minv_solve_d(gpu, method, n, k, a, n, b, n, xg, n, &rg), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_solve_d(cpu, method, n, k, a, n, b, n, xc, n, &rc), MINV_SUCCESS, cpu);
    CHECK(rg.backend == MINV_BACKEND_GPU && rg.method == method, "ran %s on %s", minv_method_name(rg.method),
          minv_backend_name(rg.backend));
    CHECK(tu_solve_ratio(n, k, a, n, b, n, xg, n, DBL_EPSILON) < 30, "%s n=%lld k=%lld: solve wrong",
          spd ? "SPD" : "general", (long long)n, (long long)k);
    printf("test_gpu_rcond: %s n=%lld k=%lld cond %.0e: rcond GPU %.4g CPU %.4g true %.4g\n", spd ? "SPD" : "general",
           (long long)n, (long long)k, cond, rg.rcond, rc.rcond, truth);
    /* a bound or estimate may overstate rcond (its ||A^-1|| is a lower bound), never understate it */
    const double over = rc.rcond >= 1e-4 ? 100 : 10;
    /* under 1e-4, orders up to 64 (Cholesky) and 48 (LU) take the exact norm */
    const int exact = rc.rcond < 1e-4 && n <= (spd ? 64 : 48);
    CHECK(rg.rcond >= truth * (1 - 1e-8) && rg.rcond <= over * truth, "%s n=%lld k=%lld: GPU rcond %.4g, true %.4g",
          spd ? "SPD" : "general", (long long)n, (long long)k, rg.rcond, truth);
    if (rc.rcond >= 1e-4) /* the bound alone, on both backends: the same figure */
        CHECK(fabs(rg.rcond - rc.rcond) <= 1e-8 * rc.rcond, "%s n=%lld k=%lld: GPU rcond %.10g, CPU %.10g",
              spd ? "SPD" : "general", (long long)n, (long long)k, rg.rcond, rc.rcond);
    else if (exact) /* the exact norm, by the same code on each backend's factor: equal up to the
                       factors' rounding, cond eps relative (2e-7 at these matrices' 1e6) */
        CHECK(fabs(rg.rcond - rc.rcond) <= 1e3 * DBL_EPSILON && fabs(rc.rcond - truth) <= 1e3 * DBL_EPSILON,
              "%s n=%lld k=%lld: GPU rcond %.10g, CPU %.10g, true %.10g", spd ? "SPD" : "general", (long long)n,
              (long long)k, rg.rcond, rc.rcond, truth);
    else /* Hager's estimate on the GPU, LAPACK's on the CPU */
        CHECK(rg.rcond <= 3 * rc.rcond && rc.rcond <= 3 * rg.rcond, "%s n=%lld k=%lld: GPU rcond %.4g, CPU %.4g",
              spd ? "SPD" : "general", (long long)n, (long long)k, rg.rcond, rc.rcond);
    /* the report says where the estimate or the exact form ran, as the CPU's does */
    const char *form = exact ? "rcond: exact" : "rcond: Higham's estimate";
    const int noted = strstr(rg.reason, form) != NULL;
    CHECK(noted == (rc.rcond < 1e-4) && noted == (strstr(rc.reason, form) != NULL), "%s n=%lld k=%lld: reason \"%s\"",
          spd ? "SPD" : "general", (long long)n, (long long)k, rg.reason);

    /* float data, where single precision holds the matrix's condition: the factor's rounding apart */
    if (cond <= 1e3) {
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n), *xf = tu_to_float(n, k, b, n, n);
        minv_report rf;
        CHECK_STATUS(minv_solve_s(gpu, method, n, k, af, n, bf, n, xf, n, &rf), MINV_SUCCESS, gpu);
        CHECK(rf.rcond >= truth * 0.5 && rf.rcond <= over * truth, "%s float n=%lld: rcond %.4g, true %.4g",
              spd ? "SPD" : "general", (long long)n, rf.rcond, truth);
        free(af); free(bf); free(xf);
    }

    /* device data, X over B (in place) */
    double *da, *dx;
    cudaMalloc((void **)&da, sizeof(double) * n * n);
    cudaMalloc((void **)&dx, sizeof(double) * n * k);
    cudaMemcpy(da, a, sizeof(double) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, b, sizeof(double) * n * k, cudaMemcpyHostToDevice);
    CHECK_STATUS(minv_solve_device_d(gpu, method, n, k, da, n, dx, n, dx, n, &rg), MINV_SUCCESS, gpu);
    cudaMemcpy(xg, dx, sizeof(double) * n * k, cudaMemcpyDeviceToHost);
    CHECK(tu_solve_ratio(n, k, a, n, b, n, xg, n, DBL_EPSILON) < 30, "device in place n=%lld k=%lld: solve wrong",
          (long long)n, (long long)k);
    CHECK(rg.rcond >= truth * (1 - 1e-8) && rg.rcond <= over * truth, "device in place: rcond %.4g, true %.4g", rg.rcond,
          truth);
    cudaFree(da);
    cudaFree(dx);
    free(a); free(b); free(xg); free(xc);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int early = tu_gpu_and_cpu("test_gpu_rcond", &gpu, &cpu);
    if (early)
        return early;
    /* narrow B (Hager's vector in B's workspace), wide B (its own solve): k >= 64 and 4k > n */
    const struct {
        int64_t n, k;
        double cond;
    } cases[] = {{300, 1, 1e2}, {700, 30, 1e3}, {500, 300, 1e2}, {300, 1, 1e7}, {700, 30, 1e6}, {500, 300, 1e8},
                 {40, 1, 1e6}, {48, 30, 1e6}, {64, 1, 1e6}};
    for (int spd = 1; spd >= 0; spd--)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            check_case(gpu, cpu, spd, cases[c].n, cases[c].k, cases[c].cond);
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_gpu_rcond");
}
