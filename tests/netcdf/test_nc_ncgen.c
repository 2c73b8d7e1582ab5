/* Files from CDL text through ncgen (the path is argv[1]), so that the reader meets files it
 * did not write: the KMS matrix in classic, 64-bit offset, CDF-5 and netCDF-4 files, in any type,
 * checked against its closed-form inverse; a packed R(channel, channel); a chunked, deflated
 * cov(Time, n, n) with an unlimited Time as a batch; B(k, n) for a solve; fill values, NaN
 * and Inf written by ncgen, which must fail with their (row, column). */
#include <float.h>
#include <math.h>

#include "nctest.h"

static const char *ncgen;

static void run_ncgen(const char *kind, const char *cdl_name, const char *cdl, const char *out) {
    FILE *f = fopen(cdl_name, "w");
    fputs(cdl, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' -k '%s' -o '%s' '%s'", ncgen, kind, out, cdl_name);
    if (system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        exit(2);
    }
}

/* KMS, rho = 1/2, n = 5, stored as 16 rho^|i-j| with scale_factor 1/16, so that integer
 * types hold it exactly. Its inverse is tridiagonal: (1 / (1 - rho^2)) times 1 and 1 + rho^2
 * on the diagonal (1 at the ends) and -rho beside it. */
static void kms(minv_context *ctx, const char *kind, const char *type) {
    char cdl[1024], path[64], cdl_name[64];
    snprintf(cdl, sizeof cdl,
             "netcdf kms {\n"
             "dimensions:\n  n = 5 ;\n"
             "variables:\n  %s A(n, n) ;\n    A:long_name = \"KMS matrix, rho = 0.5\" ;\n    A:scale_factor = 0.0625 ;\n"
             "data:\n  A = 16, 8, 4, 2, 1,\n      8, 16, 8, 4, 2,\n      4, 8, 16, 8, 4,\n      2, 4, 8, 16, 8,\n      1, 2, 4, 8, 16 ;\n}\n",
             type);
    snprintf(path, sizeof path, "gen_kms_%s_%s.nc", kind, type);
    snprintf(cdl_name, sizeof cdl_name, "gen_kms_%s_%s.cdl", kind, type);
    run_ncgen(kind, cdl_name, cdl, path);

    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, path, "A", "gen_kms_inv.nc", NULL, NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_CHOLESKY, "%s: %s", path, minv_method_name(rep.method));
    double *x = nct_read("gen_kms_inv.nc", "A_inv", NULL), err = 0, rho = 0.5, c = 1 / (1 - rho * rho);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++) {
            double exact = i == j ? (i == 0 || i == 4 ? c : c * (1 + rho * rho)) : abs(i - j) == 1 ? -rho * c : 0;
            err = fmax(err, fabs(x[i * 5 + j] - exact));
        }
    CHECK(err < 1e-14, "%s: max error %.3g against the closed-form inverse", path, err);
    free(x);
}

/* A packed R(channel, channel): value = stored * 0.5 */
static const char packed_cdl[] =
    "netcdf obs_error {\n"
    "dimensions:\n  channel = 4 ;\n"
    "variables:\n  short R(channel, channel) ;\n    R:scale_factor = 0.5 ;\n    R:units = \"K2\" ;\n"
    "data:\n  R = 8, 2, 0, 0,  2, 8, 2, 0,  0, 2, 8, 2,  0, 0, 2, 8 ;\n}\n";

static void packed(minv_context *ctx) {
    run_ncgen("nc4", "gen_packed.cdl", packed_cdl, "gen_packed.nc");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "gen_packed.nc", "R", "gen_packed_inv.nc", NULL, NCT_REPLACE, NULL), MINV_SUCCESS, ctx);
    double r[16], *x = nct_read("gen_packed_inv.nc", "R_inv", NULL);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r[i * 4 + j] = i == j ? 4 : abs(i - j) == 1 ? 1 : 0;
    CHECK(tu_inverse_ratio(4, r, 4, x, 4, DBL_EPSILON) < 30, "packed R: not the inverse of the unpacked matrix");
    free(x);
}

/* WRF style: cov(Time, n, n), Time unlimited, chunked and deflated, two records. */
static const char wrf_cdl[] =
    "netcdf wrf {\n"
    "dimensions:\n  Time = UNLIMITED ;\n  n = 3 ;\n"
    "variables:\n  float cov(Time, n, n) ;\n    cov:_ChunkSizes = 1, 2, 2 ;\n    cov:_DeflateLevel = 2 ;\n"
    "  :title = \"two cycles\" ;\n"
    "data:\n  cov = 4, 1, 0,  1, 4, 1,  0, 1, 4,\n        9, 2, 1,  2, 9, 2,  1, 2, 9 ;\n}\n";

static void wrf_batch(minv_context *ctx) {
    run_ncgen("nc4", "gen_wrf.cdl", wrf_cdl, "gen_wrf.nc");
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "gen_wrf.nc", "cov", "gen_wrf_inv.nc", NULL, NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    size_t count;
    double *c = nct_read("gen_wrf.nc", "cov", NULL), *x = nct_read("gen_wrf_inv.nc", "cov_inv", &count);
    CHECK(count == 18, "batch: %zu values", count);
    for (int t = 0; t < 2 && count == 18; t++)
        CHECK(tu_inverse_ratio(3, c + 9 * t, 3, x + 9 * t, 3, DBL_EPSILON) < 30, "batch matrix %d", t);
    CHECK(rep.matrices == 2, "batch: %lld matrices", (long long)rep.matrices);
    free(c);
    free(x);
}

/* B(k, n) as a Fortran model writes b(n, k): X comes back as X(k, n). */
static const char solve_cdl[] =
    "netcdf solve {\n"
    "dimensions:\n  n = 3 ;\n  k = 2 ;\n"
    "variables:\n  double A(n, n) ;\n  double B(k, n) ;\n"
    "data:\n  A = 4, 1, 0,  2, 5, 1,  0, 1, 3 ;\n  B = 1, 2, 3,  -1, 0, 1 ;\n}\n";

static void solve(minv_context *ctx) {
    run_ncgen("classic", "gen_solve.cdl", solve_cdl, "gen_solve.nc");
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "gen_solve.nc", "A", "gen_solve.nc", "B", "gen_x.nc", NULL, NCT_REPLACE, NULL),
                 MINV_SUCCESS, ctx);
    double *a = nct_read("gen_solve.nc", "A", NULL), *b = nct_read("gen_solve.nc", "B", NULL), *x = nct_read("gen_x.nc", "X", NULL);
    double *ac = nct_c_view(a, 3, 3); /* B and X: their bytes are already 3 x 2, column-major */
    CHECK(tu_solve_ratio(3, 2, ac, 3, b, 3, x, 3, DBL_EPSILON) < 30, "A X = B with B(k, n)");
    free(a);
    free(b);
    free(x);
    free(ac);
}

/* `_` is the fill value in CDL; NaN and Infinity are literals. */
static void bad_values(minv_context *ctx) {
    const struct { const char *name, *cdl, *expect; } cases[] = {
        {"gen_fill", "netcdf f {\ndimensions:\n  i = 3 ;\nvariables:\n  double A(i, i) ;\n    A:_FillValue = -1. ;\n"
                     "data:\n  A = 1, 0, 0,  0, 1, _,  0, 0, 1 ;\n}\n", "entry (2, 3)"},
        {"gen_nan", "netcdf f {\ndimensions:\n  i = 3 ;\nvariables:\n  double A(i, i) ;\n"
                    "data:\n  A = 1, 0, 0,  0, 1, 0,  NaN, 0, 1 ;\n}\n", "entry (3, 1)"},
        {"gen_inf", "netcdf f {\ndimensions:\n  i = 3 ;\nvariables:\n  float A(i, i) ;\n"
                    "data:\n  A = 1, Infinityf, 0,  0, 1, 0,  0, 0, 1 ;\n}\n", "entry (1, 2)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char cdl[64], nc[64];
        snprintf(cdl, sizeof cdl, "%s.cdl", cases[k].name);
        snprintf(nc, sizeof nc, "%s.nc", cases[k].name);
        run_ncgen("nc4", cdl, cases[k].cdl, nc);
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, nc, "A", "gen_bad_out.nc", NULL, NCT_REPLACE, NULL), MINV_ERR_NOT_FINITE, ctx);
        HAS(minv_last_error(ctx), cases[k].expect);
        HAS(minv_last_error(ctx), "variable 'A'");
        CHECK(!nct_exists("gen_bad_out.nc") && !nct_tmp_left("gen_bad_out.nc"), "%s: output left behind", nc);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_nc_ncgen /path/to/ncgen\n");
        return 2;
    }
    ncgen = argv[1];
    minv_context *ctx = nct_context();
    const char *kinds[] = {"classic", "64-bit-offset", "nc4"};
    const char *classic_types[] = {"double", "float", "int", "short", "byte"};
    for (size_t k = 0; k < 3; k++)
        for (size_t t = 0; t < 5; t++)
            kms(ctx, kinds[k], classic_types[t]);
    kms(ctx, "cdf5", "ushort");
    kms(ctx, "nc4", "int64"); /* ncgen 4.9.0 writes int64 as int in CDF-5, so netCDF-4 here */
    kms(ctx, "nc4", "ushort");
    packed(ctx);
    wrf_batch(ctx);
    solve(ctx);
    bad_values(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_ncgen");
}
