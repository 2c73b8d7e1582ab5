/* GPU entry points for a build without CUDA: the GPU backend is simply absent. */
#include "internal.h"

minv_status minv_gpu_create(minv_context *ctx) {
    return minv_fail(ctx, MINV_ERR_NO_GPU, "minv was built without CUDA (MINV_ENABLE_CUDA=OFF or no nvcc)");
}

void minv_gpu_destroy(minv_context *ctx) { (void)ctx; }
