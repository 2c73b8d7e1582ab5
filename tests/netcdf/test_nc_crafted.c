/* Files crafted so that the sizes they declare overflow: each must give a clean error (or be
 * read right) instead of a crash, a heap overflow or undefined behaviour.
 *   - more unlimited dimensions than NC_MAX_DIMS (1024), in an input and in an output file
 *     that a variable is added to;
 *   - a batch of matrices of order 2^31 and 2^32 (n * n * 8 bytes wraps a size_t);
 *   - a CDF-5 record variable of 2^62 records (count * 8 wraps: the file is truncated), and a
 *     CDF-5 header whose variables add up to more than 2^63 bytes (the sums overflow).
 * And a classic header whose counts ask netCDF-C to allocate gigabytes for a file of bytes, and
 * a netCDF-4 chunk index whose record says 4 GiB for a chunk of 288 bytes.
 * The netCDF-4 files hold no data (HDF5 stores unwritten chunks as nothing); the CDF-5 ones
 * are written byte by byte, as the format specification lays them out. */
#include <float.h>
#include <stdint.h>

#include "nctest.h"

/* ---- a CDF-5 header, byte by byte (big-endian) ---- */

typedef struct {
    unsigned char bytes[1024];
    size_t len;
} cdf5;

static void put32(cdf5 *f, uint32_t v) {
    for (int k = 3; k >= 0; k--) f->bytes[f->len++] = (unsigned char)(v >> (8 * k));
}

static void put64(cdf5 *f, uint64_t v) {
    for (int k = 7; k >= 0; k--) f->bytes[f->len++] = (unsigned char)(v >> (8 * k));
}

static void put_name(cdf5 *f, const char *name) {
    size_t n = strlen(name);
    put64(f, n);
    memcpy(f->bytes + f->len, name, n);
    f->len += n;
    while (f->len % 4) f->bytes[f->len++] = 0;
}

enum { NC_DIMENSION_TAG = 0x0A, NC_VARIABLE_TAG = 0x0B };

typedef struct {
    const char *name;
    int ndims;
    int dimids[3];
    uint64_t vsize;
} cdf5_var;

/* numrecs records; dims (len 0: the record dimension); doubles; data follow the header, and
 * `data` bytes of it are written (values 1.0 where they fall). */
static void write_cdf5(const char *path, uint64_t numrecs, int ndims, const char *const *dim_names,
                       const uint64_t *dim_lens, int nvars, const cdf5_var *vars, size_t data) {
    cdf5 f = {.len = 0};
    memcpy(f.bytes, "CDF\x05", 4);
    f.len = 4;
    put64(&f, numrecs);
    put32(&f, NC_DIMENSION_TAG);
    put64(&f, (uint64_t)ndims);
    for (int d = 0; d < ndims; d++) {
        put_name(&f, dim_names[d]);
        put64(&f, dim_lens[d]);
    }
    put32(&f, 0); /* no global attributes */
    put64(&f, 0);
    put32(&f, NC_VARIABLE_TAG);
    put64(&f, (uint64_t)nvars);
    size_t header = f.len;
    for (int v = 0; v < nvars; v++) /* name, ndims, dimids, ABSENT attributes, type, vsize, begin */
        header += 8 + (strlen(vars[v].name) + 3) / 4 * 4 + 8 + 8 * (size_t)vars[v].ndims + 12 + 4 + 8 + 8;
    uint64_t begin = header;
    for (int v = 0; v < nvars; v++) {
        put_name(&f, vars[v].name);
        put64(&f, (uint64_t)vars[v].ndims);
        for (int d = 0; d < vars[v].ndims; d++) put64(&f, (uint64_t)vars[v].dimids[d]);
        put32(&f, 0);
        put64(&f, 0);
        put32(&f, NC_DOUBLE);
        put64(&f, vars[v].vsize);
        put64(&f, begin);
        begin += vars[v].vsize;
    }
    CHECK(f.len == header, "CDF-5 header: %zu bytes written, %zu planned", f.len, header);
    FILE *out = fopen(path, "wb");
    fwrite(f.bytes, 1, f.len, out);
    const unsigned char one[8] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < data; k += 8) fwrite(one, 1, 8, out);
    fclose(out);
}

/* ---- the cases ---- */

static const char *invert_refused(minv_context *ctx, const char *path, const char *var, minv_status expected) {
    minv_report rep;
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, path, var, "crafted_out.nc", NULL, NCT_REPLACE, &rep);
    CHECK(st == expected, "%s:%s: %s, expected %s (%s)", path, var, minv_status_string(st), minv_status_string(expected),
          minv_last_error(ctx));
    CHECK(!nct_exists("crafted_out.nc") && !nct_tmp_left("crafted_out.nc"), "%s: output left behind", path);
    return minv_last_error(ctx);
}

/* 1100 unlimited dimensions beside A(n, n) = 2 I: read right, and an output that has them. */
static void many_unlimited(minv_context *ctx) {
    int ncid, dim, n, varid;
    NCT(nc_create("crafted_unlim.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    for (int k = 0; k < 1100; k++) {
        char name[16];
        snprintf(name, sizeof name, "u%d", k);
        NCT(nc_def_dim(ncid, name, NC_UNLIMITED, &dim));
    }
    NCT(nc_def_dim(ncid, "n", 3, &n));
    const int dims[2] = {n, n};
    NCT(nc_def_var(ncid, "A", NC_DOUBLE, 2, dims, &varid));
    NCT(nc_enddef(ncid));
    const double a[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    NCT(nc_put_var_double(ncid, varid, a));
    NCT(nc_close(ncid));

    minv_analysis an;
    minv_report rep;
    CHECK_STATUS(minv_analyze_file(ctx, "crafted_unlim.nc", "A", NULL, &an), MINV_SUCCESS, ctx);
    CHECK(an.n == 3 && an.symmetric, "1100 unlimited dimensions: the analysis of A");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "crafted_unlim.nc", "A", "crafted_inv.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    size_t count;
    double *x = nct_read("crafted_inv.nc", "A_inv", &count);
    CHECK(count == 9 && x[0] == 0.5 && x[4] == 0.5 && x[1] == 0, "1100 unlimited dimensions: the inverse of 2 I");
    free(x);
    /* the output is a copy of such a file, which gains the variable */
    system("cp crafted_unlim.nc crafted_unlim_out.nc");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "crafted_unlim.nc", "A", "crafted_unlim_out.nc", "X", NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    x = nct_read("crafted_unlim_out.nc", "X", &count);
    CHECK(count == 9 && x[8] == 0.5, "1100 unlimited dimensions in the output: X = (2 I)^-1");
    free(x);
}

/* cov(T, n, n) with n = 2^31 and 2^32, chunked, never written. */
static void huge_order(minv_context *ctx) {
    for (int bits = 31; bits <= 32; bits++) {
        char path[64];
        int ncid, d[2], varid;
        snprintf(path, sizeof path, "crafted_order%d.nc", bits);
        NCT(nc_create(path, NC_CLOBBER | NC_NETCDF4, &ncid));
        NCT(nc_def_dim(ncid, "T", 2, &d[0]));
        NCT(nc_def_dim(ncid, "n", (size_t)1 << bits, &d[1]));
        const int dims[3] = {d[0], d[1], d[1]};
        const size_t chunks[3] = {1, 1, 1};
        NCT(nc_def_var(ncid, "cov", NC_DOUBLE, 3, dims, &varid));
        NCT(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
        NCT(nc_close(ncid));
        const char *msg = invert_refused(ctx, path, "cov", MINV_ERR_ALLOC);
        HAS(msg, "is too large");
        HAS(msg, path);
        minv_analysis an;
        minv_file_options fo;
        nct_options(&fo);
        fo.nslice = 1;
        CHECK_STATUS(minv_analyze_file(ctx, path, "cov", &fo, &an), MINV_ERR_ALLOC, ctx);
    }
}

/* A CDF-5 record variable cov(T, n, n) whose header says 2^62 records (one is there). */
static void huge_count(minv_context *ctx) {
    const char *const names[2] = {"T", "n"};
    const uint64_t lens[2] = {0, 2};
    const cdf5_var cov = {"cov", 3, {0, 1, 1}, 32};
    write_cdf5("crafted_count.nc", (uint64_t)1 << 62, 2, names, lens, 1, &cov, 32);
    const char *msg = invert_refused(ctx, "crafted_count.nc", "cov", MINV_ERR_IO);
    HAS(msg, "'crafted_count.nc': its header describes more than 2^63 bytes of data");
    write_cdf5("crafted_count.nc", (uint64_t)1 << 55, 2, names, lens, 1, &cov, 32);
    msg = invert_refused(ctx, "crafted_count.nc", "cov", MINV_ERR_IO);
    HAS(msg, "'crafted_count.nc' is truncated: its header describes at least 1152921504606847");
}

/* A CDF-5 file with A(n, n) and variables of 2^61 bytes each, which no file holds: the
 * ends of their data (begin + size) pass 2^63 at the fourth. */
static void huge_header(minv_context *ctx) {
    const char *const names[2] = {"n", "big"};
    const uint64_t lens[2] = {2, (uint64_t)1 << 29};
    const uint64_t big = (uint64_t)1 << 61;
    const cdf5_var vars[5] = {{"A", 2, {0, 0}, 32},       {"B0", 2, {1, 1}, big}, {"B1", 2, {1, 1}, big},
                              {"B2", 2, {1, 1}, big},     {"B3", 2, {1, 1}, big}};
    minv_analysis an;
    write_cdf5("crafted_sum.nc", 0, 2, names, lens, 4, vars, 32);
    CHECK_STATUS(minv_analyze_file(ctx, "crafted_sum.nc", "A", NULL, &an), MINV_ERR_IO, ctx);
    HAS(minv_last_error(ctx), "'crafted_sum.nc' is truncated");
    write_cdf5("crafted_sum.nc", 0, 2, names, lens, 5, vars, 32);
    CHECK_STATUS(minv_analyze_file(ctx, "crafted_sum.nc", "A", NULL, &an), MINV_ERR_IO, ctx);
    HAS(minv_last_error(ctx), "more than 2^63 bytes");
}

/* A 48-byte classic file whose global attribute claims 2^30 doubles: netCDF-C would allocate
 * 8 GiB for them before finding the file too short. */
static void attribute_bomb(minv_context *ctx) {
    static const unsigned char bomb[] = {
        'C', 'D', 'F', 1, 0, 0, 0, 0,                   /* magic, numrecs */
        0, 0, 0, 0, 0, 0, 0, 0,                         /* no dimensions */
        0, 0, 0, 0x0C, 0, 0, 0, 1,                      /* one global attribute */
        0, 0, 0, 5, 't', 'i', 't', 'l', 'e', 0, 0, 0,   /* "title" */
        0, 0, 0, 6, 0x40, 0, 0, 0,                      /* NC_DOUBLE, 2^30 values */
        0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    FILE *f = fopen("crafted_bomb.nc", "wb");
    fwrite(bomb, 1, sizeof bomb, f);
    fclose(f);
    const char *msg = invert_refused(ctx, "crafted_bomb.nc", "A", MINV_ERR_IO);
    HAS(msg, "'crafted_bomb.nc' is not a valid netCDF-3 file: it claims 1073741824 attribute values at byte 44, but only 8 bytes follow");
}

/* A(6, 6) deflated in one chunk, whose record in the chunk index (HDF5's version-1 B-tree:
 * "TREE", type 1, then per key the chunk's size, filter mask and offsets, then its address) is
 * patched: the size to 2^32 - 1 bytes (the reader must not allocate them), or the address to
 * the file's last bytes. Left out, with a line, where HDF5 indexes the chunk otherwise. */
static void corrupt_chunk_record(minv_context *ctx) {
    int ncid, d[2], varid;
    NCT(nc_create("crafted_chunk.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    NCT(nc_def_dim(ncid, "row", 6, &d[0]));
    NCT(nc_def_dim(ncid, "col", 6, &d[1]));
    NCT(nc_def_var(ncid, "A", NC_DOUBLE, 2, d, &varid));
    NCT(nc_def_var_deflate(ncid, varid, 0, 1, 5));
    NCT(nc_enddef(ncid));
    double a[36];
    for (int k = 0; k < 36; k++) a[k] = k % 7 == 0 ? 10 : 1.0 / (1 + k);
    NCT(nc_put_var_double(ncid, varid, a));
    NCT(nc_close(ncid));
    FILE *f = fopen("crafted_chunk.nc", "rb");
    unsigned char file[16384];
    const size_t len = fread(file, 1, sizeof file, f);
    fclose(f);
    size_t tree = 0;
    while (tree + 72 <= len && !(memcmp(file + tree, "TREE", 4) == 0 && file[tree + 4] == 1)) tree++;
    if (tree + 72 > len) {
        printf("test_nc_crafted: this HDF5 keeps A's chunk index in another form; the corrupt-record cases are left out\n");
        return;
    }
    const size_t size_at = tree + 24, address_at = size_at + 4 + 4 + 3 * 8;
    for (int c = 0; c < 2; c++) {
        unsigned char patched[16384];
        memcpy(patched, file, len);
        if (c == 0)
            memset(patched + size_at, 0xff, 4);
        else
            for (int b = 0; b < 8; b++) patched[address_at + (size_t)b] = (unsigned char)((uint64_t)(len - 8) >> (8 * b));
        f = fopen("crafted_chunk_bad.nc", "wb");
        fwrite(patched, 1, len, f);
        fclose(f);
        const char *msg = invert_refused(ctx, "crafted_chunk_bad.nc", "A", MINV_ERR_IO);
        HAS(msg, "the chunk from entry 0 along row and 0 along col (0-based) is recorded as ");
        HAS(msg, c == 0 ? "as 4294967295 bytes" : "past the file's end");
    }
}

int main(void) {
    minv_context *ctx = nct_context();
    corrupt_chunk_record(ctx);
    many_unlimited(ctx);
    huge_order(ctx);
    huge_count(ctx);
    huge_header(ctx);
    attribute_bomb(ctx);
    minv_destroy(ctx);
    return tu_finish("test_nc_crafted");
}
