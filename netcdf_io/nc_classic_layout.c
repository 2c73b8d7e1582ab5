/* Where a variable's values lie in a netCDF-3 (classic, 64-bit offset) or CDF-5 file, read
 * from the file's header as the format specification lays it out: NetCDF-C keeps each
 * variable's `begin` offset to itself, and the direct reader and writer need it. The record
 * size follows NetCDF-C's rule (NC_computeshapes): the padded sizes of the record variables
 * summed, except that a lone record variable is not padded. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "ncio.h"

enum { TAG_DIMENSION = 0x0A, TAG_VARIABLE = 0x0B, TAG_ATTRIBUTE = 0x0C };

typedef struct {
    int fd;
    unsigned char *buf;
    size_t have, pos;        /* bytes in buf (from the file's start), cursor */
    int count_bytes;         /* NON_NEG: 4, 8 in CDF-5 */
    int offset_bytes;        /* OFFSET: 4 in classic, 8 otherwise */
    int bad;
} header;

/* Makes buf hold `more` bytes past the cursor (reading the header in growing pieces). */
static int need(header *h, size_t more) {
    if (h->bad || h->pos + more <= h->have)
        return !h->bad;
    size_t want = h->have ? h->have : 1 << 16;
    while (want < h->pos + more)
        want *= 2;
    unsigned char *grown = realloc(h->buf, want);
    if (!grown) {
        h->bad = 1;
        return 0;
    }
    h->buf = grown;
    ssize_t got = pread(h->fd, h->buf + h->have, want - h->have, (off_t)h->have);
    if (got > 0)
        h->have += (size_t)got;
    if (h->pos + more > h->have)
        h->bad = 1;
    return !h->bad;
}

static uint64_t big_endian(header *h, int bytes) {
    uint64_t v = 0;
    if (!need(h, (size_t)bytes))
        return 0;
    for (int b = 0; b < bytes; b++)
        v = v << 8 | h->buf[h->pos + (size_t)b];
    h->pos += (size_t)bytes;
    return v;
}

static uint64_t count(header *h) { return big_endian(h, h->count_bytes); }

static void skip(header *h, uint64_t bytes) {
    if (bytes > SIZE_MAX / 2 || !need(h, (size_t)bytes))
        h->bad = 1;
    else
        h->pos += (size_t)bytes;
}

static uint64_t pad4(uint64_t n) { return (n + 3) / 4 * 4; }

/* name = nelems namestring; copied into out (NC_MAX_NAME + 1) */
static void name(header *h, char *out) {
    uint64_t len = count(h);
    if (len > NC_MAX_NAME || !need(h, (size_t)pad4(len))) {
        h->bad = 1;
        return;
    }
    memcpy(out, h->buf + h->pos, (size_t)len);
    out[len] = '\0';
    h->pos += (size_t)pad4(len);
}

static size_t type_size(uint64_t t) {
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_DOUBLE: case NC_INT64: case NC_UINT64: return 8;
    default: return 0;
    }
}

static void skip_attributes(header *h) {
    uint64_t tag = big_endian(h, 4), n = count(h);
    if (tag != TAG_ATTRIBUTE && !(tag == 0 && n == 0))
        h->bad = 1;
    for (uint64_t a = 0; a < n && !h->bad; a++) {
        char att[NC_MAX_NAME + 1];
        name(h, att);
        size_t size = type_size(big_endian(h, 4));
        uint64_t values = count(h);
        if (size == 0 || values > UINT64_MAX / 8)
            h->bad = 1;
        else
            skip(h, pad4(values * size));
    }
}

int minv_nc_classic_layout(int fd, const char *want, int varid, minv_nc_classic_var *out) {
    header h = {fd, NULL, 0, 0, 4, 4, 0};
    uint64_t *dim_len = NULL;
    int found = 0, nrecord = 0;
    uint64_t padded_sum = 0, first_record_len = 0, first_record_unpadded = 0;
    if (!need(&h, 4) || memcmp(h.buf, "CDF", 3) != 0)
        goto done;
    switch (h.buf[3]) {
    case 1: break;
    case 2: h.offset_bytes = 8; break;
    case 5: h.offset_bytes = 8; h.count_bytes = 8; break;
    default: goto done;
    }
    h.pos = 4;
    count(&h); /* numrecs */

    uint64_t tag = big_endian(&h, 4), ndims = count(&h);
    if ((tag != TAG_DIMENSION && !(tag == 0 && ndims == 0)) || ndims > NC_MAX_DIMS)
        goto done;
    dim_len = calloc(ndims ? ndims : 1, sizeof *dim_len);
    if (!dim_len)
        goto done;
    for (uint64_t d = 0; d < ndims && !h.bad; d++) {
        char dim[NC_MAX_NAME + 1];
        name(&h, dim);
        dim_len[d] = count(&h); /* 0: the record dimension */
    }
    skip_attributes(&h);

    tag = big_endian(&h, 4);
    uint64_t nvars = count(&h);
    if (tag != TAG_VARIABLE && !(tag == 0 && nvars == 0))
        goto done;
    for (uint64_t v = 0; v < nvars && !h.bad; v++) {
        char var[NC_MAX_NAME + 1];
        name(&h, var);
        uint64_t rank = count(&h), product = 1;
        int record = 0;
        if (rank > NC_MAX_VAR_DIMS)
            goto done;
        for (uint64_t d = 0; d < rank && !h.bad; d++) {
            uint64_t id = count(&h);
            if (id >= ndims)
                goto done;
            if (d == 0 && dim_len[id] == 0)
                record = 1;
            else if (dim_len[id] != 0 && product > UINT64_MAX / dim_len[id])
                goto done;
            else if (dim_len[id] != 0 || d > 0)
                product *= dim_len[id];
        }
        skip_attributes(&h);
        const size_t size = type_size(big_endian(&h, 4));
        count(&h); /* vsize: NetCDF-C recomputes it, as done here */
        const uint64_t begin = big_endian(&h, h.offset_bytes);
        if (size == 0 || product > UINT64_MAX / 16)
            goto done;
        const uint64_t unpadded = product * size, padded = pad4(unpadded);
        if (record) {
            if (nrecord++ == 0) {
                first_record_len = padded;
                first_record_unpadded = unpadded;
            }
            padded_sum += padded;
        }
        if ((int)v == varid) {
            if (strcmp(var, want) != 0 || begin > INT64_MAX)
                goto done;
            out->begin = (int64_t)begin;
            out->record = record;
            found = 1;
        }
    }
    if (h.bad || !found)
        goto done;
    out->record_bytes = (int64_t)(padded_sum == first_record_len ? first_record_unpadded : padded_sum);
    found = 2;
done:
    free(h.buf);
    free(dim_len);
    return found == 2 ? 0 : -1;
}
