/* The MPI layer's entry points for Fortran: a Fortran communicator is an integer (mpi's, or
 * mpi_f08's %MPI_VAL), which MPI_Comm_f2c turns into C's. minv_mpi_mod binds to these. */
#include "mpi_internal.h"

int32_t minv_mpi_device_f(MPI_Fint comm) {
    minv_options opts;
    minv_mpi_options_default(MPI_Comm_f2c(comm), &opts);
    return opts.device;
}

minv_status minv_mpi_invert_file_f(minv_context *ctx, MPI_Fint comm, minv_method method, const char *in_path,
                                   const char *in_var, const char *out_path, const char *out_var,
                                   const minv_file_options *fopts, minv_report *report) {
    return minv_mpi_invert_file(ctx, MPI_Comm_f2c(comm), method, in_path, in_var, out_path, out_var, fopts, report);
}

minv_status minv_mpi_solve_file_f(minv_context *ctx, MPI_Fint comm, minv_method method, const char *a_path,
                                  const char *a_var, const char *b_path, const char *b_var, const char *x_path,
                                  const char *x_var, const minv_file_options *fopts, minv_report *report) {
    return minv_mpi_solve_file(ctx, MPI_Comm_f2c(comm), method, a_path, a_var, b_path, b_var, x_path, x_var, fopts,
                               report);
}

#define BATCHED(T, S)                                                                                            \
    minv_status minv_mpi_invert_batched_##S##_f(minv_context *ctx, MPI_Fint comm, int32_t flags,                 \
                                                minv_method method, int64_t k, int64_t nbatch, const T *a,       \
                                                T *ainv, minv_status *status, minv_batch_report *report) {       \
        return minv_mpi_invert_batched_##S(ctx, MPI_Comm_f2c(comm), flags, method, k, nbatch, a, k, k * k, ainv, \
                                           k, k * k, status, report);                                            \
    }                                                                                                            \
    minv_status minv_mpi_solve_batched_##S##_f(minv_context *ctx, MPI_Fint comm, int32_t flags,                  \
                                               minv_method method, int64_t k, int64_t nrhs, int64_t nbatch,      \
                                               const T *a, const T *b, T *x, minv_status *status,                \
                                               minv_batch_report *report) {                                      \
        return minv_mpi_solve_batched_##S(ctx, MPI_Comm_f2c(comm), flags, method, k, nrhs, nbatch, a, k, k * k, \
                                          b, k, k * nrhs, x, k, k * nrhs, status, report);                       \
    }
BATCHED(double, d)
BATCHED(float, s)

minv_status minv_mpi_layout_create_f(minv_context *ctx, MPI_Fint comm, int64_t m, int64_t n, int64_t nb,
                                     int32_t nprow, int32_t npcol, minv_mpi_layout *layout) {
    return minv_mpi_layout_create(ctx, MPI_Comm_f2c(comm), m, n, nb, nprow, npcol, layout);
}

minv_status minv_mpi_layout_from_desc_f(minv_context *ctx, MPI_Fint comm, const int32_t desc[9],
                                        minv_mpi_layout *layout) {
    return minv_mpi_layout_from_desc(ctx, MPI_Comm_f2c(comm), desc, layout);
}

/* A failure found in Fortran on some ranks (status != 0, why its text), made every rank's,
 * so that no rank goes on into a collective call the others left. */
minv_status minv_mpi_agree_f(minv_context *ctx, MPI_Fint comm, minv_status status, const char *why) {
    MPI_Comm c = MPI_Comm_f2c(comm);
    minv_status busy = minv_mpi_enter(ctx, c);
    if (busy != MINV_SUCCESS)
        return busy;
    if (status != MINV_SUCCESS && ctx)
        minv_fail(ctx, status, "%s", why);
    status = minv_mpi_agree(ctx, c, status);
    minv_mpi_leave(ctx);
    return status;
}

/* The same over a layout's ranks. */
minv_status minv_mpi_agree_layout_f(minv_context *ctx, const minv_mpi_layout *layout, minv_status status,
                                    const char *why) {
    const int valid = layout && layout->internal;
    minv_status busy = minv_mpi_enter(ctx, valid ? minv_mpi_layout_comm(layout) : MPI_COMM_NULL);
    if (busy != MINV_SUCCESS)
        return busy;
    if (!valid)
        status = ctx ? minv_fail(ctx, MINV_ERR_INVALID_ARG, "the layout is not initialised (minv_layout_init)")
                     : MINV_ERR_INVALID_ARG;
    else {
        if (status != MINV_SUCCESS && ctx)
            minv_fail(ctx, status, "%s", why);
        status = minv_mpi_agree(ctx, minv_mpi_layout_comm(layout), status);
    }
    minv_mpi_leave(ctx);
    return status;
}
