/* The GPU backend of one matrix over many ranks: cuSOLVERMp, in a plugin (libminv_mpi_cusolvermp,
 * next to libminv_mpi) opened the first time a GPU context asks, so that libminv_mpi loads where
 * there is no GPU, no driver and no NCCL. The plugin's session (NCCL communicator, cuSOLVERMp
 * handle and grid) lives with the layout's grid and serves every later call on it. Where the
 * plugin cannot be had on some rank, every rank goes to ScaLAPACK and the report says why. */
#define _GNU_SOURCE /* dladdr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

#if !MINV_MPI_HAVE_CUSOLVERMP

const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, const minv_mpi_layout *l, char *why, size_t len) {
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

/* What the layout's grid keeps: the session, its device, the plugin that closes it. */
typedef struct {
    const minv_mpi_gpu_plugin *plugin;
    minv_mpi_gpu_session *session;
    int device;
} gpu_state;

static void release(void *state) {
    gpu_state *g = state;
    g->plugin->close(g->session);
    free(g);
}

static gpu_state *state_of(const minv_mpi_layout *l) { return (gpu_state *)minv_mpi_layout_gpu(l); }

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
    const int outcome =
        state_of(l)->plugin->solve(state_of(l)->session, (int)t, spd, &pa, NULL, &px, ctx->opts.device_memory, info,
                                   &times, msg, sizeof msg);
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
    const int outcome =
        state_of(la)->plugin->solve(state_of(la)->session, (int)t, spd, &pa, &px, &px, ctx->opts.device_memory, info,
                                    &times, msg, sizeof msg);
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

const minv_mpi_dense_ops *minv_mpi_gpu_ops(minv_context *ctx, const minv_mpi_layout *l, char *why, size_t len) {
    MPI_Comm comm = minv_mpi_layout_comm(l);
    int size, rank, count = 0, devices[MINV_MAX_DEVICES];
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
    minv_context_devices(ctx, &count, devices);
    const int device = count > 0 ? devices[0] : 0;
    const gpu_state *g = state_of(l);
    int ok = 1;
    /* the first call on this grid, or another GPU: a new session, opened by all ranks at once */
    if (minv_mpi_max_i64(!g || g->device != device, comm) == 1) {
        const minv_mpi_gpu_plugin *plugin = load(why, len);
        gpu_state *fresh = calloc(1, sizeof *fresh);
        ok = plugin && fresh;
        if (minv_mpi_min_i64(ok, comm) == 1)
            ok = plugin->open(comm, device, l->nprow, l->npcol, &fresh->session, why, len) == 0;
        if (ok) {
            fresh->plugin = plugin;
            fresh->device = device;
            minv_mpi_layout_set_gpu(l, fresh, release);
        } else {
            free(fresh);
        }
    }
    /* every rank takes the GPU, or none: the first rank's reason goes to all */
    minv_status st = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_GPU, "%s", why[0] ? why : "another rank has no cuSOLVERMp"));
    if (st == MINV_SUCCESS)
        return &gpu_ops;
    minv_mpi_layout_set_gpu(l, NULL, NULL); /* ranks whose session opened close it again */
    snprintf(why, len, "%s", minv_last_error(ctx));
    minv_clear_error(ctx);
    return NULL;
}

#endif
