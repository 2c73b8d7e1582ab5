/* A full disk: every writer (invert, solve, the tridiagonal bands; netCDF-4
 * and classic outputs) into a file system too small for its output fails with MINV_ERR_IO
 * saying "No space left on device", leaves no temporary file and no used space, and the
 * process goes on: a later write into the same file system succeeds, and the exit is clean
 * (HDF5 crashed in its exit handler after a failed write, which ctest sees as a failure).
 * The same with a disk that fills up while the data are written, past the space reserved.
 *
 * The small file system is a tmpfs of 192 KiB mounted in a mount namespace of this process
 * (as root, or in a user namespace where the kernel allows one); where neither is possible,
 * RLIMIT_FSIZE stands in ("File too large"), and the test says so. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ncio.h"
#include "nctest.h"

enum { N = 200 }; /* 320 KB of doubles: more than the file system holds */

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const nct_storage classic = {.cmode = NC_CLOBBER, .chunks = NULL, .deflate = 0};

static int write_text(const char *path, const char *text) {
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return 0;
    int ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    close(fd);
    return ok;
}

/* A private tmpfs of `size` at `dir`: 1 when mounted. */
static int private_tmpfs(const char *dir, const char *size) {
    char opts[64], map[64];
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    mkdir(dir, 0700);
    if (unshare(CLONE_NEWNS) != 0) { /* not root: a user namespace, where the kernel allows it */
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
            return 0;
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        write_text("/proc/self/setgroups", "deny");
        if (!write_text("/proc/self/uid_map", map))
            return 0;
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        if (!write_text("/proc/self/gid_map", map))
            return 0;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return 0;
    snprintf(opts, sizeof opts, "size=%s", size);
    return mount("tmpfs", dir, "tmpfs", 0, opts) == 0;
}

static double free_bytes(const char *dir) {
    struct statvfs fs;
    return statvfs(dir, &fs) == 0 ? (double)fs.f_bavail * (double)fs.f_frsize : -1;
}

static int is_empty(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    return system(cmd) == 0;
}

/* Inputs outside the small file system: A(N, N) SPD, B(N, N), and the three bands of a
 * tridiagonal matrix, in netCDF-4 and classic files. */
static void write_inputs(void) {
    const char *const nn[2] = {"n", "n"}, *const n1[1] = {"n"}, *const m1[1] = {"m"};
    const size_t lnn[2] = {N, N}, ln[1] = {N}, lm[1] = {N - 1};
    double *a = malloc(sizeof(double) * N * N), d[N], off[N];
    tu_rng rng;
    tu_seed(&rng, 25);
    tu_spd(&rng, N, a, N);
    for (int k = 0; k < N; k++) {
        d[k] = 4 + tu_uniform(&rng);
        off[k] = tu_uniform(&rng);
    }
    for (int c = 0; c < 2; c++) {
        const char *path = c ? "df_classic.nc" : "df_nc4.nc";
        const nct_storage *st = c ? &classic : &nc4;
        nct_write(path, 0, st, "A", NC_DOUBLE, 2, nn, lnn, 0, a);
        nct_write(path, 1, st, "B", NC_DOUBLE, 2, nn, lnn, 0, a);
        nct_write(path, 1, st, "D", NC_DOUBLE, 1, n1, ln, 0, d);
        nct_write(path, 1, st, "DL", NC_DOUBLE, 1, m1, lm, 0, off);
        nct_write(path, 1, st, "DU", NC_DOUBLE, 1, m1, lm, 0, off + 1);
    }
    free(a);
}

/* Every writer into `dir`, each failing with `reason`; nothing left, and on a file system of
 * our own the space back. */
static void writers_fail(minv_context *ctx, const char *dir, const char *reason, int private_fs) {
    static const char *const bands[3] = {"DL", "D", "DU"};
    const double before = free_bytes(dir);
    for (int c = 0; c < 2; c++) {
        const char *in = c ? "df_classic.nc" : "df_nc4.nc";
        char out[256];
        minv_report rep;
        snprintf(out, sizeof out, "%s/out.nc", dir);
        CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, in, "A", out, NULL, NCT_REPLACE, &rep), MINV_ERR_IO, ctx);
        HAS(minv_last_error(ctx), reason);
        HAS(minv_last_error(ctx), out);
        CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, in, "A", in, "B", out, NULL, NCT_REPLACE, &rep), MINV_ERR_IO, ctx);
        HAS(minv_last_error(ctx), reason);
        CHECK_STATUS(minv_nc_invert_tridiagonal(ctx, in, bands, out, NULL, NCT_REPLACE, &rep), MINV_ERR_IO, ctx);
        HAS(minv_last_error(ctx), reason);
        CHECK(is_empty(dir), "%s: something was left in %s", in, dir);
    }
    CHECK(!private_fs || free_bytes(dir) == before, "%s: %.0f bytes free before, %.0f after", dir, before, free_bytes(dir));
}

/* A small output still fits, into the same file system, after the failures. */
static void later_write(minv_context *ctx, const char *dir) {
    const char *const nn[2] = {"n", "n"};
    const size_t lnn[2] = {10, 10};
    double a[100];
    char out[256];
    minv_report rep;
    for (int k = 0; k < 100; k++)
        a[k] = k % 11 == 0 ? 2 : 0;
    nct_write("df_small.nc", 0, &nc4, "S", NC_DOUBLE, 2, nn, lnn, 0, a);
    nct_write("df_small_classic.nc", 0, &classic, "S", NC_DOUBLE, 2, nn, lnn, 0, a);
    snprintf(out, sizeof out, "%s/small_inv.nc", dir);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "df_small.nc", "S", out, NULL, NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    size_t count;
    double *x = nct_read(out, "S_inv", &count);
    CHECK(count == 100 && x[0] == 0.5 && x[11] == 0.5 && x[1] == 0, "the later write's inverse of 2 I");
    free(x);
    unlink(out);
}

/* The disk fills while the output is written: another file takes the rest of it after the
 * data are written and before the metadata and attributes are (the progress callback runs
 * after each tile written). The space reserved up front holds, and the write succeeds. */
static const char *fill_dir;
static int filled;

static void fill_up(void *user, const char *stage, double fraction) {
    (void)user, (void)fraction;
    if (filled || strcmp(stage, "write") != 0)
        return;
    char path[256];
    snprintf(path, sizeof path, "%s/filler", fill_dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    static char block[4096];
    while (fd >= 0 && write(fd, block, sizeof block) == (ssize_t)sizeof block) {
    }
    if (fd >= 0)
        close(fd);
    filled = 1;
}

static void fills_while_writing(minv_context *ctx, const char *dir) {
    char out[256], filler[256];
    minv_report rep;
    snprintf(out, sizeof out, "%s/grow.nc", dir);
    snprintf(filler, sizeof filler, "%s/filler", dir);
    fill_dir = dir;
    for (int c = 0; c < 2; c++) {
        filled = 0;
        minv_set_progress(ctx, fill_up, NULL);
        minv_status st = minv_invert_file(ctx, MINV_METHOD_AUTO, c ? "df_small_classic.nc" : "df_small.nc", "S", out, NULL,
                                          NCT_REPLACE, &rep);
        minv_set_progress(ctx, NULL, NULL);
        CHECK(st == MINV_SUCCESS, "%s: %s", c ? "classic" : "netCDF-4", minv_last_error(ctx));
        CHECK(filled, "the disk was not filled during the write");
        unlink(out);
        unlink(filler);
    }
}

int main(void) {
    const char *dir = "df_small";
    int tmpfs = private_tmpfs(dir, "192k"); /* first, while the process has one thread */
    minv_context *ctx = nct_context();
    write_inputs();
    if (tmpfs) {
        printf("test_nc_diskfull: a 192 KiB tmpfs at %s\n", dir);
        writers_fail(ctx, dir, "No space left on device", 1);
        later_write(ctx, dir);
        fills_while_writing(ctx, dir);
    } else {
        /* RLIMIT_FSIZE: a write past 192 KiB fails with EFBIG (SIGXFSZ ignored) */
        printf("test_nc_diskfull: no tmpfs can be mounted here; RLIMIT_FSIZE of 192 KiB instead\n");
        mkdir(dir, 0700);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {192 << 10, RLIM_INFINITY};
        CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));
        writers_fail(ctx, dir, "File too large", 0);
        later_write(ctx, dir);
    }
    minv_destroy(ctx);
    return tu_finish("test_nc_diskfull");
}
