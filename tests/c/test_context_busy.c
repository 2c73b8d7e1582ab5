/* One context used by two threads at once: while one thread is inside a
 * call (held there by its progress callback), every call of another thread on the same context
 * is refused with MINV_ERR_CONTEXT_BUSY and changes nothing: the first call's result and last
 * error stay its own. Entry points that call others on the same thread (sub-matrix inversion)
 * still work, and the context is free again afterwards. */
#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tu_hold.h"

enum { N = 256 };

typedef struct {
    minv_context *ctx;
    tu_hold hold;
    double *a, *b, *x;
} shared;

static void *intruder(void *arg) {
    shared *s = arg;
    tu_hold_wait_inside(&s->hold);

    double y[N], c[4] = {4, 1, 1, 3}, ci[4];
    minv_report rep;
    minv_batch_report brep;
    minv_analysis an;
    minv_status st[1];
    CHECK_STATUS(minv_solve_d(s->ctx, MINV_METHOD_AUTO, N, 1, s->a, N, s->b, N, y, N, &rep), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK(strstr(rep.reason, "another thread") != NULL, "the report says why: %s", rep.reason);
    CHECK_STATUS(minv_invert_d(s->ctx, MINV_METHOD_AUTO, 2, c, 2, ci, 2, NULL), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK_STATUS(minv_analyze_d(s->ctx, 2, c, 2, &an), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK_STATUS(minv_invert_batched_d(s->ctx, MINV_METHOD_AUTO, 2, 1, c, 2, 4, ci, 2, 4, st, &brep),
                 MINV_ERR_CONTEXT_BUSY, NULL);
    int64_t idx[1] = {0};
    CHECK_STATUS(minv_invert_subset_d(s->ctx, MINV_METHOD_AUTO, 2, c, 2, 1, idx, ci, 1, NULL), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK_STATUS(minv_set_option(s->ctx, MINV_OPT_RESIDUAL, 2), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK_STATUS(minv_destroy(s->ctx), MINV_ERR_CONTEXT_BUSY, NULL);
    CHECK(strlen(minv_status_string(MINV_ERR_CONTEXT_BUSY)) > 20, "a status string that says what to do");

    tu_hold_done(&s->hold);
    return NULL;
}

int main(void) {
    shared s = {.hold = TU_HOLD_INIT};
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    CHECK_STATUS(minv_create(&s.ctx, &o), MINV_SUCCESS, NULL);
    tu_rng rng;
    tu_seed(&rng, 3);
    s.a = tu_alloc(N, N, N);
    s.b = tu_alloc(N, 1, N);
    s.x = tu_alloc(N, 1, N);
    tu_general(&rng, N, s.a, N);
    tu_rect(&rng, N, 1, s.b, N);
    minv_set_option(s.ctx, MINV_OPT_BLOCK_SIZE, 32); /* Gauss-Jordan reports progress per block */
    minv_set_progress(s.ctx, tu_hold_progress, &s.hold);

    pthread_t t;
    pthread_create(&t, NULL, intruder, &s);
    minv_report rep;
    CHECK_STATUS(minv_solve_d(s.ctx, MINV_METHOD_GAUSS_JORDAN, N, 1, s.a, N, s.b, N, s.x, N, &rep), MINV_SUCCESS, s.ctx);
    pthread_join(t, NULL);
    CHECK(s.hold.inside && s.hold.tried, "the second thread ran while the first was inside its call");
    CHECK(tu_solve_ratio(N, 1, s.a, N, s.b, N, s.x, N, DBL_EPSILON) < 30, "the first call's answer is right");
    CHECK(minv_last_error(s.ctx)[0] == 0, "the first call's last error is its own (none): %s", minv_last_error(s.ctx));

    /* free again, and nested entry points (the sub-matrix inversion calls minv_invert_d) work */
    minv_set_progress(s.ctx, NULL, NULL);
    double c[4] = {4, 1, 1, 3}, ci[1];
    int64_t idx[1] = {1};
    CHECK_STATUS(minv_invert_subset_d(s.ctx, MINV_METHOD_AUTO, 2, c, 2, 1, idx, ci, 1, NULL), MINV_SUCCESS, s.ctx);
    CHECK(ci[0] == 1.0 / 3.0, "the sub-matrix inverse %g", ci[0]);
    CHECK_STATUS(minv_destroy(s.ctx), MINV_SUCCESS, NULL);
    free(s.a);
    free(s.b);
    free(s.x);
    return tu_finish("test_context_busy");
}
