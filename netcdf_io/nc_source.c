/* A matrix variable opened for reading: where it is (root or netCDF-4 groups), which matrix of
 * a higher-rank variable (slice or batch) or a 1-D one as a column, what counts as missing,
 * and how its values are stored (the direct path of nc_direct.c, or NetCDF-C's tiles).
 * nc_read.c moves the values. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "ncio.h"

#include <netcdf_filter.h> /* after netcdf.h, which it needs */

/* ---- opening: the variable, its shape, the slice ---- */

static int is_numeric(nc_type t) { return minv_nc_type_is_integer(t) || t == NC_FLOAT || t == NC_DOUBLE; }

/* "A, B, cov" (as many as fit): the variables, or the groups, of group ncid that do exist,
 * for a NOT_FOUND message; "none" when there are none. */
static void list_names(int ncid, int groups, char *buf, size_t len) {
    int count = 0, *ids = NULL;
    int st = groups ? nc_inq_grps(ncid, &count, NULL) : nc_inq_nvars(ncid, &count);
    if (st == NC_NOERR && groups && count > 0) {
        ids = malloc((size_t)count * sizeof *ids);
        st = ids ? nc_inq_grps(ncid, NULL, ids) : NC_ENOMEM;
    }
    snprintf(buf, len, "%s", st != NC_NOERR || count == 0 ? "none" : "");
    for (int k = 0; st == NC_NOERR && k < count; k++) {
        char name[NC_MAX_NAME + 1];
        size_t used = strlen(buf);
        if ((groups ? nc_inq_grpname(ids[k], name) : nc_inq_varname(ncid, k, name)) != NC_NOERR ||
            used + strlen(name) + 8 >= len) {
            snprintf(buf + used, len - used, "%s...", k > 0 ? ", " : "");
            break;
        }
        snprintf(buf + used, len - used, "%s%s", k > 0 ? ", " : "", name);
    }
    free(ids);
}

/* s->var in the open file: a name in the root group, or a path of netCDF-4 groups ("analysis/M",
 * "/analysis/M", "a/b/M") resolved one group at a time, so that a miss names the group that is
 * not there and lists what is. Sets s->grpid and s->varid. */
static minv_status find_variable(minv_context *ctx, minv_nc_source *s) {
    const char *name = s->var[0] == '/' ? s->var + 1 : s->var, *slash;
    char names[256], groups[256];
    s->grpid = s->ncid;
    for (; (slash = strchr(name, '/')); name = slash + 1) {
        char group[NC_MAX_NAME + 1];
        int child;
        snprintf(group, sizeof group, "%.*s", (int)(slash - name), name);
        /* netCDF-3 answers any group name with the root itself */
        if (s->format == NC_FORMAT_NETCDF4 && nc_inq_grp_ncid(s->grpid, group, &child) == NC_NOERR) {
            s->grpid = child;
            continue;
        }
        list_names(s->grpid, 1, groups, sizeof groups);
        if (s->grpid == s->ncid)
            return minv_fail(ctx, MINV_ERR_NOT_FOUND, "no group '%s' in '%s'; its groups: %s%s", group, s->path, groups,
                             s->format == NC_FORMAT_NETCDF4 ? "" : " (only netCDF-4 files have groups)");
        return minv_fail(ctx, MINV_ERR_NOT_FOUND, "no group '%.*s' in '%s'; the groups of '%.*s': %s", (int)(slash - s->var),
                         s->var, s->path, (int)(name - 1 - s->var), s->var, groups);
    }
    int st = nc_inq_varid(s->grpid, name, &s->varid);
    if (st == NC_ENOTVAR) {
        char scope[NC_MAX_NAME + 64] = "its variables";
        if (s->grpid != s->ncid)
            snprintf(scope, sizeof scope, "the variables of group '%.*s'", (int)(name - 1 - s->var), s->var);
        list_names(s->grpid, 0, names, sizeof names);
        list_names(s->grpid, 1, groups, sizeof groups);
        /* a root that looks empty most often holds the variable in a group */
        const int has_groups = strcmp(groups, "none") != 0;
        return minv_fail(ctx, MINV_ERR_NOT_FOUND, "'%s' has no variable '%s' (%s: %s%s%s%s)", s->path, s->var, scope, names,
                         has_groups ? "; its groups: " : "", has_groups ? groups : "",
                         has_groups ? ": name a variable in a group by its path, as GROUP/VAR" : "");
    }
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s', variable '%s'", s->path, s->var);
    return MINV_SUCCESS;
}

/* band: the variable must have rank 1 (a band); else rank 2 or more (a matrix), or rank 1 with
 * MINV_NC_ALLOW_VECTOR (one column). */
static minv_status open_variable(minv_context *ctx, minv_nc_source *s, int band, int flags) {
    struct stat info;
    minv_status status;
    if (minv_nc_is_url(s->path)) { /* netCDF-C would fetch it over the network (OPeNDAP, S3) */
        if (!s->allow_remote)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "input '%s' is a URL: minv reads remote data only when asked (allow_remote; --allow-remote on the command line), so variable '%s' is not read",
                             s->path, s->var);
    } else {
        /* a FIFO would block nc_open, and a device or directory is no netCDF file */
        if (stat(s->path, &info) == 0 && !S_ISREG(info.st_mode))
            return minv_fail(ctx, MINV_ERR_IO, "'%s' is %s, not a regular file, so variable '%s' cannot be read from it", s->path,
                             minv_nc_file_kind(info.st_mode), s->var);
        if ((status = minv_nc_classic_check(ctx, s->path, s->var)) != MINV_SUCCESS)
            return status;
    }
    int st = nc_open(s->path, NC_NOWRITE, &s->ncid);
    if (st != NC_NOERR) {
        s->ncid = -1;
        if (st > 0) /* a system error: ENOENT, EACCES, ... */
            return minv_nc_fail(ctx, st, "cannot open '%s' to read variable '%s'", s->path, s->var);
        return minv_nc_fail(ctx, st, "'%s' is not a readable netCDF file (truncated or corrupt?), so variable '%s' cannot be read",
                            s->path, s->var);
    }
    st = nc_inq_format(s->ncid, &s->format);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': cannot read the format", s->path);
    if ((status = find_variable(ctx, s)) != MINV_SUCCESS)
        return status;
    int rank = 0;
    st = nc_inq_var(s->grpid, s->varid, NULL, &s->xtype, &rank, NULL, NULL);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s', variable '%s'", s->path, s->var);
    if (!is_numeric(s->xtype))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s' is %s, not a numeric type",
                         s->path, s->var, minv_nc_type_name(s->xtype));
    const int least = flags & MINV_NC_ALLOW_VECTOR ? 1 : 2;
    const char *needs = rank > 2 ? "a matrix needs 2 dimensions, and minv slices at most 8 leading ones"
                        : least == 1 ? "a vector needs 1 dimension, a matrix 2"
                                     : "a matrix needs 2 dimensions";
    if (band && rank != 1)
        return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' has rank %d: a band of a tridiagonal matrix needs 1 dimension",
                         s->path, s->var, rank);
    if (!band && (rank < least || rank > MINV_NC_MAX_RANK))
        return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' has rank %d: %s", s->path, s->var, rank, needs);
    s->rank = rank;

    int dimids[MINV_NC_MAX_RANK];
    st = nc_inq_vardimid(s->grpid, s->varid, dimids);
    for (int d = 0; d < rank && st == NC_NOERR; d++) {
        st = nc_inq_dim(s->grpid, dimids[d], s->dims[d].name, &s->dims[d].len);
        if (st == NC_NOERR)
            st = minv_nc_dim_is_unlimited(s->grpid, dimids[d], &s->dims[d].unlimited);
    }
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s', variable '%s': cannot read its dimensions", s->path, s->var);
    if (rank == 1)
        s->dims[1] = minv_nc_column_dim();
    return MINV_SUCCESS;
}

/* "cov(Time=3, n=20, n=20)" */
static void shape_text(const minv_nc_source *s, char *buf, size_t len) {
    size_t used = (size_t)snprintf(buf, len, "%s(", s->var);
    for (int d = 0; d < s->rank && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%zu", d ? ", " : "", s->dims[d].name, s->dims[d].len);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* The leading dimensions are fixed by the slice; one left over makes a batch. */
static minv_status choose_matrices(minv_context *ctx, minv_nc_source *s, const minv_file_options *fopts,
                                   int flags) {
    const int nlead = minv_nc_row_dim(s->rank);
    int nslice = (flags & MINV_NC_SLICE_IF_RANKED) && nlead == 0 ? 0 : fopts->nslice;
    char shape[512];
    shape_text(s, shape, sizeof shape);
    s->d0 = s->dims[nlead].len;
    s->d1 = s->dims[nlead + 1].len;
    size_t bytes;
    minv_status status = minv_nc_product(ctx, s->d0, s->d1, sizeof(double), &bytes, "'%s', variable %s", s->path, shape);
    if (status != MINV_SUCCESS)
        return status;
    if (nslice > nlead)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable %s: %d slice indices given but it has %d leading dimension%s%s",
                         s->path, shape, nslice, nlead, nlead == 1 ? "" : "s",
                         nlead == 0 ? " (it is a matrix already: drop the slice)" : "");
    for (int d = 0; d < nslice; d++) {
        if (fopts->slice[d] < 0 || (uint64_t)fopts->slice[d] >= s->dims[d].len)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable %s: slice index %lld is outside dimension %s (%s, %zu entries)",
                             s->path, shape, (long long)fopts->slice[d] + s->index_base, s->dims[d].name,
                             minv_nc_base_label(s->index_base), s->dims[d].len);
        s->lead[d] = (size_t)fopts->slice[d];
    }
    s->nlead_fixed = nslice;
    s->count = 1;
    if (nlead - nslice == 1 && (flags & MINV_NC_ALLOW_BATCH) && s->d0 == s->d1) {
        s->batch = 1;
        /* each matrix has a record of a few doubles, so the count must fit them too */
        if ((status = minv_nc_product(ctx, s->dims[nslice].len, sizeof(double), 1, &bytes, "'%s', variable %s", s->path,
                                      shape)) != MINV_SUCCESS)
            return status;
        s->count = (int64_t)s->dims[nslice].len;
        if (s->count == 0)
            return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable %s holds no matrices (%s has length 0)",
                             s->path, shape, s->dims[nslice].name);
    } else if (nlead - nslice > 0) {
        char which[256] = "";
        for (int d = 0; d < nlead; d++)
            snprintf(which + strlen(which), sizeof which - strlen(which), "%s%s", d ? ", " : "", s->dims[d].name);
        return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable %s has rank %d: give %d slice ind%s (for %s) to pick a matrix%s",
                         s->path, shape, s->rank, nlead, nlead == 1 ? "ex" : "ices", which,
                         (flags & MINV_NC_ALLOW_BATCH) && nlead - nslice == 1 ? " (its last two dimensions differ, so it is no batch of square matrices)" : "");
    }
    if (s->d0 == 0 || s->d1 == 0)
        return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable %s is empty", s->path, shape);
    return MINV_SUCCESS;
}

/* ---- what counts as missing, and packing (NUG attribute conventions, CF packing) ---- */

static int get_att(int ncid, int varid, const char *name, double *values, size_t max, size_t *count) {
    nc_type t;
    size_t len;
    if (nc_inq_att(ncid, varid, name, &t, &len) != NC_NOERR || !is_numeric(t) || len == 0 || len > max)
        return 0;
    if (nc_get_att_double(ncid, varid, name, values) != NC_NOERR)
        return 0;
    if (count)
        *count = len;
    return 1;
}

static double default_fill(nc_type t) {
    switch (t) {
    case NC_SHORT: return NC_FILL_SHORT;
    case NC_USHORT: return NC_FILL_USHORT;
    case NC_INT: return NC_FILL_INT;
    case NC_UINT: return NC_FILL_UINT;
    case NC_INT64: return (double)NC_FILL_INT64;
    case NC_UINT64: return (double)NC_FILL_UINT64;
    case NC_FLOAT: return NC_FILL_FLOAT;
    default: return NC_FILL_DOUBLE;
    }
}

/* An attribute that says what the stored values mean must be numeric, with `least` to `most`
 * values (NUG, CF): ignored, a text scale_factor would have the packed integers inverted as
 * they are. Absent is fine. */
static minv_status check_rule_att(minv_context *ctx, const minv_nc_source *s, const char *name, size_t least,
                                  size_t most) {
    nc_type t;
    size_t len;
    if (nc_inq_att(s->grpid, s->varid, name, &t, &len) != NC_NOERR)
        return MINV_SUCCESS;
    if (!is_numeric(t))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': its %s attribute is %s, not a number (the CF conventions want it numeric), so minv cannot tell what the stored values mean",
                         s->path, s->var, name, minv_nc_type_name(t));
    if (len < least || len > most)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': its %s attribute has %zu values; %s", s->path, s->var, name,
                         len, least == most ? (least == 1 ? "it needs one" : "it needs two")
                                            : "minv honours 1 to 8 (MINV_NC_MAX_MISSING)");
    return MINV_SUCCESS;
}

/* 2^bits where a signed integer variable carries _Unsigned = "true" (the NUG's mark for unsigned
 * data in formats without unsigned types, which netCDF-Java and netCDF4-python honour), else 0. */
static double unsigned_wrap(const minv_nc_source *s) {
    char text[16];
    if (!minv_nc_text_att(s->grpid, s->varid, "_Unsigned", text, sizeof text))
        return 0;
    size_t len = strlen(text);
    while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\0'))
        len--;
    if (len != 4 || strncasecmp(text, "true", 4) != 0)
        return 0;
    switch (s->xtype) {
    case NC_BYTE: return 0x1p8;
    case NC_SHORT: return 0x1p16;
    case NC_INT: return 0x1p32;
    case NC_INT64: return 0x1p64;
    default: return 0;
    }
}

static minv_status read_value_rules(minv_context *ctx, minv_nc_source *s) {
    static const struct { const char *name; size_t least, most; } rules[] = {
        {"scale_factor", 1, 1}, {"add_offset", 1, 1}, {"missing_value", 1, MINV_NC_MAX_MISSING},
        {"valid_range", 2, 2},  {"valid_min", 1, 1},  {"valid_max", 1, 1}};
    minv_nc_values *v = &s->values;
    double pair[2];
    size_t n = 0;
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        minv_status status = check_rule_att(ctx, s, rules[r].name, rules[r].least, rules[r].most);
        if (status != MINV_SUCCESS)
            return status;
    }
    v->valid_min = -HUGE_VAL;
    v->valid_max = HUGE_VAL;
    v->scale = 1;
    v->offset = 0;
    v->wrap = unsigned_wrap(s);
    if (get_att(s->grpid, s->varid, "_FillValue", &v->fill, 1, NULL)) {
        v->has_fill = 1;
    } else {
        /* Unwritten entries hold the type's default fill while fill mode is on; the NUG asks
         * not to treat the byte types' default as missing. */
        int no_fill = 1;
        unsigned char value[8];
        if (nc_inq_var_fill(s->grpid, s->varid, &no_fill, value) == NC_NOERR && !no_fill &&
            s->xtype != NC_BYTE && s->xtype != NC_UBYTE) {
            v->has_fill = v->fill_is_default = 1;
            v->fill = default_fill(s->xtype);
        }
    }
    if (get_att(s->grpid, s->varid, "missing_value", v->missing, MINV_NC_MAX_MISSING, &n))
        v->nmissing = (int)n;
    if (get_att(s->grpid, s->varid, "valid_range", pair, 2, &n) && n == 2) {
        v->valid_min = pair[0];
        v->valid_max = pair[1];
    }
    get_att(s->grpid, s->varid, "valid_min", &v->valid_min, 1, NULL);
    get_att(s->grpid, s->varid, "valid_max", &v->valid_max, 1, NULL);
    v->fill = minv_nc_stored(v, v->fill);
    for (int m = 0; m < v->nmissing; m++)
        v->missing[m] = minv_nc_stored(v, v->missing[m]);
    v->valid_min = minv_nc_stored(v, v->valid_min);
    v->valid_max = minv_nc_stored(v, v->valid_max);
    get_att(s->grpid, s->varid, "scale_factor", &v->scale, 1, NULL);
    get_att(s->grpid, s->varid, "add_offset", &v->offset, 1, NULL);
    if (!isfinite(v->scale) || v->scale == 0 || !isfinite(v->offset))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': scale_factor %g and add_offset %g cannot unpack its values (the scale must be finite and non-zero, the offset finite)",
                         s->path, s->var, v->scale, v->offset);
    return MINV_SUCCESS;
}

/* ---- storage: chunks, tiles, and whether the file is whole ---- */

/* NetCDF-C's chunk cache holds the chunks a band of tiles touches, so that a tile edge that
 * cuts chunks does not inflate a chunk once per tile (capped: beyond it HDF5 reads again). */
static void size_chunk_cache(const minv_nc_source *s, const size_t *chunks) {
    const int r0 = minv_nc_row_dim(s->rank);
    size_t chunk_bytes = s->esize, rows = s->tile[0] / s->chunk[0] + 2, across = (s->d1 + s->chunk[1] - 1) / s->chunk[1];
    for (int d = 0; d < s->rank; d++)
        chunk_bytes *= chunks[d];
    const size_t down = (s->d0 + s->chunk[0] - 1) / s->chunk[0];
    rows = rows < down ? rows : down;
    const size_t cap = (size_t)1 << 30, want = rows * across * chunk_bytes;
    (void)r0;
    nc_set_var_chunk_cache(s->grpid, s->varid, want < cap ? want : cap, 4 * rows * across + 1, 0.75f);
}

static minv_status plan_storage(minv_context *ctx, minv_nc_source *s, int64_t tile_edge) {
    int storage = NC_CONTIGUOUS, shuffle = 0, deflate = 0, level = 0;
    size_t chunks[MINV_NC_MAX_RANK] = {1, 1}; /* a column's virtual dimension keeps its 1 */
    /* classic files answer NC_CONTIGUOUS; only netCDF-4 ones have chunks and filters */
    if (s->format == NC_FORMAT_NETCDF4 || s->format == NC_FORMAT_NETCDF4_CLASSIC) {
        int st = nc_inq_var_chunking(s->grpid, s->varid, &storage, chunks);
        if (st == NC_NOERR)
            st = nc_inq_var_deflate(s->grpid, s->varid, &shuffle, &deflate, &level);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s', variable '%s': cannot read its storage", s->path, s->var);
    }
    s->chunked = storage == NC_CHUNKED;
    s->deflate_level = deflate ? level : 0;
    if (s->chunked) {
        const int r0 = minv_nc_row_dim(s->rank);
        s->chunk[0] = chunks[r0];
        s->chunk[1] = chunks[r0 + 1];
    }
    s->tile_rule = minv_nc_plan_tiles(s->d0, s->d1, s->chunked ? s->chunk : NULL, tile_edge, s->tile);
    if (nc_inq_type(s->grpid, s->xtype, NULL, &s->esize) != NC_NOERR)
        s->esize = 8;
    if (s->chunked)
        size_chunk_cache(s, chunks);
    return MINV_SUCCESS;
}

static void source_reset(minv_nc_source *s, const char *path, const char *var, const minv_file_options *fopts) {
    memset(s, 0, sizeof *s);
    s->ncid = -1;
    s->path = path;
    s->var = var;
    s->index_base = fopts->index_base;
    s->named = fopts->fortran_order ? MINV_NC_FORTRAN_VIEW : MINV_NC_C_VIEW;
    s->allow_remote = fopts->allow_remote;
    s->direct.fd = -1;
    s->direct.h5file = s->direct.h5dset = -1;
}

/* A netCDF-4 variable left to NetCDF-C with a filter it has no plugin for: said now, by name,
 * and what to install, instead of as a failed read of its first tile. */
static minv_status check_filters(minv_context *ctx, const minv_nc_source *s) {
    unsigned ids[16];
    size_t n = 0;
    if (s->direct.kind == MINV_NC_DIRECT_CHUNKED || (s->format != NC_FORMAT_NETCDF4 && s->format != NC_FORMAT_NETCDF4_CLASSIC) ||
        nc_inq_var_filter_ids(s->grpid, s->varid, &n, NULL) != NC_NOERR || n > 16 ||
        nc_inq_var_filter_ids(s->grpid, s->varid, &n, ids) != NC_NOERR)
        return MINV_SUCCESS;
    for (size_t f = 0; f < n; f++) {
        if (nc_inq_filter_avail(s->grpid, ids[f]) == NC_NOERR)
            continue;
        char own[256] = "", label[64];
        if (minv_nc_filter_readable(minv_nc_filter_of(ids[f])))
            snprintf(own, sizeof own, "; minv's own reader undoes it but cannot read this variable (%s)", s->direct.why_not);
        return minv_fail(ctx, MINV_ERR_IO,
                         "'%s', variable '%s': its values are compressed with %s, which NetCDF-C and HDF5 here cannot undo%s: "
                         "install the filter's HDF5 plugin (Debian: hdf5-filter-plugin for bzip2 and LZ4, hdf5-filter-plugin-blosc-serial for Blosc) "
                         "or point HDF5_PLUGIN_PATH at the folder that holds it",
                         s->path, s->var, minv_nc_filter_label(ids[f], label, sizeof label), own);
    }
    return MINV_SUCCESS;
}

minv_status minv_nc_source_open(minv_context *ctx, minv_nc_source *s, const char *path,
                                const char *var, const minv_file_options *fopts, int flags) {
    source_reset(s, path, var, fopts);
    minv_status status = MINV_SUCCESS;
    MINV_TRY(open_variable(ctx, s, 0, flags));
    MINV_TRY(choose_matrices(ctx, s, fopts, flags));
    MINV_TRY(read_value_rules(ctx, s));
    MINV_TRY(plan_storage(ctx, s, fopts->tile));
    minv_nc_source_set_view(s, fopts->fortran_order ? MINV_NC_FORTRAN_VIEW : MINV_NC_C_VIEW);
    /* tiles asked for, or NetCDF-C asked for, are read through NetCDF-C */
    minv_nc_var_id id;
    const char *why = fopts->tile > 0 ? "tiles were asked for"
                      : flags & MINV_NC_LIBRARY ? "NetCDF-C was asked for"
                      : minv_nc_is_url(path) ? "it is remote"
                      : !minv_nc_var_identify(&id, path, s->grpid, s->varid, s->format) ? "its name cannot be read"
                                                                                       : NULL;
    if (why)
        snprintf(s->direct.why_not, sizeof s->direct.why_not, "%s", why);
    else
        minv_nc_direct_open(&s->direct, &id, 0);
    if (flags & MINV_NC_CHUNKS_BY_LIBRARY && s->direct.kind == MINV_NC_DIRECT_CHUNKED &&
        minv_nc_direct_all_written(&s->direct))
        s->direct.by_library = 1;
    MINV_TRY(check_filters(ctx, s));
cleanup:
    if (status != MINV_SUCCESS)
        minv_nc_source_close(s);
    return status;
}

void minv_nc_source_set_view(minv_nc_source *s, minv_nc_view view) {
    s->view = view;
    s->rows = (int64_t)(view == MINV_NC_C_VIEW ? s->d0 : s->d1);
    s->cols = (int64_t)(view == MINV_NC_C_VIEW ? s->d1 : s->d0);
}

void minv_nc_source_close(minv_nc_source *s) {
    if (s->ncid < 0) /* closed, or never opened: {.ncid = -1} holds no direct path either */
        return;
    minv_nc_direct_close(&s->direct);
    nc_close(s->ncid);
    s->ncid = s->grpid = -1;
}

/* ---- reading ---- */

void minv_nc_source_slice(const minv_nc_source *s, int base, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (int d = 0; d < s->nlead_fixed && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s = %zu", d ? ", " : "", s->dims[d].name, s->lead[d] + (size_t)base);
}

void minv_nc_source_where(const minv_nc_source *s, int64_t k, char *buf, size_t len) {
    char slice[512], batch[NC_MAX_NAME + 32] = "";
    minv_nc_source_slice(s, s->index_base, slice, sizeof slice);
    if (s->batch)
        snprintf(batch, sizeof batch, "%s%s = %lld", slice[0] ? ", " : "", s->dims[s->nlead_fixed].name,
                 (long long)k + s->index_base);
    if (slice[0] || batch[0])
        snprintf(buf, len, "'%s', variable '%s' (%s%s, %s)", s->path, s->var, slice, batch, minv_nc_base_label(s->index_base));
    else
        snprintf(buf, len, "'%s', variable '%s'", s->path, s->var);
}

/* ---- for reports ---- */

void minv_nc_source_describe(const minv_nc_source *s, char *buf, size_t len) {
    char shape[512];
    shape_text(s, shape, sizeof shape);
    size_t used = (size_t)snprintf(buf, len, "%s%s %s in %s, ", minv_nc_type_name(s->xtype),
                                   s->values.wrap ? " (_Unsigned)" : "", shape, minv_nc_format_name(s->format));
    if (used >= len)
        return;
    if (s->chunked)
        used += (size_t)snprintf(buf + used, len - used, "chunks %zu x %zu, %s", s->chunk[0], s->chunk[1],
                                 s->deflate_level ? "deflated" : "not deflated");
    else
        used += (size_t)snprintf(buf + used, len - used, "contiguous");
    if (used < len && s->deflate_level)
        used += (size_t)snprintf(buf + used, len - used, " (level %d)", s->deflate_level);
    if (used < len && (s->values.scale != 1 || s->values.offset != 0))
        snprintf(buf + used, len - used, ", packed (scale_factor %g, add_offset %g)", s->values.scale, s->values.offset);
}

/* ---- one square matrix, whole ---- */

minv_status minv_nc_read_square(minv_context *ctx, minv_nc_source *s, const char *path, const char *var,
                                const minv_file_options *fopts, int keep_nonfinite, minv_mat *m) {
    minv_status status = MINV_SUCCESS;
    m->data = NULL;
    MINV_TRY(minv_nc_source_open(ctx, s, path, var, fopts, 0));
    MINV_TRY(minv_nc_check_square(ctx, s));
    MINV_TRY(minv_mat_alloc(ctx, m, fopts->precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64, s->rows, s->cols));
    MINV_TRY(minv_nc_source_read(ctx, s, 0, keep_nonfinite, m));
cleanup:
    if (status != MINV_SUCCESS)
        minv_mat_free(m);
    minv_nc_source_close(s);
    return status;
}

minv_status minv_nc_check_square(minv_context *ctx, const minv_nc_source *s) {
    if (s->d0 == s->d1)
        return MINV_SUCCESS;
    char shape[512];
    shape_text(s, shape, sizeof shape);
    return minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable %s is a %zu x %zu matrix, not square", s->path, shape,
                     (size_t)s->rows, (size_t)s->cols);
}

/* ---- a 1-D variable, whole: a band of a tridiagonal matrix ---- */

minv_status minv_nc_read_vector(minv_context *ctx, minv_nc_source *s, const char *path, const char *var,
                                const minv_file_options *fopts, minv_dtype t, minv_mat *v) {
    minv_status status = MINV_SUCCESS;
    source_reset(s, path, var, fopts);
    v->data = NULL;
    MINV_TRY(open_variable(ctx, s, 1, 0));
    MINV_TRY(read_value_rules(ctx, s));
    s->d0 = s->tile[0] = s->dims[0].len;
    s->d1 = s->tile[1] = 1;
    s->count = 1;
    s->tile_rule = "the whole variable";
    snprintf(s->direct.why_not, sizeof s->direct.why_not, "a band is small");
    if (nc_inq_type(s->grpid, s->xtype, NULL, &s->esize) != NC_NOERR)
        s->esize = 8;
    minv_nc_source_set_view(s, MINV_NC_C_VIEW);
    if (s->d0 == 0) {
        status = minv_fail(ctx, MINV_ERR_SHAPE, "'%s', variable '%s' is empty", path, var);
        goto cleanup;
    }
    MINV_TRY(minv_mat_alloc(ctx, v, t, (int64_t)s->d0, 1));
    MINV_TRY(minv_nc_source_read(ctx, s, 0, 0, v));
cleanup:
    if (status != MINV_SUCCESS)
        minv_mat_free(v);
    minv_nc_source_close(s);
    return status;
}
