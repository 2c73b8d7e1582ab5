/* Every bad input of the file entry points: the status, a message that names the file, the
 * variable and (for bad entries) the first (row, column), 1-based; and after each failure no
 * output and no temporary file, an existing output left as it was, the input untouched. */
#include <float.h>
#include <math.h>

#include "nctest.h"

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const nct_storage classic = {.cmode = NC_CLOBBER, .chunks = NULL, .deflate = 0};
static const char *const ij[2] = {"i", "j"};
enum { N = 6 };

static void diag_dominant(double *a) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i * N + j] = i == j ? 10 : 1.0 / (1 + i + 2 * j);
}

/* Runs invert from `path`:`var` into err_out.nc and checks what must hold after a failure. */
static const char *invert_fails(minv_context *ctx, const char *path, const char *var, const minv_file_options *fo,
                                minv_status expected) {
    nct_snapshot input = nct_snap(path);
    minv_report rep;
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, path, var, "err_out.nc", NULL, fo, &rep);
    CHECK(st == expected, "%s:%s: %s, expected %s (%s)", path, var, minv_status_string(st), minv_status_string(expected),
          minv_last_error(ctx));
    CHECK(!nct_exists("err_out.nc") && !nct_tmp_left("err_out.nc"), "%s:%s: output left behind", path, var);
    CHECK(input.size < 0 || nct_same(&input, path), "%s: the input was modified", path);
    nct_snap_free(&input);
    return minv_last_error(ctx);
}

/* The same for a solve of A X = B into err_out.nc. */
static const char *solve_fails(minv_context *ctx, const char *a_path, const char *a_var, const char *b_path,
                               const char *b_var, minv_status expected) {
    minv_report rep;
    minv_status st = minv_solve_file(ctx, MINV_METHOD_AUTO, a_path, a_var, b_path, b_var, "err_out.nc", NULL, NCT_REPLACE, &rep);
    CHECK(st == expected, "solve with %s:%s, %s:%s: %s, expected %s (%s)", a_path, a_var, b_path, b_var,
          minv_status_string(st), minv_status_string(expected), minv_last_error(ctx));
    CHECK(!nct_exists("err_out.nc") && !nct_tmp_left("err_out.nc"), "solve with %s:%s: output left behind", b_path, b_var);
    return minv_last_error(ctx);
}

static void bad_entries(minv_context *ctx) {
    const size_t lens[2] = {N, N};
    double a[N * N], fill = -999, missing[2] = {-1e30, 1e30}, range[2] = {-100, 100};
    minv_file_options fo;
    nct_options(&fo);
    const char *msg;

    /* _FillValue at (3, 5), 1-based in C order; in Fortran order the same entry is (5, 3) */
    diag_dominant(a);
    a[2 * N + 4] = fill;
    const nct_storage with_fill = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0, .fill = &fill};
    nct_write("err_fill.nc", 0, &with_fill, "B", NC_DOUBLE, 2, ij, lens, 0, a);
    msg = invert_fails(ctx, "err_fill.nc", "B", &fo, MINV_ERR_NOT_FINITE);
    HAS(msg, "'err_fill.nc', variable 'B'");
    HAS(msg, "entry (3, 5) (row, column, 1-based");
    HAS(msg, "_FillValue -999");
    fo.fortran_order = 1;
    msg = invert_fails(ctx, "err_fill.nc", "B", &fo, MINV_ERR_NOT_FINITE);
    HAS(msg, "entry (5, 3)");
    fo.fortran_order = 0;
    fo.tile = 2; /* the first bad entry in file order, whatever the tiles */
    a[1 * N + 5] = fill;
    nct_write("err_fill2.nc", 0, &with_fill, "B", NC_DOUBLE, 2, ij, lens, 0, a);
    msg = invert_fails(ctx, "err_fill2.nc", "B", &fo, MINV_ERR_NOT_FINITE);
    HAS(msg, "entry (2, 6)");
    fo.tile = 0;

    /* the default fill of a netCDF-4 variable never written in full */
    {
        int ncid, varid, dims[2];
        size_t start[2] = {0, 0}, count[2] = {N - 1, N};
        NCT(nc_create("err_unwritten.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
        NCT(nc_def_dim(ncid, "n", N, &dims[0]));
        NCT(nc_def_dim(ncid, "m", N, &dims[1]));
        NCT(nc_def_var(ncid, "C", NC_FLOAT, 2, dims, &varid));
        NCT(nc_enddef(ncid));
        NCT(nc_put_vara_double(ncid, varid, start, count, a));
        NCT(nc_close(ncid));
        msg = invert_fails(ctx, "err_unwritten.nc", "C", &fo, MINV_ERR_NOT_FINITE);
        HAS(msg, "entry (6, 1)");
        HAS(msg, "default fill value");
    }

    /* missing_value (two of them), valid_range */
    diag_dominant(a);
    a[4 * N + 1] = 1e30;
    nct_write("err_missing.nc", 0, &classic, "S", NC_DOUBLE, 2, ij, lens, 0, a);
    nct_put_att("err_missing.nc", "S", "missing_value", NC_DOUBLE, 2, missing);
    msg = invert_fails(ctx, "err_missing.nc", "S", &fo, MINV_ERR_NOT_FINITE);
    HAS(msg, "entry (5, 2)");
    HAS(msg, "missing_value");
    diag_dominant(a);
    a[0 * N + 3] = 500;
    nct_write("err_range.nc", 0, &nc4, "V", NC_DOUBLE, 2, ij, lens, 0, a);
    nct_put_att("err_range.nc", "V", "valid_range", NC_DOUBLE, 2, range);
    msg = invert_fails(ctx, "err_range.nc", "V", &fo, MINV_ERR_NOT_FINITE);
    HAS(msg, "entry (1, 4)");
    HAS(msg, "outside the valid range");

    /* packing and validity attributes that are not numbers, or not one number, are refused:
     * ignored, the stored integers would be inverted as they are (CF wants them numeric) */
    {
        static const struct { const char *att; nc_type type; const char *text; size_t n; const char *why; } wrong[] = {
            {"scale_factor", NC_CHAR, "0.001", 5, "its scale_factor attribute is NC_CHAR, not a number"},
            {"add_offset", NC_STRING, NULL, 1, "its add_offset attribute is NC_STRING, not a number"},
            {"valid_range", NC_CHAR, "0 9", 3, "its valid_range attribute is NC_CHAR"},
            {"missing_value", NC_CHAR, "-", 1, "its missing_value attribute is NC_CHAR"},
            {"scale_factor", NC_DOUBLE, NULL, 2, "its scale_factor attribute has 2 values; it needs one"},
            {"scale_factor", NC_DOUBLE, NULL, 0, "scale_factor 0 and add_offset 0 cannot unpack its values"}};
        for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++) {
            int ncid, varid;
            diag_dominant(a);
            for (int e = 0; e < N * N; e++)
                a[e] = round(a[e] * 1000);
            nct_write("err_packed.nc", 0, &nc4, "P", NC_SHORT, 2, ij, lens, 0, a);
            NCT(nc_open("err_packed.nc", NC_WRITE, &ncid));
            NCT(nc_redef(ncid));
            NCT(nc_inq_varid(ncid, "P", &varid));
            const double two[2] = {0.001, 0.001}, zero = 0;
            const char *str = "0.5";
            if (wrong[k].type == NC_CHAR)
                NCT(nc_put_att_text(ncid, varid, wrong[k].att, wrong[k].n, wrong[k].text));
            else if (wrong[k].type == NC_STRING)
                NCT(nc_put_att_string(ncid, varid, wrong[k].att, 1, &str));
            else
                NCT(nc_put_att_double(ncid, varid, wrong[k].att, NC_DOUBLE, wrong[k].n ? wrong[k].n : 1,
                                      wrong[k].n ? two : &zero));
            NCT(nc_close(ncid));
            msg = invert_fails(ctx, "err_packed.nc", "P", &fo, MINV_ERR_INVALID_ARG);
            HAS(msg, "'err_packed.nc', variable 'P'");
            HAS(msg, wrong[k].why);
        }
    }

    /* NaN, +Inf, -Inf; and a double too large for single precision */
    const struct { double value; const char *text; int single; } bad[] = {
        {NAN, "is NaN", 0}, {INFINITY, "is +Inf", 0}, {-INFINITY, "is -Inf", 0}, {1e300, "does not fit in single precision", 1}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        diag_dominant(a);
        a[5 * N + 0] = bad[k].value;
        nct_write("err_nonfinite.nc", 0, &nc4, "D", NC_DOUBLE, 2, ij, lens, 0, a);
        fo.precision = bad[k].single ? MINV_PRECISION_SINGLE : MINV_PRECISION_DOUBLE;
        msg = invert_fails(ctx, "err_nonfinite.nc", "D", &fo, MINV_ERR_NOT_FINITE);
        HAS(msg, "'err_nonfinite.nc', variable 'D'");
        HAS(msg, "entry (6, 1)");
        HAS(msg, bad[k].text);
    }
    fo.precision = MINV_PRECISION_DOUBLE;

    /* a batch whose second matrix holds NaN: the message says which, nothing is written */
    {
        const size_t l3[3] = {3, N, N};
        const char *const d3[3] = {"Time", "n", "n"};
        double c[3 * N * N];
        for (int t = 0; t < 3; t++)
            diag_dominant(c + t * N * N);
        c[N * N + 7] = NAN;
        nct_write("err_batch.nc", 0, &nc4, "cov", NC_DOUBLE, 3, d3, l3, 1, c);
        msg = invert_fails(ctx, "err_batch.nc", "cov", &fo, MINV_ERR_NOT_FINITE);
        HAS(msg, "(Time = 1, 0-based)");
        HAS(msg, "entry (2, 2)");
    }
}

static void bad_files_and_shapes(minv_context *ctx) {
    double a[N * N], v[N];
    const size_t lens[2] = {N, N}, rect[2] = {N, N - 1}, l1[1] = {N}, l4[4] = {2, 2, N, N};
    const char *const d4[4] = {"a", "b", "i", "j"};
    minv_file_options fo;
    nct_options(&fo);
    const char *msg;
    diag_dominant(a);
    for (int k = 0; k < N; k++)
        v[k] = k;

    msg = invert_fails(ctx, "err_no_such_file.nc", "A", &fo, MINV_ERR_NOT_FOUND);
    HAS(msg, "'err_no_such_file.nc'");
    HAS(msg, "No such file");

    nct_write("err_vars.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, a);
    msg = invert_fails(ctx, "err_vars.nc", "nothing", &fo, MINV_ERR_NOT_FOUND);
    HAS(msg, "'err_vars.nc' has no variable 'nothing' (its variables: A)");

    nct_write("err_rect.nc", 0, &nc4, "R", NC_DOUBLE, 2, ij, rect, 0, a);
    msg = invert_fails(ctx, "err_rect.nc", "R", &fo, MINV_ERR_SHAPE);
    HAS(msg, "'err_rect.nc', variable R(i=6, j=5) is a 6 x 5 matrix, not square");

    nct_write("err_rank1.nc", 0, &nc4, "v", NC_DOUBLE, 1, ij, l1, 0, v);
    msg = invert_fails(ctx, "err_rank1.nc", "v", &fo, MINV_ERR_SHAPE);
    HAS(msg, "'err_rank1.nc', variable 'v' has rank 1");

    double *four = malloc(4 * N * N * sizeof *four);
    for (int m = 0; m < 4; m++)
        diag_dominant(four + m * N * N);
    nct_write("err_rank4.nc", 0, &nc4, "w", NC_DOUBLE, 4, d4, l4, 0, four);
    free(four);
    msg = invert_fails(ctx, "err_rank4.nc", "w", &fo, MINV_ERR_SHAPE);
    HAS(msg, "'err_rank4.nc', variable w(a=2, b=2, i=6, j=6) has rank 4: give 2 slice indices (for a, b)");
    fo.nslice = 3;
    msg = invert_fails(ctx, "err_rank4.nc", "w", &fo, MINV_ERR_INVALID_ARG);
    HAS(msg, "3 slice indices given but it has 2 leading dimensions");
    fo.nslice = 2;
    fo.slice[1] = 5;
    msg = invert_fails(ctx, "err_rank4.nc", "w", &fo, MINV_ERR_INVALID_ARG);
    HAS(msg, "slice index 5 is outside dimension b");
    fo.nslice = 1;
    fo.slice[0] = 0;
    msg = invert_fails(ctx, "err_vars.nc", "A", &fo, MINV_ERR_INVALID_ARG);
    HAS(msg, "it is a matrix already");
    fo.nslice = 0;

    { /* a text variable */
        int ncid, dims[2], varid;
        NCT(nc_create("err_text.nc", NC_CLOBBER, &ncid));
        NCT(nc_def_dim(ncid, "i", 2, &dims[0]));
        NCT(nc_def_dim(ncid, "j", 2, &dims[1]));
        NCT(nc_def_var(ncid, "T", NC_CHAR, 2, dims, &varid));
        NCT(nc_close(ncid));
        msg = invert_fails(ctx, "err_text.nc", "T", &fo, MINV_ERR_INVALID_ARG);
        HAS(msg, "'err_text.nc', variable 'T' is NC_CHAR, not a numeric type");
    }
    { /* an unlimited Time with no records yet */
        const size_t l3[3] = {0, N, N};
        const char *const d3[3] = {"Time", "n", "n"};
        nct_write("err_empty.nc", 0, &nc4, "cov", NC_DOUBLE, 3, d3, l3, 1, NULL);
        msg = invert_fails(ctx, "err_empty.nc", "cov", &fo, MINV_ERR_SHAPE);
        HAS(msg, "holds no matrices");
    }

    /* truncated files: classic (netCDF-C would read zeros) and netCDF-4 */
    const char *formats[2] = {"err_trunc3.nc", "err_trunc4.nc"};
    for (int f = 0; f < 2; f++) {
        nct_write(formats[f], 0, f ? &nc4 : &classic, "A", NC_DOUBLE, 2, ij, lens, 0, a);
        nct_snapshot whole = nct_snap(formats[f]);
        FILE *out = fopen(formats[f], "wb");
        fwrite(whole.bytes, 1, (size_t)whole.size * 2 / 3, out);
        fclose(out);
        nct_snap_free(&whole);
        msg = invert_fails(ctx, formats[f], "A", &fo, MINV_ERR_IO);
        HAS(msg, formats[f]);
        HAS(msg, f ? "not a readable netCDF file" : "is truncated");
    }
    { /* not a netCDF file at all */
        FILE *out = fopen("err_garbage.nc", "wb");
        fputs("this is not netCDF\n", out);
        fclose(out);
        msg = invert_fails(ctx, "err_garbage.nc", "A", &fo, MINV_ERR_IO);
        HAS(msg, "'err_garbage.nc' is not a readable netCDF file");
    }
}

static void bad_outputs_and_numerics(minv_context *ctx) {
    double a[N * N];
    const size_t lens[2] = {N, N};
    minv_report rep;
    diag_dominant(a);
    nct_write("err_A.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, a);
    nct_snapshot input = nct_snap("err_A.nc");

    /* the output is the input: refused, untouched */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "err_A.nc", "A_inv", NCT_REPLACE, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "minv never modifies its input");
    CHECK(nct_same(&input, "err_A.nc") && !nct_tmp_left("err_A.nc"), "the input was touched");
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "err_A.nc", "A", "./err_A.nc", "X", NCT_REPLACE, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    CHECK(nct_same(&input, "err_A.nc"), "the input was touched by solve");

    /* a directory that does not exist */
    /* URLs: an input only when asked (netCDF-C would fetch it), an output never */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "https://127.0.0.1:9/err_A.nc", "A", "err_out.nc", NULL, NCT_REPLACE,
                                  &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "input 'https://127.0.0.1:9/err_A.nc' is a URL: minv reads remote data only when asked");
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "[log]http://127.0.0.1:9/b.nc", "B", "err_out.nc",
                                 NULL, NCT_REPLACE, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "is a URL");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "file:///tmp/err_out.nc", NULL, NCT_REPLACE, &rep),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'file:///tmp/err_out.nc' is a URL: minv writes its outputs to local files only");
    {
        minv_file_options remote;
        nct_options(&remote);
        remote.allow_remote = 1; /* asked: netCDF-C tries, and nothing listens on port 9 */
        minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, "http://127.0.0.1:9/err_A.nc", "A", "err_out.nc", NULL,
                                          &remote, &rep);
        CHECK(st != MINV_SUCCESS && !strstr(minv_last_error(ctx), "is a URL"), "allow_remote: %s", minv_last_error(ctx));
        CHECK(!nct_exists("err_out.nc"), "allow_remote: an output");
    }
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "no_such_dir/out.nc", NULL, NCT_REPLACE, &rep),
                 MINV_ERR_NOT_FOUND, ctx);
    HAS(minv_last_error(ctx), "the directory 'no_such_dir' does not exist");

    /* a failure keeps an existing output as it was */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "err_kept.nc", NULL, NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    { /* what it wrote holds: the disk's row-major arrays, read as column-major, are A^T and
       * X^T, whose product is I too */
        double *x = nct_read("err_kept.nc", "A_inv", NULL);
        CHECK(tu_inverse_ratio(N, a, N, x, N, DBL_EPSILON) < 30, "the kept output: ratio %.3g",
              tu_inverse_ratio(N, a, N, x, N, DBL_EPSILON));
        free(x);
    }
    nct_snapshot kept = nct_snap("err_kept.nc");
    double b[N * N] = {0}; /* singular: a zero matrix */
    nct_write("err_zero.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, b);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_LU, "err_zero.nc", "A", "err_kept.nc", NULL, NCT_REPLACE, &rep), MINV_ERR_SINGULAR, ctx);
    HAS(minv_last_error(ctx), "'err_zero.nc', variable 'A': ");
    CHECK(nct_same(&kept, "err_kept.nc") && !nct_tmp_left("err_kept.nc"), "the earlier output changed");
    nct_snap_free(&kept);

    /* not positive definite, with Cholesky forced: the library's error, with file and variable */
    for (int k = 0; k < N * N; k++)
        b[k] = a[k];
    b[3 * N + 3] = -10;
    nct_write("err_indef.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, b);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_CHOLESKY, "err_indef.nc", "A", "err_out.nc", NULL, NCT_REPLACE, &rep),
                 MINV_ERR_NOT_SPD, ctx);
    HAS(minv_last_error(ctx), "'err_indef.nc', variable 'A'");
    CHECK(!nct_exists("err_out.nc") && !nct_tmp_left("err_out.nc"), "output left after NOT_SPD");

    /* B whose dimensions do not fit A */
    const size_t bl[2] = {N + 1, 2};
    const char *const bd[2] = {"obs", "k"};
    nct_write("err_B.nc", 0, &nc4, "B", NC_DOUBLE, 2, bd, bl, 0, b);
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "err_B.nc", "B", "err_out.nc", NULL, NCT_REPLACE, &rep),
                 MINV_ERR_SHAPE, ctx);
    HAS(minv_last_error(ctx), "one of B's dimensions must have length 6");
    CHECK(!nct_exists("err_out.nc") && !nct_tmp_left("err_out.nc"), "output left after a solve failed");

    /* a 1-D B: one right-hand side of the wrong length, with a NaN, of rank 0; a 1-D A */
    const size_t vl[1] = {N + 1};
    const char *const vd[1] = {"obs"};
    double v[N + 1] = {1, 2, 3, 4, 5, 6, 7};
    nct_write("err_v.nc", 0, &nc4, "v7", NC_DOUBLE, 1, vd, vl, 0, v);
    HAS(solve_fails(ctx, "err_A.nc", "A", "err_v.nc", "v7", MINV_ERR_SHAPE),
        "'err_v.nc', variable 'v7' has 7 entries (along obs), but A is 6 x 6: a right-hand side vector needs 6");
    v[2] = NAN;
    nct_write("err_v.nc", 1, &nc4, "vnan", NC_DOUBLE, 1, ij, (const size_t[1]){N}, 0, v);
    HAS(solve_fails(ctx, "err_A.nc", "A", "err_v.nc", "vnan", MINV_ERR_NOT_FINITE),
        "'err_v.nc', variable 'vnan': entry 3 (1-based; the first bad one) is NaN");
    /* B stored transposed, BT(k, n): the bad entry where it is stored, (2, 5) as ncdump shows
     * it, not at B's (5, 2); in Fortran order the same entry is (5, 2) */
    {
        const size_t tl[2] = {3, N};
        const char *const td[2] = {"k", "n"};
        double bt[3 * N];
        for (int e = 0; e < 3 * N; e++)
            bt[e] = e;
        bt[1 * N + 4] = NAN;
        nct_write("err_v.nc", 1, &nc4, "BT", NC_DOUBLE, 2, td, tl, 0, bt);
        HAS(solve_fails(ctx, "err_A.nc", "A", "err_v.nc", "BT", MINV_ERR_NOT_FINITE),
            "'err_v.nc', variable 'BT': entry (2, 5) (row, column, 1-based; the first bad one in file order) is NaN");
        minv_file_options fo;
        nct_options(&fo);
        fo.fortran_order = 1;
        CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "err_v.nc", "BT", "err_out.nc", NULL, &fo, NULL),
                     MINV_ERR_NOT_FINITE, ctx);
        HAS(minv_last_error(ctx), "variable 'BT': entry (5, 2)");
    }
    nct_write("err_v.nc", 1, &nc4, "scalar", NC_DOUBLE, 0, NULL, NULL, 0, v);
    HAS(solve_fails(ctx, "err_A.nc", "A", "err_v.nc", "scalar", MINV_ERR_SHAPE),
        "variable 'scalar' has rank 0: a vector needs 1 dimension, a matrix 2");
    HAS(solve_fails(ctx, "err_v.nc", "vnan", "err_A.nc", "A", MINV_ERR_SHAPE),
        "'err_v.nc', variable 'vnan' has rank 1: a matrix needs 2 dimensions");

    /* arguments */
    minv_file_options fo;
    nct_options(&fo);
    CHECK(minv_invert_file(NULL, MINV_METHOD_AUTO, "err_A.nc", "A", "x.nc", NULL, NULL, NULL) == MINV_ERR_INVALID_ARG, "NULL ctx");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, NULL, "A", "x.nc", NULL, NCT_REPLACE, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "minv_invert_file: argument 3 (in_path) is NULL");
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "a", "A", "b", "", "x", NULL, NCT_REPLACE, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 6 (b_var) is empty");
    CHECK_STATUS(minv_invert_file(ctx, (minv_method)42, "err_A.nc", "A", "x.nc", NULL, NCT_REPLACE, NULL), MINV_ERR_INVALID_ARG, ctx);
    fo.deflate_level = 10;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "x.nc", NULL, &fo, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "deflate_level = 10");
    nct_options(&fo);
    fo.nslice = 1;
    fo.slice[0] = -1;
    CHECK_STATUS(minv_analyze_file(ctx, "err_A.nc", "A", &fo, NULL), MINV_ERR_INVALID_ARG, ctx);
    minv_analysis an;
    CHECK_STATUS(minv_analyze_file(ctx, "err_A.nc", "A", &fo, &an), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "slice[0] = -1");
    nct_options(&fo);
    fo.index_base = 2;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "x.nc", NULL, &fo, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (fopts): index_base = 2 must be 0 or 1");
    nct_options(&fo);
    fo.format = 9;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "err_A.nc", "A", "x.nc", NULL, &fo, NULL), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (fopts): format = 9 is not a minv_file_format");
    CHECK(!nct_exists("x.nc"), "x.nc written");
    nct_snap_free(&input);
}

int main(void) {
    minv_context *ctx = nct_context();
    bad_entries(ctx);
    bad_files_and_shapes(ctx);
    bad_outputs_and_numerics(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_errors");
}
