/* Inversion of a matrix that arrives band by band and leaves the same way (the file routines'
 * reader and writer). On the GPU, where A, its inverse and the method's workspace fit the
 * device, each band is uploaded while the next is read, A is inverted as device data, and
 * each band of A^-1 is written while the next comes down: the host holds two bands, not the
 * matrix. Elsewhere (the CPU backend, a device budget too small, reconditioning or a method
 * that takes host data) A is read whole into host memory and inverted in place there, as
 * minv_invert_inplace_d/_s does it. */
#include <math.h>

#include "internal.h"

/* Bytes a band aims at: large enough for the reader's threads and for full-speed transfers,
 * small beside the matrix. */
static const double BAND_BYTES = 64.0 * (1 << 20);

typedef struct {
    const minv_banded *io;
    double seconds; /* spent in fill and drain */
} banded_call;

/* The whole matrix through the host: one band each way. An AUTO Cholesky fails NOT_SPD only
 * where its residual showed that A's asymmetry mattered, having overwritten A in place, where
 * out of place LU would have taken over: A is filled again for LU. */
static minv_status through_host(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, banded_call *c,
                                minv_report *report) {
    const char *fn = t == MINV_R64 ? "minv_invert_inplace_d" : "minv_invert_inplace_s";
    const minv_banded *io = c->io;
    minv_mat a = {0};
    minv_status status;
    double t0;
    MINV_TRY(minv_mat_alloc(ctx, &a, t, n, n));
    t0 = minv_now();
    status = io->fill(io->user, 0, n, &a);
    c->seconds += minv_now() - t0;
    if (status != MINV_SUCCESS)
        goto cleanup;
    status = minv_invert_expert(ctx, fn, MINV_ON_HOST, method, 2, t, n, a.data, n, a.data, n, 1, report);
    if (status == MINV_ERR_NOT_SPD && method == MINV_METHOD_AUTO && report->method == MINV_METHOD_CHOLESKY) {
        minv_clear_error(ctx);
        t0 = minv_now();
        status = io->fill(io->user, 0, n, &a);
        c->seconds += minv_now() - t0;
        if (status != MINV_SUCCESS)
            goto cleanup;
        status = minv_invert_expert(ctx, fn, MINV_ON_HOST, MINV_METHOD_LU, 2, t, n, a.data, n, a.data, n, 1, report);
        minv_report_note(report, "Cholesky's residual showed that A's asymmetry mattered, so LU, on A read again "
                                 "(the host inversion works in place)");
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    t0 = minv_now();
    status = io->drain(io->user, 0, n, &a);
    c->seconds += minv_now() - t0;
cleanup:
    minv_mat_free(&a);
    return status;
}

/* Whether the device path can take the call: a GPU with the transfers, a method it has for
 * device data, and no option that needs host data. */
static int device_path_open(const minv_context *ctx, minv_method method) {
    const minv_backend_ops *ops = ctx->ops;
    return ctx->backend == MINV_BACKEND_GPU && ops->device_alloc && ops->banded_upload &&
           ctx->recondition == MINV_RECONDITION_NONE &&
           (method == MINV_METHOD_AUTO || ((int)method < (int)MINV_METHOD_IDS && ops->invert_device[method]));
}

/* Rows or columns of a band: as asked, or about BAND_BYTES; a multiple of the alignment. */
static int64_t band_size(minv_dtype t, int64_t n, const minv_banded *io) {
    int64_t band = io->band > 0 ? io->band : (int64_t)ceil(BAND_BYTES / ((double)n * (double)t));
    band = (band + io->align - 1) / io->align * io->align;
    return band < n ? band : n;
}

/* On the device: A uploaded band by band into a matrix of the call's own, inverted out of
 * place (A stays intact for a retry by LU), A^-1 downloaded band by band. *fits = 0 when the
 * device budget could not hold A, A^-1 and the method's workspace, with nothing read yet or
 * everything given back: the host path then runs. */
static minv_status through_device(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, banded_call *c,
                                  minv_report *report, int *fits) {
    const minv_backend_ops *ops = ctx->ops;
    const char *fn = t == MINV_R64 ? "minv_invert_device_d" : "minv_invert_device_s";
    const size_t bytes = (size_t)n * (size_t)n * (size_t)t;
    const int64_t band = band_size(t, n, c->io);
    void *a = NULL, *x = NULL;
    minv_status status;
    *fits = 0;
    if (ops->device_alloc(ctx, bytes, &a) != MINV_SUCCESS || ops->device_alloc(ctx, bytes, &x) != MINV_SUCCESS) {
        minv_clear_error(ctx);
        status = MINV_SUCCESS;
        goto cleanup;
    }
    *fits = 1;
    MINV_TRY(ops->banded_upload(ctx, t, n, band, c->io, a, &c->seconds));
    MINV_TRY(minv_call_place(ctx, MINV_ON_DEVICE));
    status = minv_invert_expert(ctx, fn, MINV_ON_DEVICE, method, 2, t, n, a, n, x, n, 0, report);
    if (status == MINV_ERR_DEVICE_MEMORY) { /* the method's workspace did not fit beside A and A^-1 */
        minv_clear_error(ctx);
        *fits = 0;
        status = MINV_SUCCESS;
        goto cleanup;
    }
    if (status == MINV_SUCCESS)
        status = ops->banded_download(ctx, t, n, band, x, c->io, &c->seconds);
cleanup:
    if (x)
        ops->device_free(ctx, x, bytes);
    if (a)
        ops->device_free(ctx, a, bytes);
    return status;
}

minv_status minv_invert_banded(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, const minv_banded *io,
                               minv_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_call call;
    banded_call c = {io, 0};
    minv_status status = minv_call_open(ctx, &call, MINV_ON_HOST, r, method, n, 0);
    if (status == MINV_SUCCESS) {
        const int tried = device_path_open(ctx, method);
        int fits = 0;
        if (tried)
            status = through_device(ctx, method, t, n, &c, r, &fits);
        if (status == MINV_SUCCESS && fits)
            minv_report_note(r, "A came to the device and A^-1 went back band by band (%lld %s a band), each "
                                "transfer overlapping the reading or writing of the next",
                             (long long)band_size(t, n, io), io->by_rows ? "rows" : "columns");
        else if (status == MINV_SUCCESS) {
            status = through_host(ctx, method, t, n, &c, r);
            if (tried)
                minv_report_note(r, "A, A^-1 and the method's workspace do not fit the device budget together, so A "
                                    "was held whole in host memory");
        }
    }
    minv_call_end(ctx, &call, r);
    /* the bands' reading and writing are the caller's stages, not the computation's */
    r->seconds = fmax(0, r->seconds - c.seconds);
    r->stages.compute_seconds = fmax(0, r->seconds - r->stages.upload_seconds - r->stages.download_seconds);
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
    return status;
}
