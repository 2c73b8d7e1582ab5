/* The PnetCDF calls of the MPI layer: collective opening, reading and writing of classic,
 * 64-bit offset and CDF-5 files. Without PnetCDF every file is netCDF-C's (nc_parallel.c then
 * never calls these). */
#include <stdio.h>
#include <stdlib.h>

#include "nc_mpi.h"

#if MINV_MPI_HAVE_PNETCDF
#include <pnetcdf.h>

int minv_mpi_nc_collective(int format) {
    return format == NC_FORMAT_CLASSIC || format == NC_FORMAT_64BIT_OFFSET || format == NC_FORMAT_64BIT_DATA;
}

static int failed(int st, char *msg, size_t len) {
    if (st != NC_NOERR)
        snprintf(msg, len, "%s", ncmpi_strerror(st));
    return st;
}

int minv_mpi_pnc_open(MPI_Comm comm, const char *path, int write, const char *var, int *ncid, int *varid,
                      char *msg, size_t len) {
    int st = ncmpi_open(comm, path, write ? NC_WRITE : NC_NOWRITE, MPI_INFO_NULL, ncid);
    if (st != NC_NOERR)
        return failed(st, msg, len);
    if ((st = ncmpi_inq_varid(*ncid, var, varid)) != NC_NOERR)
        ncmpi_close(*ncid);
    return failed(st, msg, len);
}

/* start and count of the variable's rank in PnetCDF's type */
static void offsets(int rank, const size_t *start, const size_t *count, MPI_Offset *s, MPI_Offset *c) {
    for (int d = 0; d < rank; d++) {
        s[d] = (MPI_Offset)start[d];
        c[d] = (MPI_Offset)count[d];
    }
}

int minv_mpi_pnc_get(int ncid, int varid, int rank, const size_t *start, const size_t *count, double *buf,
                     char *msg, size_t len) {
    MPI_Offset s[NC_MAX_VAR_DIMS], c[NC_MAX_VAR_DIMS];
    offsets(rank, start, count, s, c);
    return failed(ncmpi_get_vara_double_all(ncid, varid, s, c, buf), msg, len);
}

int minv_mpi_pnc_put(int ncid, int varid, int rank, const size_t *start, const size_t *count, const double *buf,
                     char *msg, size_t len) {
    MPI_Offset s[NC_MAX_VAR_DIMS], c[NC_MAX_VAR_DIMS];
    offsets(rank, start, count, s, c);
    return failed(ncmpi_put_vara_double_all(ncid, varid, s, c, buf), msg, len);
}

int minv_mpi_pnc_close(int ncid, char *msg, size_t len) { return failed(ncmpi_close(ncid), msg, len); }

#else

int minv_mpi_nc_collective(int format) { return 0; }

static int none(char *msg, size_t len) {
    snprintf(msg, len, "this minv was built without PnetCDF");
    return NC_ENOTBUILT;
}

int minv_mpi_pnc_open(MPI_Comm comm, const char *path, int write, const char *var, int *ncid, int *varid,
                      char *msg, size_t len) {
    return none(msg, len);
}

int minv_mpi_pnc_get(int ncid, int varid, int rank, const size_t *start, const size_t *count, double *buf,
                     char *msg, size_t len) {
    return none(msg, len);
}

int minv_mpi_pnc_put(int ncid, int varid, int rank, const size_t *start, const size_t *count, const double *buf,
                     char *msg, size_t len) {
    return none(msg, len);
}

int minv_mpi_pnc_close(int ncid, char *msg, size_t len) { return none(msg, len); }
#endif
