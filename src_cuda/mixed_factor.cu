// Factorisations in low precision for the mixed-precision solves (mixed.cu, refine.c), of A
// rounded to float, with the GEMMs on the tensor cores: level MINV_LOWP_TF32 rounds their
// operands to TF32 (11 significant bits: refinement converges for condition up to about 1e3);
// level MINV_LOWP_TF32X3 splits each operand into a TF32 head and tail and sums three products
// (about single precision, for condition up to about 1e7) at a third of the TF32 rate, still
// about twice the FP64 rate on an H100, where an FP32 factorisation (cuSOLVER spotrf, sgetrf)
// runs no faster than the FP64 one.
//   Cholesky: recursive halving (A11 = L11 L11^T, L21 = A21 L11^-T, A22 -= L21 L21^T, A22 =
//   L22 L22^T), so that nearly every flop is a large GEMM; cuSOLVER's potrf at the leaves.
//   LU: right-looking in panels of nb columns, each panel by cuSOLVER's getrf with partial
//   pivoting as the double factorisation does, its interchanges applied to the other columns
//   at once, then U12 and the trailing update by GEMM.
// Leaves (potrf, getrf) run in FP32. A triangular solve with a leaf's diagonal block is a GEMM
// with its inverse (inverted in FP32): cuBLAS STRSM with a 512-column triangle runs at a few
// TFLOP/s, and its 1e11 flops (n = 16384) would take longer than all the GEMMs.
#include <stdlib.h>

#include "gpu.h"
#include "interchange.cuh"

namespace {

constexpr int64_t CHOL_BASE = 512;   /* cuSOLVER potrf at or below this order */
constexpr int64_t TRSM_BASE = 512;   /* a leaf's inverse applied by GEMM at or below this many columns */
static_assert(TRSM_BASE == CHOL_BASE, "the triangular solves' leaves are the Cholesky leaves");
constexpr int64_t SYRK_BASE = 1024;  /* a diagonal block's update as one GEMM (its upper half is scratch) */
constexpr int64_t SPLIT_K = 1024;    /* 3xTF32: operands are split this deep at a time */
constexpr int64_t LU_NB = 512, LU_NB_MAX = 1024; /* LU panel width (MINV_OPT_BLOCK_SIZE overrides) */

/* One factorisation's state. Every leaf gets its own info slot on the device, checked at the
 * end: no synchronisation on the way. */
struct lowp {
    minv_context *ctx;
    int level;
    void *work, *host_work;
    size_t work_bytes, host_bytes;
    int *info;
    int64_t *leaf_col; /* host: the first column of each leaf, for the report */
    int64_t leaves, max_leaves;
    float *split;      /* 3xTF32: 2 SPLIT_K (m + n) floats */
    float *inv, *tmp;  /* a leaf's inverted triangle (LEAF^2) and a copy of what it solves (n LEAF);
                          Cholesky: every leaf's, CHOL_BASE^2 apart, inverted once where it is factored */
    int64_t *pairs;    /* LU: a panel's interchanges, device */
};

/* Splits at a multiple of base, so that every leaf but the last has order base. */
int64_t half(int64_t n, int64_t base) { return (n + base - 1) / base / 2 * base; }

/* hi = v rounded to TF32 (10 stored bits), lo = v - hi exactly: hi + lo carries v's 24 bits, and
 * the tensor cores' rounding of lo to TF32 costs 2^-11 of lo, about 2^-22 of v. */
__global__ void split_tf32(const float *src, int64_t rows, int64_t cols, int64_t ld, float *hi, float *lo) {
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x) {
            const float v = src[i + j * ld];
            float h = __uint_as_float((__float_as_uint(v) + 0x1000u) & 0xffffe000u);
            if (!isfinite(h)) h = __uint_as_float(__float_as_uint(v) & 0xffffe000u); /* near FLT_MAX: truncate */
            hi[i + j * rows] = h;
            lo[i + j * rows] = v - h;
        }
}

void launch_split(const float *src, int64_t rows, int64_t cols, int64_t ld, float *hi, float *lo, cudaStream_t s) {
    const dim3 grid((unsigned)((rows + 255) / 256 < 64 ? (rows + 255) / 256 : 64), (unsigned)(cols < 65535 ? cols : 65535));
    split_tf32<<<grid, 256, 0, s>>>(src, rows, cols, ld, hi, lo);
}

cublasStatus_t tf32_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k,
                         float alpha, const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c,
                         int64_t ldc) {
    return cublasGemmEx_64(h, ta, tb, m, n, k, &alpha, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, &beta, c, CUDA_R_32F, ldc,
                           CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
}

/* C = alpha op(A) op(B) + beta C at the factorisation's level. */
minv_status gemm(lowp *p, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    minv_context *ctx = p->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    if (m == 0 || n == 0 || k == 0) return MINV_SUCCESS;
    if (p->level == MINV_LOWP_TF32) {
        CUBLAS_TRY(tf32_gemm(g->blas, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
        return MINV_SUCCESS;
    }
    for (int64_t k0 = 0; k0 < k; k0 += SPLIT_K) {
        const int64_t kk = k - k0 < SPLIT_K ? k - k0 : SPLIT_K;
        const int64_t ra = ta == CUBLAS_OP_N ? m : kk, ca = ta == CUBLAS_OP_N ? kk : m;
        const int64_t rb = tb == CUBLAS_OP_N ? kk : n, cb = tb == CUBLAS_OP_N ? n : kk;
        const float *pa = ta == CUBLAS_OP_N ? a + k0 * lda : a + k0, *pb = tb == CUBLAS_OP_N ? b + k0 : b + k0 * ldb;
        float *ahi = p->split, *alo = ahi + ra * ca, *bhi = alo + ra * ca, *blo = bhi + rb * cb;
        launch_split(pa, ra, ca, lda, ahi, alo, g->stream);
        launch_split(pb, rb, cb, ldb, bhi, blo, g->stream);
        LAUNCH_TRY();
        /* the small products first, into C, then the large one */
        CUBLAS_TRY(tf32_gemm(g->blas, ta, tb, m, n, kk, alpha, alo, ra, bhi, rb, k0 == 0 ? beta : 1.0f, c, ldc));
        CUBLAS_TRY(tf32_gemm(g->blas, ta, tb, m, n, kk, alpha, ahi, ra, blo, rb, 1.0f, c, ldc));
        CUBLAS_TRY(tf32_gemm(g->blas, ta, tb, m, n, kk, alpha, ahi, ra, bhi, rb, 1.0f, c, ldc));
    }
cleanup:
    return status;
}

__global__ void set_identity(float *a, int64_t k) {
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < k * k; e += (int64_t)gridDim.x * blockDim.x)
        a[e] = e % k == e / k ? 1.0f : 0.0f;
}

/* inv = T^-1 for the k x k triangle t (lower; unit where asked), dense with zeros above. */
minv_status invert_leaf(lowp *p, const float *t, int64_t k, int64_t ld, cublasDiagType_t diag, float *inv) {
    minv_context *ctx = p->ctx;
    minv_status status = MINV_SUCCESS;
    const float one = 1;
    set_identity<<<(unsigned)((k * k + 255) / 256 < 1024 ? (k * k + 255) / 256 : 1024), 256, 0, ctx->gpu->stream>>>(inv, k);
    LAUNCH_TRY();
    CUBLAS_TRY(cublasStrsm_64(ctx->gpu->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, diag, k, k, &one, t,
                              ld, inv, k));
cleanup:
    return status;
}

/* p->tmp = the rows x cols block x (dense, ld rows). */
minv_status copy_to_tmp(lowp *p, const float *x, int64_t rows, int64_t cols, int64_t ldx) {
    minv_context *ctx = p->ctx;
    minv_status status = MINV_SUCCESS;
    CUDA_TRY(cudaMemcpy2DAsync(p->tmp, (size_t)rows * sizeof(float), x, (size_t)ldx * sizeof(float),
                               (size_t)rows * sizeof(float), (size_t)cols, cudaMemcpyDeviceToDevice, ctx->gpu->stream));
cleanup:
    return status;
}

int *next_info(lowp *p, int64_t col0) {
    p->leaf_col[p->leaves] = col0;
    return p->info + p->leaves++;
}

/* The inverse of the Cholesky leaf that starts at column col. */
float *leaf_inverse(lowp *p, int64_t col) { return p->inv + col / CHOL_BASE * CHOL_BASE * CHOL_BASE; }

/* X (m x k) = X L^-T, L lower k x k, the factor's columns from col: its leaves' inverses are at
 * hand (cholesky() inverts each once; the L11 of every level holds whole leaves, as both
 * recursions split at multiples of CHOL_BASE = TRSM_BASE). */
minv_status trsm_right_lower_t(lowp *p, float *x, int64_t m, int64_t ldx, const float *l, int64_t k, int64_t ldl,
                               int64_t col) {
    minv_status status = MINV_SUCCESS;
    if (k <= TRSM_BASE) { /* X = X L^-T as (a copy of X) (L^-1)^T */
        MINV_TRY(copy_to_tmp(p, x, m, k, ldx));
        MINV_TRY(gemm(p, CUBLAS_OP_N, CUBLAS_OP_T, m, k, k, 1, p->tmp, m, leaf_inverse(p, col), k, 0, x, ldx));
        return MINV_SUCCESS;
    }
    {
        const int64_t k1 = half(k, TRSM_BASE), k2 = k - k1;
        MINV_TRY(trsm_right_lower_t(p, x, m, ldx, l, k1, ldl, col));
        MINV_TRY(gemm(p, CUBLAS_OP_N, CUBLAS_OP_T, m, k2, k1, -1, x, ldx, l + k1, ldl, 1, x + k1 * ldx, ldx));
        MINV_TRY(trsm_right_lower_t(p, x + k1 * ldx, m, ldx, l + k1 + k1 * ldl, k2, ldl, col + k1));
    }
cleanup:
    return status;
}

/* C (m x m, lower) -= X X^T, X m x k. */
minv_status syrk_lower(lowp *p, float *c, int64_t m, int64_t ldc, const float *x, int64_t k, int64_t ldx) {
    minv_status status = MINV_SUCCESS;
    if (m <= SYRK_BASE) return gemm(p, CUBLAS_OP_N, CUBLAS_OP_T, m, m, k, -1, x, ldx, x, ldx, 1, c, ldc);
    {
        const int64_t m1 = half(m, SYRK_BASE), m2 = m - m1;
        MINV_TRY(syrk_lower(p, c, m1, ldc, x, k, ldx));
        MINV_TRY(gemm(p, CUBLAS_OP_N, CUBLAS_OP_T, m2, m1, k, -1, x + m1, ldx, x, ldx, 1, c + m1, ldc));
        MINV_TRY(syrk_lower(p, c + m1 + m1 * ldc, m2, ldc, x + m1, k, ldx));
    }
cleanup:
    return status;
}

minv_status cholesky(lowp *p, float *a, int64_t n, int64_t ld, int64_t col0) {
    minv_context *ctx = p->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    if (n <= CHOL_BASE) {
        CUSOLVER_TRY(cusolverDnXpotrf(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_32F, a, ld,
                                      CUDA_R_32F, p->work, p->work_bytes, p->host_work, p->host_bytes,
                                      next_info(p, col0)));
        return invert_leaf(p, a, n, ld, CUBLAS_DIAG_NON_UNIT, leaf_inverse(p, col0));
    }
    {
        const int64_t n1 = half(n, CHOL_BASE), n2 = n - n1;
        MINV_TRY(cholesky(p, a, n1, ld, col0));
        MINV_TRY(trsm_right_lower_t(p, a + n1, n2, ld, a, n1, ld, col0));
        MINV_TRY(syrk_lower(p, a + n1 + n1 * ld, n2, ld, a + n1, n1, ld));
        MINV_TRY(cholesky(p, a + n1 + n1 * ld, n2, ld, col0 + n1));
    }
cleanup:
    return status;
}

/* A panel's interchanges (minv_interchange_pairs) on every column outside it, [0, k0) and
 * [k0 + w, n): a block a column, the sources read before any destination is written. */
__global__ void swap_rows(float *a, int64_t ld, int64_t n, int64_t k0, int64_t w, const int64_t *pairs) {
    __shared__ float moved[2 * LU_NB_MAX];
    for (int64_t c = blockIdx.x; c < n - w; c += gridDim.x) {
        float *col = a + (c < k0 ? c : c + w) * ld;
        for (int64_t s = threadIdx.x; s < 2 * w; s += blockDim.x) moved[s] = col[pairs[2 * s + 1]];
        __syncthreads();
        for (int64_t s = threadIdx.x; s < 2 * w; s += blockDim.x)
            if (pairs[2 * s] != pairs[2 * s + 1]) col[pairs[2 * s]] = moved[s];
        __syncthreads();
    }
}

/* cuSOLVER's pivots are 1-based within each panel; LAPACK's count over the whole matrix. */
__global__ void globalise_pivots(int64_t *ipiv, int64_t n, int64_t nb) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) ipiv[i] += i / nb * nb;
}

minv_status lu(lowp *p, float *a, int64_t n, int64_t ld, int64_t *ipiv, int64_t nb) {
    minv_context *ctx = p->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    int64_t *cur = (int64_t *)malloc(((size_t)n + 5 * (size_t)nb) * sizeof(int64_t)), *piv = cur + n, *pairs = piv + nb;
    if (!cur) return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    for (int64_t i = 0; i < n; i++) cur[i] = i;
    for (int64_t k0 = 0; k0 < n; k0 += nb) {
        const int64_t w = n - k0 < nb ? n - k0 : nb, m = n - k0, right = n - k0 - w;
        float *panel = a + k0 + k0 * ld, *a12 = panel + w * ld;
        CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, m, w, CUDA_R_32F, panel, ld, ipiv + k0, CUDA_R_32F,
                                      p->work, p->work_bytes, p->host_work, p->host_bytes, next_info(p, k0)));
        if (n > w) {
            CUDA_TRY(cudaMemcpyAsync(piv, ipiv + k0, (size_t)w * sizeof(int64_t), cudaMemcpyDeviceToHost, g->stream));
            CUDA_TRY(cudaStreamSynchronize(g->stream));
            minv_interchange_pairs(piv, k0, w, cur, pairs);
            CUDA_TRY(cudaMemcpyAsync(p->pairs, pairs, 4 * (size_t)w * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
            const int64_t cols = n - w;
            swap_rows<<<(unsigned)(cols < 65535 ? cols : 65535), 256, 0, g->stream>>>(a, ld, n, k0, w, p->pairs);
            LAUNCH_TRY();
        }
        if (right > 0) { /* U12 = L11^-1 A12, then A22 -= L21 U12 */
            MINV_TRY(invert_leaf(p, panel, w, ld, CUBLAS_DIAG_UNIT, p->inv));
            MINV_TRY(copy_to_tmp(p, a12, w, right, ld));
            MINV_TRY(gemm(p, CUBLAS_OP_N, CUBLAS_OP_N, w, right, w, 1, p->inv, w, p->tmp, w, 0, a12, ld));
            MINV_TRY(gemm(p, CUBLAS_OP_N, CUBLAS_OP_N, m - w, right, w, -1, panel + w, ld, a12, ld, 1, a12 + w, ld));
        }
    }
    globalise_pivots<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(ipiv, n, nb);
    LAUNCH_TRY();
    CUDA_TRY(cudaStreamSynchronize(g->stream)); /* pairs, a pageable buffer, has gone up */
cleanup:
    free(cur);
    return status;
}

int64_t lu_width(const minv_context *ctx) {
    const int64_t nb = ctx->block_size > 0 ? ctx->block_size : LU_NB;
    return nb < LU_NB_MAX ? nb : LU_NB_MAX;
}

} // namespace

minv_status minv_gpu_lowp_factor(minv_context *ctx, minv_mat *f, int lu_factors, int level, int64_t *ipiv) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = f->rows, nb = lu_width(ctx);
    lowp p = {};
    size_t dev_bytes = 0, host_bytes = 0;
    const int *info_host;
    void *back;
    p.ctx = ctx;
    p.level = level;
    p.max_leaves = lu_factors ? (n + nb - 1) / nb : (n + CHOL_BASE - 1) / CHOL_BASE + 1;
    if (lu_factors)
        CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, n < nb ? n : nb, CUDA_R_32F, f->data,
                                                 f->ld, CUDA_R_32F, &dev_bytes, &host_bytes));
    else
        CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER,
                                                 n < CHOL_BASE ? n : CHOL_BASE, CUDA_R_32F, f->data, f->ld, CUDA_R_32F,
                                                 &dev_bytes, &host_bytes));
    {
        /* cuSOLVER's workspace, the infos, and for LU the identity and the pairs; the split */
        const size_t infos = ((size_t)p.max_leaves * sizeof(int) + 255) / 256 * 256,
                     lu_bytes = lu_factors ? 4 * (size_t)nb * sizeof(int64_t) : 0;
        const int64_t leaf = lu_factors ? nb : TRSM_BASE;
        const size_t split = level == MINV_LOWP_TF32X3 ? 4 * (size_t)SPLIT_K * (size_t)n : 0,
                     leaves = lu_factors ? 1 : (size_t)((n + CHOL_BASE - 1) / CHOL_BASE),
                     inv = (leaves * (size_t)(leaf * leaf) + 63) / 64 * 64;
        const int slots[2] = {WS_SOLVER, WS_H};
        const size_t bytes[2] = {(dev_bytes + 255) / 256 * 256 + infos + lu_bytes,
                                 (split + inv + (size_t)n * (size_t)leaf) * sizeof(float)};
        void *ptrs[2];
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, ptrs));
        p.work = ptrs[0];
        p.work_bytes = dev_bytes;
        p.info = (int *)((char *)ptrs[0] + (dev_bytes + 255) / 256 * 256);
        p.pairs = (int64_t *)((char *)p.info + infos);
        p.split = (float *)ptrs[1];
        p.inv = p.split + split;
        p.tmp = p.inv + inv;
    }
    p.host_bytes = host_bytes;
    p.leaf_col = (int64_t *)malloc((size_t)p.max_leaves * sizeof(int64_t));
    if (!p.leaf_col || (host_bytes && !(p.host_work = malloc(host_bytes)))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld factorisation infos", (long long)p.max_leaves);
        goto cleanup;
    }
    if (lu_factors) MINV_TRY(lu(&p, (float *)f->data, n, f->ld, ipiv, nb));
    else MINV_TRY(cholesky(&p, (float *)f->data, n, f->ld, 0));
    MINV_TRY(minv_gpu_read_back(ctx, p.info, (size_t)p.leaves * sizeof(int), &back));
    info_host = (const int *)back;
    for (int64_t k = 0; k < p.leaves; k++) {
        if (info_host[k] < 0) {
            status = minv_fail(ctx, MINV_ERR_INTERNAL, "cuSOLVER %s rejected argument %d", lu_factors ? "getrf" : "potrf",
                               -info_host[k]);
            break;
        }
        if (info_host[k] > 0) {
            const long long col = (long long)(p.leaf_col[k] + info_host[k]);
            status = lu_factors ? minv_fail(ctx, MINV_ERR_SINGULAR, "low-precision U(%lld,%lld) is zero", col, col)
                                : minv_fail(ctx, MINV_ERR_NOT_SPD,
                                            "the low-precision leading minor of order %lld is not positive definite", col);
            break;
        }
    }
cleanup:
    free(p.leaf_col);
    free(p.host_work);
    return status;
}
