/* How fast one core computes when it runs alone and when every core runs: a register-only FMA
 * loop (no memory traffic) on 1 and on all OpenMP threads, each thread timed alone. The ratio
 * of the per-thread rates is the host's all-core clock against its one-core clock, an upper
 * bound on the weak-scaling efficiency of any compute-bound work (issue 21's batches).
 *   OMP_PROC_BIND=close OMP_PLACES=cores build/bench/bench_core_clock [seconds]        */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>

typedef double v4 __attribute__((vector_size(32)));
enum { CHAINS = 12 }; /* enough independent FMA chains to fill two pipes of latency 4-5 */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

__attribute__((target("avx2,fma"))) static double fma_rate(long iters, double *sink) {
    v4 acc[CHAINS], a = {0.999999, 0.999999, 0.999999, 0.999999}, b = {1e-6, 1e-6, 1e-6, 1e-6};
    for (int c = 0; c < CHAINS; c++) acc[c] = (v4){c, c, c, c};
    const double t0 = now();
    for (long i = 0; i < iters; i++)
#pragma GCC unroll 12
        for (int c = 0; c < CHAINS; c++) acc[c] = acc[c] * a + b;
    const double t = now() - t0;
    double s = 0;
    for (int c = 0; c < CHAINS; c++) s += acc[c][0] + acc[c][3];
    *sink = s;
    return 8.0 * CHAINS * (double)iters / t / 1e9; /* GFLOP/s: an FMA of 4 lanes is 8 flops */
}

static int cmp(const void *x, const void *y) {
    const double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

int main(int argc, char **argv) {
    const double seconds = argc > 1 ? atof(argv[1]) : 2;
    const int all = omp_get_max_threads();
    double sink = 0;
    long iters = 1000000;
    while (fma_rate(iters, &sink) * 1e9 / (8.0 * CHAINS) * seconds > (double)iters * 2) iters *= 2; /* about `seconds` a run */
    double *rate = calloc((size_t)all, sizeof *rate);
    printf("| threads | per-thread GFLOP/s (min / median / max) | sum GFLOP/s |\n|---:|---|---:|\n");
    for (int pass = 0; pass < 2; pass++) {
        const int team = pass == 0 ? 1 : all;
#pragma omp parallel num_threads(team)
        {
            double s;
            rate[omp_get_thread_num()] = fma_rate(iters, &s);
#pragma omp atomic
            sink += s;
        }
        qsort(rate, (size_t)team, sizeof *rate, cmp);
        double sum = 0;
        for (int t = 0; t < team; t++) sum += rate[t];
        printf("| %d | %.1f / %.1f / %.1f | %.1f |\n", team, rate[0], rate[team / 2], rate[team - 1], sum);
    }
    fprintf(stderr, "(%g)\n", sink);
    free(rate);
    return 0;
}
