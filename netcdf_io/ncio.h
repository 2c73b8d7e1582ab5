/* The NetCDF layer's internal interface, shared by the file entry points and the minv command
 * (generate and info use the reader and writer directly); never installed.
 *
 *   nc_source.c   a matrix variable opened: slices, batches, checks
 *   nc_read.c     its matrices read on all cores, directly or through NetCDF-C, checked
 *   nc_output.c   the output file: what may be replaced, the temporary, the rename
 *   nc_sink.c     an output variable defined in the temporary file, and committed
 *   nc_write.c    its matrices written on all cores, directly or through NetCDF-C
 *   nc_run.c      what the threads of one read or write share
 *   nc_tiles.c    the tile plan and the copies between tiles and column-major matrices
 *   nc_direct.c   direct access to stored values beside NetCDF-C (pread, pwrite, HDF5 chunks)
 *   nc_codec.c    stored bytes to doubles and back: types, byte order, shuffle, deflate
 *   nc_classic_layout.c  where a classic variable's values begin, from the file's header
 *   nc_report.c   the read and write stages of a report, and the report as attributes
 *   nc_classic.c  a netCDF-3 header checked before netCDF-C trusts it: counts, truncation
 *   nc_util.c     errors, names, the NetCDF lock, file identity
 *   nc_hdf5.c     HDF5's error stack silenced and read
 *   nc_meta.c     what an output carries over from its input: attributes, history, units
 *
 * Indices in messages are 1-based for matrix entries (row, column); slice positions and batch
 * members are counted from the caller's index_base (0, as ncdump and ncks count them, or 1 for
 * Fortran), and attributes in files count them from 0. Every message names the file and the
 * variable. */
#ifndef MINV_NCIO_H
#define MINV_NCIO_H

#include <netcdf.h>
#include <stddef.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a matrix sits in the last two dimensions (d0, d1) of a variable, listed as ncdump lists
 * them. C view: M(i, j) = var[..., i, j], rows along d0. Fortran view: M(i, j) =
 * var[..., j, i], which is how nf90_put_var stores a Fortran array m(i, j). Reading the raw
 * bytes into a column-major buffer gives the Fortran view without any reordering. */
typedef enum { MINV_NC_C_VIEW = 0, MINV_NC_FORTRAN_VIEW = 1 } minv_nc_view;

enum {
    MINV_NC_MAX_RANK = MINV_MAX_SLICE + 2,
    MINV_NC_MAX_MISSING = 8,       /* values of a missing_value attribute that are honoured */
    MINV_NC_TILE_ELEMS = 1 << 20,  /* tile budget: 8 MiB of doubles */
    MINV_NC_BATCH_ELEMS = 1 << 22  /* whole matrices of a batch read or written at once: 32 MiB
                                      of doubles */
};

typedef struct {
    char name[NC_MAX_NAME + 1];
    size_t len;
    int unlimited;
} minv_nc_dim;

/* A 1-D variable is a matrix of one column: its rows run along dims[0], and dims[1] is a
 * virtual dimension of length 1 that the file lacks (nc_get_vara and nc_put_vara read start
 * and count only up to the variable's rank). The index of the rows' dimension: */
static inline int minv_nc_row_dim(int rank) { return rank > 1 ? rank - 2 : 0; }
/* The virtual column dimension of a 1-D variable. */
static inline minv_nc_dim minv_nc_column_dim(void) { return (minv_nc_dim){"", 1, 0}; }

/* ---- direct access to stored values (nc_direct.c, nc_codec.c, nc_classic_layout.c) ---- */

/* How values are stored: netCDF type, bytes each, and whether their byte order is the
 * host's other one. */
typedef struct {
    nc_type xtype;
    size_t size;
    int swap;
} minv_nc_encoding;

/* 0 for a non-numeric type. */
int minv_nc_encoding_set(minv_nc_encoding *e, nc_type xtype, int big_endian);
/* n stored values to doubles (C casts, as NetCDF-C converts); src and dst may be the same
 * buffer only for a double in the host's byte order. */
void minv_nc_decode_values(const minv_nc_encoding *e, const void *src, size_t n, double *dst);
/* n doubles (integer types: already rounded and in range) to stored values; returns the
 * index of the first value a float cannot hold (NetCDF-C's NC_ERANGE), -1 when none. */
int64_t minv_nc_encode_values(const minv_nc_encoding *e, const double *src, size_t n, void *dst);
/* HDF5's shuffle filter (element size `size`) undone and applied. */
void minv_nc_unshuffle(const unsigned char *src, size_t bytes, size_t size, unsigned char *dst);
void minv_nc_shuffle(const unsigned char *src, size_t bytes, size_t size, unsigned char *dst);
/* zlib streams, as HDF5's deflate filter writes them: 1 when src inflates to exactly
 * dst_bytes; the compressed size (0 on failure) into at most dst_cap bytes. */
int minv_nc_inflate(const void *src, size_t src_bytes, void *dst, size_t dst_bytes);
size_t minv_nc_deflate(const void *src, size_t src_bytes, int level, void *dst, size_t dst_cap);
size_t minv_nc_deflate_bound(size_t bytes);
/* The Zstandard and bzip2 filters' chunks: 1 when src decodes to exactly dst_bytes (0 too
 * where minv was built without libzstd or libbz2: minv_nc_filter_readable says which). */
int minv_nc_unzstd(const void *src, size_t src_bytes, void *dst, size_t dst_bytes);
int minv_nc_bunzip2(const void *src, size_t src_bytes, void *dst, size_t dst_bytes);
/* The most bytes a filter (MINV_NC_FILTER_*) can make of `bytes`; 1 when this build undoes it. */
size_t minv_nc_stored_bound(int filter, size_t bytes);
int minv_nc_filter_readable(int filter);

/* A variable of a netCDF-3 or CDF-5 file: the offset of its first value and, for a record
 * variable, the bytes from one record to the next. */
typedef struct {
    int64_t begin, record_bytes;
    int record;
} minv_nc_classic_var;
/* From the header read through fd; 0 on success, -1 for a header this reader does not
 * follow or a variable varid not called `name`. */
int minv_nc_classic_layout(int fd, const char *name, int varid, minv_nc_classic_var *out);

/* A variable named without NetCDF-C's ids, so that the writer can open it while NetCDF-C has
 * the file closed. */
typedef struct {
    const char *path;
    char group[1024];           /* "/" or "/analysis/inner" */
    char name[NC_MAX_NAME + 1];
    int varid, rank, format;
    nc_type xtype;
    size_t shape[MINV_NC_MAX_RANK]; /* NetCDF-C's dimension lengths */
} minv_nc_var_id;
/* From NetCDF-C's ids; 0 when they cannot be read (or the group path is too long). */
int minv_nc_var_identify(minv_nc_var_id *v, const char *path, int grpid, int varid, int format);

enum { MINV_NC_DIRECT_NONE = 0, MINV_NC_DIRECT_CONTIGUOUS = 1, MINV_NC_DIRECT_CHUNKED = 2 };
/* The filters the direct path knows: shuffle and deflate both ways, Zstandard and bzip2 read
 * only (what netCDF-C's nc_def_var_* calls write). */
enum {
    MINV_NC_FILTER_SHUFFLE = 1,
    MINV_NC_FILTER_DEFLATE = 2,
    MINV_NC_FILTER_ZSTD = 3,
    MINV_NC_FILTER_BZIP2 = 4,
    MINV_NC_MAX_FILTERS = 4
};
/* HDF5's registered ids of the two, as netCDF-C's netcdf_filter.h has them */
enum { MINV_NC_H5Z_BZIP2 = 307, MINV_NC_H5Z_ZSTD = 32015 };
/* The direct path's filter (MINV_NC_FILTER_*) for an HDF5 filter id; 0 for one it does not know. */
int minv_nc_filter_of(unsigned id);
/* An HDF5 filter for messages: "Zstandard (HDF5 filter 32015)", or its id alone where it is
 * none of the registered ones met in geoscience files; buf returned. */
const char *minv_nc_filter_label(unsigned id, char *buf, size_t len);

/* A variable's storage as the direct reader and writer use it. */
typedef struct {
    int kind;                   /* MINV_NC_DIRECT_*: NONE leaves the values to NetCDF-C */
    char why_not[192];          /* for NONE: why */
    int fd;                     /* the file opened again, for pread/pwrite */
    int64_t file_bytes;         /* its size when opened to read netCDF-4, else -1 */
    minv_nc_encoding enc;
    int rank;                   /* the variable's own rank */
    /* contiguous: value e of the variable (row-major, a record variable's first dimension
     * left out) at begin + e * enc.size, plus r * record_bytes in record r */
    int64_t begin, record_bytes;
    int record;
    /* netCDF-4 */
    size_t extent[MINV_NC_MAX_RANK]; /* the dataset's shape (of an unlimited dimension: as
                                        far as this variable was written) */
    size_t chunk[MINV_NC_MAX_RANK];
    size_t chunk_values;        /* values in a whole chunk */
    int nfilters;
    int filter[MINV_NC_MAX_FILTERS]; /* MINV_NC_FILTER_*, in the order the writer applies them */
    int deflate_level;
    size_t shuffle_size;
    int64_t h5file, h5dset;     /* HDF5 ids, -1 when closed */
    /* chunks read through HDF5 (H5Dread_chunk, one call at a time), not by pread at addresses
     * from H5Dget_chunk_info_by_coord: before HDF5 1.14 that call walks the chunks up to the one
     * asked for, so its cost grows with the chunk count (1.7 s for the 16384 chunks of an
     * n = 32768 matrix on the dev VM) where H5Dread_chunk's own lookup takes microseconds */
    int by_library;
} minv_nc_direct;

/* Beyond this many chunks in a dataset the reader takes them through HDF5 (by_library). */
enum { MINV_NC_LOOKUP_CHUNKS = 4096 };

/* One stored chunk: where it is, its bytes, and the filters the writer skipped (bit f: the
 * pipeline's filter f). */
typedef struct {
    int64_t address;
    size_t bytes;
    unsigned mask;
} minv_nc_chunk;

/* Opens a variable for direct access: kind says how, or NONE and why_not why not. To write
 * (write = 1) a classic file NetCDF-C must have closed it; a netCDF-4 file, which HDF5 shares,
 * and a reader's may stay open in NetCDF-C. Never fails otherwise: NetCDF-C's path is always
 * there. */
void minv_nc_direct_open(minv_nc_direct *d, const minv_nc_var_id *v, int write);
void minv_nc_direct_close(minv_nc_direct *d);
/* 1 when every chunk of the chunked dataset is stored (by_library needs it). */
int minv_nc_direct_all_written(const minv_nc_direct *d);
/* The chunk whose first value is at coord (the variable's rank): 1; 0 when it was never written;
 * -1 when its recorded size cannot be true (a corrupt chunk index). By the library (by_library)
 * its address stays unknown (-1) and its mask comes with the read. */
int minv_nc_direct_find_chunk(const minv_nc_direct *d, const size_t *coord, minv_nc_chunk *c);
/* bytes from offset at of fd into buf, through short reads and interruptions; 0 on failure or
 * end of file (errno says which). */
int minv_nc_read_fully(int fd, void *buf, size_t bytes, int64_t at);
/* Its stored bytes into buf (c->bytes of them): by pread at its address, or through HDF5; 0 on
 * failure. *mask: the filters the writer skipped. Any thread. */
int minv_nc_direct_read_chunk(const minv_nc_direct *d, const size_t *coord, const minv_nc_chunk *c, void *buf,
                              unsigned *mask);
/* Writes a whole encoded chunk (H5Dwrite_chunk); 1 on success. */
int minv_nc_direct_put_chunk(const minv_nc_direct *d, const size_t *coord, const void *bytes, size_t size);
/* A stored chunk's filters undone: work and out hold a whole chunk's stored bytes each; the
 * values end up in one of raw, work and out (*result). 1 on success. */
int minv_nc_direct_decode(const minv_nc_direct *d, unsigned mask, void *raw, size_t raw_bytes, void *work,
                          void *out, void **result);
/* A whole chunk of stored values (in) through the filters: work and out hold
 * minv_nc_direct_encoded_bound bytes each; returns the encoded size (0 on failure) and where
 * the bytes are (*result: in, work or out). */
size_t minv_nc_direct_encode(const minv_nc_direct *d, void *in, void *work, void *out, size_t cap,
                             const void **result);
size_t minv_nc_direct_encoded_bound(const minv_nc_direct *d);

/* ---- reading (nc_source.c) ---- */

/* Flags of minv_nc_source_open. */
enum {
    MINV_NC_ALLOW_BATCH = 1,  /* a rank-3 variable of square matrices without a slice is a batch */
    MINV_NC_SLICE_IF_RANKED = 2, /* the slice applies only when the rank exceeds 2 (B of a solve) */
    MINV_NC_ALLOW_VECTOR = 4,    /* a 1-D variable is one column (B of a solve: one right-hand side) */
    MINV_NC_LIBRARY = 8,         /* values through NetCDF-C only: the reference the direct path
                                    is tested against */
    MINV_NC_CHUNKS_BY_LIBRARY = 16 /* a chunked variable's chunks through HDF5 whatever their
                                      count, where all are written (minv_nc_direct.by_library),
                                      for the tests */
};

/* What makes a stored value missing or invalid, and how it unpacks (NetCDF Users Guide
 * attribute conventions; CF packing). */
typedef struct {
    int has_fill;
    double fill;          /* _FillValue, or the type's default fill while fill mode is on */
    int fill_is_default;
    int nmissing;
    double missing[MINV_NC_MAX_MISSING];
    double valid_min, valid_max; /* -/+HUGE_VAL when absent */
    double scale, offset;        /* value = stored * scale + offset */
    double wrap;                 /* 2^bits for a signed integer type marked _Unsigned = "true"
                                    (NUG): the stored bits are unsigned; 0 otherwise */
} minv_nc_values;

/* A stored value as the file means it: NetCDF-C and the raw decoder give a signed integer
 * type's values signed, x < 0 where an _Unsigned variable holds x + 2^bits. The attributes
 * that name stored values (_FillValue, missing_value, valid_*) are taken the same way. */
static inline double minv_nc_stored(const minv_nc_values *v, double x) { return x < 0 ? x + v->wrap : x; }

/* The first bad entry of what was read: its kind (0 none; else fill, missing, NaN, Inf, out of
 * the valid range, too large for single precision), the matrix (within a run) and its place on
 * disk (along d0, d1). */
typedef struct {
    int kind;
    int64_t matrix;
    size_t r, c;
    double value;
} minv_nc_bad;

typedef struct {
    const char *path, *var;        /* var: a name, or a path of groups "analysis/M" */
    int ncid;                      /* the file */
    int grpid, varid, format;      /* the group that holds the variable, and its id there */
    nc_type xtype;
    int rank;
    minv_nc_dim dims[MINV_NC_MAX_RANK]; /* of rank 1: dims[1] is virtual (minv_nc_row_dim) */
    size_t lead[MINV_NC_MAX_RANK]; /* indices into the leading dimensions (the slice) */
    int nlead_fixed;               /* leading dimensions fixed by lead[]; a batch varies the next */
    int batch;                     /* 1: matrix k is var[k, :, :] */
    int64_t count;                 /* matrices: the batch length, else 1 */
    size_t d0, d1;                 /* lengths of the last two dimensions */
    minv_nc_view view;
    int64_t rows, cols;            /* of the matrix in `view` */
    minv_nc_view named;            /* messages name entries in the order asked for (ncdump's, or
                                      Fortran's): a right-hand side read transposed is named
                                      as it is stored */
    minv_nc_values values;
    int chunked, deflate_level;
    size_t chunk[2];               /* chunk edges along d0, d1 (chunked variables) */
    size_t esize;                  /* bytes of a stored value */
    minv_nc_direct direct;         /* the direct path, or why NetCDF-C reads the values */
    size_t tile[2];                /* tile edges along d0, d1, for NetCDF-C's path */
    const char *tile_rule;         /* how the tile was chosen, for the report */
    int index_base;                /* slice indices and batch members in messages: 0 or 1 */
    int allow_remote;              /* a URL may be opened */
    double bytes, seconds;         /* read so far (stored bytes) and the time it took */
    int64_t tiles;                 /* read through NetCDF-C */
    int64_t direct_units;          /* chunks or blocks of rows read directly */
    int threads;                   /* the most threads a read ran on */
    int64_t batch_reads;           /* reads of whole matrices (minv_nc_source_read_matrices) */
    minv_nc_bad last_bad;          /* the last read's first bad entry, whose NOT_FINITE it returned */
} minv_nc_source;

/* Opens `var` of `path` read-only and checks everything that can be checked before reading:
 * the file is netCDF and whole, the variable exists and is numeric, its rank can be sliced to
 * a matrix. `var` names a variable of the root group, or one inside netCDF-4 groups by its
 * path: "analysis/M", "/analysis/M", "a/b/M". Errors name the file and variable: NOT_FOUND
 * (saying which group or variable is missing and what is there), IO, SHAPE, INVALID_ARG. */
minv_status minv_nc_source_open(minv_context *ctx, minv_nc_source *s, const char *path,
                                const char *var, const minv_file_options *fopts, int flags);
/* Matrix k (0 <= k < count) into m (rows x cols of the source's view, R32 or R64), on all
 * of the context's threads (nc_read.c): directly where the storage allows, else tile by tile
 * with nc_get_vara. A _FillValue, missing_value or value outside the valid range fails
 * with NOT_FINITE naming the first (i, j) in file order; so do NaN and Inf unless
 * keep_nonfinite (an analysis reports them itself). */
minv_status minv_nc_source_read(minv_context *ctx, minv_nc_source *s, int64_t k,
                                int keep_nonfinite, minv_mat *m);
/* The band of stored rows [row0, row0 + rows) along d0 of matrix k, read and checked as
 * minv_nc_source_read reads the whole: in the C view the matrix's rows from row0 (m is rows x
 * s->cols), in the Fortran view its columns (m is s->rows x rows). A band that cuts through
 * chunks reads them whole and keeps its part; the first bad entry is the first of the band. */
minv_status minv_nc_source_read_band(minv_context *ctx, minv_nc_source *s, int64_t k, int64_t row0, int64_t rows,
                                     int keep_nonfinite, minv_mat *m);
/* Matrices k0 .. k0 + count - 1 of a batch whole (directly, or in one nc_get_vara), each
 * checked as minv_nc_source_read checks it and stored column-major in the source's view at
 * dst + m rows cols (type t); disk is scratch for count d0 d1 doubles. */
minv_status minv_nc_source_read_matrices(minv_context *ctx, minv_nc_source *s, int64_t k0,
                                         int64_t count, double *disk, minv_dtype t, void *dst);
/* The values count d0 d1 doubles at disk, read raw for matrices k0 .. k0 + count - 1 (by
 * another library: the MPI layer's PnetCDF), checked and placed as minv_nc_source_read_matrices
 * does it. */
minv_status minv_nc_source_convert_matrices(minv_context *ctx, minv_nc_source *s, int64_t k0, int64_t count,
                                            const double *disk, minv_dtype t, void *dst);
/* Checks raw values, rows x cols of them (rows ld apart) at (r0, c0) of a matrix on disk: the
 * first bad one in file order goes to *bad when it comes before the one there, NaN and Inf
 * passing with keep_nonfinite. Unpacking is minv_nc_tile_to_mat's. The MPI layer's reader
 * checks its slabs so. */
void minv_nc_source_scan(const minv_nc_source *s, const double *x, size_t ld, size_t r0, size_t c0, size_t rows,
                         size_t cols, int keep_nonfinite, int single, int64_t matrix, minv_nc_bad *bad);
/* NOT_FINITE naming the bad entry of matrix k as minv_nc_source_read does. */
minv_status minv_nc_source_fail_bad(minv_context *ctx, const minv_nc_source *s, int64_t k,
                                    const minv_nc_bad *bad);
/* The fixed leading indices counted from `base`: "Time = 2, level = 0", "" without a slice.
 * Messages count from the caller's index_base; attributes in files from 0, as ncdump. */
void minv_nc_source_slice(const minv_nc_source *s, int base, char *buf, size_t len);
/* Where matrix k is: "'in.nc', variable 'cov' (Time = 2, 0-based)", in the index_base. */
void minv_nc_source_where(const minv_nc_source *s, int64_t k, char *buf, size_t len);
/* How the values were read: "as 256 chunks of 256 x 256, directly on 16 threads". */
void minv_nc_source_how(const minv_nc_source *s, char *buf, size_t len);
/* One line on the storage: type, format, chunking, compression. */
void minv_nc_source_describe(const minv_nc_source *s, char *buf, size_t len);
/* Sets the view (rows and cols follow); messages still name entries in s->named. */
void minv_nc_source_set_view(minv_nc_source *s, minv_nc_view view);
/* Closes the file; the fields stay readable for notes and descriptions. */
void minv_nc_source_close(minv_nc_source *s);
/* SHAPE unless the source's matrices are square; the message names file and variable. */
minv_status minv_nc_check_square(minv_context *ctx, const minv_nc_source *s);
/* A square matrix (no batch) read whole into m, allocated here in fopts' precision; the
 * source is closed on return, its fields (storage, read statistics) still valid. */
minv_status minv_nc_read_square(minv_context *ctx, minv_nc_source *s, const char *path,
                                const char *var, const minv_file_options *fopts,
                                int keep_nonfinite, minv_mat *m);
/* A 1-D variable read whole into v (a column, allocated here, type t) with the checks of
 * minv_nc_source_read (missing, invalid, non-finite: NOT_FINITE naming the 1-based entry);
 * SHAPE unless the variable has rank 1. The source is closed on return, its dims[0] and read
 * statistics still valid. */
minv_status minv_nc_read_vector(minv_context *ctx, minv_nc_source *s, const char *path,
                                const char *var, const minv_file_options *fopts, minv_dtype t, minv_mat *v);

typedef struct {
    int rank;                       /* 2, 3 for a batch, or 1 for one column (dims[0] only) */
    minv_nc_dim dims[3];            /* names may repeat: R(channel, channel) */
    nc_type xtype;                  /* the type on disk */
    int input_format;               /* NC_FORMAT_* of the input, which a new file follows */
    int32_t format;                 /* minv_file_format asked for (MINV_FORMAT_AUTO: follow) */
    int deflate_level;              /* netCDF-4: 0 (none) to 9 */
    double scale;                   /* integer types: stored = round(value / scale); a
                                       scale_factor attribute is written when scale != 1 */
    minv_nc_view view;              /* how matrices sit in the last two dimensions */
    const char *const *inputs;      /* files of this call that must never be touched */
    int ninputs;
    int overwrite;                  /* an existing file or variable may be replaced */
    const minv_nc_source *from;     /* the open input the output derives from (NULL: none): a new
                                       file takes its file's global attributes and history, the
                                       variable its attributes that still hold (nc_meta.c) */
    const char *units;              /* the output's units (NULL: none) */
    const char *units_note;         /* why the input's units were not carried (NULL, "": none) */
    int library;                    /* values through NetCDF-C only: the reference the direct
                                       path is tested against */
} minv_nc_sink_spec;

/* ---- the output file (nc_output.c) ---- */

typedef enum {
    MINV_NC_OUT_NEW,     /* nothing there */
    MINV_NC_OUT_REPLACE, /* a file to replace: not netCDF, or an earlier output (overwrite) */
    MINV_NC_OUT_ADD      /* a netCDF file with other things: a copy gains the variable */
} minv_nc_out_plan;

typedef struct {
    const char *path;
    minv_nc_out_plan plan;
    int format;                     /* of the existing netCDF file (ADD) */
    unsigned mode;                  /* of the existing file, which the new one keeps */
    int keep_mode;
    char *tmp;                      /* the temporary name; NULL once committed or discarded */
    int fd;                         /* ours, on the temporary */
    unsigned long long dev, ino;    /* its identity */
    char proc_path[32];
    const char *open_path;          /* what netCDF-C opens: /proc/self/fd/<fd>, or tmp */
    int stale_removed;              /* temporaries of dead processes removed on the way */
} minv_nc_output;

/* Decides what writing `var` to `path` means (see nc_output.c): refuses a URL, an input of
 * the call, a missing or read-only directory, a symbolic link or a file that is not regular,
 * and, unless overwrite, an existing file that is not netCDF or that holds `var` already.
 * Nothing is created. */
minv_status minv_nc_output_plan(minv_context *ctx, minv_nc_output *o, const char *path, const char *var,
                                int overwrite, const char *const *inputs, int ninputs);
/* The temporary file, created exclusively (after removing temporaries of dead processes); for
 * ADD, a copy of the existing file. open_path is what netCDF-C must open. */
minv_status minv_nc_output_create(minv_context *ctx, minv_nc_output *o);
/* Reserves `bytes` more on disk for the temporary: MINV_ERR_IO "No space left on device"
 * (with what is needed and free) now rather than in the middle of the writes. */
minv_status minv_nc_output_reserve(minv_context *ctx, minv_nc_output *o, size_t bytes);
/* fsync, and the rename into place (never over a file that appeared meanwhile, for NEW). */
minv_status minv_nc_output_commit(minv_context *ctx, minv_nc_output *o);
/* Points the library's descriptors on the temporary at memory, so that closing it cannot
 * fail (a full disk); call before nc_abort of a temporary that is given up. */
void minv_nc_output_release(minv_nc_output *o);
/* Truncates and removes the temporary; harmless after a commit. library_closed: 0 when the
 * library failed to close its file (nc_abort's status), whose inode is then kept. */
void minv_nc_output_discard(minv_nc_output *o, int library_closed);
/* Removes every temporary this process is writing: async-signal-safe, for the minv command's
 * handler of SIGINT and SIGTERM. */
void minv_nc_remove_temporaries(void);

/* ---- writing (nc_sink.c) ---- */

typedef struct {
    const char *path, *var;
    minv_nc_output out;             /* the temporary file everything is written to */
    int ncid, varid, format;
    minv_nc_sink_spec spec;
    size_t tile[2];                 /* for NetCDF-C's path */
    minv_nc_var_id id;              /* the variable, for the direct path */
    int direct_off;                 /* NetCDF-C writes every value, and why_not says why */
    char why_not[192];
    char chunk_note[64];            /* how the direct path stored chunks, for the report */
    double bytes, seconds;
    int64_t expected;               /* matrices to write (for progress) */
    char format_note[256];          /* why the format is not the input's, for the report */
    char dropped[512];              /* the input variable's attributes not true of the result */
    char lacking[512];              /* its attributes of a type the output's format lacks */
    char dropped_globals[512];      /* global attributes the output's format cannot hold */
    char not_carried[1024];         /* all of it in a sentence: attribute minv_not_carried */
    int64_t tiles, direct_units;    /* pieces written through NetCDF-C and directly */
    int threads;                    /* the most threads a write ran on */
    char *old_history;              /* of the input, or of a file that is added to */
    nc_type history_type;           /* its type: NC_STRING is written back as such where the
                                       format has it */
    size_t row_align;               /* bands written by minv_nc_sink_write_band start at
                                       multiples of this along d0 (whole chunks), 1 for rows */
} minv_nc_sink;

/* An attribute of the output variable: text, or `count` doubles. */
typedef struct {
    const char *name;
    const char *text;
    const double *values;
    size_t count;
} minv_nc_attr;

/* Prepares `var` of `path` under a temporary name (minv_nc_output_plan says what is allowed):
 * a new file, or a copy of an existing netCDF file that holds other variables or groups (the
 * variable is added, or, with overwrite, overwritten when it has the same shape). `count`
 * matrices will be written. Outputs go to the root group: refuses a `var` that names a
 * group. */
minv_status minv_nc_sink_open(minv_context *ctx, minv_nc_sink *w, const char *path,
                              const char *var, const minv_nc_sink_spec *spec, int64_t count);
/* The NetCDF format of a new output (NC_FORMAT_*): `asked` (a minv_file_format) when given,
 * else the input's where a variable of `bytes` (a record's, for a record variable) fits it,
 * the next larger of 64-bit offset and CDF-5 otherwise; netCDF-4 when a deflate level asks
 * for it. *why (len bytes) says why when it is not the input's, "" otherwise. INVALID_ARG
 * when a format asked for cannot hold the variable or cannot deflate. */
minv_status minv_nc_choose_format(minv_context *ctx, int32_t asked, int deflate_level, int input_format, size_t bytes,
                                  int *format, char *why, size_t len);
/* Matrix k of the variable from m (rows x cols in the spec's view), on all of the context's
 * threads (nc_write.c): directly where the storage allows (NetCDF-C closes the file
 * meanwhile), else tile by tile with nc_put_vara. */
minv_status minv_nc_sink_write(minv_context *ctx, minv_nc_sink *w, int64_t k, const minv_mat *m);
/* The band of stored rows [row0, row0 + rows) of matrix k from m (as minv_nc_source_read_band
 * lays it out): row0 a multiple of w->row_align, and rows too unless the band reaches d0. */
minv_status minv_nc_sink_write_band(minv_context *ctx, minv_nc_sink *w, int64_t k, int64_t row0, int64_t rows,
                                    const minv_mat *m);
/* Matrices k0 .. k0 + count - 1 of the variable from src (rows x cols each in the spec's view,
 * dense, type t), directly or in one nc_put_vara; disk is scratch for count d0 d1 doubles. */
minv_status minv_nc_sink_write_matrices(minv_context *ctx, minv_nc_sink *w, int64_t k0,
                                        int64_t count, const void *src, minv_dtype t, double *disk);
/* Matrices (rows x cols each in the spec's view, dense, type t) into the disk's order and type
 * at disk (count d0 d1 doubles), as minv_nc_sink_write_matrices puts them. */
minv_status minv_nc_sink_pack_matrices(minv_context *ctx, minv_nc_sink *w, int64_t count,
                                       const void *src, minv_dtype t, double *disk);
/* Closes the temporary file (suspend) so that other processes may write the variable, the MPI
 * layer's ranks through PnetCDF, and opens it again (resume) for the commit. */
minv_status minv_nc_sink_suspend(minv_context *ctx, minv_nc_sink *w);
minv_status minv_nc_sink_resume(minv_context *ctx, minv_nc_sink *w);
/* Attributes, minv_version, the global history line (appended to an existing history),
 * close, and rename over `path`. On failure the temporary file is gone. */
minv_status minv_nc_sink_commit(minv_context *ctx, minv_nc_sink *w, const minv_nc_attr *attrs,
                                int nattrs, const char *history);
/* How the values were written: "as 256 x 256 chunks, directly on 16 threads". */
void minv_nc_sink_how(const minv_nc_sink *w, char *buf, size_t len);
/* Drops the temporary file; harmless after a commit. */
void minv_nc_sink_abort(minv_nc_sink *w);

/* ---- metadata carried from input to output (nc_meta.c) ---- */

/* num's units over den's (num NULL: 1 over den's) as a canonical product, "m-2 s2": 1 when
 * both read as products of powers of symbols (UDUNITS' simple grammar), else 0. */
int minv_nc_units_ratio(const char *num, const char *den, char *out, size_t len);
/* A text attribute (characters, or one netCDF-4 string) into buf (NUL-terminated): 1 when
 * present, text and shorter than len. */
int minv_nc_text_att(int grpid, int varid, const char *name, char *buf, size_t len);
/* The same text malloc'ed, whatever its length, and its type (NC_CHAR or NC_STRING); NULL when
 * absent, of another type, or out of memory. */
char *minv_nc_text_att_dup(int grpid, int varid, const char *name, nc_type *type);
/* Appends `name` to the ", "-separated list (a name that would not fit is left out). */
void minv_nc_list_name(char *list, size_t len, const char *name);
/* Copies the attributes of a variable (or NC_GLOBAL) to one of another file, leaving behind
 * what does not hold for a result computed from it (nc_meta.c) and listing in `dropped` those
 * a user may miss (a variable's only: NULL for NC_GLOBAL), and in `lacking` those of a type
 * the output's format cannot hold (a single string is written as text). A NetCDF status. */
int minv_nc_copy_atts(int from_grpid, int from_varid, int to_ncid, int to_varid, char *dropped, char *lacking, size_t len);
/* A new history: "<date>: <command line> (<what>)", then `old` (may be NULL), as NCO writes
 * it. malloc'ed, NULL when out of memory. */
char *minv_nc_history(const char *old, const char *what);
/* The units of a result: num's over den's (num NULL: the inverse of den's), in `units`, or
 * NULL when there are none to carry; when some exist but cannot be computed, NULL and a
 * sentence in `note` for the report. */
const char *minv_nc_result_units(const minv_nc_source *num, const minv_nc_source *den, char *units, size_t len,
                                 char *note, size_t nlen);

/* ---- tiles (nc_tiles.c) ---- */

/* Tile edges along d0 and d1: `edge` x `edge` when edge > 0; else whole chunks of a chunked
 * variable, grouped up to MINV_NC_TILE_ELEMS; else (contiguous) bands of whole rows. */
const char *minv_nc_plan_tiles(size_t d0, size_t d1, const size_t *chunk, int64_t edge,
                               size_t tile[2]);
/* Rows of a contiguous variable (rows of row_bytes, d0 of them) moved at a time by the direct
 * path: about 1 MiB, at least 32 (a transpose block) unless that passes 8 MiB. */
size_t minv_nc_unit_rows(size_t row_bytes, size_t d0);
/* Between a row-major tile of doubles (rows ld apart) at (start[0], start[1]) of the d0 x d1
 * matrix on disk and the column-major matrix m in `view`, blocked so that the C view's
 * transpose runs at memory speed. The reader unpacks on the way: stored * scale + offset. */
void minv_nc_tile_to_mat(const double *tile, size_t ld, const size_t start[2], const size_t count[2],
                         minv_nc_view view, const minv_nc_values *v, minv_mat *m);
void minv_nc_mat_to_tile(const minv_mat *m, minv_nc_view view, const size_t start[2],
                         const size_t count[2], double *tile, size_t ld);

/* ---- what the threads of a read or write share (nc_run.c) ---- */

typedef struct {
    minv_context *ctx;
    const char *stage;          /* "read", "write": for progress */
    int64_t k0, count;          /* matrices k0 .. k0 + count - 1 of the variable */
    minv_mat first;             /* matrix k0 in memory; k0 + m at first.data + m stride bytes */
    size_t stride;
    double base, span;          /* the part of the whole read or write this run is */
    int64_t units, done;        /* pieces of work, and those finished */
    int *most_threads;          /* the source's or sink's record of the threads used */
    int stop;                   /* set, with status, on the first failure of any thread */
    minv_status status;
} minv_nc_run;

minv_mat minv_nc_run_matrix(const minv_nc_run *u, int64_t m);
/* A piece done: counted, and the progress reported from thread 0. */
void minv_nc_run_unit_done(minv_nc_run *u);
/* The first failure of any thread becomes the run's: status, or the one a NetCDF error
 * nc_status maps to (minv_nc_fail, its text appended). */
void minv_nc_run_fail(minv_nc_run *u, minv_status status, int nc_status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int minv_nc_run_failed(const minv_nc_run *u);
/* The run's end, reported from the calling thread: every run shows, whichever threads did its
 * pieces. */
void minv_nc_run_end(const minv_nc_run *u);
/* Threads for the run's units (the context's, fewer for few units), recorded. */
int minv_nc_run_threads(minv_nc_run *u);

/* A source read and a sink written band by band (of stored rows: the matrix's rows in the C
 * view, its columns in the Fortran view) for minv_invert_banded and minv_solve_banded (nc_run.c):
 * matrix 0 of each, *io_failed set when a read or write fails (its message names the file). */
typedef struct {
    minv_context *ctx;
    minv_nc_source *src;
    minv_nc_sink *dst; /* NULL: read only */
    int *io_failed;
} minv_nc_bands;
/* The bands of f as minv_banded: aligned to dst's chunks, of `tile` stored rows where asked. */
minv_banded minv_nc_banded(minv_nc_bands *f, int64_t tile);

/* ---- reports (nc_report.c) ---- */

/* The read stage from the inputs in[0..nin), the write stage from out plus the seconds of its
 * commit (close, fsync, rename). */
void minv_nc_report_stages(minv_report *r, const minv_nc_source *const *in, int nin, const minv_nc_sink *out,
                           double commit_seconds);
/* Notes for people on how the values moved: one per input, or `what` for them all ("the three
 * bands whole"), and one for the output; then temporaries of dead runs removed, and what the
 * output is not as its input: its format, what it did not carry over (also in its attribute
 * minv_not_carried), last, as the report's reason has a bounded length. */
void minv_nc_report_notes(minv_report *r, const minv_nc_source *const *in, int nin, const char *what,
                          const minv_nc_sink *out);
/* The output's notes of minv_nc_report_notes, `how` the values were written (NULL: as the
 * sink's own writer says, minv_nc_sink_how); the MPI layer's writers give their own. */
void minv_nc_report_output_notes(minv_report *r, const minv_nc_sink *out, const char *how);
enum { MINV_NC_REPORT_ATTRS = 16 };
typedef struct {
    double values[16];
    char fallbacks[128];
} minv_nc_attr_store;
/* Appends the report's stages, device, fallbacks and reconditioning to attrs from index n (room
 * for MINV_NC_REPORT_ATTRS more), their values kept in store; returns the new count. */
int minv_nc_report_attrs(const minv_report *r, minv_nc_attr_store *store, minv_nc_attr *attrs, int n);

/* ---- argument checks of the file entry points (nc_files.c) ---- */

/* A file or variable name: NULL or "" refused unless optional; the argument named by position. */
minv_status minv_nc_check_name(minv_context *ctx, const char *fn, int pos, const char *what, const char *s,
                               int optional);
/* fopts checked field by field into out; NULL means the defaults. */
minv_status minv_nc_check_fopts(minv_context *ctx, const char *fn, int pos, const minv_file_options *in,
                                minv_file_options *out);

/* ---- the jobs behind the file entry points (nc_invert.c, nc_solve.c) ----
 * Arguments are checked and defaults filled by the entry points (nc_files.c). */
minv_status minv_nc_invert(minv_context *ctx, minv_method method, const char *in_path,
                           const char *in_var, const char *out_path, const char *out_var,
                           const minv_file_options *fopts, minv_report *report);
minv_status minv_nc_solve(minv_context *ctx, minv_method method, const char *a_path,
                          const char *a_var, const char *b_path, const char *b_var,
                          const char *x_path, const char *x_var, const minv_file_options *fopts,
                          minv_report *report);
/* The buffers of a batch taken chunk by chunk: whole matrices at a time while one fits
 * MINV_NC_BATCH_ELEMS (fopts' batch_chunk of them, else as many as that budget holds), else
 * one at a time, read and written tile by tile. */
typedef struct {
    int64_t chunk;           /* matrices at a time */
    int whole;               /* a chunk is read and written in one go */
    void *a;                 /* the chunk's matrices, dense and column-major */
    double *disk;            /* the chunk as on disk (whole chunks only) */
    minv_batch_results res;  /* the outcome of each matrix of the chunk */
} minv_nc_chunks;
/* For count matrices of order n, held in type t. */
minv_status minv_nc_chunks_alloc(minv_context *ctx, minv_nc_chunks *c, const minv_file_options *fopts, minv_dtype t,
                                 int64_t n, int64_t count);
void minv_nc_chunks_free(minv_nc_chunks *c);
/* The method of a batch member that did not take the SPD path: Gauss-Jordan on the GPU or
 * when asked for, LU otherwise. */
minv_method minv_nc_batch_general(minv_backend backend, minv_method asked);
/* The pieces of those jobs that the MPI layer's file jobs share. */
/* What each matrix of a file inversion came to, for the output's attributes (count each). */
typedef struct {
    double *residual, *rcond;
    int *method, *backend; /* minv_method, minv_backend */
} minv_nc_records;
minv_status minv_nc_records_alloc(minv_context *ctx, minv_nc_records *p, int64_t count);
void minv_nc_records_free(minv_nc_records *p);
/* The units of an output and why the input's were not carried (minv_nc_result_units), which
 * the spec points to: it must live until the sink is open. */
typedef struct {
    char units[256], note[600];
} minv_nc_units;
/* The output of an inversion of src (its format from the input's and fopts', overwrite from
 * fopts, as minv_nc_sink_open applies them; src's metadata and inverse units, held in u), and
 * its attributes, history line and commit. */
minv_nc_sink_spec minv_nc_invert_spec(const minv_nc_source *src, minv_dtype t, const minv_file_options *fopts,
                                      const char *const *in_path, minv_nc_units *u);
minv_status minv_nc_invert_commit(minv_context *ctx, minv_nc_sink *dst, const minv_nc_source *src, const char *in_path,
                                  const char *in_var, const char *out_var, const minv_nc_records *p,
                                  const minv_report *report);
/* B's view: its rows are the dimension of length n (either, for a 2-D B; fortran_order
 * decides when both have length n). */
minv_status minv_nc_orient_rhs(minv_context *ctx, minv_nc_source *b, int64_t n, const minv_file_options *fopts);
/* X of a solve (B's dimensions, layout and metadata, B's units over A's, held in u) from the
 * oriented B, and its commit. */
minv_nc_sink_spec minv_nc_solve_spec(const minv_nc_source *as, const minv_nc_source *bs, minv_dtype t,
                                     const minv_file_options *fopts, const char *const *inputs, minv_nc_units *u);
minv_status minv_nc_solve_commit(minv_context *ctx, minv_nc_sink *xs, const minv_nc_source *as, const minv_nc_source *bs,
                                 const char *a_path, const char *a_var, const char *b_path, const char *b_var,
                                 const char *x_var, int64_t nrhs, const minv_report *report);
/* The text of the minv_residual_kind attribute: what the report's residual measures. */
const char *minv_nc_residual_kind_text(int kind);

/* ---- a tridiagonal matrix from its bands (nc_tridiagonal.c), for the minv command ----
 * bands: the 1-D variables of in_path holding the sub-diagonal (n - 1), the diagonal (n) and
 * the super-diagonal (n - 1); the dense inverse goes to out_var (NULL or "": "<diagonal>_inv")
 * of out_path, n x n over the diagonal's dimension. Runs its own FP guard and NetCDF lock;
 * fopts' precision and deflate level apply. */
minv_status minv_nc_invert_tridiagonal(minv_context *ctx, const char *in_path,
                                       const char *const bands[3], const char *out_path,
                                       const char *out_var, const minv_file_options *fopts,
                                       minv_report *report);

/* ---- classic files (nc_classic.c) ---- */

/* Before nc_open: when `path` is a netCDF-3 file (classic, 64-bit offset, CDF-5), its header
 * walked from the bytes: every count within the file, names within NC_MAX_NAME, known types
 * and dimension ids, and the file at least as long as the data its header describes
 * (netCDF-C reads zeros past the end of a truncated file). MINV_ERR_IO naming the file (and
 * `var`, when not NULL) otherwise; any other file passes untouched. */
minv_status minv_nc_classic_check(minv_context *ctx, const char *path, const char *var);

/* ---- helpers (nc_util.c) ---- */

/* Records "<what>: <nc_strerror>" with the status a NetCDF error maps to: NOT_FOUND for a
 * missing file, IO otherwise. Where HDF5 failed beneath, its cause comes first: "<what>: No
 * space left on device (NetCDF: HDF error)". */
minv_status minv_nc_fail(minv_context *ctx, int nc_status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* *product = a * b * c, or MINV_ERR_ALLOC "<what> is too large: a x b x c exceeds the address
 * space" when it does not fit a size_t. Every size computed from a file's dimensions goes
 * through here before it is used: a crafted file may declare anything. */
minv_status minv_nc_product(minv_context *ctx, size_t a, size_t b, size_t c, size_t *product,
                            const char *what_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* *unlimited = 1 when dimension dimid, seen from group grpid, is unlimited in that group or
 * one of its parents; returns a NetCDF status. */
int minv_nc_dim_is_unlimited(int grpid, int dimid, int *unlimited);
/* Puts `where` in front of the context's last error, keeping the status. */
minv_status minv_nc_fail_at(minv_context *ctx, minv_status status, const char *where);
/* The name of a variable without its groups: "M" of "analysis/M" (output names derive from it). */
const char *minv_nc_base_name(const char *var);
const char *minv_nc_type_name(nc_type t);
const char *minv_nc_format_name(int format);
int minv_nc_type_is_integer(nc_type t);
/* 1 when netCDF-C would take `path` for a URL (scheme://..., or its old [params]url form). */
int minv_nc_is_url(const char *path);
/* "0-based" or "1-based": how a message counts slice indices and batch members. */
static inline const char *minv_nc_base_label(int base) { return base ? "1-based" : "0-based"; }
/* "a FIFO (named pipe)", "a directory", ...: what a stat mode is, for messages. */
const char *minv_nc_file_kind(unsigned mode);
/* 1 when a and b name the same existing file (after links). */
int minv_nc_same_file(const char *a, const char *b);
/* NetCDF-C is not thread-safe: every file call holds this process-wide lock. While it is
 * held, HDF5 prints nothing from this thread and its failures are kept (nc_hdf5.c).
 * One lock a process, though libminv, libminv_mpi (its hidden copy of this layer) and the
 * commands each carry this code: these two are exported (default visibility, outside minv.h),
 * so the dynamic linker binds every copy's callers to one definition, the first it finds, and
 * a program's own copy is exported in turn where a library it links defines them. */
__attribute__((visibility("default"))) void minv_nc_lock(void);
__attribute__((visibility("default"))) void minv_nc_unlock(void);

/* ---- HDF5 beneath netCDF-4 (nc_hdf5.c) ---- */

/* The thread's own HDF5 error handler, put back by _end. */
typedef struct {
    void (*func)(void);
    void *data;
} minv_nc_hdf5_state;
/* Silences this thread's HDF5 error printing and records its failures from here on. */
void minv_nc_hdf5_begin(minv_nc_hdf5_state *saved);
void minv_nc_hdf5_end(const minv_nc_hdf5_state *saved);
void minv_nc_hdf5_clear(void);
/* The last HDF5 failure of this thread: its system error (0: none) and innermost message. */
int minv_nc_hdf5_errno(void);
const char *minv_nc_hdf5_message(void);
/* The HDF5 library's version at run time (zeros without HDF5). */
void minv_nc_hdf5_version(unsigned version[3]);

#ifdef __cplusplus
}
#endif

#endif
