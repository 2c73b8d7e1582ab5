// Triangular solves of a few columns in one launch: x = op(A)^-1 x, A a triangle of a Cholesky
// or LU factor, x at most MINV_GPU_NARROW_COLS columns (one right-hand side and Hager's vector
// beside it, or a condition estimate's vector).
//
// cuBLAS's TRSV, and TRSM of one column, walk the triangle a block at a time and run far below
// the rate the triangle can be read (H100: 1.15-1.37 ms a sweep at n = 16384, where reading it
// takes 0.36 ms), and each further column walks it again. Here one thread block, the chain,
// walks the diagonal blocks of order NB, and the others work beside it:
// - first each diagonal block is inverted (W = M_jj^-1) and stored with the block below it,
//   both laid out for the chain's loads, by one block each, all at once;
// - each solved block of x is applied to each block of rows below the next (a tile's product)
//   as soon as the chain publishes it; a block of rows sums its tiles' products in column order
//   (a tile waits for the one before it in its row), so the result is the same from run to run;
// - the chain's step j is two products from registers it loaded during step j - 1:
//   x_j = W_j (b_j - the tiles' sum - M_j,j-1 x_j-1).
// One sweep of one column takes 0.74 ms at n = 16384 on an H100 (bench_narrow:
// bench/results/narrow_h100.md), a second column 0-7% more. (A chain that substituted within
// each block itself took 11.7 us a step, 6 of them in the substitution.)
//
// Blocks take their work by a ticket (an atomic counter), not by blockIdx: the chain takes 0,
// then the inversions, then the tiles column by column. A tile waits only for the chain and for
// tiles of smaller tickets, the chain only for the inversions (which wait for nothing) and for
// tiles whose tickets are smaller than those of any tile that waits for what it has not yet
// solved, so a block never waits for one that cannot run.
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

/* Thread 0 waits for the flag (to reach `value`, or to equal it) with an acquire load; the
 * barrier then orders the block's reads of what was published after it. Readers load the
 * published data through L2 (__ldcg), past their own L1. */
__device__ inline int load_acquire(const int *f) {
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(f) : "memory");
    return v;
}
__device__ inline void wait_flag(const int *f, int value, bool exact) {
    if (threadIdx.x == 0)
        while (exact ? load_acquire(f) != value : load_acquire(f) < value) __nanosleep(32);
    __syncthreads();
}
/* The block's writes, ordered by the barrier before thread 0's release of the flag (set, or
 * counted up by one). */
__device__ inline void publish(int *f, int value) {
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(f), "r"(value) : "memory");
}
__device__ inline void publish_one_more(int *f) {
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.s32 [%0], 1;" ::"l"(f) : "memory");
}

/* The chain's view of a stored 64 x 64 block (column-major, ld NB): thread t holds row t % NB,
 * columns (t / NB) * 16 ... + 15, read straight into the products it takes part in. */
template <typename T> __device__ void load_rows(const T *blk, T reg[PER_THREAD]) {
    const int a = threadIdx.x % NB, q = threadIdx.x / NB;
    for (int s = 0; s < PER_THREAD; s++) reg[s] = __ldcg(blk + a + (q * PER_THREAD + s) * NB);
}
/* y(:, c) = blk v(:, c) for the K columns of v from the registers of load_rows, v and y K x NB
 * in shared memory: each thread a quarter of a row, the quarters added in a fixed order. */
template <typename T, int K> __device__ void rows_product(const T reg[PER_THREAD], const T *v, T *part, T *y) {
    const int t = threadIdx.x, a = t % NB, q = t / NB;
    for (int c = 0; c < K; c++) {
        T s = 0;
        for (int k = 0; k < PER_THREAD; k++) s += reg[k] * v[c * NB + q * PER_THREAD + k];
        part[(q * K + c) * NB + a] = s;
    }
    __syncthreads();
    if (t < NB * K) {
        const int c = t / NB, r = t % NB;
        T sum = 0;
        for (int qq = 0; qq < THREADS / NB; qq++) sum += part[(qq * K + c) * NB + r];
        y[c * NB + r] = sum;
    }
    __syncthreads();
}
/* The same from a tile in shared memory. */
template <typename T, int K> __device__ void tile_product(const T *tile, const T *v, T *part, T *y) {
    const int a = threadIdx.x % NB, q = threadIdx.x / NB;
    T reg[PER_THREAD];
    for (int s = 0; s < PER_THREAD; s++) reg[s] = tile[a * PAD + q * PER_THREAD + s];
    rows_product<T, K>(reg, v, part, y);
}

/* The inversion of diagonal block bj, W = M_jj^-1 by rows (row i of W from the rows above it,
 * in place of M's row i), into inv + bj NB^2, and the block below it, M_j+1,j, into
 * below + bj NB^2, both column-major; rows past n get a unit diagonal. */
template <typename T>
__device__ void invert_block(const lower_view<T> &m, int64_t bj, T *inv, T *below, int *inverted, T *tile, T *part) {
    const int t = threadIdx.x, j = t % NB, q = t / NB;
    const int64_t blocks = (m.n + NB - 1) / NB;
    const int rows = (int)(m.n - bj * NB < NB ? m.n - bj * NB : NB);
    T reg[PER_THREAD];
    if (bj + 1 < blocks) {
        m.load(bj + 1, bj, reg);
        m.commit(reg, tile);
        __syncthreads();
        for (int s = 0; s < PER_THREAD; s++) { /* column-major, coalesced */
            const int e = t + THREADS * s;
            below[bj * NB * NB + e] = tile[(e % NB) * PAD + e / NB];
        }
        __syncthreads();
    }
    m.load(bj, bj, reg);
    m.commit(reg, tile);
    __syncthreads();
    for (int i = 0; i < NB; i++) {
        const T d = i >= rows || m.unit ? T(1) : tile[i * PAD + i];
        T s = 0;
        for (int k = j + q; k < i; k += THREADS / NB) s += tile[i * PAD + k] * tile[k * PAD + j];
        part[q * NB + j] = s;
        __syncthreads();
        if (q == 0) {
            const T sum = (part[j] + part[NB + j]) + (part[2 * NB + j] + part[3 * NB + j]);
            tile[i * PAD + j] = j < i ? -sum / d : j == i ? T(1) / d : T(0);
        }
        __syncthreads();
    }
    for (int s = 0; s < PER_THREAD; s++) {
        const int e = t + THREADS * s;
        inv[bj * NB * NB + e] = tile[(e % NB) * PAD + e / NB];
    }
    publish_one_more(inverted);
}

template <typename T, int K>
__device__ void chain(const lower_view<T> &m, T *x, int64_t ldx, flags f, const T *acc, const T *inv, const T *below,
                      const int *inverted, T *part, T *xs, T *r) {
    const int t = threadIdx.x;
    const int64_t blocks = (m.n + NB - 1) / NB;
    T w[PER_THREAD], b[PER_THREAD];
    T rhs = 0; /* b's entry of thread t < NB K, (row t % NB, column t / NB) */
    auto rhs_of = [&](int64_t bj) {
        const int64_t i = bj * NB + t % NB;
        return t < NB * K && i < m.n ? x[m.p(i) + (t / NB) * ldx] : T(0);
    };
    wait_flag(inverted, (int)blocks, false); /* all at once, beside each other, before the first step */
    load_rows(inv, w);
    rhs = rhs_of(0);
    for (int64_t bj = 0; bj < blocks; bj++) {
        const int64_t i0 = bj * NB;
        const int rows = (int)(m.n - i0 < NB ? m.n - i0 : NB);
        if (bj > 0) { /* M_j,j-1 x_j-1, loaded last step; then the next one's on its way */
            rows_product<T, K>(b, xs, part, r);
            if (bj + 1 < blocks) load_rows(below + bj * NB * NB, b);
        } else if (blocks > 1) {
            load_rows(below, b);
        }
        if (bj >= 2) wait_flag(f.summed + bj, (int)bj - 1, true);
        if (t < NB * K) { /* r = (b - the tiles' sum) - M_j,j-1 x_j-1 */
            const int c = t / NB, a = t % NB;
            T v = rhs;
            if (bj >= 2) v -= __ldcg(acc + (bj * K + c) * NB + a);
            if (bj > 0) v -= r[c * NB + a];
            r[c * NB + a] = v;
        }
        __syncthreads();
        rows_product<T, K>(w, r, part, xs); /* x_j = W_j r */
        if (t < NB * K && t % NB < rows) x[m.p(i0 + t % NB) + (t / NB) * ldx] = xs[t];
        if (bj + 1 < blocks) {
            rhs = rhs_of(bj + 1);
            load_rows(inv + (bj + 1) * NB * NB, w);
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

/* The workspace: the flags, then each block of rows' sum (NB x K), each diagonal block's
 * inverse and each block below the diagonal (NB x NB). */
template <typename T> struct narrow_work {
    flags f;
    int *inverted; /* how many diagonal blocks are */
    T *acc, *inv, *below;
};

template <typename T, int K>
__global__ void __launch_bounds__(THREADS, 2) narrow_solve(lower_view<T> m, T *x, int64_t ldx, narrow_work<T> ws) {
    __shared__ T tile[NB * PAD], part[(THREADS / NB) * K * NB], xs[K * NB], y[K * NB];
    __shared__ int ticket;
    const int64_t blocks = (m.n + NB - 1) / NB;
    if (threadIdx.x == 0) ticket = atomicAdd(ws.f.ticket, 1);
    __syncthreads();
    if (ticket == 0) chain<T, K>(m, x, ldx, ws.f, ws.acc, ws.inv, ws.below, ws.inverted, part, xs, y);
    else if (ticket <= blocks) invert_block<T>(m, ticket - 1, ws.inv, ws.below, ws.inverted, tile, part);
    else apply_tile<T, K>(m, x, ldx, ws.f, ws.acc, ticket - 1 - blocks, tile, part, xs, y);
}

template <typename T, int K>
void launch(const lower_view<T> &m, T *x, int64_t ldx, const narrow_work<T> &ws, int64_t units, cudaStream_t s) {
    narrow_solve<T, K><<<(unsigned)units, THREADS, 0, s>>>(m, x, ldx, ws);
}

template <typename T>
minv_status solve(minv_context *ctx, const minv_mat *a, cublasFillMode_t uplo, cublasOperation_t op,
                  cublasDiagType_t diag, minv_mat *x) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const cudaStream_t s = ctx->gpu->stream;
    const int64_t n = a->rows, k = x->cols, blocks = (n + NB - 1) / NB;
    const int64_t tiles = blocks >= 3 ? (blocks - 2) * (blocks - 1) / 2 : 0, units = 1 + blocks + tiles;
    const size_t flag_count = 3 + (size_t)blocks, flag_bytes = (flag_count * sizeof(int) + 255) / 256 * 256;
    const size_t sums = (size_t)blocks * NB * (size_t)k, squares = (size_t)blocks * NB * NB;
    const size_t bytes = flag_bytes + (sums + 2 * squares) * sizeof(T);
    const int slot = WS_SOLVER; /* the factorisation's workspace, free once it is done */
    void *p;
    const lower_view<T> m = {(const T *)a->data, a->ld, n, (uplo == CUBLAS_FILL_MODE_UPPER) != (op == CUBLAS_OP_T),
                             op == CUBLAS_OP_T, diag == CUBLAS_DIAG_UNIT};
    if (n == 0 || k == 0) return MINV_SUCCESS;
    if (k > MINV_GPU_NARROW_COLS || units > INT32_MAX)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "narrow triangular solve of order %lld with %lld columns", (long long)n,
                         (long long)k);
    status = minv_gpu_reserve(ctx, 1, &slot, &bytes, &p);
    if (status == MINV_ERR_DEVICE_MEMORY) { /* the budget is spent: TRSM, on the same stream, needs none of it */
        minv_clear_error(ctx);
        status = MINV_SUCCESS;
        ctx->gpu->narrow_by_trsm = 1;
        CUBLAS_TRY(minv_trsm(ctx->gpu->blas, CUBLAS_SIDE_LEFT, uplo, op, diag, n, k, 1.0, (const T *)a->data, a->ld,
                             (T *)x->data, x->ld));
        return MINV_SUCCESS;
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    CUDA_TRY(cudaMemsetAsync(p, 0, flag_count * sizeof(int), s));
    {
        int *const f = (int *)p;
        T *const acc = (T *)((char *)p + flag_bytes), *const xd = (T *)x->data;
        const narrow_work<T> ws = {{f, f + 1, f + 3}, f + 2, acc, acc + sums, acc + sums + squares};
        switch (k) {
        case 1: launch<T, 1>(m, xd, x->ld, ws, units, s); break;
        case 2: launch<T, 2>(m, xd, x->ld, ws, units, s); break;
        case 3: launch<T, 3>(m, xd, x->ld, ws, units, s); break;
        default: launch<T, 4>(m, xd, x->ld, ws, units, s); break;
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

void minv_gpu_narrow_note(minv_context *ctx, minv_report *report) {
    if (!ctx->gpu->narrow_by_trsm) return;
    ctx->gpu->narrow_by_trsm = 0;
    minv_report_note(report, "the few-column triangular solves ran by cuBLAS TRSM: the device budget had no room "
                             "left for the one-launch solve's workspace");
}
