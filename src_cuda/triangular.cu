// What follows the Cholesky factor A = L L^T on the GPU:
//   the inverse: W = L^-1 in place (trtri), then X = W^T W in place (lauum), lower triangles,
//   n^3/3 flops each;
//   the solve: X = L^-T L^-1 B, 2 n^2 nrhs flops.
// cuSOLVER's potri does the same two steps far below the DGEMM rate (0.225 s at n = 16384 on
// an H100, against 0.038 s for potrf). Halving recursively instead puts almost every flop in
// large cuBLAS TRMM and SYRK calls; the diagonal blocks at the bottom take batched TRSM and
// GEMM. The solve likewise becomes GEMMs around once-inverted diagonal blocks, where cuBLAS
// TRSM runs well below the GEMM rate (0.7x at n = 16384 on an H100).
#include <stdlib.h>

#include "gpu.h"

namespace {

/* Diagonal blocks of this order are inverted together by one batched TRSM, and their
 * products W^T W formed by GEMM: cuSOLVER's trtri and lauum are launch-bound at this size. */
const int64_t NB = 256;

/* Splits at a block boundary, so that every diagonal block but the last has order NB. */
int64_t split(int64_t n) { return (n + NB - 1) / NB / 2 * NB; }

cublasStatus_t trmm_blas(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int64_t m, int64_t n,
                         double alpha, const double *a, int64_t lda, double *b, int64_t ldb) {
    return cublasDtrmm_64(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, n, &alpha, a, lda, b, ldb, b, ldb);
}
cublasStatus_t trmm_blas(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int64_t m, int64_t n,
                         double alpha, const float *a, int64_t lda, float *b, int64_t ldb) {
    float al = (float)alpha;
    return cublasStrmm_64(h, side, CUBLAS_FILL_MODE_LOWER, op, CUBLAS_DIAG_NON_UNIT, m, n, &al, a, lda, b, ldb, b, ldb);
}

/* B = alpha op(L) B (left) or alpha B L (right, op N), L lower, in place. cuBLAS's TRMM runs at
 * 30 to 46 TFLOP/s at orders 4096 to 8192 on an H100, its GEMM at 60: halving L puts half the
 * flops of each level in one GEMM; only orders up to TRMM_BASE go to cuBLAS's TRMM (whose
 * kernels took a third of an SPD inversion's GPU time with a base of 512). */
const int64_t TRMM_BASE = 256;

template <typename T>
cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, cublasOperation_t op, int64_t m, int64_t n, double alpha,
                    const T *a, int64_t lda, T *b, int64_t ldb) {
    const int64_t k = side == CUBLAS_SIDE_LEFT ? m : n, k1 = k / 2 >= 256 ? k / 2 / 128 * 128 : k / 2, k2 = k - k1;
    const T *a11 = a, *a21 = a + k1, *a22 = a + k1 + k1 * lda;
    cublasStatus_t st;
    if (k <= TRMM_BASE) return trmm_blas(h, side, op, m, n, alpha, a, lda, b, ldb);
    if (side == CUBLAS_SIDE_LEFT && op == CUBLAS_OP_N) { /* B2 = L22 B2 + L21 B1, then B1 = L11 B1 */
        T *b1 = b, *b2 = b + k1;
        if ((st = trmm<T>(h, side, op, k2, n, alpha, a22, lda, b2, ldb))) return st;
        if ((st = minv_gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, k2, n, k1, alpha, a21, lda, b1, ldb, 1.0, b2, ldb))) return st;
        return trmm<T>(h, side, op, k1, n, alpha, a11, lda, b1, ldb);
    }
    if (side == CUBLAS_SIDE_LEFT) { /* B1 = L11^T B1 + L21^T B2, then B2 = L22^T B2 */
        T *b1 = b, *b2 = b + k1;
        if ((st = trmm<T>(h, side, op, k1, n, alpha, a11, lda, b1, ldb))) return st;
        if ((st = minv_gemm(h, CUBLAS_OP_T, CUBLAS_OP_N, k1, n, k2, alpha, a21, lda, b2, ldb, 1.0, b1, ldb))) return st;
        return trmm<T>(h, side, op, k2, n, alpha, a22, lda, b2, ldb);
    }
    /* right: B1 = B1 L11 + B2 L21, then B2 = B2 L22 */
    T *b1 = b, *b2 = b + k1 * ldb;
    if ((st = trmm<T>(h, side, op, m, k1, alpha, a11, lda, b1, ldb))) return st;
    if ((st = minv_gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, k1, k2, alpha, b2, ldb, a21, lda, 1.0, b1, ldb))) return st;
    return trmm<T>(h, side, op, m, k2, alpha, a22, lda, b2, ldb);
}

cublasStatus_t trsm_batched(cublasHandle_t h, int64_t n, const double *const *a, int64_t lda, double *const *b,
                            int64_t count) {
    const double one = 1;
    return cublasDtrsmBatched_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                 &one, a, lda, b, n, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, int64_t n, const float *const *a, int64_t lda, float *const *b,
                            int64_t count) {
    const float one = 1;
    return cublasStrsmBatched_64(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n, n,
                                 &one, a, lda, b, n, count);
}

/* Diagonal block b of x (order nb, or what is left of n) and the dense nb x nb block e_b:
 * to_e copies the lower triangle into e_b with zeros above (identity_e writes I instead);
 * otherwise e_b is copied whole into the block. */
template <typename T>
__global__ void diagonal_blocks(T *x, int64_t n, int64_t ld, T *e, int64_t nb, int mode) {
    const int64_t b = blockIdx.y, r0 = b * nb, order = n - r0 < nb ? n - r0 : nb;
    T *blk = x + r0 + r0 * ld, *eb = e + b * nb * nb;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < order * order; k += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = k % order, j = k / order;
        if (mode == 0) eb[j * order + i] = i == j ? T(1) : T(0);          /* identity_e */
        else if (mode == 1) eb[j * order + i] = i >= j ? blk[j * ld + i] : T(0); /* to_e */
        else blk[j * ld + i] = eb[j * order + i];                         /* from_e */
    }
}
enum { IDENTITY_E = 0, TO_E = 1, FROM_E = 2 };

template <typename T> void launch_blocks(minv_context *ctx, T *x, int64_t n, int64_t ld, T *e, int64_t count, int mode) {
    diagonal_blocks<T><<<dim3(64, (unsigned)count), 256, 0, ctx->gpu->stream>>>(x, n, ld, e, NB, mode);
}

/* Below the diagonal blocks: W21 = -W22 L21 W11 at every level, children first. */
template <typename T> minv_status trtri_levels(minv_context *ctx, T *a, int64_t n, int64_t ld) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n), n2 = n - n1;
    T *const a11 = a, *const a21 = a + n1, *const a22 = a + n1 + n1 * ld;
    if (n <= NB) return MINV_SUCCESS;
    MINV_TRY(trtri_levels<T>(ctx, a11, n1, ld));
    MINV_TRY(trtri_levels<T>(ctx, a22, n2, ld));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_RIGHT, CUBLAS_OP_N, n2, n1, 1.0, a11, ld, a21, ld));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, n2, n1, -1.0, a22, ld, a21, ld));
cleanup:
    return status;
}

/* X = W^T W in place; e is nb x nb scratch. The diagonal blocks cannot go first here: X21 =
 * W22^T W21 still reads the W of the blocks below it. */
template <typename T> minv_status product(minv_context *ctx, T *a, int64_t n, int64_t ld, T *e) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n), n2 = n - n1;
    T *const a11 = a, *const a21 = a + n1, *const a22 = a + n1 + n1 * ld;
    if (n <= NB) {
        launch_blocks<T>(ctx, a, n, ld, e, 1, TO_E);
        LAUNCH_TRY();
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, 1.0, e, n, e, n, 0.0, a, ld)); /* all of it: the strict upper triangle is scratch */
        return MINV_SUCCESS;
    }
    /* X11 = W11^T W11 + W21^T W21, X21 = W22^T W21, X22 = W22^T W22; X21 last reads W21 */
    MINV_TRY(product<T>(ctx, a11, n1, ld, e));
    CUBLAS_TRY(minv_syrk(g->blas, CUBLAS_OP_T, n1, n2, 1.0, a21, ld, 1.0, a11, ld));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_LEFT, CUBLAS_OP_T, n2, n1, 1.0, a22, ld, a21, ld));
    MINV_TRY(product<T>(ctx, a22, n2, ld, e));
cleanup:
    return status;
}

/* e_b = L_bb^-1 for every diagonal block b of the lower triangle of a, by one batched TRSM;
 * e holds the blocks one after another, each dense with ld = its order. The factor of a
 * matrix potrf accepted has a positive diagonal, so this cannot fail numerically. */
template <typename T> minv_status invert_diagonal_blocks(minv_context *ctx, T *a, int64_t n, int64_t ld, T *e) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t count = (n + NB - 1) / NB, full = n / NB, last = n - full * NB;
    const int slot = WS_D;
    const size_t bytes = 2 * (size_t)count * sizeof(void *);
    void *dev, **host = (void **)malloc(bytes);
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld block pointers", (long long)count);
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev));
    for (int64_t b = 0; b < count; b++) {
        host[b] = a + b * NB * (ld + 1);
        host[count + b] = e + b * NB * NB;
    }
    CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
    launch_blocks<T>(ctx, a, n, ld, e, count, IDENTITY_E);
    LAUNCH_TRY();
    if (full) CUBLAS_TRY(trsm_batched(g->blas, NB, (const T **)dev, ld, (T **)dev + count, full));
    if (last) CUBLAS_TRY(trsm_batched(g->blas, last, (const T **)dev + full, ld, (T **)dev + count + full, 1));
cleanup:
    free(host);
    return status;
}

/* The solver's workspace, free once potrf is done, holds the inverted diagonal blocks. */
template <typename T> minv_status block_scratch(minv_context *ctx, int64_t n, T **e) {
    const int slot = WS_SOLVER;
    const size_t bytes = (size_t)((n + NB - 1) / NB) * NB * NB * sizeof(T);
    return minv_gpu_reserve(ctx, 1, &slot, &bytes, (void **)e);
}

template <typename T> minv_status inverse_from_factor(minv_context *ctx, minv_mat *l) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = l->rows, ld = l->ld;
    T *a = (T *)l->data, *e;
    MINV_TRY(block_scratch<T>(ctx, n, &e));
    MINV_TRY(invert_diagonal_blocks<T>(ctx, a, n, ld, e));
    launch_blocks<T>(ctx, a, n, ld, e, (n + NB - 1) / NB, FROM_E);
    LAUNCH_TRY();
    MINV_TRY(trtri_levels<T>(ctx, a, n, ld));
    MINV_TRY(product<T>(ctx, a, n, ld, e));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}

/* x = L^-1 x (transpose = 0) or L^-T x: halves recursively, so the work is one GEMM per level
 * with a deep inner dimension; e holds this node's inverted diagonal blocks. */
template <typename T>
minv_status triangular_solve(minv_context *ctx, const T *l, int64_t n, int64_t ld, const T *e, int transpose, T *x,
                             int64_t k, int64_t ldx) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n), n2 = n - n1;
    const T *const l21 = l + n1, *const l22 = l + n1 + n1 * ld, *const e2 = e + n1 * NB;
    T *const x2 = x + n1;
    if (n <= NB) {
        CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_LEFT, transpose ? CUBLAS_OP_T : CUBLAS_OP_N, n, k, 1.0, e, n, x, ldx));
        return MINV_SUCCESS;
    }
    if (!transpose) { /* X1 = L11^-1 B1; B2 -= L21 X1; X2 = L22^-1 B2 */
        MINV_TRY(triangular_solve<T>(ctx, l, n1, ld, e, 0, x, k, ldx));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n2, k, n1, -1.0, l21, ld, x, ldx, 1.0, x2, ldx));
        MINV_TRY(triangular_solve<T>(ctx, l22, n2, ld, e2, 0, x2, k, ldx));
    } else { /* X2 = L22^-T B2; B1 -= L21^T X2; X1 = L11^-T B1 */
        MINV_TRY(triangular_solve<T>(ctx, l22, n2, ld, e2, 1, x2, k, ldx));
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n1, k, n2, -1.0, l21, ld, x2, ldx, 1.0, x, ldx));
        MINV_TRY(triangular_solve<T>(ctx, l, n1, ld, e, 1, x, k, ldx));
    }
cleanup:
    return status;
}

template <typename T> minv_status solve_with_factor(minv_context *ctx, const minv_mat *l, minv_mat *x) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = l->rows;
    T *e;
    MINV_TRY(block_scratch<T>(ctx, n, &e));
    MINV_TRY(invert_diagonal_blocks<T>(ctx, (T *)l->data, n, l->ld, e));
    MINV_TRY(triangular_solve<T>(ctx, (const T *)l->data, n, l->ld, e, 0, (T *)x->data, x->cols, x->ld));
    MINV_TRY(triangular_solve<T>(ctx, (const T *)l->data, n, l->ld, e, 1, (T *)x->data, x->cols, x->ld));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_spd_inverse_from_factor(minv_context *ctx, minv_mat *l) {
    return l->dtype == MINV_R64 ? inverse_from_factor<double>(ctx, l) : inverse_from_factor<float>(ctx, l);
}

minv_status minv_gpu_spd_solve_with_factor(minv_context *ctx, const minv_mat *l, minv_mat *x) {
    return l->dtype == MINV_R64 ? solve_with_factor<double>(ctx, l, x) : solve_with_factor<float>(ctx, l, x);
}
