/* Tridiagonal inversion on every backend: each algorithm (write-once, the paper's
 * Sherman-Morrison, pivoted) against LAPACK's dense inverse of the same matrix, for n from 1
 * to a few thousand around the tile and the powers of two; dominant by rows and by columns,
 * weakly dominant, not dominant, zero off-diagonals, near-singular and singular inputs;
 * double and float; padded leading dimensions; the MINV_METHOD_TRIDIAGONAL path of
 * minv_invert (AUTO picks it). On a machine with a GPU every result is also compared with the
 * CPU's. Pass: LAPACK's dget03 ratio ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) below 30. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define HAS(msg, text) CHECK(strstr((msg), (text)) != NULL, "\"%s\" lacks \"%s\"", (msg), (text))

typedef enum { ROWS, COLUMNS, WEAK, GENERAL, ZEROS, NEAR_SINGULAR, KINDS } kind;
static const char *const kind_names[] = {"dominant by rows", "dominant by columns", "weakly dominant (-1 2 -1)",
                                         "not dominant", "zero off-diagonals", "near-singular"};

typedef struct {
    int64_t n;
    double *dl, *d, *du; /* n entries each, dl and du used up to n - 1 */
} bands;

static bands make(int64_t n, kind k, uint64_t seed) {
    tu_rng r;
    tu_seed(&r, seed);
    bands b = {n, calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
    for (int64_t i = 0; i + 1 < n; i++) {
        b.dl[i] = tu_uniform(&r);
        b.du[i] = tu_uniform(&r);
    }
    for (int64_t i = 0; i < n; i++) {
        double row = (i > 0 ? fabs(b.dl[i - 1]) : 0) + (i + 1 < n ? fabs(b.du[i]) : 0);
        double col = (i > 0 ? fabs(b.du[i - 1]) : 0) + (i + 1 < n ? fabs(b.dl[i]) : 0);
        double sign = tu_uniform(&r) < 0 ? -1 : 1;
        switch (k) {
        case ROWS: b.d[i] = sign * (row + 0.1 + 0.5 * fabs(tu_uniform(&r))); break;
        case COLUMNS: b.d[i] = sign * (col + 0.1 + 0.5 * fabs(tu_uniform(&r))); break;
        case WEAK: b.d[i] = 2; break;
        case GENERAL: b.d[i] = tu_uniform(&r); break;
        case ZEROS: b.d[i] = sign * (row + 0.5); break;
        case NEAR_SINGULAR: b.d[i] = 2; break;
        default: break;
        }
    }
    if (k == COLUMNS) /* keep it from being dominant by rows as well */
        for (int64_t i = 0; i + 1 < n; i += 3) b.du[i] *= 4, b.d[i + 1] += (b.d[i + 1] > 0 ? 1 : -1) * 3 * fabs(b.du[i]) / 4;
    if (k == WEAK || k == NEAR_SINGULAR)
        for (int64_t i = 0; i + 1 < n; i++) b.dl[i] = b.du[i] = -1;
    if (k == NEAR_SINGULAR) /* the Neumann Laplacian, singular at 1, shifted by 1e-9 */
        b.d[0] = b.d[n - 1] = 1 + 1e-9;
    if (k == ZEROS)
        for (int64_t i = 0; i + 1 < n; i += 4) b.dl[i] = 0, b.du[i + 1 < n - 1 ? i + 1 : i] = 0;
    return b;
}

static void release(bands *b) {
    free(b->dl);
    free(b->d);
    free(b->du);
}

static double *dense(const bands *b) {
    const int64_t n = b->n;
    double *a = calloc((size_t)(n * n), sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        a[i * n + i] = b->d[i];
        if (i + 1 < n) {
            a[i * n + i + 1] = b->dl[i];
            a[(i + 1) * n + i] = b->du[i];
        }
    }
    return a;
}

static const minv_tridiagonal_algorithm algorithms[] = {MINV_TRIDIAGONAL_AUTO, MINV_TRIDIAGONAL_WRITE_ONCE,
                                                        MINV_TRIDIAGONAL_SHERMAN_MORRISON, MINV_TRIDIAGONAL_PIVOTED};
static const char *const algorithm_names[] = {"auto", "write-once", "sherman-morrison", "pivoted"};

/* The path the report names. */
static const char *path_of(const minv_report *r) {
    if (strstr(r->reason, "tridiagonal: each entry written once")) return "write-once";
    if (strstr(r->reason, "tridiagonal: the paper's recursive Sherman-Morrison")) return "sherman-morrison";
    if (strstr(r->reason, "tridiagonal: LU with partial pivoting")) return "pivoted";
    return "none";
}

/* The inverse on every context, each against LAPACK's and against the first context's. */
static void check_case(minv_context **ctx, int nctx, const bands *b, kind k, int alg, int single, int64_t pad) {
    const int64_t n = b->n, ld = n + pad;
    double *a = dense(b), *ref = tu_alloc(n, n, n), *first = NULL;
    CHECK(tu_lapack_inverse(n, a, n, 0, ref, n) == 0, "LAPACK reference");
    double cond = tu_norm1(n, n, a, n) * tu_norm1(n, n, ref, n);
    for (int c = 0; c < nctx; c++) {
        minv_report rep;
        minv_status st;
        double *x = tu_alloc(n, n, ld);
        minv_set_option(ctx[c], MINV_OPT_TRIDIAGONAL_ALGORITHM, algorithms[alg]);
        if (single) {
            float *fdl = tu_to_float(n, 1, b->dl, n, n), *fd = tu_to_float(n, 1, b->d, n, n), *fdu = tu_to_float(n, 1, b->du, n, n);
            float *fx = tu_to_float(n, n, x, ld, ld);
            st = minv_invert_tridiagonal_s(ctx[c], n, fdl, fd, fdu, fx, ld, &rep);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < ld; i++) x[j * ld + i] = fx[j * ld + i];
            free(fdl), free(fd), free(fdu), free(fx);
        } else {
            st = minv_invert_tridiagonal_d(ctx[c], n, b->dl, b->d, b->du, x, ld, &rep);
        }
        const char *where = minv_backend_name(minv_context_backend(ctx[c]));
        const double eps = single ? FLT_EPSILON : DBL_EPSILON;
        /* a matrix singular to working precision still gets its result, with SINGULAR */
        CHECK(st == MINV_SUCCESS || (st == MINV_ERR_SINGULAR && cond * eps > 0.5), "%s n=%lld %s %s %s: %s", where, (long long)n,
              kind_names[k], algorithm_names[alg], single ? "float" : "double", minv_last_error(ctx[c]));
        if (st == MINV_SUCCESS || st == MINV_ERR_SINGULAR) {
            double ratio = tu_inverse_ratio(n, a, n, x, ld, eps);
            CHECK(ratio < 30, "%s n=%lld %s %s %s path %s: ratio %.3g (%s)", where, (long long)n, kind_names[k],
                  algorithm_names[alg], single ? "float" : "double", path_of(&rep), ratio, rep.reason);
            /* both backward stable: they agree to about cond eps */
            double diff = tu_rel_diff(n, n, x, ld, ref, n);
            CHECK(diff < 100 * (double)n * cond * eps || diff < 1e-3 * (single ? 100 : 1), "%s n=%lld %s %s: differs from LAPACK by %.3g (cond %.3g)",
                  where, (long long)n, kind_names[k], algorithm_names[alg], diff, cond);
            for (int64_t j = 0; j < n && pad > 0; j++)
                for (int64_t i = n; i < ld; i++)
                    if (!isnan(x[j * ld + i])) {
                        CHECK(0, "padding (%lld, %lld) written", (long long)i, (long long)j);
                        j = n;
                        break;
                    }
            CHECK(rep.method == MINV_METHOD_TRIDIAGONAL && rep.n == n && rep.flops > 0 && rep.seconds >= 0, "report");
            CHECK(rep.rcond > 0 && rep.rcond <= 1 + 4 * eps && fabs(log10(rep.rcond * cond)) < 1, "rcond %.17g vs 1/%.17g", rep.rcond, cond);
            CHECK(rep.residual_kind == 1 && rep.residual >= 0 && (cond > 1e8 || rep.residual < 30 * (double)n * eps),
                  "%s n=%lld %s: report residual %.3g", where, (long long)n, kind_names[k], rep.residual);
            if (c == 0) {
                first = x;
                x = NULL;
            } else if (st == MINV_SUCCESS) {
                double agree = tu_rel_diff(n, n, x, ld, first, ld);
                CHECK(agree < 100 * (double)n * cond * eps, "%s vs cpu n=%lld %s %s: %.3g", where, (long long)n, kind_names[k],
                      algorithm_names[alg], agree);
            }
        }
        free(x);
    }
    free(first);
    free(a);
    free(ref);
}

static void sizes_and_kinds(minv_context **ctx, int nctx) {
    static const int64_t small[] = {1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 100, 127, 128, 129, 255, 257};
    for (size_t s = 0; s < sizeof small / sizeof small[0]; s++)
        for (int k = 0; k < KINDS; k++) {
            if (k == NEAR_SINGULAR && small[s] < 3)
                continue;
            bands b = make(small[s], (kind)k, 100 + (uint64_t)(s * KINDS + k));
            for (int alg = 0; alg < 4; alg++) {
                check_case(ctx, nctx, &b, (kind)k, alg, 0, alg == 1 ? 3 : 0);
                if (k != NEAR_SINGULAR) check_case(ctx, nctx, &b, (kind)k, alg, 1, alg == 2 ? 2 : 0);
            }
            release(&b);
        }
    /* larger, fewer combinations: the dense reference costs O(n^3) */
    static const int64_t large[] = {1000, 2047, 3000};
    for (size_t s = 0; s < sizeof large / sizeof large[0]; s++) {
        bands b = make(large[s], s == 1 ? COLUMNS : ROWS, 7 + s);
        check_case(ctx, nctx, &b, s == 1 ? COLUMNS : ROWS, 0, 0, 1);
        check_case(ctx, nctx, &b, s == 1 ? COLUMNS : ROWS, s == 0 ? 2 : 3, s == 2, 0);
        release(&b);
    }
    bands b = make(1000, GENERAL, 9);
    check_case(ctx, nctx, &b, GENERAL, 0, 0, 0);
    release(&b);
}

/* Which path ran, and the notes of a refused one. */
static void paths_and_fallbacks(minv_context *ctx) {
    const int64_t n = 50;
    double *x = tu_alloc(n, n, n);
    minv_report rep;
    bands b = make(n, ROWS, 1);
    struct {
        kind k;
        int alg;
        const char *path, *note;
    } cases[] = {
        {ROWS, 0, "write-once", "dominant by rows"},
        {COLUMNS, 0, "write-once", "dominant by columns"},
        {GENERAL, 0, "pivoted", "write-once needs diagonal dominance"},
        {GENERAL, 1, "pivoted", "write-once needs diagonal dominance"},
        {ROWS, 2, "sherman-morrison", "merge levels"},
        {WEAK, 2, "sherman-morrison", "merge levels"},
        {COLUMNS, 2, "write-once", "Sherman-Morrison refused: the paper needs diagonal dominance by rows"},
        {ZEROS, 2, "write-once", "Sherman-Morrison refused: the paper needs nonzero off-diagonals"},
        {GENERAL, 2, "pivoted", "Sherman-Morrison refused"},
        {ROWS, 3, "pivoted", "LU with partial pivoting"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        release(&b);
        b = make(n, cases[c].k, 11 + c);
        minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, algorithms[cases[c].alg]);
        CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, n, &rep), MINV_SUCCESS, ctx);
        CHECK(strcmp(path_of(&rep), cases[c].path) == 0, "%s with %s: ran %s (%s)", kind_names[cases[c].k],
              algorithm_names[cases[c].alg], path_of(&rep), rep.reason);
        HAS(rep.reason, cases[c].note);
    }
    double v;
    CHECK_STATUS(minv_get_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, &v), MINV_SUCCESS, ctx);
    CHECK(v == MINV_TRIDIAGONAL_PIVOTED, "option read back %g", v);
    CHECK_STATUS(minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, 4), MINV_ERR_INVALID_ARG, ctx);
    minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_TRIDIAGONAL_AUTO);
    release(&b);
    free(x);
}

/* Singular matrices: SINGULAR with the column, on every path; and the errors of the API. */
static void singular_and_errors(minv_context *ctx) {
    const int64_t n = 40;
    double *x = tu_alloc(n, n, n);
    minv_report rep;
    for (int alg = 0; alg < 4; alg++) {
        minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, algorithms[alg]);
        bands b = make(n, WEAK, 3); /* the Neumann Laplacian: singular, its null vector constant */
        b.d[0] = b.d[n - 1] = 1;
        minv_status st = minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, n, &rep);
        CHECK(st == MINV_ERR_SINGULAR, "%s: Neumann Laplacian gave %s", algorithm_names[alg], minv_status_string(st));
        /* singular to working precision: either a pivot column, or no zero pivot and an rcond
         * below working precision */
        CHECK((rep.info >= 0 && rep.info < n) || (rep.info == -1 && rep.rcond >= 0 && rep.rcond < n * DBL_EPSILON),
              "%s: info %lld, rcond %.3g", algorithm_names[alg], (long long)rep.info, rep.rcond);
        /* a zero column: no pivot there */
        b.d[0] = b.d[n - 1] = 2;
        b.d[17] = 0;
        b.du[16] = 0;
        b.dl[17] = 0;
        st = minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, n, &rep);
        CHECK(st == MINV_ERR_SINGULAR && rep.info == 17, "%s: zero column gave %s, info %lld (%s)", algorithm_names[alg],
              minv_status_string(st), (long long)rep.info, minv_last_error(ctx));
        HAS(minv_last_error(ctx), "column 18");
        release(&b);
    }
    minv_set_option(ctx, MINV_OPT_TRIDIAGONAL_ALGORITHM, MINV_TRIDIAGONAL_AUTO);
    bands b = make(n, ROWS, 4);
    x[0] = 7; /* n = 0: LAPACK's quick return, nothing written */
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, 0, b.dl, b.d, b.du, x, n, &rep), MINV_SUCCESS, ctx);
    CHECK(x[0] == 7, "n = 0 wrote ainv");
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, -1, b.dl, b.d, b.du, x, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 2 (n)");
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, NULL, b.d, b.du, x, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 3 (dl) is NULL");
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, n - 1, &rep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "argument 7 (ldainv)");
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, NULL, n, &rep), MINV_ERR_INVALID_ARG, ctx);
    if (minv_context_backend(ctx) == MINV_BACKEND_CPU)
        CHECK_STATUS(minv_invert_tridiagonal_device_d(ctx, n, b.dl, b.d, b.du, x, n, &rep), MINV_ERR_NO_GPU, ctx);
    b.du[7] = NAN;
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, n, &rep), MINV_ERR_NOT_FINITE, ctx);
    HAS(minv_last_error(ctx), "du(8) = nan");
    /* n = 1 takes NULL off-diagonals */
    double one = 4, inv;
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, 1, NULL, &one, NULL, &inv, 1, NULL), MINV_SUCCESS, ctx);
    CHECK(inv == 0.25, "1 x 1: %g", inv);
    release(&b);
    free(x);
}

/* minv_invert with MINV_METHOD_TRIDIAGONAL, and AUTO, on dense tridiagonal matrices. */
static void dense_method(minv_context *ctx) {
    const int64_t n = 300, ld = n + 2;
    bands b = make(n, ROWS, 5);
    double *a0 = dense(&b), *a = tu_alloc(n, n, ld), *x = tu_alloc(n, n, ld);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) a[j * ld + i] = a0[j * n + i];
    minv_report rep;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, ld, x, ld, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_TRIDIAGONAL, "AUTO chose %s", minv_method_name(rep.method));
    HAS(rep.reason, "AUTO: tridiagonal");
    CHECK(tu_inverse_ratio(n, a0, n, x, ld, DBL_EPSILON) < 30, "AUTO tridiagonal ratio");
    CHECK(rep.flops == 2.0 * n * n && rep.residual >= 0 && rep.residual < 1e-13, "flops %g residual %g", rep.flops, rep.residual);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 2);
    CHECK_STATUS(minv_invert_inplace_d(ctx, MINV_METHOD_TRIDIAGONAL, n, a, ld, &rep), MINV_SUCCESS, ctx);
    CHECK(tu_inverse_ratio(n, a0, n, a, ld, DBL_EPSILON) < 30, "in place ratio");
    double mine = tu_inverse_ratio(n, a0, n, a, ld, DBL_EPSILON) * DBL_EPSILON;
    CHECK(rep.residual_kind == 2 && fabs(rep.residual - mine) < 0.5 * mine + 1e-18, "full residual %.3g vs %.3g", rep.residual, mine);
    /* the band API's full residual is the same quantity */
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, ld, &rep), MINV_SUCCESS, ctx);
    mine = tu_inverse_ratio(n, a0, n, x, ld, DBL_EPSILON) * DBL_EPSILON;
    CHECK(rep.residual_kind == 2 && fabs(rep.residual - mine) < 0.5 * mine + 1e-18, "band full residual %.3g vs %.3g", rep.residual, mine);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    CHECK_STATUS(minv_invert_tridiagonal_d(ctx, n, b.dl, b.d, b.du, x, ld, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.residual_kind == 0 && rep.residual == -1, "no residual");
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
    /* float through minv_invert_s */
    float *af = tu_to_float(n, n, a0, n, n), *xf = tu_to_float(n, n, a0, n, n);
    CHECK_STATUS(minv_invert_s(ctx, MINV_METHOD_TRIDIAGONAL, n, af, n, xf, n, &rep), MINV_SUCCESS, ctx);
    double *a2 = tu_to_double(n, n, af, n), *x2 = tu_to_double(n, n, xf, n);
    CHECK(tu_inverse_ratio(n, a2, n, x2, n, FLT_EPSILON) < 30, "float dense tridiagonal");
    /* forced on a matrix that is not tridiagonal: refused, never a wrong answer */
    a[5 * ld + 9] = 0.5;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_TRIDIAGONAL, n, a, ld, x, ld, &rep), MINV_ERR_SHAPE, ctx);
    HAS(minv_last_error(ctx), "needs a tridiagonal matrix");
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, ld, x, ld, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "AUTO on a banded matrix: %s", minv_method_name(rep.method));
    /* a solve with a tridiagonal matrix under AUTO stays a dense solve */
    double rhs[300], sol[300];
    for (int64_t i = 0; i < n; i++) rhs[i] = 1;
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, n, 1, a0, n, rhs, n, sol, n, &rep), MINV_SUCCESS, ctx);
    CHECK(rep.method == MINV_METHOD_LU, "AUTO solve: %s", minv_method_name(rep.method));
    free(af), free(xf), free(a2), free(x2);
    free(a0), free(a), free(x);
    release(&b);
}

int main(void) {
    minv_context *ctx[2];
    int count = tu_contexts(ctx);
    sizes_and_kinds(ctx, count);
    for (int k = 0; k < count; k++) {
        printf("backend %s\n", minv_backend_name(minv_context_backend(ctx[k])));
        paths_and_fallbacks(ctx[k]);
        singular_and_errors(ctx[k]);
        dense_method(ctx[k]);
        minv_destroy(ctx[k]);
    }
    return tu_finish("test_tridiagonal");
}
