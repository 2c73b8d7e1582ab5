/* The rebalance of a distributed batch: members are dealt to the ranks by cost in their global
 * order (rank q computes the members whose cost midpoint falls in the q-th P-th of the total,
 * a contiguous range). The members a rank keeps are computed where they lie; only the others
 * move, by one all-to-all, and their results and statuses come back by another, so that a
 * batch already near balance moves little. A member costs k^3 (at least 1, so that members of
 * order 0 spread by count). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Counts and displacements of one all-to-all, per rank, in its unit. */
typedef struct {
    int *count, *displ;
} plan;

/* From int64 counts; 0 when a count or the total exceeds what MPI's int counts hold. */
static int plan_make(plan *p, const int64_t *count, int size, int64_t *total) {
    int64_t at = 0;
    p->count = malloc((size_t)size * sizeof(int));
    p->displ = malloc((size_t)size * sizeof(int));
    if (!p->count || !p->displ)
        return 0;
    for (int q = 0; q < size; q++) {
        if (count[q] > INT_MAX || at > INT_MAX)
            return 0;
        p->count[q] = (int)count[q];
        p->displ[q] = (int)at;
        at += count[q];
    }
    if (total)
        *total = at;
    return at <= INT_MAX;
}

static void plan_free(plan *p) {
    free(p->count);
    free(p->displ);
}

static double member_cost(int64_t k) {
    const double c = (double)k * (double)k * (double)k;
    return c > 1 ? c : 1;
}

static int64_t in_elems(const minv_mpi_batch *bt, int64_t k) { return k * k + (bt->solve ? k * bt->nrhs : 0); }
static int64_t out_elems(const minv_mpi_batch *bt, int64_t k) { return bt->solve ? k * bt->nrhs : k * k; }

/* Between a member and a packed column-major block (leading dimension = rows). */
static void pack(const minv_mat *m, void *dst) {
    const size_t es = (size_t)m->dtype, col = (size_t)m->rows * es;
    for (int64_t j = 0; j < m->cols; j++)
        memcpy((char *)dst + (size_t)j * col, (const char *)m->data + (size_t)j * (size_t)m->ld * es, col);
}

static void unpack(const void *src, minv_mat *m) {
    const size_t es = (size_t)m->dtype, col = (size_t)m->rows * es;
    for (int64_t j = 0; j < m->cols; j++)
        memcpy((char *)m->data + (size_t)j * (size_t)m->ld * es, (const char *)src + (size_t)j * col, col);
}

/* Where each own member goes: rank floor((cost before it + its cost / 2) / total * P). */
static void destinations(const minv_mpi_batch *bt, MPI_Comm comm, int size, int *dest, minv_mpi_moves *moves) {
    double mine = 0, before = 0, total = 0, most;
    int rank;
    MPI_Comm_rank(comm, &rank);
    for (int64_t m = 0; m < bt->nbatch; m++)
        mine += member_cost(minv_mpi_batch_order(bt, m));
    MPI_Exscan(&mine, &before, 1, MPI_DOUBLE, MPI_SUM, comm);
    if (rank == 0)
        before = 0; /* MPI leaves rank 0's undefined */
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
    int64_t moved = 0;
    for (int64_t m = 0; m < bt->nbatch; m++) {
        const double c = member_cost(minv_mpi_batch_order(bt, m));
        const int q = (int)((before + c / 2) / total * size);
        dest[m] = q < size ? q : size - 1;
        moved += dest[m] != rank;
        before += c;
    }
    moves->moved = minv_mpi_sum_i64(moved, comm);
    moves->cost_max_before = most;
    moves->cost_mean = total / size;
}

/* The received members as a batch of minv.h: strided when their orders agree (A and B packed
 * one after the other in a member's slot), else variable sizes through pointers. */
static minv_status local_batch(minv_context *ctx, const minv_mpi_batch *bt, int64_t nin, const int64_t *orders,
                               void *recv, void *result, minv_mpi_batch *local, const void ***ap, const void ***bp,
                               void ***xp, int64_t **lds) {
    const size_t es = (size_t)bt->t;
    int uniform = 1;
    for (int64_t i = 1; i < nin; i++) uniform &= orders[i] == orders[0];
    *local = (minv_mpi_batch){.t = bt->t, .solve = bt->solve, .nbatch = nin, .nrhs = bt->nrhs, .k = nin ? orders[0] : 0};
    if (uniform) {
        const int64_t k = local->k;
        local->a = recv;
        local->b = (char *)recv + (size_t)(k * k) * es;
        local->x = result;
        local->lda = local->ldb = local->ldx = k > 0 ? k : 1;
        local->stride_a = local->stride_b = in_elems(bt, k);
        local->stride_x = out_elems(bt, k);
        return MINV_SUCCESS;
    }
    *ap = malloc((size_t)nin * sizeof **ap);
    *bp = malloc((size_t)nin * sizeof **bp);
    *xp = malloc((size_t)nin * sizeof **xp);
    *lds = malloc((size_t)nin * sizeof **lds);
    if (!*ap || !*bp || !*xp || !*lds)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the pointers of %lld members", (long long)nin);
    const char *in = recv;
    char *out = result;
    for (int64_t i = 0; i < nin; i++) {
        const int64_t k = orders[i];
        (*ap)[i] = in;
        (*bp)[i] = in + (size_t)(k * k) * es;
        (*xp)[i] = out;
        (*lds)[i] = k > 0 ? k : 1;
        in += (size_t)in_elems(bt, k) * es;
        out += (size_t)out_elems(bt, k) * es;
    }
    local->vsize = 1;
    local->ks = orders;
    local->ap = *ap;
    local->bp = *bp;
    local->xp = *xp;
    local->ldas = local->ldbs = local->ldxs = *lds;
    return MINV_SUCCESS;
}

/* The position among this rank's computed members (those received from lower ranks, the kept
 * ones, those from higher ranks) of member i of a call: i < split stays, the others shift. */
static int64_t position(int64_t i, int64_t split, int64_t shift) { return i < 0 ? -1 : i < split ? i : i + shift; }

/* Adds the report of one call over some of this rank's computed members to *into. */
static void merge_report(minv_batch_report *into, const minv_batch_report *r, int64_t split, int64_t shift, int *empty) {
    if (r->nbatch == 0)
        return;
    const int64_t first = position(r->first_failed, split, shift), worst = position(r->worst, split, shift);
    if (*empty) {
        *into = *r;
        into->first_failed = first;
        into->worst = worst;
        *empty = 0;
        return;
    }
    if (r->failed > 0 && (into->failed == 0 || first < into->first_failed)) {
        into->first_failed = first;
        into->first_status = r->first_status;
        into->first_info = r->first_info;
    }
    if (r->residual > into->residual) {
        into->residual = r->residual;
        into->worst = worst;
    }
    if (r->rcond >= 0 && (into->rcond < 0 || r->rcond < into->rcond))
        into->rcond = r->rcond;
    if (r->method != into->method)
        into->method = MINV_METHOD_AUTO;
    into->failed += r->failed;
    into->cholesky_count += r->cholesky_count;
    into->nbatch += r->nbatch;
    into->k = r->k > into->k ? r->k : into->k;
    into->residual_kind = r->residual_kind > into->residual_kind ? r->residual_kind : into->residual_kind;
    into->flops += r->flops;
    into->seconds += r->seconds;
    into->stages.upload_seconds += r->stages.upload_seconds;
    into->stages.compute_seconds += r->stages.compute_seconds;
    into->stages.download_seconds += r->stages.download_seconds;
    into->stages.upload_bytes += r->stages.upload_bytes;
    into->stages.download_bytes += r->stages.download_bytes;
    into->fallbacks |= r->fallbacks;
}

/* The members [first, first + count) of a batch, where they lie. */
static minv_mpi_batch sub_batch(const minv_mpi_batch *bt, int64_t first, int64_t count) {
    minv_mpi_batch s = *bt;
    const size_t es = (size_t)bt->t;
    s.nbatch = count;
    if (bt->vsize) {
        s.ks += first;
        s.ap += first;
        s.xp += first;
        s.ldas += first;
        s.ldxs += first;
        if (bt->solve) {
            s.bp += first;
            s.ldbs += first;
        }
    } else if (count > 0) {
        s.a = (const char *)bt->a + (size_t)(first * bt->stride_a) * es;
        s.x = (char *)bt->x + (size_t)(first * bt->stride_x) * es;
        if (bt->solve)
            s.b = (const char *)bt->b + (size_t)(first * bt->stride_b) * es;
    }
    return s;
}

minv_status minv_mpi_batch_rebalanced(minv_context *ctx, MPI_Comm comm, minv_method method,
                                      const minv_mpi_batch *bt, minv_status *status,
                                      minv_batch_report *report, int64_t *computed_offset,
                                      minv_mpi_moves *moves, int *agreed) {
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const size_t es = (size_t)bt->t, n = (size_t)bt->nbatch, sz = (size_t)size;
    const MPI_Datatype type = minv_mpi_type(bt->t);
    plan mem_out = {0}, mem_in = {0}, data_out = {0}, data_in = {0}, res_out = {0}, res_in = {0};
    int64_t nin = 0, out_total = 0, in_total = 0, res_total = 0, back_total = 0;
    int64_t *c_mem_out = calloc(sz, sizeof(int64_t)), *c_mem_in = calloc(sz, sizeof(int64_t));
    int64_t *c_data_out = calloc(sz, sizeof(int64_t)), *c_data_in = calloc(sz, sizeof(int64_t));
    int64_t *c_res_out = calloc(sz, sizeof(int64_t)), *c_res_in = calloc(sz, sizeof(int64_t));
    int64_t *orders_out = malloc((n ? n : 1) * sizeof(int64_t)), *orders_in = NULL, *lds = NULL;
    int *dest = malloc((n ? n : 1) * sizeof(int));
    int32_t *outcome_in = NULL, *outcome_out = malloc((n ? n : 1) * 2 * sizeof(int32_t));
    minv_status *computed = NULL, status_local = MINV_SUCCESS;
    void *send = NULL, *recv = NULL, *result = NULL, *back = NULL, **xp = NULL;
    const void **ap = NULL, **bp = NULL;
    minv_mpi_batch local;
    *agreed = 1;

    /* ---- where the members go (every rank takes part in every exchange, so each failure
     *      that could leave one out is agreed first) ---- */
    int ok = c_mem_out && c_mem_in && c_data_out && c_data_in && c_res_out && c_res_in && orders_out && dest &&
             outcome_out;
    minv_status st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the rebalance plan"));
    if (st != MINV_SUCCESS)
        goto cleanup;
    destinations(bt, comm, size, dest, moves);
    /* members in order are grouped by destination: the kept ones are one range */
    int64_t kept_first = 0, kept = 0, nout = 0;
    for (int64_t m = 0; m < bt->nbatch; m++) {
        const int64_t k = minv_mpi_batch_order(bt, m);
        if (dest[m] == rank) {
            kept_first = kept++ == 0 ? m : kept_first;
            continue;
        }
        c_mem_out[dest[m]]++;
        c_data_out[dest[m]] += in_elems(bt, k);
        c_res_in[dest[m]] += out_elems(bt, k);
        orders_out[nout++] = k;
    }
    MPI_Alltoall(c_mem_out, 1, MPI_INT64_T, c_mem_in, 1, MPI_INT64_T, comm);
    for (int q = 0; q < size; q++) nin += c_mem_in[q];
    orders_in = malloc((size_t)(nin ? nin : 1) * sizeof(int64_t));
    outcome_in = malloc((size_t)(nin ? nin : 1) * 2 * sizeof(int32_t));
    computed = malloc((size_t)(nin ? nin : 1) * sizeof *computed);
    ok = orders_in && outcome_in && computed;
    st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the records of %lld members", (long long)nin));
    if (st != MINV_SUCCESS)
        goto cleanup;
    ok = plan_make(&mem_out, c_mem_out, size, NULL) && plan_make(&mem_in, c_mem_in, size, NULL);
    st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the rebalance plan"));
    if (st != MINV_SUCCESS)
        goto cleanup;
    MPI_Alltoallv(orders_out, mem_out.count, mem_out.displ, MPI_INT64_T, orders_in, mem_in.count, mem_in.displ,
                  MPI_INT64_T, comm);
    for (int q = 0, i = 0; q < size; q++)
        for (int c = 0; c < mem_in.count[q]; c++, i++) {
            c_data_in[q] += in_elems(bt, orders_in[i]);
            c_res_out[q] += out_elems(bt, orders_in[i]);
        }

    /* ---- the members' data over, A then B of each, packed ---- */
    ok = plan_make(&data_out, c_data_out, size, &out_total) && plan_make(&data_in, c_data_in, size, &in_total) &&
         plan_make(&res_out, c_res_out, size, &res_total) && plan_make(&res_in, c_res_in, size, &back_total);
    st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS
                                      : minv_fail(ctx, MINV_ERR_INVALID_ARG,
                                                  "a rebalance moves at most 2^31 - 1 values into or out of a rank; call without MINV_MPI_REBALANCE, or in parts"));
    if (st != MINV_SUCCESS)
        goto cleanup;
    send = malloc((size_t)(out_total ? out_total : 1) * es);
    recv = malloc((size_t)(in_total ? in_total : 1) * es);
    result = malloc((size_t)(res_total ? res_total : 1) * es);
    back = malloc((size_t)(back_total ? back_total : 1) * es);
    ok = send && recv && result && back;
    st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS
                                      : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the rebalance buffers (%lld values)",
                                                  (long long)(out_total + in_total + res_total + back_total)));
    if (st != MINV_SUCCESS)
        goto cleanup;
    char *at = send;
    for (int64_t m = 0; m < bt->nbatch; m++) {
        if (dest[m] == rank)
            continue;
        const minv_mat a = minv_mpi_batch_a(bt, m);
        pack(&a, at);
        at += (size_t)(a.rows * a.cols) * es;
        if (bt->solve) {
            const minv_mat b = minv_mpi_batch_b(bt, m);
            pack(&b, at);
            at += (size_t)(b.rows * b.cols) * es;
        }
    }
    MPI_Alltoallv(send, data_out.count, data_out.displ, type, recv, data_in.count, data_in.displ, type, comm);

    /* ---- the computation: the kept members where they lie, then those received ---- */
    int64_t from_lower = 0;
    for (int q = 0; q < rank; q++) from_lower += c_mem_in[q];
    minv_batch_report part;
    int empty = 1;
    memset(report, 0, sizeof *report);
    report->method = method;
    report->first_failed = report->first_info = report->worst = -1;
    report->residual = report->rcond = -1;
    if (kept > 0) {
        const minv_mpi_batch own = sub_batch(bt, kept_first, kept);
        status_local = minv_mpi_batch_run(ctx, method, &own, status ? status + kept_first : NULL, &part);
        if (!(status_local != MINV_SUCCESS && !(part.failed > 0 && status_local == part.first_status)))
            status_local = MINV_SUCCESS; /* the members' failures are in the report */
        part.nbatch = kept;
        merge_report(report, &part, 0, from_lower, &empty); /* kept member i sits at from_lower + i */
    }
    if (status_local == MINV_SUCCESS)
        status_local = local_batch(ctx, bt, nin, orders_in, recv, result, &local, &ap, &bp, &xp, &lds);
    for (int64_t i = 0; i < nin; i++) computed[i] = status_local;
    if (status_local == MINV_SUCCESS && nin > 0) {
        status_local = minv_mpi_batch_run(ctx, method, &local, computed, &part);
        if (!(status_local != MINV_SUCCESS && !(part.failed > 0 && status_local == part.first_status)))
            status_local = MINV_SUCCESS;
        part.nbatch = nin;
        merge_report(report, &part, from_lower, kept, &empty); /* received from higher ranks: after the kept */
    }
    /* a failed member's output stays the caller's, except one singular to working precision
     * (minv.h writes it); the context holds every member's column from the call */
    const minv_batch_results *o = &ctx->batch_outcomes;
    for (int64_t i = 0; i < nin; i++) {
        const int64_t info = o->info && i < ctx->batch_outcomes_count ? o->info[i] : 0;
        outcome_in[2 * i] = (int32_t)computed[i];
        outcome_in[2 * i + 1] = minv_member_written(computed[i], info);
    }

    /* ---- results and outcomes back to their owners ---- */
    MPI_Alltoallv(result, res_out.count, res_out.displ, type, back, res_in.count, res_in.displ, type, comm);
    for (int q = 0; q < size; q++) { /* two int32 a member */
        mem_in.count[q] *= 2;
        mem_in.displ[q] *= 2;
        mem_out.count[q] *= 2;
        mem_out.displ[q] *= 2;
    }
    MPI_Alltoallv(outcome_in, mem_in.count, mem_in.displ, MPI_INT32_T, outcome_out, mem_out.count, mem_out.displ,
                  MPI_INT32_T, comm);
    const char *from = back;
    for (int64_t m = 0, moved = 0; m < bt->nbatch; m++) {
        if (dest[m] == rank)
            continue;
        minv_mat x = minv_mpi_batch_x(bt, m);
        if (status)
            status[m] = (minv_status)outcome_out[2 * moved];
        if (outcome_out[2 * moved + 1])
            unpack(from, &x);
        from += (size_t)(x.rows * x.cols) * es;
        moved++;
    }
    double mine = 0, most;
    for (int64_t i = 0; i < nin; i++) mine += member_cost(orders_in[i]);
    for (int64_t m = kept_first; m < kept_first + kept; m++) mine += member_cost(minv_mpi_batch_order(bt, m));
    MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
    moves->cost_max_after = most;
    report->nbatch = nin + kept;
    *computed_offset = minv_mpi_exscan_i64(nin + kept, comm);
    *agreed = 0;
    st = status_local;
cleanup:
    plan_free(&mem_out);
    plan_free(&mem_in);
    plan_free(&data_out);
    plan_free(&data_in);
    plan_free(&res_out);
    plan_free(&res_in);
    free(c_mem_out);
    free(c_mem_in);
    free(c_data_out);
    free(c_data_in);
    free(c_res_out);
    free(c_res_in);
    free(orders_out);
    free(orders_in);
    free(dest);
    free(outcome_in);
    free(outcome_out);
    free(computed);
    free(send);
    free(recv);
    free(result);
    free(back);
    free((void *)ap);
    free((void *)bp);
    free(xp);
    free(lds);
    return st;
}
