/* One context used by two threads at once, over the ranks: while a thread of rank 0 is inside a
 * serial call on its context (held there by its progress callback), the MPI calls of rank 0's
 * main thread on that context are refused with MINV_ERR_CONTEXT_BUSY, and so are every other
 * rank's, whose contexts are free: a rank refused alone would leave the others waiting in the
 * call's collectives. Rank 0's context keeps the first call's result and last error; the other
 * ranks say which rank was busy; afterwards every context is free again. The main thread alone
 * calls MPI (MPI_THREAD_FUNNELED). */
#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_testutil.h"
#include "tu_hold.h"

enum { N = 256, K = 40 };

typedef struct {
    minv_context *ctx;
    tu_hold hold;
    double *a, *b, *x;
    minv_status status;
} shared;

static void *holder(void *arg) {
    shared *s = arg;
    s->status = minv_solve_d(s->ctx, MINV_METHOD_GAUSS_JORDAN, N, 1, s->a, N, s->b, N, s->x, N, NULL);
    return NULL;
}

/* Every entry point kind refused on every rank while rank 0's context is held. */
static void refused(shared *s, const minv_mpi_layout *l, const double *ap, double *xp, const double *batch, double *binv,
                    double *whole) {
    minv_report r;
    minv_batch_report br;
    minv_status st[2];
    minv_mpi_layout like;
    const char *busy_rank = "rank 0's context is in use by another thread";

    minv_status got = minv_mpi_invert_d(s->ctx, MINV_METHOD_AUTO, l, ap, xp, &r);
    CHECK(got == MINV_ERR_CONTEXT_BUSY && strstr(r.reason, "refused"), "invert: %s (%s)", minv_status_string(got), r.reason);
    if (mt_rank > 0)
        CHECK(strstr(minv_last_error(s->ctx), busy_rank), "the other ranks say which was busy: %s", minv_last_error(s->ctx));
    got = minv_mpi_invert_batched_d(s->ctx, MPI_COMM_WORLD, 0, MINV_METHOD_AUTO, 4, 2, batch, 4, 16, binv, 4, 16, st, &br);
    CHECK(got == MINV_ERR_CONTEXT_BUSY && strstr(br.reason, "refused"), "batched: %s (%s)", minv_status_string(got),
          br.reason);
    got = minv_mpi_layout_like(s->ctx, l, N, 3, &like);
    CHECK(got == MINV_ERR_CONTEXT_BUSY && like.internal == NULL, "layout_like: %s", minv_status_string(got));
    minv_mpi_layout_free(&like); /* an empty layout is freed as nothing */
    got = minv_mpi_gather_d(s->ctx, l, xp, 0, whole, K);
    CHECK(got == MINV_ERR_CONTEXT_BUSY, "gather: %s", minv_status_string(got));
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    shared s = {.hold = TU_HOLD_INIT};
    s.ctx = tu_context(MINV_BACKEND_CPU, 0);
    minv_context *serial = tu_context(MINV_BACKEND_CPU, 0);
    tu_rng rng;
    tu_seed(&rng, 5);
    s.a = tu_alloc(N, N, N);
    s.b = tu_alloc(N, 1, N);
    s.x = tu_alloc(N, 1, N);
    tu_general(&rng, N, s.a, N);
    tu_rect(&rng, N, 1, s.b, N);
    double *m = tu_alloc(K, K, K), *ref = tu_alloc(K, K, K), batch[32], binv[32];
    tu_general(&rng, K, m, K);
    for (int i = 0; i < 2; i++) tu_general(&rng, 4, batch + 16 * i, 4);

    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(s.ctx, MPI_COMM_WORLD, K, K, 8, 0, 0, &l), MINV_SUCCESS, s.ctx);
    double *ap = mt_piece_of(&l, m, K), *xp = mt_piece_of(&l, m, K);

    pthread_t t;
    if (mt_rank == 0) {
        minv_set_option(s.ctx, MINV_OPT_BLOCK_SIZE, 32); /* Gauss-Jordan reports progress per block */
        minv_set_progress(s.ctx, tu_hold_progress, &s.hold);
        pthread_create(&t, NULL, holder, &s);
        tu_hold_wait_inside(&s.hold);
    }
    refused(&s, &l, ap, xp, batch, binv, ref);
    if (mt_rank == 0) {
        tu_hold_done(&s.hold);
        pthread_join(t, NULL);
        CHECK(s.status == MINV_SUCCESS && tu_solve_ratio(N, 1, s.a, N, s.b, N, s.x, N, DBL_EPSILON) < 30,
              "the held call's answer is right: %s", minv_status_string(s.status));
        CHECK(minv_last_error(s.ctx)[0] == 0, "the held call's last error is its own (none): %s", minv_last_error(s.ctx));
        minv_set_progress(s.ctx, NULL, NULL);
    }

    /* free again on every rank: the call runs, and gives serial minv's inverse */
    minv_report r;
    CHECK_STATUS(minv_mpi_invert_d(s.ctx, MINV_METHOD_AUTO, &l, ap, xp, &r), MINV_SUCCESS, s.ctx);
    CHECK_STATUS(minv_invert_d(serial, MINV_METHOD_AUTO, K, m, K, ref, K, NULL), MINV_SUCCESS, serial);
    double *x = mt_whole_of(s.ctx, &l, xp);
    const double d = tu_rel_diff(K, K, x, K, ref, K);
    CHECK(d < 1e-10, "after the refusals: rel. difference %g from serial minv", d);
    free(x);
    free(ap);
    free(xp);
    free(m);
    free(ref);
    free(s.a);
    free(s.b);
    free(s.x);
    minv_mpi_layout_free(&l);
    minv_destroy(serial);
    return mt_finish("test_mpi_context_busy", s.ctx);
}
