// General inversion and solve on the GPU: LU with partial pivoting (lu_cluster.cu up to order
// 512, cuSOLVER's getrf above), then the rows of B (solve) or of the identity (inverse)
// permuted as the interchanges say, and U^-1 L^-1 applied by triangular.cu's recursive solve,
// whose flops go to GEMM (cuSOLVER's getrs, whose TRSMs run well below the GEMM rate, was
// slower at every n on an H100), or, up to order 512, by small_solve.cu's one launch for solves
// and inverses alike; the condition estimate's vectors go through cuBLAS TRSV.
#include <stdlib.h>

#include "gpu.h"

namespace {

/* The LU factors of A in WS_B; in WS_SMALL the pivots and, on the device too, the
 * permutation they make: perm[i] is the row of A that ends at row i of P A. */
struct lu_factors {
    minv_mat lu;
    int64_t *ipiv, *perm;
};

/* getrf's info as a status. */
minv_status info_status(minv_context *ctx, int info, minv_report *report) {
    if (info > 0) {
        report->info = info - 1;
        return minv_fail(ctx, MINV_ERR_SINGULAR, "U(%d,%d) is exactly zero: no pivot in column %d (1-based)", info, info,
                         info);
    }
    if (info < 0)
        return minv_fail(ctx, MINV_ERR_INTERNAL, "cuSOLVER getrf rejected argument %d", -info);
    return MINV_SUCCESS;
}

/* P A = L U into f. With info_dev, where the cluster factors, the info is left there for the
 * caller to read (getrf's is read here: its pivots come back anyway); without, it is read back
 * and a zero pivot reported. */
minv_status factor(minv_context *ctx, const minv_mat *a, lu_factors *f, int *info_dev, minv_report *report) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    const cudaDataType dt = minv_cuda_type(a->dtype);
    size_t dev_bytes = 0, host_bytes = 0;
    void *host_work = NULL, *p[4];
    int info = 0, in_cluster = 0;
    const bool deferred = info_dev != NULL;
    {
        const int slots[2] = {WS_B, WS_SMALL};
        const size_t bytes[2] = {(size_t)n * (size_t)n * (size_t)a->dtype, 2 * (size_t)n * sizeof(int64_t) + 64};
        MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    }
    f->lu = (minv_mat){a->dtype, n, n, n, p[0]};
    f->ipiv = (int64_t *)((char *)p[1] + 64);
    f->perm = f->ipiv + n;
    if (!deferred) info_dev = (int *)p[1];
    MINV_TRY(minv_gpu_copy(ctx, a, &f->lu));
    MINV_TRY(minv_gpu_lu_cluster(ctx, &f->lu, f->ipiv, f->perm, info_dev, &in_cluster));
    if (in_cluster) {
        minv_report_note_text(report, "LU factored in one thread-block cluster (order <= 512), not by getrf");
        if (deferred) goto cleanup;
    } else {
        CUSOLVER_TRY(cusolverDnXgetrf_bufferSize(g->solver, g->solver_params, n, n, dt, f->lu.data, n, dt, &dev_bytes,
                                                 &host_bytes));
        if (host_bytes && !(host_work = malloc(host_bytes))) {
            status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %zu bytes of cuSOLVER host workspace", host_bytes);
            goto cleanup;
        }
        /* getrf's workspace is its own; the factors and pivots are the caller's */
        minv_gpu_scope getrf(ctx);
        const int slot = WS_SOLVER;
        MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &dev_bytes, &p[2]));
        CUSOLVER_TRY(cusolverDnXgetrf(g->solver, g->solver_params, n, n, dt, f->lu.data, n, f->ipiv, dt, p[2],
                                      dev_bytes, host_work, host_bytes, info_dev));
    }
    {
        void *back;
        MINV_TRY(minv_gpu_read_back(ctx, info_dev, sizeof info, &back));
        info = *(const int *)back;
    }
    MINV_TRY(info_status(ctx, info, report));
    if (!in_cluster) /* the cluster wrote the permutation itself */
        status = minv_gpu_pivot_permutation(ctx, f->ipiv, n, f->perm);
cleanup:
    free(host_work);
    return status;
}

/* dst(i, j) = src(perm[i], j), the rows of P B; without src, P itself: the rows of P I. With
 * `back`, dst(perm[i], j) = src(i, j): P^T src. */
template <typename T>
__global__ void permute_rows(const int64_t *perm, int64_t n, int64_t cols, const T *src, int64_t lds, T *dst,
                             int64_t ldd, int back) {
    for (int64_t j = blockIdx.y; j < cols; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
            const int64_t p = perm[i];
            if (back) dst[p + j * ldd] = src[i + j * lds];
            else dst[i + j * ldd] = src ? src[p + j * lds] : T(p == j ? 1 : 0);
        }
}

template <typename T>
minv_status launch_permute(minv_context *ctx, const int64_t *perm, int64_t n, int64_t cols, const T *src, int64_t lds,
                           T *dst, int64_t ldd, int back) {
    minv_status status = MINV_SUCCESS;
    const dim3 grid((unsigned)((n + 255) / 256 < 64 ? (n + 255) / 256 : 64), (unsigned)(cols < 65535 ? cols : 65535));
    permute_rows<T><<<grid, 256, 0, ctx->gpu->stream>>>(perm, n, cols, src, lds, dst, ldd, back);
    LAUNCH_TRY();
cleanup:
    return status;
}

/* In place, columns go through scratch this many at a time: n x 256 is no more than the
 * inverted diagonal blocks the solve then keeps in the same slot. */
const int64_t PERMUTE_COLS = 256;

/* x = P b (P when b is NULL; P^T b with `back`), b and x of one shape; x may be b. */
template <typename T>
minv_status permute(minv_context *ctx, const lu_factors *f, const minv_mat *b, minv_mat *x, int back) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = x->rows, cols = x->cols, ldx = x->ld, w = cols < PERMUTE_COLS ? cols : PERMUTE_COLS;
    const int slot = WS_SOLVER; /* getrf's workspace, released when it was done */
    const size_t bytes = (size_t)n * (size_t)w * sizeof(T);
    T *const xd = (T *)x->data, *tmp;
    if (n == 0 || cols == 0) return MINV_SUCCESS;
    if (!b || b->data != x->data)
        return launch_permute<T>(ctx, f->perm, n, cols, b ? (const T *)b->data : NULL, b ? b->ld : 0, xd, ldx, back);
    MINV_TRY(minv_gpu_reserve(ctx, 1, &slot, &bytes, (void **)&tmp));
    for (int64_t j0 = 0; j0 < cols; j0 += w) {
        const int64_t c = cols - j0 < w ? cols - j0 : w;
        MINV_TRY(launch_permute<T>(ctx, f->perm, n, c, xd + j0 * ldx, ldx, tmp, n, back));
        CUDA_TRY(cudaMemcpy2DAsync(xd + j0 * ldx, (size_t)ldx * sizeof(T), tmp, (size_t)n * sizeof(T),
                                   (size_t)n * sizeof(T), (size_t)c, cudaMemcpyDeviceToDevice, ctx->gpu->stream));
    }
cleanup:
    return status;
}

/* x = A^-1 b from the factors (A^-1 when b is NULL); x may be b. */
minv_status lu_solve(minv_context *ctx, const lu_factors *f, const minv_mat *b, minv_mat *x) {
    minv_status status = MINV_SUCCESS;
    if (x->dtype == MINV_R64) MINV_TRY(permute<double>(ctx, f, b, x, 0));
    else MINV_TRY(permute<float>(ctx, f, b, x, 0));
    MINV_TRY(minv_gpu_lu_solve_with_factors(ctx, &f->lu, x));
cleanup:
    return status;
}

/* The condition estimate's vectors: A^-1 v as any solve (lu_solve), A^-T v = P^T L^-T U^-T v. */
template <typename T> minv_status transposed_solve(minv_context *ctx, const lu_factors *f, minv_mat *v) {
    minv_status status = MINV_SUCCESS;
    MINV_TRY(minv_gpu_narrow_solve(ctx, &f->lu, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, v));
    MINV_TRY(minv_gpu_narrow_solve(ctx, &f->lu, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T, CUBLAS_DIAG_UNIT, v));
    MINV_TRY(permute<T>(ctx, f, v, v, 1));
cleanup:
    return status;
}

minv_status factor_vector(minv_context *ctx, void *vec, int transpose, void *user) {
    const lu_factors *f = (const lu_factors *)user;
    minv_mat v = {f->lu.dtype, f->lu.rows, 1, f->lu.rows, vec};
    if (!transpose) return lu_solve(ctx, f, &v, &v);
    return v.dtype == MINV_R64 ? transposed_solve<double>(ctx, f, &v) : transposed_solve<float>(ctx, f, &v);
}

/* Orders up to 512: the factor, then the solve, the rcond bound's norms and the residual in one
 * launch (small_solve.cu) and one synchronisation, the cluster's info read back with the rest. */
minv_status solve_small(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                        minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_small_solve s;
    lu_factors f;
    double *host;
    MINV_TRY(minv_gpu_small_solve_begin(ctx, b, &s, &res));
    minv_progress(ctx, "lu factor", 0);
    MINV_TRY(factor(ctx, a, &f, (int *)s.out, report));
    minv_progress(ctx, "lu solve", 0);
    MINV_TRY(minv_gpu_small_solve(ctx, &s, &f.lu, f.perm, a, b, x, 0, &host));
    MINV_TRY(info_status(ctx, *(const int *)host, report));
    MINV_TRY(minv_gpu_small_solve_end(ctx, &s, &res, host, &f.lu, 0, factor_vector, &f, an, report));
cleanup:
    return status;
}

/* The inverse of order up to 512 as the solve of P I in one launch, ||X||_1, the residual's
 * products and the cluster's info read back with it. */
minv_status invert_small(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                         minv_report *report) {
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_small_solve s;
    lu_factors f;
    double *host;
    MINV_TRY(minv_gpu_small_invert_begin(ctx, a, &s, &res));
    minv_progress(ctx, "lu factor", 0);
    MINV_TRY(factor(ctx, a, &f, (int *)s.out, report));
    minv_progress(ctx, "lu invert", 0);
    MINV_TRY(minv_gpu_small_solve(ctx, &s, &f.lu, f.perm, NULL, NULL, x, 0, &host));
    MINV_TRY(info_status(ctx, *(const int *)host, report));
    MINV_TRY(minv_gpu_small_invert_end(ctx, &s, &res, host, x, an, report));
cleanup:
    return status;
}

} // namespace

/* On the host: n steps, each depending on the last, are no work for a GPU. The permutation
 * goes up from a pinned buffer of its own without waiting: the next call's read-back of the
 * pivots waits for the stream before the host writes that buffer again. */
minv_status minv_gpu_pivot_permutation(minv_context *ctx, const int64_t *ipiv, int64_t n, int64_t *perm) {
    minv_status status = MINV_SUCCESS;
    void *back, *up;
    MINV_TRY(minv_gpu_read_back(ctx, ipiv, (size_t)n * sizeof(int64_t), &back));
    MINV_TRY(minv_gpu_pinned(ctx, PIN_PERMUTATION, (size_t)n * sizeof(int64_t), &up));
    {
        const int64_t *piv = (const int64_t *)back;
        int64_t *p = (int64_t *)up;
        for (int64_t i = 0; i < n; i++) p[i] = i;
        for (int64_t i = 0; i < n; i++) {
            const int64_t q = piv[i] - 1, r = p[i];
            p[i] = p[q];
            p[q] = r;
        }
    }
    CUDA_TRY(cudaMemcpyAsync(perm, up, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, ctx->gpu->stream));
cleanup:
    return status;
}

minv_status minv_gpu_lu_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                               minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    lu_factors f;
    if (minv_gpu_small_solve_applies(a->rows, a->rows))
        return invert_small(ctx, a, x, an, report);
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, &res));
    minv_progress(ctx, "lu factor", 0);
    MINV_TRY(factor(ctx, a, &f, NULL, report));
    minv_progress(ctx, "lu invert", 0);
    MINV_TRY(lu_solve(ctx, &f, NULL, x));
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    return status;
}

minv_status minv_gpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    minv_gpu_residual res;
    minv_gpu_rhs rhs;
    lu_factors f;
    if (minv_gpu_small_solve_applies(a->rows, b->cols))
        return solve_small(ctx, a, b, x, an, report);
    MINV_TRY(minv_gpu_solve_residual_begin(ctx, b, &res));
    MINV_TRY(minv_gpu_rhs_begin(ctx, b, x, &rhs));
    minv_progress(ctx, "lu factor", 0);
    MINV_TRY(factor(ctx, a, &f, NULL, report));
    minv_progress(ctx, "lu solve", 0);
    MINV_TRY(lu_solve(ctx, &f, &rhs.w, &rhs.w));
    if (rhs.h.data) MINV_TRY(lu_solve(ctx, &f, &rhs.h, &rhs.h));
    MINV_TRY(minv_gpu_rhs_end(ctx, &rhs, x, &f.lu, 0, an->norm_1, &report->rcond));
    MINV_TRY(minv_gpu_solve_rcond(ctx, &f.lu, 0, an->norm_1, factor_vector, &f, minv_gpu_rhs_vector(&rhs), report));
    MINV_TRY(minv_gpu_solve_residual_end(ctx, &res, a, x, an, report));
    minv_gpu_narrow_note(ctx, report);
cleanup:
    return status;
}
