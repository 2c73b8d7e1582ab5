/* Variables inside netCDF-4 groups: every reader finds "analysis/M", "/analysis/M" and
 * "a/b/M" (dimensions of the group itself or of an enclosing one, an unlimited Time of the
 * root kept unlimited in a batch's output); outputs go to the root group, named after the
 * variable without its groups. Misses say which group or variable is not there and what is,
 * a root without variables lists its groups, and an output name with a group is refused. */
#include <float.h>

#include "nctest.h"

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const nct_storage classic = {.cmode = NC_CLOBBER, .chunks = NULL, .deflate = 0};
enum { N = 7 };

/* Row-major SPD matrix number `seed` (symmetric, so either order reads it). */
static void spd(uint64_t seed, double *a) {
    tu_rng rng;
    tu_seed(&rng, seed);
    tu_spd(&rng, N, a, N);
}

static double inverse_ratio(const double *a, const char *path, const char *var) {
    size_t count;
    double *x = nct_read(path, var, &count);
    double r = count == N * N ? tu_inverse_ratio(N, a, N, x, N, DBL_EPSILON) : 1e300;
    free(x);
    return r;
}

/* grp.nc: nothing in the root but dimensions n and an unlimited Time; analysis/M over the
 * root's n, analysis/cov(Time, n, n), analysis/v(n), and a/b/M over dimensions of its own. */
static void write_groups(double *m, double *m2, double *cov, double *v) {
    const size_t nn[2] = {N, N}, tnn[3] = {2, N, N}, ln[1] = {N};
    const char *const dn[2] = {"n", "n"}, *const dtnn[3] = {"Time", "n", "n"}, *const dij[2] = {"i", "j"};
    int ncid, dim;
    spd(1, m);
    spd(2, m2);
    spd(3, cov);
    spd(4, cov + N * N);
    for (int k = 0; k < N; k++)
        v[k] = k + 1;
    NCT(nc_create("grp.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    NCT(nc_def_dim(ncid, "n", N, &dim));
    NCT(nc_def_dim(ncid, "Time", NC_UNLIMITED, &dim));
    NCT(nc_close(ncid));
    nct_write("grp.nc", 1, &nc4, "analysis/M", NC_DOUBLE, 2, dn, nn, 0, m);
    nct_write("grp.nc", 1, &nc4, "analysis/cov", NC_DOUBLE, 3, dtnn, tnn, 1, cov);
    nct_write("grp.nc", 1, &nc4, "analysis/v", NC_DOUBLE, 1, dn, ln, 0, v);
    nct_write("grp.nc", 1, &nc4, "a/b/M", NC_FLOAT, 2, dij, nn, 0, m2);
}

static void found(minv_context *ctx, const double *m, const double *m2, const double *cov, const double *v) {
    minv_report rep;
    nct_snapshot input = nct_snap("grp.nc");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "analysis/M", "grp_inv.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(inverse_ratio(m, "grp_inv.nc", "M_inv") < 30, "analysis/M: its inverse as M_inv in the root");
    char *src = nct_read_text_att("grp_inv.nc", "M_inv", "minv_source_variable");
    CHECK(src && strcmp(src, "analysis/M") == 0, "minv_source_variable %s", src ? src : "");
    free(src);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "/analysis/M", "grp_inv.nc", "Mi", NCT_REPLACE, NULL),
                 MINV_SUCCESS, ctx);
    CHECK(inverse_ratio(m, "grp_inv.nc", "Mi") < 30, "/analysis/M");

    /* nested, single precision on disk: the inverse of the float values */
    double m2f[N * N];
    for (int k = 0; k < N * N; k++)
        m2f[k] = (float)m2[k];
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "a/b/M", "grp_nested.nc", NULL, NCT_REPLACE, NULL),
                 MINV_SUCCESS, ctx);
    CHECK(inverse_ratio(m2f, "grp_nested.nc", "M_inv") < 30, "a/b/M");

    /* a batch over the root's unlimited Time: the output's Time is unlimited too */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "analysis/cov", "grp_batch.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    size_t count;
    double *x = nct_read("grp_batch.nc", "cov_inv", &count);
    for (int t = 0; t < 2 && count == 2 * N * N; t++)
        CHECK(tu_inverse_ratio(N, cov + t * N * N, N, x + t * N * N, N, DBL_EPSILON) < 30, "analysis/cov, Time = %d", t);
    CHECK(count == 2 * N * N, "cov_inv has %zu values", count);
    free(x);
    int ncid, nunlim, unlim[NC_MAX_DIMS];
    char name[NC_MAX_NAME + 1] = "";
    NCT(nc_open("grp_batch.nc", NC_NOWRITE, &ncid));
    NCT(nc_inq_unlimdims(ncid, &nunlim, unlim));
    if (nunlim == 1)
        NCT(nc_inq_dimname(ncid, unlim[0], name));
    NCT(nc_close(ncid));
    CHECK(nunlim == 1 && strcmp(name, "Time") == 0, "the batch's output has %d unlimited dimensions (%s)", nunlim, name);

    /* a solve with A and a 1-D B both in a group, and the analysis */
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "grp.nc", "analysis/M", "grp.nc", "analysis/v", "grp_x.nc", NULL,
                                 NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    x = nct_read("grp_x.nc", "X", &count);
    CHECK(count == N && tu_solve_ratio(N, 1, m, N, v, N, x, N, DBL_EPSILON) < 30, "solve in a group: %zu values", count);
    free(x);
    minv_analysis an;
    CHECK_STATUS(minv_analyze_file(ctx, "grp.nc", "a/b/M", NULL, &an), MINV_SUCCESS, ctx);
    CHECK(an.n == N && an.symmetric, "analysis of a/b/M: n %lld", (long long)an.n);
    CHECK(nct_same(&input, "grp.nc"), "grp.nc was modified");
    nct_snap_free(&input);

    /* an existing output whose root holds only the variable keeps its groups */
    nct_write("grp_keep.nc", 0, &nc4, "kept/other", NC_DOUBLE, 1, (const char *const[]){"k"}, (const size_t[]){N}, 0, v);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "analysis/M", "grp_keep.nc", NULL, NCT_REPLACE, NULL),
                 MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "grp.nc", "/analysis/M", "grp_keep.nc", NULL, NCT_REPLACE, NULL),
                 MINV_SUCCESS, ctx);
    x = nct_read("grp_keep.nc", "kept/other", &count);
    CHECK(count == N && memcmp(x, v, N * sizeof *v) == 0, "the group of an existing output was lost");
    free(x);
}

/* Runs invert from grp.nc:`var` and checks that it failed with `expected`, leaving nothing. */
static const char *invert_fails(minv_context *ctx, const char *path, const char *var, const char *out_var,
                                minv_status expected) {
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, path, var, "grp_out.nc", out_var, NCT_REPLACE, NULL);
    CHECK(st == expected, "%s:%s: %s, expected %s (%s)", path, var, minv_status_string(st), minv_status_string(expected),
          minv_last_error(ctx));
    CHECK(!nct_exists("grp_out.nc") && !nct_tmp_left("grp_out.nc"), "%s:%s: output left behind", path, var);
    return minv_last_error(ctx);
}

static void missing(minv_context *ctx) {
    const char *msg = invert_fails(ctx, "grp.nc", "M", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "'grp.nc' has no variable 'M' (its variables: none; its groups: analysis, a: name a variable in a group by its path, as GROUP/VAR)");
    msg = invert_fails(ctx, "grp.nc", "nothing/M", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "no group 'nothing' in 'grp.nc'; its groups: analysis, a");
    msg = invert_fails(ctx, "grp.nc", "/a/c/M", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "no group '/a/c' in 'grp.nc'; the groups of '/a': b");
    msg = invert_fails(ctx, "grp.nc", "analysis/Q", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "'grp.nc' has no variable 'analysis/Q' (the variables of group 'analysis': M, cov, v)");
    msg = invert_fails(ctx, "grp.nc", "a/b/M/x", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "no group 'a/b/M' in 'grp.nc'; the groups of 'a/b': none");
    msg = invert_fails(ctx, "grp.nc", "analysis/v", NULL, MINV_ERR_SHAPE);
    HAS(msg, "'grp.nc', variable 'analysis/v' has rank 1: a matrix needs 2 dimensions");

    /* a classic file has no groups; its variables are still listed for a plain name */
    double a[N * N];
    spd(5, a);
    nct_write("grp_classic.nc", 0, &classic, "A", NC_DOUBLE, 2, (const char *const[]){"n", "n"}, (const size_t[]){N, N}, 0, a);
    msg = invert_fails(ctx, "grp_classic.nc", "analysis/A", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "no group 'analysis' in 'grp_classic.nc'; its groups: none (only netCDF-4 files have groups)");
    msg = invert_fails(ctx, "grp_classic.nc", "B", NULL, MINV_ERR_NOT_FOUND);
    HAS(msg, "'grp_classic.nc' has no variable 'B' (its variables: A)");

    /* outputs go to the root: an output name with a group is refused before anything is written */
    msg = invert_fails(ctx, "grp.nc", "analysis/M", "analysis/M_inv", MINV_ERR_INVALID_ARG);
    HAS(msg, "output variable 'analysis/M_inv' of 'grp_out.nc' names a group: minv writes its outputs to the root group");
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "grp.nc", "analysis/M", "grp.nc", "analysis/v", "grp_out.nc", "/X",
                                 NCT_REPLACE, NULL),
                 MINV_ERR_INVALID_ARG, ctx);
    CHECK(!nct_exists("grp_out.nc"), "a solve into a group wrote something");
}

int main(void) {
    minv_context *ctx = nct_context();
    double m[N * N], m2[N * N], cov[2 * N * N], v[N];
    write_groups(m, m2, cov, v);
    found(ctx, m, m2, cov, v);
    missing(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_groups");
}
