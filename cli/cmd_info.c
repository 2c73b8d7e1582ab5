/* minv info IN.nc:VAR: the analysis of a matrix variable (storage, symmetry, diagonal
 * dominance, bandwidth, norms, what AUTO would choose) and a condition estimate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ncio.h"

static const cli_option info_options[] = {
    {"no-rcond", NULL, "skip the condition estimate (it costs one factorisation)"},
    {NULL, NULL, NULL}};

static const cli_option *const groups[] = {cli_compute_options, cli_file_options, info_options,
                                           cli_general_options, NULL};

static const cli_command command = {
    "info", "IN.nc:VAR [options]",
    "Analyses the matrix VAR of IN.nc and estimates its condition.",
    "The condition estimate is LAPACK's reciprocal 1-norm estimate (xPOCON or xGECON) from the\n"
    "factorisation that --method (default auto) makes while solving with one right-hand side;\n"
    "it costs about a third (Cholesky) or two thirds (LU) of an inversion. NaN or Inf entries\n"
    "are reported by the analysis; missing values (_FillValue, missing_value) are an error.",
    groups};

static void print_analysis(const minv_analysis *an) {
    printf("%-10s %lld\n", "n", (long long)an->n);
    if (an->finite)
        printf("%-10s yes\n", "finite");
    else
        printf("%-10s no: the first NaN or Inf is at (%lld, %lld) (row, column, 1-based)\n", "finite",
               (long long)an->first_bad_row + 1, (long long)an->first_bad_col + 1);
    printf("%-10s %s (relative asymmetry %.3g)\n", "symmetric", an->symmetric ? "yes" : "no", an->asymmetry);
    printf("%-10s min %.6g, max %.6g%s\n", "diagonal", an->diag_min, an->diag_max,
           an->diag_positive ? " (positive)" : "");
    printf("%-10s %s\n", "dominance", an->diag_dominant ? "strictly diagonally dominant by rows" : "not strictly diagonally dominant by rows");
    printf("%-10s lower %lld, upper %lld%s\n", "bandwidth", (long long)an->lower_bandwidth,
           (long long)an->upper_bandwidth, an->tridiagonal ? " (tridiagonal)" : "");
    printf("%-10s 1-norm %.6g, inf-norm %.6g, Frobenius %.6g\n", "norms", an->norm_1, an->norm_inf, an->norm_fro);
    printf("%-10s %s\n", "auto", minv_method_name(an->auto_method));
}

/* The factorisation's condition estimate, by a solve with one right-hand side. */
static void print_rcond(minv_context *ctx, const cli_settings *s, const minv_mat *m) {
    minv_report r;
    minv_mat b = {0}, x = {0};
    minv_status st = minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    if (st == MINV_SUCCESS)
        st = minv_mat_alloc(ctx, &b, m->dtype, m->rows, 1);
    if (st == MINV_SUCCESS)
        st = minv_mat_alloc(ctx, &x, m->dtype, m->rows, 1);
    if (st == MINV_SUCCESS) {
        for (int64_t i = 0; i < m->rows; i++) {
            if (m->dtype == MINV_R64) ((double *)b.data)[i] = 1;
            else ((float *)b.data)[i] = 1;
        }
        st = m->dtype == MINV_R64
                 ? minv_solve_d(ctx, s->method, m->rows, 1, m->data, m->ld, b.data, b.ld, x.data, x.ld, &r)
                 : minv_solve_s(ctx, s->method, m->rows, 1, m->data, m->ld, b.data, b.ld, x.data, x.ld, &r);
    }
    if (st == MINV_SUCCESS || (st == MINV_ERR_SINGULAR && r.rcond >= 0))
        printf("%-10s %.2e (LAPACK 1-norm estimate from the %s factorisation, %.3g s on the %s)%s\n", "rcond", r.rcond,
               minv_method_name(r.method), r.seconds, minv_backend_name(r.backend),
               st == MINV_ERR_SINGULAR ? ": singular to working precision" : "");
    else
        printf("%-10s not estimated: %s\n", "rcond", minv_last_error(ctx));
    minv_mat_free(&b);
    minv_mat_free(&x);
}

int cli_info(int argc, char **argv) {
    cli_args args;
    cli_settings s;
    cli_path_var in = {0};
    minv_context *ctx = NULL;
    minv_nc_source src;
    minv_mat m = {0};
    minv_analysis an;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    if (args.npos != 1)
        return cli_error(CLI_USAGE, "info: expected IN.nc:VAR, got %d arguments (see minv info --help)", args.npos);
    if ((code = cli_settings_from(&args, &s)) != CLI_OK || (code = cli_split(args.pos[0], "input", 1, &in)) != CLI_OK ||
        (code = cli_context(&s, &ctx)) != CLI_OK)
        goto cleanup;
    minv_status st = minv_nc_read_square(ctx, &src, in.path, in.var, &s.fopts, 1, &m);
    if (st == MINV_SUCCESS)
        st = m.dtype == MINV_R64 ? minv_analyze_d(ctx, m.rows, m.data, m.ld, &an) : minv_analyze_s(ctx, m.rows, m.data, m.ld, &an);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    char storage[1024], how[256];
    minv_nc_source_describe(&src, storage, sizeof storage);
    minv_nc_source_how(&src, how, sizeof how);
    printf("minv info: '%s':%s\n%-10s %s\n", in.path, in.var, "variable", storage);
    cli_print_stage("read", src.seconds, src.bytes, how);
    print_analysis(&an);
    if (cli_flag(&args, "no-rcond"))
        printf("%-10s not estimated (--no-rcond)\n", "rcond");
    else if (!an.finite)
        printf("%-10s not estimated: the matrix is not finite\n", "rcond");
    else
        print_rcond(ctx, &s, &m);
    cli_progress_done();
cleanup:
    minv_mat_free(&m);
    minv_destroy(ctx);
    cli_path_var_free(&in);
    return code;
}
