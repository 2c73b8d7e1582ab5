// Tridiagonal inversion on the GPU, by the plan's path (src_c/tridiagonal.c chooses it; the
// per-entry arithmetic is src_c/tridiagonal.h's, which the CPU runs too):
//   write-once        a thread per row writes a block of its row, one multiply per entry,
//                     the warp's stores coalesced down each column: the kernel's cost is
//                     writing n^2 values once; the sampled residual X (A v) and the row sums
//                     of |X| are accumulated on the way, so the report costs no second pass
//   Sherman-Morrison  the paper: leaves, then per level a gather of w and z and a rank-one
//                     update of the merged blocks (each level touches n x 2h entries)
//   pivoted           a thread per row of A^-1 = A^-T e_t: forward sweep into the row, then
//                     backward (three passes over X; only for matrices that are dominant
//                     neither by rows nor by columns)
// Only the O(n) plan crosses PCIe; X stays on the device (the host form downloads it).
#include <math.h>
#include <stdlib.h>

#include "../src_c/tridiagonal.h"
#include "gpu.h"

namespace {

constexpr int ROWS = MINV_TRI_TILE; // threads per block: a tile of rows
constexpr int WIDTH = 4 * ROWS;     // columns per write-once block, a multiple of the tile
constexpr int SPLIT = 512;          // blocks across the columns of an update: each thread walks
                                    // several columns rather than a block per column

inline unsigned blocks(int64_t count, int per) { return (unsigned)((count + per - 1) / per); }

// ---- write-once ----

// x(i, j) = v; with RESID, v's share of (X av)_i for the two probes and of the row sum of |X|.
template <typename T, bool RESID>
__device__ inline void put(T *x, int64_t ld, int64_t i, int64_t j, double value, const double *s_av, int64_t at,
                           double acc[3]) {
    const T v = (T)value;
    x[j * ld + i] = v;
    if (RESID) {
        acc[0] += (double)v * s_av[at];
        acc[1] += (double)v * s_av[WIDTH + at];
        acc[2] += fabs((double)v);
    }
}

// Rows [blockIdx.x * ROWS, +ROWS) x columns [blockIdx.y * WIDTH, +WIDTH). Every thread of a
// warp steps through the same columns (rows not yet started are masked), so each store
// instruction writes consecutive rows of one column. With RESID: w = X av (two probes) and
// rowabs = row sums of |X|, added atomically per block.
template <typename T, bool RESID>
__global__ void __launch_bounds__(ROWS) write_once_kernel(minv_tri_gen g, T *x, int64_t ld, const double *av,
                                                          double *w, double *rowabs) {
    __shared__ double s_mup[WIDTH], s_mlo[WIDTH], s_col[WIDTH], s_av[RESID ? 2 * WIDTH : 1];
    const int64_t n = g.n, r0 = (int64_t)blockIdx.x * ROWS, i = r0 + threadIdx.x;
    const int64_t c0 = (int64_t)blockIdx.y * WIDTH, c1 = c0 + WIDTH < n ? c0 + WIDTH : n;
    for (int64_t j = c0 + threadIdx.x; j < c1; j += ROWS) {
        s_mup[j - c0] = g.mup[j];
        s_mlo[j - c0] = g.mlo[j];
        s_col[j - c0] = minv_tri_scale(g.scol, j);
        if (RESID) {
            s_av[j - c0] = av[j];
            s_av[WIDTH + j - c0] = av[n + j];
        }
    }
    __syncthreads();
    if (i >= n) return;
    const double si = minv_tri_scale(g.srow, i);
    double acc[3] = {0, 0, 0};
    if (r0 < c1) { // some row of the block reaches into the columns at or above its diagonal
        double p = minv_tri_upper_start(&g, i, c0);
        for (int64_t j = c0; j < c1; j++)
            if (j >= i) {
                if (j > i) p *= s_mup[j - c0];
                put<T, RESID>(x, ld, i, j, si * s_col[j - c0] * p, s_av, j - c0, acc);
            }
    }
    if (r0 + ROWS - 1 > c0) { // some row reaches below its diagonal
        double p = minv_tri_lower_start(&g, i, c1);
        for (int64_t j = c1 - 1; j >= c0; j--)
            if (j < i) {
                p *= s_mlo[j - c0];
                put<T, RESID>(x, ld, i, j, si * s_col[j - c0] * p, s_av, j - c0, acc);
            }
    }
    if (RESID) {
        atomicAdd(&w[i], acc[0]);
        atomicAdd(&w[n + i], acc[1]);
        atomicAdd(&rowabs[i], acc[2]);
    }
}

// ---- Sherman-Morrison ----

template <typename T>
__global__ void leaves_kernel(int64_t n, const double *dmod, const double *dl, const double *du, T *x, int64_t ld,
                              int *singular) {
    const int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, r = 2 * b;
    if (r >= n) return;
    double inv[4];
    double det = minv_tri_sm_leaf(n, dmod, dl, du, b, inv);
    if (det == 0 || !isfinite(det)) *singular = 1;
    x[r * ld + r] = (T)inv[0];
    if (r + 1 < n) {
        x[r * ld + r + 1] = (T)inv[1];
        x[(r + 1) * ld + r] = (T)inv[2];
        x[(r + 1) * ld + r + 1] = (T)inv[3];
    }
}

// w_i and z_i of every merge at half-size h, before any entry of the level changes.
template <typename T>
__global__ void gather_kernel(int64_t n, int64_t h, const double *dl, const double *du, const double *sign,
                              const T *x, int64_t ld, double *w, double *z, int *singular) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t s, mid, end;
    if (i >= n || !minv_tri_sm_block(n, h, i, &s, &mid, &end)) return;
    const int64_t k = mid - 1, at = i < mid ? k : mid;
    double den = minv_tri_sm_wz(i < mid, sign[k], dl[k], du[k], (double)x[k * ld + k], (double)x[mid * ld + mid],
                                (double)x[at * ld + i], (double)x[i * ld + at], &w[i], &z[i]);
    if (den == 0 || !isfinite(den)) *singular = 1;
}

// X(i, j) = [same half] X(i, j) - w_i z_j over the merged blocks: threads down the rows, the
// y-dimension across the 2h columns of each row's block.
template <typename T> __global__ void update_kernel(int64_t n, int64_t h, T *x, int64_t ld, const double *w, const double *z) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t s, mid, end;
    if (i >= n || !minv_tri_sm_block(n, h, i, &s, &mid, &end)) return;
    const double wi = w[i];
    for (int64_t j = s + blockIdx.y; j < end; j += gridDim.y) {
        T *e = x + j * ld + i;
        *e = (T)(((i < mid) == (j < mid) ? (double)*e : 0.0) - wi * z[j]);
    }
}

// ---- pivoted ----

// Thread t writes row t of A^-1; the block's threads step through the same i (rows whose
// forward sweep has not started yet are masked), so each step stores a contiguous piece of
// column i.
template <typename T> __global__ void pivoted_kernel(minv_tri_piv f, T *x, int64_t ld) {
    const int64_t n = f.n, t0 = (int64_t)blockIdx.x * blockDim.x, t = t0 + threadIdx.x;
    if (t >= n) return;
    const int64_t first = minv_tri_piv_first(t);
    double c = t == 0 ? 1.0 : 0.0;
#pragma unroll 8
    for (int64_t i = minv_tri_piv_first(t0); i + 1 < n; i++)
        if (i >= first) x[i * ld + t] = (T)minv_tri_piv_forward(&f, t, i, &c);
    x[(n - 1) * ld + t] = (T)c;
    double y1 = 0, y2 = 0;
#pragma unroll 8 // the loads of z run ahead of the chain through y
    for (int64_t i = n - 1; i >= 0; i--) {
        double y = minv_tri_piv_backward(&f, i, i >= first ? (double)x[i * ld + t] : 0.0, y1, y2);
        x[i * ld + t] = (T)y;
        y2 = y1;
        y1 = y;
    }
}

// ---- the full residual: R = A X - I from the bands, into a dense scratch ----
template <typename T>
__global__ void band_residual_kernel(int64_t n, const double *dl, const double *d, const double *du, const T *x,
                                     int64_t ld, T *r) {
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        const T *col = x + j * ld;
        r[j * n + i] = (T)minv_tri_residual_entry(dl, d, du, n, i, j, i > 0 ? (double)col[i - 1] : 0.0, (double)col[i],
                                                  i + 1 < n ? (double)col[i + 1] : 0.0);
    }
}

unsigned grid_y(int64_t count) { return (unsigned)(count < SPLIT ? count : SPLIT); }

// ---- the host side ----

minv_status upload(minv_context *ctx, void *dev, const void *host, size_t bytes) {
    minv_status status = MINV_SUCCESS;
    CUDA_TRY(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, ctx->gpu->stream));
cleanup:
    return status;
}

/* The plan's vectors in WS_SMALL, each at a multiple of 8 bytes: host[k] (bytes[k] of it),
 * or room only where host[k] is NULL. Vectors that lie together on the host go up in one
 * copy (each pageable copy costs tens of microseconds). */
minv_status upload_vectors(minv_context *ctx, int count, const void *const *host, const size_t *bytes, void **dev) {
    minv_status status = MINV_SUCCESS;
    size_t total = 0;
    void *p;
    for (int k = 0; k < count; k++) total += (bytes[k] + 7) / 8 * 8;
    const int slot = WS_SMALL;
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &total, &p));
    for (int k = 0, first = 0; k < count; k++) {
        dev[k] = p;
        p = (char *)p + (bytes[k] + 7) / 8 * 8;
        if (!host[k]) { /* room only */
            first = k + 1;
            continue;
        }
        const char *end = (const char *)host[k] + bytes[k];
        if (k + 1 < count && host[k + 1] == end && bytes[k] % 8 == 0)
            continue; /* the next vector continues this run */
        MINV_TRY(upload(ctx, dev[first], host[first], (size_t)(end - (const char *)host[first])));
        first = k + 1;
    }
cleanup:
    return status;
}

/* The residual's probe vectors in WS_VEC as residual.cu lays them out: v (uploaded when with_v),
 * A v, then X A v and the row sums of |X| (zeroed, for the write-once kernel's sums). */
minv_status upload_probes(minv_context *ctx, const minv_tri_plan *p, int with_v, minv_gpu_residual *res) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = p->n;
    const int slot = WS_VEC;
    const size_t bytes = (size_t)n * (3 * MINV_PROBES + 1) * sizeof(double);
    void *v;
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &v));
    *res = minv_gpu_residual{1, n, MINV_PROBES, (double *)v, (double *)v + (size_t)n * MINV_PROBES, minv_mat{}};
    if (with_v) MINV_TRY(upload(ctx, res->v, p->v, (size_t)n * MINV_PROBES * sizeof(double)));
    MINV_TRY(upload(ctx, res->av, p->av, (size_t)n * MINV_PROBES * sizeof(double)));
    CUDA_TRY(cudaMemsetAsync(res->av + (size_t)n * MINV_PROBES, 0, (size_t)n * (MINV_PROBES + 1) * sizeof(double),
                             ctx->gpu->stream));
cleanup:
    return status;
}

/* The sampled residual from the write-once kernel's sums, as minv_gpu_inverse_residual_end
 * computes it from its products. */
minv_status probes_ratio(minv_context *ctx, const minv_tri_plan *p, const minv_gpu_residual *res, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = p->n;
    double *host = (double *)malloc((size_t)n * (MINV_PROBES + 1) * sizeof(double));
    if (!host)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate residual vectors");
    CUDA_TRY(cudaMemcpyAsync(host, res->av + (size_t)n * MINV_PROBES, (size_t)n * (MINV_PROBES + 1) * sizeof(double),
                             cudaMemcpyDeviceToHost, ctx->gpu->stream));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    {
        double xnorm_inf = 0;
        for (int64_t i = 0; i < n; i++) {
            double r = host[(size_t)n * MINV_PROBES + i];
            if (r > xnorm_inf || isnan(r)) xnorm_inf = r;
        }
        report->residual = minv_probe_ratio(n, MINV_PROBES, p->v, host, xnorm_inf, p->anorm_inf);
        report->residual_kind = 1;
    }
cleanup:
    free(host);
    return status;
}

template <typename T> minv_status write_once(minv_context *ctx, const minv_tri_plan *p, minv_mat *x, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const minv_tri_gen &g = p->gen;
    const int64_t n = p->n;
    const size_t vec = (size_t)n * sizeof(double);
    const void *host[6] = {g.srow ? g.srow : g.scol, g.mup, g.mlo, g.su, g.pl, g.anchor};
    const size_t bytes[6] = {vec, vec, vec, vec, vec, (size_t)(g.nt * g.nt) * sizeof(double)};
    void *dev[6];
    minv_gpu_residual res{};
    const bool resid = ctx->residual_mode == 1;
    MINV_TRY(upload_vectors(ctx, 6, host, bytes, dev));
    if (resid) MINV_TRY(upload_probes(ctx, p, 0, &res));
    {
        const double *scale = (const double *)dev[0];
        minv_tri_gen dg = {n, g.nt, g.srow ? scale : nullptr, g.scol ? scale : nullptr, (const double *)dev[1],
                           (const double *)dev[2], (const double *)dev[3], (const double *)dev[4], (const double *)dev[5]};
        dim3 grid((unsigned)g.nt, blocks(n, WIDTH));
        double *w = resid ? res.av + (size_t)n * MINV_PROBES : nullptr, *rowabs = resid ? w + (size_t)n * MINV_PROBES : nullptr;
        if (resid)
            write_once_kernel<T, true><<<grid, ROWS, 0, ctx->gpu->stream>>>(dg, (T *)x->data, x->ld, res.av, w, rowabs);
        else
            write_once_kernel<T, false><<<grid, ROWS, 0, ctx->gpu->stream>>>(dg, (T *)x->data, x->ld, nullptr, nullptr, nullptr);
        LAUNCH_TRY();
    }
    if (resid) MINV_TRY(probes_ratio(ctx, p, &res, report));
    report->rcond = minv_tri_rcond(p, p->xnorm_1);
cleanup:
    return status;
}

/* A flag in WS_SCALAR that kernels set when a block is singular. */
minv_status singular_flag(minv_context *ctx, int **flag) {
    minv_status status = MINV_SUCCESS;
    const int slot = WS_SCALAR;
    const size_t bytes = 64;
    void *p;
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &p));
    *flag = (int *)p;
    CUDA_TRY(cudaMemsetAsync(p, 0, sizeof(int), ctx->gpu->stream));
cleanup:
    return status;
}

template <typename T> minv_status sherman_morrison(minv_context *ctx, const minv_tri_plan *p, minv_mat *x) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = p->n;
    cudaStream_t s = ctx->gpu->stream;
    const size_t vec = (size_t)n * sizeof(double);
    const void *host[6] = {p->dmod, p->dl, p->du, p->sign, nullptr, nullptr}; /* then w and z */
    const size_t bytes[6] = {vec, vec, vec, vec, vec, vec};
    void *dev[6];
    int *flag, singular = 0;
    MINV_TRY(upload_vectors(ctx, 6, host, bytes, dev));
    MINV_TRY(singular_flag(ctx, &flag));
    {
        const double *dmod = (const double *)dev[0], *dl = (const double *)dev[1], *du = (const double *)dev[2];
        const double *sign = (const double *)dev[3];
        double *w = (double *)dev[4], *z = (double *)dev[5];
        leaves_kernel<T><<<blocks((n + 1) / 2, 256), 256, 0, s>>>(n, dmod, dl, du, (T *)x->data, x->ld, flag);
        LAUNCH_TRY();
        for (int64_t h = 2; h < n; h *= 2) {
            gather_kernel<T><<<blocks(n, 256), 256, 0, s>>>(n, h, dl, du, sign, (const T *)x->data, x->ld, w, z, flag);
            LAUNCH_TRY();
            update_kernel<T><<<dim3(blocks(n, 256), grid_y(2 * h)), 256, 0, s>>>(n, h, (T *)x->data, x->ld, w, z);
            LAUNCH_TRY();
        }
    }
    CUDA_TRY(cudaMemcpyAsync(&singular, flag, sizeof singular, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    if (singular)
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "a Sherman-Morrison block is singular in floating point");
cleanup:
    return status;
}

template <typename T> minv_status pivoted(minv_context *ctx, const minv_tri_plan *p, minv_mat *x) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = p->n;
    const size_t vec = (size_t)n * sizeof(double);
    const void *host[5] = {p->piv.l, p->piv.u1, p->piv.u2, p->piv.rd, p->piv.swap};
    const size_t bytes[5] = {vec, vec, vec, vec, (size_t)n * sizeof(int)};
    void *dev[5];
    MINV_TRY(upload_vectors(ctx, 5, host, bytes, dev));
    {
        const minv_tri_piv f = {n, (const double *)dev[0], (const double *)dev[1], (const double *)dev[2],
                                (const double *)dev[3], (const int *)dev[4]};
        pivoted_kernel<T><<<blocks(n, ROWS), ROWS, 0, ctx->gpu->stream>>>(f, (T *)x->data, x->ld);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

/* ||I - A X||_1 / (n ||A||_1 ||X||_1), R = A X - I formed in a scratch matrix (WS_C). */
template <typename T> minv_status full_residual(minv_context *ctx, const minv_tri_plan *p, const minv_mat *x, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = p->n;
    cudaStream_t s = ctx->gpu->stream;
    const size_t vec = (size_t)n * sizeof(double);
    const void *host[3] = {p->dl, p->d, p->du};
    const size_t vecs[3] = {vec, vec, vec};
    void *dev[3], *ptrs[2];
    double norms[2];
    const int slots[2] = {WS_C, WS_SCALAR};
    const size_t bytes[2] = {(size_t)n * (size_t)n * sizeof(T), 64};
    MINV_TRY(upload_vectors(ctx, 3, host, vecs, dev));
    MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, ptrs));
    band_residual_kernel<T><<<dim3(blocks(n, 256), grid_y(n)), 256, 0, s>>>(
        n, (const double *)dev[0], (const double *)dev[1], (const double *)dev[2], (const T *)x->data, x->ld, (T *)ptrs[0]);
    LAUNCH_TRY();
    minv_k_norm1<T>((const T *)ptrs[0], n, n, n, (double *)ptrs[1], s);
    minv_k_norm1<T>((const T *)x->data, n, n, x->ld, (double *)ptrs[1] + 1, s);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(norms, ptrs[1], sizeof norms, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    report->residual = norms[0] == 0 ? 0 : norms[0] / ((double)n * p->anorm_1 * norms[1]);
    report->residual_kind = 2;
cleanup:
    return status;
}

template <typename T> minv_status invert(minv_context *ctx, const minv_tri_plan *p, minv_mat *x, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_analysis an{};
    an.norm_1 = p->anorm_1;
    an.norm_inf = p->anorm_inf;
    if (p->path == MINV_TRIDIAGONAL_WRITE_ONCE) {
        MINV_TRY(write_once<T>(ctx, p, x, report));
    } else {
        if (p->path == MINV_TRIDIAGONAL_SHERMAN_MORRISON) MINV_TRY(sherman_morrison<T>(ctx, p, x));
        else MINV_TRY(pivoted<T>(ctx, p, x));
        MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, &an, report));
        if (ctx->residual_mode == 1) {
            minv_gpu_residual res;
            MINV_TRY(upload_probes(ctx, p, 1, &res));
            MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, &an, report));
        }
    }
    if (ctx->residual_mode == 2) MINV_TRY(full_residual<T>(ctx, p, x, report));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_tridiagonal_invert_device(minv_context *ctx, const minv_tri_plan *p, minv_mat *x, minv_report *report) {
    return x->dtype == MINV_R64 ? invert<double>(ctx, p, x, report) : invert<float>(ctx, p, x, report);
}

minv_status minv_gpu_tridiagonal_invert_host(minv_context *ctx, const minv_tri_plan *p, minv_mat *x, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int slot = WS_B;
    const size_t bytes = (size_t)p->n * (size_t)p->n * (size_t)x->dtype;
    void *dev;
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev));
    {
        minv_mat d = {x->dtype, p->n, p->n, p->n, dev};
        MINV_TRY(minv_gpu_tridiagonal_invert_device(ctx, p, &d, report));
        MINV_TRY(minv_gpu_download(ctx, dev, x));
    }
cleanup:
    return status;
}

minv_status minv_gpu_download_vector(minv_context *ctx, const void *dev, int64_t stride, int64_t count, minv_dtype t,
                                     void *host) {
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)t;
    if (count <= 0)
        return MINV_SUCCESS;
    if (stride == 1) /* one contiguous copy, not count rows of one element */
        CUDA_TRY(cudaMemcpyAsync(host, dev, (size_t)count * es, cudaMemcpyDeviceToHost, ctx->gpu->stream));
    else
        CUDA_TRY(cudaMemcpy2DAsync(host, es, dev, (size_t)stride * es, es, (size_t)count, cudaMemcpyDeviceToHost,
                                   ctx->gpu->stream));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
cleanup:
    return status;
}
