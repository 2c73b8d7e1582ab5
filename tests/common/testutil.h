/* Shared helpers for minv's C tests: seeded random matrices, LAPACK references, and the
 * LAPACK-tester residual ratios, in double whatever the precision under test. */
#ifndef MINV_TESTUTIL_H
#define MINV_TESTUTIL_H

#include <stdint.h>
#include <stdio.h>

#include "minv.h"

/* ---- checks: count failures, print each with its location ---- */
extern int tu_failures;
#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            tu_failures++;                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
        }                                                                                  \
    } while (0)
#define CHECK_STATUS(expr, expected, ctx)                                                  \
    do {                                                                                   \
        minv_status got_ = (expr);                                                         \
        CHECK(got_ == (expected), "%s returned %s, expected %s (%s)", #expr,               \
              minv_status_string(got_), minv_status_string(expected), minv_last_error(ctx)); \
    } while (0)
int tu_finish(const char *name); /* prints a summary; returns the process exit code */

/* Contexts for every backend this machine has: the CPU, and the GPU where one is usable.
 * Returns how many were created; tests run their checks on each. */
int tu_contexts(minv_context *ctx[2]);
/* A context on `backend` with a device-memory budget in bytes (0: all free), or NULL. */
minv_context *tu_context(minv_backend backend, int64_t budget);
#define TU_SKIP 77 /* CTest's SKIP_RETURN_CODE */
/* "<test>: no usable GPU, skipped" on stdout; returns TU_SKIP. */
int tu_skip_no_gpu(const char *test);
/* The GPU and CPU contexts of a GPU test: 0 when both exist, else what main returns (TU_SKIP
 * without a GPU, 1 without the CPU), with the one that exists destroyed. */
int tu_gpu_and_cpu(const char *test, minv_context **gpu, minv_context **cpu);

/* ---- random numbers (PCG32): reproducible on every platform ---- */
typedef struct { uint64_t state; } tu_rng;
void tu_seed(tu_rng *r, uint64_t seed);
double tu_uniform(tu_rng *r); /* [-1, 1) */
double tu_normal(tu_rng *r);

/* ---- matrices, column-major, double ---- */
double *tu_alloc(int64_t rows, int64_t cols, int64_t ld); /* NaN-filled, padding included */
void tu_general(tu_rng *r, int64_t n, double *a, int64_t lda);  /* uniform, well conditioned */
void tu_spd(tu_rng *r, int64_t n, double *a, int64_t lda);      /* M M^T / n + I */
/* tu_general with the leading diagonal entries zero or tiny (0, 1e-13, kept, in turn), so that
 * every block needs row interchanges; a 1 x 1 matrix is left nonsingular. */
void tu_needs_pivoting(tu_rng *r, int64_t n, double *a, int64_t lda);
/* Q1 diag(s) Q2^T with s from 1 down to 1/cond geometrically (Q2 = Q1 when spd). */
void tu_with_cond(tu_rng *r, int64_t n, double cond, int spd, double *a, int64_t lda);
void tu_rect(tu_rng *r, int64_t rows, int64_t cols, double *b, int64_t ldb);
/* KMS: a_ij = rho^|i-j|, whose inverse is tridiagonal and known in closed form. */
void tu_kms(int64_t n, double rho, double *a, int64_t lda);
/* max |X - KMS^-1| relative to ||KMS^-1||_max, scaled by the condition number. */
double tu_kms_inverse_error(int64_t n, double rho, const double *x, int64_t ldx);
/* SOAR correlation on a 1-D grid, length len grid points, (1 + r/len) exp(-r/len), plus 1e-3
 * on the diagonal. */
void tu_soar(int64_t n, double len, double *a, int64_t lda);
/* 1 when the two triangles of x are equal to the bit. */
int tu_symmetric(int64_t n, const double *x, int64_t ldx);
float *tu_to_float(int64_t rows, int64_t cols, const double *a, int64_t lda, int64_t ldf);
double *tu_to_double(int64_t rows, int64_t cols, const float *a, int64_t lda);

/* ---- LAPACK references and residual ratios ---- */
/* Inverse by dgetrf/dgetri (spd = 0) or dpotrf/dpotri (spd = 1); returns LAPACK info. */
int tu_lapack_inverse(int64_t n, const double *a, int64_t lda, int spd, double *x, int64_t ldx);
/* X = A^-1 B by dgesv (spd = 0) or dposv (spd = 1), A and B untouched; returns LAPACK info. */
int tu_lapack_solve(int64_t n, int64_t k, const double *a, int64_t lda, const double *b, int64_t ldb, int spd,
                    double *x, int64_t ldx);
/* ||A||_1 ||A^-1||_1 from LAPACK's inverse; infinity where A is singular. */
double tu_cond1(int64_t n, const double *a, int64_t lda);
double tu_norm1(int64_t rows, int64_t cols, const double *a, int64_t lda);
/* ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) */
double tu_inverse_ratio(int64_t n, const double *a, int64_t lda, const double *x, int64_t ldx, double eps);
/* ||B - A X||_1 / (n ||A||_1 ||X||_1 eps) (LAPACK's dget02) */
double tu_solve_ratio(int64_t n, int64_t k, const double *a, int64_t lda, const double *b,
                      int64_t ldb, const double *x, int64_t ldx, double eps);
/* ||X - Y||_1 / ||Y||_1 */
double tu_rel_diff(int64_t rows, int64_t cols, const double *x, int64_t ldx, const double *y, int64_t ldy);

#endif
