/* Parallel NetCDF: a matrix variable of n x n doubles read by every rank into its blocks
 * (minv_mpi_read_d) against the serial reader that minv_invert_file uses (minv_nc_read_square,
 * rank 0 alone, the others idle), and written from the blocks (minv_mpi_write_d) against the
 * same write by one rank (the layer on MPI_COMM_SELF), in the same run on the same file. The
 * file is made first by the parallel writer; both readers then meet it warm in the page cache
 * unless it outgrows memory.
 *
 *   mpirun -np P bench_mpi_io [--n 8192] [--format nc4,cdf5] [--dir .] [--reps 3] [--nb 64] [--keep 1]
 * Prints a markdown table on rank 0: MB/s of the variable's bytes, the slowest rank's time.
 * --keep 1 leaves the input files (DIR/bench_io_N.FORMAT.nc, variable A: a general matrix with
 * n on its diagonal) for a job to read. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_mpi_common.h"
#include "ncio.h"

typedef struct {
    minv_context *ctx;
    const minv_mpi_layout *l, *one;
    const char *path, *out;
    int cdf5;
    double *piece, *whole;
    minv_file_options fo;
} job;

/* No file at path, or (cdf5) an empty CDF-5 one that the writer adds its variable to, keeping
 * its format: the output of a classic input. */
static void fresh_file(const char *path, int cdf5) {
    int ncid, d, v;
    unlink(path);
    if (cdf5 && nc_create(path, NC_CLOBBER | NC_64BIT_DATA, &ncid) == NC_NOERR) {
        nc_def_dim(ncid, "unused", 1, &d);
        nc_def_var(ncid, "unused", NC_DOUBLE, 1, &d, &v);
        nc_close(ncid);
    }
}

static void fresh_output(void *p) {
    job *j = p;
    if (bm_rank == 0)
        fresh_file(j->out, j->cdf5);
}

static void read_parallel(void *p) {
    job *j = p;
    bm_check(j->ctx, minv_mpi_read_d(j->ctx, j->l, j->path, "A", &j->fo, j->piece), "minv_mpi_read_d");
}

static void read_serial(void *p) {
    job *j = p;
    if (bm_rank != 0)
        return;
    minv_nc_source s;
    minv_mat m = {0};
    minv_nc_lock();
    const minv_status st = minv_nc_read_square(j->ctx, &s, j->path, "A", &j->fo, 0, &m);
    minv_nc_unlock();
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "bench: serial read: %s\n", minv_last_error(j->ctx));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    minv_mat_free(&m);
}

static void write_parallel(void *p) {
    job *j = p;
    bm_check(j->ctx, minv_mpi_write_d(j->ctx, j->l, j->piece, j->out, "A", NULL, &j->fo), "minv_mpi_write_d");
}

static void write_one(void *p) {
    job *j = p;
    if (bm_rank == 0 && minv_mpi_write_d(j->ctx, j->one, j->whole, j->out, "A", NULL, &j->fo) != MINV_SUCCESS) {
        fprintf(stderr, "bench: one-rank write: %s\n", minv_last_error(j->ctx));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv) {
    bm_init(&argc, &argv);
    const int64_t n = atoll(bm_option(argc, argv, "n", "8192")), nb = atoll(bm_option(argc, argv, "nb", "64"));
    const int reps = atoi(bm_option(argc, argv, "reps", "3"));
    const char *formats = bm_option(argc, argv, "format", "nc4,cdf5"), *dir = bm_option(argc, argv, "dir", ".");
    const int keep = atoi(bm_option(argc, argv, "keep", "0"));
    minv_context *ctx = bm_context("cpu", 0);
    minv_mpi_layout l, one = {0};
    bm_check(ctx, minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, nb, 0, 0, &l), "layout");
    if (bm_rank == 0 && minv_mpi_layout_create(ctx, MPI_COMM_SELF, n, n, nb, 1, 1, &one) != MINV_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    job j = {.ctx = ctx, .l = &l, .one = &one, .piece = bm_alloc_piece(&l)};
    if (bm_rank == 0)
        j.whole = bm_alloc_piece(&one);
    minv_file_options_default(&j.fo);
    bm_fill(&l, 0, j.piece);
    if (bm_rank == 0)
        bm_fill(&one, 0, j.whole);
    bm_header(argc, argv);
    const double mb = (double)(n * n) * 8 / 1e6;
    if (bm_rank == 0)
        printf("\n| format | n | MB | ranks | parallel read s | MB/s | serial read s | MB/s | parallel / serial | parallel write s | MB/s | one-rank write s | MB/s |\n"
               "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    static const char *const names[] = {"nc4", "cdf5"};
    for (int f = 0; f < 2; f++) {
        char padded[64], key[16], path[4096], out[4096];
        snprintf(padded, sizeof padded, ",%s,", formats);
        snprintf(key, sizeof key, ",%s,", names[f]);
        if (!strstr(padded, key))
            continue;
        snprintf(path, sizeof path, "%s/bench_io_%lld.%s.nc", dir, (long long)n, names[f]);
        snprintf(out, sizeof out, "%s/bench_io_out_%lld.%s.nc", dir, (long long)n, names[f]);
        j.path = path;
        j.out = out;
        j.cdf5 = f == 1;
        if (bm_rank == 0)
            fresh_file(path, j.cdf5);
        MPI_Barrier(MPI_COMM_WORLD);
        bm_check(ctx, minv_mpi_write_d(ctx, &l, j.piece, path, "A", NULL, &j.fo), "making the file");
        double tr, ts, tw, t1;
        bm_median_pair(reps, NULL, read_parallel, NULL, read_serial, &j, &tr, &ts);
        bm_median_pair(reps, fresh_output, write_parallel, fresh_output, write_one, &j, &tw, &t1);
        if (bm_rank == 0) {
            printf("| %s | %lld | %.0f | %d | %.3f | %.0f | %.3f | %.0f | %.2f | %.3f | %.0f | %.3f | %.0f |\n", names[f], (long long)n, mb,
                   bm_size, tr, mb / tr, ts, mb / ts, ts / tr, tw, mb / tw, t1, mb / t1);
            fflush(stdout);
            if (!keep)
                unlink(path);
            unlink(out);
        }
    }
    free(j.piece);
    free(j.whole);
    if (bm_rank == 0)
        minv_mpi_layout_free(&one);
    minv_mpi_layout_free(&l);
    minv_destroy(ctx);
    MPI_Finalize();
    return 0;
}
