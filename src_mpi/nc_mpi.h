/* NetCDF across the ranks, the MPI layer's internal interface (built with NetCDF only):
 *
 *   nc_parallel.c  variables opened on every rank; slabs of whole rows read and written (by
 *                  PnetCDF collectively for classic formats, else read by every rank and
 *                  written through rank 0) and redistributed to and from layouts; batch ranges
 *   pnetcdf_io.c   the few PnetCDF calls, where PnetCDF is built in
 *   nc_jobs.c      the public file routines of minv_mpi.h
 *
 * The serial NetCDF layer (netcdf_io/ncio.h) opens, checks, converts and commits; this adds
 * the ranks. */
#ifndef MINV_MPI_NC_H
#define MINV_MPI_NC_H

#include "mpi_internal.h"
#include "ncio.h"

/* ---- PnetCDF (pnetcdf_io.c); each returns 0 or an error with its text in msg ---- */
int minv_mpi_pnc_open(MPI_Comm comm, const char *path, int write, const char *var, int *ncid, int *varid,
                      char *msg, size_t len);
/* Collective: every rank of the file's communicator calls, with its own (maybe empty) region. */
int minv_mpi_pnc_get(int ncid, int varid, int rank, const size_t *start, const size_t *count, double *buf,
                     char *msg, size_t len);
int minv_mpi_pnc_put(int ncid, int varid, int rank, const size_t *start, const size_t *count, const double *buf,
                     char *msg, size_t len);
int minv_mpi_pnc_close(int ncid, char *msg, size_t len);

/* 1 when files of this format go through PnetCDF. */
int minv_mpi_nc_collective(int format);

/* ---- a variable read by every rank (nc_parallel.c) ---- */
typedef struct {
    minv_nc_source src;  /* the serial reader's: checks, shape, values; open on every rank */
    MPI_Comm comm;
    int collective;      /* PnetCDF reads the data */
    int pncid, pvarid;
} minv_mpi_nc_in;

/* minv_nc_source_open on every rank, and PnetCDF's handle where it reads. Agreed. */
minv_status minv_mpi_nc_in_open(minv_context *ctx, MPI_Comm comm, minv_mpi_nc_in *in, const char *path,
                                const char *var, const minv_file_options *fopts, int flags);
void minv_mpi_nc_in_close(minv_mpi_nc_in *in);
/* Matrix k of the variable into the pieces of l (its shape, in the source's view). Agreed. */
minv_status minv_mpi_nc_read(minv_context *ctx, minv_mpi_nc_in *in, int64_t k, const minv_mpi_layout *l,
                             minv_dtype t, void *local);
/* This rank's matrices k0 .. k0 + count - 1 of a batch (count may be 0) into dst, as
 * minv_nc_source_read_matrices; disk holds count d0 d1 doubles. Collective, not agreed. */
minv_status minv_mpi_nc_read_members(minv_context *ctx, minv_mpi_nc_in *in, int64_t k0, int64_t count,
                                     double *disk, minv_dtype t, void *dst);
/* The reading of every rank in the source's figures: bytes and pieces summed, the slowest
 * rank's seconds (for the report's read stage). Collective; once, after the reads. */
void minv_mpi_nc_in_sum(minv_mpi_nc_in *in);
/* The note on how the ranks read it: "read 'A' as 8 bands of whole rows by 4 ranks, ...". */
void minv_mpi_nc_in_note(const minv_mpi_nc_in *in, minv_report *report);

/* ---- an output variable written by every rank ---- */
typedef struct {
    MPI_Comm comm;
    int rank, size;
    int collective;      /* PnetCDF writes the data while rank 0's sink is suspended */
    minv_nc_sink sink;   /* open on rank 0; the others hold its spec, path and variable */
    char *tmp;           /* the temporary file, on every rank */
    int pncid, pvarid;
} minv_mpi_nc_out;

/* minv_nc_sink_open on rank 0, and the rest for the others. Agreed. */
minv_status minv_mpi_nc_out_open(minv_context *ctx, MPI_Comm comm, minv_mpi_nc_out *out, const char *path,
                                 const char *var, const minv_nc_sink_spec *spec, int64_t count);
/* Matrix k of the output from the pieces of l. Agreed. */
minv_status minv_mpi_nc_write(minv_context *ctx, minv_mpi_nc_out *out, int64_t k, const minv_mpi_layout *l,
                              minv_dtype t, const void *local);
/* This rank's matrices k0 .. k0 + count - 1 of a batch (count may be 0) from src; disk holds
 * count d0 d1 doubles. Collective, not agreed. */
minv_status minv_mpi_nc_write_members(minv_context *ctx, minv_mpi_nc_out *out, int64_t k0, int64_t count,
                                      minv_dtype t, const void *src, double *disk);
/* The writing of every rank in rank 0's sink figures, as minv_mpi_nc_in_sum. Collective. */
void minv_mpi_nc_out_sum(minv_mpi_nc_out *out);
/* Rank 0: the output's notes (minv_nc_report_output_notes) with how the ranks wrote it. */
void minv_mpi_nc_out_note(const minv_mpi_nc_out *out, minv_report *report);
/* Ends the ranks' writing; rank 0's sink is then ready for its commit. Agreed. */
minv_status minv_mpi_nc_out_close(minv_context *ctx, minv_mpi_nc_out *out);
/* Drops the temporary file (every rank may call it; rank 0 removes it). */
void minv_mpi_nc_out_abort(minv_mpi_nc_out *out);
/* minv_nc_remove_temporaries of this library's copy of the NetCDF layer, whose list holds the
 * outputs it is writing: for minv-mpi's signal handler (async-signal-safe). */
void minv_mpi_nc_remove_temporaries(void);

#endif
