/* The tridiagonal inversion's plan, and the arithmetic of one entry (or one row) of its three
 * algorithms, shared by the core (tridiagonal.c builds the plan in O(n)), the CPU loops
 * (cpu/tridiagonal.c) and the CUDA kernels (src_cuda/tridiagonal.cu): the CPU tests run the
 * index arithmetic the GPU kernels use (MINV_HD, from sumsq.h, marks what both compile).
 * Everything is double, whatever the result's type. Bands as LAPACK's gtsv: A(i, i) = d_i,
 * A(i + 1, i) = dl_i, A(i, i + 1) = du_i. */
#ifndef MINV_TRIDIAGONAL_H
#define MINV_TRIDIAGONAL_H

#include <math.h>

#include "internal.h"

/* Rows of a tile: the threads of a GPU block, and the grid of the write-once anchors. */
enum { MINV_TRI_TILE = 128 };

/* ---- write-once ---------------------------------------------------------------------------
 * x_ij = srow_i scol_j p_ij with p_ii = 1, p_ij = p_i,j-1 mup_j (j > i), p_ij = p_i,j+1 mlo_j
 * (j < i): a row is written left to right above the diagonal and right to left below it, one
 * multiply per entry. Every p is a ratio of two entries of A^-1 (Usmani's theta/phi as
 * ratios of consecutive minors, i.e. LU pivots), so nothing overflows that A^-1 does not.
 * A block of columns [c0, c1) starts row i from p_i,c0-1 (above) or p_i,c1 (below): a product
 * over i's own tile (su, pl) times one over the whole tiles between (anchor). */
typedef struct {
    int64_t n, nt;             /* order; tiles, ceil(n / MINV_TRI_TILE) */
    const double *srow, *scol; /* one is the diagonal of A^-1, the other NULL (ones) */
    const double *mup, *mlo;   /* n each (mup_0 and mlo_n-1 are never used) */
    const double *su;          /* su_i = prod mup_j, i < j < end of i's tile */
    const double *pl;          /* pl_i = prod mlo_j, start of i's tile <= j < i */
    const double *anchor;      /* (tr, mc) at tr + mc nt: mc > tr, prod mup_j over
                                  [(tr + 1) T, mc T); mc <= tr, prod mlo_j over [mc T, tr T) */
} minv_tri_gen;

/* p_i,c0-1 of row i for a block starting at column c0 (a multiple of the tile); 1 where the
 * row starts at its diagonal (i >= c0). Then, for j = max(i, c0) ... c1 - 1: if j > i,
 * p *= mup_j; x_ij = srow_i scol_j p. */
MINV_HD double minv_tri_upper_start(const minv_tri_gen *g, int64_t i, int64_t c0) {
    return i < c0 ? g->su[i] * g->anchor[i / MINV_TRI_TILE + c0 / MINV_TRI_TILE * g->nt] : 1.0;
}

/* p_i,c1 of row i for a block ending at column c1 (a multiple of the tile, or n); 1 where the
 * row starts at its diagonal (i < c1). Then, for j = min(i, c1) - 1 down to c0:
 * p *= mlo_j; x_ij = srow_i scol_j p. */
MINV_HD double minv_tri_lower_start(const minv_tri_gen *g, int64_t i, int64_t c1) {
    return i >= c1 ? g->pl[i] * g->anchor[i / MINV_TRI_TILE + c1 / MINV_TRI_TILE * g->nt] : 1.0;
}

/* srow_i or scol_j: the diagonal of A^-1, or one. */
MINV_HD double minv_tri_scale(const double *s, int64_t k) { return s ? s[k] : 1.0; }

/* ---- Sherman-Morrison (the GPU paper, any n) ------------------------------------------------
 * Leaves of two rows (the last may have one) are inverted directly; at half-size h = 2, 4, ...
 * the blocks [s, s + h) and [s + h, min(s + 2h, n)), s a multiple of 2h, merge through the
 * junction k = s + h - 1: A = A0 + u v^T, u = e_k + g e_k+1, v = g dl_k e_k + du_k e_k+1
 * (g = +-1, chosen per junction so that the reorganised diagonal d_k - g dl_k,
 * d_k+1 - g du_k stays dominant; the paper takes g = 1), and with M = A0^-1 (block diagonal)
 * A^-1 = M - w z^T, w = M u / (1 + v^T M u), z = M^T v. */

/* The merge at half-size h that row or column i belongs to: [s, end), right half from mid.
 * 0 when i's block has no partner at this level (it carries over unchanged). */
MINV_HD int minv_tri_sm_block(int64_t n, int64_t h, int64_t i, int64_t *s, int64_t *mid,
                                            int64_t *end) {
    *s = i / (2 * h) * (2 * h);
    *mid = *s + h;
    *end = *s + 2 * h < n ? *s + 2 * h : n;
    return *mid < n;
}

/* w_i and z_i of the merge, from M's entries xcol = M(i, k) (left half) or M(i, k + 1)
 * (right), xrow = M(k, i) or M(k + 1, i), and the corners xkk = M(k, k), xmm = M(k+1, k+1).
 * Returns the denominator 1 + v^T M u (zero: the merged block is singular). */
MINV_HD double minv_tri_sm_wz(int left, double g, double dlk, double duk, double xkk,
                                            double xmm, double xcol, double xrow, double *w,
                                            double *z) {
    double den = 1.0 + g * dlk * xkk + g * duk * xmm;
    *w = (left ? xcol : g * xcol) / den;
    *z = left ? g * dlk * xrow : duk * xrow;
    return den;
}

/* The inverse of leaf b (rows 2b and 2b + 1, or 2b alone at the end) of the reorganised
 * matrix: out = {(0,0), (1,0), (0,1), (1,1)}. Returns its determinant. */
MINV_HD double minv_tri_sm_leaf(int64_t n, const double *dmod, const double *dl,
                                              const double *du, int64_t b, double out[4]) {
    const int64_t r = 2 * b;
    if (r + 1 >= n) {
        out[0] = 1.0 / dmod[r];
        out[1] = out[2] = out[3] = 0.0;
        return dmod[r];
    }
    double det = dmod[r] * dmod[r + 1] - du[r] * dl[r];
    out[0] = dmod[r + 1] / det;
    out[1] = -dl[r] / det;
    out[2] = -du[r] / det;
    out[3] = dmod[r] / det;
    return det;
}

/* ---- pivoted: A^T = P L U by gttrf; row t of A^-1 is y = A^-T e_t, so a row of threads
 * writes a row of A^-1 (coalesced on the GPU) ------------------------------------------------ */
typedef struct {
    int64_t n;
    const double *l;  /* L's multipliers (n - 1) */
    const double *u1; /* U's first and second super-diagonals, zero-padded to n */
    const double *u2;
    const double *rd; /* 1 / U's diagonal */
    const int *swap;  /* swap_i: rows i and i + 1 interchanged at step i */
} minv_tri_piv;

/* z = L^-1 P^T e_t is zero before row first(t); the forward sweep starts there with c = z. */
MINV_HD int64_t minv_tri_piv_first(int64_t t) { return t > 0 ? t - 1 : 0; }

/* Forward step i < n - 1: returns z_i; c carries row i + 1 (z_n-1 = c after the last step). */
MINV_HD double minv_tri_piv_forward(const minv_tri_piv *f, int64_t t, int64_t i, double *c) {
    const double next = i + 1 == t ? 1.0 : 0.0;
    double z;
    if (f->swap[i]) {
        z = next;
        *c -= f->l[i] * next;
    } else {
        z = *c;
        *c = next - f->l[i] * z;
    }
    return z;
}

/* Backward step: y_i from z_i and y_i+1, y_i+2 (zero past the end). */
MINV_HD double minv_tri_piv_backward(const minv_tri_piv *f, int64_t i, double z, double y1,
                                                   double y2) {
    return (z - f->u1[i] * y1 - f->u2[i] * y2) * f->rd[i];
}

/* (A X - I)_ij from column j of X: above = x_i-1,j, here = x_ij, below = x_i+1,j (zero past
 * the ends), for the full residual ||I - A X||_1. */
MINV_HD double minv_tri_residual_entry(const double *dl, const double *d, const double *du,
                                                     int64_t n, int64_t i, int64_t j, double above,
                                                     double here, double below) {
    double r = d[i] * here - (i == j ? 1.0 : 0.0);
    if (i > 0) r += dl[i - 1] * above;
    if (i + 1 < n) r += du[i] * below;
    return r;
}

/* ---- the plan ------------------------------------------------------------------------------ */
typedef struct minv_tri_plan {
    minv_dtype dtype;                /* of the result */
    int64_t n;
    minv_tridiagonal_algorithm path; /* WRITE_ONCE, SHERMAN_MORRISON or PIVOTED */
    const double *dl, *d, *du;       /* the bands, zero-padded to n */
    double anorm_1, anorm_inf;
    minv_tri_gen gen;                /* write-once */
    double xnorm_1;                  /* write-once: ||A^-1||_1 from the recurrences */
    const double *dmod, *sign;       /* Sherman-Morrison: the reorganised diagonal, g at each
                                        junction between leaves (odd k) */
    int levels;                      /* Sherman-Morrison: merge levels */
    minv_tri_piv piv;                /* pivoted */
    const double *v, *av;            /* MINV_PROBES residual probes and A v, n each */
    double flops;                    /* of the path: write-once 2 n^2; Sherman-Morrison 2 per
                                        entry of every merged block; pivoted n^2 + 5 n^2 for
                                        the forward and backward sweeps */
    void *memory;
} minv_tri_plan;

/* rcond = 1 / (||A||_1 ||A^-1||_1); 0 for an infinite or zero norm. */
static inline double minv_tri_rcond(const minv_tri_plan *p, double xnorm_1) {
    double r = 1.0 / (p->anorm_1 * xnorm_1);
    return xnorm_1 > 0 && isfinite(r) ? r : 0.0;
}

#endif
