/* The CUDA state a context owns (one per device), and the checks that turn CUDA, cuBLAS and
 * cuSOLVER errors into minv statuses carrying the library's message. */
#ifndef MINV_GPU_STATE_H
#define MINV_GPU_STATE_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include "gpu_workspace.h"

typedef struct minv_energy minv_energy; /* NVML counters (energy.cu) */

/* Pieces a chunk of a host batch goes in (batched.cu). */
enum { MINV_GPU_BATCH_PIECES = 16 };

struct minv_gpu {
    int device;
    minv_energy *energy;                     /* NULL where NVML is absent */
    char name[256];
    int sm_count;
    cudaStream_t stream;                     /* compute */
    cudaStream_t copy[MINV_GPU_STREAMS];     /* transfers overlapped with compute */
    cublasHandle_t blas;
    cublasHandle_t blas_side;                /* on copy[MINV_GPU_STREAMS - 1], for work beside blas's */
    cusolverDnHandle_t solver;
    cusolverDnParams_t solver_params;
    size_t budget;                           /* bytes minv may hold on the device */
    void *ws[WS_COUNT];
    size_t ws_bytes[WS_COUNT];
    /* Nonzero while a request of the current call holds the slot: the request's number on
     * the clock of team[0], so that a scope can release what was reserved within it. */
    unsigned long long ws_held[WS_COUNT];
    unsigned long long ws_clock; /* team[0]'s counts the requests of every device */
    void *pinned[PIN_COUNT];
    size_t pinned_bytes[PIN_COUNT];
    /* The host matrix the analysis uploaded to WS_A during the current call, if any. */
    const void *staged_host;
    int64_t staged_n, staged_ld;
    minv_dtype staged_dtype;
    /* In the context's state (team[0] is itself): every device of ctx->devices, the others
     * opened by the first multi-GPU call and kept for the next DA cycle. */
    minv_gpu *team[MINV_MAX_DEVICES];
    int peers_enabled;
    /* The caller's stream (minv_set_stream; NULL: none), the events that order minv's streams
     * after it and it after them (created with it), and whether the current call joined it. */
    cudaStream_t caller;
    cudaEvent_t fork, join[MINV_GPU_STREAMS + 1];
    int joined;
    /* A Cholesky factor of order <= 512 enqueued beside the analysis of the current call
     * (minv_gpu_cholesky_ahead) on the side stream: of the matrix at a (n, ld, t), into l (n x n
     * with L^T in its upper triangle, potrf's info after it: cholesky.cu's ahead_info), done
     * when `done` is. live until the Cholesky takes it, its slots are released, or the call
     * ends. */
    struct {
        int live;
        const void *a;
        int64_t n, ld;
        minv_dtype t;
        void *l;
        cudaEvent_t start, done;
        /* the last small call that factored beside its analysis went to another method (a
         * general matrix under AUTO): the next does not, until a small Cholesky runs again */
        int skip;
        int mirror; /* L^T in l's upper triangle (the small solves' layout) */
    } ahead;
    /* batched.cu: a host batch's pieces in flight (uploaded, computed, downloaded), created
     * by the first batch that needs them */
    cudaEvent_t piece_events[3 * MINV_GPU_BATCH_PIECES];
    /* triangular_narrow.cu: a few-column solve of the current call found no room for its
     * sums in the budget and went to cuBLAS's TRSM (minv_gpu_narrow_note reports it) */
    int narrow_by_trsm;
    /* lu_cluster.cu: whether its kernel runs here in a cluster of b blocks, [0] double, [1]
     * float; 0 not asked yet, 1 yes (the kernel's attributes set), -1 no */
    signed char lu_cluster_fits[2][17];
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

/* ---- energy (energy.cu) ---- */
/* Loads NVML and finds the given CUDA devices; on any failure g->energy stays NULL. */
void minv_gpu_energy_open(minv_gpu *g, const int *devices, int count);
void minv_gpu_energy_close(minv_gpu *g);

/* ---- the caller's stream (stream.cu) ---- */
/* minv_set_stream's backend op: checks that the stream is one of g's device. */
minv_status minv_gpu_set_stream(minv_context *ctx, void *stream);
/* A call on device data begins: minv's streams wait for the caller's (an event, no host
 * synchronisation; a context with several devices synchronises it, as the other devices'
 * streams must wait too). Without a caller's stream nothing happens. */
minv_status minv_gpu_begin_device_call(minv_context *ctx);
/* The call ends: the caller's stream waits for minv's streams; 0 if that could not be
 * arranged (the caller must then synchronise minv's streams). */
int minv_gpu_join_caller(minv_gpu *g);
void minv_gpu_stream_close(minv_gpu *g);

/* ---- several devices (gpu_context.cu) ---- */
/* team[0 .. ctx->device_count): the state of each device of the context, ctx->gpu first;
 * opens the others on first use, with peer access between every pair that has it. */
minv_status minv_gpu_team(minv_context *ctx, minv_gpu **team);

#endif
