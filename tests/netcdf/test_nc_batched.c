/* Batch variables T(batch, k, k) through the batched API: double, float and int on disk, in
 * chunks of whole matrices (fopts.batch_chunk, and the default), both views, SPD and general
 * matrices side by side (the per-matrix method attribute), computed in single precision, and a
 * singular matrix (the output abandoned, the matrix named). On every backend present. */
#include <float.h>
#include <math.h>

#include "nctest.h"

enum { K = 12, T = 23 };

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const char *const dims[3] = {"batch", "k", "k"};
static const size_t lens[3] = {T, K, K};

/* T matrices, row-major as on disk: even ones SPD, odd ones general; integers when asked
 * (diagonally dominant, so that every type holds them exactly). */
static double *batch_values(int integers) {
    double *v = malloc(sizeof(double) * T * K * K);
    tu_rng rng;
    tu_seed(&rng, 921);
    for (size_t t = 0; t < T; t++) {
        double *m = v + t * K * K;
        if (integers) {
            for (size_t i = 0; i < K; i++)
                for (size_t j = 0; j < K; j++)
                    m[i * K + j] = i == j ? 60 : (double)((i * 7 + j * (t % 2 ? 3 : 7) + t) % 9) - 4;
        } else if (t % 2) {
            tu_general(&rng, K, m, K);
        } else {
            tu_spd(&rng, K, m, K);
        }
    }
    return v;
}

/* The LAPACK-tester ratio of matrix t of X as the inverse of matrix t of A (both row-major). */
static double member_ratio(const double *a, const double *x, size_t t, double eps) {
    double *ac = nct_c_view(a + t * K * K, K, K), *xc = nct_c_view(x + t * K * K, K, K);
    double r = tu_inverse_ratio(K, ac, K, xc, K, eps);
    free(ac);
    free(xc);
    return r;
}

static void types_and_chunks(minv_context *ctx) {
    static const struct {
        nc_type type;
        int integers;
        const char *name;
    } cases[] = {{NC_DOUBLE, 0, "double"}, {NC_FLOAT, 0, "float"}, {NC_INT, 1, "int"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        double *v = batch_values(cases[c].integers);
        nct_write("bat_in.nc", 0, &nc4, "T", cases[c].type, 3, dims, lens, 0, v);
        double *stored = nct_read("bat_in.nc", "T", NULL);
        for (int single = 0; single <= 1; single++) {
            for (int chunk = 0; chunk <= 5; chunk += 5) {
                minv_file_options fo;
                minv_report rep;
                nct_options(&fo);
                fo.batch_chunk = chunk;
                fo.precision = single ? MINV_PRECISION_SINGLE : MINV_PRECISION_DOUBLE;
                CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "bat_in.nc", "T", "bat_out.nc", NULL, &fo, &rep),
                             MINV_SUCCESS, ctx);
                size_t count;
                double *x = nct_read("bat_out.nc", "T_inv", &count);
                CHECK(count == T * K * K, "%s: %zu values", cases[c].name, count);
                double worst = 0;
                for (size_t t = 0; t < T && count == T * K * K; t++) {
                    const double r = member_ratio(stored, x, t, single ? FLT_EPSILON : DBL_EPSILON);
                    if (r > worst) worst = r;
                }
                CHECK(worst < 30, "%s on disk, %s, chunk %d: worst ratio %.3g", cases[c].name, single ? "single" : "double",
                      chunk, worst);
                char expect[96];
                snprintf(expect, sizeof expect, "batch of %d matrices in chunks of up to %d", T, chunk ? chunk : T);
                HAS(rep.reason, expect);
                CHECK(rep.matrices == T && rep.worst >= 0 && rep.worst < T, "%lld matrices, worst %lld",
                      (long long)rep.matrices, (long long)rep.worst);
                HAS(rep.reason, chunk ? "in 5 reads of whole matrices" : "in 1 read of whole matrices");
                CHECK(rep.residual >= 0 && rep.rcond > 0, "%s: report residual %g rcond %g", cases[c].name, rep.residual,
                      rep.rcond);
                if (!cases[c].integers) { /* SPD and general side by side */
                    char *methods = nct_read_text_att("bat_out.nc", "T_inv", "minv_method");
                    CHECK(methods && strstr(methods, "cholesky, ") && rep.method == MINV_METHOD_AUTO,
                          "%s: minv_method = %s, report %s", cases[c].name, methods ? methods : "(none)",
                          minv_method_name(rep.method));
                    free(methods);
                }
                free(x);
            }
        }
        free(stored);
        free(v);
    }
}

/* Written from Fortran (fortran_order): the same inverses, in the same layout. */
static void views(minv_context *ctx) {
    double *v = batch_values(0);
    nct_write("bat_view.nc", 0, &nc4, "T", NC_DOUBLE, 3, dims, lens, 0, v);
    minv_file_options fo;
    nct_options(&fo);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_GAUSS_JORDAN, "bat_view.nc", "T", "bat_c.nc", NULL, &fo, NULL),
                 MINV_SUCCESS, ctx);
    fo.fortran_order = 1;
    fo.batch_chunk = 4;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_GAUSS_JORDAN, "bat_view.nc", "T", "bat_f.nc", NULL, &fo, NULL),
                 MINV_SUCCESS, ctx);
    double *xc = nct_read("bat_c.nc", "T_inv", NULL), *xf = nct_read("bat_f.nc", "T_inv", NULL);
    double worst = 0;
    for (size_t t = 0; t < T; t++) {
        double d = tu_rel_diff(K, K, xf + t * K * K, K, xc + t * K * K, K);
        if (d > worst) worst = d;
    }
    CHECK(worst < 1e-12, "the two views differ by %.3g", worst);
    free(xc);
    free(xf);
    free(v);
}

/* A singular matrix in the middle: its index in the message, nothing written. */
static void singular(minv_context *ctx) {
    double *v = batch_values(0);
    for (size_t j = 0; j < K; j++) v[13 * K * K + 4 * K + j] = 0; /* row 5 of matrix 13 */
    nct_write("bat_sing.nc", 0, &nc4, "T", NC_DOUBLE, 3, dims, lens, 0, v);
    minv_file_options fo;
    nct_options(&fo);
    fo.batch_chunk = 6;
    minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, "bat_sing.nc", "T", "bat_sing_inv.nc", NULL, &fo, NULL);
    CHECK(st == MINV_ERR_SINGULAR, "singular batch: %s", minv_status_string(st));
    HAS(minv_last_error(ctx), "'bat_sing.nc', variable 'T' (batch = 13, 0-based)");
    HAS(minv_last_error(ctx), "no pivot in column");
    CHECK(!nct_exists("bat_sing_inv.nc") && !nct_tmp_left("bat_sing_inv.nc"), "singular batch: output left behind");
    fo.batch_chunk = -1;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "bat_sing.nc", "T", "bat_sing_inv.nc", NULL, &fo, NULL),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "batch_chunk = -1 must be >= 0");
    free(v);
}

int main(void) {
    minv_context *ctx[2];
    const int count = tu_contexts(ctx);
    for (int c = 0; c < count; c++) {
        printf("== %s backend\n", minv_backend_name(minv_context_backend(ctx[c])));
        types_and_chunks(ctx[c]);
        views(ctx[c]);
        singular(ctx[c]);
        minv_destroy(ctx[c]);
    }
    return tu_finish("test_nc_batched");
}
