/* Matrix analysis on the CPU: finiteness, norms, symmetry, diagonal dominance, bandwidth and
 * diagonal range in one pass over A by pairs of tiles (analyze_t.h), threaded only when the
 * matrix is large enough to pay for a team; analysis.c assembles the result. A call that will
 * factor A on the CPU gets, from the same pass, its copy of A's lower triangle in the
 * context's workspace (minv_cpu_staged) and the products of A with the residual's probe
 * vectors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu.h"
#include "vec4.h"

#ifndef XW
#define XW 32
#endif
#ifndef XH
#define XH 32
#endif
enum { SCAN_TILE = XW, SCAN_ROWS = XH }; /* the tiles' order; a thread takes a tile column at a time */

typedef struct {
    const void *a;
    int64_t n, ld;
    void *copy;            /* NULL, or n x n with leading dimension ldc */
    int64_t ldc;
    const double *probes;  /* n x nprobes */
    int nprobes;
} scan_job;

typedef struct {
    double *rowsum, *colsum; /* n each */
    double *y;               /* n x nprobes: A v for the probes */
    double max_abs, sumsq, asym;
} scan_sums;

/* A strip of four columns' sums over the tiles of its tile column: |a_ij| down each column
 * and along its four rows, and the rows' products with the probes. */
typedef struct {
    minv_v4_d col[4], row, y[MINV_PROBES];
} scan_strip_sums;

/* A tile column's largest |a_ij|, sum of squares and largest |a_ij - a_ji|, lane by lane. */
typedef struct {
    minv_v4_d largest, squares, asym;
} scan_vec_sums;

#define T double
#define FN(name) name##_d
#include "analyze_t.h"
#undef T
#undef FN

#define T float
#define FN(name) name##_s
#include "analyze_t.h"
#undef T
#undef FN

/* A plain sum of squares is exact enough, and cannot overflow or lose the largest entries
 * to underflow, when the largest entry lies well inside the exponent range. */
static int sumsq_safe(double max_abs, int64_t n) {
    return max_abs >= 0x1p-460 && max_abs * (double)n <= 0x1p+460;
}

minv_status minv_cpu_analyze(minv_context *ctx, const minv_mat *a, minv_analysis *out) {
    const int r64 = a->dtype == MINV_R64;
    const int64_t n = a->rows;
    const int threads = minv_threads_for(ctx->cpu_threads, (double)n * (double)n);
    const int nprobes = ctx->stage.probes ? MINV_PROBES : 0;
    scan_job job = {a->data, n, a->ld, NULL, minv_cpu_copy_ld(n), NULL, nprobes};
    double *sums, *probes = NULL;
    minv_status status;
    /* per thread: row sums, column sums and probe products; then the diagonal */
    const size_t per_thread = (size_t)n * (size_t)(2 + nprobes);
    /* small orders' sums on the stack: the workspace's look-up is a fixed cost per call */
    enum { ON_STACK = 128 };
    double on_stack[ON_STACK] __attribute__((aligned(64))); /* as the workspace is, for the sums' vectors */
    const size_t need = per_thread * (size_t)threads + (size_t)n;
    if (need <= ON_STACK)
        sums = on_stack;
    else if ((status = minv_workspace(ctx, MINV_WORK_SCAN, sizeof(double) * need, (void **)&sums)) != MINV_SUCCESS)
        return status;
    if (ctx->stage.wanted && (status = minv_workspace(ctx, MINV_WORK_MATRIX, (size_t)job.ldc * (size_t)n * (size_t)a->dtype,
                                                      &job.copy)) != MINV_SUCCESS)
        return status;
    if (nprobes) {
        if ((status = minv_workspace(ctx, MINV_WORK_PROBES, sizeof(double) * (size_t)n * 2 * MINV_PROBES,
                                     (void **)&probes)) != MINV_SUCCESS)
            return status;
        minv_probe_vectors(probes, n, MINV_PROBES);
        job.probes = probes;
    }
    memset(sums, 0, sizeof(double) * per_thread * (size_t)threads);
    scan_sums part[threads];
    for (int t = 0; t < threads; t++) {
        double *mine = sums + (size_t)t * per_thread;
        part[t] = (scan_sums){mine, mine + n, mine + 2 * n, 0, 0, 0};
    }
    const int team = r64 ? scan_d(&job, part, threads) : scan_s(&job, part, threads);
    /* OpenMP may have run fewer threads than asked (a parallel region around the call, a thread
     * limit): only the team's sums are merged */
    scan_sums all = part[0];
    for (int t = 1; t < team; t++) {
        const scan_sums *p = &part[t];
        for (int64_t i = 0; i < n; i++) {
            all.rowsum[i] += p->rowsum[i];
            all.colsum[i] += p->colsum[i];
        }
        for (int64_t i = 0; i < n * nprobes; i++) all.y[i] += p->y[i];
        all.max_abs = fmax(all.max_abs, p->max_abs);
        all.sumsq += p->sumsq;
        all.asym = fmax(all.asym, p->asym);
    }
    if (nprobes) { /* the products A v follow the probe vectors (minv_probes_make) */
        memcpy(probes + (size_t)n * MINV_PROBES, all.y, sizeof(double) * (size_t)n * MINV_PROBES);
        ctx->stage.probes_of = a->data;
    }

    minv_scan_totals totals = {.max_colsum = 0, .max_abs = all.max_abs, .sumsq = {0, all.sumsq, 0}};
    for (int64_t j = 0; j < n; j++)
        if (all.colsum[j] > totals.max_colsum || isnan(all.colsum[j])) totals.max_colsum = all.colsum[j];
    /* a NaN or Inf makes the sum of squares non-finite; so may finite entries beyond 1e154, for
     * which the search finds nothing */
    totals.first_bad = isfinite(all.sumsq) ? INT64_MAX : r64 ? first_bad_d(a) : first_bad_s(a);
    const int finite = totals.first_bad == INT64_MAX;
    if (r64) bandwidths_d(a, &totals.lower_bw, &totals.upper_bw);
    else bandwidths_s(a, &totals.lower_bw, &totals.upper_bw);
    double *diag = sums + per_thread * (size_t)threads;
    if (r64) diagonal_d(a, diag);
    else diagonal_s(a, diag);
    minv_analysis_assemble(ctx, a->dtype, n, &totals, all.rowsum, diag, finite ? all.asym : 0, out);
    if (finite && !sumsq_safe(all.max_abs, n))
        out->norm_fro = r64 ? frobenius_scaled_d(a) : frobenius_scaled_s(a);
    if (job.copy) {
        ctx->stage.src = a->data;
        ctx->stage.ld = a->ld;
    }
    return MINV_SUCCESS;
}

void *minv_cpu_staged(minv_context *ctx, const minv_mat *a) {
    if (!ctx->stage.src || ctx->stage.src != a->data || ctx->stage.ld != a->ld)
        return NULL;
    ctx->stage.src = NULL; /* the factorisation overwrites it */
    return ctx->work[MINV_WORK_MATRIX].data;
}
