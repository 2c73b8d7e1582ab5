/* Shared helpers of the MPI tests: start and end under mpirun, checks that a value is the same
 * on every rank, and the deterministic members every rank can rebuild from a global index. */
#ifndef MINV_MPI_TESTUTIL_H
#define MINV_MPI_TESTUTIL_H

#include <stddef.h>

#include "minv_mpi.h"
#include "testutil.h"

extern int mt_rank, mt_size;

/* MPI_Init, the rank and size, and a CPU context. */
minv_context *mt_init(int *argc, char ***argv);
/* The failures of every rank summed; rank 0 prints the summary; MPI_Finalize. Returns the
 * exit code (the same on every rank). */
int mt_finish(const char *name, minv_context *ctx);
/* 1 when the len bytes at p are the same on every rank as on rank 0. */
int mt_same(const void *p, size_t len);
/* The same for a string (up to its NUL). */
int mt_same_text(const char *s);
/* This rank's piece of a whole matrix that every rank holds (column-major, lda). */
double *mt_piece_of(const minv_mpi_layout *l, const double *a, int64_t lda);
/* The whole matrix of the pieces, on every rank (gathered on rank 0, broadcast). */
double *mt_whole_of(minv_context *ctx, const minv_mpi_layout *l, const double *piece);
/* A report that is the same everywhere (seconds and gflops included: they are reduced). */
#define MT_SAME_REPORT(r) mt_same(&(r), sizeof(r))

#endif
