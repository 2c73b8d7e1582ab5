// Batches of order 32 < k <= 128 in the registers of a thread block: one block of 16 x 16
// threads per matrix, padded to KP in {48, 64, 96, 128}, thread (ty, tx) holding the rows
// ty + 16 m and the columns tx + 16 n (so that a warp reads whole runs of columns). A step
// of Gauss-Jordan passes the pivot column and the pivot row through shared memory (double
// buffered, two barriers a step); every warp finds the pivot itself, so none waits for it.
#include "batched.cuh"

namespace {

constexpr int G = 16;
constexpr int THREADS = G * G;

template <int KP, typename Tc> struct tile_shared {
    Tc colbuf[2][KP], rowbuf[2][KP];
    double rowsum[KP];
    int row_step[KP], piv_row[KP];
    double red[32];
    int ired[32];
};

template <int KP, typename Tio, typename Tc>
__device__ __forceinline__ void load_tile(Tc (&a)[KP / G][KP / G], const Tio *am, int64_t lda, int n, int ty,
                                          int tx) {
#pragma unroll
    for (int m = 0; m < KP / G; m++)
#pragma unroll
        for (int c = 0; c < KP / G; c++) {
            const int i = ty + G * m, j = tx + G * c;
            a[m][c] = i < n && j < n ? (Tc)am[i + (int64_t)j * lda] : (i == j ? Tc(1) : Tc(0));
        }
}

/* max over the member's rows of the sums of |a_ij| (the rows below n only). */
template <int KP, typename Tc>
__device__ double norm_inf(const Tc (&a)[KP / G][KP / G], tile_shared<KP, Tc> &s, int n, int ty) {
    for (int r = threadIdx.x; r < KP; r += THREADS) s.rowsum[r] = 0;
    __syncthreads();
#pragma unroll
    for (int m = 0; m < KP / G; m++) {
        double part = 0;
#pragma unroll
        for (int c = 0; c < KP / G; c++) part += fabs((double)a[m][c]);
        atomicAdd(&s.rowsum[ty + G * m], part);
    }
    __syncthreads();
    double v = 0;
    for (int r = threadIdx.x; r < n; r += THREADS) v = fmax(v, s.rowsum[r]);
    return block_reduce(v, s.red, op_max());
}

/* Gauss-Jordan on the block's matrix (see batched.cuh); returns the failing column or -1,
 * the same in every thread. Each entry's update is one fused multiply-add: column j is
 * zeroed first by the threads that hold it (their t is then 1/pivot), and the pivot row,
 * whose update is a waste, is overwritten with t by the two threads a warp that hold it. */
template <int KP, typename Tc>
__device__ int tile_steps(Tc (&a)[KP / G][KP / G], tile_shared<KP, Tc> &s, bool pivoting, int ty, int tx) {
    constexpr int T = KP / G;
    const int lane = threadIdx.x % 32;
    __syncthreads(); /* a previous attempt may still be reading shared memory */
    for (int r = threadIdx.x; r < KP; r += THREADS) s.row_step[r] = -1;
    __syncthreads();
#pragma unroll
    for (int cn = 0; cn < T; cn++) {
        for (int jx = 0; jx < G; jx++) {
            const int j = cn * G + jx, buf = j & 1;
            const bool holds_column = tx == jx;
            if (holds_column) {
#pragma unroll
                for (int m = 0; m < T; m++) s.colbuf[buf][ty + G * m] = a[m][cn];
            }
            __syncthreads();
            double cand = -1.0;
            int p = KP;
            for (int r = lane; r < KP; r += 32) {
                const double v = pivoting ? (s.row_step[r] < 0 ? fabs((double)s.colbuf[buf][r]) : -1.0) : (r == j ? 1.0 : -1.0);
                if (v > cand) {
                    cand = v;
                    p = r;
                }
            }
            warp_argmax(cand, p);
            const Tc piv = s.colbuf[buf][p];
            if (pivoting ? !(cand > 0) : !(piv > Tc(0)))
                return j;
            const bool holds_pivot_row = ty == p % G;
            const int mp = p / G;
            if (holds_pivot_row) {
#pragma unroll
                for (int m = 0; m < T; m++)
                    if (m == mp) {
#pragma unroll
                        for (int c = 0; c < T; c++) s.rowbuf[buf][tx + G * c] = a[m][c];
                    }
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                s.row_step[p] = j;
                s.piv_row[j] = p;
            }
            const Tc inv = Tc(1) / piv;
            Tc t[T];
#pragma unroll
            for (int c = 0; c < T; c++) t[c] = s.rowbuf[buf][tx + G * c] * inv;
            if (holds_column) {
                t[cn] = inv;
#pragma unroll
                for (int m = 0; m < T; m++) a[m][cn] = Tc(0);
            }
#pragma unroll
            for (int m = 0; m < T; m++) {
                const Tc f = s.colbuf[buf][ty + G * m];
#pragma unroll
                for (int c = 0; c < T; c++) a[m][c] -= f * t[c];
            }
            if (holds_pivot_row) {
#pragma unroll
                for (int m = 0; m < T; m++)
                    if (m == mp) {
#pragma unroll
                        for (int c = 0; c < T; c++) a[m][c] = t[c];
                    }
            }
        }
    }
    __syncthreads();
    return -1;
}

template <int KP, typename Tio, typename Tc, typename Tout>
__global__ void __launch_bounds__(THREADS, KP <= 64 ? 3 : 1) gj_tile_kernel(batch_args p) {
    constexpr int T = KP / G;
    __shared__ tile_shared<KP, Tc> s;
    const int64_t m = blockIdx.x;
    const int n = p.sizes ? p.sizes[m] : p.k;
    const int ty = threadIdx.x % G, tx = threadIdx.x / G;
    const Tio *am = (const Tio *)p.a + m * p.sa;
    int32_t *res = p.res + m * RES_INTS;
    Tc a[T][T];
    load_tile<KP>(a, am, p.lda, n, ty, tx);

    int bad = KP;
#pragma unroll
    for (int i = 0; i < T; i++)
#pragma unroll
        for (int c = 0; c < T; c++)
            if (!isfinite((double)a[i][c])) bad = min(bad, tx + G * c);
    bad = block_reduce(bad, s.ired, op_min());
    if (bad < KP) {
        if (threadIdx.x == 0) {
            res[RES_STATUS] = MINV_ERR_NOT_FINITE;
            res[RES_INFO] = bad;
            res[RES_SPD] = 0;
            p.rcond[m] = -1;
        }
        return;
    }
    const double anorm = norm_inf<KP>(a, s, n, ty);

    bool spd = false;
    if (p.mode != GJ_PIVOTED) {
        double asym = 0, amax = 0;
        int diag_ok = 1;
#pragma unroll
        for (int i = 0; i < T; i++)
#pragma unroll
            for (int c = 0; c < T; c++) {
                const int r = ty + G * i, j = tx + G * c;
                const double v = (double)a[i][c];
                const double t = r < n && j < n ? (double)am[j + (int64_t)r * p.lda] : (r == j ? 1.0 : 0.0);
                asym = fmax(asym, fabs(v - t));
                amax = fmax(amax, fabs(v));
                if (r == j) diag_ok &= v > 0;
            }
        asym = block_reduce(asym, s.red, op_max());
        amax = block_reduce(amax, s.red, op_max());
        diag_ok = block_reduce(diag_ok, s.ired, op_min());
        const bool symmetric = asym <= p.sym_tol * amax;
        if (p.mode == GJ_SPD && !symmetric) {
            if (threadIdx.x == 0) {
                res[RES_STATUS] = MINV_ERR_NOT_SPD;
                res[RES_INFO] = -1;
                res[RES_SPD] = 0;
                p.rcond[m] = -1;
            }
            return;
        }
        spd = p.mode == GJ_SPD || (symmetric && diag_ok);
    }

    /* AUTO: again, pivoted (one call site, so that the steps' code is there once) */
    int fail;
    for (;;) {
        fail = tile_steps<KP>(a, s, !spd, ty, tx);
        if (fail < 0 || !spd || p.mode != GJ_AUTO)
            break;
        load_tile<KP>(a, am, p.lda, n, ty, tx);
        spd = false;
    }
    if (fail >= 0) {
        if (threadIdx.x == 0) {
            res[RES_STATUS] = spd ? MINV_ERR_NOT_SPD : MINV_ERR_SINGULAR;
            res[RES_INFO] = fail;
            res[RES_SPD] = 0;
            p.rcond[m] = -1;
        }
        return;
    }
    const double xnorm = norm_inf<KP>(a, s, n, ty);
    if (threadIdx.x == 0) {
        const double rcond = 1.0 / (anorm * xnorm);
        res[RES_STATUS] = below_eps<Tc>(rcond) ? MINV_ERR_SINGULAR : MINV_SUCCESS; /* written all the same */
        res[RES_INFO] = -1;
        res[RES_SPD] = spd;
        p.rcond[m] = rcond;
    }
    /* row p_j holds row j of A^-1 P^T: x(j, p_c) = a(p_j, c) */
    Tout *xm = (Tout *)p.x + m * p.sx;
#pragma unroll
    for (int i = 0; i < T; i++)
#pragma unroll
        for (int c = 0; c < T; c++) {
            const int r = ty + G * i, j = tx + G * c;
            if (r < n && j < n) xm[s.row_step[r] + (int64_t)s.piv_row[j] * p.ldx] = (Tout)a[i][c];
        }
}

template <int KP, typename Tio, typename Tc, typename Tout> void launch(const batch_args &p, cudaStream_t s) {
    gj_tile_kernel<KP, Tio, Tc, Tout><<<(unsigned)p.count, THREADS, 0, s>>>(p);
}

template <typename Tio, typename Tc, typename Tout> void launch_order(const batch_args &p, cudaStream_t s) {
    if (p.k <= 48) launch<48, Tio, Tc, Tout>(p, s);
    else if (p.k <= 64) launch<64, Tio, Tc, Tout>(p, s);
    else if (p.k <= 96) launch<96, Tio, Tc, Tout>(p, s);
    else launch<128, Tio, Tc, Tout>(p, s);
}

} // namespace

minv_status minv_gpu_gj_tile(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc, minv_dtype tout) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    if (tio == MINV_R64) launch_order<double, double, double>(p, s);
    else if (tc == MINV_R32) launch_order<float, float, float>(p, s);
    else if (tout == MINV_R32) launch_order<float, double, float>(p, s);
    else launch_order<float, double, double>(p, s);
    LAUNCH_TRY();
cleanup:
    return status;
}
