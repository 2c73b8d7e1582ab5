/* The cuSOLVERMp plugin of the MPI layer (libminv_mpi_cusolvermp, see plugin.h): one matrix
 * over the GPUs of an MPI job. The NCCL communicator is made from the caller's MPI one (rank
 * 0's unique id broadcast); cuSOLVERMp's device grid takes the ranks in the BLACS's column-major
 * order, so a ScaLAPACK layout's pieces are its pieces. cuSOLVERMp 0.9 factors (potrf, getrf)
 * and solves (potrs, getrs) but has no inverse (potri, getri): an inversion solves for the
 * identity, set in place by cusolverMpLaset. Host pieces go up and the result comes down. */
#include <cuda_runtime_api.h>
#include <cusolverMp.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

struct minv_mpi_gpu_session {
    int device;
    cudaStream_t stream;
    ncclComm_t nccl;
    cusolverMpHandle_t handle;
    cusolverMpGrid_t grid;
};

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(msg, len, "%s: %s", #call, cudaGetErrorString(e_));                           \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)
#define SOLVER(call)                                                                               \
    do {                                                                                           \
        cusolverStatus_t s_ = (call);                                                              \
        if (s_ != CUSOLVER_STATUS_SUCCESS) {                                                       \
            snprintf(msg, len, "%s: cusolverStatus %d", #call, (int)s_);                           \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)

static void close_session(minv_mpi_gpu_session *s) {
    if (!s)
        return;
    cudaSetDevice(s->device);
    if (s->grid)
        cusolverMpDestroyGrid(s->grid);
    if (s->handle)
        cusolverMpDestroy(s->handle);
    if (s->nccl)
        ncclCommDestroy(s->nccl);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

static int open_session(MPI_Comm comm, int device, int nprow, int npcol, minv_mpi_gpu_session **out, char *msg,
                        size_t len) {
    struct {
        int ok;
        ncclUniqueId id;
    } root = {0};
    int rank, size, ready = 0, all_ready = 0, failed = 1;
    minv_mpi_gpu_session *s = calloc(1, sizeof *s);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    *out = NULL;
    /* NCCL's set-up is collective: every rank's readiness is known before any rank enters it */
    if (!s) {
        snprintf(msg, len, "out of memory");
    } else if (cudaSetDevice(device) != cudaSuccess || cudaStreamCreate(&s->stream) != cudaSuccess) {
        snprintf(msg, len, "device %d: %s", device, cudaGetErrorString(cudaGetLastError()));
    } else {
        ready = 1;
        s->device = device;
    }
    if (rank == 0 && ready)
        root.ok = ncclGetUniqueId(&root.id) == ncclSuccess;
    MPI_Bcast(&root, (int)sizeof root, MPI_BYTE, 0, comm);
    ready &= root.ok;
    MPI_Allreduce(&ready, &all_ready, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ready) {
        if (ready || !msg[0])
            snprintf(msg, len, "another rank could not start its GPU or NCCL");
        goto cleanup;
    }
    ncclResult_t nr = ncclCommInitRank(&s->nccl, size, root.id, rank);
    if (nr != ncclSuccess) {
        snprintf(msg, len, "ncclCommInitRank: %s", ncclGetErrorString(nr));
        goto cleanup;
    }
    SOLVER(cusolverMpCreate(&s->handle, device, s->stream));
    SOLVER(cusolverMpCreateDeviceGrid(s->handle, &s->grid, s->nccl, nprow, npcol, CUSOLVERMP_GRID_MAPPING_COL_MAJOR));
    failed = 0;
cleanup:
    if (failed) {
        close_session(s);
        return 1;
    }
    *out = s;
    return 0;
}

static size_t piece_bytes(const minv_mpi_gpu_piece *p, int es) {
    return (size_t)p->lld * (size_t)(p->local_cols > 0 ? p->local_cols : 1) * (size_t)es;
}

static int solve(minv_mpi_gpu_session *s, int es, int spd, const minv_mpi_gpu_piece *a, const minv_mpi_gpu_piece *b,
                 minv_mpi_gpu_piece *x, int *info, char *msg, size_t len) {
    const cudaDataType t = es == 8 ? CUDA_R_64F : CUDA_R_32F;
    const int64_t n = a->n, nrhs = x->n;
    cusolverMpMatrixDescriptor_t da = NULL, dx = NULL;
    void *d_a = NULL, *d_x = NULL, *d_work = NULL, *h_work = NULL;
    int64_t *d_ipiv = NULL;
    int *d_info = NULL, failed = 1;
    size_t dev_f = 0, host_f = 0, dev_s = 0, host_s = 0;
    *info = 0;
    CUDA(cudaSetDevice(s->device));
    SOLVER(cusolverMpCreateMatrixDesc(&da, s->grid, t, a->m, a->n, a->mb, a->nb, 0, 0, a->lld));
    SOLVER(cusolverMpCreateMatrixDesc(&dx, s->grid, t, x->m, x->n, x->mb, x->nb, 0, 0, x->lld));
    CUDA(cudaMalloc(&d_a, piece_bytes(a, es)));
    CUDA(cudaMalloc(&d_x, piece_bytes(x, es)));
    CUDA(cudaMalloc((void **)&d_info, sizeof(int)));
    CUDA(cudaMemcpyAsync(d_a, a->data, piece_bytes(a, es), cudaMemcpyHostToDevice, s->stream));
    if (b) {
        CUDA(cudaMemcpyAsync(d_x, b->data, piece_bytes(x, es), cudaMemcpyHostToDevice, s->stream));
    } else { /* the identity, for an inversion */
        const double zero = 0, one = 1;
        const float fzero = 0, fone = 1;
        SOLVER(cusolverMpLaset(s->handle, CUBLAS_FILL_MODE_FULL, x->m, x->n, es == 8 ? (const void *)&zero : &fzero,
                               es == 8 ? (const void *)&one : &fone, d_x, 1, 1, dx, d_info));
    }
    if (spd) {
        SOLVER(cusolverMpPotrf_bufferSize(s->handle, CUBLAS_FILL_MODE_LOWER, n, d_a, 1, 1, da, t, &dev_f, &host_f));
        SOLVER(cusolverMpPotrs_bufferSize(s->handle, CUBLAS_FILL_MODE_LOWER, n, nrhs, d_a, 1, 1, da, d_x, 1, 1, dx, t,
                                          &dev_s, &host_s));
    } else {
        CUDA(cudaMalloc((void **)&d_ipiv, (size_t)(a->lld + a->mb) * sizeof(int64_t)));
        SOLVER(cusolverMpGetrf_bufferSize(s->handle, n, n, d_a, 1, 1, da, d_ipiv, t, &dev_f, &host_f));
        SOLVER(cusolverMpGetrs_bufferSize(s->handle, CUBLAS_OP_N, n, nrhs, d_a, 1, 1, da, d_ipiv, d_x, 1, 1, dx, t,
                                          &dev_s, &host_s));
    }
    const size_t dev = dev_f > dev_s ? dev_f : dev_s, host = host_f > host_s ? host_f : host_s;
    CUDA(cudaMalloc(&d_work, dev > 0 ? dev : 1));
    h_work = malloc(host > 0 ? host : 1);
    if (!h_work) {
        snprintf(msg, len, "cannot allocate %zu bytes of host workspace", host);
        goto cleanup;
    }
    if (spd)
        SOLVER(cusolverMpPotrf(s->handle, CUBLAS_FILL_MODE_LOWER, n, d_a, 1, 1, da, t, d_work, dev, h_work, host, d_info));
    else
        SOLVER(cusolverMpGetrf(s->handle, n, n, d_a, 1, 1, da, d_ipiv, t, d_work, dev, h_work, host, d_info));
    CUDA(cudaMemcpyAsync(info, d_info, sizeof(int), cudaMemcpyDeviceToHost, s->stream));
    CUDA(cudaStreamSynchronize(s->stream));
    if (*info == 0) {
        if (spd)
            SOLVER(cusolverMpPotrs(s->handle, CUBLAS_FILL_MODE_LOWER, n, nrhs, d_a, 1, 1, da, d_x, 1, 1, dx, t, d_work, dev,
                                   h_work, host, d_info));
        else
            SOLVER(cusolverMpGetrs(s->handle, CUBLAS_OP_N, n, nrhs, d_a, 1, 1, da, d_ipiv, d_x, 1, 1, dx, t, d_work, dev,
                                   h_work, host, d_info));
        CUDA(cudaMemcpyAsync(x->data, d_x, piece_bytes(x, es), cudaMemcpyDeviceToHost, s->stream));
        CUDA(cudaStreamSynchronize(s->stream));
    }
    failed = 0;
cleanup:
    if (da)
        cusolverMpDestroyMatrixDesc(da);
    if (dx)
        cusolverMpDestroyMatrixDesc(dx);
    cudaFree(d_a);
    cudaFree(d_x);
    cudaFree(d_work);
    cudaFree(d_ipiv);
    cudaFree(d_info);
    free(h_work);
    return failed;
}

static const minv_mpi_gpu_plugin plugin = {MINV_MPI_PLUGIN_VERSION, open_session, close_session, solve};

__attribute__((visibility("default"))) const minv_mpi_gpu_plugin *minv_mpi_cusolvermp_plugin(void) { return &plugin; }
