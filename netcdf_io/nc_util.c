/* Small helpers of the NetCDF layer: NetCDF errors as minv errors, variable, type and format
 * names, file identity, and the lock that serialises NetCDF-C. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ncio.h"

minv_status minv_nc_fail(minv_context *ctx, int nc_status, const char *fmt, ...) {
    char what[MINV_ERROR_LEN];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    minv_status status = nc_status == ENOENT ? MINV_ERR_NOT_FOUND : MINV_ERR_IO;
    /* netCDF-C reports HDF5's failures as "HDF error", and any failure to create a file as
     * EACCES: HDF5's own cause says more (a full disk, a read error) */
    const int cause = minv_nc_hdf5_errno();
    const char *inner = minv_nc_hdf5_message();
    if (cause && (nc_status == NC_EHDFERR || nc_status == EACCES || nc_status == NC_EIO))
        return minv_fail(ctx, status, "%s: %s (%s)", what, strerror(cause), nc_strerror(nc_status));
    if (nc_status == NC_EHDFERR && inner[0]) {
        /* HDF5 meets a message version it does not know in a file from a newer HDF5 */
        unsigned v[3];
        char newer[256] = "";
        minv_nc_hdf5_version(v);
        if (strstr(inner, "bad version number"))
            snprintf(newer, sizeof newer,
                     "; the file may be in a newer HDF5 format than this HDF5 (%u.%u.%u) reads: have its writer keep "
                     "to an older one (h5py: libver='v110'), or build minv with a newer HDF5",
                     v[0], v[1], v[2]);
        return minv_fail(ctx, status, "%s: %s (HDF5: %s)%s", what, nc_strerror(nc_status), inner, newer);
    }
    return minv_fail(ctx, status, "%s: %s", what, nc_strerror(nc_status));
}

minv_status minv_nc_product(minv_context *ctx, size_t a, size_t b, size_t c, size_t *product,
                            const char *what_fmt, ...) {
    size_t ab;
    if (!__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, product))
        return MINV_SUCCESS;
    char what[MINV_ERROR_LEN];
    va_list args;
    va_start(args, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, args);
    va_end(args);
    *product = 0;
    return minv_fail(ctx, MINV_ERR_ALLOC, "%s is too large: %zu x %zu x %zu exceeds the address space", what, a, b, c);
}

int minv_nc_dim_is_unlimited(int grpid, int dimid, int *unlimited) {
    *unlimited = 0;
    for (;;) {
        /* as many as the group has: a file may declare any number (no NC_MAX_DIMS array) */
        int n = 0, parent, st = nc_inq_unlimdims(grpid, &n, NULL);
        if (st != NC_NOERR)
            return st;
        if (n > 0) {
            int *ids = malloc((size_t)n * sizeof *ids);
            if (!ids)
                return NC_ENOMEM;
            st = nc_inq_unlimdims(grpid, &n, ids);
            for (int u = 0; st == NC_NOERR && u < n; u++)
                *unlimited |= ids[u] == dimid;
            free(ids);
            if (st != NC_NOERR || *unlimited)
                return st;
        }
        if (nc_inq_grp_parent(grpid, &parent) != NC_NOERR)
            return NC_NOERR; /* the root */
        grpid = parent;
    }
}

minv_status minv_nc_fail_at(minv_context *ctx, minv_status status, const char *where) {
    char detail[MINV_ERROR_LEN];
    const char *msg = minv_last_error(ctx), *prefix = minv_status_string(status);
    size_t plen = strlen(prefix);
    /* minv_fail put "<status string>: " in front; it comes back once, before `where`. */
    if (strncmp(msg, prefix, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
        msg += plen + 2;
    snprintf(detail, sizeof detail, "%s", msg);
    return minv_fail(ctx, status, "%s: %s", where, detail);
}

const char *minv_nc_base_name(const char *var) {
    const char *slash = strrchr(var, '/');
    return slash ? slash + 1 : var;
}

const char *minv_nc_type_name(nc_type t) {
    switch (t) {
    case NC_BYTE: return "NC_BYTE";
    case NC_UBYTE: return "NC_UBYTE";
    case NC_CHAR: return "NC_CHAR";
    case NC_SHORT: return "NC_SHORT";
    case NC_USHORT: return "NC_USHORT";
    case NC_INT: return "NC_INT";
    case NC_UINT: return "NC_UINT";
    case NC_INT64: return "NC_INT64";
    case NC_UINT64: return "NC_UINT64";
    case NC_FLOAT: return "NC_FLOAT";
    case NC_DOUBLE: return "NC_DOUBLE";
    case NC_STRING: return "NC_STRING";
    default: return "a user-defined type";
    }
}

const char *minv_nc_format_name(int format) {
    switch (format) {
    case NC_FORMAT_CLASSIC: return "netCDF-3 classic";
    case NC_FORMAT_64BIT_OFFSET: return "netCDF-3 64-bit offset";
    case NC_FORMAT_64BIT_DATA: return "CDF-5";
    case NC_FORMAT_NETCDF4: return "netCDF-4";
    case NC_FORMAT_NETCDF4_CLASSIC: return "netCDF-4 classic model";
    default: return "an unknown format";
    }
}

int minv_nc_type_is_integer(nc_type t) {
    return t == NC_BYTE || t == NC_UBYTE || t == NC_SHORT || t == NC_USHORT || t == NC_INT ||
           t == NC_UINT || t == NC_INT64 || t == NC_UINT64;
}

int minv_nc_same_file(const char *a, const char *b) {
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int minv_nc_is_url(const char *path) { return strstr(path, "://") != NULL || path[0] == '['; }

const char *minv_nc_file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFIFO: return "a FIFO (named pipe)";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK: return "a symbolic link";
    default: return "a special file";
    }
}

/* Each copy of this layer has its own; only the copy whose minv_nc_lock every caller is bound
 * to (see ncio.h) uses its. */
static pthread_mutex_t nc_mutex = PTHREAD_MUTEX_INITIALIZER;
static minv_nc_hdf5_state hdf5_handler; /* the lock holder's own, guarded by the lock */

void minv_nc_lock(void) {
    pthread_mutex_lock(&nc_mutex);
    minv_nc_hdf5_begin(&hdf5_handler);
}

void minv_nc_unlock(void) {
    minv_nc_hdf5_end(&hdf5_handler);
    pthread_mutex_unlock(&nc_mutex);
}
