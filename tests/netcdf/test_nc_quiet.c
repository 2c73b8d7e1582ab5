/* HDF5 stays quiet: file calls from a thread other than the one that first
 * used netCDF-C print no "HDF5-DIAG" lines on stderr, on success or failure, and the calling
 * thread's own HDF5 error handler is left as it was. netCDF-C switches HDF5's printing off
 * for the thread that initialises it only; HDF5 is thread-safe here, and each thread has its
 * own error stack. */
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "nctest.h"

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
enum { N = 6 };

static void *calls(void *arg) {
    minv_context *ctx = arg;
    minv_report rep;
    minv_analysis an;
    /* a success, a missing variable and a missing group (netCDF-C asks HDF5 and gets "no"),
     * a file that is HDF5 in name only, and a solve */
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "quiet_in.nc", "A", "quiet_out.nc", NULL, NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_analyze_file(ctx, "quiet_in.nc", "nothing", NULL, &an), MINV_ERR_NOT_FOUND, ctx);
    CHECK_STATUS(minv_analyze_file(ctx, "quiet_in.nc", "g/A", NULL, &an), MINV_ERR_NOT_FOUND, ctx);
    CHECK_STATUS(minv_analyze_file(ctx, "quiet_bad.nc", "A", NULL, &an), MINV_ERR_IO, ctx);
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "quiet_in.nc", "A", "quiet_in.nc", "A", "quiet_x.nc", NULL, NCT_REPLACE,
                                 &rep), MINV_SUCCESS, ctx);
    return NULL;
}

int main(void) {
    const char *const ij[2] = {"i", "j"};
    const size_t lens[2] = {N, N};
    double a[N * N];
    tu_rng rng;
    tu_seed(&rng, 8);
    tu_spd(&rng, N, a, N);
    nct_write("quiet_in.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, a);
    FILE *bad = fopen("quiet_bad.nc", "wb"); /* the HDF5 signature, then nothing HDF5 can read */
    fwrite("\x89HDF\r\n\x1a\n\0\0\0\0\0\0\0\0garbage", 1, 23, bad);
    fclose(bad);
    minv_context *ctx = nct_context();

    /* stderr into a file while another thread makes the calls */
    fflush(stderr);
    const int saved = dup(2), log = open("quiet_stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(log, 2);
    pthread_t t;
    pthread_create(&t, NULL, calls, ctx);
    pthread_join(t, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(log);
    close(saved);

    nct_snapshot printed = nct_snap("quiet_stderr.txt");
    CHECK(printed.size == 0, "the calls printed %ld bytes on stderr: %.*s", printed.size, (int)(printed.size > 600 ? 600 : printed.size),
          printed.bytes ? printed.bytes : "");
    nct_snap_free(&printed);
    minv_destroy(ctx);
    return tu_finish("test_nc_quiet");
}
