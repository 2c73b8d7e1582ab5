// Batches of order 32 < k <= 128 in the registers of a thread block: one block of GY x GX
// threads per matrix (tile_shape: 8 x 16 for k <= 64, 16 x 16 above), padded to KP in
// {48, 64, 96, 128}, thread (ty, tx) = (threadIdx.x % GY, threadIdx.x / GY) holding the rows
// ty + GY m and the columns tx + GX c (so that a warp reads runs of GY rows of a column, and
// the GY threads of one tx lie in one warp). A step of Gauss-Jordan, with one barrier:
//   - the GY threads that hold column j put it in shared memory (double buffered), find the
//     pivot among their rows (in registers, then by shuffles within their group), and leave
//     its row and reciprocal in shared memory;
//   - past the barrier every thread takes the pivot row from the thread of its warp that holds
//     it (a shuffle: the pivot row's register index is the same in the whole block, so a tree
//     of uniform branches picks it) and updates its entries, one fused multiply-add each.
#include "batched.cuh"

namespace {

/* The thread grid per KP: GY rows of threads (a power of two dividing 32), GX columns; each
 * thread holds (KP / GY) x (KP / GX) entries (6 x 3, 8 x 4, 6 x 6, 8 x 8). MIN_BLOCKS: the
 * blocks an SM is to hold, which caps the registers (80, 128, 128, 255: none spills). */
template <int KP> struct tile_shape {
    static constexpr int GY = KP <= 64 ? 8 : 16, GX = 16;
    static constexpr int THREADS = GY * GX;
    static constexpr int MIN_BLOCKS = KP <= 48 ? 6 : KP <= 64 ? 4 : KP <= 96 ? 2 : 1;
    static_assert(THREADS >= KP, "a thread per row");
};

template <typename T> struct alignas(2 * sizeof(T)) pair2 {
    T x, y;
};

template <typename Tc> struct pivot_info {
    Tc inv; /* 1 / pivot */
    int p;  /* pivot row, -1 when the step fails */
};

/* Column j in pairs: rows ty + GY (2q) and ty + GY (2q + 1) at col[q GY + ty], so that a
 * thread reads its rows' factors two at a time, and a warp reads consecutive pairs. */
template <int KP, int GY, typename Tc> struct tile_shared {
    pair2<Tc> col[2][KP / 2];
    pivot_info<Tc> piv[2];
    double rowsum[KP];
    int row_step[KP], piv_row[KP];
    double red[32];
    int ired[32];
    double anorm; /* thread 0's, kept here across the steps */
};

template <int V> struct int_c {
    static constexpr int value = V;
};

/* f(int_c<mp>()) for LO <= mp < HI: a tree of branches on a value that is the same in the
 * whole block, so that registers are indexed by constants. */
template <int LO, int HI, typename F> __device__ __forceinline__ void with_row(int mp, F &&f) {
    if constexpr (HI - LO == 1) {
        f(int_c<LO>());
    } else {
        constexpr int MID = (LO + HI) / 2;
        if (mp < MID)
            with_row<LO, MID>(mp, f);
        else
            with_row<MID, HI>(mp, f);
    }
}

/* The member's entries: a[m][c] = a(ty + GY m, tx + GX c), the identity past n. */
template <int KP, int GY, int GX, typename Tio, typename Tc>
__device__ __forceinline__ void load_tile(Tc (&a)[KP / GY][KP / GX], const Tio *am, int64_t lda, int n, int ty,
                                          int tx) {
#pragma unroll
    for (int c = 0; c < KP / GX; c++) {
        const Tio *col = am + ty + (tx + GX * c) * lda;
#pragma unroll
        for (int m = 0; m < KP / GY; m++) {
            const int i = ty + GY * m, j = tx + GX * c;
            a[m][c] = i < n && j < n ? (Tc)col[GY * m] : (i == j ? Tc(1) : Tc(0));
        }
    }
}

/* block_reduce for a block of WARPS warps. */
template <int WARPS, typename T, typename Op> __device__ T tile_reduce(T v, T *scratch, Op op) {
    for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(FULL_MASK, v, o));
    __syncthreads(); /* scratch may still be read from a previous reduction */
    if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
    __syncthreads();
    v = scratch[0];
#pragma unroll
    for (int w = 1; w < WARPS; w++) v = op(v, scratch[w]);
    return v;
}

/* max over the member's rows of the sums of |a_ij| (the rows below n only). */
template <int KP, int GY, int GX, typename Tc>
__device__ double norm_inf(const Tc (&a)[KP / GY][KP / GX], tile_shared<KP, GY, Tc> &s, int n, int ty) {
    if (threadIdx.x < KP) s.rowsum[threadIdx.x] = 0;
    __syncthreads();
#pragma unroll
    for (int m = 0; m < KP / GY; m++) {
        double part = 0;
#pragma unroll
        for (int c = 0; c < KP / GX; c++) part += (double)fabs(a[m][c]);
        atomicAdd(&s.rowsum[ty + GY * m], part);
    }
    __syncthreads();
    const double v = threadIdx.x < n ? s.rowsum[threadIdx.x] : 0;
    return tile_reduce<GY * GX / 32>(v, s.red, op_max());
}

/* Gauss-Jordan on the block's matrix (see batched.cuh); returns the failing column or -1,
 * the same in every thread. The pivot is the largest |a| among the rows not yet pivoted
 * (NaN never), the lowest row on ties. Each entry's update is one fused multiply-add:
 * column j is zeroed first by the threads that hold it (their t is then 1/pivot), and the
 * pivot row, whose update is a waste, is overwritten with t by the threads that hold it. */
template <int KP, int GY, int GX, typename Tc>
__device__ int tile_steps(Tc (&a)[KP / GY][KP / GX], tile_shared<KP, GY, Tc> &s, bool pivoting, int ty, int tx) {
    constexpr int TR = KP / GY, TC = KP / GX;
    static_assert(32 % GY == 0 && TR % 2 == 0 && TR <= 32, "tile shape");
    const int lane = threadIdx.x % 32, base = lane & ~(GY - 1);
    unsigned pivoted = 0; /* bit m: row ty + GY m has been a pivot row */
    __syncthreads();      /* a previous attempt may still be reading shared memory */
    if (threadIdx.x < KP) s.row_step[threadIdx.x] = -1;
    __syncthreads();
#pragma unroll
    for (int cn = 0; cn < TC; cn++) {
        for (int jx = 0; jx < GX; jx++) {
            const int j = cn * GX + jx, buf = j & 1;
            const bool holds_column = tx == jx;
            if (threadIdx.x / 32 == jx * GY / 32) {
                /* the warp of column j: every group finds the pivot of its column (rows not
                 * candidates count as 0, NaN too: a step whose largest candidate is 0 fails
                 * whichever row wins); without pivoting only row j is a candidate */
                const unsigned out = pivoting ? pivoted : (ty == j % GY ? ~(1u << (j / GY)) : ~0u);
                Tc val[TR];
                int idx[TR];
#pragma unroll
                for (int m = 0; m < TR; m++) {
                    const Tc v = a[m][cn];
                    val[m] = !(out & 1u << m) && fabs(v) > Tc(0) ? v : Tc(0);
                    idx[m] = m;
                }
#pragma unroll
                for (int w = 1; w < TR; w *= 2) /* a tree, the lower rows first */
#pragma unroll
                    for (int m = 0; m + w < TR; m += 2 * w)
                        if (fabs(val[m + w]) > fabs(val[m])) {
                            val[m] = val[m + w];
                            idx[m] = idx[m + w];
                        }
                Tc bv = val[0];
                int br = ty + GY * idx[0];
#pragma unroll
                for (int o = GY / 2; o > 0; o /= 2) {
                    const Tc ov = __shfl_xor_sync(FULL_MASK, bv, o);
                    const int orow = __shfl_xor_sync(FULL_MASK, br, o);
                    if (fabs(ov) > fabs(bv) || (fabs(ov) == fabs(bv) && orow < br)) {
                        bv = ov;
                        br = orow;
                    }
                }
                if (holds_column) {
#pragma unroll
                    for (int q = 0; q < TR / 2; q++) s.col[buf][q * GY + ty] = {a[2 * q][cn], a[2 * q + 1][cn]};
                    if (ty == 0) {
                        const bool fail = pivoting ? !(fabs(bv) > Tc(0)) : !(bv > Tc(0));
                        s.piv[buf] = {Tc(1) / bv, fail ? -1 : br};
                        if (!fail) {
                            s.row_step[br] = j;
                            s.piv_row[j] = br;
                        }
                    }
                }
#pragma unroll
                for (int m = 0; m < TR; m++)
                    if (holds_column)
                        a[m][cn] = Tc(0);
            }
            __syncthreads();
            const pivot_info<Tc> pi = s.piv[buf];
            if (pi.p < 0)
                return j;
            const int mp = pi.p / GY, typ = pi.p % GY;
            const bool holds_pivot_row = ty == typ;
            Tc v[TC], t[TC];
            with_row<0, TR>(mp, [&](auto M) {
#pragma unroll
                for (int c = 0; c < TC; c++) v[c] = a[decltype(M)::value][c];
            });
#pragma unroll
            for (int c = 0; c < TC; c++) t[c] = __shfl_sync(FULL_MASK, v[c], base | typ) * pi.inv;
            if (holds_column)
                t[cn] = pi.inv;
#pragma unroll
            for (int q = 0; q < TR / 2; q++) {
                const pair2<Tc> f = s.col[buf][q * GY + ty];
#pragma unroll
                for (int c = 0; c < TC; c++) {
                    a[2 * q][c] -= f.x * t[c];
                    a[2 * q + 1][c] -= f.y * t[c];
                }
            }
            if (holds_pivot_row) {
                with_row<0, TR>(mp, [&](auto M) {
#pragma unroll
                    for (int c = 0; c < TC; c++) a[decltype(M)::value][c] = t[c];
                });
                pivoted |= 1u << mp;
            }
        }
    }
    __syncthreads();
    return -1;
}

/* blockIdx.x, read where it is used */
__device__ __forceinline__ int64_t member() {
    unsigned b;
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
    return b;
}

template <int KP, typename Tio, typename Tc, typename Tout>
__global__ void __launch_bounds__(tile_shape<KP>::THREADS, tile_shape<KP>::MIN_BLOCKS) gj_tile_kernel(batch_args p) {
    constexpr int GY = tile_shape<KP>::GY, GX = tile_shape<KP>::GX;
    constexpr int TR = KP / GY, TC = KP / GX, WARPS = GY * GX / 32;
    __shared__ tile_shared<KP, GY, Tc> s;
    const int64_t m = member();
    const int n = p.sizes ? p.sizes[m] : p.k;
    const int ty = threadIdx.x % GY, tx = threadIdx.x / GY;
    const Tio *am = (const Tio *)p.a + m * p.sa;
    int32_t *res = p.res + m * RES_INTS;
    Tc a[TR][TC];

    /* the checks on the first pass; AUTO: again, pivoted (one call site each of the load and
     * the steps, so that their code is there once) */
    bool spd = false, first = true;
    int fail;
    for (;;) {
        /* what depends on these is made again for the retry, not kept across the steps */
        int n_ = n, ty_ = ty, tx_ = tx;
        const Tio *am_ = am;
        asm volatile("" : "+r"(n_), "+r"(ty_), "+r"(tx_), "+l"(am_));
        load_tile<KP, GY, GX>(a, am_, p.lda, n_, ty_, tx_);
        if (first) {
            int bad = KP;
#pragma unroll
            for (int i = 0; i < TR; i++)
#pragma unroll
                for (int c = 0; c < TC; c++)
                    if (!isfinite(a[i][c])) bad = min(bad, tx_ + GX * c);
            bad = tile_reduce<WARPS>(bad, s.ired, op_min());
            if (bad < KP) {
                if (threadIdx.x == 0) {
                    res[RES_STATUS] = MINV_ERR_NOT_FINITE;
                    res[RES_INFO] = bad;
                    res[RES_SPD] = 0;
                    p.rcond[m] = -1;
                }
                return;
            }
            const double anorm = norm_inf<KP, GY, GX>(a, s, n_, ty_);
            if (threadIdx.x == 0)
                s.anorm = anorm;

            if (p.mode != GJ_PIVOTED) {
                double asym = 0, amax = 0;
                int diag_ok = 1;
#pragma unroll
                for (int i = 0; i < TR; i++) {
                    const Tio *row = am_ + tx_ + (ty_ + GY * i) * p.lda; /* a(r, j) against a(j, r) */
#pragma unroll
                    for (int c = 0; c < TC; c++) {
                        const int r = ty_ + GY * i, j = tx_ + GX * c;
                        const double v = (double)a[i][c];
                        const double t = r < n_ && j < n_ ? (double)row[GX * c] : (r == j ? 1.0 : 0.0);
                        asym = fmax(asym, fabs(v - t));
                        amax = fmax(amax, fabs(v));
                        if (r == j) diag_ok &= v > 0;
                    }
                }
                asym = tile_reduce<WARPS>(asym, s.red, op_max());
                amax = tile_reduce<WARPS>(amax, s.red, op_max());
                diag_ok = tile_reduce<WARPS>(diag_ok, s.ired, op_min());
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
            first = false;
        }
        fail = tile_steps<KP, GY, GX>(a, s, !spd, ty_, tx_);
        if (fail < 0 || !spd || p.mode != GJ_AUTO)
            break;
        spd = false;
    }
    /* the member again, not kept across the steps */
    const int64_t me = member();
    res = p.res + me * RES_INTS;
    if (fail >= 0) {
        if (threadIdx.x == 0) {
            res[RES_STATUS] = spd ? MINV_ERR_NOT_SPD : MINV_ERR_SINGULAR;
            res[RES_INFO] = fail;
            res[RES_SPD] = 0;
            p.rcond[me] = -1;
        }
        return;
    }
    const double xnorm = norm_inf<KP, GY, GX>(a, s, n, ty);
    if (threadIdx.x == 0) {
        const double rcond = 1.0 / (s.anorm * xnorm);
        res[RES_STATUS] = below_eps<Tc>(rcond) ? MINV_ERR_SINGULAR : MINV_SUCCESS; /* written all the same */
        res[RES_INFO] = -1;
        res[RES_SPD] = spd;
        p.rcond[me] = rcond;
    }
    /* row p_j holds row j of A^-1 P^T: x(j, p_c) = a(p_j, c) */
    Tout *xm = (Tout *)p.x + me * p.sx, *xc[TC];
    int xr[TR];
#pragma unroll
    for (int c = 0; c < TC; c++) xc[c] = xm + s.piv_row[tx + GX * c] * p.ldx;
#pragma unroll
    for (int i = 0; i < TR; i++) xr[i] = s.row_step[ty + GY * i];
#pragma unroll
    for (int i = 0; i < TR; i++)
#pragma unroll
        for (int c = 0; c < TC; c++)
            if (ty + GY * i < n && tx + GX * c < n) xc[c][xr[i]] = (Tout)a[i][c];
}

template <int KP, typename Tio, typename Tc, typename Tout> void launch(const batch_args &p, cudaStream_t s) {
    gj_tile_kernel<KP, Tio, Tc, Tout><<<(unsigned)p.count, tile_shape<KP>::THREADS, 0, s>>>(p);
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
