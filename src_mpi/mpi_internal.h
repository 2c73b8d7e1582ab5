/* The MPI layer's internal interface, shared by its sources; never installed.
 *
 *   comm.c       statuses and messages agreed over a communicator, the GPU of a rank
 *   batched.c    distributed batches: checks, the local call, the global report
 *   rebalance.c  members moved between ranks by cost and their results brought back
 *   layout.c     block-cyclic layouts over BLACS grids; whole matrices in and out
 *   dense.c      one matrix over many ranks: checks, analysis, method, residual, report
 *   dense_scalapack.c  its CPU backend (ScaLAPACK); dense_gpu.c the cuSOLVERMp plugin's
 *
 * The layer reaches libminv through minv.h, and through internal.h for the error and report
 * helpers every entry point of minv uses (minv_fail, minv_report_note, ...). */
#ifndef MINV_MPI_INTERNAL_H
#define MINV_MPI_INTERNAL_H

#include "internal.h"
#include "minv_mpi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- agreement (comm.c) ---- */

/* One thread at a time: every public entry point that uses a context runs between
 * minv_mpi_enter and minv_mpi_leave. Enter takes the context for this thread (as minv.h's
 * calls do, re-entrant on it) and agrees over comm: where another thread is inside a call on
 * the context of any rank, every rank returns MINV_ERR_CONTEXT_BUSY at once, since a rank
 * refused alone would leave the others waiting in the call's collectives. A busy rank leaves
 * its context untouched; the others hold why. MPI_COMM_NULL: this rank alone (no
 * communicator to agree over). A NULL ctx takes part in the agreement and is not entered. */
minv_status minv_mpi_enter(minv_context *ctx, MPI_Comm comm);
void minv_mpi_leave(minv_context *ctx);

/* Every rank's `local` status meets: SUCCESS when all succeeded, else the status of the
 * lowest failing rank, whose message every rank's context then holds ("rank R: ..." unless
 * every rank failed). */
minv_status minv_mpi_agree(minv_context *ctx, MPI_Comm comm, minv_status local);
/* The same, where a failure of some ranks outranks another kind of failure on others:
 * `local` with priority (higher wins; ties go to the lower rank). */
minv_status minv_mpi_agree_ranked(minv_context *ctx, MPI_Comm comm, minv_status local, int priority);
/* The bytes [0, len) of buf from rank root to every rank (len may exceed INT_MAX). */
void minv_mpi_bcast_bytes(void *buf, size_t len, int root, MPI_Comm comm);
/* Allreduce helpers over int64. */
int64_t minv_mpi_sum_i64(int64_t v, MPI_Comm comm);
int64_t minv_mpi_max_i64(int64_t v, MPI_Comm comm);
int64_t minv_mpi_min_i64(int64_t v, MPI_Comm comm);
/* The sum of v over the ranks before this one. */
int64_t minv_mpi_exscan_i64(int64_t v, MPI_Comm comm);
/* The MPI datatype of an element. */
MPI_Datatype minv_mpi_type(minv_dtype t);

/* ---- distributed batches (batched.c, rebalance.c) ---- */

/* One rank's part of a batched call, in any of the public forms. */
typedef struct {
    minv_dtype t;
    int solve;                 /* 0: invert (b unused) */
    int64_t nbatch, nrhs;
    int64_t k;                 /* strided forms: the order of every member */
    int vsize;                 /* 1: the _vsize forms, member m of order ks[m] */
    const int64_t *ks;
    /* strided: member m at base + m stride; _vsize: ptrs[m] with lds[m] */
    const void *a, *b;
    void *x;                   /* ainv of an inversion */
    int64_t lda, ldb, ldx, stride_a, stride_b, stride_x;
    const void *const *ap, *const *bp;
    void *const *xp;
    const int64_t *ldas, *ldbs, *ldxs;
} minv_mpi_batch;

static inline int64_t minv_mpi_batch_order(const minv_mpi_batch *bt, int64_t m) {
    return bt->vsize ? bt->ks[m] : bt->k;
}
/* Member m of a, b or x as a host matrix (rows x cols, its leading dimension). */
minv_mat minv_mpi_batch_a(const minv_mpi_batch *bt, int64_t m);
minv_mat minv_mpi_batch_b(const minv_mpi_batch *bt, int64_t m);
minv_mat minv_mpi_batch_x(const minv_mpi_batch *bt, int64_t m);
/* The serial batched call of minv.h for this rank's members. */
minv_status minv_mpi_batch_run(minv_context *ctx, minv_method method, const minv_mpi_batch *bt,
                               minv_status *status, minv_batch_report *report);

/* What the rebalance moved, for the report. */
typedef struct {
    int64_t moved;             /* members computed on another rank than their owner's */
    double cost_max_before, cost_max_after, cost_mean; /* sum of k^3 a rank */
} minv_mpi_moves;

/* Runs the batch with its members dealt to the ranks by cost (k^3) in global order, and
 * brings results and statuses back to their owners. On return, report describes the members
 * this rank computed, whose first global index is *computed_offset. The status is the local
 * call's own (allocation, GPU), not the members'; *agreed = 1 when it is a failure of the
 * exchange, already agreed over comm. */
minv_status minv_mpi_batch_rebalanced(minv_context *ctx, MPI_Comm comm, minv_method method,
                                      const minv_mpi_batch *bt, minv_status *status,
                                      minv_batch_report *report, int64_t *computed_offset,
                                      minv_mpi_moves *moves, int *agreed);

/* ---- layouts (layout.c) ---- */

/* minv_mpi_layout_create with blocks of mb x nb (0 x 0: chosen). */
minv_status minv_mpi_layout_make(minv_context *ctx, MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb,
                                 int32_t nprow, int32_t npcol, minv_mpi_layout *layout);
/* The layout's communicator (minv's duplicate) and its context of every rank. */
MPI_Comm minv_mpi_layout_comm(const minv_mpi_layout *l);
int minv_mpi_layout_all(const minv_mpi_layout *l);
/* sl_gemr2d's cycle between layouts a and b (NULL: a matrix on one process column): the least
 * width in which each deals whole rounds of its process columns (NB x npcol, 1 on one process
 * column), at most a's columns. */
int minv_mpi_column_cycle(const minv_mpi_layout *a, const minv_mpi_layout *b);
static inline int minv_mpi_in_grid(const minv_mpi_layout *l) { return l->myrow >= 0; }
/* The local row of global row i (0-based) on this rank, or -1 where another rank holds it. */
int64_t minv_mpi_layout_local_row(const minv_mpi_layout *l, int64_t i);
/* The rank (of the layout's communicator) at each grid place p * npcol + q, into rank_of
 * (nprow x npcol ints). Collective. */
void minv_mpi_layout_ranks(const minv_mpi_layout *l, int *rank_of);
/* The rank holding global entry (i, j), 0-based, from minv_mpi_layout_ranks' rank_of. */
int minv_mpi_layout_holder(const minv_mpi_layout *l, const int *rank_of, int64_t i, int64_t j);
/* Where global entry (i, j) lies in its holder's piece (elements from the start). */
size_t minv_mpi_layout_offset(const minv_mpi_layout *l, int64_t i, int64_t j);
/* The most a round of the layer's own exchanges (transpose.c, redistribute.c) moves: no MPI
 * message nears 2 GB. */
enum { MINV_MPI_ROUND_BYTES = 256 << 20 };

/* ---- one matrix over many ranks (dense.c and its backends) ---- */

/* A backend of the dense solvers. invert: x becomes A^-1 of a (x may be a; a is read alone,
 * the GPU's straight from its piece without a copy into x); solve: x holds B and becomes X,
 * A is read from a: ScaLAPACK factors a copy in work (the driver's, for ScaLAPACK alone: the
 * factors stay there for its condition estimate), the GPU uploads a and takes NULL. The factorisation is Cholesky (spd) or LU; *info is the 1-based
 * global column where it failed (not positive definite, or an exactly zero pivot), 0
 * otherwise. The driver finds rcond: an inversion's from the inverse itself, a solve's from
 * its columns and Hager's vector solved with them. The status is this rank's own (allocation,
 * device, library); the driver agrees statuses and info over the ranks. Notes on what ran go
 * to the report's reason. */
typedef struct {
    const char *name;
    minv_status (*invert)(minv_context *ctx, const minv_mpi_layout *l, minv_dtype t, int spd, const void *a, void *x,
                          int *info, minv_report *report);
    minv_status (*solve)(minv_context *ctx, const minv_mpi_layout *la, minv_dtype t, int spd, const void *a,
                         void *work, const minv_mpi_layout *lb, void *x, int *info, minv_report *report);
} minv_mpi_dense_ops;

extern const minv_mpi_dense_ops minv_mpi_scalapack_ops;

/* b (layout to) = a (layout from): the same m x n matrix in two layouts of the same ranks, in
 * the same order (redistribute.c). Collective over from's communicator; MINV_ERR_ALLOC agreed. */
minv_status minv_mpi_redistribute(minv_context *ctx, minv_dtype t, const minv_mpi_layout *from, const void *a,
                                  const minv_mpi_layout *to, void *b);

/* visit(arg, thread, bi, bj, mine, ldm, partner, ldp, rows, cols): block (bi, bj) of this
 * rank's piece (rows x cols at mine, leading dimension ldm) beside its transpose partner, block
 * (bj, bi) of the same matrix (cols x rows at partner, leading dimension ldp), where bi <= bj;
 * below the diagonal (bi > bj) partner is NULL: each pair meets once. thread: which of the
 * call's threads (below the context's cpu_threads) runs it. */
typedef void (*minv_mpi_block_visit)(void *arg, int thread, int64_t bi, int64_t bj, void *mine, int64_t ldm,
                                     const void *partner, int64_t ldp, int64_t rows, int64_t cols);
/* Every block of this rank's piece of the square matrix of l (square blocks) visited beside
 * its transpose partner, fetched from the rank that holds it (transpose.c); blocks in any
 * order, several at once. Collective over the layout's communicator; MINV_ERR_ALLOC agreed. */
minv_status minv_mpi_transposed_blocks(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, void *piece,
                                       minv_mpi_block_visit visit, void *arg);
/* A buffer the size of this rank's piece of layout l (lld x local columns, at least one
 * column), in 2 MiB pages where large (minv_alloc_large); free() releases it. */
void *minv_mpi_alloc_piece(const minv_mpi_layout *l, minv_dtype t);
/* to = from, this rank's piece of layout l (nothing where they are the same). */
void minv_mpi_copy_piece(minv_dtype t, const minv_mpi_layout *l, const void *from, void *to);
/* The cuSOLVERMp plugin's backend for this context's GPU and the layout's ranks (the context's
 * session for them, opened on its first call and noted in r), or NULL with why it cannot be
 * had; the same on every rank of the layout (a rank without it makes every rank go without).
 * Collective. */
const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, const minv_mpi_layout *l, minv_report *r, char *why,
                                           size_t len);

#ifdef __cplusplus
}
#endif

#endif
