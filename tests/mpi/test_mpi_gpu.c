/* The MPI layer on GPUs (label gpu;mpi), against serial minv on the CPU: one GPU a rank from
 * minv_mpi_options_default; one matrix over the ranks through cuSOLVERMp (SPD and general,
 * inversion and solve, singular and not SPD statuses, columns and messages the same everywhere
 * and the same as ScaLAPACK's, AUTO's fallback from Cholesky to LU) where every rank has
 * a GPU of its own, and ScaLAPACK with a note where ranks share one (NCCL takes one rank a GPU);
 * X solved in parts under a device budget smaller than A and X, ScaLAPACK under one smaller
 * than A; one cuSOLVERMp session per context for layouts of several grid shapes; distributed
 * batches on each rank's GPU. Skips (77) where a rank has no GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_testutil.h"

static const double EPS = 0x1p-52;

/* 1 when every rank has a GPU of its own, so that NCCL (and cuSOLVERMp) can take them all:
 * no two ranks of a node on the same device. */
static int own_gpus(minv_context *gpu) {
    int count = 0, devices[MINV_MAX_DEVICES], nsize, clash = 0, any = 0;
    minv_context_devices(gpu, &count, devices);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mt_rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    int *chosen = malloc((size_t)nsize * sizeof(int));
    MPI_Allgather(&devices[0], 1, MPI_INT, chosen, 1, MPI_INT, node);
    for (int i = 0; i < nsize; i++)
        for (int j = i + 1; j < nsize; j++) clash |= chosen[i] == chosen[j];
    MPI_Allreduce(&clash, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    free(chosen);
    return !any;
}

/* A (SPD or general, from the seed) and B over the layouts la and lb: the GPU context's call (a
 * solve for lb's columns, or an inversion) against serial minv on the CPU. Returns the largest
 * relative difference; *r is the GPU call's report. */
static double against_cpu(minv_context *gpu, minv_context *cpu, int spd, int solve, uint64_t seed,
                          const minv_mpi_layout *la, const minv_mpi_layout *lb, minv_report *r) {
    const int64_t n = la->n, nrhs = lb->n;
    double *a = tu_alloc(n, n, n), *b = tu_alloc(n, nrhs, n), *ref = tu_alloc(n, nrhs, n);
    tu_rng rng;
    tu_seed(&rng, seed);
    if (spd)
        tu_spd(&rng, n, a, n);
    else
        tu_general(&rng, n, a, n);
    tu_rect(&rng, n, nrhs, b, n);
    double *ap = mt_piece_of(la, a, n), *bp = mt_piece_of(lb, solve ? b : a, n), *xp = mt_piece_of(lb, solve ? b : a, n);
    if (solve) {
        CHECK_STATUS(minv_mpi_solve_d(gpu, MINV_METHOD_AUTO, la, ap, lb, bp, xp, r), MINV_SUCCESS, gpu);
        CHECK_STATUS(minv_solve_d(cpu, MINV_METHOD_AUTO, n, nrhs, a, n, b, n, ref, n, NULL), MINV_SUCCESS, cpu);
    } else {
        CHECK_STATUS(minv_mpi_invert_d(gpu, MINV_METHOD_AUTO, la, ap, xp, r), MINV_SUCCESS, gpu);
        CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_AUTO, n, a, n, ref, n, NULL), MINV_SUCCESS, cpu);
    }
    double *x = mt_whole_of(gpu, lb, xp);
    const double d = tu_rel_diff(n, nrhs, x, n, ref, n);
    free(a);
    free(b);
    free(ref);
    free(x);
    free(ap);
    free(bp);
    free(xp);
    return d;
}

/* column_grid: all ranks down one process column (P x 1), where row swaps cross ranks; else the
 * default grid (1 x 2 for two ranks). */
static void one_matrix(minv_context *gpu, minv_context *cpu, int spd, int64_t n, int solve, int expect_gpu, int column_grid) {
    minv_mpi_layout la, lb;
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 32, column_grid ? mt_size : 0, column_grid ? 1 : 0, &la),
                 MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_like(gpu, &la, n, solve ? 5 : n, &lb), MINV_SUCCESS, gpu);
    minv_report r;
    const double d = against_cpu(gpu, cpu, spd, solve, 7 + (uint64_t)n, &la, &lb, &r);
    CHECK(d < 1e-10, "%s %s n %lld, %lld x %lld grid: rel. difference %g from serial minv on the CPU", spd ? "spd" : "general",
          solve ? "solve" : "inverse", (long long)n, (long long)la.nprow, (long long)la.npcol, d);
    CHECK(r.residual >= 0 && r.residual < 1000 * EPS, "residual %g", r.residual);
    CHECK(MT_SAME_REPORT(r), "the report differs between the ranks");
    if (expect_gpu)
        CHECK(r.backend == MINV_BACKEND_GPU && strstr(r.reason, "cuSOLVERMp"), "expected cuSOLVERMp: %s", r.reason);
    else
        CHECK(r.backend == MINV_BACKEND_CPU && strstr(r.reason, "GPU not used"), "expected the ScaLAPACK fallback: %s",
              r.reason);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
}

/* A device budget that holds A and a third of X: X solved in parts (a general inverse, and an
 * SPD solve with many right-hand sides), each part's columns where they belong. */
static void in_parts(minv_context *cpu, int solve) {
    const int64_t n = 3072, nrhs = solve ? 1536 : n;
    minv_mpi_layout la, lb;
    minv_context *probe = NULL, *gpu = NULL;
    minv_options opts;
    minv_mpi_options_default(MPI_COMM_WORLD, &opts);
    opts.backend = MINV_BACKEND_GPU;
    CHECK_STATUS(minv_create(&probe, &opts), MINV_SUCCESS, probe);
    CHECK_STATUS(minv_mpi_layout_create(probe, MPI_COMM_WORLD, n, n, 32, 0, 0, &la), MINV_SUCCESS, probe);
    CHECK_STATUS(minv_mpi_layout_like(probe, &la, n, nrhs, &lb), MINV_SUCCESS, probe);
    double piece_a = (double)la.lld * (double)la.local_cols * 8, piece_x = (double)lb.lld * (double)(lb.local_cols + 1) * 8;
    MPI_Allreduce(MPI_IN_PLACE, &piece_a, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &piece_x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
    minv_destroy(probe);
    opts.device_memory = (int64_t)(piece_a + piece_x / 3) + ((int64_t)4 << 20);
    CHECK_STATUS(minv_create(&gpu, &opts), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 32, 0, 0, &la), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_like(gpu, &la, n, nrhs, &lb), MINV_SUCCESS, gpu);
    minv_report r;
    const double d = against_cpu(gpu, cpu, solve, solve, 11, &la, &lb, &r);
    CHECK(d < 1e-10, "%s in parts: rel. difference %g from serial minv on the CPU", solve ? "spd solve" : "general inverse", d);
    CHECK(r.backend == MINV_BACKEND_GPU && strstr(r.reason, " parts of "), "expected X in parts on the GPU: %s", r.reason);
    CHECK(MT_SAME_REPORT(r), "the report differs between the ranks");
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
    minv_destroy(gpu);
}

/* A device budget below A's piece: the call runs on ScaLAPACK, and the report says so. */
static void over_budget(minv_context *cpu, int solve) {
    const int64_t n = 300;
    minv_mpi_layout la, lb;
    minv_context *gpu = NULL;
    minv_options opts;
    minv_mpi_options_default(MPI_COMM_WORLD, &opts);
    opts.backend = MINV_BACKEND_GPU;
    opts.device_memory = 100000; /* A's piece alone is 360 kB on 2 ranks */
    CHECK_STATUS(minv_create(&gpu, &opts), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 32, 0, 0, &la), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_like(gpu, &la, n, solve ? 7 : n, &lb), MINV_SUCCESS, gpu);
    minv_report r;
    const double d = against_cpu(gpu, cpu, 1, solve, 13, &la, &lb, &r);
    CHECK(d < 1e-10, "over the device budget, %s: rel. difference %g from serial minv", solve ? "solve" : "inverse", d);
    CHECK(r.backend == MINV_BACKEND_CPU && (r.fallbacks & MINV_FALLBACK_CPU) && strstr(r.reason, "the GPUs cannot hold the call") &&
              strstr(r.reason, "finished on the CPU"),
          "expected ScaLAPACK after the device memory: %s", r.reason);
    CHECK(MT_SAME_REPORT(r), "the report differs between the ranks");
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&la);
    minv_destroy(gpu);
}

/* One failing call on the GPU and on the CPU (ScaLAPACK): the same status, column and message,
 * the same everywhere. */
static void failure_case(minv_context *gpu, minv_context *cpu, const char *what, const double *a, int64_t n,
                         minv_method method, int solve, minv_status want, int64_t want_info, int expect_gpu) {
    minv_mpi_layout l, lb;
    const int64_t nrhs = 3;
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 16, 0, 0, &l), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_like(gpu, &l, n, nrhs, &lb), MINV_SUCCESS, gpu);
    double *b = tu_alloc(n, nrhs, n);
    tu_rng rng;
    tu_seed(&rng, 11);
    tu_rect(&rng, n, nrhs, b, n);
    double *ap = mt_piece_of(&l, a, n), *xp = mt_piece_of(&l, a, n), *bp = mt_piece_of(&lb, b, n), *yp = mt_piece_of(&lb, b, n);
    minv_report r, rc;
    char msg[1024];
    minv_status got = solve ? minv_mpi_solve_d(gpu, method, &l, ap, &lb, bp, yp, &r) : minv_mpi_invert_d(gpu, method, &l, ap, xp, &r);
    snprintf(msg, sizeof msg, "%s", minv_last_error(gpu));
    minv_status cpu_got = solve ? minv_mpi_solve_d(cpu, method, &l, ap, &lb, bp, yp, &rc) : minv_mpi_invert_d(cpu, method, &l, ap, xp, &rc);
    CHECK(got == want && r.info == want_info && MT_SAME_REPORT(r), "%s: %s, info %lld (%s)", what, minv_status_string(got),
          (long long)r.info, msg);
    CHECK(cpu_got == got && rc.info == r.info && strcmp(minv_last_error(cpu), msg) == 0,
          "%s: ScaLAPACK gives %s, info %lld (%s)", what, minv_status_string(cpu_got), (long long)rc.info, minv_last_error(cpu));
    CHECK(mt_same_text(msg), "%s: the message differs between the ranks", what);
    if (expect_gpu && want == MINV_ERR_NOT_SPD) /* cuSOLVERMp's potrf fails; ScaLAPACK finds the column */
        CHECK(strstr(r.reason, "cuSOLVERMp") && strstr(r.reason, "ScaLAPACK's pdpotrf"), "%s: %s", what, r.reason);
    free(b);
    free(ap);
    free(xp);
    free(bp);
    free(yp);
    minv_mpi_layout_free(&lb);
    minv_mpi_layout_free(&l);
}

/* Singular and not-SPD input: the status and the column everywhere, as on the CPU; AUTO goes
 * on by LU where Cholesky finds A indefinite, as serial minv does. */
static void failures(minv_context *gpu, minv_context *cpu, int expect_gpu) {
    const int64_t n = 97;
    double *a = tu_alloc(n, n, n), *ref = tu_alloc(n, n, n);
    tu_rng rng;
    tu_seed(&rng, 3);
    tu_spd(&rng, n, a, n);
    a[40 * n + 40] = -5; /* the minor of order 41 */
    failure_case(gpu, cpu, "not SPD", a, n, MINV_METHOD_CHOLESKY, 0, MINV_ERR_NOT_SPD, 40, expect_gpu);
    failure_case(gpu, cpu, "not SPD, solve", a, n, MINV_METHOD_CHOLESKY, 1, MINV_ERR_NOT_SPD, 40, expect_gpu);

    tu_spd(&rng, n, a, n); /* a positive diagonal, indefinite: AUTO takes Cholesky, then LU */
    a[50 * n + 30] = a[30 * n + 50] = 10 * sqrt(a[30 * n + 30] * a[50 * n + 50]);
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 16, 0, 0, &l), MINV_SUCCESS, gpu);
    double *ap = mt_piece_of(&l, a, n), *xp = mt_piece_of(&l, a, n);
    minv_report r;
    CHECK_STATUS(minv_mpi_invert_d(gpu, MINV_METHOD_AUTO, &l, ap, xp, &r), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_invert_d(cpu, MINV_METHOD_AUTO, n, a, n, ref, n, NULL), MINV_SUCCESS, cpu);
    double *x = mt_whole_of(gpu, &l, xp);
    const double d = tu_rel_diff(n, n, x, n, ref, n);
    CHECK(d < 1e-10 && r.method == MINV_METHOD_LU && (r.fallbacks & MINV_FALLBACK_LU) && MT_SAME_REPORT(r),
          "auto on an indefinite A: rel. difference %g, method %s, fallbacks %d (%s)", d, minv_method_name(r.method),
          (int)r.fallbacks, r.reason);
    if (expect_gpu)
        CHECK(r.backend == MINV_BACKEND_GPU && strstr(r.reason, "ScaLAPACK's pdpotrf"), "auto on an indefinite A: %s", r.reason);
    free(x);
    free(ap);
    free(xp);
    minv_mpi_layout_free(&l);

    tu_general(&rng, n, a, n);
    for (int64_t i = 0; i < n; i++) a[60 * n + i] = 0; /* U(61,61) is exactly zero */
    failure_case(gpu, cpu, "singular", a, n, MINV_METHOD_LU, 0, MINV_ERR_SINGULAR, 60, expect_gpu);
    failure_case(gpu, cpu, "singular, solve", a, n, MINV_METHOD_LU, 1, MINV_ERR_SINGULAR, 60, expect_gpu);
    free(a);
    free(ref);
}

/* One cuSOLVERMp session per context, GPU and communicator: a fresh context's first call opens
 * it (said in the report), later calls on layouts of other grid shapes, alive at the same time,
 * reuse it; a call whose cuSOLVERMp factorisation fails (not SPD) leaves the next call working;
 * the blocks chosen for a GPU context are 512. */
static void one_session(minv_context *cpu) {
    minv_context *gpu = NULL;
    minv_options opts;
    minv_mpi_options_default(MPI_COMM_WORLD, &opts);
    opts.backend = MINV_BACKEND_GPU;
    CHECK_STATUS(minv_create(&gpu, &opts), MINV_SUCCESS, gpu);
    const int64_t n = 160;
    minv_mpi_layout column, row, rhs;
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 32, mt_size, 1, &column), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, n, n, 32, 1, mt_size, &row), MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_mpi_layout_like(gpu, &row, n, 7, &rhs), MINV_SUCCESS, gpu);
    minv_mpi_layout chosen; /* blocks chosen for a GPU context: cuSOLVERMp's large ones */
    CHECK_STATUS(minv_mpi_layout_create(gpu, MPI_COMM_WORLD, 4096, 4096, 0, 0, 0, &chosen), MINV_SUCCESS, gpu);
    CHECK(chosen.nb == 512 && chosen.mb == 512, "default blocks on a GPU context: %lld x %lld", (long long)chosen.mb,
          (long long)chosen.nb);
    minv_mpi_layout_free(&chosen);
    const struct {
        const minv_mpi_layout *la, *lb;
        int spd, solve, opens;
    } step[] = {{&column, &column, 0, 0, 1}, {&row, &rhs, 1, 1, 0}, {&column, &column, 1, 0, 0}, {&row, &row, 0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        minv_report r;
        const double d = against_cpu(gpu, cpu, step[i].spd, step[i].solve, 50 + (uint64_t)i, step[i].la, step[i].lb, &r);
        const int opened = strstr(r.reason, "cuSOLVERMp session opened") != NULL;
        CHECK(d < 1e-10 && r.backend == MINV_BACKEND_GPU && opened == step[i].opens && MT_SAME_REPORT(r),
              "session step %d (%lld x %lld grid): rel. difference %g, %s, a session %s: %s", i,
              (long long)step[i].la->nprow, (long long)step[i].la->npcol, d, minv_backend_name(r.backend),
              opened ? "opened" : "reused", r.reason);
    }
    /* cuSOLVERMp's potrf fails on this indefinite A (ScaLAPACK finds the column), then a call on
     * the same context runs on cuSOLVERMp again */
    double *a = tu_alloc(n, n, n);
    tu_rng rng;
    tu_seed(&rng, 9);
    tu_spd(&rng, n, a, n);
    a[70 * n + 70] = -5;
    double *ap = mt_piece_of(&row, a, n), *xp = mt_piece_of(&row, a, n);
    minv_report r;
    CHECK_STATUS(minv_mpi_invert_d(gpu, MINV_METHOD_CHOLESKY, &row, ap, xp, &r), MINV_ERR_NOT_SPD, gpu);
    CHECK(r.info == 70, "not SPD after the session's calls: info %lld (%s)", (long long)r.info, r.reason);
    const double d = against_cpu(gpu, cpu, 0, 0, 60, &column, &column, &r);
    CHECK(d < 1e-10 && r.backend == MINV_BACKEND_GPU && strstr(r.reason, "cuSOLVERMp"),
          "after a failed factorisation: rel. difference %g, %s", d, r.reason);
    free(a);
    free(ap);
    free(xp);
    minv_mpi_layout_free(&rhs);
    minv_mpi_layout_free(&row);
    CHECK_STATUS(minv_destroy(gpu), MINV_SUCCESS, NULL); /* closes the session; column outlives it */
    minv_mpi_layout_free(&column);
}

/* Each rank's batch on its GPU, rebalanced, against the CPU. */
static void batches(minv_context *gpu, minv_context *cpu) {
    const int64_t k = 24, n = 10 + 30 * mt_rank;
    double *a = malloc((size_t)(n * k * k) * sizeof(double)), *x = malloc((size_t)(n * k * k) * sizeof(double));
    double *ref = malloc((size_t)(n * k * k) * sizeof(double));
    tu_rng rng;
    tu_seed(&rng, 100 + (uint64_t)mt_rank);
    for (int64_t m = 0; m < n; m++) tu_general(&rng, k, a + m * k * k, k);
    minv_batch_report r;
    CHECK_STATUS(minv_mpi_invert_batched_d(gpu, MPI_COMM_WORLD, MINV_MPI_REBALANCE, MINV_METHOD_AUTO, k, n, a, k, k * k, x,
                                           k, k * k, NULL, &r),
                 MINV_SUCCESS, gpu);
    CHECK_STATUS(minv_invert_batched_d(cpu, MINV_METHOD_AUTO, k, n, a, k, k * k, ref, k, k * k, NULL, NULL), MINV_SUCCESS, cpu);
    CHECK(tu_rel_diff(k, n * k, x, k, ref, k) < 1e-10, "GPU batch differs from the CPU's");
    CHECK(r.backend == MINV_BACKEND_GPU && MT_SAME_REPORT(r), "batch backend %s", minv_backend_name(r.backend));
    free(a);
    free(x);
    free(ref);
}

int main(int argc, char **argv) {
    minv_context *cpu = mt_init(&argc, &argv), *gpu = NULL;
    minv_options opts;
    minv_mpi_options_default(MPI_COMM_WORLD, &opts);
    opts.backend = MINV_BACKEND_GPU;
    int have = minv_create(&gpu, &opts) == MINV_SUCCESS, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (mt_rank == 0)
            tu_skip_no_gpu("test_mpi_gpu");
        minv_destroy(gpu);
        minv_destroy(cpu);
        MPI_Finalize();
        return TU_SKIP;
    }
    const int expect_gpu = MINV_MPI_HAVE_CUSOLVERMP && own_gpus(gpu);
    if (mt_rank == 0)
        printf("test_mpi_gpu: %d rank%s, %s\n", mt_size, mt_size == 1 ? "" : "s",
               expect_gpu ? "cuSOLVERMp expected" : "ranks share a GPU or no cuSOLVERMp: the ScaLAPACK fallback expected");
    for (int column_grid = 0; column_grid < (mt_size > 1 ? 2 : 1); column_grid++)
        for (int spd = 0; spd < 2; spd++)
            for (int solve = 0; solve < 2; solve++)
                one_matrix(gpu, cpu, spd, 300, solve, expect_gpu, column_grid);
    one_matrix(gpu, cpu, 1, 77, 0, expect_gpu, 0); /* n no multiple of the block */
    failures(gpu, cpu, expect_gpu);
    if (expect_gpu)
        for (int solve = 0; solve < 2; solve++) {
            in_parts(cpu, solve);
            over_budget(cpu, solve);
        }
    if (expect_gpu)
        one_session(cpu);
    batches(gpu, cpu);
    minv_destroy(gpu);
    return mt_finish("test_mpi_gpu", cpu);
}
