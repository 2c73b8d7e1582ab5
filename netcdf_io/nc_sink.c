/* An output variable written tile by tile under a temporary name (path.tmp.<pid>, in the
 * same directory) and renamed over `path` only once it is complete, so that a failed run
 * leaves nothing behind and readers never see a partial file.
 *
 * Where the output goes:
 *   - no file at `path`, a file that is not netCDF, or a netCDF file whose only variable is
 *     `var` (an earlier run's output): a new file, in spec->format;
 *   - a netCDF file with other variables or groups: a copy of it gets `var` in its root group
 *     (reusing dimensions of the same name and length, or overwriting a `var` of the same
 *     shape), keeps its format, and gains a line in its history;
 *   - one of the call's input files: refused, the input is never touched. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ncio.h"

enum { CHUNK_EDGE = 256, HEADER_RESERVE = 4096 };

char *minv_nc_tmp_name(const char *path) {
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (tmp)
        snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

/* ---- where the output goes ---- */

/* 1 when `path` is a netCDF file holding something besides `var`; *format is its format. */
static int holds_other_things(const char *path, const char *var, int *format) {
    int ncid, nvars = 0, ngroups = 0, varid, other = 0;
    if (nc_open(path, NC_NOWRITE, &ncid) != NC_NOERR)
        return 0;
    if (nc_inq_nvars(ncid, &nvars) == NC_NOERR && nc_inq_format(ncid, format) == NC_NOERR)
        other = !(nvars == 1 && nc_inq_varid(ncid, var, &varid) == NC_NOERR) ||
                (nc_inq_grps(ncid, &ngroups, NULL) == NC_NOERR && ngroups > 0);
    nc_close(ncid);
    return other;
}

static minv_status copy_file(minv_context *ctx, const char *from, const char *to) {
    minv_status status = MINV_SUCCESS;
    char *buf = malloc(1 << 20);
    int in = open(from, O_RDONLY), out = -1;
    struct stat st;
    if (!buf || in < 0 || fstat(in, &st) != 0) {
        status = minv_fail(ctx, MINV_ERR_IO, "cannot read '%s' to add a variable to it: %s", from, strerror(errno));
        goto cleanup;
    }
    out = open(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 07777);
    if (out < 0) {
        status = minv_fail(ctx, MINV_ERR_IO, "cannot create '%s': %s", to, strerror(errno));
        goto cleanup;
    }
    for (;;) {
        ssize_t got = read(in, buf, 1 << 20);
        if (got == 0)
            break;
        if (got < 0 || write(out, buf, (size_t)got) != got) {
            status = minv_fail(ctx, MINV_ERR_IO, "cannot copy '%s' to '%s': %s", from, to, strerror(errno));
            goto cleanup;
        }
    }
cleanup:
    free(buf);
    if (in >= 0) close(in);
    if (out >= 0 && close(out) != 0 && status == MINV_SUCCESS)
        status = minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s", to, strerror(errno));
    return status;
}

/* The temporary file goes next to `path`; a clear error beats HDF5's when it cannot. */
static minv_status check_directory(minv_context *ctx, const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[4096];
    struct stat st;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return minv_fail(ctx, MINV_ERR_NOT_FOUND, "cannot write '%s': the directory '%s' does not exist", path, dir);
    if (access(dir, W_OK) != 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': the directory '%s' is not writable", path, dir);
    return MINV_SUCCESS;
}

static int create_mode(int format) {
    switch (format) {
    case NC_FORMAT_CLASSIC: return NC_CLOBBER;
    case NC_FORMAT_64BIT_OFFSET: return NC_CLOBBER | NC_64BIT_OFFSET;
    case NC_FORMAT_64BIT_DATA: return NC_CLOBBER | NC_64BIT_DATA;
    default: return NC_CLOBBER | NC_NETCDF4;
    }
}

static int is_netcdf4(int format) { return format == NC_FORMAT_NETCDF4 || format == NC_FORMAT_NETCDF4_CLASSIC; }

/* ---- the variable ---- */

/* A dimension called `name` (or name_<len> when `name` is taken by another length). */
static minv_status find_or_define_dim(minv_context *ctx, minv_nc_sink *w, const minv_nc_dim *d, int *dimid) {
    char name[NC_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", d->name);
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t len;
        int nunlim = 0, unlim[NC_MAX_DIMS], is_unlimited = 0;
        int st = nc_inq_dimid(w->ncid, name, dimid);
        if (st == NC_EBADDIM) {
            st = nc_def_dim(w->ncid, name, d->unlimited ? NC_UNLIMITED : d->len, dimid);
            if (st != NC_NOERR)
                return minv_nc_fail(ctx, st, "'%s': cannot define dimension '%s' of length %zu", w->path, name, d->len);
            return MINV_SUCCESS;
        }
        if (st == NC_NOERR)
            st = nc_inq_dimlen(w->ncid, *dimid, &len);
        if (st == NC_NOERR)
            st = nc_inq_unlimdims(w->ncid, &nunlim, unlim);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s': dimension '%s'", w->path, name);
        for (int u = 0; u < nunlim; u++)
            is_unlimited |= unlim[u] == *dimid;
        if (len == d->len || (is_unlimited && d->unlimited))
            return MINV_SUCCESS;
        snprintf(name, sizeof name, "%.200s_%zu", d->name, d->len);
    }
    return minv_fail(ctx, MINV_ERR_SHAPE, "'%s' already has dimensions '%s' and '%s' of other lengths than %zu",
                     w->path, d->name, name, d->len);
}

/* Tiles of whole chunks (netCDF-4) or bands of whole rows (classic), as the reader's. */
static minv_status plan_tiles(minv_context *ctx, minv_nc_sink *w) {
    const minv_nc_sink_spec *sp = &w->spec;
    const int r0 = minv_nc_row_dim(sp->rank);
    const size_t d0 = sp->dims[r0].len, d1 = sp->dims[r0 + 1].len;
    int storage = NC_CONTIGUOUS;
    size_t chunks[3] = {1, 1, 1}; /* a column's virtual dimension keeps its 1 */
    if (is_netcdf4(w->format)) {
        int st = nc_inq_var_chunking(w->ncid, w->varid, &storage, chunks);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s', variable '%s': cannot read its storage", w->path, w->var);
    }
    minv_nc_plan_tiles(d0, d1, storage == NC_CHUNKED ? chunks + r0 : NULL, 0, w->tile);
    return MINV_SUCCESS;
}

static minv_status define_variable(minv_context *ctx, minv_nc_sink *w) {
    const minv_nc_sink_spec *sp = &w->spec;
    int dimids[3], st;
    minv_status status;
    for (int d = 0; d < sp->rank; d++)
        if ((status = find_or_define_dim(ctx, w, &sp->dims[d], &dimids[d])) != MINV_SUCCESS)
            return status;

    st = nc_inq_varid(w->ncid, w->var, &w->varid);
    if (st == NC_NOERR) { /* an existing variable of the same shape is overwritten */
        int rank = 0, old[NC_MAX_VAR_DIMS], same;
        st = nc_inq_var(w->ncid, w->varid, NULL, NULL, &rank, old, NULL);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s', variable '%s'", w->path, w->var);
        same = rank == sp->rank;
        for (int d = 0; same && d < rank; d++)
            same = old[d] == dimids[d];
        if (!same)
            return minv_fail(ctx, MINV_ERR_SHAPE, "'%s' already has a variable '%s' of another shape; minv overwrites one of the same shape only: choose another name or file",
                             w->path, w->var);
        return plan_tiles(ctx, w);
    }
    st = nc_def_var(w->ncid, w->var, sp->xtype, sp->rank, dimids, &w->varid);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': cannot define variable '%s' as %s in %s", w->path, w->var,
                            minv_nc_type_name(sp->xtype), minv_nc_format_name(w->format));
    if (is_netcdf4(w->format)) {
        /* a column's chunks hold as many values as a matrix's */
        const size_t edge = sp->rank > 1 ? CHUNK_EDGE : CHUNK_EDGE * CHUNK_EDGE;
        size_t chunks[3] = {1, 1, 1};
        for (int d = minv_nc_row_dim(sp->rank); d < sp->rank; d++)
            chunks[d] = sp->dims[d].len < edge ? sp->dims[d].len : edge;
        st = nc_def_var_chunking(w->ncid, w->varid, NC_CHUNKED, chunks);
        if (st == NC_NOERR && sp->deflate_level > 0)
            st = nc_def_var_deflate(w->ncid, w->varid, 1, 1, sp->deflate_level);
        /* every entry is written, so fill values would only cost time */
        if (st == NC_NOERR)
            st = nc_def_var_fill(w->ncid, w->varid, NC_NOFILL, NULL);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s': cannot set the storage of variable '%s'", w->path, w->var);
    } else {
        int old_mode;
        nc_set_fill(w->ncid, NC_NOFILL, &old_mode);
    }
    return plan_tiles(ctx, w);
}

static char *read_history(int ncid) {
    size_t len = 0;
    nc_type t;
    if (nc_inq_att(ncid, NC_GLOBAL, "history", &t, &len) != NC_NOERR || t != NC_CHAR)
        return NULL;
    char *text = calloc(len + 1, 1);
    if (text && nc_get_att_text(ncid, NC_GLOBAL, "history", text) != NC_NOERR) {
        free(text);
        text = NULL;
    }
    return text;
}

minv_status minv_nc_sink_open(minv_context *ctx, minv_nc_sink *w, const char *path,
                              const char *var, const minv_nc_sink_spec *spec, int64_t count) {
    memset(w, 0, sizeof *w);
    w->ncid = -1;
    w->path = path;
    w->var = var;
    w->spec = *spec;
    w->expected = count;
    if (spec->rank == 1)
        w->spec.dims[1] = minv_nc_column_dim();
    minv_status status = MINV_SUCCESS;
    int st, add = 0;
    if (strchr(var, '/'))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output variable '%s' of '%s' names a group: minv writes its outputs to the root group of the output file, so give a plain name",
                         var, path);
    for (int i = 0; i < spec->ninputs; i++)
        if (minv_nc_same_file(path, spec->inputs[i]))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "the output '%s' is the input file '%s'; minv never modifies its input: choose another output file",
                             path, spec->inputs[i]);
    MINV_TRY(check_directory(ctx, path));
    w->tmp = minv_nc_tmp_name(path);
    if (!w->tmp)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a file name");

    w->format = spec->format;
    add = holds_other_things(path, var, &w->format);
    if (add) {
        MINV_TRY(copy_file(ctx, path, w->tmp));
        st = nc_open(w->tmp, NC_WRITE, &w->ncid);
        if (st != NC_NOERR)
            w->ncid = -1;
        else
            st = nc_redef(w->ncid);
        if (st != NC_NOERR) {
            status = minv_nc_fail(ctx, st, "cannot add variable '%s' to '%s'", var, path);
            goto cleanup;
        }
        w->old_history = read_history(w->ncid);
    } else {
        st = nc_create(w->tmp, create_mode(w->format), &w->ncid);
        if (st != NC_NOERR) {
            w->ncid = -1;
            status = minv_nc_fail(ctx, st, "cannot create '%s' (written first as '%s')", path, w->tmp);
            goto cleanup;
        }
    }
    MINV_TRY(define_variable(ctx, w));
    /* room in a classic header for the attributes written on commit, so that adding them
     * does not move the data */
    st = nc__enddef(w->ncid, HEADER_RESERVE, 4, 0, 4);
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s': cannot define variable '%s'", path, var);
        goto cleanup;
    }
    w->buffer = malloc(w->tile[0] * w->tile[1] * sizeof(double));
    if (!w->buffer)
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a %zu x %zu tile for writing", w->tile[0], w->tile[1]);
cleanup:
    if (status != MINV_SUCCESS)
        minv_nc_sink_abort(w);
    return status;
}

/* ---- data ---- */

/* Integer types store round(value / scale); anything out of the type's range is refused. */
static int pack_range(nc_type t, double *lo, double *hi) {
    switch (t) {
    case NC_BYTE: *lo = -128; *hi = 127; return 1;
    case NC_UBYTE: *lo = 0; *hi = 255; return 1;
    case NC_SHORT: *lo = -32768; *hi = 32767; return 1;
    case NC_USHORT: *lo = 0; *hi = 65535; return 1;
    case NC_INT: *lo = -2147483648.0; *hi = 2147483647.0; return 1;
    case NC_UINT: *lo = 0; *hi = 4294967295.0; return 1;
    case NC_INT64: *lo = -9223372036854775808.0; *hi = 9223372036854774784.0; return 1;
    case NC_UINT64: *lo = 0; *hi = 18446744073709549568.0; return 1;
    default: return 0;
    }
}

static minv_status pack_tile(minv_context *ctx, const minv_nc_sink *w, double *tile, const size_t start[2],
                             const size_t count[2]) {
    double lo, hi;
    if (!pack_range(w->spec.xtype, &lo, &hi))
        return MINV_SUCCESS;
    for (size_t e = 0; e < count[0] * count[1]; e++) {
        double v = round(tile[e] / w->spec.scale);
        if (!(v >= lo && v <= hi))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': %g at [%zu, %zu] (0-based, as stored) does not fit %s with scale %g",
                             w->path, w->var, tile[e], start[0] + e / count[1], start[1] + e % count[1],
                             minv_nc_type_name(w->spec.xtype), w->spec.scale);
        tile[e] = v;
    }
    return MINV_SUCCESS;
}

minv_status minv_nc_sink_write(minv_context *ctx, minv_nc_sink *w, int64_t k, const minv_mat *m) {
    const minv_nc_sink_spec *sp = &w->spec;
    const int r0 = minv_nc_row_dim(sp->rank);
    const size_t d0 = sp->dims[r0].len, d1 = sp->dims[r0 + 1].len;
    const size_t bands = (d0 + w->tile[0] - 1) / w->tile[0], across = (d1 + w->tile[1] - 1) / w->tile[1];
    const double per_matrix = (double)(bands * across), all = per_matrix * (double)w->expected;
    size_t start[3] = {(size_t)k, 0, 0}, count[3] = {1, 0, 0}, esize = 0;
    nc_inq_type(w->ncid, sp->xtype, NULL, &esize);
    double t0 = minv_now();
    minv_status status = MINV_SUCCESS;
    for (size_t b = 0; b < bands; b++) {
        for (size_t a = 0; a < across; a++) {
            start[r0] = b * w->tile[0];
            start[r0 + 1] = a * w->tile[1];
            count[r0] = d0 - start[r0] < w->tile[0] ? d0 - start[r0] : w->tile[0];
            count[r0 + 1] = d1 - start[r0 + 1] < w->tile[1] ? d1 - start[r0 + 1] : w->tile[1];
            minv_nc_mat_to_tile(m, sp->view, start + r0, count + r0, w->buffer);
            MINV_TRY(pack_tile(ctx, w, w->buffer, start + r0, count + r0));
            int st = nc_put_vara_double(w->ncid, w->varid, start, count, w->buffer);
            if (st != NC_NOERR) {
                status = minv_nc_fail(ctx, st, "'%s', variable '%s': writing entries [%zu:%zu, %zu:%zu] failed%s",
                                      w->path, w->var, start[r0], start[r0] + count[r0], start[r0 + 1],
                                      start[r0 + 1] + count[r0 + 1], st == NC_ERANGE ? " (a value out of the type's range)" : "");
                goto cleanup;
            }
            w->bytes += (double)(count[r0] * count[r0 + 1] * esize);
            minv_progress(ctx, "write", ((double)k * per_matrix + (double)(b * across + a + 1)) / all);
        }
    }
cleanup:
    w->seconds += minv_now() - t0;
    return status;
}

minv_status minv_nc_sink_pack_matrices(minv_context *ctx, const minv_nc_sink *w, int64_t count,
                                       const void *src, minv_dtype t, double *disk) {
    const minv_nc_sink_spec *sp = &w->spec;
    const size_t d0 = sp->dims[1].len, d1 = sp->dims[2].len, elems = d0 * d1, origin[2] = {0, 0}, whole[2] = {d0, d1};
    const int64_t rows = (int64_t)(sp->view == MINV_NC_C_VIEW ? d0 : d1), cols = (int64_t)(sp->view == MINV_NC_C_VIEW ? d1 : d0);
    minv_status status = MINV_SUCCESS;
    for (int64_t m = 0; m < count && status == MINV_SUCCESS; m++) {
        minv_mat in = {t, rows, cols, rows, (char *)src + (size_t)m * elems * (size_t)t};
        minv_nc_mat_to_tile(&in, sp->view, origin, whole, disk + (size_t)m * elems);
        status = pack_tile(ctx, w, disk + (size_t)m * elems, origin, whole);
    }
    return status;
}

minv_status minv_nc_sink_write_matrices(minv_context *ctx, minv_nc_sink *w, int64_t k0,
                                        int64_t count, const void *src, minv_dtype t, double *disk) {
    const minv_nc_sink_spec *sp = &w->spec;
    const size_t d0 = sp->dims[1].len, d1 = sp->dims[2].len, elems = d0 * d1;
    size_t start[3] = {(size_t)k0, 0, 0}, cnt[3] = {(size_t)count, d0, d1}, esize = 0;
    nc_inq_type(w->ncid, sp->xtype, NULL, &esize);
    const double t0 = minv_now();
    minv_status status = MINV_SUCCESS;
    MINV_TRY(minv_nc_sink_pack_matrices(ctx, w, count, src, t, disk));
    int st = nc_put_vara_double(w->ncid, w->varid, start, cnt, disk);
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s', variable '%s': writing matrices %lld to %lld failed%s", w->path, w->var,
                              (long long)k0, (long long)(k0 + count - 1), st == NC_ERANGE ? " (a value out of the type's range)" : "");
        goto cleanup;
    }
    w->bytes += (double)((size_t)count * elems * esize);
    minv_progress(ctx, "write", (double)(k0 + count) / (double)w->expected);
cleanup:
    w->seconds += minv_now() - t0;
    return status;
}

/* ---- another process's turn ---- */

minv_status minv_nc_sink_suspend(minv_context *ctx, minv_nc_sink *w) {
    int st = nc_close(w->ncid);
    w->ncid = -1;
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': closing the new file for the other ranks failed", w->tmp);
    return MINV_SUCCESS;
}

minv_status minv_nc_sink_resume(minv_context *ctx, minv_nc_sink *w) {
    int st = nc_open(w->tmp, NC_WRITE, &w->ncid);
    if (st == NC_NOERR)
        st = nc_inq_varid(w->ncid, w->var, &w->varid);
    if (st != NC_NOERR) {
        if (w->ncid >= 0)
            nc_close(w->ncid);
        w->ncid = -1;
        return minv_nc_fail(ctx, st, "'%s': opening the new file again after the other ranks wrote it failed", w->tmp);
    }
    return MINV_SUCCESS;
}

/* ---- commit ---- */

static int put_text(int ncid, int varid, const char *name, const char *text) {
    return nc_put_att_text(ncid, varid, name, strlen(text), text);
}

static int put_history(minv_nc_sink *w, const char *line) {
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    size_t len = (w->old_history ? strlen(w->old_history) + 1 : 0) + strlen(date) + strlen(line) + 4;
    char *text = malloc(len);
    if (!text)
        return NC_ENOMEM;
    snprintf(text, len, "%s%s%s: %s", w->old_history ? w->old_history : "", w->old_history ? "\n" : "", date, line);
    int st = put_text(w->ncid, NC_GLOBAL, "history", text);
    free(text);
    return st;
}

minv_status minv_nc_sink_commit(minv_context *ctx, minv_nc_sink *w, const minv_nc_attr *attrs,
                                int nattrs, const char *history) {
    minv_status status = MINV_SUCCESS;
    int st = nc_redef(w->ncid);
    for (int a = 0; a < nattrs && st == NC_NOERR; a++)
        st = attrs[a].text ? put_text(w->ncid, w->varid, attrs[a].name, attrs[a].text)
                           : nc_put_att_double(w->ncid, w->varid, attrs[a].name, NC_DOUBLE, attrs[a].count, attrs[a].values);
    if (st == NC_NOERR)
        st = put_text(w->ncid, w->varid, "minv_version", minv_version());
    if (st == NC_NOERR && minv_nc_type_is_integer(w->spec.xtype) && w->spec.scale != 1)
        st = nc_put_att_double(w->ncid, w->varid, "scale_factor", NC_DOUBLE, 1, &w->spec.scale);
    if (st == NC_NOERR && history)
        st = put_history(w, history);
    if (st == NC_NOERR)
        st = nc_enddef(w->ncid);
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s': cannot write the attributes of '%s'", w->path, w->var);
        goto cleanup;
    }
    st = nc_close(w->ncid);
    w->ncid = -1;
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s': closing the new file failed", w->tmp);
        goto cleanup;
    }
    /* on disk before it takes the name, so that a crash leaves the old file or the new one */
    int fd = open(w->tmp, O_RDONLY), synced = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    if (!synced || rename(w->tmp, w->path) != 0)
        status = minv_fail(ctx, MINV_ERR_IO, "cannot put '%s' in place of '%s': %s", w->tmp, w->path, strerror(errno));
cleanup:
    minv_nc_sink_abort(w);
    return status;
}

void minv_nc_sink_abort(minv_nc_sink *w) {
    if (w->ncid >= 0)
        nc_abort(w->ncid);
    w->ncid = -1;
    if (w->tmp)
        unlink(w->tmp); /* after a rename there is nothing left to remove */
    free(w->tmp);
    free(w->buffer);
    free(w->old_history);
    w->tmp = NULL;
    w->buffer = NULL;
    w->old_history = NULL;
}

void minv_nc_sink_note(const minv_nc_sink *w, minv_report *report) {
    minv_report_note(report, "wrote %.3g MB in %.3g s (%.0f MB/s) to '%s' as %s",
                     w->bytes / 1e6, w->seconds, w->seconds > 0 ? w->bytes / 1e6 / w->seconds : 0.0,
                     w->path, w->var);
}
