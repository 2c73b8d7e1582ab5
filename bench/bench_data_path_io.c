/* The file stages of the data path, each against its peers in one run, on a matrix variable
 * already in the page cache:
 *
 *   read   minv's reader on all threads and on one; minv's reader through NetCDF-C alone (its
 *          tiles); a plain nc_get_vara_double loop over bands of rows (what a user writes);
 *          one nc_get_var_double of the whole variable
 *   write  minv's writer (netCDF-4, chunks of 256 x 256, deflated when asked) up to the
 *          fsync, and the commit (close, fsync, rename); the same through NetCDF-C alone
 *
 * Each is timed `repeat` times after a warm-up; the median is printed as a markdown table
 * row: stage, path, wall seconds, MB/s of stored bytes, and the CPU seconds the process spent
 * (user + system, all threads), whose MB per CPU second is the rate a core sustains even on
 * a machine that other jobs load. Built without CUDA; bench_data_path.sh runs it beside dd
 * and the netCDF4-python reader.
 *
 *   bench_data_path_io FILE VAR OUT_DIR [--threads T] [--repeat R] [--deflate L] [--fortran-order] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "ncio.h"

typedef struct {
    minv_context *ctx;
    const char *path, *var, *out_dir;
    int repeat, deflate, fortran;
} bench;

static int compare(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
    qsort(t, (size_t)n, sizeof *t, compare);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static double cpu_now(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (double)(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + 1e-6 * (double)(r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

/* cpu < 0: not measured on its own (a part of the row before) */
static void row(const char *stage, const char *path, double seconds, double cpu, double bytes) {
    printf("| %s | %s | %.4f | %.0f |", stage, path, seconds, bytes / 1e6 / seconds);
    if (cpu >= 0)
        printf(" %.4f | %.0f |\n", cpu, bytes / 1e6 / cpu);
    else
        printf("  |  |\n");
    fflush(stdout);
}

static void fail(minv_context *ctx, const char *what) {
    fprintf(stderr, "bench_data_path_io: %s: %s\n", what, minv_last_error(ctx));
    exit(1);
}

/* minv's reader: seconds of the read itself (the open is not counted). */
static double minv_read(bench *b, int flags, minv_mat *m, double *bytes) {
    minv_nc_source s;
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.fortran_order = b->fortran;
    if (minv_nc_source_open(b->ctx, &s, b->path, b->var, &fo, flags) != MINV_SUCCESS)
        fail(b->ctx, "open");
    if (!m->data && minv_mat_alloc(b->ctx, m, MINV_R64, s.rows, s.cols) != MINV_SUCCESS)
        fail(b->ctx, "allocate");
    const double t0 = minv_now();
    if (minv_nc_source_read(b->ctx, &s, 0, 0, m) != MINV_SUCCESS)
        fail(b->ctx, "read");
    const double t = minv_now() - t0;
    *bytes = s.bytes;
    minv_nc_source_close(&s);
    return t;
}

/* The plain loop: bands of whole rows into a row-major array, as a user's code does. */
static double plain_read(bench *b, int whole, double *out) {
    int ncid, varid, rank, dimids[NC_MAX_VAR_DIMS];
    size_t d0, d1;
    if (nc_open(b->path, NC_NOWRITE, &ncid) != NC_NOERR || nc_inq_varid(ncid, b->var, &varid) != NC_NOERR ||
        nc_inq_var(ncid, varid, NULL, NULL, &rank, dimids, NULL) != NC_NOERR || rank != 2 ||
        nc_inq_dimlen(ncid, dimids[0], &d0) != NC_NOERR || nc_inq_dimlen(ncid, dimids[1], &d1) != NC_NOERR) {
        fprintf(stderr, "bench_data_path_io: '%s' has no 2-D variable '%s'\n", b->path, b->var);
        exit(1);
    }
    const double t0 = minv_now();
    int st = NC_NOERR;
    if (whole) {
        st = nc_get_var_double(ncid, varid, out);
    } else {
        const size_t band = 256;
        for (size_t r = 0; r < d0 && st == NC_NOERR; r += band) {
            size_t start[2] = {r, 0}, count[2] = {d0 - r < band ? d0 - r : band, d1};
            st = nc_get_vara_double(ncid, varid, start, count, out + r * d1);
        }
    }
    const double t = minv_now() - t0;
    nc_close(ncid);
    if (st != NC_NOERR) {
        fprintf(stderr, "bench_data_path_io: %s\n", nc_strerror(st));
        exit(1);
    }
    return t;
}

/* minv's writer: seconds of the data written (before the fsync) and of the commit. */
static void minv_write(bench *b, const minv_mat *m, int library, double *data_s, double *commit_s, double *bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_data_path_out.nc", b->out_dir);
    minv_nc_sink_spec spec = {.rank = 2,
                              .dims = {{"row", (size_t)m->rows, 0}, {"col", (size_t)m->cols, 0}},
                              .xtype = NC_DOUBLE,
                              .input_format = NC_FORMAT_NETCDF4,
                              .deflate_level = b->deflate,
                              .scale = 1,
                              .view = b->fortran ? MINV_NC_FORTRAN_VIEW : MINV_NC_C_VIEW,
                              .library = library};
    if (b->fortran) {
        spec.dims[0].len = (size_t)m->cols;
        spec.dims[1].len = (size_t)m->rows;
    }
    minv_nc_sink w;
    if (minv_nc_sink_open(b->ctx, &w, path, "X", &spec, 1) != MINV_SUCCESS)
        fail(b->ctx, "create");
    const double t0 = minv_now();
    if (minv_nc_sink_write(b->ctx, &w, 0, m) != MINV_SUCCESS)
        fail(b->ctx, "write");
    const double t1 = minv_now();
    *bytes = w.bytes;
    if (minv_nc_sink_commit(b->ctx, &w, NULL, 0, "bench_data_path_io") != MINV_SUCCESS)
        fail(b->ctx, "commit");
    *data_s = t1 - t0;
    *commit_s = minv_now() - t1;
    remove(path);
}

int main(int argc, char **argv) {
    bench b = {NULL, NULL, NULL, NULL, 5, 0, 0};
    int threads = 0;
    if (argc < 4) {
        fprintf(stderr, "usage: bench_data_path_io FILE VAR OUT_DIR [--threads T] [--repeat R] [--deflate L] [--fortran-order]\n");
        return 2;
    }
    b.path = argv[1];
    b.var = argv[2];
    b.out_dir = argv[3];
    for (int a = 4; a < argc; a++) {
        if (!strcmp(argv[a], "--threads") && a + 1 < argc) threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--repeat") && a + 1 < argc) b.repeat = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--deflate") && a + 1 < argc) b.deflate = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--fortran-order")) b.fortran = 1;
        else {
            fprintf(stderr, "bench_data_path_io: unknown argument '%s'\n", argv[a]);
            return 2;
        }
    }
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = threads;
    minv_context *one = NULL;
    if (minv_create(&b.ctx, &o) != MINV_SUCCESS)
        return 1;
    o.cpu_threads = 1;
    if (minv_create(&one, &o) != MINV_SUCCESS)
        return 1;
    const int n = b.repeat < 1 ? 1 : b.repeat;
    double *t = malloc((size_t)n * sizeof *t), *u = malloc((size_t)n * sizeof *u), *c = malloc((size_t)n * sizeof *c),
           bytes = 0;
    minv_mat m = {0};
    printf("| stage | path | seconds | MB/s | CPU s | MB per CPU s |\n|---|---|---|---|---|---|\n");

    minv_context *all = b.ctx;
    for (int pass = 0; pass < 3; pass++) {
        const int flags = pass == 2 ? MINV_NC_LIBRARY : 0;
        b.ctx = pass == 1 ? one : all;
        minv_read(&b, flags, &m, &bytes); /* warm-up */
        for (int r = 0; r < n; r++) {
            const double c0 = cpu_now();
            t[r] = minv_read(&b, flags, &m, &bytes);
            c[r] = cpu_now() - c0;
        }
        char what[96];
        snprintf(what, sizeof what, pass == 0 ? "minv, %d threads" : pass == 1 ? "minv, 1 thread" : "minv through NetCDF-C, %d threads",
                 all->cpu_threads);
        row("read", what, median(t, n), median(c, n), bytes);
    }
    b.ctx = all;
    double *plain = malloc((size_t)m.rows * (size_t)m.cols * sizeof *plain);
    for (int whole = 0; whole < 2; whole++) {
        plain_read(&b, whole, plain);
        for (int r = 0; r < n; r++) {
            const double c0 = cpu_now();
            t[r] = plain_read(&b, whole, plain);
            c[r] = cpu_now() - c0;
        }
        row("read", whole ? "nc_get_var_double, whole variable" : "nc_get_vara_double loop, 256 rows a call", median(t, n),
            median(c, n), bytes);
    }
    free(plain);

    for (int library = 0; library < 2; library++) {
        double data_s, commit_s;
        minv_write(&b, &m, library, &data_s, &commit_s, &bytes);
        for (int r = 0; r < n; r++) {
            const double c0 = cpu_now();
            minv_write(&b, &m, library, &t[r], &u[r], &bytes);
            c[r] = cpu_now() - c0;
        }
        char what[96];
        snprintf(what, sizeof what, "%s, %d threads, up to fsync", library ? "minv through NetCDF-C" : "minv",
                 all->cpu_threads);
        /* the CPU column of the write is the whole write's, commit included */
        row("write", what, median(t, n), median(c, n), bytes);
        snprintf(what, sizeof what, "%s: commit (close, fsync, rename)", library ? "minv through NetCDF-C" : "minv");
        row("write", what, median(u, n), -1, bytes);
    }
    minv_mat_free(&m);
    free(t);
    free(u);
    free(c);
    minv_destroy(all);
    minv_destroy(one);
    return 0;
}
