/* Tridiagonal inversion on the CPU, by the plan's path (../tridiagonal.c chooses it): the
 * paper's sequential and multi-core baselines (cpu_threads = 1 is the sequential one) and the
 * path that runs without a GPU. Threads share the work by tiles, merge columns or row blocks. */
#include <math.h>
#include <stdlib.h>

#include "../tridiagonal.h"
#include "cpu.h"

#define T double
#define FN(name) name##_d
#include "tridiagonal_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "tridiagonal_t.h"
#undef T
#undef FN

static minv_status sherman_morrison(minv_context *ctx, const minv_tri_plan *p, minv_mat *x) {
    double *wz = malloc(2 * (size_t)p->n * sizeof *wz);
    if (!wz)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the Sherman-Morrison vectors of order %lld", (long long)p->n);
    int level = x->dtype == MINV_R64 ? sherman_morrison_d(p, x, wz, wz + p->n, ctx->cpu_threads)
                                     : sherman_morrison_s(p, x, wz, wz + p->n, ctx->cpu_threads);
    free(wz);
    if (level > 0)
        return minv_fail(ctx, MINV_ERR_SINGULAR, "a Sherman-Morrison block of level %d is singular in floating point", level);
    return MINV_SUCCESS;
}

minv_status minv_cpu_tridiagonal_invert(minv_context *ctx, const minv_tri_plan *p, minv_mat *x, minv_report *report) {
    const int r64 = x->dtype == MINV_R64;
    minv_status status = MINV_SUCCESS;
    switch (p->path) {
    case MINV_TRIDIAGONAL_WRITE_ONCE:
        if (r64) write_once_d(&p->gen, x, ctx->cpu_threads);
        else write_once_s(&p->gen, x, ctx->cpu_threads);
        report->rcond = minv_tri_rcond(p, p->xnorm_1);
        break;
    case MINV_TRIDIAGONAL_SHERMAN_MORRISON:
        status = sherman_morrison(ctx, p, x);
        break;
    default:
        if (r64) pivoted_d(&p->piv, x, ctx->cpu_threads);
        else pivoted_s(&p->piv, x, ctx->cpu_threads);
        break;
    }
    if (status == MINV_SUCCESS && p->path != MINV_TRIDIAGONAL_WRITE_ONCE)
        report->rcond = minv_tri_rcond(p, minv_norm1(x));
    return status;
}
