/* The cuSOLVERMp plugin of the MPI layer (libminv_mpi_cusolvermp, see plugin.h): one matrix
 * over the GPUs of an MPI job. The NCCL communicator is made from the caller's MPI one (rank
 * 0's unique id broadcast); cuSOLVERMp's device grid takes the ranks in the BLACS's column-major
 * order, so a ScaLAPACK layout's pieces are its pieces. cuSOLVERMp 0.9 factors (potrf, getrf)
 * and solves (potrs, getrs) but has no inverse (potri, getri): an inversion solves for the
 * identity, set in place by cusolverMpLaset. Host pieces go up and the result comes down.
 * Every rank takes the same way: the outcome of the set-up, the factorisation and the solve is
 * agreed over MPI before the next collective step. LU's exactly zero pivots are read off U's
 * diagonal, as cuSOLVERMp 0.8's getrf leaves info 0 for them. */
#include <cuda_runtime_api.h>
#include <cusolverMp.h>
#include <nccl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

/* A device grid of the session's ranks, one per shape asked for. */
typedef struct grid_shape {
    int nprow, npcol;
    cusolverMpGrid_t grid;
    struct grid_shape *next;
} grid_shape;

struct minv_mpi_gpu_session {
    int device;
    MPI_Comm comm; /* the caller's duplicate, which outlives the session */
    cudaStream_t stream;
    ncclComm_t nccl;
    cusolverMpHandle_t handle;
    grid_shape *grids;
};

/* What a call works with: the session's communicator, stream and handle, and the grid of the
 * call's pieces. */
typedef struct {
    int device, nprow, npcol;
    MPI_Comm comm;
    cudaStream_t stream;
    cusolverMpHandle_t handle;
    cusolverMpGrid_t grid;
} grid_call;

#define CUDA(call)                                                                                 \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(msg, len, "%s: %s", #call, cudaGetErrorString(e_));                           \
            goto cleanup;                                                                          \
        }                                                                                          \
    } while (0)
/* An allocation of the job's: out of memory is the caller's NO_MEMORY (2 from job_setup). */
#define ALLOC(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(msg, len, "%s: %s", #call, cudaGetErrorString(e_));                           \
            cudaGetLastError();                                                                    \
            if (e_ == cudaErrorMemoryAllocation)                                                   \
                return 2;                                                                          \
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

static void close_session(minv_mpi_gpu_session *s, int abort) {
    if (!s)
        return;
    cudaSetDevice(s->device);
    for (grid_shape *g = s->grids, *next; g; g = next) {
        next = g->next;
        cusolverMpDestroyGrid(g->grid);
        free(g);
    }
    if (s->handle)
        cusolverMpDestroy(s->handle);
    if (s->nccl)
        (abort ? ncclCommAbort : ncclCommDestroy)(s->nccl);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    free(s);
}

static int open_session(MPI_Comm comm, int device, minv_mpi_gpu_session **out, char *msg, size_t len) {
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
        s->comm = comm;
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
    failed = 0;
cleanup:
    if (failed) {
        close_session(s, 0);
        return 1;
    }
    *out = s;
    return 0;
}

/* The call's view of the session with its nprow x npcol grid, made the first time that shape
 * is asked for (every rank asks for the same shapes in the same order: the calls are
 * collective). */
static int call_on_grid(minv_mpi_gpu_session *s, int nprow, int npcol, grid_call *c, char *msg, size_t len) {
    grid_shape *g = s->grids;
    while (g && (g->nprow != nprow || g->npcol != npcol)) g = g->next;
    CUDA(cudaSetDevice(s->device));
    if (!g) {
        if (!(g = calloc(1, sizeof *g))) {
            snprintf(msg, len, "out of memory");
            return 1;
        }
        const cusolverStatus_t st =
            cusolverMpCreateDeviceGrid(s->handle, &g->grid, s->nccl, nprow, npcol, CUSOLVERMP_GRID_MAPPING_COL_MAJOR);
        if (st != CUSOLVER_STATUS_SUCCESS) {
            snprintf(msg, len, "cusolverMpCreateDeviceGrid (%d x %d): cusolverStatus %d", nprow, npcol, (int)st);
            free(g);
            return 1;
        }
        g->nprow = nprow;
        g->npcol = npcol;
        g->next = s->grids;
        s->grids = g;
    }
    *c = (grid_call){s->device, nprow, npcol, s->comm, s->stream, s->handle, g->grid};
    return 0;
cleanup:
    return 1;
}

static size_t piece_bytes(const minv_mpi_gpu_piece *p, int es) {
    return (size_t)p->lld * (size_t)(p->local_cols > 0 ? p->local_cols : 1) * (size_t)es;
}

/* What a piece's copy moves (piece_bytes less the stand-in column of a rank with none). */
static double moved_bytes(const minv_mpi_gpu_piece *p, int es) {
    return p->local_cols > 0 ? (double)piece_bytes(p, es) : 0;
}

static const char *status_name(cusolverStatus_t s) {
    switch (s) {
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "see cusolverStatus_t";
    }
}

/* One solve's descriptors and device buffers. X (B, or the identity) is solved in parts of
 * `width` columns, all of them where the device memory holds A, X and the workspaces. */
typedef struct {
    cusolverMpMatrixDescriptor_t da, dx;
    void *d_a, *d_x, *d_work, *h_work;
    int64_t *d_ipiv;
    int *d_info;
    size_t dev, host;
    int64_t width;
} job;

static void job_free(job *j) {
    if (j->da)
        cusolverMpDestroyMatrixDesc(j->da);
    if (j->dx)
        cusolverMpDestroyMatrixDesc(j->dx);
    cudaFree(j->d_a);
    cudaFree(j->d_x);
    cudaFree(j->d_work);
    cudaFree(j->d_ipiv);
    cudaFree(j->d_info);
    free(j->h_work);
}

/* A rank's local columns of the first `cols` global columns of a layout in blocks of nb over
 * npcol process columns, the first block on process column 0. */
static int64_t local_columns(int64_t cols, int64_t nb, int mycol, int npcol) {
    return cusolverMpNUMROC(cols, nb, (uint32_t)mycol, 0, (uint32_t)npcol);
}

/* The widest part of X that fits beside A's piece (on the device already) and the factor's
 * workspace in the device memory minv may use: the budget (bytes, 0: no limit) and nine tenths
 * of what is free (a tenth kept for cuSOLVERMp's and NCCL's own); the least over the ranks:
 * all nrhs columns, or whole rounds of the process columns (nb x npcol), so that every part
 * starts a round and its local columns follow on in X's piece; 0 where not one round fits. */
static int64_t part_width(grid_call *s, const minv_mpi_gpu_piece *a, const minv_mpi_gpu_piece *x, int es,
                          size_t dev_f, int64_t budget) {
    size_t free_bytes = 0, total = 0;
    int64_t width = 0;
    if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) {
        double room = 0.9 * (double)free_bytes;
        if (budget > 0)
            room = fmin(room, (double)budget - (double)piece_bytes(a, es));
        room -= (double)dev_f;
        const double column = (double)x->lld * es;
        if (room >= column * (double)(x->local_cols > 0 ? x->local_cols : 1))
            width = x->n;
        else if (room > 0)
            width = (int64_t)(room / column) / x->nb * x->nb * s->npcol;
    }
    MPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_INT64_T, MPI_MIN, s->comm);
    return width < x->n ? width : x->n;
}

/* The descriptor of X's part of `cols` columns (X's rows and blocks). */
static int part_desc(grid_call *s, job *j, int es, const minv_mpi_gpu_piece *x, int64_t cols, char *msg,
                     size_t len) {
    if (j->dx)
        cusolverMpDestroyMatrixDesc(j->dx);
    j->dx = NULL;
    SOLVER(cusolverMpCreateMatrixDesc(&j->dx, s->grid, es == 8 ? CUDA_R_64F : CUDA_R_32F, x->m, cols, x->mb, x->nb, 0, 0,
                                      x->lld));
    return 0;
cleanup:
    return 1;
}

/* A on the device, the pivots, the part of X and the workspaces for the factor and for the
 * solve of one part: 0; 2 where the device memory does not hold them; 1 on another failure;
 * msg says why. */
static int job_setup(grid_call *s, job *j, int es, int spd, const minv_mpi_gpu_piece *a,
                     const minv_mpi_gpu_piece *x, int64_t budget, char *msg, size_t len) {
    const cudaDataType t = es == 8 ? CUDA_R_64F : CUDA_R_32F;
    const int64_t n = a->n;
    size_t dev_f = 0, host_f = 0, dev_s = 0, host_s = 0;
    CUDA(cudaSetDevice(s->device));
    SOLVER(cusolverMpCreateMatrixDesc(&j->da, s->grid, t, a->m, a->n, a->mb, a->nb, 0, 0, a->lld));
    ALLOC(cudaMalloc(&j->d_a, piece_bytes(a, es)));
    CUDA(cudaMalloc((void **)&j->d_info, sizeof(int)));
    CUDA(cudaMemcpyAsync(j->d_a, a->data, piece_bytes(a, es), cudaMemcpyHostToDevice, s->stream));
    if (spd) {
        SOLVER(cusolverMpPotrf_bufferSize(s->handle, CUBLAS_FILL_MODE_LOWER, n, j->d_a, 1, 1, j->da, t, &dev_f, &host_f));
    } else {
        /* cuSOLVERMp keeps the pivots along A's local columns (its getrf sample sizes them by
         * them), ScaLAPACK along the local rows: room for either, so that a P x 1 grid, with
         * more local columns than rows, does not overrun them */
        const int64_t ipiv_len = (a->lld > a->local_cols ? a->lld : a->local_cols) + (a->mb > a->nb ? a->mb : a->nb);
        ALLOC(cudaMalloc((void **)&j->d_ipiv, (size_t)ipiv_len * sizeof(int64_t)));
        SOLVER(cusolverMpGetrf_bufferSize(s->handle, n, n, j->d_a, 1, 1, j->da, j->d_ipiv, t, &dev_f, &host_f));
    }
    if ((j->width = part_width(s, a, x, es, dev_f, budget)) == 0) {
        snprintf(msg, len, "device memory: A's piece (%.3f GB), the factor's workspace (%.3f GB) and %lld columns of X do not fit%s",
                 (double)piece_bytes(a, es) / 1e9, (double)dev_f / 1e9, (long long)(x->nb * s->npcol),
                 budget > 0 ? " the context's device_memory" : " the free device memory");
        return 2;
    }
    const int64_t part_cols = local_columns(j->width, x->nb, x->mycol, s->npcol);
    ALLOC(cudaMalloc(&j->d_x, (size_t)x->lld * (size_t)(part_cols > 0 ? part_cols : 1) * (size_t)es));
    if (part_desc(s, j, es, x, j->width, msg, len) != 0)
        return 1;
    if (spd)
        SOLVER(cusolverMpPotrs_bufferSize(s->handle, CUBLAS_FILL_MODE_LOWER, n, j->width, j->d_a, 1, 1, j->da, j->d_x, 1,
                                          1, j->dx, t, &dev_s, &host_s));
    else
        SOLVER(cusolverMpGetrs_bufferSize(s->handle, CUBLAS_OP_N, n, j->width, j->d_a, 1, 1, j->da, j->d_ipiv, j->d_x, 1,
                                          1, j->dx, t, &dev_s, &host_s));
    j->dev = dev_f > dev_s ? dev_f : dev_s;
    j->host = host_f > host_s ? host_f : host_s;
    ALLOC(cudaMalloc(&j->d_work, j->dev > 0 ? j->dev : 1));
    if (!(j->h_work = malloc(j->host > 0 ? j->host : 1))) {
        snprintf(msg, len, "cannot allocate %zu bytes of host workspace", j->host);
        return 1;
    }
    /* cuSOLVERMp may leave info as it found it */
    CUDA(cudaMemsetAsync(j->d_info, 0, sizeof(int), s->stream));
    CUDA(cudaStreamSynchronize(s->stream)); /* the upload's time is its own */
    return 0;
cleanup:
    return 1;
}

/* The first exactly zero and the first non-finite pivot U(j,j) of the factored A (1-based
 * global columns, INT64_MAX where none) among this rank's diagonal blocks: one strided copy
 * of a block's diagonal each, a few per rank where the factorisation is seconds. */
static int pivots(grid_call *s, int es, const minv_mpi_gpu_piece *a, const void *d_a, int64_t *zero,
                  int64_t *bad, char *msg, size_t len) {
    const int64_t n = a->n, nb = a->nb, blocks = (n + nb - 1) / nb;
    int64_t count = 0, at = 0;
    *zero = *bad = INT64_MAX;
    for (int64_t k = 0; k < blocks; k++)
        if (k % s->nprow == a->myrow && k % s->npcol == a->mycol)
            count += n - k * nb < nb ? n - k * nb : nb;
    if (count == 0)
        return 0;
    char *diag = malloc((size_t)count * (size_t)es);
    if (!diag) {
        snprintf(msg, len, "cannot allocate %lld pivots", (long long)count);
        return 1;
    }
    for (int64_t k = 0; k < blocks; k++) {
        if (k % s->nprow != a->myrow || k % s->npcol != a->mycol)
            continue;
        const int64_t size = n - k * nb < nb ? n - k * nb : nb, row = k / s->nprow * nb, col = k / s->npcol * nb;
        CUDA(cudaMemcpy2DAsync(diag + at * es, (size_t)es, (const char *)d_a + (size_t)(col * a->lld + row) * (size_t)es,
                               (size_t)(a->lld + 1) * (size_t)es, (size_t)es, (size_t)size, cudaMemcpyDeviceToHost,
                               s->stream));
        at += size;
    }
    CUDA(cudaStreamSynchronize(s->stream));
    at = 0;
    for (int64_t k = 0; k < blocks; k++) {
        if (k % s->nprow != a->myrow || k % s->npcol != a->mycol)
            continue;
        const int64_t size = n - k * nb < nb ? n - k * nb : nb;
        for (int64_t i = 0; i < size; i++, at++) {
            const double v = es == 8 ? ((const double *)diag)[at] : (double)((const float *)diag)[at];
            const int64_t j = k * nb + i + 1;
            if (v == 0 && j < *zero)
                *zero = j;
            if (!isfinite(v) && j < *bad)
                *bad = j;
        }
    }
    free(diag);
    return 0;
cleanup:
    free(diag);
    return 1;
}

/* The worst outcome of every rank, and the message of the lowest rank that had it. */
static int agree(grid_call *s, int outcome, char *msg, size_t len) {
    int worst, rank, size, from;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    MPI_Allreduce(&outcome, &worst, 1, MPI_INT, MPI_MAX, s->comm);
    if (worst == MINV_MPI_GPU_DONE)
        return worst;
    const int mine = outcome == worst ? rank : size;
    MPI_Allreduce(&mine, &from, 1, MPI_INT, MPI_MIN, s->comm);
    MPI_Bcast(msg, (int)len, MPI_CHAR, from, s->comm);
    return worst;
}

/* The factorisation: its outcome and, agreed over the ranks, the column where it stopped. */
static int factor(grid_call *s, job *j, int es, int spd, const minv_mpi_gpu_piece *a, int *info, char *msg,
                  size_t len) {
    const cudaDataType t = es == 8 ? CUDA_R_64F : CUDA_R_32F;
    const char *name = spd ? "cusolverMpPotrf" : "cusolverMpGetrf";
    int outcome = MINV_MPI_GPU_DONE, local = 0;
    int64_t zero = INT64_MAX, bad = INT64_MAX;
    const cusolverStatus_t st =
        spd ? cusolverMpPotrf(s->handle, CUBLAS_FILL_MODE_LOWER, a->n, j->d_a, 1, 1, j->da, t, j->d_work, j->dev,
                              j->h_work, j->host, j->d_info)
            : cusolverMpGetrf(s->handle, a->n, a->n, j->d_a, 1, 1, j->da, j->d_ipiv, t, j->d_work, j->dev, j->h_work,
                              j->host, j->d_info);
    if (st != CUSOLVER_STATUS_SUCCESS) {
        outcome = MINV_MPI_GPU_FACTOR_FAILED;
        snprintf(msg, len, "%s: cusolverStatus %d (%s)", name, (int)st, status_name(st));
    } else if (cudaMemcpyAsync(&local, j->d_info, sizeof(int), cudaMemcpyDeviceToHost, s->stream) != cudaSuccess ||
               cudaStreamSynchronize(s->stream) != cudaSuccess) {
        outcome = MINV_MPI_GPU_ERROR;
        snprintf(msg, len, "%s's info: %s", name, cudaGetErrorString(cudaGetLastError()));
    } else if (local < 0) {
        outcome = MINV_MPI_GPU_ERROR;
        snprintf(msg, len, "%s: argument %d is illegal", name, -local);
    } else if (!spd && pivots(s, es, a, j->d_a, &zero, &bad, msg, len) != 0) {
        outcome = MINV_MPI_GPU_ERROR;
    }
    int64_t v[3] = {local > 0 ? local : INT64_MAX, zero, bad};
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MIN, s->comm);
    if ((outcome = agree(s, outcome, msg, len)) != MINV_MPI_GPU_DONE)
        return outcome;
    /* cuSOLVERMp's info, or the first zero pivot, as LAPACK's info; a non-finite pivot before
     * it (the input is finite) means that the factorisation broke down */
    const int64_t col = v[0] < v[1] ? v[0] : v[1];
    if (v[2] < col) {
        snprintf(msg, len, "U(%lld,%lld) is not finite after cusolverMpGetrf", (long long)v[2], (long long)v[2]);
        return MINV_MPI_GPU_FACTOR_FAILED;
    }
    *info = col == INT64_MAX ? 0 : (int)col;
    return MINV_MPI_GPU_DONE;
}

/* Part [c0, c0 + cols) of B on the device, or of the identity: zeros, then ones down the
 * diagonal of its rows c0 .. c0 + cols (cuSOLVERMp's laset on that square, which starts a
 * block). Then solved by the factors. */
static int solve_part(grid_call *s, job *j, int es, int spd, const minv_mpi_gpu_piece *a,
                      const minv_mpi_gpu_piece *b, const minv_mpi_gpu_piece *x, int64_t c0, int64_t cols,
                      size_t offset, size_t bytes, char *msg, size_t len) {
    const cudaDataType t = es == 8 ? CUDA_R_64F : CUDA_R_32F;
    const double zero = 0, one = 1;
    const float fzero = 0, fone = 1;
    if (b) {
        CUDA(cudaMemcpyAsync(j->d_x, (const char *)b->data + offset, bytes, cudaMemcpyHostToDevice, s->stream));
    } else {
        CUDA(cudaMemsetAsync(j->d_x, 0, bytes, s->stream));
        SOLVER(cusolverMpLaset(s->handle, CUBLAS_FILL_MODE_FULL, cols, cols, es == 8 ? (const void *)&zero : &fzero,
                               es == 8 ? (const void *)&one : &fone, j->d_x, c0 + 1, 1, j->dx, j->d_info));
    }
    if (spd)
        SOLVER(cusolverMpPotrs(s->handle, CUBLAS_FILL_MODE_LOWER, a->n, cols, j->d_a, 1, 1, j->da, j->d_x, 1, 1, j->dx, t,
                               j->d_work, j->dev, j->h_work, j->host, j->d_info));
    else
        SOLVER(cusolverMpGetrs(s->handle, CUBLAS_OP_N, a->n, cols, j->d_a, 1, 1, j->da, j->d_ipiv, j->d_x, 1, 1, j->dx, t,
                               j->d_work, j->dev, j->h_work, j->host, j->d_info));
    CUDA(cudaStreamSynchronize(s->stream));
    return 0;
cleanup:
    return 1;
}

/* The times of the steps taken: the slowest rank's seconds, the bytes of all. */
static void agree_times(grid_call *s, minv_mpi_gpu_times *t) {
    double seconds[4] = {t->upload_seconds, t->factor_seconds, t->solve_seconds, t->download_seconds},
           bytes[2] = {t->upload_bytes, t->download_bytes};
    MPI_Allreduce(MPI_IN_PLACE, seconds, 4, MPI_DOUBLE, MPI_MAX, s->comm);
    MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_DOUBLE, MPI_SUM, s->comm);
    t->upload_seconds = seconds[0];
    t->factor_seconds = seconds[1];
    t->solve_seconds = seconds[2];
    t->download_seconds = seconds[3];
    t->upload_bytes = bytes[0];
    t->download_bytes = bytes[1];
}

static int solve(minv_mpi_gpu_session *session, int nprow, int npcol, int es, int spd, const minv_mpi_gpu_piece *a,
                 const minv_mpi_gpu_piece *b, minv_mpi_gpu_piece *x, int64_t budget, int *info, minv_mpi_gpu_times *times,
                 char *msg, size_t len) {
    job j = {0};
    grid_call call = {.comm = session->comm}, *s = &call;
    int failed = 1;
    double t0 = MPI_Wtime();
    *info = 0;
    *times = (minv_mpi_gpu_times){0};
    /* every rank set up, or none factors: cuSOLVERMp's calls are collective over NCCL */
    int set = call_on_grid(session, nprow, npcol, s, msg, len);
    if (set == 0)
        set = job_setup(s, &j, es, spd, a, x, budget, msg, len);
    int outcome = agree(s, set == 0 ? MINV_MPI_GPU_DONE : set == 2 ? MINV_MPI_GPU_NO_MEMORY : MINV_MPI_GPU_ERROR, msg, len);
    times->upload_seconds = MPI_Wtime() - t0;
    times->upload_bytes = moved_bytes(a, es);
    if (outcome == MINV_MPI_GPU_DONE) { /* the factor's time only where it ran: the report says so */
        t0 = MPI_Wtime();
        outcome = factor(s, &j, es, spd, a, info, msg, len);
        times->factor_seconds = MPI_Wtime() - t0;
    }
    if (outcome != MINV_MPI_GPU_DONE || *info != 0) {
        job_free(&j);
        agree_times(s, times);
        return outcome;
    }
    /* each part comes down into x as it is solved (x may be b: a part of b is read before x's
     * same part is written); a failure from here on is an error, which no redo follows */
    times->parts = (x->n + j.width - 1) / j.width;
    times->part_columns = j.width;
    for (int64_t c0 = 0; c0 < x->n; c0 += j.width) {
        const int64_t cols = x->n - c0 < j.width ? x->n - c0 : j.width,
                      local = local_columns(cols, x->nb, x->mycol, s->npcol);
        /* c0 starts a round of the process columns: this part's columns follow on in the piece */
        const size_t offset = (size_t)local_columns(c0, x->nb, x->mycol, s->npcol) * (size_t)x->lld * (size_t)es,
                     bytes = (size_t)x->lld * (size_t)local * (size_t)es;
        if (cols != j.width && part_desc(s, &j, es, x, cols, msg, len) != 0)
            goto cleanup;
        t0 = MPI_Wtime();
        if (solve_part(s, &j, es, spd, a, b, x, c0, cols, offset, bytes, msg, len) != 0)
            goto cleanup;
        times->upload_bytes += b ? (double)bytes : 0;
        times->solve_seconds += MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        if (local > 0) {
            CUDA(cudaMemcpyAsync((char *)x->data + offset, j.d_x, bytes, cudaMemcpyDeviceToHost, s->stream));
            CUDA(cudaStreamSynchronize(s->stream));
        }
        times->download_seconds += MPI_Wtime() - t0;
        times->download_bytes += (double)bytes;
    }
    failed = 0;
cleanup:
    job_free(&j);
    agree_times(s, times);
    return agree(s, failed ? MINV_MPI_GPU_ERROR : MINV_MPI_GPU_DONE, msg, len);
}

static const minv_mpi_gpu_plugin plugin = {MINV_MPI_PLUGIN_VERSION, open_session, close_session, solve};

__attribute__((visibility("default"))) const minv_mpi_gpu_plugin *minv_mpi_cusolvermp_plugin(void) { return &plugin; }
