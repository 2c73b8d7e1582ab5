/* Helpers of the MPI benchmarks (bench_mpi_*.c): the result header (machine, date, commit,
 * command, ranks), medians of wall times taken by every rank after a barrier (the slowest
 * rank's), options, and matrices every rank fills in its own piece. */
#ifndef MINV_BENCH_MPI_COMMON_H
#define MINV_BENCH_MPI_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "minv_mpi.h"

/* bm_warmup: --warmup 0 times without the warm-up call (for orders where one call takes minutes
 * and an earlier, smaller order of the same run has warmed the context). */
extern int bm_rank, bm_size, bm_warmup;

/* MPI_Init, rank and size. */
void bm_init(int *argc, char ***argv);
/* "# machine: ..., date: ..., commit: ..., command: mpirun -np P ..." on rank 0. */
void bm_header(int argc, char **argv);
/* The value of --name VALUE (or --name=VALUE), or def. */
const char *bm_option(int argc, char **argv, const char *name, const char *def);
/* A comma-separated list of integers into out (at most max); returns how many. */
int bm_list(const char *text, int64_t *out, int max);
/* Median over reps (after one warm-up unless --warmup 0) of the slowest rank's time of call(arg); before each
 * call prepare(arg) (untimed, may be NULL), then a barrier. */
double bm_median(int reps, void (*prepare)(void *), void (*call)(void *), void *arg);
/* Two calls timed in turn (a, b, a, b, ...), so that a loaded machine's drift falls on both:
 * the medians of each into *ta and *tb. */
void bm_median_pair(int reps, void (*prep_a)(void *), void (*a)(void *), void (*prep_b)(void *), void (*b)(void *),
                    void *arg, double *ta, double *tb);
/* A context on the backend (cpu or gpu), the GPU a rank's own, minv_options.device_memory
 * device_gb x 1e9 bytes (0: all free); exit(2) when it cannot be had. */
minv_context *bm_context(const char *backend, double device_gb);
/* exit(3) with the library's message unless st is MINV_SUCCESS (the same on every rank). */
void bm_check(minv_context *ctx, minv_status st, const char *what);
/* This rank's piece of a well-conditioned n x n matrix: SPD (symmetric, diagonally dominant)
 * or general (uniform in [-1, 1), n on the diagonal), the same whatever the layout. */
void bm_fill(const minv_mpi_layout *l, int spd, double *piece);
/* The doubles of this rank's piece of l (lld x local columns, at least one column), and a
 * buffer of them. */
size_t bm_piece_elems(const minv_mpi_layout *l);
double *bm_alloc_piece(const minv_mpi_layout *l);

#endif
