/* Separate contexts used from separate threads at the same time give correct results, and
 * leave OpenBLAS's thread count as it was (small CPU calls run the BLAS on one thread, and
 * these overlap). */
#include <float.h>
#include <pthread.h>
#include <stdlib.h>

#include "testutil.h"

enum { THREADS = 4, ROUNDS = 5 };

typedef struct {
    int id;
    double worst;
    int failures;
} job;

static void *work(void *arg) {
    job *j = arg;
    minv_context *ctx;
    minv_options o;
    minv_options_default(&o);
    o.cpu_threads = 1;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) {
        j->failures++;
        return NULL;
    }
    tu_rng rng;
    tu_seed(&rng, 100 + (uint64_t)j->id);
    const int64_t n = 80 + 13 * j->id;
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    for (int r = 0; r < ROUNDS; r++) {
        if ((r + j->id) % 2) tu_spd(&rng, n, a, n);
        else tu_general(&rng, n, a, n);
        if (minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, x, n, NULL) != MINV_SUCCESS) {
            j->failures++;
            continue;
        }
        double ratio = tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON);
        if (ratio > j->worst) j->worst = ratio;
    }
    free(a);
    free(x);
    minv_destroy(ctx);
    return NULL;
}

/* OpenBLAS's own (weak: absent with another BLAS). */
int openblas_get_num_threads(void) __attribute__((weak));

int main(void) {
    const int blas_threads = openblas_get_num_threads ? openblas_get_num_threads() : 0;
    pthread_t t[THREADS];
    job jobs[THREADS] = {{0}};
    for (int i = 0; i < THREADS; i++) {
        jobs[i].id = i;
        pthread_create(&t[i], NULL, work, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %d failures", i, jobs[i].failures);
        CHECK(jobs[i].worst < 30, "thread %d: ratio %.3g", i, jobs[i].worst);
    }
    if (openblas_get_num_threads)
        CHECK(openblas_get_num_threads() == blas_threads, "OpenBLAS's threads: %d before the calls, %d after",
              blas_threads, openblas_get_num_threads());
    return tu_finish("test_threads");
}
