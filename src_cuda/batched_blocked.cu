// Batches of order k > 128. General members: Gauss-Jordan by panels of nb columns. A block
// per matrix runs the panel's nb steps on the k x nb panel in shared memory (pivot rows chosen
// among all rows not yet used); what a set of steps did to the other columns is one rank update,
//   A(:, out) <- A(:, out) with the pivot rows zeroed + P * A(pivot rows, out),
// with P the finished columns of those steps, applied left and right of them by cuBLAS strided
// batched GEMM. Two levels keep the GEMMs few and wide: a panel updates only the other
// columns of its outer block (4 panels), and an outer block, once done, updates the rest of
// the matrix at once. The matrices are worked on in a copy in the compute type; a last kernel
// writes the inverse in place of the pivoting (see batched.cuh).
// SPD members (the Cholesky method): L by cuSOLVER's potrfBatched, W = L^-1 by one cuBLAS
// trsmBatched on the identity, A^-1 = W^T W by one strided batched GEMM. cuSOLVER's potrf +
// two trsm (what a user would write) spends two thirds of its time in the trsm (k = 256 on an
// H100: potrf 1.7 ms, each trsm 3.4, the GEMM 0.7, for 1000 members); one trsm fewer beats it.
#include "batched.cuh"

namespace {

constexpr int THREADS = 256;

/* Columns of an outer block; the width of the update buffers (an outer block, or a panel when
 * one outer block is the whole matrix). */
int outer_width(int nb) { return 4 * nb; }
int update_width(int k, int nb) { return k > outer_width(nb) ? outer_width(nb) : nb; }

/* The workspace of `count` members, carved in this order, each part 256-byte aligned. */
struct blocked_ws {
    void *w;           /* k x k per member, the working copy */
    void *panel;       /* k x update_width: finished columns, for a GEMM */
    void *rows;        /* update_width x k: their pivot rows, taken out of w */
    int32_t *row_step; /* k per member: the step at which a row was the pivot, -1 before */
    int32_t *piv_row;  /* k per member: the pivot row of each step */
    double *anorm;     /* per member: ||A||_inf */
};

size_t align256(size_t b) { return (b + 255) & ~(size_t)255; }

blocked_ws carve(void *work, int64_t count, int k, int nb, minv_dtype tc) {
    blocked_ws ws;
    char *p = (char *)work;
    const size_t c = (size_t)count, kk = (size_t)k, es = (size_t)tc, uw = (size_t)update_width(k, nb);
    ws.w = p;
    p += align256(c * kk * kk * es);
    ws.panel = p;
    p += align256(c * kk * uw * es);
    ws.rows = p;
    p += align256(c * kk * uw * es);
    ws.row_step = (int32_t *)p;
    p += align256(c * kk * sizeof(int32_t));
    ws.piv_row = (int32_t *)p;
    p += align256(c * kk * sizeof(int32_t));
    ws.anorm = (double *)p;
    return ws;
}

/* The working copy (the identity beyond a member's order), ||A||_inf, NaN and symmetry checks
 * and the initial outcome; a thread per row. */
template <typename Tio, typename Tc>
__global__ void __launch_bounds__(THREADS) prepare_kernel(batch_args p, blocked_ws ws) {
    __shared__ double red[32];
    __shared__ int ired[32];
    const int64_t m = blockIdx.x;
    const int k = p.k, n = p.sizes ? p.sizes[m] : k;
    const Tio *am = (const Tio *)p.a + m * p.sa;
    Tc *w = (Tc *)ws.w + m * (int64_t)k * k;
    double rowmax = 0, asym = 0, amax = 0;
    int bad = k;
    for (int i = threadIdx.x; i < k; i += THREADS) {
        double rs = 0;
        for (int j = 0; j < k; j++) {
            const Tc v = i < n && j < n ? (Tc)am[i + (int64_t)j * p.lda] : (i == j ? Tc(1) : Tc(0));
            w[i + (int64_t)j * k] = v;
            rs += fabs((double)v);
            if (!isfinite((double)v)) bad = min(bad, j);
            if (p.mode == GJ_SPD) {
                const double t = i < n && j < n ? (double)am[j + (int64_t)i * p.lda] : (i == j ? 1.0 : 0.0);
                asym = fmax(asym, fabs((double)v - t));
                amax = fmax(amax, fabs((double)v));
            }
        }
        if (i < n) rowmax = fmax(rowmax, rs);
        ws.row_step[m * k + i] = -1;
    }
    rowmax = block_reduce(rowmax, red, op_max());
    bad = block_reduce(bad, ired, op_min());
    asym = block_reduce(asym, red, op_max());
    amax = block_reduce(amax, red, op_max());
    if (threadIdx.x == 0) {
        int32_t *res = p.res + m * RES_INTS;
        ws.anorm[m] = rowmax;
        res[RES_STATUS] = bad < k ? MINV_ERR_NOT_FINITE
                          : p.mode == GJ_SPD && !(asym <= p.sym_tol * amax) ? MINV_ERR_NOT_SPD
                                                                            : MINV_SUCCESS;
        res[RES_INFO] = bad < k ? bad : -1;
        res[RES_SPD] = 0;
        p.rcond[m] = -1;
    }
}

/* The steps of panel [j0, j0 + nbe) in shared memory (room for nb columns), pivoted, the panel
 * written back to w. */
template <typename Tc>
__global__ void __launch_bounds__(THREADS) panel_kernel(batch_args p, blocked_ws ws, int nb, int j0, int nbe) {
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ double red[32];
    __shared__ int ired[32];
    const int64_t m = blockIdx.x;
    const int k = p.k;
    if (p.res[m * RES_INTS + RES_STATUS] != MINV_SUCCESS)
        return; /* its GEMM updates touch its own, abandoned, copy only */
    Tc *panel = (Tc *)smem;              /* k x nbe, leading dimension k */
    Tc *rowbuf = panel + (size_t)k * nb; /* nb */
    int *row_step = (int *)(rowbuf + nb); /* k */
    Tc *w = (Tc *)ws.w + m * (int64_t)k * k;
    int32_t *g_row_step = ws.row_step + m * k, *g_piv_row = ws.piv_row + m * k;
    for (int i = threadIdx.x; i < k; i += THREADS) {
        row_step[i] = g_row_step[i];
        for (int c = 0; c < nbe; c++) panel[i + (size_t)c * k] = w[i + (int64_t)(j0 + c) * k];
    }
    __syncthreads();
    for (int jj = 0; jj < nbe; jj++) {
        const int j = j0 + jj;
        double cand = -1.0;
        int piv = k;
        for (int i = threadIdx.x; i < k; i += THREADS) {
            const double v = row_step[i] < 0 ? fabs((double)panel[i + (size_t)jj * k]) : -1.0;
            if (v > cand) {
                cand = v;
                piv = i;
            }
        }
        /* the block's argmax: each warp's, then the best of the warps, lowest row on ties */
        warp_argmax(cand, piv);
        if (threadIdx.x % 32 == 0) {
            red[threadIdx.x / 32] = cand;
            ired[threadIdx.x / 32] = piv;
        }
        __syncthreads();
        cand = red[0];
        piv = ired[0];
        for (int v = 1; v < THREADS / 32; v++)
            if (red[v] > cand || (red[v] == cand && ired[v] < piv)) {
                cand = red[v];
                piv = ired[v];
            }
        const Tc pv = panel[piv + (size_t)jj * k];
        if (!(cand > 0)) {
            if (threadIdx.x == 0) {
                p.res[m * RES_INTS + RES_STATUS] = MINV_ERR_SINGULAR;
                p.res[m * RES_INTS + RES_INFO] = j;
            }
            return;
        }
        if (threadIdx.x < nbe) rowbuf[threadIdx.x] = panel[piv + (size_t)threadIdx.x * k];
        __syncthreads(); /* red is read, rowbuf written */
        if (threadIdx.x == 0) {
            row_step[piv] = j;
            g_piv_row[j] = piv;
        }
        const Tc inv = Tc(1) / pv;
        for (int i = threadIdx.x; i < k; i += THREADS) {
            const Tc f = panel[i + (size_t)jj * k];
            for (int c = 0; c < nbe; c++) {
                const Tc t = c == jj ? inv : rowbuf[c] * inv;
                panel[i + (size_t)c * k] = i == piv ? t : (c == jj ? Tc(0) : panel[i + (size_t)c * k]) - f * t;
            }
        }
        __syncthreads();
    }
    for (int i = threadIdx.x; i < k; i += THREADS) {
        g_row_step[i] = row_step[i];
        for (int c = 0; c < nbe; c++) w[i + (int64_t)(j0 + c) * k] = panel[i + (size_t)c * k];
    }
}

/* For the update by steps [j0, j0 + width): their finished columns into ws.panel, and their
 * pivot rows over the columns [c0, c1) outside them into ws.rows (leading dimension uw),
 * zeroed in w. */
template <typename Tc>
__global__ void __launch_bounds__(THREADS) gather_kernel(batch_args p, blocked_ws ws, int uw, int j0, int width, int c0,
                                                          int c1) {
    const int64_t m = blockIdx.x;
    if (p.res[m * RES_INTS + RES_STATUS] != MINV_SUCCESS)
        return;
    const int k = p.k;
    Tc *w = (Tc *)ws.w + m * (int64_t)k * k, *gp = (Tc *)ws.panel + m * (int64_t)k * uw,
       *gr = (Tc *)ws.rows + m * (int64_t)k * uw;
    const int32_t *piv_row = ws.piv_row + m * k + j0;
    for (int64_t e = threadIdx.x; e < (int64_t)k * width; e += THREADS)
        gp[e] = w[(int64_t)j0 * k + e];
    for (int64_t e = threadIdx.x; e < (int64_t)width * (c1 - c0); e += THREADS) {
        const int t = (int)(e % width), c = c0 + (int)(e / width);
        if (c >= j0 && c < j0 + width) continue;
        Tc *src = w + piv_row[t] + (int64_t)c * k;
        gr[t + (int64_t)c * uw] = *src;
        *src = Tc(0);
    }
}

/* Member m's result w (leading dimension k) into x, entry (i, c) at row row(i) and column
 * col(c), and its outcome: rcond = 1 / (||A||_inf ||A^-1||_inf), SINGULAR below eps (written
 * all the same). */
template <typename Tc, typename Tout, typename Row, typename Col>
__device__ void write_member(const batch_args &p, int64_t m, const Tc *w, double anorm, int spd, Row row, Col col) {
    __shared__ double red[32];
    const int k = p.k, n = p.sizes ? p.sizes[m] : k;
    Tout *xm = (Tout *)p.x + m * p.sx;
    double xmax = 0;
    for (int i = threadIdx.x; i < n; i += THREADS) {
        double rs = 0;
        for (int c = 0; c < n; c++) {
            const Tc v = w[i + (int64_t)c * k];
            rs += fabs((double)v);
            xm[row(i) + (int64_t)col(c) * p.ldx] = (Tout)v;
        }
        xmax = fmax(xmax, rs);
    }
    xmax = block_reduce(xmax, red, op_max());
    if (threadIdx.x == 0) {
        int32_t *res = p.res + m * RES_INTS;
        const double rcond = 1.0 / (anorm * xmax);
        if (below_eps<Tc>(rcond)) res[RES_STATUS] = MINV_ERR_SINGULAR;
        res[RES_SPD] = spd;
        p.rcond[m] = rcond;
    }
}

/* x(j, p_c) = w(p_j, c) for the members written. */
template <typename Tc, typename Tout>
__global__ void __launch_bounds__(THREADS) finish_kernel(batch_args p, blocked_ws ws) {
    const int64_t m = blockIdx.x;
    if (p.res[m * RES_INTS + RES_STATUS] != MINV_SUCCESS)
        return;
    const int k = p.k;
    const int32_t *row_step = ws.row_step + m * k, *piv_row = ws.piv_row + m * k;
    write_member<Tc, Tout>(p, m, (const Tc *)ws.w + m * (int64_t)k * k, ws.anorm[m], 0,
                           [=](int i) { return row_step[i]; }, [=](int c) { return piv_row[c]; });
}

size_t panel_smem(int k, int nb, minv_dtype tc) {
    return ((size_t)k * nb + nb) * (size_t)tc + (size_t)k * sizeof(int);
}

/* The update by steps [j0, j0 + width) of the columns [c0, c1) outside them: gather, then a
 * GEMM on each side. */
template <typename Tc>
minv_status update(minv_context *ctx, const batch_args &p, const blocked_ws &ws, int uw, int j0, int width, int c0,
                   int c1) {
    minv_status status = MINV_SUCCESS;
    minv_gpu *g = ctx->gpu;
    const int k = p.k, count = (int)p.count, right = j0 + width;
    const long long kk = (long long)k * k, ku = (long long)k * uw;
    Tc *w = (Tc *)ws.w, *panel = (Tc *)ws.panel, *rows = (Tc *)ws.rows;
    gather_kernel<Tc><<<count, THREADS, 0, g->stream>>>(p, ws, uw, j0, width, c0, c1);
    LAUNCH_TRY();
    if (j0 > c0)
        CUBLAS_TRY(minv_gemm_strided(g->blas, CUBLAS_OP_N, k, j0 - c0, width, 1.0, panel, k, ku, rows + (size_t)c0 * uw, uw, ku, 1.0,
                                     w + (size_t)c0 * k, k, kk, count));
    if (right < c1)
        CUBLAS_TRY(minv_gemm_strided(g->blas, CUBLAS_OP_N, k, c1 - right, width, 1.0, panel, k, ku, rows + (size_t)right * uw, uw, ku,
                                     1.0, w + (size_t)right * k, k, kk, count));
cleanup:
    return status;
}

template <typename Tio, typename Tc, typename Tout>
minv_status run(minv_context *ctx, const batch_args &p, int nb, void *work) {
    minv_status status = MINV_SUCCESS;
    minv_gpu *g = ctx->gpu;
    const int k = p.k, count = (int)p.count, outer = outer_width(nb), uw = update_width(k, nb);
    const blocked_ws ws = carve(work, p.count, k, nb, sizeof(Tc) == 8 ? MINV_R64 : MINV_R32);
    const size_t smem = panel_smem(k, nb, sizeof(Tc) == 8 ? MINV_R64 : MINV_R32);
    prepare_kernel<Tio, Tc><<<count, THREADS, 0, g->stream>>>(p, ws);
    LAUNCH_TRY();
    CUDA_TRY(cudaFuncSetAttribute(panel_kernel<Tc>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    for (int b0 = 0; b0 < k; b0 += outer) {
        const int b1 = b0 + outer < k ? b0 + outer : k;
        for (int j0 = b0; j0 < b1; j0 += nb) {
            const int nbe = nb < b1 - j0 ? nb : b1 - j0;
            panel_kernel<Tc><<<count, THREADS, smem, g->stream>>>(p, ws, nb, j0, nbe);
            LAUNCH_TRY();
            MINV_TRY(update<Tc>(ctx, p, ws, uw, j0, nbe, b0, b1));
        }
        if (b1 - b0 < k)
            MINV_TRY(update<Tc>(ctx, p, ws, uw, b0, b1 - b0, 0, k));
    }
    finish_kernel<Tc, Tout><<<count, THREADS, 0, g->stream>>>(p, ws);
    LAUNCH_TRY();
cleanup:
    return status;
}

/* The Cholesky path's workspace: the blocked one's first parts (w holds the factor, then
 * W^T W), W beside it, potrf's info and the pointer arrays the batched routines take. */
struct cholesky_ws {
    blocked_ws b;
    void *winv;     /* k x k per member: the identity, then W = L^-1 */
    int *info;      /* per member: potrf's */
    void **ptr_l;   /* per member: its factor, for potrfBatched and trsmBatched */
    void **ptr_w;   /* per member: its W */
};

size_t cholesky_bytes(int k, minv_dtype tc) {
    const size_t kk = (size_t)k;
    return 2 * kk * kk * (size_t)tc + kk * sizeof(int32_t) + sizeof(double) + sizeof(int) + 2 * sizeof(void *);
}

cholesky_ws carve_cholesky(void *work, int64_t count, int k, minv_dtype tc) {
    cholesky_ws ws;
    char *p = (char *)work;
    const size_t c = (size_t)count, kk = (size_t)k, es = (size_t)tc;
    ws.b = blocked_ws{};
    ws.b.w = p;
    p += align256(c * kk * kk * es);
    ws.winv = p;
    p += align256(c * kk * kk * es);
    ws.b.row_step = (int32_t *)p;
    p += align256(c * kk * sizeof(int32_t));
    ws.b.anorm = (double *)p;
    p += align256(c * sizeof(double));
    ws.info = (int *)p;
    p += align256(c * sizeof(int));
    ws.ptr_l = (void **)p;
    ws.ptr_w = ws.ptr_l + c;
    return ws;
}

/* The members' pointers, and the identity in W. */
template <typename Tc> __global__ void __launch_bounds__(THREADS) cholesky_setup_kernel(cholesky_ws ws, int k) {
    const int64_t m = blockIdx.x, kk = (int64_t)k * k;
    Tc *w = (Tc *)ws.winv + m * kk;
    if (threadIdx.x == 0) {
        ws.ptr_l[m] = (Tc *)ws.b.w + m * kk;
        ws.ptr_w[m] = w;
    }
    for (int64_t e = threadIdx.x; e < kk; e += THREADS) w[e] = e % k == e / k ? Tc(1) : Tc(0);
}

/* x = W^T W (in w) for the members written; a member potrf stopped at is NOT_SPD at that
 * column. */
template <typename Tc, typename Tout>
__global__ void __launch_bounds__(THREADS) cholesky_finish_kernel(batch_args p, cholesky_ws ws) {
    const int64_t m = blockIdx.x;
    int32_t *res = p.res + m * RES_INTS;
    if (res[RES_STATUS] != MINV_SUCCESS)
        return;
    if (ws.info[m] != 0) {
        if (threadIdx.x == 0) {
            res[RES_STATUS] = MINV_ERR_NOT_SPD;
            res[RES_INFO] = ws.info[m] - 1;
        }
        return;
    }
    write_member<Tc, Tout>(p, m, (const Tc *)ws.b.w + m * (int64_t)p.k * p.k, ws.b.anorm[m], 1,
                           [](int i) { return i; }, [](int c) { return c; });
}

cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int k, double **a, int *info, int count) {
    return cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, k, a, k, info, count);
}
cusolverStatus_t potrf_batched(cusolverDnHandle_t h, int k, float **a, int *info, int count) {
    return cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, k, a, k, info, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, int k, const double *const *l, double *const *w, int count) {
    const double one = 1;
    return cublasDtrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, k, k, &one,
                              l, k, w, k, count);
}
cublasStatus_t trsm_batched(cublasHandle_t h, int k, const float *const *l, float *const *w, int count) {
    const float one = 1;
    return cublasStrsmBatched(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, k, k, &one,
                              l, k, w, k, count);
}

template <typename Tio, typename Tc, typename Tout>
minv_status run_cholesky(minv_context *ctx, const batch_args &p, void *work) {
    minv_status status = MINV_SUCCESS;
    minv_gpu *g = ctx->gpu;
    const int k = p.k, count = (int)p.count;
    const long long kk = (long long)k * k;
    const cholesky_ws ws = carve_cholesky(work, p.count, k, sizeof(Tc) == 8 ? MINV_R64 : MINV_R32);
    prepare_kernel<Tio, Tc><<<count, THREADS, 0, g->stream>>>(p, ws.b); /* checks, ||A||_inf, w = A */
    LAUNCH_TRY();
    cholesky_setup_kernel<Tc><<<count, THREADS, 0, g->stream>>>(ws, k);
    LAUNCH_TRY();
    CUSOLVER_TRY(potrf_batched(g->solver, k, (Tc **)ws.ptr_l, ws.info, count));
    CUBLAS_TRY(trsm_batched(g->blas, k, (const Tc *const *)ws.ptr_l, (Tc *const *)ws.ptr_w, count));
    /* w = W^T W: W is lower triangular with exact zeros above (a forward substitution on I) */
    CUBLAS_TRY(minv_gemm_strided(g->blas, CUBLAS_OP_T, k, k, k, 1.0, (const Tc *)ws.winv, k, kk, (const Tc *)ws.winv, k,
                                 kk, 0.0, (Tc *)ws.b.w, k, kk, count));
    cholesky_finish_kernel<Tc, Tout><<<count, THREADS, 0, g->stream>>>(p, ws);
    LAUNCH_TRY();
cleanup:
    return status;
}

} // namespace

cublasStatus_t minv_gemm_strided(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, double alpha,
                                 const double *a, int lda, long long sa, const double *b, int ldb, long long sb,
                                 double beta, double *c, int ldc, long long sc, int count) {
    return cublasDgemmStridedBatched(h, ta, CUBLAS_OP_N, m, n, k, &alpha, a, lda, sa, b, ldb, sb, &beta, c, ldc,
                                     sc, count);
}

cublasStatus_t minv_gemm_strided(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, double alpha,
                                 const float *a, int lda, long long sa, const float *b, int ldb, long long sb,
                                 double beta, float *c, int ldc, long long sc, int count) {
    const float al = (float)alpha, be = (float)beta;
    return cublasSgemmStridedBatched(h, ta, CUBLAS_OP_N, m, n, k, &al, a, lda, sa, b, ldb, sb, &be, c, ldc, sc,
                                     count);
}

int minv_gpu_gj_blocked_panel(minv_context *ctx, int k, minv_dtype tc) {
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, ctx->gpu->device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    const size_t room = (size_t)optin - 2048; /* the kernel's static shared memory */
    for (int nb = 64; nb >= 4; nb /= 2)
        if (panel_smem(k, nb, tc) <= room) return nb;
    return 0;
}

size_t minv_gpu_gj_blocked_bytes(int k, int nb, minv_dtype tc, int spd) {
    const size_t kk = (size_t)k, es = (size_t)tc;
    if (spd) return cholesky_bytes(k, tc);
    return kk * kk * es + 2 * kk * (size_t)update_width(k, nb) * es + 2 * kk * sizeof(int32_t) + sizeof(double);
}

minv_status minv_gpu_gj_blocked(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc,
                                minv_dtype tout, int nb, void *work) {
    if (p.mode == GJ_SPD) {
        if (tio == MINV_R64) return run_cholesky<double, double, double>(ctx, p, work);
        if (tc == MINV_R32) return run_cholesky<float, float, float>(ctx, p, work);
        if (tout == MINV_R32) return run_cholesky<float, double, float>(ctx, p, work);
        return run_cholesky<float, double, double>(ctx, p, work);
    }
    if (tio == MINV_R64) return run<double, double, double>(ctx, p, nb, work);
    if (tc == MINV_R32) return run<float, float, float>(ctx, p, nb, work);
    if (tout == MINV_R32) return run<float, double, float>(ctx, p, nb, work);
    return run<float, double, double>(ctx, p, nb, work);
}
