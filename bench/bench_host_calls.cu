// Host-array whole calls, as a Fortran DA code makes them, in one run: minv
// with a default (AUTO) context, on a GPU context (the caller's arrays pageable, and pinned) and
// on a CPU context (the small sizes),
// against what a cuSOLVER user writes: cudaMemcpy of the pageable arrays up, potrf + potri (the
// lower triangle of the inverse only) or potrf + potrs, cudaMemcpy down; and the same with the
// user's arrays pinned. KMS(0.5) SPD, 30 right-hand sides; bench_common's measurement (a
// warm-up, the median of at least three calls, five under 10 ms); every buffer touched first.
// Also what cudaHostRegister costs on the matrix, the other way to PCIe speed.
// With --stages (orders up to 1024), where one AUTO call and one GPU call of each case spend
// their time, the device waited for at each stage. With --general, a general matrix (KMS(0.5)
// plus a random part of entries up to 0.5: LU) against getrf + getrs, the inverse by getrs on
// an identity the peer keeps on the device.
// With --sizes, those orders instead of 64, 128, 256, 1024, 4096, 16384 (up to --max-n); with
// --nrhs, that many right-hand sides instead of 30.
// Usage: bench_host_calls [--max-n N] [--sizes N,N,...] [--nrhs K] [--stages] [--general]
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "bench_host_peer.h"

int main(int argc, char **argv) {
    int64_t max_n = 16384, k = 30;
    bool stages = false, general = false;
    std::vector<int64_t> sizes;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-n") && i + 1 < argc) max_n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = bench_list(argv[++i]);
        else if (!strcmp(argv[i], "--nrhs") && i + 1 < argc) k = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--stages")) stages = true;
        else if (!strcmp(argv[i], "--general")) general = true;
        else {
            fprintf(stderr, "usage: bench_host_calls [--max-n N] [--sizes N,N,...] [--nrhs K] [--stages] [--general]\n");
            return 2;
        }
    }
    if (sizes.empty())
        for (int64_t n = 64; n <= max_n; n *= (n < 256 ? 2 : 4)) sizes.push_back(n);
    bench_header(stdout, argc, argv);
    minv_context *gpu = bench_context(MINV_BACKEND_GPU, 0, 0), *cpu = bench_context(MINV_BACKEND_CPU, 0, 0),
                 *aut = bench_context(MINV_BACKEND_AUTO, 0, 0);
    printf("\nmatrix: %s; solves with %lld right-hand sides\n", general ? "general, KMS(0.5) plus a pseudo-random part (peer: getrf + getrs)"
                                        : "SPD, KMS(0.5) (peer: potrf + potri / potrs)",
           (long long)k);
    printf("\nminv AUTO: a default context (the GPU, or the CPU for small calls); minv GPU: a context that asked for "
           "the GPU.\n");
    printf("\n| n | op | minv AUTO, pageable (ms) | ran on | minv GPU, pageable (ms) | minv GPU, pinned (ms) | minv CPU (ms) "
           "| peer pageable (ms) | peer pinned (ms) | speed-up of AUTO vs peer pageable | cudaHostRegister + unregister of "
           "A (ms) |\n"
           "|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const int64_t n : sizes) {
        if (n < 1 || n > max_n) continue;
        const auto kms = [](double *a, int64_t order) { bench_kms(a, order, 0.5); }; /* KMS(0.5) */
        const auto kms_general = [](double *a, int64_t order) { /* KMS(0.5) + a fixed pseudo-random part */
            bench_kms(a, order, 0.5);
            for (int64_t j = 0; j < order; j++)
                for (int64_t i = 0; i < order; i++)
                    a[i + j * order] += 0.5 * ((double)((uint64_t)(i * 2654435761u + j * 40503u) % 1000) / 1000 - 0.5);
        };
        void (*fill)(double *, int64_t) = general ? (void (*)(double *, int64_t))kms_general : kms;
        bench_host_arrays pageable(n, k, false, fill), pinned(n, k, true, fill);
        bench_cusolver_user p(n, k, general);
        double reg = -1;
        if (n >= 1024) {
            reg = bench_median_wall([&] {
                BENCH_CK(cudaHostRegister(pageable.a, (size_t)(n * n) * 8, cudaHostRegisterDefault));
                BENCH_CK(cudaHostUnregister(pageable.a));
            });
        }
        for (int op = 0; op < 2; op++) {
            minv_report rep;
            auto minv_call = [&](minv_context *ctx, bench_host_arrays &m) {
                if (op == 0) bench_check(ctx, minv_invert_d(ctx, MINV_METHOD_AUTO, n, m.a, n, m.x, n, &rep), "invert");
                else bench_check(ctx, minv_solve_d(ctx, MINV_METHOD_AUTO, n, k, m.a, n, m.b, n, m.y, n, &rep), "solve");
            };
            const double au = bench_median_wall([&] { minv_call(aut, pageable); });
            const minv_backend ran = rep.backend;
            const double g = bench_median_wall([&] { minv_call(gpu, pageable); });
            const double gp = bench_median_wall([&] { minv_call(gpu, pinned); });
            const double c = n <= 2048 ? bench_median_wall([&] { minv_call(cpu, pageable); }) : -1;
            const double pp = bench_median_wall([&] { op == 0 ? p.invert(pageable) : p.solve(pageable); });
            const double pq = bench_median_wall([&] { op == 0 ? p.invert(pinned) : p.solve(pinned); });
            char cpu_ms[32] = "-", reg_ms[32] = "-";
            if (c >= 0) snprintf(cpu_ms, sizeof cpu_ms, "%.3f", c * 1e3);
            if (reg >= 0) snprintf(reg_ms, sizeof reg_ms, "%.3f", reg * 1e3);
            printf("| %lld | %s | %.3f | %s | %.3f | %.3f | %s | %.3f | %.3f | %.2f | %s |\n", (long long)n,
                   op == 0 ? "invert" : "solve", au * 1e3, minv_backend_name(ran), g * 1e3, gp * 1e3, cpu_ms,
                   pp * 1e3, pq * 1e3, pp / au, reg_ms);
            fprintf(stderr, "n=%lld %s: %s\n", (long long)n, op ? "solve" : "invert", rep.reason);
            if (stages && n <= 1024) {
                printf("  AUTO:");
                bench_print_stages(stdout, aut, true, [&] { minv_call(aut, pageable); });
                printf("  GPU:");
                bench_print_stages(stdout, gpu, true, [&] { minv_call(gpu, pageable); });
            }
            fflush(stdout);
        }
    }
    minv_destroy(gpu);
    minv_destroy(cpu);
    minv_destroy(aut);
    return 0;
}
