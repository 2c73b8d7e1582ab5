/* The kernels shared by the GPU algorithms (kernels.cu) and cuBLAS by type. */
#ifndef MINV_GPU_KERNELS_H
#define MINV_GPU_KERNELS_H

#include "gpu_state.h"

/* ---- shared kernels (kernels.cu), on dense device matrices; T = double or float ---- */
template <typename T> void minv_k_set_identity(T *a, int64_t n, int64_t ld, T diag, cudaStream_t s);
template <typename T> void minv_k_add_diagonal(T *a, int64_t n, int64_t ld, T value, cudaStream_t s);
/* The strict upper triangle from the lower (lower_to_upper) or the other way round. */
template <typename T> void minv_k_mirror(T *a, int64_t n, int64_t ld, int lower_to_upper, cudaStream_t s);
/* diag[i] = a(i, i) (save) or a(i, i) = diag[i] (restore). */
template <typename T> void minv_k_diagonal(T *a, int64_t n, int64_t ld, T *diag, int save, cudaStream_t s);
/* Column-major index of the first NaN/Inf into *out (atomic min; start it at ULLONG_MAX). */
template <typename T> void minv_k_first_nonfinite(const T *a, int64_t rows, int64_t cols, int64_t ld,
                                                  unsigned long long *out, cudaStream_t s);
template <typename Tin, typename Tout>
void minv_k_convert(const Tin *in, int64_t ldin, Tout *out, int64_t ldout, int64_t rows, int64_t cols,
                    cudaStream_t s);
/* max over columns of sum |a_ij| into *out (device double). */
template <typename T> void minv_k_norm1(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out,
                                        cudaStream_t s);
/* out[j] = sum_i |a_ij| for every column j. */
template <typename T> void minv_k_column_norms1(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out,
                                                cudaStream_t s);
/* *out = min_i |a_ii| (device double; NaN when a diagonal entry is). */
template <typename T> void minv_k_min_abs_diagonal(const T *a, int64_t n, int64_t ld, double *out, cudaStream_t s);
/* p[0 .. count) = value. */
template <typename T> void minv_k_fill(T *p, int64_t count, T value, cudaStream_t s);
/* ||I - P||_F^2 of a square matrix into *out (device double). */
template <typename T> void minv_k_identity_residual(const T *p, int64_t n, int64_t ld, double *out,
                                                    cudaStream_t s);
/* Adds to *out the squares of (I - P) over a tile of P whose (0, 0) is (row0, col0) of the
 * whole matrix; *out is not reset. */
template <typename T> void minv_k_identity_residual_tile(const T *p, int64_t rows, int64_t cols, int64_t ld,
                                                         int64_t row0, int64_t col0, double *out, cudaStream_t s);
/* dst = diag(1 / a_ii), zero elsewhere. */
template <typename T> void minv_k_diagonal_inverse(const T *a, int64_t n, int64_t lda, T *dst, int64_t ld,
                                                   cudaStream_t s);
/* y = A x and rowabs = row sums of |A| (when not NULL), accumulated in double. */
template <typename T> void minv_k_gemv_double(const T *a, int64_t rows, int64_t cols, int64_t ld,
                                              const double *x, double *y, double *rowabs, cudaStream_t s);
/* out = a^T * alpha (tiled through shared memory, reads and writes coalesced). */
template <typename T> void minv_k_transpose(const T *a, int64_t rows, int64_t cols, int64_t lda, T *out,
                                            int64_t ldout, T alpha, cudaStream_t s);

/* ---- cuBLAS by type ---- */
cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                         int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
                         const double *b, int64_t ldb, double beta, double *c, int64_t ldc);
cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                         int64_t n, int64_t k, double alpha, const float *a, int64_t lda,
                         const float *b, int64_t ldb, double beta, float *c, int64_t ldc);
/* B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular. */
cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                         double *b, int64_t ldb);
cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const float *a, int64_t lda,
                         float *b, int64_t ldb);
/* C (lower) = alpha op(A) op(A)^T + beta C, C n x n, op(A) n x k. */
cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t lda, double beta, double *c, int64_t ldc);
cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const float *a,
                         int64_t lda, double beta, float *c, int64_t ldc);
cudaDataType minv_cuda_type(minv_dtype t);

#endif
