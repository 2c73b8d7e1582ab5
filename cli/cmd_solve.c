/* minv solve A.nc:VAR B.nc:VAR X.nc[:VAR]: A X = B with one right-hand side (a 1-D B) or many,
 * X written with B's dimensions, and the report. */
#include <stdio.h>

#include "cli.h"
#include "ncio.h"

static const cli_command command = {
    "solve", "A.nc:VAR B.nc:VAR X.nc[:VAR] [options]",
    "Solves A X = B and writes X to X.nc as VAR (default: X).",
    "A(row, column) is read in the order ncdump shows (--fortran-order: reversed). B has one\n"
    "dimension of length n, its rows, and one of length k, the right-hand sides, in either\n"
    "order (when both have length n, --fortran-order decides); a 1-D B(n) is one right-hand\n"
    "side. X is written with B's dimensions and layout (1-D for a 1-D B), in the root group.\n"
    "--slice picks a matrix of a higher-rank A (and of B, when B's rank exceeds 2). Variables\n"
    "inside netCDF-4 groups are named by their path, as analysis/A. The inputs are never modified.",
    CLI_SOLVE};

int cli_solve(int argc, char **argv) {
    cli_args args;
    cli_settings s;
    cli_path_var a = {0}, b = {0}, x = {0};
    minv_context *ctx = NULL;
    minv_report report;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    if (args.npos != 3)
        return cli_error(CLI_USAGE, "solve: expected A.nc:VAR B.nc:VAR X.nc[:VAR], got %d argument%s (see minv solve --help)",
                         args.npos, args.npos == 1 ? "" : "s");
    if ((code = cli_settings_from(&args, &s)) != CLI_OK || (code = cli_split(args.pos[0], "A", 1, &a)) != CLI_OK ||
        (code = cli_split(args.pos[1], "B", 1, &b)) != CLI_OK || (code = cli_split(args.pos[2], "X", 0, &x)) != CLI_OK ||
        (code = cli_context(&s, &ctx)) != CLI_OK)
        goto cleanup;
    if ((code = cli_probe_input(a.path, a.var, &s.fopts, 0)) != CLI_OK ||
        (code = cli_probe_input(b.path, b.var, &s.fopts, 1)) != CLI_OK)
        goto cleanup;
    cli_guard_outputs(minv_nc_remove_temporaries);
    minv_status st = minv_solve_file(ctx, s.method, a.path, a.var, b.path, b.var, x.path, x.var, &s.fopts, &report);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    char title[3072];
    snprintf(title, sizeof title, "minv solve: A = '%s':%s, B = '%s':%s -> '%s':%s", a.path, a.var, b.path, b.var,
             x.path, x.var ? x.var : "X");
    cli_print_report(title, &report, s.fopts.precision);
cleanup:
    minv_destroy(ctx);
    cli_path_var_free(&a);
    cli_path_var_free(&b);
    cli_path_var_free(&x);
    return code;
}
