/* Long runs: the file calls must not grow the resident memory beyond what
 * netCDF-C itself keeps. netCDF-C 4.9 with HDF5 1.10 keeps about 1.3 kB for every netCDF-4
 * file it opens (a file creation property list from H5Fget_create_plist, dataspaces from
 * H5Aget_space, never closed) and more where datasets are opened, so each minv call is
 * measured beside netCDF-C alone doing the same netCDF work:
 *   analyze  minv_analyze_file         beside: open the input, read A's storage, attributes
 *                                       and values, close
 *   invert   minv_invert_file into an   beside: the same, then open the existing output (to
 *            existing output (overwrite)    see what it holds), create a new one, define,
 *                                       write, add attributes, close
 *   solve    minv_solve_file likewise   beside: A and B read from the input open twice, then
 *                                       the output as above
 * Each loop runs `cycles` calls after a warm-up of them all. Per call, the heap a minv loop
 * holds (glibc's mallinfo2: what leaks grow) may exceed its netCDF-C loop's by 128 bytes (HDF5's
 * free lists hold blocks as the calls' patterns differ: tens of bytes a call, bounded), and
 * its resident memory (/proc/self/statm, which the allocator's fragmentation moves too) by
 * `slack` bytes, or 2 MiB over the whole loop where that is more (resident memory moves by
 * pages and arenas: on the GPU machine, 1000 inversions under ctest -j8 grew 1.06 kB a call
 * beyond netCDF-C alone while the heap grew 44 B).
 *
 *   test_nc_rss [cycles (default 1000)] [slack bytes (default 1024)]
 * CTest runs a short version; bench/nc_rss.sh runs 100000 cycles and keeps the table. */
#include <malloc.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "nctest.h"

enum { N = 12 };

static double rss_bytes(void) {
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (double)resident * (double)sysconf(_SC_PAGESIZE);
}

/* Bytes the heap holds allocated: what a leak grows, without the allocator's fragmentation. */
static double heap_bytes(void) { return (double)mallinfo2().uordblks; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static const char *const nn[2] = {"n", "n"};
static const size_t lens[2] = {N, N};

/* ---- netCDF-C alone, doing what minv's calls do ---- */

/* Opens the input and reads `var` as the reader does: storage, fill, attributes, values. */
static int netcdf_read(const char *var) {
    int ncid, varid, storage, no_fill, natts;
    size_t chunks[2], len;
    nc_type t;
    double a[N * N], fill;
    NCT(nc_open("rss_in.nc", NC_NOWRITE, &ncid));
    NCT(nc_inq_varid(ncid, var, &varid));
    NCT(nc_inq_var_chunking(ncid, varid, &storage, chunks));
    NCT(nc_inq_var_fill(ncid, varid, &no_fill, &fill));
    nc_inq_att(ncid, varid, "scale_factor", &t, &len);
    NCT(nc_inq_varnatts(ncid, varid, &natts));
    NCT(nc_inq_natts(ncid, &natts));
    NCT(nc_get_var_double(ncid, varid, a));
    return ncid;
}

/* Looks into the existing output, and writes a new one with the result's attributes. */
static void netcdf_write(const char *path) {
    int ncid, varid, dims[2], nvars;
    double a[N * N] = {0};
    NCT(nc_open(path, NC_NOWRITE, &ncid));
    NCT(nc_inq_nvars(ncid, &nvars));
    NCT(nc_close(ncid));
    NCT(nc_create("rss_nc_tmp.nc", NC_CLOBBER | NC_NETCDF4, &ncid));
    NCT(nc_def_dim(ncid, "n", N, &dims[0]));
    dims[1] = dims[0];
    NCT(nc_def_var(ncid, "X", NC_DOUBLE, 2, dims, &varid));
    NCT(nc_enddef(ncid));
    NCT(nc_put_var_double(ncid, varid, a));
    NCT(nc_redef(ncid));
    for (int k = 0; k < 10; k++) {
        char name[16];
        snprintf(name, sizeof name, "att%d", k);
        NCT(nc_put_att_text(ncid, varid, name, 40, "a text attribute of the result, some 40 B"));
    }
    NCT(nc_put_att_text(ncid, NC_GLOBAL, "history", 4, "test"));
    NCT(nc_close(ncid));
    rename("rss_nc_tmp.nc", path);
}

typedef enum { NC_ANALYZE, NC_INVERT, NC_SOLVE, ANALYZE, INVERT, SOLVE } loop_kind;
static const char *const names[] = {"netCDF-C alone, as analyze", "netCDF-C alone, as invert", "netCDF-C alone, as solve",
                                    "analyze",                    "invert",                    "solve"};

static int one_call(minv_context *ctx, loop_kind kind) {
    minv_report rep;
    minv_analysis an;
    int a, b;
    switch (kind) {
    case NC_ANALYZE: NCT(nc_close(netcdf_read("A"))); return 1;
    case NC_INVERT:
        NCT(nc_close(netcdf_read("A")));
        netcdf_write("rss_nc.nc");
        return 1;
    case NC_SOLVE:
        a = netcdf_read("A");
        b = netcdf_read("B");
        netcdf_write("rss_nc.nc");
        NCT(nc_close(a));
        NCT(nc_close(b));
        return 1;
    case ANALYZE: return minv_analyze_file(ctx, "rss_in.nc", "A", NULL, &an) == MINV_SUCCESS;
    case INVERT: return minv_invert_file(ctx, MINV_METHOD_AUTO, "rss_in.nc", "A", "rss_out.nc", NULL, NCT_REPLACE, &rep) == MINV_SUCCESS;
    default: return minv_solve_file(ctx, MINV_METHOD_AUTO, "rss_in.nc", "A", "rss_in.nc", "B", "rss_x.nc", NULL, NCT_REPLACE, &rep) == MINV_SUCCESS;
    }
}

typedef struct {
    double rss, heap; /* bytes gained per call */
} growth;

/* Resident and heap memory gained per call over `cycles` calls. */
static growth growth_per_call(minv_context *ctx, loop_kind kind, long cycles) {
    const double rss0 = rss_bytes(), heap0 = heap_bytes(), t0 = now();
    for (long c = 0; c < cycles; c++)
        if (!one_call(ctx, kind)) {
            CHECK(0, "%s, call %ld: %s", names[kind], c, minv_last_error(ctx));
            break;
        }
    const growth g = {(rss_bytes() - rss0) / (double)cycles, (heap_bytes() - heap0) / (double)cycles};
    printf("%-28s %7ld calls %7.3f ms/call  RSS %+7.2f MB, %+7.1f B/call  heap %+7.2f MB, %+7.1f B/call\n", names[kind],
           cycles, (now() - t0) / (double)cycles * 1e3, g.rss * (double)cycles / 1e6, g.rss, g.heap * (double)cycles / 1e6,
           g.heap);
    fflush(stdout);
    return g;
}

int main(int argc, char **argv) {
#if defined(__SANITIZE_ADDRESS__)
    printf("test_nc_rss: AddressSanitizer's allocator and quarantine hold freed memory; skipped\n");
    return TU_SKIP;
#endif
    const long cycles = argc > 1 ? atol(argv[1]) : 1000;
    const double slack = fmax(argc > 2 ? atof(argv[2]) : 1024, 2.0 * 1024 * 1024 / (double)(cycles > 0 ? cycles : 1)),
                 heap_slack = 128;
    double a[N * N], b[N * N];
    tu_rng rng;
    tu_seed(&rng, 6);
    tu_spd(&rng, N, a, N);
    tu_general(&rng, N, b, N);
    nct_write("rss_in.nc", 0, &(nct_storage){.cmode = NC_CLOBBER | NC_NETCDF4}, "A", NC_DOUBLE, 2, nn, lens, 0, a);
    nct_write("rss_in.nc", 1, &(nct_storage){.cmode = NC_CLOBBER | NC_NETCDF4}, "B", NC_DOUBLE, 2, nn, lens, 0, b);
    minv_options o;
    minv_context *ctx = NULL;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = 1; /* memory is measured here, and one thread is quickest on 12 x 12 */
    if (minv_create(&ctx, &o) != MINV_SUCCESS)
        return 2;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "rss_in.nc", "A", "rss_nc.nc", NULL, NCT_REPLACE, NULL), MINV_SUCCESS,
                 ctx); /* the existing output of netCDF-C's loops */
    for (loop_kind k = NC_ANALYZE; k <= SOLVE; k++) /* one-time growth (caches, pools) first */
        for (long c = 0; c < 100; c++)
            CHECK(one_call(ctx, k), "%s: %s", names[k], minv_last_error(ctx));
    for (loop_kind k = ANALYZE; k <= SOLVE; k++) {
        const growth base = growth_per_call(ctx, k - ANALYZE, cycles), g = growth_per_call(ctx, k, cycles);
        printf("%-28s beyond netCDF-C alone: RSS %+7.1f B/call, heap %+7.1f B/call\n", names[k], g.rss - base.rss,
               g.heap - base.heap);
        CHECK(g.heap <= base.heap + heap_slack, "%s holds %.1f more heap bytes a call, netCDF-C alone %.1f (allowed: %.0f more)",
              names[k], g.heap, base.heap, heap_slack);
        CHECK(g.rss <= base.rss + slack, "%s grows %.1f resident bytes a call, netCDF-C alone %.1f (allowed: %.0f more)",
              names[k], g.rss, base.rss, slack);
    }
    minv_destroy(ctx);
    return tu_finish("test_nc_rss");
}
