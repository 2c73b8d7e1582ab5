/* The interface between libminv_mpi and its cuSOLVERMp plugin (libminv_mpi_cusolvermp), which
 * alone links CUDA, NCCL and cuSOLVERMp so that libminv_mpi loads on machines without them.
 * Plain C types and MPI only; every function returns 0 or an error with its text in msg. */
#ifndef MINV_MPI_CUSOLVERMP_PLUGIN_H
#define MINV_MPI_CUSOLVERMP_PLUGIN_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum { MINV_MPI_PLUGIN_VERSION = 4 };

/* What solve returns, the same on every rank of the session. */
enum {
    MINV_MPI_GPU_DONE = 0,          /* x solved, or *info > 0 where the factorisation stopped */
    MINV_MPI_GPU_ERROR = 1,         /* a device, NCCL or library failure before or after it */
    MINV_MPI_GPU_FACTOR_FAILED = 2, /* potrf or getrf returned an error, or U has a non-finite
                                     * pivot before any zero one: its result is not to be trusted */
    MINV_MPI_GPU_NO_MEMORY = 3      /* A's piece and one round of X's columns do not fit the device
                                     * memory the call may use (or their allocation failed):
                                     * nothing was computed */
};

/* The NCCL communicator and cuSOLVERMp handle of one communicator's ranks, each on its GPU,
 * with a device grid for each grid shape its calls have used: libminv_mpi makes one per
 * context, device and communicator and reuses it for every call on every layout of that
 * communicator (cuSOLVERMp takes one handle per device; NCCL's set-up costs a collective). */
typedef struct minv_mpi_gpu_session minv_mpi_gpu_session;

/* One rank's piece of a block-cyclic matrix in host memory (ScaLAPACK's layout, first block at
 * grid row and column 0), and the rank's place (myrow, mycol) in the grid. */
typedef struct {
    int64_t m, n, mb, nb, lld, local_cols;
    int myrow, mycol;
    void *data;
} minv_mpi_gpu_piece;

/* Where a solve's time went: seconds of the slowest rank at each step (each step ends with
 * every rank's stream drained), bytes summed over the ranks. upload: the device buffers, A on
 * the device, the workspaces; solve: each part of B (its upload counted in upload_bytes) or of
 * the identity set and solved; download: x back to the host. parts: how many parts of
 * part_columns columns X was solved in (more than one where the device memory does not hold
 * A and X at once). */
typedef struct {
    double upload_seconds, factor_seconds, solve_seconds, download_seconds;
    double upload_bytes, download_bytes;
    int64_t parts, part_columns;
} minv_mpi_gpu_times;

typedef struct {
    int version;
    /* Collective over comm: NCCL from MPI (rank 0's unique id broadcast) and the cuSOLVERMp
     * handle on `device`. comm is the caller's (a duplicate of its own) and outlives the
     * session. */
    int (*open)(MPI_Comm comm, int device, minv_mpi_gpu_session **session, char *msg, size_t len);
    /* Frees the session; abort: after a call that failed, whose collectives may not have
     * finished on every rank, the NCCL communicator is aborted rather than destroyed. */
    void (*close)(minv_mpi_gpu_session *session, int abort);
    /* x = A^-1 b by Cholesky (spd) or LU of A (potrf/potrs, getrf/getrs), with b the identity
     * when it is NULL (an inversion: cuSOLVERMp has no potri or getri). a, b and x are pieces in
     * host memory (element size es: 8 or 4); x may be b, or a where b is NULL, or apart. The
     * host pieces are read, and x written only when the call is DONE with *info 0: after any
     * other outcome they hold what they held (A and B for a redo elsewhere). *info: the
     * 1-based global column where the factorisation stopped (cuSOLVERMp's info, or for LU the
     * first exactly zero pivot U(j,j)), the same on every rank; 0 otherwise. Returns a
     * MINV_MPI_GPU_* outcome, agreed over the session's ranks (so all take the same way);
     * *times as far as the call got (zeros for steps not taken). budget: the bytes of device
     * memory the call may use on each GPU (0: what is free); X is solved in parts of whole
     * rounds of the process columns where A and X do not fit at once. The pieces lie on an
     * nprow x npcol grid of all the session's ranks (column-major, the BLACS's order), made on
     * the session's handle the first time a call asks for that shape. */
    int (*solve)(minv_mpi_gpu_session *session, int nprow, int npcol, int es, int spd, const minv_mpi_gpu_piece *a,
                 const minv_mpi_gpu_piece *b, minv_mpi_gpu_piece *x, int64_t budget, int *info,
                 minv_mpi_gpu_times *times, char *msg, size_t len);
} minv_mpi_gpu_plugin;

/* The one symbol the plugin exports. */
typedef const minv_mpi_gpu_plugin *(*minv_mpi_gpu_plugin_fn)(void);
#define MINV_MPI_PLUGIN_SYMBOL "minv_mpi_cusolvermp_plugin"

#endif
