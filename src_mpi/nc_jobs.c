/* The file routines of minv_mpi.h: argument checks and defaults (the serial entry points'),
 * the floating-point guard and the NetCDF lock, and the jobs: one matrix read into a layout,
 * inverted or solved by minv_mpi_invert / minv_mpi_solve and written from it; a batch dealt to
 * the ranks in ranges of whole matrices, each range inverted by minv's batches in chunks. The
 * outputs carry the serial jobs' attributes and history (minv_nc_invert_commit,
 * minv_nc_solve_commit, on rank 0) and the report is rank 0's, the same everywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc_mpi.h"

/* ---- the call's frame ---- */

typedef struct {
    minv_fpguard guard;
} frame;

/* The context to this thread (agreed over comm), the FP guard, a clean error, the NetCDF lock;
 * a call refused (another thread inside one on some rank's context) does not reach end. */
static minv_status begin(minv_context *ctx, MPI_Comm comm, frame *f, minv_report *r, minv_method method) {
    minv_report_init(r, method, 0, 0);
    const minv_status status = minv_mpi_enter(ctx, comm);
    if (status != MINV_SUCCESS) {
        minv_report_note(r, "refused: %s", minv_status_string(status));
        return status;
    }
    minv_fpguard_begin(&f->guard);
    minv_clear_error(ctx);
    minv_nc_lock();
    return MINV_SUCCESS;
}

static void end(minv_context *ctx, frame *f) {
    minv_nc_unlock();
    minv_fpguard_end(&f->guard);
    minv_mpi_leave(ctx);
}

static minv_status check_method(minv_context *ctx, const char *fn, minv_method m) {
    if ((int)m < 0 || (int)m >= MINV_METHOD_COUNT)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: method = %d is not a minv_method", fn, (int)m);
    return MINV_SUCCESS;
}

/* The layout of an n x n matrix, blocks of MINV_OPT_BLOCK_SIZE (0: chosen). */
static minv_status square_layout(minv_context *ctx, MPI_Comm comm, int64_t n, minv_mpi_layout *l) {
    double nb = 0;
    minv_get_option(ctx, MINV_OPT_BLOCK_SIZE, &nb);
    return minv_mpi_layout_create(ctx, comm, n, n, (int64_t)nb, 0, 0, l);
}

/* The read and write stages over every rank, before the commit writes them as attributes. */
static void sum_stages(minv_mpi_nc_in *const *ins, int nins, minv_mpi_nc_out *out, minv_report *r) {
    const minv_nc_source *src[2];
    for (int i = 0; i < nins; i++) {
        minv_mpi_nc_in_sum(ins[i]);
        src[i] = &ins[i]->src;
    }
    minv_mpi_nc_out_sum(out);
    minv_nc_report_stages(r, src, nins, &out->sink, 0);
}

/* Rank 0's report, its write stage through the commit, with the notes on reading and writing,
 * to every rank. */
static void finish_report(MPI_Comm comm, minv_mpi_nc_in *const *ins, int nins, minv_mpi_nc_out *out,
                          minv_report *r, double commit_seconds) {
    r->stages.write_seconds += commit_seconds;
    for (int i = 0; i < nins; i++) minv_mpi_nc_in_note(ins[i], r);
    if (out->rank == 0)
        minv_mpi_nc_out_note(out, r);
    MPI_Bcast(r, (int)sizeof *r, MPI_BYTE, 0, comm);
}

/* ---- inversion ---- */

static minv_status invert_one(minv_context *ctx, MPI_Comm comm, minv_method method, minv_dtype t, minv_mpi_nc_in *in,
                              minv_mpi_nc_out *out, minv_nc_records *p, minv_report *r) {
    minv_mpi_layout l = {0};
    void *a = NULL, *x = NULL;
    char where[768];
    minv_status status = square_layout(ctx, comm, in->src.rows, &l);
    if (status != MINV_SUCCESS)
        return status;
    a = minv_mpi_alloc_piece(&l, t);
    x = minv_mpi_alloc_piece(&l, t);
    MINV_TRY(minv_mpi_agree(ctx, comm, a && x ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a %lld x %lld piece",
                                                                            (long long)l.local_rows, (long long)l.local_cols)));
    MINV_TRY(minv_mpi_nc_read(ctx, in, 0, &l, t, a));
    status = t == MINV_R64 ? minv_mpi_invert_d(ctx, method, &l, a, x, r) : minv_mpi_invert_s(ctx, method, &l, a, x, r);
    if (status != MINV_SUCCESS) {
        minv_nc_source_where(&in->src, 0, where, sizeof where);
        minv_nc_fail_at(ctx, status, where);
        goto cleanup;
    }
    p->residual[0] = r->residual;
    p->rcond[0] = r->rcond;
    p->method[0] = r->method;
    p->backend[0] = r->backend;
    MINV_TRY(minv_mpi_nc_write(ctx, out, 0, &l, t, x));
cleanup:
    free(a);
    free(x);
    minv_mpi_layout_free(&l);
    return status;
}

/* Every member's records to rank 0, in global order (this rank's first at `first`). */
static void gather_records(MPI_Comm comm, const minv_nc_records *mine, int64_t first, int64_t count, minv_nc_records *all) {
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int *counts = malloc((size_t)size * sizeof(int)), *displs = malloc((size_t)size * sizeof(int));
    int n = (int)count, at = (int)first;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    MPI_Gather(&at, 1, MPI_INT, displs, 1, MPI_INT, 0, comm);
    MPI_Gatherv(mine->residual, n, MPI_DOUBLE, all->residual, counts, displs, MPI_DOUBLE, 0, comm);
    MPI_Gatherv(mine->rcond, n, MPI_DOUBLE, all->rcond, counts, displs, MPI_DOUBLE, 0, comm);
    MPI_Gatherv(mine->method, n, MPI_INT, all->method, counts, displs, MPI_INT, 0, comm);
    MPI_Gatherv(mine->backend, n, MPI_INT, all->backend, counts, displs, MPI_INT, 0, comm);
    free(counts);
    free(displs);
}

/* A batch: each rank inverts a range of count / P matrices (one more on the first count % P
 * ranks), in the serial layer's chunks of whole matrices (fopts->batch_chunk, else as many as
 * MINV_NC_BATCH_ELEMS values hold) read, inverted in place by minv's batches and written; all
 * ranks move in step, one chunk at a time. */
static minv_status invert_batch(minv_context *ctx, MPI_Comm comm, minv_method method, minv_dtype t,
                                const minv_file_options *fo, minv_mpi_nc_in *in, minv_mpi_nc_out *out,
                                minv_nc_records *all, minv_report *r) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int64_t n = in->src.rows, count = in->src.count, base = count / size, extra = count % size;
    const int64_t mine = base + (rank < extra), first = rank * base + (rank < extra ? rank : extra);
    minv_nc_chunks c = {0};
    double *disk = NULL; /* a chunk as on disk: the serial one's, or one matrix's where that has none */
    minv_nc_records own = {0};
    minv_batch_report br = {0};
    /* this rank's sums over its chunks: seconds, flops, then the upload, compute and download
     * stages (seconds, bytes) */
    double sums[9] = {0};
    int32_t fallbacks = 0, device = -1;
    char where[768], why[256];
    /* the serial layer's chunks over this rank's range (at least one matrix, for the ranks with
     * none); a matrix larger than its budget comes whole all the same, a chunk of one */
    minv_status status = minv_nc_chunks_alloc(ctx, &c, fo, t, n, mine > 0 ? mine : 1);
    if (status == MINV_SUCCESS && !(disk = c.whole ? c.disk : minv_alloc_large((size_t)(n * n) * sizeof(double))))
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a matrix of order %lld", (long long)n);
    if (status == MINV_SUCCESS)
        status = minv_nc_records_alloc(ctx, &own, mine > 0 ? mine : 1);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    const int64_t chunk = c.chunk, steps = minv_mpi_max_i64((mine + chunk - 1) / chunk, comm);
    for (int64_t step = 0; step < steps; step++) {
        const int64_t k0 = first + step * chunk, cnt = step * chunk < mine ? (mine - step * chunk < chunk ? mine - step * chunk : chunk) : 0;
        MINV_TRY(minv_mpi_agree(ctx, comm, minv_mpi_nc_read_members(ctx, in, k0, cnt, disk, t, c.a)));
        status = MINV_SUCCESS;
        if (cnt > 0 && (status = minv_invert_batched_results(ctx, method, t, n, cnt, c.a, &c.res, &br)) != MINV_SUCCESS) {
            const int64_t bad = k0 + (br.first_failed >= 0 ? br.first_failed : 0);
            if (br.first_failed >= 0) {
                minv_batch_member_reason(why, sizeof why, br.first_status, br.first_info);
                minv_fail(ctx, status, "%s", why);
            }
            minv_nc_source_where(&in->src, bad, where, sizeof where);
            minv_nc_fail_at(ctx, status, where);
        }
        MINV_TRY(minv_mpi_agree(ctx, comm, status));
        const minv_method general = minv_nc_batch_general(br.backend, method);
        for (int64_t m = 0; m < cnt; m++) {
            const int64_t at = step * chunk + m;
            own.residual[at] = c.res.residual[m];
            own.rcond[at] = c.res.rcond[m];
            own.method[at] = c.res.spd[m] ? MINV_METHOD_CHOLESKY : general;
            own.backend[at] = br.backend;
        }
        if (cnt > 0) {
            const double chunk_sums[9] = {br.seconds, br.flops, br.stages.upload_seconds, br.stages.compute_seconds,
                                          br.stages.download_seconds, br.stages.upload_bytes, br.stages.download_bytes};
            for (int k = 0; k < 9; k++) sums[k] += chunk_sums[k];
            fallbacks |= br.fallbacks;
            device = br.device;
        }
        MINV_TRY(minv_mpi_agree(ctx, comm, minv_mpi_nc_write_members(ctx, out, k0, cnt, t, c.a, disk)));
    }
    gather_records(comm, &own, first, mine, all);

    /* the report: rank 0's last chunk for the method's notes, the batch's figures */
    r->n = n;
    r->residual_kind = br.residual_kind;
    snprintf(r->reason, sizeof r->reason, "%s", br.reason);
    /* seconds: the slowest rank's (the ranks work at once); flops and bytes: all ranks' */
    double most[5], total[7];
    MPI_Allreduce(sums, most, 5, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(sums, total, 7, MPI_DOUBLE, MPI_SUM, comm);
    r->seconds = most[0];
    r->flops = total[1];
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
    r->stages.upload_seconds = most[2];
    r->stages.compute_seconds = most[3];
    r->stages.download_seconds = most[4];
    r->stages.upload_bytes = total[5];
    r->stages.download_bytes = total[6];
    MPI_Allreduce(MPI_IN_PLACE, &fallbacks, 1, MPI_INT32_T, MPI_BOR, comm);
    r->fallbacks = fallbacks;
    r->device = device; /* rank 0's, as the report is */
    r->matrices = count;
    if (rank == 0) {
        int64_t worst = 0;
        r->method = (minv_method)all->method[0];
        r->backend = (minv_backend)all->backend[0];
        for (int64_t k = 0; k < count; k++) {
            if (all->residual[k] > all->residual[worst])
                worst = k;
            if (all->rcond[k] >= 0 && (r->rcond < 0 || all->rcond[k] < r->rcond))
                r->rcond = all->rcond[k];
            if (all->method[k] != all->method[0])
                r->method = MINV_METHOD_AUTO;
        }
        r->residual = all->residual[worst];
        r->worst = worst;
        minv_report_note(r, "batch: %lld matrices over %d rank%s in chunks of up to %lld, the largest residual is matrix %lld's (%s)",
                         (long long)count, size, size == 1 ? "" : "s", (long long)chunk,
                         (long long)worst + in->src.index_base, minv_nc_base_label(in->src.index_base));
    }
cleanup:
    if (!c.whole)
        free(disk);
    minv_nc_chunks_free(&c);
    minv_nc_records_free(&own);
    return status;
}

minv_status minv_mpi_invert_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                 const char *in_path, const char *in_var, const char *out_path,
                                 const char *out_var, const minv_file_options *fopts,
                                 minv_report *report) {
    static const char fn[] = "minv_mpi_invert_file";
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local, *r = report ? report : &local;
    minv_file_options fo;
    minv_mpi_nc_in in = {.src.ncid = -1, .pncid = -1};
    minv_mpi_nc_out out = {.pncid = -1, .sink.ncid = -1};
    minv_nc_records p = {0};
    char name[NC_MAX_NAME + 1];
    int rank;
    frame f;
    MPI_Comm_rank(comm, &rank);
    minv_status status = begin(ctx, comm, &f, r, method);
    if (status != MINV_SUCCESS)
        return status;
    status = check_method(ctx, fn, method);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 4, "in_path", in_path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 5, "in_var", in_var, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 6, "out_path", out_path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 7, "out_var", out_var, 1);
    if (status == MINV_SUCCESS) status = minv_nc_check_fopts(ctx, fn, 8, fopts, &fo);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    const minv_dtype t = fo.precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    if (!out_var || !out_var[0]) {
        snprintf(name, sizeof name, "%.*s_inv", NC_MAX_NAME - 4, minv_nc_base_name(in_var));
        out_var = name;
    }
    MINV_TRY(minv_mpi_nc_in_open(ctx, comm, &in, in_path, in_var, &fo, MINV_NC_ALLOW_BATCH));
    MINV_TRY(minv_mpi_agree(ctx, comm, minv_nc_check_square(ctx, &in.src)));
    minv_nc_units units;
    const minv_nc_sink_spec spec = minv_nc_invert_spec(&in.src, t, &fo, &in_path, &units);
    MINV_TRY(minv_mpi_nc_out_open(ctx, comm, &out, out_path, out_var, &spec, in.src.count));
    MINV_TRY(minv_mpi_agree(ctx, comm, minv_nc_records_alloc(ctx, &p, in.src.count)));
    if (in.src.batch) {
        MINV_TRY(invert_batch(ctx, comm, method, t, &fo, &in, &out, &p, r));
    } else {
        MINV_TRY(invert_one(ctx, comm, method, t, &in, &out, &p, r));
    }
    MINV_TRY(minv_mpi_nc_out_close(ctx, &out));
    minv_mpi_nc_in *const ins[] = {&in};
    sum_stages(ins, 1, &out, r);
    const double committing = minv_now();
    MINV_TRY(minv_mpi_agree(ctx, comm, rank == 0 ? minv_nc_invert_commit(ctx, &out.sink, &in.src, in_path, in_var,
                                                                          out_var, &p, r)
                                                 : MINV_SUCCESS));
    finish_report(comm, ins, 1, &out, r, minv_now() - committing);
cleanup:
    minv_mpi_nc_out_abort(&out);
    minv_mpi_nc_in_close(&in);
    minv_nc_records_free(&p);
    end(ctx, &f);
    return status;
}

/* ---- solve ---- */

minv_status minv_mpi_solve_file(minv_context *ctx, MPI_Comm comm, minv_method method,
                                const char *a_path, const char *a_var, const char *b_path,
                                const char *b_var, const char *x_path, const char *x_var,
                                const minv_file_options *fopts, minv_report *report) {
    static const char fn[] = "minv_mpi_solve_file";
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report local, *r = report ? report : &local;
    minv_file_options fo;
    const char *inputs[2] = {a_path, b_path};
    minv_mpi_nc_in as = {.src.ncid = -1, .pncid = -1}, bs = {.src.ncid = -1, .pncid = -1};
    minv_mpi_nc_out out = {.pncid = -1, .sink.ncid = -1};
    minv_mpi_layout la = {0}, lb = {0};
    void *a = NULL, *b = NULL, *x = NULL;
    char where[768], both[1600];
    int rank;
    frame f;
    MPI_Comm_rank(comm, &rank);
    minv_status status = begin(ctx, comm, &f, r, method);
    if (status != MINV_SUCCESS)
        return status;
    status = check_method(ctx, fn, method);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 4, "a_path", a_path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 5, "a_var", a_var, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 6, "b_path", b_path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 7, "b_var", b_var, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 8, "x_path", x_path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 9, "x_var", x_var, 1);
    if (status == MINV_SUCCESS) status = minv_nc_check_fopts(ctx, fn, 10, fopts, &fo);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    const minv_dtype t = fo.precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    if (!x_var || !x_var[0])
        x_var = "X";
    MINV_TRY(minv_mpi_nc_in_open(ctx, comm, &as, a_path, a_var, &fo, 0));
    MINV_TRY(minv_mpi_agree(ctx, comm, minv_nc_check_square(ctx, &as.src)));
    const int64_t n = as.src.rows;
    MINV_TRY(minv_mpi_nc_in_open(ctx, comm, &bs, b_path, b_var, &fo, MINV_NC_SLICE_IF_RANKED | MINV_NC_ALLOW_VECTOR));
    MINV_TRY(minv_mpi_agree(ctx, comm, minv_nc_orient_rhs(ctx, &bs.src, n, &fo)));
    const int64_t nrhs = bs.src.cols;
    minv_nc_units units;
    const minv_nc_sink_spec spec = minv_nc_solve_spec(&as.src, &bs.src, t, &fo, inputs, &units);
    MINV_TRY(minv_mpi_nc_out_open(ctx, comm, &out, x_path, x_var, &spec, 1));
    MINV_TRY(square_layout(ctx, comm, n, &la));
    MINV_TRY(minv_mpi_layout_like(ctx, &la, n, nrhs, &lb));
    a = minv_mpi_alloc_piece(&la, t);
    b = minv_mpi_alloc_piece(&lb, t);
    x = minv_mpi_alloc_piece(&lb, t);
    MINV_TRY(minv_mpi_agree(ctx, comm, a && b && x ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the pieces of A, B and X")));
    MINV_TRY(minv_mpi_nc_read(ctx, &as, 0, &la, t, a));
    MINV_TRY(minv_mpi_nc_read(ctx, &bs, 0, &lb, t, b));
    status = t == MINV_R64 ? minv_mpi_solve_d(ctx, method, &la, a, &lb, b, x, r) : minv_mpi_solve_s(ctx, method, &la, a, &lb, b, x, r);
    if (status != MINV_SUCCESS) {
        minv_nc_source_where(&as.src, 0, where, sizeof where);
        snprintf(both, sizeof both, "A = %s, B = '%s', variable '%s'", where, b_path, b_var);
        minv_nc_fail_at(ctx, status, both);
        goto cleanup;
    }
    MINV_TRY(minv_mpi_nc_write(ctx, &out, 0, &lb, t, x));
    MINV_TRY(minv_mpi_nc_out_close(ctx, &out));
    minv_mpi_nc_in *const ins[] = {&as, &bs};
    sum_stages(ins, 2, &out, r);
    const double committing = minv_now();
    MINV_TRY(minv_mpi_agree(ctx, comm, rank == 0 ? minv_nc_solve_commit(ctx, &out.sink, &as.src, &bs.src, a_path, a_var,
                                                                         b_path, b_var, x_var, nrhs, r)
                                                 : MINV_SUCCESS));
    finish_report(comm, ins, 2, &out, r, minv_now() - committing);
cleanup:
    free(a);
    free(b);
    free(x);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
    minv_mpi_nc_out_abort(&out);
    minv_mpi_nc_in_close(&as);
    minv_mpi_nc_in_close(&bs);
    end(ctx, &f);
    return status;
}

/* ---- one matrix in, one out ---- */

/* begin, for a call on layout l; one that is not a layout has no ranks to agree with. */
static minv_status begin_on(minv_context *ctx, const char *fn, const minv_mpi_layout *l, frame *f, minv_report *r) {
    minv_status status = begin(ctx, l && l->internal ? minv_mpi_layout_comm(l) : MPI_COMM_NULL, f, r, MINV_METHOD_AUTO);
    if (status == MINV_SUCCESS && (!l || !l->internal)) {
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 2 (layout) is not a layout", fn);
        end(ctx, f);
    }
    return status;
}

static minv_status read_piece(minv_context *ctx, const char *fn, const minv_mpi_layout *l, const char *path,
                              const char *var, const minv_file_options *fopts, minv_dtype t, void *local) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report ignored;
    frame f;
    minv_status status = begin_on(ctx, fn, l, &f, &ignored);
    if (status != MINV_SUCCESS)
        return status;
    MPI_Comm comm = minv_mpi_layout_comm(l);
    minv_file_options fo;
    minv_mpi_nc_in in = {.src.ncid = -1, .pncid = -1};
    status = minv_nc_check_name(ctx, fn, 3, "path", path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 4, "var", var, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_fopts(ctx, fn, 5, fopts, &fo);
    if (status == MINV_SUCCESS && !local && l->local_rows * l->local_cols > 0)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 6 (local) is NULL", fn);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    MINV_TRY(minv_mpi_nc_in_open(ctx, comm, &in, path, var, &fo, MINV_NC_ALLOW_VECTOR));
    if (in.src.rows != l->m || in.src.cols != l->n) {
        status = minv_fail(ctx, MINV_ERR_SHAPE, "%s: '%s', variable '%s' holds a %lld x %lld matrix, the layout %lld x %lld", fn,
                           path, var, (long long)in.src.rows, (long long)in.src.cols, (long long)l->m, (long long)l->n);
        goto cleanup;
    }
    status = minv_mpi_nc_read(ctx, &in, 0, l, t, local);
cleanup:
    minv_mpi_nc_in_close(&in);
    end(ctx, &f);
    return status;
}

minv_status minv_mpi_read_d(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, double *local) {
    return read_piece(ctx, "minv_mpi_read_d", layout, path, var, fopts, MINV_R64, local);
}

minv_status minv_mpi_read_s(minv_context *ctx, const minv_mpi_layout *layout, const char *path,
                            const char *var, const minv_file_options *fopts, float *local) {
    return read_piece(ctx, "minv_mpi_read_s", layout, path, var, fopts, MINV_R32, local);
}

static minv_status write_piece(minv_context *ctx, const char *fn, const minv_mpi_layout *l, const void *local,
                               const char *path, const char *var, const char *const dims[2],
                               const minv_file_options *fopts, minv_dtype t) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_report ignored;
    frame f;
    minv_status status = begin_on(ctx, fn, l, &f, &ignored);
    if (status != MINV_SUCCESS)
        return status;
    MPI_Comm comm = minv_mpi_layout_comm(l);
    minv_file_options fo;
    minv_mpi_nc_out out = {.pncid = -1, .sink.ncid = -1};
    char history[1024];
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    status = minv_nc_check_name(ctx, fn, 4, "path", path, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_name(ctx, fn, 5, "var", var, 0);
    if (status == MINV_SUCCESS) status = minv_nc_check_fopts(ctx, fn, 7, fopts, &fo);
    if (status == MINV_SUCCESS && !local && l->local_rows * l->local_cols > 0)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 3 (local) is NULL", fn);
    MINV_TRY(minv_mpi_agree(ctx, comm, status));
    /* the matrix's rows over dims[0]; on disk a Fortran view stores columns first */
    const int f_view = fo.fortran_order == 1;
    minv_nc_dim rows = {"row", (size_t)l->m, 0}, cols = {"column", (size_t)l->n, 0};
    if (dims && dims[0])
        snprintf(rows.name, sizeof rows.name, "%s", dims[0]);
    if (dims && dims[1])
        snprintf(cols.name, sizeof cols.name, "%s", dims[1]);
    /* with no input to follow, a new file is netCDF-4 unless fopts asks for another format */
    minv_nc_sink_spec spec = {.rank = 2, .xtype = t == MINV_R64 ? NC_DOUBLE : NC_FLOAT,
                              .input_format = NC_FORMAT_NETCDF4, .format = fo.format,
                              .deflate_level = fo.deflate_level, .overwrite = fo.overwrite, .scale = 1,
                              .view = f_view ? MINV_NC_FORTRAN_VIEW : MINV_NC_C_VIEW};
    spec.dims[0] = f_view ? cols : rows;
    spec.dims[1] = f_view ? rows : cols;
    MINV_TRY(minv_mpi_nc_out_open(ctx, comm, &out, path, var, &spec, 1));
    MINV_TRY(minv_mpi_nc_write(ctx, &out, 0, l, t, local));
    MINV_TRY(minv_mpi_nc_out_close(ctx, &out));
    snprintf(history, sizeof history, "minv %s: %s written by %d rank%s (%s)", minv_version(), var, size,
             size == 1 ? "" : "s", fn);
    status = minv_mpi_agree(ctx, comm, rank == 0 ? minv_nc_sink_commit(ctx, &out.sink, NULL, 0, history) : MINV_SUCCESS);
cleanup:
    minv_mpi_nc_out_abort(&out);
    end(ctx, &f);
    return status;
}

minv_status minv_mpi_write_d(minv_context *ctx, const minv_mpi_layout *layout, const double *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts) {
    return write_piece(ctx, "minv_mpi_write_d", layout, local, path, var, dims, fopts, MINV_R64);
}

minv_status minv_mpi_write_s(minv_context *ctx, const minv_mpi_layout *layout, const float *local,
                             const char *path, const char *var, const char *const dims[2],
                             const minv_file_options *fopts) {
    return write_piece(ctx, "minv_mpi_write_s", layout, local, path, var, dims, fopts, MINV_R32);
}
