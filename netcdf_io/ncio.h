/* The NetCDF layer's internal interface, shared by the file entry points and the minv command
 * (generate and info use the reader and writer directly); never installed.
 *
 *   nc_source.c   a matrix variable read tile by tile: slices, batches, checks, conversion
 *   nc_output.c   the output file: what may be replaced, the temporary, the rename
 *   nc_sink.c     an output variable written tile by tile into the temporary file
 *   nc_tiles.c    the tile plan and the copies between tiles and column-major matrices
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

/* ---- reading (nc_source.c) ---- */

/* Flags of minv_nc_source_open. */
enum {
    MINV_NC_ALLOW_BATCH = 1,  /* a rank-3 variable of square matrices without a slice is a batch */
    MINV_NC_SLICE_IF_RANKED = 2, /* the slice applies only when the rank exceeds 2 (B of a solve) */
    MINV_NC_ALLOW_VECTOR = 4     /* a 1-D variable is one column (B of a solve: one right-hand side) */
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
} minv_nc_values;

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
    minv_nc_values values;
    int chunked, deflate_level;
    size_t chunk[2];               /* chunk edges along d0, d1 (chunked variables) */
    size_t tile[2];                /* tile edges along d0, d1 */
    const char *tile_rule;         /* how the tile was chosen, for the report */
    int index_base;                /* slice indices and batch members in messages: 0 or 1 */
    int allow_remote;              /* a URL may be opened */
    double *buffer;                /* one tile of doubles */
    double bytes, seconds;         /* read so far (stored bytes) and the time it took */
    int64_t tiles;
    int64_t batch_reads;           /* reads of whole matrices (minv_nc_source_read_matrices) */
} minv_nc_source;

/* Opens `var` of `path` read-only and checks everything that can be checked before reading:
 * the file is netCDF and whole, the variable exists and is numeric, its rank can be sliced to
 * a matrix. `var` names a variable of the root group, or one inside netCDF-4 groups by its
 * path: "analysis/M", "/analysis/M", "a/b/M". Errors name the file and variable: NOT_FOUND
 * (saying which group or variable is missing and what is there), IO, SHAPE, INVALID_ARG. */
minv_status minv_nc_source_open(minv_context *ctx, minv_nc_source *s, const char *path,
                                const char *var, const minv_file_options *fopts, int flags);
/* Matrix k (0 <= k < count) into m (rows x cols of the source's view, R32 or R64), tile by
 * tile with nc_get_vara. A _FillValue, missing_value or value outside the valid range fails
 * with NOT_FINITE naming the first (i, j) in file order; so do NaN and Inf unless
 * keep_nonfinite (an analysis reports them itself). */
minv_status minv_nc_source_read(minv_context *ctx, minv_nc_source *s, int64_t k,
                                int keep_nonfinite, minv_mat *m);
/* Matrices k0 .. k0 + count - 1 of a batch whole, in one nc_get_vara, each checked as
 * minv_nc_source_read checks it and stored column-major in the source's view at
 * dst + m rows cols (type t); disk is scratch for count d0 d1 doubles. */
minv_status minv_nc_source_read_matrices(minv_context *ctx, minv_nc_source *s, int64_t k0,
                                         int64_t count, double *disk, minv_dtype t, void *dst);
/* The values count d0 d1 doubles at disk read raw for matrices k0 .. k0 + count - 1 (in one
 * nc_get_vara, or by another library), checked and converted as minv_nc_source_read_matrices
 * does it. */
minv_status minv_nc_source_convert_matrices(minv_context *ctx, const minv_nc_source *s, int64_t k0,
                                            int64_t count, double *disk, minv_dtype t, void *dst);
/* The first bad entry of what was read: its kind (0 none; else fill, missing, NaN, Inf, out of
 * the valid range, too large for single precision) and place on disk (along d0, d1). */
typedef struct {
    int kind;
    size_t r, c;
    double value;
} minv_nc_bad;
/* Checks raw values read at start/count (disk coordinates, row-major) of a matrix and unpacks
 * them in place; the first bad one in file order goes to *bad (kind 0 when there is none),
 * NaN and Inf passing with keep_nonfinite. The reader of the MPI layer checks its slabs so. */
void minv_nc_source_scan(const minv_nc_source *s, double *tile, const size_t start[2],
                         const size_t count[2], int keep_nonfinite, int single, minv_nc_bad *bad);
/* NOT_FINITE naming the bad entry of matrix k as minv_nc_source_read does. */
minv_status minv_nc_source_fail_bad(minv_context *ctx, const minv_nc_source *s, int64_t k,
                                    const minv_nc_bad *bad);
/* The fixed leading indices counted from `base`: "Time = 2, level = 0", "" without a slice.
 * Messages count from the caller's index_base; attributes in files from 0, as ncdump. */
void minv_nc_source_slice(const minv_nc_source *s, int base, char *buf, size_t len);
/* Where matrix k is: "'in.nc', variable 'cov' (Time = 2, 0-based)", in the index_base. */
void minv_nc_source_where(const minv_nc_source *s, int64_t k, char *buf, size_t len);
/* Appends "read ... MB in ... s (... MB/s) ..." to the report's reason. */
void minv_nc_source_note(const minv_nc_source *s, minv_report *report);
/* One line on the storage: type, format, chunking, compression. */
void minv_nc_source_describe(const minv_nc_source *s, char *buf, size_t len);
/* Sets the view (rows and cols follow); the reader names entries in this view. */
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
    size_t tile[2];
    double *buffer;
    double bytes, seconds;
    int64_t expected;               /* matrices to write (for progress) */
    char format_note[256];          /* why the format is not the input's, for the report */
    char dropped[512];              /* the input variable's attributes not carried */
    char dropped_globals[512];      /* global attributes the output's format cannot hold */
    char not_carried[1024];         /* all of it in a sentence: attribute minv_not_carried */
    char *old_history;              /* of a file that is added to */
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
/* Matrix k of the variable from m (rows x cols in the spec's view). */
minv_status minv_nc_sink_write(minv_context *ctx, minv_nc_sink *w, int64_t k, const minv_mat *m);
/* Matrices k0 .. k0 + count - 1 of the variable from src (rows x cols each in the spec's view,
 * dense, type t) in one nc_put_vara; disk is scratch for count d0 d1 doubles. */
minv_status minv_nc_sink_write_matrices(minv_context *ctx, minv_nc_sink *w, int64_t k0,
                                        int64_t count, const void *src, minv_dtype t, double *disk);
/* Matrices (rows x cols each in the spec's view, dense, type t) into the disk's order and type
 * at disk (count d0 d1 doubles), as minv_nc_sink_write_matrices puts them. */
minv_status minv_nc_sink_pack_matrices(minv_context *ctx, const minv_nc_sink *w, int64_t count,
                                       const void *src, minv_dtype t, double *disk);
/* Closes the temporary file (suspend) so that other processes may write the variable, the MPI
 * layer's ranks through PnetCDF, and opens it again (resume) for the commit. */
minv_status minv_nc_sink_suspend(minv_context *ctx, minv_nc_sink *w);
minv_status minv_nc_sink_resume(minv_context *ctx, minv_nc_sink *w);
/* Attributes, minv_version, the global history line (appended to an existing history),
 * close, and rename over `path`. On failure the temporary file is gone. */
minv_status minv_nc_sink_commit(minv_context *ctx, minv_nc_sink *w, const minv_nc_attr *attrs,
                                int nattrs, const char *history);
void minv_nc_sink_note(const minv_nc_sink *w, minv_report *report);
/* Notes on what the output is not as its input: its format, what it did not carry over (also
 * in its attribute minv_not_carried). Last, as the report's reason has a bounded length. */
void minv_nc_sink_meta_note(const minv_nc_sink *w, minv_report *report);
/* Drops the temporary file; harmless after a commit. */
void minv_nc_sink_abort(minv_nc_sink *w);

/* ---- metadata carried from input to output (nc_meta.c) ---- */

/* num's units over den's (num NULL: 1 over den's) as a canonical product, "m-2 s2": 1 when
 * both read as products of powers of symbols (UDUNITS' simple grammar), else 0. */
int minv_nc_units_ratio(const char *num, const char *den, char *out, size_t len);
/* A text attribute into buf (NUL-terminated): 1 when present, text and shorter than len. */
int minv_nc_text_att(int grpid, int varid, const char *name, char *buf, size_t len);
/* Copies the attributes of a variable (or NC_GLOBAL) to one of another file, leaving behind
 * what does not hold for a result computed from it (nc_meta.c) and listing in `dropped`
 * those a user may miss, and those the output's format cannot hold. A NetCDF status. */
int minv_nc_copy_atts(int from_grpid, int from_varid, int to_ncid, int to_varid, char *dropped, size_t len);
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
/* Between a row-major tile of doubles at (start[0], start[1]) of the d0 x d1 matrix on disk
 * and the column-major matrix m in `view`. */
void minv_nc_tile_to_mat(const double *tile, const size_t start[2], const size_t count[2],
                         minv_nc_view view, minv_mat *m);
void minv_nc_mat_to_tile(const minv_mat *m, minv_nc_view view, const size_t start[2],
                         const size_t count[2], double *tile);

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
minv_status minv_nc_solve_commit(minv_context *ctx, minv_nc_sink *xs, const minv_nc_source *as, const char *a_path,
                                 const char *a_var, const char *b_path, const char *b_var, const char *x_var,
                                 int64_t nrhs, const minv_report *report);
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
 * held, HDF5 prints nothing from this thread and its failures are kept (nc_hdf5.c). */
void minv_nc_lock(void);
void minv_nc_unlock(void);

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

#ifdef __cplusplus
}
#endif

#endif
