/* Stored bytes to doubles and back, as the direct reader and writer need them: the numeric
 * types of netCDF in either byte order, HDF5's shuffle filter, and zlib's deflate (the
 * format of HDF5's deflate filter). Conversions are C casts, as NetCDF-C's own, so that a
 * value read or written here is bit for bit the one nc_get_vara_double or nc_put_vara_double
 * gives or stores. Every function here is thread-safe: the direct paths run it on all cores. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if MINV_NC_HAVE_HDF5
#include <zlib.h>
#endif

#include "ncio.h"

static int host_is_big_endian(void) {
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe == 0;
}

int minv_nc_encoding_set(minv_nc_encoding *e, nc_type xtype, int big_endian) {
    size_t size;
    switch (xtype) {
    case NC_BYTE: case NC_UBYTE: size = 1; break;
    case NC_SHORT: case NC_USHORT: size = 2; break;
    case NC_INT: case NC_UINT: case NC_FLOAT: size = 4; break;
    case NC_INT64: case NC_UINT64: case NC_DOUBLE: size = 8; break;
    default: return 0;
    }
    e->xtype = xtype;
    e->size = size;
    e->swap = size > 1 && big_endian != host_is_big_endian();
    return 1;
}

static void swap_bytes(unsigned char *p, size_t size) {
    for (size_t a = 0, b = size - 1; a < b; a++, b--) {
        unsigned char t = p[a];
        p[a] = p[b];
        p[b] = t;
    }
}

/* One stored value at p (its bytes in storage order) as a double. */
#define LOAD_AS(type)                                                                         \
    do {                                                                                      \
        for (size_t i = 0; i < n; i++) {                                                      \
            type v;                                                                           \
            memcpy(&v, (const unsigned char *)src + i * sizeof v, sizeof v);                  \
            dst[i] = (double)v;                                                               \
        }                                                                                     \
    } while (0)

#define LOAD_SWAPPED(type)                                                                    \
    do {                                                                                      \
        for (size_t i = 0; i < n; i++) {                                                      \
            unsigned char b[sizeof(type)];                                                    \
            type v;                                                                           \
            memcpy(b, (const unsigned char *)src + i * sizeof v, sizeof v);                   \
            swap_bytes(b, sizeof v);                                                          \
            memcpy(&v, b, sizeof v);                                                          \
            dst[i] = (double)v;                                                               \
        }                                                                                     \
    } while (0)

#define LOAD(type) do { if (e->swap) LOAD_SWAPPED(type); else LOAD_AS(type); } while (0)

void minv_nc_decode_values(const minv_nc_encoding *e, const void *src, size_t n, double *dst) {
    switch (e->xtype) {
    case NC_BYTE: LOAD_AS(signed char); break;
    case NC_UBYTE: LOAD_AS(unsigned char); break;
    case NC_SHORT: LOAD(short); break;
    case NC_USHORT: LOAD(unsigned short); break;
    case NC_INT: LOAD(int); break;
    case NC_UINT: LOAD(unsigned int); break;
    case NC_INT64: LOAD(long long); break;
    case NC_UINT64: LOAD(unsigned long long); break;
    case NC_FLOAT: LOAD(float); break;
    default: /* NC_DOUBLE */
        if (!e->swap) {
            if ((const void *)dst != src)
                memmove(dst, src, n * sizeof *dst);
        } else {
            LOAD_SWAPPED(double);
        }
        break;
    }
}

/* The values are in range (the writer rounds and checks integers first; floats are checked
 * here as NetCDF-C checks them). */
#define STORE(type)                                                                           \
    do {                                                                                      \
        for (size_t i = 0; i < n; i++) {                                                      \
            type v = (type)src[i];                                                            \
            unsigned char *b = (unsigned char *)dst + i * sizeof v;                           \
            memcpy(b, &v, sizeof v);                                                          \
            if (e->swap)                                                                      \
                swap_bytes(b, sizeof v);                                                      \
        }                                                                                     \
    } while (0)

int64_t minv_nc_encode_values(const minv_nc_encoding *e, const double *src, size_t n, void *dst) {
    switch (e->xtype) {
    case NC_BYTE: STORE(signed char); break;
    case NC_UBYTE: STORE(unsigned char); break;
    case NC_SHORT: STORE(short); break;
    case NC_USHORT: STORE(unsigned short); break;
    case NC_INT: STORE(int); break;
    case NC_UINT: STORE(unsigned int); break;
    case NC_INT64: STORE(long long); break;
    case NC_UINT64: STORE(unsigned long long); break;
    case NC_FLOAT:
        for (size_t i = 0; i < n; i++)
            if (fabs(src[i]) > FLT_MAX && isfinite(src[i]))
                return (int64_t)i; /* NetCDF-C's NC_ERANGE */
        STORE(float);
        break;
    default:
        if (!e->swap)
            memcpy(dst, src, n * sizeof *src);
        else
            STORE(double);
        break;
    }
    return -1;
}

/* HDF5's shuffle: byte j of element i goes to j * count + i; trailing bytes stay in place. */
void minv_nc_unshuffle(const unsigned char *src, size_t bytes, size_t size, unsigned char *dst) {
    const size_t count = size > 1 ? bytes / size : 0;
    for (size_t j = 0; j < size && count > 0; j++) {
        const unsigned char *plane = src + j * count;
        for (size_t i = 0; i < count; i++)
            dst[i * size + j] = plane[i];
    }
    memcpy(dst + count * size, src + count * size, bytes - count * size);
}

void minv_nc_shuffle(const unsigned char *src, size_t bytes, size_t size, unsigned char *dst) {
    const size_t count = size > 1 ? bytes / size : 0;
    for (size_t j = 0; j < size && count > 0; j++) {
        unsigned char *plane = dst + j * count;
        for (size_t i = 0; i < count; i++)
            plane[i] = src[i * size + j];
    }
    memcpy(dst + count * size, src + count * size, bytes - count * size);
}

#if MINV_NC_HAVE_HDF5
/* HDF5 chunks hold less than 4 GiB, so one zlib call takes a whole chunk. */
int minv_nc_inflate(const void *src, size_t src_bytes, void *dst, size_t dst_bytes) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (src_bytes > UINT32_MAX || dst_bytes > UINT32_MAX || inflateInit(&z) != Z_OK)
        return 0;
    z.next_in = (unsigned char *)src;
    z.avail_in = (uInt)src_bytes;
    z.next_out = dst;
    z.avail_out = (uInt)dst_bytes;
    const int whole = inflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out == dst_bytes;
    inflateEnd(&z);
    return whole;
}

size_t minv_nc_deflate_bound(size_t bytes) { return (size_t)compressBound((uLong)bytes); }

size_t minv_nc_deflate(const void *src, size_t src_bytes, int level, void *dst, size_t dst_cap) {
    uLongf written = (uLongf)dst_cap;
    if (src_bytes > UINT32_MAX || compress2(dst, &written, src, (uLong)src_bytes, level) != Z_OK)
        return 0;
    return (size_t)written;
}
#else
/* without HDF5 no chunk reaches this module */
int minv_nc_inflate(const void *src, size_t src_bytes, void *dst, size_t dst_bytes) {
    (void)src; (void)src_bytes; (void)dst; (void)dst_bytes;
    return 0;
}
size_t minv_nc_deflate_bound(size_t bytes) { return bytes; }
size_t minv_nc_deflate(const void *src, size_t src_bytes, int level, void *dst, size_t dst_cap) {
    (void)src; (void)src_bytes; (void)level; (void)dst; (void)dst_cap;
    return 0;
}
#endif
