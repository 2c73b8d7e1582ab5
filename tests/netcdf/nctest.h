/* Helpers of the NetCDF tests: files written straight through NetCDF-C (so the reader meets
 * other writers than its own), results read back, and the checks that a failed call left
 * nothing behind and did not touch its input. */
#ifndef MINV_NCTEST_H
#define MINV_NCTEST_H

#include <netcdf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define NCT(call)                                                                         \
    do {                                                                                  \
        int nct_st_ = (call);                                                             \
        if (nct_st_ != NC_NOERR) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(nct_st_)); \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (text))

/* How a variable is stored. */
typedef struct {
    int cmode;            /* nc_create mode: NC_CLOBBER, |NC_64BIT_OFFSET, |NC_64BIT_DATA, |NC_NETCDF4 */
    const size_t *chunks; /* netCDF-4: chunk shape, NULL for contiguous */
    int deflate;          /* netCDF-4: deflate level */
    const double *fill;   /* a _FillValue (set before the data, as NetCDF requires), or NULL */
    int no_shuffle;       /* netCDF-4, deflated: without the shuffle filter */
    int big_endian;       /* netCDF-4: values stored big-endian */
    int fletcher32;       /* netCDF-4: with HDF5's Fletcher checksum filter */
} nct_storage;

/* Writes `var` of type `type` with dimensions names[0..rank) of lengths lens (a name used twice
 * is one dimension; unlimited_first makes the first dimension unlimited) and the row-major
 * values `data` (NULL: leave unwritten), to a new file or (append) an existing one. Here and
 * in nct_put_att and nct_read, `var` may be a path of netCDF-4 groups, "a/b/M": nct_write
 * makes the groups it lacks, and uses dimensions of the same name that an enclosing group has. */
void nct_write(const char *path, int append, const nct_storage *st, const char *var, nc_type type,
               int rank, const char *const *names, const size_t *lens, int unlimited_first,
               const double *data);
void nct_put_att(const char *path, const char *var, const char *name, nc_type type, size_t n,
                 const double *values);
/* The whole variable as row-major doubles (malloc'ed); *count receives the number of values. */
double *nct_read(const char *path, const char *var, size_t *count);
/* The same with its shape and type, and (unpack) CF packing undone (scale_factor, add_offset). */
typedef struct {
    nc_type type;
    int rank;
    size_t lens[NC_MAX_VAR_DIMS], count;
} nct_var_info;
double *nct_read_var(const char *path, const char *var, int unpack, nct_var_info *info);
char *nct_read_text_att(const char *path, const char *var, const char *name); /* malloc'ed, NULL if absent */

/* Row-major r x c (as on disk) to column-major with M(i, j) = disk[i][j] (C view), and the
 * Fortran view M(i, j) = disk[j][i], which is the same bytes. */
double *nct_c_view(const double *disk, size_t r, size_t c);

/* A file's bytes, to check that it was not touched. */
typedef struct {
    char *bytes;
    long size;
} nct_snapshot;
nct_snapshot nct_snap(const char *path);
int nct_same(const nct_snapshot *s, const char *path); /* 1 when the file still holds the bytes */
void nct_snap_free(nct_snapshot *s);
int nct_exists(const char *path);
/* 1 when some `path`.tmp.* is left in the directory. */
int nct_tmp_left(const char *path);

/* The default file options with overwrite on: the tests write their outputs again run after
 * run, and call after call (the refusal to replace is tested on its own). */
void nct_options(minv_file_options *fo);
static const minv_file_options nct_replace_options = {.precision = MINV_PRECISION_DOUBLE, .overwrite = 1};
#define NCT_REPLACE (&nct_replace_options)

/* A context on the CPU for the tests (the NetCDF layer is the same on every backend). */
minv_context *nct_context(void);

#endif
