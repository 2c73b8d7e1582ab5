/* Distributed batches: each rank's members go through minv.h's batched calls (on the rank's
 * own context, its GPU where it has one), optionally after a rebalance by cost (rebalance.c),
 * and the ranks' reports meet in one global report, the same on every rank. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpi_internal.h"

/* ---- members ---- */

static minv_mat member(minv_dtype t, const void *base, int64_t ld, int64_t stride, const void *const *ptrs,
                       const int64_t *lds, int64_t m, int64_t rows, int64_t cols) {
    if (ptrs)
        return (minv_mat){t, rows, cols, lds ? lds[m] : ld, (void *)ptrs[m]};
    return (minv_mat){t, rows, cols, ld, (char *)base + (size_t)m * (size_t)stride * (size_t)t};
}

minv_mat minv_mpi_batch_a(const minv_mpi_batch *bt, int64_t m) {
    const int64_t k = minv_mpi_batch_order(bt, m);
    return member(bt->t, bt->a, bt->lda, bt->stride_a, bt->ap, bt->ldas, m, k, k);
}

minv_mat minv_mpi_batch_b(const minv_mpi_batch *bt, int64_t m) {
    return member(bt->t, bt->b, bt->ldb, bt->stride_b, bt->bp, bt->ldbs, m, minv_mpi_batch_order(bt, m), bt->nrhs);
}

minv_mat minv_mpi_batch_x(const minv_mpi_batch *bt, int64_t m) {
    const int64_t k = minv_mpi_batch_order(bt, m);
    return member(bt->t, bt->x, bt->ldx, bt->stride_x, (const void *const *)bt->xp, bt->ldxs, m, k,
                  bt->solve ? bt->nrhs : k);
}

minv_status minv_mpi_batch_run(minv_context *ctx, minv_method method, const minv_mpi_batch *bt,
                               minv_status *status, minv_batch_report *r) {
    const int d = bt->t == MINV_R64;
    if (bt->vsize && bt->solve)
        return d ? minv_solve_batched_vsize_d(ctx, method, bt->ks, bt->nrhs, bt->nbatch, (const double *const *)bt->ap,
                                              bt->ldas, (const double *const *)bt->bp, bt->ldbs, (double *const *)bt->xp,
                                              bt->ldxs, status, r)
                 : minv_solve_batched_vsize_s(ctx, method, bt->ks, bt->nrhs, bt->nbatch, (const float *const *)bt->ap,
                                              bt->ldas, (const float *const *)bt->bp, bt->ldbs, (float *const *)bt->xp,
                                              bt->ldxs, status, r);
    if (bt->vsize)
        return d ? minv_invert_batched_vsize_d(ctx, method, bt->ks, bt->nbatch, (const double *const *)bt->ap, bt->ldas,
                                               (double *const *)bt->xp, bt->ldxs, status, r)
                 : minv_invert_batched_vsize_s(ctx, method, bt->ks, bt->nbatch, (const float *const *)bt->ap, bt->ldas,
                                               (float *const *)bt->xp, bt->ldxs, status, r);
    if (bt->solve)
        return d ? minv_solve_batched_d(ctx, method, bt->k, bt->nrhs, bt->nbatch, bt->a, bt->lda, bt->stride_a, bt->b,
                                        bt->ldb, bt->stride_b, bt->x, bt->ldx, bt->stride_x, status, r)
                 : minv_solve_batched_s(ctx, method, bt->k, bt->nrhs, bt->nbatch, bt->a, bt->lda, bt->stride_a, bt->b,
                                        bt->ldb, bt->stride_b, bt->x, bt->ldx, bt->stride_x, status, r);
    return d ? minv_invert_batched_d(ctx, method, bt->k, bt->nbatch, bt->a, bt->lda, bt->stride_a, bt->x, bt->ldx,
                                     bt->stride_x, status, r)
             : minv_invert_batched_s(ctx, method, bt->k, bt->nbatch, bt->a, bt->lda, bt->stride_a, bt->x, bt->ldx,
                                     bt->stride_x, status, r);
}

/* ---- checks of what the rebalance reads before minv.h's own checks run ---- */

static minv_status check_strided(minv_context *ctx, const char *fn, const char *name, const void *p, int64_t ld,
                                 int64_t stride, int64_t rows, int64_t cols, int64_t nbatch) {
    if (nbatch == 0 || rows == 0 || cols == 0)
        return MINV_SUCCESS;
    if (!p)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s is NULL", fn, name);
    if (ld < rows)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: the leading dimension of %s is %lld, less than its %lld rows", fn,
                         name, (long long)ld, (long long)rows);
    if (nbatch > 1 && stride < ld * cols)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: the stride of %s is %lld, less than ld x columns = %lld (members overlap)",
                         fn, name, (long long)stride, (long long)(ld * cols));
    return MINV_SUCCESS;
}

static minv_status check_pointers(minv_context *ctx, const char *fn, const char *name, const void *const *p,
                                  const int64_t *ld, const int64_t *ks, int64_t nrhs, int64_t nbatch) {
    if (nbatch == 0)
        return MINV_SUCCESS;
    if (!p || !ld)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s or its leading dimensions are NULL", fn, name);
    for (int64_t m = 0; m < nbatch; m++) {
        const int64_t cols = nrhs > 0 ? nrhs : ks[m];
        if (ks[m] > 0 && cols > 0 && (!p[m] || ld[m] < ks[m]))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: member %lld (0-based, of this rank) of %s: %s", fn, (long long)m,
                             name, p[m] ? "its leading dimension is less than its order" : "NULL");
    }
    return MINV_SUCCESS;
}

static minv_status check_local(minv_context *ctx, const char *fn, minv_method method, const minv_mpi_batch *bt) {
    if ((int)method < 0 || (int)method >= MINV_METHOD_COUNT)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: method = %d is not a minv_method", fn, (int)method);
    if (bt->nbatch < 0 || bt->k < 0 || bt->nrhs < 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: nbatch = %lld, k = %lld and nrhs = %lld must not be negative", fn,
                         (long long)bt->nbatch, (long long)bt->k, (long long)bt->nrhs);
    if (bt->solve && bt->nrhs == 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: nrhs = 0: no right-hand sides", fn);
    minv_status status = MINV_SUCCESS;
    if (bt->vsize) {
        if (bt->nbatch > 0 && !bt->ks)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: k is NULL", fn);
        for (int64_t m = 0; m < bt->nbatch; m++)
            if (bt->ks[m] < 0)
                return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: k[%lld] = %lld is negative", fn, (long long)m,
                                 (long long)bt->ks[m]);
        MINV_TRY(check_pointers(ctx, fn, "a", bt->ap, bt->ldas, bt->ks, 0, bt->nbatch));
        if (bt->solve)
            MINV_TRY(check_pointers(ctx, fn, "b", bt->bp, bt->ldbs, bt->ks, bt->nrhs, bt->nbatch));
        MINV_TRY(check_pointers(ctx, fn, bt->solve ? "x" : "ainv", (const void *const *)bt->xp, bt->ldxs, bt->ks,
                                bt->solve ? bt->nrhs : 0, bt->nbatch));
    } else {
        MINV_TRY(check_strided(ctx, fn, "a", bt->a, bt->lda, bt->stride_a, bt->k, bt->k, bt->nbatch));
        if (bt->solve)
            MINV_TRY(check_strided(ctx, fn, "b", bt->b, bt->ldb, bt->stride_b, bt->k, bt->nrhs, bt->nbatch));
        MINV_TRY(check_strided(ctx, fn, bt->solve ? "x" : "ainv", bt->x, bt->ldx, bt->stride_x, bt->k,
                               bt->solve ? bt->nrhs : bt->k, bt->nbatch));
    }
cleanup:
    return status;
}

/* ---- the global report ---- */

static void report_empty(minv_batch_report *r, minv_method method, int64_t nbatch, int64_t k, int64_t nrhs) {
    memset(r, 0, sizeof *r);
    r->method = method;
    r->backend = MINV_BACKEND_CPU;
    r->nbatch = nbatch;
    r->k = k;
    r->nrhs = nrhs;
    r->first_failed = r->first_info = r->worst = -1;
    r->residual = r->rcond = -1;
    r->device = -1;
}

/* The smallest of x over the ranks where `has`, or -1 when none has one. */
static double min_where(double x, int has, MPI_Comm comm) {
    double v = has ? x : DBL_MAX, out;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MIN, comm);
    return out == DBL_MAX ? -1 : out;
}

/* The lowest rank for which `mine` holds, or -1. */
static int first_rank(int mine, MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int64_t r = minv_mpi_min_i64(mine ? rank : size, comm);
    return r == size ? -1 : (int)r;
}

/* The one value of an enumeration over the ranks that computed members: `none` when no rank
 * did, `mixed` when they differ. */
static int agreed_value(int value, int has, int none, int mixed, MPI_Comm comm) {
    const int64_t lo = minv_mpi_min_i64(has ? value : INT_MAX, comm), hi = minv_mpi_max_i64(has ? value : INT_MIN, comm);
    return lo == INT_MAX ? none : lo == hi ? (int)lo : mixed;
}

typedef struct {
    int64_t kmax;     /* the largest order of this rank's members */
    int64_t offset;   /* global index of this rank's first member */
    int64_t computed; /* members this rank computed (its own, or those the rebalance gave it) */
    int64_t computed_offset;
    int rebalanced;
    minv_mpi_moves moves;
} placement;

/* The ranks' local reports into r (the same on every rank), with the call's status: the first
 * failed member's, named by its global index and its owner. */
static minv_status reduce_reports(minv_context *ctx, MPI_Comm comm, const char *fn, minv_method method,
                                  const minv_mpi_batch *bt, const minv_batch_report *local, const placement *p,
                                  int64_t total, double t0, minv_batch_report *r) {
    int size;
    MPI_Comm_size(comm, &size);
    const int has = p->computed > 0;
    report_empty(r, method, total, minv_mpi_max_i64(p->kmax, comm), bt->solve ? bt->nrhs : 0);
    r->failed = minv_mpi_sum_i64(local->failed, comm);
    r->cholesky_count = minv_mpi_sum_i64(local->cholesky_count, comm);
    MPI_Allreduce(&local->flops, &r->flops, 1, MPI_DOUBLE, MPI_SUM, comm);
    r->method = (minv_method)agreed_value(local->method, has, method, MINV_METHOD_AUTO, comm);
    const int backend = agreed_value(local->backend, has, MINV_BACKEND_CPU, -1, comm);
    r->backend = backend < 0 ? MINV_BACKEND_CPU : (minv_backend)backend;
    r->residual_kind = (int32_t)minv_mpi_max_i64(has ? local->residual_kind : 0, comm);
    r->rcond = min_where(local->rcond, has && local->rcond >= 0, comm);

    /* the worst residual, and the lowest global member that has it */
    double worst_residual;
    MPI_Allreduce(&local->residual, &worst_residual, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (worst_residual >= 0) {
        r->residual = worst_residual;
        r->worst = minv_mpi_min_i64(has && local->worst >= 0 && local->residual == worst_residual
                                        ? p->computed_offset + local->worst : INT64_MAX, comm);
    }

    /* the stages: the slowest rank's seconds, every rank's bytes; any rank's fallbacks */
    const minv_stages *ls = &local->stages;
    const double seconds3[3] = {has ? ls->upload_seconds : 0, has ? ls->compute_seconds : 0, has ? ls->download_seconds : 0};
    const double bytes2[2] = {has ? ls->upload_bytes : 0, has ? ls->download_bytes : 0};
    double slowest[3], summed[2];
    MPI_Allreduce(seconds3, slowest, 3, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(bytes2, summed, 2, MPI_DOUBLE, MPI_SUM, comm);
    r->stages.upload_seconds = slowest[0];
    r->stages.compute_seconds = slowest[1];
    r->stages.download_seconds = slowest[2];
    r->stages.upload_bytes = summed[0];
    r->stages.download_bytes = summed[1];
    int32_t fallbacks = has ? local->fallbacks : 0;
    MPI_Allreduce(MPI_IN_PLACE, &fallbacks, 1, MPI_INT32_T, MPI_BOR, comm);
    r->fallbacks = fallbacks;

    /* the reason and device: the first computing rank's, with the distribution */
    const int speaker = first_rank(has, comm);
    if (speaker >= 0) {
        int device = local->device;
        MPI_Bcast(&device, 1, MPI_INT, speaker, comm);
        r->device = device;
    }
    if (speaker >= 0) {
        char reason[MINV_REASON_LEN];
        memcpy(reason, local->reason, sizeof reason);
        MPI_Bcast(reason, (int)sizeof reason, MPI_CHAR, speaker, comm);
        memcpy(r->reason, reason, sizeof reason);
    }
    const int64_t least = minv_mpi_min_i64(bt->nbatch, comm), most = minv_mpi_max_i64(bt->nbatch, comm);
    minv_batch_note(r, "%d rank%s, %lld to %lld members a rank", size, size == 1 ? "" : "s", (long long)least,
                    (long long)most);
    if (p->rebalanced)
        minv_batch_note(r, "rebalanced by cost k^3: %lld member%s moved, the costliest rank at %.2f of the mean (%.2f before)",
                        (long long)p->moves.moved, p->moves.moved == 1 ? "" : "s",
                        p->moves.cost_mean > 0 ? p->moves.cost_max_after / p->moves.cost_mean : 1.0,
                        p->moves.cost_mean > 0 ? p->moves.cost_max_before / p->moves.cost_mean : 1.0);
    if (backend < 0)
        minv_batch_note(r, "the ranks ran on different backends: some on the GPU, some on the CPU");

    /* the first failed member, named everywhere from its computing rank's numbers */
    minv_status status = MINV_SUCCESS;
    r->first_failed = minv_mpi_min_i64(local->failed > 0 ? p->computed_offset + local->first_failed : INT64_MAX, comm);
    if (r->first_failed == INT64_MAX) {
        r->first_failed = -1;
    } else {
        const int owner = first_rank(local->failed > 0 && p->computed_offset + local->first_failed == r->first_failed, comm);
        int64_t first[2] = {local->first_status, local->first_info};
        MPI_Bcast(first, 2, MPI_INT64_T, owner, comm);
        r->first_status = (minv_status)first[0];
        r->first_info = first[1];
        /* its owner among the callers, which after a rebalance is not the computing rank */
        const int mine = r->first_failed >= p->offset && r->first_failed < p->offset + bt->nbatch;
        const int owner_rank = first_rank(mine, comm);
        int64_t before = r->first_failed - p->offset;
        MPI_Bcast(&before, 1, MPI_INT64_T, owner_rank, comm);
        char why[160];
        minv_batch_member_reason(why, sizeof why, r->first_status, r->first_info);
        status = minv_fail(ctx, r->first_status,
                           "%s: member %lld of %lld, rank %d's member %lld (0-based indices %lld and %lld): %s; %lld member%s failed, every other one is done",
                           fn, (long long)r->first_failed + 1, (long long)total, owner_rank, (long long)before + 1,
                           (long long)r->first_failed, (long long)before, why,
                           (long long)r->failed, r->failed == 1 ? "" : "s");
    }
    double seconds = MPI_Wtime() - t0;
    MPI_Allreduce(&seconds, &r->seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
    return status;
}

/* ---- the call ---- */

/* A status of the local call that is not a member's failure: argument, memory, device. */
static int call_failed(minv_status st, const minv_batch_report *r) {
    return st != MINV_SUCCESS && !(r->failed > 0 && st == r->first_status);
}

static minv_status distributed_call(minv_context *ctx, MPI_Comm comm, const char *fn, int32_t flags, minv_method method,
                                    const minv_mpi_batch *bt, minv_status *status_out, minv_batch_report *report) {
    const double t0 = MPI_Wtime();
    minv_batch_report mine, local, *r = report ? report : &mine;
    placement p = {0};
    int size;
    MPI_Comm_size(comm, &size);
    report_empty(r, method, 0, bt->k, bt->solve ? bt->nrhs : 0);
    report_empty(&local, method, bt->nbatch, bt->k, bt->solve ? bt->nrhs : 0);
    if (ctx)
        minv_clear_error(ctx);

    minv_status status = ctx ? check_local(ctx, fn, method, bt) : MINV_ERR_INVALID_ARG;
    if (status == MINV_SUCCESS && (flags & ~MINV_MPI_REBALANCE))
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: flags = %d: only MINV_MPI_REBALANCE is defined", fn, (int)flags);
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS)
        return status;
    if (bt->solve && minv_mpi_min_i64(bt->nrhs, comm) != minv_mpi_max_i64(bt->nrhs, comm))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: nrhs differs between the ranks (from %lld to %lld); it must be the same",
                         fn, (long long)minv_mpi_min_i64(bt->nrhs, comm), (long long)minv_mpi_max_i64(bt->nrhs, comm));
    p.kmax = bt->k;
    for (int64_t m = 0; bt->vsize && m < bt->nbatch; m++)
        p.kmax = bt->ks[m] > p.kmax ? bt->ks[m] : p.kmax;
    p.offset = minv_mpi_exscan_i64(bt->nbatch, comm);
    const int64_t total = minv_mpi_sum_i64(bt->nbatch, comm);

    if ((flags & MINV_MPI_REBALANCE) && size > 1) {
        int agreed;
        p.rebalanced = 1;
        status = minv_mpi_batch_rebalanced(ctx, comm, method, bt, status_out, &local, &p.computed_offset, &p.moves,
                                           &agreed);
        if (agreed && status != MINV_SUCCESS) {
            r->nbatch = total;
            return status;
        }
        p.computed = local.nbatch;
    } else {
        if (bt->nbatch > 0)
            status = minv_mpi_batch_run(ctx, method, bt, status_out, &local);
        p.computed = bt->nbatch;
        p.computed_offset = p.offset;
    }
    /* an error of a call outranks the members' failures, wherever it happened */
    const minv_status own = call_failed(status, &local) ? status : MINV_SUCCESS;
    if ((status = minv_mpi_agree(ctx, comm, own)) != MINV_SUCCESS) {
        r->nbatch = total;
        return status;
    }
    return reduce_reports(ctx, comm, fn, method, bt, &local, &p, total, t0, r);
}

/* The call with the context to this thread, agreed over the ranks; a refused call says so in
 * its report, as minv.h's batched calls do. */
static minv_status distributed(minv_context *ctx, MPI_Comm comm, const char *fn, int32_t flags, minv_method method,
                               const minv_mpi_batch *bt, minv_status *status_out, minv_batch_report *report) {
    minv_status status = minv_mpi_enter(ctx, comm);
    if (status != MINV_SUCCESS) {
        if (report) {
            report_empty(report, method, 0, bt->k, bt->solve ? bt->nrhs : 0);
            minv_batch_note(report, "refused: %s", minv_status_string(status));
        }
        return status;
    }
    status = distributed_call(ctx, comm, fn, flags, method, bt, status_out, report);
    minv_mpi_leave(ctx);
    return status;
}

/* ---- the public forms ---- */

#define STRIDED_INVERT(NAME, T, DT)                                                                           \
    minv_status NAME(minv_context *ctx, MPI_Comm comm, int32_t flags, minv_method method, int64_t k,          \
                     int64_t nbatch, const T *a, int64_t lda, int64_t stride_a, T *ainv, int64_t ldainv,      \
                     int64_t stride_ainv, minv_status *status, minv_batch_report *report) {                   \
        minv_mpi_batch bt = {.t = DT, .nbatch = nbatch, .k = k, .a = a, .lda = lda, .stride_a = stride_a,   \
                             .x = ainv, .ldx = ldainv, .stride_x = stride_ainv};                              \
        return distributed(ctx, comm, #NAME, flags, method, &bt, status, report);                            \
    }
STRIDED_INVERT(minv_mpi_invert_batched_d, double, MINV_R64)
STRIDED_INVERT(minv_mpi_invert_batched_s, float, MINV_R32)

#define VSIZE_INVERT(NAME, T, DT)                                                                             \
    minv_status NAME(minv_context *ctx, MPI_Comm comm, int32_t flags, minv_method method, const int64_t *k,   \
                     int64_t nbatch, const T *const *a, const int64_t *lda, T *const *ainv,                   \
                     const int64_t *ldainv, minv_status *status, minv_batch_report *report) {                 \
        minv_mpi_batch bt = {.t = DT, .nbatch = nbatch, .vsize = 1, .ks = k, .ap = (const void *const *)a, .ldas = lda,  \
                             .xp = (void *const *)ainv, .ldxs = ldainv};                                      \
        return distributed(ctx, comm, #NAME, flags, method, &bt, status, report);                            \
    }
VSIZE_INVERT(minv_mpi_invert_batched_vsize_d, double, MINV_R64)
VSIZE_INVERT(minv_mpi_invert_batched_vsize_s, float, MINV_R32)

#define STRIDED_SOLVE(NAME, T, DT)                                                                            \
    minv_status NAME(minv_context *ctx, MPI_Comm comm, int32_t flags, minv_method method, int64_t k,          \
                     int64_t nrhs, int64_t nbatch, const T *a, int64_t lda, int64_t stride_a, const T *b,     \
                     int64_t ldb, int64_t stride_b, T *x, int64_t ldx, int64_t stride_x, minv_status *status, \
                     minv_batch_report *report) {                                                             \
        minv_mpi_batch bt = {.t = DT, .solve = 1, .nbatch = nbatch, .nrhs = nrhs, .k = k, .a = a,            \
                             .lda = lda, .stride_a = stride_a, .b = b, .ldb = ldb, .stride_b = stride_b,      \
                             .x = x, .ldx = ldx, .stride_x = stride_x};                                       \
        return distributed(ctx, comm, #NAME, flags, method, &bt, status, report);                            \
    }
STRIDED_SOLVE(minv_mpi_solve_batched_d, double, MINV_R64)
STRIDED_SOLVE(minv_mpi_solve_batched_s, float, MINV_R32)

#define VSIZE_SOLVE(NAME, T, DT)                                                                              \
    minv_status NAME(minv_context *ctx, MPI_Comm comm, int32_t flags, minv_method method, const int64_t *k,   \
                     int64_t nrhs, int64_t nbatch, const T *const *a, const int64_t *lda,                     \
                     const T *const *b, const int64_t *ldb, T *const *x, const int64_t *ldx,                  \
                     minv_status *status, minv_batch_report *report) {                                        \
        minv_mpi_batch bt = {.t = DT, .solve = 1, .nbatch = nbatch, .nrhs = nrhs, .vsize = 1, .ks = k,                   \
                             .ap = (const void *const *)a, .ldas = lda, .bp = (const void *const *)b,         \
                             .ldbs = ldb, .xp = (void *const *)x, .ldxs = ldx};                               \
        return distributed(ctx, comm, #NAME, flags, method, &bt, status, report);                            \
    }
VSIZE_SOLVE(minv_mpi_solve_batched_vsize_d, double, MINV_R64)
VSIZE_SOLVE(minv_mpi_solve_batched_vsize_s, float, MINV_R32)
