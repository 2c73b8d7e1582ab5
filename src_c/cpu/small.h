/* Unblocked kernels for small orders (small.c): below MINV_SMALL_N a LAPACK call costs more in
 * its own set-up (argument checks, blocking, the BLAS's buffers and locks) than in arithmetic,
 * so single calls and the members of batches run these instead. The type follows the dtype;
 * pivots are 0-based (NULL in getrs: none). */
#ifndef MINV_CPU_SMALL_H
#define MINV_CPU_SMALL_H

#include "cpu.h"

/* Measured with bench/bench_cpu_calls (bench/results/cpu_calls_devmachine.md): up to 64 these
 * kernels beat OpenBLAS's factorisations and inverses; from 80 its blocked ones win again. */
enum { MINV_SMALL_N = 64 };
/* Up to this order the sweeps of one right-hand side run in scalars, step for step as in
 * vectors (so a column's X is the same to the bit alone or among others; getrs_one and
 * lower_one in small_t.h): a whole LU solve 10-13% faster at n = 8 on the dev VM, 4% at 16,
 * 3-10% slower at 40-64; Cholesky's forward half 4% at 8, level at 16 (its back half, dot
 * products, stays in vectors: in scalars 5% slower at 16). */
enum { MINV_SMALL_SCALAR_N = 16 };
/* Up to this order Gauss-Jordan's step takes the interchange and the pivot row into each
 * column's one vector pass (small_gauss_jordan; the same bits): an inversion of
 * order 8 0.89 -> 0.62 us, 16 2.72 -> 1.88, 24-32 10-27% faster on the dev VM; 40-64 20-68%
 * slower (the selects cost more than the stalls there). */
enum { MINV_SMALL_BLEND_N = 32 };

/* Whether a solve of nrhs columns (right-hand sides and Hager's) with a factor of order n takes
 * the sweeps below rather than LAPACK's potrs/getrs. The sweeps go four columns of the factor
 * a step, each of its entries loaded once for four right-hand sides. Measured against OpenBLAS on the dev VM: 0.25-0.7x its time for 2-8 columns at
 * n = 128-2048; for 31 columns 0.75-0.97x up to n = 384, level at 512-1000 and 1.05x at 2048;
 * for 100 columns 1.1-1.3x. */
static inline int minv_small_sweeps(int64_t n, int64_t nrhs) { return nrhs <= 8 || (nrhs <= 32 && n <= 384); }

/* Each returns 0 or LAPACK's 1-based info: the column whose pivot is not positive (potrf, the
 * SPD Gauss-Jordan) or is exactly zero (getrf, the pivoted Gauss-Jordan). */
int64_t minv_small_potrf(minv_dtype t, int64_t n, void *a, int64_t ld);
void minv_small_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *l, int64_t ld, void *b, int64_t ldb);
int64_t minv_small_getrf(minv_dtype t, int64_t n, void *a, int64_t ld, int *ipiv);
void minv_small_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *lu, int64_t ld, const int *ipiv, void *b,
                      int64_t ldb);
/* x = A^-1 x for one vector (leading dimension n) whose entries above `first` are zero, from
 * Cholesky's L (spd) or an LU factor without its interchanges: the whole solve's result to
 * the bit, its forward sweep from first's block of four on (the estimator's unit vectors). */
void minv_small_solve_from(minv_dtype t, int64_t n, int64_t first, const void *f, int64_t ld, int spd, void *x);
/* x = (L U)^-T x for one vector, from an LU factor in either kernel's layout, no interchanges. */
void minv_small_lu_trans_solve(minv_dtype t, int64_t n, const void *lu, int64_t ld, void *x);
/* A = A^-1 in place for an SPD A, the lower triangle read and written (the sweep operator, n^3
 * flops); f: n elements of type t. */
int64_t minv_small_sweep(minv_dtype t, int64_t n, void *a, int64_t ld, void *f);
/* A = A^-1 in place by Gauss-Jordan with partial pivoting; f: n elements of type t, perm: n. */
int64_t minv_small_gauss_jordan(minv_dtype t, int64_t n, void *a, int64_t ld, void *f, int *perm);

#endif
