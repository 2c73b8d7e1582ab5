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
 * share its GPUs evenly (on one node: rank % devices). Change opts->device to choose
 * otherwise, then minv_create(&ctx, opts) as usual. Collective over comm. */
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
                                            minv_method method, int64_t nbatch,
                                            const int64_t *k, const double *const *a,
                                            const int64_t *lda, double *const *ainv,
                                            const int64_t *ldainv, minv_status *status,
                                            minv_batch_report *report);
minv_status minv_mpi_invert_batched_vsize_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                            minv_method method, int64_t nbatch,
                                            const int64_t *k, const float *const *a,
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
                                           minv_method method, int64_t nbatch, const int64_t *k,
                                           int64_t nrhs, const double *const *a,
                                           const int64_t *lda, const double *const *b,
                                           const int64_t *ldb, double *const *x,
                                           const int64_t *ldx, minv_status *status,
                                           minv_batch_report *report);
minv_status minv_mpi_solve_batched_vsize_s(minv_context *ctx, MPI_Comm comm, int32_t flags,
                                           minv_method method, int64_t nbatch, const int64_t *k,
                                           int64_t nrhs, const float *const *a,
                                           const int64_t *lda, const float *const *b,
                                           const int64_t *ldb, float *const *x,
                                           const int64_t *ldx, minv_status *status,
                                           minv_batch_report *report);

#ifdef __cplusplus
}
#endif

#endif /* MINV_MPI_H */
