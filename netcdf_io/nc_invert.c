/* Inversion from file to file, one matrix or every matrix of a batch. A single matrix goes
 * through minv_invert_banded, read and written in bands of stored rows. A batch goes through
 * the batched API in chunks of whole matrices (MINV_NC_BATCH_ELEMS values at most, or one
 * matrix at a time, tile by tile, when a matrix is larger): a chunk is read in one go,
 * inverted in place by one batched call and written in one go, so memory holds a chunk and
 * its scratch. Any failure abandons the whole output.
 *
 * The report of a single matrix is minv_invert's, plus the read and write stages and notes on
 * how the values moved. The report of a batch aggregates: method (AUTO when the matrices took
 * different paths), backend, device and reason are the last chunk's; residual is the largest
 * and rcond the smallest over the batch (worst says which matrix); seconds, flops and the
 * upload, compute and download stages are sums (so gflops is the batch's rate); fallbacks
 * gather every chunk's. In both, seconds and gflops count the computation only. The output
 * variable holds every matrix's method, residual and rcond (for a batch the reciprocal
 * inf-norm condition from the inverse) and the report's stages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncio.h"

minv_status minv_nc_records_alloc(minv_context *ctx, minv_nc_records *p, int64_t count) {
    size_t bytes;
    minv_status status = minv_nc_product(ctx, (size_t)count, sizeof(double), 1, &bytes, "the records of %lld matrices",
                                         (long long)count);
    if (status != MINV_SUCCESS)
        return status;
    p->residual = malloc(bytes);
    p->rcond = malloc(bytes);
    p->method = malloc(bytes); /* ints: the same count fits */
    p->backend = malloc(bytes);
    if (!p->residual || !p->rcond || !p->method || !p->backend)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the records of %lld matrices", (long long)count);
    return MINV_SUCCESS;
}

void minv_nc_records_free(minv_nc_records *p) {
    free(p->residual);
    free(p->rcond);
    free(p->method);
    free(p->backend);
}

/* "cholesky" when every matrix agrees, else one name per matrix: "cholesky, lu, cholesky". */
static char *names_text(const int *values, int64_t count, const char *(*name)(int)) {
    int64_t same = 1;
    for (int64_t k = 1; k < count; k++)
        same &= values[k] == values[0];
    size_t len = same ? 32 : (size_t)count * 16 + 1;
    char *text = malloc(len), *end = text;
    if (!text)
        return NULL;
    *text = '\0';
    for (int64_t k = 0; k < (same ? 1 : count); k++)
        end += snprintf(end, len - (size_t)(end - text), "%s%s", k ? ", " : "", name(values[k]));
    return text;
}

minv_method minv_nc_batch_general(minv_backend backend, minv_method asked) {
    return backend == MINV_BACKEND_GPU || asked == MINV_METHOD_GAUSS_JORDAN ? MINV_METHOD_GAUSS_JORDAN : MINV_METHOD_LU;
}

static const char *method_name(int m) { return minv_method_name((minv_method)m); }
static const char *backend_name(int b) { return minv_backend_name((minv_backend)b); }

const char *minv_nc_residual_kind_text(int kind) {
    switch (kind) {
    case 1: return "sampled: max over probe vectors v of ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf)";
    case 2: return "full: ||I - A X||_1 / (n ||A||_1 ||X||_1)";
    default: return "none";
    }
}

/* What the chunks of a batch add up to. */
typedef struct {
    double seconds, flops;
    minv_stages stages;
    int32_t fallbacks;
} batch_sums;

static void add_chunk(batch_sums *sum, const minv_batch_report *br) {
    const minv_stages *b = &br->stages;
    minv_stages *s = &sum->stages;
    sum->seconds += br->seconds;
    sum->flops += br->flops;
    s->upload_seconds += b->upload_seconds;
    s->compute_seconds += b->compute_seconds;
    s->download_seconds += b->download_seconds;
    s->upload_bytes += b->upload_bytes;
    s->download_bytes += b->download_bytes;
    sum->fallbacks |= br->fallbacks;
}

/* The batch's report from the last matrix's and the records of all. */
static void aggregate(minv_report *r, const minv_report *last, const minv_nc_records *p, int64_t count,
                      int64_t chunk, const batch_sums *sum) {
    int64_t worst = 0;
    *r = *last;
    for (int64_t k = 0; k < count; k++) {
        if (p->residual[k] > p->residual[worst])
            worst = k;
        if (p->rcond[k] >= 0 && (r->rcond < 0 || p->rcond[k] < r->rcond))
            r->rcond = p->rcond[k];
    }
    r->residual = p->residual[worst];
    r->worst = worst;
    r->matrices = count;
    r->seconds = sum->seconds;
    r->flops = sum->flops;
    r->gflops = sum->seconds > 0 ? sum->flops / sum->seconds / 1e9 : 0;
    r->stages = sum->stages;
    r->fallbacks = sum->fallbacks;
    for (int64_t k = 1; k < count; k++)
        if (p->method[k] != p->method[0])
            r->method = MINV_METHOD_AUTO;
    minv_report_note(r, "batch of %lld matrices in chunks of up to %lld", (long long)count, (long long)chunk);
}

/* One matrix, read and written band by band (stored rows: the matrix's rows in the C view, its
 * columns in the Fortran view) so that on the GPU the host holds a few bands, not the matrix;
 * bands follow the output's chunks, and are of the tile edge where one is asked for. */
static minv_status invert_single(minv_context *ctx, minv_method method, minv_dtype t, const minv_file_options *fopts,
                                 minv_nc_source *src, minv_nc_sink *dst, minv_nc_records *p, minv_report *report) {
    int io_failed = 0;
    minv_nc_bands f = {ctx, src, dst, &io_failed};
    const minv_banded io = minv_nc_banded(&f, fopts->tile);
    char where[768];
    const minv_status status = minv_invert_banded(ctx, method, t, src->rows, &io, report);
    if (status != MINV_SUCCESS) {
        if (!io_failed) {
            minv_nc_source_where(src, 0, where, sizeof where);
            minv_nc_fail_at(ctx, status, where);
        }
        return status;
    }
    p->residual[0] = report->residual;
    p->rcond[0] = report->rcond;
    p->method[0] = report->method;
    p->backend[0] = report->backend;
    return MINV_SUCCESS;
}

/* The report of a batch chunk that failed, as minv_invert's for the failing matrix. */
static void failed_chunk_report(const minv_batch_report *br, minv_report *r) {
    minv_report_init(r, br->method, br->k, 0);
    r->backend = br->backend;
    r->info = br->first_info;
    r->seconds = br->seconds;
    r->stages = br->stages;
    r->device = br->device;
    r->fallbacks = br->fallbacks;
    snprintf(r->reason, sizeof r->reason, "%s", br->reason);
}

minv_status minv_nc_chunks_alloc(minv_context *ctx, minv_nc_chunks *c, const minv_file_options *fopts, minv_dtype t,
                                 int64_t n, int64_t count) {
    const int64_t per = n * n, want = fopts->batch_chunk > 0 ? fopts->batch_chunk : MINV_NC_BATCH_ELEMS / per;
    memset(c, 0, sizeof *c);
    c->whole = per <= MINV_NC_BATCH_ELEMS;
    c->chunk = !c->whole || want < 1 ? 1 : want < count ? want : count;
    const size_t k = (size_t)c->chunk;
    size_t disk_bytes = 0;
    /* the source checked that one matrix of doubles fits a size_t; a chunk of them may not */
    minv_status status = minv_nc_product(ctx, k, (size_t)per, sizeof(double), &disk_bytes,
                                         "a chunk of %lld matrices of order %lld", (long long)k, (long long)n);
    if (status != MINV_SUCCESS)
        return status;
    c->a = malloc(disk_bytes / sizeof(double) * (size_t)t);
    c->disk = c->whole ? malloc(disk_bytes) : NULL;
    /* k records of at most 8 bytes each lie within disk_bytes */
    c->res = (minv_batch_results){.status = malloc(k * sizeof(minv_status)), .info = malloc(k * sizeof(int64_t)),
                                  .spd = malloc(k), .residual = malloc(k * sizeof(double)),
                                  .rcond = malloc(k * sizeof(double))};
    if (!c->a || (c->whole && !c->disk) || !c->res.status || !c->res.info || !c->res.spd || !c->res.residual ||
        !c->res.rcond) {
        minv_nc_chunks_free(c);
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a chunk of %lld matrices of order %lld", (long long)k,
                         (long long)n);
    }
    return MINV_SUCCESS;
}

void minv_nc_chunks_free(minv_nc_chunks *c) {
    free(c->a);
    free(c->disk);
    minv_batch_outcomes_free(&c->res);
    c->a = c->disk = NULL;
}

/* Every matrix of a batch, chunk by chunk (whole matrices while one fits the budget, else one
 * at a time, tile by tile); *chunk_out is the chunk size. */
static minv_status invert_batch(minv_context *ctx, minv_method method, minv_dtype t, const minv_file_options *fopts,
                                minv_nc_source *src, minv_nc_sink *dst, minv_nc_records *p, minv_report *report,
                                int64_t *chunk_out) {
    const int64_t n = src->rows, count = src->count;
    minv_nc_chunks c;
    minv_batch_report br;
    minv_report last;
    batch_sums sum = {0};
    char where[768], why[256];
    minv_status status = MINV_SUCCESS;
    MINV_TRY(minv_nc_chunks_alloc(ctx, &c, fopts, t, n, count));
    const int64_t chunk = *chunk_out = c.chunk;
    for (int64_t k0 = 0; k0 < count; k0 += chunk) {
        const int64_t cnt = count - k0 < chunk ? count - k0 : chunk;
        minv_mat one = {t, n, n, n, c.a};
        if (c.whole)
            MINV_TRY(minv_nc_source_read_matrices(ctx, src, k0, cnt, c.disk, t, c.a));
        else
            MINV_TRY(minv_nc_source_read(ctx, src, k0, 0, &one));
        status = minv_invert_batched_results(ctx, method, t, n, cnt, c.a, &c.res, &br);
        minv_progress(ctx, "invert batch", (double)(k0 + cnt) / (double)count);
        if (status != MINV_SUCCESS) {
            const int64_t bad = k0 + (br.first_failed >= 0 ? br.first_failed : 0);
            if (br.first_failed >= 0) {
                minv_batch_member_reason(why, sizeof why, br.first_status, br.first_info);
                minv_fail(ctx, status, "%s", why);
            }
            minv_nc_source_where(src, bad, where, sizeof where);
            minv_nc_fail_at(ctx, status, where);
            failed_chunk_report(&br, report);
            goto cleanup;
        }
        const minv_method general = minv_nc_batch_general(br.backend, method);
        for (int64_t m = 0; m < cnt; m++) {
            p->residual[k0 + m] = c.res.residual[m];
            p->rcond[k0 + m] = c.res.rcond[m];
            p->method[k0 + m] = c.res.spd[m] ? MINV_METHOD_CHOLESKY : general;
            p->backend[k0 + m] = br.backend;
        }
        add_chunk(&sum, &br);
        if (c.whole)
            MINV_TRY(minv_nc_sink_write_matrices(ctx, dst, k0, cnt, c.a, t, c.disk));
        else
            MINV_TRY(minv_nc_sink_write(ctx, dst, k0, &one));
    }
    failed_chunk_report(&br, &last);
    last.method = p->method[count - 1];
    last.residual_kind = br.residual_kind;
    last.info = -1;
    aggregate(report, &last, p, count, chunk, &sum);
cleanup:
    minv_nc_chunks_free(&c);
    return status;
}

minv_nc_sink_spec minv_nc_invert_spec(const minv_nc_source *src, minv_dtype t, const minv_file_options *fopts,
                                      const char *const *in_path, minv_nc_units *u) {
    minv_nc_sink_spec spec = {.rank = src->batch ? 3 : 2,
                              .xtype = t == MINV_R64 ? NC_DOUBLE : NC_FLOAT,
                              .input_format = src->format,
                              .format = fopts->format,
                              .deflate_level = fopts->deflate_level,
                              .overwrite = fopts->overwrite,
                              .scale = 1,
                              .view = src->view,
                              .inputs = in_path,
                              .ninputs = 1,
                              .from = src,
                              .units = minv_nc_result_units(NULL, src, u->units, sizeof u->units, u->note, sizeof u->note),
                              .units_note = u->note};
    if (src->batch)
        spec.dims[0] = src->dims[src->nlead_fixed];
    spec.dims[spec.rank - 2] = src->dims[src->rank - 2];
    spec.dims[spec.rank - 1] = src->dims[src->rank - 1];
    return spec;
}

minv_status minv_nc_invert_commit(minv_context *ctx, minv_nc_sink *dst, const minv_nc_source *src, const char *in_path,
                                  const char *in_var, const char *out_var, const minv_nc_records *p,
                                  const minv_report *report) {
    char *methods = names_text(p->method, src->count, method_name), *backends = names_text(p->backend, src->count, backend_name);
    char text[1024], slice[512], history[2048];
    minv_status status = MINV_SUCCESS;
    if (!methods || !backends) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the attribute texts");
        goto cleanup;
    }
    minv_nc_source_slice(src, 0, slice, sizeof slice); /* for the file: from 0, as ncdump */
    snprintf(text, sizeof text, "inverse of %s from %s%s%s%s%s", in_var, in_path, slice[0] ? " at " : "", slice,
             slice[0] ? " (0-based)" : "", src->batch ? ", as a batch" : "");
    minv_nc_attr_store store;
    minv_nc_attr attrs[10 + MINV_NC_REPORT_ATTRS] = {
        {"long_name", text, NULL, 0},
        {"minv_source_file", in_path, NULL, 0},
        {"minv_source_variable", in_var, NULL, 0},
        {"minv_source_slice", slice[0] ? slice : "none", NULL, 0},
        {"minv_method", methods, NULL, 0},
        {"minv_backend", backends, NULL, 0},
        {"minv_residual", NULL, p->residual, (size_t)src->count},
        {"minv_residual_kind", minv_nc_residual_kind_text(report->residual_kind), NULL, 0},
        {"minv_rcond", NULL, p->rcond, (size_t)src->count},
        {"minv_reason", report->reason, NULL, 0}, /* the method's why, reconditioning, fallbacks */
    };
    const int nattrs = minv_nc_report_attrs(report, &store, attrs, 10);
    snprintf(history, sizeof history, "minv %s: %s of %s:%s written as %s (%s on the %s)", minv_version(),
             src->batch ? "batch inversion" : "inversion", in_path, in_var, out_var, methods, backends);
    status = minv_nc_sink_commit(ctx, dst, attrs, nattrs, history);
cleanup:
    free(methods);
    free(backends);
    return status;
}

minv_status minv_nc_invert(minv_context *ctx, minv_method method, const char *in_path,
                           const char *in_var, const char *out_path, const char *out_var,
                           const minv_file_options *fopts, minv_report *report) {
    const minv_dtype t = fopts->precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    minv_nc_source src = {.ncid = -1};
    minv_nc_sink dst = {.ncid = -1};
    minv_nc_records p = {0};
    char name[NC_MAX_NAME + 1];
    minv_nc_units units;
    int64_t chunk = 1;
    minv_status status = MINV_SUCCESS;

    if (!out_var || !out_var[0]) {
        snprintf(name, sizeof name, "%.*s_inv", NC_MAX_NAME - 4, minv_nc_base_name(in_var));
        out_var = name;
    }
    MINV_TRY(minv_nc_source_open(ctx, &src, in_path, in_var, fopts, MINV_NC_ALLOW_BATCH));
    MINV_TRY(minv_nc_check_square(ctx, &src));
    const minv_nc_sink_spec spec = minv_nc_invert_spec(&src, t, fopts, &in_path, &units);
    MINV_TRY(minv_nc_sink_open(ctx, &dst, out_path, out_var, &spec, src.count));
    MINV_TRY(minv_nc_records_alloc(ctx, &p, src.count));
    if (src.batch)
        MINV_TRY(invert_batch(ctx, method, t, fopts, &src, &dst, &p, report, &chunk));
    else
        MINV_TRY(invert_single(ctx, method, t, fopts, &src, &dst, &p, report));

    const minv_nc_source *in[1] = {&src};
    minv_nc_report_stages(report, in, 1, &dst, 0);
    const double committing = minv_now();
    MINV_TRY(minv_nc_invert_commit(ctx, &dst, &src, in_path, in_var, out_var, &p, report));
    minv_nc_report_stages(report, in, 1, &dst, minv_now() - committing);
    minv_nc_report_notes(report, in, 1, NULL, &dst);
cleanup:
    minv_nc_sink_abort(&dst);
    minv_nc_source_close(&src);
    minv_nc_records_free(&p);
    return status;
}
