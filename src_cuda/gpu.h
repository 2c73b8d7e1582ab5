/* CUDA state owned by a context, and checks that turn CUDA, cuBLAS and cuSOLVER errors into
 * minv statuses carrying the library's message. Only src_cuda/ includes CUDA headers. */
#ifndef MINV_GPU_H
#define MINV_GPU_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "../src_c/internal.h"

struct minv_gpu {
    int device;
    char name[256];
    cudaStream_t stream;
    cublasHandle_t blas;
    cusolverDnHandle_t solver;
    size_t budget; /* bytes minv may allocate on the device */
};

minv_status minv_cuda_fail(minv_context *ctx, cudaError_t err, const char *what, const char *file, int line);
minv_status minv_cublas_fail(minv_context *ctx, cublasStatus_t err, const char *what, const char *file, int line);
minv_status minv_cusolver_fail(minv_context *ctx, cusolverStatus_t err, const char *what, const char *file, int line);

/* In a function with `minv_status status` and a `cleanup:` label. */
#define CUDA_TRY(call)                                                                   \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            status = minv_cuda_fail(ctx, err_, #call, __FILE__, __LINE__);               \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
#define CUBLAS_TRY(call)                                                                 \
    do {                                                                                 \
        cublasStatus_t err_ = (call);                                                    \
        if (err_ != CUBLAS_STATUS_SUCCESS) {                                             \
            status = minv_cublas_fail(ctx, err_, #call, __FILE__, __LINE__);             \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
#define CUSOLVER_TRY(call)                                                               \
    do {                                                                                 \
        cusolverStatus_t err_ = (call);                                                  \
        if (err_ != CUSOLVER_STATUS_SUCCESS) {                                           \
            status = minv_cusolver_fail(ctx, err_, #call, __FILE__, __LINE__);           \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
/* After a kernel launch. */
#define LAUNCH_TRY() CUDA_TRY(cudaGetLastError())

#endif
