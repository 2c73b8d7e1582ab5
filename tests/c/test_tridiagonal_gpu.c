/* Tridiagonal inversion on device pointers, where test_tridiagonal cannot reach: the device
 * forms of the band API and of minv_invert (in place too), every GPU algorithm against the
 * CPU's result and by its own residual ratio at sizes across many tiles and write-once
 * blocks, the fallback to the CPU (its result checked) when the device budget cannot hold
 * X, and a NaN found in device bands. Skips without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "\"%s\" lacks \"%s\"", (msg), (text))

/* Dominant by rows (columns) when by_rows (not), with room to spare. */
static void make(tu_rng *r, int64_t n, int by_rows, double *dl, double *d, double *du) {
    for (int64_t i = 0; i < n; i++) {
        dl[i] = i + 1 < n ? tu_uniform(r) : 0;
        du[i] = i + 1 < n ? tu_uniform(r) : 0;
    }
    for (int64_t i = 0; i < n; i++) {
        double off = by_rows ? (i > 0 ? fabs(dl[i - 1]) : 0) + fabs(du[i]) : (i > 0 ? fabs(du[i - 1]) : 0) + fabs(dl[i]);
        d[i] = (tu_uniform(r) < 0 ? -1 : 1) * (off + 0.2);
    }
}

static double *to_device(const void *host, size_t bytes) {
    void *p = NULL;
    cudaMalloc(&p, bytes ? bytes : 1);
    cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice);
    return p;
}

/* ||X - Y||_1 / ||Y||_1 with X of leading dimension ld, Y dense */
static double rel(int64_t n, const double *x, int64_t ld, const double *y) { return tu_rel_diff(n, n, x, ld, y, n); }

/* The dense n x n matrix of the bands (dl below the diagonal, du above), leading dimension n. */
static double *bands_dense(int64_t n, const double *dl, const double *d, const double *du) {
    double *a = calloc((size_t)(n * n), sizeof *a);
    for (int64_t i = 0; i < n; i++) {
        a[i * n + i] = d[i];
        if (i + 1 < n) a[i * n + i + 1] = dl[i], a[(i + 1) * n + i] = du[i];
    }
    return a;
}

static void device_bands(minv_context *gpu, minv_context *cpu) {
    static const int64_t sizes[] = {1, 2, 127, 128, 129, 513, 1100, 4097};
    tu_rng r;
    tu_seed(&r, 71);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int alg = 0; alg <= 3; alg++) {
            const int64_t n = sizes[s], ld = n + 5;
            double *dl = malloc(n * sizeof *dl), *d = malloc(n * sizeof *d), *du = malloc(n * sizeof *du);
            double *ref = tu_alloc(n, n, n), *x = tu_alloc(n, n, ld);
            make(&r, n, alg != 1 || s % 2, dl, d, du);
            minv_report rep, rep_cpu;
            minv_set_option(cpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, alg);
            minv_set_option(gpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, alg);
            CHECK_STATUS(minv_invert_tridiagonal_d(cpu, n, dl, d, du, ref, n, &rep_cpu), MINV_SUCCESS, cpu);
            double *ddl = to_device(dl, n * sizeof *dl), *dd = to_device(d, n * sizeof *d), *ddu = to_device(du, n * sizeof *du);
            double *dx = to_device(x, (size_t)(ld * n) * sizeof *x); /* NaN padding */
            CHECK_STATUS(minv_invert_tridiagonal_device_d(gpu, n, ddl, dd, ddu, dx, ld, &rep), MINV_SUCCESS, gpu);
            cudaMemcpy(x, dx, (size_t)(ld * n) * sizeof *x, cudaMemcpyDeviceToHost);
            double diff = rel(n, x, ld, ref);
            CHECK(diff < 1e-12, "n=%lld algorithm %d: GPU vs CPU %.3g (%s)", (long long)n, alg, diff, rep.reason);
            double *dense = bands_dense(n, dl, d, du);
            CHECK(tu_inverse_ratio(n, dense, n, x, ld, DBL_EPSILON) < 30, "n=%lld algorithm %d: ratio %.3g", (long long)n, alg,
                  tu_inverse_ratio(n, dense, n, x, ld, DBL_EPSILON));
            free(dense);
            CHECK(rep.backend == MINV_BACKEND_GPU && rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 1e-13,
                  "n=%lld algorithm %d: backend %d residual %.3g", (long long)n, alg, rep.backend, rep.residual);
            CHECK(fabs(rep.rcond - rep_cpu.rcond) <= 1e-10 * rep_cpu.rcond, "rcond %.17g vs %.17g", rep.rcond, rep_cpu.rcond);
            CHECK(strstr(rep.reason, "tridiagonal:") && rep.flops == rep_cpu.flops, "report: %s", rep.reason);
            int padding_ok = 1;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = n; i < ld; i++) padding_ok &= isnan(x[j * ld + i]);
            CHECK(padding_ok, "n=%lld: padding written", (long long)n);
            /* float, and the full residual */
            if (s == 5) {
                float *fdl = tu_to_float(n, 1, dl, n, n), *fd = tu_to_float(n, 1, d, n, n), *fdu = tu_to_float(n, 1, du, n, n);
                float *fx = malloc(sizeof(float) * n * n);
                float *gdl = (float *)to_device(fdl, n * sizeof(float)), *gd = (float *)to_device(fd, n * sizeof(float));
                float *gdu = (float *)to_device(fdu, n * sizeof(float)), *gx = (float *)to_device(fx, n * n * sizeof(float));
                minv_set_option(gpu, MINV_OPT_RESIDUAL, 2);
                CHECK_STATUS(minv_invert_tridiagonal_device_s(gpu, n, gdl, gd, gdu, gx, n, &rep), MINV_SUCCESS, gpu);
                minv_set_option(gpu, MINV_OPT_RESIDUAL, 1);
                cudaMemcpy(fx, gx, n * n * sizeof(float), cudaMemcpyDeviceToHost);
                double *a = calloc((size_t)(n * n), sizeof(double)), *x2 = tu_to_double(n, n, fx, n);
                for (int64_t i = 0; i < n; i++) {
                    a[i * n + i] = fd[i];
                    if (i + 1 < n) a[i * n + i + 1] = fdl[i], a[(i + 1) * n + i] = fdu[i];
                }
                double mine = tu_inverse_ratio(n, a, n, x2, n, FLT_EPSILON);
                CHECK(mine < 30, "float n=%lld algorithm %d: ratio %.3g", (long long)n, alg, mine);
                CHECK(rep.residual_kind == 2 && fabs(rep.residual / FLT_EPSILON - mine) < 0.5 * mine + 1e-6,
                      "float full residual %.3g eps vs %.3g", rep.residual / FLT_EPSILON, mine);
                cudaFree(gdl), cudaFree(gd), cudaFree(gdu), cudaFree(gx);
                free(fdl), free(fd), free(fdu), free(fx), free(a), free(x2);
            }
            cudaFree(ddl), cudaFree(dd), cudaFree(ddu), cudaFree(dx);
            free(dl), free(d), free(du), free(ref), free(x);
        }
    minv_set_option(cpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, 0);
    minv_set_option(gpu, MINV_OPT_TRIDIAGONAL_ALGORITHM, 0);
}

/* minv_invert_device_d: AUTO finds the device matrix tridiagonal; in place as well. */
static void device_dense(minv_context *gpu) {
    const int64_t n = 700, ld = n + 3;
    tu_rng r;
    tu_seed(&r, 72);
    double *dl = malloc(n * sizeof *dl), *d = malloc(n * sizeof *d), *du = malloc(n * sizeof *du);
    double *a = calloc((size_t)(ld * n), sizeof *a), *x = tu_alloc(n, n, ld);
    make(&r, n, 1, dl, d, du);
    for (int64_t i = 0; i < n; i++) {
        a[i * ld + i] = d[i];
        if (i + 1 < n) a[i * ld + i + 1] = dl[i], a[(i + 1) * ld + i] = du[i];
    }
    double *da = to_device(a, (size_t)(ld * n) * sizeof *a), *dx = to_device(x, (size_t)(ld * n) * sizeof *x);
    minv_report rep;
    CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, da, ld, dx, ld, &rep), MINV_SUCCESS, gpu);
    CHECK(rep.method == MINV_METHOD_TRIDIAGONAL && rep.backend == MINV_BACKEND_GPU, "AUTO on device data: %s", rep.reason);
    cudaMemcpy(x, dx, (size_t)(ld * n) * sizeof *x, cudaMemcpyDeviceToHost);
    CHECK(tu_inverse_ratio(n, a, ld, x, ld, DBL_EPSILON) < 30, "device dense ratio");
    CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_TRIDIAGONAL, n, da, ld, da, ld, &rep), MINV_SUCCESS, gpu);
    cudaMemcpy(x, da, (size_t)(ld * n) * sizeof *x, cudaMemcpyDeviceToHost);
    CHECK(tu_inverse_ratio(n, a, ld, x, ld, DBL_EPSILON) < 30, "device dense in place ratio");
    cudaFree(da), cudaFree(dx);
    free(dl), free(d), free(du), free(a), free(x);
}

static void fallback_and_errors(minv_context *gpu) {
    const int64_t n = 600;
    tu_rng r;
    tu_seed(&r, 73);
    double *dl = malloc(n * sizeof *dl), *d = malloc(n * sizeof *d), *du = malloc(n * sizeof *du), *x = tu_alloc(n, n, n);
    make(&r, n, 1, dl, d, du);
    minv_report rep;
    /* 1 MB holds the plan but not the 2.9 MB inverse: the CPU writes it and the report says so */
    minv_context *small = tu_context(MINV_BACKEND_GPU, 1 << 20);
    CHECK(small != NULL, "small context");
    if (small) {
        CHECK_STATUS(minv_invert_tridiagonal_d(small, n, dl, d, du, x, n, &rep), MINV_SUCCESS, small);
        CHECK(rep.backend == MINV_BACKEND_CPU && strstr(rep.reason, "so the CPU ran it"), "fallback: %s", rep.reason);
        double *dense = bands_dense(n, dl, d, du);
        CHECK(tu_inverse_ratio(n, dense, n, x, n, DBL_EPSILON) < 30, "fallback result");
        free(dense);
        minv_destroy(small);
    }
    d[10] = NAN;
    double *ddl = to_device(dl, n * sizeof *dl), *dd = to_device(d, n * sizeof *d), *ddu = to_device(du, n * sizeof *du);
    double *dx = to_device(x, (size_t)(n * n) * sizeof *x);
    CHECK_STATUS(minv_invert_tridiagonal_device_d(gpu, n, ddl, dd, ddu, dx, n, &rep), MINV_ERR_NOT_FINITE, gpu);
    HAS(minv_last_error(gpu), "d(11) = nan");
    cudaFree(ddl), cudaFree(dd), cudaFree(ddu), cudaFree(dx);
    free(dl), free(d), free(du), free(x);
}

int main(void) {
    minv_context *gpu, *cpu;
    const int early = tu_gpu_and_cpu("test_tridiagonal_gpu", &gpu, &cpu);
    if (early) return early;
    device_bands(gpu, cpu);
    device_dense(gpu);
    fallback_and_errors(gpu);
    minv_destroy(gpu);
    minv_destroy(cpu);
    return tu_finish("test_tridiagonal_gpu");
}
