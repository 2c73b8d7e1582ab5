/* The float device-pointer solves that test_gpu and test_batched_gpu reach in double only:
 * minv_solve_device_s (SPD and general, n = 300, 40 right-hand sides) and
 * minv_solve_batched_device_s (orders on both sides of the one-warp and one-block kernels,
 * padded strides, SPD and general members, out of place and in place), each solution checked by
 * the LAPACK-tester ratio in float's eps against the input rounded to float (< 30). Skips
 * without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <stdlib.h>

#include "testutil.h"

/* A device copy of `count` floats. */
static float *to_device(const float *h, size_t count) {
    float *d = NULL;
    CHECK(cudaMalloc((void **)&d, sizeof(float) * (count ? count : 1)) == cudaSuccess, "cudaMalloc");
    if (d) cudaMemcpy(d, h, sizeof(float) * count, cudaMemcpyHostToDevice);
    return d;
}

static void from_device(float *h, const float *d, size_t count) {
    CHECK(cudaMemcpy(h, d, sizeof(float) * count, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy");
}

/* ||B - A X|| ratio in float eps for float data of leading dimension ld. */
static double ratio_s(int64_t n, int64_t k, const float *a, const float *b, const float *x, int64_t ld) {
    double *ad = tu_to_double(ld, n, a, ld), *bd = tu_to_double(ld, k, b, ld), *xd = tu_to_double(ld, k, x, ld);
    const double r = tu_solve_ratio(n, k, ad, ld, bd, ld, xd, ld, FLT_EPSILON);
    free(ad); free(bd); free(xd);
    return r;
}

static void solve_device_s(minv_context *gpu) {
    const int64_t n = 300, k = 40;
    tu_rng rng;
    tu_seed(&rng, 1301);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, k, n);
    minv_report rep;
    for (int spd = 0; spd <= 1; spd++) {
        if (spd) tu_spd(&rng, n, a, n);
        else tu_general(&rng, n, a, n);
        tu_rect(&rng, n, k, b, n);
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, k, b, n, n), *xf = tu_to_float(n, k, b, n, n);
        float *da = to_device(af, (size_t)(n * n)), *db = to_device(bf, (size_t)(n * k)), *dx = to_device(xf, (size_t)(n * k));
        CHECK_STATUS(minv_solve_device_s(gpu, MINV_METHOD_AUTO, n, k, da, n, db, n, dx, n, &rep), MINV_SUCCESS, gpu);
        from_device(xf, dx, (size_t)(n * k));
        const double r = ratio_s(n, k, af, bf, xf, n);
        CHECK(r < 30, "minv_solve_device_s %s: ratio %.3g", spd ? "spd" : "general", r);
        CHECK(rep.backend == MINV_BACKEND_GPU && rep.method == (spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU) &&
                  rep.n == n && rep.nrhs == k,
              "minv_solve_device_s report: %s on the %s", minv_method_name(rep.method), minv_backend_name(rep.backend));
        cudaFree(da); cudaFree(db); cudaFree(dx);
        free(af); free(bf); free(xf);
    }
    free(a); free(b);
}

static void solve_batched_device_s(minv_context *gpu) {
    static const int64_t orders[] = {8, 33, 130};
    enum { NB = 6, NRHS = 3 };
    tu_rng rng;
    tu_seed(&rng, 1302);
    for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
        const int64_t k = orders[i], ld = k + 1, sa = ld * k + 5, sb = ld * NRHS + 3;
        double *a = tu_alloc(1, NB, sa), *b = tu_alloc(1, NB, sb);
        for (int m = 0; m < NB; m++) {
            if (m % 2 == 0) tu_spd(&rng, k, a + m * sa, ld);
            else tu_general(&rng, k, a + m * sa, ld);
            tu_rect(&rng, k, NRHS, b + m * sb, ld);
        }
        float *af = tu_to_float(sa, NB, a, sa, sa), *bf = tu_to_float(sb, NB, b, sb, sb), *xf = tu_to_float(sb, NB, b, sb, sb);
        float *da = to_device(af, (size_t)(sa * NB)), *db = to_device(bf, (size_t)(sb * NB)), *dx = to_device(xf, (size_t)(sb * NB));
        for (int inplace = 0; inplace <= 1; inplace++) {
            minv_status st[NB];
            minv_batch_report rep;
            float *out = inplace ? db : dx;
            if (inplace) cudaMemcpy(db, bf, sizeof(float) * (size_t)(sb * NB), cudaMemcpyHostToDevice);
            CHECK_STATUS(minv_solve_batched_device_s(gpu, MINV_METHOD_AUTO, k, NRHS, NB, da, ld, sa, db, ld, sb, out, ld, sb,
                                                     st, &rep),
                         MINV_SUCCESS, gpu);
            from_device(xf, out, (size_t)(sb * NB));
            CHECK(rep.backend == MINV_BACKEND_GPU && rep.failed == 0 && rep.nbatch == NB && rep.k == k && rep.nrhs == NRHS,
                  "minv_solve_batched_device_s k %lld report: failed %lld on the %s", (long long)k, (long long)rep.failed,
                  minv_backend_name(rep.backend));
            for (int m = 0; m < NB; m++) {
                const double r = ratio_s(k, NRHS, af + m * sa, bf + m * sb, xf + m * sb, ld);
                CHECK(st[m] == MINV_SUCCESS && r < 30, "minv_solve_batched_device_s k %lld member %d%s: %s, ratio %.3g",
                      (long long)k, m, inplace ? " in place" : "", minv_status_string(st[m]), r);
            }
        }
        cudaFree(da); cudaFree(db); cudaFree(dx);
        free(a); free(b); free(af); free(bf); free(xf);
    }
}

int main(void) {
    minv_context *gpu = tu_context(MINV_BACKEND_GPU, 0);
    if (!gpu) return tu_skip_no_gpu("test_device_forms_gpu");
    solve_device_s(gpu);
    solve_batched_device_s(gpu);
    minv_destroy(gpu);
    return tu_finish("test_device_forms_gpu");
}
