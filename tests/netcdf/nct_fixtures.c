/* The files of test_cli.cmake that `minv generate` cannot make, written through NetCDF-C into
 * the current directory:
 *   cli_vec.nc  A(n, n) general, v(n) and w(m) with m = n - 1: one right-hand side, and one
 *               of the wrong length;
 *   cli_grp.nc  no variables in the root (only its dimension n); in group analysis: M(n, n)
 *               SPD, v(n), the bands DL(m), D(n), DU(m) of a tridiagonal matrix, and in
 *               analysis/inner another M(n, n). */
#include "nctest.h"

enum { N = 40 };

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const char *const nn[2] = {"n", "n"}, *const m1[1] = {"m"};
static const size_t lnn[2] = {N, N}, ln[1] = {N}, lm[1] = {N - 1};

int main(void) {
    double a[N * N], v[N], d[N], off[N];
    tu_rng rng;
    tu_seed(&rng, 2024);
    for (int k = 0; k < N; k++) {
        v[k] = tu_uniform(&rng);
        d[k] = 4 + tu_uniform(&rng);
        off[k] = tu_uniform(&rng);
    }
    tu_general(&rng, N, a, N);
    nct_write("cli_vec.nc", 0, &nc4, "A", NC_DOUBLE, 2, nn, lnn, 0, a);
    nct_write("cli_vec.nc", 1, &nc4, "v", NC_DOUBLE, 1, nn, ln, 0, v);
    nct_write("cli_vec.nc", 1, &nc4, "w", NC_DOUBLE, 1, m1, lm, 0, v);

    int ncid, dim;
    NCT(nc_create("cli_grp.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    NCT(nc_def_dim(ncid, "n", N, &dim));
    NCT(nc_close(ncid));
    tu_spd(&rng, N, a, N);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/M", NC_DOUBLE, 2, nn, lnn, 0, a);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/v", NC_DOUBLE, 1, nn, ln, 0, v);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/DL", NC_DOUBLE, 1, m1, lm, 0, off);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/D", NC_DOUBLE, 1, nn, ln, 0, d);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/DU", NC_DOUBLE, 1, m1, lm, 0, off + 1);
    tu_spd(&rng, N, a, N);
    nct_write("cli_grp.nc", 1, &nc4, "analysis/inner/M", NC_DOUBLE, 2, nn, lnn, 0, a);
    return 0;
}
