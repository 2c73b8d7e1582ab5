/* Unblocked Cholesky, LU and Gauss-Jordan for small orders (small.h), in both precisions. */
#include <math.h>

#include "small.h"
#include "vec4.h"

#define T double
#define FN(name) name##_d
#include "small_t.h"
#undef T
#undef FN
#define T float
#define FN(name) name##_s
#include "small_t.h"
#undef T
#undef FN

int64_t minv_small_potrf(minv_dtype t, int64_t n, void *a, int64_t ld) {
    return t == MINV_R64 ? small_potrf_d(n, a, ld) : small_potrf_s(n, a, ld);
}

void minv_small_potrs(minv_dtype t, int64_t n, int64_t nrhs, const void *l, int64_t ld, void *b, int64_t ldb) {
    if (t == MINV_R64) small_potrs_d(n, nrhs, l, ld, b, ldb);
    else small_potrs_s(n, nrhs, l, ld, b, ldb);
}

int64_t minv_small_getrf(minv_dtype t, int64_t n, void *a, int64_t ld, int *ipiv) {
    return t == MINV_R64 ? small_getrf_d(n, a, ld, ipiv) : small_getrf_s(n, a, ld, ipiv);
}

void minv_small_getrs(minv_dtype t, int64_t n, int64_t nrhs, const void *lu, int64_t ld, const int *ipiv, void *b,
                      int64_t ldb) {
    if (t == MINV_R64) small_getrs_d(n, nrhs, lu, ld, ipiv, b, ldb);
    else small_getrs_s(n, nrhs, lu, ld, ipiv, b, ldb);
}

void minv_small_solve_from(minv_dtype t, int64_t n, int64_t first, const void *f, int64_t ld, int spd, void *x) {
    if (t == MINV_R64) small_solve_from_d(n, first, f, ld, spd, x);
    else small_solve_from_s(n, first, f, ld, spd, x);
}

void minv_small_lu_trans_solve(minv_dtype t, int64_t n, const void *lu, int64_t ld, void *x) {
    if (t == MINV_R64) small_lu_trans_solve_d(n, lu, ld, x);
    else small_lu_trans_solve_s(n, lu, ld, x);
}

int64_t minv_small_gauss_jordan(minv_dtype t, int64_t n, void *a, int64_t ld, void *f, int *perm) {
    return t == MINV_R64 ? small_gauss_jordan_d(n, a, ld, f, perm)
                         : small_gauss_jordan_s(n, a, ld, f, perm);
}

int64_t minv_small_sweep(minv_dtype t, int64_t n, void *a, int64_t ld, void *f) {
    return t == MINV_R64 ? small_sweep_d(n, a, ld, f) : small_sweep_s(n, a, ld, f);
}
