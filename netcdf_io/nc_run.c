/* What the threads of one read or write share (nc_read.c, nc_write.c): where the run's
 * matrices are, the first failure of any thread, the progress, and the threads to use; and
 * the bands a read or write hands to the library's banded calls. */
#include <stdarg.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "ncio.h"

minv_mat minv_nc_run_matrix(const minv_nc_run *u, int64_t m) {
    minv_mat out = u->first;
    out.data = (char *)u->first.data + (size_t)m * u->stride;
    return out;
}

/* Thread 0 reports progress (the callback is the caller's, made for its own thread); the
 * others only count. */
void minv_nc_run_unit_done(minv_nc_run *u) {
    int64_t done;
#pragma omp atomic capture
    done = ++u->done;
#ifdef _OPENMP
    if (omp_get_thread_num() != 0)
        return;
#endif
    minv_progress(u->ctx, u->stage, u->base + u->span * (double)done / (double)u->units);
}

void minv_nc_run_fail(minv_nc_run *u, minv_status status, int nc_status, const char *fmt, ...) {
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
#pragma omp critical(minv_nc_run_fail)
    if (!u->stop) {
        u->status = nc_status != NC_NOERR ? minv_nc_fail(u->ctx, nc_status, "%s", text) : minv_fail(u->ctx, status, "%s", text);
#pragma omp atomic write
        u->stop = 1;
    }
}

void minv_nc_run_end(const minv_nc_run *u) {
    minv_progress(u->ctx, u->stage, u->base + u->span);
}

int minv_nc_run_failed(const minv_nc_run *u) {
    int stop;
#pragma omp atomic read
    stop = u->stop;
    return stop;
}

int minv_nc_run_threads(minv_nc_run *u) {
    const int64_t most = u->ctx->cpu_threads;
    const int threads = (int)(u->units < most ? (u->units > 0 ? u->units : 1) : most);
    if (threads > *u->most_threads)
        *u->most_threads = threads;
    return threads;
}

static minv_status fill_band(void *user, int64_t at, int64_t count, minv_mat *m) {
    minv_nc_bands *f = user;
    const minv_status status = minv_nc_source_read_band(f->ctx, f->src, 0, at, count, 0, m);
    *f->io_failed |= status != MINV_SUCCESS;
    return status;
}

static minv_status drain_band(void *user, int64_t at, int64_t count, const minv_mat *m) {
    minv_nc_bands *f = user;
    const minv_status status = minv_nc_sink_write_band(f->ctx, f->dst, 0, at, count, m);
    *f->io_failed |= status != MINV_SUCCESS;
    return status;
}

minv_banded minv_nc_banded(minv_nc_bands *f, int64_t tile) {
    return (minv_banded){f->src->view == MINV_NC_C_VIEW, f->dst ? (int64_t)f->dst->row_align : 1, tile, fill_band,
                         f->dst ? drain_band : NULL, f};
}
