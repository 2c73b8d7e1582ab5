/* One matrix over many ranks: minv_mpi_invert_d and minv_mpi_solve_d against ScaLAPACK called
 * directly on the same layout and data (p?getrf + p?getri, p?potrf + p?potri, p?getrf +
 * p?getrs, p?potrf + p?potrs), in the same run: what the layer costs (checks, symmetry,
 * condition, residual, the mirrored SPD inverse) over the engine. ScaLAPACK's inputs are copied
 * before its timed region; minv's calls copy inside theirs, as users get them. With --backend gpu
 * minv runs cuSOLVERMp (one GPU a rank) and --direct none skips ScaLAPACK.
 *
 *   mpirun -np P bench_mpi_dense [--n 2048,4096] [--nb 64] [--grid PxQ] [--nrhs 256]
 *                                [--ops lu,spd,lu-solve,spd-solve] [--reps 3] [--backend cpu|gpu]
 *                                [--direct scalapack|none] [--residual 0|1|2] [--stages 0|1]
 *                                [--device-memory GB] [--warmup 1|0]
 * Prints a markdown table on rank 0: times are the slowest rank's, medians after a warm-up.
 * --stages 1: under each row, the last timed call's report stages and reason (where cuSOLVERMp
 * says how long its factorisation and solve took). --device-memory: the GPU context's budget a
 * device (minv_options.device_memory), under which X is solved in parts. Buffers the run does
 * not use (ScaLAPACK's copies with --direct none, B for an inversion) are not allocated. */
#include <stdlib.h>
#include <string.h>

#include "bench_mpi_common.h"
#include "scalapack.h"

typedef struct {
    minv_context *ctx;
    const minv_mpi_layout *la, *lb;
    int spd, solve;
    double *a, *b, *x, *work, *bwork;
    int *ipiv;
    minv_report report; /* the last call's */
} job;

static void minv_side(void *p) {
    job *j = p;
    const minv_method m = j->spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
    bm_check(j->ctx, j->solve ? minv_mpi_solve_d(j->ctx, m, j->la, j->a, j->lb, j->b, j->x, &j->report)
                              : minv_mpi_invert_d(j->ctx, m, j->la, j->a, j->x, &j->report),
             "minv");
}

/* The direct calls overwrite their inputs: fresh copies, untimed. */
static void direct_prepare(void *p) {
    job *j = p;
    memcpy(j->work, j->a, bm_piece_elems(j->la) * sizeof(double));
    if (j->solve)
        memcpy(j->bwork, j->b, bm_piece_elems(j->lb) * sizeof(double));
}

static void direct_call(void *p) {
    job *j = p;
    const minv_mpi_layout *la = j->la;
    if (la->myrow < 0)
        return;
    const int n = (int)la->n;
    int info;
    if (j->spd) {
        info = sl_potrf(MINV_R64, n, j->work, la->desc);
        if (info == 0)
            info = j->solve ? sl_potrs(MINV_R64, n, (int)j->lb->n, j->work, la->desc, j->bwork, j->lb->desc)
                            : sl_potri(MINV_R64, n, j->work, la->desc);
    } else {
        info = sl_getrf(MINV_R64, n, j->work, la->desc, j->ipiv);
        if (info == 0)
            info = j->solve ? sl_getrs(MINV_R64, n, (int)j->lb->n, j->work, la->desc, j->ipiv, j->bwork, j->lb->desc)
                            : sl_getri(MINV_R64, n, j->work, la->desc, j->ipiv);
    }
    if (info != 0) {
        fprintf(stderr, "bench: ScaLAPACK info %d\n", info);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv) {
    bm_init(&argc, &argv);
    int64_t ns[16], nb = atoll(bm_option(argc, argv, "nb", "64")), nrhs = atoll(bm_option(argc, argv, "nrhs", "256"));
    const int count = bm_list(bm_option(argc, argv, "n", "2048,4096"), ns, 16), reps = atoi(bm_option(argc, argv, "reps", "3"));
    const char *ops = bm_option(argc, argv, "ops", "lu,spd,lu-solve,spd-solve"), *grid = bm_option(argc, argv, "grid", "");
    const int direct = strcmp(bm_option(argc, argv, "direct", "scalapack"), "none") != 0,
              stages = atoi(bm_option(argc, argv, "stages", "0"));
    int nprow = 0, npcol = 0;
    if (grid[0] && sscanf(grid, "%dx%d", &nprow, &npcol) != 2) {
        if (bm_rank == 0)
            fprintf(stderr, "bench: --grid %s: expected PxQ\n", grid);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    minv_context *ctx = bm_context(bm_option(argc, argv, "backend", "cpu"), atof(bm_option(argc, argv, "device-memory", "0")));
    minv_set_option(ctx, MINV_OPT_RESIDUAL, atof(bm_option(argc, argv, "residual", "1")));
    bm_header(argc, argv);
    if (bm_rank == 0)
        printf("\n| n | op | ranks | grid | nb | minv s | %s | minv / ScaLAPACK | minv GFLOP/s | backend |\n"
               "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |\n",
               direct ? "ScaLAPACK s" : "(no direct run)");
    static const char *const names[] = {"lu", "spd", "lu-solve", "spd-solve"};
    for (int c = 0; c < count; c++)
        for (int o = 0; o < 4; o++) {
            char key[32], padded[256]; /* whole names: "lu" is inside "lu-solve" */
            snprintf(key, sizeof key, ",%s,", names[o]);
            snprintf(padded, sizeof padded, ",%s,", ops);
            if (!strstr(padded, key))
                continue;
            const int64_t n = ns[c];
            job j = {.ctx = ctx, .spd = o % 2 == 1, .solve = o >= 2};
            minv_mpi_layout la, lb;
            bm_check(ctx, minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, nb, nprow, npcol, &la), "layout");
            bm_check(ctx, minv_mpi_layout_like(ctx, &la, n, j.solve ? nrhs : n, &lb), "layout");
            j.la = &la;
            j.lb = &lb;
            j.a = bm_alloc_piece(&la);
            j.x = bm_alloc_piece(&lb);
            j.work = direct ? bm_alloc_piece(&la) : NULL;
            j.b = j.solve ? bm_alloc_piece(&lb) : NULL;
            j.bwork = direct && j.solve ? bm_alloc_piece(&lb) : NULL;
            j.ipiv = malloc((size_t)(la.local_rows + la.mb + 1) * sizeof(int));
            bm_fill(&la, j.spd, j.a);
            if (j.b)
                bm_fill(&lb, 0, j.b);
            memset(j.x, 0, bm_piece_elems(&lb) * sizeof(double)); /* every buffer touched before timing */
            if (j.work)
                memcpy(j.work, j.a, bm_piece_elems(&la) * sizeof(double));
            if (j.bwork)
                memcpy(j.bwork, j.b, bm_piece_elems(&lb) * sizeof(double));
            double t_minv = 0, t_direct = 0;
            if (direct)
                bm_median_pair(reps, NULL, minv_side, direct_prepare, direct_call, &j, &t_minv, &t_direct);
            else
                t_minv = bm_median(reps, NULL, minv_side, &j);
            if (bm_rank == 0) {
                char direct_text[32] = "-", ratio[32] = "-";
                if (direct) {
                    snprintf(direct_text, sizeof direct_text, "%.4f", t_direct);
                    snprintf(ratio, sizeof ratio, "%.3f", t_minv / t_direct);
                }
                printf("| %lld | %s | %d | %d x %d | %lld | %.4f | %s | %s | %.1f | %s |\n", (long long)n, names[o], bm_size,
                       (int)la.nprow, (int)la.npcol, (long long)la.nb, t_minv, direct_text, ratio, j.report.flops / t_minv / 1e9,
                       minv_backend_name(j.report.backend));
                const minv_stages *st = &j.report.stages;
                if (stages)
                    printf("|  | stages: upload %.3f s (%.2f GB), compute %.3f s, download %.3f s (%.2f GB); residual %.2g | %s |\n",
                           st->upload_seconds, st->upload_bytes / 1e9, st->compute_seconds, st->download_seconds,
                           st->download_bytes / 1e9, j.report.residual, j.report.reason);
                fflush(stdout);
            }
            free(j.a);
            free(j.x);
            free(j.work);
            free(j.b);
            free(j.bwork);
            free(j.ipiv);
            minv_mpi_layout_free(&lb);
            minv_mpi_layout_free(&la);
        }
    minv_destroy(ctx);
    MPI_Finalize();
    return 0;
}
