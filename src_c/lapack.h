/* LAPACK and BLAS through their Fortran symbols (LP64 integers), and a shim that picks the
 * s- or d- routine from a minv_dtype so that each algorithm is written once: the host LAPACK
 * of the CPU backend and of the core's host-side work (residuals, tridiagonal plans). Character
 * arguments carry the hidden length that gfortran-built libraries expect. */
#ifndef MINV_LAPACK_H
#define MINV_LAPACK_H

#include <limits.h>

#include "internal.h"

/* The largest order and leading dimension LAPACK's 32-bit integers can take. */
#define MINV_LAPACK_INT_MAX INT_MAX
/* What la_syevd returns when the workspace it needs has more elements than an int counts. */
enum { LA_TOO_LARGE = -1000 };

/* Each returns LAPACK's info (0 success, > 0 numerical failure at that 1-based index). */
int la_potrf(minv_dtype t, int64_t n, void *a, int64_t lda);
/* L^-1 of a lower triangular, non-unit L in place (trtri), and L^T L of a lower L in its
 * lower triangle (lauum): potri is the two. */
int la_trtri(minv_dtype t, int64_t n, void *a, int64_t lda);
int la_lauum(minv_dtype t, int64_t n, void *a, int64_t lda);
int la_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, void *b, int64_t ldb);
/* P A = L U of an m x n matrix (m >= n here: a panel or the whole square matrix). */
int la_getrf(minv_dtype t, int64_t m, int64_t n, void *a, int64_t lda, int *ipiv);
/* work: lwork >= n elements of type t, or NULL to let getri size and allocate its own. */
int la_getri(minv_dtype t, int64_t n, void *a, int64_t lda, const int *ipiv, void *work, int64_t lwork);
int la_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, const int *ipiv,
             void *b, int64_t ldb);
/* Row interchanges k1..k2 (1-based, LAPACK's ipiv) on ncols columns of a. */
void la_laswp(minv_dtype t, int64_t ncols, void *a, int64_t lda, int64_t k1, int64_t k2, const int *ipiv);
/* B = alpha op(A) B (side 'L') or alpha B op(A) (side 'R'), A triangular. */
void la_trmm(minv_dtype t, char side, char uplo, char trans, char diag, int64_t m, int64_t n, double alpha,
             const void *a, int64_t lda, void *b, int64_t ldb);
/* B = alpha op(A)^-1 B (side 'L') or alpha B op(A)^-1 (side 'R'), A triangular. */
void la_trsm(minv_dtype t, char side, char uplo, char trans, char diag, int64_t m, int64_t n, double alpha,
             const void *a, int64_t lda, void *b, int64_t ldb);
/* Eigenvalues w (ascending, of type t) of a symmetric matrix (lower triangle), and with
 * jobz 'V' its eigenvectors over a; -1 when workspace cannot be allocated. */
int la_syevd(minv_dtype t, char jobz, int64_t n, void *a, int64_t lda, void *w);
/* C (lower) = alpha A A^T + beta C, A n x k. */
void la_syrk(minv_dtype t, int64_t n, int64_t k, double alpha, const void *a, int64_t lda, double beta, void *c,
             int64_t ldc);
/* Tridiagonal LU with partial pivoting, in double only (the tridiagonal plan's precision). */
int la_gttrf(int64_t n, double *dl, double *d, double *du, double *du2, int *ipiv);
/* Around LAPACK calls made from several threads at once: a threaded OpenBLAS would serialise
 * them on its thread pool, so it runs one thread a call in between (no-ops with other BLAS). */
void la_threads_single_begin(void);
void la_threads_single_end(void);

/* C = alpha op(A) op(B) + beta C, op = 'N' or 'T'. */
void la_gemm(minv_dtype t, char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
             const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc);

#endif
