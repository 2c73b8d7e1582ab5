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

/* x = lower triangle of x mirrored to the upper, through w = x^T. */
static minv_status mirror_lower(minv_context *ctx, const minv_mpi_layout *l, minv_dtype t, void *x) {
    void *w = malloc((size_t)(l->lld * (l->local_cols > 0 ? l->local_cols : 1)) * (size_t)t);
    if (!w)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the %lld x %lld piece to mirror the inverse",
                         (long long)l->local_rows, (long long)l->local_cols);
    const int n = (int)l->n;
    sl_tran(t, n, n, x, l->desc, w, l->desc, minv_threads_for(ctx->cpu_threads, (double)l->local_rows * (double)l->local_cols));
    sl_lacpy(t, 'U', n, n, w, 1, l->desc, x, 1, l->desc);
    free(w);
    return MINV_SUCCESS;
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
    if (!minv_mpi_in_grid(l))
        return MINV_SUCCESS;
    if (spd) {
        if ((*info = sl_potrf(t, n, x, l->desc)) != 0 || (*info = sl_potri(t, n, x, l->desc)) != 0)
            return MINV_SUCCESS;
        return mirror_lower(ctx, l, t, x);
    }
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

static minv_status solve(minv_context *ctx, const minv_mpi_layout *la, minv_dtype t, int spd, void *a,
                         const minv_mpi_layout *lb, void *x, int *info,
                         minv_report *report) {
    const int n = (int)la->n, nrhs = (int)lb->n;
    *info = 0;
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
