/* A typed shim over ScaLAPACK, PBLAS and the BLACS (scalapack.c): the double or float routine
 * by the element type, whole matrices described by their descriptors (or, where a routine
 * takes ja/jb/jc, the columns from that 1-based global column on), workspace queries done here. Only ranks inside the descriptor's grid may call the computational ones;
 * sl_gemr2d is called by every rank of its context. ScaLAPACK's integers are C ints (LP64). */
#ifndef MINV_MPI_SCALAPACK_H
#define MINV_MPI_SCALAPACK_H

#include <mpi.h>

#include "internal.h"

/* The BLACS, C interface */
void Cblacs_pinfo(int *me, int *nprocs);
void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *context, int *usermap, int ldumap, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);

/* ScaLAPACK's TOOLS */
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
int indxl2g_(const int *indxloc, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
int indxg2l_(const int *indxglob, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);
int indxg2p_(const int *indxglob, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);

/* descriptor entries */
enum { SL_DTYPE = 0, SL_CTXT, SL_M, SL_N, SL_MB, SL_NB, SL_RSRC, SL_CSRC, SL_LLD };

/* Factorisations; info as ScaLAPACK returns it (> 0: the 1-based column that failed). */
int sl_potrf(minv_dtype t, int n, void *a, const int *desc);
int sl_potri(minv_dtype t, int n, void *a, const int *desc);
int sl_potrs(minv_dtype t, int n, int nrhs, const void *a, const int *desca, void *b, const int *descb);
int sl_getrf(minv_dtype t, int n, void *a, const int *desc, int *ipiv);
int sl_getri(minv_dtype t, int n, void *a, const int *desc, const int *ipiv);
int sl_getrs(minv_dtype t, int n, int nrhs, const void *a, const int *desca, const int *ipiv, void *b,
             const int *descb);
/* Reciprocal 1-norm condition of a factored matrix (spd: potrf's, else getrf's); -1 on failure. */
double sl_rcond(minv_dtype t, int spd, int n, const void *a, const int *desc, double anorm_1);
/* '1', 'I' or 'M' norm of the m x n matrix at column ja. */
double sl_lange(minv_dtype t, char norm, int m, int n, const void *a, int ja, const int *desc);

/* PBLAS and auxiliaries */
/* b = a where both are laid out alike (a local copy, no communication) */
void sl_lacpy(minv_dtype t, char uplo, int m, int n, const void *a, int ja, const int *desca, void *b, int jb,
              const int *descb);
/* c(:, jc:) = a(:, ja:) between any alignments (PBLAS p?geadd) */
void sl_copy(minv_dtype t, int m, int n, const void *a, int ja, const int *desca, void *c, int jc, const int *descc);
/* c(:, jc:) = alpha op(a) op(b(:, jb:)) + beta c(:, jc:) */
void sl_gemm(minv_dtype t, char ta, char tb, int m, int n, int k, double alpha, const void *a, const int *desca,
             const void *b, int jb, const int *descb, double beta, void *c, int jc, const int *descc);
void sl_laset(minv_dtype t, char uplo, int m, int n, double offdiag, double diag, void *a, const int *desc);
/* b = a between any two layouts over the processes of context `all`. */
/* A redistribution, in calls of at most 1 GiB of whole columns: p?gemr2d sizes its buffers in
 * int bytes by each descriptor's whole local piece, and a rank holding 2 GB overflowed them
 * ("xxmr2d:out of memory"), so each call gets descriptors of its columns alone. cycle, the
 * same on every rank: a width in which each descriptor deals whole rounds of its process
 * columns (a multiple of NB x npcol of each; 1 where both have one process column). */
void sl_gemr2d(minv_dtype t, int m, int n, const void *a, const int *desca, void *b, const int *descb, int all,
               int cycle);
/* sl_gemr2d's cycle for an n-column matrix between layouts whose rounds of process columns are
 * round_a and round_b columns wide (NB x npcol, 1 on one process column): their least common
 * multiple, at most n. */
int sl_column_cycle(int64_t n, int64_t round_a, int64_t round_b);
/* The same in parts of at most part_elems elements (whole multiples of cycle, at least one). */
void sl_gemr2d_parts(minv_dtype t, int m, int n, const void *a, const int *desca, void *b, const int *descb, int all,
                     int cycle, int64_t part_elems);

#endif
