// Residuals of batches, a block per member, as the CPU computes them (src_c/residual.c): for an
// inverse, probes A v taken before the inversion (it may overwrite A) and the sampled ratio
// max_v ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf) after it; for a solve, the ratio
// ||A x_j - b_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf) over sampled columns. Each member
// of order n uses minv_probe_vectors(v, n, MINV_PROBES), generated here by jumping ahead in the
// same sequence.
#include "batched.cuh"

namespace {

constexpr int THREADS = 256;

/* Entry e of minv_probe_vectors: the sign of its generator's state after e + 1 steps, found by
 * composing the affine step x -> a x + c with itself by squaring. */
__device__ double probe_entry(uint64_t e) {
    uint64_t steps = e + 1, am = 1, cm = 0, a = 6364136223846793005ull, c = 1442695040888963407ull;
    while (steps) {
        if (steps & 1) {
            am = a * am;
            cm = a * cm + c;
        }
        c = a * c + c;
        a = a * a;
        steps >>= 1;
    }
    return ((am * 0x9E3779B97F4A7C15ull + cm) >> 63) ? 1.0 : -1.0;
}

__device__ __forceinline__ int order(const batch_args &p, int64_t m) { return p.sizes ? p.sizes[m] : p.k; }

template <typename Tio> __global__ void __launch_bounds__(THREADS) probes_before_kernel(batch_args p, double *av, double *anorm) {
    extern __shared__ double v[]; /* MINV_PROBES * n */
    __shared__ double red[32];
    const int64_t m = blockIdx.x;
    const int n = order(p, m);
    const Tio *am = (const Tio *)p.a + m * p.sa;
    double *avm = av + m * MINV_PROBES * (int64_t)p.k;
    for (int e = threadIdx.x; e < MINV_PROBES * n; e += THREADS) v[e] = probe_entry((uint64_t)e);
    __syncthreads();
    double rowmax = 0;
    for (int i = threadIdx.x; i < n; i += THREADS) {
        double s0 = 0, s1 = 0, rs = 0;
        for (int c = 0; c < n; c++) {
            const double x = (double)am[i + (int64_t)c * p.lda];
            s0 += x * v[c];
            s1 += x * v[n + c];
            rs += fabs(x);
        }
        avm[i] = s0;
        avm[p.k + i] = s1;
        rowmax = fmax(rowmax, rs);
    }
    rowmax = block_reduce(rowmax, red, op_max());
    if (threadIdx.x == 0) anorm[m] = rowmax;
}

template <typename Tio>
__global__ void __launch_bounds__(THREADS) probes_after_kernel(batch_args p, const double *av, const double *anorm,
                                                               double *residual) {
    extern __shared__ double v[]; /* MINV_PROBES * n probes, then MINV_PROBES * n of A v */
    __shared__ double red[32];
    const int64_t m = blockIdx.x;
    if (!member_written(p.res, m)) {
        if (threadIdx.x == 0) residual[m] = -1;
        return;
    }
    const int n = order(p, m);
    double *avs = v + MINV_PROBES * n;
    const Tio *xm = (const Tio *)p.x + m * p.sx;
    const double *avm = av + m * MINV_PROBES * (int64_t)p.k;
    for (int e = threadIdx.x; e < MINV_PROBES * n; e += THREADS) {
        v[e] = probe_entry((uint64_t)e);
        avs[e] = avm[(e / n) * p.k + e % n];
    }
    __syncthreads();
    double xmax = 0, dmax = 0;
    for (int i = threadIdx.x; i < n; i += THREADS) {
        double w0 = 0, w1 = 0, rs = 0;
        for (int c = 0; c < n; c++) {
            const double x = (double)xm[i + (int64_t)c * p.ldx];
            w0 += x * avs[c];
            w1 += x * avs[n + c];
            rs += fabs(x);
        }
        xmax = fmax(xmax, rs);
        dmax = fmax(dmax, fmax(fabs(w0 - v[i]), fabs(w1 - v[n + i])));
    }
    xmax = block_reduce(xmax, red, op_max());
    dmax = block_reduce(dmax, red, op_max());
    if (threadIdx.x == 0) residual[m] = dmax == 0 ? 0 : dmax / (xmax * anorm[m]);
}

template <typename Tio>
__global__ void __launch_bounds__(THREADS) solve_residual_kernel(batch_args p, int64_t cols, double *residual) {
    extern __shared__ double xc[]; /* n: the sampled column of X */
    __shared__ double red[32];
    const int64_t m = blockIdx.x;
    if (!member_written(p.res, m)) {
        if (threadIdx.x == 0) residual[m] = -1;
        return;
    }
    const int n = order(p, m);
    const Tio *am = (const Tio *)p.a + m * p.sa, *bm = (const Tio *)p.b + m * p.sb, *xm = (const Tio *)p.x + m * p.sx;
    double anorm = 0, worst = 0;
    for (int64_t s = 0; s < cols; s++) {
        const int64_t q = cols == p.nrhs ? s : s * (p.nrhs - 1) / (cols - 1); /* minv_residual_column */
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += THREADS) xc[i] = (double)xm[i + q * p.ldx];
        __syncthreads();
        double rmax = 0, xmax = 0, bmax = 0, rowmax = 0;
        for (int i = threadIdx.x; i < n; i += THREADS) {
            double r = 0, rs = 0;
            for (int c = 0; c < n; c++) {
                const double a = (double)am[i + (int64_t)c * p.lda];
                r += a * xc[c];
                rs += fabs(a);
            }
            const double b = (double)bm[i + q * p.ldb];
            rmax = fmax(rmax, fabs(r - b));
            xmax = fmax(xmax, fabs(xc[i]));
            bmax = fmax(bmax, fabs(b));
            rowmax = fmax(rowmax, rs);
        }
        rmax = block_reduce(rmax, red, op_max());
        xmax = block_reduce(xmax, red, op_max());
        bmax = block_reduce(bmax, red, op_max());
        if (s == 0) anorm = block_reduce(rowmax, red, op_max());
        worst = fmax(worst, rmax == 0 ? 0 : rmax / (anorm * xmax + bmax));
    }
    if (threadIdx.x == 0) residual[m] = worst;
}

/* A block per member, with `smem` bytes of dynamic shared memory (allowed beyond the default
 * where it must be). */
template <typename... A>
minv_status launch(minv_context *ctx, void (*kernel)(A...), size_t smem, int64_t count, A... args) {
    minv_status status = MINV_SUCCESS;
    if (smem > 48 * 1024)
        CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    kernel<<<(unsigned)count, THREADS, smem, ctx->gpu->stream>>>(args...);
    LAUNCH_TRY();
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_probes_before(minv_context *ctx, const batch_args &p, minv_dtype tio, double *av, double *anorm) {
    return launch(ctx, tio == MINV_R64 ? probes_before_kernel<double> : probes_before_kernel<float>,
                  MINV_PROBES * (size_t)p.k * sizeof(double), p.count, p, av, anorm);
}

minv_status minv_gpu_probes_after(minv_context *ctx, const batch_args &p, minv_dtype tio, const double *av,
                                  const double *anorm, double *residual) {
    return launch(ctx, tio == MINV_R64 ? probes_after_kernel<double> : probes_after_kernel<float>,
                  2 * MINV_PROBES * (size_t)p.k * sizeof(double), p.count, p, av, anorm, residual);
}

minv_status minv_gpu_solve_residual(minv_context *ctx, const batch_args &p, minv_dtype tio, int64_t cols,
                                    double *residual) {
    return launch(ctx, tio == MINV_R64 ? solve_residual_kernel<double> : solve_residual_kernel<float>,
                  (size_t)p.k * sizeof(double), p.count, p, cols, residual);
}
