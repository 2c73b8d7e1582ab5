/* Stored bytes to doubles and back, as the direct reader and writer need them: the numeric
 * types of netCDF in either byte order, HDF5's shuffle filter, and zlib's deflate (the
 * format of HDF5's deflate filter); to read, also the Zstandard and bzip2 filters that
 * netCDF-C 4.9 defines (nc_def_var_zstandard, nc_def_var_bzip2), where minv was built with
 * libzstd and libbz2. Conversions are C casts, as NetCDF-C's own, so that a
 * value read or written here is bit for bit the one nc_get_vara_double or nc_put_vara_double
 * gives or stores. Every function here is thread-safe: the direct paths run it on all cores. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if MINV_NC_HAVE_HDF5
#include <zlib.h>
#endif
#if MINV_NC_HAVE_ZSTD
#include <zstd.h>
#endif
#if MINV_NC_HAVE_BZIP2
#include <bzlib.h>
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

/* The Zstandard filter (HDF5 filter 32015) stores a chunk as one zstd frame, bzip2's (307) as
 * one bzip2 stream: 1 when src decodes to exactly dst_bytes. */
int minv_nc_unzstd(const void *src, size_t src_bytes, void *dst, size_t dst_bytes) {
#if MINV_NC_HAVE_ZSTD
    const size_t got = ZSTD_decompress(dst, dst_bytes, src, src_bytes);
    return !ZSTD_isError(got) && got == dst_bytes;
#else
    (void)src; (void)src_bytes; (void)dst; (void)dst_bytes;
    return 0;
#endif
}

int minv_nc_bunzip2(const void *src, size_t src_bytes, void *dst, size_t dst_bytes) {
#if MINV_NC_HAVE_BZIP2
    unsigned int got = (unsigned int)dst_bytes;
    if (src_bytes > UINT32_MAX || dst_bytes > UINT32_MAX)
        return 0;
    return BZ2_bzBuffToBuffDecompress(dst, &got, (char *)src, (unsigned int)src_bytes, 0, 0) == BZ_OK &&
           got == dst_bytes;
#else
    (void)src; (void)src_bytes; (void)dst; (void)dst_bytes;
    return 0;
#endif
}

size_t minv_nc_stored_bound(int filter, size_t bytes) {
    switch (filter) {
    case MINV_NC_FILTER_DEFLATE: return minv_nc_deflate_bound(bytes);
#if MINV_NC_HAVE_ZSTD
    case MINV_NC_FILTER_ZSTD: return ZSTD_compressBound(bytes);
#endif
    case MINV_NC_FILTER_BZIP2: return bytes + bytes / 100 + 600; /* bzip2's manual */
    default: return bytes;
    }
}

int minv_nc_filter_of(unsigned id) {
    switch (id) {
    case 1: return MINV_NC_FILTER_DEFLATE;
    case 2: return MINV_NC_FILTER_SHUFFLE;
    case MINV_NC_H5Z_ZSTD: return MINV_NC_FILTER_ZSTD;
    case MINV_NC_H5Z_BZIP2: return MINV_NC_FILTER_BZIP2;
    default: return 0;
    }
}

int minv_nc_filter_readable(int filter) {
    switch (filter) {
    case MINV_NC_FILTER_SHUFFLE:
    case MINV_NC_FILTER_DEFLATE: return 1;
#if MINV_NC_HAVE_ZSTD
    case MINV_NC_FILTER_ZSTD: return 1;
#endif
#if MINV_NC_HAVE_BZIP2
    case MINV_NC_FILTER_BZIP2: return 1;
#endif
    default: return 0;
    }
}

static const char *filter_name(unsigned id) {
    switch (id) {
    case 1: return "deflate";
    case 2: return "shuffle";
    case 3: return "Fletcher32 checksum";
    case 4: return "szip";
    case 5: return "N-bit";
    case 6: return "scale-offset";
    case MINV_NC_H5Z_BZIP2: return "bzip2";
    case 32001: return "Blosc";
    case 32004: return "LZ4";
    case 32008: return "bitshuffle";
    case 32013: return "ZFP";
    case MINV_NC_H5Z_ZSTD: return "Zstandard";
    case 32017: return "SZ";
    case 32026: return "Blosc2";
    case 32024: return "SZ3";
    default: return NULL;
    }
}

const char *minv_nc_filter_label(unsigned id, char *buf, size_t len) {
    const char *name = filter_name(id);
    if (name)
        snprintf(buf, len, "%s (HDF5 filter %u)", name, id);
    else
        snprintf(buf, len, "HDF5 filter %u", id);
    return buf;
}
