// Device selection and the CUDA state a context owns: streams, cuBLAS and cuSOLVER handles
// bound to the compute stream, workspaces, and the device-memory budget.
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

minv_status minv_cuda_fail(minv_context *ctx, cudaError_t err, const char *what, const char *file, int line) {
    minv_status s = err == cudaErrorMemoryAllocation ? MINV_ERR_DEVICE_MEMORY : MINV_ERR_GPU;
    return minv_fail(ctx, s, "%s failed: %s (%s) at %s:%d", what, cudaGetErrorName(err),
                     cudaGetErrorString(err), file, line);
}

minv_status minv_cublas_fail(minv_context *ctx, cublasStatus_t err, const char *what, const char *file, int line) {
    minv_status s = err == CUBLAS_STATUS_ALLOC_FAILED ? MINV_ERR_DEVICE_MEMORY : MINV_ERR_GPU;
    return minv_fail(ctx, s, "%s failed: %s at %s:%d", what, cublasGetStatusString(err), file, line);
}

minv_status minv_cusolver_fail(minv_context *ctx, cusolverStatus_t err, const char *what, const char *file, int line) {
    minv_status s = err == CUSOLVER_STATUS_ALLOC_FAILED ? MINV_ERR_DEVICE_MEMORY : MINV_ERR_GPU;
    return minv_fail(ctx, s, "%s failed: cusolverStatus %d at %s:%d", what, (int)err, file, line);
}

/* Head-room left to cuBLAS and cuSOLVER for their own allocations. */
static const size_t LIBRARY_RESERVE = (size_t)512 << 20;

/* One device's state: streams, handles bound to them, and its budget. */
static minv_status gpu_open(minv_context *ctx, int device, minv_gpu **out) {
    minv_status status = MINV_SUCCESS;
    cudaDeviceProp prop;
    size_t free_bytes = 0, total = 0;
    int least = 0, greatest = 0;
    minv_gpu *g = (minv_gpu *)calloc(1, sizeof *g);
    *out = g;
    if (!g)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the GPU state");
    g->device = device;
    CUDA_TRY(cudaSetDevice(g->device));
    CUDA_TRY(cudaGetDeviceProperties(&prop, g->device));
    strncpy(g->name, prop.name, sizeof g->name - 1);
    g->sm_count = prop.multiProcessorCount;
    CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    /* The last is the side stream of look-ahead panels, which are on the critical path: its
     * kernels take SMs ahead of the bulk update's as these free up. */
    for (int k = 0; k < MINV_GPU_STREAMS; k++)
        CUDA_TRY(cudaStreamCreateWithPriority(&g->copy[k], cudaStreamNonBlocking,
                                              k == MINV_GPU_STREAMS - 1 ? greatest : least));
    CUBLAS_TRY(cublasCreate(&g->blas));
    CUBLAS_TRY(cublasSetStream(g->blas, g->stream));
    CUBLAS_TRY(cublasCreate(&g->blas_side));
    CUBLAS_TRY(cublasSetStream(g->blas_side, g->copy[MINV_GPU_STREAMS - 1]));
    CUSOLVER_TRY(cusolverDnCreate(&g->solver));
    CUSOLVER_TRY(cusolverDnSetStream(g->solver, g->stream));
    CUSOLVER_TRY(cusolverDnCreateParams(&g->solver_params));
    CUDA_TRY(cudaMemGetInfo(&free_bytes, &total));
    free_bytes = free_bytes > LIBRARY_RESERVE ? free_bytes - LIBRARY_RESERVE : free_bytes / 2;
    g->budget = ctx->opts.device_memory > 0 && (size_t)ctx->opts.device_memory < free_bytes
                    ? (size_t)ctx->opts.device_memory
                    : free_bytes;
cleanup:
    return status;
}

static void gpu_close(minv_gpu *g) {
    if (!g)
        return;
    cudaSetDevice(g->device);
    minv_gpu_energy_close(g);
    minv_gpu_release_all(g);
    minv_gpu_stream_close(g);
    if (g->solver_params) cusolverDnDestroyParams(g->solver_params);
    if (g->solver) cusolverDnDestroy(g->solver);
    if (g->blas) cublasDestroy(g->blas);
    if (g->blas_side) cublasDestroy(g->blas_side);
    for (int k = 0; k < 3 * MINV_GPU_BATCH_PIECES; k++)
        if (g->piece_events[k]) cudaEventDestroy(g->piece_events[k]);
    if (g->ahead.start) cudaEventDestroy(g->ahead.start);
    if (g->ahead.done) cudaEventDestroy(g->ahead.done);
    for (int k = 0; k < MINV_GPU_STREAMS; k++)
        if (g->copy[k]) cudaStreamDestroy(g->copy[k]);
    if (g->stream) cudaStreamDestroy(g->stream);
    free(g);
}

/* The devices of multi-GPU methods (see minv_options.ndevices) into ctx->devices. */
static minv_status resolve_devices(minv_context *ctx, int visible) {
    const minv_options *o = &ctx->opts;
    int count = 0;
    if (o->ndevices > 0) {
        for (int k = 0; k < o->ndevices; k++) ctx->devices[count++] = o->devices[k];
    } else {
        ctx->devices[count++] = o->device;
        for (int d = 0; o->ndevices == -1 && d < visible && count < MINV_MAX_DEVICES; d++)
            if (d != o->device) ctx->devices[count++] = d;
    }
    for (int k = 0; k < count; k++) {
        if (ctx->devices[k] >= visible)
            return minv_fail(ctx, MINV_ERR_NO_GPU, "device %d requested but only %d CUDA device(s) present",
                             ctx->devices[k], visible);
        for (int j = 0; j < k; j++)
            if (ctx->devices[j] == ctx->devices[k])
                return minv_fail(ctx, MINV_ERR_INVALID_ARG, "device %d is listed twice in devices[]", ctx->devices[k]);
    }
    ctx->device_count = count;
    return MINV_SUCCESS;
}

/* Why the runtime finds no device, in words that say what is true of the machine. */
static minv_status no_device(minv_context *ctx, cudaError_t err) {
    int driver = 0, runtime = 0;
    if (err == cudaSuccess || err == cudaErrorNoDevice)
        return minv_fail(ctx, MINV_ERR_NO_GPU, "no CUDA device");
    if (err == cudaErrorInsufficientDriver) {
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        if (driver == 0)
            return minv_fail(ctx, MINV_ERR_NO_GPU, "no NVIDIA driver (libcuda.so.1 not found)");
        return minv_fail(ctx, MINV_ERR_NO_GPU, "NVIDIA driver too old: it supports CUDA %d.%d < %d.%d, the CUDA minv was built with",
                         driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    }
    return minv_fail(ctx, MINV_ERR_NO_GPU, "no usable CUDA device: %s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
}

extern "C" minv_status minv_gpu_create(minv_context *ctx) {
    minv_status status;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0)
        return no_device(ctx, err);
    status = resolve_devices(ctx, count);
    if (status == MINV_SUCCESS) status = gpu_open(ctx, ctx->devices[0], &ctx->gpu);
    if (status != MINV_SUCCESS) {
        minv_gpu_destroy(ctx);
        return status;
    }
    ctx->gpu->team[0] = ctx->gpu;
    minv_gpu_energy_open(ctx->gpu, ctx->devices, ctx->device_count);
    ctx->backend = MINV_BACKEND_GPU;
    ctx->ops = &minv_gpu_backend;
    return MINV_SUCCESS;
}

minv_status minv_gpu_team(minv_context *ctx, minv_gpu **team) {
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    for (int k = 1; k < ctx->device_count; k++)
        if (!g->team[k]) MINV_TRY(gpu_open(ctx, ctx->devices[k], &g->team[k]));
    /* peer access both ways where the hardware has it; elsewhere the driver stages copies */
    for (int k = 0; k < ctx->device_count && !g->peers_enabled; k++)
        for (int j = 0; j < ctx->device_count; j++) {
            int can = 0;
            if (j == k || cudaDeviceCanAccessPeer(&can, ctx->devices[k], ctx->devices[j]) != cudaSuccess || !can)
                continue;
            CUDA_TRY(cudaSetDevice(ctx->devices[k]));
            cudaError_t err = cudaDeviceEnablePeerAccess(ctx->devices[j], 0);
            if (err == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
            else CUDA_TRY(err);
        }
    g->peers_enabled = 1;
    for (int k = 0; k < ctx->device_count; k++) team[k] = g->team[k];
cleanup:
    if (status != MINV_SUCCESS) {
        for (int k = 1; k < ctx->device_count; k++) {
            gpu_close(g->team[k]);
            g->team[k] = NULL;
        }
        g->peers_enabled = 0;
    }
    cudaSetDevice(g->device);
    return status;
}

extern "C" void minv_gpu_destroy(minv_context *ctx) {
    minv_gpu *g = ctx->gpu;
    if (!g)
        return;
    for (int k = 1; k < MINV_MAX_DEVICES; k++) gpu_close(g->team[k]);
    gpu_close(g);
    ctx->gpu = NULL;
}
