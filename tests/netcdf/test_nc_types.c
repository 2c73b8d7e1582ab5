/* Round trips through files written by NetCDF-C itself: every numeric type on disk, every
 * format (classic, 64-bit offset, CDF-5, netCDF-4 contiguous, chunked, chunked and deflated,
 * netCDF-4 classic model), tiles aligned to the chunks or not (partial edges), both compute
 * precisions, packed data, and a matrix large enough for several chunk-aligned tiles. The
 * inverse read back must pass the LAPACK tester's check ||I - A X||_1 / (n ||A||_1 ||X||_1 eps)
 * < 30, and no temporary file may remain. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "nctest.h"

enum { N = 13 };

static const struct {
    const char *name;
    nc_type type;
    int classic; /* allowed in classic and 64-bit offset files */
} types[] = {
    {"double", NC_DOUBLE, 1}, {"float", NC_FLOAT, 1}, {"int", NC_INT, 1},       {"short", NC_SHORT, 1},
    {"byte", NC_BYTE, 1},     {"ubyte", NC_UBYTE, 0}, {"ushort", NC_USHORT, 0}, {"uint", NC_UINT, 0},
    {"int64", NC_INT64, 0},   {"uint64", NC_UINT64, 0},
};

static const size_t chunks_4x6[2] = {4, 6};

static const struct {
    const char *name;
    nct_storage st;
    int all_types;
} storages[] = {
    {"classic", {.cmode = NC_CLOBBER, .chunks = NULL, .deflate = 0}, 0},
    {"offset64", {.cmode = NC_CLOBBER | NC_64BIT_OFFSET, .chunks = NULL, .deflate = 0}, 0},
    {"cdf5", {.cmode = NC_CLOBBER | NC_64BIT_DATA, .chunks = NULL, .deflate = 0}, 1},
    {"nc4contiguous", {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0}, 1},
    {"nc4chunked", {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = chunks_4x6, .deflate = 0}, 1},
    {"nc4deflated", {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = chunks_4x6, .deflate = 5}, 1},
    {"nc4classicmodel", {.cmode = NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL, .chunks = chunks_4x6, .deflate = 1}, 0},
};

static const char *const row_col[2] = {"row", "col"};

/* Non-symmetric, strictly diagonally dominant, small non-negative integers: exact in every
 * type, unsigned ones included. Row-major, as on disk. */
static void integer_matrix(size_t n, double *a) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] = i == j ? 60 + (double)(i % 5) : (double)((i * 7 + j * 3) % 5);
}

/* Inverts `var` of `path` into out.nc and returns the LAPACK-tester ratio of the result. */
static double invert_ratio(minv_context *ctx, const char *path, const char *var, const double *a_disk, size_t n,
                           const minv_file_options *fo, minv_report *rep) {
    const char *out = "types_out.nc";
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, path, var, out, "Ainv", fo, rep);
    CHECK(st == MINV_SUCCESS, "%s: %s", path, minv_last_error(ctx));
    CHECK(!nct_tmp_left(out), "%s: a temporary file is left", path);
    if (st != MINV_SUCCESS)
        return INFINITY;
    size_t count;
    double *x_disk = nct_read(out, "Ainv", &count);
    CHECK(count == n * n, "%s: %zu values", path, count);
    double *a = nct_c_view(a_disk, n, n), *x = nct_c_view(x_disk, n, n);
    double eps = fo->precision == MINV_PRECISION_SINGLE ? FLT_EPSILON : DBL_EPSILON;
    double ratio = tu_inverse_ratio((int64_t)n, a, (int64_t)n, x, (int64_t)n, eps);
    free(a);
    free(x);
    free(x_disk);
    return ratio;
}

static void every_type_and_format(minv_context *ctx) {
    double a[N * N];
    const size_t lens[2] = {N, N};
    integer_matrix(N, a);
    for (size_t s = 0; s < sizeof storages / sizeof storages[0]; s++) {
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            if (!storages[s].all_types && !types[t].classic)
                continue;
            char path[128];
            snprintf(path, sizeof path, "types_%s_%s.nc", storages[s].name, types[t].name);
            nct_write(path, 0, &storages[s].st, "A", types[t].type, 2, row_col, lens, 0, a);
            for (int variant = 0; variant < 3; variant++) {
                minv_file_options fo;
                minv_report rep;
                nct_options(&fo);
                fo.tile = variant == 1 ? 5 : 0; /* 5 x 5 tiles: neither aligned to 4 x 6 chunks nor to 13 */
                fo.precision = variant == 2 ? MINV_PRECISION_SINGLE : MINV_PRECISION_DOUBLE;
                double ratio = invert_ratio(ctx, path, "A", a, N, &fo, &rep);
                CHECK(ratio < 30, "%s variant %d: ratio %.3g", path, variant, ratio);
                CHECK(rep.method == MINV_METHOD_LU && rep.n == N, "%s: method %s, n %lld", path,
                      minv_method_name(rep.method), (long long)rep.n);
                /* the stages, as fields: the bytes stored, read and written */
                size_t size = 0;
                NCT(nc_inq_type(NC_GLOBAL, types[t].type, NULL, &size)); /* atomic types need no file */
                const double stored = (double)(N * N) * (double)size;
                CHECK(rep.stages.read_bytes == stored && rep.stages.read_seconds > 0 && rep.stages.write_seconds > 0 &&
                          rep.stages.write_bytes == (double)(N * N) * (variant == 2 ? 4 : 8) && rep.stages.compute_seconds > 0 &&
                          rep.stages.compute_seconds <= rep.seconds && rep.matrices == 1 && rep.worst == -1 && rep.device == -1,
                      "%s: stages read %g B in %g s, write %g B in %g s, compute %g s of %g", path, rep.stages.read_bytes,
                      rep.stages.read_seconds, rep.stages.write_bytes, rep.stages.write_seconds, rep.stages.compute_seconds, rep.seconds);
            }
        }
    }
}

/* A text attribute on `var` of an existing file. */
static void put_text(const char *path, const char *var, const char *name, const char *text) {
    int ncid, varid;
    NCT(nc_open(path, NC_WRITE, &ncid));
    NCT(nc_inq_varid(ncid, var, &varid));
    NCT(nc_redef(ncid));
    NCT(nc_put_att_text(ncid, varid, name, strlen(text), text));
    NCT(nc_close(ncid));
}

/* Signed integer variables marked _Unsigned = "true" (NUG; netCDF-Java and netCDF4-python write
 * unsigned data so where the format has no unsigned types): the stored bits are unsigned. The
 * diagonal lies above the signed type's range, so a reader that took the values as signed would
 * invert another matrix (its diagonal negative) and fail the check against this one; an entry of
 * stored -1 is the _FillValue 2^bits - 1 (packed ones: packed_case). */
static void unsigned_marked(minv_context *ctx) {
    static const struct {
        const char *name;
        nc_type type;
        int cmode, bits;
    } cases[] = {{"byte_classic", NC_BYTE, NC_CLOBBER, 8},   {"short_nc4", NC_SHORT, NC_CLOBBER | NC_NETCDF4, 16},
                 {"int_cdf5", NC_INT, NC_CLOBBER | NC_64BIT_DATA, 32}, {"short_classic", NC_SHORT, NC_CLOBBER, 16}};
    const size_t lens[2] = {N, N};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const double wrap = ldexp(1, cases[c].bits), top = wrap - 6; /* the diagonal: top - (i % 5) */
        double value[N * N], stored[N * N];
        integer_matrix(N, value);
        for (size_t i = 0; i < N; i++)
            value[i * N + i] = top - (double)(i % 5);
        for (size_t k = 0; k < N * N; k++)
            stored[k] = value[k] >= wrap / 2 ? value[k] - wrap : value[k];
        char path[64];
        snprintf(path, sizeof path, "types_unsigned_%s.nc", cases[c].name);
        const nct_storage st = {.cmode = cases[c].cmode, .chunks = NULL, .deflate = 0};
        nct_write(path, 0, &st, "U", cases[c].type, 2, row_col, lens, 0, stored);
        put_text(path, "U", "_Unsigned", "true");
        minv_file_options fo;
        minv_report rep;
        nct_options(&fo);
        double ratio = invert_ratio(ctx, path, "U", value, N, &fo, &rep);
        CHECK(ratio < 30, "%s: ratio %.3g against the unsigned matrix", path, ratio);
        /* stored -1: the _FillValue, 2^bits - 1 as the variable means it */
        const double minus_one = -1;
        const nct_storage filled = {.cmode = cases[c].cmode, .chunks = NULL, .deflate = 0, .fill = &minus_one};
        stored[2 * N + 7] = -1;
        nct_write(path, 0, &filled, "U", cases[c].type, 2, row_col, lens, 0, stored);
        put_text(path, "U", "_Unsigned", "true");
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, path, "U", "types_out.nc", NULL, &fo, NULL), MINV_ERR_NOT_FINITE, ctx);
        char fill[160];
        snprintf(fill, sizeof fill, "entry (3, 8) (row, column, 1-based; the first bad one in file order) is the _FillValue %.0f",
                 wrap - 1);
        HAS(minv_last_error(ctx), fill);
    }
}

/* CF packing on a short variable: value = stored * scale_factor + add_offset, the stored values
 * base + small integers; marked _Unsigned, those above 32767 are kept as their signed bits. */
static void packed_case(minv_context *ctx, const char *path, int cmode, double base, double scale, double offset,
                        int marked_unsigned) {
    double value[N * N], stored[N * N];
    const size_t lens[2] = {N, N};
    const nct_storage st = {.cmode = cmode, .chunks = NULL, .deflate = 0};
    integer_matrix(N, value);
    for (size_t k = 0; k < N * N; k++) {
        const double u = value[k] + base;
        value[k] = u * scale + offset;
        stored[k] = marked_unsigned && u >= 32768 ? u - 65536 : u;
    }
    nct_write(path, 0, &st, "P", NC_SHORT, 2, row_col, lens, 0, stored);
    if (marked_unsigned)
        put_text(path, "P", "_Unsigned", "true");
    nct_put_att(path, "P", "scale_factor", NC_FLOAT, 1, &scale);
    nct_put_att(path, "P", "add_offset", NC_FLOAT, 1, &offset);
    minv_file_options fo;
    minv_report rep;
    nct_options(&fo);
    double ratio = invert_ratio(ctx, path, "P", value, N, &fo, &rep);
    CHECK(ratio < 30, "%s: ratio %.3g against the unpacked matrix", path, ratio);
}

static void packed(minv_context *ctx) {
    packed_case(ctx, "types_packed.nc", NC_CLOBBER | NC_NETCDF4, 0, 0.25, 1, 0);
    packed_case(ctx, "types_unsigned_packed.nc", NC_CLOBBER, 60000, 0.5, -30000, 1); /* stored 60000 and up */
}

/* The layout convention: inversion gives the same file read in either order. */
static void either_order(minv_context *ctx) {
    double a[N * N];
    const size_t lens[2] = {N, N};
    const nct_storage st = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
    minv_file_options fo;
    nct_options(&fo);
    integer_matrix(N, a);
    nct_write("types_order.nc", 0, &st, "A", NC_DOUBLE, 2, row_col, lens, 0, a);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_LU, "types_order.nc", "A", "types_c.nc", NULL, &fo, NULL), MINV_SUCCESS, ctx);
    fo.fortran_order = 1;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_LU, "types_order.nc", "A", "types_f.nc", NULL, &fo, NULL), MINV_SUCCESS, ctx);
    double *xc = nct_read("types_c.nc", "A_inv", NULL), *xf = nct_read("types_f.nc", "A_inv", NULL);
    double diff = tu_rel_diff(N, N, xc, N, xf, N);
    CHECK(diff < 1e-13, "C and Fortran order give different files: %.3g", diff);
    free(xc);
    free(xf);
}

/* Many chunks: 1030 x 1030 in 128 x 100 chunks, deflated, inflated by the direct path. */
static void many_chunks(minv_context *ctx) {
    const size_t n = 1030, lens[2] = {1030, 1030}, chunks[2] = {128, 100};
    const nct_storage st = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = chunks, .deflate = 1};
    double *a = malloc(n * n * sizeof *a);
    tu_rng rng;
    tu_seed(&rng, 7);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            a[i * n + j] = tu_uniform(&rng) + (i == j ? (double)n : 0);
    nct_write("types_large.nc", 0, &st, "A", NC_DOUBLE, 2, row_col, lens, 0, a);
    minv_file_options fo;
    minv_report rep;
    nct_options(&fo);
    double ratio = invert_ratio(ctx, "types_large.nc", "A", a, n, &fo, &rep);
    CHECK(ratio < 30, "1030 x 1030: ratio %.3g", ratio);
    /* 9 x 11 chunks, the last row and column of them partial */
    HAS(rep.reason, "as 99 chunks of 128 x 100 decompressed, directly on");
    free(a);
}

int main(void) {
    minv_context *ctx = nct_context();
    every_type_and_format(ctx);
    packed(ctx);
    unsigned_marked(ctx);
    either_order(ctx);
    many_chunks(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_types");
}
