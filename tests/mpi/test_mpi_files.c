/* The file routines across the ranks against serial minv's on the same files: netCDF-4
 * (contiguous, chunked and deflated, in a group), classic, 64-bit offset and CDF-5 inputs;
 * the Fortran view; a slice; batches in chunks, with ranks that get no matrix; solves with a
 * 2-D and a 1-D B; one matrix read into a layout and written back; single precision; errors
 * (missing variable, a fill value, a singular matrix, the input as output, an existing output
 * without overwrite) giving the same status and message on every rank, leaving no temporary
 * file and the input untouched; the output's format (the input's, or fopts->format). */
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_testutil.h"
#include "nctest.h"

typedef struct {
    const char *name;
    nct_storage st;
    int classic; /* a classic format: PnetCDF reads it and writes the output in it */
    int nc_format; /* NC_FORMAT_*, the output's too */
} format;

static const size_t chunks[2] = {8, 8}, chunks3[3] = {1, 6, 6};
static const format formats[] = {
    {"netcdf4", {NC_CLOBBER | NC_NETCDF4, NULL, 0, NULL}, 0, NC_FORMAT_NETCDF4},
    {"netcdf4_chunked", {NC_CLOBBER | NC_NETCDF4, chunks, 4, NULL}, 0, NC_FORMAT_NETCDF4},
    {"classic", {NC_CLOBBER, NULL, 0, NULL}, 1, NC_FORMAT_CLASSIC},
    {"offset64", {NC_CLOBBER | NC_64BIT_OFFSET, NULL, 0, NULL}, 1, NC_FORMAT_64BIT_OFFSET},
    {"cdf5", {NC_CLOBBER | NC_64BIT_DATA, NULL, 0, NULL}, 1, NC_FORMAT_64BIT_DATA},
};

/* The whole matrix as rank 0 writes it; every rank builds the same. */
static double *disk_matrix(int64_t n, uint64_t seed, int spd) {
    double *a = tu_alloc(n, n, n);
    tu_rng rng;
    tu_seed(&rng, seed);
    if (spd)
        tu_spd(&rng, n, a, n);
    else
        tu_general(&rng, n, a, n);
    return a; /* symmetric or not, read as disk[i][j] */
}

/* Rank 0 writes, everyone waits. */
static void write_on_root(const char *path, int append, const nct_storage *st, const char *var, int rank,
                          const char *const *names, const size_t *lens, const double *data) {
    if (mt_rank == 0)
        nct_write(path, append, st, var, NC_DOUBLE, rank, names, lens, 0, data);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The output of the MPI job against serial minv's (run by rank 0 into ref_path). */
static void compare_outputs(const char *what, const char *path, const char *ref_path, const char *var, double tol) {
    size_t n = 0, nref = 0;
    double *got = nct_read(path, var, &n), *want = nct_read(ref_path, var, &nref);
    double diff = 0, norm = 0;
    for (size_t e = 0; e < n && n == nref; e++) {
        diff = fmax(diff, fabs(got[e] - want[e]));
        norm = fmax(norm, fabs(want[e]));
    }
    CHECK(n == nref && n > 0 && diff <= tol * norm, "%s: %zu values (serial %zu), max difference %g relative to %g", what, n,
          nref, diff, norm);
    char *method = nct_read_text_att(path, var, "minv_method"), *source = nct_read_text_att(path, var, "minv_source_file");
    char *serial = nct_read_text_att(ref_path, var, "minv_method");
    CHECK(method && serial && strcmp(method, serial) == 0, "%s: minv_method '%s', serial '%s'", what, method ? method : "(none)",
          serial ? serial : "(none)");
    CHECK(source != NULL, "%s: no minv_source_file attribute", what);
    CHECK(!nct_tmp_left(path), "%s: a temporary file is left", what);
    free(got);
    free(want);
    free(method);
    free(source);
    free(serial);
}

/* The outputs of an earlier run, which no call replaces without overwrite. */
static void remove_outputs(void) {
    if (mt_rank == 0) {
        glob_t g;
        const char *patterns[] = {"out_*.nc", "ref_*.nc", "err_*.nc"};
        for (size_t k = 0; k < sizeof patterns / sizeof patterns[0]; k++)
            if (glob(patterns[k], 0, NULL, &g) == 0) {
                for (size_t e = 0; e < g.gl_pathc; e++) remove(g.gl_pathv[e]);
                globfree(&g);
            }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static int file_format(const char *path) {
    int ncid, fmt = -1;
    if (nc_open(path, NC_NOWRITE, &ncid) == NC_NOERR) {
        nc_inq_format(ncid, &fmt);
        nc_close(ncid);
    }
    return fmt;
}

/* ---- one matrix ---- */

static void invert_formats(minv_context *ctx) {
    const int64_t n = 29;
    const char *names[2] = {"row", "col"};
    const size_t lens[2] = {(size_t)n, (size_t)n};
    double *a = disk_matrix(n, 3, 0);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        char in[64], out[64], ref[64], what[96];
        snprintf(in, sizeof in, "in_%s.nc", formats[f].name);
        snprintf(out, sizeof out, "out_%s.nc", formats[f].name);
        snprintf(ref, sizeof ref, "ref_%s.nc", formats[f].name);
        write_on_root(in, 0, &formats[f].st, "B", 2, names, lens, a);
        for (int fortran = 0; fortran < 2; fortran++) {
            minv_file_options fo;
            minv_file_options_default(&fo);
            fo.fortran_order = fortran;
            minv_report r;
            snprintf(what, sizeof what, "invert %s%s", formats[f].name, fortran ? " (Fortran view)" : "");
            if (fortran) { /* the same output again: refused, then replaced with overwrite */
                nct_snapshot before = nct_snap(out);
                const minv_status got = minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "B", out, NULL, &fo, &r);
                char msg[1024];
                snprintf(msg, sizeof msg, "%s", minv_last_error(ctx));
                CHECK(got == MINV_ERR_INVALID_ARG && strstr(msg, "already holds a variable 'B_inv'") && mt_same_text(msg),
                      "%s: an existing output without overwrite: %s (%s)", what, minv_status_string(got), msg);
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK(nct_same(&before, out) && !nct_tmp_left(out), "%s: the refused output was modified", what);
                nct_snap_free(&before);
                MPI_Barrier(MPI_COMM_WORLD);
                fo.overwrite = 1;
            }
            CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "B", out, NULL, &fo, &r), MINV_SUCCESS, ctx);
            minv_report serial;
            if (mt_rank == 0)
                CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, in, "B", ref, NULL, &fo, &serial), MINV_SUCCESS, ctx);
            MPI_Bcast(&serial, (int)sizeof serial, MPI_BYTE, 0, MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
            compare_outputs(what, out, ref, "B_inv", 1e-10);
            /* the stages count every rank's bytes: the whole matrix read and written once */
            CHECK(r.stages.read_bytes == serial.stages.read_bytes && r.stages.write_bytes == serial.stages.write_bytes &&
                      r.stages.write_bytes == (double)(n * n * 8) && r.stages.read_seconds > 0 && r.stages.write_seconds > 0 &&
                      r.device == -1 && r.matrices == 1,
                  "%s: stages read %g B in %g s, write %g B in %g s (serial %g, %g B), device %d, matrices %lld", what,
                  r.stages.read_bytes, r.stages.read_seconds, r.stages.write_bytes, r.stages.write_seconds,
                  serial.stages.read_bytes, serial.stages.write_bytes, (int)r.device, (long long)r.matrices);
            CHECK(MT_SAME_REPORT(r), "%s: the report differs between the ranks", what);
            CHECK(r.residual >= 0 && r.residual < 1e-13 && r.rcond > 0, "%s: residual %g rcond %g", what, r.residual, r.rcond);
            CHECK(file_format(out) == formats[f].nc_format && file_format(ref) == formats[f].nc_format,
                  "%s: the output's format is %d (serial %d), expected the input's, %d", what, file_format(out), file_format(ref),
                  formats[f].nc_format);
            CHECK(strstr(r.reason, formats[f].classic && MINV_MPI_HAVE_PNETCDF ? "collectively through PnetCDF" : "each by the serial reader"),
                  "%s: reason: %s", what, r.reason);
        }
    }
    /* another format asked for: netCDF-4 to CDF-5 (collective) and classic to netCDF-4 */
    for (int f = 0; f < 3; f += 2) {
        char in[64], out[64], what[96];
        snprintf(in, sizeof in, "in_%s.nc", formats[f].name);
        snprintf(out, sizeof out, "out_%s_as.nc", formats[f].name);
        snprintf(what, sizeof what, "invert %s into another format", formats[f].name);
        minv_file_options fo;
        minv_file_options_default(&fo);
        fo.format = f == 0 ? MINV_FORMAT_CDF5 : MINV_FORMAT_NETCDF4;
        const int want = f == 0 ? NC_FORMAT_64BIT_DATA : NC_FORMAT_NETCDF4;
        CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "B", out, NULL, &fo, NULL), MINV_SUCCESS, ctx);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(file_format(out) == want, "%s: the output's format is %d, expected %d", what, file_format(out), want);
        compare_outputs(what, out, f == 0 ? "ref_netcdf4.nc" : "ref_classic.nc", "B_inv", 1e-10);
    }
    /* a variable added to an existing classic file (through PnetCDF): the file keeps its format */
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.format = MINV_FORMAT_CDF5;
    CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, "in_classic.nc", "B", "out_classic.nc", "again", &fo,
                                      NULL),
                 MINV_SUCCESS, ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(file_format("out_classic.nc") == NC_FORMAT_CLASSIC, "adding a variable: the classic file became format %d",
          file_format("out_classic.nc"));
    size_t n1 = 0, n2 = 0;
    double *again = nct_read("out_classic.nc", "again", &n1), *first = nct_read("ref_classic.nc", "B_inv", &n2);
    double diff = 0, norm = 0;
    for (size_t e = 0; e < n1 && n1 == n2; e++) {
        diff = fmax(diff, fabs(again[e] - first[e]));
        norm = fmax(norm, fabs(first[e]));
    }
    CHECK(n1 == n2 && n1 > 0 && diff <= 1e-10 * norm, "adding a variable: %zu values (serial %zu), max difference %g relative to %g",
          n1, n2, diff, norm);
    free(again);
    free(first);
    free(a);
}

/* A slice of a rank-3 variable, and a variable in a netCDF-4 group. */
static void slice_and_group(minv_context *ctx) {
    const int64_t n = 17;
    const char *names[3] = {"time", "row", "col"};
    const size_t lens[3] = {3, (size_t)n, (size_t)n};
    double *all = malloc(3 * (size_t)(n * n) * sizeof(double));
    for (int s = 0; s < 3; s++) {
        double *a = disk_matrix(n, 40 + (uint64_t)s, s == 1);
        memcpy(all + (size_t)s * (size_t)(n * n), a, (size_t)(n * n) * sizeof(double));
        free(a);
    }
    write_on_root("in_slice.nc", 0, &formats[0].st, "cov", 3, names, lens, all);
    write_on_root("in_slice.nc", 1, &formats[0].st, "analysis/M", 2, names + 1, lens + 1, all + (size_t)(n * n));
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.nslice = 1;
    fo.slice[0] = 1;
    CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, "in_slice.nc", "cov", "out_slice.nc", "X", &fo, NULL),
                 MINV_SUCCESS, ctx);
    if (mt_rank == 0)
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "in_slice.nc", "cov", "ref_slice.nc", "X", &fo, NULL), MINV_SUCCESS, ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    compare_outputs("slice", "out_slice.nc", "ref_slice.nc", "X", 1e-10);
    fo.nslice = 0;
    CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_CHOLESKY, "in_slice.nc", "analysis/M", "out_group.nc", NULL,
                                      &fo, NULL),
                 MINV_SUCCESS, ctx);
    if (mt_rank == 0)
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_CHOLESKY, "in_slice.nc", "analysis/M", "ref_group.nc", NULL, &fo, NULL),
                     MINV_SUCCESS, ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    compare_outputs("group", "out_group.nc", "ref_group.nc", "M_inv", 1e-10);
    free(all);
}

/* ---- batches ---- */

static void batches(minv_context *ctx) {
    const size_t k = 6;
    for (int count = 3; count <= 7; count += 4) { /* 3 matrices: some of 4 ranks get none */
        for (int f = 0; f < 5; f += 4) {           /* netCDF-4 (chunked by matrix) and CDF-5 */
            nct_storage st = formats[f].st;
            if (f == 0)
                st.chunks = chunks3;
            const char *names[3] = {"point", "ens", "ens"};
            const size_t lens[3] = {(size_t)count, k, k};
            double *all = malloc((size_t)count * k * k * sizeof(double));
            for (int m = 0; m < count; m++) {
                double *a = disk_matrix((int64_t)k, 60 + (uint64_t)m, m % 2);
                memcpy(all + (size_t)m * k * k, a, k * k * sizeof(double));
                free(a);
            }
            char in[64], out[64], ref[64], what[64];
            snprintf(in, sizeof in, "in_batch%d_%s.nc", count, formats[f].name);
            snprintf(out, sizeof out, "out_batch%d_%s.nc", count, formats[f].name);
            snprintf(ref, sizeof ref, "ref_batch%d_%s.nc", count, formats[f].name);
            snprintf(what, sizeof what, "batch of %d, %s", count, formats[f].name);
            write_on_root(in, 0, &st, "R", 3, names, lens, all);
            minv_file_options fo;
            minv_file_options_default(&fo);
            fo.batch_chunk = 2; /* several steps */
            minv_report r;
            CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "R", out, NULL, &fo, &r), MINV_SUCCESS, ctx);
            if (mt_rank == 0)
                CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, in, "R", ref, NULL, &fo, NULL), MINV_SUCCESS, ctx);
            MPI_Barrier(MPI_COMM_WORLD);
            compare_outputs(what, out, ref, "R_inv", 1e-10);
            CHECK(MT_SAME_REPORT(r) && strstr(r.reason, "matrices over"), "%s: report: %s", what, r.reason);
            /* the batch's figures over the ranks: every matrix read and written once, the worst
             * matrix named as serially */
            CHECK(r.matrices == count && r.worst >= 0 && r.worst < count &&
                      r.stages.read_bytes == (double)((size_t)count * k * k * 8) &&
                      r.stages.write_bytes == (double)((size_t)count * k * k * 8) && r.stages.compute_seconds > 0,
                  "%s: matrices %lld, worst %lld, read %g B, write %g B, compute %g s", what, (long long)r.matrices,
                  (long long)r.worst, r.stages.read_bytes, r.stages.write_bytes, r.stages.compute_seconds);
            free(all);
        }
    }
}

/* ---- solves ---- */

static void solves(minv_context *ctx) {
    const int64_t n = 23, nrhs = 4;
    const char *names[2] = {"n", "k"};
    const size_t lens[2] = {(size_t)n, (size_t)n}, blens[2] = {(size_t)n, (size_t)nrhs};
    double *a = disk_matrix(n, 70, 1), *b = tu_alloc(n, nrhs, n);
    tu_rng rng;
    tu_seed(&rng, 71);
    tu_rect(&rng, n, nrhs, b, n);
    for (int f = 0; f < 5; f += 2) { /* netCDF-4, classic, CDF-5 */
        char in[64], out[64], ref[64], what[64];
        snprintf(in, sizeof in, "in_solve_%s.nc", formats[f].name);
        snprintf(out, sizeof out, "out_solve_%s.nc", formats[f].name);
        snprintf(ref, sizeof ref, "ref_solve_%s.nc", formats[f].name);
        write_on_root(in, 0, &formats[f].st, "A", 2, (const char *const[]){"n", "n"}, lens, a);
        write_on_root(in, 1, &formats[f].st, "B", 2, names, blens, b);
        write_on_root(in, 1, &formats[f].st, "v", 1, names, blens, b);
        for (int vector = 0; vector < 2; vector++) {
            const char *bvar = vector ? "v" : "B", *xvar = vector ? "xv" : "X";
            snprintf(what, sizeof what, "solve %s%s", formats[f].name, vector ? " (1-D B)" : "");
            minv_report r;
            CHECK_STATUS(minv_mpi_solve_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "A", in, bvar, out, xvar, NULL, &r),
                         MINV_SUCCESS, ctx);
            if (mt_rank == 0)
                CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, in, "A", in, bvar, ref, xvar, NULL, NULL), MINV_SUCCESS, ctx);
            MPI_Barrier(MPI_COMM_WORLD);
            compare_outputs(what, out, ref, xvar, 1e-10);
            CHECK(MT_SAME_REPORT(r) && r.residual < 1e-13, "%s: report differs or residual %g", what, r.residual);
        }
    }
    free(a);
    free(b);
}

/* ---- a matrix in and out of a layout; single precision ---- */

static void read_write(minv_context *ctx) {
    const int64_t n = 21;
    double *a = disk_matrix(n, 80, 0);
    write_on_root("in_rw.cdf5.nc", 0, &formats[4].st, "A", 2, (const char *const[]){"i", "j"},
                  (const size_t[]){(size_t)n, (size_t)n}, a);
    write_on_root("in_rw.nc4.nc", 0, &formats[1].st, "A", 2, (const char *const[]){"i", "j"},
                  (const size_t[]){(size_t)n, (size_t)n}, a);
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 4, 0, 0, &l), MINV_SUCCESS, ctx);
    double *p = malloc((size_t)(l.lld * (l.local_cols > 0 ? l.local_cols : 1)) * sizeof(double));
    for (int file = 0; file < 2; file++) {
        const char *path = file ? "in_rw.nc4.nc" : "in_rw.cdf5.nc";
        CHECK_STATUS(minv_mpi_read_d(ctx, &l, path, "A", NULL, p), MINV_SUCCESS, ctx);
        for (int64_t lj = 0; lj < l.local_cols; lj++)
            for (int64_t li = 0; li < l.local_rows; li++) {
                const int64_t i = minv_mpi_layout_row(&l, li), j = minv_mpi_layout_col(&l, lj);
                if (p[lj * l.lld + li] != a[i * n + j]) { /* the C view: A(i, j) = disk[i][j] */
                    CHECK(0, "%s: local (%lld, %lld) = %g is not A(%lld, %lld) = %g", path, (long long)li, (long long)lj,
                          p[lj * l.lld + li], (long long)i, (long long)j, a[i * n + j]);
                    lj = l.local_cols;
                    break;
                }
            }
    }
    const char *dims[2] = {"r", "c"};
    CHECK_STATUS(minv_mpi_write_d(ctx, &l, p, "out_rw.nc", "W", dims, NULL), MINV_SUCCESS, ctx);
    size_t count = 0;
    double *back = nct_read("out_rw.nc", "W", &count);
    CHECK(count == (size_t)(n * n) && memcmp(back, a, (size_t)(n * n) * sizeof(double)) == 0, "write: the file differs");
    free(back);
    /* single precision */
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.precision = MINV_PRECISION_SINGLE;
    CHECK_STATUS(minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, "in_rw.nc4.nc", "A", "out_single.nc", NULL, &fo, NULL),
                 MINV_SUCCESS, ctx);
    if (mt_rank == 0)
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "in_rw.nc4.nc", "A", "ref_single.nc", NULL, &fo, NULL), MINV_SUCCESS, ctx);
    MPI_Barrier(MPI_COMM_WORLD);
    compare_outputs("single precision", "out_single.nc", "ref_single.nc", "A_inv", 1e-4);
    free(a);
    free(p);
    minv_mpi_layout_free(&l);
}

/* A matrix of several bands a slab whose last slab is shorter by less than a band: ranks that
 * finish early still take part in every collective read and write (n = 2049 on 4 ranks); and
 * the same matrix written as netCDF-4 through rank 0. */
static void many_bands(minv_context *ctx) {
    const int64_t n = 2049;
    double *a = malloc((size_t)(n * n) * sizeof(double));
    for (int64_t e = 0; e < n * n; e++) a[e] = (double)(e % 1000) / 7.0;
    write_on_root("in_bands.nc", 0, &formats[4].st, "A", 2, (const char *const[]){"i", "j"},
                  (const size_t[]){(size_t)n, (size_t)n}, a);
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, n, n, 64, 0, 0, &l), MINV_SUCCESS, ctx);
    double *p = malloc((size_t)(l.lld * (l.local_cols > 0 ? l.local_cols : 1)) * sizeof(double));
    CHECK_STATUS(minv_mpi_read_d(ctx, &l, "in_bands.nc", "A", NULL, p), MINV_SUCCESS, ctx);
    int same = 1;
    for (int64_t lj = 0; lj < l.local_cols && same; lj++)
        for (int64_t li = 0; li < l.local_rows && same; li++)
            same = p[lj * l.lld + li] == a[minv_mpi_layout_row(&l, li) * n + minv_mpi_layout_col(&l, lj)];
    CHECK(same, "bands: the matrix read differs from the file");
    CHECK_STATUS(minv_mpi_write_d(ctx, &l, p, "out_bands.nc", "A", NULL, NULL), MINV_SUCCESS, ctx);
    size_t count = 0;
    double *back = nct_read("out_bands.nc", "A", &count);
    CHECK(count == (size_t)(n * n) && memcmp(back, a, (size_t)(n * n) * sizeof(double)) == 0, "bands: the file written differs");
    free(back);
    /* netCDF-4: slabs of whole chunks (9 chunk rows; on 4 ranks the last rank's slab is empty)
     * to rank 0, whose serial writer writes them band by band */
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.format = MINV_FORMAT_NETCDF4;
    CHECK_STATUS(minv_mpi_write_d(ctx, &l, p, "out_bands4.nc", "A", NULL, &fo), MINV_SUCCESS, ctx);
    back = nct_read("out_bands4.nc", "A", &count);
    CHECK(count == (size_t)(n * n) && memcmp(back, a, (size_t)(n * n) * sizeof(double)) == 0,
          "bands: the netCDF-4 file written differs");
    free(a);
    free(p);
    free(back);
    minv_mpi_layout_free(&l);
}

/* ---- errors: the same everywhere, nothing left behind ---- */

static void expect_error(minv_context *ctx, const char *what, minv_status got, minv_status want, const char *text,
                         const char *out) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", minv_last_error(ctx));
    CHECK(got == want, "%s: %s, expected %s (%s)", what, minv_status_string(got), minv_status_string(want), msg);
    CHECK(strstr(msg, text) != NULL, "%s: no '%s' in: %s", what, text, msg);
    CHECK(mt_same_text(msg), "%s: the message differs between the ranks: %s", what, msg);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(!nct_exists(out) && !nct_tmp_left(out), "%s: an output or temporary file is left", what);
}

static void errors(minv_context *ctx) {
    const int64_t n = 13;
    const char *names[2] = {"row", "col"};
    const size_t lens[2] = {(size_t)n, (size_t)n};
    double *a = disk_matrix(n, 90, 0);
    for (int f = 0; f < 5; f += 4) {
        char in[64];
        snprintf(in, sizeof in, "in_err_%s.nc", formats[f].name);
        write_on_root(in, 0, &formats[f].st, "A", 2, names, lens, a);
        nct_snapshot before = nct_snap(in);
        minv_status got = minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "nothere", "err_out.nc", NULL, NULL, NULL);
        expect_error(ctx, "missing variable", got, MINV_ERR_NOT_FOUND, "has no variable 'nothere'", "err_out.nc");
        got = minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "A", in, "X", NULL, NULL);
        expect_error(ctx, "output is the input", got, MINV_ERR_INVALID_ARG, "minv never modifies its input", "err_none.nc");
        CHECK(nct_same(&before, in), "the input was modified");
        nct_snap_free(&before);
        MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before rank 0 writes the file again */

        double *bad = malloc((size_t)(n * n) * sizeof(double));
        memcpy(bad, a, (size_t)(n * n) * sizeof(double));
        bad[9 * n + 4] = -999; /* row 10, column 5 (1-based) */
        const double fill = -999;
        nct_storage st = formats[f].st;
        st.fill = &fill;
        write_on_root(in, 0, &st, "F", 2, names, lens, bad);
        got = minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "F", "err_out.nc", NULL, NULL, NULL);
        expect_error(ctx, "fill value", got, MINV_ERR_NOT_FINITE, "entry (10, 5) (row, column, 1-based; the first bad one in file order) is the _FillValue", "err_out.nc");

        memcpy(bad, a, (size_t)(n * n) * sizeof(double));
        for (int64_t i = 0; i < n; i++) bad[i * n + 7] = 0; /* column 8 zero */
        write_on_root(in, 0, &formats[f].st, "S", 2, names, lens, bad);
        got = minv_mpi_invert_file(ctx, MPI_COMM_WORLD, MINV_METHOD_AUTO, in, "S", "err_out.nc", NULL, NULL, NULL);
        expect_error(ctx, "singular", got, MINV_ERR_SINGULAR, "no pivot in column 8 (1-based)", "err_out.nc");
        free(bad);
    }
    free(a);
}

int main(int argc, char **argv) {
    minv_context *ctx = mt_init(&argc, &argv);
    if (!ctx)
        return 1;
    remove_outputs();
    invert_formats(ctx);
    slice_and_group(ctx);
    batches(ctx);
    solves(ctx);
    read_write(ctx);
    many_bands(ctx);
    errors(ctx);
    return mt_finish("test_mpi_files", ctx);
}
