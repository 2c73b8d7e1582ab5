// The GPU engine of the iterative inversion (src_c/iterative.c runs the algorithm), in core:
// every buffer on the device, products by cuBLAS GEMM, single-precision copies on the TF32
// tensor cores for the early steps of mixed precision. Matrices beyond the device budget go
// to the out-of-core engine (iterative_ooc.cu).
#include <math.h>
#include <string.h>

#include "gpu.h"

namespace {

struct gpu_engine {
    minv_iter_engine base;
    int low;
    minv_mat hi[IT_BUFFERS]; /* device; hi[IT_A] is A */
    minv_mat lo[IT_BUFFERS];
    double *scalar;
    minv_mat *out;
};

minv_mat *buf(gpu_engine *e, int k) { return e->low ? &e->lo[k] : &e->hi[k]; }

template <typename T>
minv_status product_t(gpu_engine *e, int dst, int x, int y, double alpha, int src, double beta, double gamma,
                      double *residual) {
    minv_context *ctx = e->base.ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = e->base.n;
    minv_mat *d = buf(e, dst), *mx = buf(e, x), *my = buf(e, y);
    if (src != IT_NONE && src != dst)
        MINV_TRY(minv_gpu_copy(ctx, buf(e, src), d));
    CUBLAS_TRY(minv_gemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, (const T *)mx->data, mx->ld,
                         (const T *)my->data, my->ld, src == IT_NONE ? 0.0 : beta, (T *)d->data, d->ld));
    if (gamma != 0)
        minv_k_add_diagonal<T>((T *)d->data, n, d->ld, (T)gamma, g->stream);
    if (residual) {
        double sumsq;
        minv_k_identity_residual<T>((const T *)d->data, n, d->ld, e->scalar, g->stream);
        LAUNCH_TRY();
        CUDA_TRY(cudaMemcpyAsync(&sumsq, e->scalar, sizeof sumsq, cudaMemcpyDeviceToHost, g->stream));
        CUDA_TRY(cudaStreamSynchronize(g->stream));
        *residual = sqrt(sumsq);
    }
    LAUNCH_TRY();
cleanup:
    return status;
}

minv_status product(minv_iter_engine *base, int dst, int x, int y, double alpha, int src, double beta, double gamma,
                    double *residual) {
    gpu_engine *e = (gpu_engine *)base;
    return buf(e, dst)->dtype == MINV_R64 ? product_t<double>(e, dst, x, y, alpha, src, beta, gamma, residual)
                                          : product_t<float>(e, dst, x, y, alpha, src, beta, gamma, residual);
}

template <typename T> void guess_t(gpu_engine *e, minv_mat *d, minv_guess kind, double scale) {
    cudaStream_t s = e->base.ctx->gpu->stream;
    const minv_mat *a = buf(e, IT_A);
    const int64_t n = e->base.n;
    if (kind == MINV_GUESS_DIAGONAL) minv_k_diagonal_inverse<T>((const T *)a->data, n, a->ld, (T *)d->data, d->ld, s);
    else if (kind == MINV_GUESS_TRANSPOSE) minv_k_transpose<T>((const T *)a->data, n, n, a->ld, (T *)d->data, d->ld, (T)scale, s);
    else minv_k_set_identity<T>((T *)d->data, n, d->ld, (T)scale, s);
}

minv_status guess(minv_iter_engine *base, int dst, minv_guess kind, double scale) {
    gpu_engine *e = (gpu_engine *)base;
    minv_context *ctx = base->ctx;
    minv_status status = MINV_SUCCESS;
    minv_mat *d = buf(e, dst);
    if (d->dtype == MINV_R64) guess_t<double>(e, d, kind, scale);
    else guess_t<float>(e, d, kind, scale);
    LAUNCH_TRY();
cleanup:
    return status;
}

minv_status load(minv_iter_engine *base, int dst, const minv_mat *host) {
    gpu_engine *e = (gpu_engine *)base;
    return minv_gpu_upload(base->ctx, host, buf(e, dst)->data);
}

minv_status convert(minv_context *ctx, const minv_mat *src, minv_mat *dst) {
    minv_status status = MINV_SUCCESS;
    if (src->dtype == MINV_R64)
        minv_k_convert<double, float>((const double *)src->data, src->ld, (float *)dst->data, dst->ld, src->rows,
                                      src->cols, ctx->gpu->stream);
    else
        minv_k_convert<float, double>((const float *)src->data, src->ld, (double *)dst->data, dst->ld, src->rows,
                                      src->cols, ctx->gpu->stream);
    LAUNCH_TRY();
cleanup:
    return status;
}

minv_status set_precision(minv_iter_engine *base, int low, int v) {
    gpu_engine *e = (gpu_engine *)base;
    minv_context *ctx = base->ctx;
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = base->n;
    if (low) {
        int slots[IT_BUFFERS];
        size_t bytes[IT_BUFFERS];
        void *p[IT_BUFFERS];
        for (int k = 0; k < IT_BUFFERS; k++) {
            slots[k] = WS_LOW + k;
            bytes[k] = (size_t)n * (size_t)n * sizeof(float);
        }
        MINV_TRY(minv_gpu_reserve(ctx, IT_BUFFERS, slots, bytes, p));
        for (int k = 0; k < IT_BUFFERS; k++) e->lo[k] = (minv_mat){MINV_R32, n, n, n, p[k]};
        MINV_TRY(convert(ctx, &e->hi[IT_A], &e->lo[IT_A]));
        MINV_TRY(convert(ctx, &e->hi[v], &e->lo[v]));
        CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_TF32_TENSOR_OP_MATH));
    } else {
        MINV_TRY(convert(ctx, &e->lo[v], &e->hi[v]));
        CUBLAS_TRY(cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
    }
    e->low = low;
cleanup:
    return status;
}

minv_status finish(minv_iter_engine *base, int v) {
    gpu_engine *e = (gpu_engine *)base;
    return minv_gpu_copy(base->ctx, &e->hi[v], e->out);
}

} // namespace

minv_status minv_gpu_iterative_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                      minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    gpu_engine e;
    minv_gpu_residual res;
    int slots[IT_BUFFERS];
    size_t bytes[IT_BUFFERS];
    void *p[IT_BUFFERS];
    memset(&e, 0, sizeof e);
    e.base = (minv_iter_engine){ctx, n, product, guess, load, set_precision, finish};
    e.out = x;
    e.hi[IT_A] = *a;
    for (int k = IT_V0; k < IT_BUFFERS; k++) {
        slots[k - 1] = WS_B + (k - IT_V0);
        bytes[k - 1] = (size_t)n * (size_t)n * (size_t)a->dtype;
    }
    slots[IT_BUFFERS - 1] = WS_SCALAR;
    bytes[IT_BUFFERS - 1] = 64;
    MINV_TRY(minv_gpu_inverse_residual_begin(ctx, a, &res));
    { /* the iteration's buffers are done with once X holds the result */
        minv_gpu_scope iteration(ctx);
        MINV_TRY(minv_gpu_reserve(ctx, IT_BUFFERS, slots, bytes, p));
        for (int k = IT_V0; k < IT_BUFFERS; k++) e.hi[k] = (minv_mat){a->dtype, n, n, n, p[k - 1]};
        e.scalar = (double *)p[IT_BUFFERS - 1];
        status = minv_iterate(ctx, &e.base, a->dtype, an, report);
        if (e.low) cublasSetMathMode(ctx->gpu->blas, CUBLAS_DEFAULT_MATH);
        if (status != MINV_SUCCESS)
            goto cleanup;
    }
    MINV_TRY(minv_gpu_rcond_from_inverse(ctx, x, an, report));
    MINV_TRY(minv_gpu_inverse_residual_end(ctx, &res, x, an, report));
cleanup:
    return status;
}
