// Symmetric positive definite inversion and solve on the GPU: cuSOLVER's potrf, then the
// inverse or the solve from the factor in BLAS3 (triangular.cu; the inverse mirrored to both
// triangles); up to order 512, the solve or the inverse (the solve of I) by small_solve.cu's
// one launch.
#include <stdlib.h>

#include "gpu.h"

namespace {

/* cusolverDnXpotrf of x in place (lower) with work, enqueued; info on the device. */
minv_status potrf_enqueue(minv_context *ctx, minv_mat *x, void *work, size_t work_bytes, int *info_dev) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const cudaDataType dt = minv_cuda_type(x->dtype);
    size_t dev_bytes = 0, host_bytes = 0;
    void *host_work = NULL;
    const int64_t n = x->rows;
    CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, x->data, x->ld,
                                             dt, &dev_bytes, &host_bytes));
    if (dev_bytes > work_bytes) {
        status = minv_fail(ctx, MINV_ERR_INTERNAL, "potrf of order %lld needs %zu bytes of workspace, %zu reserved",
                           (long long)n, dev_bytes, work_bytes);
        goto cleanup;
    }
    if (host_bytes && !(host_work = malloc(host_bytes))) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", host_bytes);
        goto cleanup;
    }
    CUSOLVER_TRY(cusolverDnXpotrf(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, x->data, x->ld, dt, work,
                                  dev_bytes, host_work, host_bytes, info_dev));
cleanup:
    free(host_work);
    return status;
}

/* potrf's info as a status; report->info the failing column in the whole matrix, x's first
 * column being col0. */
minv_status potrf_info(minv_context *ctx, int info, int64_t col0, minv_report *report) {
    if (info > 0) {
        report->info = col0 + info - 1;
        return minv_fail(ctx, MINV_ERR_NOT_SPD,
                         "the leading minor of order %lld is not positive definite (column %lld, 1-based)",
                         (long long)report->info + 1, (long long)report->info + 1);
    }
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "cuSOLVER potrf rejected argument %d", -info);
    return MINV_SUCCESS;
}

/* Factor x = L L^T in place (lower); its info read back and a failure reported by column. */
minv_status factor(minv_context *ctx, minv_mat *x, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    size_t dev_bytes = 0;
    void *work[2];
    MINV_TRY(minv_gpu_potrf_workspace(ctx, x->dtype, x->rows, x->ld, x->data, &dev_bytes));
    {
        const int slots[2] = {WS_SOLVER, WS_SCALAR};
        const size_t bytes[2] = {dev_bytes, 64};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, work));
    }
    status = minv_gpu_potrf(ctx, x, 0, work[0], dev_bytes, (int *)work[1], report);
cleanup:
    return status;
}

/* A general matrix under AUTO must not cost a whole potrf beside its analysis at large orders:
 * a look at its diagonal and at GATE_SAMPLES mirrored pairs, and where AUTO could not take it
 * for SPD (a diagonal entry not positive, or the pairs' asymmetry past the tolerance) the copy's
 * first entry made NaN, so that potrf stops at its first column, and gate[1] set. */
constexpr int GATE_THREADS = 256, GATE_SAMPLES = 4096;
__device__ inline unsigned gate_hash(unsigned k) {
    k ^= k >> 16;
    k *= 0x7feb352dU;
    k ^= k >> 15;
    k *= 0x846ca68bU;
    return k ^ (k >> 16);
}
template <typename T>
__global__ void __launch_bounds__(GATE_THREADS) ahead_gate(const T *a, int64_t lda, int64_t n, T *l, int *gate,
                                                           double tol) {
    __shared__ double dmax[GATE_THREADS / 32], mmax[GATE_THREADS / 32];
    __shared__ int bad;
    const int t = threadIdx.x;
    if (t == 0) bad = 0;
    __syncthreads();
    double d = 0, m = 0;
    int mine = 0;
    for (int64_t i = t; i < n; i += GATE_THREADS) {
        const double v = (double)a[i + i * lda];
        mine |= !(v > 0);
        m = fmax(m, fabs(v));
    }
    for (int k = t; k < GATE_SAMPLES; k += GATE_THREADS) {
        const int64_t i = (int64_t)(gate_hash(2u * (unsigned)k) % (unsigned long long)n),
                      j = (int64_t)(gate_hash(2u * (unsigned)k + 1u) % (unsigned long long)n);
        const double x = (double)a[i + j * lda], y = (double)a[j + i * lda];
        d = fmax(d, fabs(x - y));
        m = fmax(m, fmax(fabs(x), fabs(y)));
        mine |= !(x - y == x - y); /* NaN or Inf */
    }
    for (int o = 16; o > 0; o >>= 1) {
        d = fmax(d, __shfl_xor_sync(0xffffffffu, d, o));
        m = fmax(m, __shfl_xor_sync(0xffffffffu, m, o));
    }
    if (mine) bad = 1;
    if (t % 32 == 0) {
        dmax[t / 32] = d;
        mmax[t / 32] = m;
    }
    __syncthreads();
    if (t == 0) {
        for (int w = 1; w < GATE_THREADS / 32; w++) {
            d = fmax(d, dmax[w]);
            m = fmax(m, mmax[w]);
        }
        const int turned = bad || d > tol * m;
        if (turned) l[0] = (T)NAN;
        gate[1] = turned;
    }
}

/* A copied into l (n x n) and factored there on stream s with potrf's workspace work, its info
 * at info_dev; with mirror, L^T then put into l's upper triangle for small_solve.cu's back solve;
 * with gate (its verdict at info_dev[1]), potrf turned away from a matrix AUTO would not take
 * for SPD (ahead_gate, tolerance tol). */
minv_status factor_copy(minv_context *ctx, const minv_mat *a, minv_mat *l, void *work, size_t work_bytes,
                        int *info_dev, cudaStream_t s, int mirror, int gate, double tol) {
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)a->dtype;
    const int64_t n = a->rows;
    CUDA_TRY(cudaMemcpy2DAsync(l->data, (size_t)l->ld * es, a->data, (size_t)a->ld * es, (size_t)n * es, (size_t)n,
                               cudaMemcpyDeviceToDevice, s));
    if (gate) {
        if (a->dtype == MINV_R64)
            ahead_gate<double><<<1, GATE_THREADS, 0, s>>>((const double *)a->data, a->ld, n, (double *)l->data,
                                                          info_dev, tol);
        else
            ahead_gate<float><<<1, GATE_THREADS, 0, s>>>((const float *)a->data, a->ld, n, (float *)l->data,
                                                         info_dev, tol);
        LAUNCH_TRY();
    }
    MINV_TRY(potrf_enqueue(ctx, l, work, work_bytes, info_dev));
    if (mirror) {
        if (l->dtype == MINV_R64) minv_k_mirror<double>((double *)l->data, n, n, 1, s);
        else minv_k_mirror<float>((float *)l->data, n, n, 1, s);
        LAUNCH_TRY();
    }
cleanup:
    return status;
}

/* The same on the compute stream, potrf's workspace held for it alone. */
minv_status factor_copy_here(minv_context *ctx, const minv_mat *a, minv_mat *l, int *info_dev) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int slot = WS_SOLVER;
    size_t work_bytes = 0;
    void *work;
    MINV_TRY(minv_gpu_potrf_workspace(ctx, a->dtype, a->rows, a->rows, NULL, &work_bytes));
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &work_bytes, &work));
    MINV_TRY(factor_copy(ctx, a, l, work, work_bytes, info_dev, ctx->gpu->stream, 1, 0, 0));
cleanup:
    return status;
}

/* WS_AHEAD's bytes: the factor, then its info and the gate's verdict. */
size_t ahead_bytes(const minv_mat *a) { return (size_t)a->rows * (size_t)a->rows * (size_t)a->dtype + 64; }
int *ahead_info(const minv_mat *a, void *slot) { return (int *)((char *)slot + ahead_bytes(a) - 64); }

/* Whether a factor begun beside the analysis is of this matrix, in this layout (mirrored: the
 * small solves'); taken or not, this is the call's one chance to take it. */
int ahead_of(minv_gpu *g, const minv_mat *a, int mirrored) {
    const int match = g->ahead.live && g->ahead.a == a->data && g->ahead.n == a->rows && g->ahead.ld == a->ld &&
                      g->ahead.t == a->dtype && g->ahead.mirror == mirrored;
    g->ahead.live = 0; /* taken once: a retry factors afresh */
    g->ahead.skip = 0; /* and the next call begins one again */
    return match;
}

/* l in the slot of a's factor: WS_AHEAD where it was begun beside the analysis, else WS_B. */
minv_status factor_slot(minv_context *ctx, const minv_mat *a, int ahead, minv_mat *l) {
    const int64_t n = a->rows;
    const int slot = ahead ? WS_AHEAD : WS_B;
    const size_t bytes = ahead ? ahead_bytes(a) : (size_t)n * (size_t)n * (size_t)a->dtype;
    void *p;
    const minv_status status = minv_gpu_reserve(ctx, 1, &slot, &bytes, &p);
    if (status == MINV_SUCCESS) *l = (minv_mat){a->dtype, n, n, n, p};
    return status;
}

/* Orders up to 512: the factor begun beside this matrix's analysis where there is one (the
 * compute stream then waits for it), else factor_copy into WS_B; potrf's info at info_dev. */
minv_status factor_small(minv_context *ctx, const minv_mat *a, minv_mat *l, int *info_dev) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int ahead = ahead_of(g, a, 1);
    MINV_TRY(factor_slot(ctx, a, ahead, l));
    if (ahead && l->data == g->ahead.l) { /* the slot kept since (a release would have ended the factor) */
        CUDA_TRY(cudaStreamWaitEvent(g->stream, g->ahead.done, 0));
        CUDA_TRY(cudaMemcpyAsync(info_dev, ahead_info(a, l->data), sizeof(int), cudaMemcpyDeviceToDevice, g->stream));
        return MINV_SUCCESS;
    }
    MINV_TRY(factor_copy_here(ctx, a, l, info_dev));
cleanup:
    return status;
}

/* Above the small solves: the factor begun beside this matrix's analysis where there is one and
 * its gate let potrf run (the compute stream waits for it and reads its info back), else A
 * copied into WS_B (or WS_AHEAD, once held) and factored there; l the factor (lower). */
minv_status factor_large(minv_context *ctx, const minv_mat *a, minv_mat *l, minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int ahead = ahead_of(g, a, 0);
    void *back;
    MINV_TRY(factor_slot(ctx, a, ahead, l));
    if (ahead && l->data == g->ahead.l) {
        CUDA_TRY(cudaStreamWaitEvent(g->stream, g->ahead.done, 0));
        MINV_TRY(minv_gpu_read_back(ctx, ahead_info(a, l->data), 2 * sizeof(int), &back));
        if (!((const int *)back)[1]) /* the gate let it run: potrf's own verdict */
            return potrf_info(ctx, ((const int *)back)[0], 0, report);
    }
    MINV_TRY(minv_gpu_copy(ctx, a, l));
    MINV_TRY(factor(ctx, l, report));
cleanup:
    return status;
}

/* The inverse of order up to 512 as the solve of I in one launch (its lower triangle written to
 * both), ||X||_1, the residual's products and potrf's info read back with it; where potrf fails
 * x is untouched. */
minv_status invert_small(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                         minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_small_solve s;
    double *host;
    minv_mat l;
    MINV_TRY(minv_gpu_small_invert_begin(ctx, a, &s, &res));
    minv_progress(ctx, "cholesky factor", 0);
    MINV_TRY(factor_small(ctx, a, &l, (int *)s.out));
    minv_progress(ctx, "cholesky invert", 0);
    MINV_TRY(minv_gpu_small_solve(ctx, &s, &l, NULL, NULL, NULL, x, 1, &host));
    MINV_TRY(potrf_info(ctx, *(const int *)host, 0, report));
    MINV_TRY(minv_gpu_small_invert_end(ctx, &s, &res, host, x, an, report));
cleanup:
    return status;
}

template <typename T>
minv_status invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    const int64_t n = x->rows;
    const int slot = WS_SMALL;
    const size_t bytes = (size_t)n * sizeof(T);
    void *diag;
    if (minv_gpu_small_solve_applies(n, n))
        return invert_small(ctx, a, x, an, report);
    MINV_TRY(minv_gpu_copy(ctx, a, x));
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, x, &res));
    /* potrf overwrites the lower triangle; the upper one and this diagonal give A back */
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, &diag));
    minv_k_diagonal<T>((T *)x->data, n, x->ld, (T *)diag, 1, g->stream);
    LAUNCH_TRY();
    minv_progress(ctx, "cholesky factor", 0);
    status = factor(ctx, x, report);
    if (status == MINV_ERR_NOT_SPD) {
        minv_k_diagonal<T>((T *)x->data, n, x->ld, (T *)diag, 0, g->stream);
        minv_k_mirror<T>((T *)x->data, n, x->ld, 0, g->stream);
        CUDA_TRY(cudaStreamSynchronize(g->stream));
        status = MINV_ERR_NOT_SPD;
        goto cleanup;
    }
    if (status != MINV_SUCCESS) goto cleanup;
    minv_progress(ctx, "cholesky invert", 0);
    MINV_TRY(minv_gpu_spd_inverse_from_factor(ctx, x));
    minv_k_mirror<T>((T *)x->data, n, x->ld, 1, g->stream);
    LAUNCH_TRY();
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    return status;
}

/* The condition estimate's vector solves, L^-T L^-1 v (A = A^T, so `transpose` changes nothing). */
minv_status factor_vector(minv_context *ctx, void *vec, int transpose, void *user) {
    (void)transpose;
    const minv_mat *l = (const minv_mat *)user;
    minv_mat v = {l->dtype, l->rows, 1, l->rows, vec};
    return minv_gpu_spd_solve_with_factor(ctx, l, &v);
}

/* Orders up to 512: potrf, then the solve, the rcond bound's norms and the residual in one
 * launch (small_solve.cu) and one synchronisation, potrf's info read back with the rest. */
minv_status solve_small(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                        minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_small_solve s;
    double *host;
    minv_mat l;
    MINV_TRY(minv_gpu_small_solve_begin(ctx, b, &s, &res));
    minv_progress(ctx, "cholesky factor", 0);
    MINV_TRY(factor_small(ctx, a, &l, (int *)s.out));
    minv_progress(ctx, "cholesky solve", 0);
    MINV_TRY(minv_gpu_small_solve(ctx, &s, &l, NULL, a, b, x, 0, &host));
    MINV_TRY(potrf_info(ctx, *(const int *)host, 0, report));
    MINV_TRY(minv_gpu_small_solve_end(ctx, &s, &res, host, &l, 1, factor_vector, &l, an, report));
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_potrf_workspace(minv_context *ctx, minv_dtype t, int64_t n, int64_t ld, const void *a,
                                     size_t *dev_bytes) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const cudaDataType dt = minv_cuda_type(t);
    size_t host_bytes = 0;
    CUSOLVER_TRY(cusolverDnXpotrf_bufferSize(g->solver, g->solver_params, CUBLAS_FILL_MODE_LOWER, n, dt, a, ld, dt,
                                             dev_bytes, &host_bytes));
cleanup:
    return status;
}

minv_status minv_gpu_potrf(minv_context *ctx, minv_mat *x, int64_t col0, void *work, size_t work_bytes, int *info_dev,
                           minv_report *report) {
    minv_status status = MINV_SUCCESS;
    void *back;
    MINV_TRY(potrf_enqueue(ctx, x, work, work_bytes, info_dev));
    MINV_TRY(minv_gpu_read_back(ctx, info_dev, sizeof(int), &back));
    status = potrf_info(ctx, *(const int *)back, col0, report);
cleanup:
    return status;
}

minv_status minv_gpu_cholesky_ahead(minv_context *ctx, const minv_mat *a) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows, columns = ctx->stage.cholesky_columns;
    const cudaStream_t side = g->copy[MINV_GPU_STREAMS - 1]; /* the high-priority one */
    size_t work_bytes = 0;
    void *p[2];
    minv_mat l;
    /* the small solves' layout, or the large solve's (its inversion factors into the result) */
    const int small = minv_gpu_small_solve_applies(n, columns), gate = !small && !ctx->stage.cholesky_asked;
    g->ahead.live = 0;
    if (columns <= 0 || (!small && ctx->stage.cholesky_inverse) || ctx->device_count > 1 || g->ahead.skip)
        return MINV_SUCCESS;
    minv_gpu_scope scope(ctx); /* the slots stay cached for the Cholesky that takes the factor */
    if (!g->ahead.start) {
        CUDA_TRY(cudaEventCreateWithFlags(&g->ahead.start, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&g->ahead.done, cudaEventDisableTiming));
    }
    MINV_TRY(minv_gpu_potrf_workspace(ctx, a->dtype, n, n, NULL, &work_bytes));
    {
        const int slots[2] = {WS_AHEAD, WS_AHEAD_WORK};
        const size_t bytes[2] = {ahead_bytes(a), work_bytes};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    }
    l = (minv_mat){a->dtype, n, n, n, p[0]};
    CUDA_TRY(cudaEventRecord(g->ahead.start, g->stream)); /* A is there: uploaded, or the caller's */
    CUDA_TRY(cudaStreamWaitEvent(side, g->ahead.start, 0));
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, side));
    status = factor_copy(ctx, a, &l, p[1], work_bytes, ahead_info(a, p[0]), side, small, gate,
                         100.0 * minv_symmetry_tol(ctx, a->dtype));
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, g->stream));
    if (status != MINV_SUCCESS)
        goto cleanup;
    CUDA_TRY(cudaEventRecord(g->ahead.done, side));
    g->ahead.a = a->data;
    g->ahead.n = n;
    g->ahead.ld = a->ld;
    g->ahead.t = a->dtype;
    g->ahead.l = p[0];
    g->ahead.mirror = small;
    g->ahead.live = 1;
cleanup:
    if (status == MINV_ERR_DEVICE_MEMORY) { /* no room beside the analysis: the Cholesky factors after it */
        minv_clear_error(ctx);
        status = MINV_SUCCESS;
    }
    return status;
}

minv_status minv_gpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                     minv_report *r) {
    return x->dtype == MINV_R64 ? invert<double>(ctx, a, x, an, r) : invert<float>(ctx, a, x, an, r);
}

minv_status minv_gpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_gpu_rhs rhs;
    const int64_t n = a->rows;
    minv_mat l;
    if (minv_gpu_small_solve_applies(n, b->cols))
        return solve_small(ctx, a, b, x, an, report);
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(minv_gpu_rhs_begin(ctx, b, x, &rhs));
    minv_progress(ctx, "cholesky factor", 0);
    MINV_TRY(factor_large(ctx, a, &l, report));
    minv_progress(ctx, "cholesky solve", 0);
    MINV_TRY(minv_gpu_spd_solve_with_factor(ctx, &l, &rhs.w));
    if (rhs.h.data) MINV_TRY(minv_gpu_spd_solve_with_factor(ctx, &l, &rhs.h));
    MINV_TRY(minv_gpu_rhs_end(ctx, &rhs, x, &l, 1, an->norm_1, &report->rcond));
    MINV_TRY(minv_gpu_solve_rcond(ctx, &l, 1, an->norm_1, factor_vector, &l, minv_gpu_rhs_vector(&rhs), report));
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
    minv_gpu_narrow_note(ctx, report);
cleanup:
    return status;
}
