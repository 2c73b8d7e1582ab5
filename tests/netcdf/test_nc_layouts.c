/* Layouts and outputs: a variable that uses one dimension twice, WRF-style cov(Time, n, n)
 * with an unlimited Time (sliced, and as a batch; netCDF-4 and classic record variables),
 * classic and CDF-5 record variables over their record dimension beside others, netCDF-4
 * variables over an unlimited row dimension, a rank-4 variable, B(n, k) and B(k, n) for
 * solves in either order, a 1-D B(n) (one right-hand side, X 1-D too), output into an
 * existing file (added, overwritten, refused when of another shape or type), the output's
 * storage and attributes, a history stored as a string, the analysis, and a nearly symmetric
 * matrix that the in-place file inversion hands to LU. */
#include <float.h>
#include <math.h>

#include "nctest.h"

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const nct_storage classic = {.cmode = NC_CLOBBER, .chunks = NULL, .deflate = 0};

/* Row-major SPD matrix number `seed`: M M^T / n + I (symmetric, so either order reads it). */
static double *spd(size_t n, uint64_t seed) {
    tu_rng rng;
    double *a = malloc(n * n * sizeof *a);
    tu_seed(&rng, seed);
    tu_spd(&rng, (int64_t)n, a, (int64_t)n);
    return a;
}

static double *general(size_t rows, size_t cols, uint64_t seed, double diag) {
    tu_rng rng;
    double *a = malloc(rows * cols * sizeof *a);
    tu_seed(&rng, seed);
    for (size_t k = 0; k < rows * cols; k++)
        a[k] = tu_uniform(&rng) + (k / cols == k % cols ? diag : 0);
    return a;
}

/* The LAPACK-tester ratio of X (row-major on disk, C view) as the inverse of A (same). */
static double disk_inverse_ratio(const double *a_disk, const double *x_disk, size_t n) {
    double *a = nct_c_view(a_disk, n, n), *x = nct_c_view(x_disk, n, n);
    double r = tu_inverse_ratio((int64_t)n, a, (int64_t)n, x, (int64_t)n, DBL_EPSILON);
    free(a);
    free(x);
    return r;
}

static int var_dims(const char *path, const char *var, int *dimids, char names[][NC_MAX_NAME + 1]) {
    int ncid, varid, rank;
    NCT(nc_open(path, NC_NOWRITE, &ncid));
    NCT(nc_inq_varid(ncid, var, &varid));
    NCT(nc_inq_var(ncid, varid, NULL, NULL, &rank, dimids, NULL));
    for (int d = 0; d < rank; d++)
        NCT(nc_inq_dimname(ncid, dimids[d], names[d]));
    NCT(nc_close(ncid));
    return rank;
}

static void same_dimension_twice(minv_context *ctx) {
    const size_t n = 11, lens[2] = {11, 11};
    const char *const dims[2] = {"channel", "channel"};
    double *r = spd(n, 1);
    nct_write("lay_R.nc", 0, &nc4, "R", NC_DOUBLE, 2, dims, lens, 0, r);
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_R.nc", "R", "lay_Rinv.nc", NULL, NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_CHOLESKY, "R: %s", minv_method_name(rep.method));
    double *x = nct_read("lay_Rinv.nc", "R_inv", NULL);
    CHECK(disk_inverse_ratio(r, x, n) < 30, "R(channel, channel)");
    int ids[2];
    char names[2][NC_MAX_NAME + 1];
    CHECK(var_dims("lay_Rinv.nc", "R_inv", ids, names) == 2 && ids[0] == ids[1] && strcmp(names[0], "channel") == 0,
          "R_inv uses channel twice: %s, %s", names[0], names[1]);
    free(r);
    free(x);
}

/* cov(Time, n, n), Time unlimited, written as a record variable (classic) or netCDF-4. */
static void wrf_time(minv_context *ctx, const nct_storage *st, const char *path) {
    const size_t n = 10, T = 3, lens[3] = {3, 10, 10};
    const char *const dims[3] = {"Time", "south_north", "south_north"};
    double *cov = malloc(T * n * n * sizeof *cov);
    for (size_t t = 0; t < T; t++) {
        double *m = spd(n, 10 + t);
        memcpy(cov + t * n * n, m, n * n * sizeof *m);
        free(m);
    }
    nct_write(path, 0, st, "cov", NC_FLOAT, 3, dims, lens, 1, cov);
    double *covf = nct_read(path, "cov", NULL); /* as stored in float */
    minv_file_options fo;
    minv_report rep;
    nct_options(&fo);

    /* a slice: matrix 1 of Time, written as a 2-D variable */
    fo.nslice = 1;
    fo.slice[0] = 1;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, path, "cov", "lay_slice.nc", "cov_inv", &fo, &rep), MINV_SUCCESS, ctx);
    double *x = nct_read("lay_slice.nc", "cov_inv", NULL);
    CHECK(disk_inverse_ratio(covf + n * n, x, n) < 30, "%s: slice 1", path);
    char *slice = nct_read_text_att("lay_slice.nc", "cov_inv", "minv_source_slice");
    CHECK(slice && strcmp(slice, "Time = 1") == 0, "minv_source_slice = %s", slice ? slice : "(none)");
    int ids[3];
    char names[3][NC_MAX_NAME + 1];
    CHECK(var_dims("lay_slice.nc", "cov_inv", ids, names) == 2, "the slice's inverse is 2-D");
    free(x);
    free(slice);

    /* the batch: every matrix, Time unlimited in the output too */
    fo.nslice = 0;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, path, "cov", "lay_batch.nc", "cov_inv", &fo, &rep), MINV_SUCCESS, ctx);
    size_t count;
    x = nct_read("lay_batch.nc", "cov_inv", &count);
    CHECK(count == T * n * n, "%s: batch holds %zu values", path, count);
    for (size_t t = 0; t < T && count == T * n * n; t++)
        CHECK(disk_inverse_ratio(covf + t * n * n, x + t * n * n, n) < 30, "%s: batch matrix %zu", path, t);
    int ncid, varid, unlimdim, nres;
    double residual[3] = {0}, rcond[3] = {0};
    NCT(nc_open("lay_batch.nc", NC_NOWRITE, &ncid));
    NCT(nc_inq_unlimdim(ncid, &unlimdim));
    NCT(nc_inq_varid(ncid, "cov_inv", &varid));
    NCT(nc_inq_varndims(ncid, varid, &nres));
    NCT(nc_get_att_double(ncid, varid, "minv_residual", residual));
    NCT(nc_get_att_double(ncid, varid, "minv_rcond", rcond));
    NCT(nc_close(ncid));
    CHECK(nres == 3 && unlimdim >= 0, "batch output: rank %d, unlimited %d", nres, unlimdim);
    double worst = fmax(residual[0], fmax(residual[1], residual[2]));
    double least = fmin(rcond[0], fmin(rcond[1], rcond[2]));
    CHECK(rep.residual == worst && rep.rcond == least, "batch report: residual %g (worst %g), rcond %g (least %g)",
          rep.residual, worst, rep.rcond, least);
    CHECK(rep.matrices == 3 && rep.worst >= 0 && rep.worst < 3 && residual[rep.worst] == worst,
          "batch report: %lld matrices, worst %lld", (long long)rep.matrices, (long long)rep.worst);
    free(x);
    free(cov);
    free(covf);
}

/* The largest difference between two results of count values, relative to the largest of x. */
static double relative_difference(const double *x, const double *y, size_t count) {
    double diff = 0, largest = 0;
    for (size_t k = 0; k < count; k++) {
        diff = fmax(diff, fabs(x[k] - y[k]));
        largest = fmax(largest, fabs(x[k]));
    }
    return diff / largest;
}

/* An observation file, classic and CDF-5: the record dimension obs is the row dimension of
 * A(obs, y), d(obs) and D(obs, ens), beside another record variable lat(obs), so that rows are
 * a record apart, not adjacent. A, d and D read as the same values in fixed dimensions do:
 * the inverse, the solves (a 1-D and a 2-D right-hand side) and the analysis's norms. */
static void record_rows(minv_context *ctx) {
    const size_t n = 20, k = 3, lens[2] = {20, 20}, blens[2] = {20, 3};
    const char *const dims[2] = {"obs", "y"}, *const fixed[2] = {"row", "y"}, *const bdims[2] = {"obs", "ens"};
    const char *const fbdims[2] = {"row", "ens"};
    const nct_storage cdf5 = {.cmode = NC_CLOBBER | NC_64BIT_DATA};
    const nct_storage *formats[2] = {&classic, &cdf5};
    double *a = general(n, n, 81, 6), *lat = general(n, 1, 82, 0), *d = general(n, 1, 83, 0), *b = general(n, k, 84, 0);
    for (size_t i = 0; i < n; i++)
        lat[i] = (float)lat[i];
    for (int f = 0; f < 2; f++) {
        nct_write("lay_obs.nc", 0, formats[f], "lat", NC_FLOAT, 1, dims, lens, 1, lat);
        nct_write("lay_obs.nc", 1, formats[f], "A", NC_DOUBLE, 2, dims, lens, 1, a);
        nct_write("lay_obs.nc", 1, formats[f], "d", NC_DOUBLE, 1, dims, lens, 1, d);
        nct_write("lay_obs.nc", 1, formats[f], "D", NC_DOUBLE, 2, bdims, blens, 1, b);
        nct_write("lay_obs.nc", 1, formats[f], "Af", NC_DOUBLE, 2, fixed, lens, 0, a);
        nct_write("lay_obs.nc", 1, formats[f], "df", NC_DOUBLE, 1, fixed, lens, 0, d);
        nct_write("lay_obs.nc", 1, formats[f], "Df", NC_DOUBLE, 2, fbdims, blens, 0, b);
        const char *format = f ? "CDF-5" : "classic";

        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_LU, "lay_obs.nc", "A", "lay_obs_inv.nc", "X", NCT_REPLACE, NULL),
                     MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_LU, "lay_obs.nc", "Af", "lay_obs_invf.nc", "X", NCT_REPLACE, NULL),
                     MINV_SUCCESS, ctx);
        double *x = nct_read("lay_obs_inv.nc", "X", NULL), *xf = nct_read("lay_obs_invf.nc", "X", NULL);
        CHECK(disk_inverse_ratio(a, x, n) < 30 && relative_difference(xf, x, n * n) < 1e-12,
              "%s: the inverse of the record variable A(obs, y): ratio %.3g", format, disk_inverse_ratio(a, x, n));
        free(x);
        free(xf);

        const char *rhs[2][2] = {{"d", "df"}, {"D", "Df"}};
        for (int c = 0; c < 2; c++) {
            const size_t count = c ? n * k : n;
            CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_LU, "lay_obs.nc", "A", "lay_obs.nc", rhs[c][0], "lay_obs_x.nc", "X",
                                         NCT_REPLACE, NULL),
                         MINV_SUCCESS, ctx);
            CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_LU, "lay_obs.nc", "Af", "lay_obs.nc", rhs[c][1], "lay_obs_xf.nc", "X",
                                         NCT_REPLACE, NULL),
                         MINV_SUCCESS, ctx);
            x = nct_read("lay_obs_x.nc", "X", NULL);
            xf = nct_read("lay_obs_xf.nc", "X", NULL);
            CHECK(relative_difference(xf, x, count) < 1e-12, "%s: the solve with the record variable %s differs by %.3g",
                  format, rhs[c][0], relative_difference(xf, x, count));
            free(x);
            free(xf);
        }

        minv_analysis an, anf;
        CHECK_STATUS(minv_analyze_file(ctx, "lay_obs.nc", "A", NULL, &an), MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_analyze_file(ctx, "lay_obs.nc", "Af", NULL, &anf), MINV_SUCCESS, ctx);
        CHECK(an.norm_1 == anf.norm_1 && an.norm_inf == anf.norm_inf && an.norm_fro == anf.norm_fro,
              "%s: the norms of A (%g, %g, %g) are not those of the same values in fixed dimensions (%g, %g, %g)", format,
              an.norm_1, an.norm_inf, an.norm_fro, anf.norm_1, anf.norm_inf, anf.norm_fro);
    }
    free(a);
    free(lat);
    free(d);
    free(b);
}

/* netCDF-4 variables over an unlimited row dimension x, chunked 1 x n or 64 x 64: outputs
 * over an unlimited x (copied from the input, or a dimension of the file written to) must grow
 * along it before their chunks are written. The inverse of A(x, y), the solve with B(x, k)
 * (X over a fixed x in a new file, over the file's unlimited x when added to it) and the batch
 * cov(Time, x, y) (Time unlimited too) are those of the same values in fixed dimensions. */
static void unlimited_rows_nc4(minv_context *ctx) {
    const size_t n = 100, k = 3, lens[2] = {100, 100}, blens[2] = {100, 3}, clens[3] = {2, 100, 100};
    const size_t rows[2] = {1, 100}, squares[2] = {64, 64}, batch_chunks[3] = {1, 64, 64};
    const char *const dims[2] = {"x", "y"}, *const fixed[2] = {"row", "y"}, *const bdims[2] = {"x", "ens"};
    const char *const fbdims[2] = {"row", "ens"}, *const cdims[3] = {"Time", "x", "y"}, *const fcdims[3] = {"T", "row", "y"};
    const size_t *chunks[2] = {rows, squares};
    double *a = general(n, n, 91, 8), *b = general(n, k, 92, 0), *cov = general(2 * n, n, 93, 0);
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < n; i++)
            cov[(t * n + i) * n + i] += 8;
    /* A or cov, the same in fixed dimensions, B and Bf for a solve, the output, and the
     * output's unlimited dimensions */
    const struct {
        const char *var[4], *out;
        int unlimited;
    } cases[4] = {{{"A", "Af", NULL, NULL}, "lay_unl_x.nc", 1},
                  {{"A", "Af", "B", "Bf"}, "lay_unl_x.nc", 0},
                  {{"A", "Af", "B", "Bf"}, "lay_unl_into.nc", 1},
                  {{"cov", "covf", NULL, NULL}, "lay_unl_x.nc", 2}};
    const double other[100] = {0};
    for (int c = 0; c < 2; c++) {
        const nct_storage st = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = chunks[c]};
        const size_t bchunks[2] = {chunks[c][0], k};
        const nct_storage stb = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = bchunks};
        const nct_storage st3 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = batch_chunks};
        nct_write("lay_unl.nc", 0, &st, "A", NC_DOUBLE, 2, dims, lens, 1, a);
        nct_write("lay_unl.nc", 1, &nc4, "Af", NC_DOUBLE, 2, fixed, lens, 0, a);
        nct_write("lay_unl.nc", 1, &stb, "B", NC_DOUBLE, 2, bdims, blens, 1, b);
        nct_write("lay_unl.nc", 1, &nc4, "Bf", NC_DOUBLE, 2, fbdims, blens, 0, b);
        nct_write("lay_unl.nc", 1, &st3, "cov", NC_DOUBLE, 3, cdims, clens, 1, cov); /* x stays unlimited */
        nct_write("lay_unl.nc", 1, &nc4, "covf", NC_DOUBLE, 3, fcdims, clens, 0, cov);
        nct_write("lay_unl_into.nc", 0, &nc4, "obs", NC_DOUBLE, 1, dims, lens, 1, other);
        for (int v = 0; v < 4; v++) {
            const char *const *cs = cases[v].var, *outs[2] = {cases[v].out, "lay_unl_xf.nc"};
            for (int f = 0; f < 2; f++)
                CHECK_STATUS(cs[2] ? minv_solve_file(ctx, MINV_METHOD_LU, "lay_unl.nc", cs[f], "lay_unl.nc", cs[2 + f], outs[f],
                                                     "X", NCT_REPLACE, NULL)
                                   : minv_invert_file(ctx, MINV_METHOD_LU, "lay_unl.nc", cs[f], outs[f], "X", NCT_REPLACE, NULL),
                             MINV_SUCCESS, ctx);
            size_t count, countf;
            double *x = nct_read(outs[0], "X", &count), *xf = nct_read(outs[1], "X", &countf);
            CHECK(count == countf && relative_difference(xf, x, count) < 1e-12,
                  "chunks %zu x %zu: %s%s into %s: %zu values, %zu in fixed dimensions", chunks[c][0], chunks[c][1],
                  cs[2] ? "the solve with " : "the inverse of ", cs[2] ? cs[2] : cs[0], outs[0], count, countf);
            int ncid, nunlim;
            NCT(nc_open(outs[0], NC_NOWRITE, &ncid));
            NCT(nc_inq_unlimdims(ncid, &nunlim, NULL));
            NCT(nc_close(ncid));
            CHECK(nunlim == cases[v].unlimited, "case %d: the output has %d unlimited dimensions", v, nunlim);
            free(x);
            free(xf);
        }
    }
    free(a);
    free(b);
    free(cov);
}

static void rank4(minv_context *ctx) {
    const size_t n = 6, lens[4] = {2, 3, 6, 6};
    const char *const dims[4] = {"member", "level", "n", "n"};
    double *v = malloc(2 * 3 * n * n * sizeof *v);
    for (size_t m = 0; m < 6; m++) {
        double *a = spd(n, 100 + m);
        memcpy(v + m * n * n, a, n * n * sizeof *a);
        free(a);
    }
    nct_write("lay_rank4.nc", 0, &nc4, "v", NC_DOUBLE, 4, dims, lens, 0, v);
    minv_file_options fo;
    nct_options(&fo);
    fo.nslice = 2;
    fo.slice[0] = 1;
    fo.slice[1] = 2;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_rank4.nc", "v", "lay_r4.nc", NULL, &fo, NULL), MINV_SUCCESS, ctx);
    double *x = nct_read("lay_r4.nc", "v_inv", NULL);
    CHECK(disk_inverse_ratio(v + (1 * 3 + 2) * n * n, x, n) < 30, "rank 4, slice (1, 2)");
    free(x);
    /* one index: the batch along the dimension left over (level) */
    fo.nslice = 1;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_rank4.nc", "v", "lay_r4b.nc", NULL, &fo, NULL), MINV_SUCCESS, ctx);
    size_t count;
    x = nct_read("lay_r4b.nc", "v_inv", &count);
    CHECK(count == 3 * n * n, "rank 4, slice (1): %zu values", count);
    for (size_t l = 0; l < 3 && count == 3 * n * n; l++)
        CHECK(disk_inverse_ratio(v + (3 + l) * n * n, x + l * n * n, n) < 30, "rank 4, member 1, level %zu", l);
    free(x);
    free(v);
}

/* Solves with B(n, k), B(k, n) and a square B, in C and Fortran order. */
static void solve_layouts(minv_context *ctx) {
    const size_t n = 9, k = 4;
    double *a_disk = general(n, n, 21, 4);
    const size_t alens[2] = {n, n}, nk[2] = {n, k}, kn[2] = {k, n}, nn[2] = {n, n};
    const char *const adims[2] = {"row", "col"}, *const bnk[2] = {"n", "rhs"}, *const bkn[2] = {"rhs", "n"};
    nct_write("lay_A.nc", 0, &nc4, "A", NC_DOUBLE, 2, adims, alens, 0, a_disk);
    double *b_nk = general(n, k, 22, 0), *b_kn = general(k, n, 23, 0), *b_nn = general(n, n, 24, 0);
    nct_write("lay_B.nc", 0, &nc4, "Bnk", NC_DOUBLE, 2, bnk, nk, 0, b_nk);
    nct_write("lay_B.nc", 1, &nc4, "Bkn", NC_DOUBLE, 2, bkn, kn, 0, b_kn);
    nct_write("lay_B.nc", 1, &nc4, "Bnn", NC_DOUBLE, 2, adims, nn, 0, b_nn);
    double *a_c = nct_c_view(a_disk, n, n); /* A in C order; the disk bytes are A in Fortran order */
    const struct {
        const char *var;
        int fortran;
        const double *b_disk;
        size_t rows, cols; /* on disk */
        int b_is_fortran;  /* B's rows are its last dimension */
    } cases[] = {
        {"Bnk", 0, NULL, n, k, 0}, {"Bkn", 0, NULL, k, n, 1}, {"Bnk", 1, NULL, n, k, 0},
        {"Bkn", 1, NULL, k, n, 1}, {"Bnn", 0, NULL, n, n, 0}, {"Bnn", 1, NULL, n, n, 1},
    };
    const double *bdata[6] = {b_nk, b_kn, b_nk, b_kn, b_nn, b_nn};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        minv_file_options fo;
        minv_report rep;
        nct_options(&fo);
        fo.fortran_order = cases[c].fortran;
        CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "lay_A.nc", "A", "lay_B.nc", cases[c].var, "lay_X.nc", NULL, &fo, &rep),
                     MINV_SUCCESS, ctx);
        size_t count;
        double *x_disk = nct_read("lay_X.nc", "X", &count);
        const size_t nrhs = cases[c].b_is_fortran ? cases[c].rows : cases[c].cols;
        CHECK(count == n * nrhs && rep.nrhs == (int64_t)nrhs, "%s: X has %zu values, nrhs %lld", cases[c].var, count,
              (long long)rep.nrhs);
        double *b = cases[c].b_is_fortran ? NULL : nct_c_view(bdata[c], n, nrhs);
        double *x = cases[c].b_is_fortran ? NULL : nct_c_view(x_disk, n, nrhs);
        const double *am = cases[c].fortran ? a_disk : a_c;
        double ratio = tu_solve_ratio((int64_t)n, (int64_t)nrhs, am, (int64_t)n, b ? b : bdata[c], (int64_t)n,
                                      x ? x : x_disk, (int64_t)n, DBL_EPSILON);
        CHECK(ratio < 30, "%s, fortran_order %d: ratio %.3g", cases[c].var, cases[c].fortran, ratio);
        int ids[2], bids[2];
        char names[2][NC_MAX_NAME + 1], bnames[2][NC_MAX_NAME + 1];
        var_dims("lay_X.nc", "X", ids, names);
        var_dims("lay_B.nc", cases[c].var, bids, bnames);
        CHECK(strcmp(names[0], bnames[0]) == 0 && strcmp(names[1], bnames[1]) == 0, "X(%s, %s) vs B(%s, %s)", names[0],
              names[1], bnames[0], bnames[1]);
        free(b);
        free(x);
        free(x_disk);
    }
    free(a_c);
    free(a_disk);
    free(b_nk);
    free(b_kn);
    free(b_nn);
}

/* A sliced A with a plain B (the slice is for A only) and with a sliced B. */
static void solve_sliced(minv_context *ctx) {
    const size_t n = 7, k = 3, alens[3] = {2, 7, 7}, blens[3] = {2, 7, 3}, b2[2] = {7, 3};
    const char *const adims[3] = {"Time", "n", "n"}, *const bdims[3] = {"Time", "n", "obs"};
    double *a = malloc(2 * n * n * sizeof *a), *b = general(2 * n, k, 31, 0);
    for (size_t t = 0; t < 2; t++) {
        double *m = spd(n, 40 + t);
        memcpy(a + t * n * n, m, n * n * sizeof *m);
        free(m);
    }
    nct_write("lay_sA.nc", 0, &nc4, "cov", NC_DOUBLE, 3, adims, alens, 1, a);
    nct_write("lay_sB.nc", 0, &nc4, "y", NC_DOUBLE, 3, bdims, blens, 0, b);
    nct_write("lay_sB.nc", 1, &nc4, "y2", NC_DOUBLE, 2, bdims + 1, b2, 0, b);
    minv_file_options fo;
    nct_options(&fo);
    fo.nslice = 1;
    fo.slice[0] = 1;
    const char *vars[2] = {"y", "y2"};
    const double *bs[2] = {b + n * k, b};
    for (int c = 0; c < 2; c++) {
        CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "lay_sA.nc", "cov", "lay_sB.nc", vars[c], "lay_sX.nc", "X", &fo, NULL),
                     MINV_SUCCESS, ctx);
        double *x_disk = nct_read("lay_sX.nc", "X", NULL);
        double *am = nct_c_view(a + n * n, n, n), *bm = nct_c_view(bs[c], n, k), *xm = nct_c_view(x_disk, n, k);
        double ratio = tu_solve_ratio((int64_t)n, (int64_t)k, am, (int64_t)n, bm, (int64_t)n, xm, (int64_t)n, DBL_EPSILON);
        CHECK(ratio < 30, "sliced solve with %s: ratio %.3g", vars[c], ratio);
        free(am);
        free(bm);
        free(xm);
        free(x_disk);
    }
    free(a);
    free(b);
}

/* A 1-D B(n), the single innovation vector of an analysis: one right-hand side, X(n) written
 * 1-D over B's dimension, in every storage and order; a sliced A with it (the slice is A's). */
static void solve_vector(minv_context *ctx) {
    const size_t n = 300, nn[2] = {n, n}, ln[1] = {n}, chunk[1] = {64}, lsa[3] = {2, n, n};
    const char *const adims[2] = {"row", "col"}, *const vdims[1] = {"obs"}, *const sdims[3] = {"Time", "row", "col"};
    const nct_storage chunked = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = chunk, .deflate = 2};
    double *a_disk = general(n, n, 71, 8), *v = general(n, 1, 72, 0), *other = general(n, n, 73, 8);
    double *sa = malloc(2 * n * n * sizeof *sa);
    memcpy(sa, other, n * n * sizeof *sa);
    memcpy(sa + n * n, a_disk, n * n * sizeof *sa);
    for (size_t k = 0; k < n; k++)
        v[k] = (float)v[k]; /* as stored in NC_FLOAT */
    nct_write("lay_vA.nc", 0, &nc4, "A", NC_DOUBLE, 2, adims, nn, 0, a_disk);
    nct_write("lay_vA.nc", 1, &nc4, "cov", NC_DOUBLE, 3, sdims, lsa, 1, sa);
    nct_write("lay_v4.nc", 0, &chunked, "v", NC_FLOAT, 1, vdims, ln, 0, v);
    nct_write("lay_v3.nc", 0, &classic, "v", NC_DOUBLE, 1, vdims, ln, 0, v);
    double *a_c = nct_c_view(a_disk, n, n);
    const struct {
        const char *a_var, *b_path;
        int fortran, precision, nslice;
        int64_t tile;
    } cases[] = {
        {"A", "lay_v3.nc", 0, MINV_PRECISION_DOUBLE, 0, 0}, {"A", "lay_v3.nc", 1, MINV_PRECISION_DOUBLE, 0, 0},
        {"A", "lay_v4.nc", 0, MINV_PRECISION_SINGLE, 0, 0}, {"A", "lay_v4.nc", 0, MINV_PRECISION_DOUBLE, 0, 50},
        {"cov", "lay_v3.nc", 0, MINV_PRECISION_DOUBLE, 1, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        minv_file_options fo;
        minv_report rep;
        nct_options(&fo);
        fo.fortran_order = cases[c].fortran;
        fo.precision = cases[c].precision;
        fo.tile = cases[c].tile;
        fo.nslice = cases[c].nslice;
        fo.slice[0] = 1; /* cov[1] is A */
        CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "lay_vA.nc", cases[c].a_var, cases[c].b_path, "v", "lay_vX.nc",
                                     NULL, &fo, &rep),
                     MINV_SUCCESS, ctx);
        size_t count;
        int ids[2];
        char names[2][NC_MAX_NAME + 1];
        double *x = nct_read("lay_vX.nc", "X", &count);
        const int rank = var_dims("lay_vX.nc", "X", ids, names);
        CHECK(rank == 1 && strcmp(names[0], "obs") == 0 && count == n && rep.nrhs == 1 && rep.n == (int64_t)n,
              "case %zu: X has rank %d over '%s', %zu values, nrhs %lld", c, rank, names[0], count, (long long)rep.nrhs);
        const double eps = cases[c].precision == MINV_PRECISION_SINGLE ? FLT_EPSILON : DBL_EPSILON;
        const double ratio = tu_solve_ratio((int64_t)n, 1, cases[c].fortran ? a_disk : a_c, (int64_t)n, v, (int64_t)n, x,
                                            (int64_t)n, eps);
        CHECK(ratio < 30, "case %zu (%s from %s, fortran_order %d): ratio %.3g", c, cases[c].a_var, cases[c].b_path,
              cases[c].fortran, ratio);
        char *b_var = nct_read_text_att("lay_vX.nc", "X", "minv_rhs_variable");
        char *kind = nct_read_text_att("lay_vX.nc", "X", "minv_residual_kind");
        CHECK(b_var && strcmp(b_var, "v") == 0, "case %zu: minv_rhs_variable %s", c, b_var ? b_var : "");
        CHECK(kind && strcmp(kind, "||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf)") == 0, "case %zu: residual kind %s", c,
              kind ? kind : "");
        free(b_var);
        free(kind);
        free(x);
    }
    free(a_c);
    free(a_disk);
    free(v);
    free(other);
    free(sa);
}

/* An existing A_inv(n, n) beside another variable, of the result's shape but not its type, or
 * with attributes that change the values read back (ncpdq's packing, a fill value): the
 * result is refused, the file left as it was; of the result's type, it takes the result, and
 * its old attributes go. */
static void typed_existing_variable(minv_context *ctx, const double *a) {
    const size_t n = 8, lens[2] = {8, 8}, other_len[1] = {5};
    const char *const dims[2] = {"n", "n"}, *const odims[1] = {"station"};
    const double other[5] = {1, 2, 3, 4, 5}, scale = 1e-4, offset = 0.5, fill = -999;
    const struct {
        const nct_storage *st;
        nc_type type;
        const double *scale, *offset, *fill;
        const char *says;
    } cases[] = {
        {&nc4, NC_SHORT, &scale, &offset, NULL, "of type NC_SHORT with scale_factor, add_offset"},
        {&classic, NC_SHORT, &scale, NULL, NULL, "of type NC_SHORT with scale_factor"},
        {&classic, NC_INT, NULL, NULL, NULL, "of type NC_INT:"},
        {&nc4, NC_FLOAT, NULL, NULL, NULL, "of type NC_FLOAT:"},
        {&nc4, NC_DOUBLE, NULL, NULL, &fill, "of type NC_DOUBLE with _FillValue"},
        {&classic, NC_DOUBLE, NULL, NULL, NULL, NULL},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nct_storage st = *cases[c].st;
        st.fill = cases[c].fill;
        nct_write("lay_typed.nc", 0, cases[c].st, "other", NC_DOUBLE, 1, odims, other_len, 0, other);
        nct_write("lay_typed.nc", 1, &st, "A_inv", cases[c].type, 2, dims, lens, 0, NULL);
        if (cases[c].scale)
            nct_put_att("lay_typed.nc", "A_inv", "scale_factor", NC_FLOAT, 1, cases[c].scale);
        if (cases[c].offset)
            nct_put_att("lay_typed.nc", "A_inv", "add_offset", NC_FLOAT, 1, cases[c].offset);
        int ncid, varid, id;
        NCT(nc_open("lay_typed.nc", NC_WRITE, &ncid));
        NCT(nc_redef(ncid));
        NCT(nc_inq_varid(ncid, "A_inv", &varid));
        NCT(nc_put_att_text(ncid, varid, "units", 1, "K")); /* an earlier result's: A has none */
        NCT(nc_close(ncid));
        nct_snapshot before = nct_snap("lay_typed.nc");
        const minv_status got = minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_in.nc", "A", "lay_typed.nc", "A_inv", NCT_REPLACE, NULL);
        if (cases[c].says) {
            CHECK(got == MINV_ERR_INVALID_ARG, "case %zu: %s", c, minv_status_string(got));
            HAS(minv_last_error(ctx), cases[c].says);
            HAS(minv_last_error(ctx), "give another output variable name, or write to a new file");
            CHECK(nct_same(&before, "lay_typed.nc") && !nct_tmp_left("lay_typed.nc"), "case %zu: the refusal left changes", c);
        } else {
            CHECK_STATUS(got, MINV_SUCCESS, ctx);
            double *x = nct_read("lay_typed.nc", "A_inv", NULL);
            CHECK(disk_inverse_ratio(a, x, n) < 30, "the inverse written into the existing NC_DOUBLE A_inv");
            free(x);
            NCT(nc_open("lay_typed.nc", NC_NOWRITE, &ncid));
            NCT(nc_inq_varid(ncid, "A_inv", &varid));
            CHECK(nc_inq_attid(ncid, varid, "units", &id) == NC_ENOTATT, "the earlier result's units stayed");
            CHECK(nc_inq_attid(ncid, varid, "minv_version", &id) == NC_NOERR, "the result's attributes are missing");
            NCT(nc_close(ncid));
        }
        nct_snap_free(&before);
    }
}

/* Output into an existing file: added next to other variables, overwritten when of the same
 * shape, refused when of another shape (the file left as it was), classic files kept classic. */
static void into_existing_file(minv_context *ctx) {
    const size_t n = 8, lens[2] = {8, 8}, other_len[1] = {5};
    const char *const dims[2] = {"n", "n"}, *const odims[1] = {"station"};
    const double other[5] = {1, 2, 3, 4, 5};
    double *a = spd(n, 51), *a2 = spd(n, 52);
    const char *hist = "created by the test";
    nct_write("lay_in.nc", 0, &nc4, "A", NC_DOUBLE, 2, dims, lens, 0, a);
    nct_write("lay_in.nc", 1, &nc4, "A2", NC_DOUBLE, 2, dims, lens, 0, a2);
    for (int fmt = 0; fmt < 2; fmt++) {
        const char *out = fmt ? "lay_results_classic.nc" : "lay_results.nc";
        int ncid;
        nct_write(out, 0, fmt ? &classic : &nc4, "other", NC_DOUBLE, 1, odims, other_len, 0, other);
        NCT(nc_open(out, NC_WRITE, &ncid));
        NCT(nc_redef(ncid));
        NCT(nc_put_att_text(ncid, NC_GLOBAL, "history", strlen(hist), hist));
        NCT(nc_close(ncid));
        nct_snapshot input = nct_snap("lay_in.nc");

        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_in.nc", "A", out, "A_inv", NCT_REPLACE, NULL), MINV_SUCCESS, ctx);
        CHECK(nct_same(&input, "lay_in.nc"), "the input was modified");
        double *o = nct_read(out, "other", NULL), *x = nct_read(out, "A_inv", NULL);
        CHECK(memcmp(o, other, sizeof other) == 0, "%s: the other variable changed", out);
        CHECK(disk_inverse_ratio(a, x, n) < 30, "%s: added inverse", out);
        char *h = nct_read_text_att(out, NULL, "history");
        /* the new line first, as NCO prepends its commands */
        const char *older = h ? strstr(h, "\ncreated by the test") : NULL;
        CHECK(older && !older[20] && strstr(h, "test_nc_layouts (minv ") && strstr(h, "inversion of lay_in.nc:A written as A_inv") < older,
              "%s: history \"%s\"", out, h ? h : "");
        int format;
        NCT(nc_open(out, NC_NOWRITE, &ncid));
        NCT(nc_inq_format(ncid, &format));
        NCT(nc_close(ncid));
        CHECK(format == (fmt ? NC_FORMAT_CLASSIC : NC_FORMAT_NETCDF4), "%s: format %d", out, format);
        free(o);
        free(x);
        free(h);

        /* again, from another matrix of the same shape: overwritten */
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_in.nc", "A2", out, "A_inv", NCT_REPLACE, NULL), MINV_SUCCESS, ctx);
        x = nct_read(out, "A_inv", NULL);
        CHECK(disk_inverse_ratio(a2, x, n) < 30, "%s: overwritten inverse", out);
        free(x);
        nct_snap_free(&input);
    }
    /* another shape under the same name: refused, nothing changed, nothing left */
    const size_t lens3[2] = {3, 3};
    const char *const dims3[2] = {"m", "m"};
    double *small = spd(3, 53);
    nct_write("lay_small.nc", 0, &nc4, "S", NC_DOUBLE, 2, dims3, lens3, 0, small);
    nct_snapshot before = nct_snap("lay_results.nc");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_small.nc", "S", "lay_results.nc", "A_inv", NCT_REPLACE, NULL),
                 MINV_ERR_SHAPE, ctx);
    HAS(minv_last_error(ctx), "already has a variable 'A_inv' of another shape");
    CHECK(nct_same(&before, "lay_results.nc") && !nct_tmp_left("lay_results.nc"), "refused output left changes");
    nct_snap_free(&before);
    typed_existing_variable(ctx, a);
    /* a file that holds only the variable (an earlier run's output) is replaced */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_in.nc", "A", "lay_only.nc", "X", NCT_REPLACE, NULL), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_small.nc", "S", "lay_only.nc", "X", NCT_REPLACE, NULL), MINV_SUCCESS, ctx);
    size_t count;
    double *x = nct_read("lay_only.nc", "X", &count);
    CHECK(count == 9 && disk_inverse_ratio(small, x, 3) < 30, "replaced output: %zu values", count);
    free(x);
    free(small);
    free(a);
    free(a2);
}

/* The global history of `path` (malloc'ed) and its type, NC_CHAR or one NC_STRING. */
static char *history_of(const char *path, nc_type *type) {
    int ncid;
    size_t len;
    char *text = NULL;
    NCT(nc_open(path, NC_NOWRITE, &ncid));
    NCT(nc_inq_att(ncid, NC_GLOBAL, "history", type, &len));
    if (*type == NC_STRING) {
        char *s;
        NCT(nc_get_att_string(ncid, NC_GLOBAL, "history", &s));
        text = strdup(s);
        nc_free_string(1, &s);
    } else {
        text = calloc(len + 1, 1);
        NCT(nc_get_att_text(ncid, NC_GLOBAL, "history", text));
    }
    NCT(nc_close(ncid));
    return text;
}

/* A history stored as one NC_STRING, as xarray's h5netcdf engine writes it: kept below the new
 * line, as a string in a netCDF-4 output (new, or added to) and as text in a classic one. */
static void history_as_string(minv_context *ctx) {
    const size_t n = 4, lens[2] = {4, 4};
    const char *const dims[2] = {"x", "y"}, *old = "created by model run 42";
    double *a = spd(n, 95);
    const struct {
        const char *out;
        int32_t format;
        int add; /* into a copy of the input, which has the string history */
        nc_type type;
    } cases[] = {{"lay_hs4.nc", MINV_FORMAT_AUTO, 0, NC_STRING},
                 {"lay_hs3.nc", MINV_FORMAT_CLASSIC, 0, NC_CHAR},
                 {"lay_hs_add.nc", MINV_FORMAT_AUTO, 1, NC_STRING}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        nct_write(cases[c].add ? cases[c].out : "lay_hs.nc", 0, &nc4, "B", NC_DOUBLE, 2, dims, lens, 0, a);
        int ncid;
        NCT(nc_open(cases[c].add ? cases[c].out : "lay_hs.nc", NC_WRITE, &ncid));
        NCT(nc_redef(ncid));
        NCT(nc_put_att_string(ncid, NC_GLOBAL, "history", 1, &old));
        NCT(nc_close(ncid));
        if (cases[c].add)
            nct_write("lay_hs.nc", 0, &nc4, "B", NC_DOUBLE, 2, dims, lens, 0, a);
        minv_file_options fo;
        nct_options(&fo);
        fo.format = cases[c].format;
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_hs.nc", "B", cases[c].out, "B_inv", &fo, NULL), MINV_SUCCESS, ctx);
        nc_type type;
        char *h = history_of(cases[c].out, &type);
        const char *older = strstr(h, "\ncreated by model run 42");
        CHECK(type == cases[c].type && older && !older[24] && strstr(h, "inversion of lay_hs.nc:B written as B_inv") < older,
              "%s: history of type %d \"%s\"", cases[c].out, (int)type, h);
        free(h);
    }
    free(a);
}

static void output_storage_and_attributes(minv_context *ctx) {
    const size_t n = 300, lens[2] = {300, 300};
    const char *const dims[2] = {"x", "y"};
    double *a = spd(n, 61);
    nct_write("lay_big.nc", 0, &classic, "B", NC_DOUBLE, 2, dims, lens, 0, a);
    minv_file_options fo;
    nct_options(&fo);
    fo.deflate_level = 4;
    fo.precision = MINV_PRECISION_SINGLE;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_big.nc", "B", "lay_big_inv.nc", "Binv", &fo, NULL), MINV_SUCCESS, ctx);
    int ncid, varid, storage, shuffle, deflate, level, format;
    size_t chunks[2];
    nc_type type;
    NCT(nc_open("lay_big_inv.nc", NC_NOWRITE, &ncid));
    NCT(nc_inq_format(ncid, &format));
    NCT(nc_inq_varid(ncid, "Binv", &varid));
    NCT(nc_inq_vartype(ncid, varid, &type));
    NCT(nc_inq_var_chunking(ncid, varid, &storage, chunks));
    NCT(nc_inq_var_deflate(ncid, varid, &shuffle, &deflate, &level));
    const char *attrs[] = {"long_name", "minv_source_file", "minv_source_variable", "minv_method", "minv_backend",
                           "minv_residual", "minv_residual_kind", "minv_rcond", "minv_version"};
    for (size_t k = 0; k < sizeof attrs / sizeof attrs[0]; k++) {
        int id;
        CHECK(nc_inq_attid(ncid, varid, attrs[k], &id) == NC_NOERR, "attribute %s missing", attrs[k]);
    }
    NCT(nc_close(ncid));
    CHECK(format == NC_FORMAT_NETCDF4 && type == NC_FLOAT, "format %d, type %d", format, (int)type);
    CHECK(storage == NC_CHUNKED && chunks[0] == 256 && chunks[1] == 256, "chunks %zu x %zu", chunks[0], chunks[1]);
    CHECK(deflate && level == 4, "deflate %d level %d", deflate, level);
    char *src = nct_read_text_att("lay_big_inv.nc", "Binv", "minv_source_file");
    char *method = nct_read_text_att("lay_big_inv.nc", "Binv", "minv_method");
    char *hist = nct_read_text_att("lay_big_inv.nc", NULL, "history");
    CHECK(src && strcmp(src, "lay_big.nc") == 0, "source file %s", src ? src : "");
    CHECK(method && strcmp(method, "cholesky") == 0, "method %s", method ? method : "");
    CHECK(hist && strstr(hist, "minv ") && strstr(hist, "lay_big.nc"), "history %s", hist ? hist : "");
    free(src);
    free(method);
    free(hist);
    free(a);
}

static void analysis(minv_context *ctx) {
    const size_t n = 9, lens[2] = {9, 9};
    const char *const dims[2] = {"i", "j"};
    double a[81] = {0};
    for (size_t i = 0; i < n; i++) {
        a[i * n + i] = 4;
        if (i + 1 < n)
            a[i * n + i + 1] = -1; /* upper only: bandwidth lower 0, upper 1 in C order */
    }
    nct_write("lay_an.nc", 0, &nc4, "T", NC_DOUBLE, 2, dims, lens, 0, a);
    a[2 * n + 6] = NAN; /* (3, 7) 1-based in C order */
    nct_write("lay_an.nc", 1, &nc4, "Tnan", NC_DOUBLE, 2, dims, lens, 0, a);
    minv_analysis an;
    minv_file_options fo;
    nct_options(&fo);
    CHECK_STATUS(minv_analyze_file(ctx, "lay_an.nc", "T", &fo, &an), MINV_SUCCESS, ctx);
    CHECK(an.n == 9 && an.tridiagonal && !an.symmetric && an.lower_bandwidth == 0 && an.upper_bandwidth == 1 &&
              an.auto_method == MINV_METHOD_TRIDIAGONAL,
          "C order: bandwidth %lld/%lld", (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
    fo.fortran_order = 1;
    CHECK_STATUS(minv_analyze_file(ctx, "lay_an.nc", "T", &fo, &an), MINV_SUCCESS, ctx);
    CHECK(an.lower_bandwidth == 1 && an.upper_bandwidth == 0, "Fortran order: bandwidth %lld/%lld",
          (long long)an.lower_bandwidth, (long long)an.upper_bandwidth);
    CHECK_STATUS(minv_analyze_file(ctx, "lay_an.nc", "Tnan", &fo, &an), MINV_SUCCESS, ctx);
    CHECK(!an.finite && an.first_bad_row == 6 && an.first_bad_col == 2, "Fortran order: NaN at (%lld, %lld)",
          (long long)an.first_bad_row, (long long)an.first_bad_col);
    fo.fortran_order = 0;
    CHECK_STATUS(minv_analyze_file(ctx, "lay_an.nc", "Tnan", &fo, &an), MINV_SUCCESS, ctx);
    CHECK(!an.finite && an.first_bad_row == 2 && an.first_bad_col == 6, "C order: NaN at (%lld, %lld)",
          (long long)an.first_bad_row, (long long)an.first_bad_col);
}

/* A matrix symmetric within the tolerance but not enough for Cholesky (upper entries off by
 * up to 5e-6 of the largest, tolerance 1e-5): the file inversion works in place, so when the
 * AUTO Cholesky's residual shows it, A is gone; it is read again and inverted by LU, as the
 * out-of-place call does, never written as Cholesky's wrong answer or refused. */
static void cholesky_residual_in_place(minv_context *ctx) {
    const size_t n = 100, lens[2] = {100, 100};
    const char *const dims[2] = {"row", "col"};
    double *a = spd(n, 29), largest = 0;
    tu_rng rng;
    tu_seed(&rng, 30);
    for (size_t k = 0; k < n * n; k++) largest = fmax(largest, fabs(a[k]));
    for (size_t i = 0; i < n; i++) /* row-major on disk: a[i][j], j > i */
        for (size_t j = i + 1; j < n; j++) a[i * n + j] += 5e-6 * largest * tu_uniform(&rng);
    nct_write("lay_asym.nc", 0, &nc4, "S", NC_DOUBLE, 2, dims, lens, 0, a);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-5), MINV_SUCCESS, ctx);
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "lay_asym.nc", "S", "lay_asym_inv.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "redone by LU: %s (%s)", minv_method_name(rep.method), rep.reason);
    HAS(rep.reason, "so LU, on A read again");
    double *x = nct_read("lay_asym_inv.nc", "S_inv", NULL);
    CHECK(disk_inverse_ratio(a, x, n) < 30, "the inverse of the nearly symmetric S: ratio %.3g",
          disk_inverse_ratio(a, x, n));
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, -1), MINV_SUCCESS, ctx);
    free(a);
    free(x);
}

int main(void) {
    minv_context *ctx = nct_context();
    same_dimension_twice(ctx);
    cholesky_residual_in_place(ctx);
    wrf_time(ctx, &nc4, "lay_wrf4.nc");
    wrf_time(ctx, &classic, "lay_wrf3.nc");
    record_rows(ctx);
    unlimited_rows_nc4(ctx);
    rank4(ctx);
    solve_layouts(ctx);
    solve_sliced(ctx);
    solve_vector(ctx);
    into_existing_file(ctx);
    output_storage_and_attributes(ctx);
    history_as_string(ctx);
    analysis(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_layouts");
}
