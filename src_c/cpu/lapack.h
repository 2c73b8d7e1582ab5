/* LAPACK and BLAS through their Fortran symbols (LP64 integers), and a shim that picks the
 * s- or d- routine from a minv_dtype so that each algorithm is written once. Character
 * arguments carry the hidden length that gfortran-built libraries expect. */
#ifndef MINV_CPU_LAPACK_H
#define MINV_CPU_LAPACK_H

#include <limits.h>

#include "../internal.h"

/* The largest order and leading dimension LAPACK's 32-bit integers can take. */
#define MINV_LAPACK_INT_MAX INT_MAX

/* Each returns LAPACK's info (0 success, > 0 numerical failure at that 1-based index). */
int la_potrf(minv_dtype t, int64_t n, void *a, int64_t lda);
int la_potri(minv_dtype t, int64_t n, void *a, int64_t lda);
int la_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, void *b, int64_t ldb);
int la_pocon(minv_dtype t, int64_t n, const void *a, int64_t lda, double anorm, double *rcond);
int la_getrf(minv_dtype t, int64_t n, void *a, int64_t lda, int *ipiv);
/* work: lwork >= n elements of type t, or NULL to let getri size and allocate its own. */
int la_getri(minv_dtype t, int64_t n, void *a, int64_t lda, const int *ipiv, void *work, int64_t lwork);
int la_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *a, int64_t lda, const int *ipiv,
             void *b, int64_t ldb);
int la_gecon(minv_dtype t, int64_t n, const void *a, int64_t lda, double anorm, double *rcond);
/* Around LAPACK calls made from several threads at once: a threaded OpenBLAS would serialise
 * them on its thread pool, so it runs one thread a call in between (no-ops with other BLAS). */
void la_threads_single_begin(void);
void la_threads_single_end(void);

/* C = alpha op(A) op(B) + beta C, op = 'N' or 'T'. */
void la_gemm(minv_dtype t, char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
             const void *a, int64_t lda, const void *b, int64_t ldb, double beta, void *c, int64_t ldc);

#endif
