// Triangular solves of a few columns in one launch: x = op(A)^-1 x, A a triangle of a Cholesky
// or LU factor, x at most MINV_GPU_NARROW_COLS columns (one right-hand side and Hager's vector
// beside it, or a condition estimate's vector).
//
// cuBLAS's TRSV, and TRSM of one column, walk the triangle a block at a time and run far below
// the rate the triangle can be read (H100: 1.25 ms a sweep at n = 16384, where reading it
// takes 0.36 ms), and each further column walks it again. Here one thread block, the chain,
// solves the diagonal blocks of order NB in turn, each as soon as the rows above it have been
// applied to it; the other blocks each apply one solved block to one block of rows below it
// (a tile's product), in parallel, as soon as the chain publishes that block. Each block of
// rows sums its tiles' products in column order (a tile waits for the one before it in its
// row), so the result is the same from run to run. The chain applies the tile just below the
// diagonal itself, the one on its critical path, and has it and the next diagonal block loaded
// while it solves the current one.
//
// Blocks take their work by a ticket (an atomic counter), not by blockIdx: the chain takes 0,
// then the tiles column by column. A tile waits only for the chain and for tiles of smaller
// tickets, and the chain only for tiles whose tickets are smaller than those of any tile that
// waits for what it has not yet solved, so a block never waits for one that cannot run.
#include "gpu.h"

namespace {

constexpr int NB = 64, THREADS = 256, PER_THREAD = NB * NB / THREADS, PAD = NB + 1;

/* The triangle as the effective lower triangle M: M(i, j) = op(A)(p(i), p(j)), p reversing the
 * order where op(A) is upper, so that x solves in the order of M's rows. */
template <typename T> struct lower_view {
    const T *a;
    int64_t lda, n;
    int reversed, transposed, unit;
    __device__ int64_t p(int64_t i) const { return reversed ? n - 1 - i : i; }
    /* tile (bi, bj)'s entry s of thread t, in an order in which a warp reads contiguous memory */
    __device__ void place(int t, int s, int *ra, int *cb) const {
        const int e = t + THREADS * s;
        *ra = transposed ? e / NB : e % NB;
        *cb = transposed ? e % NB : e / NB;
    }
    __device__ T at(int64_t i, int64_t j) const {
        if (i >= n || j >= n) return T(0);
        const int64_t r = p(i), c = p(j);
        return transposed ? a[c + r * lda] : a[r + c * lda];
    }
    __device__ void load(int64_t bi, int64_t bj, T reg[PER_THREAD]) const {
        for (int s = 0; s < PER_THREAD; s++) {
            int ra, cb;
            place(threadIdx.x, s, &ra, &cb);
            reg[s] = at(bi * NB + ra, bj * NB + cb);
        }
    }
    __device__ void commit(const T reg[PER_THREAD], T *tile) const {
        for (int s = 0; s < PER_THREAD; s++) {
            int ra, cb;
            place(threadIdx.x, s, &ra, &cb);
            tile[ra * PAD + cb] = reg[s];
        }
    }
};

/* The flags: ticket, solved (blocks the chain has published), and for each block of rows how
 * many tiles' products its sum holds. */
struct flags {
    int *ticket, *solved, *summed;
};

__device__ inline int read_flag(const int *f) { return *(const volatile int *)f; }
/* One thread waits for the flag to reach `value` (at least it, or exactly it); then the block
 * reads what was published before it. */
__device__ inline void wait_flag(const int *f, int value, bool exact) {
    if (threadIdx.x == 0)
        while (exact ? read_flag(f) != value : read_flag(f) < value) __nanosleep(32);
    __threadfence();
    __syncthreads();
}
/* Every thread's writes made visible, then the flag set. */
__device__ inline void publish(int *f, int value) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) atomicExch(f, value);
}

/* y(a, c) = tile(a, :) v(:, c) for the K columns of v, into y (NB x K) in shared memory:
 * each thread a quarter of a row, the quarters added in a fixed order. */
template <typename T, int K> __device__ void tile_product(const T *tile, const T *v, T *part, T *y) {
    const int t = threadIdx.x, a = t % NB, q = t / NB, quarter = NB / (THREADS / NB);
    T s[K];
    for (int c = 0; c < K; c++) s[c] = 0;
    for (int b = q * quarter; b < (q + 1) * quarter; b++) {
        const T m = tile[a * PAD + b];
        for (int c = 0; c < K; c++) s[c] += m * v[c * NB + b];
    }
    for (int c = 0; c < K; c++) part[(q * K + c) * NB + a] = s[c];
    __syncthreads();
    if (t < NB * K) {
        const int c = t / NB, r = t % NB;
        T sum = 0;
        for (int qq = 0; qq < THREADS / NB; qq++) sum += part[(qq * K + c) * NB + r];
        y[c * NB + r] = sum;
    }
    __syncthreads();
}

template <typename T, int K>
__device__ void chain(const lower_view<T> &m, T *x, int64_t ldx, flags f, const T *acc, T *tile, T *part, T *xs,
                      T *r, T *invd) {
    const int t = threadIdx.x, lane = t % 32, w = t / 32;
    const int64_t blocks = (m.n + NB - 1) / NB;
    T diag[PER_THREAD], below[PER_THREAD];
    m.load(0, 0, diag);
    for (int64_t bj = 0; bj < blocks; bj++) {
        const int64_t i0 = bj * NB;
        const int rows = (int)(m.n - i0 < NB ? m.n - i0 : NB);
        if (bj > 0) { /* r -= M(bj, bj-1) x(bj-1): the tile below the last diagonal block */
            m.commit(below, tile);
            __syncthreads();
            tile_product<T, K>(tile, xs, part, r);
        }
        m.commit(diag, tile);
        if (bj + 1 < blocks) { /* the next step's tiles, on their way while this one solves */
            m.load(bj + 1, bj + 1, diag);
            m.load(bj + 1, bj, below);
        }
        __syncthreads();
        if (t < NB) invd[t] = t < rows && !m.unit ? T(1) / tile[t * PAD + t] : T(1);
        if (bj >= 2) wait_flag(f.summed + bj, (int)bj - 1, true);
        else __syncthreads();
        if (t < NB * K) { /* r = (b - the tiles' sum) - the tile below the diagonal's product */
            const int c = t / NB, a = t % NB;
            T v = a < rows ? x[m.p(i0 + a) + c * ldx] : T(0);
            if (bj >= 2) v -= __ldcg(acc + (bj * K + c) * NB + a);
            if (bj > 0) v -= r[c * NB + a];
            r[c * NB + a] = v;
        }
        __syncthreads();
        if (w < K) { /* column w by one warp, two rows a lane, the solved entry broadcast */
            T r0 = r[w * NB + lane], r1 = r[w * NB + lane + 32];
            for (int s = 0; s < rows; s++) {
                const int owner = s % 32;
                const T v = __shfl_sync(0xffffffffu, s < 32 ? r0 : r1, owner) * invd[s];
                if (lane == owner) {
                    if (s < 32) r0 = v;
                    else r1 = v;
                }
                if (lane > s) r0 -= tile[lane * PAD + s] * v;
                if (lane + 32 > s) r1 -= tile[(lane + 32) * PAD + s] * v;
            }
            xs[w * NB + lane] = r0;
            xs[w * NB + lane + 32] = r1;
            if (lane < rows) x[m.p(i0 + lane) + w * ldx] = r0;
            if (lane + 32 < rows) x[m.p(i0 + lane + 32) + w * ldx] = r1;
        }
        publish(f.solved, (int)bj + 1);
    }
}

/* Tile u of the triangle below the first subdiagonal block, column by column: (bi, bj) with
 * bi >= bj + 2; S(bj) = bj (2 blocks - 3 - bj) / 2 tiles come before column bj. */
__device__ void tile_of(int64_t u, int64_t blocks, int64_t *bi, int64_t *bj) {
    const double m = 2.0 * (double)blocks - 3.0;
    int64_t j = (int64_t)((m - sqrt(fmax(m * m - 8.0 * (double)u, 0.0))) / 2.0);
    auto before = [&](int64_t c) { return c * (2 * blocks - 3 - c) / 2; };
    while (j > 0 && before(j) > u) j--;
    while (before(j + 1) <= u) j++;
    *bj = j;
    *bi = j + 2 + (u - before(j));
}

template <typename T, int K>
__device__ void apply_tile(const lower_view<T> &m, const T *x, int64_t ldx, flags f, T *acc, int64_t u, T *tile,
                           T *part, T *xs, T *y) {
    const int t = threadIdx.x;
    const int64_t blocks = (m.n + NB - 1) / NB;
    int64_t bi, bj;
    tile_of(u, blocks, &bi, &bj);
    T reg[PER_THREAD];
    m.load(bi, bj, reg);
    m.commit(reg, tile);
    wait_flag(f.solved, (int)bj + 1, false);
    if (t < NB * K) {
        const int c = t / NB, b = t % NB;
        xs[c * NB + b] = __ldcg(x + m.p(bj * NB + b) + c * ldx); /* bj <= blocks - 3: a whole block */
    }
    __syncthreads();
    tile_product<T, K>(tile, xs, part, y);
    wait_flag(f.summed + bi, (int)bj, true);
    if (t < NB * K) {
        T *sum = acc + (bi * K + t / NB) * NB + t % NB;
        __stcg(sum, bj == 0 ? y[t] : __ldcg(sum) + y[t]);
    }
    publish(f.summed + bi, (int)bj + 1);
}

template <typename T, int K>
__global__ void __launch_bounds__(THREADS, 2) narrow_solve(lower_view<T> m, T *x, int64_t ldx, flags f, T *acc) {
    __shared__ T tile[NB * PAD], part[(THREADS / NB) * K * NB], xs[K * NB], y[K * NB], invd[NB];
    __shared__ int ticket;
    if (threadIdx.x == 0) ticket = atomicAdd(f.ticket, 1);
    __syncthreads();
    if (ticket == 0) chain<T, K>(m, x, ldx, f, acc, tile, part, xs, y, invd);
    else apply_tile<T, K>(m, x, ldx, f, acc, ticket - 1, tile, part, xs, y);
}

template <typename T, int K>
void launch(const lower_view<T> &m, T *x, int64_t ldx, flags f, T *acc, int64_t units, cudaStream_t s) {
    narrow_solve<T, K><<<(unsigned)units, THREADS, 0, s>>>(m, x, ldx, f, acc);
}

template <typename T>
minv_status solve(minv_context *ctx, const minv_mat *a, cublasFillMode_t uplo, cublasOperation_t op,
                  cublasDiagType_t diag, minv_mat *x) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const cudaStream_t s = ctx->gpu->stream;
    const int64_t n = a->rows, k = x->cols, blocks = (n + NB - 1) / NB;
    const int64_t tiles = blocks >= 3 ? (blocks - 2) * (blocks - 1) / 2 : 0;
    const size_t flag_bytes = ((size_t)(2 + blocks) * sizeof(int) + 255) / 256 * 256;
    const size_t bytes = flag_bytes + (size_t)blocks * NB * (size_t)k * sizeof(T);
    const int slot = WS_SOLVER; /* the factorisation's workspace, free once it is done */
    void *p;
    const lower_view<T> m = {(const T *)a->data, a->ld, n, (uplo == CUBLAS_FILL_MODE_UPPER) != (op == CUBLAS_OP_T),
                             op == CUBLAS_OP_T, diag == CUBLAS_DIAG_UNIT};
    if (n == 0 || k == 0) return MINV_SUCCESS;
    if (k > MINV_GPU_NARROW_COLS || 1 + tiles > INT32_MAX)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "narrow triangular solve of order %lld with %lld columns", (long long)n,
                         (long long)k);
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &p));
    CUDA_TRY(cudaMemsetAsync(p, 0, (size_t)(2 + blocks) * sizeof(int), s));
    {
        int *const base = (int *)p;
        const flags f = {base, base + 1, base + 2};
        T *const acc = (T *)((char *)p + flag_bytes), *const xd = (T *)x->data;
        switch (k) {
        case 1: launch<T, 1>(m, xd, x->ld, f, acc, 1 + tiles, s); break;
        case 2: launch<T, 2>(m, xd, x->ld, f, acc, 1 + tiles, s); break;
        case 3: launch<T, 3>(m, xd, x->ld, f, acc, 1 + tiles, s); break;
        default: launch<T, 4>(m, xd, x->ld, f, acc, 1 + tiles, s); break;
        }
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_narrow_solve(minv_context *ctx, const minv_mat *a, cublasFillMode_t uplo, cublasOperation_t op,
                                  cublasDiagType_t diag, minv_mat *x) {
    return a->dtype == MINV_R64 ? solve<double>(ctx, a, uplo, op, diag, x) : solve<float>(ctx, a, uplo, op, diag, x);
}
