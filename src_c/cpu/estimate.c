/* ||A^-1||_1 estimated from a CPU factor by Higham's method, the estimator LAPACK's pocon and
 * gecon run (dlacn2), with the solves by small.c's sweeps instead of dlatrs. dlatrs guards
 * every step against overflow: pocon took 69 us beside a 45 us dposv at n = 128 and 1.2 ms
 * beside 1.7 ms at 512 on one core of the dev VM, the sweeps' estimate 40 us and 0.15 ms
 * (bench/results/cpu_calls_devmachine.md, round 4). The iteration is dlacn2's step for step, so the
 * estimate is LAPACK's up to rounding (a sign or a largest entry rounding the other way may
 * take another path, within the method's own accuracy: test_rcond_estimate); where a solve
 * overflows the estimate is Inf and rcond 0, "singular to working precision", which is what
 * dlatrs's scaling would find too. At small orders (minv_rcond_exact_applies, internal.h) the
 * norm is taken exactly instead, from explicit inverses of the factor, which costs less
 * there than the iteration's solves; the GPU backend calls the same (condition.cu). */
#include <math.h>
#include <string.h>

#include "factor.h"
#include "small.h"
#include "vec4.h"

/* x = A^-1 x (trans 0) or A^-T x (trans 1). For LU the interchanges are left out, as gecon
 * leaves them: A^-1 = (L U)^-1 P, and ||M P||_1 = ||M||_1. */
static void solve_with(const minv_mat *f, int spd, int trans, void *x) {
    if (spd) minv_small_potrs(f->dtype, f->rows, 1, f->data, f->ld, x, f->rows);
    else if (trans) minv_small_lu_trans_solve(f->dtype, f->rows, f->data, f->ld, x);
    else minv_small_getrs(f->dtype, f->rows, 1, f->data, f->ld, NULL, x, f->rows);
}

#define T double
#define FN(name) name##_d
#include "estimate_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "estimate_t.h"
#undef T
#undef FN

double minv_cpu_inverse_norm_exact(const minv_mat *f, int spd) {
    if (f->dtype == MINV_R64) return spd ? exact_spd_d(f) : exact_lu_d(f);
    return spd ? exact_spd_s(f) : exact_lu_s(f);
}

double minv_cpu_inverse_norm_estimate(const minv_mat *f, int spd, void *x, int solved, void *sign) {
    return f->dtype == MINV_R64 ? estimate_d(f, spd, x, solved, sign) : estimate_s(f, spd, x, solved, sign);
}
