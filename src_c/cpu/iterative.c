/* The CPU engine of the iterative inversion (src_c/iterative.c runs the algorithm): products
 * by BLAS GEMM, element-wise parts threaded, single-precision copies for mixed precision. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "../lapack.h"

#define T double
#define FN(name) name##_d
#include "iterative_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "iterative_t.h"
#undef T
#undef FN

typedef struct {
    minv_iter_engine base;
    int low;                    /* products in single precision */
    minv_mat hi[IT_BUFFERS];    /* the working precision; hi[IT_A] is the caller's A */
    minv_mat lo[IT_BUFFERS];    /* single-precision copies, allocated on first use */
    minv_mat *out;
} cpu_engine;

static minv_mat *buf(cpu_engine *e, int k) { return e->low ? &e->lo[k] : &e->hi[k]; }

static void convert(const minv_mat *src, minv_mat *dst) {
    for (int64_t j = 0; j < src->cols; j++)
        for (int64_t i = 0; i < src->rows; i++) {
            if (dst->dtype == MINV_R32) *(float *)minv_at(dst, i, j) = (float)*(const double *)minv_at(src, i, j);
            else *(double *)minv_at(dst, i, j) = (double)*(const float *)minv_at(src, i, j);
        }
}

static minv_status product(minv_iter_engine *base, int dst, int x, int y, double alpha, int src,
                           double beta, double gamma, double *residual) {
    cpu_engine *e = (cpu_engine *)base;
    minv_mat *d = buf(e, dst), *mx = buf(e, x), *my = buf(e, y);
    const int64_t n = base->n;
    if (src != IT_NONE && src != dst)
        minv_mat_copy(buf(e, src), d);
    la_gemm(d->dtype, 'N', 'N', n, n, n, alpha, mx->data, mx->ld, my->data, my->ld,
            src == IT_NONE ? 0.0 : beta, d->data, d->ld);
    double sumsq = 0;
    if (d->dtype == MINV_R64) diagonal_and_residual_d(d, gamma, residual ? &sumsq : NULL, base->ctx->cpu_threads);
    else diagonal_and_residual_s(d, gamma, residual ? &sumsq : NULL, base->ctx->cpu_threads);
    if (residual)
        *residual = sqrt(sumsq);
    return MINV_SUCCESS;
}

static minv_status guess(minv_iter_engine *base, int dst, minv_guess kind, double scale) {
    cpu_engine *e = (cpu_engine *)base;
    minv_mat *d = buf(e, dst), *a = buf(e, IT_A);
    if (d->dtype == MINV_R64) guess_d(a, d, kind, scale, base->ctx->cpu_threads);
    else guess_s(a, d, kind, scale, base->ctx->cpu_threads);
    return MINV_SUCCESS;
}

static minv_status load(minv_iter_engine *base, int dst, const minv_mat *host) {
    cpu_engine *e = (cpu_engine *)base;
    minv_mat_copy(host, buf(e, dst));
    return MINV_SUCCESS;
}

static minv_status set_precision(minv_iter_engine *base, int low, int v) {
    cpu_engine *e = (cpu_engine *)base;
    minv_status status = MINV_SUCCESS;
    if (low) {
        for (int k = 0; k < IT_BUFFERS; k++)
            if (!e->lo[k].data)
                MINV_TRY(minv_mat_alloc(base->ctx, &e->lo[k], MINV_R32, base->n, base->n));
        convert(&e->hi[IT_A], &e->lo[IT_A]);
        convert(&e->hi[v], &e->lo[v]);
    } else {
        convert(&e->lo[v], &e->hi[v]);
    }
    e->low = low;
cleanup:
    return status;
}

static minv_status finish(minv_iter_engine *base, int v) {
    cpu_engine *e = (cpu_engine *)base;
    minv_mat_copy(&e->hi[v], e->out);
    return MINV_SUCCESS;
}

minv_status minv_cpu_iterative_invert(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                      const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    cpu_engine e;
    memset(&e, 0, sizeof e);
    e.base = (minv_iter_engine){ctx, a->rows, product, guess, load, set_precision, finish};
    e.out = x;
    e.hi[IT_A] = *a;
    for (int k = IT_V0; k < IT_BUFFERS; k++)
        MINV_TRY(minv_mat_alloc(ctx, &e.hi[k], a->dtype, a->rows, a->rows));
    MINV_TRY(minv_iterate(ctx, &e.base, a->dtype, an, report));
    double xnorm = minv_norm1(x);
    report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
cleanup:
    for (int k = IT_V0; k < IT_BUFFERS; k++) minv_mat_free(&e.hi[k]);
    for (int k = 0; k < IT_BUFFERS; k++) minv_mat_free(&e.lo[k]);
    return status;
}
