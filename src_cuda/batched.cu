// The GPU backend's batches: the path for the order (registers of a warp for k <= 32, of a
// block for k <= 128, blocked Gauss-Jordan beyond), chunks of members that fit the device
// budget, host batches staged through pinned buffers (gathered, padded to a uniform order,
// converted on the device), solves, residuals, and the members' outcomes back to the core.
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "batched.cuh"

namespace {

enum path_kind { PATH_SMALL, PATH_TILE, PATH_BLOCKED };

struct plan {
    path_kind path;
    int k, nb, mode;
    minv_dtype tio, tc;
    int nrhs;          /* 0 to invert */
    int residual;      /* compute residuals */
    int64_t res_cols;  /* solves: the sampled columns */
};

/* Pinned staging a host chunk may use in all. */
const size_t PINNED_BUDGET = (size_t)512 << 20;
const size_t ALIGN = 256;

size_t aligned(size_t b) { return (b + ALIGN - 1) & ~(ALIGN - 1); }

minv_status make_plan(minv_context *ctx, minv_method method, minv_dtype tio, minv_dtype tc, int64_t k, int64_t nrhs,
                      plan *pl, minv_batch_report *r) {
    if (method == MINV_METHOD_LU)
        return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED,
                         "LU batches are not implemented on the GPU backend (Gauss-Jordan and the SPD path are)");
    if (k > INT_MAX / 2 || nrhs > INT_MAX)
        return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "order %lld or nrhs %lld is beyond the GPU batch kernels",
                         (long long)k, (long long)nrhs);
    pl->k = (int)k;
    pl->tio = tio;
    pl->tc = tc;
    pl->nrhs = (int)nrhs;
    pl->nb = 0;
    pl->path = k <= 32 ? PATH_SMALL : k <= 128 ? PATH_TILE : PATH_BLOCKED;
    if (pl->path == PATH_BLOCKED && !(pl->nb = minv_gpu_gj_blocked_panel(ctx, (int)k, tc)))
        return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "order %lld is beyond the shared memory of the GPU batch kernels",
                         (long long)k);
    pl->mode = method == MINV_METHOD_CHOLESKY ? GJ_SPD
               : method == MINV_METHOD_AUTO && pl->path != PATH_BLOCKED ? GJ_AUTO
                                                                        : GJ_PIVOTED;
    pl->residual = ctx->residual_mode > 0;
    pl->res_cols = nrhs ? minv_residual_columns(ctx->residual_mode, nrhs) : 0;
    r->method = method == MINV_METHOD_CHOLESKY ? MINV_METHOD_CHOLESKY : MINV_METHOD_GAUSS_JORDAN;
    r->residual_kind = !pl->residual ? 0 : nrhs ? ctx->residual_mode : 1;
    if (pl->path == PATH_SMALL)
        minv_batch_note(r, "GPU: Gauss-Jordan in registers, %d lane%s a matrix", k <= 1 ? 1 : 1 << (32 - __builtin_clz((unsigned)k - 1)),
                        k <= 1 ? "" : "s");
    else if (pl->path == PATH_TILE)
        minv_batch_note(r, "GPU: Gauss-Jordan in the registers of a thread block a matrix");
    else if (pl->mode == GJ_SPD)
        minv_batch_note(r, "GPU: Cholesky by cuSOLVER potrfBatched, L^-1 by cuBLAS trsmBatched, L^-T L^-1 by batched GEMM");
    else
        minv_batch_note(r, "GPU: blocked Gauss-Jordan, panels of %d columns, cuBLAS batched GEMM updates", pl->nb);
    if ((method == MINV_METHOD_CHOLESKY && pl->path != PATH_BLOCKED) || pl->mode == GJ_AUTO)
        minv_batch_note(r, "the SPD path is Gauss-Jordan without pivoting");
    if (method == MINV_METHOD_AUTO && pl->path == PATH_BLOCKED)
        minv_batch_note(r, "AUTO takes the pivoted path for every member of order > 128");
    if (nrhs && pl->path != PATH_SMALL)
        minv_batch_note(r, "solves multiply the inverse by B and refine once (cuBLAS batched GEMM)");
    if (tc != tio)
        minv_batch_note(r, "computed in double");
    if (!nrhs && ctx->residual_mode == 2)
        minv_batch_note(r, "sampled residuals: the full kind is computed for CPU batches only");
    return MINV_SUCCESS;
}

/* Device workspace of one member, beyond the caller's data. */
size_t work_bytes(const plan &pl) {
    const size_t k = (size_t)pl.k, tc = (size_t)pl.tc, nrhs = (size_t)pl.nrhs;
    size_t b = RES_INTS * sizeof(int32_t) + sizeof(double) + (pl.residual ? sizeof(double) : 0);
    if (pl.residual && !pl.nrhs) b += (MINV_PROBES * k + 1) * sizeof(double);
    if (pl.nrhs && pl.path != PATH_SMALL) b += 2 * (k * k * tc + k * nrhs * tc);
    if (pl.path == PATH_BLOCKED) b += minv_gpu_gj_blocked_bytes(pl.k, pl.nb, pl.tc, pl.mode == GJ_SPD);
    return b;
}
/* A device batch's tally: partial tallies of thread blocks, in front of its workspace. */
const int TALLY_THREADS = 256, TALLY_BLOCKS = 264;
const size_t TALLY_BYTES = aligned(TALLY_BLOCKS * sizeof(minv_batch_tally));
const size_t WORK_SLACK = 8 * ALIGN + MINV_GPU_BLOCKED_SLACK + TALLY_BYTES;

struct chunk_ws {
    int32_t *res;
    double *rcond, *residual, *av, *anorm;
    void *winv, *y, *bc, *ac, *blocked;
};

chunk_ws carve(void *work, const plan &pl, int64_t count) {
    const size_t c = (size_t)count, k = (size_t)pl.k, tc = (size_t)pl.tc, nrhs = (size_t)pl.nrhs;
    char *p = (char *)work;
    chunk_ws w = {};
    w.res = (int32_t *)p;
    p += aligned(c * RES_INTS * sizeof(int32_t));
    w.rcond = (double *)p;
    p += aligned(c * sizeof(double));
    if (pl.residual) {
        w.residual = (double *)p;
        p += aligned(c * sizeof(double));
    }
    if (pl.residual && !pl.nrhs) {
        w.av = (double *)p;
        p += aligned(c * MINV_PROBES * k * sizeof(double));
        w.anorm = (double *)p;
        p += aligned(c * sizeof(double));
    }
    if (pl.nrhs && pl.path != PATH_SMALL) {
        w.winv = p;
        p += aligned(c * k * k * tc);
        w.y = p;
        p += aligned(c * k * nrhs * tc);
        w.bc = p;
        p += aligned(c * k * nrhs * tc);
        w.ac = p;
        p += aligned(c * k * k * tc);
    }
    w.blocked = p;
    return w;
}

/* out_m = in_m (rows x cols, converted) for the members written (all when res is NULL); with
 * sizes, a member of order n gives its first n rows (and n columns when cols is SQUARE). */
constexpr int SQUARE = -1;

template <typename Tin, typename Tout>
__global__ void copy_members_kernel(const Tin *in, int64_t ldin, int64_t sin, Tout *out, int64_t ldout, int64_t sout,
                                    int rows, int cols, const int32_t *sizes, const int32_t *res) {
    const int64_t m = blockIdx.x;
    if (res && !member_written(res, m))
        return;
    const int n = sizes ? sizes[m] : rows;
    if (cols == SQUARE) cols = n;
    const Tin *im = in + m * sin;
    Tout *om = out + m * sout;
    for (int64_t e = threadIdx.x; e < (int64_t)n * cols; e += blockDim.x)
        om[e % n + (e / n) * ldout] = (Tout)im[e % n + (e / n) * ldin];
}

template <typename Tin, typename Tout>
minv_status copy_members(minv_context *ctx, const void *in, int64_t ldin, int64_t sin, void *out, int64_t ldout,
                         int64_t sout, int rows, int cols, int64_t count, const int32_t *sizes, const int32_t *res) {
    minv_status status = MINV_SUCCESS;
    copy_members_kernel<Tin, Tout><<<(unsigned)count, 256, 0, ctx->gpu->stream>>>(
        (const Tin *)in, ldin, sin, (Tout *)out, ldout, sout, rows, cols, sizes, res);
    LAUNCH_TRY();
cleanup:
    return status;
}

/* The members of one chunk in device memory, in the caller's layout. */
struct chunk_io {
    const void *a;
    int64_t lda, sa;
    const void *b; /* solves */
    int64_t ldb, sb;
    void *x;
    int64_t ldx, sx;
    const int32_t *sizes;
    int64_t count;
    int residual; /* B survives the solve (not in place), so its residual can be formed */
};

minv_status invert(minv_context *ctx, const plan &pl, const batch_args &p, minv_dtype tout, const chunk_ws &w) {
    switch (pl.path) {
    case PATH_SMALL: return minv_gpu_gj_small(ctx, p, pl.tio, pl.tc);
    case PATH_TILE: return minv_gpu_gj_tile(ctx, p, pl.tio, pl.tc, tout);
    default: return minv_gpu_gj_blocked(ctx, p, pl.tio, pl.tc, tout, pl.nb, w.blocked);
    }
}

/* A solve beyond the register kernel: the inverse into a workspace, Y = A^-1 B, then one step
 * of refinement, Y += A^-1 (B - A Y), copied out for the members written. A product with the
 * inverse alone leaves residuals of order cond(A) eps; the step brings them to a
 * backward-stable solve's, for two more GEMMs of k x nrhs. B and A are taken into the compute
 * type (zero-padded for members of smaller order), where B becomes the residual. */
template <typename Tc>
minv_status solve_by_inverse(minv_context *ctx, const plan &pl, const batch_args &p, const chunk_io &io,
                             const chunk_ws &w) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    cublasHandle_t h = ctx->gpu->blas;
    const int k = pl.k, nrhs = pl.nrhs, count = (int)io.count;
    const long long kk = (long long)k * k, kn = (long long)k * nrhs;
    const Tc *winv = (const Tc *)w.winv, *ac = (const Tc *)w.ac;
    Tc *bc = (Tc *)w.bc, *y = (Tc *)w.y;
    batch_args q = p;
    q.x = w.winv;
    q.ldx = k;
    q.sx = kk;
    if (io.sizes) { /* padded members: the GEMMs must meet zeros beside each member */
        CUDA_TRY(cudaMemsetAsync(w.winv, 0, (size_t)io.count * (size_t)kk * sizeof(Tc), s));
        CUDA_TRY(cudaMemsetAsync(w.ac, 0, (size_t)io.count * (size_t)kk * sizeof(Tc), s));
        CUDA_TRY(cudaMemsetAsync(w.bc, 0, (size_t)io.count * (size_t)kn * sizeof(Tc), s));
    }
    MINV_TRY(invert(ctx, pl, q, pl.tc, w));
    if (pl.tio == pl.tc) {
        MINV_TRY((copy_members<Tc, Tc>(ctx, io.b, io.ldb, io.sb, bc, k, kn, k, nrhs, io.count, io.sizes, p.res)));
        MINV_TRY((copy_members<Tc, Tc>(ctx, io.a, io.lda, io.sa, w.ac, k, kk, k, SQUARE, io.count, io.sizes, p.res)));
    } else {
        MINV_TRY((copy_members<float, double>(ctx, io.b, io.ldb, io.sb, bc, k, kn, k, nrhs, io.count, io.sizes, p.res)));
        MINV_TRY((copy_members<float, double>(ctx, io.a, io.lda, io.sa, w.ac, k, kk, k, SQUARE, io.count, io.sizes, p.res)));
    }
    CUBLAS_TRY(minv_gemm_strided(h, CUBLAS_OP_N, k, nrhs, k, 1.0, winv, k, kk, bc, k, kn, 0.0, y, k, kn, count));
    CUBLAS_TRY(minv_gemm_strided(h, CUBLAS_OP_N, k, nrhs, k, -1.0, ac, k, kk, y, k, kn, 1.0, bc, k, kn, count));
    CUBLAS_TRY(minv_gemm_strided(h, CUBLAS_OP_N, k, nrhs, k, 1.0, winv, k, kk, bc, k, kn, 1.0, y, k, kn, count));
    if (pl.tio == MINV_R64)
        MINV_TRY((copy_members<double, double>(ctx, y, k, kn, io.x, io.ldx, io.sx, k, nrhs, io.count, io.sizes, p.res)));
    else if (pl.tc == MINV_R64)
        MINV_TRY((copy_members<double, float>(ctx, y, k, kn, io.x, io.ldx, io.sx, k, nrhs, io.count, io.sizes, p.res)));
    else
        MINV_TRY((copy_members<float, float>(ctx, y, k, kn, io.x, io.ldx, io.sx, k, nrhs, io.count, io.sizes, p.res)));
cleanup:
    return status;
}

/* Every member of the chunk: outcomes to w.res, residuals to w.residual. */
minv_status run_chunk(minv_context *ctx, const plan &pl, const chunk_io &io, const chunk_ws &w) {
    minv_status status = MINV_SUCCESS;
    batch_args p = {};
    p.a = io.a;
    p.lda = io.lda;
    p.sa = io.sa;
    p.x = io.x;
    p.ldx = io.ldx;
    p.sx = io.sx;
    p.count = io.count;
    p.k = pl.k;
    p.sizes = io.sizes;
    p.mode = pl.mode;
    p.sym_tol = minv_symmetry_tol(ctx, pl.tio); /* the storage type's: its roundings are in the data */
    p.res = w.res;
    p.rcond = w.rcond;
    if (!pl.nrhs) {
        if (pl.residual) MINV_TRY(minv_gpu_probes_before(ctx, p, pl.tio, w.av, w.anorm));
        MINV_TRY(invert(ctx, pl, p, pl.tio, w));
        if (pl.residual) MINV_TRY(minv_gpu_probes_after(ctx, p, pl.tio, w.av, w.anorm, w.residual));
        return MINV_SUCCESS;
    }
    p.b = io.b;
    p.ldb = io.ldb;
    p.sb = io.sb;
    p.nrhs = pl.nrhs;
    if (pl.path == PATH_SMALL)
        MINV_TRY(minv_gpu_gj_small(ctx, p, pl.tio, pl.tc));
    else if (pl.tc == MINV_R64)
        MINV_TRY(solve_by_inverse<double>(ctx, pl, p, io, w));
    else
        MINV_TRY(solve_by_inverse<float>(ctx, pl, p, io, w));
    if (pl.residual && io.residual) MINV_TRY(minv_gpu_solve_residual(ctx, p, pl.tio, pl.res_cols, w.residual));
cleanup:
    return status;
}

/* Pinned memory for a chunk's outcomes: residuals, conditions, then the ints. */
struct outcomes {
    double *residual, *rcond;
    int32_t *res;
};
const size_t OUTCOME_BYTES = 2 * sizeof(double) + RES_INTS * sizeof(int32_t);

outcomes outcomes_at(void *pinned, int64_t chunk) {
    outcomes o;
    o.residual = (double *)pinned;
    o.rcond = o.residual + chunk;
    o.res = (int32_t *)(o.rcond + chunk);
    return o;
}

/* The outcomes of the members from the m-th on. */
outcomes outcomes_from(const outcomes &o, int64_t m) { return {o.residual + m, o.rcond + m, o.res + m * RES_INTS}; }

/* The outcomes of a chunk's count members copied back on the compute stream into o. */
minv_status fetch_outcomes(minv_context *ctx, const plan &pl, const chunk_ws &w, const outcomes &o, int64_t count) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    CUDA_TRY(cudaMemcpyAsync(o.res, w.res, count * RES_INTS * sizeof(int32_t), cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaMemcpyAsync(o.rcond, w.rcond, count * sizeof(double), cudaMemcpyDeviceToHost, s));
    if (pl.residual)
        CUDA_TRY(cudaMemcpyAsync(o.residual, w.residual, count * sizeof(double), cudaMemcpyDeviceToHost, s));
cleanup:
    return status;
}

/* Fetched outcomes into the core's arrays (rows m0...). */
void store_outcomes(const plan &pl, const outcomes &o, int64_t m0, int64_t count, int residual_valid,
                    minv_batch_results *out) {
    for (int64_t m = 0; m < count; m++) {
        out->status[m0 + m] = (minv_status)o.res[m * RES_INTS + RES_STATUS];
        out->info[m0 + m] = o.res[m * RES_INTS + RES_INFO];
        out->spd[m0 + m] = (int8_t)o.res[m * RES_INTS + RES_SPD];
        out->rcond[m0 + m] = o.rcond[m];
        out->residual[m0 + m] = pl.residual && residual_valid ? o.residual[m] : -1;
    }
}

/* The chunk's outcomes from the device, into the core's arrays (rows m0...). */
minv_status take_outcomes(minv_context *ctx, const plan &pl, const chunk_ws &w, const outcomes &o, int64_t m0,
                          int64_t count, int residual_valid, minv_batch_results *out) {
    minv_status status = MINV_SUCCESS;
    MINV_TRY(fetch_outcomes(ctx, pl, w, o, count));
    CUDA_TRY(cudaStreamSynchronize(ctx->gpu->stream));
    store_outcomes(pl, o, m0, count, residual_valid, out);
cleanup:
    return status;
}

/* The tally of a chunk's members on the device, one partial tally per thread block. */

__global__ void __launch_bounds__(TALLY_THREADS) tally_kernel(const int32_t *res, const double *rcond,
                                                               const double *residual, int k, int64_t m0,
                                                               int64_t count, minv_batch_tally *partial) {
    __shared__ minv_batch_tally t[TALLY_THREADS];
    minv_batch_tally own;
    minv_tally_init(&own);
    for (int64_t m = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; m < count; m += (int64_t)gridDim.x * blockDim.x)
        minv_tally_add(&own, m0 + m, res[m * RES_INTS + RES_STATUS], res[m * RES_INTS + RES_INFO],
                       res[m * RES_INTS + RES_SPD], k, rcond[m], residual ? residual[m] : -1);
    t[threadIdx.x] = own;
    __syncthreads();
    for (int half = TALLY_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half) minv_tally_merge(&t[threadIdx.x], &t[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = t[0];
}

/* The chunk's tally (members m0...) merged into `into`; partial is device scratch and pinned
 * host memory of TALLY_BLOCKS tallies each. */
minv_status tally_outcomes(minv_context *ctx, const plan &pl, const chunk_ws &w, int64_t m0, int64_t count,
                           int residual_valid, minv_batch_tally *dev_partial, minv_batch_tally *host_partial,
                           minv_batch_tally *into) {
    minv_status status = MINV_SUCCESS;
    cudaStream_t s = ctx->gpu->stream;
    const int blocks = (int)((count + TALLY_THREADS - 1) / TALLY_THREADS < TALLY_BLOCKS
                                 ? (count + TALLY_THREADS - 1) / TALLY_THREADS
                                 : TALLY_BLOCKS);
    tally_kernel<<<blocks, TALLY_THREADS, 0, s>>>(w.res, w.rcond, pl.residual && residual_valid ? w.residual : NULL,
                                                  pl.k, m0, count, dev_partial);
    LAUNCH_TRY();
    CUDA_TRY(cudaMemcpyAsync(host_partial, dev_partial, (size_t)blocks * sizeof *host_partial, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
    for (int b = 0; b < blocks; b++) minv_tally_merge(into, &host_partial[b]);
cleanup:
    return status;
}

/* How many members a chunk may hold: what is left of the budget over what each needs. */
int64_t chunk_members(minv_context *ctx, int64_t count, size_t device_per, size_t pinned_per) {
    double room = minv_gpu_available(ctx) * 0.95 - (double)WORK_SLACK;
    int64_t c = room > 0 ? (int64_t)(room / (double)device_per) : 0;
    if (pinned_per && (int64_t)(PINNED_BUDGET / pinned_per) < c) c = (int64_t)(PINNED_BUDGET / pinned_per);
    if (c > count) c = count;
    if (c > INT_MAX / 2) c = INT_MAX / 2;
    return c;
}

/* bytes from src to dst by stores that bypass the caches, where nothing reads dst soon after
 * (pinned staging the DMA engine reads next; a batch's results on their way back to the
 * caller): a plain copy first reads every destination line, a third more of the host memory
 * traffic that bounds host batches at k = 64 (bench/results/mpi_gpu_h100x2.md). Fenced before
 * it returns, so that the copy that follows sees them. */
void stream_copy(void *dst, const void *src, size_t bytes) {
#if defined(__SSE2__)
    char *d = (char *)dst;
    const char *s = (const char *)src;
    const size_t head = (16 - ((uintptr_t)d & 15)) & 15;
    if (bytes < head + 64) {
        memcpy(d, s, bytes);
        return;
    }
    memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
        const __m128i v0 = _mm_loadu_si128((const __m128i *)s), v1 = _mm_loadu_si128((const __m128i *)(s + 16));
        const __m128i v2 = _mm_loadu_si128((const __m128i *)(s + 32)), v3 = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, v0);
        _mm_stream_si128((__m128i *)(d + 16), v1);
        _mm_stream_si128((__m128i *)(d + 32), v2);
        _mm_stream_si128((__m128i *)(d + 48), v3);
    }
    memcpy(d, s, bytes);
    _mm_sfence();
#else
    memcpy(dst, src, bytes);
#endif
}

/* A host chunk's pieces: as many as the overlap of packing, transfers and unpacking needs,
 * each large enough that its kernels fill the GPU and its copies run at the link's rate. */
const size_t PIECE_BYTES = (size_t)16 << 20;

int64_t piece_members(int64_t chunk, size_t staged_per_member) {
    int64_t p = (int64_t)(PIECE_BYTES / staged_per_member);
    const int64_t most = MINV_GPU_BATCH_PIECES;
    if (p < (chunk + most - 1) / most) p = (chunk + most - 1) / most;
    return p < 1 ? 1 : p > chunk ? chunk : p;
}

/* Member m of a host batch into a dense k x cols slot of the staging buffer (the identity, or
 * zero rows, beyond its order). */
void pack_member(const minv_batch *h, int64_t m, int k, void *slot) {
    const int64_t n = minv_batch_order(h, m), cols = h->square ? k : h->cols;
    const size_t es = (size_t)h->dtype, bytes = (size_t)k * (size_t)cols * es;
    if (n == k) { /* the member fills its slot: no padding to clear */
        const minv_mat s = minv_batch_member(h, m);
        if (!h->index && s.ld == k) stream_copy(slot, s.data, bytes);
        else minv_batch_gather(h, m, h->dtype, slot, k);
        return;
    }
    memset(slot, 0, bytes);
    if (n > 0) minv_batch_gather(h, m, h->dtype, slot, k);
    if (h->square)
        for (int64_t i = n; i < k; i++) {
            char *d = (char *)slot + ((size_t)i * (size_t)k + (size_t)i) * es;
            if (h->dtype == MINV_R64) *(double *)d = 1;
            else *(float *)d = 1;
        }
}

/* Member m's k x cols result from its slot of the staging buffer into the caller's batch: one
 * that fills its slot and lies contiguous by stream_copy, else by the batch's scatter. */
void unpack_member(const minv_batch *x, int64_t m, minv_dtype t, int k, const void *slot) {
    const minv_mat d = minv_batch_member(x, m);
    const int64_t cols = x->square ? k : x->cols;
    if (d.rows == k && d.cols == cols && d.ld == k && d.dtype == t)
        stream_copy(d.data, slot, (size_t)k * (size_t)cols * (size_t)t);
    else
        minv_batch_scatter(x, m, t, slot, k);
}

/* Whether a host batch lies in page-locked memory as a device chunk holds it, members of order
 * k one after another: its pieces then travel by DMA straight from (or into) it. */
int lies_pinned(const minv_batch *h, int k, minv_dtype t) {
    const int64_t cols = h->square ? k : h->cols;
    return h->base && !h->sizes && !h->index && h->dtype == t && h->rows == k && h->ld == k && h->stride == k * cols &&
           minv_host_range_pinned(h->base, (size_t)h->count * (size_t)h->stride * (size_t)t);
}

/* The context's events for a chunk's pieces, created the first time. */
minv_status piece_events(minv_context *ctx, cudaEvent_t **ev) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    for (int e = 0; e < 3 * MINV_GPU_BATCH_PIECES; e++)
        if (!g->piece_events[e]) CUDA_TRY(cudaEventCreateWithFlags(&g->piece_events[e], cudaEventDisableTiming));
    *ev = g->piece_events;
cleanup:
    return status;
}

/* Whether member m's result goes back to the caller. */
bool written(const minv_batch *a, const minv_batch_results *res, int64_t m) {
    return minv_batch_order(a, m) > 0 && minv_member_written(res->status[m], res->info[m]);
}

/* Each chunk goes in pieces on three streams: a piece is packed into pinned buffers (or, lying
 * in page-locked memory, read where it is), sent on `up`, worked on with its outcomes fetched
 * on the compute stream, and sent back on `down`, while the host packs the next; the host
 * then takes each piece's outcomes and unpacks its results, or where the caller's output is
 * page-locked and every member of the piece succeeded, has them sent straight into it. The
 * pieces share the workspace: they run one after another on the compute stream. */
minv_status host_batched(minv_context *ctx, minv_method method, minv_dtype tc, const minv_batch *a,
                         const minv_batch *b, const minv_batch *x, minv_batch_results *res, minv_batch_report *r) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const minv_dtype tio = a->dtype;
    const int64_t count = a->count, nrhs = b ? b->cols : 0;
    const cudaStream_t up = g->copy[0], down = g->copy[1];
    cudaEvent_t *ev = NULL;
    plan pl;
    if (a->rows == 0) /* every member empty: nothing to do */
        return MINV_SUCCESS;
    MINV_TRY(make_plan(ctx, method, tio, tc, a->rows, nrhs, &pl, r));
    MINV_TRY(piece_events(ctx, &ev));
    {
        const size_t k = (size_t)pl.k, es = (size_t)tio, a_bytes = k * k * es;
        const size_t x_bytes = nrhs ? k * (size_t)nrhs * es : a_bytes, b_bytes = nrhs ? x_bytes : 0;
        const size_t sizes_bytes = a->sizes ? sizeof(int32_t) : 0;
        const size_t staged = a_bytes + x_bytes + b_bytes + sizes_bytes;
        const int direct_in = lies_pinned(a, pl.k, tio) && (!b || lies_pinned(b, pl.k, tio));
        const int direct_out = lies_pinned(x, pl.k, tio);
        const size_t pinned_per = OUTCOME_BYTES + sizes_bytes + (direct_in ? 0 : a_bytes + b_bytes) + (direct_out ? 0 : x_bytes);
        const int64_t chunk = chunk_members(ctx, count, staged + work_bytes(pl), pinned_per);
        if (chunk < 1) {
            status = minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "a member of order %lld needs %.3g MB of device memory, %.3g MB are left",
                               (long long)k, (double)(staged + work_bytes(pl) + WORK_SLACK) / 1e6, minv_gpu_available(ctx) / 1e6);
            goto cleanup;
        }
        const int64_t piece = piece_members(chunk, staged);
        cudaEvent_t *uploaded = ev, *computed = ev + MINV_GPU_BATCH_PIECES, *downloaded = ev + 2 * MINV_GPU_BATCH_PIECES;
        void *dev[5], *pin[4] = {};
        {
            const int slots[5] = {WS_A, WS_B, WS_C, WS_D, WS_SMALL};
            const size_t bytes[5] = {chunk * a_bytes, chunk * x_bytes, chunk * b_bytes + 1,
                                     chunk * work_bytes(pl) + WORK_SLACK, chunk * sizeof(int32_t) + 1};
            MINV_TRY(minv_gpu_reserve(ctx, 5, slots, bytes, dev));
        }
        if (!direct_in) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + 0, chunk * a_bytes, &pin[0]));
        if (!direct_in) MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + 2, chunk * b_bytes + 1, &pin[2]));
        /* straight back, it holds one piece at a time: a piece with a failed member */
        MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + 1, (direct_out ? piece : chunk) * x_bytes, &pin[1]));
        MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + 3, chunk * (OUTCOME_BYTES + sizeof(int32_t)), &pin[3]));
        const outcomes out = outcomes_at(pin[3], chunk);
        int32_t *pin_sizes = out.res + chunk * RES_INTS;
        const chunk_ws w = carve(dev[3], pl, piece);
        CUDA_TRY(cudaEventRecord(computed[0], g->stream)); /* the uploads after what the call has enqueued */
        CUDA_TRY(cudaStreamWaitEvent(up, computed[0], 0));
        for (int64_t m0 = 0; m0 < count; m0 += chunk) {
            const int64_t cnt = count - m0 < chunk ? count - m0 : chunk;
            for (int64_t p0 = 0, q = 0; p0 < cnt; p0 += piece, q++) {
                const int64_t pc = cnt - p0 < piece ? cnt - p0 : piece;
                const char *in_a = (const char *)pin[0] + (size_t)p0 * a_bytes,
                           *in_b = (const char *)pin[2] + (size_t)p0 * b_bytes;
                if (direct_in) {
                    in_a = (const char *)a->base + (size_t)(m0 + p0) * a_bytes;
                    in_b = b ? (const char *)b->base + (size_t)(m0 + p0) * b_bytes : NULL;
                } else {
#pragma omp parallel for schedule(dynamic, 64)
                    for (int64_t m = p0; m < p0 + pc; m++) {
                        pack_member(a, m0 + m, pl.k, (char *)pin[0] + (size_t)m * a_bytes);
                        if (b) pack_member(b, m0 + m, pl.k, (char *)pin[2] + (size_t)m * b_bytes);
                    }
                }
                if (a->sizes)
                    for (int64_t m = p0; m < p0 + pc; m++) pin_sizes[m] = (int32_t)a->sizes[m0 + m];
                char *da = (char *)dev[0] + (size_t)p0 * a_bytes, *db = (char *)dev[2] + (size_t)p0 * b_bytes,
                     *dx = (char *)dev[1] + (size_t)p0 * x_bytes;
                int32_t *dsizes = (int32_t *)dev[4] + p0;
                CUDA_TRY(cudaMemcpyAsync(da, in_a, pc * a_bytes, cudaMemcpyHostToDevice, up));
                if (b) CUDA_TRY(cudaMemcpyAsync(db, in_b, pc * b_bytes, cudaMemcpyHostToDevice, up));
                if (a->sizes)
                    CUDA_TRY(cudaMemcpyAsync(dsizes, pin_sizes + p0, pc * sizeof(int32_t), cudaMemcpyHostToDevice, up));
                CUDA_TRY(cudaEventRecord(uploaded[q], up));
                CUDA_TRY(cudaStreamWaitEvent(g->stream, uploaded[q], 0));
                const chunk_io io = {da, pl.k, (int64_t)(k * k), db, pl.k, (int64_t)(k * (size_t)nrhs),
                                     dx, pl.k, (int64_t)(x_bytes / es), a->sizes ? dsizes : NULL, pc, 1};
                MINV_TRY(run_chunk(ctx, pl, io, w));
                MINV_TRY(fetch_outcomes(ctx, pl, w, outcomes_from(out, p0), pc));
                CUDA_TRY(cudaEventRecord(computed[q], g->stream));
                if (!direct_out) {
                    CUDA_TRY(cudaStreamWaitEvent(down, computed[q], 0));
                    CUDA_TRY(cudaMemcpyAsync((char *)pin[1] + (size_t)p0 * x_bytes, dx, pc * x_bytes,
                                             cudaMemcpyDeviceToHost, down));
                    CUDA_TRY(cudaEventRecord(downloaded[q], down));
                }
            }
            for (int64_t p0 = 0, q = 0; p0 < cnt; p0 += piece, q++) {
                const int64_t pc = cnt - p0 < piece ? cnt - p0 : piece;
                CUDA_TRY(cudaEventSynchronize(computed[q]));
                store_outcomes(pl, outcomes_from(out, p0), m0 + p0, pc, 1, res);
                int64_t back = 0;
                for (int64_t m = m0 + p0; m < m0 + p0 + pc; m++) back += written(a, res, m);
                const char *dx = (const char *)dev[1] + (size_t)p0 * x_bytes;
                char *staged_x = (char *)pin[1] + (direct_out ? 0 : (size_t)p0 * x_bytes);
                if (back == 0) continue;
                if (direct_out && back == pc) {
                    CUDA_TRY(cudaMemcpyAsync((char *)x->base + (size_t)(m0 + p0) * x_bytes, dx, pc * x_bytes,
                                             cudaMemcpyDeviceToHost, down));
                    continue;
                }
                if (direct_out) { /* some members' outputs stay as they were: through the staging */
                    CUDA_TRY(cudaMemcpyAsync(staged_x, dx, pc * x_bytes, cudaMemcpyDeviceToHost, down));
                    CUDA_TRY(cudaEventRecord(downloaded[q], down));
                }
                CUDA_TRY(cudaEventSynchronize(downloaded[q]));
#pragma omp parallel for schedule(dynamic, 64)
                for (int64_t m = 0; m < pc; m++)
                    if (written(a, res, m0 + p0 + m)) unpack_member(x, m0 + p0 + m, tio, pl.k, staged_x + (size_t)m * x_bytes);
            }
            CUDA_TRY(cudaStreamSynchronize(down)); /* the results in before the next chunk takes the buffers */
        }
        if (chunk < count)
            minv_batch_note(r, "%lld chunks of up to %lld members%s", (long long)((count + chunk - 1) / chunk), (long long)chunk,
                            direct_in && direct_out ? "" : " through pinned buffers");
        if (direct_in || direct_out)
            minv_batch_note(r, "%s page-locked: by DMA straight %s", direct_in && direct_out ? "the batches lie" : direct_in ? "the input lies" : "the output lies",
                            direct_in && direct_out ? "from and into them" : direct_in ? "from it" : "into it");
    }
cleanup:
    if (ev) { /* nothing in flight outlives the call: the caller's arrays may be freed */
        cudaStreamSynchronize(up);
        cudaStreamSynchronize(g->stream);
        cudaStreamSynchronize(down);
    }
    return status;
}

minv_status device_batched(minv_context *ctx, minv_method method, minv_dtype tc, const minv_batch *a,
                           const minv_batch *b, const minv_batch *x, minv_batch_results *res, minv_batch_report *r) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const minv_dtype tio = a->dtype;
    const int64_t count = a->count, nrhs = b ? b->cols : 0;
    const size_t es = (size_t)tio;
    plan pl;
    MINV_TRY(make_plan(ctx, method, tio, tc, a->rows, nrhs, &pl, r));
    {
        const int64_t chunk = chunk_members(ctx, count, work_bytes(pl), OUTCOME_BYTES);
        const int in_place_solve = b && b->base == x->base;
        void *work, *pin;
        if (chunk < 1) {
            status = minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "a member of order %d needs %.3g MB of device workspace, %.3g MB are left",
                               pl.k, (double)(work_bytes(pl) + WORK_SLACK) / 1e6, minv_gpu_available(ctx) / 1e6);
            goto cleanup;
        }
        const int tally = !res->status; /* nobody asked for the members' outcomes */
        {
            const int slot = WS_D;
            const size_t bytes = chunk * work_bytes(pl) + WORK_SLACK;
            MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &work));
        }
        MINV_TRY(minv_gpu_pinned(ctx, PIN_STAGE + 3, tally ? TALLY_BYTES : chunk * OUTCOME_BYTES, &pin));
        if (tally) {
            minv_tally_init(&res->tally);
            res->tallied = 1;
        }
        if (in_place_solve && pl.residual)
            minv_batch_note(r, "no residual: B and X share memory");
        for (int64_t m0 = 0; m0 < count; m0 += chunk) {
            const int64_t cnt = count - m0 < chunk ? count - m0 : chunk;
            const chunk_io io = {(const char *)a->base + (size_t)m0 * (size_t)a->stride * es, a->ld, a->stride,
                                 b ? (const char *)b->base + (size_t)m0 * (size_t)b->stride * es : NULL,
                                 b ? b->ld : 0, b ? b->stride : 0,
                                 (char *)x->base + (size_t)m0 * (size_t)x->stride * es, x->ld, x->stride,
                                 NULL, cnt, !in_place_solve};
            const chunk_ws w = carve((char *)work + TALLY_BYTES, pl, cnt);
            MINV_TRY(run_chunk(ctx, pl, io, w));
            if (tally)
                MINV_TRY(tally_outcomes(ctx, pl, w, m0, cnt, !in_place_solve, (minv_batch_tally *)work,
                                        (minv_batch_tally *)pin, &res->tally));
            else
                MINV_TRY(take_outcomes(ctx, pl, w, outcomes_at(pin, chunk), m0, cnt, !in_place_solve, res));
        }
        if (chunk < count)
            minv_batch_note(r, "%lld chunks of up to %lld members", (long long)((count + chunk - 1) / chunk), (long long)chunk);
    }
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_invert_batched(minv_context *ctx, minv_method method, minv_dtype compute, const minv_batch *a,
                                    const minv_batch *x, minv_batch_results *res, minv_batch_report *report) {
    return host_batched(ctx, method, compute, a, NULL, x, res, report);
}

minv_status minv_gpu_solve_batched(minv_context *ctx, minv_method method, minv_dtype compute, const minv_batch *a,
                                   const minv_batch *b, const minv_batch *x, minv_batch_results *res,
                                   minv_batch_report *report) {
    return host_batched(ctx, method, compute, a, b, x, res, report);
}

minv_status minv_gpu_invert_batched_device(minv_context *ctx, minv_method method, minv_dtype compute,
                                           const minv_batch *a, const minv_batch *x, minv_batch_results *res,
                                           minv_batch_report *report) {
    return device_batched(ctx, method, compute, a, NULL, x, res, report);
}

minv_status minv_gpu_solve_batched_device(minv_context *ctx, minv_method method, minv_dtype compute,
                                          const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                          minv_batch_results *res, minv_batch_report *report) {
    return device_batched(ctx, method, compute, a, b, x, res, report);
}
