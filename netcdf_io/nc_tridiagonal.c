/* A tridiagonal matrix stored as its three bands (1-D variables) inverted from file to file:
 * the bands read whole, minv_invert_tridiagonal_d/_s, the dense inverse written as one n x n
 * variable with the same attributes as minv_invert_file's. */
#include <stdio.h>
#include <string.h>

#include "ncio.h"

static const char *const band_names[3] = {"sub-diagonal", "diagonal", "super-diagonal"};

minv_status minv_nc_invert_tridiagonal(minv_context *ctx, const char *in_path, const char *const bands[3],
                                       const char *out_path, const char *out_var, const minv_file_options *fopts,
                                       minv_report *report) {
    const minv_dtype t = fopts->precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    minv_nc_source src[3], meta = {.ncid = -1};
    minv_nc_sink dst = {.ncid = -1};
    minv_mat band[3] = {{0}}, x = {0};
    minv_fpguard guard;
    char name[NC_MAX_NAME + 1], where[1024], text[1024], history[2048], vars[3 * NC_MAX_NAME + 8], units[256],
        units_note[600];
    minv_status status = MINV_SUCCESS;

    minv_fpguard_begin(&guard);
    minv_nc_lock();
    minv_clear_error(ctx);
    minv_report_init(report, MINV_METHOD_TRIDIAGONAL, 0, 0);
    for (int k = 0; k < 3; k++) {
        MINV_TRY(minv_nc_read_vector(ctx, &src[k], in_path, bands[k], fopts, t, &band[k]));
    }
    const int64_t n = band[1].rows;
    for (int k = 0; k < 3; k += 2)
        if (band[k].rows != n - 1) {
            status = minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' has %lld entries, but the %s of a tridiagonal matrix of order %lld (the length of '%s') has %lld",
                               in_path, bands[k], (long long)band[k].rows, band_names[k], (long long)n, bands[1], (long long)n - 1);
            goto cleanup;
        }
    if (!out_var || !out_var[0]) {
        snprintf(name, sizeof name, "%.*s_inv", NC_MAX_NAME - 4, minv_nc_base_name(bands[1]));
        out_var = name;
    }
    /* the diagonal again, open, for what the output carries over: its file's global attributes,
     * its own attributes, the inverse of its units */
    MINV_TRY(minv_nc_source_open(ctx, &meta, in_path, bands[1], fopts, MINV_NC_ALLOW_VECTOR));
    minv_nc_sink_spec spec = {.rank = 2,
                              .xtype = t == MINV_R64 ? NC_DOUBLE : NC_FLOAT,
                              .input_format = src[1].format,
                              .format = fopts->format,
                              .deflate_level = fopts->deflate_level,
                              .overwrite = fopts->overwrite,
                              .scale = 1,
                              .view = MINV_NC_C_VIEW,
                              .inputs = &in_path,
                              .ninputs = 1,
                              .from = &meta,
                              .units = minv_nc_result_units(NULL, &meta, units, sizeof units, units_note, sizeof units_note),
                              .units_note = units_note};
    spec.dims[0] = spec.dims[1] = src[1].dims[0];
    spec.dims[0].unlimited = spec.dims[1].unlimited = 0;
    MINV_TRY(minv_nc_sink_open(ctx, &dst, out_path, out_var, &spec, 1));
    MINV_TRY(minv_mat_alloc(ctx, &x, t, n, n));
    status = t == MINV_R64 ? minv_invert_tridiagonal_d(ctx, n, band[0].data, band[1].data, band[2].data, x.data, x.ld, report)
                           : minv_invert_tridiagonal_s(ctx, n, band[0].data, band[1].data, band[2].data, x.data, x.ld, report);
    snprintf(vars, sizeof vars, "%s,%s,%s", bands[0], bands[1], bands[2]);
    if (status != MINV_SUCCESS) {
        snprintf(where, sizeof where, "'%s', bands %s", in_path, vars);
        minv_nc_fail_at(ctx, status, where);
        goto cleanup;
    }
    MINV_TRY(minv_nc_sink_write(ctx, &dst, 0, &x));
    snprintf(text, sizeof text, "inverse of the tridiagonal matrix with sub-diagonal %s, diagonal %s and super-diagonal %s from %s",
             bands[0], bands[1], bands[2], in_path);
    const minv_nc_source *in[3] = {&src[0], &src[1], &src[2]};
    minv_nc_report_stages(report, in, 3, &dst, 0);
    minv_nc_attr_store store;
    minv_nc_attr attrs[8 + MINV_NC_REPORT_ATTRS] = {
        {"long_name", text, NULL, 0},
        {"minv_source_file", in_path, NULL, 0},
        {"minv_source_variable", vars, NULL, 0},
        {"minv_method", minv_method_name(report->method), NULL, 0},
        {"minv_backend", minv_backend_name(report->backend), NULL, 0},
        {"minv_residual", NULL, &report->residual, 1},
        {"minv_residual_kind", minv_nc_residual_kind_text(report->residual_kind), NULL, 0},
        {"minv_rcond", NULL, &report->rcond, 1},
    };
    const int nattrs = minv_nc_report_attrs(report, &store, attrs, 8);
    snprintf(history, sizeof history, "minv %s: tridiagonal inversion of %s:%s written as %s (on the %s)", minv_version(),
             in_path, vars, out_var, minv_backend_name(report->backend));
    const double committing = minv_now();
    MINV_TRY(minv_nc_sink_commit(ctx, &dst, attrs, nattrs, history));
    minv_nc_report_stages(report, in, 3, &dst, minv_now() - committing);
    minv_nc_report_notes(report, in, 3, "the three bands whole", &dst);
cleanup:
    minv_nc_sink_abort(&dst);
    minv_nc_source_close(&meta);
    for (int k = 0; k < 3; k++) minv_mat_free(&band[k]);
    minv_mat_free(&x);
    minv_nc_unlock();
    minv_fpguard_end(&guard);
    return status;
}
