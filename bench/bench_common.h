// Helpers shared by the benchmark programs: clocks, seeded random matrices, medians, and the
// header every result file starts with (device, date, command).
#ifndef MINV_BENCH_COMMON_H
#define MINV_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "minv.h"

double bench_now(void);
/* A context (budget 0: all free device memory; threads 0: all), or exit(2). */
minv_context *bench_context(minv_backend backend, int64_t budget, int threads);
/* exit(3) with the library's message unless st is MINV_SUCCESS. */
void bench_check(minv_context *ctx, minv_status st, const char *what);
void bench_random(double *a, int64_t rows, int64_t cols, uint64_t seed); /* uniform [-1, 1) */
void bench_spd(double *a, int64_t n, uint64_t seed);                      /* SOAR covariance, cond ~ 40 */
double bench_median(double *v, int count);
/* "# device: ..., date: ..., command: ..." */
void bench_header(FILE *out, int argc, char **argv);

#endif
