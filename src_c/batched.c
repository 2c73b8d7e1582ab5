/* Public entry points of the batched API: argument checks (the bad argument named by its
 * position, and the member where it is one), the batch descriptors every form reduces to,
 * routing to a backend (host data falls back to the CPU when the GPU cannot take a batch, and
 * the report says why), and the report assembled from the members' outcomes. The algorithms
 * live in the backends (src_c/cpu/batched.c, src_cuda/batched*.cu). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- batch descriptors ---- */

minv_mat minv_batch_member(const minv_batch *m, int64_t b) {
    const int64_t n = minv_batch_order(m, b);
    void *p = m->ptrs ? m->ptrs[b] : (char *)m->base + (size_t)b * (size_t)m->stride * (size_t)m->dtype;
    return (minv_mat){m->dtype, n, minv_batch_cols(m, b), m->lds ? m->lds[b] : m->ld, p};
}

/* dst(i, j) = src(r(i), c(j)) with r, c the identity or the subset index, converted. */
#define COPY_LOOP(TD, TS)                                                                      \
    for (int64_t j = 0; j < cols; j++) {                                                       \
        const TS *s = (const TS *)src + (size_t)(idx ? idx[j] : j) * (size_t)lds;              \
        TD *d = (TD *)dst + (size_t)j * (size_t)ldd;                                           \
        for (int64_t i = 0; i < rows; i++) d[i] = (TD)s[idx ? idx[i] : i];                     \
    }

static void copy_convert(const void *src, minv_dtype ts, int64_t lds, const int64_t *idx, void *dst,
                         minv_dtype td, int64_t ldd, int64_t rows, int64_t cols) {
    if (ts == td && !idx && lds == rows && ldd == rows) {
        memcpy(dst, src, (size_t)rows * (size_t)cols * (size_t)ts);
    } else if (ts == td && !idx) {
        for (int64_t j = 0; j < cols; j++)
            memcpy((char *)dst + (size_t)j * (size_t)ldd * (size_t)td,
                   (const char *)src + (size_t)j * (size_t)lds * (size_t)ts, (size_t)rows * (size_t)ts);
    } else if (td == MINV_R64 && ts == MINV_R64) {
        COPY_LOOP(double, double)
    } else if (td == MINV_R64) {
        COPY_LOOP(double, float)
    } else if (ts == MINV_R64) {
        COPY_LOOP(float, double)
    } else {
        COPY_LOOP(float, float)
    }
}
#undef COPY_LOOP

void minv_batch_gather(const minv_batch *m, int64_t b, minv_dtype t, void *dst, int64_t ldd) {
    minv_mat s = minv_batch_member(m, b);
    const int64_t *idx = m->index ? m->index + (size_t)b * (size_t)m->ldindex : NULL;
    copy_convert(s.data, s.dtype, s.ld, idx, dst, t, ldd, s.rows, s.cols);
}

void minv_batch_scatter(const minv_batch *m, int64_t b, minv_dtype t, const void *src, int64_t lds) {
    minv_mat d = minv_batch_member(m, b);
    copy_convert(src, t, lds, NULL, d.data, d.dtype, d.ld, d.rows, d.cols);
}

double minv_batch_flops_sums(int spd, double sum_n2, double sum_n3, int64_t nrhs) {
    if (nrhs == 0)
        return spd ? sum_n3 : 2 * sum_n3;
    return (spd ? sum_n3 / 3 : 2 * sum_n3 / 3) + 2 * sum_n2 * (double)nrhs;
}

double minv_batch_flops(int spd, int64_t n, int64_t nrhs) {
    const double dn = (double)n;
    return minv_batch_flops_sums(spd, dn * dn, dn * dn * dn, nrhs);
}

/* ---- argument checks ---- */

static minv_status check_method(minv_context *ctx, const char *fn, minv_method m) {
    const minv_status status = minv_check_method(ctx, fn, 2, m);
    if (status != MINV_SUCCESS)
        return status;
    if (m != MINV_METHOD_AUTO && m != MINV_METHOD_CHOLESKY && m != MINV_METHOD_LU && m != MINV_METHOD_GAUSS_JORDAN)
        return minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED,
                         "%s: argument 2 (method) = %s is not available for batches (auto, cholesky, lu, gauss-jordan are)",
                         fn, minv_method_name(m));
    return MINV_SUCCESS;
}

static minv_status check_size(minv_context *ctx, const char *fn, int pos, const char *name, int64_t v, int64_t least) {
    if (v < least)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) = %lld must be >= %lld", fn, pos, name,
                         (long long)v, (long long)least);
    return MINV_SUCCESS;
}

/* The elements a batch spans must be addressable. */
static int span_fits(int64_t count, int64_t stride, int64_t ld, int64_t rows, int64_t cols, minv_dtype t) {
    double span = (double)(count - 1) * (double)stride + (double)(cols - 1) * (double)ld + (double)rows;
    return span * (double)t < 9.2e18 && span * (double)t < (double)SIZE_MAX;
}

/* A strided batch of `count` rows x cols members: pointer at pos, ld at pos + 1, stride at
 * pos + 2. */
static minv_status check_strided(minv_context *ctx, const char *fn, int pos, const char *name, const void *p,
                                 int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t count,
                                 minv_dtype t) {
    const int64_t least_ld = rows > 1 ? rows : 1;
    if (!p && rows > 0 && cols > 0) /* empty members may be NULL, as minv_check_matrix allows */
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL", fn, pos, name);
    if (ld < least_ld)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (ld%s) = %lld must be >= %lld", fn, pos + 1, name,
                         (long long)ld, (long long)least_ld);
    if (rows > 0 && stride < ld * cols)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "%s: argument %d (stride_%s) = %lld must be >= ld%s * %lld = %lld: members may not overlap",
                         fn, pos + 2, name, (long long)stride, name, (long long)cols, (long long)(ld * cols));
    if (!span_fits(count, stride, ld, rows, cols, t))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %lld members of %s with stride %lld overflow the address space",
                         fn, (long long)count, name, (long long)stride);
    return MINV_SUCCESS;
}

/* Pointer forms: the array at pos, every member pointer set and its leading dimension (ld, or
 * lds[b] at ld_pos) large enough. Orders are k, or ks[b]. */
static minv_status check_pointers(minv_context *ctx, const char *fn, int pos, const char *name, const void *const *p,
                                  int ld_pos, int64_t ld, const int64_t *lds, int64_t k, const int64_t *ks,
                                  int64_t cols, int square, int64_t count, minv_dtype t) {
    if (ks && !lds)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (ld%s) is NULL", fn, ld_pos, name);
    for (int64_t b = 0; b < count; b++) {
        const int64_t n = ks ? ks[b] : k, c = square ? n : cols, ldb = lds ? lds[b] : ld;
        const int64_t least = n > 1 ? n : 1;
        if (!p && n > 0 && c > 0) /* an array of empty members may be NULL */
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL", fn, pos, name);
        if (n > 0 && c > 0 && !p[b])
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s): %s[%lld] is NULL", fn, pos, name, name,
                             (long long)b);
        if (ldb < least && lds)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (ld%s): ld%s[%lld] = %lld must be >= %lld", fn,
                             ld_pos, name, name, (long long)b, (long long)ldb, (long long)least);
        if (ldb < least)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (ld%s) = %lld must be >= %lld", fn, ld_pos, name,
                             (long long)ldb, (long long)least);
        if (n > 0 && !span_fits(1, 0, ldb, n, c, t))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s[%lld] with ld %lld overflows the address space", fn, name,
                             (long long)b, (long long)ldb);
    }
    return MINV_SUCCESS;
}

/* Variable sizes: every order >= 0; the largest returned. */
static minv_status check_orders(minv_context *ctx, const char *fn, int pos, const int64_t *k, int64_t count,
                                int64_t *kmax) {
    *kmax = 0;
    if (!k && count > 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (k) is NULL", fn, pos);
    for (int64_t b = 0; b < count; b++) {
        if (k[b] < 0)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (k): k[%lld] = %lld must be >= 0", fn, pos,
                             (long long)b, (long long)k[b]);
        if (k[b] > *kmax) *kmax = k[b];
    }
    return MINV_SUCCESS;
}

/* Subsets: counts in [0, k], ldindex large enough, indices in [0, k) and distinct. */
static minv_status check_subsets(minv_context *ctx, const char *fn, int64_t k, int64_t count, const int64_t *index,
                                 int64_t ldindex, const int64_t *counts, int64_t *kmax) {
    minv_status status = MINV_SUCCESS;
    int64_t *seen = NULL;
    *kmax = 0;
    if (!counts)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 10 (count) is NULL", fn);
    for (int64_t b = 0; b < count; b++) {
        if (counts[b] < 0 || counts[b] > k)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 10 (count): count[%lld] = %lld must be 0 to k = %lld",
                             fn, (long long)b, (long long)counts[b], (long long)k);
        if (counts[b] > *kmax) *kmax = counts[b];
    }
    if (*kmax > 0 && !index)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 8 (index) is NULL", fn);
    if (ldindex < (*kmax > 1 ? *kmax : 1))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 9 (ldindex) = %lld must be >= the largest count, %lld",
                         fn, (long long)ldindex, (long long)(*kmax > 1 ? *kmax : 1));
    if (*kmax == 0)
        return MINV_SUCCESS;
    /* seen[i] = 1 + the last member whose index holds i */
    if (!(seen = calloc((size_t)k, sizeof *seen)))
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld index marks", (long long)k);
    for (int64_t b = 0; b < count && status == MINV_SUCCESS; b++) {
        const int64_t *idx = index + (size_t)b * (size_t)ldindex;
        for (int64_t i = 0; i < counts[b]; i++) {
            if (idx[i] < 0 || idx[i] >= k) {
                status = minv_fail(ctx, MINV_ERR_INVALID_ARG,
                                   "%s: argument 8 (index): member %lld, entry %lld = %lld is outside 0 to k - 1 = %lld (0-based)",
                                   fn, (long long)b, (long long)i, (long long)idx[i], (long long)(k - 1));
                break;
            }
            if (seen[idx[i]] == b + 1) {
                status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 8 (index): member %lld names row %lld twice",
                                   fn, (long long)b, (long long)idx[i]);
                break;
            }
            seen[idx[i]] = b + 1;
        }
    }
    free(seen);
    return status;
}

/* In place means the very same storage; anything else that shares a pointer is refused. */
static minv_status check_in_place(minv_context *ctx, const char *fn, const char *out, const char *in, int same,
                                  int same_layout) {
    if (same && !same_layout)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG,
                         "%s: %s is %s but with another leading dimension or stride; in place needs the same layout",
                         fn, out, in);
    return MINV_SUCCESS;
}

/* ---- the call ---- */

static void report_init(minv_batch_report *r, minv_method method, int64_t nbatch, int64_t k, int64_t nrhs) {
    memset(r, 0, sizeof *r);
    r->method = method;
    r->backend = MINV_BACKEND_CPU;
    r->nbatch = nbatch;
    r->k = k;
    r->nrhs = nrhs;
    r->first_failed = -1;
    r->first_info = -1;
    r->residual = -1;
    r->worst = -1;
    r->rcond = -1;
    r->device = -1;
}

typedef struct {
    minv_fpguard guard;
    double t0;
} batch_call;

/* After report_init: a call refused because another thread is inside one on ctx says so in
 * the report and does not reach call_end. */
static minv_status call_begin(minv_context *ctx, batch_call *c, minv_batch_report *r) {
    minv_status status = minv_context_enter(ctx);
    if (status != MINV_SUCCESS) {
        minv_batch_note(r, "refused: %s", minv_status_string(status));
        return status;
    }
    minv_fpguard_begin(&c->guard);
    c->t0 = minv_now();
    memset(&ctx->moved, 0, sizeof ctx->moved);
    minv_clear_error(ctx);
    return MINV_SUCCESS;
}

static void call_end(minv_context *ctx, batch_call *c, minv_batch_report *r) {
    if (ctx->ops->end_call)
        ctx->ops->end_call(ctx);
    if (ctx->backend_note[0])
        minv_batch_note(r, "CPU backend: %s", ctx->backend_note);
    r->seconds = minv_now() - c->t0;
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
    minv_report_stages(ctx, r->backend, r->seconds, &r->stages, &r->device, &r->fallbacks);
    minv_fpguard_end(&c->guard);
    minv_context_leave(ctx);
}

/* The context's outcome arrays, for count members. */
static minv_status results_alloc(minv_context *ctx, minv_batch_results **res, int64_t count) {
    minv_batch_results *o = &ctx->batch_outcomes;
    *res = o;
    if (count <= ctx->batch_outcomes_count)
        return MINV_SUCCESS;
    minv_batch_outcomes_free(o);
    ctx->batch_outcomes_count = 0;
    const size_t n = (size_t)count;
    o->status = malloc(n * sizeof *o->status);
    o->info = malloc(n * sizeof *o->info);
    o->spd = malloc(n * sizeof *o->spd);
    o->residual = malloc(n * sizeof *o->residual);
    o->rcond = malloc(n * sizeof *o->rcond);
    if (!o->status || !o->info || !o->spd || !o->residual || !o->rcond) {
        minv_batch_outcomes_free(o);
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the outcomes of %lld members", (long long)count);
    }
    ctx->batch_outcomes_count = count;
    return MINV_SUCCESS;
}

static void results_reset(minv_batch_results *res, int64_t count) {
    res->tallied = 0;
    if (!res->status)
        return;
    for (int64_t b = 0; b < count; b++) {
        res->status[b] = MINV_SUCCESS;
        res->info[b] = -1;
        res->spd[b] = 0;
        res->residual[b] = -1;
        res->rcond[b] = -1;
    }
}

void minv_batch_outcomes_free(minv_batch_results *res) {
    free(res->status);
    free(res->info);
    free(res->spd);
    free(res->residual);
    free(res->rcond);
    *res = (minv_batch_results){0};
}

void minv_batch_member_reason(char *buf, size_t len, minv_status st, int64_t info) {
    switch (st) {
    case MINV_ERR_NOT_FINITE:
        if (info >= 0)
            snprintf(buf, len, "a NaN or Inf in column %lld (1-based)", (long long)info + 1);
        else
            snprintf(buf, len, "a NaN or Inf in its right-hand sides");
        break;
    case MINV_ERR_NOT_SPD:
        if (info >= 0)
            snprintf(buf, len, "the leading minor of order %lld is not positive definite (column %lld, 1-based)",
                     (long long)info + 1, (long long)info + 1);
        else
            snprintf(buf, len, "not symmetric, so the SPD path cannot take it");
        break;
    default:
        if (info >= 0)
            snprintf(buf, len, "exactly singular: no pivot in column %lld (1-based)", (long long)info + 1);
        else
            snprintf(buf, len, "singular to working precision (reciprocal condition below eps); its result is written");
        break;
    }
}

/* "member 18 of 100 (0-based index 17): ..." for the first failed member: counted as people
 * (and Fortran) count, with C's index beside. For a subset, idx is the member's index and info
 * a column of its subset. */
static minv_status fail_member(minv_context *ctx, const char *fn, int64_t b, int64_t count, minv_status st,
                               int64_t info, const int64_t *idx, int64_t failed) {
    char why[160], where[192] = "";
    minv_batch_member_reason(why, sizeof why, st, info);
    if (idx)
        snprintf(where, sizeof where, "; positions are in its subset A(idx, idx), whose column %lld is the member's column %lld (1-based)",
                 (long long)info + 1, (long long)idx[info] + 1);
    return minv_fail(ctx, st, "%s: member %lld of %lld (0-based index %lld): %s%s; %lld member%s failed, every other one is done",
                     fn, (long long)b + 1, (long long)count, (long long)b, why, where, (long long)failed,
                     failed == 1 ? "" : "s");
}

/* The report from the members' outcomes (or the backend's tally of them), their statuses to
 * the caller, and the call's status. */
static minv_status summarize(minv_context *ctx, const char *fn, const minv_batch *a, int64_t nrhs,
                             minv_batch_results *res, minv_status *status_out, minv_batch_report *r) {
    minv_batch_tally *t = &res->tally;
    if (!res->tallied) {
        minv_tally_init(t);
        for (int64_t b = 0; b < a->count; b++)
            minv_tally_add(t, b, res->status[b], res->info[b], res->spd[b], minv_batch_order(a, b), res->rcond[b],
                           res->residual[b]);
    }
    if (status_out)
        for (int64_t b = 0; b < a->count; b++) status_out[b] = res->status[b];
    r->failed = t->failed;
    r->first_failed = t->first_failed;
    r->first_status = (minv_status)t->first_status;
    /* a subset's column, as the member's */
    const int64_t *idx = a->index && t->first_info >= 0 ? a->index + t->first_failed * a->ldindex : NULL;
    r->first_info = idx ? idx[t->first_info] : t->first_info;
    r->rcond = t->rcond;
    r->residual = t->residual;
    r->worst = t->worst;
    r->cholesky_count = t->count[1];
    r->flops = minv_batch_flops_sums(0, t->sum_n2[0], t->sum_n3[0], nrhs) +
               minv_batch_flops_sums(1, t->sum_n2[1], t->sum_n3[1], nrhs);
    const int64_t ok = t->count[0] + t->count[1];
    if (r->residual < 0)
        r->residual_kind = 0;
    if (ok > 0 && r->cholesky_count == ok)
        r->method = MINV_METHOD_CHOLESKY;
    else if (r->cholesky_count > 0)
        r->method = MINV_METHOD_AUTO;
    if (r->method == MINV_METHOD_AUTO && ok > 0)
        minv_batch_note(r, "%lld of %lld members by the SPD path, the others by the general path",
                        (long long)r->cholesky_count, (long long)ok);
    if (r->failed)
        return fail_member(ctx, fn, r->first_failed, a->count, r->first_status, t->first_info, idx, r->failed);
    return MINV_SUCCESS;
}

/* The backend's op, and the CPU's for host data the GPU cannot take. */
static minv_status run_batched(minv_context *ctx, minv_place place, minv_method method, minv_dtype compute,
                               const minv_batch *a, const minv_batch *b, const minv_batch *x,
                               minv_batch_results *res, minv_batch_report *r) {
    const minv_backend_ops *ops = ctx->ops;
    minv_status status;
    r->backend = ctx->backend;
    for (;;) {
        results_reset(res, a->count);
        if (b) {
            minv_solve_batched_op op = place == MINV_ON_DEVICE ? ops->solve_batched_device : ops->solve_batched;
            status = op ? op(ctx, method, compute, a, b, x, res, r)
                        : minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "batched solves are not implemented on the %s backend", ops->name);
        } else {
            minv_invert_batched_op op = place == MINV_ON_DEVICE ? ops->invert_batched_device : ops->invert_batched;
            status = op ? op(ctx, method, compute, a, x, res, r)
                        : minv_fail(ctx, MINV_ERR_NOT_IMPLEMENTED, "batched inversion is not implemented on the %s backend", ops->name);
        }
        if (!minv_fall_back_to_cpu(ctx, status, place, 1, "it", &ops, MINV_REPORT_SINK(r)))
            return status;
    }
}

/* Every form ends here: a is the input batch, b the right-hand sides (NULL to invert), x the
 * output; the members' outcomes go to `given` when not NULL. */
/* Members of order 0, or no right-hand sides: every member succeeds with nothing read or
 * written (LAPACK's quick return). Taken before a solve's batches are described, where
 * cols == 0 means square. */
static void all_succeed(int64_t nbatch, minv_status *status_out) {
    for (int64_t m = 0; status_out && m < nbatch; m++) status_out[m] = MINV_SUCCESS;
}

static minv_status batched_expert(minv_context *ctx, const char *fn, minv_place place, minv_method method,
                                  minv_dtype compute, const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                  minv_status *status_out, minv_batch_results *given, minv_batch_report *r) {
    minv_batch_results none = {0}, *res = given ? given : &none;
    minv_status status = MINV_SUCCESS;
    MINV_TRY(minv_check_place(ctx, fn, place));
    if (a->count == 0)
        return MINV_SUCCESS;
    if (!a->sizes && a->rows == 0) { /* members of order 0: nothing for a backend to do */
        all_succeed(a->count, status_out);
        return MINV_SUCCESS;
    }
    MINV_TRY(minv_call_place(ctx, place));
    /* device data whose members' outcomes nobody asked for: the backend tallies them there */
    if (!given && (place == MINV_ON_HOST || status_out))
        MINV_TRY(results_alloc(ctx, &res, a->count));
    MINV_TRY(run_batched(ctx, place, method, compute, a, b, x, res, r));
    status = summarize(ctx, fn, a, b ? b->cols : 0, res, status_out, r);
cleanup:
    return status;
}

static minv_batch strided(minv_dtype t, int64_t count, int64_t rows, int64_t cols, const void *p, int64_t ld,
                          int64_t stride) {
    return (minv_batch){.dtype = t, .count = count, .rows = rows, .cols = cols, .square = cols == 0,
                        .base = (void *)p, .ld = ld, .stride = stride};
}

static minv_batch pointers(minv_dtype t, int64_t count, int64_t rows, int64_t cols, const void *const *p,
                           int64_t ld, const int64_t *sizes, const int64_t *lds) {
    return (minv_batch){.dtype = t, .count = count, .rows = rows, .cols = cols, .square = cols == 0,
                        .sizes = sizes, .ptrs = (void *const *)p, .ld = ld, .lds = lds};
}

/* ---- inversion forms ---- */

static minv_status invert_strided(minv_context *ctx, const char *fn, minv_place place, minv_method method,
                                  minv_dtype t, minv_dtype tc, int64_t k, int64_t nbatch, const void *a, int64_t lda,
                                  int64_t stride_a, void *ainv, int64_t ldainv, int64_t stride_ainv,
                                  minv_status *status_out, minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    report_init(r, method, nbatch, k, 0);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(check_size(ctx, fn, 3, "k", k, 0));
    MINV_TRY(check_size(ctx, fn, 4, "nbatch", nbatch, 0));
    if (nbatch > 0) {
        MINV_TRY(check_strided(ctx, fn, 5, "a", a, k, k, lda, stride_a, nbatch, t));
        MINV_TRY(check_strided(ctx, fn, 8, "ainv", ainv, k, k, ldainv, stride_ainv, nbatch, t));
        MINV_TRY(check_in_place(ctx, fn, "ainv", "a", k > 0 && ainv == a, ldainv == lda && stride_ainv == stride_a));
    }
    {
        minv_batch in = strided(t, nbatch, k, 0, a, lda, stride_a), out = strided(t, nbatch, k, 0, ainv, ldainv, stride_ainv);
        status = batched_expert(ctx, fn, place, method, tc, &in, NULL, &out, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

static minv_status invert_pointers(minv_context *ctx, const char *fn, minv_method method, minv_dtype t,
                                   minv_dtype tc, int64_t k, int64_t nbatch, const void *const *a, int64_t lda,
                                   void *const *ainv, int64_t ldainv, minv_status *status_out,
                                   minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    report_init(r, method, nbatch, k, 0);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(check_size(ctx, fn, 3, "k", k, 0));
    MINV_TRY(check_size(ctx, fn, 4, "nbatch", nbatch, 0));
    if (nbatch > 0) {
        MINV_TRY(check_pointers(ctx, fn, 5, "a", (const void *const *)a, 6, lda, NULL, k, NULL, 0, 1, nbatch, t));
        MINV_TRY(check_pointers(ctx, fn, 7, "ainv", (const void *const *)ainv, 8, ldainv, NULL, k, NULL, 0, 1, nbatch, t));
        for (int64_t b = 0; k > 0 && b < nbatch; b++)
            MINV_TRY(check_in_place(ctx, fn, "an ainv[b]", "a[b]", ainv[b] == a[b], ldainv == lda));
    }
    {
        minv_batch in = pointers(t, nbatch, k, 0, a, lda, NULL, NULL), out = pointers(t, nbatch, k, 0, (const void *const *)ainv, ldainv, NULL, NULL);
        status = batched_expert(ctx, fn, MINV_ON_HOST, method, tc, &in, NULL, &out, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

static minv_status invert_vsize(minv_context *ctx, const char *fn, minv_method method, minv_dtype t, minv_dtype tc,
                                const int64_t *k, int64_t nbatch, const void *const *a, const int64_t *lda,
                                void *const *ainv, const int64_t *ldainv, minv_status *status_out,
                                minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    int64_t kmax = 0;
    report_init(r, method, nbatch, 0, 0);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(check_size(ctx, fn, 4, "nbatch", nbatch, 0));
    if (nbatch > 0) {
        MINV_TRY(check_orders(ctx, fn, 3, k, nbatch, &kmax));
        r->k = kmax;
        MINV_TRY(check_pointers(ctx, fn, 5, "a", (const void *const *)a, 6, 0, lda, 0, k, 0, 1, nbatch, t));
        MINV_TRY(check_pointers(ctx, fn, 7, "ainv", (const void *const *)ainv, 8, 0, ldainv, 0, k, 0, 1, nbatch, t));
        for (int64_t b = 0; b < nbatch; b++)
            MINV_TRY(check_in_place(ctx, fn, "an ainv[b]", "a[b]", k[b] > 0 && ainv[b] == a[b], ldainv[b] == lda[b]));
    }
    {
        minv_batch in = pointers(t, nbatch, kmax, 0, a, 0, k, lda),
                   out = pointers(t, nbatch, kmax, 0, (const void *const *)ainv, 0, k, ldainv);
        status = batched_expert(ctx, fn, MINV_ON_HOST, method, tc, &in, NULL, &out, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

static minv_status invert_subset(minv_context *ctx, const char *fn, minv_method method, minv_dtype t, minv_dtype tc,
                                 int64_t k, int64_t nbatch, const void *a, int64_t lda, int64_t stride_a,
                                 const int64_t *index, int64_t ldindex, const int64_t *count, void *ainv,
                                 int64_t ldainv, int64_t stride_ainv, minv_status *status_out,
                                 minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    int64_t kmax = 0;
    report_init(r, method, nbatch, 0, 0);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(check_size(ctx, fn, 3, "k", k, 0));
    MINV_TRY(check_size(ctx, fn, 4, "nbatch", nbatch, 0));
    if (nbatch > 0) {
        MINV_TRY(check_strided(ctx, fn, 5, "a", a, k, k, lda, stride_a, nbatch, t));
        MINV_TRY(check_subsets(ctx, fn, k, nbatch, index, ldindex, count, &kmax));
        r->k = kmax;
        /* the output holds count[b] x count[b] members: ldainv >= the largest count */
        MINV_TRY(check_strided(ctx, fn, 11, "ainv", ainv, kmax, kmax, ldainv, stride_ainv, nbatch, t));
        if (kmax > 0 && ainv == a) {
            status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 11 (ainv) is a: subsets are inverted out of place", fn);
            goto cleanup;
        }
    }
    {
        minv_batch in = strided(t, nbatch, kmax, 0, a, lda, stride_a), out = strided(t, nbatch, kmax, 0, ainv, ldainv, stride_ainv);
        in.sizes = out.sizes = count;
        in.index = index;
        in.ldindex = ldindex;
        status = batched_expert(ctx, fn, MINV_ON_HOST, method, tc, &in, NULL, &out, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

/* ---- solve forms ---- */

static minv_status solve_strided(minv_context *ctx, const char *fn, minv_place place, minv_method method,
                                 minv_dtype t, minv_dtype tc, int64_t k, int64_t nrhs, int64_t nbatch, const void *a,
                                 int64_t lda, int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, void *x,
                                 int64_t ldx, int64_t stride_x, minv_status *status_out, minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    report_init(r, method, nbatch, k, nrhs);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    MINV_TRY(check_size(ctx, fn, 3, "k", k, 0));
    MINV_TRY(check_size(ctx, fn, 4, "nrhs", nrhs, 0));
    MINV_TRY(check_size(ctx, fn, 5, "nbatch", nbatch, 0));
    if (nbatch > 0) {
        MINV_TRY(check_strided(ctx, fn, 6, "a", a, k, k, lda, stride_a, nbatch, t));
        MINV_TRY(check_strided(ctx, fn, 9, "b", b, k, nrhs, ldb, stride_b, nbatch, t));
        MINV_TRY(check_strided(ctx, fn, 12, "x", x, k, nrhs, ldx, stride_x, nbatch, t));
        MINV_TRY(check_in_place(ctx, fn, "x", "b", k > 0 && nrhs > 0 && x == b, ldx == ldb && stride_x == stride_b));
        if (k > 0 && x == a) {
            status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 12 (x) is a; x may be b (in place), not a", fn);
            goto cleanup;
        }
    }
    if (nrhs == 0) {
        all_succeed(nbatch, status_out);
        goto cleanup;
    }
    {
        minv_batch am = strided(t, nbatch, k, 0, a, lda, stride_a), bm = strided(t, nbatch, k, nrhs, b, ldb, stride_b),
                   xm = strided(t, nbatch, k, nrhs, x, ldx, stride_x);
        status = batched_expert(ctx, fn, place, method, tc, &am, &bm, &xm, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

static minv_status solve_pointers(minv_context *ctx, const char *fn, minv_method method, minv_dtype t, minv_dtype tc,
                                  int vsize, int64_t k, const int64_t *ks, int64_t nrhs, int64_t nbatch, const void *const *a,
                                  int64_t lda, const int64_t *ldas, const void *const *b, int64_t ldb,
                                  const int64_t *ldbs, void *const *x, int64_t ldx, const int64_t *ldxs,
                                  minv_status *status_out, minv_batch_report *report) {
    if (!ctx)
        return MINV_ERR_INVALID_ARG;
    minv_batch_report local;
    minv_batch_report *r = report ? report : &local;
    batch_call call;
    minv_status status = MINV_SUCCESS;
    int64_t kmax = k;
    report_init(r, method, nbatch, k, nrhs);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    if (!vsize)
        MINV_TRY(check_size(ctx, fn, 3, "k", k, 0));
    MINV_TRY(check_size(ctx, fn, 4, "nrhs", nrhs, 0));
    MINV_TRY(check_size(ctx, fn, 5, "nbatch", nbatch, 0));
    if (vsize) {
        MINV_TRY(check_orders(ctx, fn, 3, ks, nbatch, &kmax));
        r->k = kmax;
    }
    if (nbatch > 0) {
        MINV_TRY(check_pointers(ctx, fn, 6, "a", (const void *const *)a, 7, lda, ldas, k, ks, 0, 1, nbatch, t));
        MINV_TRY(check_pointers(ctx, fn, 8, "b", (const void *const *)b, 9, ldb, ldbs, k, ks, nrhs, 0, nbatch, t));
        MINV_TRY(check_pointers(ctx, fn, 10, "x", (const void *const *)x, 11, ldx, ldxs, k, ks, nrhs, 0, nbatch, t));
        for (int64_t m = 0; nrhs > 0 && m < nbatch; m++) {
            const int64_t n = ks ? ks[m] : k;
            MINV_TRY(check_in_place(ctx, fn, "an x[b]", "b[b]", n > 0 && x[m] == b[m],
                                    (ldxs ? ldxs[m] : ldx) == (ldbs ? ldbs[m] : ldb)));
            if (n > 0 && x[m] == a[m]) {
                status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument 10 (x): x[%lld] is a[%lld]; x may be b, not a", fn,
                                   (long long)m, (long long)m);
                goto cleanup;
            }
        }
    }
    if (nrhs == 0) {
        all_succeed(nbatch, status_out);
        goto cleanup;
    }
    {
        minv_batch am = pointers(t, nbatch, kmax, 0, a, lda, ks, ldas), bm = pointers(t, nbatch, kmax, nrhs, b, ldb, ks, ldbs),
                   xm = pointers(t, nbatch, kmax, nrhs, (const void *const *)x, ldx, ks, ldxs);
        status = batched_expert(ctx, fn, MINV_ON_HOST, method, tc, &am, &bm, &xm, status_out, NULL, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

/* ---- for the NetCDF layer ---- */

minv_status minv_invert_batched_results(minv_context *ctx, minv_method method, minv_dtype t, int64_t k,
                                        int64_t nbatch, void *a, minv_batch_results *res, minv_batch_report *r) {
    static const char fn[] = "minv_invert_file";
    batch_call call;
    minv_status status = MINV_SUCCESS;
    report_init(r, method, nbatch, k, 0);
    if ((status = call_begin(ctx, &call, r)) != MINV_SUCCESS)
        return status;
    MINV_TRY(check_method(ctx, fn, method));
    {
        minv_batch m = strided(t, nbatch, k, 0, a, k, k * k);
        status = batched_expert(ctx, fn, MINV_ON_HOST, method, t, &m, NULL, &m, NULL, res, r);
    }
cleanup:
    call_end(ctx, &call, r);
    return status;
}

/* ---- the public wrappers ---- */

#define D MINV_R64
#define S MINV_R32

minv_status minv_invert_batched_d(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                  const double *a, int64_t lda, int64_t stride_a, double *ainv,
                                  int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                  minv_batch_report *report) {
    return invert_strided(ctx, "minv_invert_batched_d", MINV_ON_HOST, method, D, D, k, nbatch, a, lda, stride_a, ainv,
                          ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_s(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                  const float *a, int64_t lda, int64_t stride_a, float *ainv,
                                  int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                  minv_batch_report *report) {
    return invert_strided(ctx, "minv_invert_batched_s", MINV_ON_HOST, method, S, S, k, nbatch, a, lda, stride_a, ainv,
                          ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_sd(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                   const float *a, int64_t lda, int64_t stride_a, float *ainv,
                                   int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                   minv_batch_report *report) {
    return invert_strided(ctx, "minv_invert_batched_sd", MINV_ON_HOST, method, S, D, k, nbatch, a, lda, stride_a, ainv,
                          ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_ptr_d(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nbatch, const double *const *a, int64_t lda,
                                      double *const *ainv, int64_t ldainv, minv_status *status,
                                      minv_batch_report *report) {
    return invert_pointers(ctx, "minv_invert_batched_ptr_d", method, D, D, k, nbatch, (const void *const *)a, lda,
                           (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_ptr_s(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nbatch, const float *const *a, int64_t lda,
                                      float *const *ainv, int64_t ldainv, minv_status *status,
                                      minv_batch_report *report) {
    return invert_pointers(ctx, "minv_invert_batched_ptr_s", method, S, S, k, nbatch, (const void *const *)a, lda,
                           (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_ptr_sd(minv_context *ctx, minv_method method, int64_t k,
                                       int64_t nbatch, const float *const *a, int64_t lda,
                                       float *const *ainv, int64_t ldainv, minv_status *status,
                                       minv_batch_report *report) {
    return invert_pointers(ctx, "minv_invert_batched_ptr_sd", method, S, D, k, nbatch, (const void *const *)a, lda,
                           (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_vsize_d(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nbatch, const double *const *a,
                                        const int64_t *lda, double *const *ainv,
                                        const int64_t *ldainv, minv_status *status,
                                        minv_batch_report *report) {
    return invert_vsize(ctx, "minv_invert_batched_vsize_d", method, D, D, k, nbatch, (const void *const *)a, lda,
                        (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_vsize_s(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nbatch, const float *const *a,
                                        const int64_t *lda, float *const *ainv,
                                        const int64_t *ldainv, minv_status *status,
                                        minv_batch_report *report) {
    return invert_vsize(ctx, "minv_invert_batched_vsize_s", method, S, S, k, nbatch, (const void *const *)a, lda,
                        (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_vsize_sd(minv_context *ctx, minv_method method,
                                         const int64_t *k, int64_t nbatch, const float *const *a,
                                         const int64_t *lda, float *const *ainv,
                                         const int64_t *ldainv, minv_status *status,
                                         minv_batch_report *report) {
    return invert_vsize(ctx, "minv_invert_batched_vsize_sd", method, S, D, k, nbatch, (const void *const *)a, lda,
                        (void *const *)ainv, ldainv, status, report);
}

minv_status minv_invert_batched_subset_d(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const double *a, int64_t lda,
                                         int64_t stride_a, const int64_t *index, int64_t ldindex,
                                         const int64_t *count, double *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report) {
    return invert_subset(ctx, "minv_invert_batched_subset_d", method, D, D, k, nbatch, a, lda, stride_a, index,
                         ldindex, count, ainv, ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_subset_s(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const float *a, int64_t lda,
                                         int64_t stride_a, const int64_t *index, int64_t ldindex,
                                         const int64_t *count, float *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report) {
    return invert_subset(ctx, "minv_invert_batched_subset_s", method, S, S, k, nbatch, a, lda, stride_a, index,
                         ldindex, count, ainv, ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_subset_sd(minv_context *ctx, minv_method method, int64_t k,
                                          int64_t nbatch, const float *a, int64_t lda,
                                          int64_t stride_a, const int64_t *index,
                                          int64_t ldindex, const int64_t *count, float *ainv,
                                          int64_t ldainv, int64_t stride_ainv,
                                          minv_status *status, minv_batch_report *report) {
    return invert_subset(ctx, "minv_invert_batched_subset_sd", method, S, D, k, nbatch, a, lda, stride_a, index,
                         ldindex, count, ainv, ldainv, stride_ainv, status, report);
}

minv_status minv_solve_batched_d(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                 int64_t nbatch, const double *a, int64_t lda, int64_t stride_a,
                                 const double *b, int64_t ldb, int64_t stride_b, double *x,
                                 int64_t ldx, int64_t stride_x, minv_status *status,
                                 minv_batch_report *report) {
    return solve_strided(ctx, "minv_solve_batched_d", MINV_ON_HOST, method, D, D, k, nrhs, nbatch, a, lda, stride_a, b, ldb,
                         stride_b, x, ldx, stride_x, status, report);
}

minv_status minv_solve_batched_s(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                 int64_t nbatch, const float *a, int64_t lda, int64_t stride_a,
                                 const float *b, int64_t ldb, int64_t stride_b, float *x,
                                 int64_t ldx, int64_t stride_x, minv_status *status,
                                 minv_batch_report *report) {
    return solve_strided(ctx, "minv_solve_batched_s", MINV_ON_HOST, method, S, S, k, nrhs, nbatch, a, lda, stride_a, b, ldb,
                         stride_b, x, ldx, stride_x, status, report);
}

minv_status minv_solve_batched_sd(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                  int64_t nbatch, const float *a, int64_t lda, int64_t stride_a,
                                  const float *b, int64_t ldb, int64_t stride_b, float *x,
                                  int64_t ldx, int64_t stride_x, minv_status *status,
                                  minv_batch_report *report) {
    return solve_strided(ctx, "minv_solve_batched_sd", MINV_ON_HOST, method, S, D, k, nrhs, nbatch, a, lda, stride_a, b,
                         ldb, stride_b, x, ldx, stride_x, status, report);
}

minv_status minv_solve_batched_ptr_d(minv_context *ctx, minv_method method, int64_t k,
                                     int64_t nrhs, int64_t nbatch, const double *const *a,
                                     int64_t lda, const double *const *b, int64_t ldb,
                                     double *const *x, int64_t ldx, minv_status *status,
                                     minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_ptr_d", method, D, D, 0, k, NULL, nrhs, nbatch,
                          (const void *const *)a, lda, NULL, (const void *const *)b, ldb, NULL, (void *const *)x, ldx,
                          NULL, status, report);
}

minv_status minv_solve_batched_ptr_s(minv_context *ctx, minv_method method, int64_t k,
                                     int64_t nrhs, int64_t nbatch, const float *const *a,
                                     int64_t lda, const float *const *b, int64_t ldb,
                                     float *const *x, int64_t ldx, minv_status *status,
                                     minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_ptr_s", method, S, S, 0, k, NULL, nrhs, nbatch,
                          (const void *const *)a, lda, NULL, (const void *const *)b, ldb, NULL, (void *const *)x, ldx,
                          NULL, status, report);
}

minv_status minv_solve_batched_ptr_sd(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nrhs, int64_t nbatch, const float *const *a,
                                      int64_t lda, const float *const *b, int64_t ldb,
                                      float *const *x, int64_t ldx, minv_status *status,
                                      minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_ptr_sd", method, S, D, 0, k, NULL, nrhs, nbatch,
                          (const void *const *)a, lda, NULL, (const void *const *)b, ldb, NULL, (void *const *)x, ldx,
                          NULL, status, report);
}

minv_status minv_solve_batched_vsize_d(minv_context *ctx, minv_method method,
                                       const int64_t *k, int64_t nrhs, int64_t nbatch, const double *const *a,
                                       const int64_t *lda, const double *const *b,
                                       const int64_t *ldb, double *const *x, const int64_t *ldx,
                                       minv_status *status, minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_vsize_d", method, D, D, 1, 0, k, nrhs, nbatch, (const void *const *)a,
                          0, lda, (const void *const *)b, 0, ldb, (void *const *)x, 0, ldx, status, report);
}

minv_status minv_solve_batched_vsize_s(minv_context *ctx, minv_method method,
                                       const int64_t *k, int64_t nrhs, int64_t nbatch, const float *const *a,
                                       const int64_t *lda, const float *const *b,
                                       const int64_t *ldb, float *const *x, const int64_t *ldx,
                                       minv_status *status, minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_vsize_s", method, S, S, 1, 0, k, nrhs, nbatch, (const void *const *)a,
                          0, lda, (const void *const *)b, 0, ldb, (void *const *)x, 0, ldx, status, report);
}

minv_status minv_solve_batched_vsize_sd(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nrhs, int64_t nbatch, const float *const *a,
                                        const int64_t *lda, const float *const *b,
                                        const int64_t *ldb, float *const *x, const int64_t *ldx,
                                        minv_status *status, minv_batch_report *report) {
    return solve_pointers(ctx, "minv_solve_batched_vsize_sd", method, S, D, 1, 0, k, nrhs, nbatch,
                          (const void *const *)a, 0, lda, (const void *const *)b, 0, ldb, (void *const *)x, 0, ldx,
                          status, report);
}

minv_status minv_invert_batched_device_d(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const double *a, int64_t lda,
                                         int64_t stride_a, double *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report) {
    return invert_strided(ctx, "minv_invert_batched_device_d", MINV_ON_DEVICE, method, D, D, k, nbatch, a, lda, stride_a,
                          ainv, ldainv, stride_ainv, status, report);
}

minv_status minv_invert_batched_device_s(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const float *a, int64_t lda,
                                         int64_t stride_a, float *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report) {
    return invert_strided(ctx, "minv_invert_batched_device_s", MINV_ON_DEVICE, method, S, S, k, nbatch, a, lda, stride_a,
                          ainv, ldainv, stride_ainv, status, report);
}

minv_status minv_solve_batched_device_d(minv_context *ctx, minv_method method, int64_t k,
                                        int64_t nrhs, int64_t nbatch, const double *a,
                                        int64_t lda, int64_t stride_a, const double *b,
                                        int64_t ldb, int64_t stride_b, double *x, int64_t ldx,
                                        int64_t stride_x, minv_status *status,
                                        minv_batch_report *report) {
    return solve_strided(ctx, "minv_solve_batched_device_d", MINV_ON_DEVICE, method, D, D, k, nrhs, nbatch, a, lda,
                         stride_a, b, ldb, stride_b, x, ldx, stride_x, status, report);
}

minv_status minv_solve_batched_device_s(minv_context *ctx, minv_method method, int64_t k,
                                        int64_t nrhs, int64_t nbatch, const float *a,
                                        int64_t lda, int64_t stride_a, const float *b,
                                        int64_t ldb, int64_t stride_b, float *x, int64_t ldx,
                                        int64_t stride_x, minv_status *status,
                                        minv_batch_report *report) {
    return solve_strided(ctx, "minv_solve_batched_device_s", MINV_ON_DEVICE, method, S, S, k, nrhs, nbatch, a, lda,
                         stride_a, b, ldb, stride_b, x, ldx, stride_x, status, report);
}
