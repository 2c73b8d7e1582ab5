/* The file inversion and solve on the GPU, band by band (src_c/banded.c, src_cuda/banded.cu):
 * the matrices go file -> pinned bands -> device and the result back the same way. Each case
 * is checked against the same files on the CPU (values within rounding, the inverse by the
 * LAPACK tester's ratio) and for the path it took (the report's note): bands of rows (C view)
 * and of columns (Fortran view), bands that do not divide n, netCDF-4 chunks and classic rows,
 * SPD and general matrices, double and single precision, solves with B in bands; a device
 * budget that holds A but not A and A^-1 (the host path, out of core); a bad value in the last
 * band (the call fails naming it and leaves no output). Skips (77) without a usable GPU. */
#include <float.h>
#include <math.h>

#include "nctest.h"

static const char *const names[2] = {"row", "col"};

/* The output's values, and the report of inverting in.nc:A on ctx. */
static double *invert(minv_context *ctx, const minv_file_options *fo, const char *out, minv_report *r) {
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "in.nc", "A", out, "X", fo, r), MINV_SUCCESS, ctx);
    size_t count = 0;
    return nct_read(out, "X", &count);
}

/* The largest difference between the GPU's and the CPU's inverses, relative to the largest entry. */
static double difference(const double *x, const double *y, size_t count) {
    double d = 0, m = 0;
    for (size_t k = 0; k < count; k++) {
        d = fmax(d, fabs(x[k] - y[k]));
        m = fmax(m, fabs(y[k]));
    }
    return d / m;
}

/* A (n x n, row-major on disk) written as asked and inverted on both backends. */
static void one_case(minv_context *gpu, minv_context *cpu, const char *label, const nct_storage *st, size_t n,
                     const double *a, int fortran, int single, int64_t tile, const char *expect_note) {
    const size_t lens[2] = {n, n};
    minv_file_options fo;
    minv_report rg, rc;
    nct_options(&fo);
    fo.fortran_order = fortran;
    fo.precision = single ? MINV_PRECISION_SINGLE : MINV_PRECISION_DOUBLE;
    nct_write("in.nc", 0, st, "A", NC_DOUBLE, 2, names, lens, 0, a);
    fo.tile = tile;
    double *xg = invert(gpu, &fo, "gpu.nc", &rg);
    fo.tile = 0;
    double *xc = invert(cpu, &fo, "cpu.nc", &rc);
    /* the disk's row-major A(i, j) is column-major A^T: its inverse X^T is the same file's
     * row-major X, so the ratio reads both as transposed */
    const double eps = single ? FLT_EPSILON : DBL_EPSILON, diff = difference(xg, xc, n * n);
    const double ratio = tu_inverse_ratio((int64_t)n, a, (int64_t)n, xg, (int64_t)n, eps);
    CHECK(rg.backend == MINV_BACKEND_GPU || strcmp(expect_note, "band by band"), "%s: ran on the %s", label,
          minv_backend_name(rg.backend));
    CHECK(strstr(rg.reason, expect_note) != NULL, "%s: the report lacks \"%s\": %s", label, expect_note, rg.reason);
    CHECK(ratio < 30, "%s: inverse ratio %.3g", label, ratio);
    CHECK(diff < 1e3 * eps, "%s: GPU and CPU inverses differ by %.3g", label, diff);
    CHECK(rg.stages.read_seconds > 0 && rg.stages.write_seconds > 0 && rg.stages.upload_bytes > 0,
          "%s: stages read %.3g s, write %.3g s, upload %.3g bytes", label, rg.stages.read_seconds,
          rg.stages.write_seconds, rg.stages.upload_bytes);
    printf("%s: ratio %.2f, difference %.2g, %s\n", label, ratio, diff, rg.reason);
    free(xg);
    free(xc);
}

/* A X = B from in.nc:A and rhs.nc:B (stored nrhs x n when fortran, n x nrhs otherwise) on both
 * backends: X within rounding of the CPU's, by the band path. */
static void solve_case(minv_context *gpu, minv_context *cpu, const char *label, const nct_storage *st, size_t n,
                       const double *a, size_t nrhs, const double *b, int fortran, int64_t tile) {
    static const char *const bnames[2] = {"n", "nrhs"}, *const fnames[2] = {"nrhs", "n"};
    const size_t lens[2] = {n, n}, blens[2] = {fortran ? nrhs : n, fortran ? n : nrhs};
    minv_file_options fo;
    minv_report rg, rc;
    nct_options(&fo);
    fo.fortran_order = fortran;
    nct_write("in.nc", 0, st, "A", NC_DOUBLE, 2, names, lens, 0, a);
    nct_write("rhs.nc", 0, st, "B", NC_DOUBLE, 2, fortran ? fnames : bnames, blens, 0, b);
    fo.tile = tile;
    CHECK_STATUS(minv_solve_file(gpu, MINV_METHOD_AUTO, "in.nc", "A", "rhs.nc", "B", "xg.nc", "X", &fo, &rg), MINV_SUCCESS, gpu);
    fo.tile = 0;
    CHECK_STATUS(minv_solve_file(cpu, MINV_METHOD_AUTO, "in.nc", "A", "rhs.nc", "B", "xc.nc", "X", &fo, &rc), MINV_SUCCESS, cpu);
    size_t count = 0;
    double *xg = nct_read("xg.nc", "X", &count), *xc = nct_read("xc.nc", "X", NULL);
    const double diff = difference(xg, xc, n * nrhs);
    CHECK(count == n * nrhs && diff < 1e3 * DBL_EPSILON, "%s: GPU and CPU solutions differ by %.3g", label, diff);
    CHECK(rg.backend == MINV_BACKEND_GPU && strstr(rg.reason, "A and B came to the device"), "%s: %s: %s", label,
          minv_backend_name(rg.backend), rg.reason);
    CHECK(rg.residual >= 0 && rg.residual < 1e-13, "%s: residual %.3g", label, rg.residual);
    printf("%s: difference %.2g, residual %.2g, %s\n", label, diff, rg.residual, rg.reason);
    free(xg);
    free(xc);
}

int main(void) {
    minv_options o;
    minv_context *gpu = NULL, *cpu = NULL, *small = NULL;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_GPU;
    if (minv_create(&gpu, &o) != MINV_SUCCESS) {
        printf("no usable GPU (%s): skipped\n", minv_last_error(NULL));
        return 77;
    }
    o.backend = MINV_BACKEND_CPU;
    CHECK_STATUS(minv_create(&cpu, &o), MINV_SUCCESS, cpu);

    enum { N = 600, M = 333 };
    static const size_t c64[2] = {64, 64};
    const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4}, chunked = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = c64},
                      classic = {.cmode = NC_CLOBBER};
    const char *banded = "band by band";
    tu_rng rng;
    double *spd = malloc(N * N * sizeof *spd), *general = malloc(M * M * sizeof *general);
    tu_seed(&rng, 41);
    tu_spd(&rng, N, spd, N);
    tu_general(&rng, M, general, M);

    /* netCDF-4 outputs are chunked 256 x 256: bands of 256 rows, the last of 88 */
    one_case(gpu, cpu, "SPD, netCDF-4, C view, bands of rows", &nc4, N, spd, 0, 0, 50, banded);
    one_case(gpu, cpu, "SPD, netCDF-4 64 x 64 chunks, Fortran view, bands of columns", &chunked, N, spd, 1, 0, 50, banded);
    /* classic outputs: bands of 50 rows exactly, 333 = 6 x 50 + 33 */
    one_case(gpu, cpu, "general, classic, C view, bands of 50 rows", &classic, M, general, 0, 0, 50, banded);
    one_case(gpu, cpu, "general, classic, Fortran view, bands of 50 columns", &classic, M, general, 1, 0, 50, banded);
    one_case(gpu, cpu, "general, classic, single precision", &classic, M, general, 0, 1, 50, banded);
    one_case(gpu, cpu, "SPD, netCDF-4, bands of the library's size", &nc4, N, spd, 0, 0, 0, banded);

    /* solves: B in bands of rows (C order on disk) and of columns (written from Fortran) */
    enum { K = 30 };
    double *rhs = malloc(N * K * sizeof *rhs);
    tu_rect(&rng, N, K, rhs, N);
    solve_case(gpu, cpu, "solve SPD, netCDF-4, B n x 30, bands of rows", &nc4, N, spd, K, rhs, 0, 50);
    solve_case(gpu, cpu, "solve SPD, classic, B written from Fortran, bands of columns", &classic, N, spd, K, rhs, 1, 50);
    solve_case(gpu, cpu, "solve general, classic, bands of 50 rows", &classic, M, general, K, rhs, 0, 50);
    free(rhs);

    /* a budget that holds A and its workspace but not A^-1 beside them: the host path */
    o.backend = MINV_BACKEND_GPU;
    o.device_memory = (int64_t)(1.5 * N * N * sizeof(double));
    CHECK_STATUS(minv_create(&small, &o), MINV_SUCCESS, small);
    one_case(small, cpu, "SPD, a device budget of 1.5 matrices", &nc4, N, spd, 0, 0, 50, "do not fit the device budget");

    /* a NaN in the last band: the failure names it, and no output is left */
    spd[(size_t)(N - 1) * N + 3] = NAN;
    const size_t lens[2] = {N, N};
    nct_write("in.nc", 0, &classic, "A", NC_DOUBLE, 2, names, lens, 0, spd);
    minv_file_options fo;
    minv_report r;
    nct_options(&fo);
    fo.tile = 50;
    remove("bad.nc");
    const minv_status st = minv_invert_file(gpu, MINV_METHOD_AUTO, "in.nc", "A", "bad.nc", "X", &fo, &r);
    CHECK(st == MINV_ERR_NOT_FINITE, "NaN in the last band: %s (%s)", minv_status_string(st), minv_last_error(gpu));
    HAS(minv_last_error(gpu), "(600, 4)");
    CHECK(!nct_exists("bad.nc") && !nct_tmp_left("bad.nc"), "a failed inversion left an output");

    free(spd);
    free(general);
    minv_destroy(small);
    minv_destroy(cpu);
    minv_destroy(gpu);
    return tu_finish("test_nc_gpu");
}
