/* The CPU backend of one matrix over many ranks: ScaLAPACK. Inversion by p?potrf + p?potri
 * (the inverse's lower triangle mirrored to the upper by one distributed transpose) or
 * p?getrf + p?getri; solves by p?potrf + p?potrs or p?getrf + p?getrs, their condition
 * estimated by p?pocon or p?gecon in between (an inversion's is exact, from the inverse). */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "scalapack.h"

static const char *prefix(minv_dtype t) { return t == MINV_R64 ? "pd" : "ps"; }

/* The pivots of p?getrf: LOCr(m) + mb entries. */
static int *alloc_pivots(const minv_mpi_layout *l) {
    return malloc((size_t)(l->local_rows + l->mb + 1) * sizeof(int));
}

/* An upper block (bi < bj) from its lower partner transposed; on the diagonal, the strict
 * upper triangle from the strict lower. */
#define MIRROR_BLOCK(name, T)                                                                      \
    static void name(int64_t bi, int64_t bj, T *a, int64_t lda, const T *p, int64_t ldp, int64_t rows, int64_t cols) { \
        for (int64_t c0 = 0; c0 < cols; c0 += 32)                                                  \
            for (int64_t r0 = 0; r0 < rows; r0 += 32)                                              \
                for (int64_t c = c0; c < c0 + 32 && c < cols; c++)                                 \
                    for (int64_t r = r0; r < r0 + 32 && r < rows && (bi < bj || r < c); r++)       \
                        a[c * lda + r] = p[r * ldp + c];                                           \
    }
MIRROR_BLOCK(mirror_block_d, double)
MIRROR_BLOCK(mirror_block_s, float)

static void visit_mirror(void *arg, int thread, int64_t bi, int64_t bj, void *mine, int64_t ldm, const void *partner,
                         int64_t ldp, int64_t rows, int64_t cols) {
    if (bi > bj)
        return;
    if (*(const minv_dtype *)arg == MINV_R64)
        mirror_block_d(bi, bj, mine, ldm, partner, ldp, rows, cols);
    else
        mirror_block_s(bi, bj, mine, ldm, partner, ldp, rows, cols);
}

/* x = lower triangle of x mirrored to the upper. */
static minv_status mirror_lower(minv_context *ctx, const minv_mpi_layout *l, minv_dtype t, void *x) {
    return minv_mpi_transposed_blocks(ctx, t, l, x, visit_mirror, &t);
}

static minv_status invert(minv_context *ctx, const minv_mpi_layout *l, minv_dtype t, int spd, const void *a, void *x,
                          int *info, minv_report *report) {
    const int n = (int)l->n;
    *info = 0;
    minv_mpi_copy_piece(t, l, a, x); /* ScaLAPACK inverts in place */
    /* every rank notes it, inside the grid or not: the report is the same everywhere */
    if (spd)
        minv_report_note(report, "ScaLAPACK %spotrf + %spotri, the lower triangle mirrored", prefix(t), prefix(t));
    else
        minv_report_note(report, "ScaLAPACK %sgetrf + %sgetri", prefix(t), prefix(t));
    if (spd) {
        if (minv_mpi_in_grid(l) && (*info = sl_potrf(t, n, x, l->desc)) == 0)
            *info = sl_potri(t, n, x, l->desc);
        /* the mirror is collective over every rank, the grid's or not */
        if (minv_mpi_max_i64(*info != 0, minv_mpi_layout_comm(l)) != 0)
            return MINV_SUCCESS;
        return mirror_lower(ctx, l, t, x);
    }
    if (!minv_mpi_in_grid(l))
        return MINV_SUCCESS;
    int *ipiv = alloc_pivots(l);
    if (!ipiv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)l->local_rows + l->mb);
    minv_status status = MINV_SUCCESS;
    if ((*info = sl_getrf(t, n, x, l->desc, ipiv)) == 0) {
        const int got = sl_getri(t, n, x, l->desc, ipiv);
        if (got == -100)
            status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the workspace of %sgetri", prefix(t));
        else
            *info = got;
    }
    free(ipiv);
    return status;
}

static minv_status solve(minv_context *ctx, const minv_mpi_layout *la, minv_dtype t, int spd, const void *a_in,
                         void *a, const minv_mpi_layout *lb, void *x, int *info, minv_report *report) {
    const int n = (int)la->n, nrhs = (int)lb->n;
    *info = 0;
    minv_mpi_copy_piece(t, la, a_in, a); /* factored in place */
    minv_report_note(report, "ScaLAPACK %s%s + %s%s", prefix(t), spd ? "potrf" : "getrf", prefix(t), spd ? "potrs" : "getrs");
    if (!minv_mpi_in_grid(la))
        return MINV_SUCCESS;
    if (spd) {
        if ((*info = sl_potrf(t, n, a, la->desc)) != 0)
            return MINV_SUCCESS;
        *info = sl_potrs(t, n, nrhs, a, la->desc, x, lb->desc);
        return MINV_SUCCESS;
    }
    int *ipiv = alloc_pivots(la);
    if (!ipiv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)la->local_rows + la->mb);
    if ((*info = sl_getrf(t, n, a, la->desc, ipiv)) == 0)
        *info = sl_getrs(t, n, nrhs, a, la->desc, ipiv, x, lb->desc);
    free(ipiv);
    return MINV_SUCCESS;
}

const minv_mpi_dense_ops minv_mpi_scalapack_ops = {"ScaLAPACK", invert, solve};
