// Host forms of the GPU algorithms: the matrix goes up once (or is found where the analysis
// left it), the device form runs in place on the device copy, the result comes down.
#include "gpu.h"

minv_status minv_gpu_copy(minv_context *ctx, const minv_mat *src, minv_mat *dst) {
    minv_status status = MINV_SUCCESS;
    const size_t es = (size_t)src->dtype;
    if (src->data == dst->data)
        return MINV_SUCCESS;
    CUDA_TRY(cudaMemcpy2DAsync(dst->data, (size_t)dst->ld * es, src->data, (size_t)src->ld * es,
                               (size_t)src->rows * es, (size_t)src->cols, cudaMemcpyDeviceToDevice, ctx->gpu->stream));
cleanup:
    return status;
}

minv_status minv_gpu_invert_host(minv_context *ctx, minv_invert_op device_op, const minv_mat *a, minv_mat *x,
                                 const minv_analysis *an, minv_report *r) {
    minv_gpu_scope scope(ctx);
    void *dev;
    minv_status status = minv_gpu_stage_input(ctx, a, &dev);
    if (status != MINV_SUCCESS)
        return status;
    ctx->gpu->staged_host = NULL; /* the device copy is about to change */
    minv_mat d = {a->dtype, a->rows, a->cols, a->rows, dev};
    status = device_op(ctx, &d, &d, an, r);
    if (status == MINV_SUCCESS)
        status = minv_gpu_download(ctx, dev, x);
    return status;
}

minv_status minv_gpu_solve_host(minv_context *ctx, minv_solve_op device_op, const minv_mat *a, const minv_mat *b,
                                minv_mat *x, const minv_analysis *an, minv_report *r) {
    minv_gpu_scope scope(ctx);
    void *dev_a, *dev_x;
    const int slot = WS_C;
    const size_t bytes = (size_t)b->rows * (size_t)b->cols * (size_t)b->dtype;
    minv_status status = minv_gpu_stage_input(ctx, a, &dev_a);
    if (status == MINV_SUCCESS)
        status = minv_gpu_reserve(ctx, 1, &slot, &bytes, &dev_x);
    if (status != MINV_SUCCESS)
        return status;
    minv_mat da = {a->dtype, a->rows, a->cols, a->rows, dev_a}, dx = {b->dtype, b->rows, b->cols, b->rows, dev_x};
    status = minv_gpu_upload(ctx, b, dev_x);
    if (status == MINV_SUCCESS)
        status = device_op(ctx, &da, &dx, &dx, an, r);
    if (status == MINV_SUCCESS)
        status = minv_gpu_download(ctx, dev_x, x);
    return status;
}
