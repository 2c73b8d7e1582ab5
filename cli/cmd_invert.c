/* minv invert IN.nc:VAR OUT.nc[:VAR]: the inverse of a matrix variable (or of every matrix of
 * a batch) into a new file or a new variable, and the report; with --tridiagonal DL,D,DU the
 * matrix is given by its three bands, 1-D variables of IN.nc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ncio.h"

static const cli_command command = {
    "invert", "IN.nc:VAR OUT.nc[:VAR] [options]\n       minv invert IN.nc OUT.nc[:VAR] --tridiagonal DL,D,DU [options]",
    "Inverts the matrix VAR of IN.nc and writes the inverse to OUT.nc as VAR (default: <VAR>_inv).",
    "VAR(row, column) is read in the order ncdump shows (--fortran-order: reversed). A variable of\n"
    "higher rank is sliced to a matrix by --slice; a rank-3 variable whose last two dimensions\n"
    "are equal, without --slice, is a batch: every matrix is inverted. OUT.nc is written under a\n"
    "temporary name and renamed when complete; if it exists and holds other variables, VAR is\n"
    "added to it. IN.nc is never modified. A tridiagonal VAR is inverted as such (method auto).\n"
    "A VAR inside netCDF-4 groups is named by its path, as analysis/M or /a/b/M; outputs go to\n"
    "the root group of OUT.nc (default name M_inv).\n"
    "With --tridiagonal DL,D,DU, IN.nc holds the matrix as its bands, A(i,i) = D(i),\n"
    "A(i+1,i) = DL(i), A(i,i+1) = DU(i), and the dense n x n inverse is written (default name\n"
    "<D>_inv, over D's dimension).",
    CLI_INVERT};

static const char *const algorithms[] = {"auto", "write-once", "sherman-morrison", "pivoted"};

/* --tridiagonal DL,D,DU into three names (pointing into *copy) and the rules of that form. */
static int tridiagonal_from(const cli_args *a, const cli_settings *s, char **copy, const char *bands[3]) {
    const char *v = cli_value(a, "tridiagonal");
    if (cli_value(a, "slice") || cli_value(a, "tile") || cli_flag(a, "fortran-order"))
        return cli_error(CLI_USAGE, "invert: --tridiagonal reads whole 1-D variables; --slice, --tile and --fortran-order do not apply");
    if (s->method != MINV_METHOD_AUTO && s->method != MINV_METHOD_TRIDIAGONAL)
        return cli_error(CLI_USAGE, "invert: --tridiagonal inverts by the tridiagonal method, not --method %s", minv_method_name(s->method));
    char *p = *copy = strdup(v);
    if (!p)
        return cli_error(CLI_FAILED, "out of memory");
    for (int k = 0; k < 3; k++) {
        char *comma = strchr(p, ',');
        if ((comma != NULL) != (k < 2) || comma == p || !*p)
            return cli_error(CLI_USAGE, "invert: --tridiagonal %s: expected three variable names DL,D,DU", v);
        bands[k] = p;
        if (comma) {
            *comma = '\0';
            p = comma + 1;
        }
    }
    return CLI_OK;
}

int cli_invert(int argc, char **argv) {
    cli_args args;
    cli_settings s;
    cli_path_var in = {0}, out = {0};
    minv_context *ctx = NULL;
    minv_report report;
    char *copy = NULL;
    const char *bands[3] = {NULL, NULL, NULL}, *v;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    const int by_bands = cli_value(&args, "tridiagonal") != NULL;
    if (args.npos != 2)
        return cli_error(CLI_USAGE, "invert: expected %s OUT.nc[:VAR], got %d argument%s (see minv invert --help)",
                         by_bands ? "IN.nc" : "IN.nc:VAR", args.npos, args.npos == 1 ? "" : "s");
    if ((code = cli_settings_from(&args, &s)) != CLI_OK ||
        (by_bands && (code = tridiagonal_from(&args, &s, &copy, bands)) != CLI_OK) ||
        (code = cli_split(args.pos[0], "input", !by_bands, &in)) != CLI_OK ||
        (code = cli_split(args.pos[1], "output", 0, &out)) != CLI_OK)
        goto cleanup;
    if (by_bands && in.var) {
        code = cli_error(CLI_USAGE, "invert: with --tridiagonal, give IN.nc without a variable (the bands name them)");
        goto cleanup;
    }
    int algorithm = 0;
    if ((v = cli_value(&args, "tridiagonal-algorithm"))) {
        while (algorithm < 4 && strcmp(v, algorithms[algorithm]) != 0) algorithm++;
        if (algorithm == 4) {
            code = cli_error(CLI_USAGE, "invert: --tridiagonal-algorithm %s: expected auto, write-once, sherman-morrison or pivoted", v);
            goto cleanup;
        }
    }
    if ((code = cli_context(&s, &ctx)) != CLI_OK)
        goto cleanup;
    minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, algorithm);
    if ((code = cli_probe_input(in.path, by_bands ? bands[1] : in.var, &s.fopts, by_bands)) != CLI_OK)
        goto cleanup;
    cli_guard_outputs(minv_nc_remove_temporaries);
    minv_status st = by_bands ? minv_nc_invert_tridiagonal(ctx, in.path, bands, out.path, out.var, &s.fopts, &report)
                              : minv_invert_file(ctx, s.method, in.path, in.var, out.path, out.var, &s.fopts, &report);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    char title[2048], what[1024];
    if (by_bands)
        snprintf(what, sizeof what, "bands %s,%s,%s", bands[0], bands[1], bands[2]);
    snprintf(title, sizeof title, "minv invert: '%s':%s -> '%s':%s%s", in.path, by_bands ? what : in.var, out.path,
             out.var ? out.var : minv_nc_base_name(by_bands ? bands[1] : in.var), out.var ? "" : "_inv");
    cli_print_report(title, &report, s.fopts.precision);
cleanup:
    minv_destroy(ctx);
    cli_path_var_free(&in);
    cli_path_var_free(&out);
    free(copy);
    return code;
}
