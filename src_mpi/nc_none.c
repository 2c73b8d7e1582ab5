/* Without NetCDF the file routines of the MPI layer say so. */
#include "mpi_internal.h"

static minv_status none(minv_context *ctx, const char *fn) {
    minv_status status = minv_mpi_enter(ctx, MPI_COMM_NULL); /* nothing collective follows */
    if (status != MINV_SUCCESS)
        return status;
    status = minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "%s: this minv was built without NetCDF (install libnetcdf-dev and rebuild)", fn);
    minv_mpi_leave(ctx);
    return status;
}

minv_status minv_mpi_read_d(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, double *local) {
    return none(ctx, "minv_mpi_read_d");
}

minv_status minv_mpi_read_s(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, float *local) {
    return none(ctx, "minv_mpi_read_s");
}

minv_status minv_mpi_write_d(minv_context *ctx, const minv_mpi_layout *layout, const double *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts) {
    return none(ctx, "minv_mpi_write_d");
}

minv_status minv_mpi_write_s(minv_context *ctx, const minv_mpi_layout *layout, const float *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts) {
    return none(ctx, "minv_mpi_write_s");
}

minv_status minv_mpi_invert_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                 const char *in_path, const char *in_var, const char *out_path,
                                 const char *out_var, const minv_file_options *fopts,
                                 minv_report *report) {
    return none(ctx, "minv_mpi_invert_file");
}

minv_status minv_mpi_solve_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                const char *a_path, const char *a_var, const char *b_path,
                                const char *b_var, const char *x_path, const char *x_var,
                                const minv_file_options *fopts, minv_report *report) {
    return none(ctx, "minv_mpi_solve_file");
}
