/* The interface between libminv_mpi and its cuSOLVERMp plugin (libminv_mpi_cusolvermp), which
 * alone links CUDA, NCCL and cuSOLVERMp so that libminv_mpi loads on machines without them.
 * Plain C types and MPI only; every function returns 0 or an error with its text in msg. */
#ifndef MINV_MPI_CUSOLVERMP_PLUGIN_H
#define MINV_MPI_CUSOLVERMP_PLUGIN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum { MINV_MPI_PLUGIN_VERSION = 1 };

/* The NCCL communicator, cuSOLVERMp handle and device grid of one communicator's ranks, each
 * on its GPU; made once per layout grid and reused. */
typedef struct minv_mpi_gpu_session minv_mpi_gpu_session;

/* One rank's piece of a block-cyclic matrix in host memory (ScaLAPACK's layout, first block at
 * grid row and column 0). */
typedef struct {
    int64_t m, n, mb, nb, lld, local_cols;
    void *data;
} minv_mpi_gpu_piece;

typedef struct {
    int version;
    /* Collective over comm: NCCL from MPI (rank 0's unique id broadcast), the cuSOLVERMp handle
     * on `device`, the nprow x npcol grid (column-major, the BLACS's order) of all its ranks. */
    int (*open)(MPI_Comm comm, int device, int nprow, int npcol, minv_mpi_gpu_session **session, char *msg,
                size_t len);
    void (*close)(minv_mpi_gpu_session *session);
    /* x = A^-1 b by Cholesky (spd) or LU of A (potrf/potrs, getrf/getrs), with b the identity
     * when it is NULL (an inversion: cuSOLVERMp has no potri or getri). a, b and x are pieces in
     * host memory (element size es: 8 or 4); x may be b or a (the latter when b is NULL).
     * *info: the 1-based column where the factorisation failed, 0 otherwise. */
    int (*solve)(minv_mpi_gpu_session *session, int es, int spd, const minv_mpi_gpu_piece *a,
                 const minv_mpi_gpu_piece *b, minv_mpi_gpu_piece *x, int *info, char *msg, size_t len);
} minv_mpi_gpu_plugin;

/* The one symbol the plugin exports. */
typedef const minv_mpi_gpu_plugin *(*minv_mpi_gpu_plugin_fn)(void);
#define MINV_MPI_PLUGIN_SYMBOL "minv_mpi_cusolvermp_plugin"

#endif
