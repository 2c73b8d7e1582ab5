// Small kernels every GPU algorithm uses, on dense column-major device matrices, and cuBLAS
// by element type. Memory-bound: each reads and writes every element once, coalesced.
#include "gpu.h"

namespace {

constexpr int TILE = 32, ROWS = 8; // 32 x 32 tiles, 32 x 8 threads

__device__ inline void atomic_max_nonneg(double *addr, double v) {
    // Non-negative doubles order as their bit patterns (NaN above +Inf, so NaN wins).
    atomicMax(reinterpret_cast<unsigned long long *>(addr), static_cast<unsigned long long>(__double_as_longlong(v)));
}

__device__ inline double block_sum(double v, double *shared) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
    __syncthreads();
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    v = threadIdx.x < warps ? shared[threadIdx.x] : 0.0;
    if (warp == 0)
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <typename T> __global__ void set_identity_kernel(T *a, int64_t n, int64_t ld, T diag) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        if (i < n) a[j * ld + i] = i == j ? diag : T(0);
}

template <typename T> __global__ void add_diagonal_kernel(T *a, int64_t n, int64_t ld, T value) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i * ld + i] += value;
}

// Tile (ti, tj), ti >= tj, of one triangle goes transposed into tile (tj, ti) of the other,
// through shared memory so that reads and writes are both coalesced.
template <typename T> __global__ void mirror_kernel(T *a, int64_t n, int64_t ld, int lower_to_upper) {
    __shared__ T tile[TILE][TILE + 1];
    int64_t ti = blockIdx.x, tj = blockIdx.y;
    if (ti < tj) return;
    /* source tile rows r0.., columns c0..; destination its transpose */
    int64_t r0 = lower_to_upper ? ti * TILE : tj * TILE, c0 = lower_to_upper ? tj * TILE : ti * TILE;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int64_t i = r0 + threadIdx.x, j = c0 + r;
        if (i < n && j < n) tile[r][threadIdx.x] = a[j * ld + i];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int64_t i = c0 + threadIdx.x, j = r0 + r; /* destination (i, j) = source (j, i) */
        int strict = lower_to_upper ? i < j : i > j;
        if (i < n && j < n && strict) a[j * ld + i] = tile[threadIdx.x][r];
    }
}

template <typename T> __global__ void diagonal_kernel(T *a, int64_t n, int64_t ld, T *diag, int save) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (save) diag[i] = a[i * ld + i];
    else a[i * ld + i] = diag[i];
}

template <typename T>
__global__ void first_nonfinite_kernel(const T *a, int64_t rows, int64_t cols, int64_t ld, unsigned long long *out) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y)
        if (i < rows && !isfinite((double)a[j * ld + i])) atomicMin(out, (unsigned long long)(j * rows + i));
}

template <typename Tin, typename Tout>
__global__ void convert_kernel(const Tin *in, int64_t ldin, Tout *out, int64_t ldout, int64_t rows, int64_t cols) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y)
        if (i < rows) out[j * ldout + i] = static_cast<Tout>(in[j * ldin + i]);
}

// sum_i |col_i| by the whole block (the result in thread 0).
template <typename T> __device__ double column_abs_sum(const T *col, int64_t rows, double *shared) {
    double s = 0;
    for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) s += fabs((double)col[i]);
    return block_sum(s, shared);
}

// One block a column: sum of |a_ij|, then the max over columns by atomic.
template <typename T> __global__ void norm1_kernel(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out) {
    __shared__ double shared[32];
    for (int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
        const double s = column_abs_sum(a + j * ld, rows, shared);
        if (threadIdx.x == 0) atomic_max_nonneg(out, s);
    }
}

// One block a column: out[j] = sum |a_ij|.
template <typename T> __global__ void column_norms1_kernel(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out) {
    __shared__ double shared[32];
    for (int64_t j = blockIdx.x; j < cols; j += gridDim.x) {
        const double s = column_abs_sum(a + j * ld, rows, shared);
        if (threadIdx.x == 0) out[j] = s;
    }
}

// One block: *out = min |a_ii| (NaN if any is NaN).
template <typename T> __global__ void min_abs_diagonal_kernel(const T *a, int64_t n, int64_t ld, double *out) {
    __shared__ double shared[32];
    double m = INFINITY;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
        const double d = fabs((double)a[i * (ld + 1)]);
        m = d < m || d != d ? d : m;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const double other = __shfl_down_sync(0xffffffffu, m, o);
        m = other < m || other != other ? other : m;
    }
    if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x + 31) / 32; w++) m = shared[w] < m || shared[w] != shared[w] ? shared[w] : m;
        *out = m;
    }
}

template <typename T> __global__ void fill_kernel(T *p, int64_t count, T value) {
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (int64_t)gridDim.x * blockDim.x)
        p[k] = value;
}

template <typename T>
__global__ void identity_residual_kernel(const T *p, int64_t rows, int64_t cols, int64_t ld, int64_t row0,
                                         int64_t col0, double *out) {
    __shared__ double shared[32];
    double s = 0;
    for (int64_t j = blockIdx.x; j < cols; j += gridDim.x)
        for (int64_t i = threadIdx.x; i < rows; i += blockDim.x) {
            double d = (double)p[j * ld + i] - (row0 + i == col0 + j ? 1.0 : 0.0);
            s += d * d;
        }
    s = block_sum(s, shared);
    if (threadIdx.x == 0) atomicAdd(out, s);
}

template <typename T> __global__ void diagonal_inverse_kernel(const T *a, int64_t n, int64_t lda, T *dst, int64_t ld) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        if (i < n) dst[j * ld + i] = i == j ? T(1) / a[i * lda + i] : T(0);
}

template <typename T>
__global__ void transpose_kernel(const T *a, int64_t rows, int64_t cols, int64_t lda, T *out, int64_t ldout, T alpha) {
    __shared__ T tile[TILE][TILE + 1];
    int64_t i0 = (int64_t)blockIdx.x * TILE, j0 = (int64_t)blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int64_t i = i0 + threadIdx.x, j = j0 + r;
        if (i < rows && j < cols) tile[r][threadIdx.x] = a[j * lda + i];
    }
    __syncthreads();
    // out is cols x rows: out(j, i) = alpha a(i, j)
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        int64_t oi = j0 + threadIdx.x, oj = i0 + r;
        if (oi < cols && oj < rows) out[oj * ldout + oi] = alpha * tile[threadIdx.x][r];
    }
}

// Rows across threads (coalesced), columns split in chunks across blockIdx.y, partial sums
// added atomically; y and rowabs must start at zero.
template <typename T>
__global__ void gemv_double_kernel(const T *a, int64_t rows, int64_t cols, int64_t ld, const double *x,
                                   double *y, double *rowabs, int64_t chunk) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    int64_t j0 = (int64_t)blockIdx.y * chunk, j1 = j0 + chunk < cols ? j0 + chunk : cols;
    double s = 0, sa = 0;
    for (int64_t j = j0; j < j1; j++) {
        double v = (double)a[j * ld + i];
        s += v * x[j];
        sa += fabs(v);
    }
    atomicAdd(&y[i], s);
    if (rowabs) atomicAdd(&rowabs[i], sa);
}

inline unsigned grid_y(int64_t cols) { return (unsigned)(cols < 65535 ? cols : 65535); }

} // namespace

template <typename T> void minv_k_set_identity(T *a, int64_t n, int64_t ld, T diag, cudaStream_t s) {
    set_identity_kernel<<<dim3((unsigned)((n + 255) / 256), grid_y(n)), 256, 0, s>>>(a, n, ld, diag);
}

template <typename T> void minv_k_add_diagonal(T *a, int64_t n, int64_t ld, T value, cudaStream_t s) {
    add_diagonal_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(a, n, ld, value);
}

template <typename T> void minv_k_mirror(T *a, int64_t n, int64_t ld, int lower_to_upper, cudaStream_t s) {
    unsigned tiles = (unsigned)((n + TILE - 1) / TILE);
    mirror_kernel<<<dim3(tiles, tiles), dim3(TILE, ROWS), 0, s>>>(a, n, ld, lower_to_upper);
}

template <typename T> void minv_k_diagonal(T *a, int64_t n, int64_t ld, T *diag, int save, cudaStream_t s) {
    diagonal_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(a, n, ld, diag, save);
}

template <typename T>
void minv_k_first_nonfinite(const T *a, int64_t rows, int64_t cols, int64_t ld, unsigned long long *out, cudaStream_t s) {
    first_nonfinite_kernel<<<dim3((unsigned)((rows + 255) / 256), grid_y(cols)), 256, 0, s>>>(a, rows, cols, ld, out);
}

template <typename Tin, typename Tout>
void minv_k_convert(const Tin *in, int64_t ldin, Tout *out, int64_t ldout, int64_t rows, int64_t cols, cudaStream_t s) {
    convert_kernel<<<dim3((unsigned)((rows + 255) / 256), grid_y(cols)), 256, 0, s>>>(in, ldin, out, ldout, rows, cols);
}

template <typename T>
void minv_k_norm1(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out, cudaStream_t s) {
    cudaMemsetAsync(out, 0, sizeof(double), s);
    norm1_kernel<<<(unsigned)(cols < 65535 ? cols : 65535), 256, 0, s>>>(a, rows, cols, ld, out);
}

template <typename T>
void minv_k_column_norms1(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out, cudaStream_t s) {
    if (cols > 0) column_norms1_kernel<<<(unsigned)(cols < 65535 ? cols : 65535), 256, 0, s>>>(a, rows, cols, ld, out);
}

template <typename T> void minv_k_min_abs_diagonal(const T *a, int64_t n, int64_t ld, double *out, cudaStream_t s) {
    min_abs_diagonal_kernel<<<1, 1024, 0, s>>>(a, n, ld, out);
}

template <typename T> void minv_k_fill(T *p, int64_t count, T value, cudaStream_t s) {
    if (count > 0) fill_kernel<<<(unsigned)((count + 255) / 256 < 4096 ? (count + 255) / 256 : 4096), 256, 0, s>>>(p, count, value);
}

template <typename T>
void minv_k_identity_residual_tile(const T *p, int64_t rows, int64_t cols, int64_t ld, int64_t row0, int64_t col0,
                                   double *out, cudaStream_t s) {
    identity_residual_kernel<<<(unsigned)(cols < 4096 ? cols : 4096), 256, 0, s>>>(p, rows, cols, ld, row0, col0, out);
}

template <typename T>
void minv_k_identity_residual(const T *p, int64_t n, int64_t ld, double *out, cudaStream_t s) {
    cudaMemsetAsync(out, 0, sizeof(double), s);
    minv_k_identity_residual_tile<T>(p, n, n, ld, 0, 0, out, s);
}

template <typename T> void minv_k_diagonal_inverse(const T *a, int64_t n, int64_t lda, T *dst, int64_t ld, cudaStream_t s) {
    diagonal_inverse_kernel<<<dim3((unsigned)((n + 255) / 256), grid_y(n)), 256, 0, s>>>(a, n, lda, dst, ld);
}

template <typename T>
void minv_k_transpose(const T *a, int64_t rows, int64_t cols, int64_t lda, T *out, int64_t ldout, T alpha, cudaStream_t s) {
    dim3 grid((unsigned)((rows + TILE - 1) / TILE), (unsigned)((cols + TILE - 1) / TILE));
    transpose_kernel<<<grid, dim3(TILE, ROWS), 0, s>>>(a, rows, cols, lda, out, ldout, alpha);
}

template <typename T>
void minv_k_gemv_double(const T *a, int64_t rows, int64_t cols, int64_t ld, const double *x, double *y,
                        double *rowabs, cudaStream_t s) {
    const int64_t chunk = 256;
    cudaMemsetAsync(y, 0, sizeof(double) * rows, s);
    if (rowabs) cudaMemsetAsync(rowabs, 0, sizeof(double) * rows, s);
    dim3 grid((unsigned)((rows + 255) / 256), (unsigned)((cols + chunk - 1) / chunk));
    gemv_double_kernel<<<grid, 256, 0, s>>>(a, rows, cols, ld, x, y, rowabs, chunk);
}

#define INSTANTIATE(T)                                                                               \
    template void minv_k_set_identity<T>(T *, int64_t, int64_t, T, cudaStream_t);                    \
    template void minv_k_add_diagonal<T>(T *, int64_t, int64_t, T, cudaStream_t);                    \
    template void minv_k_mirror<T>(T *, int64_t, int64_t, int, cudaStream_t);                        \
    template void minv_k_diagonal<T>(T *, int64_t, int64_t, T *, int, cudaStream_t);                 \
    template void minv_k_first_nonfinite<T>(const T *, int64_t, int64_t, int64_t, unsigned long long *, cudaStream_t); \
    template void minv_k_norm1<T>(const T *, int64_t, int64_t, int64_t, double *, cudaStream_t);   \
    template void minv_k_column_norms1<T>(const T *, int64_t, int64_t, int64_t, double *, cudaStream_t); \
    template void minv_k_min_abs_diagonal<T>(const T *, int64_t, int64_t, double *, cudaStream_t); \
    template void minv_k_fill<T>(T *, int64_t, T, cudaStream_t); \
    template void minv_k_identity_residual<T>(const T *, int64_t, int64_t, double *, cudaStream_t); \
    template void minv_k_identity_residual_tile<T>(const T *, int64_t, int64_t, int64_t, int64_t, int64_t, double *, cudaStream_t); \
    template void minv_k_diagonal_inverse<T>(const T *, int64_t, int64_t, T *, int64_t, cudaStream_t); \
    template void minv_k_gemv_double<T>(const T *, int64_t, int64_t, int64_t, const double *, double *, double *, cudaStream_t); \
    template void minv_k_transpose<T>(const T *, int64_t, int64_t, int64_t, T *, int64_t, T, cudaStream_t);
INSTANTIATE(double)
INSTANTIATE(float)
template void minv_k_convert<double, float>(const double *, int64_t, float *, int64_t, int64_t, int64_t, cudaStream_t);
template void minv_k_convert<float, double>(const float *, int64_t, double *, int64_t, int64_t, int64_t, cudaStream_t);
template void minv_k_convert<double, double>(const double *, int64_t, double *, int64_t, int64_t, int64_t, cudaStream_t);
template void minv_k_convert<float, float>(const float *, int64_t, float *, int64_t, int64_t, int64_t, cudaStream_t);

cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                         int64_t k, double alpha, const double *a, int64_t lda, const double *b, int64_t ldb,
                         double beta, double *c, int64_t ldc) {
    return cublasDgemm_64(h, ta, tb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}

cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                         int64_t k, double alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
                         double beta, float *c, int64_t ldc) {
    float al = (float)alpha, be = (float)beta;
    return cublasSgemm_64(h, ta, tb, m, n, k, &al, a, lda, b, ldb, &be, c, ldc);
}

cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                         double *b, int64_t ldb) {
    return cublasDtrsm_64(h, side, uplo, op, diag, m, n, &alpha, a, lda, b, ldb);
}

cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const float *a, int64_t lda,
                         float *b, int64_t ldb) {
    float al = (float)alpha;
    return cublasStrsm_64(h, side, uplo, op, diag, m, n, &al, a, lda, b, ldb);
}

namespace {

cublasStatus_t syrk_blas(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t lda, double beta, double *c, int64_t ldc) {
    return cublasDsyrk_64(h, CUBLAS_FILL_MODE_LOWER, op, n, k, &alpha, a, lda, &beta, c, ldc);
}

cublasStatus_t syrk_blas(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const float *a,
                         int64_t lda, double beta, float *c, int64_t ldc) {
    float al = (float)alpha, be = (float)beta;
    return cublasSsyrk_64(h, CUBLAS_FILL_MODE_LOWER, op, n, k, &al, a, lda, &be, c, ldc);
}

/* cuBLAS's SYRK ran at 45 TFLOP/s at n = k = 16384 on an H100, 52 at 8192 and 60 at 4096, its
 * GEMM at 64 (bench_spd blas): above SYRK_BASE the triangle is halved and the block below the
 * diagonal, half the flops, goes to one GEMM. */
const int64_t SYRK_BASE = 4096;

template <typename T>
cublasStatus_t syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const T *a,
                    int64_t lda, double beta, T *c, int64_t ldc) {
    if (n <= SYRK_BASE) return syrk_blas(h, op, n, k, alpha, a, lda, beta, c, ldc);
    const int64_t n1 = n / 2 / 128 * 128, n2 = n - n1;
    const T *a2 = op == CUBLAS_OP_N ? a + n1 : a + n1 * lda; /* the rows (columns) of op(A) after n1 */
    cublasStatus_t st;
    if ((st = syrk<T>(h, op, n1, k, alpha, a, lda, beta, c, ldc))) return st;
    /* C21 = alpha op(A)_2 op(A)_1^T + beta C21 */
    if ((st = minv_gemm(h, op, op == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N, n2, n1, k, alpha, a2, lda, a, lda, beta,
                        c + n1, ldc)))
        return st;
    return syrk<T>(h, op, n2, k, alpha, a2, lda, beta, c + n1 + n1 * ldc, ldc);
}

} // namespace

cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t lda, double beta, double *c, int64_t ldc) {
    return syrk<double>(h, op, n, k, alpha, a, lda, beta, c, ldc);
}

cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const float *a,
                         int64_t lda, double beta, float *c, int64_t ldc) {
    return syrk<float>(h, op, n, k, alpha, a, lda, beta, c, ldc);
}

cudaDataType minv_cuda_type(minv_dtype t) { return t == MINV_R64 ? CUDA_R_64F : CUDA_R_32F; }
