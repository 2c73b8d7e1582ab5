/* One matrix over many ranks against serial minv on the same matrix: inversion and solves,
 * SPD and general, double and float; n not a multiple of the block; the default grid, 1 x 2,
 * 2 x 2 and a grid that leaves ranks out; blocks so large that ranks hold no rows; in place;
 * the caller's own ScaLAPACK descriptor; singular, not SPD and NaN input giving the same
 * status, column and message on every rank; a matrix symmetric only within a raised
 * MINV_OPT_SYMMETRY_TOL, where Cholesky's residual decides (AUTO redone by LU, CHOLESKY
 * refused), as serial minv does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_testutil.h"

void Cblacs_get(int context, int what, int *value);
void Cblacs_gridinit(int *context, const char *order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_gridexit(int context);
int numroc_(const int *n, const int *nb, const int *iproc, const int *isrcproc, const int *nprocs);

static const double EPS = 0x1p-52;

typedef enum { SPD, GENERAL } kind;

/* The whole matrix, the same on every rank. */
static double *matrix(kind k, int64_t n, uint64_t seed) {
    double *a = tu_alloc(n, n, n);
    tu_rng rng;
    tu_seed(&rng, seed);
    if (k == SPD)
        tu_spd(&rng, n, a, n);
    else
        tu_general(&rng, n, a, n);
    return a;
}

/* ---- inversion against serial minv ---- */

static void invert_case(minv_context *ctx, kind k, int64_t n, int64_t nb, int nprow, int npcol, int in_place) {
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, nb, nprow, npcol, &l), MINV_SUCCESS, ctx);
    double *a = matrix(k, n, 11 + (uint64_t)n), *ref = tu_alloc(n, n, n);
    double *ap = mt_piece_of(&l, a, n), *xp = in_place ? ap : mt_piece_of(&l, a, n);
    minv_report r, rr;
    /* a rank with an empty piece passes NULL for both, as minv_mpi_mod does: the same pointer,
     * in place or not on the other ranks */
    const int empty = l.local_rows == 0 || l.local_cols == 0;
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &l, empty ? NULL : ap, empty ? NULL : xp, &r), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, ref, n, &rr), MINV_SUCCESS, ctx);
    double *x = mt_whole_of(ctx, &l, xp);
    const double d = tu_rel_diff(n, n, x, n, ref, n), ratio = tu_inverse_ratio(n, a, n, x, n, EPS);
    CHECK(d < 1e-10, "%s n %lld nb %lld grid %dx%d%s: rel. difference %g from serial minv", k == SPD ? "spd" : "general",
          (long long)n, (long long)l.nb, (int)l.nprow, (int)l.npcol, in_place ? " in place" : "", d);
    CHECK(ratio < 30, "inverse ratio %g", ratio);
    CHECK(r.method == (k == SPD ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU), "method %s", minv_method_name(r.method));
    CHECK(r.residual_kind == 1 && r.residual >= 0 && r.residual < 100 * EPS, "residual %g (serial %g)", r.residual, rr.residual);
    CHECK(r.rcond > 0 && r.rcond <= 1.01 * rr.rcond && r.rcond > 0.3 * rr.rcond, "rcond %g (exact), serial estimate %g", r.rcond, rr.rcond);
    CHECK(MT_SAME_REPORT(r), "the report differs between the ranks");
    CHECK(r.stages.compute_seconds == r.seconds && r.seconds > 0 && r.device == -1 && r.fallbacks == 0,
          "stages: compute %g s of %g, device %d, fallbacks %d", r.stages.compute_seconds, r.seconds, (int)r.device,
          (int)r.fallbacks);
    if (k == SPD)
        CHECK(tu_symmetric(n, x, n), "the SPD inverse is not symmetric");
    free(a);
    free(ref);
    free(x);
    free(ap);
    if (!in_place)
        free(xp);
    minv_mpi_layout_free(&l);
}

/* ---- solves ---- */

static void solve_case(minv_context *ctx, kind k, int64_t n, int64_t nrhs, int64_t nb, int nprow, int npcol) {
    minv_mpi_layout la, lb;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, nb, nprow, npcol, &la), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_layout_like(ctx, &la, n, nrhs, &lb), MINV_SUCCESS, ctx);
    double *a = matrix(k, n, 21), *b = tu_alloc(n, nrhs, n), *ref = tu_alloc(n, nrhs, n);
    tu_rng rng;
    tu_seed(&rng, 22);
    tu_rect(&rng, n, nrhs, b, n);
    double *ap = mt_piece_of(&la, a, n), *bp = mt_piece_of(&lb, b, n), *xp = mt_piece_of(&lb, b, n);
    minv_report r;
    CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_AUTO, &la, ap, &lb, bp, xp, &r), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, ref, n, NULL), MINV_SUCCESS, ctx);
    double *x = mt_whole_of(ctx, &lb, xp);
    const double d = tu_rel_diff(n, nrhs, x, n, ref, n), ratio = tu_solve_ratio(n, nrhs, a, n, b, n, x, n, EPS);
    CHECK(d < 1e-10, "solve %s n %lld nrhs %lld grid %dx%d: rel. difference %g", k == SPD ? "spd" : "general", (long long)n,
          (long long)nrhs, (int)la.nprow, (int)la.npcol, d);
    CHECK(ratio < 30, "solve ratio %g", ratio);
    CHECK(r.nrhs == nrhs && r.residual >= 0 && r.residual < 100 * EPS && r.rcond > 0, "report: residual %g rcond %g",
          r.residual, r.rcond);
    CHECK(MT_SAME_REPORT(r), "the solve report differs between the ranks");
    /* in place: x is b */
    CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_LU, &la, ap, &lb, bp, bp, NULL), MINV_SUCCESS, ctx);
    double *x2 = mt_whole_of(ctx, &lb, bp);
    CHECK(tu_rel_diff(n, nrhs, x2, n, ref, n) < 1e-10, "in-place solve differs");
    free(a);
    free(b);
    free(ref);
    free(x);
    free(x2);
    free(ap);
    free(bp);
    free(xp);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
}

/* ---- failures: the same status, column and message everywhere, as serial minv gives ---- */

static void failure_case(minv_context *ctx, const char *what, double *a, int64_t n, minv_method method,
                         minv_status want, int64_t want_info, const char *text) {
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 6, 0, 0, &l), MINV_SUCCESS, ctx);
    double *ap = mt_piece_of(&l, a, n), *xp = mt_piece_of(&l, a, n), *ref = tu_alloc(n, n, n);
    minv_report r, rr;
    minv_status got = minv_mpi_invert_d(ctx, method, &l, ap, xp, &r);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", minv_last_error(ctx));
    minv_status serial = minv_invert_d(ctx, method, n, a, n, ref, n, &rr);
    CHECK(got == want && serial == want, "%s: %s (serial %s): %s", what, minv_status_string(got), minv_status_string(serial), msg);
    CHECK(r.info == want_info && rr.info == want_info, "%s: info %lld, serial %lld, expected %lld", what, (long long)r.info,
          (long long)rr.info, (long long)want_info);
    CHECK(strstr(msg, text) != NULL, "%s: no '%s' in: %s", what, text, msg);
    CHECK(mt_same_text(msg) && MT_SAME_REPORT(r), "%s: the message or report differs between the ranks", what);
    int same = got;
    CHECK(mt_same(&same, sizeof same), "%s: the status differs between the ranks", what);
    free(ap);
    free(xp);
    free(ref);
    minv_mpi_layout_free(&l);
}

static void failures(minv_context *ctx) {
    const int64_t n = 29;
    double *a = matrix(GENERAL, n, 5);
    for (int64_t i = 0; i < n; i++) a[20 * n + i] = 0; /* column 21 zero */
    failure_case(ctx, "singular", a, n, MINV_METHOD_AUTO, MINV_ERR_SINGULAR, 20, "no pivot in column 21 (1-based)");
    free(a);
    a = matrix(SPD, n, 6);
    a[10 * n + 10] = -3; /* symmetric, a negative diagonal entry: the minor of order 11 */
    failure_case(ctx, "not spd", a, n, MINV_METHOD_CHOLESKY, MINV_ERR_NOT_SPD, 10, "leading minor of order 11 is not positive definite");
    free(a);
    a = matrix(GENERAL, n, 7);
    a[11 * n + 7] = NAN;
    failure_case(ctx, "nan", a, n, MINV_METHOD_AUTO, MINV_ERR_NOT_FINITE, -1, "A(8,12) = nan (row 8, column 12, 1-based)");
    free(a);
    a = matrix(GENERAL, n, 8);
    failure_case(ctx, "cholesky of a general matrix", a, n, MINV_METHOD_CHOLESKY, MINV_ERR_NOT_SPD, -1, "Cholesky needs a symmetric matrix");
    free(a);
}

/* AUTO on a symmetric matrix with a positive diagonal that is not positive definite: Cholesky
 * fails, LU takes over, as serial minv does. */
static void auto_fallback(minv_context *ctx) {
    const int64_t n = 23;
    double *a = matrix(SPD, n, 9), *ref = tu_alloc(n, n, n);
    a[9 * n + 4] = a[4 * n + 9] = 10 * sqrt(a[4 * n + 4] * a[9 * n + 9]);
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 4, 0, 0, &l), MINV_SUCCESS, ctx);
    double *ap = mt_piece_of(&l, a, n);
    minv_report r;
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &l, ap, ap, &r), MINV_SUCCESS, ctx); /* in place */
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, ref, n, NULL), MINV_SUCCESS, ctx);
    double *x = mt_whole_of(ctx, &l, ap);
    CHECK(r.method == MINV_METHOD_LU && strstr(r.reason, "so LU") != NULL && r.fallbacks == MINV_FALLBACK_LU,
          "fallback: %s, %s (fallbacks %d)", minv_method_name(r.method), r.reason, (int)r.fallbacks);
    CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "fallback result differs from serial minv");
    free(a);
    free(ref);
    free(x);
    free(ap);
    minv_mpi_layout_free(&l);
}

/* Within a raised symmetry tolerance a matrix whose lower triangle does not stand for it: the
 * residual (sampled at least, even with MINV_OPT_RESIDUAL 0) shows it, and no call returns
 * Cholesky's result as a success. Unlike serial minv, an in-place AUTO call is redone by LU
 * too: the layer keeps A (and B) for AUTO's fallbacks. */
static void residual_guard(minv_context *ctx) {
    const int64_t n = 60, nrhs = 2;
    double *a = matrix(SPD, n, 29), *b = tu_alloc(n, nrhs, n);
    tu_rng rng;
    tu_seed(&rng, 30);
    double largest = 0;
    for (int64_t k = 0; k < n * n; k++) largest = fmax(largest, fabs(a[k]));
    for (int64_t j = 0; j < n; j++) /* every upper entry off by up to 5e-6 of the largest */
        for (int64_t i = 0; i < j; i++) a[j * n + i] += 5e-6 * largest * tu_uniform(&rng);
    tu_rect(&rng, n, nrhs, b, n);
    minv_mpi_layout la, lb;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 8, 0, 0, &la), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_layout_like(ctx, &la, n, nrhs, &lb), MINV_SUCCESS, ctx);
    double *ap = mt_piece_of(&la, a, n), *xp = mt_piece_of(&la, a, n), *bp = mt_piece_of(&lb, b, n), *yp = mt_piece_of(&lb, b, n);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, 1e-5), MINV_SUCCESS, ctx);
    for (int mode = 0; mode <= 2; mode++) {
        minv_report r;
        CHECK_STATUS(minv_set_option(ctx, MINV_OPT_RESIDUAL, mode), MINV_SUCCESS, ctx);
        for (int in_place = 0; in_place < 2; in_place++) {
            double *out = in_place ? mt_piece_of(&la, a, n) : xp;
            CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &la, in_place ? out : ap, out, &r), MINV_SUCCESS, ctx);
            double *x = mt_whole_of(ctx, &la, out);
            CHECK(r.method == MINV_METHOD_LU && strstr(r.reason, "so LU instead") && r.asymmetry > 1e-7 && MT_SAME_REPORT(r),
                  "mode %d%s: AUTO redone by LU: %s, asymmetry %g", mode, in_place ? " in place" : "", r.reason, r.asymmetry);
            CHECK(tu_inverse_ratio(n, a, n, x, n, EPS) < 30, "mode %d%s: not A's inverse", mode, in_place ? " in place" : "");
            free(x);
            if (in_place)
                free(out);
        }
        CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_AUTO, &la, ap, &lb, bp, yp, &r), MINV_SUCCESS, ctx);
        double *y = mt_whole_of(ctx, &lb, yp);
        CHECK(r.method == MINV_METHOD_LU && tu_solve_ratio(n, nrhs, a, n, b, n, y, n, EPS) < 30, "mode %d: solve redone by LU: %s",
              mode, r.reason);
        free(y);
        const minv_status got = minv_mpi_invert_d(ctx, MINV_METHOD_CHOLESKY, &la, ap, xp, &r);
        CHECK(got == MINV_ERR_NOT_SPD && strstr(minv_last_error(ctx), "does not solve A") && mt_same_text(minv_last_error(ctx)),
              "mode %d: CHOLESKY: %s (%s)", mode, minv_status_string(got), minv_last_error(ctx));
        CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_CHOLESKY, &la, ap, &lb, bp, yp, &r), MINV_ERR_NOT_SPD, ctx);
    }
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_RESIDUAL, 1), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_SYMMETRY_TOL, -1), MINV_SUCCESS, ctx);
    free(a);
    free(b);
    free(ap);
    free(xp);
    free(bp);
    free(yp);
    minv_mpi_layout_free(&la);
    minv_mpi_layout_free(&lb);
}

/* ---- the caller's own descriptor; scatter and gather; float; the full residual ---- */

static void own_descriptor(minv_context *ctx) {
    const int n = 31, nb = 5;
    int context, nprow = mt_size >= 2 ? 2 : 1, npcol = mt_size >= 2 ? mt_size / 2 : 1, myrow = -1, mycol = -1, zero = 0;
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, "R", nprow, npcol); /* row-major: another order than minv's own */
    int32_t desc[9] = {1, -1, n, n, nb, nb, 0, 0, 1};
    int lr = 0, lc = 0;
    if (context >= 0) {
        Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
        lr = numroc_(&n, &nb, &myrow, &zero, &nprow);
        lc = numroc_(&n, &nb, &mycol, &zero, &npcol);
        desc[1] = context;
        desc[8] = lr + 3; /* a padded leading dimension */
    }
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_from_desc(ctx, MPI_COMM_WORLD, desc, &l), MINV_SUCCESS, ctx);
    CHECK(l.local_rows == lr && l.local_cols == lc && l.lld == desc[8], "from_desc: piece %lld x %lld (lld %lld), expected %d x %d",
          (long long)l.local_rows, (long long)l.local_cols, (long long)l.lld, lr, lc);
    double *a = matrix(GENERAL, n, 31), *ref = tu_alloc(n, n, n);
    double *ap = calloc((size_t)(l.lld * (lc > 0 ? lc : 1)), sizeof(double)), *xp = calloc((size_t)(l.lld * (lc > 0 ? lc : 1)), sizeof(double));
    CHECK_STATUS(minv_mpi_scatter_d(ctx, &l, 0, a, n, ap), MINV_SUCCESS, ctx);
    for (int64_t lj = 0; lj < l.local_cols; lj++) /* scatter put every entry where the layout says */
        for (int64_t li = 0; li < l.local_rows; li++)
            if (ap[lj * l.lld + li] != a[minv_mpi_layout_col(&l, lj) * n + minv_mpi_layout_row(&l, li)]) {
                CHECK(0, "scatter: local (%lld, %lld) is not global (%lld, %lld)", (long long)li, (long long)lj,
                      (long long)minv_mpi_layout_row(&l, li), (long long)minv_mpi_layout_col(&l, lj));
                lj = l.local_cols;
                break;
            }
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 2);
    minv_report r;
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_LU, &l, ap, xp, &r), MINV_SUCCESS, ctx);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    CHECK(r.residual_kind == 2 && r.residual < 100 * EPS, "full residual %g", r.residual);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_LU, n, a, n, ref, n, NULL), MINV_SUCCESS, ctx);
    double *x = mt_whole_of(ctx, &l, xp);
    CHECK(tu_rel_diff(n, n, x, n, ref, n) < 1e-10, "own descriptor: the inverse differs from serial minv");
    free(x);
    /* an SPD matrix on the same grid: the analysis and the mirror transpose over its order */
    double *s = matrix(SPD, n, 32);
    CHECK_STATUS(minv_mpi_scatter_d(ctx, &l, 0, s, n, ap), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &l, ap, xp, &r), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, s, n, ref, n, NULL), MINV_SUCCESS, ctx);
    x = mt_whole_of(ctx, &l, xp);
    CHECK(r.method == MINV_METHOD_CHOLESKY && tu_rel_diff(n, n, x, n, ref, n) < 1e-10 && tu_symmetric(n, x, n),
          "own descriptor, SPD: %s, the inverse differs from serial minv or is not symmetric", minv_method_name(r.method));
    free(x);
    /* the first block on the last process row and column (RSRC, CSRC): the transpose partners'
     * owners and places follow the sources */
    if (context >= 0 && nprow * npcol > 1) {
        int32_t shifted[9];
        memcpy(shifted, desc, sizeof shifted);
        shifted[6] = nprow - 1;
        shifted[7] = npcol - 1;
        const int rsrc = shifted[6];
        shifted[8] = numroc_(&n, &nb, &myrow, &rsrc, &nprow) + 1;
        memcpy(desc, shifted, sizeof shifted);
    }
    minv_mpi_layout ls;
    CHECK_STATUS(minv_mpi_layout_from_desc(ctx, MPI_COMM_WORLD, desc, &ls), MINV_SUCCESS, ctx);
    double *sp = calloc((size_t)(ls.lld * (ls.local_cols > 0 ? ls.local_cols : 1)), sizeof(double)),
           *sx = calloc((size_t)(ls.lld * (ls.local_cols > 0 ? ls.local_cols : 1)), sizeof(double));
    CHECK_STATUS(minv_mpi_scatter_d(ctx, &ls, 0, s, n, sp), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &ls, sp, sx, &r), MINV_SUCCESS, ctx);
    x = mt_whole_of(ctx, &ls, sx);
    CHECK(r.method == MINV_METHOD_CHOLESKY && tu_rel_diff(n, n, x, n, ref, n) < 1e-10 && tu_symmetric(n, x, n),
          "own descriptor with sources %d, %d, SPD: %s, the inverse differs from serial minv or is not symmetric", desc[6],
          desc[7], minv_method_name(r.method));
    free(sp);
    free(sx);
    minv_mpi_layout_free(&ls);
    free(s);
    free(a);
    free(ref);
    free(x);
    free(ap);
    free(xp);
    minv_mpi_layout_free(&l);
    if (context >= 0)
        Cblacs_gridexit(context);
}

static void single(minv_context *ctx) {
    const int64_t n = 26;
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 4, 0, 0, &l), MINV_SUCCESS, ctx);
    double *a = matrix(SPD, n, 41);
    float *af = tu_to_float(n, n, a, n, n), *ref = malloc((size_t)(n * n) * sizeof(float));
    float *ap = malloc((size_t)(l.lld * (l.local_cols > 0 ? l.local_cols : 1)) * sizeof(float));
    float *xp = malloc((size_t)(l.lld * (l.local_cols > 0 ? l.local_cols : 1)) * sizeof(float));
    float *x = malloc((size_t)(n * n) * sizeof(float));
    CHECK_STATUS(minv_mpi_scatter_s(ctx, &l, 0, af, n, ap), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_invert_s(ctx, MINV_METHOD_AUTO, &l, ap, xp, NULL), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_gather_s(ctx, &l, xp, 0, x, n), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_AUTO, n, af, n, ref, n, NULL), MINV_SUCCESS, ctx);
    if (mt_rank == 0) {
        double *xd = tu_to_double(n, n, x, n), *rd = tu_to_double(n, n, ref, n);
        CHECK(tu_rel_diff(n, n, xd, n, rd, n) < 1e-4, "float: rel. difference %g", tu_rel_diff(n, n, xd, n, rd, n));
        free(xd);
        free(rd);
    }
    free(a);
    free(af);
    free(ref);
    free(ap);
    free(xp);
    free(x);
    minv_mpi_layout_free(&l);
}

/* n = 0 and nrhs = 0 are LAPACK's quick return, as in serial minv: success, nothing read or
 * written (NULL pieces allowed), the same report on every rank. */
static void quick_return(minv_context *ctx) {
    minv_mpi_layout l0, lb0, la, lb;
    minv_report r;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, 0, 0, 4, 0, 0, &l0), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_invert_d(ctx, MINV_METHOD_AUTO, &l0, NULL, NULL, &r), MINV_SUCCESS, ctx);
    CHECK(r.n == 0 && MT_SAME_REPORT(r), "n = 0 inversion: n %lld", (long long)r.n);
    CHECK_STATUS(minv_mpi_layout_like(ctx, &l0, 0, 3, &lb0), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_LU, &l0, NULL, &lb0, NULL, NULL, &r), MINV_SUCCESS, ctx);
    /* nrhs = 0: A is not read either (a singular A passes) */
    const int64_t n = 9;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 4, 0, 0, &la), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_layout_like(ctx, &la, n, 0, &lb), MINV_SUCCESS, ctx);
    double *ap = calloc((size_t)(la.lld * (la.local_cols > 0 ? la.local_cols : 1)), sizeof(double));
    CHECK_STATUS(minv_mpi_solve_d(ctx, MINV_METHOD_AUTO, &la, ap, &lb, NULL, NULL, &r), MINV_SUCCESS, ctx);
    CHECK(r.n == n && r.nrhs == 0 && MT_SAME_REPORT(r), "nrhs = 0 solve: n %lld, nrhs %lld", (long long)r.n, (long long)r.nrhs);
    free(ap);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
    minv_mpi_layout_free(&lb0);
    minv_mpi_layout_free(&l0);
}

int main(int argc, char **argv) {
    minv_context *ctx = mt_init(&argc, &argv);
    if (!ctx)
        return 1;
    invert_case(ctx, SPD, 37, 8, 0, 0, 0);       /* 37 is no multiple of 8 */
    invert_case(ctx, GENERAL, 37, 8, 0, 0, 0);
    invert_case(ctx, GENERAL, 37, 0, 0, 0, 1);   /* default block, in place */
    invert_case(ctx, SPD, 5, 4, 0, 0, 0);        /* blocks of 4: ranks beyond the second hold no rows */
    invert_case(ctx, SPD, 5, 8, 0, 0, 0);        /* one block: only the first rank holds anything */
    invert_case(ctx, GENERAL, 19, 3, 1, 1, 0);   /* a 1 x 1 grid: the other ranks hold nothing */
    if (mt_size >= 2) {
        invert_case(ctx, SPD, 33, 4, 1, 2, 0);
        invert_case(ctx, GENERAL, 33, 4, 1, 2, 1);
    }
    if (mt_size >= 4) {
        invert_case(ctx, SPD, 41, 6, 2, 2, 0);
        invert_case(ctx, GENERAL, 41, 6, 2, 2, 0);
    }
    solve_case(ctx, SPD, 37, 5, 8, 0, 0);
    solve_case(ctx, GENERAL, 37, 5, 8, 0, 0);
    solve_case(ctx, GENERAL, 21, 6, 4, 1, mt_size >= 2 ? 2 : 1);
    failures(ctx);
    auto_fallback(ctx);
    residual_guard(ctx);
    own_descriptor(ctx);
    single(ctx);
    quick_return(ctx);
    return mt_finish("test_mpi_dense", ctx);
}
