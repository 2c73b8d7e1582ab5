/* The GPU backend where the CPU one cannot reach: analysis against the CPU's, the device
 * pointer API, the out-of-core analysis under a small memory budget, the fallback to the CPU
 * when device memory runs out, and errors found on the device. Skips without a GPU. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* minv_invert_gj_baseline */
#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (text))

static void same_analysis(const minv_analysis *g, const minv_analysis *c, const char *what) {
    CHECK(g->finite == c->finite && g->symmetric == c->symmetric && g->diag_dominant == c->diag_dominant &&
              g->tridiagonal == c->tridiagonal && g->diag_positive == c->diag_positive,
          "%s: flags differ", what);
    CHECK(g->first_bad_row == c->first_bad_row && g->first_bad_col == c->first_bad_col, "%s: first bad (%lld,%lld) vs (%lld,%lld)",
          what, (long long)g->first_bad_row, (long long)g->first_bad_col, (long long)c->first_bad_row, (long long)c->first_bad_col);
    CHECK(g->lower_bandwidth == c->lower_bandwidth && g->upper_bandwidth == c->upper_bandwidth, "%s: bandwidths", what);
    if (c->finite) {
        CHECK(fabs(g->norm_1 - c->norm_1) <= 1e-12 * c->norm_1, "%s: norm1 %.17g vs %.17g", what, g->norm_1, c->norm_1);
        CHECK(fabs(g->norm_inf - c->norm_inf) <= 1e-12 * c->norm_inf, "%s: norminf", what);
        CHECK(fabs(g->norm_fro - c->norm_fro) <= 1e-12 * c->norm_fro, "%s: fro %.17g vs %.17g", what, g->norm_fro, c->norm_fro);
        CHECK(g->asymmetry == c->asymmetry, "%s: asymmetry %.17g vs %.17g", what, g->asymmetry, c->asymmetry);
        CHECK(g->diag_min == c->diag_min && g->diag_max == c->diag_max, "%s: diagonal range", what);
        CHECK(g->auto_method == c->auto_method, "%s: auto method", what);
    }
}

static void analysis_matches_cpu(minv_context *gpu, minv_context *ooc, minv_context *cpu) {
    const int64_t n = 517;
    tu_rng rng;
    tu_seed(&rng, 61);
    double *a = tu_alloc(n, n, n + 3);
    minv_analysis g, o, c;
    for (int pass = 0; pass < 4; pass++) {
        if (pass == 0) tu_spd(&rng, n, a, n + 3);
        if (pass == 1) tu_general(&rng, n, a, n + 3);
        if (pass == 2) { /* banded, diagonally dominant */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) a[j * (n + 3) + i] = labs((long)(i - j)) <= 2 ? (i == j ? 10.0 : 1.0) : 0.0;
            a[5 * (n + 3) + 7] = 0.5; /* lower bandwidth stays 2, symmetry breaks */
        }
        if (pass == 3) a[300 * (n + 3) + 9] = NAN;
        CHECK_STATUS(minv_analyze_d(gpu, n, a, n + 3, &g), MINV_SUCCESS, gpu);
        CHECK_STATUS(minv_analyze_d(ooc, n, a, n + 3, &o), MINV_SUCCESS, ooc);
        CHECK_STATUS(minv_analyze_d(cpu, n, a, n + 3, &c), MINV_SUCCESS, cpu);
        same_analysis(&g, &c, "in-core");
        same_analysis(&o, &c, "out-of-core");
    }
    float *f = tu_to_float(n, n, a, n + 3, n);
    f[300 * n + 9] = 1;
    CHECK_STATUS(minv_analyze_s(ooc, n, f, n, &o), MINV_SUCCESS, ooc);
    CHECK_STATUS(minv_analyze_s(cpu, n, f, n, &c), MINV_SUCCESS, cpu);
    same_analysis(&o, &c, "float out-of-core");
    free(f);
    free(a);
}

static void device_api(minv_context *gpu) {
    const int64_t n = 300, k = 40;
    tu_rng rng;
    tu_seed(&rng, 62);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, k, n), *xs = tu_alloc(n, k, n);
    double *da, *dx, *db, *dxs;
    cudaMalloc((void **)&da, sizeof(double) * n * n);
    cudaMalloc((void **)&dx, sizeof(double) * n * n);
    cudaMalloc((void **)&db, sizeof(double) * n * k);
    cudaMalloc((void **)&dxs, sizeof(double) * n * k);
    minv_report rep;
    for (int spd = 0; spd <= 1; spd++) {
        if (spd) tu_spd(&rng, n, a, n);
        else tu_general(&rng, n, a, n);
        tu_rect(&rng, n, k, b, n);
        cudaMemcpy(da, a, sizeof(double) * n * n, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, sizeof(double) * n * k, cudaMemcpyHostToDevice);
        CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, da, n, dx, n, &rep), MINV_SUCCESS, gpu);
        cudaMemcpy(x, dx, sizeof(double) * n * n, cudaMemcpyDeviceToHost);
        CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "device inverse spd=%d", spd);
        CHECK(rep.backend == MINV_BACKEND_GPU && rep.method == (spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU), "report");
        CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_AUTO, n, k, da, n, db, n, dxs, n, &rep), MINV_SUCCESS, gpu);
        cudaMemcpy(xs, dxs, sizeof(double) * n * k, cudaMemcpyDeviceToHost);
        CHECK(tu_solve_ratio(n, k, a, n, b, n, xs, n, DBL_EPSILON) < 30, "device solve spd=%d", spd);
        CHECK(rep.rcond > 0 && rep.residual >= 0 && rep.residual < 1e-12, "rcond %.3g residual %.3g", rep.rcond, rep.residual);
        /* in place on the device */
        CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, da, n, da, n, &rep), MINV_SUCCESS, gpu);
        cudaMemcpy(x, da, sizeof(double) * n * n, cudaMemcpyDeviceToHost);
        CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "device in-place spd=%d", spd);
    }
    /* NaN in device B is found and named */
    b[3 * n + 17] = NAN;
    cudaMemcpy(da, a, sizeof(double) * n * n, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof(double) * n * k, cudaMemcpyHostToDevice);
    CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_AUTO, n, k, da, n, db, n, dxs, n, &rep), MINV_ERR_NOT_FINITE, gpu);
    HAS(minv_last_error(gpu), "B(18,4)");
    /* float */
    float *af = tu_to_float(n, n, a, n, n), *xf = tu_to_float(n, n, a, n, n);
    float *daf;
    cudaMalloc((void **)&daf, sizeof(float) * n * n);
    cudaMemcpy(daf, af, sizeof(float) * n * n, cudaMemcpyHostToDevice);
    CHECK_STATUS(minv_invert_device_s(gpu, MINV_METHOD_AUTO, n, daf, n, daf, n, &rep), MINV_SUCCESS, gpu);
    cudaMemcpy(xf, daf, sizeof(float) * n * n, cudaMemcpyDeviceToHost);
    double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
    CHECK(tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON) < 30, "device float inverse");
    cudaFree(da); cudaFree(dx); cudaFree(db); cudaFree(dxs); cudaFree(daf);
    free(a); free(x); free(b); free(xs); free(af); free(xf); free(a2); free(x2);
}

static void memory_fallback_and_errors(minv_context *small, minv_context *gpu) {
    const int64_t n = 400;
    tu_rng rng;
    tu_seed(&rng, 63);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *copy = tu_alloc(n, n, n);
    minv_report rep;
    tu_general(&rng, n, a, n);
    /* a 1 MB budget holds no 1.3 MB matrix: the CPU runs LU, and says why (Cholesky streams
     * it: test_spd_ooc) */
    CHECK_STATUS(minv_invert_d(small, MINV_METHOD_AUTO, n, a, n, x, n, &rep), MINV_SUCCESS, small);
    CHECK(rep.backend == MINV_BACKEND_CPU && strstr(rep.reason, "so the CPU ran it"), "fallback: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "fallback result");
    /* NOT_SPD on the GPU, forced and under AUTO in place (the device copy is restored) */
    tu_spd(&rng, n, a, n);
    a[9 * n + 9] = -1;
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_CHOLESKY, n, a, n, x, n, &rep), MINV_ERR_NOT_SPD, gpu);
    CHECK(rep.info == 9 && rep.backend == MINV_BACKEND_GPU, "not SPD at %lld", (long long)rep.info);
    tu_spd(&rng, n, a, n);
    a[1 * n + 0] = a[0 * n + 1] = 10 * sqrt(a[0] * a[n + 1]);
    memcpy(copy, a, sizeof(double) * n * n);
    CHECK_STATUS(minv_invert_inplace_d(gpu, MINV_METHOD_AUTO, n, a, n, &rep), MINV_SUCCESS, gpu);
    CHECK(rep.method == MINV_METHOD_LU && rep.backend == MINV_BACKEND_GPU, "in-place fallback: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, copy, n, a, n, DBL_EPSILON) < 30, "in-place fallback result");
    /* and a solve in place (the small solve's one launch at this order): the failed Cholesky
     * leaves B for LU */
    {
        const int64_t k = 3;
        double *b = tu_alloc(n, k, n), *xb = tu_alloc(n, k, n);
        tu_rect(&rng, n, k, b, n);
        memcpy(xb, b, sizeof(double) * n * k);
        CHECK_STATUS(minv_solve_inplace_d(gpu, MINV_METHOD_AUTO, n, k, copy, n, xb, n, &rep), MINV_SUCCESS, gpu);
        CHECK(rep.method == MINV_METHOD_LU && (rep.fallbacks & MINV_FALLBACK_LU) && rep.backend == MINV_BACKEND_GPU,
              "in-place solve fallback: %s", rep.reason);
        CHECK(tu_solve_ratio(n, k, copy, n, b, n, xb, n, DBL_EPSILON) < 30, "in-place solve fallback result");
        free(b);
        free(xb);
    }
    /* singular on the GPU */
    tu_general(&rng, n, a, n);
    for (int64_t i = 0; i < n; i++) a[11 * n + i] = 0;
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_ERR_SINGULAR, gpu);
    CHECK(rep.info == 11, "singular column %lld", (long long)rep.info);
    /* the full residual on the GPU equals the test's own */
    tu_general(&rng, n, a, n);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, 2);
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_LU, n, a, n, x, n, &rep), MINV_SUCCESS, gpu);
    double mine = tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) * DBL_EPSILON;
    CHECK(rep.residual_kind == 2 && fabs(rep.residual - mine) < 0.5 * mine + 1e-18, "full residual %.3g vs %.3g", rep.residual, mine);
    minv_set_option(gpu, MINV_OPT_RESIDUAL, 1);
    free(a); free(x); free(copy);
}

/* The GPU's LU solve and inverse (the factors from one thread-block cluster up to order 512,
 * from getrf above; then P B or P I and triangular.cu's recursive solves) against the CPU's
 * LAPACK: orders of one block and of clusters of 8 and of 10 and 16 (non-portable), orders off
 * triangular.cu's 256-row diagonal blocks and past two levels of its halving, one right-hand
 * side and more than n, matrices that need row interchanges, double and float; host data
 * (permuted in place on the device, through scratch in 256 columns at a time), device data
 * (out of place) and the inverse. */
static void lu_against_cpu(minv_context *gpu, minv_context *cpu) {
    const struct {
        int64_t n, k;
        int pivoting;
    } cases[] = {{29, 3, 1}, {256, 30, 1}, {300, 1, 0}, {512, 600, 1},
                 {700, 1, 1}, {1000, 1003, 0}, {1300, 300, 1}, {2100, 2, 1}};
    tu_rng rng;
    tu_seed(&rng, 66);
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        const int64_t n = cases[c].n, k = cases[c].k, lda = n + 1;
        double *a = tu_alloc(n, n, lda), *b = tu_alloc(n, k, n), *xg = tu_alloc(n, k, n), *xc = tu_alloc(n, k, n);
        double *ig = tu_alloc(n, n, n), *ic = tu_alloc(n, n, n), *da, *db, *dx;
        minv_report rg, rc;
        double rcond = 0; /* the CPU's estimate, double */
        if (cases[c].pivoting) tu_needs_pivoting(&rng, n, a, lda);
        else tu_general(&rng, n, a, lda);
        tu_rect(&rng, n, k, b, n);
        for (int single = 0; single <= 1; single++) {
            const double eps = single ? FLT_EPSILON : DBL_EPSILON;
            double sr, ir, sd, id;
            if (!single) {
                CHECK_STATUS(minv_solve_d(gpu, MINV_METHOD_LU, n, k, a, lda, b, n, xg, n, &rg), MINV_SUCCESS, gpu);
                CHECK_STATUS(minv_solve_d(cpu, MINV_METHOD_LU, n, k, a, lda, b, n, xc, n, &rc), MINV_SUCCESS, cpu);
                rcond = rc.rcond;
                sr = tu_solve_ratio(n, k, a, lda, b, n, xg, n, eps);
                sd = tu_rel_diff(n, k, xg, n, xc, n);
                CHECK(rg.backend == MINV_BACKEND_GPU && rg.method == MINV_METHOD_LU, "n=%lld: ran %s on %s", (long long)n,
                      minv_method_name(rg.method), minv_backend_name(rg.backend));
                CHECK((strstr(rg.reason, "thread-block cluster") != NULL) == (n <= 512), "n=%lld: %s", (long long)n,
                      rg.reason);
                CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_LU, n, a, lda, ig, n, &rg), MINV_SUCCESS, gpu);
                CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_LU, n, a, lda, ic, n, &rc), MINV_SUCCESS, cpu);
                ir = tu_inverse_ratio(n, a, lda, ig, n, eps);
                id = tu_rel_diff(n, n, ig, n, ic, n);
            } else {
                float *af = tu_to_float(n, n, a, lda, n), *bf = tu_to_float(n, k, b, n, n);
                float *xf = tu_to_float(n, k, b, n, n), *xfc = tu_to_float(n, k, b, n, n);
                float *yf = tu_to_float(n, n, a, lda, n), *yfc = tu_to_float(n, n, a, lda, n);
                CHECK_STATUS(minv_solve_s(gpu, MINV_METHOD_LU, n, k, af, n, bf, n, xf, n, &rg), MINV_SUCCESS, gpu);
                CHECK_STATUS(minv_solve_s(cpu, MINV_METHOD_LU, n, k, af, n, bf, n, xfc, n, &rc), MINV_SUCCESS, cpu);
                CHECK_STATUS(minv_invert_s(gpu, MINV_METHOD_LU, n, af, n, yf, n, &rg), MINV_SUCCESS, gpu);
                CHECK_STATUS(minv_invert_s(cpu, MINV_METHOD_LU, n, af, n, yfc, n, &rc), MINV_SUCCESS, cpu);
                double *a2 = tu_to_double(n, n, af, n), *b2 = tu_to_double(n, k, bf, n);
                double *x2 = tu_to_double(n, k, xf, n), *x2c = tu_to_double(n, k, xfc, n);
                double *y2 = tu_to_double(n, n, yf, n), *y2c = tu_to_double(n, n, yfc, n);
                sr = tu_solve_ratio(n, k, a2, n, b2, n, x2, n, eps);
                sd = tu_rel_diff(n, k, x2, n, x2c, n);
                ir = tu_inverse_ratio(n, a2, n, y2, n, eps);
                id = tu_rel_diff(n, n, y2, n, y2c, n);
                free(af); free(bf); free(xf); free(xfc); free(yf); free(yfc);
                free(a2); free(b2); free(x2); free(x2c); free(y2); free(y2c);
            }
            /* the two backends' forward errors: each about cond(A) eps (vacuous in float for the
             * matrices that need pivoting, cond ~ 1e6) */
            const double agree = 1e3 * eps / rcond;
            printf("test_gpu: LU n=%lld nrhs=%lld %s: solve ratio %.3g, inverse ratio %.3g, GPU-CPU %.3g and %.3g "
                   "(bound %.3g)\n", (long long)n, (long long)k, single ? "float" : "double", sr, ir, sd, id, agree);
            CHECK(sr < 30 && ir < 30, "LU n=%lld nrhs=%lld single=%d: ratios %.3g %.3g", (long long)n, (long long)k,
                  single, sr, ir);
            CHECK(sd < agree && id < agree, "LU n=%lld single=%d: GPU and CPU differ by %.3g and %.3g", (long long)n,
                  single, sd, id);
            CHECK(rg.residual >= 0 && rg.residual < 100 * n * eps, "LU n=%lld: report residual %.3g", (long long)n,
                  rg.residual);
        }
        /* device data, B and X apart */
        cudaMalloc((void **)&da, sizeof(double) * n * lda);
        cudaMalloc((void **)&db, sizeof(double) * n * k);
        cudaMalloc((void **)&dx, sizeof(double) * n * k);
        cudaMemcpy(da, a, sizeof(double) * n * lda, cudaMemcpyHostToDevice);
        cudaMemcpy(db, b, sizeof(double) * n * k, cudaMemcpyHostToDevice);
        CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_LU, n, k, da, lda, db, n, dx, n, &rg), MINV_SUCCESS, gpu);
        cudaMemcpy(xg, dx, sizeof(double) * n * k, cudaMemcpyDeviceToHost);
        CHECK(tu_solve_ratio(n, k, a, lda, b, n, xg, n, DBL_EPSILON) < 30 && tu_rel_diff(n, k, xg, n, xc, n) < 1e3 * DBL_EPSILON / rcond,
              "LU device solve n=%lld", (long long)n);
        cudaFree(da); cudaFree(db); cudaFree(dx);
        free(a); free(b); free(xg); free(xc); free(ig); free(ic);
    }
}

/* Matrices beyond the device budget: the iteration and the baseline stream tiles and slabs
 * from host memory, and agree with the in-core results. */
/* AUTO on a general matrix takes the method measured faster on the GPU: Gauss-Jordan to
 * invert from n = 8192, LU below and to solve on one GPU; the report says so. */
static void auto_general(minv_context *gpu) {
    static const int64_t orders[] = {600, 8192};
    tu_rng rng;
    tu_seed(&rng, 67);
    for (int c = 0; c < 2; c++) {
        const int64_t n = orders[c], nrhs = 3;
        double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *xs = tu_alloc(n, nrhs, n);
        minv_report r;
        tu_needs_pivoting(&rng, n, a, n);
        tu_rect(&rng, n, nrhs, b, n);
        CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_AUTO, n, a, n, x, n, &r), MINV_SUCCESS, gpu);
        const minv_method want = n >= 8192 ? MINV_METHOD_GAUSS_JORDAN : MINV_METHOD_LU;
        CHECK(r.method == want && strstr(r.reason, n >= 8192 ? "so Gauss-Jordan" : "so LU") != NULL,
              "AUTO inverse n %lld: %s (%s)", (long long)n, minv_method_name(r.method), r.reason);
        /* the report's residual is relative (a few eps); the ratio is the test's own */
        CHECK(r.residual >= 0 && r.residual < 100 * n * DBL_EPSILON && r.rcond > 0,
              "AUTO inverse n %lld: residual %g rcond %g", (long long)n, r.residual, r.rcond);
        const double ratio = tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON);
        printf("test_gpu: AUTO inverse n=%lld by %s: ratio %.3g, report residual %.3g\n", (long long)n,
               minv_method_name(r.method), ratio, r.residual);
        CHECK(ratio < 30, "AUTO inverse n %lld: ratio %.3g", (long long)n, ratio);
        CHECK_STATUS(minv_solve_d(gpu, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, xs, n, &r), MINV_SUCCESS, gpu);
        CHECK(r.method == MINV_METHOD_LU, "AUTO solve n %lld: %s (%s)", (long long)n, minv_method_name(r.method), r.reason);
        CHECK(tu_solve_ratio(n, nrhs, a, n, b, n, xs, n, DBL_EPSILON) < 30, "AUTO solve n %lld", (long long)n);
        free(a);
        free(x);
        free(b);
        free(xs);
    }
}

static void out_of_core(minv_context *gpu) {
    const int64_t n = 300;
    minv_context *ooc = tu_context(MINV_BACKEND_GPU, 1 << 20), *tiny = tu_context(MINV_BACKEND_GPU, 200 << 10);
    tu_rng rng;
    tu_seed(&rng, 64);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), *xin = tu_alloc(n, n, n);
    minv_report rep;
    if (!ooc || !tiny) {
        CHECK(0, "contexts with small budgets");
        return;
    }
    for (int it = 0; it <= 1; it++) {
        tu_with_cond(&rng, n, 30, 0, a, n);
        minv_set_option(ooc, MINV_OPT_ITERATION, it);
        minv_set_option(gpu, MINV_OPT_ITERATION, it);
        CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ooc);
        CHECK(strstr(rep.reason, "out of core") && rep.backend == MINV_BACKEND_GPU, "ooc: %s", rep.reason);
        CHECK(strstr(rep.reason, "A^T/"), "transpose guess streamed: %s", rep.reason);
        CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "ooc iterative ratio");
        CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_ITERATIVE, n, a, n, xin, n, &rep), MINV_SUCCESS, gpu);
        CHECK(tu_rel_diff(n, n, x, n, xin, n) < 1e-12, "ooc vs in-core: %.3g", tu_rel_diff(n, n, x, n, xin, n));
    }
    /* diagonally dominant: the diagonal guess out of core */
    for (int64_t k = 0; k < n * n; k++) a[k] = 0.1 * tu_uniform(&rng);
    for (int64_t i = 0; i < n; i++) a[i * n + i] = 40;
    CHECK_STATUS(minv_invert_d(ooc, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, ooc);
    CHECK(strstr(rep.reason, "diag(1/a_ii)") && tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "ooc diagonal: %s", rep.reason);
    /* the baseline, resident and in slabs */
    tu_general(&rng, n, a, n);
    a[0] = 0;
    CHECK_STATUS(minv_invert_gj_baseline(gpu, MINV_R64, n, a, n, xin, n, &rep), MINV_SUCCESS, gpu);
    CHECK(tu_inverse_ratio(n, a, n, xin, n, DBL_EPSILON) < 30, "gj baseline in core");
    CHECK_STATUS(minv_invert_gj_baseline(tiny, MINV_R64, n, a, n, x, n, &rep), MINV_SUCCESS, tiny);
    CHECK(strstr(rep.reason, "slabs"), "gj slabs: %s", rep.reason);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30 && tu_rel_diff(n, n, x, n, xin, n) < 1e-13, "gj baseline out of core");
    minv_set_option(gpu, MINV_OPT_ITERATION, 0);
    minv_destroy(ooc);
    minv_destroy(tiny);
    free(a); free(x); free(xin);
}

/* The test's own reading of NVML, apart from the library's: whether CUDA device `dev` has an
 * energy counter, and the board's enforced power limit in watts (0 where NVML cannot say). */
static int nvml_meter(int dev, double *limit_w) {
    typedef struct nvml_device_st *nvml_device;
    *limit_w = 0;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    int (*init)(void) = (int (*)(void))dlsym(lib, "nvmlInit_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(lib, "nvmlShutdown");
    int (*by_bus)(const char *, nvml_device *) = (int (*)(const char *, nvml_device *))dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
    int (*energy)(nvml_device, unsigned long long *) =
        (int (*)(nvml_device, unsigned long long *))dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption");
    int (*limit)(nvml_device, unsigned *) = (int (*)(nvml_device, unsigned *))dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit");
    int meter = 0;
    char bus[32];
    nvml_device d;
    unsigned long long mj;
    unsigned mw;
    if (init && shutdown && by_bus && energy && init() == 0) {
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess && by_bus(bus, &d) == 0) {
            meter = energy(d, &mj) == 0;
            if (limit && limit(d, &mw) == 0) *limit_w = mw / 1e3;
        }
        shutdown();
    }
    dlclose(lib);
    return meter;
}

/* Energy to solution from NVML: off by default; a call too short for the counter is flagged,
 * not zero; a call of about a second gets a figure between an idle card (10 W) and the
 * board's power limit, with the short excursions above it that the boards make. Where the
 * test's own NVML reading finds no counter the library must report none either, and the
 * output says that the figure went unchecked. */
static void energy(minv_context *gpu) {
    const int64_t n = 4096;
    tu_rng rng;
    tu_seed(&rng, 65);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n), joules, limit_w;
    minv_report rep;
    const int meter = nvml_meter(0, &limit_w);
    const minv_status counter = minv_energy_counter(gpu, &joules);
    CHECK((counter == MINV_SUCCESS) == meter, "NVML %s a counter, the library %s", meter ? "has" : "lacks",
          counter == MINV_SUCCESS ? "reads one" : minv_last_error(gpu));
    tu_spd(&rng, 64, a, 64);
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_CHOLESKY, 64, a, 64, x, 64, &rep), MINV_SUCCESS, gpu);
    CHECK(rep.energy == -1 && !strstr(rep.reason, "energy"), "energy is off by default: %g J", rep.energy);
    minv_set_option(gpu, MINV_OPT_ENERGY, 1);
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_CHOLESKY, 64, a, 64, x, 64, &rep), MINV_SUCCESS, gpu);
    CHECK(rep.energy == -1, "a short call has no energy figure: %g J", rep.energy);
    CHECK(!meter || strstr(rep.reason, "too short for the GPU's energy counter"), "short call: %s", rep.reason);
    /* about a second of work: the iteration from the transposed guess */
    tu_general(&rng, n, a, n);
    minv_set_option(gpu, MINV_OPT_ITERATION, 0);
    CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_ITERATIVE, n, a, n, x, n, &rep), MINV_SUCCESS, gpu);
    CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "iterative n=%lld", (long long)n);
    if (!meter) {
        printf("test_gpu: NVML has no energy counter for this GPU: the energy figure is NOT checked here\n");
        CHECK(rep.energy == -1, "no meter, yet %g J", rep.energy);
    } else {
        /* H100s (700 W enforced) read 734-824 W over 0.26-0.44 s bursts of DGEMM (2026-11-25,
         * four machines): the cap holds over longer windows than one call. A unit or sum
         * gone wrong is off by far more than 1.5x. */
        const double ceiling = limit_w > 0 ? 1.5 * limit_w : 1500;
        printf("test_gpu: %.3g J over %.3g s (%.0f W; board limit %.0f W)\n", rep.energy, rep.seconds,
               rep.energy / rep.seconds, limit_w);
        CHECK(rep.seconds >= 0.05, "the metered call took %.3g s, too short to test the meter", rep.seconds);
        CHECK(rep.energy > 10 * rep.seconds && rep.energy < ceiling * rep.seconds, "energy %.3g J over %.3g s: %.0f W",
              rep.energy, rep.seconds, rep.energy / rep.seconds);
    }
    minv_set_option(gpu, MINV_OPT_ENERGY, 0);
    free(a);
    free(x);
}

/* Where AUTO chose the GPU, host calls too small for a round trip run on the CPU and say so;
 * larger ones, device data and a context that asked for the GPU stay on the GPU. Results
 * against the explicit GPU context's. */
static void small_host_calls(minv_context *gpu) {
    minv_context *aut = tu_context(MINV_BACKEND_AUTO, 0);
    if (!aut || minv_context_backend(aut) != MINV_BACKEND_GPU) {
        CHECK(0, "an AUTO context on a GPU machine did not take the GPU");
        minv_destroy(aut);
        return;
    }
    /* the CPU's side of the size rule (dispatch.c): solves whose CPU work, the method's factor
     * and 2 n^2 nrhs, is at most 4e6 flops (LU's factor twice Cholesky's), inversions to 128 */
    static const struct { int64_t n, nrhs; int general, cpu; } cases[] = {
        {64, 0, 0, 1},  {128, 0, 0, 1},  {129, 0, 0, 0}, {64, 30, 0, 1},  {176, 30, 0, 1}, {192, 30, 0, 0},
        {192, 1, 0, 1}, {256, 1, 0, 0},  {512, 1, 0, 0}, {128, 0, 1, 1},  {150, 30, 1, 1}, {160, 30, 1, 0},
        {128, 1, 1, 1}, {192, 1, 1, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t n = cases[c].n, k = cases[c].nrhs, cols = k ? k : n;
        tu_rng rng;
        tu_seed(&rng, 70 + c);
        double *a = tu_alloc(n, n, n), *b = tu_alloc(n, cols, n), *x = tu_alloc(n, cols, n), *y = tu_alloc(n, cols, n);
        if (cases[c].general) tu_general(&rng, n, a, n);
        else tu_spd(&rng, n, a, n);
        tu_rect(&rng, n, cols, b, n);
        minv_report ra, rg;
        if (k) {
            CHECK_STATUS(minv_solve_d(aut, MINV_METHOD_AUTO, n, k, a, n, b, n, x, n, &ra), MINV_SUCCESS, aut);
            CHECK_STATUS(minv_solve_d(gpu, MINV_METHOD_AUTO, n, k, a, n, b, n, y, n, &rg), MINV_SUCCESS, gpu);
            CHECK(tu_solve_ratio(n, k, a, n, b, n, x, n, DBL_EPSILON) < 30, "small solve n %lld", (long long)n);
        } else {
            CHECK_STATUS(minv_invert_d(aut, MINV_METHOD_AUTO, n, a, n, x, n, &ra), MINV_SUCCESS, aut);
            CHECK_STATUS(minv_invert_d(gpu, MINV_METHOD_AUTO, n, a, n, y, n, &rg), MINV_SUCCESS, gpu);
            CHECK(tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON) < 30, "small inverse n %lld", (long long)n);
        }
        const int on_cpu = ra.backend == MINV_BACKEND_CPU, said = strstr(ra.reason, "faster than a round trip") != NULL;
        CHECK(on_cpu == cases[c].cpu && said == cases[c].cpu && ra.device == (on_cpu ? -1 : rg.device) &&
                  ra.method == (cases[c].general ? MINV_METHOD_LU : MINV_METHOD_CHOLESKY),
              "n %lld nrhs %lld: AUTO ran %s on %s (device %d), reason: %s", (long long)n, (long long)k,
              minv_method_name(ra.method), minv_backend_name(ra.backend), ra.device, ra.reason);
        CHECK(rg.backend == MINV_BACKEND_GPU, "n %lld: the GPU context ran on %s", (long long)n, minv_backend_name(rg.backend));
        CHECK(tu_rel_diff(n, cols, x, n, y, n) < 1e3 * n * DBL_EPSILON, "n %lld nrhs %lld: CPU and GPU differ by %.3g",
              (long long)n, (long long)k, tu_rel_diff(n, cols, x, n, y, n));
        free(a);
        free(b);
        free(x);
        free(y);
    }
    minv_destroy(aut);
}

int main(void) {
    minv_context *gpu = tu_context(MINV_BACKEND_GPU, 0);
    if (!gpu) return tu_skip_no_gpu("test_gpu");
    minv_context *ooc = tu_context(MINV_BACKEND_GPU, 1 << 21), *small = tu_context(MINV_BACKEND_GPU, 1 << 20),
                 *cpu = tu_context(MINV_BACKEND_CPU, 0);
    if (!ooc || !small || !cpu) return 1;
    analysis_matches_cpu(gpu, ooc, cpu);
    device_api(gpu);
    lu_against_cpu(gpu, cpu);
    auto_general(gpu);
    small_host_calls(gpu);
    memory_fallback_and_errors(small, gpu);
    out_of_core(gpu);
    energy(gpu);
    minv_destroy(gpu);
    minv_destroy(ooc);
    minv_destroy(small);
    minv_destroy(cpu);
    return tu_finish("test_gpu");
}
