/* Inversion from file to file, one matrix or every matrix of a batch: each is read,
 * inverted by minv_invert_d/_s and written before the next is read, so memory holds one
 * matrix, its inverse and a tile. Any failure abandons the whole output.
 *
 * The report of a single matrix is minv_invert's, plus notes on the reading and writing.
 * The report of a batch aggregates: method, backend, reason and residual history are the
 * last matrix's; residual is the largest and rcond the smallest over the batch; seconds,
 * flops and iterations are sums (so gflops is the batch's rate); a note says which matrix
 * was worst. In both, seconds and gflops count the computation only; a note gives the time of
 * the whole call. The output variable holds every matrix's method, residual and rcond. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncio.h"

typedef struct {
    double *residual, *rcond;
    int *method, *backend; /* minv_method, minv_backend */
} per_matrix;

static minv_status alloc_per_matrix(minv_context *ctx, per_matrix *p, int64_t count) {
    size_t n = (size_t)count;
    p->residual = malloc(n * sizeof *p->residual);
    p->rcond = malloc(n * sizeof *p->rcond);
    p->method = malloc(n * sizeof *p->method);
    p->backend = malloc(n * sizeof *p->backend);
    if (!p->residual || !p->rcond || !p->method || !p->backend)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the records of %lld matrices", (long long)count);
    return MINV_SUCCESS;
}

static void free_per_matrix(per_matrix *p) {
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

static const char *method_name(int m) { return minv_method_name((minv_method)m); }
static const char *backend_name(int b) { return minv_backend_name((minv_backend)b); }

const char *minv_nc_residual_kind_text(int kind) {
    switch (kind) {
    case 1: return "sampled: max over probe vectors v of ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf)";
    case 2: return "full: ||I - A X||_1 / (n ||A||_1 ||X||_1)";
    default: return "none";
    }
}

/* The batch's report from the last matrix's and the records of all. */
static void aggregate(minv_report *r, const minv_report *last, const per_matrix *p, int64_t count,
                      double seconds, double flops, int64_t iterations) {
    int64_t worst = 0;
    *r = *last;
    for (int64_t k = 0; k < count; k++) {
        if (p->residual[k] > p->residual[worst])
            worst = k;
        if (p->rcond[k] >= 0 && (r->rcond < 0 || p->rcond[k] < r->rcond))
            r->rcond = p->rcond[k];
    }
    r->residual = p->residual[worst];
    r->seconds = seconds;
    r->flops = flops;
    r->gflops = seconds > 0 ? flops / seconds / 1e9 : 0;
    r->iterations = iterations;
    minv_report_note(r, "batch: %lld matrices, the largest residual is matrix %lld's (0-based)",
                     (long long)count, (long long)worst);
}

minv_status minv_nc_invert(minv_context *ctx, minv_method method, const char *in_path,
                           const char *in_var, const char *out_path, const char *out_var,
                           const minv_file_options *fopts, minv_report *report) {
    const double t0 = minv_now();
    const minv_dtype t = fopts->precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    minv_nc_source src = {.ncid = -1};
    minv_nc_sink dst = {.ncid = -1};
    minv_mat a = {0}, x = {0};
    per_matrix p = {0};
    minv_report last;
    char *methods = NULL, *backends = NULL, name[NC_MAX_NAME + 1], where[768], text[1024], slice[512];
    double seconds = 0, flops = 0;
    int64_t iterations = 0;
    minv_status status = MINV_SUCCESS;

    if (!out_var || !out_var[0]) {
        snprintf(name, sizeof name, "%.*s_inv", NC_MAX_NAME - 4, in_var);
        out_var = name;
    }
    MINV_TRY(minv_nc_source_open(ctx, &src, in_path, in_var, fopts, MINV_NC_ALLOW_BATCH));
    MINV_TRY(minv_nc_check_square(ctx, &src));
    const int64_t n = src.rows;
    minv_nc_sink_spec spec = {.rank = src.batch ? 3 : 2,
                              .xtype = t == MINV_R64 ? NC_DOUBLE : NC_FLOAT,
                              .format = NC_FORMAT_NETCDF4,
                              .deflate_level = fopts->deflate_level,
                              .scale = 1,
                              .view = src.view,
                              .inputs = &in_path,
                              .ninputs = 1};
    if (src.batch)
        spec.dims[0] = src.dims[src.nlead_fixed];
    spec.dims[spec.rank - 2] = src.dims[src.rank - 2];
    spec.dims[spec.rank - 1] = src.dims[src.rank - 1];
    MINV_TRY(minv_nc_sink_open(ctx, &dst, out_path, out_var, &spec, src.count));
    MINV_TRY(minv_mat_alloc(ctx, &a, t, n, n));
    MINV_TRY(minv_mat_alloc(ctx, &x, t, n, n));
    MINV_TRY(alloc_per_matrix(ctx, &p, src.count));

    for (int64_t k = 0; k < src.count; k++) {
        MINV_TRY(minv_nc_source_read(ctx, &src, k, 0, &a));
        status = t == MINV_R64 ? minv_invert_d(ctx, method, n, a.data, a.ld, x.data, x.ld, &last)
                               : minv_invert_s(ctx, method, n, a.data, a.ld, x.data, x.ld, &last);
        if (status != MINV_SUCCESS) {
            minv_nc_source_where(&src, k, where, sizeof where);
            minv_nc_fail_at(ctx, status, where);
            *report = last;
            goto cleanup;
        }
        p.residual[k] = last.residual;
        p.rcond[k] = last.rcond;
        p.method[k] = last.method;
        p.backend[k] = last.backend;
        seconds += last.seconds;
        flops += last.flops;
        iterations += last.iterations;
        MINV_TRY(minv_nc_sink_write(ctx, &dst, k, &x));
    }

    methods = names_text(p.method, src.count, method_name);
    backends = names_text(p.backend, src.count, backend_name);
    if (!methods || !backends) {
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the attribute texts");
        goto cleanup;
    }
    minv_nc_source_slice(&src, slice, sizeof slice);
    snprintf(text, sizeof text, "inverse of %s from %s%s%s%s%s", in_var, in_path, slice[0] ? " at " : "", slice,
             slice[0] ? " (0-based)" : "", src.batch ? ", matrix by matrix" : "");
    minv_nc_attr attrs[] = {
        {"long_name", text, NULL, 0},
        {"minv_source_file", in_path, NULL, 0},
        {"minv_source_variable", in_var, NULL, 0},
        {"minv_source_slice", slice[0] ? slice : "none", NULL, 0},
        {"minv_method", methods, NULL, 0},
        {"minv_backend", backends, NULL, 0},
        {"minv_residual", NULL, p.residual, (size_t)src.count},
        {"minv_residual_kind", minv_nc_residual_kind_text(last.residual_kind), NULL, 0},
        {"minv_rcond", NULL, p.rcond, (size_t)src.count},
    };
    char history[2048];
    snprintf(history, sizeof history, "minv %s: %s of %s:%s written as %s (%s on the %s)", minv_version(),
             src.batch ? "batch inversion" : "inversion", in_path, in_var, out_var, methods, backends);
    MINV_TRY(minv_nc_sink_commit(ctx, &dst, attrs, (int)(sizeof attrs / sizeof attrs[0]), history));

    if (src.batch)
        aggregate(report, &last, &p, src.count, seconds, flops, iterations);
    else
        *report = last;
    minv_nc_source_note(&src, report);
    minv_nc_sink_note(&dst, report);
    minv_report_note(report, "compute %.3g s, %.3g s in all with reading and writing", seconds, minv_now() - t0);
cleanup:
    minv_nc_sink_abort(&dst);
    minv_nc_source_close(&src);
    minv_mat_free(&a);
    minv_mat_free(&x);
    free_per_matrix(&p);
    free(methods);
    free(backends);
    return status;
}
