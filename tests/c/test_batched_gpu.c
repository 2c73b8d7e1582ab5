/* The batched API where only the GPU goes: device pointers (padded strides, in place, float,
 * solves), batches split into chunks by a small device budget, host batches the GPU lacks
 * (LU) run by the CPU with a note, and members of every path side by side in one warp under
 * AUTO. Skips without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (text))

static minv_context *gpu_context(int64_t budget) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_GPU;
    o.device_memory = budget;
    minv_context *ctx = NULL;
    return minv_create(&ctx, &o) == MINV_SUCCESS ? ctx : NULL;
}

/* nbatch members of order k at a + m * stride (leading dimension ld), SPD and general
 * alternating; NaN in the padding. */
static double *random_batch(tu_rng *rng, int64_t k, int64_t nbatch, int64_t ld, int64_t stride) {
    double *a = tu_alloc(1, nbatch, stride);
    for (int64_t m = 0; m < nbatch; m++) {
        if (m % 2) tu_spd(rng, k, a + m * stride, ld);
        else tu_general(rng, k, a + m * stride, ld);
    }
    return a;
}

static float *to_float(const double *a, size_t n) {
    float *f = malloc(n * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (float)a[i];
    return f;
}

static void *to_device(const void *h, size_t bytes) {
    void *d = NULL;
    cudaMalloc(&d, bytes);
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    return d;
}

static void device_forms(minv_context *gpu) {
    static const int64_t ks[] = {5, 32, 64, 200};
    tu_rng rng;
    tu_seed(&rng, 911);
    minv_batch_report rep;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = k > 128 ? 4 : 50, ld = k + 1, stride = ld * k + 3, nrhs = 3;
        const size_t bytes = sizeof(double) * (size_t)(stride * nbatch);
        double *a = random_batch(&rng, k, nbatch, ld, stride), *x = tu_alloc(1, nbatch, stride);
        double *da = to_device(a, bytes), *dx = to_device(x, bytes);
        minv_status st[50];
        CHECK_STATUS(minv_invert_batched_device_d(gpu, MINV_METHOD_AUTO, k, nbatch, da, ld, stride, dx, ld, stride, st, &rep),
                     MINV_SUCCESS, gpu);
        cudaMemcpy(x, dx, bytes, cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(st[m] == MINV_SUCCESS && tu_inverse_ratio(k, a + m * stride, ld, x + m * stride, ld, DBL_EPSILON) < 30,
                  "device k %lld member %lld", (long long)k, (long long)m);
        CHECK(isnan(x[k]) && isnan(x[stride - 1]), "device k %lld: padding written", (long long)k);
        CHECK(rep.backend == MINV_BACKEND_GPU && rep.residual >= 0, "device report: %s", rep.reason);
        /* in place */
        CHECK_STATUS(minv_invert_batched_device_d(gpu, MINV_METHOD_GAUSS_JORDAN, k, nbatch, da, ld, stride, da, ld, stride,
                                                  NULL, &rep),
                     MINV_SUCCESS, gpu);
        cudaMemcpy(x, da, bytes, cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_inverse_ratio(k, a + m * stride, ld, x + m * stride, ld, DBL_EPSILON) < 30, "device in place k %lld",
                  (long long)k);
        /* float */
        float *af = to_float(a, (size_t)(stride * nbatch)), *xf = to_float(x, (size_t)(stride * nbatch));
        float *daf = to_device(af, bytes / 2), *dxf = to_device(xf, bytes / 2);
        CHECK_STATUS(minv_invert_batched_device_s(gpu, MINV_METHOD_AUTO, k, nbatch, daf, ld, stride, dxf, ld, stride, NULL, &rep),
                     MINV_SUCCESS, gpu);
        cudaMemcpy(xf, dxf, bytes / 2, cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++) {
            double *a2 = tu_to_double(k, k, af + m * stride, ld), *x2 = tu_to_double(k, k, xf + m * stride, ld);
            CHECK(tu_inverse_ratio(k, a2, k, x2, k, FLT_EPSILON) < 30, "device float k %lld", (long long)k);
            free(a2);
            free(x2);
        }
        /* solves, and in place */
        double *b = tu_alloc(1, nbatch, k * nrhs), *xs = tu_alloc(1, nbatch, k * nrhs);
        for (int64_t m = 0; m < nbatch; m++) tu_rect(&rng, k, nrhs, b + m * k * nrhs, k);
        cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
        double *db = to_device(b, sizeof(double) * (size_t)(k * nrhs * nbatch)), *dxs = to_device(xs, sizeof(double) * (size_t)(k * nrhs * nbatch));
        CHECK_STATUS(minv_solve_batched_device_d(gpu, MINV_METHOD_AUTO, k, nrhs, nbatch, da, ld, stride, db, k, k * nrhs, dxs, k,
                                                 k * nrhs, NULL, &rep),
                     MINV_SUCCESS, gpu);
        cudaMemcpy(xs, dxs, sizeof(double) * (size_t)(k * nrhs * nbatch), cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_solve_ratio(k, nrhs, a + m * stride, ld, b + m * k * nrhs, k, xs + m * k * nrhs, k, DBL_EPSILON) < 30,
                  "device solve k %lld", (long long)k);
        CHECK_STATUS(minv_solve_batched_device_d(gpu, MINV_METHOD_AUTO, k, nrhs, nbatch, da, ld, stride, db, k, k * nrhs, db, k,
                                                 k * nrhs, NULL, &rep),
                     MINV_SUCCESS, gpu);
        cudaMemcpy(xs, db, sizeof(double) * (size_t)(k * nrhs * nbatch), cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_solve_ratio(k, nrhs, a + m * stride, ld, b + m * k * nrhs, k, xs + m * k * nrhs, k, DBL_EPSILON) < 30,
                  "device solve in place k %lld", (long long)k);
        CHECK(rep.residual == -1, "device solve in place: residual %g", rep.residual);
        HAS(rep.reason, "no residual: B and X share memory");
        /* LU is the CPU's: device data cannot go there */
        CHECK_STATUS(minv_invert_batched_device_d(gpu, MINV_METHOD_LU, k, nbatch, da, ld, stride, dx, ld, stride, NULL, &rep),
                     MINV_ERR_NOT_IMPLEMENTED, gpu);
        cudaFree(da); cudaFree(dx); cudaFree(daf); cudaFree(dxf); cudaFree(db); cudaFree(dxs);
        free(a); free(x); free(af); free(xf); free(b); free(xs);
    }
}

/* Host LU batches run on the CPU, and the report says so. */
static void lu_on_cpu(minv_context *gpu) {
    tu_rng rng;
    tu_seed(&rng, 912);
    const int64_t k = 12, nbatch = 10;
    double *a = random_batch(&rng, k, nbatch, k, k * k), *x = tu_alloc(1, nbatch, k * k);
    minv_batch_report rep;
    CHECK_STATUS(minv_invert_batched_d(gpu, MINV_METHOD_LU, k, nbatch, a, k, k * k, x, k, k * k, NULL, &rep), MINV_SUCCESS, gpu);
    CHECK(rep.backend == MINV_BACKEND_CPU && rep.method == MINV_METHOD_LU, "LU on the %s", minv_backend_name(rep.backend));
    HAS(rep.reason, "so the CPU ran it");
    for (int64_t m = 0; m < nbatch; m++)
        CHECK(tu_inverse_ratio(k, a + m * k * k, k, x + m * k * k, k, DBL_EPSILON) < 30, "LU member %lld", (long long)m);
    free(a);
    free(x);
}

/* A budget of a few MB splits batches into chunks, host and device. */
static void chunks(minv_context *small) {
    static const int64_t ks[] = {32, 100, 300};
    tu_rng rng;
    tu_seed(&rng, 913);
    minv_batch_report rep;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i], nbatch = k > 128 ? 12 : 600;
        const size_t bytes = sizeof(double) * (size_t)(k * k * nbatch);
        double *a = random_batch(&rng, k, nbatch, k, k * k), *x = tu_alloc(1, nbatch, k * k);
        CHECK_STATUS(minv_invert_batched_d(small, MINV_METHOD_AUTO, k, nbatch, a, k, k * k, x, k, k * k, NULL, &rep),
                     MINV_SUCCESS, small);
        HAS(rep.reason, "chunks of up to");
        CHECK(rep.backend == MINV_BACKEND_GPU, "chunked k %lld ran on the %s: %s", (long long)k,
              minv_backend_name(rep.backend), rep.reason);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_inverse_ratio(k, a + m * k * k, k, x + m * k * k, k, DBL_EPSILON) < 30, "chunked k %lld member %lld",
                  (long long)k, (long long)m);
        double *da = to_device(a, bytes), *dx = to_device(x, bytes);
        CHECK_STATUS(minv_invert_batched_device_d(small, MINV_METHOD_AUTO, k, nbatch, da, k, k * k, dx, k, k * k, NULL, &rep),
                     MINV_SUCCESS, small);
        cudaMemcpy(x, dx, bytes, cudaMemcpyDeviceToHost);
        for (int64_t m = 0; m < nbatch; m++)
            CHECK(tu_inverse_ratio(k, a + m * k * k, k, x + m * k * k, k, DBL_EPSILON) < 30, "device chunked k %lld",
                  (long long)k);
        cudaFree(da);
        cudaFree(dx);
        free(a);
        free(x);
    }
}

/* k = 5: eight matrices a warp. SPD, general, symmetric indefinite (the SPD attempt fails
 * and is redone pivoted), singular and NaN members side by side. */
static double *mixed_batch(tu_rng *rng, int64_t k, int64_t nbatch) {
    double *a = tu_alloc(1, nbatch, k * k);
    for (int64_t m = 0; m < nbatch; m++) {
        double *am = a + m * k * k;
        switch (m % 5) {
        case 0: tu_spd(rng, k, am, k); break;
        case 1: tu_general(rng, k, am, k); break;
        case 2: tu_spd(rng, k, am, k); am[k * 2 + 3] = am[k * 3 + 2] = 10 * sqrt(am[2 * k + 2] * am[3 * k + 3]); break;
        case 3: tu_general(rng, k, am, k); for (int64_t i = 0; i < k; i++) am[4 * k + i] = 2 * am[1 * k + i]; break;
        default: tu_spd(rng, k, am, k); am[7] = NAN; break;
        }
    }
    return a;
}

static void mixed_warp(minv_context *gpu) {
    tu_rng rng;
    tu_seed(&rng, 914);
    const int64_t k = 5, nbatch = 40;
    double *a = mixed_batch(&rng, k, nbatch), *x = tu_alloc(1, nbatch, k * k);
    minv_status st[40];
    minv_batch_report rep;
    CHECK_STATUS(minv_invert_batched_d(gpu, MINV_METHOD_AUTO, k, nbatch, a, k, k * k, x, k, k * k, st, &rep),
                 MINV_ERR_SINGULAR, gpu);
    for (int64_t m = 0; m < nbatch; m++) {
        const int kind = (int)(m % 5);
        const minv_status want = kind == 3 ? MINV_ERR_SINGULAR : kind == 4 ? MINV_ERR_NOT_FINITE : MINV_SUCCESS;
        CHECK(st[m] == want, "member %lld (kind %d): %s", (long long)m, kind, minv_status_string(st[m]));
        if (want == MINV_SUCCESS)
            CHECK(tu_inverse_ratio(k, a + m * k * k, k, x + m * k * k, k, DBL_EPSILON) < 30, "member %lld", (long long)m);
    }
    CHECK(rep.cholesky_count == 8 && rep.failed == 16 && rep.first_failed == 3, "mixed: spd %lld failed %lld first %lld",
          (long long)rep.cholesky_count, (long long)rep.failed, (long long)rep.first_failed);
    free(a);
    free(x);
}

/* Host batches in page-locked memory (minv_host_register) travel by DMA straight from and
 * into the caller's arrays: the same kernels as the staged path, so the same bits; a failed
 * member's output left as it was (7 before the call); in place; the input or the output
 * alone registered; over several pieces and chunks. */
static void registered(minv_context *ctx, int64_t k, int64_t nbatch, unsigned seed) {
    tu_rng rng;
    tu_seed(&rng, seed);
    const size_t n = (size_t)(k * k * nbatch), bytes = n * sizeof(double);
    double *a = mixed_batch(&rng, k, nbatch), *want = malloc(bytes), *x = malloc(bytes), *b = malloc(bytes);
    minv_status *st_want = malloc(sizeof(minv_status) * (size_t)nbatch), *st = malloc(sizeof(minv_status) * (size_t)nbatch);
    minv_batch_report rep;
    for (size_t i = 0; i < n; i++) b[i] = want[i] = 7;
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, a, k, k * k, want, k, k * k, st_want, &rep),
                 MINV_ERR_SINGULAR, ctx);
    CHECK(strstr(rep.reason, "page-locked") == NULL, "unregistered k %lld: %s", (long long)k, rep.reason);
    CHECK_STATUS(minv_host_register(ctx, a, (int64_t)bytes), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_register(ctx, a, (int64_t)bytes), MINV_SUCCESS, ctx); /* twice: left as it is */
    CHECK_STATUS(minv_host_register(ctx, x, (int64_t)bytes), MINV_SUCCESS, ctx);
    for (int out_registered = 1; out_registered >= 0; out_registered--) {
        if (!out_registered) CHECK_STATUS(minv_host_unregister(ctx, x), MINV_SUCCESS, ctx);
        for (size_t i = 0; i < n; i++) x[i] = 7;
        CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, a, k, k * k, x, k, k * k, st, &rep),
                     MINV_ERR_SINGULAR, ctx);
        HAS(rep.reason, out_registered ? "the batches lie page-locked" : "the input lies page-locked");
        CHECK(!memcmp(st, st_want, sizeof(minv_status) * (size_t)nbatch) && !memcmp(x, want, bytes),
              "registered k %lld (output %s): results differ from the staged path's", (long long)k,
              out_registered ? "registered" : "not registered");
    }
    /* the output alone registered, then in place (a is its own output) */
    CHECK_STATUS(minv_host_register(ctx, b, (int64_t)bytes), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_unregister(ctx, a), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, a, k, k * k, b, k, k * k, st, &rep),
                 MINV_ERR_SINGULAR, ctx);
    HAS(rep.reason, "the output lies page-locked");
    CHECK(!memcmp(b, want, bytes), "registered output k %lld: results differ", (long long)k);
    memcpy(b, a, bytes);
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, k, nbatch, b, k, k * k, b, k, k * k, st, &rep),
                 MINV_ERR_SINGULAR, ctx);
    for (int64_t m = 0; m < nbatch; m++) {
        const size_t at = (size_t)(m * k * k);
        int wrote = 0; /* as the out-of-place call wrote it (over 7s) */
        for (int64_t i = 0; i < k * k; i++) wrote |= want[at + (size_t)i] != 7;
        const double *expect = wrote ? want + at : a + at;
        CHECK(!memcmp(b + at, expect, (size_t)(k * k) * sizeof(double)), "registered in place k %lld member %lld (%s)",
              (long long)k, (long long)m, minv_status_string(st[m]));
    }
    /* solves: A X = A, B and X registered, and X over B */
    CHECK_STATUS(minv_host_register(ctx, a, (int64_t)bytes), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_register(ctx, x, (int64_t)bytes), MINV_SUCCESS, ctx);
    for (size_t i = 0; i < n; i++) want[i] = x[i] = 7;
    CHECK_STATUS(minv_host_unregister(ctx, b), MINV_SUCCESS, ctx);
    memcpy(b, a, bytes);
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, k, nbatch, a, k, k * k, b, k, k * k, want, k, k * k,
                                      st_want, &rep), MINV_ERR_SINGULAR, ctx);
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, k, k, nbatch, a, k, k * k, a, k, k * k, x, k, k * k, st,
                                      &rep), MINV_ERR_SINGULAR, ctx);
    HAS(rep.reason, "the batches lie page-locked");
    CHECK(!memcmp(st, st_want, sizeof(minv_status) * (size_t)nbatch) && !memcmp(x, want, bytes),
          "registered solve k %lld: results differ from the staged path's", (long long)k);
    CHECK_STATUS(minv_host_unregister(ctx, a), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_host_unregister(ctx, x), MINV_SUCCESS, ctx);
    CHECK(minv_host_unregister(ctx, x) == MINV_ERR_INVALID_ARG, "unregistering twice was not refused");
    free(a);
    free(b);
    free(x);
    free(want);
    free(st);
    free(st_want);
}

/* Two runs' norms: the GPU's sums are reduced in no fixed order. */
static int same_norm(double a, double b) { return fabs(a - b) <= 1e-10 * fabs(a); }

/* Device data without a status array: the GPU tallies the members where they are, and the
 * report must say what the per-member outcomes say, over several chunks too. */
static void device_tally(minv_context *ctx, int64_t k, int64_t nbatch, unsigned seed) {
    tu_rng rng;
    tu_seed(&rng, seed);
    double *a = mixed_batch(&rng, k, nbatch);
    const size_t bytes = sizeof(double) * (size_t)(k * k * nbatch);
    double *da = to_device(a, bytes), *dx = NULL;
    cudaMalloc((void **)&dx, bytes);
    minv_status *st = malloc(sizeof *st * (size_t)nbatch);
    for (int solve = 0; solve <= 1; solve++) {
        minv_batch_report per, tallied;
        minv_status s1, s2;
        if (solve) {
            s1 = minv_solve_batched_device_d(ctx, MINV_METHOD_AUTO, k, k, nbatch, da, k, k * k, da, k, k * k, dx, k, k * k,
                                             st, &per);
            s2 = minv_solve_batched_device_d(ctx, MINV_METHOD_AUTO, k, k, nbatch, da, k, k * k, da, k, k * k, dx, k, k * k,
                                             NULL, &tallied);
        } else {
            s1 = minv_invert_batched_device_d(ctx, MINV_METHOD_AUTO, k, nbatch, da, k, k * k, dx, k, k * k, st, &per);
            s2 = minv_invert_batched_device_d(ctx, MINV_METHOD_AUTO, k, nbatch, da, k, k * k, dx, k, k * k, NULL, &tallied);
        }
        CHECK(s1 == MINV_ERR_SINGULAR && s2 == s1, "tally k %lld solve %d: %s and %s", (long long)k, solve,
              minv_status_string(s1), minv_status_string(s2));
        /* what was written: A_m^-1, or the solution of A_m X = A_m (B is A itself) */
        double *x = malloc(bytes);
        cudaMemcpy(x, dx, bytes, cudaMemcpyDeviceToHost);
        int64_t bad = -1, checked = 0;
        double worst = 0;
        for (int64_t m = 0; m < nbatch; m++) {
            if (st[m] != MINV_SUCCESS) continue;
            checked++;
            const double *am = a + m * k * k, *xm = x + m * k * k;
            const double r = solve ? tu_solve_ratio(k, k, am, k, am, k, xm, k, DBL_EPSILON) : tu_inverse_ratio(k, am, k, xm, k, DBL_EPSILON);
            if (!(r < 30) && bad < 0) bad = m, worst = r;
        }
        CHECK(bad < 0 && checked >= nbatch / 2, "tally k %lld solve %d: %lld members written, member %lld ratio %.3g",
              (long long)k, solve, (long long)checked, (long long)bad, worst);
        free(x);
        CHECK(per.failed == tallied.failed && per.first_failed == tallied.first_failed &&
                  per.first_status == tallied.first_status && per.first_info == tallied.first_info &&
                  per.cholesky_count == tallied.cholesky_count && same_norm(per.rcond, tallied.rcond) &&
                  same_norm(per.residual, tallied.residual) && per.flops == tallied.flops && per.method == tallied.method,
              "tally k %lld solve %d: failed %lld/%lld first %lld/%lld info %lld/%lld spd %lld/%lld rcond %g/%g "
              "residual %g/%g worst %lld/%lld flops %g/%g",
              (long long)k, solve, (long long)per.failed, (long long)tallied.failed, (long long)per.first_failed,
              (long long)tallied.first_failed, (long long)per.first_info, (long long)tallied.first_info,
              (long long)per.cholesky_count, (long long)tallied.cholesky_count, per.rcond, tallied.rcond, per.residual,
              tallied.residual, (long long)per.worst, (long long)tallied.worst, per.flops, tallied.flops);
        CHECK(tallied.failed == 2 * (nbatch / 5) && tallied.first_failed == 3 && tallied.residual >= 0 &&
                  tallied.residual < 1e-10 && tallied.rcond > 0 &&
                  tallied.worst >= 0 && tallied.flops > 0,
              "tally k %lld solve %d: failed %lld first %lld residual %g", (long long)k, solve, (long long)tallied.failed,
              (long long)tallied.first_failed, tallied.residual);
    }
    cudaFree(da);
    cudaFree(dx);
    free(st);
    free(a);
}

/* Members of condition 1e8 (float: 1e4), general and SPD, at each path's order (registers, a
 * thread block, blocked): every solve backward stable, as LAPACK's (a product with the inverse
 * alone leaves residuals of order cond(A) / n above that bound). */
static void ill_conditioned_solves(minv_context *gpu) {
    static const int64_t ks[] = {24, 60, 200};
    const int64_t nbatch = 12, nrhs = 3;
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        const int64_t k = ks[i];
        tu_rng rng;
        tu_seed(&rng, 930 + i);
        double *a = tu_alloc(1, nbatch, k * k), *b = tu_alloc(1, nbatch, k * nrhs), *x = tu_alloc(1, nbatch, k * nrhs);
        for (int64_t m = 0; m < nbatch; m++) {
            tu_with_cond(&rng, k, 1e8, (int)(m % 2), a + m * k * k, k);
            tu_rect(&rng, k, nrhs, b + m * k * nrhs, k);
        }
        minv_status st[12];
        minv_batch_report rep;
        CHECK_STATUS(minv_solve_batched_d(gpu, MINV_METHOD_AUTO, k, nrhs, nbatch, a, k, k * k, b, k, k * nrhs, x, k, k * nrhs,
                                          st, &rep),
                     MINV_SUCCESS, gpu);
        CHECK(rep.backend == MINV_BACKEND_GPU, "ill-conditioned k %lld: ran on %s", (long long)k,
              minv_backend_name(rep.backend));
        for (int64_t m = 0; m < nbatch; m++) {
            const double r = tu_solve_ratio(k, nrhs, a + m * k * k, k, b + m * k * nrhs, k, x + m * k * nrhs, k, DBL_EPSILON);
            CHECK(st[m] == MINV_SUCCESS && r < 30, "ill-conditioned k %lld member %lld: %s, ratio %.3g", (long long)k,
                  (long long)m, minv_status_string(st[m]), r);
        }
        /* float, condition 1e4: the ratio against float's eps */
        for (int64_t m = 0; m < nbatch; m++) tu_with_cond(&rng, k, 1e4, (int)(m % 2), a + m * k * k, k);
        float *af = to_float(a, (size_t)(nbatch * k * k)), *bf = to_float(b, (size_t)(nbatch * k * nrhs)),
              *xf = to_float(x, (size_t)(nbatch * k * nrhs));
        CHECK_STATUS(minv_solve_batched_s(gpu, MINV_METHOD_AUTO, k, nrhs, nbatch, af, k, k * k, bf, k, k * nrhs, xf, k,
                                          k * nrhs, st, &rep),
                     MINV_SUCCESS, gpu);
        double *ad = tu_to_double(k, nbatch * k, af, k), *bd = tu_to_double(k, nbatch * nrhs, bf, k),
               *xd = tu_to_double(k, nbatch * nrhs, xf, k);
        for (int64_t m = 0; m < nbatch; m++) {
            const double r = tu_solve_ratio(k, nrhs, ad + m * k * k, k, bd + m * k * nrhs, k, xd + m * k * nrhs, k, FLT_EPSILON);
            CHECK(st[m] == MINV_SUCCESS && r < 30, "ill-conditioned float k %lld member %lld: %s, ratio %.3g", (long long)k,
                  (long long)m, minv_status_string(st[m]), r);
        }
        free(ad);
        free(bd);
        free(xd);
        free(af);
        free(bf);
        free(xf);
        free(a);
        free(b);
        free(x);
    }
}

int main(void) {
    minv_context *gpu = gpu_context(0), *small = gpu_context(4 << 20);
    if (!gpu || !small) {
        minv_destroy(gpu);
        minv_destroy(small);
        return tu_skip_no_gpu("test_batched_gpu");
    }
    device_forms(gpu);
    lu_on_cpu(gpu);
    chunks(small);
    mixed_warp(gpu);
    ill_conditioned_solves(gpu);
    device_tally(gpu, 5, 40, 915);
    device_tally(gpu, 24, 1000, 916);
    device_tally(gpu, 60, 300, 917);
    device_tally(small, 32, 3000, 918);
    registered(gpu, 5, 40, 919);
    registered(gpu, 64, 3000, 920);
    registered(small, 24, 5000, 921);
    minv_destroy(gpu);
    minv_destroy(small);
    return tu_finish("test_batched_gpu");
}
