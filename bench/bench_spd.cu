// Benchmark for the covariance fast path, with the peers measured in the same run,
// on device data (both sides start and end on the GPU):
//   invert   minv's SPD inversion against cuSOLVER potrf + potri, and its rate against DGEMM
//   solve    minv's SPD solve with n right-hand sides against cuSOLVER potrf + potrs
//   blas     the BLAS3 rates the two are built from (GEMM, SYRK, TRMM, TRSM, trtri, lauum)
//   parts    where minv's inversion spends its time
//   ooc      on host data: out of core (the budget a quarter of the matrix) against in core,
//            the inversion and the solve with n right-hand sides, n = 16384 and 32768 (not in
//            all: about 50 GB of host memory at 32768)
// invert and solve start at --min-n (2048 unless given).
// Usage: bench_spd [invert|solve|blas|parts|ooc|all] [--min-n N] [--max-n N]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src_cuda/gpu.h"
#include "bench_common.h"

namespace {

int64_t min_n = 2048, max_n = 32768;

/* minv on the GPU, without the residual check unless a table asks for it. */
minv_context *spd_context() {
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    return ctx;
}

/* The SPD test matrix on the device, and a scratch copy to factor. */
struct spd_case {
    int64_t n;
    double *host, *d_a, *d_x;
    spd_case(int64_t n_) : n(n_) {
        host = (double *)malloc(sizeof(double) * n * n);
        bench_spd(host, n, 1);
        BENCH_CK(cudaMalloc((void **)&d_a, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&d_x, sizeof(double) * n * n));
        BENCH_CK(cudaMemcpy(d_a, host, sizeof(double) * n * n, cudaMemcpyHostToDevice));
    }
    ~spd_case() {
        free(host);
        cudaFree(d_a);
        cudaFree(d_x);
    }
    void reset() { BENCH_CK(cudaMemcpy(d_x, d_a, sizeof(double) * n * n, cudaMemcpyDeviceToDevice)); }
};

/* cuSOLVER potrf + potri, the peer: median of three, seconds (the copy of A excluded). */
double peer_potri(cusolverDnHandle_t h, spd_case &c) {
    int n = (int)c.n, lwork_f = 0, lwork_i = 0, *info;
    double *work;
    BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, &lwork_f));
    BENCH_CK(cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, &lwork_i));
    int lwork = lwork_f > lwork_i ? lwork_f : lwork_i;
    BENCH_CK(cudaMalloc((void **)&work, sizeof(double) * lwork));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    const double s = bench_median_events([&] { c.reset(); }, [&] {
        BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, work, lwork, info));
        BENCH_CK(cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, work, lwork, info));
    });
    cudaFree(work);
    cudaFree(info);
    return s;
}

/* cuSOLVER potrf + potrs with nrhs right-hand sides, by its legacy 32-bit API (x64 = 0) or
 * its 64-bit one: median of three, seconds. */
double peer_potrs(cusolverDnHandle_t h, spd_case &c, double *d_b, int64_t nrhs, int x64) {
    int n = (int)c.n, lwork = 0, *info;
    double *work, *d_xb;
    size_t dws = 0, hws = 0;
    void *hwork = NULL;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreateParams(&params));
    if (x64) {
        BENCH_CK(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, c.n, CUDA_R_64F, c.d_x, c.n, CUDA_R_64F, &dws,
                                       &hws));
        lwork = (int)(dws / sizeof(double)) + 1;
        hwork = hws ? malloc(hws) : NULL;
    } else {
        BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, &lwork));
    }
    BENCH_CK(cudaMalloc((void **)&work, sizeof(double) * lwork));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    BENCH_CK(cudaMalloc((void **)&d_xb, sizeof(double) * c.n * nrhs));
    const double s = bench_median_events(
        [&] {
            c.reset();
            BENCH_CK(cudaMemcpy(d_xb, d_b, sizeof(double) * c.n * nrhs, cudaMemcpyDeviceToDevice));
        },
        [&] {
            if (x64) {
                BENCH_CK(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, c.n, CUDA_R_64F, c.d_x, c.n, CUDA_R_64F, work, dws,
                                    hwork, hws, info));
                BENCH_CK(cusolverDnXpotrs(h, params, CUBLAS_FILL_MODE_LOWER, c.n, nrhs, CUDA_R_64F, c.d_x, c.n, CUDA_R_64F, d_xb,
                                    c.n, info));
            } else {
                BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, c.d_x, n, work, lwork, info));
                BENCH_CK(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, (int)nrhs, c.d_x, n, d_xb, n, info));
            }
        });
    cusolverDnDestroyParams(params);
    free(hwork);
    cudaFree(work);
    cudaFree(info);
    cudaFree(d_xb);
    return s;
}

/* minv through its device-pointer API: median of three, seconds, and the last report. */
double minv_invert(minv_context *ctx, spd_case &c, minv_report *rep) {
    return bench_median_wall(
        [&] { BENCH_CK(minv_invert_device_d(ctx, MINV_METHOD_CHOLESKY, c.n, c.d_a, c.n, c.d_x, c.n, rep)); });
}

double minv_solve(minv_context *ctx, spd_case &c, const double *d_b, double *d_xb, int64_t nrhs, minv_report *rep) {
    return bench_median_wall(
        [&] { BENCH_CK(minv_solve_device_d(ctx, MINV_METHOD_CHOLESKY, c.n, nrhs, c.d_a, c.n, d_b, c.n, d_xb, c.n, rep)); });
}

void invert() {
    printf("\n## SPD inversion on device data: minv (potrf + recursive BLAS3 inverse) vs cuSOLVER potrf + potri\n\n");
    printf("| n | cuSOLVER potrf+potri (s) | minv (s) | speed-up | minv TFLOP/s (n^3) | DGEMM TFLOP/s | of DGEMM | residual |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    minv_context *ctx = spd_context();
    cusolverDnHandle_t sol;
    cublasHandle_t blas;
    BENCH_CK(cusolverDnCreate(&sol));
    BENCH_CK(cublasCreate(&blas));
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    for (int64_t n = min_n; n <= max_n; n *= 2) {
        spd_case c(n);
        minv_report rep;
        double peer = peer_potri(sol, c);
        double ours = minv_invert(ctx, c, &rep);
        double tf = (double)n * n * n / ours / 1e12, gemm = bench_dgemm_tflops(n);
        printf("| %lld | %.4f | %.4f | %.2f | %.1f | %.1f | %.2f | %.2g |\n", (long long)n, peer, ours, peer / ours, tf, gemm,
               tf / gemm, rep.residual);
        fflush(stdout);
    }
    cusolverDnDestroy(sol);
    cublasDestroy(blas);
    minv_destroy(ctx);
}

void solve() {
    printf("\n## SPD solve with n right-hand sides on device data: minv vs cuSOLVER potrf + potrs\n\n");
    printf("| n = nrhs | cuSOLVER Dpotrf+Dpotrs (s) | cuSOLVER Xpotrf+Xpotrs (s) | minv (s) | speed-up (best peer) | minv TFLOP/s | residual |\n");
    printf("|---|---|---|---|---|---|---|\n");
    minv_context *ctx = spd_context();
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    cusolverDnHandle_t sol;
    BENCH_CK(cusolverDnCreate(&sol));
    for (int64_t n = min_n; n <= max_n && n <= 16384; n *= 2) {
        spd_case c(n);
        double *d_b, *d_xb;
        BENCH_CK(cudaMalloc((void **)&d_b, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&d_xb, sizeof(double) * n * n));
        double *hb = (double *)malloc(sizeof(double) * n * n);
        bench_random(hb, n, n, 17);
        BENCH_CK(cudaMemcpy(d_b, hb, sizeof(double) * n * n, cudaMemcpyHostToDevice));
        free(hb);
        minv_report rep;
        double legacy = peer_potrs(sol, c, d_b, n, 0), x64 = peer_potrs(sol, c, d_b, n, 1);
        double ours = minv_solve(ctx, c, d_b, d_xb, n, &rep), best = legacy < x64 ? legacy : x64;
        printf("| %lld | %.4f | %.4f | %.4f | %.2f | %.1f | %.2g |\n", (long long)n, legacy, x64, ours, best / ours,
               7.0 / 3 * n * n * n / ours / 1e12, rep.residual);
        fflush(stdout);
        cudaFree(d_b);
        cudaFree(d_xb);
    }
    cusolverDnDestroy(sol);
    minv_destroy(ctx);
}

/* What the building blocks run at, n x n operands (TFLOP/s). */
void blas() {
    printf("\n## BLAS3 building blocks on n x n operands (TFLOP/s, median of three)\n\n");
    printf("| n | GEMM | SYRK | TRMM in place | TRMM out of place | TRSM | cuSOLVER trtri | cuSOLVER lauum | potrf |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    cublasHandle_t h;
    cusolverDnHandle_t sol;
    BENCH_CK(cublasCreate(&h));
    BENCH_CK(cusolverDnCreate(&sol));
    const double one = 1;
    for (int64_t n = 4096; n <= max_n && n <= 16384; n *= 2) {
        spd_case c(n);
        double *b, *cc;
        BENCH_CK(cudaMalloc((void **)&b, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&cc, sizeof(double) * n * n));
        BENCH_CK(cudaMemset(b, 0x3f, sizeof(double) * n * n));
        const double n3 = (double)n * n * n;
        bench_timer t;
        double rate[8];
        for (int op = 0; op < 8; op++) {
            double times[BENCH_MIN_RUNS_SHORT]; /* bench_common's discipline: five runs cover the short ones */
            for (int k = -BENCH_WARMUPS; k < BENCH_MIN_RUNS_SHORT; k++) {
                c.reset();
                int lwork = 0, *info = (int *)cc; /* scratch: cc is not an operand of these */
                size_t dws = 0, hws = 0;
                if (op == 5)
                    BENCH_CK(cusolverDnXtrtri_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, c.d_x,
                                                   n, &dws, &hws));
                if (op == 6) BENCH_CK(cusolverDnDlauum_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, &lwork));
                if (op == 7) BENCH_CK(cusolverDnDpotrf_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, &lwork));
                void *dwork = NULL, *hwork = hws ? malloc(hws) : NULL;
                size_t wbytes = dws > (size_t)lwork * 8 ? dws : (size_t)lwork * 8;
                if (wbytes) BENCH_CK(cudaMalloc(&dwork, wbytes));
                if (op == 5 || op == 6) { /* a well-conditioned triangle: the Cholesky factor */
                    int flwork = 0;
                    BENCH_CK(cusolverDnDpotrf_bufferSize(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, &flwork));
                    void *fw;
                    BENCH_CK(cudaMalloc(&fw, (size_t)flwork * 8 + 8));
                    BENCH_CK(cusolverDnDpotrf(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, (double *)fw, flwork,
                                        (int *)((double *)fw + flwork)));
                    cudaDeviceSynchronize();
                    cudaFree(fw);
                }
                t.start();
                switch (op) {
                case 0: BENCH_CK(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, c.d_a, n, b, n, &one, cc, n)); break;
                case 1: BENCH_CK(cublasDsyrk_64(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, n, n, &one, c.d_a, n, &one, cc, n)); break;
                case 2: BENCH_CK(cublasDtrmm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                          &one, c.d_a, n, b, n, b, n)); break;
                case 3: BENCH_CK(cublasDtrmm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                          &one, c.d_a, n, b, n, cc, n)); break;
                case 4: BENCH_CK(cublasDtrsm_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                          &one, c.d_a, n, b, n)); break;
                case 5: BENCH_CK(cusolverDnXtrtri(sol, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, c.d_x, n, dwork,
                                            dws, hwork, hws, info)); break;
                case 6: BENCH_CK(cusolverDnDlauum(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, (double *)dwork, lwork, info)); break;
                case 7: BENCH_CK(cusolverDnDpotrf(sol, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, (double *)dwork, lwork, info)); break;
                }
                double s = t.stop();
                if (k >= 0) times[k] = s;
                if (dwork) cudaFree(dwork);
                free(hwork);
                if (op == 2 || op == 4) BENCH_CK(cudaMemset(b, 0x3f, sizeof(double) * n * n)); /* keep it bounded */
            }
            const double flops[8] = {2 * n3, n3, n3, n3, n3, n3 / 3, n3 / 3, n3 / 3};
            rate[op] = flops[op] / bench_median(times, BENCH_MIN_RUNS_SHORT) / 1e12;
        }
        printf("| %lld | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", (long long)n, rate[0], rate[1], rate[2],
               rate[3], rate[4], rate[5], rate[6], rate[7]);
        fflush(stdout);
        cudaFree(b);
        cudaFree(cc);
    }
    cublasDestroy(h);
    cusolverDnDestroy(sol);
}

/* Where minv's SPD inversion spends its time: the factor (cuSOLVER's, by both its APIs), the
 * inverse from the factor, and the whole call with its analysis, residual and condition. */
void parts() {
    printf("\n## SPD inversion, parts (ms, device data)\n\n");
    printf("| n | Dpotrf | Xpotrf | inverse from factor | whole minv call |\n|---|---|---|---|---|\n");
    minv_context *ctx = spd_context();
    cusolverDnHandle_t h;
    cusolverDnParams_t params;
    BENCH_CK(cusolverDnCreate(&h));
    BENCH_CK(cusolverDnCreateParams(&params));
    for (int64_t n = 8192; n <= max_n && n <= 16384; n *= 2) {
        spd_case c(n);
        int lwork = 0, *info;
        size_t dws = 0, hws = 0;
        double *work, ms[4], times[BENCH_MIN_RUNS_SHORT];
        BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, &lwork));
        BENCH_CK(cusolverDnXpotrf_bufferSize(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c.d_x, n, CUDA_R_64F, &dws, &hws));
        size_t wb = dws > (size_t)lwork * 8 ? dws : (size_t)lwork * 8;
        BENCH_CK(cudaMalloc((void **)&work, wb + 8));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
        bench_timer t;
        for (int part = 0; part < 4; part++) {
            for (int r = -BENCH_WARMUPS; r < BENCH_MIN_RUNS_SHORT; r++) {
                c.reset();
                if (part == 2) BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, work, lwork, info));
                cudaDeviceSynchronize();
                minv_report rep;
                minv_mat l = {MINV_R64, n, n, n, c.d_x};
                double t0 = bench_now();
                t.start();
                if (part == 0) BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, (int)n, c.d_x, (int)n, work, lwork, info));
                if (part == 1)
                    BENCH_CK(cusolverDnXpotrf(h, params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, c.d_x, n, CUDA_R_64F, work, dws,
                                        NULL, 0, info));
                if (part == 2) BENCH_CK(minv_gpu_spd_inverse_from_factor(ctx, &l));
                double sec = t.stop();
                if (part == 3) {
                    BENCH_CK(minv_invert_device_d(ctx, MINV_METHOD_CHOLESKY, n, c.d_a, n, c.d_x, n, &rep));
                    sec = bench_now() - t0;
                }
                if (r >= 0) times[r] = sec;
            }
            ms[part] = 1e3 * bench_median(times, BENCH_MIN_RUNS_SHORT);
        }
        printf("| %lld | %.1f | %.1f | %.1f | %.1f |\n", (long long)n, ms[0], ms[1], ms[2], ms[3]);
        fflush(stdout);
        cudaFree(work);
        cudaFree(info);
    }
    cusolverDnDestroyParams(params);
    cusolverDnDestroy(h);
    minv_destroy(ctx);
}

/* minv's whole call on host data (transfers included) by Cholesky, the inversion (b NULL) or
 * the solve with n right-hand sides: median of three after a warm-up, which also allocates
 * the out-of-core path's pinned host buffers. */
double host_call(minv_context *ctx, int64_t n, const double *a, const double *b, double *x, minv_report *rep) {
    return bench_median_wall([&] {
        bench_check(ctx, b ? minv_solve_d(ctx, MINV_METHOD_CHOLESKY, n, n, a, n, b, n, x, n, rep)
                           : minv_invert_d(ctx, MINV_METHOD_CHOLESKY, n, a, n, x, n, rep),
                    b ? "solve" : "inversion");
    });
}

/* The goal: with the matrix four times the device budget, out of core at least 0.6 of the
 * in-core rate. Both are whole calls on pageable host data, without the residual check; the
 * last column compares three columns of the two results. */
void ooc() {
    printf("\n## SPD inversion and solve (n right-hand sides) on host data: out of core, the budget a quarter of the matrix, against in core\n\n");
    printf("Whole calls on pageable host memory, transfers included, no residual check. Goal: out of core at least 0.6 of the in-core rate.\n\n");
    printf("| n | op | in core (s) | TFLOP/s | out of core (s) | TFLOP/s | out of core / in core rate | max rel. diff (3 columns) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    for (int64_t n = 16384; n <= max_n; n *= 2) {
        const size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
        const int64_t cols[3] = {0, n / 3, n - 1};
        double *a = (double *)malloc(bytes), *b = (double *)malloc(bytes), *x = (double *)malloc(bytes);
        double *keep = (double *)malloc(sizeof(double) * 3 * (size_t)n);
        bench_spd(a, n, 1);
        bench_random(b, n, n, 17);
        for (int solve = 0; solve <= 1; solve++) {
            minv_context *gpu = spd_context(), *ooc = bench_context(MINV_BACKEND_GPU, (int64_t)bytes / 4, 0);
            minv_set_option(ooc, MINV_OPT_RESIDUAL, 0);
            minv_report rin, rout;
            double tin = host_call(gpu, n, a, solve ? b : NULL, x, &rin), diff = 0;
            for (int c = 0; c < 3; c++) memcpy(keep + c * n, x + cols[c] * n, sizeof(double) * n);
            double tout = host_call(ooc, n, a, solve ? b : NULL, x, &rout);
            for (int c = 0; c < 3; c++) {
                double num = 0, den = 0;
                for (int64_t i = 0; i < n; i++) {
                    num = fmax(num, fabs(x[cols[c] * n + i] - keep[c * n + i]));
                    den = fmax(den, fabs(keep[c * n + i]));
                }
                diff = fmax(diff, num / den);
            }
            const int in_ok = rin.backend == MINV_BACKEND_GPU && !strstr(rin.reason, "out of core");
            const int out_ok = rout.backend == MINV_BACKEND_GPU && strstr(rout.reason, "out of core");
            const double rate_in = rin.flops / tin / 1e12, rate_out = rout.flops / tout / 1e12;
            printf("| %lld | %s | %.3f%s | %.1f | %.3f%s | %.1f | %.2f | %.2g |\n", (long long)n, solve ? "solve" : "invert", tin,
                   in_ok ? "" : " (not in core on the GPU)", rate_in, tout, out_ok ? "" : " (not out of core on the GPU)",
                   rate_out, rate_out / rate_in, diff);
            printf("\n%s\n\n", rout.reason);
            fflush(stdout);
            minv_destroy(gpu);
            minv_destroy(ooc);
        }
        free(a); free(b); free(x); free(keep);
    }
}

/* One warm-up and one measured inversion at --max-n, nothing else: for a profiler
 * (ncu --metrics gpu__time_duration.sum). */
void profile_one() {
    minv_context *ctx = spd_context();
    spd_case c(max_n);
    minv_report rep;
    for (int k = 0; k < 2; k++) BENCH_CK(minv_invert_device_d(ctx, MINV_METHOD_CHOLESKY, c.n, c.d_a, c.n, c.d_x, c.n, &rep));
    printf("profile: n = %lld, %.4f s\n", (long long)c.n, rep.seconds);
    minv_destroy(ctx);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 ? argv[1] : "all";
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--max-n") && k + 1 < argc) max_n = atoll(argv[k + 1]);
        else if (!strcmp(argv[k], "--min-n") && k + 1 < argc) min_n = atoll(argv[k + 1]);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("bench_spd: no GPU, nothing to measure\n");
        return 0;
    }
    if (!strcmp(what, "profile")) {
        profile_one();
        return 0;
    }
    bench_header(stdout, argc, argv);
    if (!strcmp(what, "blas") || !strcmp(what, "all")) blas();
    if (!strcmp(what, "invert") || !strcmp(what, "all")) invert();
    if (!strcmp(what, "solve") || !strcmp(what, "all")) solve();
    if (!strcmp(what, "parts") || !strcmp(what, "all")) parts();
    if (!strcmp(what, "ooc")) ooc();
    return 0;
}
