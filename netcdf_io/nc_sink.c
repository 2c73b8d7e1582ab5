/* An output variable defined in a temporary file (nc_output.c), written by nc_write.c, and
 * committed: its attributes, then the temporary renamed over `path` only once it is complete,
 * so that a failed run leaves nothing behind and readers never see a partial file.
 *
 * What the file is (the plan of nc_output.c):
 *   - nothing at `path`, or (overwrite) a file that is not netCDF or a netCDF file whose only
 *     variable is `var` (an earlier run's output): a new file, in spec->format;
 *   - a netCDF file with other variables or groups: a copy of it gets `var` in its root group
 *     (reusing dimensions of the same name and length, or, with overwrite, overwriting a `var`
 *     of the same shape and type without packing, fill or valid-range attributes, whose old
 *     attributes give way to the result's), keeps its format, and gains a line in its history. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncio.h"

enum { CHUNK_EDGE = 256, HEADER_RESERVE = 4096 };

static int is_netcdf4(int format) { return format == NC_FORMAT_NETCDF4 || format == NC_FORMAT_NETCDF4_CLASSIC; }

static int create_mode(int format) {
    switch (format) {
    case NC_FORMAT_CLASSIC: return NC_CLOBBER;
    case NC_FORMAT_64BIT_OFFSET: return NC_CLOBBER | NC_64BIT_OFFSET;
    case NC_FORMAT_64BIT_DATA: return NC_CLOBBER | NC_64BIT_DATA;
    case NC_FORMAT_NETCDF4_CLASSIC: return NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL;
    default: return NC_CLOBBER | NC_NETCDF4;
    }
}

/* ---- the format of a new file ---- */

/* The NetCDF format of a minv_file_format. */
static int nc_format(int32_t f) {
    switch (f) {
    case MINV_FORMAT_CLASSIC: return NC_FORMAT_CLASSIC;
    case MINV_FORMAT_64BIT_OFFSET: return NC_FORMAT_64BIT_OFFSET;
    case MINV_FORMAT_CDF5: return NC_FORMAT_64BIT_DATA;
    case MINV_FORMAT_NETCDF4_CLASSIC: return NC_FORMAT_NETCDF4_CLASSIC;
    default: return NC_FORMAT_NETCDF4;
    }
}

/* The largest variable (or record of a record variable) a format holds: the classic formats
 * keep sizes in 32 bits (NetCDF Users Guide, "Large File Support"). */
static size_t format_limit(int format) {
    switch (format) {
    case NC_FORMAT_CLASSIC: return ((size_t)1 << 31) - 4;
    case NC_FORMAT_64BIT_OFFSET: return ((size_t)1 << 32) - 4;
    default: return SIZE_MAX;
    }
}

minv_status minv_nc_choose_format(minv_context *ctx, int32_t asked, int deflate_level, int input_format, size_t bytes,
                                  int *format, char *why, size_t len) {
    why[0] = '\0';
    if (asked != MINV_FORMAT_AUTO) {
        *format = nc_format(asked);
        if (deflate_level > 0 && !is_netcdf4(*format))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "deflate level %d asks for a netCDF-4 output, and the format asked for is %s",
                             deflate_level, minv_nc_format_name(*format));
        if (bytes > format_limit(*format))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "the output variable takes %.4g GB, more than the %s format holds (%.4g GB): ask for 64-bit offset, CDF-5 or netCDF-4",
                             (double)bytes / 1e9, minv_nc_format_name(*format), (double)format_limit(*format) / 1e9);
        return MINV_SUCCESS;
    }
    if (deflate_level > 0 && !is_netcdf4(input_format)) {
        *format = NC_FORMAT_NETCDF4;
        snprintf(why, len, "the output is netCDF-4, not %s as the input: deflation needs netCDF-4", minv_nc_format_name(input_format));
        return MINV_SUCCESS;
    }
    *format = input_format;
    if (input_format == NC_FORMAT_CLASSIC && bytes > format_limit(NC_FORMAT_CLASSIC))
        *format = NC_FORMAT_64BIT_OFFSET;
    if (*format == NC_FORMAT_64BIT_OFFSET && bytes > format_limit(NC_FORMAT_64BIT_OFFSET))
        *format = NC_FORMAT_64BIT_DATA;
    if (*format != input_format)
        snprintf(why, len, "the output is %s, not %s as the input: its variable takes %.4g GB, more than %s holds", minv_nc_format_name(*format),
                 minv_nc_format_name(input_format), (double)bytes / 1e9, minv_nc_format_name(input_format));
    return MINV_SUCCESS;
}


/* ---- the variable ---- */

/* A dimension called `name` (or name_<len> when `name` is taken by another length); d says
 * afterwards whether the one used is unlimited, for the writer, which must grow it. */
static minv_status find_or_define_dim(minv_context *ctx, minv_nc_sink *w, minv_nc_dim *d, int *dimid) {
    char name[NC_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", d->name);
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t len;
        int is_unlimited = 0;
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
            st = minv_nc_dim_is_unlimited(w->ncid, *dimid, &is_unlimited);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s': dimension '%s'", w->path, name);
        if (len == d->len || (is_unlimited && d->unlimited)) {
            d->unlimited = is_unlimited;
            return MINV_SUCCESS;
        }
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
    w->row_align = storage == NC_CHUNKED ? chunks[r0] : 1;
    return MINV_SUCCESS;
}

/* Attributes under which stored values read back as other values, or as missing. */
static int changes_values(const char *name) {
    static const char *const names[] = {"scale_factor", "add_offset", "_FillValue", "missing_value",
                                        "valid_min",    "valid_max",  "valid_range", "_Unsigned"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k]) == 0)
            return 1;
    return strncmp(name, "_Quantize", 9) == 0; /* netCDF-4.9's lossy quantization on write */
}

/* An existing variable of the result's shape takes the result only when the result reads back
 * from it as computed: of the result's type, without packing, fill or valid-range attributes.
 * Otherwise the call is refused, since netCDF cannot delete a variable. Its attributes, which
 * describe an earlier result, are removed, so that it ends with those a new variable gets. */
static minv_status reuse_variable(minv_context *ctx, minv_nc_sink *w) {
    nc_type type;
    int natts = 0;
    char offending[512] = "", name[NC_MAX_NAME + 1];
    int st = nc_inq_vartype(w->ncid, w->varid, &type);
    if (st == NC_NOERR)
        st = nc_inq_varnatts(w->ncid, w->varid, &natts);
    for (int a = 0; st == NC_NOERR && a < natts; a++)
        if ((st = nc_inq_attname(w->ncid, w->varid, a, name)) == NC_NOERR && changes_values(name))
            minv_nc_list_name(offending, sizeof offending, name);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s', variable '%s'", w->path, w->var);
    if (type != w->spec.xtype || offending[0])
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "'%s' already has a variable '%s' of the result's shape, but of type %s%s%s: the %s result written into it would not read back as computed, and netCDF cannot delete a variable; give another output variable name, or write to a new file",
                         w->path, w->var, minv_nc_type_name(type), offending[0] ? " with " : "", offending,
                         minv_nc_type_name(w->spec.xtype));
    /* from the last: the ids of those after a deleted one move down */
    for (int a = natts - 1; st == NC_NOERR && a >= 0; a--)
        if ((st = nc_inq_attname(w->ncid, w->varid, a, name)) == NC_NOERR)
            st = nc_del_att(w->ncid, w->varid, name);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': cannot remove the attributes of the earlier '%s'", w->path, w->var);
    return plan_tiles(ctx, w);
}

static minv_status define_variable(minv_context *ctx, minv_nc_sink *w) {
    minv_nc_sink_spec *sp = &w->spec;
    int dimids[3], st;
    minv_status status;
    for (int d = 0; d < sp->rank; d++)
        if ((status = find_or_define_dim(ctx, w, &sp->dims[d], &dimids[d])) != MINV_SUCCESS)
            return status;

    st = nc_inq_varid(w->ncid, w->var, &w->varid);
    if (st == NC_NOERR) { /* an existing variable of the same shape may be overwritten */
        int rank = 0, old[3], same;
        st = nc_inq_varndims(w->ncid, w->varid, &rank);
        same = st == NC_NOERR && rank == sp->rank; /* the rank first: old[] holds 3 ids */
        if (same)
            st = nc_inq_vardimid(w->ncid, w->varid, old);
        if (st != NC_NOERR)
            return minv_nc_fail(ctx, st, "'%s', variable '%s'", w->path, w->var);
        for (int d = 0; same && d < rank; d++)
            same = old[d] == dimids[d];
        if (!same)
            return minv_fail(ctx, MINV_ERR_SHAPE, "'%s' already has a variable '%s' of another shape; minv overwrites one of the same shape only: choose another name or file",
                             w->path, w->var);
        return reuse_variable(ctx, w);
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

/* The bytes the variable's `count` matrices take on disk: whole chunks (edge chunks are
 * stored whole, uncompressed at most) or the values themselves. */
static minv_status stored_bytes(minv_context *ctx, const minv_nc_sink *w, int64_t count, size_t *bytes) {
    const minv_nc_sink_spec *sp = &w->spec;
    const int r0 = minv_nc_row_dim(sp->rank);
    int storage = NC_CONTIGUOUS;
    size_t chunks[3] = {1, 1, 1}, esize = 0, edge[2];
    nc_inq_type(w->ncid, sp->xtype, NULL, &esize);
    if (is_netcdf4(w->format))
        nc_inq_var_chunking(w->ncid, w->varid, &storage, chunks);
    for (int d = 0; d < 2; d++) {
        const size_t len = sp->dims[r0 + d].len, c = storage == NC_CHUNKED && chunks[r0 + d] ? chunks[r0 + d] : 1;
        edge[d] = (len + c - 1) / c * c;
    }
    return minv_nc_product(ctx, (size_t)count, edge[0] * edge[1], esize, bytes, "'%s', variable '%s'", w->path, w->var);
}

static int put_text(int ncid, int varid, const char *name, const char *text) {
    return nc_put_att_text(ncid, varid, name, strlen(text), text);
}

/* What the output carries over from its input (nc_meta.c), written while the header is being
 * defined, so that a classic file's data need not move: the input file's global attributes
 * and history for a new file, the variable's attributes that still hold, its units. */
static minv_status carry_metadata(minv_context *ctx, minv_nc_sink *w) {
    const minv_nc_source *from = w->spec.from;
    int st = NC_NOERR;
    if (from && w->out.plan != MINV_NC_OUT_ADD) {
        st = minv_nc_copy_atts(from->ncid, NC_GLOBAL, w->ncid, NC_GLOBAL, NULL, w->dropped_globals, sizeof w->dropped_globals);
        w->old_history = minv_nc_text_att_dup(from->ncid, NC_GLOBAL, "history", &w->history_type);
    }
    if (st == NC_NOERR && from)
        st = minv_nc_copy_atts(from->grpid, from->varid, w->ncid, w->varid, w->dropped, w->lacking, sizeof w->dropped);
    if (st == NC_NOERR && w->spec.units)
        st = put_text(w->ncid, w->varid, "units", w->spec.units);
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': cannot copy the attributes of '%s' to variable '%s'", w->path, from ? from->var : "?",
                            w->var);
    /* what was left behind, said in the file (minv_not_carried) and in the report: what does
     * not hold for the result, units, and what the format cannot hold */
    char untrue[sizeof w->dropped + 32] = "", lacks[sizeof w->lacking + sizeof w->dropped_globals + 96] = "";
    if (w->dropped[0])
        snprintf(untrue, sizeof untrue, "%s (not true of the result)", w->dropped);
    if (w->lacking[0] || w->dropped_globals[0])
        snprintf(lacks, sizeof lacks, "%s%s%s%s (the format lacks the type: %s)", w->lacking,
                 w->lacking[0] && w->dropped_globals[0] ? ", " : "", w->dropped_globals[0] ? "global " : "", w->dropped_globals,
                 minv_nc_format_name(w->format));
    const char *parts[3] = {untrue, w->spec.units_note ? w->spec.units_note : "", lacks};
    w->not_carried[0] = '\0';
    for (int p = 0; p < 3; p++) {
        const size_t used = strlen(w->not_carried);
        if (parts[p][0])
            snprintf(w->not_carried + used, sizeof w->not_carried - used, "%s%s", used ? "; " : "", parts[p]);
    }
    return MINV_SUCCESS;
}

minv_status minv_nc_sink_open(minv_context *ctx, minv_nc_sink *w, const char *path,
                              const char *var, const minv_nc_sink_spec *spec, int64_t count) {
    memset(w, 0, sizeof *w);
    w->ncid = -1;
    w->out.fd = -1;
    w->path = path;
    w->var = var;
    w->spec = *spec;
    w->expected = count;
    if (spec->rank == 1)
        w->spec.dims[1] = minv_nc_column_dim();
    minv_status status = MINV_SUCCESS;
    int st;
    if (strchr(var, '/'))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output variable '%s' of '%s' names a group: minv writes its outputs to the root group of the output file, so give a plain name",
                         var, path);
    MINV_TRY(minv_nc_output_plan(ctx, &w->out, path, var, spec->overwrite, spec->inputs, spec->ninputs));
    if (w->out.plan == MINV_NC_OUT_ADD) {
        w->format = w->out.format; /* an existing file keeps its format */
    } else {
        /* what the classic formats count: the variable, or one record of a record variable */
        const int r0 = minv_nc_row_dim(spec->rank);
        const size_t records = spec->rank == 3 && !spec->dims[0].unlimited ? spec->dims[0].len : 1;
        size_t bytes;
        MINV_TRY(minv_nc_product(ctx, records, w->spec.dims[r0].len * w->spec.dims[r0 + 1].len,
                                 spec->xtype == NC_DOUBLE ? 8 : 4, &bytes, "'%s', variable '%s'", path, var));
        MINV_TRY(minv_nc_choose_format(ctx, spec->format, spec->deflate_level, spec->input_format, bytes, &w->format,
                                       w->format_note, sizeof w->format_note));
    }
    MINV_TRY(minv_nc_output_create(ctx, &w->out));
    if (w->out.plan == MINV_NC_OUT_ADD) {
        st = nc_open(w->out.open_path, NC_WRITE, &w->ncid);
        if (st != NC_NOERR)
            w->ncid = -1;
        else
            st = nc_redef(w->ncid);
        if (st != NC_NOERR) {
            status = minv_nc_fail(ctx, st, "cannot add variable '%s' to '%s'", var, path);
            goto cleanup;
        }
        w->old_history = minv_nc_text_att_dup(w->ncid, NC_GLOBAL, "history", &w->history_type);
    } else {
        /* NC_CLOBBER: the file at open_path is the empty one minv_nc_output_create made */
        st = nc_create(w->out.open_path, create_mode(w->format), &w->ncid);
        if (st != NC_NOERR) {
            w->ncid = -1;
            status = minv_nc_fail(ctx, st, "cannot create '%s' (written first as '%s')", path, w->out.tmp);
            goto cleanup;
        }
    }
    MINV_TRY(define_variable(ctx, w));
    MINV_TRY(carry_metadata(ctx, w));
    size_t data;
    MINV_TRY(stored_bytes(ctx, w, count, &data));
    /* and HDF5's metadata (object headers, a chunk index within 1/64 of the data), the
     * attributes (a few records per matrix) */
    MINV_TRY(minv_nc_output_reserve(ctx, &w->out, data + data / 64 + ((size_t)64 << 10) + (size_t)count * 64));
    /* room in a classic header for the attributes written on commit, so that adding them
     * does not move the data */
    st = nc__enddef(w->ncid, HEADER_RESERVE, 4, 0, 4);
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s': cannot define variable '%s'", path, var);
        goto cleanup;
    }
    /* the writer (nc_write.c) may close and reopen the file: it names the variable itself */
    if (spec->library)
        snprintf(w->why_not, sizeof w->why_not, "NetCDF-C was asked for");
    else if (!minv_nc_var_identify(&w->id, w->out.open_path, w->ncid, w->varid, w->format))
        snprintf(w->why_not, sizeof w->why_not, "its name cannot be read");
    w->direct_off = w->why_not[0] != '\0';
cleanup:
    if (status != MINV_SUCCESS)
        minv_nc_sink_abort(w);
    return status;
}

/* ---- another process's turn ---- */

minv_status minv_nc_sink_suspend(minv_context *ctx, minv_nc_sink *w) {
    int st = nc_close(w->ncid);
    w->ncid = -1;
    if (st != NC_NOERR)
        return minv_nc_fail(ctx, st, "'%s': closing the new file for the other ranks failed", w->out.tmp);
    return MINV_SUCCESS;
}

minv_status minv_nc_sink_resume(minv_context *ctx, minv_nc_sink *w) {
    /* through our own descriptor (open_path), so this is the file we created, whatever its
     * name points to now */
    int st = nc_open(w->out.open_path, NC_WRITE, &w->ncid);
    if (st != NC_NOERR)
        w->ncid = -1;
    else
        st = nc_inq_varid(w->ncid, w->var, &w->varid);
    if (st != NC_NOERR) {
        if (w->ncid >= 0)
            nc_close(w->ncid);
        w->ncid = -1;
        return minv_nc_fail(ctx, st, "'%s': opening the new file again after the other ranks wrote it failed", w->out.tmp);
    }
    return MINV_SUCCESS;
}

/* ---- commit ---- */

static int put_history(minv_nc_sink *w, const char *line) {
    char *text = minv_nc_history(w->old_history, line);
    if (!text)
        return NC_ENOMEM;
    /* an xarray (h5netcdf) history stays a string where the format has strings */
    int st = w->old_history && w->history_type == NC_STRING && w->format == NC_FORMAT_NETCDF4
                 ? nc_put_att_string(w->ncid, NC_GLOBAL, "history", 1, (const char **)&text)
                 : put_text(w->ncid, NC_GLOBAL, "history", text);
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
    if (st == NC_NOERR && w->not_carried[0])
        st = put_text(w->ncid, w->varid, "minv_not_carried", w->not_carried);
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
    /* a failed close leaves the id open (netCDF-C frees it only on success): abort takes it */
    if ((st = nc_close(w->ncid)) == NC_NOERR)
        w->ncid = -1;
    if (st != NC_NOERR) {
        status = minv_nc_fail(ctx, st, "'%s': writing the new file failed as it was closed", w->path);
        goto cleanup;
    }
    status = minv_nc_output_commit(ctx, &w->out);
cleanup:
    minv_nc_sink_abort(w);
    return status;
}

void minv_nc_sink_abort(minv_nc_sink *w) {
    int closed = 1;
    if (w->ncid >= 0) {
        minv_nc_output_release(&w->out);
        closed = nc_abort(w->ncid) == NC_NOERR;
    }
    w->ncid = -1;
    minv_nc_output_discard(&w->out, closed); /* after a commit there is nothing left to remove */
    free(w->old_history);
    w->old_history = NULL;
}
