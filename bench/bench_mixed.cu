// Mixed-precision solves on device data, whole calls with their checks, in one run:
// minv's mixed solve (MINV_OPT_PRECISION = MINV_PRECISION_MIXED) against minv's own double
// solve and cuSOLVER's iterative-refinement solver cusolverDnIRSXgesv (lowest precision TF32,
// and FP32 with --irs-fp32, classical refinement: its GMRES takes one right-hand side only;
// tolerance 2 eps, as minv's, and its default; the better at 2 eps is the peer), and for
// reference cuSOLVER's double getrf + getrs (potrf + potrs for SPD).
// Matrices of known condition: SPD, KMS(rho) with cond = ((1 + rho) / (1 - rho))^2; general,
// KMS(rho) H for a Householder reflector H (the same singular values). Backward error of every
// result: max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf).
// Usage: bench_mixed [--max-n N] [--min-n N] [--cond C[,C]] [--kinds spd,general] [--nb NB] [--irs-fp32]
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "bench_common.h"

namespace {

__global__ void kms(double *a, int64_t n, double rho) {
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    const int64_t i = k % n, j = k / n;
    a[k] = pow(rho, fabs((double)(i - j)));
}

/* a = a - 2 (a v) v^T / (v^T v): a times a Householder reflector, in place (y = a v given). */
__global__ void reflect(double *a, int64_t n, const double *y, const double *v, double scale) {
    const int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n * n) return;
    const int64_t i = k % n, j = k / n;
    a[k] -= scale * y[i] * v[j];
}

/* berr[j] = ||r_j||_inf / (anorm ||x_j||_inf + ||b_j||_inf), one block a column. */
__global__ void column_berr(const double *r, const double *x, const double *b, int64_t n, double anorm, double *berr) {
    __shared__ double s[3][256];
    const int64_t j = blockIdx.x;
    double rn = 0, xn = 0, bn = 0;
    for (int64_t i = threadIdx.x; i < n; i += 256) {
        rn = fmax(rn, fabs(r[i + j * n]));
        xn = fmax(xn, fabs(x[i + j * n]));
        bn = fmax(bn, fabs(b[i + j * n]));
    }
    s[0][threadIdx.x] = rn;
    s[1][threadIdx.x] = xn;
    s[2][threadIdx.x] = bn;
    __syncthreads();
    for (int w = 128; w > 0; w /= 2) {
        if (threadIdx.x < w)
            for (int q = 0; q < 3; q++) s[q][threadIdx.x] = fmax(s[q][threadIdx.x], s[q][threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) berr[j] = s[0][0] == 0 ? 0 : s[0][0] / (anorm * s[1][0] + s[2][0]);
}

struct problem {
    int64_t n, k;
    int spd;
    double cond, anorm_inf;
    double *a, *a2, *b, *x, *r, *berr;
};

double rho_for(double cond) {
    const double q = sqrt(cond);
    return (q - 1) / (q + 1);
}

void make(problem &p, cublasHandle_t blas) {
    const int64_t n = p.n, nn = n * n;
    const unsigned blocks = (unsigned)((nn + 255) / 256);
    BENCH_CK(cudaMalloc((void **)&p.a, sizeof(double) * nn));
    BENCH_CK(cudaMalloc((void **)&p.a2, sizeof(double) * nn));
    BENCH_CK(cudaMalloc((void **)&p.b, sizeof(double) * n * p.k));
    BENCH_CK(cudaMalloc((void **)&p.x, sizeof(double) * n * p.k));
    BENCH_CK(cudaMalloc((void **)&p.r, sizeof(double) * n * p.k));
    BENCH_CK(cudaMalloc((void **)&p.berr, sizeof(double) * p.k));
    kms<<<blocks, 256>>>(p.a, n, rho_for(p.cond));
    std::vector<double> h((size_t)(n * p.k));
    bench_random(h.data(), n, p.k, 7);
    BENCH_CK(cudaMemcpy(p.b, h.data(), sizeof(double) * n * p.k, cudaMemcpyHostToDevice));
    if (!p.spd) { /* A H, H = I - 2 v v^T / v^T v */
        std::vector<double> v((size_t)n);
        bench_random(v.data(), n, 1, 11);
        double vv = 0;
        for (double e : v) vv += e * e;
        double *dv, *dy, one = 1, zero = 0;
        BENCH_CK(cudaMalloc((void **)&dv, sizeof(double) * n));
        BENCH_CK(cudaMalloc((void **)&dy, sizeof(double) * n));
        BENCH_CK(cudaMemcpy(dv, v.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
        BENCH_CK(cublasDgemv(blas, CUBLAS_OP_N, (int)n, (int)n, &one, p.a, (int)n, dv, 1, &zero, dy, 1));
        reflect<<<blocks, 256>>>(p.a, n, dy, dv, 2.0 / vv);
        BENCH_CK(cudaDeviceSynchronize());
        cudaFree(dv);
        cudaFree(dy);
    }
    /* ||A||_inf on the host from the rows' sums: a column pass over A^T */
    std::vector<double> ha((size_t)nn);
    BENCH_CK(cudaMemcpy(ha.data(), p.a, sizeof(double) * nn, cudaMemcpyDeviceToHost));
    std::vector<double> rows((size_t)n, 0.0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) rows[i] += fabs(ha[j * n + i]);
    p.anorm_inf = 0;
    for (double s : rows) p.anorm_inf = fmax(p.anorm_inf, s);
}

void release(problem &p) {
    cudaFree(p.a);
    cudaFree(p.a2);
    cudaFree(p.b);
    cudaFree(p.x);
    cudaFree(p.r);
    cudaFree(p.berr);
}

double backward_error(const problem &p, cublasHandle_t blas) {
    const double one = 1, minus = -1;
    std::vector<double> h((size_t)p.k);
    BENCH_CK(cudaMemcpy(p.r, p.b, sizeof(double) * p.n * p.k, cudaMemcpyDeviceToDevice));
    BENCH_CK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.n, (int)p.k, (int)p.n, &minus, p.a, (int)p.n, p.x,
                         (int)p.n, &one, p.r, (int)p.n));
    column_berr<<<(unsigned)p.k, 256>>>(p.r, p.x, p.b, p.n, p.anorm_inf, p.berr);
    BENCH_CK(cudaMemcpy(h.data(), p.berr, sizeof(double) * p.k, cudaMemcpyDeviceToHost));
    double w = 0;
    for (double e : h) w = isnan(e) ? INFINITY : fmax(w, e);
    return w;
}

struct timing {
    double seconds, berr;
    long long iters;
};

timing run_minv(minv_context *ctx, problem &p, int mixed, minv_report *rep, cublasHandle_t blas) {
    timing t;
    minv_set_option(ctx, MINV_OPT_PRECISION, mixed ? MINV_PRECISION_MIXED : MINV_PRECISION_DOUBLE);
    const minv_method m = p.spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    t.seconds = bench_median_wall([&] {
        bench_check(ctx, minv_solve_device_d(ctx, m, p.n, p.k, p.a, p.n, p.b, p.n, p.x, p.n, rep), "minv_solve_device_d");
    });
    t.berr = backward_error(p, blas);
    t.iters = rep->iterations;
    return t;
}

timing run_irs(cusolverDnHandle_t h, problem &p, cusolverPrecType_t lowest, double tol) {
    timing t;
    cusolverDnIRSParams_t prm;
    cusolverDnIRSInfos_t inf;
    int iters = 0, *info;
    size_t ws = 0;
    void *work;
    BENCH_CK(cusolverDnIRSParamsCreate(&prm));
    BENCH_CK(cusolverDnIRSInfosCreate(&inf));
    BENCH_CK(cusolverDnIRSParamsSetSolverPrecisions(prm, CUSOLVER_R_64F, lowest));
    BENCH_CK(cusolverDnIRSParamsSetRefinementSolver(prm, CUSOLVER_IRS_REFINE_CLASSICAL));
    if (tol > 0) BENCH_CK(cusolverDnIRSParamsSetTol(prm, tol));
    BENCH_CK(cusolverDnIRSXgesv_bufferSize(h, prm, (int)p.n, (int)p.k, &ws));
    BENCH_CK(cudaMalloc(&work, ws));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    t.seconds = bench_median_events(
        [&] { BENCH_CK(cudaMemcpy(p.a2, p.a, sizeof(double) * p.n * p.n, cudaMemcpyDeviceToDevice)); },
        [&] {
            BENCH_CK(cusolverDnIRSXgesv(h, prm, inf, (int)p.n, (int)p.k, p.a2, (int)p.n, p.b, (int)p.n, p.x, (int)p.n,
                                        work, ws, &iters, info));
        });
    t.iters = iters;
    cudaFree(work);
    cudaFree(info);
    cusolverDnIRSParamsDestroy(prm);
    cusolverDnIRSInfosDestroy(inf);
    return t;
}

/* cuSOLVER in double: getrf + getrs, or potrf + potrs. */
timing run_double_peer(cusolverDnHandle_t h, problem &p) {
    timing t;
    int lw = 0, *info;
    int64_t *ipiv;
    double *work;
    const int n = (int)p.n;
    if (p.spd) BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, p.a2, n, &lw));
    else BENCH_CK(cusolverDnDgetrf_bufferSize(h, n, n, p.a2, n, &lw));
    BENCH_CK(cudaMalloc((void **)&work, sizeof(double) * lw));
    BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
    BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int) * n));
    t.seconds = bench_median_events(
        [&] {
            BENCH_CK(cudaMemcpy(p.a2, p.a, sizeof(double) * p.n * p.n, cudaMemcpyDeviceToDevice));
            BENCH_CK(cudaMemcpy(p.x, p.b, sizeof(double) * p.n * p.k, cudaMemcpyDeviceToDevice));
        },
        [&] {
            if (p.spd) {
                BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, p.a2, n, work, lw, info));
                BENCH_CK(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, (int)p.k, p.a2, n, p.x, n, info));
            } else {
                BENCH_CK(cusolverDnDgetrf(h, n, n, p.a2, n, work, (int *)ipiv, info));
                BENCH_CK(cusolverDnDgetrs(h, CUBLAS_OP_N, n, (int)p.k, p.a2, n, (int *)ipiv, p.x, n, info));
            }
        });
    t.iters = 0;
    cudaFree(work);
    cudaFree(info);
    cudaFree(ipiv);
    return t;
}

} // namespace

int main(int argc, char **argv) {
    int64_t max_n = 32768, min_n = 4096, nb = 0;
    std::vector<double> conds = {1e2, 1e6};
    int kinds = 3, fp32 = 0; /* kinds: 1 spd, 2 general */
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--irs-fp32")) fp32 = 1;
    for (int k = 1; k + 1 < argc; k++) {
        if (!strcmp(argv[k], "--max-n")) max_n = atoll(argv[k + 1]);
        if (!strcmp(argv[k], "--min-n")) min_n = atoll(argv[k + 1]);
        if (!strcmp(argv[k], "--nb")) nb = atoll(argv[k + 1]);
        if (!strcmp(argv[k], "--kinds")) kinds = (strstr(argv[k + 1], "spd") ? 1 : 0) | (strstr(argv[k + 1], "general") ? 2 : 0);
        if (!strcmp(argv[k], "--cond")) {
            conds.clear();
            for (char *s = argv[k + 1]; *s;) {
                char *end;
                conds.push_back(strtod(s, &end));
                s = *end ? end + 1 : end;
            }
        }
    }
    bench_header(stdout, argc, argv);
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    if (nb > 0) minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)nb);
    cusolverDnHandle_t h;
    cublasHandle_t blas;
    BENCH_CK(cusolverDnCreate(&h));
    BENCH_CK(cublasCreate(&blas));
    printf("\n| matrix | cond | n | nrhs | minv double (s) | minv mixed (s) | steps | IRS TF32 (s, iters) | IRS FP32 (s, iters) "
           "| cuSOLVER double (s) | mixed / minv double | mixed / best IRS | berr double | berr mixed | berr IRS | IRS TF32 "
           "default tol (s, iters, berr) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int spd = 1; spd >= 0; spd--) {
        if (!(kinds & (spd ? 1 : 2))) continue;
        for (double cond : conds)
            for (int64_t n = min_n; n <= max_n; n *= 2)
                for (int64_t k : {(int64_t)30, n / 8}) {
                    problem p = {};
                    p.n = n;
                    p.k = k;
                    p.spd = spd;
                    p.cond = cond;
                    make(p, blas);
                    minv_report rd, rm;
                    timing d = run_minv(ctx, p, 0, &rd, blas);
                    timing m = run_minv(ctx, p, 1, &rm, blas);
                    timing tf = run_irs(h, p, CUSOLVER_R_TF32, 2 * DBL_EPSILON);
                    tf.berr = backward_error(p, blas);
                    timing sp = {INFINITY, -1, 0};
                    if (fp32) {
                        sp = run_irs(h, p, CUSOLVER_R_32F, 2 * DBL_EPSILON);
                        sp.berr = backward_error(p, blas);
                    }
                    timing loose = run_irs(h, p, CUSOLVER_R_TF32, 0);
                    loose.berr = backward_error(p, blas);
                    timing peer = run_double_peer(h, p);
                    const timing &irs = tf.seconds < sp.seconds ? tf : sp;
                    char fp32_cell[48] = "-";
                    if (fp32) snprintf(fp32_cell, sizeof fp32_cell, "%.4f (%lld)", sp.seconds, sp.iters);
                    printf("| %s | %.0e | %lld | %lld | %.4f | %.4f | %lld%s | %.4f (%lld) | %s | %.4f | %.2f | %.2f | "
                           "%.2g | %.2g | %.2g | %.4f (%lld, %.2g) |\n",
                           spd ? "SPD KMS" : "general KMS H", cond, (long long)n, (long long)k, d.seconds, m.seconds,
                           m.iters, strstr(rm.reason, "double solve ran") ? " (fell back)" : "", tf.seconds, tf.iters,
                           fp32_cell, peer.seconds, d.seconds / m.seconds, irs.seconds / m.seconds, d.berr,
                           m.berr, irs.berr, loose.seconds, loose.iters, loose.berr);
                    fprintf(stderr, "n=%lld k=%lld cond %.0e spd %d mixed: %s\n", (long long)n, (long long)k, cond, spd,
                            rm.reason);
                    fflush(stdout);
                    release(p);
                }
    }
    minv_destroy(ctx);
    cublasDestroy(blas);
    cusolverDnDestroy(h);
    return 0;
}
