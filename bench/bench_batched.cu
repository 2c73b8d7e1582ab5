// Benchmark of the batched API, each peer measured in the same run on the same data:
//   gpu   minv's GPU batches on device data, SPD (Cholesky path) and general (Gauss-Jordan),
//         against cuBLAS getrfBatched + getriBatched, cuBLAS matinvBatched (k <= 32), cuSOLVER
//         potrfBatched + two cuBLAS trsmBatched on the identity (SPD), and for k >= 128 loops
//         of cuSOLVER getrf/getrs and potrf/potrs (on the identity) over several streams.
//         Times from CUDA events, the median of --reps runs after a warm-up; the peers' inputs
//         (fresh copies, identities) are prepared outside the timed region.
//   cpu   minv's CPU batches on host data against a plain loop of LAPACK calls.
// Every minv result is checked: the worst LAPACK-tester ratio ||I - A X||_1 / (k ||A||_1
// ||X||_1 eps) over sampled matrices (it must stay below 30).
// Usage: bench_batched [gpu|cpu|all] [--reps N] [--scale F] (F scales every batch count)
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "minv.h"
#include "bench_common.h"

extern "C" {
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dpotri_(const char *, const int *, double *, const int *, int *, size_t);
}

namespace {

int reps = 5;
double scale = 1;

struct bench_case {
    int k;
    int64_t gpu_batch, cpu_batch;
};
const bench_case cases[] = {{8, 100000, 20000},  {16, 100000, 10000}, {32, 100000, 5000}, {64, 20000, 1000},
                            {128, 5000, 200},    {256, 1000, 40},     {512, 300, 10}};

void die(const char *what) {
    fprintf(stderr, "bench_batched: %s\n", what);
    exit(3);
}

/* count matrices of order k, column-major, one after the other: SPD ones (symmetric, strictly
 * diagonally dominant) or general ones (uniform entries, a modest diagonal shift). */
std::vector<double> make_batch(int k, int64_t count, int spd, uint64_t seed) {
    std::vector<double> a((size_t)count * k * k);
    bench_random(a.data(), (int64_t)k * k, count, seed);
#pragma omp parallel for schedule(static)
    for (int64_t m = 0; m < count; m++) {
        double *am = a.data() + (size_t)m * k * k;
        for (int j = 0; j < k; j++) {
            if (spd)
                for (int i = 0; i < j; i++) am[j * k + i] = am[i * k + j];
            am[j * k + j] += spd ? k : 0.5 * sqrt((double)k);
        }
    }
    return a;
}

/* The worst LAPACK-tester ratio over `samples` matrices spread through the batch. */
double worst_ratio(int k, int64_t count, const double *a, const double *x, int samples) {
    double worst = 0;
#pragma omp parallel for reduction(max : worst) schedule(dynamic, 1)
    for (int s = 0; s < samples; s++) {
        const int64_t m = samples > 1 ? s * (count - 1) / (samples - 1) : 0;
        const double *am = a + (size_t)m * k * k, *xm = x + (size_t)m * k * k;
        double rnorm = 0, anorm = 0, xnorm = 0;
        for (int j = 0; j < k; j++) {
            double rs = 0, as = 0, xs = 0;
            for (int i = 0; i < k; i++) {
                double v = i == j ? -1.0 : 0.0;
                for (int l = 0; l < k; l++) v += am[l * k + i] * xm[j * k + l];
                rs += fabs(v);
                as += fabs(am[j * k + i]);
                xs += fabs(xm[j * k + i]);
            }
            rnorm = fmax(rnorm, rs);
            anorm = fmax(anorm, as);
            xnorm = fmax(xnorm, xs);
        }
        const double r = rnorm / ((double)k * anorm * xnorm * 2.220446049250313e-16);
        if (r > worst || isnan(r)) worst = r;
    }
    return worst;
}

/* Median milliseconds of `run` between CUDA events on the legacy stream (which waits for the
 * blocking streams the peers use; minv's calls return when their work is done); `prepare`
 * runs before each, untimed. */
template <typename P, typename R> double time_ms(P prepare, R run) {
    cudaEvent_t e0, e1;
    BENCH_CK(cudaEventCreate(&e0));
    BENCH_CK(cudaEventCreate(&e1));
    std::vector<double> t;
    for (int r = 0; r <= reps; r++) { /* the first is the warm-up */
        prepare();
        BENCH_CK(cudaDeviceSynchronize());
        BENCH_CK(cudaEventRecord(e0, 0));
        run();
        BENCH_CK(cudaEventRecord(e1, 0));
        BENCH_CK(cudaEventSynchronize(e1));
        float ms = 0;
        BENCH_CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r > 0) t.push_back(ms);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return bench_median(t.data(), (int)t.size());
}

/* Device pointers to the members of a dense batch, for the cuBLAS and cuSOLVER batched calls. */
double **member_pointers(double *base, int k, int64_t count) {
    std::vector<double *> h((size_t)count);
    for (int64_t m = 0; m < count; m++) h[(size_t)m] = base + (size_t)m * k * k;
    double **d;
    BENCH_CK(cudaMalloc((void **)&d, sizeof(double *) * (size_t)count));
    BENCH_CK(cudaMemcpy(d, h.data(), sizeof(double *) * (size_t)count, cudaMemcpyHostToDevice));
    return d;
}

/* A loop of cuSOLVER calls over streams: factor a fresh copy, solve with the identity. */
struct stream_peer {
    static const int STREAMS = 8;
    cudaStream_t s[STREAMS];
    cusolverDnHandle_t h[STREAMS];
    double *work[STREAMS];
    int *info, *ipiv;
    int lwork = 0;

    stream_peer(int k, int spd, double *probe) {
        for (int i = 0; i < STREAMS; i++) {
            BENCH_CK(cudaStreamCreate(&s[i])); /* blocking: the legacy stream's events wait for them */
            BENCH_CK(cusolverDnCreate(&h[i]));
            BENCH_CK(cusolverDnSetStream(h[i], s[i]));
        }
        if (spd)
            BENCH_CK(cusolverDnDpotrf_bufferSize(h[0], CUBLAS_FILL_MODE_LOWER, k, probe, k, &lwork));
        else
            BENCH_CK(cusolverDnDgetrf_bufferSize(h[0], k, k, probe, k, &lwork));
        for (int i = 0; i < STREAMS; i++) BENCH_CK(cudaMalloc((void **)&work[i], sizeof(double) * (size_t)(lwork + 1)));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int) * STREAMS));
        BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int) * (size_t)k * STREAMS));
    }
    ~stream_peer() {
        for (int i = 0; i < STREAMS; i++) {
            cusolverDnDestroy(h[i]);
            cudaStreamDestroy(s[i]);
            cudaFree(work[i]);
        }
        cudaFree(info);
        cudaFree(ipiv);
    }
    void run(int k, int64_t count, int spd, double *a, double *x) {
        for (int64_t m = 0; m < count; m++) {
            const int i = (int)(m % STREAMS);
            double *am = a + (size_t)m * k * k, *xm = x + (size_t)m * k * k;
            if (spd) {
                BENCH_CK(cusolverDnDpotrf(h[i], CUBLAS_FILL_MODE_LOWER, k, am, k, work[i], lwork, info + i));
                BENCH_CK(cusolverDnDpotrs(h[i], CUBLAS_FILL_MODE_LOWER, k, k, am, k, xm, k, info + i));
            } else {
                BENCH_CK(cusolverDnDgetrf(h[i], k, k, am, k, work[i], ipiv + (size_t)i * k, info + i));
                BENCH_CK(cusolverDnDgetrs(h[i], CUBLAS_OP_N, k, k, am, k, ipiv + (size_t)i * k, xm, k, info + i));
            }
        }
    }
};

void gpu_table() {
    printf("\n## GPU, device data, double: milliseconds (median of %d) and minv's speed-up over each peer\n\n", reps);
    printf("| k | batch | minv SPD | minv general | getrf+getri | matinv | potrfBatched+trsm | streams getrf/getrs | "
           "streams potrf/potrs | general vs getrf+getri | general vs matinv | general vs best peer | SPD vs best peer | "
           "worst ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_GPU;
    minv_context *ctx = NULL;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) die("no GPU context");
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    BENCH_CK(cublasCreate(&blas));
    BENCH_CK(cusolverDnCreate(&solver));
    for (const bench_case &c : cases) {
        const int k = c.k;
        const int64_t count = (int64_t)fmax(1.0, (double)c.gpu_batch * scale);
        const size_t elems = (size_t)count * k * k, bytes = elems * sizeof(double);
        double *d_a, *d_work, *d_x, *d_id;
        int *d_info, *d_piv;
        BENCH_CK(cudaMalloc((void **)&d_a, bytes));
        BENCH_CK(cudaMalloc((void **)&d_work, bytes));
        BENCH_CK(cudaMalloc((void **)&d_x, bytes));
        BENCH_CK(cudaMalloc((void **)&d_id, bytes));
        BENCH_CK(cudaMalloc((void **)&d_info, sizeof(int) * (size_t)count));
        BENCH_CK(cudaMalloc((void **)&d_piv, sizeof(int) * (size_t)count * k));
        std::vector<double> id(elems, 0.0), x(elems);
        for (int64_t m = 0; m < count; m++)
            for (int i = 0; i < k; i++) id[(size_t)m * k * k + (size_t)i * k + i] = 1;
        BENCH_CK(cudaMemcpy(d_id, id.data(), bytes, cudaMemcpyHostToDevice));
        double **p_work = member_pointers(d_work, k, count), **p_x = member_pointers(d_x, k, count);
        double **p_a = member_pointers(d_a, k, count);
        double t[2][6]; /* [spd][minv, getrf+getri, matinv, potrf+trsm, streams LU, streams Cholesky] */
        double worst = 0;
        for (int spd = 0; spd <= 1; spd++) {
            std::vector<double> a = make_batch(k, count, spd, 1000 + k);
            BENCH_CK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
            auto nothing = [] {};
            auto fresh = [&] { BENCH_CK(cudaMemcpy(d_work, d_a, bytes, cudaMemcpyDeviceToDevice)); };
            auto fresh_id = [&] {
                fresh();
                BENCH_CK(cudaMemcpy(d_x, d_id, bytes, cudaMemcpyDeviceToDevice));
            };
            const minv_method m = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_GAUSS_JORDAN;
            t[spd][0] = time_ms(nothing, [&] {
                minv_batch_report rep;
                if (minv_invert_batched_device_d(ctx, m, k, count, d_a, k, (int64_t)k * k, d_x, k, (int64_t)k * k, NULL, &rep) !=
                    MINV_SUCCESS)
                    die(minv_last_error(ctx));
            });
            BENCH_CK(cudaMemcpy(x.data(), d_x, bytes, cudaMemcpyDeviceToHost));
            worst = fmax(worst, worst_ratio(k, count, a.data(), x.data(), k >= 256 ? 8 : 16));
            t[spd][1] = time_ms(fresh, [&] {
                BENCH_CK(cublasDgetrfBatched(blas, k, p_work, k, d_piv, d_info, (int)count));
                BENCH_CK(cublasDgetriBatched(blas, k, (const double *const *)p_work, k, d_piv, p_x, k, d_info, (int)count));
            });
            t[spd][2] = k <= 32 ? time_ms(nothing, [&] {
                BENCH_CK(cublasDmatinvBatched(blas, k, (const double *const *)p_a, k, p_x, k, d_info, (int)count));
            })
                                : NAN;
            const double one = 1;
            t[spd][3] = spd ? time_ms(fresh_id, [&] {
                BENCH_CK(cusolverDnDpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, k, p_work, k, d_info, (int)count));
                BENCH_CK(cublasDtrsmBatched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, k, k,
                                      &one, (const double *const *)p_work, k, p_x, k, (int)count));
                BENCH_CK(cublasDtrsmBatched(blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, k, k,
                                      &one, (const double *const *)p_work, k, p_x, k, (int)count));
            })
                            : NAN;
            t[spd][4] = t[spd][5] = NAN;
            if (k >= 128) {
                stream_peer lu(k, 0, d_a), chol(k, 1, d_a);
                t[spd][4] = time_ms(fresh_id, [&] { lu.run(k, count, 0, d_work, d_x); });
                if (spd) t[spd][5] = time_ms(fresh_id, [&] { chol.run(k, count, 1, d_work, d_x); });
            }
        }
        double best_general = t[0][1], best_spd = t[1][1];
        for (int j = 2; j <= 5; j++) {
            if (!isnan(t[0][j])) best_general = fmin(best_general, t[0][j]);
            if (!isnan(t[1][j])) best_spd = fmin(best_spd, t[1][j]);
        }
        printf("| %d | %lld | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | %.2g |\n", k,
               (long long)count, t[1][0], t[0][0], t[0][1], t[0][2], t[1][3], t[0][4], t[1][5], t[0][1] / t[0][0],
               t[0][2] / t[0][0], best_general / t[0][0], best_spd / t[1][0], worst);
        fflush(stdout);
        cudaFree(p_work);
        cudaFree(p_x);
        cudaFree(p_a);
        cudaFree(d_a);
        cudaFree(d_work);
        cudaFree(d_x);
        cudaFree(d_id);
        cudaFree(d_info);
        cudaFree(d_piv);
    }
    printf("\nTargets (H100): k = 64, 20000 matrices: general and SPD at least 3x faster than getrf+getri; "
           "k <= 32: at least 2x faster than matinv; k = 128 to 512: ahead of every peer.\n"
           "Peers get their inputs ready untimed (a fresh copy to factor, the identity to solve with); "
           "the SPD columns of getrf+getri and the streams LU are measured on the general batch.\n");
    cublasDestroy(blas);
    cusolverDnDestroy(solver);
    minv_destroy(ctx);
}

/* Median seconds of `run`, host clock. */
template <typename R> double time_s(R run) {
    std::vector<double> t;
    for (int r = 0; r <= reps; r++) {
        const double t0 = bench_now();
        run();
        if (r > 0) t.push_back(bench_now() - t0);
    }
    return bench_median(t.data(), (int)t.size());
}

void cpu_table() {
    printf("\n## CPU, host data, double: milliseconds (median of %d), minv on all threads against a plain loop of LAPACK calls\n\n",
           reps);
    printf("| k | batch | minv general (LU) | getrf+getri loop | speed-up | minv SPD | potrf+potri loop | speed-up | worst ratio |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    minv_context *ctx = NULL;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) die("no CPU context");
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    for (const bench_case &c : cases) {
        const int k = c.k;
        const int64_t count = (int64_t)fmax(1.0, (double)c.cpu_batch * scale);
        double ms[2][2], worst = 0;
        std::vector<int> ipiv(k);
        std::vector<double> work((size_t)64 * k);
        const int lwork = 64 * k;
        for (int spd = 0; spd <= 1; spd++) {
            std::vector<double> a = make_batch(k, count, spd, 2000 + k), x(a.size());
            const minv_method m = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
            ms[spd][0] = 1e3 * time_s([&] {
                if (minv_invert_batched_d(ctx, m, k, count, a.data(), k, (int64_t)k * k, x.data(), k, (int64_t)k * k, NULL,
                                          NULL) != MINV_SUCCESS)
                    die(minv_last_error(ctx));
            });
            worst = fmax(worst, worst_ratio(k, count, a.data(), x.data(), k >= 256 ? 8 : 16));
            ms[spd][1] = 1e3 * time_s([&] {
                memcpy(x.data(), a.data(), a.size() * sizeof(double));
                for (int64_t j = 0; j < count; j++) {
                    double *xm = x.data() + (size_t)j * k * k;
                    int info = 0;
                    if (spd) {
                        dpotrf_("L", &k, xm, &k, &info, 1);
                        dpotri_("L", &k, xm, &k, &info, 1);
                    } else {
                        dgetrf_(&k, &k, xm, &k, ipiv.data(), &info);
                        dgetri_(&k, xm, &k, ipiv.data(), work.data(), &lwork, &info);
                    }
                }
            });
        }
        printf("| %d | %lld | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.2g |\n", k, (long long)count, ms[0][0], ms[0][1],
               ms[0][1] / ms[0][0], ms[1][0], ms[1][1], ms[1][1] / ms[1][0], worst);
        fflush(stdout);
    }
    printf("\nThe loop's times include copying the batch (LAPACK works in place); minv's include its gathers and "
           "scatters. minv sets a threaded OpenBLAS to one thread a call while members run in parallel.\n");
    minv_destroy(ctx);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 && argv[1][0] != '-' ? argv[1] : "all";
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--reps") && k + 1 < argc) reps = atoi(argv[k + 1]);
        if (!strcmp(argv[k], "--scale") && k + 1 < argc) scale = atof(argv[k + 1]);
    }
    if (reps < BENCH_MIN_RUNS_SHORT) reps = BENCH_MIN_RUNS_SHORT; /* bench_common's discipline: these runs take ms */
    bench_header(stdout, argc, argv);
    int count = 0;
    const int gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    if (!strcmp(what, "gpu") || !strcmp(what, "all")) {
        if (gpu) gpu_table();
        else printf("\nbench_batched: no GPU, the GPU table is left out\n");
    }
    if (!strcmp(what, "cpu") || !strcmp(what, "all")) cpu_table();
    return 0;
}
