/* The public file entry points: argument checks (the bad argument named by its position, as
 * dispatch.c does), defaults, the floating-point guard, the NetCDF lock, and the analysis of
 * a file's matrix. The jobs themselves are in nc_invert.c and nc_solve.c. */
#include <string.h>

#include "ncio.h"

minv_status minv_nc_check_name(minv_context *ctx, const char *fn, int pos, const char *what, const char *s,
                               int optional) {
    if (!s && !optional)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL", fn, pos, what);
    if (s && !s[0] && !optional)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is empty", fn, pos, what);
    return MINV_SUCCESS;
}

minv_status minv_nc_check_fopts(minv_context *ctx, const char *fn, int pos, const minv_file_options *in,
                                minv_file_options *out) {
    minv_file_options_default(out);
    if (!in)
        return MINV_SUCCESS;
    *out = *in;
    if (in->precision != MINV_PRECISION_DOUBLE && in->precision != MINV_PRECISION_SINGLE)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): precision = %d is not a minv_precision",
                         fn, pos, (int)in->precision);
    if (in->deflate_level < 0 || in->deflate_level > 9)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): deflate_level = %d must be 0 to 9",
                         fn, pos, (int)in->deflate_level);
    if (in->nslice < 0 || in->nslice > MINV_MAX_SLICE)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): nslice = %d must be 0 to MINV_MAX_SLICE = %d",
                         fn, pos, (int)in->nslice, MINV_MAX_SLICE);
    for (int d = 0; d < in->nslice; d++)
        if (in->slice[d] < 0)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): slice[%d] = %lld must be >= 0 (0-based)",
                             fn, pos, d, (long long)in->slice[d]);
    if (in->tile < 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): tile = %lld must be >= 0",
                         fn, pos, (long long)in->tile);
    if (in->batch_chunk < 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): batch_chunk = %d must be >= 0",
                         fn, pos, (int)in->batch_chunk);
    if (in->index_base != 0 && in->index_base != 1)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): index_base = %d must be 0 or 1",
                         fn, pos, (int)in->index_base);
    if (in->format < MINV_FORMAT_AUTO || in->format > MINV_FORMAT_NETCDF4_CLASSIC)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): format = %d is not a minv_file_format",
                         fn, pos, (int)in->format);
    if (in->fortran_order != 0 && in->fortran_order != 1)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (fopts): fortran_order = %d must be 0 or 1",
                         fn, pos, (int)in->fortran_order);
    return MINV_SUCCESS;
}

static minv_status check_method(minv_context *ctx, const char *fn, minv_method m) {
    if ((int)m < 0 || (int)m >= MINV_METHOD_COUNT)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 2 (method) = %d is not a minv_method", fn, (int)m);
    return MINV_SUCCESS;
}

/* Every entry point runs between begin and end: the context to this thread alone (else
 * MINV_ERR_CONTEXT_BUSY, and no call_end), FP guard, a clean error, the NetCDF lock. */
static minv_status call_begin(minv_context *ctx, minv_fpguard *guard) {
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS)
        return status;
    minv_fpguard_begin(guard);
    minv_clear_error(ctx);
    minv_nc_lock();
    return MINV_SUCCESS;
}

static void call_end(minv_context *ctx, minv_fpguard *guard) {
    minv_nc_unlock();
    minv_fpguard_end(guard);
    minv_context_leave(ctx);
}

minv_status minv_invert_file(minv_context *ctx, minv_method method, const char *in_path,
                             const char *in_var, const char *out_path, const char *out_var,
                             const minv_file_options *fopts, minv_report *report) {
    static const char fn[] = "minv_invert_file";
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_file_options fo;
    minv_fpguard guard;
    minv_status status = MINV_SUCCESS;
    minv_report_init(r, method, 0, 0);
    if ((status = call_begin(ctx, &guard)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(minv_nc_check_name(ctx, fn, 3, "in_path", in_path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 4, "in_var", in_var, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 5, "out_path", out_path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 6, "out_var", out_var, 1));
    MINV_TRY(minv_nc_check_fopts(ctx, fn, 7, fopts, &fo));
    status = minv_nc_invert(ctx, method, in_path, in_var, out_path, out_var, &fo, r);
cleanup:
    call_end(ctx, &guard);
    return status;
}

minv_status minv_solve_file(minv_context *ctx, minv_method method, const char *a_path,
                            const char *a_var, const char *b_path, const char *b_var,
                            const char *x_path, const char *x_var,
                            const minv_file_options *fopts, minv_report *report) {
    static const char fn[] = "minv_solve_file";
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local;
    minv_report *r = report ? report : &local;
    minv_file_options fo;
    minv_fpguard guard;
    minv_status status = MINV_SUCCESS;
    minv_report_init(r, method, 0, 0);
    if ((status = call_begin(ctx, &guard)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(minv_nc_check_name(ctx, fn, 3, "a_path", a_path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 4, "a_var", a_var, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 5, "b_path", b_path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 6, "b_var", b_var, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 7, "x_path", x_path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 8, "x_var", x_var, 1));
    MINV_TRY(minv_nc_check_fopts(ctx, fn, 9, fopts, &fo));
    status = minv_nc_solve(ctx, method, a_path, a_var, b_path, b_var, x_path, x_var, &fo, r);
cleanup:
    call_end(ctx, &guard);
    return status;
}

minv_status minv_analyze_file(minv_context *ctx, const char *path, const char *var,
                              const minv_file_options *fopts, minv_analysis *analysis) {
    static const char fn[] = "minv_analyze_file";
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_file_options fo;
    minv_fpguard guard;
    minv_nc_source s;
    minv_mat m = {0};
    minv_status status = MINV_SUCCESS;
    if ((status = call_begin(ctx, &guard)) != MINV_SUCCESS)
        return status;
    MINV_TRY(minv_nc_check_name(ctx, fn, 2, "path", path, 0));
    MINV_TRY(minv_nc_check_name(ctx, fn, 3, "var", var, 0));
    MINV_TRY(minv_nc_check_fopts(ctx, fn, 4, fopts, &fo));
    if (!analysis) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 5 (analysis) is NULL", fn);
        goto cleanup;
    }
    memset(analysis, 0, sizeof *analysis);
    /* NaN and Inf are the analysis' to report (finite, first_bad_row/col); missing values fail */
    MINV_TRY(minv_nc_read_square(ctx, &s, path, var, &fo, 1, &m));
    status = m.dtype == MINV_R64 ? minv_analyze_d(ctx, m.rows, m.data, m.ld, analysis)
                                 : minv_analyze_s(ctx, m.rows, m.data, m.ld, analysis);
    if (status != MINV_SUCCESS) {
        char where[768];
        minv_nc_source_where(&s, 0, where, sizeof where);
        minv_nc_fail_at(ctx, status, where);
    }
cleanup:
    minv_mat_free(&m);
    call_end(ctx, &guard);
    return status;
}
