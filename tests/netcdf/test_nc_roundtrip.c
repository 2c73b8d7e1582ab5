/* The direct reader and writer against NetCDF-C's path, bit for bit, on every layout the
 * readers take: each numeric type; netCDF-4 contiguous, chunked (chunks that divide the
 * matrix and chunks that do not, a chunk of one row, chunks across a batch's dimension),
 * deflated with and without shuffle, big-endian; classic, 64-bit offset and CDF-5 (record
 * variables beside another record variable); groups; a time slice and a batch; both views;
 * both precisions; a 1-D variable; packed values; tiles that do not divide n; missing values
 * met by threads in any order; a chunk never written. Files are written by NetCDF-C itself
 * (nctest.c), and every read is also compared with nc_get_var_double's values. The writer's
 * files are compared with NetCDF-C's own for every format, type, view and rank.
 *
 * Internal interface (ncio.h): the direct path must have been taken wherever the layout
 * allows it, so that no comparison passes by both sides taking NetCDF-C's path. */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>

#include "ncio.h"
#include "nctest.h"

/* Distinct values every type holds: integers within its range, others of varied sign and
 * magnitude. */
static double *values(size_t count, nc_type t, uint64_t seed) {
    static const double range[] = {[NC_BYTE] = 120, [NC_UBYTE] = 250, [NC_SHORT] = 30000, [NC_USHORT] = 60000,
                                   [NC_INT] = 2e9, [NC_UINT] = 4e9, [NC_INT64] = 9e15, [NC_UINT64] = 1.8e16};
    tu_rng rng;
    double *v = malloc(count * sizeof *v);
    tu_seed(&rng, seed);
    for (size_t k = 0; k < count; k++) {
        const double u = tu_uniform(&rng);
        if (t == NC_FLOAT || t == NC_DOUBLE)
            v[k] = u * pow(10, (double)(k % 7) - 3);
        else if (t == NC_UBYTE || t == NC_USHORT || t == NC_UINT || t == NC_UINT64)
            v[k] = floor(fabs(u) * range[t]);
        else
            v[k] = floor(u * range[t]);
    }
    return v;
}

/* Matrix k of s read in bands of `band` stored rows and put together, against the whole read
 * (bit for bit), or failing as the whole read failed (the same message for a bad value). */
static void read_in_bands(minv_context *ctx, const char *label, minv_nc_source *s, int64_t k, minv_dtype t, int64_t band,
                          const void *whole, minv_status expect, const char *why) {
    const size_t es = (size_t)t, rows = (size_t)s->rows, cols = (size_t)s->cols;
    const int by_rows = s->view == MINV_NC_C_VIEW;
    char *all = calloc(rows * cols, es);
    minv_status st = MINV_SUCCESS;
    for (int64_t at = 0; at < (int64_t)s->d0 && st == MINV_SUCCESS; at += band) {
        const size_t count = (size_t)((int64_t)s->d0 - at < band ? (int64_t)s->d0 - at : band);
        minv_mat m = by_rows ? (minv_mat){t, (int64_t)count, s->cols, (int64_t)count, malloc(count * cols * es)}
                             : (minv_mat){t, s->rows, (int64_t)count, s->rows, malloc(rows * count * es)};
        st = minv_nc_source_read_band(ctx, s, k, at, (int64_t)count, 0, &m);
        if (st == MINV_SUCCESS && by_rows)
            for (size_t j = 0; j < cols; j++)
                memcpy(all + (j * rows + (size_t)at) * es, (char *)m.data + j * count * es, count * es);
        else if (st == MINV_SUCCESS)
            memcpy(all + (size_t)at * rows * es, m.data, rows * count * es);
        free(m.data);
    }
    CHECK(st == expect, "%s, matrix %lld in bands of %lld: %s (%s)", label, (long long)k, (long long)band,
          minv_status_string(st), minv_last_error(ctx));
    if (st == MINV_SUCCESS && expect == MINV_SUCCESS)
        CHECK(memcmp(all, whole, rows * cols * es) == 0, "%s, matrix %lld in bands of %lld: values differ from the whole read",
              label, (long long)k, (long long)band);
    else if (st == expect && expect == MINV_ERR_NOT_FINITE)
        CHECK(strcmp(minv_last_error(ctx), why) == 0, "%s in bands of %lld: messages differ:\n  %s\n  %s", label,
              (long long)band, minv_last_error(ctx), why);
    free(all);
}

/* Reads every matrix of var through the direct path and through NetCDF-C alone, in precision
 * t, and compares them bit for bit (and bad values' messages word for word); checks that the direct
 * path was taken when it should be. A chunked variable is read a third time with its chunks
 * through HDF5 (the path of datasets of many chunks), bit for bit too. Returns matrix 0 as read
 * (the caller frees it). */
static void *read_both(minv_context *ctx, const char *label, const char *path, const char *var,
                       const minv_file_options *fo, int flags, minv_dtype t, int expect_direct, minv_status expect,
                       minv_nc_source *info) {
    minv_nc_source a, b, c;
    void *first = NULL;
    CHECK_STATUS(minv_nc_source_open(ctx, &a, path, var, fo, flags), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_nc_source_open(ctx, &b, path, var, fo, flags | MINV_NC_LIBRARY), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_nc_source_open(ctx, &c, path, var, fo, flags | MINV_NC_CHUNKS_BY_LIBRARY), MINV_SUCCESS, ctx);
    const int by_library = c.direct.by_library;
    const size_t bytes = (size_t)a.rows * (size_t)a.cols * (size_t)t;
    for (int64_t k = 0; k < a.count; k++) {
        minv_mat ma = {t, a.rows, a.cols, a.rows, malloc(bytes)}, mb = {t, b.rows, b.cols, b.rows, malloc(bytes)};
        char why_a[MINV_ERROR_LEN], why_b[MINV_ERROR_LEN];
        const minv_status sa = minv_nc_source_read(ctx, &a, k, 0, &ma);
        snprintf(why_a, sizeof why_a, "%s", minv_last_error(ctx));
        const minv_status sb = minv_nc_source_read(ctx, &b, k, 0, &mb);
        snprintf(why_b, sizeof why_b, "%s", minv_last_error(ctx));
        CHECK(sa == expect && sb == expect, "%s, matrix %lld: %s / %s (%s / %s)", label, (long long)k,
              minv_status_string(sa), minv_status_string(sb), why_a, why_b);
        if (sa == MINV_SUCCESS && sb == MINV_SUCCESS)
            CHECK(memcmp(ma.data, mb.data, bytes) == 0, "%s, matrix %lld: direct and NetCDF-C values differ", label, (long long)k);
        if (by_library) {
            const minv_status sc = minv_nc_source_read(ctx, &c, k, 0, &mb);
            CHECK(sc == sa && (sc != MINV_SUCCESS || memcmp(ma.data, mb.data, bytes) == 0),
                  "%s, matrix %lld: chunks through HDF5: %s, values %s", label, (long long)k, minv_status_string(sc),
                  sc == MINV_SUCCESS ? "differ" : "not read");
        }
        else if (expect == MINV_ERR_NOT_FINITE) /* the same entry named the same way (I/O failures differ) */
            CHECK(strcmp(why_a, why_b) == 0, "%s: messages differ:\n  %s\n  %s", label, why_a, why_b);
        /* in bands of stored rows, as the file inversion reads (one row, and bands that cut chunks) */
        const int64_t bands[2] = {a.d0 <= 64 ? 1 : (int64_t)a.d0 / 16 + 1, (int64_t)a.d0 / 3 + 1};
        for (int h = 0; h < 2 && sa == expect; h++) {
            read_in_bands(ctx, label, &a, k, t, bands[h], ma.data, expect, why_a);
            read_in_bands(ctx, label, &b, k, t, bands[h], ma.data, expect, why_a);
            if (by_library)
                read_in_bands(ctx, label, &c, k, t, bands[h], ma.data, expect, why_a);
        }
        if (k == 0)
            first = ma.data;
        else
            free(ma.data);
        free(mb.data);
    }
    if (a.batch && expect == MINV_SUCCESS) { /* the batch read of whole matrices: all of them at once */
        void *all = malloc(bytes * (size_t)a.count), *one = malloc(bytes);
        double *disk = malloc(a.d0 * a.d1 * (size_t)a.count * sizeof *disk);
        CHECK_STATUS(minv_nc_source_read_matrices(ctx, &a, 0, a.count, disk, t, all), MINV_SUCCESS, ctx);
        for (int64_t k = 0; k < a.count; k++) {
            minv_mat m = {t, b.rows, b.cols, b.rows, one};
            CHECK_STATUS(minv_nc_source_read(ctx, &b, k, 0, &m), MINV_SUCCESS, ctx);
            CHECK(memcmp((char *)all + (size_t)k * bytes, one, bytes) == 0, "%s: matrix %lld of the batch read differs",
                  label, (long long)k);
        }
        free(all);
        free(one);
        free(disk);
    }
    CHECK(!expect_direct || a.direct_units > 0, "%s: the direct path was not taken (%s)", label, a.direct.why_not);
    CHECK(b.direct_units == 0 && b.tiles > 0, "%s: NetCDF-C's path was not taken", label);
    CHECK(!by_library || c.direct_units > 0, "%s: the chunks through HDF5 were not read directly (%s)", label, c.direct.why_not);
    if (info)
        *info = a;
    minv_nc_source_close(&a);
    minv_nc_source_close(&b);
    minv_nc_source_close(&c);
    return first;
}

/* matrix (a C-view or Fortran-view read of a 2-D variable) against nc_get_var_double's
 * values, unpacked by scale and offset, in precision t. */
static void check_reference(const char *label, const char *path, const char *var, const void *matrix, size_t d0,
                            size_t d1, int fortran, minv_dtype t, double scale, double offset) {
    double *disk = nct_read(path, var, NULL);
    int same = 1;
    for (size_t r = 0; r < d0; r++)
        for (size_t c = 0; c < d1; c++) {
            const double v = disk[r * d1 + c] * scale + offset;
            const size_t at = fortran ? r * d1 + c : c * d0 + r;
            if (t == MINV_R64)
                same &= memcmp(&((const double *)matrix)[at], &v, sizeof v) == 0;
            else {
                const float f = (float)v;
                same &= memcmp(&((const float *)matrix)[at], &f, sizeof f) == 0;
            }
        }
    CHECK(same, "%s: values differ from nc_get_var_double's", label);
    free(disk);
}

/* ---- reading ---- */

static const char *const rc[2] = {"row", "col"};

static void every_type_and_storage(minv_context *ctx) {
    static const nc_type types[] = {NC_DOUBLE, NC_FLOAT, NC_INT, NC_SHORT, NC_BYTE,
                                    NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64};
    static const size_t c8[2] = {8, 8}, c16[2] = {16, 16}, whole[2] = {37, 23}, row[2] = {1, 23}, tall[2] = {37, 5};
    const size_t lens[2] = {37, 23}, lens64[2] = {64, 64};
    struct {
        const char *name;
        nct_storage st;
        int classic_types; /* only the types of netCDF-3 */
        int direct;        /* the direct path applies */
        int square64;      /* 64 x 64 (16 x 16 chunks divide it) */
    } cases[] = {
        {"netCDF-4 contiguous", {NC_CLOBBER | NC_NETCDF4, NULL, 0}, 0, 1, 0},
        {"netCDF-4 8 x 8 chunks", {NC_CLOBBER | NC_NETCDF4, c8, 0}, 0, 1, 0},
        {"netCDF-4 16 x 16 chunks of 64", {NC_CLOBBER | NC_NETCDF4, c16, 0}, 0, 1, 1},
        {"netCDF-4 one chunk", {NC_CLOBBER | NC_NETCDF4, whole, 0}, 0, 1, 0},
        {"netCDF-4 row chunks", {NC_CLOBBER | NC_NETCDF4, row, 0}, 0, 1, 0},
        {"netCDF-4 tall chunks, deflate 1 + shuffle", {NC_CLOBBER | NC_NETCDF4, tall, 1}, 0, 1, 0},
        {"netCDF-4 8 x 8, deflate 4, no shuffle", {NC_CLOBBER | NC_NETCDF4, c8, 4, NULL, 1}, 0, 1, 0},
        {"netCDF-4 big-endian contiguous", {NC_CLOBBER | NC_NETCDF4, NULL, 0, NULL, 0, 1}, 0, 1, 0},
        {"netCDF-4 big-endian 8 x 8 deflated", {NC_CLOBBER | NC_NETCDF4, c8, 2, NULL, 0, 1}, 0, 1, 0},
        {"netCDF-4 classic model", {NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL, c8, 1}, 1, 1, 0},
        {"classic", {NC_CLOBBER, NULL, 0}, 1, 1, 0},
        {"64-bit offset", {NC_CLOBBER | NC_64BIT_OFFSET, NULL, 0}, 1, 1, 0},
        {"CDF-5", {NC_CLOBBER | NC_64BIT_DATA, NULL, 0}, 0, 1, 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t ty = 0; ty < sizeof types / sizeof types[0]; ty++) {
            const nc_type t = types[ty];
            if (cases[c].classic_types && t > NC_DOUBLE)
                continue;
            const size_t *l = cases[c].square64 ? lens64 : lens;
            double *v = values(l[0] * l[1], t, 100 + ty);
            nct_write("rt_in.nc", 0, &cases[c].st, "M", t, 2, rc, l, 0, v);
            for (int fortran = 0; fortran < 2; fortran++)
                for (int single = 0; single < 2; single++) {
                    char label[256];
                    minv_file_options fo;
                    minv_file_options_default(&fo);
                    fo.fortran_order = fortran;
                    const minv_dtype dt = single ? MINV_R32 : MINV_R64;
                    snprintf(label, sizeof label, "%s, %s, %s view, %s", cases[c].name, minv_nc_type_name(t),
                             fortran ? "Fortran" : "C", single ? "single" : "double");
                    void *m = read_both(ctx, label, "rt_in.nc", "M", &fo, 0, dt, cases[c].direct, MINV_SUCCESS, NULL);
                    check_reference(label, "rt_in.nc", "M", m, l[0], l[1], fortran, dt, 1, 0);
                    free(m);
                }
            free(v);
        }
}

/* A tile edge that divides neither n nor the chunks: NetCDF-C's tiles against the direct path. */
static void tiles_asked_for(minv_context *ctx) {
    static const size_t c8[2] = {8, 8};
    const size_t lens[2] = {37, 37};
    const nct_storage st = {NC_CLOBBER | NC_NETCDF4, c8, 3};
    double *v = values(37 * 37, NC_DOUBLE, 7);
    nct_write("rt_tile.nc", 0, &st, "M", NC_DOUBLE, 2, rc, lens, 0, v);
    minv_file_options fo;
    minv_file_options_default(&fo);
    minv_nc_source direct, tiled;
    minv_mat a = {MINV_R64, 37, 37, 37, malloc(37 * 37 * 8)}, b = {MINV_R64, 37, 37, 37, malloc(37 * 37 * 8)};
    CHECK_STATUS(minv_nc_source_open(ctx, &direct, "rt_tile.nc", "M", &fo, 0), MINV_SUCCESS, ctx);
    fo.tile = 5;
    CHECK_STATUS(minv_nc_source_open(ctx, &tiled, "rt_tile.nc", "M", &fo, 0), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_nc_source_read(ctx, &direct, 0, 0, &a), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_nc_source_read(ctx, &tiled, 0, 0, &b), MINV_SUCCESS, ctx);
    CHECK(memcmp(a.data, b.data, 37 * 37 * 8) == 0, "5 x 5 tiles and the direct path differ");
    CHECK(direct.direct_units == 25 && tiled.tiles == 64, "units: %lld chunks, %lld tiles", (long long)direct.direct_units,
          (long long)tiled.tiles);
    /* the tile plan of NetCDF-C's path, whole chunks grouped to the budget */
    minv_nc_source plan;
    fo.tile = 0;
    CHECK_STATUS(minv_nc_source_open(ctx, &plan, "rt_tile.nc", "M", &fo, MINV_NC_LIBRARY), MINV_SUCCESS, ctx);
    CHECK(plan.tile[0] == 37 && plan.tile[1] == 37 && strcmp(plan.tile_rule, "whole chunks") == 0,
          "plan %zu x %zu (%s)", plan.tile[0], plan.tile[1], plan.tile_rule);
    minv_nc_source_close(&plan);
    minv_nc_source_close(&direct);
    minv_nc_source_close(&tiled);
    free(a.data);
    free(b.data);
    free(v);
}

/* cov(Time, n, n): a slice and the batch, classic record variables (beside a record variable
 * of odd size, so that records are padded) and netCDF-4 chunks that span two times. */
static void time_slices(minv_context *ctx) {
    const size_t T = 3, n = 19, lens[3] = {3, 19, 19}, odd[2] = {3, 3};
    const char *const dims[3] = {"Time", "n", "n"}, *const odd_dims[2] = {"Time", "three"};
    static const size_t spans[3] = {2, 8, 8};
    const struct {
        const char *name;
        nct_storage st;
    } cases[] = {
        {"classic records", {NC_CLOBBER, NULL, 0}},
        {"CDF-5 records", {NC_CLOBBER | NC_64BIT_DATA, NULL, 0}},
        {"netCDF-4 chunks across Time", {NC_CLOBBER | NC_NETCDF4, spans, 1}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double *v = values(T * n * n, NC_FLOAT, 40 + c), *s = values(9, NC_SHORT, 3);
        nct_write("rt_time.nc", 0, &cases[c].st, "cov", NC_FLOAT, 3, dims, lens, 1, v);
        const nct_storage plain = {cases[c].st.cmode, NULL, 0};
        nct_write("rt_time.nc", 1, &plain, "small", NC_SHORT, 2, odd_dims, odd, 1, s);
        for (int fortran = 0; fortran < 2; fortran++) {
            char label[256];
            minv_file_options fo;
            minv_file_options_default(&fo);
            fo.fortran_order = fortran;
            snprintf(label, sizeof label, "%s, batch, %s view", cases[c].name, fortran ? "Fortran" : "C");
            free(read_both(ctx, label, "rt_time.nc", "cov", &fo, MINV_NC_ALLOW_BATCH, MINV_R64, 1, MINV_SUCCESS, NULL));
            fo.nslice = 1;
            for (int64_t t = 0; t < (int64_t)T; t++) {
                fo.slice[0] = t;
                snprintf(label, sizeof label, "%s, Time = %lld, %s view", cases[c].name, (long long)t, fortran ? "Fortran" : "C");
                void *m = read_both(ctx, label, "rt_time.nc", "cov", &fo, 0, MINV_R32, 1, MINV_SUCCESS, NULL);
                const float *mf = m;
                double *disk = nct_read("rt_time.nc", "cov", NULL);
                int same = 1;
                for (size_t r = 0; r < n; r++)
                    for (size_t col = 0; col < n; col++)
                        same &= mf[fortran ? r * n + col : col * n + r] == (float)disk[(size_t)t * n * n + r * n + col];
                CHECK(same, "%s: values differ from nc_get_var_double's", label);
                free(disk);
                free(m);
            }
        }
        free(v);
        free(s);
    }
}

/* A variable in nested netCDF-4 groups, deflated. */
static void groups(minv_context *ctx) {
    static const size_t c4[2] = {4, 6};
    const size_t lens[2] = {13, 13};
    const nct_storage st = {NC_CLOBBER | NC_NETCDF4, c4, 1};
    double *v = values(13 * 13, NC_DOUBLE, 9);
    nct_write("rt_grp.nc", 0, &st, "analysis/inner/M", NC_DOUBLE, 2, rc, lens, 0, v);
    minv_file_options fo;
    minv_file_options_default(&fo);
    void *m = read_both(ctx, "groups", "rt_grp.nc", "/analysis/inner/M", &fo, 0, MINV_R64, 1, MINV_SUCCESS, NULL);
    check_reference("groups", "rt_grp.nc", "analysis/inner/M", m, 13, 13, 0, MINV_R64, 1, 0);
    free(m);
    free(v);
}

/* Packed shorts (scale_factor, add_offset) and a 1-D variable. */
static void packed_and_vector(minv_context *ctx) {
    static const size_t c5[2] = {5, 5}, c7[1] = {7};
    const size_t lens[2] = {11, 11}, len[1] = {23};
    const char *const vdim[1] = {"n"};
    const nct_storage st = {NC_CLOBBER | NC_NETCDF4, c5, 1}, vst = {NC_CLOBBER | NC_NETCDF4, c7, 2};
    const double scale = 0.01, offset = 3;
    double *v = values(11 * 11, NC_SHORT, 5);
    nct_write("rt_pack.nc", 0, &st, "P", NC_SHORT, 2, rc, lens, 0, v);
    nct_put_att("rt_pack.nc", "P", "scale_factor", NC_DOUBLE, 1, &scale);
    nct_put_att("rt_pack.nc", "P", "add_offset", NC_DOUBLE, 1, &offset);
    minv_file_options fo;
    minv_file_options_default(&fo);
    void *m = read_both(ctx, "packed", "rt_pack.nc", "P", &fo, 0, MINV_R64, 1, MINV_SUCCESS, NULL);
    check_reference("packed", "rt_pack.nc", "P", m, 11, 11, 0, MINV_R64, scale, offset);
    free(m);
    double *w = values(23, NC_DOUBLE, 6);
    for (int chunked = 0; chunked < 2; chunked++) {
        nct_write("rt_vec.nc", 0, chunked ? &vst : &(nct_storage){NC_CLOBBER, NULL, 0}, "v", NC_DOUBLE, 1, vdim, len, 0, w);
        m = read_both(ctx, chunked ? "1-D chunked" : "1-D classic", "rt_vec.nc", "v", &fo, MINV_NC_ALLOW_VECTOR, MINV_R64, 1,
                      MINV_SUCCESS, NULL);
        CHECK(memcmp(m, w, 23 * sizeof *w) == 0, "1-D: values differ");
        free(m);
    }
    free(v);
    free(w);
}

/* Missing values in chunks that threads meet in any order: the first in file order is named,
 * the same words on both paths; and a chunk never written (fill values) sends the direct
 * reader to NetCDF-C. */
static void bad_values(minv_context *ctx) {
    static const size_t c8[2] = {8, 8};
    const size_t lens[2] = {32, 32};
    const double fill = -999;
    const nct_storage st = {NC_CLOBBER | NC_NETCDF4, c8, 1, &fill}, cl = {NC_CLOBBER, NULL, 0, &fill};
    double *v = values(32 * 32, NC_DOUBLE, 11);
    v[5 * 32 + 2] = NAN;    /* chunk (0, 0), row 5 */
    v[3 * 32 + 30] = fill;  /* chunk (0, 3), row 3: first in file order */
    v[20 * 32 + 1] = NAN;   /* a later chunk row */
    minv_file_options fo;
    minv_file_options_default(&fo);
    for (int classic = 0; classic < 2; classic++) {
        nct_write("rt_bad.nc", 0, classic ? &cl : &st, "M", NC_DOUBLE, 2, rc, lens, 0, v);
        minv_nc_source s;
        free(read_both(ctx, classic ? "bad values, classic" : "bad values, chunks", "rt_bad.nc", "M", &fo, 0, MINV_R64, 1,
                       MINV_ERR_NOT_FINITE, NULL));
        CHECK_STATUS(minv_nc_source_open(ctx, &s, "rt_bad.nc", "M", &fo, 0), MINV_SUCCESS, ctx);
        minv_mat m = {MINV_R64, 32, 32, 32, malloc(32 * 32 * 8)};
        CHECK_STATUS(minv_nc_source_read(ctx, &s, 0, 0, &m), MINV_ERR_NOT_FINITE, ctx);
        HAS(minv_last_error(ctx), "entry (4, 31)");
        HAS(minv_last_error(ctx), "_FillValue");
        minv_nc_source_close(&s);
        free(m.data);
    }
    /* only the first 8 rows written: the other chunks were never written */
    int ncid, varid, dimids[2];
    NCT(nc_create("rt_part.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    NCT(nc_def_dim(ncid, "row", 32, &dimids[0]));
    NCT(nc_def_dim(ncid, "col", 32, &dimids[1]));
    NCT(nc_def_var(ncid, "M", NC_DOUBLE, 2, dimids, &varid));
    NCT(nc_def_var_chunking(ncid, varid, NC_CHUNKED, c8));
    NCT(nc_enddef(ncid));
    const size_t start[2] = {0, 0}, count[2] = {8, 32};
    double *top = values(8 * 32, NC_DOUBLE, 12);
    NCT(nc_put_vara_double(ncid, varid, start, count, top));
    NCT(nc_close(ncid));
    free(top);
    minv_nc_source s;
    free(read_both(ctx, "unwritten chunks", "rt_part.nc", "M", &fo, 0, MINV_R64, 0, MINV_ERR_NOT_FINITE, &s));
    CHECK(s.direct_units == 0, "unwritten chunks: the direct path claims %lld chunks", (long long)s.direct_units);
    HAS(s.direct.why_not, "never written");
    free(v);
}

/* Variables named like a dimension they do not index (stored by NetCDF-C under another name,
 * the plain name then being the dimension's scale), and a filter the direct path leaves to
 * NetCDF-C (Fletcher-32). */
static void names_and_filters(minv_context *ctx) {
    static const size_t c4[2] = {4, 4};
    const size_t nn[2] = {9, 9}, len[1] = {9}, five[1] = {5};
    const char *const dims_n[2] = {"n", "n"}, *const dim_n[1] = {"n"}, *const dim_x[1] = {"x"};
    const nct_storage plain = {NC_CLOBBER | NC_NETCDF4, NULL, 0}, checked = {NC_CLOBBER | NC_NETCDF4, c4, 1, .fletcher32 = 1};
    double *v = values(81, NC_DOUBLE, 21), *x = values(5, NC_DOUBLE, 22);
    minv_file_options fo;
    minv_file_options_default(&fo);
    /* x(5) is a dimension with its coordinate values; "x" the variable over n is another */
    nct_write("rt_names.nc", 0, &plain, "x", NC_DOUBLE, 1, dim_x, five, 0, x);
    nct_write("rt_names.nc", 1, &plain, "n", NC_DOUBLE, 2, dims_n, nn, 0, v);
    void *m = read_both(ctx, "a matrix named like its dimension", "rt_names.nc", "n", &fo, 0, MINV_R64, 1, MINV_SUCCESS, NULL);
    check_reference("a matrix named like its dimension", "rt_names.nc", "n", m, 9, 9, 0, MINV_R64, 1, 0);
    free(m);
    nct_write("rt_vname.nc", 0, &plain, "x", NC_DOUBLE, 1, dim_x, five, 0, x);
    nct_write("rt_vname.nc", 1, &plain, "n", NC_DOUBLE, 1, dim_n, len, 0, v); /* a coordinate variable */
    m = read_both(ctx, "a coordinate variable", "rt_vname.nc", "n", &fo, MINV_NC_ALLOW_VECTOR, MINV_R64, 1, MINV_SUCCESS, NULL);
    CHECK(memcmp(m, v, 9 * sizeof *v) == 0, "the coordinate variable's values differ");
    free(m);
    /* a 1-D "x" over n while x is a dimension of 5: not the dimension's scale */
    nct_write("rt_vname2.nc", 0, &plain, "x", NC_DOUBLE, 1, dim_x, five, 0, x);
    int ncid, varid, dimid;
    NCT(nc_open("rt_vname2.nc", NC_WRITE, &ncid));
    NCT(nc_redef(ncid));
    NCT(nc_inq_varid(ncid, "x", &varid));
    NCT(nc_rename_var(ncid, varid, "x_coord"));
    NCT(nc_def_dim(ncid, "n", 9, &dimid));
    NCT(nc_def_var(ncid, "x", NC_DOUBLE, 1, &dimid, &varid));
    NCT(nc_enddef(ncid));
    NCT(nc_put_var_double(ncid, varid, v));
    NCT(nc_close(ncid));
    m = read_both(ctx, "a 1-D variable named like another dimension", "rt_vname2.nc", "x", &fo, MINV_NC_ALLOW_VECTOR, MINV_R64,
                  1, MINV_SUCCESS, NULL);
    CHECK(memcmp(m, v, 9 * sizeof *v) == 0, "a 1-D variable named like another dimension: the dimension's values were read");
    free(m);
    /* Fletcher-32: NetCDF-C reads it, and says so */
    minv_nc_source s;
    nct_write("rt_fletcher.nc", 0, &checked, "M", NC_DOUBLE, 2, rc, nn, 0, v);
    m = read_both(ctx, "Fletcher-32", "rt_fletcher.nc", "M", &fo, 0, MINV_R64, 0, MINV_SUCCESS, &s);
    check_reference("Fletcher-32", "rt_fletcher.nc", "M", m, 9, 9, 0, MINV_R64, 1, 0);
    HAS(s.direct.why_not, "it has Fletcher32 checksum (HDF5 filter 3), which this reader does not undo");
    free(m);
    free(v);
    free(x);
}

/* ---- writing ---- */

/* Writes matrices through the direct path and through NetCDF-C alone and compares the files'
 * values bit for bit, and with what nc_put_vara_double of the packed values stores. */
static void write_both(minv_context *ctx, const char *label, minv_nc_sink_spec spec, const char *path_a,
                       const char *path_b, int64_t count, int batch_call, int expect_direct) {
    const int r0 = minv_nc_row_dim(spec.rank);
    const size_t d0 = spec.dims[r0].len, d1 = spec.rank > 1 ? spec.dims[r0 + 1].len : 1;
    const int64_t rows = (int64_t)(spec.view == MINV_NC_C_VIEW ? d0 : d1), cols = (int64_t)(spec.view == MINV_NC_C_VIEW ? d1 : d0);
    const size_t elems = d0 * d1;
    double *m = values(elems * (size_t)count, NC_DOUBLE, 77);
    if (minv_nc_type_is_integer(spec.xtype)) /* within a short's range at scale 0.5, rounded on the way */
        for (size_t k = 0; k < elems * (size_t)count; k++)
            m[k] = fmod(m[k] * 1000, 16000);
    double *disk = malloc(elems * (size_t)count * sizeof *disk);
    const int ways = batch_call ? 2 : 4; /* 2, 3: each matrix in bands of stored rows, directly and through NetCDF-C */
    for (int way = 0; way < ways; way++) {
        minv_nc_sink w;
        const int lib = way % 2;
        spec.library = lib;
        CHECK_STATUS(minv_nc_sink_open(ctx, &w, way == 0 ? path_a : way == 1 ? path_b : way == 2 ? "rt_wc.nc" : "rt_wd.nc", "X", &spec, count),
                     MINV_SUCCESS, ctx);
        if (way >= 2) {
            const int64_t band = w.row_align > 1 ? (int64_t)w.row_align : 7;
            for (int64_t k = 0; k < count; k++)
                for (int64_t at = 0; at < (int64_t)d0; at += band) {
                    const int64_t h = (int64_t)d0 - at < band ? (int64_t)d0 - at : band;
                    minv_mat one = spec.view == MINV_NC_C_VIEW ? (minv_mat){MINV_R64, h, cols, h, malloc((size_t)(h * cols) * sizeof(double))}
                                                               : (minv_mat){MINV_R64, rows, h, rows, m + (size_t)k * elems + (size_t)(at * rows)};
                    for (int64_t j = 0; spec.view == MINV_NC_C_VIEW && j < cols; j++)
                        memcpy((double *)one.data + j * h, m + (size_t)k * elems + (size_t)(j * rows + at), (size_t)h * sizeof(double));
                    CHECK_STATUS(minv_nc_sink_write_band(ctx, &w, k, at, h, &one), MINV_SUCCESS, ctx);
                    if (spec.view == MINV_NC_C_VIEW)
                        free(one.data);
                }
        } else if (batch_call) {
            CHECK_STATUS(minv_nc_sink_write_matrices(ctx, &w, 0, count, m, MINV_R64, disk), MINV_SUCCESS, ctx);
        } else {
            for (int64_t k = 0; k < count; k++) {
                minv_mat one = {MINV_R64, rows, cols, rows, m + (size_t)k * elems};
                CHECK_STATUS(minv_nc_sink_write(ctx, &w, k, &one), MINV_SUCCESS, ctx);
            }
        }
        CHECK(lib || !expect_direct || w.direct_units > 0, "%s: the direct path was not taken (%s)", label, w.why_not);
        CHECK(!lib || w.direct_units == 0, "%s: NetCDF-C's path was not taken", label);
        CHECK_STATUS(minv_nc_sink_commit(ctx, &w, NULL, 0, NULL), MINV_SUCCESS, ctx);
    }
    size_t na = 0, nb = 0;
    double *a = nct_read(path_a, "X", &na), *b = nct_read(path_b, "X", &nb);
    CHECK(na == nb && na == elems * (size_t)count, "%s: %zu and %zu values", label, na, nb);
    CHECK(na == nb && memcmp(a, b, na * sizeof *a) == 0, "%s: direct and NetCDF-C files differ", label);
    if (!batch_call) {
        for (int lib = 0; lib < 2; lib++) {
            size_t nc = 0;
            double *c = nct_read(lib ? "rt_wd.nc" : "rt_wc.nc", "X", &nc);
            CHECK(nc == na && memcmp(a, c, na * sizeof *a) == 0, "%s: the file written in bands%s differs", label,
                  lib ? " through NetCDF-C" : "");
            free(c);
        }
    }
    /* value (r, c) of matrix k as stored: M(r, c) in the C view, M(c, r) in Fortran's */
    int same = 1;
    for (int64_t k = 0; k < count && na == elems * (size_t)count; k++)
        for (size_t r = 0; r < d0; r++)
            for (size_t c = 0; c < d1; c++) {
                const double x = m[(size_t)k * elems + (spec.view == MINV_NC_C_VIEW ? c * d0 + r : r * d1 + c)];
                const double want = minv_nc_type_is_integer(spec.xtype) ? round(x / spec.scale)
                                    : spec.xtype == NC_FLOAT ? (double)(float)x : x;
                same &= a[(size_t)k * elems + r * d1 + c] == want;
            }
    CHECK(same, "%s: stored values are not the matrix's", label);
    free(a);
    free(b);
    free(m);
    free(disk);
}

static void writes(minv_context *ctx) {
    static const struct {
        const char *name;
        int format, deflate, direct;
    } formats[] = {
        {"netCDF-4", NC_FORMAT_NETCDF4, 0, 1},
        {"netCDF-4 deflate 2", NC_FORMAT_NETCDF4, 2, 1},
        {"classic", NC_FORMAT_CLASSIC, 0, 1},
        {"64-bit offset", NC_FORMAT_64BIT_OFFSET, 0, 1},
        {"CDF-5", NC_FORMAT_64BIT_DATA, 0, 1},
    };
    static const nc_type types[] = {NC_DOUBLE, NC_FLOAT, NC_SHORT};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (size_t ty = 0; ty < sizeof types / sizeof types[0]; ty++)
            for (int view = 0; view < 2; view++) {
                char label[256];
                /* 300 x 270: chunk edges of 256 that do not divide it */
                minv_nc_sink_spec spec = {.rank = 2, .dims = {{"row", 300, 0}, {"col", 270, 0}}, .xtype = types[ty],
                                          .input_format = formats[f].format, .deflate_level = formats[f].deflate, .overwrite = 1,
                                          .scale = types[ty] == NC_SHORT ? 0.5 : 1, .view = (minv_nc_view)view};
                snprintf(label, sizeof label, "write %s, %s, %s view", formats[f].name, minv_nc_type_name(types[ty]),
                         view ? "Fortran" : "C");
                write_both(ctx, label, spec, "rt_wa.nc", "rt_wb.nc", 1, 0, formats[f].direct);
                /* a batch along a Time dimension: unlimited in netCDF-4 (grown through NetCDF-C),
                 * a record variable in classic files (NetCDF-C's path) */
                const int records = formats[f].format != NC_FORMAT_NETCDF4;
                spec.rank = 3;
                spec.dims[0] = (minv_nc_dim){"Time", 3, 1};
                spec.dims[1] = (minv_nc_dim){"n", 21, 0};
                spec.dims[2] = (minv_nc_dim){"n", 21, 0};
                for (int batch_call = 0; batch_call < 2; batch_call++) {
                    snprintf(label, sizeof label, "write %s, %s, %s view, batch%s", formats[f].name,
                             minv_nc_type_name(types[ty]), view ? "Fortran" : "C", batch_call ? " whole" : " one by one");
                    write_both(ctx, label, spec, "rt_wa.nc", "rt_wb.nc", 3, batch_call, !records);
                }
                spec.dims[0].unlimited = 0; /* a fixed Time: direct in every format */
                snprintf(label, sizeof label, "write %s, %s, %s view, fixed Time", formats[f].name,
                         minv_nc_type_name(types[ty]), view ? "Fortran" : "C");
                write_both(ctx, label, spec, "rt_wa.nc", "rt_wb.nc", 3, 0, 1);
            }
    minv_nc_sink_spec column = {.rank = 1, .dims = {{"n", 70000, 0}}, .xtype = NC_DOUBLE, .input_format = NC_FORMAT_NETCDF4, .overwrite = 1,
                                .deflate_level = 1, .scale = 1};
    write_both(ctx, "write 1-D", column, "rt_wa.nc", "rt_wb.nc", 1, 0, 1);
}

/* A value the stored type cannot hold: the first in file order is named, the output is gone. */
static void write_out_of_range(minv_context *ctx) {
    for (int lib = 0; lib < 2; lib++) {
        minv_nc_sink_spec spec = {.rank = 2, .dims = {{"row", 40, 0}, {"col", 40, 0}}, .xtype = NC_SHORT,
                                  .input_format = NC_FORMAT_NETCDF4, .scale = 1, .library = lib};
        double *m = calloc(40 * 40, sizeof *m);
        m[39 * 40 + 1] = 1e6;  /* M(1, 39) in the C view: stored at [1, 39] */
        m[2 * 40 + 30] = -1e6; /* M(30, 2): stored at [30, 2] */
        minv_mat one = {MINV_R64, 40, 40, 40, m};
        minv_nc_sink w;
        CHECK_STATUS(minv_nc_sink_open(ctx, &w, "rt_range.nc", "X", &spec, 1), MINV_SUCCESS, ctx);
        CHECK_STATUS(minv_nc_sink_write(ctx, &w, 0, &one), MINV_ERR_INVALID_ARG, ctx);
        HAS(minv_last_error(ctx), "1e+06 at [1, 39]");
        minv_nc_sink_abort(&w);
        CHECK(!nct_exists("rt_range.nc") && !nct_tmp_left("rt_range.nc"), "an output was left behind");
        free(m);
    }
}

/* Failures in the middle: a deflated chunk whose bytes were damaged fails the read (IO, on
 * both paths), and a write that the disk refuses (here a file-size limit, which needs no
 * root) fails with IO and leaves no output and no temporary file, on both paths, netCDF-4
 * (deflated too) and classic; HDF5 must be able to close the file after (no crash at exit). */
static void failures(minv_context *ctx) {
    static const size_t c16[2] = {16, 16};
    const size_t lens[2] = {64, 64};
    const nct_storage st = {NC_CLOBBER | NC_NETCDF4, c16, 1};
    double *v = values(64 * 64, NC_DOUBLE, 31);
    nct_write("rt_damaged.nc", 0, &st, "M", NC_DOUBLE, 2, rc, lens, 0, v);
    FILE *f = fopen("rt_damaged.nc", "r+b");
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, size / 2, SEEK_SET); /* inside the chunks, past the header */
    for (int k = 0; k < 64; k++)
        fputc(0x5a ^ k, f);
    fclose(f);
    minv_file_options fo;
    minv_file_options_default(&fo);
    free(read_both(ctx, "a damaged chunk", "rt_damaged.nc", "M", &fo, 0, MINV_R64, 1, MINV_ERR_IO, NULL));

    struct rlimit old, small;
    getrlimit(RLIMIT_FSIZE, &old);
    small = old;
    small.rlim_cur = 1 << 20; /* the output needs 4 MB */
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    static const struct {
        int format, deflate, lib;
    } cases[] = {{NC_FORMAT_NETCDF4, 0, 0}, {NC_FORMAT_NETCDF4, 0, 1}, {NC_FORMAT_NETCDF4, 1, 0},
                 {NC_FORMAT_CLASSIC, 0, 0}, {NC_FORMAT_CLASSIC, 0, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int lib = cases[c].lib;
        minv_nc_sink_spec spec = {.rank = 2, .dims = {{"row", 700, 0}, {"col", 700, 0}}, .xtype = NC_DOUBLE,
                                  .input_format = cases[c].format, .deflate_level = cases[c].deflate, .scale = 1,
                                  .library = lib};
        double *m = values(700 * 700, NC_DOUBLE, 32);
        minv_mat one = {MINV_R64, 700, 700, 700, m};
        minv_nc_sink w;
        CHECK_STATUS(minv_nc_sink_open(ctx, &w, "rt_full.nc", "X", &spec, 1), MINV_SUCCESS, ctx);
        setrlimit(RLIMIT_FSIZE, &small);
        minv_status st_write = minv_nc_sink_write(ctx, &w, 0, &one);
        if (st_write == MINV_SUCCESS)
            st_write = minv_nc_sink_commit(ctx, &w, NULL, 0, NULL);
        setrlimit(RLIMIT_FSIZE, &old);
        CHECK(st_write == MINV_ERR_IO, "%s write past the disk's room, case %zu: %s (%s)", lib ? "NetCDF-C's" : "the direct",
              c, minv_status_string(st_write), minv_last_error(ctx));
        minv_nc_sink_abort(&w);
        CHECK(!nct_exists("rt_full.nc") && !nct_tmp_left("rt_full.nc"), "an output was left behind");
        free(m);
    }
    signal(SIGXFSZ, previous);
    free(v);
}

int main(void) {
    minv_context *ctx = nct_context();
    every_type_and_storage(ctx);
    tiles_asked_for(ctx);
    time_slices(ctx);
    groups(ctx);
    packed_and_vector(ctx);
    bad_values(ctx);
    names_and_filters(ctx);
    writes(ctx);
    write_out_of_range(ctx);
    failures(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_roundtrip");
}
