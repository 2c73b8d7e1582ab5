/* The file entry points of a build without NetCDF: present, so that programs link, and
 * saying why they cannot run. */
#include "internal.h"

static minv_status no_netcdf(minv_context *ctx, const char *fn) {
    if (!ctx)
        return MINV_ERR_NOT_IMPLEMENTED;
    return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED,
                     "%s: minv was built without NetCDF (MINV_ENABLE_NETCDF=OFF or libnetcdf-dev not found)", fn);
}

minv_status minv_invert_file(minv_context *ctx, minv_method method, const char *in_path,
                             const char *in_var, const char *out_path, const char *out_var,
                             const minv_file_options *fopts, minv_report *report) {
    (void)method, (void)in_path, (void)in_var, (void)out_path, (void)out_var, (void)fopts, (void)report;
    return no_netcdf(ctx, "minv_invert_file");
}

minv_status minv_solve_file(minv_context *ctx, minv_method method, const char *a_path,
                            const char *a_var, const char *b_path, const char *b_var,
                            const char *x_path, const char *x_var,
                            const minv_file_options *fopts, minv_report *report) {
    (void)method, (void)a_path, (void)a_var, (void)b_path, (void)b_var, (void)x_path, (void)x_var;
    (void)fopts, (void)report;
    return no_netcdf(ctx, "minv_solve_file");
}

minv_status minv_analyze_file(minv_context *ctx, const char *path, const char *var,
                              const minv_file_options *fopts, minv_analysis *analysis) {
    (void)path, (void)var, (void)fopts, (void)analysis;
    return no_netcdf(ctx, "minv_analyze_file");
}
