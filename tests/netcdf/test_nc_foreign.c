/* Files written by other tools (tests/netcdf/data, made by make_foreign.py with Python's
 * netCDF4 and h5py, whose libraries are newer than Debian 12's):
 *   - Zstandard and bzip2 (netCDF-C 4.9's nc_def_var_zstandard / _bzip2, here through Python's
 *     netCDF4), shuffled, in 8 x 12 chunks and a batch of whole matrices: read by minv's own
 *     decoders (where it was built with them: CMake says so), the inverses bit for bit those of
 *     the same values stored plain (A_plain);
 *   - through NetCDF-C (tiles asked for), which may lack their plugins: read the same, or a
 *     refusal that names the filter and the plugin to install;
 *   - their chunks' frames broken: the chunk named, no output left;
 *   - a filter no library registers: refused by name, with no output left;
 *   - HDF5's newest file format, which HDF5 1.10 cannot open: read, or a message that says so. */
#include <float.h>

#include "nctest.h"

enum { N = 24, BATCH = 3 };

static char dir[4096];

static const char *data(const char *name) {
    static char path[2][4200];
    static int next;
    next ^= 1;
    snprintf(path[next], sizeof path[next], "%s/%s", dir, name);
    return path[next];
}

/* X (rows-major, count values) equals Y bit for bit. */
static int same(const double *x, const double *y, size_t count) { return memcmp(x, y, count * sizeof *x) == 0; }

/* var and var_plain of `file` inverted (batch: matrix by matrix) with file options fo; 1 when
 * minv read the compressed one, and then its inverse must be the plain one's. */
static int invert_both(minv_context *ctx, const char *file, const char *var, const minv_file_options *fo, const char *how) {
    char plain[32], out[32], plain_out[32];
    snprintf(plain, sizeof plain, "%s_plain", var);
    snprintf(out, sizeof out, "%s_inv", var);
    snprintf(plain_out, sizeof plain_out, "%s_plain_inv", var);
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, data(file), plain, "foreign_plain.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, data(file), var, "foreign_out.nc", NULL, fo, &rep);
    if (st != MINV_SUCCESS)
        return 0;
    if (how)
        HAS(rep.reason, how);
    size_t count, plain_count;
    double *x = nct_read("foreign_out.nc", out, &count), *y = nct_read("foreign_plain.nc", plain_out, &plain_count);
    const size_t expected = strcmp(var, "P") == 0 ? BATCH * N * N : N * N;
    CHECK(count == expected && plain_count == expected && same(x, y, count), "%s:%s: the inverse differs from %s's", file, var, plain);
    /* and it is an inverse: the plain values times it */
    size_t acount;
    double *a = nct_read(data(file), plain, &acount);
    for (size_t k = 0; k * N * N < acount && count == acount; k++)
        CHECK(tu_inverse_ratio(N, a + k * N * N, N, x + k * N * N, N, DBL_EPSILON) < 30, "%s:%s member %zu: residual", file, var, k);
    free(a);
    free(x);
    free(y);
    return 1;
}

#ifndef MINV_NC_HAVE_ZSTD
#define MINV_NC_HAVE_ZSTD 0
#endif
#ifndef MINV_NC_HAVE_BZIP2
#define MINV_NC_HAVE_BZIP2 0
#endif

static void own_decoders(minv_context *ctx) {
    const char *files[2] = {"foreign_zstd.nc", "foreign_bzip2.nc"}, *names[2] = {"Zstandard (HDF5 filter 32015)", "bzip2 (HDF5 filter 307)"};
    const int built_with[2] = {MINV_NC_HAVE_ZSTD, MINV_NC_HAVE_BZIP2};
    minv_file_options tiles;
    nct_options(&tiles);
    tiles.tile = 8;
    for (int f = 0; f < 2; f++) {
        if (!built_with[f]) { /* NetCDF-C's plugin, or the refusal */
            printf("test_nc_foreign: minv was built without the %s decoder\n", names[f]);
            if (!invert_both(ctx, files[f], "A", NCT_REPLACE, "through NetCDF-C"))
                HAS(minv_last_error(ctx), "install the filter's HDF5 plugin");
            continue;
        }
        CHECK(invert_both(ctx, files[f], "A", NCT_REPLACE, "as 6 chunks of 8 x 12 decompressed, directly on"),
              "%s:A: %s", files[f], minv_last_error(ctx));
        CHECK(invert_both(ctx, files[f], "P", NCT_REPLACE, "3 chunks of 24 x 24 decompressed, directly on"),
              "%s:P: %s", files[f], minv_last_error(ctx));
        minv_analysis an;
        CHECK_STATUS(minv_analyze_file(ctx, data(files[f]), "A", NULL, &an), MINV_SUCCESS, ctx);
        CHECK(an.n == N && an.symmetric, "%s: the analysis of A", files[f]);
        /* NetCDF-C's path: its plugin, or a refusal that says which one is missing */
        if (!invert_both(ctx, files[f], "A", &tiles, "through NetCDF-C")) {
            const char *msg = minv_last_error(ctx);
            HAS(msg, names[f]);
            HAS(msg, "which NetCDF-C and HDF5 here cannot undo; minv's own reader undoes it but cannot read this variable (tiles were asked for)");
            HAS(msg, "install the filter's HDF5 plugin");
        } else {
            printf("test_nc_foreign: NetCDF-C here has a plugin for %s\n", names[f]);
        }
    }
}

/* The file with every stored frame's magic number (zstd's 28 b5 2f fd, bzip2's "BZh") broken:
 * each chunk of A and P fails to decode, and the read says which chunk, not a wrong matrix. */
static void broken_frames(minv_context *ctx, const char *file, const unsigned char *magic, size_t magic_len) {
    FILE *f = fopen(data(file), "rb");
    static unsigned char bytes[1 << 17];
    const size_t len = f ? fread(bytes, 1, sizeof bytes, f) : 0;
    if (f) fclose(f);
    CHECK(len > 0 && len < sizeof bytes, "%s: read whole", file);
    int frames = 0;
    for (size_t i = 0; i + magic_len <= len; i++)
        if (memcmp(bytes + i, magic, magic_len) == 0) {
            bytes[i] ^= 0xff;
            frames++;
        }
    CHECK(frames >= 6 + 3, "%s: %d frames found, expected A's 6 chunks and P's 3", file, frames);
    f = fopen("foreign_broken.nc", "wb");
    fwrite(bytes, 1, len, f);
    fclose(f);
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "foreign_broken.nc", "A", "foreign_refused.nc", NULL, NCT_REPLACE, &rep),
                 MINV_ERR_IO, ctx);
    HAS(minv_last_error(ctx), "'foreign_broken.nc', variable 'A': the chunk from entry ");
    HAS(minv_last_error(ctx), "cannot be read or decompressed (truncated or corrupt file?)");
    CHECK(!nct_exists("foreign_refused.nc") && !nct_tmp_left("foreign_refused.nc"), "%s: an output was left", file);
}

static void unknown_filter(minv_context *ctx) {
    minv_report rep;
    minv_analysis an;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, data("foreign_filter32099.nc"), "A", "foreign_refused.nc", NULL,
                                  NCT_REPLACE, &rep),
                 MINV_ERR_IO, ctx);
    const char *msg = minv_last_error(ctx);
    HAS(msg, "'A': its values are compressed with HDF5 filter 32099, which NetCDF-C and HDF5 here cannot undo: install");
    HAS(msg, "HDF5_PLUGIN_PATH");
    CHECK(!nct_exists("foreign_refused.nc") && !nct_tmp_left("foreign_refused.nc"), "an output was left for a refused input");
    CHECK_STATUS(minv_analyze_file(ctx, data("foreign_filter32099.nc"), "A", NULL, &an), MINV_ERR_IO, ctx);
    HAS(minv_last_error(ctx), "HDF5 filter 32099");
}

static void newer_format(minv_context *ctx) {
    minv_analysis an;
    minv_status st = minv_analyze_file(ctx, data("foreign_hdf5_latest.nc"), "A", NULL, &an);
    if (st == MINV_SUCCESS) {
        CHECK(an.n == N && an.symmetric, "HDF5's newest format: the analysis of A");
        printf("test_nc_foreign: this HDF5 reads the newest file format\n");
        return;
    }
    CHECK(st == MINV_ERR_IO, "HDF5's newest format: %s", minv_status_string(st));
    HAS(minv_last_error(ctx), "the file may be in a newer HDF5 format than this HDF5 (");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_nc_foreign DATA_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    minv_context *ctx = nct_context();
    own_decoders(ctx);
    if (MINV_NC_HAVE_ZSTD)
        broken_frames(ctx, "foreign_zstd.nc", (const unsigned char *)"\x28\xb5\x2f\xfd", 4);
    if (MINV_NC_HAVE_BZIP2)
        broken_frames(ctx, "foreign_bzip2.nc", (const unsigned char *)"BZh", 3);
    unknown_filter(ctx);
    newer_format(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_foreign");
}
