// Host-array whole calls (issue 18, item 3), as a Fortran DA code makes them, in one run: minv
// on the GPU (AUTO; the caller's arrays pageable, and pinned) and on the CPU (the small sizes),
// against what a cuSOLVER user writes: cudaMemcpy of the pageable arrays up, potrf + potri (the
// lower triangle of the inverse only) or potrf + potrs, cudaMemcpy down; and the same with the
// user's arrays pinned. KMS(0.5) SPD, 30 right-hand sides; median of five calls after a warm-up
// (three at n >= 8192); every buffer touched first. Also what cudaHostRegister costs on the
// matrix, the other way to PCIe speed.
// Usage: bench_host_calls [--max-n N]
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "bench_common.h"

namespace {

template <typename Call> double median_of(int runs, Call call) {
    std::vector<double> t((size_t)runs);
    call(); /* warm-up */
    for (int r = 0; r < runs; r++) {
        const double t0 = bench_now();
        call();
        t[(size_t)r] = bench_now() - t0;
    }
    return bench_median(t.data(), runs);
}

struct arrays {
    double *a, *x, *b, *y;
    int pinned;
    arrays(int64_t n, int64_t k, int pin) : pinned(pin) {
        const size_t nn = (size_t)(n * n), nk = (size_t)(n * k);
        if (pin) {
            BENCH_CK(cudaMallocHost((void **)&a, nn * 8));
            BENCH_CK(cudaMallocHost((void **)&x, nn * 8));
            BENCH_CK(cudaMallocHost((void **)&b, nk * 8));
            BENCH_CK(cudaMallocHost((void **)&y, nk * 8));
        } else {
            a = (double *)malloc(nn * 8);
            x = (double *)malloc(nn * 8);
            b = (double *)malloc(nk * 8);
            y = (double *)malloc(nk * 8);
        }
#pragma omp parallel for schedule(static)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                a[j * n + i] = pow(0.5, fabs((double)(i - j)));
                x[j * n + i] = 0;
            }
        for (size_t i = 0; i < nk; i++) {
            b[i] = sin((double)i);
            y[i] = 0;
        }
    }
    ~arrays() {
        if (pinned) {
            cudaFreeHost(a);
            cudaFreeHost(x);
            cudaFreeHost(b);
            cudaFreeHost(y);
        } else {
            free(a);
            free(x);
            free(b);
            free(y);
        }
    }
};

/* The cuSOLVER user's path on host arrays. */
struct peer {
    cusolverDnHandle_t h;
    double *da, *db, *work;
    int *info, lwork;
    peer(int64_t n, int64_t k) {
        int lw2 = 0;
        BENCH_CK(cusolverDnCreate(&h));
        BENCH_CK(cudaMalloc((void **)&da, (size_t)(n * n) * 8));
        BENCH_CK(cudaMalloc((void **)&db, (size_t)(n * k) * 8));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
        BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, (int)n, da, (int)n, &lwork));
        BENCH_CK(cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, (int)n, da, (int)n, &lw2));
        if (lw2 > lwork) lwork = lw2;
        BENCH_CK(cudaMalloc((void **)&work, (size_t)lwork * 8));
    }
    ~peer() {
        cudaFree(da);
        cudaFree(db);
        cudaFree(work);
        cudaFree(info);
        cusolverDnDestroy(h);
    }
    void invert(arrays &m, int64_t n) {
        BENCH_CK(cudaMemcpy(da, m.a, (size_t)(n * n) * 8, cudaMemcpyHostToDevice));
        BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, (int)n, da, (int)n, work, lwork, info));
        BENCH_CK(cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, (int)n, da, (int)n, work, lwork, info));
        BENCH_CK(cudaMemcpy(m.x, da, (size_t)(n * n) * 8, cudaMemcpyDeviceToHost));
    }
    void solve(arrays &m, int64_t n, int64_t k) {
        BENCH_CK(cudaMemcpy(da, m.a, (size_t)(n * n) * 8, cudaMemcpyHostToDevice));
        BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, (int)n, da, (int)n, work, lwork, info));
        BENCH_CK(cudaMemcpy(db, m.b, (size_t)(n * k) * 8, cudaMemcpyHostToDevice));
        BENCH_CK(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, (int)n, (int)k, da, (int)n, db, (int)n, info));
        BENCH_CK(cudaMemcpy(m.y, db, (size_t)(n * k) * 8, cudaMemcpyDeviceToHost));
    }
};

} // namespace

int main(int argc, char **argv) {
    int64_t max_n = 16384;
    const int64_t k = 30;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--max-n")) max_n = atoll(argv[i + 1]);
    bench_header(stdout, argc, argv);
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0), *cpu = bench_context(MINV_BACKEND_CPU, 0, 0);
    printf("\n| n | op | minv GPU, pageable (ms) | minv GPU, pinned (ms) | minv CPU (ms) | peer pageable (ms) | peer pinned "
           "(ms) | speed-up vs peer pageable | cudaHostRegister + unregister of A (ms) |\n"
           "|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t n = 64; n <= max_n; n *= (n < 256 ? 2 : 4)) {
        const int runs = n >= 8192 ? 3 : 5;
        arrays pageable(n, k, 0), pinned(n, k, 1);
        peer p(n, k);
        double reg = -1;
        if (n >= 1024) {
            reg = median_of(3, [&] {
                BENCH_CK(cudaHostRegister(pageable.a, (size_t)(n * n) * 8, cudaHostRegisterDefault));
                BENCH_CK(cudaHostUnregister(pageable.a));
            });
        }
        for (int op = 0; op < 2; op++) {
            minv_report rep;
            auto minv_call = [&](minv_context *ctx, arrays &m) {
                if (op == 0) bench_check(ctx, minv_invert_d(ctx, MINV_METHOD_AUTO, n, m.a, n, m.x, n, &rep), "invert");
                else bench_check(ctx, minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, m.a, n, m.b, n, m.y, n, &rep), "solve");
            };
            const double g = median_of(runs, [&] { minv_call(gpu, pageable); });
            const double gp = median_of(runs, [&] { minv_call(gpu, pinned); });
            const double c = n <= 2048 ? median_of(runs, [&] { minv_call(cpu, pageable); }) : -1;
            const double pp = median_of(runs, [&] { op == 0 ? p.invert(pageable, n) : p.solve(pageable, n, k); });
            const double pq = median_of(runs, [&] { op == 0 ? p.invert(pinned, n) : p.solve(pinned, n, k); });
            char cpu_ms[32] = "-", reg_ms[32] = "-";
            if (c >= 0) snprintf(cpu_ms, sizeof cpu_ms, "%.3f", c * 1e3);
            if (reg >= 0) snprintf(reg_ms, sizeof reg_ms, "%.3f", reg * 1e3);
            printf("| %lld | %s | %.3f | %.3f | %s | %.3f | %.3f | %.2f | %s |\n", (long long)n,
                   op == 0 ? "invert" : "solve 30 rhs", g * 1e3, gp * 1e3, cpu_ms, pp * 1e3, pq * 1e3, pp / g, reg_ms);
            fprintf(stderr, "n=%lld %s: %s\n", (long long)n, op ? "solve" : "invert", rep.reason);
            fflush(stdout);
        }
    }
    minv_destroy(gpu);
    minv_destroy(cpu);
    return 0;
}
