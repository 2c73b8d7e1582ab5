/* Overflow- and underflow-free sum of squares in one pass (Blue's algorithm with LAPACK's
 * dnrm2 thresholds): three accumulators for small, medium and big magnitudes. Shared by the
 * CPU (C) and GPU (CUDA) analyses. */
#ifndef MINV_SUMSQ_H
#define MINV_SUMSQ_H

#include <math.h>

#ifdef __CUDACC__
#define MINV_HD __host__ __device__ inline
#else
#define MINV_HD static inline
#endif

#define MINV_BLUE_TSML 1.4916681462400413e-154 /* 2^-511 */
#define MINV_BLUE_TBIG 1.9979190722022350e+146 /* 2^486 */
#define MINV_BLUE_SSML 4.4989137945431964e+161 /* 2^537 */
#define MINV_BLUE_SBIG 1.1113793747425387e-162 /* 2^-538 */

typedef struct {
    double small, medium, big;
} minv_sumsq;

MINV_HD void minv_sumsq_add(minv_sumsq *s, double x) {
    double ax = fabs(x);
    if (ax > MINV_BLUE_TBIG) {
        double y = ax * MINV_BLUE_SBIG;
        s->big += y * y;
    } else if (ax < MINV_BLUE_TSML) {
        double y = ax * MINV_BLUE_SSML;
        s->small += y * y;
    } else {
        s->medium += ax * ax;
    }
}

MINV_HD void minv_sumsq_merge(minv_sumsq *s, const minv_sumsq *o) {
    s->small += o->small;
    s->medium += o->medium;
    s->big += o->big;
}

/* sqrt of the sum, combined as LAPACK's dnrm2 does. */
MINV_HD double minv_sumsq_norm(const minv_sumsq *s) {
    if (s->big > 0) {
        double big = s->big;
        if (s->medium > 0 || isnan(s->medium))
            big += (s->medium * MINV_BLUE_SBIG) * MINV_BLUE_SBIG;
        return sqrt(big) / MINV_BLUE_SBIG;
    }
    if (s->small > 0) {
        if (s->medium > 0 || isnan(s->medium)) {
            double med = sqrt(s->medium), sml = sqrt(s->small) / MINV_BLUE_SSML;
            double ymin = sml < med ? sml : med, ymax = sml < med ? med : sml;
            return ymax * sqrt(1 + (ymin / ymax) * (ymin / ymax));
        }
        return sqrt(s->small) / MINV_BLUE_SSML;
    }
    return sqrt(s->medium);
}

#endif
