/* The CPU backend's algorithms, one file each; backend.c puts them in a table. */
#ifndef MINV_CPU_H
#define MINV_CPU_H

#include "../internal.h"

minv_status minv_cpu_analyze(minv_context *ctx, const minv_mat *a, minv_analysis *out);
/* The copy of a that this call's analysis left in the context's MINV_WORK_MATRIX (leading
 * dimension minv_cpu_copy_ld(n); its lower triangle, minv_cpu_factor_input completes the rest
 * for LU), once: the caller factors it in place. NULL when there is none. */
void *minv_cpu_staged(minv_context *ctx, const minv_mat *a);
/* The leading dimension of the CPU's working copy of an n x n matrix: n, but n + 4 where n is
 * a multiple of 32, whose columns a multiple of 256 bytes apart fall on the same few sets of
 * the L1 cache. Measured on the dev VM, one thread, the factorisation alone, ld = n -> n + 4,
 * two runs: OpenBLAS's dpotrf 1.45-1.88 -> 1.36-1.73 ms at n = 512 and 13.7-14.4 -> 10.8-12.4
 * ms at 1024, dgetrf 3.6-4.7 -> 3.1-4.1 ms and 29-31 -> 25-28 ms; the small Cholesky 104 ->
 * 48-58 us at 128 (where LAPACK's runs instead); no change at 64 and 96. */
static inline int64_t minv_cpu_copy_ld(int64_t n) { return n % 32 == 0 ? n + 4 : n; }
/* potri's result (A^-1 in the lower triangle) from potrf's L in place (potri.c); LAPACK's
 * info. */
int minv_cpu_potri(minv_dtype t, int64_t n, void *l, int64_t ld);

/* The signatures of minv_invert_op and minv_solve_op (internal.h). */
minv_status minv_cpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                     const minv_analysis *an, minv_report *report);
minv_status minv_cpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                    minv_mat *x, const minv_analysis *an, minv_report *report);
minv_status minv_cpu_lu_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                               const minv_analysis *an, minv_report *report);
minv_status minv_cpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report);

/* Mixed precision (MINV_OPT_PRECISION): single-precision factors refined in double (mixed.c). */
minv_status minv_cpu_cholesky_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                          minv_mat *x, const minv_analysis *an, minv_report *report);
minv_status minv_cpu_lu_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *report);

minv_status minv_cpu_gauss_jordan_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                         const minv_analysis *an, minv_report *report);
minv_status minv_cpu_gauss_jordan_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                        minv_mat *x, const minv_analysis *an, minv_report *report);
/* The backend's eigen op (internal.h). */
minv_status minv_cpu_eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                           minv_mat *x, int *applied);
/* Batches, member by member in parallel (batched.c). */
minv_status minv_cpu_invert_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                    const minv_batch *a, const minv_batch *x,
                                    minv_batch_results *res, minv_batch_report *report);
minv_status minv_cpu_solve_batched(minv_context *ctx, minv_method method, minv_dtype compute,
                                   const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                   minv_batch_results *res, minv_batch_report *report);

minv_status minv_cpu_gj_baseline_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                        const minv_analysis *an, minv_report *report);
/* The minv_backend_ops member invert_tridiagonal (internal.h). */
minv_status minv_cpu_tridiagonal_invert(minv_context *ctx, const struct minv_tri_plan *plan, minv_mat *x,
                                        minv_report *report);
minv_status minv_cpu_iterative_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                      const minv_analysis *an, minv_report *report);

#endif
