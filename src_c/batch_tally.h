/* What a batched call's report says of its members, gathered one member at a time and merged
 * across chunks or thread blocks. The same functions run in the core, over the members'
 * outcomes on the host, and in the GPU backend, over them in device memory, so that a batch
 * of device data need not bring its members' outcomes back at all. */
#ifndef MINV_BATCH_TALLY_H
#define MINV_BATCH_TALLY_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MINV_TALLY_FN static inline __host__ __device__
#else
#define MINV_TALLY_FN static inline
#endif

typedef struct {
    int64_t failed, first_failed, first_info; /* first_*: the failed member of least index */
    int32_t first_status, reserved;
    double rcond;                  /* least over the members written; -1 if none */
    double residual;               /* largest, NaN above all; -1 if none */
    int64_t worst;                 /* the member of least index with that residual */
    /* over the members that succeeded, by path (0 general, 1 SPD): for the operation count */
    int64_t count[2];
    double sum_n2[2], sum_n3[2];
} minv_batch_tally;

MINV_TALLY_FN void minv_tally_init(minv_batch_tally *t) {
    t->failed = 0;
    t->first_failed = -1;
    t->first_info = -1;
    t->first_status = 0;
    t->reserved = 0;
    t->rcond = -1;
    t->residual = -1;
    t->worst = -1;
    for (int s = 0; s < 2; s++) {
        t->count[s] = 0;
        t->sum_n2[s] = t->sum_n3[s] = 0;
    }
}

/* Is residual a of member ia worse than b of member ib? */
MINV_TALLY_FN int minv_tally_worse(double a, int64_t ia, double b, int64_t ib) {
    if (a < 0) return 0; /* not computed */
    if (b < 0) return 1;
    if (isnan(a) != isnan(b)) return isnan(a);
    if (!isnan(a) && a != b) return a > b;
    return ia < ib;
}

/* Member m (order n): status (0 is success), info, the SPD path taken, rcond and residual
 * (-1 where not computed). */
MINV_TALLY_FN void minv_tally_add(minv_batch_tally *t, int64_t m, int status, int64_t info, int spd, int64_t n,
                                  double rcond, double residual) {
    if (rcond >= 0 && (t->rcond < 0 || rcond < t->rcond)) t->rcond = rcond;
    if (status != 0) {
        if (t->failed++ == 0 || m < t->first_failed) {
            t->first_failed = m;
            t->first_status = status;
            t->first_info = info;
        }
        return;
    }
    if (n > 0) { /* an empty member takes no path */
        const double dn = (double)n;
        t->count[spd != 0]++;
        t->sum_n2[spd != 0] += dn * dn;
        t->sum_n3[spd != 0] += dn * dn * dn;
    }
    if (minv_tally_worse(residual, m, t->residual, t->worst)) {
        t->residual = residual;
        t->worst = m;
    }
}

MINV_TALLY_FN void minv_tally_merge(minv_batch_tally *t, const minv_batch_tally *u) {
    if (u->rcond >= 0 && (t->rcond < 0 || u->rcond < t->rcond)) t->rcond = u->rcond;
    if (u->failed && (t->failed == 0 || u->first_failed < t->first_failed)) {
        t->first_failed = u->first_failed;
        t->first_status = u->first_status;
        t->first_info = u->first_info;
    }
    t->failed += u->failed;
    if (minv_tally_worse(u->residual, u->worst, t->residual, t->worst)) {
        t->residual = u->residual;
        t->worst = u->worst;
    }
    for (int s = 0; s < 2; s++) {
        t->count[s] += u->count[s];
        t->sum_n2[s] += u->sum_n2[s];
        t->sum_n3[s] += u->sum_n3[s];
    }
}

#endif
