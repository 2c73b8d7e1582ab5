/* Matrix analysis on the CPU: finiteness, norms, symmetry, diagonal dominance, bandwidth and
 * diagonal range in one threaded pass over the columns (row sums kept per thread), plus a
 * tiled pass for symmetry; analysis.c assembles the result. */
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu.h"

#define T double
#define FN(name) name##_d
#include "analyze_t.h"
#undef T
#undef FN

#define T float
#define FN(name) name##_s
#include "analyze_t.h"
#undef T
#undef FN

minv_status minv_cpu_analyze(minv_context *ctx, const minv_mat *a, minv_analysis *out) {
    return a->dtype == MINV_R64 ? analyze_d(ctx, a, out) : analyze_s(ctx, a, out);
}
