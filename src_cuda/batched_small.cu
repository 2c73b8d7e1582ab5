// Batches of order k <= 32 in registers: a group of K lanes (the power of two >= k) per
// matrix, lane i holding row i; K < 32 puts 32 / K matrices in a warp. Gauss-Jordan runs by
// shuffles alone: the pivot search is a group argmax, the pivot row a broadcast. Every lane
// of the warp takes part in every shuffle; a group that has failed or is done only stops
// writing. Solves multiply the inverse in registers by B, and refine once (see the kernel).
#include "batched.cuh"

namespace {

constexpr int THREADS = 128;

template <int K, typename T, typename Op> __device__ __forceinline__ T group_reduce(T v, Op op) {
#pragma unroll
    for (int o = K / 2; o > 0; o /= 2) v = op(v, __shfl_xor_sync(FULL_MASK, v, o, K));
    return v;
}

/* The group's pivot: the largest candidate, the lowest lane on ties. */
template <int K> __device__ __forceinline__ void group_argmax(double &v, int &lane) {
#pragma unroll
    for (int o = K / 2; o > 0; o /= 2) {
        const double ov = __shfl_xor_sync(FULL_MASK, v, o, K);
        const int ol = __shfl_xor_sync(FULL_MASK, lane, o, K);
        if (ov > v || (ov == v && ol < lane)) {
            v = ov;
            lane = ol;
        }
    }
}

/* Row `lane` of the member (order n, the identity beyond it). */
template <int K, typename Tio, typename Tc>
__device__ __forceinline__ void load_row(Tc (&a)[K], const Tio *am, int64_t lda, int n, int lane, bool live) {
#pragma unroll
    for (int c = 0; c < K; c++)
        a[c] = live && lane < n && c < n ? (Tc)am[lane + (int64_t)c * lda] : (lane == c ? Tc(1) : Tc(0));
}

/* The group's row buffer: loaded and stored two entries at a time. */
template <typename T> struct pair_of;
template <> struct pair_of<double> { using type = double2; };
template <> struct pair_of<float> { using type = float2; };

template <int K, typename Tc> __device__ __forceinline__ void store_row(Tc *row, const Tc (&a)[K]) {
    using P = typename pair_of<Tc>::type;
    if (K == 1) row[0] = a[0];
#pragma unroll
    for (int c = 0; c + 1 < K; c += 2) reinterpret_cast<P *>(row)[c / 2] = P{a[c], a[c + 1]};
}

/* In-place Gauss-Jordan on the group's matrix, pivoted (the largest unused row) or not (row j
 * at step j, which must be positive). Updates registers only when `on`; pcol[j] (the group's,
 * in shared memory: registers are scarce) receives the pivot row of step j and `step` the step
 * at which this lane's row was the pivot. The pivot row goes through the group's stretch of a
 * shared buffer (rows[j % 2]), read two entries at a time, and each entry of the update is one
 * fused multiply-add: a(c) = x row(c) + z(c), with x = 1/pivot and z = 0 on the pivot row,
 * x = -a(j)/pivot and z = a(c) elsewhere, and x = 0 in groups that are not updating. Returns
 * the first failing column, or -1. */
template <int K, typename Tc>
__device__ __forceinline__ int gj_steps(Tc (&a)[K], int8_t *pcol, Tc *const (&rows)[2], int &step, int lane,
                                        bool pivoting, bool on) {
    using P = typename pair_of<Tc>::type;
    /* Steps run in stretches of U, unrolled, after each of which the row rotates left by U:
     * column j is then a[j % U], and the code of K steps (of 32 unrolled: 300 KB, far beyond
     * the instruction caches) is that of U. K rotations of one bring the row back. */
    constexpr int U = K < 8 ? K : 8;
    int fail = -1;
    if (on) step = -1;
#pragma unroll 1
    for (int j0 = 0; j0 < K; j0 += U) {
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int j = j0 + u;
            double cand = pivoting ? (step < 0 ? fabs((double)a[u]) : -1.0) : (lane == j ? 1.0 : -1.0);
            int pl = lane;
            group_argmax<K>(cand, pl);
            const Tc piv = __shfl_sync(FULL_MASK, a[u], pl, K);
            if (on && fail < 0 && (pivoting ? !(cand > 0) : !(piv > Tc(0)))) fail = j;
            const bool go = on && fail < 0, is_pivot = go && lane == pl;
            if (on && lane == 0) pcol[j] = (int8_t)pl;
            if (is_pivot) step = j;
            Tc *const row = rows[u % 2]; /* U is even or 1: alternates with j */
            if (lane == pl) store_row<K>(row, a);
            __syncwarp();
            const Tc inv = go ? Tc(1) / piv : Tc(0);
            const Tc x = is_pivot ? inv : go ? -(a[u] * inv) : Tc(0);
#pragma unroll
            for (int c = 0; c + 1 < K; c += 2) {
                const P r = reinterpret_cast<const P *>(row)[c / 2];
                a[c] = x * r.x + (is_pivot ? Tc(0) : a[c]);
                a[c + 1] = x * r.y + (is_pivot ? Tc(0) : a[c + 1]);
            }
            if (go) a[u] = x; /* column j: 1/pivot on the pivot row, -a(j)/pivot elsewhere */
        }
        if (U < K) {
            Tc head[U];
#pragma unroll
            for (int c = 0; c < U; c++) head[c] = a[c];
#pragma unroll
            for (int c = 0; c < K - U; c++) a[c] = a[c + U];
#pragma unroll
            for (int c = 0; c < U; c++) a[K - U + c] = head[c];
        }
    }
    return fail;
}

template <int K, typename Tio, typename Tc> __global__ void __launch_bounds__(THREADS, K == 32 ? 3 : 4) gj_small_kernel(batch_args p) {
    const int lane = threadIdx.x % K;
    const int64_t m = (int64_t)blockIdx.x * (THREADS / K) + threadIdx.x / K;
    const bool live = m < p.count;
    const int n = live ? (p.sizes ? p.sizes[m] : p.k) : 0;
    const Tio *am = (const Tio *)p.a + (live ? m * p.sa : 0);
    __shared__ int8_t pivots[THREADS];
    __shared__ __align__(16) Tc pivot_rows[2][THREADS];
    int8_t *pcol = pivots + threadIdx.x / K * K;
    Tc *const rows[2] = {pivot_rows[0] + threadIdx.x / K * K, pivot_rows[1] + threadIdx.x / K * K};
    Tc a[K];
    load_row<K>(a, am, p.lda, n, lane, live);

    int status = MINV_SUCCESS, info = -1;
    int bad = K;
#pragma unroll
    for (int c = K - 1; c >= 0; c--)
        if (!isfinite((double)a[c])) bad = c;
    bad = group_reduce<K>(bad, op_min());
    if (bad < K) {
        status = MINV_ERR_NOT_FINITE;
        info = bad;
        load_row<K, Tio, Tc>(a, am, p.lda, 0, lane, false); /* the identity: nothing to trip over */
    }

    /* ||A||_inf, and what the SPD path needs: symmetry and a positive diagonal */
    double rowsum = 0, asym = 0, amax = 0;
    int diag_ok = 1;
#pragma unroll
    for (int c = 0; c < K; c++) {
        const double v = (double)a[c];
        if (lane < n) rowsum += fabs(v);
        amax = fmax(amax, fabs(v));
        if (c == lane) diag_ok = v > 0;
        if (p.mode != GJ_PIVOTED) {
            const double t = live && lane < n && c < n ? (double)am[c + (int64_t)lane * p.lda] : (lane == c ? 1.0 : 0.0);
            asym = fmax(asym, fabs(v - t));
        }
    }
    const double anorm = group_reduce<K>(rowsum, op_max());
    asym = group_reduce<K>(asym, op_max());
    amax = group_reduce<K>(amax, op_max());
    diag_ok = group_reduce<K>(diag_ok, op_min());
    const bool symmetric = asym <= p.sym_tol * amax;
    bool spd = p.mode == GJ_SPD || (p.mode == GJ_AUTO && symmetric && diag_ok);
    if (status == MINV_SUCCESS && p.mode == GJ_SPD && !symmetric)
        status = MINV_ERR_NOT_SPD;

    /* AUTO: a member the SPD path could not take starts again, pivoted (one call site, so
     * that the steps' code is there once) */
    int step = -1;
    bool pivoting = !spd, on = live && status == MINV_SUCCESS;
    for (;;) {
        const int fail = gj_steps<K>(a, pcol, rows, step, lane, pivoting, on);
        const bool retry = fail >= 0 && p.mode == GJ_AUTO && spd;
        if (fail >= 0 && !retry) {
            status = spd ? MINV_ERR_NOT_SPD : MINV_ERR_SINGULAR;
            info = fail;
        }
        if (!__any_sync(FULL_MASK, retry))
            break;
        if (retry) {
            load_row<K>(a, am, p.lda, n, lane, live);
            spd = false;
        }
        pivoting = true;
        on = retry;
    }

    __syncwarp(); /* pcol, written by the group's first lane, is read by all */
    const bool written = live && status == MINV_SUCCESS;
    double xsum = 0;
#pragma unroll
    for (int c = 0; c < K; c++) xsum += lane < n ? fabs((double)a[c]) : 0.0;
    const double rcond = 1.0 / (anorm * group_reduce<K>(xsum, op_max()));
    if (written && below_eps<Tc>(rcond)) status = MINV_ERR_SINGULAR; /* written all the same */

    /* lane p_j holds row j of A^-1 P^T: x(j, p_c) = a[c] */
    if (!p.b) {
        Tio *xm = (Tio *)p.x + (live ? m * p.sx : 0);
        if (written && lane < n) {
#pragma unroll
            for (int c = 0; c < K; c++)
                if (pcol[c] < n) xm[step + (int64_t)pcol[c] * p.ldx] = (Tio)a[c];
        }
    } else {
        /* Column q of X = A^-1 B, then one step of refinement, x += A^-1 (b - A x): a product
         * with the inverse alone leaves residuals of order cond(A) eps, one step brings them
         * to a backward-stable solve's. Lane l holds b(l) and r(l); lane p_j holds x(j). */
        const Tio *bm = (const Tio *)p.b + (live ? m * p.sb : 0);
        Tio *xm = (Tio *)p.x + (live ? m * p.sx : 0);
        const bool row_live = written && lane < n;
        for (int q = 0; q < p.nrhs; q++) {
            const Tc b = row_live ? (Tc)bm[lane + (int64_t)q * p.ldb] : Tc(0);
            Tc y = 0;
#pragma unroll
            for (int c = 0; c < K; c++) y += a[c] * __shfl_sync(FULL_MASK, b, pcol[c], K);
            Tc r = b;
#pragma unroll 4
            for (int j = 0; j < K; j++) {
                const Tc xj = __shfl_sync(FULL_MASK, y, pcol[j], K);
                if (row_live && j < n) r -= (Tc)am[lane + (int64_t)j * p.lda] * xj;
            }
#pragma unroll
            for (int c = 0; c < K; c++) y += a[c] * __shfl_sync(FULL_MASK, r, pcol[c], K);
            __syncwarp(); /* column q of B is read before X (which may be B) is written */
            if (row_live) xm[step + (int64_t)q * p.ldx] = (Tio)y;
        }
    }
    if (live && lane == 0) {
        int32_t *r = p.res + m * RES_INTS;
        r[RES_STATUS] = status;
        r[RES_INFO] = info;
        r[RES_SPD] = written && spd;
        p.rcond[m] = written ? rcond : -1;
    }
}

template <int K, typename Tio, typename Tc> void launch(const batch_args &p, cudaStream_t s) {
    const int64_t per_block = THREADS / K;
    gj_small_kernel<K, Tio, Tc><<<(unsigned)((p.count + per_block - 1) / per_block), THREADS, 0, s>>>(p);
}

template <typename Tio, typename Tc> void launch_order(const batch_args &p, cudaStream_t s) {
    if (p.k <= 1) launch<1, Tio, Tc>(p, s);
    else if (p.k <= 2) launch<2, Tio, Tc>(p, s);
    else if (p.k <= 4) launch<4, Tio, Tc>(p, s);
    else if (p.k <= 8) launch<8, Tio, Tc>(p, s);
    else if (p.k <= 16) launch<16, Tio, Tc>(p, s);
    else launch<32, Tio, Tc>(p, s);
}

} // namespace

minv_status minv_gpu_gj_small(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    if (tio == MINV_R64) launch_order<double, double>(p, s);
    else if (tc == MINV_R64) launch_order<float, double>(p, s);
    else launch_order<float, float>(p, s);
    LAUNCH_TRY();
cleanup:
    return status;
}
