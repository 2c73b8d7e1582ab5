/* The steps the CPU's Cholesky and LU share (factor.c). */
#ifndef MINV_CPU_FACTOR_H
#define MINV_CPU_FACTOR_H

#include "cpu.h"

/* n x cols within LAPACK's 32-bit integers, or MINV_ERR_INVALID_ARG saying so. */
minv_status minv_cpu_lapack_fits(minv_context *ctx, int64_t n, int64_t cols);
/* f = the matrix to factor in place, n x n with leading dimension minv_cpu_copy_ld(n): the copy of a this call's
 * analysis staged, else a copy made now, in the context's MINV_WORK_MATRIX. lower: the caller
 * reads only the lower triangle, all the analysis stages; otherwise the upper triangle is
 * copied here. */
minv_status minv_cpu_factor_input(minv_context *ctx, const minv_mat *a, int lower, minv_mat *f);
/* n pivots and work_elements elements of type t for LAPACK (work may be NULL), in the context's
 * MINV_WORK_LAPACK. */
minv_status minv_cpu_pivots(minv_context *ctx, int64_t n, int64_t work_elements, minv_dtype t, int **ipiv,
                            void **work);
/* w = [B | h], n x (nrhs + 1) with leading dimension n in MINV_WORK_RHS (and room for one more
 * column after it, the estimator's), h = (1/n, ..., 1/n) (none, w = B, up to
 * MINV_RCOND_CHEAP_N):
 * Hager's start vector, the first step of LAPACK's condition estimator, solved with B for the
 * cost of one more column; *bnorm = ||b_j||_1 for B's columns, summed as they are copied (in
 * the same workspace). A NaN or Inf in B fails the call with MINV_ERR_NOT_FINITE, naming the
 * first (dispatch.c leaves that check to this pass). */
minv_status minv_cpu_rhs_input(minv_context *ctx, const minv_mat *b, minv_mat *w, double **bnorm);
/* After the solve of w: X = its first nrhs columns. Returns a lower bound on ||A^-1||_1: the
 * largest ||x_j||_1 / ||b_j||_1 over B's columns and Hager's, X's norms summed as it is
 * written. */
double minv_cpu_rhs_output(const double *bnorm, const minv_mat *w, minv_mat *x);
/* min_i |f_ii|: with it a factor bounds ||A^-1||_1 from below (cholesky.c, lu.c). */
double minv_cpu_min_abs_diagonal(const minv_mat *f);
/* Up to this order a solve's rcond takes the cheap form: no Hager's column beside B. The
 * column is half the sweeps' work at one right-hand side and 3-4% of the call at n = 64-128
 * (bench/results/cpu_calls_devmachine.md, round 4); from n = 129 the full form. */
enum { MINV_RCOND_CHEAP_N = 128 };
/* report->rcond of a solve of nrhs columns, from the factor f (Cholesky's lower triangle when
 * spd, else LU's) and the lower bound on ||A^-1||_1 found while solving w (minv_cpu_rhs_input).
 * The bound costs nothing but can overstate rcond several times over (up to 50 measured, more
 * in the cheap form); below MINV_RCOND_ESTIMATE_BELOW, where an overstatement could hide a
 * matrix singular to working precision, Higham's estimate (LAPACK's, estimate.c) is taken as
 * well, started from Hager's column of w (solved here in the cheap form), which it
 * overwrites; at small orders (minv_rcond_exact_applies) ||A^-1||_1 exactly instead, from
 * the factor's inverse. Above the bound even that would cost 5-30% of a solve at one
 * right-hand side. The report notes the cheap form, the estimate and the exact form. */
void minv_cpu_solve_rcond(const minv_mat *f, int spd, double anorm_1, double inverse_bound, minv_mat *w, int64_t nrhs,
                          minv_report *report);
/* Higham's estimate of ||A^-1||_1 (dlacn2's iteration, as pocon/gecon run it, its solves by
 * small.c's sweeps) from the factor f; x: n elements of f's type holding (1/n, ..., 1/n), or
 * A^-1 of it where solved, overwritten; sign: n more (estimate.c). */
double minv_cpu_inverse_norm_estimate(const minv_mat *f, int spd, void *x, int solved, void *sign);
/* x = f, or f's lower triangle mirrored to both triangles of x (lower_only); returns ||x||_1,
 * which makes the inverse's rcond exact. */
double minv_cpu_write_inverse(const minv_mat *f, int lower_only, minv_mat *x);

#endif
