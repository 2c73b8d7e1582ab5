// The solve stage of a factor solve or inversion of order n <= 512 in a few launches and one
// read-back, in place of the stage's dozen launches and three synchronisations at these orders
// (cuBLAS's TRSMs, the rcond bound's norms, the residual's gathers and products, the factor's
// info). Each block of the solve kernel takes COLS columns of [B, e/n] (Hager's first vector
// last, as condition.cu appends it) or of I into shared memory and solves them through the
// factor, read from global memory (L2 at these orders) down its columns, in panels of 32 rows: a
// warp a column solves the panel's diagonal block by shuffles, then every thread updates its
// row below (above, on the way back) by the panel; the loads of both are issued a step ahead
// (the next block during the update, a row's entries before the block's solve: the whole SPD
// solve of order 256 went from 0.22-0.24 to 0.20 ms). The block also writes what the stage's other
// kernels wrote: ||b_j||_1 and ||x_j||_1, min |f_ii| and the residual's sampled columns of B in
// double. Kernels over many blocks (one block's share of the bandwidth took 18 us for A at 512)
// add a solve's A x or an inversion's probe products. The factor's info lies first in the
// results, written by the factorisation; where it is not 0 nothing else is written, so that B
// survives an in-place call whose factor failed. The host then reads everything back at once
// and finishes with the routines the other paths use (condition.cu, residual.cu).
#include <math.h>

#include "gpu.h"

namespace {

/* The results' layout, in doubles from s->out: the factor's info (an int) in the first; the
 * norms of minv_gpu_rcond_bound (B's m columns and two slots, then the solutions' m, Hager's
 * vector's and min |f_ii|); then a solve's sampled columns (b, then x and A x for each, as
 * minv_gpu_solve_residual_finish takes them) or an inversion's probes (v, A v, X A v and the row
 * sums of |X|). */
struct results_layout {
    int64_t bnorm, xnorm, residual;
};
__host__ __device__ inline results_layout layout_of(int64_t m) {
    return {1, 1 + (m + 2), 1 + 2 * (m + 2)};
}

constexpr int THREADS = 512, WARPS = THREADS / 32, COLS = 4, PANEL = 32, MAX_N = 512;
constexpr unsigned ALL_LANES = 0xffffffffu;
static_assert(COLS <= WARPS, "a warp a column in the diagonal blocks");

template <typename T> struct small_args {
    const T *f;           /* the factor: LU's unit L and U in one, or Cholesky's L with L^T mirrored
                           * into the upper triangle (L^T read across L's rows made the stage 0.22
                           * ms at order 512, the mirror 0.16-0.17) */
    int64_t ldf;
    const int64_t *perm;  /* LU: row i of P A is row perm[i] of A; NULL for Cholesky */
    const T *a;           /* A, for the residual's products */
    int64_t lda;
    const T *b;           /* NULL: the identity (an inversion) */
    int64_t ldb;
    T *x;                 /* may be b */
    int64_t ldx;
    T *vec;               /* Hager's first vector A^-1 e/n, n entries; NULL: none solved */
    int n, m, count;      /* order, B's columns, the residual's sampled columns */
    int symmetric;        /* X is symmetric: each block writes its columns' lower part, both ways */
    double *out;          /* results_layout */
};

__device__ double warp_sum(double s) {
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(ALL_LANES, s, o);
    return s;
}

/* The residual's k-th sampled column of B's m (minv_residual_column), or -1. */
__device__ int sample_of(int j, int m, int count) {
    for (int k = 0; k < count; k++)
        if ((count == m ? k : (int)((int64_t)k * (m - 1) / (count - 1))) == j) return k;
    return -1;
}

/* A panel's diagonal block in shared memory, lb[r * LB_LD + k] = F(p0 + r, p0 + k) on the side of
 * the diagonal that the pass reads (zero elsewhere), fetched by the diagonal warps during the
 * panel before so that its loads' latency hides behind that panel's update: FETCH entries a
 * thread, loaded into registers (fetch_block) and stored after the update (store_block). */
constexpr int DIAG0 = WARPS - COLS; /* the diagonal blocks' warps: the last, with the fewest rows to update */
constexpr int LB_LD = PANEL + 1, FETCH = PANEL * PANEL / (COLS * 32);
template <typename T> __device__ void fetch_block(const small_args<T> &p, T *v, int p0, bool forward) {
    const int t = (int)threadIdx.x - DIAG0 * 32, pw = min(PANEL, p.n - p0);
#pragma unroll
    for (int q = 0; q < FETCH; q++) {
        const int e = t + q * COLS * 32, r = e % PANEL, k = e / PANEL;
        v[q] = r < pw && k < pw && (forward ? k <= r : k >= r) ? p.f[p0 + r + (int64_t)(p0 + k) * p.ldf] : T(0);
    }
}
template <typename T> __device__ void store_block(const T *v, T *lb) {
    const int t = (int)threadIdx.x - DIAG0 * 32;
#pragma unroll
    for (int q = 0; q < FETCH; q++) {
        const int e = t + q * COLS * 32;
        lb[(e % PANEL) * LB_LD + e / PANEL] = v[q];
    }
}

/* The panel's diagonal block (lb), one column of x (in shared memory) by one warp, lane r
 * holding row p0 + r (in t, the registers of the thread's row of the update, free until then):
 * forward (L, unit for LU) or back (U). The diagonal's reciprocals are taken by all lanes at
 * once, not one division in each of the 32 dependent steps. */
template <typename T>
__device__ void diagonal_block(const small_args<T> &p, const T *lb, T *col, int p0, int pw, bool forward, T *t) {
    const int r = threadIdx.x % 32, i = p0 + r;
    const bool unit = forward && p.perm;
#pragma unroll
    for (int k = 0; k < PANEL; k++) t[k] = lb[r * LB_LD + k];
    T d = T(1);
#pragma unroll
    for (int k = 0; k < PANEL; k++)
        if (k == r) d = t[k];
    const T inv = unit || r >= pw ? T(1) : T(1) / d;
    T y = i < p.n ? col[i] : T(0);
    if (forward) {
        if (r == 0) y *= inv;
#pragma unroll
        for (int k = 0; k < PANEL - 1; k++) {
            if (k + 1 >= pw) break;
            const T yk = __shfl_sync(ALL_LANES, y, k);
            if (r > k) y -= t[k] * yk;
            if (r == k + 1) y *= inv;
        }
    } else {
        if (r == pw - 1) y *= inv;
#pragma unroll
        for (int k = PANEL - 1; k > 0; k--) {
            if (k >= pw) continue;
            const T yk = __shfl_sync(ALL_LANES, y, k);
            if (r < k) y -= t[k] * yk;
            if (r == k - 1) y *= inv;
        }
    }
    if (i < p.n) col[i] = y;
}

/* Row i's entries of the panel, loaded at once. */
template <typename T> __device__ void load_row(const small_args<T> &p, T *t, int i, int p0, int pw) {
#pragma unroll
    for (int k = 0; k < PANEL; k++) t[k] = k < pw ? p.f[i + (int64_t)(p0 + k) * p.ldf] : T(0);
}

/* Row i of every column less the panel's part: x_i -= T(i, p0 + k) x_{p0 + k}. */
template <typename T> __device__ void update_row(const T *t, T *xs, int p0, int i) {
    T acc[COLS];
#pragma unroll
    for (int c = 0; c < COLS; c++) acc[c] = xs[c * MAX_N + i];
#pragma unroll
    for (int k = 0; k < PANEL; k++)
#pragma unroll
        for (int c = 0; c < COLS; c++) acc[c] -= t[k] * xs[c * MAX_N + p0 + k];
#pragma unroll
    for (int c = 0; c < COLS; c++) xs[c * MAX_N + i] = acc[c];
}

/* One panel of a pass: the diagonal block by the diagonal warps, then every row the panel
 * updates (below it forward, above it back), a thread a row (n <= THREADS + PANEL). The other
 * threads load their row's entries before the diagonal block, so that the loads' latency hides
 * behind it; the diagonal warps fetch the next panel's block (next, or -1) during the update. */
template <typename T>
__device__ void solve_panel(const small_args<T> &p, T *xs, T *lb, int p0, int next, bool forward) {
    const int pw = min(PANEL, p.n - p0), warp = threadIdx.x / 32;
    const bool diag = warp >= DIAG0;
    const int i = forward ? p0 + pw + (int)threadIdx.x : (int)threadIdx.x, end = forward ? p.n : p0;
    T t[PANEL], v[FETCH];
    if (!diag && i < end) load_row(p, t, i, p0, pw);
    if (diag) diagonal_block(p, lb + (p0 / PANEL % 2) * PANEL * LB_LD, xs + (warp - DIAG0) * MAX_N, p0, pw, forward, t);
    __syncthreads();
    if (diag && next >= 0) fetch_block(p, v, next, forward);
    if (i < end) {
        if (diag) load_row(p, t, i, p0, pw);
        update_row(t, xs, p0, i);
    }
    if (diag && next >= 0) store_block(v, lb + (next / PANEL % 2) * PANEL * LB_LD);
    __syncthreads();
}

template <typename T> __global__ void __launch_bounds__(THREADS) small_solve_kernel(const small_args<T> p) {
    __shared__ T xs[COLS * MAX_N];
    __shared__ T lb[2 * PANEL * LB_LD]; /* the current and the next panel's diagonal block */
    const int n = p.n, m = p.m, padded = (n + PANEL - 1) / PANEL * PANEL, warp = threadIdx.x / 32, lane = threadIdx.x % 32,
              c0 = blockIdx.x * COLS;
    const results_layout lay = layout_of(m);
    double *const bnorm = p.out + lay.bnorm, *const xnorm = p.out + lay.xnorm, *const res = p.out + lay.residual;
    if (*(const int *)p.out != 0) return; /* the factorisation failed */

    /* [B, e/n] in, P B for LU; the norms of B's columns and the residual's copies of them */
    for (int e = threadIdx.x; e < COLS * padded; e += THREADS) { /* zeros past n: the last panel reads them */
        const int c = e / padded, i = e % padded, j = c0 + c, row = p.perm ? (int)p.perm[i] : i;
        xs[c * MAX_N + i] = i >= n                ? T(0)
                            : j < m && p.b        ? p.b[row + (int64_t)j * p.ldb]
                            : j < m               ? T(row == j ? 1 : 0)
                            : j == m && p.vec     ? T(1) / T(n)
                                                  : T(0);
    }
    if (warp < COLS && c0 + warp < m && p.b) {
        const int j = c0 + warp, k = sample_of(j, m, p.count);
        double s = 0;
        for (int i = lane; i < n; i += 32) {
            const double v = (double)p.b[i + (int64_t)j * p.ldb];
            s += fabs(v);
            if (k >= 0) res[(int64_t)k * n + i] = v;
        }
        s = warp_sum(s);
        if (lane == 0) bnorm[j] = s;
    }
    if (warp >= DIAG0) { /* the first panel's diagonal block */
        T v[FETCH];
        fetch_block(p, v, 0, true);
        store_block(v, lb);
    }
    __syncthreads();

    const int last = (n - 1) / PANEL * PANEL;
    for (int p0 = 0; p0 < n; p0 += PANEL) /* L y = P b; then U's last block is fetched */
        solve_panel(p, xs, lb, p0, p0 + PANEL < n ? p0 + PANEL : -1, true);
    if (warp >= DIAG0) { /* the forward pass's last panel fetched nothing */
        T v[FETCH];
        fetch_block(p, v, last, false);
        store_block(v, lb + (last / PANEL % 2) * PANEL * LB_LD);
    }
    __syncthreads();
    for (int p0 = last; p0 >= 0; p0 -= PANEL) /* U x = y */
        solve_panel(p, xs, lb, p0, p0 - PANEL, false);

    /* X out, its norms (a symmetric X's as solved: the same to rounding), Hager's vector apart */
    for (int e = threadIdx.x; e < COLS * n; e += THREADS) {
        const int c = e / n, i = e % n, j = c0 + c;
        if (j < m && !p.symmetric) p.x[i + (int64_t)j * p.ldx] = xs[c * MAX_N + i];
        else if (j < m && i >= j) p.x[i + (int64_t)j * p.ldx] = p.x[j + (int64_t)i * p.ldx] = xs[c * MAX_N + i];
        else if (j == m && p.vec) p.vec[i] = xs[c * MAX_N + i];
    }
    if (warp < COLS && (c0 + warp < m || (c0 + warp == m && p.vec))) {
        double s = 0;
        for (int i = lane; i < n; i += 32) s += fabs((double)xs[warp * MAX_N + i]);
        s = warp_sum(s);
        if (lane == 0) xnorm[c0 + warp] = s;
    }
    if (blockIdx.x == 0 && warp == WARPS - 1) { /* min |f_ii|, NaN if any is NaN (as minv_k_min_abs_diagonal) */
        double d = INFINITY;
        for (int i = lane; i < n; i += 32) {
            const double v = fabs((double)p.f[i * (p.ldf + 1)]);
            d = v < d || v != v ? v : d;
        }
        for (int o = 16; o > 0; o >>= 1) {
            const double other = __shfl_xor_sync(ALL_LANES, d, o);
            d = other < d || other != other ? other : d;
        }
        if (lane == 0) xnorm[m + 1] = d;
    }
}

/* The residual's sampled columns k (blockIdx.y): x and A x in double beside b
 * (minv_gpu_solve_residual_end's layout), 32 rows a block, a warp a slice of A's columns. */
template <typename T> __global__ void __launch_bounds__(THREADS) residual_kernel(const small_args<T> p) {
    __shared__ double part[WARPS][32];
    const int n = p.n, m = p.m, count = p.count, k = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = blockIdx.x * 32 + lane, j = count == m ? k : (int)((int64_t)k * (m - 1) / (count - 1));
    const T *const xj = p.x + (int64_t)j * p.ldx;
    double *const xd = p.out + layout_of(m).residual + (int64_t)n * (count + 2 * k), *const axd = xd + n;
    if (*(const int *)p.out != 0) return; /* the factorisation failed */
    double s = 0;
    if (i < n)
#pragma unroll 4
        for (int l = warp; l < n; l += WARPS) s += (double)p.a[i + (int64_t)l * p.lda] * (double)xj[l];
    part[warp][lane] = s;
    __syncthreads();
    if (warp == 0 && i < n) {
        for (int w = 1; w < WARPS; w++) s += part[w][lane];
        axd[i] = s;
        xd[i] = (double)xj[i];
    }
}

/* An inversion's residual probes (minv_gpu_inverse_residual_*'s, in one read-back with the rest):
 * y_k = M v_k for the MINV_PROBES vectors at v, 32 rows a block, a warp a slice of M's columns;
 * with rowabs, also the row sums of |M| (M = X after the inversion, A before it); with info,
 * nothing where the factorisation failed. */
template <typename T>
__global__ void __launch_bounds__(THREADS) probes_kernel(const T *mat, int64_t ld, int n, const double *v, double *y,
                                                         double *rowabs, const int *info) {
    __shared__ double part[WARPS][32][MINV_PROBES + 1];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, i = blockIdx.x * 32 + lane;
    if (info && *info != 0) return; /* the factorisation failed */
    double s[MINV_PROBES + 1] = {0};
    if (i < n)
        for (int l = warp; l < n; l += WARPS) {
            const double e = (double)mat[i + (int64_t)l * ld];
#pragma unroll
            for (int k = 0; k < MINV_PROBES; k++) s[k] += e * v[l + (int64_t)k * n];
            s[MINV_PROBES] += fabs(e);
        }
#pragma unroll
    for (int k = 0; k <= MINV_PROBES; k++) part[warp][lane][k] = s[k];
    __syncthreads();
    if (warp == 0 && i < n) {
        for (int w = 1; w < WARPS; w++)
#pragma unroll
            for (int k = 0; k <= MINV_PROBES; k++) s[k] += part[w][lane][k];
#pragma unroll
        for (int k = 0; k < MINV_PROBES; k++) y[i + (int64_t)k * n] = s[k];
        if (rowabs) rowabs[i] = s[MINV_PROBES];
    }
}

template <typename T>
minv_status launch(minv_context *ctx, const minv_small_solve *s, const minv_mat *f, const int64_t *perm, const minv_mat *a,
                   const minv_mat *b, minv_mat *x, int symmetric) {
    minv_status status = MINV_SUCCESS;
    const small_args<T> p = {(const T *)f->data,
                             f->ld,
                             perm,
                             a ? (const T *)a->data : NULL,
                             a ? a->ld : 0,
                             b ? (const T *)b->data : NULL,
                             b ? b->ld : 0,
                             (T *)x->data,
                             x->ld,
                             (T *)s->vec,
                             (int)f->rows,
                             (int)x->cols,
                             (int)s->count,
                             symmetric,
                             s->out};
    const unsigned blocks = (unsigned)((x->cols + (s->vec ? 1 : 0) + COLS - 1) / COLS);
    small_solve_kernel<T><<<blocks, THREADS, 0, ctx->gpu->stream>>>(p);
    if (s->count > 0)
        residual_kernel<T><<<dim3((unsigned)((f->rows + 31) / 32), (unsigned)s->count), THREADS, 0, ctx->gpu->stream>>>(p);
    if (s->probes) { /* w = X (A v) and the row sums of |X| */
        double *const v = s->out + layout_of(p.n).residual, *const w = v + 2 * (int64_t)p.n * MINV_PROBES;
        probes_kernel<T><<<(unsigned)((p.n + 31) / 32), THREADS, 0, ctx->gpu->stream>>>(
            p.x, p.ldx, p.n, v + (int64_t)p.n * MINV_PROBES, w, w + (int64_t)p.n * MINV_PROBES, (const int *)s->out);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

/* The results (WS_F), and with `vector` room for Hager's vector (WS_E); the residual's part a
 * solve's count sampled columns, or an inversion's probes. */
minv_status reserve(minv_context *ctx, minv_dtype t, int64_t n, int64_t m, int64_t count, int vector,
                    minv_small_solve *s) {
    minv_status status = MINV_SUCCESS;
    const int slots[2] = {WS_F, WS_E};
    const int64_t residual = vector ? 3 * n * count : (3 * MINV_PROBES + 1) * n;
    const size_t bytes[2] = {(size_t)(layout_of(m).residual + residual) * sizeof(double),
                             (size_t)n * (size_t)t};
    void *p[2] = {NULL, NULL};
    MINV_TRY(minv_gpu_reserve(ctx, vector ? 2 : 1, slots, bytes, p));
    s->out = (double *)p[0];
    s->vec = p[1];
    s->bytes = bytes[0];
    s->m = m;
    s->count = count;
    s->probes = 0;
cleanup:
    return status;
}

/* The probes and A v from a, before the factorisation (minv_gpu_small_invert_begin). */
minv_status probes_before(minv_context *ctx, minv_small_solve *s, const minv_mat *a) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    double *const v = s->out + layout_of(n).residual, *up;
    cudaStream_t st = ctx->gpu->stream;
    /* v up from pinned memory, without waiting; the call's read-back waits for it */
    MINV_TRY(minv_gpu_pinned(ctx, PIN_SMALL, (size_t)n * MINV_PROBES * sizeof(double), (void **)&up));
    minv_probe_vectors(up, n, MINV_PROBES);
    CUDA_TRY(cudaMemcpyAsync(v, up, (size_t)n * MINV_PROBES * sizeof(double), cudaMemcpyHostToDevice, st));
    {
        const unsigned blocks = (unsigned)((n + 31) / 32);
        if (a->dtype == MINV_R64)
            probes_kernel<double><<<blocks, THREADS, 0, st>>>((const double *)a->data, a->ld, (int)n, v, v + n * MINV_PROBES,
                                                              NULL, NULL);
        else
            probes_kernel<float><<<blocks, THREADS, 0, st>>>((const float *)a->data, a->ld, (int)n, v, v + n * MINV_PROBES,
                                                             NULL, NULL);
    }
    LAUNCH_TRY();
    s->probes = 1;
cleanup:
    return status;
}

} // namespace

int minv_gpu_small_solve_applies(int64_t n, int64_t nrhs) { return n >= 1 && n <= MAX_N && nrhs >= 1 && nrhs <= n; }

minv_status minv_gpu_small_solve(minv_context *ctx, const minv_small_solve *s, const minv_mat *f, const int64_t *perm,
                                 const minv_mat *a, const minv_mat *b, minv_mat *x, int symmetric, double **host) {
    minv_status status = MINV_SUCCESS;
    void *back;
    if (f->dtype == MINV_R64) MINV_TRY(launch<double>(ctx, s, f, perm, a, b, x, symmetric));
    else MINV_TRY(launch<float>(ctx, s, f, perm, a, b, x, symmetric));
    MINV_TRY(minv_gpu_read_back(ctx, s->out, s->bytes, &back));
    *host = (double *)back;
cleanup:
    return status;
}

minv_status minv_gpu_small_solve_begin(minv_context *ctx, const minv_mat *b, minv_small_solve *s,
                                       minv_gpu_residual *res) {
    minv_gpu_solve_residual_plan(ctx, b, res);
    return reserve(ctx, b->dtype, b->rows, b->cols, res->count, 1, s);
}

minv_status minv_gpu_small_solve_end(minv_context *ctx, const minv_small_solve *s, const minv_gpu_residual *res,
                                     double *host, const minv_mat *f, int spd, minv_gpu_vec_solve solve, void *user,
                                     const minv_analysis *an, minv_report *report) {
    const results_layout lay = layout_of(s->m);
    minv_gpu_solve_residual_finish(res, host + lay.residual, an, report);
    report->rcond = minv_gpu_rcond_bound(host + lay.bnorm, s->m, f->rows, spd, an->norm_1);
    return minv_gpu_solve_rcond(ctx, f, spd, an->norm_1, solve, user, s->vec, report);
}

minv_status minv_gpu_small_invert_begin(minv_context *ctx, const minv_mat *a, minv_small_solve *s,
                                        minv_gpu_residual *res) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    res->mode = 0;
    MINV_TRY(reserve(ctx, a->dtype, n, n, 0, 0, s));
    if (ctx->residual_mode == 1) MINV_TRY(probes_before(ctx, s, a));
    else MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, res));
cleanup:
    return status;
}

minv_status minv_gpu_small_invert_end(minv_context *ctx, const minv_small_solve *s, const minv_gpu_residual *res,
                                      const double *host, const minv_mat *x, const minv_analysis *an,
                                      minv_report *report) {
    const int64_t n = x->rows;
    const double *xnorm = host + layout_of(n).xnorm;
    double worst = 0;
    for (int64_t j = 0; j < n; j++)
        if (xnorm[j] > worst || isnan(xnorm[j])) worst = xnorm[j];
    report->rcond = minv_cpu_rcond(an->norm_1, worst);
    if (!s->probes)
        return minv_gpu_inverse_residual_end(ctx, res, x, an, report);
    const double *v = host + layout_of(n).residual, *w = v + 2 * n * MINV_PROBES,
                 *rowabs = w + n * MINV_PROBES;
    double xnorm_inf = 0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(rowabs[i]) > xnorm_inf || isnan(rowabs[i])) xnorm_inf = fabs(rowabs[i]);
    report->residual = minv_probe_ratio(n, MINV_PROBES, v, w, xnorm_inf, an->norm_inf);
    report->residual_kind = 1;
    return MINV_SUCCESS;
}
