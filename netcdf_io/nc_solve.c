/* A X = B from files: A (sliced to one matrix when of higher rank) and B(n, k) or B(n) read
 * and X written band by band through minv_solve_banded (on the GPU the host holds a few bands;
 * elsewhere A and B whole), X with B's dimensions and layout.
 *
 * B's rows are its dimension of length n, whichever of its two that is; when both have
 * length n, fortran_order decides as it does for A. A 1-D B is one right-hand side (the
 * single innovation vector of an analysis), and X is 1-D too. A slice applies to B only when
 * B's rank exceeds 2 (a sliced covariance with plain observations is the common case). The
 * report is minv_solve's with the read (A and B) and write stages and notes on how the values
 * moved; its seconds count the solve only. */
#include <stdio.h>
#include <stdlib.h>

#include "ncio.h"

static const char *residual_kind_text(int kind, int64_t nrhs) {
    if (kind != 0 && nrhs == 1) /* sampled or full, the one column is checked */
        return "||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)";
    switch (kind) {
    case 1: return "sampled: max over 4 columns j of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf)";
    case 2: return "full: max over all columns j of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf)";
    default: return "none";
    }
}

minv_status minv_nc_orient_rhs(minv_context *ctx, minv_nc_source *b, int64_t n, const minv_file_options *fopts) {
    const size_t un = (size_t)n;
    if (b->rank == 1) {
        if (b->d0 != un)
            return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' has %zu entries (along %s), but A is %lld x %lld: a right-hand side vector needs %lld",
                             b->path, b->var, b->d0, b->dims[0].name, (long long)n, (long long)n, (long long)n);
        minv_nc_source_set_view(b, MINV_NC_C_VIEW);
    } else if (b->d1 == un && (b->d0 != un || fopts->fortran_order))
        minv_nc_source_set_view(b, MINV_NC_FORTRAN_VIEW);
    else if (b->d0 == un)
        minv_nc_source_set_view(b, MINV_NC_C_VIEW);
    else
        return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' is %s=%zu x %s=%zu, but A is %lld x %lld: one of B's dimensions must have length %lld",
                         b->path, b->var, b->dims[b->rank - 2].name, b->d0, b->dims[b->rank - 1].name, b->d1,
                         (long long)n, (long long)n, (long long)n);
    return MINV_SUCCESS;
}

minv_nc_sink_spec minv_nc_solve_spec(const minv_nc_source *as, const minv_nc_source *bs, minv_dtype t,
                                     const minv_file_options *fopts, const char *const *inputs, minv_nc_units *u) {
    minv_nc_sink_spec spec = {.rank = bs->rank > 1 ? 2 : 1,
                              .xtype = t == MINV_R64 ? NC_DOUBLE : NC_FLOAT,
                              .input_format = bs->format,
                              .format = fopts->format,
                              .deflate_level = fopts->deflate_level,
                              .overwrite = fopts->overwrite,
                              .scale = 1,
                              .view = bs->view,
                              .inputs = inputs,
                              .ninputs = 2,
                              .from = bs, /* X has B's dimensions, and B's units over A's */
                              .units = minv_nc_result_units(bs, as, u->units, sizeof u->units, u->note, sizeof u->note),
                              .units_note = u->note};
    const int r0 = minv_nc_row_dim(bs->rank);
    spec.dims[0] = bs->dims[r0];
    spec.dims[1] = bs->dims[r0 + 1];
    spec.dims[0].unlimited = spec.dims[1].unlimited = 0;
    return spec;
}

minv_status minv_nc_solve_commit(minv_context *ctx, minv_nc_sink *xs, const minv_nc_source *as, const minv_nc_source *bs,
                                 const char *a_path, const char *a_var, const char *b_path, const char *b_var,
                                 const char *x_var, int64_t nrhs, const minv_report *report) {
    char a_at[768], b_at[768], text[3072], history[2048];
    /* for the file: from 0, as ncdump; B is sliced only when its rank exceeds 2 */
    minv_nc_source_slice(as, 0, a_at, sizeof a_at);
    minv_nc_source_slice(bs, 0, b_at, sizeof b_at);
    snprintf(text, sizeof text, "solution X of A X = B, A = %s from %s%s%s%s, B = %s from %s%s%s%s", a_var, a_path,
             a_at[0] ? " at " : "", a_at, a_at[0] ? " (0-based)" : "", b_var, b_path, b_at[0] ? " at " : "", b_at,
             b_at[0] ? " (0-based)" : "");
    minv_nc_attr_store store;
    minv_nc_attr attrs[13 + MINV_NC_REPORT_ATTRS] = {
        {"long_name", text, NULL, 0},
        {"minv_source_file", a_path, NULL, 0},
        {"minv_source_variable", a_var, NULL, 0},
        {"minv_source_slice", a_at[0] ? a_at : "none", NULL, 0},
        {"minv_rhs_file", b_path, NULL, 0},
        {"minv_rhs_variable", b_var, NULL, 0},
        {"minv_rhs_slice", b_at[0] ? b_at : "none", NULL, 0},
        {"minv_method", minv_method_name(report->method), NULL, 0},
        {"minv_backend", minv_backend_name(report->backend), NULL, 0},
        {"minv_residual", NULL, &report->residual, 1},
        {"minv_residual_kind", residual_kind_text(report->residual_kind, nrhs), NULL, 0},
        {"minv_rcond", NULL, &report->rcond, 1},
        {"minv_reason", report->reason, NULL, 0}, /* the method's why, reconditioning, fallbacks */
    };
    snprintf(history, sizeof history, "minv %s: solve of A X = B, A = %s:%s, B = %s:%s, written as %s (%s on the %s)",
             minv_version(), a_path, a_var, b_path, b_var, x_var, minv_method_name(report->method),
             minv_backend_name(report->backend));
    return minv_nc_sink_commit(ctx, xs, attrs, minv_nc_report_attrs(report, &store, attrs, 13), history);
}

minv_status minv_nc_solve(minv_context *ctx, minv_method method, const char *a_path,
                          const char *a_var, const char *b_path, const char *b_var,
                          const char *x_path, const char *x_var, const minv_file_options *fopts,
                          minv_report *report) {
    const minv_dtype t = fopts->precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    const char *inputs[2] = {a_path, b_path};
    minv_nc_source as = {.ncid = -1}, bs = {.ncid = -1};
    minv_nc_sink xs = {.ncid = -1};
    minv_status status = MINV_SUCCESS;
    char where[768];
    minv_nc_units units;

    if (!x_var || !x_var[0])
        x_var = "X";
    MINV_TRY(minv_nc_source_open(ctx, &as, a_path, a_var, fopts, 0));
    MINV_TRY(minv_nc_check_square(ctx, &as));
    const int64_t n = as.rows;
    MINV_TRY(minv_nc_source_open(ctx, &bs, b_path, b_var, fopts, MINV_NC_SLICE_IF_RANKED | MINV_NC_ALLOW_VECTOR));
    MINV_TRY(minv_nc_orient_rhs(ctx, &bs, n, fopts));
    const int64_t nrhs = bs.cols;
    const minv_nc_sink_spec spec = minv_nc_solve_spec(&as, &bs, t, fopts, inputs, &units);
    MINV_TRY(minv_nc_sink_open(ctx, &xs, x_path, x_var, &spec, 1));

    /* bands of stored rows (the matrices' rows in the C view, their columns in the Fortran
     * view), X's following its chunks, of the tile edge where one is asked for */
    int io_failed = 0;
    minv_nc_bands fa = {ctx, &as, NULL, &io_failed}, fb = {ctx, &bs, &xs, &io_failed};
    const minv_banded a_io = minv_nc_banded(&fa, fopts->tile), bx_io = minv_nc_banded(&fb, fopts->tile);
    status = minv_solve_banded(ctx, method, t, n, nrhs, &a_io, &bx_io, report);
    if (status != MINV_SUCCESS) {
        if (!io_failed) {
            char both[1600];
            minv_nc_source_where(&as, 0, where, sizeof where);
            snprintf(both, sizeof both, "A = %s, B = '%s', variable '%s'", where, b_path, b_var);
            minv_nc_fail_at(ctx, status, both);
        }
        goto cleanup;
    }

    const minv_nc_source *in[2] = {&as, &bs};
    minv_nc_report_stages(report, in, 2, &xs, 0);
    const double committing = minv_now();
    MINV_TRY(minv_nc_solve_commit(ctx, &xs, &as, &bs, a_path, a_var, b_path, b_var, x_var, nrhs, report));
    minv_nc_report_stages(report, in, 2, &xs, minv_now() - committing);
    minv_nc_report_notes(report, in, 2, NULL, &xs);
cleanup:
    minv_nc_sink_abort(&xs);
    minv_nc_source_close(&as);
    minv_nc_source_close(&bs);
    return status;
}
