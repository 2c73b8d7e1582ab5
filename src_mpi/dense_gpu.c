/* The GPU backend of one matrix over many ranks: cuSOLVERMp, in a plugin (libminv_mpi_cusolvermp,
 * next to libminv_mpi) opened the first time a GPU context asks, so that libminv_mpi loads where
 * there is no GPU, no driver and no NCCL. The plugin's sessions (NCCL communicator, cuSOLVERMp
 * handle, a device grid per grid shape) live with the context, one per device and communicator,
 * and serve every later call on any layout of that communicator: cuSOLVERMp takes one handle per
 * device, and NCCL's set-up is a collective best paid once per DA run. A session whose call failed
 * is aborted and the next call opens another. Where the plugin cannot be had on some rank, every
 * rank goes to ScaLAPACK and the report says why. */
#define _GNU_SOURCE /* dladdr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#if !MINV_MPI_HAVE_CUSOLVERMP

const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, const minv_mpi_layout *l, minv_report *r, char *why,
                                           size_t len) {
    (void)ctx, (void)l, (void)r;
    snprintf(why, len, "this minv was built without cuSOLVERMp (the MPI layer's GPU half: see the README)");
    return NULL;
}

#else

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>

#include "cusolvermp/plugin.h"

/* The plugin beside libminv_mpi, loaded once (the loader keeps it). */
static const minv_mpi_gpu_plugin *load(char *why, size_t len) {
    Dl_info self;
    char path[PATH_MAX], dir[PATH_MAX];
    if (!dladdr((void *)minv_mpi_gpu_ops, &self) || !self.dli_fname) {
        snprintf(why, len, "cannot tell where libminv_mpi lies, to open its cuSOLVERMp plugin");
        return NULL;
    }
    snprintf(dir, sizeof dir, "%s", self.dli_fname);
    snprintf(path, sizeof path, "%s/libminv_mpi_cusolvermp.so", dirname(dir));
    void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!plugin) { /* a missing driver, NCCL older than 2.29 (ncclCommQueryProperties), ... */
        snprintf(why, len, "the cuSOLVERMp plugin does not load: %s", dlerror());
        return NULL;
    }
    minv_mpi_gpu_plugin_fn get = (minv_mpi_gpu_plugin_fn)dlsym(plugin, MINV_MPI_PLUGIN_SYMBOL);
    const minv_mpi_gpu_plugin *p = get ? get() : NULL;
    if (!p || p->version != MINV_MPI_PLUGIN_VERSION) {
        snprintf(why, len, "'%s' is not this minv's cuSOLVERMp plugin", path);
        return NULL;
    }
    return p;
}

/* One session on the context's list: the plugin's, for `device` and the ranks of `comm`. */
typedef struct gpu_session {
    const minv_mpi_gpu_plugin *plugin;
    minv_mpi_gpu_session *session;
    MPI_Comm comm; /* a duplicate of the layouts' communicator, the session's own */
    int device;
    struct gpu_session *next;
} gpu_session;

static void close_one(gpu_session *s, int abort) {
    int finalized = 0;
    if (s->session)
        s->plugin->close(s->session, abort);
    MPI_Finalized(&finalized);
    if (!finalized && s->comm != MPI_COMM_NULL) /* a context may be destroyed after MPI_Finalize */
        MPI_Comm_free(&s->comm);
    free(s);
}

/* The context's list, at its destruction. */
static void close_all(void *list) {
    for (gpu_session *s = list, *next; s; s = next) {
        next = s->next;
        close_one(s, 0);
    }
}

static gpu_session *sessions(const minv_context *ctx) {
    return ctx->attached.release == close_all ? ctx->attached.state : NULL;
}

/* The context's session for this device and the ranks of comm, in their order, or NULL. */
static gpu_session *find(const minv_context *ctx, MPI_Comm comm, int device) {
    for (gpu_session *s = sessions(ctx); s; s = s->next) {
        int same;
        MPI_Comm_compare(s->comm, comm, &same);
        if (s->device == device && (same == MPI_IDENT || same == MPI_CONGRUENT))
            return s;
    }
    return NULL;
}

static int context_device(minv_context *ctx) {
    int count = 0, devices[MINV_MAX_DEVICES];
    minv_context_devices(ctx, &count, devices);
    return count > 0 ? devices[0] : 0;
}

/* After a failed call (its collectives may not have finished on every rank, and cuSOLVERMp's
 * state after an error is not documented: a getrf that overran its pivots, 47c9d95, left the
 * next call hanging) the session is aborted; the next call opens another. */
static void drop(minv_context *ctx, gpu_session *gone) {
    gpu_session **p = (gpu_session **)&ctx->attached.state;
    while (*p && *p != gone) p = &(*p)->next;
    if (*p)
        *p = gone->next;
    close_one(gone, 1);
}

/* A new session for the context's device and the ranks of comm, opened by every rank at once,
 * put on the context's list; NULL with why where some rank could not. */
static gpu_session *open_session(minv_context *ctx, MPI_Comm comm, int device, minv_report *r, char *why, size_t len) {
    const double t0 = MPI_Wtime();
    const minv_mpi_gpu_plugin *plugin = load(why, len); /* which says why not */
    gpu_session *fresh = plugin ? calloc(1, sizeof *fresh) : NULL;
    int ok = fresh != NULL;
    if (plugin && !fresh)
        snprintf(why, len, "out of memory for a cuSOLVERMp session");
    if (fresh) {
        fresh->comm = MPI_COMM_NULL;
        fresh->plugin = plugin;
        fresh->device = device;
    }
    if (minv_mpi_min_i64(ok, comm) == 1) {
        MPI_Comm_dup(comm, &fresh->comm);
        ok = plugin->open(fresh->comm, device, &fresh->session, why, len) == 0;
    }
    /* every rank opened it, or every rank closes it again */
    if (minv_mpi_min_i64(ok, comm) == 1) {
        int size;
        MPI_Comm_size(comm, &size);
        fresh->next = sessions(ctx);
        ctx->attached.state = fresh;
        ctx->attached.release = close_all;
        double seconds = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm); /* the same report everywhere */
        minv_report_note(r, "cuSOLVERMp session opened (%d ranks, %.3f s)", size, seconds); /* later calls reuse it */
        return fresh;
    }
    if (fresh)
        close_one(fresh, 1);
    return NULL;
}

/* The context's session for the ranks of comm on its GPU; where some rank has none (the
 * context's first call on these ranks, or the last one failed and was aborted, perhaps earlier
 * in this call) every rank opens a new one, so that all hold the same. NULL with why where some
 * rank could not. Collective. */
static gpu_session *session_for(minv_context *ctx, MPI_Comm comm, minv_report *r, char *why, size_t len) {
    const int device = context_device(ctx);
    gpu_session *s = find(ctx, comm, device);
    if (minv_mpi_max_i64(s == NULL, comm) == 1) {
        if (s)
            drop(ctx, s);
        s = open_session(ctx, comm, device, r, why, len);
    }
    return s;
}

static minv_mpi_gpu_piece piece(const minv_mpi_layout *l, void *data) {
    return (minv_mpi_gpu_piece){l->m, l->n, l->mb, l->nb, l->lld, l->local_cols, (int)l->myrow, (int)l->mycol, data};
}

/* Where the GPUs' memory cannot hold the call, ScaLAPACK runs it on the CPU, said in the
 * report. cuSOLVERMp is not taken at its word where its factorisation fails: its potrf returns
 * CUSOLVER_STATUS_INTERNAL_ERROR for an indefinite matrix (cuSOLVERMp 0.8), and the column in
 * its info is another library's reading. ScaLAPACK redoes the factorisation from the host
 * pieces, which still hold A (and B): where A is not positive definite, or singular, it finds
 * the column as the CPU path does; where cuSOLVERMp failed for its own reasons, ScaLAPACK's
 * factors are in hand and it finishes the call on the CPU, said in the report, as serial minv
 * hands a GPU's failure to the CPU. LU's exactly zero pivot (read off U by the plugin) is
 * exact and taken as it is. */
static int redo(int spd, int outcome, int info) {
    return outcome == MINV_MPI_GPU_FACTOR_FAILED || outcome == MINV_MPI_GPU_NO_MEMORY || (spd && info > 0);
}

static void note_redo(const minv_mpi_layout *l, minv_dtype t, int spd, int outcome, int gpu_info, const char *msg,
                      int info, minv_report *r) {
    char gpu[600];
    if (outcome == MINV_MPI_GPU_NO_MEMORY)
        snprintf(gpu, sizeof gpu, "the GPUs cannot hold the call (%s)", msg);
    else if (outcome == MINV_MPI_GPU_FACTOR_FAILED)
        snprintf(gpu, sizeof gpu, "cuSOLVERMp's %s failed (%s)", spd ? "potrf" : "getrf", msg);
    else
        snprintf(gpu, sizeof gpu, "cuSOLVERMp's potrf stopped at column %d", gpu_info);
    const int64_t col = minv_mpi_min_i64(info > 0 ? info : INT64_MAX, minv_mpi_layout_comm(l));
    const char *routine = t == MINV_R64 ? (spd ? "pdpotrf" : "pdgetrf") : (spd ? "pspotrf" : "psgetrf");
    if (col == INT64_MAX) {
        minv_report_note(r, "%s; ScaLAPACK's %s factored the host copy of A, so the call was finished on the CPU", gpu, routine);
        r->backend = MINV_BACKEND_CPU;
        r->fallbacks |= MINV_FALLBACK_CPU;
    } else if (spd) {
        minv_report_note(r, "%s; ScaLAPACK's %s on the host copy of A found the leading minor of order %lld not positive definite",
                         gpu, routine, (long long)col);
    } else {
        minv_report_note(r, "%s; ScaLAPACK's %s on the host copy of A found U(%lld,%lld) exactly zero", gpu, routine,
                         (long long)col, (long long)col);
    }
}

/* The plugin's steps in the report: its copies as the upload and download stages (finish()
 * leaves the rest to compute), the factorisation and the solve in a note. */
static void note_times(const minv_mpi_gpu_times *t, int spd, int inversion, minv_report *r) {
    r->stages.upload_seconds += t->upload_seconds;
    r->stages.upload_bytes += t->upload_bytes;
    r->stages.download_seconds += t->download_seconds;
    r->stages.download_bytes += t->download_bytes;
    if (t->factor_seconds > 0)
        minv_report_note(r, "cuSOLVERMp %s %.3f s, %s %.3f s%s", spd ? "potrf" : "getrf", t->factor_seconds,
                         spd ? "potrs" : "getrs", t->solve_seconds, inversion ? " (the identity)" : "");
    if (t->parts > 1)
        minv_report_note(r, "%s in %lld parts of %lld columns: the device memory holds A and one part at a time",
                         inversion ? "the inverse" : "X", (long long)t->parts, (long long)t->part_columns);
}

static minv_status gpu_invert(minv_context *ctx, const minv_mpi_layout *l, minv_dtype t, int spd, const void *a,
                              void *x, int *info, minv_report *report) {
    char msg[512] = "";
    minv_mpi_gpu_piece pa = piece(l, (void *)a), px = piece(l, x);
    minv_report_note(report, "cuSOLVERMp %s + %s for the identity (cuSOLVERMp has no %s), over NCCL",
                     spd ? "potrf" : "getrf", spd ? "potrs" : "getrs", spd ? "potri" : "getri");
    minv_mpi_gpu_times times;
    gpu_session *s = session_for(ctx, minv_mpi_layout_comm(l), report, msg, sizeof msg);
    if (!s)
        return minv_fail(ctx, MINV_ERR_GPU, "cuSOLVERMp: %s", msg);
    const int outcome = s->plugin->solve(s->session, (int)l->nprow, (int)l->npcol, (int)t, spd, &pa, NULL, &px,
                                         ctx->opts.device_memory, info, &times, msg, sizeof msg);
    if (outcome == MINV_MPI_GPU_ERROR || outcome == MINV_MPI_GPU_FACTOR_FAILED)
        drop(ctx, s);
    note_times(&times, spd, 1, report);
    if (outcome == MINV_MPI_GPU_ERROR)
        return minv_fail(ctx, MINV_ERR_GPU, "cuSOLVERMp: %s", msg);
    if (!redo(spd, outcome, *info))
        return MINV_SUCCESS;
    const int gpu_info = *info;
    const minv_status status = minv_mpi_scalapack_ops.invert(ctx, l, t, spd, a, x, info, report);
    note_redo(l, t, spd, outcome, gpu_info, msg, *info, report);
    return status;
}

static minv_status gpu_solve(minv_context *ctx, const minv_mpi_layout *la, minv_dtype t, int spd, const void *a,
                             void *work, const minv_mpi_layout *lb, void *x, int *info, minv_report *report) {
    char msg[512] = "";
    minv_mpi_gpu_piece pa = piece(la, (void *)a), px = piece(lb, x);
    minv_report_note(report, "cuSOLVERMp %s + %s, over NCCL", spd ? "potrf" : "getrf", spd ? "potrs" : "getrs");
    minv_mpi_gpu_times times;
    gpu_session *s = session_for(ctx, minv_mpi_layout_comm(la), report, msg, sizeof msg);
    if (!s)
        return minv_fail(ctx, MINV_ERR_GPU, "cuSOLVERMp: %s", msg);
    const int outcome = s->plugin->solve(s->session, (int)la->nprow, (int)la->npcol, (int)t, spd, &pa, &px, &px,
                                         ctx->opts.device_memory, info, &times, msg, sizeof msg);
    if (outcome == MINV_MPI_GPU_ERROR || outcome == MINV_MPI_GPU_FACTOR_FAILED)
        drop(ctx, s);
    note_times(&times, spd, 0, report);
    if (outcome == MINV_MPI_GPU_ERROR)
        return minv_fail(ctx, MINV_ERR_GPU, "cuSOLVERMp: %s", msg);
    if (!redo(spd, outcome, *info))
        return MINV_SUCCESS;
    const int gpu_info = *info;
    /* ScaLAPACK factors a copy of A, agreed to be had on every rank before its collectives */
    void *copy = minv_mpi_alloc_piece(la, t);
    minv_status status = minv_mpi_agree(ctx, minv_mpi_layout_comm(la),
                                        copy ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a copy of A's piece for ScaLAPACK"));
    if (status == MINV_SUCCESS) {
        status = minv_mpi_scalapack_ops.solve(ctx, la, t, spd, a, copy, lb, x, info, report);
        note_redo(la, t, spd, outcome, gpu_info, msg, *info, report);
    }
    free(copy);
    return status;
}

static const minv_mpi_dense_ops gpu_ops = {"cuSOLVERMp", gpu_invert, gpu_solve};

const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, const minv_mpi_layout *l, minv_report *r, char *why,
                                           size_t len) {
    MPI_Comm comm = minv_mpi_layout_comm(l);
    int size, rank;
    MPI_Comm_size(comm, &size);
    why[0] = '\0';
    /* cuSOLVERMp's grid holds every rank of its communicator, from grid row and column 0, in
     * column-major order (a caller's BLACS grid may be row-major) */
    MPI_Comm_rank(comm, &rank);
    const int64_t misplaced = minv_mpi_max_i64(l->myrow != rank % l->nprow || l->mycol != rank / l->nprow, comm);
    if ((int64_t)l->nprow * l->npcol != size || l->desc[6] != 0 || l->desc[7] != 0 || misplaced) {
        snprintf(why, len, "cuSOLVERMp takes a grid of every rank (this one is %d x %d of %d) starting at process 0, 0, "
                           "the ranks in column-major order%s", (int)l->nprow, (int)l->npcol, size,
                 misplaced && (int64_t)l->nprow * l->npcol == size ? " (these are not)" : "");
        return NULL;
    }
    const int ok = session_for(ctx, comm, r, why, len) != NULL;
    /* every rank takes the GPU, or none: the first rank's reason goes to all */
    minv_status st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_GPU, "%s", why[0] ? why : "another rank has no cuSOLVERMp session"));
    if (st == MINV_SUCCESS)
        return &gpu_ops;
    snprintf(why, len, "%s", minv_last_error(ctx));
    minv_clear_error(ctx);
    return NULL;
}

#endif
