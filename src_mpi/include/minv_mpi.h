/*
 * minv_mpi: minv across the ranks of an MPI communicator (libminv_mpi, CMake target minv::mpi).
 * It adds to minv.h, whose conventions hold here too, and drives engines the field trusts:
 * ScaLAPACK on CPUs, cuSOLVERMp on GPUs, PnetCDF for collective I/O.
 *
 *   - Every routine is collective over its communicator: every rank calls it, with its own
 *     data, and every rank returns the same status with the same minv_last_error() text (an
 *     error found on one rank is named "rank R: ..." everywhere) and, where a report is
 *     asked for on every rank, the same global report.
 *   - Each rank keeps its own context (minv_create); minv_mpi_options_default gives each
 *     rank its own GPU.
 *   - The communicator is the caller's; minv duplicates it where it keeps one, so minv's
 *     messages never meet the caller's.
 */
#ifndef MINV_MPI_H
#define MINV_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "minv.h"
#include "minv_mpi_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- contexts: one GPU per rank -----------------------------------------------------------
 * minv_options_default, with `device` chosen for this rank: its rank among the ranks of its
 * node (MPI_COMM_TYPE_SHARED) modulo the GPUs the node shows it, so that the ranks of a node
 * share its GPUs evenly (on one node: rank % devices); and `cpu_threads` this rank's share of
 * the node's cores: at most the cores it is bound to, the node's cores over its ranks and
 * OpenMP's maximum, at least 1 (the ranks' threads do not oversubscribe the cores). Change
 * opts->device or opts->cpu_threads to choose otherwise, then minv_create(&ctx, opts) as
 * usual. Collective over comm. */
minv_status minv_mpi_options_default(MPI_Comm comm, minv_options *opts);

/* ---- distributed batches -------------------------------------------------------------------
 * The batched calls of minv.h with a communicator: each rank passes its own members (any
 * number, none included) and gets their results and statuses; the members are numbered
 * globally rank by rank (rank 0's first, then rank 1's, ...). The report is global and the
 * same on every rank: nbatch and failed and cholesky_count summed over the ranks, k the
 * largest order, residual the largest with `worst` its global member, rcond the smallest,
 * first_failed the global index of the first failed member with its status and column,
 * flops summed, seconds the wall time of the call (the slowest rank's), method AUTO when the
 * ranks' members took different paths, reason rank 0's with a note on the distribution.
 * The returned status is the first failed member's (as minv.h's batches return it), or an
 * error of the call itself on any rank.
 *
 * flags: MINV_MPI_REBALANCE moves members between the ranks before the work so that each
 * holds about the same cost (k^3 a member) and brings the results back; the decomposition of
 * a DA code (grid points per rank, observations per point) is often uneven. Members keep
 * their global order: rank r computes a contiguous range of it. */
enum { MINV_MPI_REBALANCE = 1 };

minv_status minv_mpi_invert_batched_d(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                      minv_method method, int64_t k, int64_t nbatch,
                                      const double *a, int64_t lda, int64_t stride_a,
                                      double *ainv, int64_t ldainv, int64_t stride_ainv,
                                      minv_status *status, minv_batch_report *report);
minv_status minv_mpi_invert_batched_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                      minv_method method, int64_t k, int64_t nbatch,
                                      const float *a, int64_t lda, int64_t stride_a,
                                      float *ainv, int64_t ldainv, int64_t stride_ainv,
                                      minv_status *status, minv_batch_report *report);
/* Member b of order k[b] at a[b], leading dimension lda[b] (minv_invert_batched_vsize_d). */
minv_status minv_mpi_invert_batched_vsize_d(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                            minv_method method, const int64_t *k,
                                            int64_t nbatch, const double *const *a,
                                            const int64_t *lda, double *const *ainv,
                                            const int64_t *ldainv, minv_status *status,
                                            minv_batch_report *report);
minv_status minv_mpi_invert_batched_vsize_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                            minv_method method, const int64_t *k,
                                            int64_t nbatch, const float *const *a,
                                            const int64_t *lda, float *const *ainv,
                                            const int64_t *ldainv, minv_status *status,
                                            minv_batch_report *report);
/* A_b X_b = B_b, B_b and X_b k x nrhs; nrhs must be the same on every rank. */
minv_status minv_mpi_solve_batched_d(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                     minv_method method, int64_t k, int64_t nrhs, int64_t nbatch,
                                     const double *a, int64_t lda, int64_t stride_a,
                                     const double *b, int64_t ldb, int64_t stride_b, double *x,
                                     int64_t ldx, int64_t stride_x, minv_status *status,
                                     minv_batch_report *report);
minv_status minv_mpi_solve_batched_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                     minv_method method, int64_t k, int64_t nrhs, int64_t nbatch,
                                     const float *a, int64_t lda, int64_t stride_a,
                                     const float *b, int64_t ldb, int64_t stride_b, float *x,
                                     int64_t ldx, int64_t stride_x, minv_status *status,
                                     minv_batch_report *report);
minv_status minv_mpi_solve_batched_vsize_d(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                           minv_method method, const int64_t *k, int64_t nrhs,
                                           int64_t nbatch, const double *const *a,
                                           const int64_t *lda, const double *const *b,
                                           const int64_t *ldb, double *const *x,
                                           const int64_t *ldx, minv_status *status,
                                           minv_batch_report *report);
minv_status minv_mpi_solve_batched_vsize_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                           minv_method method, const int64_t *k, int64_t nrhs,
                                           int64_t nbatch, const float *const *a,
                                           const int64_t *lda, const float *const *b,
                                           const int64_t *ldb, float *const *x,
                                           const int64_t *ldx, minv_status *status,
                                           minv_batch_report *report);

/* ---- one matrix over many ranks: ScaLAPACK's block-cyclic layout ---------------------------
 * A global m x n matrix cut into nb x nb blocks (mb x nb for a caller's descriptor), dealt
 * cyclically over an nprow x npcol grid of the communicator's ranks; rank r sits at grid row
 * r % nprow, column r / nprow (the BLACS's column-major order), and holds its blocks as one
 * column-major local piece of local_rows x local_cols with leading dimension lld. Ranks beyond
 * nprow npcol, and ranks the matrix is too small to reach, hold an empty piece and still take
 * part in every call. desc is ScaLAPACK's descriptor of the piece, for calling ScaLAPACK
 * directly on the same data. A layout made by one of the three routines below is freed once
 * by minv_mpi_layout_free; copies of the struct share its grid. */
typedef struct {
    int64_t m, n;                   /* global rows and columns */
    int64_t mb, nb;                 /* block rows and columns */
    int32_t nprow, npcol;           /* the process grid */
    int32_t myrow, mycol;           /* this rank's place in it; -1, -1 outside */
    int64_t local_rows, local_cols; /* this rank's piece */
    int64_t lld;                    /* its leading dimension, >= 1 */
    int32_t desc[9];                /* DTYPE, CTXT, M, N, MB, NB, RSRC, CSRC, LLD (ScaLAPACK's int) */
    int32_t reserved;
    void *internal;                 /* minv's: the communicator and grids */
} minv_mpi_layout;

/* nb: the block edge, 0 = 64, or 512 where ctx is on a GPU (cuSOLVERMp's kernels want large
 * blocks); less for a matrix too small to give every grid row and column a block. nprow x npcol: the grid, 0 x 0 = the squarest nprow <= npcol with nprow npcol = the
 * communicator's size; a grid of fewer ranks leaves the others out. Collective. */
minv_status minv_mpi_layout_create(minv_context *ctx, MPI_Comm comm, int64_t m, int64_t n,
                                   int64_t nb, int32_t nprow, int32_t npcol,
                                   minv_mpi_layout *layout);
/* An m x n layout on the grid and blocks of `like` (B and X of a solve: m = like->n). */
minv_status minv_mpi_layout_like(minv_context *ctx, const minv_mpi_layout *like, int64_t m,
                                 int64_t n, minv_mpi_layout *layout);
/* The layout of the caller's own ScaLAPACK descriptor: its BLACS context is the caller's, over
 * the ranks of comm. Collective over comm. */
minv_status minv_mpi_layout_from_desc(minv_context *ctx, MPI_Comm comm, const int32_t desc[9],
                                      minv_mpi_layout *layout);
/* Collective over the layout's communicator. */
void minv_mpi_layout_free(minv_mpi_layout *layout);
/* The 0-based global row (column) of local row li (column lj) of this rank's piece. */
int64_t minv_mpi_layout_row(const minv_mpi_layout *layout, int64_t li);
int64_t minv_mpi_layout_col(const minv_mpi_layout *layout, int64_t lj);

/* A whole matrix of rank root (leading dimension lda; ignored elsewhere) dealt into every
 * rank's piece, and back: for codes that hold the matrix on one rank. Collective. */
minv_status minv_mpi_scatter_d(minv_context *ctx, const minv_mpi_layout *layout, int root,
                               const double *a, int64_t lda, double *local);
minv_status minv_mpi_scatter_s(minv_context *ctx, const minv_mpi_layout *layout, int root,
                               const float *a, int64_t lda, float *local);
minv_status minv_mpi_gather_d(minv_context *ctx, const minv_mpi_layout *layout,
                              const double *local, int root, double *a, int64_t lda);
minv_status minv_mpi_gather_s(minv_context *ctx, const minv_mpi_layout *layout,
                              const float *local, int root, float *a, int64_t lda);

/* ainv = A^-1 for A distributed in `layout` (square, mb = nb); a and ainv are this rank's
 * pieces, ainv may be a itself (in place). Methods:
 *   AUTO      Cholesky where A is symmetric (MINV_OPT_SYMMETRY_TOL) with a positive diagonal,
 *             LU otherwise, and LU again where Cholesky finds A not positive definite
 *   CHOLESKY  ScaLAPACK p?potrf, p?potri (the inverse mirrored to both triangles); GPUs: see
 *             below
 *   LU        ScaLAPACK p?getrf, p?getri
 * On GPU contexts (every rank's context on its own GPU, and minv built with cuSOLVERMp) the
 * ranks factor with cuSOLVERMp over NCCL (potrf or getrf) and, since cuSOLVERMp has no
 * inverse, solve for the identity (potrs or getrs): 7/3 n^3 flops for SPD and 8/3 n^3 for LU,
 * against LAPACK's n^3 and 2 n^3, in exchange for the GPUs' speed. The report is the same on
 * every rank: the method and backend, rcond, residual (MINV_OPT_RESIDUAL: sampled by two
 * probe vectors, or the full ||I - A X||_1 / (n ||A||_1 ||X||_1)), and on SINGULAR or NOT_SPD
 * info = the 0-based global column. n = 0 (and, for a solve, nrhs = 0) is LAPACK's quick
 * return, as in minv_invert: success, nothing read or written, NULL pieces allowed.
 * Collective over the layout's communicator. */
minv_status minv_mpi_invert_d(minv_context *ctx, minv_method method, const minv_mpi_layout *layout,
                              const double *a, double *ainv, minv_report *report);
minv_status minv_mpi_invert_s(minv_context *ctx, minv_method method, const minv_mpi_layout *layout,
                              const float *a, float *ainv, minv_report *report);
/* A X = B with A in la (square) and B, X in lb (lb->m = la->n, on la's grid with lb->mb =
 * la->nb); x may be b itself (in place). ScaLAPACK p?potrf + p?potrs or p?getrf + p?getrs,
 * cuSOLVERMp's on GPUs, in the data's precision (MINV_OPT_PRECISION mixed is the serial
 * solves'; the report says so where it is set). */
minv_status minv_mpi_solve_d(minv_context *ctx, minv_method method, const minv_mpi_layout *la,
                             const double *a, const minv_mpi_layout *lb, const double *b,
                             double *x, minv_report *report);
minv_status minv_mpi_solve_s(minv_context *ctx, minv_method method, const minv_mpi_layout *la,
                             const float *a, const minv_mpi_layout *lb, const float *b, float *x,
                             minv_report *report);

/* ---- NetCDF files across the ranks ----------------------------------------------------------
 * Each rank reads and writes its own part of a variable: a slab of whole rows (as stored),
 * redistributed to its blocks of a layout (MPI_Alltoallv rounds of columns), or its range of the matrices
 * of a batch. Classic, 64-bit offset and CDF-5 files are read and written collectively by
 * PnetCDF; netCDF-4 (HDF5) files are read by every rank through the serial netCDF library and
 * written through rank 0, slab after slab: a program links one netCDF-C library, and the
 * parallel build exports the same names as the serial one that libminv uses. The checks, the
 * layouts (fortran_order, slices, netCDF-4 groups, a 1-D B as one column) and the atomic output
 * (written under a temporary name, renamed when complete; the inputs never modified) are those
 * of minv_invert_file and minv_solve_file; so are the output's attributes and history, its
 * format (the input's unless fopts->format asks for another, or a larger one where the
 * variable needs it) and the treatment of an existing output (replaced only with
 * fopts->overwrite). Outputs in a classic format are written collectively when PnetCDF is
 * built in. The report is the same on every rank; its read and write stages (and the output's
 * minv_read_* and minv_write_* attributes) count every rank's bytes and the slowest rank's
 * seconds, as do a batch's upload, compute and download stages. Available when
 * minv_mpi_config.h says MINV_MPI_HAVE_NETCDF; otherwise MINV_ERR_NOT_IMPLEMENTED. */

/* A matrix variable (sliced by fopts) read into the pieces of layout, whose shape must be the
 * variable's (rows x cols in the fopts->fortran_order view). */
minv_status minv_mpi_read_d(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, double *local);
minv_status minv_mpi_read_s(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, float *local);
/* The layout's matrix written as variable var of path, over the dimensions dims[0] (rows) and
 * dims[1] (columns) (NULL: "row" and "column"), in the fopts->fortran_order view. */
minv_status minv_mpi_write_d(minv_context *ctx, const minv_mpi_layout *layout, const double *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts);
minv_status minv_mpi_write_s(minv_context *ctx, const minv_mpi_layout *layout, const float *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts);
/* minv_invert_file over the ranks of comm: one matrix in a layout of MINV_OPT_BLOCK_SIZE blocks
 * (0: chosen) on the squarest grid, inverted by minv_mpi_invert; a batch (rank-3 variable)
 * dealt to the ranks in ranges of whole matrices. */
minv_status minv_mpi_invert_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                 const char *in_path, const char *in_var, const char *out_path,
                                 const char *out_var, const minv_file_options *fopts,
                                 minv_report *report);
/* minv_solve_file over the ranks of comm, by minv_mpi_solve. */
minv_status minv_mpi_solve_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                const char *a_path, const char *a_var, const char *b_path,
                                const char *b_var, const char *x_path, const char *x_var,
                                const minv_file_options *fopts, minv_report *report);

#ifdef __cplusplus
}
#endif

#endif /* MINV_MPI_H */
