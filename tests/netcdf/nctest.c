/* Helpers of the NetCDF tests (see nctest.h). */
#include "nctest.h"

#include <dirent.h>

/* The group of `ncid` that holds `var` ("M", or a path of groups "a/b/M", "/a/b/M"), its groups
 * made where `create` and missing; *name receives the variable's own name. */
static int group_of(int ncid, const char *var, int create, const char **name) {
    int grp = ncid;
    const char *slash;
    for (*name = var[0] == '/' ? var + 1 : var; (slash = strchr(*name, '/')); *name = slash + 1) {
        char group[NC_MAX_NAME + 1];
        int child;
        snprintf(group, sizeof group, "%.*s", (int)(slash - *name), *name);
        int st = nc_inq_grp_ncid(grp, group, &child);
        if (st != NC_NOERR && create)
            NCT(nc_def_grp(grp, group, &child));
        else
            NCT(st);
        grp = child;
    }
    return grp;
}

void nct_write(const char *path, int append, const nct_storage *st, const char *var, nc_type type,
               int rank, const char *const *names, const size_t *lens, int unlimited_first,
               const double *data) {
    int ncid, grp, dimids[NC_MAX_VAR_DIMS], varid;
    const char *name;
    if (append) {
        NCT(nc_open(path, NC_WRITE, &ncid));
        NCT(nc_redef(ncid));
    } else {
        NCT(nc_create(path, st->cmode, &ncid));
    }
    grp = group_of(ncid, var, 1, &name);
    for (int d = 0; d < rank; d++) { /* a dimension of an enclosing group is used as it is */
        if (nc_inq_dimid(grp, names[d], &dimids[d]) != NC_NOERR)
            NCT(nc_def_dim(grp, names[d], d == 0 && unlimited_first ? NC_UNLIMITED : lens[d], &dimids[d]));
    }
    NCT(nc_def_var(grp, name, type, rank, dimids, &varid));
    if (st->cmode & NC_NETCDF4) {
        if (st->chunks)
            NCT(nc_def_var_chunking(grp, varid, NC_CHUNKED, st->chunks));
        else if (!unlimited_first) /* unlimited dimensions are always chunked */
            NCT(nc_def_var_chunking(grp, varid, NC_CONTIGUOUS, NULL));
        if (st->deflate)
            NCT(nc_def_var_deflate(grp, varid, !st->no_shuffle, 1, st->deflate));
        if (st->big_endian)
            NCT(nc_def_var_endian(grp, varid, NC_ENDIAN_BIG));
        if (st->fletcher32)
            NCT(nc_def_var_fletcher32(grp, varid, NC_FLETCHER32));
    }
    if (st->fill)
        NCT(nc_put_att_double(grp, varid, "_FillValue", type, 1, st->fill));
    NCT(nc_enddef(ncid));
    if (data) {
        size_t start[NC_MAX_VAR_DIMS] = {0};
        NCT(nc_put_vara_double(grp, varid, start, lens, data));
    }
    NCT(nc_close(ncid));
}

void nct_put_att(const char *path, const char *var, const char *name, nc_type type, size_t n,
                 const double *values) {
    int ncid, grp, varid;
    const char *own;
    NCT(nc_open(path, NC_WRITE, &ncid));
    NCT(nc_redef(ncid));
    grp = group_of(ncid, var, 0, &own);
    NCT(nc_inq_varid(grp, own, &varid));
    NCT(nc_put_att_double(grp, varid, name, type, n, values));
    NCT(nc_close(ncid));
}

double *nct_read_var(const char *path, const char *var, int unpack, nct_var_info *info) {
    int ncid, grp, varid, dimids[NC_MAX_VAR_DIMS];
    const char *name;
    nct_var_info v = {0};
    v.count = 1;
    NCT(nc_open(path, NC_NOWRITE, &ncid));
    grp = group_of(ncid, var, 0, &name);
    NCT(nc_inq_varid(grp, name, &varid));
    NCT(nc_inq_var(grp, varid, NULL, &v.type, &v.rank, dimids, NULL));
    for (int d = 0; d < v.rank; d++) {
        NCT(nc_inq_dimlen(grp, dimids[d], &v.lens[d]));
        v.count *= v.lens[d];
    }
    double *data = malloc((v.count ? v.count : 1) * sizeof *data);
    NCT(nc_get_var_double(grp, varid, data));
    double scale = 1, offset = 0;
    if (unpack) { /* CF packing: value = stored * scale_factor + add_offset */
        if (nc_get_att_double(grp, varid, "scale_factor", &scale) != NC_NOERR) scale = 1;
        if (nc_get_att_double(grp, varid, "add_offset", &offset) != NC_NOERR) offset = 0;
        for (size_t k = 0; k < v.count; k++) data[k] = data[k] * scale + offset;
    }
    NCT(nc_close(ncid));
    if (info)
        *info = v;
    return data;
}

double *nct_read(const char *path, const char *var, size_t *count) {
    nct_var_info v;
    double *data = nct_read_var(path, var, 0, &v);
    if (count)
        *count = v.count;
    return data;
}

char *nct_read_text_att(const char *path, const char *var, const char *name) {
    int ncid, varid = NC_GLOBAL;
    size_t len;
    char *text = NULL;
    NCT(nc_open(path, NC_NOWRITE, &ncid));
    if (var)
        NCT(nc_inq_varid(ncid, var, &varid));
    if (nc_inq_attlen(ncid, varid, name, &len) == NC_NOERR) {
        text = calloc(len + 1, 1);
        NCT(nc_get_att_text(ncid, varid, name, text));
    }
    NCT(nc_close(ncid));
    return text;
}

double *nct_c_view(const double *disk, size_t r, size_t c) {
    double *m = malloc(r * c * sizeof *m);
    for (size_t i = 0; i < r; i++)
        for (size_t j = 0; j < c; j++)
            m[i + j * r] = disk[i * c + j];
    return m;
}

nct_snapshot nct_snap(const char *path) {
    nct_snapshot s = {NULL, -1};
    FILE *f = fopen(path, "rb");
    if (!f)
        return s;
    fseek(f, 0, SEEK_END);
    s.size = ftell(f);
    fseek(f, 0, SEEK_SET);
    s.bytes = malloc((size_t)s.size + 1);
    if (fread(s.bytes, 1, (size_t)s.size, f) != (size_t)s.size)
        s.size = -1;
    fclose(f);
    return s;
}

int nct_same(const nct_snapshot *s, const char *path) {
    nct_snapshot now = nct_snap(path);
    int same = now.size == s->size && s->size >= 0 && memcmp(now.bytes, s->bytes, (size_t)s->size) == 0;
    nct_snap_free(&now);
    return same;
}

void nct_snap_free(nct_snapshot *s) {
    free(s->bytes);
    s->bytes = NULL;
}

int nct_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

int nct_tmp_left(const char *path) {
    char prefix[1024];
    const char *slash = strrchr(path, '/');
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash ? slash + 1 : path);
    char dir[1024];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        found |= strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return found;
}

void nct_options(minv_file_options *fo) {
    minv_file_options_default(fo);
    fo->overwrite = 1;
}

minv_context *nct_context(void) {
    minv_options o;
    minv_context *ctx = NULL;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) {
        fprintf(stderr, "cannot create a CPU context\n");
        exit(2);
    }
    return ctx;
}
