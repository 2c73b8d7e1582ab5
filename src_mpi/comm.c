/* Statuses and messages agreed over a communicator, so that every rank returns the same
 * status and text; small reductions; the GPU of a rank. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi_internal.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The message of ctx without its leading "<status string>: ", which minv_fail adds again. */
static const char *detail_of(const minv_context *ctx, minv_status status) {
    const char *msg = minv_last_error(ctx), *prefix = minv_status_string(status);
    const size_t len = strlen(prefix);
    if (strncmp(msg, prefix, len) == 0 && msg[len] == ':' && msg[len + 1] == ' ')
        return msg + len + 2;
    return msg;
}

minv_status minv_mpi_agree_ranked(minv_context *ctx, MPI_Comm comm, minv_status local, int priority) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* the highest priority among failures; MAXLOC breaks ties by the lowest rank */
    int mine[2] = {local != MINV_SUCCESS ? priority : INT_MIN, rank}, best[2];
    MPI_Allreduce(mine, best, 1, MPI_2INT, MPI_MAXLOC, comm);
    if (best[0] == INT_MIN)
        return MINV_SUCCESS;
    /* a failure every rank met (the same file, the same matrix) needs no rank named */
    int failing = local != MINV_SUCCESS, all = 0;
    MPI_Allreduce(&failing, &all, 1, MPI_INT, MPI_SUM, comm);
    const int root = best[1];
    char text[MINV_ERROR_LEN];
    int st = (int)local;
    if (rank == root)
        snprintf(text, sizeof text, "%s", ctx ? detail_of(ctx, local) : "ctx is NULL");
    MPI_Bcast(&st, 1, MPI_INT, root, comm);
    MPI_Bcast(text, (int)sizeof text, MPI_CHAR, root, comm);
    if (size == 1 || all == size)
        return minv_fail(ctx, (minv_status)st, "%s", text);
    return minv_fail(ctx, (minv_status)st, "rank %d: %s", root, text);
}

minv_status minv_mpi_agree(minv_context *ctx, MPI_Comm comm, minv_status local) {
    return minv_mpi_agree_ranked(ctx, comm, local, 0);
}

minv_status minv_mpi_enter(minv_context *ctx, MPI_Comm comm) {
    const int busy = ctx && minv_context_enter(ctx) != MINV_SUCCESS;
    if (comm == MPI_COMM_NULL)
        return busy ? MINV_ERR_CONTEXT_BUSY : MINV_SUCCESS;
    int rank, first;
    MPI_Comm_rank(comm, &rank);
    const int mine = busy ? rank : INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == INT_MAX)
        return MINV_SUCCESS;
    if (!busy && ctx) {
        minv_fail(ctx, MINV_ERR_CONTEXT_BUSY, "rank %d's context is in use by another thread, so every rank refuses the call", first);
        minv_context_leave(ctx);
    }
    return MINV_ERR_CONTEXT_BUSY;
}

void minv_mpi_leave(minv_context *ctx) {
    if (ctx)
        minv_context_leave(ctx);
}

void minv_mpi_bcast_bytes(void *buf, size_t len, int root, MPI_Comm comm) {
    for (size_t done = 0; done < len;) {
        const size_t part = len - done < (size_t)INT_MAX ? len - done : (size_t)INT_MAX;
        MPI_Bcast((char *)buf + done, (int)part, MPI_BYTE, root, comm);
        done += part;
    }
}

static int64_t reduce_i64(int64_t v, MPI_Op op, MPI_Comm comm) {
    int64_t out;
    MPI_Allreduce(&v, &out, 1, MPI_INT64_T, op, comm);
    return out;
}

int64_t minv_mpi_sum_i64(int64_t v, MPI_Comm comm) { return reduce_i64(v, MPI_SUM, comm); }
int64_t minv_mpi_max_i64(int64_t v, MPI_Comm comm) { return reduce_i64(v, MPI_MAX, comm); }
int64_t minv_mpi_min_i64(int64_t v, MPI_Comm comm) { return reduce_i64(v, MPI_MIN, comm); }

int64_t minv_mpi_exscan_i64(int64_t v, MPI_Comm comm) {
    int64_t before = 0;
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Exscan(&v, &before, 1, MPI_INT64_T, MPI_SUM, comm);
    return rank == 0 ? 0 : before; /* undefined on rank 0 */
}

MPI_Datatype minv_mpi_type(minv_dtype t) { return t == MINV_R64 ? MPI_DOUBLE : MPI_FLOAT; }

/* ---- the GPU of a rank ---- */

/* GPUs this process sees, from the driver (libcuda, opened here so that libminv_mpi needs no
 * CUDA to load): 0 without a driver or a CUDA build. cuInit creates no context. */
static int visible_gpus(void) {
#if MINV_HAVE_CUDA
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    int count = 0;
    if (!cuda)
        return 0;
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*get_count)(int *) = (int (*)(int *))dlsym(cuda, "cuDeviceGetCount");
    if (!init || !get_count || init(0) != 0 || get_count(&count) != 0)
        count = 0;
    dlclose(cuda);
    return count;
#else
    return 0;
#endif
}

/* This rank's share of the node's cores: OpenMP's default team is every core, and 16 ranks of
 * 16 threads on 16 cores ran the distributed batches at 72-77% weak-scaling efficiency. At most
 * the cores this rank is bound to, the node's cores over its ranks, and OpenMP's maximum
 * (OMP_NUM_THREADS); at least 1. */
static int rank_threads(int ranks_on_node) {
    long share = sysconf(_SC_NPROCESSORS_ONLN) / (ranks_on_node > 0 ? ranks_on_node : 1);
    cpu_set_t bound;
    if (sched_getaffinity(0, sizeof bound, &bound) == 0 && CPU_COUNT(&bound) < share)
        share = CPU_COUNT(&bound);
#ifdef _OPENMP
    if (omp_get_max_threads() < share)
        share = omp_get_max_threads();
#else
    share = 1; /* the core runs one thread without OpenMP */
#endif
    return share > 1 ? (int)share : 1;
}

minv_status minv_mpi_options_default(MPI_Comm comm, minv_options *opts) {
    if (!opts)
        return MINV_ERR_INVALID_ARG;
    minv_options_default(opts);
    MPI_Comm node;
    int rank, node_rank, node_size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    opts->cpu_threads = rank_threads(node_size);
    const int gpus = visible_gpus();
    if (gpus > 0) {
        opts->device = node_rank % gpus;
        opts->ndevices = 0; /* one GPU a rank: the multi-GPU methods stay on it */
    }
    return MINV_SUCCESS;
}
