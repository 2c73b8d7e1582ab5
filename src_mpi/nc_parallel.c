/* Variables read and written by every rank. A matrix moves as slabs of whole rows of the
 * variable as stored (contiguous in classic files, whole chunks in netCDF-4 ones), one slab a
 * rank: read by the serial reader (minv_nc_source_read_band: directly, on the rank's threads,
 * where the storage allows), or collectively through PnetCDF in bands of about
 * MINV_NC_TILE_ELEMS values; minv_mpi_redistribute (redistribute.c) moves the slabs to and from
 * the blocks of a layout. A batch moves as ranges of whole matrices. Values are checked and
 * converted by the serial reader's own code (minv_nc_source_scan, _convert), so the messages
 * are minv_invert_file's; every rank returns the same status. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nc_mpi.h"
#include "scalapack.h"

enum { TAG_BAND = 7101, TAG_MEMBERS = 7102 };

/* ---- slabs and bands ---- */

typedef struct {
    size_t first, count, per; /* rows first .. first + count - 1 of d0; per: a rank's share */
} slab;

static slab slab_of(size_t d0, size_t align, int rank, int size) {
    size_t per = (d0 + (size_t)size - 1) / (size_t)size;
    per = (per + align - 1) / align * align;
    slab s = {0, 0, per > 0 ? per : 1};
    s.first = (size_t)rank * s.per < d0 ? (size_t)rank * s.per : d0;
    s.count = d0 - s.first < s.per ? d0 - s.first : s.per;
    return s;
}

/* Bands through rank 0's serial writer: each of its direct writes has a fixed cost (NetCDF-C's
 * file closed and HDF5's opened; about 40 ms a band in the GPU pipeline, src_c/banded.c, whose
 * bands are as large), so they hold about 256 MiB; PnetCDF's, MINV_NC_TILE_ELEMS values. */
enum { WRITER_BAND_ELEMS = 32 << 20 };

/* Rows a band holds: about elems values, in whole multiples of align. */
static size_t band_rows(size_t d1, size_t align, size_t elems) {
    size_t rows = elems / (d1 > 0 ? d1 : 1);
    rows = rows / align * align;
    return rows > align ? rows : align;
}

/* The layout whose pieces are the slabs of matrix rows (C view: a P x 1 grid) or of matrix
 * columns (Fortran view: 1 x P), on the communicator of `like`. */
static minv_status slab_layout(minv_context *ctx, const minv_mpi_layout *like, size_t d0, size_t d1, minv_nc_view view,
                               size_t per, minv_mpi_layout *sl) {
    int size;
    MPI_Comm comm = minv_mpi_layout_comm(like);
    MPI_Comm_size(comm, &size);
    const int64_t D0 = (int64_t)d0, D1 = (int64_t)d1, P = (int64_t)per, B1 = d1 > 0 ? (int64_t)d1 : 1;
    if (view == MINV_NC_C_VIEW)
        return minv_mpi_layout_make(ctx, comm, D0, D1, P, B1, size, 1, sl);
    return minv_mpi_layout_make(ctx, comm, D1, D0, B1, P, 1, size, sl);
}

/* The slab's piece as a matrix in the view. */
static minv_mat slab_mat(const minv_mpi_layout *sl, minv_dtype t, void *piece) {
    return (minv_mat){t, sl->local_rows, sl->local_cols, sl->lld, piece};
}

/* start and count of rows r .. r + rows - 1 of matrix k of a variable of this rank (its leading
 * indices fixed by lead[] up to nfixed, the next one k). */
static void region(int rank, const size_t *lead, int nfixed, int64_t k, size_t r, size_t rows, size_t d1,
                   size_t *start, size_t *count) {
    const int r0 = minv_nc_row_dim(rank);
    for (int d = 0; d < r0; d++) {
        start[d] = d < nfixed ? lead[d] : (size_t)k;
        count[d] = 1;
    }
    start[r0] = r;
    count[r0] = rows;
    if (rank > 1) {
        start[r0 + 1] = 0;
        count[r0 + 1] = d1;
    }
}

/* One rank's slab is the whole matrix, stored as the layout's piece is where their leading
 * dimensions agree: the slab is then the piece itself, with no copy between them. */
static int slab_is_piece(const minv_mpi_layout *sl, const minv_mpi_layout *l) {
    int size;
    MPI_Comm_size(minv_mpi_layout_comm(l), &size);
    return size == 1 && sl->local_rows == l->local_rows && sl->local_cols == l->local_cols && sl->lld == l->lld;
}

/* ---- reading ---- */

minv_status minv_mpi_nc_in_open(minv_context *ctx, MPI_Comm comm, minv_mpi_nc_in *in, const char *path,
                                const char *var, const minv_file_options *fopts, int flags) {
    char msg[256];
    memset(in, 0, sizeof *in);
    in->comm = comm;
    in->pncid = -1;
    minv_status status = minv_mpi_agree(ctx, comm, minv_nc_source_open(ctx, &in->src, path, var, fopts, flags));
    if (status != MINV_SUCCESS)
        return status;
    /* a remote input (allow_remote) is netCDF-C's: PnetCDF reads local files */
    if (!minv_mpi_nc_collective(in->src.format) || minv_nc_is_url(path))
        return MINV_SUCCESS;
    /* a classic file has no groups, so the variable's name is its path */
    const int st = minv_mpi_pnc_open(comm, path, 0, minv_nc_base_name(var), &in->pncid, &in->pvarid, msg, sizeof msg);
    if (st != 0)
        in->pncid = -1;
    in->collective = 1;
    status = minv_mpi_agree(ctx, comm, st == 0 ? MINV_SUCCESS
                                               : minv_fail(ctx, MINV_ERR_IO, "'%s', variable '%s': PnetCDF cannot open it: %s", path, var, msg));
    if (status != MINV_SUCCESS)
        minv_mpi_nc_in_close(in);
    return status;
}

void minv_mpi_nc_in_close(minv_mpi_nc_in *in) {
    char msg[256];
    if (in->pncid >= 0)
        minv_mpi_pnc_close(in->pncid, msg, sizeof msg);
    in->pncid = -1;
    minv_nc_source_close(&in->src);
}

/* Every rank fails with the first bad entry in file order, wherever it was found. */
static minv_status fail_first_bad(minv_context *ctx, MPI_Comm comm, const minv_nc_source *s, int64_t k,
                                  const minv_nc_bad *bad) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int64_t mine = bad->kind ? (int64_t)(bad->r * s->d1 + bad->c) : INT64_MAX, first = minv_mpi_min_i64(mine, comm);
    if (first == INT64_MAX)
        return MINV_SUCCESS;
    const int owner = (int)minv_mpi_min_i64(mine == first ? rank : size, comm);
    minv_nc_bad b = *bad;
    MPI_Bcast(&b, (int)sizeof b, MPI_BYTE, owner, comm);
    return minv_nc_source_fail_bad(ctx, s, k, &b);
}

minv_status minv_mpi_nc_read(minv_context *ctx, minv_mpi_nc_in *in, int64_t k, const minv_mpi_layout *l,
                             minv_dtype t, void *local) {
    minv_nc_source *s = &in->src;
    int rank, size;
    MPI_Comm_rank(in->comm, &rank);
    MPI_Comm_size(in->comm, &size);
    const size_t d0 = s->d0, d1 = s->d1, align = s->chunked && s->chunk[0] > 0 ? s->chunk[0] : 1;
    const slab sb = slab_of(d0, align, rank, size);
    const size_t band = band_rows(d1, align, MINV_NC_TILE_ELEMS);
    minv_mpi_layout sl = {0};
    void *piece = NULL;
    double *raw = NULL;
    size_t esize = 0, start[MINV_NC_MAX_RANK], count[MINV_NC_MAX_RANK];
    minv_nc_bad bad = {0};
    char where[768], msg[256];
    nc_inq_type(s->grpid, s->xtype, NULL, &esize);
    minv_status status = slab_layout(ctx, l, d0, d1, s->view, sb.per, &sl);
    if (status != MINV_SUCCESS)
        return status;
    const int in_place = slab_is_piece(&sl, l);
    piece = in_place ? local : minv_mpi_alloc_piece(&sl, t);
    if (in->collective)
        raw = malloc(band * (d1 > 0 ? d1 : 1) * sizeof(double));
    MINV_TRY(minv_mpi_agree(ctx, in->comm, piece && (raw || !in->collective)
                                                        ? MINV_SUCCESS
                                                        : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a slab of %zu x %zu values",
                                                                    sb.count, d1)));
    minv_mat m = slab_mat(&sl, t, piece);
    minv_status local_status = MINV_SUCCESS;
    if (!in->collective) {
        /* the serial reader's band: directly on the rank's threads where the storage allows (4-8x
         * NetCDF-C's rate), its first bad entry kept for the ranks to agree on */
        if (sb.count > 0 &&
            (local_status = minv_nc_source_read_band(ctx, s, k, (int64_t)sb.first, (int64_t)sb.count, 0, &m)) == MINV_ERR_NOT_FINITE) {
            bad = s->last_bad;
            local_status = MINV_SUCCESS;
            minv_clear_error(ctx);
        }
    } else {
        const int64_t bands = minv_mpi_max_i64((int64_t)((sb.count + band - 1) / band), in->comm);
        const double t0 = minv_now();
        for (int64_t b = 0; b < bands; b++) {
            const size_t at = (size_t)b * band, rows = local_status == MINV_SUCCESS && at < sb.count
                                                           ? (sb.count - at < band ? sb.count - at : band) : 0;
            /* a rank done with its slab still joins the collective read, with nothing at the end */
            region(s->rank, s->lead, s->nlead_fixed, k, rows > 0 ? sb.first + at : d0, rows, d1, start, count);
            const int st = minv_mpi_pnc_get(in->pncid, in->pvarid, s->rank, start, count, raw, msg, sizeof msg);
            if (st != NC_NOERR && local_status == MINV_SUCCESS) {
                minv_nc_source_where(s, k, where, sizeof where);
                local_status = minv_fail(ctx, MINV_ERR_IO, "%s: reading rows %zu to %zu failed (truncated or corrupt file?): %s",
                                         where, sb.first + at, sb.first + at + rows, msg);
            }
            if (rows == 0 || st != NC_NOERR || bad.kind)
                continue;
            const size_t span[2] = {rows, d1}, into[2] = {at, 0};
            minv_nc_source_scan(s, raw, d1, sb.first + at, 0, rows, d1, 0, t == MINV_R32, 0, &bad);
            if (!bad.kind)
                minv_nc_tile_to_mat(raw, d1, into, span, s->view, &s->values, &m);
            s->bytes += (double)(rows * d1 * esize);
            s->tiles++;
            minv_progress(ctx, "read", (double)(b + 1) / (double)bands);
        }
        s->seconds += minv_now() - t0;
    }
    MINV_TRY(minv_mpi_agree(ctx, in->comm, local_status));
    MINV_TRY(fail_first_bad(ctx, in->comm, s, k, &bad));
    if (l->m > 0 && l->n > 0 && !in_place)
        MINV_TRY(minv_mpi_redistribute(ctx, t, &sl, piece, l, local));
cleanup:
    if (!in_place)
        free(piece);
    free(raw);
    minv_mpi_layout_free(&sl);
    return status;
}

minv_status minv_mpi_nc_read_members(minv_context *ctx, minv_mpi_nc_in *in, int64_t k0, int64_t count,
                                     double *disk, minv_dtype t, void *dst) {
    minv_nc_source *s = &in->src;
    if (!in->collective)
        return count > 0 ? minv_nc_source_read_matrices(ctx, s, k0, count, disk, t, dst) : MINV_SUCCESS;
    size_t start[MINV_NC_MAX_RANK], cnt[MINV_NC_MAX_RANK], esize = 0;
    char msg[256], where[768];
    region(s->rank, s->lead, s->nlead_fixed, k0, 0, s->d0, s->d1, start, cnt);
    cnt[s->nlead_fixed] = (size_t)count; /* the batch's dimension */
    nc_inq_type(s->grpid, s->xtype, NULL, &esize);
    const double t0 = minv_now();
    const int st = minv_mpi_pnc_get(in->pncid, in->pvarid, s->rank, start, cnt, disk, msg, sizeof msg);
    s->seconds += minv_now() - t0;
    if (st != 0) {
        minv_nc_source_where(s, k0, where, sizeof where);
        return minv_fail(ctx, MINV_ERR_IO, "%s: reading matrices %lld to %lld failed: %s", where, (long long)k0,
                         (long long)(k0 + count - 1), msg);
    }
    s->bytes += (double)((size_t)count * s->d0 * s->d1 * esize);
    s->batch_reads++;
    return count > 0 ? minv_nc_source_convert_matrices(ctx, s, k0, count, disk, t, dst) : MINV_SUCCESS;
}

void minv_mpi_nc_in_sum(minv_mpi_nc_in *in) {
    minv_nc_source *s = &in->src;
    MPI_Allreduce(MPI_IN_PLACE, &s->bytes, 1, MPI_DOUBLE, MPI_SUM, in->comm);
    MPI_Allreduce(MPI_IN_PLACE, &s->seconds, 1, MPI_DOUBLE, MPI_MAX, in->comm);
    MPI_Allreduce(MPI_IN_PLACE, &s->threads, 1, MPI_INT, MPI_MAX, in->comm);
    s->tiles = minv_mpi_sum_i64(s->tiles, in->comm);
    s->batch_reads = minv_mpi_sum_i64(s->batch_reads, in->comm);
    s->direct_units = minv_mpi_sum_i64(s->direct_units, in->comm);
}

void minv_mpi_nc_in_note(const minv_mpi_nc_in *in, minv_report *report) {
    const minv_nc_source *s = &in->src;
    char how[256];
    int size;
    MPI_Comm_size(in->comm, &size);
    if (!in->collective) /* each rank's slab or range by the serial reader */
        minv_nc_source_how(s, how, sizeof how);
    else if (s->batch_reads > 0)
        snprintf(how, sizeof how, "in %lld read%s of whole matrices", (long long)s->batch_reads, s->batch_reads == 1 ? "" : "s");
    else
        snprintf(how, sizeof how, "as %lld band%s of whole rows", (long long)s->tiles, s->tiles == 1 ? "" : "s");
    minv_report_note(report, "read '%s' %s by %d rank%s, %s", s->var, how, size, size == 1 ? "" : "s",
                     in->collective ? "collectively through PnetCDF" : "each by the serial reader");
}

/* ---- writing ---- */

minv_status minv_mpi_nc_out_open(minv_context *ctx, MPI_Comm comm, minv_mpi_nc_out *out, const char *path,
                                 const char *var, const minv_nc_sink_spec *spec, int64_t count) {
    char msg[256];
    memset(out, 0, sizeof *out);
    out->comm = comm;
    out->pncid = -1;
    out->sink.ncid = -1;
    MPI_Comm_rank(comm, &out->rank);
    MPI_Comm_size(comm, &out->size);
    minv_status status = MINV_SUCCESS;
    if (out->rank == 0) {
        status = minv_nc_sink_open(ctx, &out->sink, path, var, spec, count);
    } else { /* what the others need to know of the output: as minv_nc_sink_open keeps it */
        out->sink.path = path;
        out->sink.var = var;
        out->sink.spec = *spec;
        out->sink.expected = count;
        if (spec->rank == 1)
            out->sink.spec.dims[1] = minv_nc_column_dim();
    }
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS)
        return status;
    /* the temporary's name, inode and format are rank 0's (minv_nc_sink_open chose the format
     * by the serial rules: the input's, or fopts', or larger where the variable needs it), and
     * the rows of its chunks, which the ranks' slabs follow */
    unsigned long long meta[4] = {out->rank == 0 ? strlen(out->sink.out.tmp) + 1 : 0, out->sink.out.ino,
                                  (unsigned long long)out->sink.format, (unsigned long long)out->sink.row_align};
    MPI_Bcast(meta, 4, MPI_UNSIGNED_LONG_LONG, 0, comm);
    out->sink.format = (int)meta[2];
    out->sink.row_align = meta[3] > 0 ? (size_t)meta[3] : 1;
    out->tmp = malloc((size_t)meta[0]);
    if (out->tmp && out->rank == 0)
        memcpy(out->tmp, out->sink.out.tmp, (size_t)meta[0]);
    if ((status = minv_mpi_agree(ctx, comm, out->tmp ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "out of memory"))) != MINV_SUCCESS)
        goto cleanup;
    MPI_Bcast(out->tmp, (int)meta[0], MPI_CHAR, 0, comm);
    out->collective = minv_mpi_nc_collective(out->sink.format);
    if (!out->collective)
        return MINV_SUCCESS;
    MINV_TRY(minv_mpi_agree(ctx, comm, out->rank == 0 ? minv_nc_sink_suspend(ctx, &out->sink) : MINV_SUCCESS));
    /* PnetCDF (MPI-IO) opens the temporary by name, on every node: each rank checks first that
     * the name is still rank 0's regular file, not a link planted since */
    struct stat st_tmp;
    status = lstat(out->tmp, &st_tmp) == 0 && S_ISREG(st_tmp.st_mode) && (unsigned long long)st_tmp.st_ino == meta[1]
                 ? MINV_SUCCESS
                 : minv_fail(ctx, MINV_ERR_IO, "the temporary file '%s' of '%s' was replaced or removed before the ranks opened it",
                             out->tmp, path);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    const int st = minv_mpi_pnc_open(comm, out->tmp, 1, var, &out->pncid, &out->pvarid, msg, sizeof msg);
    if (st != 0)
        out->pncid = -1;
    status = minv_mpi_agree(ctx, comm, st == 0 ? MINV_SUCCESS
                                               : minv_fail(ctx, MINV_ERR_IO, "'%s' (written as '%s'): PnetCDF cannot open it: %s", path,
                                                           out->tmp, msg));
cleanup:
    if (status != MINV_SUCCESS)
        minv_mpi_nc_out_abort(out);
    return status;
}

/* Bytes of a stored value of the output. */
static size_t stored_size(const minv_nc_sink_spec *sp) {
    minv_nc_encoding e;
    return minv_nc_encoding_set(&e, sp->xtype, 0) ? e.size : sizeof(double);
}

/* Rows [at, at + rows) of a slab's matrix m: in the C view its rows (rows x d1), in the Fortran
 * view its columns (d1 x rows). */
static minv_mat slab_band(const minv_mat *m, minv_nc_view view, size_t at, size_t rows) {
    return view == MINV_NC_C_VIEW ? (minv_mat){m->dtype, (int64_t)rows, m->cols, m->ld, minv_at(m, (int64_t)at, 0)}
                                  : (minv_mat){m->dtype, m->rows, (int64_t)rows, m->ld, minv_at(m, 0, (int64_t)at)};
}

/* A band travelling to rank 0, packed: in the C view rows x d1, in the Fortran view d1 x rows. */
static minv_mat packed_band(minv_dtype t, minv_nc_view view, size_t rows, size_t d1, void *data) {
    return view == MINV_NC_C_VIEW ? (minv_mat){t, (int64_t)rows, (int64_t)d1, (int64_t)(rows > 0 ? rows : 1), data}
                                  : (minv_mat){t, (int64_t)d1, (int64_t)rows, (int64_t)(d1 > 0 ? d1 : 1), data};
}

/* Every rank's slab of matrix k, band by band in the file's order, written by rank 0's serial
 * writer (directly, on its threads, where the storage allows); the other ranks send theirs
 * through buf, one band at a time. (Receiving the next band while writing one gained nothing:
 * MPI makes no progress inside the writer.) After a failure rank 0 still takes every band. */
static minv_status through_rank0(minv_context *ctx, minv_mpi_nc_out *out, int64_t k, const minv_mat *m, size_t d0,
                                 size_t d1, size_t align, size_t band, void *buf) {
    const minv_nc_view view = out->sink.spec.view;
    const MPI_Datatype type = minv_mpi_type(m->dtype);
    minv_status status = MINV_SUCCESS;
    for (int who = 0; who < out->size; who++) {
        if (out->rank != 0 && out->rank != who)
            continue;
        const slab sw = slab_of(d0, align, who, out->size);
        for (size_t at = 0; at < sw.count; at += band) {
            const size_t rows = sw.count - at < band ? sw.count - at : band;
            const minv_mat mine = slab_band(m, view, at, rows);
            minv_mat packed = packed_band(m->dtype, view, rows, d1, buf);
            if (out->rank != 0) {
                minv_mat_copy(&mine, &packed);
                MPI_Send(buf, (int)(rows * d1), type, 0, TAG_BAND, out->comm);
                continue;
            }
            if (who != 0)
                MPI_Recv(buf, (int)(rows * d1), type, who, TAG_BAND, out->comm, MPI_STATUS_IGNORE);
            if (status == MINV_SUCCESS)
                status = minv_nc_sink_write_band(ctx, &out->sink, k, (int64_t)(sw.first + at), (int64_t)rows,
                                                 who == 0 ? &mine : &packed);
        }
    }
    return status;
}

minv_status minv_mpi_nc_write(minv_context *ctx, minv_mpi_nc_out *out, int64_t k, const minv_mpi_layout *l,
                              minv_dtype t, const void *local) {
    const minv_nc_sink_spec *sp = &out->sink.spec;
    const int r0 = minv_nc_row_dim(sp->rank);
    /* slabs of whole chunks (the writer's bands start at them) */
    const size_t d0 = sp->dims[r0].len, d1 = sp->dims[r0 + 1].len, align = out->sink.row_align;
    const slab sb = slab_of(d0, align, out->rank, out->size);
    const size_t writer_band = band_rows(d1, align, WRITER_BAND_ELEMS),
                 band = out->collective ? band_rows(d1, align, MINV_NC_TILE_ELEMS) : writer_band < sb.per ? writer_band : sb.per;
    minv_mpi_layout sl = {0};
    void *piece = NULL;
    size_t start[3], count[3], lead = (size_t)k;
    char msg[256];
    minv_status status = slab_layout(ctx, l, d0, d1, sp->view, sb.per, &sl);
    if (status != MINV_SUCCESS)
        return status;
    const int in_place = slab_is_piece(&sl, l);
    if (!in_place)
        piece = minv_mpi_alloc_piece(&sl, t);
    void *buf = minv_alloc_large(band * (d1 > 0 ? d1 : 1) * (out->collective ? sizeof(double) : (size_t)t));
    MINV_TRY(minv_mpi_agree(ctx, out->comm, (piece || in_place) && buf
                                                ? MINV_SUCCESS
                                                : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a slab of %zu x %zu values",
                                                            sb.count, d1)));
    if (l->m > 0 && l->n > 0 && !in_place)
        MINV_TRY(minv_mpi_redistribute(ctx, t, l, local, &sl, piece));
    const minv_mat m = slab_mat(&sl, t, in_place ? (void *)local : piece);
    minv_status local_status = MINV_SUCCESS;
    if (!out->collective) {
        local_status = through_rank0(ctx, out, k, &m, d0, d1, align, band, buf);
    } else { /* every rank's bands at once through PnetCDF */
        const double t0 = minv_now();
        double *raw = buf;
        const int64_t bands = minv_mpi_max_i64((int64_t)((sb.count + band - 1) / band), out->comm);
        for (int64_t b = 0; b < bands; b++) {
            const size_t at = (size_t)b * band, rows = at < sb.count ? (sb.count - at < band ? sb.count - at : band) : 0;
            const size_t into[2] = {at, 0}, span[2] = {rows, d1};
            if (rows > 0)
                minv_nc_mat_to_tile(&m, sp->view, into, span, raw, d1);
            region(sp->rank, &lead, 0, k, rows > 0 ? sb.first + at : d0, rows, d1, start, count);
            if (minv_mpi_pnc_put(out->pncid, out->pvarid, sp->rank, start, count, raw, msg, sizeof msg) != 0 &&
                local_status == MINV_SUCCESS)
                local_status = minv_fail(ctx, MINV_ERR_IO, "'%s', variable '%s': writing rows %zu to %zu failed: %s",
                                         out->sink.path, out->sink.var, sb.first + at, sb.first + at + rows, msg);
            out->sink.bytes += (double)(rows * d1 * stored_size(sp));
            out->sink.tiles += rows > 0;
        }
        out->sink.seconds += minv_now() - t0;
    }
    status = minv_mpi_agree(ctx, out->comm, local_status);
cleanup:
    free(piece);
    free(buf);
    minv_mpi_layout_free(&sl);
    return status;
}

minv_status minv_mpi_nc_write_members(minv_context *ctx, minv_mpi_nc_out *out, int64_t k0, int64_t count,
                                      minv_dtype t, const void *src, double *disk) {
    minv_nc_sink *w = &out->sink;
    const size_t per = w->spec.dims[1].len * w->spec.dims[2].len;
    char msg[256];
    if (out->collective) {
        size_t start[3] = {(size_t)k0, 0, 0}, cnt[3] = {(size_t)count, w->spec.dims[1].len, w->spec.dims[2].len};
        minv_status status = count > 0 ? minv_nc_sink_pack_matrices(ctx, w, count, src, t, disk) : MINV_SUCCESS;
        const double t0 = minv_now();
        const int st = minv_mpi_pnc_put(out->pncid, out->pvarid, 3, start, cnt, disk, msg, sizeof msg);
        w->seconds += minv_now() - t0;
        w->bytes += (double)((size_t)count * per * stored_size(&w->spec));
        w->tiles += count > 0;
        if (status == MINV_SUCCESS && st != 0)
            status = minv_fail(ctx, MINV_ERR_IO, "'%s', variable '%s': writing matrices %lld to %lld failed: %s", w->path,
                               w->var, (long long)k0, (long long)(k0 + count - 1), msg);
        return status;
    }
    /* through rank 0, rank after rank; a rank's matrices travel in its own type */
    if (out->rank != 0) {
        const int64_t head[2] = {k0, count};
        MPI_Send(head, 2, MPI_INT64_T, 0, TAG_MEMBERS, out->comm);
        if (count > 0)
            MPI_Send(src, (int)((size_t)count * per), minv_mpi_type(t), 0, TAG_MEMBERS, out->comm);
        return MINV_SUCCESS;
    }
    minv_status status = count > 0 ? minv_nc_sink_write_matrices(ctx, w, k0, count, src, t, disk) : MINV_SUCCESS;
    void *theirs = malloc((size_t)(count > 0 ? count : 1) * per * (size_t)t);
    for (int r = 1; r < out->size; r++) {
        int64_t head[2];
        MPI_Recv(head, 2, MPI_INT64_T, r, TAG_MEMBERS, out->comm, MPI_STATUS_IGNORE);
        if (head[1] == 0)
            continue;
        void *got = realloc(theirs, (size_t)head[1] * per * (size_t)t);
        theirs = got ? got : theirs;
        if (!got) { /* take the matrices one at a time: the receive must happen */
            status = status != MINV_SUCCESS ? status : minv_fail(ctx, MINV_ERR_ALLOC, "cannot hold rank %d's matrices", r);
            free(theirs);
            theirs = malloc((size_t)head[1] * per * (size_t)t);
        }
        MPI_Recv(theirs, (int)((size_t)head[1] * per), minv_mpi_type(t), r, TAG_MEMBERS, out->comm, MPI_STATUS_IGNORE);
        if (status == MINV_SUCCESS)
            status = minv_nc_sink_write_matrices(ctx, w, head[0], head[1], theirs, t, disk);
    }
    free(theirs);
    return status;
}

void minv_mpi_nc_out_sum(minv_mpi_nc_out *out) {
    minv_nc_sink *w = &out->sink;
    MPI_Allreduce(MPI_IN_PLACE, &w->bytes, 1, MPI_DOUBLE, MPI_SUM, out->comm);
    MPI_Allreduce(MPI_IN_PLACE, &w->seconds, 1, MPI_DOUBLE, MPI_MAX, out->comm);
    w->tiles = minv_mpi_sum_i64(w->tiles, out->comm);
}

void minv_mpi_nc_out_note(const minv_mpi_nc_out *out, minv_report *report) {
    const minv_nc_sink *w = &out->sink;
    char how[256];
    if (out->collective)
        snprintf(how, sizeof how, "in %lld piece%s by %d rank%s, collectively through PnetCDF", (long long)w->tiles,
                 w->tiles == 1 ? "" : "s", out->size, out->size == 1 ? "" : "s");
    else if (w->spec.rank == 3) /* a batch, through rank 0: the serial writer's */
        minv_nc_sink_how(w, how, sizeof how);
    else { /* one matrix: every rank's slab to rank 0, whose serial writer writes it (rank 0 alone
            * makes this note) */
        char serial[200];
        minv_nc_sink_how(w, serial, sizeof serial);
        snprintf(how, sizeof how, "from %d rank%s through rank 0, %s", out->size, out->size == 1 ? "" : "s", serial);
    }
    minv_nc_report_output_notes(report, w, how);
}

minv_status minv_mpi_nc_out_close(minv_context *ctx, minv_mpi_nc_out *out) {
    char msg[256];
    if (!out->collective)
        return MINV_SUCCESS;
    const int st = minv_mpi_pnc_close(out->pncid, msg, sizeof msg);
    out->pncid = -1;
    minv_status status = minv_mpi_agree(ctx, out->comm, st == 0 ? MINV_SUCCESS
                                                                : minv_fail(ctx, MINV_ERR_IO, "'%s': PnetCDF could not close it: %s",
                                                                            out->tmp, msg));
    if (status != MINV_SUCCESS)
        return status;
    return minv_mpi_agree(ctx, out->comm, out->rank == 0 ? minv_nc_sink_resume(ctx, &out->sink) : MINV_SUCCESS);
}

void minv_mpi_nc_out_abort(minv_mpi_nc_out *out) {
    char msg[256];
    if (out->pncid >= 0)
        minv_mpi_pnc_close(out->pncid, msg, sizeof msg);
    out->pncid = -1;
    if (out->rank == 0)
        minv_nc_sink_abort(&out->sink);
    free(out->tmp);
    out->tmp = NULL;
}

void minv_mpi_nc_remove_temporaries(void) { minv_nc_remove_temporaries(); }
