/* minv info IN.nc:VAR: what `minv invert` would do with a matrix variable, or with every matrix
 * of a batch: the analysis (storage, symmetry, dominance, bandwidth, norms), the method AUTO
 * chooses, and the condition estimate from the factorisation that method makes, with any
 * fallback it takes; as text, or with --json as one JSON object for scripts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ncio.h"

static const cli_command command = {
    "info", "IN.nc:VAR [options]",
    "Analyses the matrix VAR of IN.nc (or every matrix of a batch) and says what minv invert would\n"
    "do with it: the method, and the condition estimate from that method's own factorisation.",
    "A single matrix: the method invert would run (--method, default auto), with invert's\n"
    "fallback (an AUTO Cholesky that finds A not positive definite goes on with LU, and says so),\n"
    "inverts it up to order 4096 (nothing written), which gives the exact 1 / (||A||_1 ||A^-1||_1);\n"
    "a larger matrix is solved with one right-hand side instead (a third (Cholesky) or two thirds\n"
    "(LU) of the cost) and its condition estimated from that factorisation: on the CPU a bound\n"
    "from the factor and the solution, which may overstate rcond a few times, with LAPACK's\n"
    "(xPOCON, xGECON) where it is below 1e-4; on the GPU Hager's estimator; the exact one from\n"
    "the O(n^2) inverse of a tridiagonal matrix. NaN or Inf entries are reported by the analysis;\n"
    "missing values (_FillValue, missing_value) are an error.\n"
    "A batch (a rank-3 variable of square matrices, as invert takes it): counts over the matrices,\n"
    "and, unless --no-rcond, the batch inverted as invert would (nothing written) for the path\n"
    "each matrix takes, how many failed, and the worst 1 / (||A||_inf ||A^-1||_inf).\n"
    "\n"
    "--json: one object, schema \"minv-info/1\" (keys keep their meaning; new ones may be added;\n"
    "numbers that are not finite are null; matrix and batch indices 0-based, rows and columns\n"
    "1-based):\n"
    "  schema, file, variable, storage, read  strings\n"
    "  kind                 \"matrix\" or \"batch\"\n"
    "  n                    the order of the matrix (of each matrix of a batch)\n"
    "  rcond_skipped        why there is no condition estimate, or null\n"
    " kind \"matrix\":\n"
    "  finite, symmetric, diagonally_dominant, tridiagonal  booleans\n"
    "  first_non_finite     {row, column} or null\n"
    "  asymmetry            max |a_ij - a_ji| / max |a_ij|\n"
    "  diagonal             {min, max, positive}\n"
    "  bandwidth            {lower, upper}\n"
    "  norms                {one, inf, frobenius}\n"
    "  auto                 the method AUTO chooses from the analysis\n"
    "  invert               {method, backend, notes}: what invert runs (after a fallback, once the\n"
    "                       estimate has run), where, and why (strings); null where invert\n"
    "                       refuses the matrix (not finite)\n"
    "  rcond                {value, method, estimate, backend, seconds, singular} or null\n"
    " kind \"batch\":\n"
    "  count, dimension     the matrices, along that dimension\n"
    "  counts               {finite, symmetric, positive_diagonal, spd_candidates}: matrices\n"
    "  first_non_finite     {matrix, row, column} or null\n"
    "  auto                 {spd_path, general_path}: matrices AUTO sends each way by the analysis\n"
    "  invert               {methods {name: matrices}, backend, spd, failed, first_failed\n"
    "                       ({matrix, reason} or null), seconds} or null: spd counts the matrices\n"
    "                       the SPD path inverted (positive definite)\n"
    "  rcond                {worst, worst_matrix, best, estimate} or null",
    CLI_INFO};

/* ---- JSON ---- */

static void json_string(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_number(double v) {
    if (isfinite(v))
        printf("%.17g", v);
    else
        printf("null");
}

static const char *json_bool(int v) { return v ? "true" : "false"; }

/* "key": "text" or null, and the separator before the next key. */
static void json_key_string(const char *key, const char *text) {
    printf(",\n  \"%s\": ", key);
    if (text)
        json_string(text);
    else
        printf("null");
}

/* ---- one matrix ---- */

/* What invert would run, and the condition from that run's factorisation. */
typedef struct {
    minv_method method;      /* what invert runs: AUTO's choice or --method, after a fallback */
    minv_method estimated_by; /* whose factorisation gave rcond */
    minv_backend backend;
    int estimated, singular;
    int exact; /* rcond from the inverse itself */
    double rcond, seconds;
    char skipped[MINV_ERROR_LEN]; /* why not estimated; "" when it was */
    char reason[MINV_REASON_LEN]; /* the run's notes: AUTO's why, fallbacks, the GPU note */
} outcome;

static const char *estimate_text(const outcome *o) {
    if (o->exact)
        switch (o->estimated_by) {
        case MINV_METHOD_GAUSS_JORDAN: return "1 / (||A||_1 ||A^-1||_1) from the Gauss-Jordan inverse";
        case MINV_METHOD_CHOLESKY: return "1 / (||A||_1 ||A^-1||_1) from the Cholesky inverse";
        default: return "1 / (||A||_1 ||A^-1||_1) from the LU inverse";
        }
    if (o->method == MINV_METHOD_ITERATIVE)
        return "1-norm estimate from an LU factorisation (the iterative method makes none)";
    switch (o->estimated_by) {
    case MINV_METHOD_TRIDIAGONAL: return "1 / (||A||_1 ||A^-1||_1) from the tridiagonal inverse";
    case MINV_METHOD_GAUSS_JORDAN: return "1-norm estimate from the Gauss-Jordan elimination";
    case MINV_METHOD_CHOLESKY: return "1-norm estimate from the Cholesky factorisation";
    default: return "1-norm estimate from the LU factorisation";
    }
}

/* The method whose factorisation estimates the condition of what invert runs: itself, except
 * the iterative method (it factors nothing: LU). */
static minv_method factorising(minv_method m) { return m == MINV_METHOD_ITERATIVE ? MINV_METHOD_LU : m; }

enum { INFO_INVERT_MAX = 4096 }; /* beyond, a solve estimates the condition for less */

/* Runs what invert would run (AUTO stays AUTO where its choice and fallback are invert's: a
 * solve's own choice may differ for one right-hand side) and keeps its condition: exact from
 * the inverse up to INFO_INVERT_MAX, else estimated by a solve. A tridiagonal matrix is
 * inverted in place, in O(n^2): m is spent. */
static void estimate(minv_context *ctx, const cli_settings *s, minv_mat *m, const minv_analysis *an, outcome *o) {
    const minv_method chosen = s->method == MINV_METHOD_AUTO ? an->auto_method : s->method;
    const minv_method by = factorising(chosen);
    const minv_method asked = chosen == MINV_METHOD_CHOLESKY || chosen == MINV_METHOD_TRIDIAGONAL ? s->method : by;
    minv_mat b = {0}, x = {0};
    minv_report r;
    minv_status st = minv_set_option(ctx, MINV_OPT_RESIDUAL, 0);
    memset(&r, 0, sizeof r);
    r.rcond = -1;
    if (st == MINV_SUCCESS && by == MINV_METHOD_TRIDIAGONAL) {
        st = m->dtype == MINV_R64 ? minv_invert_inplace_d(ctx, asked, m->rows, m->data, m->ld, &r)
                                  : minv_invert_inplace_s(ctx, asked, m->rows, m->data, m->ld, &r);
    } else if (st == MINV_SUCCESS && m->rows <= INFO_INVERT_MAX) {
        o->exact = 1;
        st = minv_mat_alloc(ctx, &x, m->dtype, m->rows, m->rows);
        if (st == MINV_SUCCESS)
            st = m->dtype == MINV_R64 ? minv_invert_d(ctx, asked, m->rows, m->data, m->ld, x.data, x.ld, &r)
                                      : minv_invert_s(ctx, asked, m->rows, m->data, m->ld, x.data, x.ld, &r);
    } else if (st == MINV_SUCCESS) {
        st = minv_mat_alloc(ctx, &b, m->dtype, m->rows, 1);
        if (st == MINV_SUCCESS)
            st = minv_mat_alloc(ctx, &x, m->dtype, m->rows, 1);
        if (st == MINV_SUCCESS) {
            for (int64_t i = 0; i < m->rows; i++) {
                if (m->dtype == MINV_R64) ((double *)b.data)[i] = 1;
                else ((float *)b.data)[i] = 1;
            }
            st = m->dtype == MINV_R64 ? minv_solve_d(ctx, asked, m->rows, 1, m->data, m->ld, b.data, b.ld, x.data, x.ld, &r)
                                      : minv_solve_s(ctx, asked, m->rows, 1, m->data, m->ld, b.data, b.ld, x.data, x.ld, &r);
        }
    }
    o->estimated = st == MINV_SUCCESS || (st == MINV_ERR_SINGULAR && r.rcond >= 0);
    /* an AUTO fallback: the method that ran last, LU also where it failed too (a singular A) */
    o->method = chosen == MINV_METHOD_CHOLESKY && (o->estimated || (r.fallbacks & MINV_FALLBACK_LU)) ? r.method : chosen;
    o->estimated_by = r.method;
    if (o->estimated) /* else the context's */
        o->backend = r.backend;
    o->seconds = r.seconds;
    o->rcond = r.rcond;
    o->singular = st == MINV_ERR_SINGULAR;
    snprintf(o->reason, sizeof o->reason, "%s", r.reason);
    if (!o->estimated)
        snprintf(o->skipped, sizeof o->skipped, "%s", minv_last_error(ctx));
    minv_mat_free(&b);
    minv_mat_free(&x);
}

static void print_matrix_text(const minv_analysis *an, const outcome *o) {
    printf("%-10s %lld\n", "n", (long long)an->n);
    if (an->finite)
        printf("%-10s yes\n", "finite");
    else
        printf("%-10s no: the first NaN or Inf is at (%lld, %lld) (row, column, 1-based)\n", "finite",
               (long long)an->first_bad_row + 1, (long long)an->first_bad_col + 1);
    printf("%-10s %s (relative asymmetry %.3g)\n", "symmetric", an->symmetric ? "yes" : "no", an->asymmetry);
    printf("%-10s min %.6g, max %.6g%s\n", "diagonal", an->diag_min, an->diag_max,
           an->diag_positive ? " (positive)" : "");
    printf("%-10s %s\n", "dominance", an->diag_dominant ? "strictly diagonally dominant by rows" : "not strictly diagonally dominant by rows");
    printf("%-10s lower %lld, upper %lld%s\n", "bandwidth", (long long)an->lower_bandwidth,
           (long long)an->upper_bandwidth, an->tridiagonal ? " (tridiagonal)" : "");
    printf("%-10s 1-norm %.6g, inf-norm %.6g, Frobenius %.6g\n", "norms", an->norm_1, an->norm_inf, an->norm_fro);
    printf("%-10s %s\n", "auto", minv_method_name(an->auto_method));
    if (an->finite) {
        char reason[MINV_REASON_LEN], *notes[CLI_MAX_NOTES];
        const int nnotes = cli_notes(o->reason, reason, notes);
        int whys = 0;
        printf("%-10s %s", "invert", minv_method_name(o->method));
        for (int k = 0; k < nnotes; k++)
            if (cli_is_why(notes[k]))
                printf("%s%s", whys++ ? "; " : " (", notes[k]);
        printf("%s on the %s\n", whys ? ")" : "", minv_backend_name(o->backend));
    } else { /* invert refuses it, whatever the method */
        printf("%-10s not run: the matrix is not finite\n", "invert");
    }
    if (o->estimated)
        printf("%-10s %.2e (%s, %.3g s on the %s)%s\n", "rcond", o->rcond, estimate_text(o), o->seconds,
               minv_backend_name(o->backend), o->singular ? ": singular to working precision" : "");
    else
        printf("%-10s not estimated: %s\n", "rcond", o->skipped);
}

static void print_matrix_json(const minv_analysis *an, const outcome *o) {
    printf(",\n  \"kind\": \"matrix\",\n  \"n\": %lld,\n  \"finite\": %s,\n  \"first_non_finite\": ", (long long)an->n,
           json_bool(an->finite));
    if (an->finite)
        printf("null");
    else
        printf("{\"row\": %lld, \"column\": %lld}", (long long)an->first_bad_row + 1, (long long)an->first_bad_col + 1);
    printf(",\n  \"symmetric\": %s,\n  \"asymmetry\": ", json_bool(an->symmetric));
    json_number(an->asymmetry);
    printf(",\n  \"diagonal\": {\"min\": ");
    json_number(an->diag_min);
    printf(", \"max\": ");
    json_number(an->diag_max);
    printf(", \"positive\": %s},\n  \"diagonally_dominant\": %s,\n", json_bool(an->diag_positive),
           json_bool(an->diag_dominant));
    printf("  \"bandwidth\": {\"lower\": %lld, \"upper\": %lld},\n  \"tridiagonal\": %s,\n  \"norms\": {\"one\": ",
           (long long)an->lower_bandwidth, (long long)an->upper_bandwidth, json_bool(an->tridiagonal));
    json_number(an->norm_1);
    printf(", \"inf\": ");
    json_number(an->norm_inf);
    printf(", \"frobenius\": ");
    json_number(an->norm_fro);
    printf("},\n  \"auto\": \"%s\",\n  \"invert\": ", minv_method_name(an->auto_method));
    if (an->finite) {
        printf("{\"method\": \"%s\", \"backend\": \"%s\", \"notes\": [", minv_method_name(o->method),
               minv_backend_name(o->backend));
        char reason[MINV_REASON_LEN], *notes[CLI_MAX_NOTES];
        const int nnotes = cli_notes(o->reason, reason, notes);
        for (int k = 0; k < nnotes; k++) {
            printf("%s", k ? ", " : "");
            json_string(notes[k]);
        }
        printf("]}");
    } else { /* invert refuses it, whatever the method */
        printf("null");
    }
    printf(",\n  \"rcond\": ");
    if (o->estimated) {
        printf("{\"value\": ");
        json_number(o->rcond);
        printf(", \"method\": \"%s\", \"estimate\": ", minv_method_name(o->estimated_by));
        json_string(estimate_text(o));
        printf(", \"backend\": \"%s\", \"seconds\": ", minv_backend_name(o->backend));
        json_number(o->seconds);
        printf(", \"singular\": %s}", json_bool(o->singular));
    } else {
        printf("null");
    }
    json_key_string("rcond_skipped", o->estimated ? NULL : o->skipped);
}

/* The single matrix of src (open): read, analysed, and what invert would do. */
static minv_status info_matrix(minv_context *ctx, const cli_settings *s, int no_rcond, minv_nc_source *src,
                               minv_analysis *an, outcome *o) {
    minv_mat m = {0};
    minv_status st = minv_mat_alloc(ctx, &m, s->fopts.precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64,
                                    src->rows, src->cols);
    if (st == MINV_SUCCESS)
        st = minv_nc_source_read(ctx, src, 0, 1, &m);
    minv_nc_source_close(src);
    if (st == MINV_SUCCESS)
        st = m.dtype == MINV_R64 ? minv_analyze_d(ctx, m.rows, m.data, m.ld, an) : minv_analyze_s(ctx, m.rows, m.data, m.ld, an);
    if (st == MINV_SUCCESS) {
        o->method = s->method == MINV_METHOD_AUTO ? an->auto_method : s->method;
        o->backend = minv_context_backend(ctx);
        if (no_rcond)
            snprintf(o->skipped, sizeof o->skipped, "--no-rcond");
        else if (!an->finite)
            snprintf(o->skipped, sizeof o->skipped, "the matrix is not finite");
        else
            estimate(ctx, s, &m, an, o);
    }
    minv_mat_free(&m);
    return st;
}

/* ---- a batch ---- */

typedef struct {
    int64_t count, n;
    const char *dimension;
    int64_t finite, symmetric, positive, candidates; /* matrices: symmetric with a positive diagonal */
    int64_t bad_matrix, bad_row, bad_col;             /* the first non-finite entry; bad_matrix -1 */
    int inverted;                                     /* the batch ran (the counts below hold) */
    int64_t methods[MINV_METHOD_COUNT], spd, failed, first_failed;
    char first_reason[256];
    minv_backend backend;
    double seconds, worst, best;
    int64_t worst_matrix;
    char skipped[MINV_ERROR_LEN];
} batch_tally;

/* Matrices k0 .. k0 + cnt - 1 into c->a (type t): whole in one read where the chunk is; a
 * chunk with a NaN or Inf again matrix by matrix, keeping them for the analysis. */
static minv_status read_chunk(minv_context *ctx, minv_nc_source *src, int64_t k0, int64_t cnt, minv_nc_chunks *c,
                              minv_dtype t) {
    const int64_t n = src->rows;
    minv_status st = c->whole ? minv_nc_source_read_matrices(ctx, src, k0, cnt, c->disk, t, c->a) : MINV_ERR_NOT_FINITE;
    if (st != MINV_ERR_NOT_FINITE)
        return st;
    minv_clear_error(ctx);
    for (int64_t m = 0; m < cnt; m++) {
        minv_mat one = {t, n, n, n, (char *)c->a + (size_t)(m * n * n) * (size_t)t};
        if ((st = minv_nc_source_read(ctx, src, k0 + m, 1, &one)) != MINV_SUCCESS)
            return st;
    }
    return MINV_SUCCESS;
}

static void tally_analysis(batch_tally *b, int64_t k, const minv_analysis *an) {
    b->finite += an->finite;
    b->symmetric += an->symmetric;
    b->positive += an->diag_positive;
    b->candidates += an->symmetric && an->diag_positive;
    if (!an->finite && b->bad_matrix < 0) {
        b->bad_matrix = k;
        b->bad_row = an->first_bad_row;
        b->bad_col = an->first_bad_col;
    }
}

static void tally_inversion(batch_tally *b, int64_t k0, int64_t cnt, minv_method asked, const minv_batch_results *res,
                            const minv_batch_report *br) {
    const minv_method general = minv_nc_batch_general(br->backend, asked);
    b->backend = br->backend;
    b->seconds += br->seconds;
    for (int64_t m = 0; m < cnt; m++) {
        if (res->status[m] != MINV_SUCCESS) {
            if (b->failed++ == 0) {
                b->first_failed = k0 + m;
                minv_batch_member_reason(b->first_reason, sizeof b->first_reason, res->status[m], res->info[m]);
            }
            if (res->status[m] != MINV_ERR_SINGULAR || res->rcond[m] < 0)
                continue;
        }
        b->methods[res->spd[m] ? MINV_METHOD_CHOLESKY : general]++;
        b->spd += res->spd[m] != 0;
        if (res->rcond[m] >= 0 && (b->worst_matrix < 0 || res->rcond[m] < b->worst)) {
            b->worst = res->rcond[m];
            b->worst_matrix = k0 + m;
        }
        if (res->rcond[m] >= 0 && !(res->rcond[m] <= b->best))
            b->best = res->rcond[m];
    }
}

/* Every matrix of the batch of src (open) read chunk by chunk as invert reads them, analysed,
 * and (unless no_rcond, and while every matrix is finite) inverted in place as invert would. */
static minv_status info_batch(minv_context *ctx, const cli_settings *s, int no_rcond, minv_nc_source *src,
                              batch_tally *b) {
    const minv_dtype t = s->fopts.precision == MINV_PRECISION_SINGLE ? MINV_R32 : MINV_R64;
    const int64_t n = src->rows, count = src->count, per = n * n;
    minv_nc_chunks c;
    minv_status status = MINV_SUCCESS;
    b->count = count;
    b->n = n;
    b->dimension = src->dims[src->nlead_fixed].name;
    b->bad_matrix = b->first_failed = b->worst_matrix = -1;
    b->inverted = !no_rcond;
    if (no_rcond)
        snprintf(b->skipped, sizeof b->skipped, "--no-rcond");
    MINV_TRY(minv_nc_chunks_alloc(ctx, &c, &s->fopts, t, n, count));
    MINV_TRY(minv_set_option(ctx, MINV_OPT_RESIDUAL, 0));
    for (int64_t k0 = 0; k0 < count; k0 += c.chunk) {
        const int64_t cnt = count - k0 < c.chunk ? count - k0 : c.chunk;
        const int64_t finite_before = b->finite;
        MINV_TRY(read_chunk(ctx, src, k0, cnt, &c, t));
        for (int64_t m = 0; m < cnt; m++) {
            minv_analysis an;
            const void *one = (char *)c.a + (size_t)(m * per) * (size_t)t;
            MINV_TRY(t == MINV_R64 ? minv_analyze_d(ctx, n, one, n, &an) : minv_analyze_s(ctx, n, one, n, &an));
            tally_analysis(b, k0 + m, &an);
            minv_progress(ctx, "analysis", (double)(k0 + m + 1) / (double)count);
        }
        if (b->inverted && b->finite - finite_before < cnt) {
            b->inverted = 0;
            snprintf(b->skipped, sizeof b->skipped, "matrix %lld (0-based) is not finite", (long long)b->bad_matrix);
        }
        if (!b->inverted)
            continue;
        minv_batch_report br;
        minv_status st = minv_invert_batched_results(ctx, s->method, t, n, cnt, c.a, &c.res, &br);
        minv_progress(ctx, "invert batch", (double)(k0 + cnt) / (double)count);
        if (st != MINV_SUCCESS && br.first_failed < 0) { /* the call failed, not a matrix */
            b->inverted = 0;
            snprintf(b->skipped, sizeof b->skipped, "%s", minv_last_error(ctx));
            continue;
        }
        tally_inversion(b, k0, cnt, s->method, &c.res, &br);
    }
cleanup:
    minv_nc_source_close(src);
    minv_nc_chunks_free(&c);
    return status;
}

static void print_batch_text(const batch_tally *b) {
    printf("%-10s %lld matrices of order %lld along %s\n", "batch", (long long)b->count, (long long)b->n, b->dimension);
    if (b->bad_matrix < 0)
        printf("%-10s %lld of %lld\n", "finite", (long long)b->finite, (long long)b->count);
    else
        printf("%-10s %lld of %lld: the first NaN or Inf is in matrix %lld (0-based) at (%lld, %lld) (row, column, 1-based)\n",
               "finite", (long long)b->finite, (long long)b->count, (long long)b->bad_matrix, (long long)b->bad_row + 1,
               (long long)b->bad_col + 1);
    printf("%-10s %lld of %lld, %lld of them with a positive diagonal\n", "symmetric", (long long)b->symmetric,
           (long long)b->count, (long long)b->candidates);
    printf("%-10s the SPD path for %lld, the general path for %lld\n", "auto", (long long)b->candidates,
           (long long)(b->count - b->candidates));
    if (!b->inverted) {
        printf("%-10s not run: %s\n", "invert", b->skipped);
        printf("%-10s not estimated: %s\n", "rcond", b->skipped);
        return;
    }
    int listed = 0;
    printf("%-10s", "invert");
    for (int m = 0; m < MINV_METHOD_COUNT; m++)
        if (b->methods[m])
            printf("%s %s for %lld", listed++ ? "," : "", minv_method_name((minv_method)m), (long long)b->methods[m]);
    printf("%s on the %s (%.3g s)\n", listed ? "" : " none", minv_backend_name(b->backend), b->seconds);
    printf("%-10s %lld of %lld (positive definite: the SPD path succeeded", "spd", (long long)b->spd, (long long)b->count);
    if (b->candidates != b->spd)
        printf("; %lld symmetric with a positive diagonal", (long long)b->candidates);
    printf(")\n");
    if (b->failed)
        printf("%-10s %lld: the first is matrix %lld (0-based): %s; minv invert stops there\n", "failed",
               (long long)b->failed, (long long)b->first_failed, b->first_reason);
    else
        printf("%-10s none\n", "failed");
    if (b->worst_matrix >= 0)
        printf("%-10s worst %.2e (matrix %lld, 0-based), best %.2e: 1 / (||A||_inf ||A^-1||_inf) of each inverse\n", "rcond",
               b->worst, (long long)b->worst_matrix, b->best);
    else
        printf("%-10s not estimated: no matrix was inverted\n", "rcond");
}

static void print_batch_json(const batch_tally *b) {
    printf(",\n  \"kind\": \"batch\",\n  \"n\": %lld,\n  \"count\": %lld", (long long)b->n, (long long)b->count);
    json_key_string("dimension", b->dimension);
    printf(",\n  \"counts\": {\"finite\": %lld, \"symmetric\": %lld, \"positive_diagonal\": %lld, \"spd_candidates\": %lld}",
           (long long)b->finite, (long long)b->symmetric, (long long)b->positive, (long long)b->candidates);
    printf(",\n  \"first_non_finite\": ");
    if (b->bad_matrix < 0)
        printf("null");
    else
        printf("{\"matrix\": %lld, \"row\": %lld, \"column\": %lld}", (long long)b->bad_matrix, (long long)b->bad_row + 1,
               (long long)b->bad_col + 1);
    printf(",\n  \"auto\": {\"spd_path\": %lld, \"general_path\": %lld}", (long long)b->candidates,
           (long long)(b->count - b->candidates));
    printf(",\n  \"invert\": ");
    if (b->inverted) {
        int listed = 0;
        printf("{\"methods\": {");
        for (int m = 0; m < MINV_METHOD_COUNT; m++)
            if (b->methods[m])
                printf("%s\"%s\": %lld", listed++ ? ", " : "", minv_method_name((minv_method)m), (long long)b->methods[m]);
        printf("}, \"backend\": \"%s\", \"spd\": %lld, \"failed\": %lld, \"first_failed\": ", minv_backend_name(b->backend),
               (long long)b->spd, (long long)b->failed);
        if (b->failed) {
            printf("{\"matrix\": %lld, \"reason\": ", (long long)b->first_failed);
            json_string(b->first_reason);
            printf("}");
        } else {
            printf("null");
        }
        printf(", \"seconds\": ");
        json_number(b->seconds);
        printf("}");
    } else {
        printf("null");
    }
    printf(",\n  \"rcond\": ");
    if (b->inverted && b->worst_matrix >= 0) {
        printf("{\"worst\": ");
        json_number(b->worst);
        printf(", \"worst_matrix\": %lld, \"best\": ", (long long)b->worst_matrix);
        json_number(b->best);
        printf(", \"estimate\": \"1 / (||A||_inf ||A^-1||_inf) of each inverse\"}");
    } else {
        printf("null");
    }
    json_key_string("rcond_skipped", b->inverted ? (b->worst_matrix >= 0 ? NULL : "no matrix was inverted") : b->skipped);
}

int cli_info(int argc, char **argv) {
    int locked = 0; /* the NetCDF lock, held from the open to the close of the source */
    cli_args args;
    cli_settings s;
    cli_path_var in = {0};
    minv_context *ctx = NULL;
    minv_nc_source src = {.ncid = -1};
    minv_analysis an;
    outcome o;
    batch_tally b;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    if (args.npos != 1)
        return cli_error(CLI_USAGE, "info: expected IN.nc:VAR, got %d arguments (see minv info --help)", args.npos);
    if ((code = cli_settings_from(&args, &s)) != CLI_OK || (code = cli_split(args.pos[0], "input", 1, &in)) != CLI_OK ||
        (code = cli_context(&s, &ctx)) != CLI_OK)
        goto cleanup;
    const int no_rcond = cli_flag(&args, "no-rcond"), json = cli_flag(&args, "json");
    memset(&o, 0, sizeof o);
    memset(&b, 0, sizeof b);
    if ((code = cli_probe_input(in.path, in.var, &s.fopts, 0)) != CLI_OK)
        goto cleanup;
    minv_nc_lock();
    locked = 1;
    minv_status st = minv_nc_source_open(ctx, &src, in.path, in.var, &s.fopts, MINV_NC_ALLOW_BATCH);
    if (st == MINV_SUCCESS)
        st = minv_nc_check_square(ctx, &src);
    if (st == MINV_SUCCESS)
        st = src.batch ? info_batch(ctx, &s, no_rcond, &src, &b) : info_matrix(ctx, &s, no_rcond, &src, &an, &o);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    char storage[1024], how[256];
    minv_nc_source_describe(&src, storage, sizeof storage);
    minv_nc_source_how(&src, how, sizeof how);
    char read[512];
    cli_stage_text(read, sizeof read, src.seconds, src.bytes, how);
    if (json) {
        printf("{\n  \"schema\": \"minv-info/1\"");
        json_key_string("file", in.path);
        json_key_string("variable", in.var);
        json_key_string("storage", storage);
        json_key_string("read", read);
        if (src.batch)
            print_batch_json(&b);
        else
            print_matrix_json(&an, &o);
        printf("\n}\n");
    } else {
        printf("minv info: '%s':%s\n%-10s %s\n%-10s %s\n", in.path, in.var, "variable", storage, "read", read);
        if (src.batch)
            print_batch_text(&b);
        else
            print_matrix_text(&an, &o);
    }
cleanup:
    minv_nc_source_close(&src);
    if (locked)
        minv_nc_unlock();
    minv_destroy(ctx);
    cli_path_var_free(&in);
    return code;
}
