// What follows the Cholesky factor A = L L^T, or getrf's P A = L U, on the GPU:
//   the SPD inverse: W = L^-1 in place (trtri), then X = W^T W in place (lauum), lower
//   triangles, n^3/3 flops each;
//   the solves: X = L^-T L^-1 B, or X = U^-1 L^-1 (P B), 2 n^2 nrhs flops.
// cuSOLVER's potri does the same two steps far below the DGEMM rate (0.225 s at n = 16384 on
// an H100, against 0.038 s for potrf). Halving recursively instead puts almost every flop in
// large cuBLAS TRMM and SYRK calls; the diagonal blocks at the bottom take batched TRSM and
// GEMM. The solves likewise become GEMMs around once-inverted diagonal blocks, where cuBLAS
// TRSM (and so getrs) runs well below the GEMM rate (0.7x at n = 16384 on an H100).
#include <stdlib.h>

#include "gpu.h"

namespace {

/* Diagonal blocks of order nb are inverted together by one batched TRSM (and, in the SPD
 * inverse, their products W^T W formed by GEMM): cuSOLVER's trtri and lauum are launch-bound
 * at these sizes. The best nb differs (H100, bench_spd parts and solve): the inverse took
 * 27.4 ms at n = 8192 and 124 at 16384 with nb = 1024, 31.5 and 132 with 256; the solves'
 * leaves, which applied the blocks by TRMM then, ran best at 256 (0.228 s at 16384, 0.231 with 1024):
 * MINV_TRI_INVERSE_NB and MINV_TRI_SOLVE_NB (gpu.h). */

/* Splits at a block boundary, so that every diagonal block but the last has order nb. */
int64_t split(int64_t n, int64_t nb) { return (n + nb - 1) / nb / 2 * nb; }

/* The shape of a triangular operand: which triangle holds it, and whether its diagonal is
 * stored or taken as ones (getrf's L). */
struct tri_shape {
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
};
const tri_shape LOWER = {CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT};
const tri_shape UNIT_LOWER = {CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_UNIT};
const tri_shape UPPER = {CUBLAS_FILL_MODE_UPPER, CUBLAS_DIAG_NON_UNIT};

/* Whether op(A) is lower triangular. */
bool op_lower(tri_shape s, cublasOperation_t op) { return (s.uplo == CUBLAS_FILL_MODE_LOWER) == (op == CUBLAS_OP_N); }

/* The off-diagonal block of a triangle split after k1 rows and columns: A21 below, A12 above;
 * op(it) is op(A)'s off-diagonal block either way. */
template <typename T> T *off_diagonal(T *a, int64_t lda, int64_t k1, tri_shape s) {
    return s.uplo == CUBLAS_FILL_MODE_LOWER ? a + k1 : a + k1 * lda;
}

cublasStatus_t trmm_call(cublasHandle_t h, cublasSideMode_t side, tri_shape s, cublasOperation_t op, int64_t m,
                         int64_t n, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb, double *c, int64_t ldc) {
    return cublasDtrmm_64(h, side, s.uplo, op, s.diag, m, n, &alpha, a, lda, b, ldb, c, ldc);
}
cublasStatus_t trmm_call(cublasHandle_t h, cublasSideMode_t side, tri_shape s, cublasOperation_t op, int64_t m,
                         int64_t n, double alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float *c, int64_t ldc) {
    float al = (float)alpha;
    return cublasStrmm_64(h, side, s.uplo, op, s.diag, m, n, &al, a, lda, b, ldb, c, ldc);
}
/* b (m x n, ldb) = tmp (dense, ld m): the way back from a scratch cuBLAS wrote out of place. */
template <typename T> cudaError_t from_scratch(const T *tmp, int64_t m, int64_t n, T *b, int64_t ldb, cudaStream_t s) {
    return cudaMemcpy2DAsync(b, (size_t)ldb * sizeof(T), tmp, (size_t)m * sizeof(T), (size_t)m * sizeof(T), (size_t)n,
                             cudaMemcpyDeviceToDevice, s);
}

/* B = alpha op(A) B or alpha B op(A) through tmp (m x n) and a copy back: cuBLAS's TRMM in
 * place was the slow part of the SPD inverse (H100, bench_spd invert, same build: 3.0 / 8.0 /
 * 28.2 / 124.9 ms at n = 2048 / 4096 / 8192 / 16384 in place, 2.5 / 5.5 / 20.8 / 105.4 this way). */
template <typename T>
cublasStatus_t trmm_blas(cublasHandle_t h, cublasSideMode_t side, tri_shape s, cublasOperation_t op, int64_t m,
                         int64_t n, double alpha, const T *a, int64_t lda, T *b, int64_t ldb, T *tmp) {
    cublasStatus_t st = trmm_call(h, side, s, op, m, n, alpha, a, lda, b, ldb, tmp, m);
    if (st) return st;
    cudaStream_t stream;
    cublasGetStream(h, &stream);
    return from_scratch(tmp, m, n, b, ldb, stream) == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

/* B = alpha op(A) B (left) or alpha B op(A) (right), A triangular, in place (tmp: TRMM_BASE x
 * max(m, n) elements of scratch). cuBLAS's TRMM runs
 * at 30 to 46 TFLOP/s at orders 4096 to 8192 on an H100, its GEMM at 60: halving A puts half
 * the flops of each level in one GEMM; only orders up to TRMM_BASE go to cuBLAS's TRMM (with
 * 1024-blocks, bases of 512 and 1024 measured alike; the solves' 256-blocks are below it). */
const int64_t TRMM_BASE = 512;

template <typename T>
cublasStatus_t trmm(cublasHandle_t h, cublasSideMode_t side, tri_shape s, cublasOperation_t op, int64_t m, int64_t n,
                    double alpha, const T *a, int64_t lda, T *b, int64_t ldb, T *tmp) {
    const int left = side == CUBLAS_SIDE_LEFT;
    const int64_t k = left ? m : n, k1 = k / 2 >= 256 ? k / 2 / 128 * 128 : k / 2, k2 = k - k1;
    if (k <= TRMM_BASE) return trmm_blas<T>(h, side, s, op, m, n, alpha, a, lda, b, ldb, tmp);
    /* Halves 1 and 2 of B (rows on the left, columns on the right) and of A's diagonal. The half
     * whose new value reads the other's old one goes first: left, B2 = op(A22) B2 + op(A21) B1
     * where op(A) is lower, B1 = op(A11) B1 + op(A12) B2 where it is upper; right, the other
     * way round (B1 = B1 op(A11) + B2 op(A21) where lower). Then the other half, alone. */
    const int second_first = left == op_lower(s, op);
    const T *const a22 = a + k1 + k1 * lda, *const off = off_diagonal(a, lda, k1, s);
    T *const b2 = left ? b + k1 : b + k1 * ldb;
    const T *const a_first = second_first ? a22 : a, *const a_then = second_first ? a : a22;
    T *const b_first = second_first ? b2 : b, *const b_then = second_first ? b : b2;
    const int64_t kf = second_first ? k2 : k1, kt = k - kf;
    cublasStatus_t st;
    if ((st = trmm<T>(h, side, s, op, left ? kf : m, left ? n : kf, alpha, a_first, lda, b_first, ldb, tmp))) return st;
    st = left ? minv_gemm(h, op, CUBLAS_OP_N, kf, n, kt, alpha, off, lda, b_then, ldb, 1.0, b_first, ldb)
              : minv_gemm(h, CUBLAS_OP_N, op, m, kf, kt, alpha, b_then, ldb, off, lda, 1.0, b_first, ldb);
    if (st) return st;
    return trmm<T>(h, side, s, op, left ? kt : m, left ? n : kt, alpha, a_then, lda, b_then, ldb, tmp);
}

cublasStatus_t trsm_batched(cublasHandle_t h, tri_shape s, int64_t n, const double *const *a, int64_t lda,
                            double *const *b, int64_t count) {
    const double one = 1;
    return cublasDtrsmBatched_64(h, CUBLAS_SIDE_LEFT, s.uplo, CUBLAS_OP_N, s.diag, n, n, &one, a, lda, b, n, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, tri_shape s, int64_t n, const float *const *a, int64_t lda,
                            float *const *b, int64_t count) {
    const float one = 1;
    return cublasStrsmBatched_64(h, CUBLAS_SIDE_LEFT, s.uplo, CUBLAS_OP_N, s.diag, n, n, &one, a, lda, b, n, count);
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

template <typename T>
void launch_blocks(minv_context *ctx, T *x, int64_t n, int64_t ld, T *e, int64_t nb, int64_t count, int mode) {
    diagonal_blocks<T><<<dim3(64, (unsigned)count), 256, 0, ctx->gpu->stream>>>(x, n, ld, e, nb, mode);
}

/* Below the diagonal blocks: W21 = -W22 L21 W11 at every level, children first. */
template <typename T> minv_status trtri_levels(minv_context *ctx, T *a, int64_t n, int64_t ld, int64_t nb, T *tmp) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n, nb), n2 = n - n1;
    T *const a11 = a, *const a21 = a + n1, *const a22 = a + n1 + n1 * ld;
    if (n <= nb) return MINV_SUCCESS;
    MINV_TRY(trtri_levels<T>(ctx, a11, n1, ld, nb, tmp));
    MINV_TRY(trtri_levels<T>(ctx, a22, n2, ld, nb, tmp));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_RIGHT, LOWER, CUBLAS_OP_N, n2, n1, 1.0, a11, ld, a21, ld, tmp));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_LEFT, LOWER, CUBLAS_OP_N, n2, n1, -1.0, a22, ld, a21, ld, tmp));
cleanup:
    return status;
}

/* X = W^T W in place; e is nb x nb scratch. The diagonal blocks cannot go first here: X21 =
 * W22^T W21 still reads the W of the blocks below it. */
template <typename T> minv_status product(minv_context *ctx, T *a, int64_t n, int64_t ld, T *e, int64_t nb, T *tmp) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n, nb), n2 = n - n1;
    T *const a11 = a, *const a21 = a + n1, *const a22 = a + n1 + n1 * ld;
    if (n <= nb) {
        launch_blocks<T>(ctx, a, n, ld, e, nb, 1, TO_E);
        LAUNCH_TRY();
        CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, 1.0, e, n, e, n, 0.0, a, ld)); /* all of it: the strict upper triangle is scratch */
        return MINV_SUCCESS;
    }
    /* X11 = W11^T W11 + W21^T W21, X21 = W22^T W21, X22 = W22^T W22; X21 last reads W21 */
    MINV_TRY(product<T>(ctx, a11, n1, ld, e, nb, tmp));
    CUBLAS_TRY(minv_syrk(g->blas, CUBLAS_OP_T, n1, n2, 1.0, a21, ld, 1.0, a11, ld));
    CUBLAS_TRY(trmm(g->blas, CUBLAS_SIDE_LEFT, LOWER, CUBLAS_OP_T, n2, n1, 1.0, a22, ld, a21, ld, tmp));
    MINV_TRY(product<T>(ctx, a22, n2, ld, e, nb, tmp));
cleanup:
    return status;
}

/* e_b = A_bb^-1 for every diagonal block b of the triangle s of a, by one batched TRSM; e holds
 * the blocks one after another, each dense with ld = its order, zero outside the triangle (the
 * TRSM solves with the identity) and ones on the diagonal where s's is a unit one. The factor
 * of a matrix potrf accepted has a positive diagonal, and getrf's U a nonzero one (it reports
 * an exactly zero pivot), so this cannot fail numerically. */
template <typename T>
minv_status invert_diagonal_blocks(minv_context *ctx, const T *a, int64_t n, int64_t ld, tri_shape s, int64_t nb, T *e) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t count = (n + nb - 1) / nb, full = n / nb, last = n - full * nb;
    const int slot = WS_D;
    const size_t bytes = 2 * (size_t)count * sizeof(void *);
    void *dev, **host = (void **)malloc(bytes);
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld block pointers", (long long)count);
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev));
    for (int64_t b = 0; b < count; b++) {
        host[b] = (void *)(a + b * nb * (ld + 1));
        host[count + b] = e + b * nb * nb;
    }
    CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
    launch_blocks<T>(ctx, (T *)a, n, ld, e, nb, count, IDENTITY_E);
    LAUNCH_TRY();
    if (full) CUBLAS_TRY(trsm_batched(g->blas, s, nb, (const T **)dev, ld, (T **)dev + count, full));
    if (last) CUBLAS_TRY(trsm_batched(g->blas, s, last, (const T **)dev + full, ld, (T **)dev + count + full, 1));
cleanup:
    free(host);
    return status;
}

/* Bytes of the inverted diagonal blocks of order nb of an n x n triangle of elements es. */
size_t blocks_bytes(int64_t n, int64_t nb, size_t es) {
    const int64_t order = n < nb ? n : nb; /* one block: no bigger than the matrix */
    return (size_t)((n + nb - 1) / nb) * (size_t)order * (size_t)nb * es;
}

/* The solver's workspace, free once potrf or getrf is done, holds the inverted diagonal blocks
 * and tmp_elems of scratch after them. */
template <typename T> minv_status block_scratch(minv_context *ctx, int64_t n, int64_t nb, T **e, int64_t tmp_elems, T **tmp) {
    const int slot = WS_SOLVER;
    const size_t blocks = blocks_bytes(n, nb, sizeof(T)), bytes = blocks + (size_t)tmp_elems * sizeof(T);
    const minv_status status = minv_gpu_reserve(ctx, 1, &slot, &bytes, (void **)e);
    if (status == MINV_SUCCESS) *tmp = (T *)((char *)*e + blocks);
    return status;
}

/* Triangle `which` of a factorisation: 0 its L (unit for LU), 1 U (LU) or L^T (Cholesky, the
 * same stored triangle and blocks, transposed). */
tri_shape triangle_shape(int lu, int which) { return which == 0 ? (lu ? UNIT_LOWER : LOWER) : (lu ? UPPER : LOWER); }
cublasOperation_t triangle_op(int lu, int which) { return which == 1 && !lu ? CUBLAS_OP_T : CUBLAS_OP_N; }

cusolverStatus_t potri_size(cusolverDnHandle_t h, int n, double *a, int ld, int *lwork) {
    return cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, ld, lwork);
}
cusolverStatus_t potri_size(cusolverDnHandle_t h, int n, float *a, int ld, int *lwork) {
    return cusolverDnSpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, a, ld, lwork);
}
cusolverStatus_t potri(cusolverDnHandle_t h, int n, double *a, int ld, double *w, int lwork, int *info) {
    return cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, a, ld, w, lwork, info);
}
cusolverStatus_t potri(cusolverDnHandle_t h, int n, float *a, int ld, float *w, int lwork, int *info) {
    return cusolverDnSpotri(h, CUBLAS_FILL_MODE_LOWER, n, a, ld, w, lwork, info);
}

/* Up to this order cuSOLVER's potri, a few launches, beats the blocks and levels below (H100,
 * bench_host_calls, host-array SPD inversions on a GPU context, same build: order 256 0.538 ms
 * with the blocks, 0.493 with potri; 1024 2.21 against 2.67; device data, bench_spd, 2048 2.9
 * against 4.8 ms). A factor potrf accepted has a positive diagonal, so potri cannot fail
 * numerically; its info is not read back. */
const int64_t POTRI_UP_TO = 256;

template <typename T> minv_status inverse_by_potri(minv_context *ctx, T *a, int64_t n, int64_t ld) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    int lwork = 0;
    void *p;
    CUSOLVER_TRY(potri_size(g->solver, (int)n, a, (int)ld, &lwork));
    {
        const int slot = WS_SOLVER;
        const size_t bytes = (size_t)lwork * sizeof(T) + 256;
        MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &p));
    }
    CUSOLVER_TRY(potri(g->solver, (int)n, a, (int)ld, (T *)((char *)p + 256), lwork, (int *)p));
cleanup:
    return status;
}

template <typename T> minv_status inverse_from_factor(minv_context *ctx, minv_mat *l) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = l->rows, ld = l->ld;
    T *a = (T *)l->data, *e, *tmp;
    const int64_t nb = MINV_TRI_INVERSE_NB;
    if (n <= POTRI_UP_TO) return inverse_by_potri<T>(ctx, a, n, ld);
    MINV_TRY(block_scratch<T>(ctx, n, nb, &e, TRMM_BASE * n, &tmp)); /* tmp: the TRMMs' */
    MINV_TRY(invert_diagonal_blocks<T>(ctx, a, n, ld, LOWER, nb, e));
    launch_blocks<T>(ctx, a, n, ld, e, nb, (n + nb - 1) / nb, FROM_E);
    LAUNCH_TRY();
    MINV_TRY(trtri_levels<T>(ctx, a, n, ld, nb, tmp));
    MINV_TRY(product<T>(ctx, a, n, ld, e, nb, tmp));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}

/* x = op(A)^-1 x, A triangular of shape s: halves recursively, so the work is one GEMM per
 * level with a deep inner dimension; e holds this node's inverted diagonal blocks
 * (invert_diagonal_blocks), which the leaves apply by GEMM into tmp (nb x k) and a copy back,
 * or is NULL, and the leaves solve by cuBLAS's TRSM. cuBLAS's TRMM in place, which the leaves
 * took before, was the slow part of these solves (H100, bench_solves, same build:
 * SPD solves of order 4096 with 30 / 512 / 4096 right-hand sides 4.86 / 5.28 / 8.23 ms with
 * TRMM leaves, 3.99 / 3.91 / 7.09 with GEMM leaves; 8192 with 30 14.4 -> 11.5 ms; the
 * mixed-precision SPD solve of order 16384 with 30, whose corrections take the same path in
 * TF32, 79.4 -> 59.9 ms). */
template <typename T>
minv_status triangular_solve(minv_context *ctx, const T *a, int64_t n, int64_t ld, tri_shape s, cublasOperation_t op,
                             const T *e, int64_t nb, T *x, int64_t k, int64_t ldx, T *tmp) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n1 = split(n, nb), n2 = n - n1;
    const T *const off = off_diagonal(a, ld, n1, s), *const a22 = a + n1 + n1 * ld, *const e2 = e ? e + n1 * nb : NULL;
    T *const x2 = x + n1;
    if (n <= nb && !e) {
        CUBLAS_TRY(minv_trsm(g->blas, CUBLAS_SIDE_LEFT, s.uplo, op, s.diag, n, k, 1.0, a, ld, x, ldx));
        return MINV_SUCCESS;
    }
    if (n <= nb) { /* e's blocks are dense: zeros off the triangle, ones on a unit diagonal */
        CUBLAS_TRY(minv_gemm(g->blas, op, CUBLAS_OP_N, n, k, n, 1.0, e, n, x, ldx, 0.0, tmp, n));
        CUDA_TRY(from_scratch(tmp, n, k, x, ldx, g->stream));
        return MINV_SUCCESS;
    }
    if (op_lower(s, op)) { /* X1 = op(A11)^-1 B1; B2 -= op(A21) X1; X2 = op(A22)^-1 B2 */
        MINV_TRY(triangular_solve<T>(ctx, a, n1, ld, s, op, e, nb, x, k, ldx, tmp));
        CUBLAS_TRY(minv_gemm(g->blas, op, CUBLAS_OP_N, n2, k, n1, -1.0, off, ld, x, ldx, 1.0, x2, ldx));
        MINV_TRY(triangular_solve<T>(ctx, a22, n2, ld, s, op, e2, nb, x2, k, ldx, tmp));
    } else { /* X2 = op(A22)^-1 B2; B1 -= op(A12) X2; X1 = op(A11)^-1 B1 */
        MINV_TRY(triangular_solve<T>(ctx, a22, n2, ld, s, op, e2, nb, x2, k, ldx, tmp));
        CUBLAS_TRY(minv_gemm(g->blas, op, CUBLAS_OP_N, n1, k, n2, -1.0, off, ld, x2, ldx, 1.0, x, ldx));
        MINV_TRY(triangular_solve<T>(ctx, a, n1, ld, s, op, e, nb, x, k, ldx, tmp));
    }
cleanup:
    return status;
}

/* Both triangles' solves of x, a few columns, each in one sweep (triangular_narrow.cu). */
minv_status narrow_solves(minv_context *ctx, const minv_mat *f, int lu, minv_mat *x) {
    minv_status status = MINV_SUCCESS;
    for (int which = 0; which < 2 && status == MINV_SUCCESS; which++) {
        const tri_shape s = triangle_shape(lu, which);
        status = minv_gpu_narrow_solve(ctx, f, s.uplo, triangle_op(lu, which), s.diag, x);
    }
    return status;
}

/* x = A^-1 x from the factors in f: L^-T L^-1 x from a Cholesky factor L (lower), or, from
 * getrf's (lu), U^-1 L^-1 x with L unit lower and U upper; x is already row-permuted there.
 * A few columns go to the narrow solve (triangular_narrow.cu), all in one sweep of each
 * triangle; wider x has each triangle's diagonal blocks inverted into the one scratch before
 * its solve. */
template <typename T> minv_status solve_with_factors(minv_context *ctx, const minv_mat *f, int lu, minv_mat *x) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = f->rows, nb = MINV_TRI_SOLVE_NB;
    const T *a = (const T *)f->data;
    T *e = NULL, *tmp = NULL;
    if (x->cols <= MINV_GPU_NARROW_COLS)
        return narrow_solves(ctx, f, lu, x);
    /* LU's triangles of one block go to TRSM whole rather than be inverted to be applied once
     * (H100, bench_solves, general order 256 with 30 right-hand sides: the solve stage 0.21
     * against 0.33 ms); Cholesky's L^T, a transposed TRSM, measured no faster that way (0.26
     * against 0.22 ms), and keeps its inverted block. */
    const bool inverted_blocks = n > nb || !lu;
    if (inverted_blocks) MINV_TRY(block_scratch<T>(ctx, n, nb, &e, nb * x->cols, &tmp)); /* tmp: the leaves' */
    for (int which = 0; which < 2; which++) {
        if (inverted_blocks && (which == 0 || lu))
            MINV_TRY(invert_diagonal_blocks<T>(ctx, a, n, f->ld, triangle_shape(lu, which), nb, e));
        MINV_TRY(triangular_solve<T>(ctx, a, n, f->ld, triangle_shape(lu, which), triangle_op(lu, which), e, nb,
                                     (T *)x->data, x->cols, x->ld, tmp));
    }
cleanup: /* no synchronisation: what follows on the stream reads x */
    return status;
}

minv_status solve_with(minv_context *ctx, const minv_mat *f, int lu, minv_mat *x) {
    return f->dtype == MINV_R64 ? solve_with_factors<double>(ctx, f, lu, x) : solve_with_factors<float>(ctx, f, lu, x);
}

} // namespace

minv_status minv_gpu_spd_inverse_from_factor(minv_context *ctx, minv_mat *l) {
    return l->dtype == MINV_R64 ? inverse_from_factor<double>(ctx, l) : inverse_from_factor<float>(ctx, l);
}

minv_status minv_gpu_spd_solve_with_factor(minv_context *ctx, const minv_mat *l, minv_mat *x) {
    return solve_with(ctx, l, 0, x);
}

minv_status minv_gpu_lu_solve_with_factors(minv_context *ctx, const minv_mat *lu, minv_mat *x) {
    return solve_with(ctx, lu, 1, x);
}

size_t minv_gpu_triangle_blocks_bytes(minv_dtype t, int64_t n, int64_t nb) { return blocks_bytes(n, nb, (size_t)t); }

minv_status minv_gpu_triangle_blocks(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, void *e) {
    const tri_shape s = triangle_shape(lu, which);
    return f->dtype == MINV_R64
               ? invert_diagonal_blocks<double>(ctx, (const double *)f->data, f->rows, f->ld, s, nb, (double *)e)
               : invert_diagonal_blocks<float>(ctx, (const float *)f->data, f->rows, f->ld, s, nb, (float *)e);
}

minv_status minv_gpu_triangle_solve(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, const void *e,
                                    minv_mat *x, void *leaf) {
    const tri_shape s = triangle_shape(lu, which);
    const cublasOperation_t op = triangle_op(lu, which);
    return f->dtype == MINV_R64 ? triangular_solve<double>(ctx, (const double *)f->data, f->rows, f->ld, s, op,
                                                            (const double *)e, nb, (double *)x->data, x->cols, x->ld, (double *)leaf)
                                : triangular_solve<float>(ctx, (const float *)f->data, f->rows, f->ld, s, op,
                                                           (const float *)e, nb, (float *)x->data, x->cols, x->ld, (float *)leaf);
}
