/* Writing a sink's matrices on all cores: each piece is gathered from the column-major matrix
 * (transposed for the C view), packed for an integer type and encoded on its own thread, then
 * stored: netCDF-4 chunks compressed here and written whole with H5Dwrite_chunk, classic
 * rows with pwrite, or tiles through NetCDF-C (its calls one at a time, in order) where the
 * storage allows neither. The commit (attributes, close, fsync, rename) is NetCDF-C's: it
 * keeps a netCDF-4 file open beside the direct path, and opens a classic one again after.
 *
 * A value the stored type cannot hold fails the write with the first such value in file
 * order. The file holds the values nc_put_vara_double would store, bit for bit. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ncio.h"

/* ---- packing: integer types store round(value / scale), in range ---- */

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

typedef struct {
    int found;
    int64_t matrix;   /* within the run */
    size_t r, c;      /* as stored: along d0, d1 */
    double value;
} bad_value;

static int comes_first(const bad_value *a, const bad_value *b) {
    if (!a->found)
        return 0;
    if (!b->found || a->matrix != b->matrix)
        return !b->found || a->matrix < b->matrix;
    return a->r < b->r || (a->r == b->r && a->c < b->c);
}

/* Rounds a row-major piece (rows ld apart) for an integer type; records its first value out
 * of range. */
static void pack(const minv_nc_sink *w, double *v, size_t ld, const size_t start[2], const size_t count[2],
                 int64_t matrix, bad_value *bad) {
    double lo, hi;
    if (!pack_range(w->spec.xtype, &lo, &hi))
        return;
    for (size_t r = 0; r < count[0]; r++)
        for (size_t c = 0; c < count[1]; c++) {
            const double x = round(v[r * ld + c] / w->spec.scale);
            if (!(x >= lo && x <= hi)) {
                const bad_value here = {1, matrix, start[0] + r, start[1] + c, v[r * ld + c]};
                if (comes_first(&here, bad))
                    *bad = here;
                return;
            }
            v[r * ld + c] = x;
        }
}

/* ---- a run of matrices and what the threads share ---- */

typedef struct {
    minv_nc_run job;
    minv_nc_sink *w;
    size_t d0, d1;
    size_t row0, rows;         /* the band of stored rows written of each matrix: all d0, or a band */
    bad_value bad;             /* the first value the type cannot hold */
    int out_of_range;          /* bad is a float's NC_ERANGE, not an integer's range */
} run;

static size_t band_end(const run *u) { return u->row0 + u->rows; }

/* Stored position start of the matrix in the run's band in memory. */
static void gather(const run *u, const minv_mat *in, const size_t start[2], const size_t count[2], double *tile,
                   size_t ld) {
    const size_t in_band[2] = {start[0] - u->row0, start[1]};
    minv_nc_mat_to_tile(in, u->w->spec.view, in_band, count, tile, ld);
}

static void merge_bad(run *u, const bad_value *b, int out_of_range) {
    if (!b->found)
        return;
#pragma omp critical(minv_nc_write_merge)
    if (comes_first(b, &u->bad)) {
        u->bad = *b;
        u->out_of_range = out_of_range;
    }
}

/* The variable's coordinates of matrix k's first value (rank entries). */
static void matrix_coords(const minv_nc_sink *w, int64_t k, size_t *coord) {
    for (int d = 0; d < w->spec.rank; d++)
        coord[d] = d < minv_nc_row_dim(w->spec.rank) ? (size_t)k : 0;
}

static int write_fully(int fd, const void *buf, size_t bytes, int64_t at) {
    errno = 0;
    for (size_t put = 0; put < bytes;) {
        ssize_t n = pwrite(fd, (const char *)buf + put, bytes - put, (off_t)(at + (int64_t)put));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        put += (size_t)n;
    }
    return 1;
}

/* ---- direct: classic rows ---- */

static void write_rows(run *u, const minv_nc_direct *d) {
    minv_nc_sink *w = u->w;
    const size_t esize = d->enc.size, row_bytes = u->d1 * esize, rows = minv_nc_unit_rows(row_bytes, u->rows);
    const int64_t blocks = (int64_t)((u->rows + rows - 1) / rows);
    u->job.units = blocks * u->job.count;
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        double *values = malloc(rows * u->d1 * sizeof *values);
        void *stored = malloc(rows * row_bytes);
        bad_value bad = {0, 0, 0, 0, 0}, range = {0, 0, 0, 0, 0};
        if (!values || !stored)
            minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate %zu rows for writing '%s'", rows, w->var);
#pragma omp for schedule(dynamic)
        for (int64_t unit = 0; unit < u->job.units; unit++) {
            if (minv_nc_run_failed(&u->job))
                continue;
            const int64_t m = unit / blocks;
            const size_t r0 = u->row0 + (size_t)(unit % blocks) * rows, nr = band_end(u) - r0 < rows ? band_end(u) - r0 : rows;
            const size_t start[2] = {r0, 0}, count[2] = {nr, u->d1};
            minv_mat in = minv_nc_run_matrix(&u->job, m);
            gather(u, &in, start, count, values, u->d1);
            pack(w, values, u->d1, start, count, m, &bad);
            const int64_t over = minv_nc_encode_values(&d->enc, values, nr * u->d1, stored);
            if (over >= 0) {
                const bad_value here = {1, m, r0 + (size_t)over / u->d1, (size_t)over % u->d1, values[over]};
                if (comes_first(&here, &range))
                    range = here;
                continue;
            }
            /* a fixed-size variable: matrix k is the (k)th of its shape's leading index */
            const int64_t at = d->begin + (int64_t)(((size_t)(u->job.k0 + m) * u->d0 + r0) * row_bytes);
            if (!write_fully(d->fd, stored, nr * row_bytes, at)) {
                minv_nc_run_fail(&u->job, MINV_ERR_IO, NC_NOERR, "'%s': writing rows %zu to %zu of '%s' failed: %s", w->path, r0,
                          r0 + nr - 1, w->var, errno ? strerror(errno) : "nothing written");
                continue;
            }
            minv_nc_run_unit_done(&u->job);
        }
        merge_bad(u, &bad, 0);
        merge_bad(u, &range, 1);
        free(values);
        free(stored);
    }
}

/* ---- in order: prepared on every thread, stored by one at a time ----
 * HDF5 and NetCDF-C take one call at a time, and chunks are stored in file order so that the
 * file does not depend on the threads. Threads claim units in order and prepare each into a
 * slot of a ring; whichever thread gets the lock stores the ready units that come next, and
 * no thread waits for its turn (a shared machine pays for spinning). */

typedef struct {
    int64_t unit;        /* the unit the slot holds once prepared; -1 while free or busy */
    int ok;              /* prepared (not skipped over a bad value or a failure) */
    void *a, *b;         /* the slot's buffers */
    const void *bytes;   /* what to store, in a or b */
    size_t size;
    size_t start[2];     /* where on disk: along d0, d1 */
    int64_t matrix;      /* within the run */
} slot;

typedef struct {
    run *u;
    const minv_nc_direct *d;  /* the direct path's chunks, or NULL for NetCDF-C's tiles */
    int window;
    slot *slots;
    int64_t next, stored;     /* units claimed; units stored (in order) */
    size_t c0, c1;            /* chunk or tile edges */
    size_t nr, nc;            /* units along d0, d1 per matrix */
} pipeline;

/* Unit k: matrix k / (nr nc), then chunks or tiles row by row. */
static void unit_place(const pipeline *p, int64_t unit, slot *sl) {
    const int64_t per = (int64_t)(p->nr * p->nc);
    sl->matrix = unit / per;
    sl->start[0] = p->u->row0 + (size_t)(unit % per) / p->nc * p->c0;
    sl->start[1] = (size_t)(unit % per) % p->nc * p->c1;
}

/* Gathers, packs and encodes unit `unit` into sl; values and stored are the thread's. */
static void prepare(pipeline *p, int64_t unit, slot *sl, double *values, bad_value *bad, bad_value *range) {
    run *u = p->u;
    minv_nc_sink *w = u->w;
    unit_place(p, unit, sl);
    const size_t count[2] = {band_end(u) - sl->start[0] < p->c0 ? band_end(u) - sl->start[0] : p->c0,
                             u->d1 - sl->start[1] < p->c1 ? u->d1 - sl->start[1] : p->c1};
    minv_mat in = minv_nc_run_matrix(&u->job, sl->matrix);
    sl->ok = 0;
    if (minv_nc_run_failed(&u->job))
        return;
    if (!p->d) { /* a tile for NetCDF-C: doubles, packed */
        double *tile = sl->a;
        bad_value mine = {0, 0, 0, 0, 0};
        gather(u, &in, sl->start, count, tile, count[1]);
        pack(w, tile, count[1], sl->start, count, sl->matrix, &mine);
        if (mine.found && comes_first(&mine, bad))
            *bad = mine;
        sl->bytes = tile;
        sl->ok = !mine.found;
        return;
    }
    const minv_nc_direct *d = p->d;
    /* doubles stored as the host holds them are gathered straight into the slot */
    const int native = d->enc.xtype == NC_DOUBLE && !d->enc.swap;
    if (native)
        values = sl->a;
    if (count[0] < p->c0 || count[1] < p->c1) /* an edge chunk: zeros beyond the variable */
        memset(values, 0, d->chunk_values * sizeof *values);
    gather(u, &in, sl->start, count, values, p->c1);
    bad_value mine = {0, 0, 0, 0, 0};
    pack(w, values, p->c1, sl->start, count, sl->matrix, &mine);
    if (mine.found) {
        if (comes_first(&mine, bad))
            *bad = mine;
        return;
    }
    const int64_t over = native ? -1 : minv_nc_encode_values(&d->enc, values, d->chunk_values, sl->a);
    if (over >= 0) {
        const bad_value here = {1, sl->matrix, sl->start[0] + (size_t)over / p->c1, sl->start[1] + (size_t)over % p->c1,
                                values[over]};
        if (comes_first(&here, range))
            *range = here;
        return;
    }
    sl->size = minv_nc_direct_encode(d, sl->a, sl->b, sl->a, minv_nc_direct_encoded_bound(d), &sl->bytes);
    if (sl->size == 0)
        minv_nc_run_fail(&u->job, MINV_ERR_INTERNAL, NC_NOERR, "'%s': compressing a chunk of '%s' failed", w->path, w->var);
    sl->ok = sl->size > 0;
}

static void store(pipeline *p, const slot *sl) {
    run *u = p->u;
    minv_nc_sink *w = u->w;
    const int r0 = minv_nc_row_dim(w->spec.rank), two = w->spec.rank > 1;
    size_t coord[MINV_NC_MAX_RANK], count[MINV_NC_MAX_RANK] = {1, 1, 1};
    matrix_coords(w, u->job.k0 + sl->matrix, coord);
    coord[r0] = sl->start[0];
    if (two)
        coord[r0 + 1] = sl->start[1];
    /* whichever thread stores: HDF5 prints nothing from it, and keeps its cause (nc_hdf5.c) */
    minv_nc_hdf5_state h5;
    minv_nc_hdf5_begin(&h5);
    if (p->d) {
        if (!minv_nc_direct_put_chunk(p->d, coord, sl->bytes, sl->size)) {
            const int cause = minv_nc_hdf5_errno();
            minv_nc_run_fail(&u->job, MINV_ERR_IO, NC_NOERR, "'%s', variable '%s': writing the chunk at entries [%zu, %zu] failed: %s",
                             w->path, w->var, sl->start[0], sl->start[1],
                             cause ? strerror(cause) : minv_nc_hdf5_message()[0] ? minv_nc_hdf5_message() : "HDF5 error");
        }
    } else {
        count[r0] = band_end(u) - sl->start[0] < p->c0 ? band_end(u) - sl->start[0] : p->c0;
        count[r0 + 1] = u->d1 - sl->start[1] < p->c1 ? u->d1 - sl->start[1] : p->c1;
        const int st = nc_put_vara_double(w->ncid, w->varid, coord, count, sl->bytes);
        if (st != NC_NOERR)
            minv_nc_run_fail(&u->job, MINV_ERR_IO, st, "'%s', variable '%s': writing entries [%zu:%zu, %zu:%zu] failed%s", w->path,
                             w->var, coord[r0], coord[r0] + count[r0], coord[r0 + 1], coord[r0 + 1] + count[r0 + 1],
                             st == NC_ERANGE ? " (a value out of the type's range)" : "");
    }
    minv_nc_hdf5_end(&h5);
}

#ifdef _OPENMP
static int64_t atomic_get(const int64_t *x) {
    int64_t v;
#pragma omp atomic read seq_cst
    v = *x;
    return v;
}

/* The slot's contents are flushed before the store that publishes them (+ 0: GCC 12 takes
 * a parameter written atomically for unused). */
static void atomic_set(int64_t *x, int64_t value) {
#pragma omp flush
#pragma omp atomic write
    *x = value + 0;
#pragma omp flush
}

/* Stores the prepared units that come next, if no other thread is storing. */
static void store_ready(pipeline *p, omp_lock_t *lock) {
    if (!omp_test_lock(lock))
        return;
    for (;;) {
        const int64_t next = atomic_get(&p->stored);
        slot *sl = &p->slots[next % p->window];
        if (next >= p->u->job.units || atomic_get(&sl->unit) != next)
            break;
        if (sl->ok && !minv_nc_run_failed(&p->u->job)) {
            store(p, sl);
            minv_nc_run_unit_done(&p->u->job);
        }
        atomic_set(&sl->unit, -1);
        atomic_set(&p->stored, next + 1);
    }
    omp_unset_lock(lock);
}
#endif

static void run_pipeline(pipeline *p, size_t a_bytes, size_t b_bytes) {
    run *u = p->u;
    const int threads = minv_nc_run_threads(&u->job);
    const size_t values_count = p->d ? p->d->chunk_values : 0;
    p->window = 2 * threads;
    p->slots = calloc((size_t)p->window, sizeof *p->slots);
    int ok = p->slots != NULL;
    for (int k = 0; ok && k < p->window; k++) {
        p->slots[k].unit = -1;
        ok = (p->slots[k].a = malloc(a_bytes)) && (!b_bytes || (p->slots[k].b = malloc(b_bytes)));
    }
    if (!ok)
        minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate %d buffers of %zu bytes for writing '%s'", p->window,
                  a_bytes + b_bytes, u->w->var);
#ifdef _OPENMP
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel num_threads(threads)
    {
        double *values = values_count ? malloc(values_count * sizeof *values) : NULL;
        bad_value bad = {0, 0, 0, 0, 0}, range = {0, 0, 0, 0, 0};
        if (values_count && !values)
            minv_nc_run_fail(&u->job, MINV_ERR_ALLOC, NC_NOERR, "cannot allocate a chunk for writing '%s'", u->w->var);
        for (;;) {
            int64_t unit;
#pragma omp atomic capture seq_cst
            unit = p->next++;
            if (unit >= u->job.units)
                break;
            /* the slot is free once the unit a window earlier is stored */
            while (atomic_get(&p->stored) <= unit - p->window && !minv_nc_run_failed(&u->job)) {
                store_ready(p, &lock);
                if (atomic_get(&p->stored) <= unit - p->window)
                    sched_yield();
            }
            slot *sl = &p->slots[unit % p->window];
            prepare(p, unit, sl, values, &bad, &range);
            atomic_set(&sl->unit, unit);
            store_ready(p, &lock);
        }
        while (atomic_get(&p->stored) < u->job.units && !minv_nc_run_failed(&u->job)) { /* the last units */
            store_ready(p, &lock);
            if (atomic_get(&p->stored) < u->job.units)
                sched_yield();
        }
        merge_bad(u, &bad, 0);
        merge_bad(u, &range, 1);
        free(values);
    }
    omp_destroy_lock(&lock);
#else
    {
        double *values = values_count ? malloc(values_count * sizeof *values) : NULL;
        bad_value bad = {0, 0, 0, 0, 0}, range = {0, 0, 0, 0, 0};
        for (int64_t unit = 0; ok && unit < u->job.units && !minv_nc_run_failed(&u->job); unit++) {
            prepare(p, unit, &p->slots[0], values, &bad, &range);
            if (p->slots[0].ok) {
                store(p, &p->slots[0]);
                minv_nc_run_unit_done(&u->job);
            }
        }
        merge_bad(u, &bad, 0);
        merge_bad(u, &range, 1);
        free(values);
    }
#endif
    for (int k = 0; p->slots && k < p->window; k++) {
        free(p->slots[k].a);
        free(p->slots[k].b);
    }
    free(p->slots);
}

/* ---- direct: whole netCDF-4 chunks ---- */

static void write_chunks(run *u, const minv_nc_direct *d) {
    const int r0 = minv_nc_row_dim(u->w->spec.rank), two = u->w->spec.rank > 1;
    pipeline p = {u, d, 0, NULL, 0, 0, d->chunk[r0], two ? d->chunk[r0 + 1] : 1, 0, 0};
    p.nr = (u->rows + p.c0 - 1) / p.c0;
    p.nc = (u->d1 + p.c1 - 1) / p.c1;
    u->job.units = (int64_t)(p.nr * p.nc) * u->job.count;
    const size_t cap = minv_nc_direct_encoded_bound(d);
    run_pipeline(&p, cap, d->nfilters ? cap : 0);
}

/* An unlimited dimension, leading or the matrix's own, grows through NetCDF-C: the run's last
 * value is written by it first, so that the dataset reaches far enough for the chunks (which
 * then replace it). */
static int grow_through_netcdf(const run *u) {
    const minv_nc_sink *w = u->w;
    const int r0 = minv_nc_row_dim(w->spec.rank);
    int grows = 0;
    for (int d = 0; d < w->spec.rank; d++)
        grows |= w->spec.dims[d].unlimited;
    if (!grows)
        return NC_NOERR;
    size_t start[3], count[3] = {1, 1, 1};
    matrix_coords(w, u->job.k0 + u->job.count - 1, start);
    start[r0] = u->d0 - 1;
    if (w->spec.rank > 1)
        start[r0 + 1] = u->d1 - 1;
    const minv_mat last = minv_nc_run_matrix(&u->job, u->job.count - 1);
    const size_t at[2] = {u->d0 - 1, u->d1 - 1}, one[2] = {1, 1};
    double value = 0; /* a band without the last row: a placeholder, which its chunk replaces */
    bad_value bad = {0, 0, 0, 0, 0};
    if (band_end(u) == u->d0)
        gather(u, &last, at, one, &value, 1);
    pack(w, &value, 1, at, one, 0, &bad);
    return bad.found ? NC_NOERR : nc_put_vara_double(w->ncid, w->varid, start, count, &value);
}

/* The direct writer for a run, on the variable opened in d (NetCDF-C has closed the file): 1
 * when it wrote (or failed: u->job says so), 0 when NetCDF-C must write the run. */
static int write_opened(run *u, minv_nc_direct *d) {
    minv_nc_sink *w = u->w;
    const int r0 = minv_nc_row_dim(w->spec.rank), two = w->spec.rank > 1;
    for (int r = 0; r < r0 && d->kind == MINV_NC_DIRECT_CHUNKED; r++)
        if (d->chunk[r] != 1) {
            snprintf(d->why_not, sizeof d->why_not, "its chunks span several matrices");
            return 0;
        }
    if (d->kind == MINV_NC_DIRECT_CONTIGUOUS) {
        write_rows(u, d);
        return 1;
    }
    if (d->kind != MINV_NC_DIRECT_CHUNKED)
        return 0;
    /* the disk must say no before HDF5 writes: HDF5 1.10 cannot close a file after
     * H5Dwrite_chunk met a full disk (it crashed at exit). Room for the chunks at their
     * largest, their index and some metadata, mostly reserved already when the sink opened
     * (nc_output.c); asked again here for a file size limit or a disk filled meanwhile. */
    const size_t c1 = two ? d->chunk[r0 + 1] : 1;
    const size_t chunks = (u->rows + d->chunk[r0] - 1) / d->chunk[r0] * ((u->d1 + c1 - 1) / c1) * (size_t)u->job.count;
    const minv_status room = minv_nc_output_reserve(u->job.ctx, &w->out, chunks * (minv_nc_direct_encoded_bound(d) + 64) + ((size_t)64 << 10));
    if (room != MINV_SUCCESS) {
        u->job.status = room;
        u->job.stop = 1;
    } else {
        write_chunks(u, d);
    }
    if (w->chunk_note[0] == '\0')
        snprintf(w->chunk_note, sizeof w->chunk_note, "as %s%zu x %zu chunks", d->nfilters ? "deflated " : "",
                 d->chunk[r0], c1);
    return 1;
}

/* 1 when the direct path wrote the run (or failed: u->job and u->bad say how it went); 0
 * when NetCDF-C must write it (nothing was written). A netCDF-4 file stays open in NetCDF-C:
 * HDF5 shares it with the direct path's second opening (closing and opening it again would
 * cost the 1.3 kB that NetCDF-C keeps of every netCDF-4 file it opens). A classic file is
 * closed first, as NetCDF-C's buffers could write over the rows, and opened again after. */
static int write_direct(run *u) {
    minv_nc_sink *w = u->w;
    if (w->direct_off)
        return 0;
    const int beside = w->format == NC_FORMAT_NETCDF4 || w->format == NC_FORMAT_NETCDF4_CLASSIC;
    int st = grow_through_netcdf(u);
    if (st == NC_NOERR && !minv_nc_var_identify(&w->id, w->out.open_path, w->ncid, w->varid, w->format))
        st = NC_EBADID; /* the shape as grown, for the dataset's check */
    if (st == NC_NOERR && !beside && (st = nc_close(w->ncid)) == NC_NOERR)
        w->ncid = -1; /* a failed close leaves the id open: the sink's abort takes it */
    if (st != NC_NOERR) {
        minv_nc_run_fail(&u->job, MINV_ERR_IO, st, "'%s': preparing variable '%s' for writing failed", w->path, w->var);
        return 1;
    }
    minv_nc_direct d;
    minv_nc_direct_open(&d, &w->id, 1);
    const int wrote = write_opened(u, &d);
    if (wrote)
        w->direct_units += u->job.units;
    else {
        w->direct_off = 1;
        snprintf(w->why_not, sizeof w->why_not, "%s", d.why_not);
    }
    if (u->job.stop) /* the output is given up: what HDF5 still flushes goes to memory, where a
                        full disk cannot fail it (nc_output.c) */
        minv_nc_output_release(&w->out);
    minv_nc_direct_close(&d);
    if (u->job.stop)
        return 1;
    if (beside)
        return wrote;
    st = nc_open(w->out.open_path, NC_WRITE, &w->ncid);
    if (st != NC_NOERR) {
        w->ncid = -1;
        minv_nc_run_fail(&u->job, MINV_ERR_IO, st, "'%s': opening the new file (written first as '%s') again failed", w->path,
                         w->out.tmp);
        return 1;
    }
    return wrote;
}

/* ---- through NetCDF-C: tiles prepared in parallel, stored in order ---- */

static void write_tiles(run *u) {
    minv_nc_sink *w = u->w;
    pipeline p = {u, NULL, 0, NULL, 0, 0, w->tile[0], w->tile[1], 0, 0};
    p.nr = (u->rows + p.c0 - 1) / p.c0;
    p.nc = (u->d1 + p.c1 - 1) / p.c1;
    u->job.units = (int64_t)(p.nr * p.nc) * u->job.count;
    run_pipeline(&p, w->tile[0] * w->tile[1] * sizeof(double), 0);
    w->tiles += u->job.units;
}

/* ---- the entry points ---- */

/* The first value the stored type cannot hold. */
static minv_status fail_bad(const run *u) {
    const minv_nc_sink *w = u->w;
    if (u->out_of_range)
        return minv_fail(u->job.ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': %g at [%zu, %zu] (0-based, as stored) is out of the range of %s",
                         w->path, w->var, u->bad.value, u->bad.r, u->bad.c, minv_nc_type_name(w->spec.xtype));
    return minv_fail(u->job.ctx, MINV_ERR_INVALID_ARG, "'%s', variable '%s': %g at [%zu, %zu] (0-based, as stored) does not fit %s with scale %g",
                     w->path, w->var, u->bad.value, u->bad.r, u->bad.c, minv_nc_type_name(w->spec.xtype), w->spec.scale);
}

static minv_status finish(run *u, double t0) {
    minv_nc_sink *w = u->w;
    minv_nc_encoding e;
    w->seconds += minv_now() - t0;
    if (u->bad.found)
        return fail_bad(u);
    if (u->job.stop)
        return u->job.status;
    minv_nc_run_end(&u->job);
    w->bytes += (double)((size_t)u->job.count * u->rows * u->d1 * (minv_nc_encoding_set(&e, w->spec.xtype, 0) ? e.size : 8));
    return MINV_SUCCESS;
}

static void run_start(run *u, minv_context *ctx, minv_nc_sink *w, int64_t k0, int64_t count, minv_mat first,
                      size_t stride) {
    const int r0 = minv_nc_row_dim(w->spec.rank);
    memset(u, 0, sizeof *u);
    u->job = (minv_nc_run){ctx, "write", k0, count, first, stride, (double)k0 / (double)w->expected,
                           (double)count / (double)w->expected, 0, 0, &w->threads, 0, MINV_SUCCESS};
    u->w = w;
    u->d0 = w->spec.dims[r0].len;
    u->d1 = w->spec.dims[r0 + 1].len;
    u->rows = u->d0;
}

minv_status minv_nc_sink_write(minv_context *ctx, minv_nc_sink *w, int64_t k, const minv_mat *m) {
    run u;
    const double t0 = minv_now();
    run_start(&u, ctx, w, k, 1, *m, 0);
    if (!write_direct(&u) && !u.job.stop)
        write_tiles(&u);
    return finish(&u, t0);
}

minv_status minv_nc_sink_write_band(minv_context *ctx, minv_nc_sink *w, int64_t k, int64_t row0, int64_t rows,
                                    const minv_mat *m) {
    run u;
    const double t0 = minv_now();
    run_start(&u, ctx, w, k, 1, *m, 0);
    if (row0 < 0 || rows < 1 || (size_t)(row0 + rows) > u.d0 || (size_t)row0 % w->row_align ||
        ((size_t)rows % w->row_align && (size_t)(row0 + rows) != u.d0))
        return minv_fail(ctx, MINV_ERR_INTERNAL, "'%s', variable '%s': the band of rows %lld to %lld does not align with the %zu-row chunks",
                         w->path, w->var, (long long)row0, (long long)(row0 + rows - 1), w->row_align);
    u.row0 = (size_t)row0;
    u.rows = (size_t)rows;
    u.job.base += u.job.span * (double)row0 / (double)u.d0;
    u.job.span *= (double)rows / (double)u.d0;
    if (!write_direct(&u) && !u.job.stop)
        write_tiles(&u);
    return finish(&u, t0);
}

/* The run's matrices into disk, in the stored order and packed, in parallel. */
static void pack_matrices(run *u, double *disk) {
    const size_t elems = u->d0 * u->d1;
    u->job.units = u->job.count;
#pragma omp parallel num_threads(minv_nc_run_threads(&u->job))
    {
        bad_value bad = {0, 0, 0, 0, 0};
        const size_t origin[2] = {0, 0}, whole[2] = {u->d0, u->d1};
#pragma omp for schedule(dynamic)
        for (int64_t m = 0; m < u->job.count; m++) {
            minv_mat in = minv_nc_run_matrix(&u->job, m);
            minv_nc_mat_to_tile(&in, u->w->spec.view, origin, whole, disk + (size_t)m * elems, u->d1);
            pack(u->w, disk + (size_t)m * elems, u->d1, origin, whole, m, &bad);
        }
        merge_bad(u, &bad, 0);
    }
}

/* The matrices of a batch output as stored (rows x cols each in the spec's view). */
static minv_mat batch_first(const minv_nc_sink *w, minv_dtype t, const void *src) {
    const minv_nc_sink_spec *sp = &w->spec;
    const int64_t rows = (int64_t)(sp->view == MINV_NC_C_VIEW ? sp->dims[1].len : sp->dims[2].len);
    const int64_t cols = (int64_t)(sp->view == MINV_NC_C_VIEW ? sp->dims[2].len : sp->dims[1].len);
    return (minv_mat){t, rows, cols, rows, (void *)src};
}

minv_status minv_nc_sink_pack_matrices(minv_context *ctx, minv_nc_sink *w, int64_t count, const void *src,
                                       minv_dtype t, double *disk) {
    run u;
    run_start(&u, ctx, w, 0, count, batch_first(w, t, src), w->spec.dims[1].len * w->spec.dims[2].len * (size_t)t);
    pack_matrices(&u, disk);
    return u.bad.found ? fail_bad(&u) : MINV_SUCCESS;
}

minv_status minv_nc_sink_write_matrices(minv_context *ctx, minv_nc_sink *w, int64_t k0,
                                        int64_t count, const void *src, minv_dtype t, double *disk) {
    const minv_nc_sink_spec *sp = &w->spec;
    const size_t d0 = sp->dims[1].len, d1 = sp->dims[2].len, elems = d0 * d1;
    const double t0 = minv_now();
    run u;
    run_start(&u, ctx, w, k0, count, batch_first(w, t, src), elems * (size_t)t);
    if (write_direct(&u) || u.job.stop)
        return finish(&u, t0);
    /* the matrices prepared in parallel, then one call for the run */
    pack_matrices(&u, disk);
    if (!u.bad.found) {
        size_t start[3] = {(size_t)k0, 0, 0}, cnt[3] = {(size_t)count, d0, d1};
        const int st = nc_put_vara_double(w->ncid, w->varid, start, cnt, disk);
        if (st != NC_NOERR)
            minv_nc_run_fail(&u.job, MINV_ERR_IO, st, "'%s', variable '%s': writing matrices %lld to %lld failed%s", w->path, w->var,
                      (long long)k0, (long long)(k0 + count - 1), st == NC_ERANGE ? " (a value out of the type's range)" : "");
        w->tiles += count;
    }
    return finish(&u, t0);
}
