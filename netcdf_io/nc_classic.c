/* A netCDF-3 header (classic, 64-bit offset, CDF-5) walked from its bytes before netCDF-C
 * parses it. netCDF-C trusts the counts it reads (a 540-byte file that claims 2^60 bytes of
 * attribute values makes it allocate them) and reads zeros past the end of a truncated file
 * instead of failing. So, following the format specification (NetCDF Users Guide, "File
 * Format Specifications"):
 *   - every count is checked against the bytes left in the file (no list, name or value is
 *     longer than what follows it), names against NC_MAX_NAME, types and dimension ids
 *     against what the version allows;
 *   - the least size the file must have is the end of its variables' data, from the offsets
 *     (begin) the header gives and the sizes its dimensions give: fixed-size variables whole,
 *     record variables for numrecs records (unpadded: a lower bound). A smaller file is
 *     truncated.
 * Only the header is read, a few bytes at a time through stdio's buffer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ncio.h"

enum { TAG_DIMENSION = 0x0A, TAG_VARIABLE = 0x0B, TAG_ATTRIBUTE = 0x0C };

typedef struct {
    FILE *f;
    long long size, pos;   /* the file's size, the bytes read */
    int version;           /* 1 classic, 2 64-bit offset, 5 CDF-5 */
    int count_bytes;       /* NON_NEG counts: 4 bytes, 8 in CDF-5 */
    int overflow;          /* a sum or product passed LLONG_MAX: no file is that large */
    char bad[160];         /* what is wrong; "" while the header is sound */
} header_walk;

static long long left(const header_walk *w) { return w->size - w->pos; }

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void fail_walk(header_walk *w, const char *fmt, ...) {
    if (w->bad[0])
        return; /* the first problem is the one to tell */
    va_list args;
    va_start(args, fmt);
    vsnprintf(w->bad, sizeof w->bad, fmt, args);
    va_end(args);
}

/* A big-endian unsigned integer of `bytes` bytes. */
static uint64_t get(header_walk *w, int bytes) {
    unsigned char b[8];
    uint64_t v = 0;
    if (w->bad[0])
        return 0;
    if (fread(b, 1, (size_t)bytes, w->f) != (size_t)bytes) {
        fail_walk(w, "it ends inside its header, at byte %lld", w->pos);
        return 0;
    }
    w->pos += bytes;
    for (int k = 0; k < bytes; k++)
        v = v << 8 | b[k];
    return v;
}

static void skip(header_walk *w, long long n) {
    if (w->bad[0])
        return;
    if (n > left(w) || fseek(w->f, (long)n, SEEK_CUR) != 0) {
        fail_walk(w, "it ends inside its header (%lld bytes wanted, %lld left)", n, left(w));
        return;
    }
    w->pos += n;
}

/* NON_NEG: a non-negative INT (INT64 in CDF-5). */
static long long get_count(header_walk *w) {
    uint64_t v = get(w, w->count_bytes);
    if (v > (w->count_bytes == 4 ? (uint64_t)INT32_MAX : (uint64_t)INT64_MAX)) {
        fail_walk(w, "a count of %llu at byte %lld is negative", (unsigned long long)v, w->pos);
        return 0;
    }
    return (long long)v;
}

/* `n` items of at least `each` bytes must fit in what is left. */
static int fits(header_walk *w, long long n, long long each, const char *what) {
    if (w->bad[0])
        return 0;
    if (each > 0 && n > left(w) / each) {
        fail_walk(w, "it claims %lld %s at byte %lld, but only %lld bytes follow", n, what, w->pos, left(w));
        return 0;
    }
    return 1;
}

static long long add(header_walk *w, long long a, long long b) {
    long long r;
    w->overflow |= __builtin_add_overflow(a, b, &r);
    return w->overflow ? LLONG_MAX : r;
}

static long long mul(header_walk *w, long long a, long long b) {
    long long r;
    w->overflow |= __builtin_mul_overflow(a, b, &r);
    return w->overflow ? LLONG_MAX : r;
}

/* name = nelems namestring, padded to 4 bytes */
static void skip_name(header_walk *w) {
    long long n = get_count(w);
    if (n > NC_MAX_NAME) /* and no padding of it computed: n may be near 2^63 */
        fail_walk(w, "a name of %lld characters at byte %lld (NC_MAX_NAME is %d)", n, w->pos, NC_MAX_NAME);
    else
        skip(w, (n + 3) / 4 * 4);
}

/* The external size of a type, 0 for one the version does not have. */
static long long type_size(const header_walk *w, uint64_t t) {
    static const long long sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8}; /* NC_BYTE .. NC_UINT64 */
    return t < (w->version == 5 ? 12u : 7u) ? sizes[t] : 0;
}

static long long get_type(header_walk *w) {
    uint64_t t = get(w, 4);
    long long size = type_size(w, t);
    if (!size)
        fail_walk(w, "an unknown type %llu at byte %lld", (unsigned long long)t, w->pos);
    return size;
}

/* A list's tag and length: ABSENT (ZERO ZERO) is an empty list. */
static long long get_list(header_walk *w, uint64_t want, long long least_each, const char *what) {
    uint64_t tag = get(w, 4);
    long long n = get_count(w);
    if (tag == 0 && n == 0)
        return 0;
    if (tag != want)
        fail_walk(w, "a list tag %llu at byte %lld is not the one the format has there", (unsigned long long)tag, w->pos);
    return fits(w, n, least_each, what) ? n : 0;
}

/* att_list = ABSENT | NC_ATTRIBUTE nelems [attr ...]; attr = name nc_type nelems [values] */
static void skip_attributes(header_walk *w) {
    long long n = get_list(w, TAG_ATTRIBUTE, 2 * w->count_bytes + 4, "attributes");
    for (long long a = 0; a < n && !w->bad[0]; a++) {
        skip_name(w);
        long long size = get_type(w), values = get_count(w);
        if (fits(w, values, size, "attribute values"))
            skip(w, (values * size + 3) / 4 * 4);
    }
}

typedef struct {
    long long least;  /* the end of the data the header describes */
    int overflowed;
} classic_size;

/* Walks the header; fills *sz. */
static void walk_header(header_walk *w, classic_size *sz) {
    const int begin_bytes = w->version == 1 ? 4 : 8;
    long long *dims = NULL, numrecs = 0, recsize = 0, least = w->pos;
    int streaming = 0;
    uint64_t raw = get(w, w->count_bytes);
    streaming = raw == (w->count_bytes == 4 ? 0xFFFFFFFFu : UINT64_MAX);
    if (!streaming) {
        if (raw > (uint64_t)INT64_MAX)
            fail_walk(w, "numrecs %llu is negative", (unsigned long long)raw);
        numrecs = (long long)raw;
    }
    /* dim_list: each dim is a name and a length, 2 counts at least */
    long long ndims = get_list(w, TAG_DIMENSION, 2 * w->count_bytes, "dimensions");
    dims = malloc((size_t)(ndims > 0 ? ndims : 1) * sizeof *dims);
    if (!dims) {
        fail_walk(w, "cannot hold its %lld dimensions", ndims);
        ndims = 0;
    }
    for (long long d = 0; d < ndims && !w->bad[0]; d++) {
        skip_name(w);
        dims[d] = get_count(w); /* 0: the record dimension */
    }
    skip_attributes(w);
    /* var_list: name, ndims, attributes, type, vsize, begin: 4 counts, 8 bytes and the begin */
    long long nvars = get_list(w, TAG_VARIABLE, 4 * w->count_bytes + 8 + begin_bytes, "variables");
    /* begin and size of each record variable's part of a record (begin -1: a fixed variable),
     * to place its last record once recsize is known */
    long long *rec = malloc((size_t)(nvars > 0 ? 2 * nvars : 1) * sizeof *rec);
    if (!rec)
        fail_walk(w, "cannot hold its %lld variables", nvars);
    for (long long v = 0; v < nvars && !w->bad[0]; v++) {
        skip_name(w);
        long long rank = get_count(w), elems = 1;
        int record = 0;
        rec[2 * v] = -1;
        if (!fits(w, rank, w->count_bytes, "dimensions of a variable"))
            break;
        for (long long d = 0; d < rank && !w->bad[0]; d++) {
            long long id = get_count(w);
            if (id >= ndims)
                fail_walk(w, "a variable uses dimension id %lld, and there are %lld dimensions", id, ndims);
            else if (d == 0 && dims[id] == 0)
                record = 1;
            else
                elems = mul(w, elems, dims[id]);
        }
        skip_attributes(w);
        const long long size = mul(w, get_type(w), elems);
        get(w, w->count_bytes); /* vsize: netCDF-C computes it from the dimensions */
        const uint64_t begin = get(w, begin_bytes);
        if (begin > (uint64_t)INT64_MAX)
            fail_walk(w, "a variable's data begins at a negative offset %llu", (unsigned long long)begin);
        if (w->bad[0])
            break;
        if (record) {
            rec[2 * v] = (long long)begin;
            rec[2 * v + 1] = size;
            recsize = add(w, recsize, size);
        } else if (add(w, (long long)begin, size) > least) {
            least = add(w, (long long)begin, size);
        }
    }
    least = least > w->pos ? least : w->pos;
    for (long long v = 0; rec && !streaming && numrecs > 0 && v < nvars && !w->bad[0]; v++) {
        if (rec[2 * v] < 0)
            continue;
        long long end = add(w, add(w, rec[2 * v], mul(w, numrecs - 1, recsize)), rec[2 * v + 1]);
        least = least > end ? least : end;
    }
    free(rec);
    free(dims);
    sz->least = least;
    sz->overflowed = w->overflow;
}

minv_status minv_nc_classic_check(minv_context *ctx, const char *path, const char *var) {
    /* O_NONBLOCK: a FIFO must not block here; the caller refused non-regular files already */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return MINV_SUCCESS; /* nc_open says why, as for any other file */
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        return MINV_SUCCESS;
    }
    header_walk w = {.f = f, .size = (long long)st.st_size};
    unsigned char magic[4];
    int is_classic = fread(magic, 1, 4, f) == 4 && memcmp(magic, "CDF", 3) == 0 &&
                     (magic[3] == 1 || magic[3] == 2 || magic[3] == 5);
    classic_size sz = {0, 0};
    if (is_classic) {
        w.pos = 4;
        w.version = magic[3];
        w.count_bytes = w.version == 5 ? 8 : 4;
        walk_header(&w, &sz);
    }
    fclose(f);
    if (!is_classic)
        return MINV_SUCCESS;
    char what[NC_MAX_NAME + 64] = "";
    if (var)
        snprintf(what, sizeof what, ", so variable '%s' cannot be read", var);
    if (w.bad[0])
        return minv_fail(ctx, MINV_ERR_IO, "'%s' is not a valid netCDF-3 file: %s%s", path, w.bad, what);
    if (sz.overflowed)
        return minv_fail(ctx, MINV_ERR_IO, "'%s': its header describes more than 2^63 bytes of data, more than any file holds (a corrupt header?)%s",
                         path, what);
    if (sz.least > w.size)
        return minv_fail(ctx, MINV_ERR_IO, "'%s' is truncated: its header describes at least %lld bytes, the file has %lld%s",
                         path, sz.least, w.size, what);
    return MINV_SUCCESS;
}
