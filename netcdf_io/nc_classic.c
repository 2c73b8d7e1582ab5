/* The least size of a netCDF-3 (classic, 64-bit offset) or CDF-5 file, from its header.
 * netCDF-C reads zeros past the end of a truncated classic file and reports no error, so the
 * reader compares the file's size with this bound before trusting the data.
 *
 * The header size follows the format specification exactly; the data size is a lower bound:
 * fixed-size variables, then numrecs records, each entry unpadded (padding only adds). */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "ncio.h"

typedef struct {
    int ncid;
    long long count_bytes; /* NON_NEG counts and lengths: 4 bytes, 8 in CDF-5 */
    int status;            /* the first NetCDF error */
    int overflow;          /* a sum or product passed LLONG_MAX: no file is that large */
} header_walk;

/* Sums and products of sizes from the header, which may be anything in a crafted file. */
static long long add(header_walk *h, long long a, long long b) {
    long long r;
    h->overflow |= __builtin_add_overflow(a, b, &r);
    return h->overflow ? 0 : r;
}

static long long mul(header_walk *h, long long a, long long b) {
    long long r;
    h->overflow |= __builtin_mul_overflow(a, b, &r);
    return h->overflow ? 0 : r;
}

static long long pad4(header_walk *h, long long n) { return add(h, n, 3) / 4 * 4; }

static long long type_size(header_walk *h, nc_type t) {
    size_t size = 0;
    int st = nc_inq_type(h->ncid, t, NULL, &size);
    if (st != NC_NOERR && h->status == NC_NOERR)
        h->status = st;
    return (long long)size;
}

/* name = nelems namestring (padded to 4 bytes) */
static long long name_bytes(header_walk *h, const char *name) {
    long long len = 0;
    while (name[len]) len++;
    return h->count_bytes + pad4(h, len);
}

/* att_list = ABSENT | NC_ATTRIBUTE nelems [attr ...]; attr = name nc_type nelems values */
static long long att_list_bytes(header_walk *h, int varid, int natts) {
    long long bytes = 4 + h->count_bytes;
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len = 0;
        int st = nc_inq_attname(h->ncid, varid, a, name);
        if (st == NC_NOERR)
            st = nc_inq_att(h->ncid, varid, name, &t, &len);
        if (st != NC_NOERR) {
            if (h->status == NC_NOERR) h->status = st;
            return bytes;
        }
        long long values = pad4(h, mul(h, len > LLONG_MAX ? LLONG_MAX : (long long)len, type_size(h, t)));
        bytes = add(h, bytes, add(h, name_bytes(h, name) + 4 + h->count_bytes, values));
    }
    return bytes;
}

minv_status minv_nc_classic_min_size(minv_context *ctx, int ncid, const char *path,
                                     long long *bytes) {
    int format, ndims, nvars, ngatts, unlimdim;
    size_t numrecs = 0;
    int st = nc_inq_format(ncid, &format);
    if (st == NC_NOERR)
        st = nc_inq(ncid, &ndims, &nvars, &ngatts, &unlimdim);
    if (st == NC_NOERR && unlimdim >= 0)
        st = nc_inq_dimlen(ncid, unlimdim, &numrecs);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': cannot read the header", path);

    header_walk h = {ncid, format == NC_FORMAT_64BIT_DATA ? 8 : 4, NC_NOERR, 0};
    long long begin_bytes = format == NC_FORMAT_CLASSIC ? 4 : 8;
    long long header = 4 + h.count_bytes; /* magic, numrecs */
    header += 4 + h.count_bytes;          /* dim_list */
    for (int d = 0; d < ndims && h.status == NC_NOERR; d++) {
        char name[NC_MAX_NAME + 1];
        h.status = nc_inq_dimname(ncid, d, name);
        header = add(&h, header, name_bytes(&h, name) + h.count_bytes);
    }
    header = add(&h, header, att_list_bytes(&h, NC_GLOBAL, ngatts));
    header = add(&h, header, 4 + h.count_bytes); /* var_list */
    long long fixed = 0, record = 0;
    int *dimids = NULL;
    for (int v = 0; v < nvars && h.status == NC_NOERR; v++) {
        char name[NC_MAX_NAME + 1];
        int vdims = 0, natts;
        nc_type t;
        h.status = nc_inq_varndims(ncid, v, &vdims);
        if (h.status == NC_NOERR) { /* any number of dimensions (no NC_MAX_VAR_DIMS array) */
            int *grown = realloc(dimids, (size_t)(vdims > 0 ? vdims : 1) * sizeof *dimids);
            h.status = grown ? NC_NOERR : NC_ENOMEM;
            dimids = grown ? grown : dimids;
        }
        if (h.status == NC_NOERR)
            h.status = nc_inq_var(ncid, v, name, &t, &vdims, dimids, &natts);
        if (h.status != NC_NOERR)
            break;
        header = add(&h, header, name_bytes(&h, name) + h.count_bytes + mul(&h, vdims, h.count_bytes));
        header = add(&h, header, add(&h, att_list_bytes(&h, v, natts), 4 + h.count_bytes + begin_bytes));
        long long size = type_size(&h, t);
        int is_record = 0;
        for (int d = 0; d < vdims; d++) {
            size_t len = 0;
            if (dimids[d] == unlimdim) {
                is_record = 1;
                continue;
            }
            if (h.status == NC_NOERR)
                h.status = nc_inq_dimlen(ncid, dimids[d], &len);
            size = mul(&h, size, len > LLONG_MAX ? LLONG_MAX : (long long)len);
        }
        if (is_record)
            record = add(&h, record, size);
        else
            fixed = add(&h, fixed, size);
    }
    free(dimids);
    if (h.status != NC_NOERR)
        return minv_nc_fail(ctx, h.status, "'%s': cannot read the header", path);
    *bytes = add(&h, add(&h, header, fixed), mul(&h, numrecs > LLONG_MAX ? LLONG_MAX : (long long)numrecs, record));
    if (h.overflow)
        return minv_fail(ctx, MINV_ERR_IO, "'%s': its header describes more than 2^63 bytes of data, more than any file holds (a corrupt header?)",
                         path);
    return MINV_SUCCESS;
}
