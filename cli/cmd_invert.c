/* minv invert IN.nc:VAR OUT.nc[:VAR]: the inverse of a matrix variable (or of every matrix of
 * a batch) into a new file or a new variable, and the report. */
#include <stdio.h>

#include "cli.h"

static const cli_option *const groups[] = {cli_compute_options, cli_file_options, cli_output_options,
                                           cli_general_options, NULL};

static const cli_command command = {
    "invert", "IN.nc:VAR OUT.nc[:VAR] [options]",
    "Inverts the matrix VAR of IN.nc and writes the inverse to OUT.nc as VAR (default: <VAR>_inv).",
    "VAR(row, column) is read in the order ncdump shows (--fortran-order: reversed). A variable of\n"
    "higher rank is sliced to a matrix by --slice; a rank-3 variable whose last two dimensions\n"
    "are equal, without --slice, is a batch: every matrix is inverted. OUT.nc is written under a\n"
    "temporary name and renamed when complete; if it exists and holds other variables, VAR is\n"
    "added to it. IN.nc is never modified.",
    groups};

int cli_invert(int argc, char **argv) {
    cli_args args;
    cli_settings s;
    cli_path_var in = {0}, out = {0};
    minv_context *ctx = NULL;
    minv_report report;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    if (args.npos != 2)
        return cli_error(CLI_USAGE, "invert: expected IN.nc:VAR OUT.nc[:VAR], got %d argument%s (see minv invert --help)",
                         args.npos, args.npos == 1 ? "" : "s");
    if ((code = cli_settings_from(&args, &s)) != CLI_OK || (code = cli_split(args.pos[0], "input", 1, &in)) != CLI_OK ||
        (code = cli_split(args.pos[1], "output", 0, &out)) != CLI_OK || (code = cli_context(&s, &ctx)) != CLI_OK)
        goto cleanup;
    cli_guard_output(out.path);
    minv_status st = minv_invert_file(ctx, s.method, in.path, in.var, out.path, out.var, &s.fopts, &report);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    char title[2048];
    snprintf(title, sizeof title, "minv invert: '%s':%s -> '%s':%s%s", in.path, in.var, out.path,
             out.var ? out.var : in.var, out.var ? "" : "_inv");
    cli_print_report(title, &report, s.fopts.precision);
cleanup:
    minv_destroy(ctx);
    cli_path_var_free(&in);
    cli_path_var_free(&out);
    return code;
}
