/* Reading a source's matrices on all cores: the stored values fetched directly (pread of
 * contiguous rows or of whole chunks, inflated and unshuffled here) where nc_direct.c can
 * reach them, else through NetCDF-C tile by tile (its calls one at a time, under the lock);
 * either way each piece is checked, unpacked and put in place (transposed for the C view) in
 * one pass over cache-sized blocks while other threads fetch the next pieces.
 *
 * A missing or invalid value fails the read with the first bad entry in file order, whatever
 * order the threads met them in. The values are those NetCDF-C gives, bit for bit. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "ncio.h"

enum { PLACE_ROWS = 32, PLACE_COLS = 256 }; /* a block scanned then stored while in L1/L2 */

/* ---- what a value is ---- */

typedef enum { OK = 0, IS_NAN, IS_INF, IS_FILL, IS_MISSING, IS_INVALID, TOO_BIG } value_kind;

static value_kind classify(const minv_nc_values *v, double x, int single) {
    x = minv_nc_stored(v, x);
    if (v->has_fill && (x == v->fill || (isnan(x) && isnan(v->fill))))
        return IS_FILL;
    for (int m = 0; m < v->nmissing; m++)
        if (x == v->missing[m])
            return IS_MISSING;
    if (isnan(x))
        return IS_NAN;
    if (isinf(x))
        return IS_INF;
    if (x < v->valid_min || x > v->valid_max)
        return IS_INVALID;
    if (single && fabs(x * v->scale + v->offset) > FLT_MAX)
        return TOO_BIG;
    return OK;
}

typedef minv_nc_bad bad_entry;

/* 1 when a is a bad entry that comes before b in file order. */
static int comes_first(const bad_entry *a, const bad_entry *b) {
    if (a->kind == OK)
        return 0;
    if (b->kind == OK || a->matrix != b->matrix)
        return b->kind == OK || a->matrix < b->matrix;
    return a->r < b->r || (a->r == b->r && a->c < b->c);
}

minv_status minv_nc_source_fail_bad(minv_context *ctx, const minv_nc_source *s, int64_t k, const minv_nc_bad *b) {
    char where[768], what[256];
    const minv_nc_values *v = &s->values;
    minv_nc_source_where(s, k, where, sizeof where);
    switch (b->kind) {
    case IS_FILL:
        if (v->fill_is_default)
            snprintf(what, sizeof what, "is the default fill value %.10g of %s: a missing (never written) entry",
                     b->value, minv_nc_type_name(s->xtype));
        else
            snprintf(what, sizeof what, "is the _FillValue %.10g: a missing entry", b->value);
        break;
    case IS_MISSING: snprintf(what, sizeof what, "is the missing_value %.10g: a missing entry", b->value); break;
    case IS_NAN: snprintf(what, sizeof what, "is NaN"); break;
    case IS_INF: snprintf(what, sizeof what, "is %s", b->value > 0 ? "+Inf" : "-Inf"); break;
    case IS_INVALID:
        snprintf(what, sizeof what, "= %.10g is outside the valid range [%.10g, %.10g]", b->value, v->valid_min, v->valid_max);
        break;
    default:
        snprintf(what, sizeof what, "= %g does not fit in single precision (compute in double)",
                 b->value * v->scale + v->offset);
        break;
    }
    if (s->rank == 1)
        return minv_fail(ctx, MINV_ERR_NOT_FINITE, "%s: entry %zu (1-based; the first bad one) %s", where, b->r + 1, what);
    /* b is in the stored order (ncdump's) */
    const size_t i = s->named == MINV_NC_C_VIEW ? b->r : b->c, j = s->named == MINV_NC_C_VIEW ? b->c : b->r;
    return minv_fail(ctx, MINV_ERR_NOT_FINITE, "%s: entry (%zu, %zu) (row, column, 1-based; the first bad one in file order) %s",
                     where, i + 1, j + 1, what);
}

/* ---- checked, unpacked and put in place, block by block ---- */

/* A cheap screen first: a value inside the finite valid range that is no fill or missing value
 * needs no closer look, and that is nearly every value. */
void minv_nc_source_scan(const minv_nc_source *s, const double *x, size_t ld, size_t r0, size_t c0, size_t rows,
                         size_t cols, int keep_nonfinite, int single, int64_t matrix, minv_nc_bad *bad) {
    const minv_nc_values *v = &s->values;
    const double lo = fmax(v->valid_min, -DBL_MAX), hi = fmin(v->valid_max, DBL_MAX);
    const double fill = v->has_fill ? v->fill : NAN; /* NaN equals nothing; NaN values fail the range */
    int suspect = v->wrap != 0; /* unsigned bits: every value classified as what it means */
    for (size_t r = 0; r < rows && !suspect; r++) {
        const double *row = x + r * ld;
        size_t c = 0;
#if defined(__SSE2__)
        /* two values at a time: not >= lo, not <= hi (NaN is neither), or the fill value */
        const __m128d vlo = _mm_set1_pd(lo), vhi = _mm_set1_pd(hi), vfill = _mm_set1_pd(fill);
        __m128d any = _mm_setzero_pd();
        for (; c + 1 < cols; c += 2) {
            const __m128d v = _mm_loadu_pd(row + c);
            any = _mm_or_pd(any, _mm_or_pd(_mm_or_pd(_mm_cmpnge_pd(v, vlo), _mm_cmpnle_pd(v, vhi)), _mm_cmpeq_pd(v, vfill)));
        }
        suspect |= _mm_movemask_pd(any);
#endif
        for (; c < cols; c++)
            suspect |= !(row[c] >= lo && row[c] <= hi) || row[c] == fill;
    }
    for (int m = 0; m < v->nmissing && !suspect; m++)
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                suspect |= x[r * ld + c] == v->missing[m];
    for (size_t r = 0; single && !suspect && r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            suspect |= !(fabs(x[r * ld + c] * v->scale + v->offset) <= FLT_MAX);
    if (!suspect)
        return;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++) {
            const value_kind kind = classify(v, x[r * ld + c], single);
            if (kind == OK || (keep_nonfinite && (kind == IS_NAN || kind == IS_INF)))
                continue;
            const bad_entry here = {kind, matrix, r0 + r, c0 + c, minv_nc_stored(v, x[r * ld + c])};
            if (comes_first(&here, bad))
                *bad = here;
            return;
        }
}

/* A row-major piece of doubles (rows ld apart) at start of the matrix on disk into m, which
 * holds the band of disk rows from row0 on. */
static void place(const minv_nc_source *s, const double *piece, size_t ld, const size_t start[2],
                  const size_t count[2], size_t row0, int keep_nonfinite, int64_t matrix, minv_mat *m,
                  bad_entry *bad) {
    const int single = m->dtype == MINV_R32;
    for (size_t r0 = 0; r0 < count[0]; r0 += PLACE_ROWS)
        for (size_t c0 = 0; c0 < count[1]; c0 += PLACE_COLS) {
            const size_t at[2] = {start[0] + r0, start[1] + c0}, in_band[2] = {at[0] - row0, at[1]};
            const size_t size[2] = {count[0] - r0 < PLACE_ROWS ? count[0] - r0 : PLACE_ROWS,
                                    count[1] - c0 < PLACE_COLS ? count[1] - c0 : PLACE_COLS};
            const double *block = piece + r0 * ld + c0;
            minv_nc_source_scan(s, block, ld, at[0], at[1], size[0], size[1], keep_nonfinite, single, matrix, bad);
            minv_nc_tile_to_mat(block, ld, in_band, size, s->view, &s->values, m);
        }
}

/* ---- a run of matrices and what the threads share ---- */

typedef struct {
    minv_nc_run job;
    minv_nc_source *s;
    int keep_nonfinite;
    bad_entry bad;             /* the first bad entry */
    size_t row0, rows;         /* the band of disk rows read of each matrix: all d0, or a band */
} run;

/* The band's end along d0. */
static size_t band_end(const run *u) { return u->row0 + u->rows; }

static void merge_bad(run *u, const bad_entry *b) {
    if (b->kind == OK)
        return;
#pragma omp critical(minv_nc_read_merge)
    if (comes_first(b, &u->bad))
        u->bad = *b;
}

/* The leading coordinates of matrix k (those before the row dimension). */
static void matrix_coords(const minv_nc_source *s, int64_t k, size_t *coord) {
    for (int d = 0; d < minv_nc_row_dim(s->rank); d++)
        coord[d] = d < s->nlead_fixed ? s->lead[d] : (size_t)k;
}

/* ---- direct: contiguous rows ---- */

static void read_contiguous(run *u) {
    const minv_nc_source *s = u->s;
    const minv_nc_direct *d = &s->direct;
    const size_t esize = d->enc.size, row_bytes = s->d1 * esize, rows = minv_nc_unit_rows(row_bytes, u->rows);
    /* rows of a record variable over its record dimension are a record apart: the other record
     * variables' parts of each record lie between them */
    const int64_t row_step = d->record && minv_nc_row_dim(s->rank) == 0 ? d->record_bytes : (int64_t)row_bytes;
    const int64_t blocks = (int64_t)((u->rows + rows - 1) / rows);
    /* value strides of the variable's own dimensions, a record dimension left out */
    size_t stride[MINV_NC_MAX_RANK];
    stride[s->rank - 1] = 1;
    for (int r = s->rank - 2; r >= 0; r--)
        stride[r] = stride[r + 1] * s->dims[r + 1].len;
    u->job.units = blocks * u->job.count;
    const int native = d->enc.xtype == NC_DOUBLE && !d->enc.swap;
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        double *values = malloc(rows * s->d1 * sizeof *values);
        void *raw = native ? (void *)values : malloc(rows * row_bytes);
        bad_entry bad = {OK, 0, 0, 0, 0};
        if (!values || !raw)
            minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate %zu rows for reading '%s'", rows, s->var);
#pragma omp for schedule(dynamic)
        for (int64_t unit = 0; unit < u->job.units; unit++) {
            if (minv_nc_run_failed(&u->job))
                continue;
            const int64_t m = unit / blocks;
            const size_t r0 = u->row0 + (size_t)(unit % blocks) * rows, nr = band_end(u) - r0 < rows ? band_end(u) - r0 : rows;
            size_t coord[MINV_NC_MAX_RANK];
            matrix_coords(s, u->job.k0 + m, coord);
            int64_t at = d->begin;
            for (int r = 0; r < minv_nc_row_dim(s->rank); r++)
                at += r == 0 && d->record ? (int64_t)coord[0] * d->record_bytes : (int64_t)(coord[r] * stride[r] * esize);
            at += (int64_t)r0 * row_step;
            /* adjacent rows in one read, else a read per row */
            const size_t reads = row_step == (int64_t)row_bytes ? 1 : nr, each = nr / reads * row_bytes;
            int ok = 1;
            for (size_t r = 0; r < reads && ok; r++)
                ok = minv_nc_read_fully(d->fd, (unsigned char *)raw + r * each, each, at + (int64_t)r * row_step);
            if (!ok) {
                minv_nc_run_fail(&u->job, MINV_ERR_IO, NC_NOERR, "'%s', variable '%s': reading rows %zu to %zu failed (truncated file?): %s",
                          s->path, s->var, r0, r0 + nr - 1, errno ? strerror(errno) : "end of file");
                continue;
            }
            minv_nc_decode_values(&d->enc, raw, nr * s->d1, values);
            minv_mat out = minv_nc_run_matrix(&u->job, m);
            const size_t start[2] = {r0, 0}, count[2] = {nr, s->d1};
            place(s, values, s->d1, start, count, u->row0, u->keep_nonfinite, m, &out, &bad);
            minv_nc_run_unit_done(&u->job);
        }
        merge_bad(u, &bad);
        if (raw != (void *)values)
            free(raw);
        free(values);
    }
}

/* ---- direct: whole chunks ---- */

typedef struct {
    size_t chunk_coord[MINV_NC_MAX_RANK]; /* the chunk's first value */
    size_t i, j;                          /* its place in the matrix's grid of chunks */
    int64_t first, last;                  /* the run's matrices it holds */
    minv_nc_chunk where;
} chunk_unit;

/* Fails the run at chunk c: "<where>: the chunk from entry I along ROW and J along COL
 * (<base>) <what>". */
static void fail_chunk(run *u, const chunk_unit *c, const char *what) {
    const minv_nc_source *s = u->s;
    const int r0 = minv_nc_row_dim(s->rank), two = s->rank > 1;
    const size_t b = (size_t)s->index_base;
    char where[768];
    minv_nc_source_where(s, c->first, where, sizeof where);
    minv_nc_run_fail(&u->job, MINV_ERR_IO, NC_NOERR, "%s: the chunk from entry %zu along %s and %zu along %s (%s) %s", where,
                     c->chunk_coord[r0] + b, s->dims[r0].name, (two ? c->chunk_coord[r0 + 1] : 0) + b, s->dims[r0 + 1].name,
                     minv_nc_base_label(s->index_base), what);
}

/* The chunks of the run, found through HDF5 on this thread: 1; 0 when one of them was never
 * written or the run lies past the dataset's extent (NetCDF-C then supplies fill values); -1,
 * the run failed, when a chunk's record cannot be true. */
static int plan_chunks(run *u, chunk_unit **out, int64_t *nout, size_t *max_bytes) {
    const minv_nc_source *s = u->s;
    const minv_nc_direct *d = &s->direct;
    const int r0 = minv_nc_row_dim(s->rank), two = s->rank > 1;
    const size_t c0 = d->chunk[r0], c1 = two ? d->chunk[r0 + 1] : 1;
    const size_t i0 = u->row0 / c0, i1 = (band_end(u) + c0 - 1) / c0, nc = (s->d1 + c1 - 1) / c1;
    size_t coord[MINV_NC_MAX_RANK];
    matrix_coords(s, u->job.k0, coord);
    for (int r = 0; r < r0; r++)
        if (coord[r] >= d->extent[r])
            return 0;
    if (s->d0 > d->extent[r0] || (two && s->d1 > d->extent[r0 + 1]))
        return 0;
    /* along a batch's dimension, chunks may hold several matrices */
    const int bd = s->batch ? s->nlead_fixed : -1;
    const size_t cb = bd >= 0 ? d->chunk[bd] : 1;
    const int64_t last = u->job.k0 + u->job.count - 1;
    if (bd >= 0 && (size_t)last >= d->extent[bd])
        return 0;
    const int64_t kb0 = bd >= 0 ? u->job.k0 / (int64_t)cb : 0, kb1 = bd >= 0 ? last / (int64_t)cb : 0;
    const int64_t total = (kb1 - kb0 + 1) * (int64_t)((i1 - i0) * nc);
    chunk_unit *units = malloc((size_t)total * sizeof *units);
    if (!units)
        return 0;
    int64_t n = 0;
    *max_bytes = 0;
    for (int64_t kb = kb0; kb <= kb1; kb++)
        for (size_t i = i0; i < i1; i++)
            for (size_t j = 0; j < nc; j++, n++) {
                chunk_unit *c = &units[n];
                for (int r = 0; r < r0; r++)
                    c->chunk_coord[r] = r == bd ? (size_t)kb * cb : coord[r] - coord[r] % d->chunk[r];
                c->chunk_coord[r0] = i * c0;
                if (two)
                    c->chunk_coord[r0 + 1] = j * c1;
                c->i = i;
                c->j = j;
                c->first = bd >= 0 ? (kb * (int64_t)cb > u->job.k0 ? kb * (int64_t)cb : u->job.k0) : u->job.k0;
                c->last = bd >= 0 ? ((kb + 1) * (int64_t)cb - 1 < last ? (kb + 1) * (int64_t)cb - 1 : last) : last;
                const int found = minv_nc_direct_find_chunk(d, c->chunk_coord, &c->where);
                if (found < 0) {
                    char what[160];
                    snprintf(what, sizeof what,
                             "is recorded as %zu bytes, more than its values can take or past the file's end (corrupt file?)",
                             c->where.bytes);
                    fail_chunk(u, c, what);
                }
                if (found <= 0) {
                    free(units);
                    return found;
                }
                if (c->where.bytes > *max_bytes)
                    *max_bytes = c->where.bytes;
            }
    *out = units;
    *nout = n;
    return 1;
}

static void read_chunks(run *u, const chunk_unit *units, size_t max_bytes) {
    const minv_nc_source *s = u->s;
    const minv_nc_direct *d = &s->direct;
    const int r0 = minv_nc_row_dim(s->rank), two = s->rank > 1;
    const size_t c0 = d->chunk[r0], c1 = two ? d->chunk[r0 + 1] : 1, esize = d->enc.size;
    const size_t stored = d->chunk_values * esize;
    /* value strides inside a chunk */
    size_t cstride[MINV_NC_MAX_RANK];
    cstride[d->rank - 1] = 1;
    for (int r = d->rank - 2; r >= 0; r--)
        cstride[r] = cstride[r + 1] * d->chunk[r + 1];
    const int native = d->enc.xtype == NC_DOUBLE && !d->enc.swap;
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        void *raw = malloc(max_bytes), *work = malloc(stored), *decoded = malloc(stored);
        double *values = native ? NULL : malloc(c0 * c1 * sizeof *values);
        bad_entry bad = {OK, 0, 0, 0, 0};
        if (!raw || !work || !decoded || (!native && !values))
            minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate buffers of %zu bytes for the chunks of '%s'", stored, s->var);
#pragma omp for schedule(dynamic)
        for (int64_t n = 0; n < u->job.units; n++) {
            if (minv_nc_run_failed(&u->job))
                continue;
            const chunk_unit *c = &units[n];
            void *plain = NULL;
            unsigned mask = 0;
            if (!minv_nc_direct_read_chunk(d, c->chunk_coord, &c->where, raw, &mask) ||
                !minv_nc_direct_decode(d, mask, raw, c->where.bytes, work, decoded, &plain)) {
                fail_chunk(u, c, "cannot be read or decompressed (truncated or corrupt file?)");
                continue;
            }
            /* the chunk's rows within the band (a chunk may straddle two bands) */
            const size_t top = c->i * c0 > u->row0 ? c->i * c0 : u->row0;
            const size_t bottom = (c->i + 1) * c0 < band_end(u) ? (c->i + 1) * c0 : band_end(u);
            const size_t start[2] = {top, c->j * c1};
            const size_t count[2] = {bottom - top, s->d1 - start[1] < c1 ? s->d1 - start[1] : c1};
            for (int64_t k = c->first; k <= c->last; k++) {
                size_t coord[MINV_NC_MAX_RANK], plane = 0;
                matrix_coords(s, k, coord);
                for (int r = 0; r < r0; r++)
                    plane += (coord[r] - c->chunk_coord[r]) * cstride[r];
                const unsigned char *first = (const unsigned char *)plain + (plane + (top - c->i * c0) * c1) * esize;
                const double *piece = (const double *)first;
                size_t ld = c1;
                if (!native) {
                    for (size_t r = 0; r < count[0]; r++)
                        minv_nc_decode_values(&d->enc, first + r * c1 * esize, count[1], values + r * count[1]);
                    piece = values;
                    ld = count[1];
                }
                minv_mat out = minv_nc_run_matrix(&u->job, k - u->job.k0);
                place(s, piece, ld, start, count, u->row0, u->keep_nonfinite, k - u->job.k0, &out, &bad);
            }
            minv_nc_run_unit_done(&u->job);
        }
        merge_bad(u, &bad);
        free(raw);
        free(work);
        free(decoded);
        free(values);
    }
}

/* 1 when the direct path read the run (u->job.status, u->bad say how it went); 0 when NetCDF-C
 * must read it (nothing was read). */
static int read_direct(run *u) {
    minv_nc_source *s = u->s;
    if (s->direct.kind == MINV_NC_DIRECT_CONTIGUOUS) {
        read_contiguous(u);
        s->direct_units += u->job.units;
        return 1;
    }
    if (s->direct.kind != MINV_NC_DIRECT_CHUNKED)
        return 0;
    chunk_unit *units = NULL;
    size_t max_bytes = 0;
    const int planned = plan_chunks(u, &units, &u->job.units, &max_bytes);
    if (planned < 0)
        return 1;
    if (!planned) {
        snprintf(s->direct.why_not, sizeof s->direct.why_not, "a chunk was never written (fill values)");
        s->direct.kind = MINV_NC_DIRECT_NONE;
        minv_nc_direct_close(&s->direct);
        return 0;
    }
    read_chunks(u, units, max_bytes);
    s->direct_units += u->job.units;
    free(units);
    return 1;
}

/* ---- through NetCDF-C: tiles, its calls one at a time ---- */

static void read_tiles(run *u) {
    minv_nc_source *s = u->s;
    const int r0 = minv_nc_row_dim(s->rank);
    const size_t bands = (u->rows + s->tile[0] - 1) / s->tile[0], across = (s->d1 + s->tile[1] - 1) / s->tile[1];
    u->job.units = (int64_t)(bands * across);
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        double *tile = malloc(s->tile[0] * s->tile[1] * sizeof *tile);
        bad_entry bad = {OK, 0, 0, 0, 0};
        if (!tile)
            minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate a %zu x %zu tile for reading '%s'", s->tile[0], s->tile[1], s->var);
#pragma omp for schedule(dynamic)
        for (int64_t t = 0; t < u->job.units; t++) {
            if (minv_nc_run_failed(&u->job))
                continue;
            size_t start[MINV_NC_MAX_RANK] = {0}, count[MINV_NC_MAX_RANK];
            matrix_coords(s, u->job.k0, start);
            for (int d = 0; d < r0; d++)
                count[d] = 1;
            start[r0] = u->row0 + (size_t)t / across * s->tile[0];
            start[r0 + 1] = (size_t)t % across * s->tile[1];
            count[r0] = band_end(u) - start[r0] < s->tile[0] ? band_end(u) - start[r0] : s->tile[0];
            count[r0 + 1] = s->d1 - start[r0 + 1] < s->tile[1] ? s->d1 - start[r0 + 1] : s->tile[1];
            int st;
#pragma omp critical(minv_netcdf)
            { /* on any thread: HDF5 prints nothing from it, and keeps its cause (nc_hdf5.c) */
                minv_nc_hdf5_state h5;
                minv_nc_hdf5_begin(&h5);
                st = nc_get_vara_double(s->grpid, s->varid, start, count, tile);
                minv_nc_hdf5_end(&h5);
            }
            if (st != NC_NOERR) {
                char where[768];
                const size_t b = (size_t)s->index_base;
                minv_nc_source_where(s, u->job.k0, where, sizeof where);
                minv_nc_run_fail(&u->job, MINV_ERR_IO, st,
                                 "%s: reading entries %zu to %zu along %s and %zu to %zu along %s (%s) failed (truncated or corrupt file?)",
                                 where, start[r0] + b, start[r0] + count[r0] - 1 + b, s->dims[r0].name, start[r0 + 1] + b,
                                 start[r0 + 1] + count[r0 + 1] - 1 + b, s->dims[r0 + 1].name, minv_nc_base_label(s->index_base));
                continue;
            }
            minv_mat out = minv_nc_run_matrix(&u->job, 0);
            place(s, tile, count[r0 + 1], start + r0, count + r0, u->row0, u->keep_nonfinite, 0, &out, &bad);
            minv_nc_run_unit_done(&u->job);
        }
        merge_bad(u, &bad);
        free(tile);
    }
    s->tiles += u->job.units;
}

/* ---- the entry points ---- */

static minv_status finish(run *u, double t0) {
    minv_nc_source *s = u->s;
    s->seconds += minv_now() - t0;
    s->last_bad = u->bad;
    if (u->job.stop)
        return u->job.status;
    minv_nc_run_end(&u->job);
    s->bytes += (double)((size_t)u->job.count * u->rows * s->d1 * s->esize);
    if (u->bad.kind != OK)
        return minv_nc_source_fail_bad(u->job.ctx, s, u->job.k0 + u->bad.matrix, &u->bad);
    return MINV_SUCCESS;
}

minv_status minv_nc_source_read(minv_context *ctx, minv_nc_source *s, int64_t k,
                                int keep_nonfinite, minv_mat *m) {
    run u = {{ctx, "read", k, 1, *m, 0, (double)k / (double)s->count, 1 / (double)s->count, 0, 0, &s->threads, 0,
              MINV_SUCCESS},
             s, keep_nonfinite, {OK, 0, 0, 0, 0}, 0, s->d0};
    const double t0 = minv_now();
    if (!read_direct(&u))
        read_tiles(&u);
    return finish(&u, t0);
}

minv_status minv_nc_source_read_band(minv_context *ctx, minv_nc_source *s, int64_t k, int64_t row0, int64_t rows,
                                     int keep_nonfinite, minv_mat *m) {
    run u = {{ctx, "read", k, 1, *m, 0, (double)k / (double)s->count, 1 / (double)s->count, 0, 0, &s->threads, 0,
              MINV_SUCCESS},
             s, keep_nonfinite, {OK, 0, 0, 0, 0}, (size_t)row0, (size_t)rows};
    const double t0 = minv_now();
    u.job.base += u.job.span * (double)row0 / (double)s->d0;
    u.job.span *= (double)rows / (double)s->d0;
    if (!read_direct(&u))
        read_tiles(&u);
    return finish(&u, t0);
}

/* The run's matrices, read whole into disk (count d0 d1 values as stored), checked and placed
 * in parallel. */
static void place_matrices(run *u, const double *disk) {
    const minv_nc_source *s = u->s;
    const size_t elems = s->d0 * s->d1;
    u->job.units = u->job.count;
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        bad_entry bad = {OK, 0, 0, 0, 0};
        const size_t origin[2] = {0, 0}, whole[2] = {s->d0, s->d1};
#pragma omp for schedule(dynamic)
        for (int64_t m = 0; m < u->job.count; m++) {
            minv_mat out = minv_nc_run_matrix(&u->job, m);
            place(s, disk + (size_t)m * elems, s->d1, origin, whole, 0, 0, m, &out, &bad);
        }
        merge_bad(u, &bad);
    }
}

minv_status minv_nc_source_read_matrices(minv_context *ctx, minv_nc_source *s, int64_t k0,
                                         int64_t count, double *disk, minv_dtype t, void *dst) {
    const size_t elems = s->d0 * s->d1;
    run u = {{ctx, "read", k0, count, {t, s->rows, s->cols, s->rows, dst}, elems * (size_t)t, (double)k0 / (double)s->count,
              (double)count / (double)s->count, 0, 0, &s->threads, 0, MINV_SUCCESS},
             s, 0, {OK, 0, 0, 0, 0}, 0, s->d0};
    const double t0 = minv_now();
    if (read_direct(&u)) {
        s->batch_reads++;
        return finish(&u, t0);
    }
    /* one call for the whole run, then the matrices checked and placed in parallel */
    size_t start[MINV_NC_MAX_RANK] = {0}, cnt[MINV_NC_MAX_RANK];
    const int r0 = minv_nc_row_dim(s->rank);
    matrix_coords(s, k0, start);
    for (int d = 0; d < r0; d++)
        cnt[d] = d < s->nlead_fixed ? 1 : (size_t)count;
    cnt[r0] = s->d0;
    cnt[r0 + 1] = s->d1;
    int st = nc_get_vara_double(s->grpid, s->varid, start, cnt, disk);
    if (st != NC_NOERR) {
        char where[768];
        minv_nc_source_where(s, k0, where, sizeof where);
        s->seconds += minv_now() - t0;
        return minv_nc_fail(ctx, st, "%s: reading matrices %lld to %lld (%s) failed (truncated or corrupt file?)", where,
                            (long long)k0 + s->index_base, (long long)(k0 + count - 1) + s->index_base,
                            minv_nc_base_label(s->index_base));
    }
    place_matrices(&u, disk);
    s->batch_reads++;
    return finish(&u, t0);
}

minv_status minv_nc_source_convert_matrices(minv_context *ctx, minv_nc_source *s, int64_t k0, int64_t count,
                                            const double *disk, minv_dtype t, void *dst) {
    run u = {{ctx, "read", k0, count, {t, s->rows, s->cols, s->rows, dst}, s->d0 * s->d1 * (size_t)t, 0, 0, 0, 0,
              &s->threads, 0, MINV_SUCCESS},
             s, 0, {OK, 0, 0, 0, 0}, 0, s->d0};
    place_matrices(&u, disk);
    return u.bad.kind != OK ? minv_nc_source_fail_bad(ctx, s, k0 + u.bad.matrix, &u.bad) : MINV_SUCCESS;
}
