/* Distributed batches: weak scaling (each rank the same number of k x k members) and the
 * rebalance of an uneven decomposition. In one run: rank 0's members alone through serial
 * minv_invert_batched_d (the one-rank time, the other ranks idle), then every rank's through
 * minv_mpi_invert_batched_d, plain and with MINV_MPI_REBALANCE; weak-scaling efficiency = the
 * one-rank time / the distributed time. With --uneven 1 rank r holds per-rank 2 (r + 1) / (P + 1)
 * members (the same total), the layout of a DA code whose ranks hold unequal numbers of points.
 * The peer, for what the host itself allows: LAPACK's loop over the same members (dgetrf +
 * dgetri, or dgetrs of the one right-hand side; BLAS on one thread), rank 0's alone and every
 * rank's at once, its efficiency the same ratio.
 *
 *   mpirun -np P bench_mpi_batched [--k 16,64] [--per-rank 4000] [--reps 5] [--uneven 0|1]
 *                                  [--backend cpu|gpu] [--solve 0|1] [--stages 0|1] [--pinned 0|1]
 * --pinned 1: the members' arrays page-locked by minv_host_register (GPU ranks: by DMA straight
 * from and into them; the rebalanced run moves members through the layer's own buffers).
 * Prints a markdown table on rank 0; times are the slowest rank's, medians after a warm-up.
 * --stages 1: under each row, rank 0's last report alone and distributed (backend, stages,
 * reason), to tell where a GPU rank's time went. */
#include <stdlib.h>
#include <string.h>

#include "bench_mpi_common.h"

void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgetri_(const int *, double *, const int *, const int *, double *, const int *, int *);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *, const int *,
             int *, size_t);

typedef struct {
    minv_context *ctx;
    int64_t k, n;
    int32_t flags;
    int solve;
    double *a, *x, *b;
    minv_batch_report alone, distributed; /* rank 0's last of each */
} job;

static void distributed(void *p) {
    job *j = p;
    const int64_t kk = j->k * j->k;
    bm_check(j->ctx, j->solve ? minv_mpi_solve_batched_d(j->ctx, MPI_COMM_WORLD, j->flags, MINV_METHOD_AUTO, j->k, 1, j->n, j->a,
                                                         j->k, kk, j->b, j->k, j->k, j->x, j->k, j->k, NULL, &j->distributed)
                              : minv_mpi_invert_batched_d(j->ctx, MPI_COMM_WORLD, j->flags, MINV_METHOD_AUTO, j->k, j->n, j->a,
                                                          j->k, kk, j->x, j->k, kk, NULL, &j->distributed),
             "minv_mpi batched");
}

/* Rank 0's members alone, serially; the others only wait at the barriers. */
static void alone(void *p) {
    job *j = p;
    const int64_t kk = j->k * j->k;
    if (bm_rank != 0)
        return;
    if (j->solve)
        minv_solve_batched_d(j->ctx, MINV_METHOD_AUTO, j->k, 1, j->n, j->a, j->k, kk, j->b, j->k, j->k, j->x, j->k, j->k, NULL,
                             &j->alone);
    else
        minv_invert_batched_d(j->ctx, MINV_METHOD_AUTO, j->k, j->n, j->a, j->k, kk, j->x, j->k, kk, NULL, &j->alone);
}

/* LAPACK's loop over this rank's members: each copied into x and inverted there, or factored
 * there and its right-hand side solved in place. */
static void lapack_all(void *p) {
    job *j = p;
    const int k = (int)j->k, lwork = 64 * k;
    const size_t kk = (size_t)(j->k * j->k);
    int *ipiv = malloc((size_t)k * sizeof(int)), info = 0;
    double *work = malloc((size_t)lwork * sizeof(double));
    const int one = 1;
    for (int64_t m = 0; m < j->n; m++) {
        double *x = j->x + (size_t)m * kk;
        memcpy(x, j->a + (size_t)m * kk, kk * sizeof(double));
        dgetrf_(&k, &k, x, &k, ipiv, &info);
        if (j->solve)
            dgetrs_("N", &k, &one, x, &k, ipiv, j->b + (size_t)m * (size_t)k, &k, &info, 1);
        else
            dgetri_(&k, x, &k, ipiv, work, &lwork, &info);
    }
    free(ipiv);
    free(work);
}

/* Rank 0's alone; the others only wait at the barriers. */
static void lapack_alone(void *p) {
    if (bm_rank == 0)
        lapack_all(p);
}

int main(int argc, char **argv) {
    bm_init(&argc, &argv);
    int64_t ks[8];
    const int count = bm_list(bm_option(argc, argv, "k", "16,64"), ks, 8), reps = atoi(bm_option(argc, argv, "reps", "5"));
    const int64_t per = atoll(bm_option(argc, argv, "per-rank", "4000"));
    const int uneven = atoi(bm_option(argc, argv, "uneven", "0")), solve = atoi(bm_option(argc, argv, "solve", "0")),
              stages = atoi(bm_option(argc, argv, "stages", "0")), pinned = atoi(bm_option(argc, argv, "pinned", "0"));
    minv_context *ctx = bm_context(bm_option(argc, argv, "backend", "cpu"), 0);
    minv_set_option(ctx, MINV_OPT_RESIDUAL, 0); /* the members' work alone, as a DA cycle runs it */
    bm_header(argc, argv);
    if (bm_rank == 0)
        printf("\n| k | ranks | members a rank | %s | one rank s | distributed s | efficiency | rebalanced s | efficiency | LAPACK one rank s | LAPACK every rank s | LAPACK efficiency |\n"
               "| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
               solve ? "solve (1 rhs)" : "inversion");
    for (int c = 0; c < count; c++) {
        job j = {.ctx = ctx, .k = ks[c], .solve = solve};
        j.n = uneven ? per * 2 * (bm_rank + 1) / (bm_size + 1) : per;
        /* room for the one-rank baseline's per members too */
        const size_t members = (size_t)(j.n > per ? j.n : per > 0 ? per : 1), kk = (size_t)(j.k * j.k);
        j.a = malloc(members * kk * sizeof(double));
        j.x = malloc(members * kk * sizeof(double));
        j.b = malloc(members * (size_t)j.k * sizeof(double));
        for (size_t m = 0; m < members; m++)
            for (size_t e = 0; e < kk; e++) /* diagonally dominant, different members */
                j.a[m * kk + e] = e % (size_t)(j.k + 1) == 0 ? (double)j.k : (double)((e * 7 + m * 13) % 17) / 17.0 - 0.5;
        for (size_t e = 0; e < members * (size_t)j.k; e++) j.b[e] = 1.0 + (double)(e % 5);
        memset(j.x, 0, members * kk * sizeof(double));
        if (pinned) {
            bm_check(ctx, minv_host_register(ctx, j.a, (int64_t)(members * kk * sizeof(double))), "minv_host_register");
            bm_check(ctx, minv_host_register(ctx, j.x, (int64_t)(members * kk * sizeof(double))), "minv_host_register");
            bm_check(ctx, minv_host_register(ctx, j.b, (int64_t)(members * (size_t)j.k * sizeof(double))), "minv_host_register");
        }
        /* the one-rank baseline: rank 0's share of a uniform decomposition */
        const int64_t mine = j.n;
        j.n = per;
        const double t1 = bm_median(reps, NULL, alone, &j);
        j.n = mine;
        const double tp = bm_median(reps, NULL, distributed, &j);
        j.flags = MINV_MPI_REBALANCE;
        const double tr = bm_median(reps, NULL, distributed, &j);
        j.n = per; /* LAPACK's: the same members, rank 0's share alone, then every rank's */
        const double l1 = bm_median(reps, NULL, lapack_alone, &j);
        j.n = mine;
        const double lp = bm_median(reps, NULL, lapack_all, &j);
        int64_t least = j.n, most = j.n;
        MPI_Allreduce(MPI_IN_PLACE, &least, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (bm_rank == 0) {
            printf("| %lld | %d | %lld to %lld | %s | %.4f | %.4f | %.2f | %.4f | %.2f | %.4f | %.4f | %.2f |\n", (long long)j.k,
                   bm_size, (long long)least, (long long)most, uneven ? "uneven" : "even", t1, tp, t1 / tp, tr, t1 / tr, l1, lp,
                   l1 / lp);
            for (int d = 0; stages && d < 2; d++) {
                const minv_batch_report *r = d ? &j.distributed : &j.alone;
                printf("|  | %s: %s, %.4f s: upload %.4f, compute %.4f, download %.4f | %s |\n", d ? "distributed (rebalanced)" : "alone",
                       minv_backend_name(r->backend), r->seconds, r->stages.upload_seconds, r->stages.compute_seconds,
                       r->stages.download_seconds, r->reason);
            }
            fflush(stdout);
        }
        if (pinned) {
            minv_host_unregister(ctx, j.a);
            minv_host_unregister(ctx, j.x);
            minv_host_unregister(ctx, j.b);
        }
        free(j.a);
        free(j.x);
        free(j.b);
    }
    minv_destroy(ctx);
    MPI_Finalize();
    return 0;
}
