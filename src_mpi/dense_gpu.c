/* The GPU backend of one matrix over many ranks: cuSOLVERMp, in a plugin (libminv_mpi_cusolvermp)
 * opened the first time a GPU context asks, so that libminv_mpi loads where there is no GPU,
 * no driver and no NCCL. */
#include <stdio.h>

#include "mpi_internal.h"

const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, MPI_Comm comm, char *why, size_t len) {
    (void)ctx;
    (void)comm;
    snprintf(why, len, "this minv was built without cuSOLVERMp (the GPU half of the MPI layer)");
    return NULL;
}
