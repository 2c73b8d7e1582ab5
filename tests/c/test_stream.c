/* minv_set_stream where no device call can run (a CPU context): NULL succeeds, as it is the
 * default; a stream fails with MINV_ERR_NO_GPU and a message naming the backend, and leaves the
 * context working (a host inversion after it is checked by its residual ratio). A NULL context
 * is MINV_ERR_INVALID_ARG. test_stream_gpu covers a GPU context. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

int main(void) {
    minv_context *cpu = tu_context(MINV_BACKEND_CPU, 0);
    CHECK(cpu != NULL, "a CPU context");
    if (!cpu) return tu_finish("test_stream");
    int not_a_stream = 0;
    CHECK_STATUS(minv_set_stream(NULL, NULL), MINV_ERR_INVALID_ARG, NULL);
    CHECK_STATUS(minv_set_stream(cpu, NULL), MINV_SUCCESS, cpu);
    CHECK_STATUS(minv_set_stream(cpu, &not_a_stream), MINV_ERR_NO_GPU, cpu);
    CHECK(strstr(minv_last_error(cpu), "runs on the cpu") && strstr(minv_last_error(cpu), "CUDA stream"),
          "the message names the backend: %s", minv_last_error(cpu));

    const int64_t n = 120;
    tu_rng rng;
    tu_seed(&rng, 2401);
    double *a = tu_alloc(n, n, n), *x = tu_alloc(n, n, n);
    tu_general(&rng, n, a, n);
    CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_AUTO, n, a, n, x, n, NULL), MINV_SUCCESS, cpu);
    const double r = tu_inverse_ratio(n, a, n, x, n, DBL_EPSILON);
    CHECK(r < 30, "the inversion after a refused stream: ratio %.3g", r);
    free(a);
    free(x);
    minv_destroy(cpu);
    return tu_finish("test_stream");
}
