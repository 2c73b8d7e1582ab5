// Mixed-precision solves on the GPU, the engine of refine.c: A rounded to float and factored on
// the tensor cores (mixed_factor.cu), the corrections solved with those factors by
// triangular.cu's blocked solves (TF32 at the first level, FP32 at the second), and each
// residual b - A x formed by DGEMM on A in double. Everything stays on the device and on the
// compute stream; a step brings back two norms a column to decide on.
#include <cub/block/block_reduce.cuh>
#include <math.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

constexpr int THREADS = 256;
constexpr int64_t SOLVE_NB = MINV_TRI_SOLVE_NB; /* the corrections' diagonal blocks */

struct gpu_mixed {
    minv_refine_engine e; /* first: refine.c's callbacks get this struct */
    const minv_mat *b;
    minv_mat *x;
    minv_report *report;
    int lu;               /* 0: Cholesky; 1: LU (asked for, or after Cholesky broke down) */
    int level;
    int64_t cols;         /* the caller's columns and Hager's */
    double anorm_inf, anorm_1;
    minv_mat ad;          /* A in double on the device */
    minv_mat f;           /* its low-precision factors */
    double *r, *xw;       /* n x cols: residual and solution */
    float *w;             /* n x cols: a correction */
    void *blocks[2];      /* the triangles' inverted diagonal blocks */
    float *leaf;          /* SOLVE_NB x cols: a diagonal block's product */
    int64_t *ipiv, *perm;
    double *norms;        /* device, cols each: ||r_j||_inf, ||x_j||_inf, scale_j, ||x_j||_1 */
    double *host;         /* host, cols each: ||r_j||_inf, ||x_j||_inf, ||b_j||_inf, ||b_j||_1 */
};

/* r = [b, (1/n, ...)] in double. */
template <typename T>
__global__ void load_b(const T *b, int64_t ldb, int64_t n, int64_t k, double *r) {
    for (int64_t j = blockIdx.y; j <= k; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
            r[i + j * n] = j < k ? (double)b[i + j * ldb] : 1.0 / (double)n;
}

/* w = P r / scale in float (P the row permutation of LU, or none): each column at unit size, so
 * that a small residual cannot underflow. */
__global__ void to_low(const double *r, int64_t n, int64_t cols, const int64_t *perm, const double *scale, float *w) {
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y) {
        const double s = 1.0 / scale[j];
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
            w[i + j * n] = (float)(r[(perm ? perm[i] : i) + j * n] * s);
    }
}

/* x += scale w, in double. */
__global__ void add_correction(double *x, const float *w, const double *scale, int64_t n, int64_t cols) {
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
            x[i + j * n] += scale[j] * (double)w[i + j * n];
}

/* x = x rounded to float, kept in double: what a float caller receives. */
__global__ void round_to_float(double *x, int64_t count) {
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        x[i] = (double)(float)x[i];
}

/* The larger, NaN winning: a NaN residual must not pass for a small one. */
struct MaxNan {
    __device__ double operator()(double a, double b) const { return a > b || isnan(a) ? a : b; }
};

/* Per column of m (n x cols, ld n): inf[j] = max |m_ij|, and where asked one[j] = sum |m_ij| and
 * scale[j] = inf[j], or 1 when that is 0 or not finite. A block a column. */
__global__ void column_norms(const double *m, int64_t n, int64_t cols, double *inf, double *one, double *scale) {
    typedef cub::BlockReduce<double, THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    for (int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
        double big = 0, sum = 0;
        for (int64_t i = threadIdx.x; i < n; i += THREADS) {
            const double v = fabs(m[i + j * n]);
            big = v > big || isnan(v) ? v : big;
            sum += v;
        }
        big = Reduce(tmp).Reduce(big, MaxNan());
        __syncthreads();
        if (one) sum = Reduce(tmp).Sum(sum);
        __syncthreads();
        if (threadIdx.x == 0) {
            inf[j] = big;
            if (one) one[j] = sum;
            if (scale) scale[j] = big > 0 && isfinite(big) ? big : 1.0;
        }
    }
}

dim3 grid_of(int64_t n, int64_t cols) {
    return dim3((unsigned)((n + THREADS - 1) / THREADS < 128 ? (n + THREADS - 1) / THREADS : 128),
                (unsigned)(cols < 65535 ? cols : 65535));
}

unsigned columns_grid(int64_t cols) { return (unsigned)(cols < 65535 ? cols : 65535); }

/* r = [b, (1/n, ...)] */
void reload_r(gpu_mixed *m, cudaStream_t s) {
    const minv_mat *b = m->b;
    if (b->dtype == MINV_R64)
        load_b<double><<<grid_of(m->e.n, m->cols), THREADS, 0, s>>>((const double *)b->data, b->ld, m->e.n, m->e.nrhs, m->r);
    else
        load_b<float><<<grid_of(m->e.n, m->cols), THREADS, 0, s>>>((const float *)b->data, b->ld, m->e.n, m->e.nrhs, m->r);
}

/* r = b - A x, its norms and the next step's scales, and the backward errors of the caller's
 * columns. */
minv_status residual(gpu_mixed *m, double *berr) {
    minv_context *ctx = m->e.ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = m->e.n, cols = m->cols;
    const cudaStream_t s = g->stream;
    reload_r(m, s);
    LAUNCH_TRY();
    CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, cols, n, -1.0, (const double *)m->ad.data, m->ad.ld,
                         m->xw, n, 1.0, m->r, n));
    column_norms<<<columns_grid(cols), THREADS, 0, s>>>(m->r, n, cols, m->norms, NULL, m->norms + 2 * cols);
    column_norms<<<columns_grid(cols), THREADS, 0, s>>>(m->xw, n, cols, m->norms + cols, NULL, NULL);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(m->host, m->norms, 2 * (size_t)cols * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    for (int64_t j = 0; j < m->e.nrhs; j++) {
        const double rn = m->host[j], xn = m->host[cols + j], bn = m->host[2 * cols + j];
        berr[j] = rn == 0 ? 0 : rn / (m->anorm_inf * xn + bn);
    }
cleanup:
    return status;
}

minv_status factor(minv_refine_engine *eng, int level) {
    gpu_mixed *m = (gpu_mixed *)eng;
    minv_context *ctx = eng->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t n = eng->n;
    m->level = level;
    minv_k_convert<double, float>((const double *)m->ad.data, m->ad.ld, (float *)m->f.data, n, n, n, ctx->gpu->stream);
    LAUNCH_TRY();
    status = minv_gpu_lowp_factor(ctx, &m->f, m->lu, level, m->ipiv);
    if (status == MINV_ERR_NOT_SPD && level == eng->levels - 1) {
        /* rounding can take a positive definite A of condition near 1/u past the edge: pivoted
         * LU still factors it */
        minv_report_note(m->report, "%s Cholesky broke down (condition near 1e7, or A indefinite), so %s LU",
                         eng->level_names[level], eng->level_names[level]);
        minv_clear_error(ctx);
        m->report->method = MINV_METHOD_LU;
        m->lu = 1;
        minv_k_convert<double, float>((const double *)m->ad.data, m->ad.ld, (float *)m->f.data, n, n, n,
                                      ctx->gpu->stream);
        LAUNCH_TRY();
        status = minv_gpu_lowp_factor(ctx, &m->f, 1, level, m->ipiv);
    }
    if (status != MINV_SUCCESS) goto cleanup;
    if (m->lu) MINV_TRY(minv_gpu_pivot_permutation(ctx, m->ipiv, n, m->perm));
    MINV_TRY(minv_gpu_triangle_blocks(ctx, &m->f, m->lu, 0, SOLVE_NB, m->blocks[0]));
    if (m->lu) MINV_TRY(minv_gpu_triangle_blocks(ctx, &m->f, m->lu, 1, SOLVE_NB, m->blocks[1]));
cleanup:
    return status;
}

minv_status reset(minv_refine_engine *eng) {
    gpu_mixed *m = (gpu_mixed *)eng;
    minv_context *ctx = eng->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = eng->n, cols = m->cols;
    const cudaStream_t s = g->stream;
    CUDA_TRY(cudaMemsetAsync(m->xw, 0, (size_t)n * (size_t)cols * sizeof(double), s));
    reload_r(m, s);
    column_norms<<<columns_grid(cols), THREADS, 0, s>>>(m->r, n, cols, m->norms, m->norms + 3 * cols,
                                                         m->norms + 2 * cols);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(m->host + 2 * cols, m->norms, (size_t)cols * sizeof(double), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaMemcpyAsync(m->host + 3 * cols, m->norms + 3 * cols, (size_t)cols * sizeof(double),
                             cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
cleanup:
    return status;
}

minv_status step(minv_refine_engine *eng, double *berr) {
    gpu_mixed *m = (gpu_mixed *)eng;
    minv_context *ctx = eng->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = eng->n, cols = m->cols;
    const cudaStream_t s = g->stream;
    minv_mat w = {MINV_R32, n, cols, n, m->w};
    to_low<<<grid_of(n, cols), THREADS, 0, s>>>(m->r, n, cols, m->lu ? m->perm : NULL, m->norms + 2 * cols, m->w);
    LAUNCH_TRY();
    /* the corrections at the factors' precision: TF32 products beside TF32 factors */
    if (m->level == MINV_LOWP_TF32) CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_TF32_TENSOR_OP_MATH));
    status = minv_gpu_triangle_solve(ctx, &m->f, m->lu, 0, SOLVE_NB, m->blocks[0], &w, m->leaf);
    if (status == MINV_SUCCESS)
        status = minv_gpu_triangle_solve(ctx, &m->f, m->lu, 1, SOLVE_NB, m->blocks[m->lu], &w, m->leaf);
    CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
    if (status != MINV_SUCCESS) goto cleanup;
    add_correction<<<grid_of(n, cols), THREADS, 0, s>>>(m->xw, m->w, m->norms + 2 * cols, n, cols);
    LAUNCH_TRY();
    MINV_TRY(residual(m, berr));
cleanup:
    return status;
}

template <typename T> void store(const gpu_mixed *m, cudaStream_t s) {
    minv_k_convert<double, T>(m->xw, m->e.n, (T *)m->x->data, m->x->ld, m->e.n, m->e.nrhs, s);
}

minv_status finish(minv_refine_engine *eng, double *rcond, double *berr) {
    gpu_mixed *m = (gpu_mixed *)eng;
    minv_context *ctx = eng->ctx;
    minv_status status = MINV_SUCCESS;
    const int64_t n = eng->n, cols = m->cols;
    const cudaStream_t s = ctx->gpu->stream;
    column_norms<<<columns_grid(cols), THREADS, 0, s>>>(m->xw, n, cols, m->norms + cols, m->norms + 3 * cols, NULL);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(m->host + cols, m->norms + 3 * cols, (size_t)cols * sizeof(double), cudaMemcpyDeviceToHost,
                             s));
    CUDA_TRY(cudaStreamSynchronize(s));
    *rcond = minv_rcond_lower_bound(cols, m->host + cols, m->host + 3 * cols, m->anorm_1);
    if (m->x->dtype == MINV_R32) { /* the caller gets x rounded: report that one's backward error */
        round_to_float<<<1024, THREADS, 0, s>>>(m->xw, n * m->e.nrhs);
        LAUNCH_TRY();
        MINV_TRY(residual(m, berr)); /* before x is written: b may be x */
        store<float>(m, s);
    } else {
        store<double>(m, s);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

size_t aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

minv_status solve(minv_context *ctx, int lu, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                  minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, k = b->cols, cols = k + 1;
    const size_t blocks = aligned(minv_gpu_triangle_blocks_bytes(MINV_R32, n, SOLVE_NB));
    gpu_mixed m = {};
    m.e.ctx = ctx;
    m.e.n = n;
    m.e.nrhs = k;
    m.e.levels = MINV_LOWP_LEVELS;
    m.e.level_names[MINV_LOWP_TF32] = "TF32";
    m.e.level_names[MINV_LOWP_TF32X3] = "3xTF32";
    m.e.factor = factor;
    m.e.reset = reset;
    m.e.step = step;
    m.e.finish = finish;
    m.b = b;
    m.x = x;
    m.report = report;
    m.lu = lu;
    m.cols = cols;
    m.anorm_inf = an->norm_inf;
    m.anorm_1 = an->norm_1;
    m.host = (double *)malloc(4 * (size_t)cols * sizeof(double));
    if (!m.host) return minv_fail(ctx, MINV_ERR_ALLOC, "mixed precision: cannot allocate %lld norms", (long long)cols);
    {
        /* the factors; A in double for float data; r and x; w, the blocks, pivots and norms */
        const int slots[4] = {WS_B, WS_E, WS_F, WS_G};
        const size_t vec = (size_t)n * (size_t)cols;
        const size_t bytes[4] = {(size_t)n * (size_t)n * sizeof(float),
                                 a->dtype == MINV_R32 ? (size_t)n * (size_t)n * sizeof(double) : 1,
                                 2 * vec * sizeof(double),
                                 aligned(vec * sizeof(float)) + 2 * blocks + aligned(2 * (size_t)n * sizeof(int64_t)) +
                                     aligned((size_t)SOLVE_NB * (size_t)cols * sizeof(float)) +
                                     4 * (size_t)cols * sizeof(double)};
        void *p[4];
        MINV_TRY(minv_gpu_reserve(ctx, 4, slots, bytes, p));
        m.f = (minv_mat){MINV_R32, n, n, n, p[0]};
        if (a->dtype == MINV_R64) {
            m.ad = *a;
        } else {
            m.ad = (minv_mat){MINV_R64, n, n, n, p[1]};
            minv_k_convert<float, double>((const float *)a->data, a->ld, (double *)p[1], n, n, n, ctx->gpu->stream);
            LAUNCH_TRY();
        }
        m.r = (double *)p[2];
        m.xw = m.r + vec;
        char *q = (char *)p[3];
        m.w = (float *)q;
        q += aligned(vec * sizeof(float));
        m.blocks[0] = q;
        m.blocks[1] = q + blocks;
        q += 2 * blocks;
        m.ipiv = (int64_t *)q;
        m.perm = m.ipiv + n;
        q += aligned(2 * (size_t)n * sizeof(int64_t));
        m.leaf = (float *)q;
        q += aligned((size_t)SOLVE_NB * (size_t)cols * sizeof(float));
        m.norms = (double *)q;
    }
    status = minv_refine(ctx, &m.e, report);
cleanup:
    free(m.host);
    return status;
}

} // namespace

minv_status minv_gpu_cholesky_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                          const minv_analysis *an, minv_report *r) {
    return solve(ctx, 0, a, b, x, an, r);
}

minv_status minv_gpu_lu_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *r) {
    return solve(ctx, 1, a, b, x, an, r);
}
