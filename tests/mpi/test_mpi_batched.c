/* Distributed batches against serial minv on the same members: strided and variable sizes,
 * inversions and solves, double and float, with and without the rebalance; an uneven
 * decomposition with a rank that holds no members; failed members named by their global index
 * with the same status, report and message on every rank; argument errors of one rank; each
 * rank's default team its share of the node's cores. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_testutil.h"

enum { K = 12, NRHS = 3 };

/* Members per rank: uneven, and rank 1 holds none. */
static int64_t count_of(int r) { return r == 0 ? 7 : r == 1 ? 0 : 2 + r; }

static int64_t offset_of(int r) {
    int64_t o = 0;
    for (int q = 0; q < r; q++) o += count_of(q);
    return o;
}

static int64_t total_count(void) { return offset_of(mt_size); }

/* Member g of order k: SPD for every third, general otherwise, from g's own seed. */
static void member(int64_t g, int64_t k, double *a, int64_t lda) {
    tu_rng rng;
    tu_seed(&rng, 1000 + (uint64_t)g);
    if (g % 3 == 0)
        tu_spd(&rng, k, a, lda);
    else
        tu_general(&rng, k, a, lda);
}

static int64_t vorder(int64_t g) { return 4 + (g % 7) * 3; }

/* ---- strided inversions ---- */

static void strided_invert(minv_context *ctx, int32_t flags, int fail) {
    const int64_t n = count_of(mt_rank), off = offset_of(mt_rank), total = total_count();
    const int64_t g_singular = total - 2, g_nan = total - 1;
    double *a = malloc((size_t)(n * K * K + 1) * sizeof(double)), *x = malloc((size_t)(n * K * K + 1) * sizeof(double));
    double *ref = malloc((size_t)(n * K * K + 1) * sizeof(double));
    minv_status st[16], st_ref[16];
    for (int64_t m = 0; m < n; m++) {
        double *am = a + m * K * K;
        member(off + m, K, am, K);
        if (fail && off + m == g_singular)
            for (int64_t i = 0; i < K; i++) am[3 * K + i] = 0; /* column 3 zero */
        if (fail && off + m == g_nan)
            am[5 * K + 2] = NAN;
    }
    for (int64_t e = 0; e < n * K * K; e++) x[e] = ref[e] = -7; /* a failed member's output stays */
    minv_batch_report r, rr;
    minv_status got = minv_mpi_invert_batched_d(ctx, MPI_COMM_WORLD, flags, MINV_METHOD_AUTO, K, n, a, K, K * K, x, K,
                                                K * K, st, &r);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", minv_last_error(ctx));
    minv_invert_batched_d(ctx, MINV_METHOD_AUTO, K, n, a, K, K * K, ref, K, K * K, st_ref, &rr);
    CHECK(got == (fail ? MINV_ERR_SINGULAR : MINV_SUCCESS), "rank %d: returned %s (%s)", mt_rank, minv_status_string(got), msg);
    CHECK(r.nbatch == total && r.k == K, "nbatch %lld k %lld", (long long)r.nbatch, (long long)r.k);
    CHECK(MT_SAME_REPORT(r), "flags %d: the report differs between the ranks", (int)flags);
    CHECK(r.stages.compute_seconds > 0 && r.stages.compute_seconds <= r.seconds && r.device == -1 && r.fallbacks == 0,
          "flags %d: compute %g s of %g, device %d, fallbacks %d", (int)flags, r.stages.compute_seconds, r.seconds,
          (int)r.device, (int)r.fallbacks);
    CHECK(mt_same_text(msg), "the message differs between ranks: %s", msg);
    int same_status = got;
    CHECK(mt_same(&same_status, sizeof same_status), "the status differs between ranks");
    if (fail) {
        CHECK(r.failed == 2 && r.first_failed == g_singular && r.first_status == MINV_ERR_SINGULAR && r.first_info == 3,
              "failed %lld first %lld (expected %lld) status %d info %lld", (long long)r.failed, (long long)r.first_failed,
              (long long)g_singular, (int)r.first_status, (long long)r.first_info);
        char want[96];
        snprintf(want, sizeof want, "member %lld of %lld, rank", (long long)g_singular + 1, (long long)total);
        CHECK(strstr(msg, want) != NULL, "message: %s", msg);
    } else {
        CHECK(r.failed == 0 && r.first_failed == -1, "failed %lld", (long long)r.failed);
        CHECK(r.residual >= 0 && r.residual < 1e-12 && r.rcond > 0, "residual %g rcond %g", r.residual, r.rcond);
    }
    if (flags & MINV_MPI_REBALANCE && mt_size > 1)
        CHECK(strstr(r.reason, "rebalanced by cost k^3") != NULL, "reason: %s", r.reason);
    for (int64_t m = 0; m < n; m++) {
        CHECK(st[m] == st_ref[m], "rank %d member %lld: %s, serial %s", mt_rank, (long long)m, minv_status_string(st[m]),
              minv_status_string(st_ref[m]));
        const double d = tu_rel_diff(K, K, x + m * K * K, K, ref + m * K * K, K);
        CHECK(d < 1e-10, "rank %d member %lld (flags %d): rel. difference %g from serial minv", mt_rank, (long long)m,
              (int)flags, d);
    }
    free(a);
    free(x);
    free(ref);
}

/* In place, rebalanced: the results land in the caller's a. */
static void inplace(minv_context *ctx) {
    const int64_t n = count_of(mt_rank), off = offset_of(mt_rank);
    double *a = malloc((size_t)(n * K * K + 1) * sizeof(double)), *ref = malloc((size_t)(n * K * K + 1) * sizeof(double));
    for (int64_t m = 0; m < n; m++) member(off + m, K, a + m * K * K, K);
    CHECK_STATUS(minv_invert_batched_d(ctx, MINV_METHOD_AUTO, K, n, a, K, K * K, ref, K, K * K, NULL, NULL), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_invert_batched_d(ctx, MPI_COMM_WORLD, MINV_MPI_REBALANCE, MINV_METHOD_AUTO, K, n, a, K, K * K, a,
                                           K, K * K, NULL, NULL),
                 MINV_SUCCESS, ctx);
    for (int64_t m = 0; m < n; m++)
        CHECK(tu_rel_diff(K, K, a + m * K * K, K, ref + m * K * K, K) < 1e-10, "in place member %lld", (long long)m);
    free(a);
    free(ref);
}

/* ---- variable sizes, inversions and solves ---- */

static void vsize(minv_context *ctx, int32_t flags, int solve) {
    const int64_t n = count_of(mt_rank), off = offset_of(mt_rank);
    int64_t k[16], ld[16], ldb[16];
    double *a[16], *b[16], *x[16], *ref[16];
    minv_status st[16], st_ref[16];
    for (int64_t m = 0; m < n; m++) {
        k[m] = vorder(off + m);
        ld[m] = k[m] + 1; /* padded leading dimensions */
        ldb[m] = k[m];
        const int64_t cols = solve ? NRHS : k[m];
        a[m] = tu_alloc(k[m], k[m], ld[m]);
        member(off + m, k[m], a[m], ld[m]);
        b[m] = tu_alloc(k[m], NRHS, ldb[m]);
        tu_rng rng;
        tu_seed(&rng, 50 + (uint64_t)(off + m));
        tu_rect(&rng, k[m], NRHS, b[m], ldb[m]);
        x[m] = tu_alloc(k[m], cols, ld[m]);
        ref[m] = tu_alloc(k[m], cols, ld[m]);
    }
    minv_batch_report r;
    minv_status got, want;
    if (solve) {
        got = minv_mpi_solve_batched_vsize_d(ctx, MPI_COMM_WORLD, flags, MINV_METHOD_AUTO, k, NRHS, n,
                                             (const double *const *)a, ld, (const double *const *)b, ldb, x, ld, st, &r);
        want = minv_solve_batched_vsize_d(ctx, MINV_METHOD_AUTO, k, NRHS, n, (const double *const *)a, ld,
                                          (const double *const *)b, ldb, ref, ld, st_ref, NULL);
    } else {
        got = minv_mpi_invert_batched_vsize_d(ctx, MPI_COMM_WORLD, flags, MINV_METHOD_AUTO, k, n, (const double *const *)a,
                                              ld, x, ld, st, &r);
        want = minv_invert_batched_vsize_d(ctx, MINV_METHOD_AUTO, k, n, (const double *const *)a, ld, ref, ld, st_ref, NULL);
    }
    CHECK(got == MINV_SUCCESS && want == MINV_SUCCESS, "vsize %s flags %d: %s (%s)", solve ? "solve" : "invert",
          (int)flags, minv_status_string(got), minv_last_error(ctx));
    CHECK(MT_SAME_REPORT(r), "vsize: the report differs between the ranks");
    CHECK(r.nbatch == total_count() && (r.nrhs == (solve ? NRHS : 0)), "nbatch %lld nrhs %lld", (long long)r.nbatch,
          (long long)r.nrhs);
    int64_t kmax = 0;
    for (int64_t g = 0; g < total_count(); g++) kmax = vorder(g) > kmax ? vorder(g) : kmax;
    CHECK(r.k == kmax, "k %lld, the largest order is %lld", (long long)r.k, (long long)kmax);
    for (int64_t m = 0; m < n; m++) {
        const int64_t cols = solve ? NRHS : k[m];
        CHECK(st[m] == MINV_SUCCESS, "member %lld: %s", (long long)m, minv_status_string(st[m]));
        const double d = tu_rel_diff(k[m], cols, x[m], ld[m], ref[m], ld[m]);
        CHECK(d < 1e-10, "vsize %s rank %d member %lld: rel. difference %g", solve ? "solve" : "invert", mt_rank,
              (long long)m, d);
        if (solve) {
            const double ratio = tu_solve_ratio(k[m], NRHS, a[m], ld[m], b[m], ldb[m], x[m], ld[m], 0x1p-52);
            CHECK(ratio < 30, "solve ratio %g", ratio);
        }
        free(a[m]);
        free(b[m]);
        free(x[m]);
        free(ref[m]);
    }
}

/* ---- strided solves, float ---- */

static void strided_solve(minv_context *ctx, int32_t flags) {
    const int64_t n = count_of(mt_rank), off = offset_of(mt_rank);
    double *a = malloc((size_t)(n * K * K + 1) * sizeof(double)), *b = malloc((size_t)(n * K * NRHS + 1) * sizeof(double));
    double *x = malloc((size_t)(n * K * NRHS + 1) * sizeof(double)), *ref = malloc((size_t)(n * K * NRHS + 1) * sizeof(double));
    for (int64_t m = 0; m < n; m++) {
        tu_rng rng;
        member(off + m, K, a + m * K * K, K);
        tu_seed(&rng, 70 + (uint64_t)(off + m));
        tu_rect(&rng, K, NRHS, b + m * K * NRHS, K);
    }
    minv_batch_report r;
    CHECK_STATUS(minv_mpi_solve_batched_d(ctx, MPI_COMM_WORLD, flags, MINV_METHOD_AUTO, K, NRHS, n, a, K, K * K, b, K,
                                          K * NRHS, x, K, K * NRHS, NULL, &r),
                 MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_solve_batched_d(ctx, MINV_METHOD_AUTO, K, NRHS, n, a, K, K * K, b, K, K * NRHS, ref, K, K * NRHS,
                                      NULL, NULL),
                 MINV_SUCCESS, ctx);
    CHECK(MT_SAME_REPORT(r) && r.nrhs == NRHS && r.nbatch == total_count(), "solve report");
    CHECK(n == 0 || tu_rel_diff(K, n * NRHS, x, K, ref, K) < 1e-10, "strided solve differs from serial minv");
    free(a);
    free(b);
    free(x);
    free(ref);
}

static void single(minv_context *ctx) {
    const int64_t n = count_of(mt_rank), off = offset_of(mt_rank);
    double *a = malloc((size_t)(n * K * K + 1) * sizeof(double));
    for (int64_t m = 0; m < n; m++) member(off + m, K, a + m * K * K, K);
    float *af = tu_to_float(K, n * K, a, K, K), *x = malloc((size_t)(n * K * K + 1) * sizeof(float));
    float *ref = malloc((size_t)(n * K * K + 1) * sizeof(float));
    CHECK_STATUS(minv_mpi_invert_batched_s(ctx, MPI_COMM_WORLD, MINV_MPI_REBALANCE, MINV_METHOD_AUTO, K, n, af, K, K * K,
                                           x, K, K * K, NULL, NULL),
                 MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_invert_batched_s(ctx, MINV_METHOD_AUTO, K, n, af, K, K * K, ref, K, K * K, NULL, NULL),
                 MINV_SUCCESS, ctx);
    for (int64_t e = 0; e < n * K * K; e++)
        if (x[e] != ref[e]) {
            CHECK(0, "float: entry %lld differs from serial minv (%g, %g)", (long long)e, x[e], ref[e]);
            break;
        }
    free(a);
    free(af);
    free(x);
    free(ref);
}

/* ---- errors of one rank, seen by all ---- */

static void argument_error(minv_context *ctx) {
    const int64_t n = count_of(mt_rank);
    double *a = malloc((size_t)(n * K * K + 1) * sizeof(double)), *x = malloc((size_t)(n * K * K + 1) * sizeof(double));
    for (int64_t m = 0; m < n; m++) member(offset_of(mt_rank) + m, K, a + m * K * K, K);
    const int bad = mt_size - 1; /* rank 1 of 2 holds no members: any lda passes there */
    const int64_t lda = mt_rank == bad && n > 0 ? K - 1 : K;
    minv_batch_report r;
    minv_status got = minv_mpi_invert_batched_d(ctx, MPI_COMM_WORLD, 0, MINV_METHOD_AUTO, K, n, a, lda, K * K, x, K, K * K,
                                                NULL, &r);
    const int expect_error = count_of(bad) > 0;
    CHECK(got == (expect_error ? MINV_ERR_INVALID_ARG : MINV_SUCCESS), "lda error: %s (%s)", minv_status_string(got),
          minv_last_error(ctx));
    CHECK(mt_same_text(minv_last_error(ctx)), "the argument error reads differently between ranks: %s", minv_last_error(ctx));
    if (expect_error && mt_size > 1) {
        char want[32];
        snprintf(want, sizeof want, "rank %d: ", bad);
        CHECK(strstr(minv_last_error(ctx), want) != NULL, "no '%s' in: %s", want, minv_last_error(ctx));
    }
    if (mt_size > 1) { /* nrhs must agree */
        const int64_t nrhs = mt_rank == 0 ? 2 : 3;
        double *b = calloc((size_t)(n * K * 3 + 1), sizeof(double)), *xx = calloc((size_t)(n * K * 3 + 1), sizeof(double));
        got = minv_mpi_solve_batched_d(ctx, MPI_COMM_WORLD, 0, MINV_METHOD_AUTO, K, nrhs, n, a, K, K * K, b, K, K * nrhs, xx,
                                       K, K * nrhs, NULL, NULL);
        CHECK(got == MINV_ERR_INVALID_ARG && strstr(minv_last_error(ctx), "nrhs differs") != NULL, "nrhs: %s",
              minv_last_error(ctx));
        free(b);
        free(xx);
    }
    free(a);
    free(x);
}

/* The ranks of a node share its cores: each rank's default team is its share, at least 1. */
static void options_threads(void) {
    minv_options o;
    MPI_Comm node;
    int ranks_on_node;
    CHECK(minv_mpi_options_default(MPI_COMM_WORLD, &o) == MINV_SUCCESS, "minv_mpi_options_default");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mt_rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_on_node);
    MPI_Comm_free(&node);
    const long share = sysconf(_SC_NPROCESSORS_ONLN) / ranks_on_node;
    CHECK(o.cpu_threads >= 1 && o.cpu_threads <= (share > 1 ? share : 1),
          "cpu_threads %d: not this rank's share of %ld cores over %d ranks", o.cpu_threads,
          sysconf(_SC_NPROCESSORS_ONLN), ranks_on_node);
}

int main(int argc, char **argv) {
    minv_context *ctx = mt_init(&argc, &argv);
    if (!ctx)
        return 1;
    options_threads();
    for (int fail = 0; fail < 2; fail++) {
        strided_invert(ctx, 0, fail);
        strided_invert(ctx, MINV_MPI_REBALANCE, fail);
    }
    inplace(ctx);
    for (int solve = 0; solve < 2; solve++) {
        vsize(ctx, 0, solve);
        vsize(ctx, MINV_MPI_REBALANCE, solve);
    }
    strided_solve(ctx, 0);
    strided_solve(ctx, MINV_MPI_REBALANCE);
    single(ctx);
    argument_error(ctx);
    return mt_finish("test_mpi_batched", ctx);
}
