/* Direct access to a variable's stored values, beside NetCDF-C: where they lie in the file and
 * how they are encoded, so that the reader and writer move them with pread/pwrite and
 * H5Dwrite_chunk on all cores and convert them themselves.
 *
 *   - netCDF-3 and CDF-5: contiguous, big-endian, at the `begin` offset of the header
 *     (nc_classic_layout.c); record variables one record apart.
 *   - netCDF-4 (HDF5): the dataset is opened through HDF5 next to NetCDF-C: a contiguous one
 *     at H5Dget_offset, a chunked one chunk by chunk (H5Dget_chunk_info_by_coord to read,
 *     H5Dwrite_chunk to write), its filters undone or applied here when they are HDF5's
 *     shuffle and deflate (what netCDF-4 writes), or undone when they are netCDF-C's Zstandard
 *     and bzip2; any other filter, a user block, external storage or a compact dataset leave
 *     the variable to NetCDF-C, and why_not says so.
 *
 * HDF5 is not thread-safe: every call into it here runs on one thread at a time, under the
 * NetCDF lock the caller holds; only pread, pwrite and the codecs run in parallel.
 *
 * A writer's room on the disk is reserved by the output it writes (nc_output.c) before HDF5
 * writes: HDF5 1.10 cannot close a file after H5Dwrite_chunk met a full disk. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ncio.h"

#if MINV_NC_HAVE_HDF5
#include <hdf5.h>
#endif

static void direct_reset(minv_nc_direct *d) {
    memset(d, 0, sizeof *d);
    d->fd = -1;
    d->file_bytes = -1;
    d->h5file = d->h5dset = -1;
}

static void give_up(minv_nc_direct *d, const char *why) {
    minv_nc_direct_close(d);
    d->kind = MINV_NC_DIRECT_NONE;
    snprintf(d->why_not, sizeof d->why_not, "%s", why);
}

static int is_netcdf4(int format) { return format == NC_FORMAT_NETCDF4 || format == NC_FORMAT_NETCDF4_CLASSIC; }

/* ---- netCDF-3 and CDF-5 ---- */

static void open_classic(minv_nc_direct *d, const minv_nc_var_id *v, int write) {
    minv_nc_classic_var layout;
    d->fd = open(v->path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC); /* the header is read either way */
    if (d->fd < 0)
        return give_up(d, "the file cannot be opened a second time");
    if (minv_nc_classic_layout(d->fd, v->name, v->varid, &layout) != 0)
        return give_up(d, "its header is not one this reader follows");
    if (write && layout.record)
        return give_up(d, "a record variable grows through NetCDF-C");
    minv_nc_encoding_set(&d->enc, v->xtype, 1);
    d->begin = layout.begin;
    d->record = layout.record;
    d->record_bytes = layout.record_bytes;
    d->kind = MINV_NC_DIRECT_CONTIGUOUS;
}

/* ---- netCDF-4 ---- */

#if MINV_NC_HAVE_HDF5
/* The encoding of an HDF5 type that holds netCDF's xtype; 0 when it is something else. */
static int h5_encoding(hid_t type, nc_type xtype, minv_nc_encoding *e) {
    const H5T_class_t cls = H5Tget_class(type);
    const size_t size = H5Tget_size(type);
    const H5T_order_t order = H5Tget_order(type);
    if (!minv_nc_encoding_set(e, xtype, order == H5T_ORDER_BE) || size != e->size ||
        (order != H5T_ORDER_LE && order != H5T_ORDER_BE && size > 1))
        return 0;
    if (xtype == NC_FLOAT)
        return H5Tequal(type, H5T_IEEE_F32LE) > 0 || H5Tequal(type, H5T_IEEE_F32BE) > 0;
    if (xtype == NC_DOUBLE)
        return H5Tequal(type, H5T_IEEE_F64LE) > 0 || H5Tequal(type, H5T_IEEE_F64BE) > 0;
    const int is_signed = xtype == NC_BYTE || xtype == NC_SHORT || xtype == NC_INT || xtype == NC_INT64;
    return cls == H5T_INTEGER && H5Tget_precision(type) == 8 * size && H5Tget_offset(type) == 0 &&
           H5Tget_sign(type) == (is_signed ? H5T_SGN_2 : H5T_SGN_NONE);
}

/* The dataset of a variable: the name NetCDF-C gives a variable that shares its name with a
 * dimension it does not index (the plain name is then the dimension's scale), else its name,
 * in its group's path. The dataset must have the variable's rank and no more than its shape
 * (along an unlimited dimension a dataset may hold less). */
static hid_t open_dataset(hid_t file, const minv_nc_var_id *v) {
    char path[sizeof v->group + 2 * NC_MAX_NAME];
    const char *sep = strcmp(v->group, "/") == 0 ? "" : "/";
    for (int attempt = 0; attempt < 2; attempt++) {
        snprintf(path, sizeof path, "%s%s%s%s", v->group, sep, attempt ? "" : "_nc4_non_coord_", v->name);
        if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
            continue;
        hid_t dset = H5Dopen2(file, path, H5P_DEFAULT);
        if (dset < 0)
            continue;
        hid_t space = H5Dget_space(dset);
        hsize_t extent[MINV_NC_MAX_RANK];
        int fits = space >= 0 && H5Sget_simple_extent_ndims(space) == v->rank &&
                   H5Sget_simple_extent_dims(space, extent, NULL) == v->rank;
        for (int r = 0; fits && r < v->rank; r++)
            fits = extent[r] <= v->shape[r];
        if (space >= 0)
            H5Sclose(space);
        if (fits)
            return dset;
        H5Dclose(dset);
    }
    return -1;
}

/* The filter pipeline, when every filter is one this module undoes (and, to write, applies);
 * else a reason, in why. */
static const char *read_filters(minv_nc_direct *d, hid_t dcpl, int write, char *why, size_t why_len) {
    const int n = H5Pget_nfilters(dcpl);
    if (n < 0 || n > MINV_NC_MAX_FILTERS)
        return "its filter pipeline is longer than this reader handles";
    d->nfilters = n;
    for (int f = 0; f < n; f++) {
        unsigned flags = 0, config = 0, values[8] = {0};
        size_t nvalues = 8;
        char fname[64] = "";
        const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)f, &flags, &nvalues, values, sizeof fname, fname, &config);
        const int known = id >= 0 ? minv_nc_filter_of((unsigned)id) : 0;
        char label[64];
        if (!known || !minv_nc_filter_readable(known)) {
            snprintf(why, why_len, "it has %s, which this reader %s", minv_nc_filter_label((unsigned)id, label, sizeof label),
                     known ? "cannot undo (minv was built without its library)" : "does not undo");
            return why;
        }
        if (write && known != MINV_NC_FILTER_DEFLATE && known != MINV_NC_FILTER_SHUFFLE) {
            snprintf(why, why_len, "it has %s, which this writer does not apply",
                     minv_nc_filter_label((unsigned)id, label, sizeof label));
            return why;
        }
        d->filter[f] = known;
        if (known == MINV_NC_FILTER_DEFLATE)
            d->deflate_level = nvalues > 0 ? (int)values[0] : 6;
        if (known == MINV_NC_FILTER_SHUFFLE)
            d->shuffle_size = nvalues > 0 && values[0] > 0 ? values[0] : d->enc.size;
    }
    return NULL;
}

static void open_hdf5(minv_nc_direct *d, const minv_nc_var_id *v, int write) {
    const char *path = v->path;
    const int rank = v->rank;
    hsize_t block = 0;
    const char *why = NULL;
    char filter_why[160];
    hid_t fcpl = -1, dcpl = -1, type = -1, space = -1;
    H5E_auto2_t old_func;
    void *old_data;
    H5Eget_auto2(H5E_DEFAULT, &old_func, &old_data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* a miss is an answer here, not an error to print */
    d->h5file = H5Fopen(path, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    if (d->h5file < 0) {
        why = "HDF5 cannot open the file a second time";
        goto done;
    }
    fcpl = H5Fget_create_plist(d->h5file);
    if (fcpl < 0 || H5Pget_userblock(fcpl, &block) < 0 || block != 0) {
        why = "the file has an HDF5 user block";
        goto done;
    }
    d->h5dset = open_dataset(d->h5file, v);
    if (d->h5dset < 0) {
        why = "its HDF5 dataset was not found";
        goto done;
    }
    type = H5Dget_type(d->h5dset);
    if (type < 0 || !h5_encoding(type, v->xtype, &d->enc)) {
        why = "its HDF5 type is not a plain numeric one";
        goto done;
    }
    hsize_t extent[MINV_NC_MAX_RANK], most[MINV_NC_MAX_RANK];
    space = H5Dget_space(d->h5dset);
    if (space < 0 || H5Sget_simple_extent_dims(space, extent, most) != rank) {
        why = "its HDF5 dataspace cannot be read";
        goto done;
    }
    for (int r = 0; r < rank; r++)
        d->extent[r] = (size_t)extent[r];
    dcpl = H5Dget_create_plist(d->h5dset);
    const H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    if (layout == H5D_CHUNKED) {
        hsize_t chunk[MINV_NC_MAX_RANK];
        if (H5Pget_chunk(dcpl, rank, chunk) != rank) {
            why = "its chunk shape cannot be read";
            goto done;
        }
        /* HDF5 keeps a fixed dimension's chunks within it: a corrupt layout message that says
         * otherwise must not size the reader's buffers */
        d->chunk_values = 1;
        for (int r = 0; r < rank; r++) {
            d->chunk[r] = (size_t)chunk[r];
            if (chunk[r] == 0 || (most[r] != H5S_UNLIMITED && chunk[r] > most[r]) ||
                __builtin_mul_overflow(d->chunk_values, d->chunk[r], &d->chunk_values)) {
                why = "its chunk shape does not fit its dimensions";
                goto done;
            }
        }
        if (d->chunk_values > ((size_t)1 << 30) / d->enc.size) { /* HDF5 allows 4 GiB */
            why = "its chunks are over 1 GiB each (each reading thread would hold three)";
            goto done;
        }
        if ((why = read_filters(d, dcpl, write, filter_why, sizeof filter_why)) != NULL)
            goto done;
        d->kind = MINV_NC_DIRECT_CHUNKED;
        double chunks = 1;
        for (int r = 0; r < rank; r++) chunks *= ceil((double)d->extent[r] / (double)d->chunk[r]);
        d->by_library = !write && chunks > MINV_NC_LOOKUP_CHUNKS && minv_nc_direct_all_written(d);
    } else if (layout == H5D_CONTIGUOUS && !write) {
        const haddr_t at = H5Dget_offset(d->h5dset);
        if (H5Pget_external_count(dcpl) != 0) {
            why = "its values are stored in external files";
            goto done;
        }
        if (at == HADDR_UNDEF) {
            why = "it was never written (fill values)";
            goto done;
        }
        d->begin = (int64_t)at;
        d->kind = MINV_NC_DIRECT_CONTIGUOUS;
    } else {
        why = write ? "it is not chunked" : "its HDF5 layout is compact";
        goto done;
    }
    if (!write) {
        struct stat st;
        d->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (d->fd < 0)
            why = "the file cannot be opened a second time";
        else if (fstat(d->fd, &st) == 0)
            d->file_bytes = (int64_t)st.st_size;
    }
done:
    if (fcpl >= 0) H5Pclose(fcpl);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    H5Eset_auto2(H5E_DEFAULT, old_func, old_data);
    if (why)
        give_up(d, why);
}
#endif

int minv_nc_var_identify(minv_nc_var_id *v, const char *path, int grpid, int varid, int format) {
    size_t len = 0;
    v->path = path;
    v->varid = varid;
    v->format = format;
    int dimids[NC_MAX_VAR_DIMS];
    if (nc_inq_var(grpid, varid, v->name, &v->xtype, &v->rank, dimids, NULL) != NC_NOERR || v->rank > MINV_NC_MAX_RANK ||
        nc_inq_grpname_full(grpid, &len, NULL) != NC_NOERR || len >= sizeof v->group)
        return 0;
    for (int r = 0; r < v->rank; r++)
        if (nc_inq_dimlen(grpid, dimids[r], &v->shape[r]) != NC_NOERR)
            return 0;
    return nc_inq_grpname_full(grpid, NULL, v->group) == NC_NOERR;
}

void minv_nc_direct_open(minv_nc_direct *d, const minv_nc_var_id *v, int write) {
    direct_reset(d);
    if (v->rank < 1 || v->rank > MINV_NC_MAX_RANK)
        return give_up(d, "its rank is out of reach");
    d->rank = v->rank;
    if (v->format == NC_FORMAT_CLASSIC || v->format == NC_FORMAT_64BIT_OFFSET || v->format == NC_FORMAT_64BIT_DATA)
        return open_classic(d, v, write);
    if (!is_netcdf4(v->format))
        return give_up(d, "the format is not one this reader follows");
#if MINV_NC_HAVE_HDF5
    open_hdf5(d, v, write);
#else
    give_up(d, "minv was built without HDF5's headers");
#endif
}

void minv_nc_direct_close(minv_nc_direct *d) {
    if (d->fd >= 0)
        close(d->fd);
    d->fd = -1;
#if MINV_NC_HAVE_HDF5
    if (d->h5dset >= 0)
        H5Dclose(d->h5dset);
    if (d->h5file >= 0)
        H5Fclose(d->h5file);
#endif
    d->h5dset = d->h5file = -1;
}

/* Through HDF5 only where every chunk was written: its lookup may find a chunk that NetCDF-C's
 * cache holds as fill values, which H5Dread_chunk then cannot read. */
int minv_nc_direct_all_written(const minv_nc_direct *d) {
#if MINV_NC_HAVE_HDF5
    H5D_space_status_t allocated = H5D_SPACE_STATUS_ERROR;
    return d->h5dset >= 0 && H5Dget_space_status(d->h5dset, &allocated) >= 0 && allocated == H5D_SPACE_STATUS_ALLOCATED;
#else
    (void)d;
    return 0;
#endif
}

#if MINV_NC_HAVE_HDF5
/* A chunk's record in a corrupt index may say gigabytes: never more than the filters can make of
 * its values, nor past the end of the file. */
static int stored_size_possible(const minv_nc_direct *d, const minv_nc_chunk *c) {
    size_t most = d->chunk_values * d->enc.size;
    for (int f = 0; f < d->nfilters; f++)
        most = minv_nc_stored_bound(d->filter[f], most);
    if (c->bytes > most)
        return 0;
    const int64_t at = c->address >= 0 ? c->address : 0;
    return d->file_bytes < 0 || (int64_t)c->bytes <= d->file_bytes - at;
}
#endif

int minv_nc_direct_find_chunk(const minv_nc_direct *d, const size_t *coord, minv_nc_chunk *c) {
#if MINV_NC_HAVE_HDF5
    hsize_t offset[MINV_NC_MAX_RANK], size = 0;
    haddr_t addr = HADDR_UNDEF;
    unsigned mask = 0;
    for (int r = 0; r < d->rank; r++)
        offset[r] = coord[r];
    if (d->by_library) {
        if (H5Dget_chunk_storage_size(d->h5dset, offset, &size) < 0 || size == 0)
            return 0;
    } else if (H5Dget_chunk_info_by_coord(d->h5dset, offset, &mask, &addr, &size) < 0 || addr == HADDR_UNDEF || size == 0) {
        return 0;
    }
    c->address = d->by_library ? -1 : (int64_t)addr;
    c->bytes = (size_t)size;
    c->mask = mask;
    return stored_size_possible(d, c) ? 1 : -1;
#else
    (void)d; (void)coord; (void)c;
    return 0;
#endif
}

int minv_nc_read_fully(int fd, void *buf, size_t bytes, int64_t at) {
    errno = 0;
    for (size_t got = 0; got < bytes;) {
        ssize_t n = pread(fd, (char *)buf + got, bytes - got, (off_t)(at + (int64_t)got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

/* HDF5 is one library for the whole process: its calls from the readers' threads one at a time
 * (a thread-safe build locks them anyway; another would not) */
static pthread_mutex_t h5_calls = PTHREAD_MUTEX_INITIALIZER;

int minv_nc_direct_read_chunk(const minv_nc_direct *d, const size_t *coord, const minv_nc_chunk *c, void *buf,
                              unsigned *mask) {
    if (!d->by_library) {
        *mask = c->mask;
        return minv_nc_read_fully(d->fd, buf, c->bytes, c->address);
    }
#if MINV_NC_HAVE_HDF5
    hsize_t offset[MINV_NC_MAX_RANK];
    uint32_t filters = 0;
    for (int r = 0; r < d->rank; r++)
        offset[r] = coord[r];
    pthread_mutex_lock(&h5_calls);
    const herr_t st = H5Dread_chunk(d->h5dset, H5P_DEFAULT, offset, &filters, buf);
    pthread_mutex_unlock(&h5_calls);
    *mask = filters;
    return st >= 0;
#else
    (void)coord;
    return 0;
#endif
}

int minv_nc_direct_put_chunk(const minv_nc_direct *d, const size_t *coord, const void *bytes, size_t size) {
#if MINV_NC_HAVE_HDF5
    hsize_t offset[MINV_NC_MAX_RANK];
    for (int r = 0; r < d->rank; r++)
        offset[r] = coord[r];
    return H5Dwrite_chunk(d->h5dset, H5P_DEFAULT, 0, offset, size, bytes) >= 0;
#else
    (void)d; (void)coord; (void)bytes; (void)size;
    return 0;
#endif
}

/* ---- chunk codecs: the filter pipeline undone (read) or applied (write) ---- */

int minv_nc_direct_decode(const minv_nc_direct *d, unsigned mask, void *raw, size_t raw_bytes, void *work,
                          void *out, void **result) {
    const size_t bytes = d->chunk_values * d->enc.size;
    void *cur = raw, *spare[2] = {out, work};
    size_t cur_bytes = raw_bytes;
    int next = 0;
    for (int f = d->nfilters - 1; f >= 0; f--) {
        if (mask & (1u << f))
            continue; /* the writer skipped this filter for this chunk */
        void *to = spare[next];
        if (to == cur)
            to = spare[next ^= 1];
        switch (d->filter[f]) {
        case MINV_NC_FILTER_DEFLATE:
            if (!minv_nc_inflate(cur, cur_bytes, to, bytes))
                return 0;
            break;
        case MINV_NC_FILTER_ZSTD:
            if (!minv_nc_unzstd(cur, cur_bytes, to, bytes))
                return 0;
            break;
        case MINV_NC_FILTER_BZIP2:
            if (!minv_nc_bunzip2(cur, cur_bytes, to, bytes))
                return 0;
            break;
        default:
            if (cur_bytes != bytes)
                return 0;
            minv_nc_unshuffle(cur, bytes, d->shuffle_size, to);
        }
        cur = to;
        cur_bytes = bytes;
        next ^= 1;
    }
    *result = cur;
    return cur_bytes == bytes;
}

size_t minv_nc_direct_encode(const minv_nc_direct *d, void *in, void *work, void *out, size_t cap, const void **result) {
    const size_t bytes = d->chunk_values * d->enc.size;
    void *cur = in;
    size_t cur_bytes = bytes;
    for (int f = 0; f < d->nfilters; f++) {
        void *to = cur == out ? work : out;
        if (d->filter[f] == MINV_NC_FILTER_DEFLATE) {
            cur_bytes = minv_nc_deflate(cur, cur_bytes, d->deflate_level, to, cap);
            if (cur_bytes == 0)
                return 0;
        } else {
            minv_nc_shuffle(cur, cur_bytes, d->shuffle_size, to);
        }
        cur = to;
    }
    *result = cur;
    return cur_bytes;
}

size_t minv_nc_direct_encoded_bound(const minv_nc_direct *d) {
    return minv_nc_deflate_bound(d->chunk_values * d->enc.size);
}
