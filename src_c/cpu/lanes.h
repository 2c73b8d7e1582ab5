/* Kernels on interleaved groups of small members (lanes.c): minv_lanes(t) members of one order n
 * side by side, one per lane of a 32-byte vector (4 doubles, 8 floats), entry (i, j) of member l
 * at element (j * n + i) * lanes + l. The batched CPU path factors, solves and inverts a group in
 * one pass, every step a vector operation for all its members, where one member alone would
 * leave most of each vector and most of the FMA chains idle (the layout of Intel MKL's compact
 * routines). Each kernel reports per lane: info[l] is 0, or the 1-based column where lane l
 * failed, as LAPACK's info; a failed lane does not disturb the others. The buffers c, b, f are
 * 32-byte aligned; pivots are 0-based, n x lanes. */
#ifndef MINV_CPU_LANES_H
#define MINV_CPU_LANES_H

#include "cpu.h"

/* Members a group holds. */
static inline int minv_lanes(minv_dtype t) { return 32 / (int)t; }

enum { MINV_LANES_MAX = 8 };

/* The n x cols matrix s (leading dimension lds) into lane l of c, and back; fill puts the
 * identity (first n columns, zeros beyond) into a lane no member takes. */
void minv_lanes_pack(minv_dtype t, int64_t n, int64_t cols, const void *s, int64_t lds, int l, void *c);
void minv_lanes_unpack(minv_dtype t, int64_t n, int64_t cols, const void *c, int l, void *s, int64_t lds);
void minv_lanes_fill(minv_dtype t, int64_t n, int64_t cols, int l, void *c);
/* Every lane back at once: lane l into s[l] (leading dimension lds[l]). */
void minv_lanes_unpack_all(minv_dtype t, int64_t n, int64_t cols, const void *c, void *const *s, const int64_t *lds);

/* Vectors of doubles, one a lane: what the checks and residuals sum in (32 bytes a lane for
 * either type). Lane l of vector i of such an array is element i * lanes + l. */
static inline size_t minv_lanes_wide_bytes(minv_dtype t) { return 8 * (size_t)minv_lanes(t); }

/* Each lane's checks of a member (one pass, in double): bad_col the first column with a NaN
 * or Inf (-1: none); the rest as batched.c's scan. rowabs: 2n wide vectors of work. */
typedef struct {
    int64_t bad_col[MINV_LANES_MAX];
    double anorm_inf[MINV_LANES_MAX], anorm_1[MINV_LANES_MAX], asym[MINV_LANES_MAX], max_abs[MINV_LANES_MAX];
    int diag_positive[MINV_LANES_MAX];
} minv_lanes_checks;
void minv_lanes_scan(minv_dtype t, int64_t n, const void *c, int symmetry, double *rowabs, minv_lanes_checks *o);
/* Every lane at once, n x n: s[l] with leading dimension lds[l] into lane l, and the checks
 * made on the way. */
void minv_lanes_pack_scan(minv_dtype t, int64_t n, const void *const *s, const int64_t *lds, void *c, int symmetry,
                          double *rowabs, minv_lanes_checks *o);
/* av(:, p) = A v(:, p) for `probes` vectors v (n x probes doubles, the same for every lane);
 * av: n x probes wide vectors. */
void minv_lanes_probes(minv_dtype t, int64_t n, const void *c, const double *v, int probes, double *av);
/* y = X x for `probes` columns x of n wide vectors, and the row sums of |X| (n wide vectors). */
void minv_lanes_times(minv_dtype t, int64_t n, const void *c, const double *x, int probes, double *y, double *rowabs);
/* r = A x - b (n wide vectors), x and b one column of n vectors. */
void minv_lanes_residual(minv_dtype t, int64_t n, const void *c, const void *x, const void *b, double *r);
/* sums[j * lanes + l] = ||column j of lane l||_1 over cols columns of n vectors; finite[l]:
 * whether every entry of lane l is finite. */
void minv_lanes_column_sums(minv_dtype t, int64_t n, int64_t cols, const void *b, double *sums, int *finite);

/* Cholesky (lower) and LU with partial pivoting; min_diag: each lane's smallest |diagonal| of
 * L or U. The solves take nrhs columns of n entries. */
void minv_lanes_potrf(minv_dtype t, int64_t n, void *c, int64_t *info, double *min_diag);
void minv_lanes_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *c, void *b);
void minv_lanes_getrf(minv_dtype t, int64_t n, void *c, int *ipiv, int64_t *info, double *min_diag);
void minv_lanes_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *c, const int *ipiv, void *b);
/* A = A^-1: SPD by the sweep operator (both triangles written), general by Gauss-Jordan with
 * partial pivoting, four pivots a pass, n at most 64 (a member of the batched path). f: 2n
 * vectors of work for the sweep (Gauss-Jordan's, 4n vectors, lies on the stack); perm: n x
 * lanes. */
void minv_lanes_sweep(minv_dtype t, int64_t n, void *c, void *f, int64_t *info);
void minv_lanes_gauss_jordan(minv_dtype t, int64_t n, void *c, int *perm, int64_t *info);

#endif
