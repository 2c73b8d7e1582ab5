/* Inversion and solves of matrices that arrive band by band and leave the same way (the file
 * routines' reader and writer). On the GPU, where the matrices and the method's workspace fit
 * the device, each band is uploaded while the next is read, the call runs on device data, and
 * each band of the result is written while the next comes down: the host holds two bands, not
 * the matrices. Elsewhere (the CPU backend, a device budget too small, reconditioning or a
 * method that takes host data) the matrices are read whole into host memory and the call runs
 * there as minv_invert_inplace_d/_s and minv_solve_d/_s run it. */
#include <math.h>

#include "internal.h"

/* Bytes a band aims at; two bands are held in pinned memory. Each band is a read and a write
 * of their own: at n = 16384 on an H100 machine, 64 MiB bands took 3.1-3.7 s for the whole
 * `minv invert` (peak RSS 0.73 GB) and 256 MiB bands 2.7-2.8 s (0.97 GB). */
static const double BAND_BYTES = 256.0 * (1 << 20);

typedef struct {
    double io;     /* spent in fill and drain */
    double waited; /* spent waiting for transfers, beside fill and drain */
} banded_time;

/* Rows or columns of a band of a rows x cols matrix: as asked, or about BAND_BYTES; a
 * multiple of the alignment. */
static int64_t band_size(minv_dtype t, int64_t rows, int64_t cols, const minv_banded *io) {
    const int64_t lines = io->by_rows ? rows : cols, across = io->by_rows ? cols : rows;
    int64_t band = io->band > 0 ? io->band : (int64_t)ceil(BAND_BYTES / ((double)across * (double)t));
    band = (band + io->align - 1) / io->align * io->align;
    return band < lines ? band : lines;
}

/* The whole matrix m through io, as one band. */
static minv_status fill_whole(const minv_banded *io, minv_mat *m, banded_time *c) {
    const double t0 = minv_now();
    const minv_status status = io->fill(io->user, 0, io->by_rows ? m->rows : m->cols, m);
    c->io += minv_now() - t0;
    return status;
}

static minv_status drain_whole(const minv_banded *io, const minv_mat *m, banded_time *c) {
    const double t0 = minv_now();
    const minv_status status = io->drain(io->user, 0, io->by_rows ? m->rows : m->cols, m);
    c->io += minv_now() - t0;
    return status;
}

/* A band transfer, and the time the host spent in it beside fill and drain. */
static minv_status upload(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, const minv_banded *io,
                          void *dev, banded_time *c) {
    const double t0 = minv_now(), io0 = c->io;
    const minv_status status =
        ctx->ops->banded_upload(ctx, t, rows, cols, band_size(t, rows, cols, io), io, dev, &c->io);
    c->waited += minv_now() - t0 - (c->io - io0);
    return status;
}

static minv_status download(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, const void *dev,
                            const minv_banded *io, banded_time *c) {
    const double t0 = minv_now(), io0 = c->io;
    const minv_status status =
        ctx->ops->banded_download(ctx, t, rows, cols, band_size(t, rows, cols, io), dev, io, &c->io);
    c->waited += minv_now() - t0 - (c->io - io0);
    return status;
}

/* Whether the device path can take the call: a GPU with the transfers, a method it has for
 * device data, and no option that needs host data. */
static int device_path_open(const minv_context *ctx, minv_method method, int solve) {
    const minv_backend_ops *ops = ctx->ops;
    const minv_solve_op *solves = ops->solve_device;
    const minv_invert_op *inverts = ops->invert_device;
    return ctx->backend == MINV_BACKEND_GPU && ops->device_alloc && ops->banded_upload &&
           ctx->recondition == MINV_RECONDITION_NONE &&
           (method == MINV_METHOD_AUTO ||
            ((int)method < (int)MINV_METHOD_IDS && (solve ? solves[method] != NULL : inverts[method] != NULL)));
}

/* Device matrices of the call's own, given back together. */
typedef struct {
    void *p[3];
    size_t bytes[3];
    int count;
} device_set;

/* *fits = 0, with nothing held, when the budget cannot hold them all. */
static int device_set_alloc(minv_context *ctx, device_set *d, const size_t *bytes, int count) {
    d->count = 0;
    for (int k = 0; k < count; k++) {
        if (ctx->ops->device_alloc(ctx, bytes[k], &d->p[k]) != MINV_SUCCESS) {
            minv_clear_error(ctx);
            return 0;
        }
        d->bytes[k] = bytes[k];
        d->count = k + 1;
    }
    return 1;
}

static void device_set_free(minv_context *ctx, device_set *d) {
    for (int k = d->count - 1; k >= 0; k--) ctx->ops->device_free(ctx, d->p[k], d->bytes[k]);
    d->count = 0;
}

/* One call: an inversion (the result leaves through a) or a solve (B arrives and X leaves
 * through bx). */
typedef struct {
    int solve;
    minv_method method;
    minv_dtype t;
    int64_t n, nrhs;
    const minv_banded *a, *bx;
    banded_time time;
} banded_job;

/* ---- the host path ---- */

/* The inversion in place. An AUTO Cholesky fails NOT_SPD only where its residual showed that
 * A's asymmetry mattered, having overwritten A, where out of place LU would have taken over:
 * A is filled again for LU. */
static minv_status invert_on_host(minv_context *ctx, banded_job *j, minv_report *report) {
    const char *fn = j->t == MINV_R64 ? "minv_invert_inplace_d" : "minv_invert_inplace_s";
    const int64_t n = j->n;
    minv_mat a = {0};
    minv_status status;
    MINV_TRY(minv_mat_alloc(ctx, &a, j->t, n, n));
    MINV_TRY(fill_whole(j->a, &a, &j->time));
    status = minv_invert_expert(ctx, fn, MINV_ON_HOST, j->method, 2, j->t, n, a.data, n, a.data, n, 1, report);
    if (status == MINV_ERR_NOT_SPD && j->method == MINV_METHOD_AUTO && report->method == MINV_METHOD_CHOLESKY) {
        minv_clear_error(ctx);
        MINV_TRY(fill_whole(j->a, &a, &j->time));
        status = minv_invert_expert(ctx, fn, MINV_ON_HOST, MINV_METHOD_LU, 2, j->t, n, a.data, n, a.data, n, 1, report);
        minv_report_note(report, "Cholesky's residual showed that A's asymmetry mattered, so LU, on A read again "
                                 "(the host inversion works in place)");
    }
    if (status == MINV_SUCCESS)
        status = drain_whole(j->a, &a, &j->time);
cleanup:
    minv_mat_free(&a);
    return status;
}

static minv_status solve_on_host(minv_context *ctx, banded_job *j, minv_report *report) {
    const char *fn = j->t == MINV_R64 ? "minv_solve_d" : "minv_solve_s";
    const int64_t n = j->n, nrhs = j->nrhs;
    minv_mat a = {0}, b = {0}, x = {0};
    minv_status status;
    MINV_TRY(minv_mat_alloc(ctx, &a, j->t, n, n));
    MINV_TRY(minv_mat_alloc(ctx, &b, j->t, n, nrhs));
    MINV_TRY(minv_mat_alloc(ctx, &x, j->t, n, nrhs));
    MINV_TRY(fill_whole(j->a, &a, &j->time));
    MINV_TRY(fill_whole(j->bx, &b, &j->time));
    MINV_TRY(minv_solve_expert(ctx, fn, MINV_ON_HOST, j->method, j->t, n, nrhs, a.data, n, b.data, n, x.data, n, report));
    status = drain_whole(j->bx, &x, &j->time);
cleanup:
    minv_mat_free(&a);
    minv_mat_free(&b);
    minv_mat_free(&x);
    return status;
}

/* ---- the device path ---- */

/* Out of place: A (and B) uploaded, the result downloaded; A stays intact for a retry by LU.
 * *fits = 0 when the budget could not hold the matrices and the method's workspace together:
 * nothing is held then. */
static minv_status on_device(minv_context *ctx, banded_job *j, minv_report *report, int *fits) {
    const int solve = j->solve;
    const int64_t n = j->n, cols = solve ? j->nrhs : n; /* of B and the result */
    const size_t es = (size_t)j->t, result = (size_t)n * (size_t)cols * es;
    const size_t bytes[3] = {(size_t)n * (size_t)n * es, result, result};
    const minv_banded *out = solve ? j->bx : j->a;
    device_set d;
    minv_status status = MINV_SUCCESS;
    *fits = device_set_alloc(ctx, &d, bytes, solve ? 3 : 2);
    if (!*fits)
        goto cleanup;
    void *a = d.p[0], *x = d.p[solve ? 2 : 1];
    MINV_TRY(upload(ctx, j->t, n, n, j->a, a, &j->time));
    if (solve)
        MINV_TRY(upload(ctx, j->t, n, cols, j->bx, d.p[1], &j->time));
    MINV_TRY(minv_call_place(ctx, MINV_ON_DEVICE));
    if (solve)
        status = minv_solve_expert(ctx, j->t == MINV_R64 ? "minv_solve_device_d" : "minv_solve_device_s",
                                   MINV_ON_DEVICE, j->method, j->t, n, cols, a, n, d.p[1], n, x, n, report);
    else
        status = minv_invert_expert(ctx, j->t == MINV_R64 ? "minv_invert_device_d" : "minv_invert_device_s",
                                    MINV_ON_DEVICE, j->method, 2, j->t, n, a, n, x, n, 0, report);
    if (status == MINV_ERR_DEVICE_MEMORY) { /* the method's workspace did not fit beside the matrices */
        minv_clear_error(ctx);
        *fits = 0;
        status = MINV_SUCCESS;
    } else if (status == MINV_SUCCESS) {
        status = download(ctx, j->t, n, cols, x, out, &j->time);
    }
cleanup:
    device_set_free(ctx, &d);
    return status;
}

/* ---- the entries ---- */

/* The report counts the computation: the bands' reading and writing are the caller's stages;
 * the transfers overlap them, and compute is what neither holds. */
static void report_computation(minv_report *r, const banded_time *c) {
    r->seconds = fmax(0, r->seconds - c->io);
    r->stages.compute_seconds = c->waited > 0 ? fmax(0, r->seconds - c->waited)
                                              : fmax(0, r->seconds - r->stages.upload_seconds - r->stages.download_seconds);
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
}

static minv_status run_job(minv_context *ctx, banded_job *j, minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    const int solve = j->solve;
    const char *what = solve ? "A and B" : "A";
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    minv_status status = minv_call_open(ctx, &call, MINV_ON_HOST, r, j->method, j->n, j->nrhs);
    if (status == MINV_SUCCESS) {
        /* an empty matrix has nothing to move: the host path's quick return */
        const int tried = j->n > 0 && (!solve || j->nrhs > 0) && device_path_open(ctx, j->method, solve);
        int fits = 0;
        if (tried)
            status = on_device(ctx, j, r, &fits);
        if (status == MINV_SUCCESS && !fits)
            status = solve ? solve_on_host(ctx, j, r) : invert_on_host(ctx, j, r);
        if (status == MINV_SUCCESS && fits)
            minv_report_note(r, "%s came to the device and the result went back band by band (%lld %s a band), each "
                                "transfer overlapping the reading or writing of the next",
                             what, (long long)band_size(j->t, j->n, j->n, j->a), j->a->by_rows ? "rows" : "columns");
        else if (status == MINV_SUCCESS && tried)
            minv_report_note(r, "%s, the result and the method's workspace do not fit the device budget together, so "
                                "%s was held whole in host memory",
                             what, what);
    }
    minv_call_end(ctx, &call, r);
    report_computation(r, &j->time);
    return status;
}

minv_status minv_invert_banded(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, const minv_banded *io,
                               minv_report *report) {
    banded_job j = {0, method, t, n, 0, io, NULL, {0, 0}};
    return run_job(ctx, &j, report);
}

minv_status minv_solve_banded(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, int64_t nrhs,
                              const minv_banded *a_io, const minv_banded *bx_io, minv_report *report) {
    banded_job j = {1, method, t, n, nrhs, a_io, bx_io, {0, 0}};
    return run_job(ctx, &j, report);
}
