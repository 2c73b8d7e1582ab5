/* The batched CPU path for small members, which computes them side by side in vector lanes
 * (four doubles, eight floats a group): every order from 1 to 70 (members of order 1 to 64 take
 * the lanes, beyond them LAPACK), SPD and general (half of the general ones need row
 * interchanges at every step), inversion and solves with 1 and 3 right-hand sides, double and
 * float, batches whose size is no multiple of the lanes; each member against LAPACK on the same
 * input, and bit for bit against the same member alone in a batch. Then members that fail in a
 * lane beside good ones: singular, not SPD (at a known column), NaN, a NaN right-hand side, each
 * in turn at several positions, its status and column exact and every other member's answer
 * unchanged to the bit. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

enum { NBATCH = 11, KMAX = 70 };

/* A batch of NBATCH members of order k (stride k * k) and its right-hand sides. */
typedef struct {
    int64_t k, nrhs;
    double *a, *b;
} batch;

static double *member(const batch *t, int64_t m) { return t->a + m * t->k * t->k; }

static batch make(tu_rng *rng, int64_t k, int64_t nrhs, int spd) {
    batch t = {k, nrhs, malloc(sizeof(double) * (size_t)(k * k * NBATCH)), malloc(sizeof(double) * (size_t)(k * 3 * NBATCH))};
    for (int64_t m = 0; m < NBATCH; m++) {
        if (spd) tu_spd(rng, k, member(&t, m), k);
        else if (m % 2) tu_needs_pivoting(rng, k, member(&t, m), k);
        else tu_general(rng, k, member(&t, m), k);
    }
    tu_rect(rng, k, 3 * NBATCH, t.b, k);
    return t;
}

static int64_t out_size(const batch *t) { return t->nrhs ? t->k * t->nrhs : t->k * t->k; }

/* The call on members first .. first + count - 1, in double or float (the answers converted
 * back to double into x, whose members are out_size apart). */
static minv_status call(minv_context *ctx, int single, minv_method method, const batch *t, int64_t first, int64_t count,
                        double *x, minv_status *st, minv_batch_report *rep) {
    const int64_t k = t->k, kk = k * k, nx = out_size(t), nb = k * t->nrhs;
    const double *a = member(t, first), *b = t->b + first * nb;
    if (!single)
        return t->nrhs ? minv_solve_batched_d(ctx, method, k, t->nrhs, count, a, k, kk, b, k, nb, x, k, nx, st, rep)
                       : minv_invert_batched_d(ctx, method, k, count, a, k, kk, x, k, nx, st, rep);
    float *af = tu_to_float(k, k * count, a, k, k), *bf = tu_to_float(k, t->nrhs ? t->nrhs * count : 1, b, k, k);
    float *xf = malloc(sizeof(float) * (size_t)(nx * count));
    for (int64_t e = 0; e < nx * count; e++) xf[e] = (float)x[e];
    minv_status s = t->nrhs ? minv_solve_batched_s(ctx, method, k, t->nrhs, count, af, k, kk, bf, k, nb, xf, k, nx, st, rep)
                            : minv_invert_batched_s(ctx, method, k, count, af, k, kk, xf, k, nx, st, rep);
    for (int64_t e = 0; e < nx * count; e++) x[e] = (double)xf[e];
    free(af);
    free(bf);
    free(xf);
    return s;
}

/* LAPACK's answer for member m (its input rounded to float first where single); returns how
 * far x, minv's answer, may be from it: k cond_1(A) eps, the first-order bound of both (at
 * least 16 eps), with x's own residual ratio checked below 30 on the way. */
static double reference(const batch *t, int64_t m, int single, int spd, const double *x, double *y) {
    const int64_t k = t->k;
    const double eps = single ? FLT_EPSILON : DBL_EPSILON;
    double *a = member(t, m), *b = t->b + m * k * t->nrhs, *ar = NULL, *br = NULL;
    if (single) {
        float *f = tu_to_float(k, k, a, k, k), *g = tu_to_float(k, t->nrhs ? t->nrhs : 1, b, k, k);
        a = ar = tu_to_double(k, k, f, k);
        b = br = tu_to_double(k, t->nrhs ? t->nrhs : 1, g, k);
        free(f);
        free(g);
    }
    const int info = t->nrhs ? tu_lapack_solve(k, t->nrhs, a, k, b, k, spd, y, k) : tu_lapack_inverse(k, a, k, spd, y, k);
    CHECK(info == 0, "LAPACK info %d", info);
    const double r = t->nrhs ? tu_solve_ratio(k, t->nrhs, a, k, b, k, x, k, eps) : tu_inverse_ratio(k, a, k, x, k, eps);
    CHECK(r < 30, "k %lld member %lld: residual ratio %.3g", (long long)k, (long long)m, r);
    const double bound = (double)k * tu_cond1(k, a, k) * eps;
    free(ar);
    free(br);
    return bound > 16 * eps ? bound : 16 * eps;
}

static int same_bits(const double *x, const double *y, int64_t count) { return memcmp(x, y, sizeof(double) * (size_t)count) == 0; }

/* ---- every order: LAPACK's answers, and each member's answer the same alone ---- */

static void orders(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 1901);
    double worst[2] = {0, 0};
    for (int64_t k = 1; k <= KMAX; k++)
        for (int spd = 1; spd >= 0; spd--)
            for (int64_t nrhs = 0; nrhs <= 3; nrhs += nrhs ? 2 : 1) {
                batch t = make(&rng, k, nrhs, spd);
                const int64_t nx = out_size(&t);
                double *x = malloc(sizeof(double) * (size_t)(nx * NBATCH)), *alone = malloc(sizeof(double) * (size_t)nx);
                double *y = malloc(sizeof(double) * (size_t)nx);
                for (int single = 0; single <= 1; single++) {
                    minv_status st[NBATCH];
                    minv_batch_report rep;
                    memset(x, 0, sizeof(double) * (size_t)(nx * NBATCH));
                    CHECK_STATUS(call(ctx, single, MINV_METHOD_AUTO, &t, 0, NBATCH, x, st, &rep), MINV_SUCCESS, ctx);
                    CHECK(rep.cholesky_count == (spd || k == 1 ? NBATCH : 0) || (k == 1 && !spd),
                          "k %lld spd %d: %lld members by the SPD path", (long long)k, spd, (long long)rep.cholesky_count);
                    CHECK(rep.residual_kind == 1 && rep.residual >= 0 && rep.residual < 30 * (single ? FLT_EPSILON : DBL_EPSILON),
                          "k %lld: report residual %.3g", (long long)k, rep.residual);
                    for (int64_t m = 0; m < NBATCH; m++) {
                        CHECK(st[m] == MINV_SUCCESS, "k %lld member %lld: %s", (long long)k, (long long)m, minv_status_string(st[m]));
                        const double bound = reference(&t, m, single, spd, x + m * nx, y);
                        const double d = tu_rel_diff(k, nx / k, x + m * nx, k, y, k);
                        if (d / bound > worst[single] || isnan(d)) worst[single] = d / bound;
                        CHECK(d < bound, "k %lld %s %s nrhs %lld member %lld: %.3g from LAPACK (bound %.3g)", (long long)k,
                              single ? "float" : "double", spd ? "spd" : "general", (long long)nrhs, (long long)m, d, bound);
                        if (m % 5 == 3 && k <= 64) { /* alone: the lanes' arithmetic is each member's own */
                            memset(alone, 0, sizeof(double) * (size_t)nx);
                            CHECK_STATUS(call(ctx, single, MINV_METHOD_AUTO, &t, m, 1, alone, NULL, NULL), MINV_SUCCESS, ctx);
                            CHECK(same_bits(alone, x + m * nx, nx), "k %lld %s nrhs %lld member %lld differs alone",
                                  (long long)k, single ? "float" : "double", (long long)nrhs, (long long)m);
                        }
                    }
                }
                free(x);
                free(alone);
                free(y);
                free(t.a);
                free(t.b);
            }
    printf("orders 1 to %d: largest difference from LAPACK over its bound k cond_1 eps: %.3g (double), %.3g (float)\n",
           KMAX, worst[0], worst[1]);
}

/* ---- a failing member beside good ones ---- */

typedef enum { ZERO_COLUMN, NEGATIVE_PIVOT, INDEFINITE, NAN_ENTRY, NAN_RHS } fault;
static const char *const fault_name[] = {"zero column", "negative pivot", "indefinite", "NaN", "NaN rhs"};

/* Member m of t spoiled at column c (0-based); returns the status and column (-1: none) the
 * call must report under `method`, and whether the member is then written (success). */
static minv_status spoil(batch *t, int64_t m, int64_t c, fault f, minv_method method, int64_t *info) {
    const int64_t k = t->k;
    double *a = member(t, m);
    *info = c;
    switch (f) {
    case ZERO_COLUMN: /* and the row: still symmetric, but the zero diagonal sends AUTO to LU */
        for (int64_t i = 0; i < k; i++) a[c * k + i] = a[i * k + c] = 0;
        return method == MINV_METHOD_CHOLESKY ? MINV_ERR_NOT_SPD : MINV_ERR_SINGULAR;
    case NEGATIVE_PIVOT:
        a[c * k + c] = -a[c * k + c];
        if (method == MINV_METHOD_CHOLESKY) return MINV_ERR_NOT_SPD;
        *info = -1;
        return MINV_SUCCESS; /* nonsingular: AUTO takes LU (the diagonal is not positive) */
    case INDEFINITE: /* |a_c,c+1| above the geometric mean of the two pivots: positive diagonal */
        a[(c + 1) * k + c] = a[c * k + c + 1] = 10 * sqrt(a[c * k + c] * a[(c + 1) * k + c + 1]);
        *info = c + 1;
        if (method == MINV_METHOD_CHOLESKY) return MINV_ERR_NOT_SPD;
        *info = -1;
        return MINV_SUCCESS; /* AUTO: refused by Cholesky, done by LU */
    case NAN_ENTRY:
        a[c * k + k - 1] = NAN;
        a[(k - 1) * k + 0] = INFINITY; /* a later column holds one too (c < k - 1) */
        return MINV_ERR_NOT_FINITE;
    case NAN_RHS:
        t->b[m * k * t->nrhs + k * (t->nrhs - 1)] = NAN;
        *info = -1;
        return MINV_ERR_NOT_FINITE;
    }
    return MINV_SUCCESS;
}

static void faults(minv_context *ctx) {
    static const int64_t ks[] = {2, 3, 5, 8, 17, 33, 64};
    static const int64_t where[] = {0, 2, 5, 10}; /* first, middle and last lane of a group, the last group */
    tu_rng rng;
    tu_seed(&rng, 1902);
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        const int64_t k = ks[ki];
        for (int f = ZERO_COLUMN; f <= NAN_RHS; f++)
            for (int single = 0; single <= 1; single++)
                for (int mi = 0; mi < 2; mi++) {
                    const minv_method method = mi ? MINV_METHOD_CHOLESKY : MINV_METHOD_AUTO;
                    const int64_t nrhs = f == NAN_RHS ? 2 : (k % 2 ? 0 : 1);
                    batch good = make(&rng, k, nrhs, 1), bad = good;
                    const int64_t nx = out_size(&good);
                    bad.a = malloc(sizeof(double) * (size_t)(k * k * NBATCH));
                    bad.b = malloc(sizeof(double) * (size_t)(k * 3 * NBATCH));
                    double *x0 = malloc(sizeof(double) * (size_t)(nx * NBATCH)), *x = malloc(sizeof(double) * (size_t)(nx * NBATCH));
                    minv_status st[NBATCH];
                    minv_batch_report rep;
                    for (int64_t e = 0; e < nx * NBATCH; e++) x0[e] = 0;
                    CHECK_STATUS(call(ctx, single, method, &good, 0, NBATCH, x0, st, &rep), MINV_SUCCESS, ctx);
                    for (size_t wi = 0; wi < sizeof where / sizeof where[0]; wi++) {
                        const int64_t m = where[wi], c = (k - 2) * (int64_t)wi / 3; /* columns 0 to k - 2 */
                        if (f == INDEFINITE && k < 2) continue;
                        memcpy(bad.a, good.a, sizeof(double) * (size_t)(k * k * NBATCH));
                        memcpy(bad.b, good.b, sizeof(double) * (size_t)(k * 3 * NBATCH));
                        int64_t info;
                        const minv_status want = spoil(&bad, m, c, (fault)f, method, &info);
                        for (int64_t e = 0; e < nx * NBATCH; e++) x[e] = 7;
                        const minv_status s = call(ctx, single, method, &bad, 0, NBATCH, x, st, &rep);
                        const char *what = fault_name[f];
                        CHECK(s == want && st[m] == want, "k %lld %s %s member %lld: %s, member %s, expected %s", (long long)k,
                              what, minv_method_name(method), (long long)m, minv_status_string(s), minv_status_string(st[m]),
                              minv_status_string(want));
                        if (want != MINV_SUCCESS) {
                            CHECK(rep.failed == 1 && rep.first_failed == m && rep.first_status == want && rep.first_info == info,
                                  "k %lld %s %s member %lld: report %lld failed, first %lld (%s) column %lld, expected %lld",
                                  (long long)k, what, minv_method_name(method), (long long)m, (long long)rep.failed,
                                  (long long)rep.first_failed, minv_status_string(rep.first_status), (long long)rep.first_info,
                                  (long long)info);
                            int untouched = 1;
                            for (int64_t e = 0; e < nx; e++) untouched &= x[m * nx + e] == 7;
                            CHECK(untouched, "k %lld %s: the failed member %lld was written", (long long)k, what, (long long)m);
                        } else {
                            double *y = malloc(sizeof(double) * (size_t)nx);
                            const double bound = reference(&bad, m, single, 0, x + m * nx, y);
                            const double d = tu_rel_diff(k, nx / k, x + m * nx, k, y, k);
                            CHECK(d < bound, "k %lld %s member %lld by LU: %.3g from LAPACK", (long long)k, what, (long long)m, d);
                            free(y);
                        }
                        for (int64_t o = 0; o < NBATCH; o++) /* the neighbours: as in the good batch, to the bit */
                            if (o != m)
                                CHECK(st[o] == MINV_SUCCESS && same_bits(x + o * nx, x0 + o * nx, nx),
                                      "k %lld %s %s %s beside member %lld: member %lld changed (%s)", (long long)k,
                                      single ? "float" : "double", what, minv_method_name(method), (long long)m,
                                      (long long)o, minv_status_string(st[o]));
                    }
                    free(good.a);
                    free(good.b);
                    free(bad.a);
                    free(bad.b);
                    free(x0);
                    free(x);
                }
    }
}

/* A general batch under LU with an exactly singular member, and an SPD batch with a general
 * member in it (the group runs two passes): statuses, columns and neighbours. */
static void general_faults(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 1903);
    for (int64_t k = 2; k <= 64; k += 7)
        for (int single = 0; single <= 1; single++)
            for (int64_t nrhs = 0; nrhs <= 1; nrhs++) {
                batch t = make(&rng, k, nrhs, 0);
                const int64_t nx = out_size(&t), m = 1 + k % 9, c = k / 2;
                double *x0 = calloc((size_t)(nx * NBATCH), sizeof(double)), *x = calloc((size_t)(nx * NBATCH), sizeof(double));
                minv_status st[NBATCH];
                minv_batch_report rep;
                CHECK_STATUS(call(ctx, single, MINV_METHOD_LU, &t, 0, NBATCH, x0, st, &rep), MINV_SUCCESS, ctx);
                /* column c zero: LU finds no pivot there */
                double *a = member(&t, m);
                for (int64_t i = 0; i < k; i++) a[c * k + i] = 0;
                const minv_status s = call(ctx, single, MINV_METHOD_LU, &t, 0, NBATCH, x, st, &rep);
                CHECK(s == MINV_ERR_SINGULAR && st[m] == MINV_ERR_SINGULAR && rep.first_failed == m && rep.first_info == c &&
                          rep.failed == 1,
                      "k %lld LU: %s, member %lld %s, first %lld column %lld (expected %lld)", (long long)k,
                      minv_status_string(s), (long long)m, minv_status_string(st[m]), (long long)rep.first_failed,
                      (long long)rep.first_info, (long long)c);
                for (int64_t o = 0; o < NBATCH; o++)
                    if (o != m)
                        CHECK(same_bits(x + o * nx, x0 + o * nx, nx), "k %lld LU: member %lld changed beside the singular one",
                              (long long)k, (long long)o);
                free(t.a);
                free(t.b);
                /* an SPD batch with one general member: both passes, each member as alone */
                batch u = make(&rng, k, nrhs, 1);
                tu_needs_pivoting(&rng, k, member(&u, m), k);
                CHECK_STATUS(call(ctx, single, MINV_METHOD_AUTO, &u, 0, NBATCH, x, st, &rep), MINV_SUCCESS, ctx);
                CHECK(rep.cholesky_count == NBATCH - 1, "k %lld: %lld by the SPD path", (long long)k, (long long)rep.cholesky_count);
                double *y = malloc(sizeof(double) * (size_t)nx);
                for (int64_t o = 0; o < NBATCH; o++) {
                    const double bound = reference(&u, o, single, o != m, x + o * nx, y);
                    const double d = tu_rel_diff(k, nx / k, x + o * nx, k, y, k);
                    CHECK(d < bound, "k %lld mixed member %lld: %.3g from LAPACK", (long long)k, (long long)o, d);
                }
                CHECK_STATUS(call(ctx, single, MINV_METHOD_AUTO, &u, m, 1, y, NULL, NULL), MINV_SUCCESS, ctx);
                CHECK(same_bits(y, x + m * nx, nx), "k %lld: the general member differs alone", (long long)k);
                free(y);
                free(u.a);
                free(u.b);
                free(x0);
                free(x);
            }
}

/* Ill-conditioned members beside well-conditioned ones: cond 1e10 (double) is inverted, and
 * the report's least rcond is its; cond 1e18 is singular to working precision: flagged, and
 * written when no pivot was exactly zero. */
static void conditioning(minv_context *ctx) {
    tu_rng rng;
    tu_seed(&rng, 1904);
    for (int64_t k = 3; k <= 64; k += 61 / 4)
        for (int spd = 0; spd <= 1; spd++) {
            batch t = make(&rng, k, 0, spd);
            const int64_t m = k % 7, kk = k * k;
            double *x = malloc(sizeof(double) * (size_t)(kk * NBATCH));
            minv_status st[NBATCH];
            minv_batch_report rep;
            tu_with_cond(&rng, k, 1e10, spd, member(&t, m), k);
            CHECK_STATUS(call(ctx, 0, MINV_METHOD_AUTO, &t, 0, NBATCH, x, st, &rep), MINV_SUCCESS, ctx);
            const double rcond = 1 / tu_cond1(k, member(&t, m), k);
            CHECK(rep.rcond > rcond / (4 * (double)k) && rep.rcond < rcond * 4 * (double)k,
                  "k %lld spd %d: report rcond %.3g, the member's %.3g", (long long)k, spd, rep.rcond, rcond);
            tu_with_cond(&rng, k, 1e18, spd, member(&t, m), k);
            for (int64_t e = 0; e < kk * NBATCH; e++) x[e] = 7;
            const minv_status s = call(ctx, 0, MINV_METHOD_AUTO, &t, 0, NBATCH, x, st, &rep);
            CHECK(s == MINV_ERR_SINGULAR && st[m] == MINV_ERR_SINGULAR && rep.failed == 1 && rep.first_failed == m,
                  "k %lld spd %d cond 1e18: %s, member %s", (long long)k, spd, minv_status_string(s), minv_status_string(st[m]));
            if (rep.first_info < 0) /* singular to working precision: still written */
                CHECK(x[m * kk] != 7 && x[m * kk + kk - 1] != 7, "k %lld: the near-singular member was not written", (long long)k);
            free(x);
            free(t.a);
            free(t.b);
        }
}

int main(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    minv_context *ctx = NULL;
    CHECK_STATUS(minv_create(&ctx, &o), MINV_SUCCESS, ctx);
    if (!ctx) return tu_finish("test_batched_lanes");
    orders(ctx);
    faults(ctx);
    general_faults(ctx);
    conditioning(ctx);
    minv_destroy(ctx);
    return tu_finish("test_batched_lanes");
}
