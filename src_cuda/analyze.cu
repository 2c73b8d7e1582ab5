// Matrix analysis on the GPU (the iterative paper's matrix type identification, norms and
// more): per-column statistics by one warp a column, symmetry by transposed tile pairs, and
// row sums from those tile pairs for a whole matrix (out of core by a tiled reduction whose
// partial sums meet atomically): two reads of the matrix. The same kernels run on a
// whole device matrix or, out of core, on column panels streamed from host memory.
#include <cub/block/block_reduce.cuh>
#include <limits.h>
#include <stdlib.h>

#include "gpu.h"

namespace {

constexpr int THREADS = 256, ROW_CHUNK = 64, TILE = 32, TILE_ROWS = 8;

struct Max {
    template <typename T> __device__ T operator()(const T &a, const T &b) const { return a > b ? a : b; }
};
struct Min {
    template <typename T> __device__ T operator()(const T &a, const T &b) const { return a < b ? a : b; }
};

/* The reductions, on the device. */
struct scan_state {
    double max_colsum, max_abs, max_asym;
    minv_sumsq sumsq;
    unsigned long long first_bad, lower_bw, upper_bw;
};

__device__ inline void atomic_max_nonneg(double *addr, double v) {
    atomicMax(reinterpret_cast<unsigned long long *>(addr), (unsigned long long)__double_as_longlong(v));
}

/* Reductions across a warp (every lane gets the result). */
template <typename V, typename Op> __device__ V warp_reduce(V v, Op op) {
    for (int d = 16; d > 0; d /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
}
struct Sum {
    template <typename V> __device__ V operator()(const V &a, const V &b) const { return a + b; }
};

/* One warp a column (THREADS / 32 columns a block, lanes reading consecutive rows): the
 * column's sums meet by shuffles, not by block-wide reductions and their barriers, which held
 * the analysis of order 16384 at about a third of the memory's rate. */
template <typename T>
__global__ void column_stats(const T *a, int64_t n, int64_t cols, int64_t ld, int64_t j0, scan_state *st,
                             double *diag) {
    constexpr int WARPS = THREADS / 32;
    const int lane = threadIdx.x % 32;
    for (int64_t jj = (int64_t)blockIdx.x * WARPS + threadIdx.x / 32; jj < cols; jj += (int64_t)gridDim.x * WARPS) {
        const int64_t j = j0 + jj;
        const T *col = a + jj * ld;
        double colsum = 0, max_abs = 0;
        minv_sumsq sq = {0, 0, 0};
        long long first_bad = LLONG_MAX, first_nz = LLONG_MAX, last_nz = -1;
        for (int64_t i = lane; i < n; i += 32) {
            double v = (double)col[i], av = fabs(v);
            colsum += av;
            max_abs = fmax(max_abs, av);
            minv_sumsq_add(&sq, v);
            if (!isfinite(v) && i < first_bad) first_bad = i;
            if (v != 0) {
                if (i < first_nz) first_nz = i;
                last_nz = i;
            }
        }
        colsum = warp_reduce(colsum, Sum());
        max_abs = warp_reduce(max_abs, Max());
        sq.small = warp_reduce(sq.small, Sum());
        sq.medium = warp_reduce(sq.medium, Sum());
        sq.big = warp_reduce(sq.big, Sum());
        first_bad = warp_reduce(first_bad, Min());
        first_nz = warp_reduce(first_nz, Min());
        last_nz = warp_reduce(last_nz, Max());
        if (lane == 0) {
            atomic_max_nonneg(&st->max_colsum, colsum);
            atomic_max_nonneg(&st->max_abs, max_abs);
            atomicAdd(&st->sumsq.small, sq.small);
            atomicAdd(&st->sumsq.medium, sq.medium);
            atomicAdd(&st->sumsq.big, sq.big);
            if (first_bad != LLONG_MAX) atomicMin(&st->first_bad, (unsigned long long)(j * n + first_bad));
            if (last_nz >= 0) {
                if (j > first_nz) atomicMax(&st->upper_bw, (unsigned long long)(j - first_nz));
                if (last_nz > j) atomicMax(&st->lower_bw, (unsigned long long)(last_nz - j));
            }
            if (j < n) diag[j] = (double)col[j];
        }
    }
}

/* Thread per row, ROW_CHUNK columns per block row of the grid; partial sums meet atomically. */
template <typename T>
__global__ void row_sums(const T *a, int64_t n, int64_t cols, int64_t ld, double *rowsum) {
    int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= n) return;
    int64_t c0 = (int64_t)blockIdx.y * ROW_CHUNK, c1 = c0 + ROW_CHUNK < cols ? c0 + ROW_CHUNK : cols;
    double s = 0;
    for (int64_t c = c0; c < c1; c++) s += fabs((double)a[c * ld + i]);
    atomicAdd(&rowsum[i], s);
}

/* max |X(i, j) - Y(j, i)| for X m x w and Y w x m, through two tiles in shared memory. Where
 * X and Y are one square matrix (mirrored), the tiles on and below the diagonal meet every pair:
 * the others return at once, the check reads the matrix once instead of twice, and the row sums
 * of |a_ij| come from the same tiles (rowsum not NULL), both tiles' rows, instead of another
 * pass. */
template <typename T>
__global__ void asymmetry(const T *x, int64_t ldx, const T *y, int64_t ldy, int64_t m, int64_t w, bool mirrored,
                          scan_state *st, double *rowsum) {
    __shared__ T tx[TILE][TILE + 1], ty[TILE][TILE + 1];
    __shared__ double part[2][TILE_ROWS][TILE];
    if (mirrored && blockIdx.x < blockIdx.y)
        return;
    int64_t i0 = (int64_t)blockIdx.x * TILE, j0 = (int64_t)blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += TILE_ROWS) {
        int64_t i = i0 + threadIdx.x, j = j0 + r; /* X(i, j) */
        tx[r][threadIdx.x] = i < m && j < w ? x[j * ldx + i] : T(0);
        int64_t yi = j0 + threadIdx.x, yj = i0 + r; /* Y(yi, yj) */
        ty[r][threadIdx.x] = yi < w && yj < m ? y[yj * ldy + yi] : T(0);
    }
    __syncthreads();
    double worst = 0, row_x = 0, row_y = 0;
    for (int r = threadIdx.y; r < TILE; r += TILE_ROWS) { /* X(i0 + x, j0 + r) vs Y(j0 + r, i0 + x) */
        worst = fmax(worst, fabs((double)tx[r][threadIdx.x] - (double)ty[threadIdx.x][r]));
        row_x += fabs((double)tx[r][threadIdx.x]); /* row i0 + x */
        row_y += fabs((double)ty[r][threadIdx.x]); /* row j0 + x, Y(j0 + x, i0 + r) */
    }
    if (mirrored && rowsum) {
        part[0][threadIdx.y][threadIdx.x] = row_x;
        part[1][threadIdx.y][threadIdx.x] = row_y;
        __syncthreads();
        if (threadIdx.y < 2 && (threadIdx.y == 0 || blockIdx.x != blockIdx.y)) { /* a diagonal tile's rows once */
            double sum = 0;
            for (int k = 0; k < TILE_ROWS; k++) sum += part[threadIdx.y][k][threadIdx.x];
            const int64_t row = (threadIdx.y == 0 ? i0 : j0) + threadIdx.x;
            if (row < m)
                atomicAdd(&rowsum[row], sum);
        }
    }
    typedef cub::BlockReduce<double, TILE, cub::BLOCK_REDUCE_WARP_REDUCTIONS, TILE_ROWS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    worst = Reduce(tmp).Reduce(worst, Max());
    if (threadIdx.x == 0 && threadIdx.y == 0 && worst > 0) atomic_max_nonneg(&st->max_asym, worst);
}

/* Column statistics of a panel, and its row sums where rowsum is not NULL (out of core; a whole
 * matrix gets them from its symmetry check). */
template <typename T>
void launch_panel_stats(const minv_mat *panel, int64_t n, int64_t j0, scan_state *st, double *rowsum, double *diag,
                        cudaStream_t s) {
    const T *a = (const T *)panel->data;
    const int64_t per_block = THREADS / 32, wanted = (panel->cols + per_block - 1) / per_block;
    const unsigned blocks = (unsigned)(wanted < 65535 ? (wanted > 0 ? wanted : 1) : 65535);
    column_stats<T><<<blocks, THREADS, 0, s>>>(a, n, panel->cols, panel->ld, j0, st, diag);
    if (!rowsum)
        return;
    dim3 grid((unsigned)((n + THREADS - 1) / THREADS), (unsigned)((panel->cols + ROW_CHUNK - 1) / ROW_CHUNK));
    row_sums<T><<<grid, THREADS, 0, s>>>(a, n, panel->cols, panel->ld, rowsum);
}

/* rowsum: a whole matrix's row sums from the same tiles (x and y the same matrix), else NULL. */
template <typename T>
void launch_asymmetry(const void *x, int64_t ldx, const void *y, int64_t ldy, int64_t m, int64_t w, scan_state *st,
                      double *rowsum, cudaStream_t s) {
    dim3 grid((unsigned)((m + TILE - 1) / TILE), (unsigned)((w + TILE - 1) / TILE));
    asymmetry<T><<<grid, dim3(TILE, TILE_ROWS), 0, s>>>((const T *)x, ldx, (const T *)y, ldy, m, w, x == y && m == w,
                                                        st, rowsum);
}

/* Device state of one analysis: the reductions and two n-vectors, contiguous (the state, then
 * from byte STATE_BYTES the row sums and the diagonal), so that one copy brings them back. */
constexpr size_t STATE_BYTES = 256;
static_assert(sizeof(scan_state) <= STATE_BYTES, "the state precedes the vectors");
struct analysis_buffers {
    scan_state *st;
    double *rowsum, *diag;
};

__global__ void clear_state(scan_state *st, double *vectors, int64_t count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        scan_state init = {};
        init.first_bad = ULLONG_MAX;
        *st = init;
    }
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += (int64_t)gridDim.x * blockDim.x)
        vectors[k] = 0;
}

/* One launch clears it all: a pageable copy of the initial state and a memset cost two driver
 * calls more (an analysis of order 256 took 0.10 ms on an H100, most of it such fixed costs). */
minv_status begin(minv_context *ctx, int64_t n, analysis_buffers *b) {
    minv_status status = MINV_SUCCESS;
    const int slot = WS_SMALL;
    const size_t bytes = STATE_BYTES + 2 * (size_t)n * sizeof(double);
    void *p;
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &p));
    b->st = (scan_state *)p;
    b->rowsum = (double *)((char *)p + STATE_BYTES);
    b->diag = b->rowsum + n;
    {
        const int64_t blocks = (2 * n + THREADS - 1) / THREADS;
        clear_state<<<(unsigned)(blocks < 1024 ? (blocks > 0 ? blocks : 1) : 1024), THREADS, 0, ctx->gpu->stream>>>(
            b->st, b->rowsum, 2 * n);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

/* The state and both vectors back in one copy. */
minv_status finish(minv_context *ctx, minv_dtype dtype, int64_t n, const analysis_buffers *b, minv_analysis *out) {
    minv_status status = MINV_SUCCESS;
    minv_scan_totals t;
    void *host;
    MINV_TRY(minv_gpu_read_back(ctx, b->st, STATE_BYTES + 2 * (size_t)n * sizeof(double), &host));
    {
        const scan_state *st = (const scan_state *)host;
        const double *vectors = (const double *)((const char *)host + STATE_BYTES);
        t.max_colsum = st->max_colsum;
        t.max_abs = st->max_abs;
        t.sumsq = st->sumsq;
        t.first_bad = st->first_bad == ULLONG_MAX ? INT64_MAX : (int64_t)st->first_bad;
        t.lower_bw = (int64_t)st->lower_bw;
        t.upper_bw = (int64_t)st->upper_bw;
        minv_analysis_assemble(ctx, dtype, n, &t, vectors, vectors + n, st->max_asym, out);
    }
cleanup:
    return status;
}

/* Out of core: each column panel also meets its row panel, packed on the host, for symmetry. */
struct ooc_job {
    const minv_mat *host;
    analysis_buffers *b;
};

minv_status ooc_panel(minv_context *ctx, const minv_mat *panel, int64_t j0, cudaStream_t s, int buffer, void *dev_rows,
                      void *user) {
    ooc_job *job = (ooc_job *)user;
    const minv_mat *host = job->host;
    const int64_t n = host->rows, w = panel->cols;
    const size_t es = (size_t)host->dtype, bytes = (size_t)w * (size_t)n * es;
    const int threads = minv_threads_for(ctx->cpu_threads, (double)w * (double)n); /* only where worth them */
    minv_status status = MINV_SUCCESS;
    void *pinned_rows;
    if (host->dtype == MINV_R64)
        launch_panel_stats<double>(panel, n, j0, job->b->st, job->b->rowsum, job->b->diag, s);
    else
        launch_panel_stats<float>(panel, n, j0, job->b->st, job->b->rowsum, job->b->diag, s);
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_pinned(ctx, PIN_AUX + buffer, bytes, &pinned_rows));
    /* rows j0 .. j0+w of every column, dense w x n */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t i = 0; i < n; i++)
        memcpy((char *)pinned_rows + (size_t)i * (size_t)w * es, minv_at(host, j0, i), (size_t)w * es);
    CUDA_TRY(cudaMemcpyAsync(dev_rows, pinned_rows, bytes, cudaMemcpyHostToDevice, s));
    if (host->dtype == MINV_R64)
        launch_asymmetry<double>(panel->data, panel->ld, dev_rows, w, n, w, job->b->st, NULL, s);
    else
        launch_asymmetry<float>(panel->data, panel->ld, dev_rows, w, n, w, job->b->st, NULL, s);
    LAUNCH_TRY();
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_analyze_device(minv_context *ctx, const minv_mat *a, minv_analysis *out) {
    minv_status status = MINV_SUCCESS;
    analysis_buffers b;
    cudaStream_t s = ctx->gpu->stream;
    const int64_t n = a->rows;
    MINV_TRY(begin(ctx, n, &b));
    /* the factor that may follow, enqueued first: its side stream waits for A alone, not for the
     * kernels below (after them, potrf waited for the analysis: 39.4 ms for both at n = 16384
     * on an H100, potrf alone about 35) */
    MINV_TRY(minv_gpu_cholesky_ahead(ctx, a));
    if (a->dtype == MINV_R64) {
        launch_panel_stats<double>(a, n, 0, b.st, NULL, b.diag, s);
        launch_asymmetry<double>(a->data, a->ld, a->data, a->ld, n, n, b.st, b.rowsum, s);
    } else {
        launch_panel_stats<float>(a, n, 0, b.st, NULL, b.diag, s);
        launch_asymmetry<float>(a->data, a->ld, a->data, a->ld, n, n, b.st, b.rowsum, s);
    }
    LAUNCH_TRY();
    MINV_TRY(finish(ctx, a->dtype, n, &b, out));
cleanup:
    return status;
}

minv_status minv_gpu_analyze(minv_context *ctx, const minv_mat *a, minv_analysis *out) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    const double es = (double)a->dtype, matrix = (double)n * (double)n * es;
    if (minv_gpu_fits(ctx, matrix + 2.0 * n * 8 + 4096)) {
        void *dev;
        status = minv_gpu_stage_input(ctx, a, &dev);
        if (status == MINV_SUCCESS) {
            minv_mat d = {a->dtype, n, n, n, dev};
            return minv_gpu_analyze_device(ctx, &d, out);
        }
        if (status != MINV_ERR_DEVICE_MEMORY)
            return status;
        minv_clear_error(ctx);
    }
    /* Out of core: 2 x MINV_GPU_STREAMS panels of n x w in half the budget. */
    analysis_buffers b;
    ooc_job job = {a, &b};
    double per_col = 2.0 * MINV_GPU_STREAMS * (double)n * es;
    int64_t w = (int64_t)((double)ctx->gpu->budget / 2 / per_col);
    if (w < 1)
        return minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "device budget %.3g GB is too small to stream columns of %lld",
                         (double)ctx->gpu->budget / 1e9, (long long)n);
    if (w > n) w = n;
    MINV_TRY(begin(ctx, n, &b));
    /* the panels' kernels run on the copy streams, which do not follow the compute stream
     * that cleared the sums: without this they could add into sums not yet cleared (the
     * out-of-core flags of test_gpu differed from the CPU's now and then on H200s) */
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    /* each panel's companion: its rows j0 .. j0+w of every column, for the symmetry check */
    MINV_TRY(minv_gpu_stream_panels(ctx, a, w, (size_t)w * (size_t)n * (size_t)a->dtype, ooc_panel, &job));
    MINV_TRY(finish(ctx, a->dtype, n, &b, out));
cleanup:
    return status;
}
