/* Where outputs may go and how they get there:
 *   - the temporary file cannot be redirected: symbolic links planted under the names a
 *     temporary could have had (the old OUT.tmp.<pid>) leave their targets untouched;
 *   - a FIFO, a device, a directory or a symbolic link at the output is refused before it is
 *     opened (no hang on a FIFO), and never replaced; a FIFO as input is refused too;
 *   - an existing file is replaced, or a variable it holds overwritten, only with overwrite;
 *     a netCDF file that lacks the variable gains it; a replaced file keeps its permissions;
 *   - names of 246 to 255 characters work (the temporary's name is shortened);
 *   - temporaries left by a process that died (same host) are removed by the next run and
 *     reported, those of a live process are not;
 *   - the format of a new output follows the input's unless the result is too large for it
 *     (the command's tests check the formats written);
 *   - units invert and divide as UDUNITS writes them (the command's tests
 *     check what the outputs carry over). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ncio.h"
#include "nctest.h"

static const nct_storage nc4 = {.cmode = NC_CLOBBER | NC_NETCDF4, .chunks = NULL, .deflate = 0};
static const char *const ij[2] = {"i", "j"};
enum { N = 5 };

static minv_file_options fo_keep, fo_replace;

static void write_input(void) {
    const size_t lens[2] = {N, N};
    double a[N * N];
    for (int i = 0; i < N * N; i++)
        a[i] = i % (N + 1) == 0 ? 4 : 1.0 / (2 + i);
    nct_write("out_in.nc", 0, &nc4, "A", NC_DOUBLE, 2, ij, lens, 0, a);
}

static minv_status invert_to(minv_context *ctx, const char *out, const char *var, const minv_file_options *fo) {
    minv_report rep;
    return minv_invert_file(ctx, MINV_METHOD_AUTO, "out_in.nc", "A", out, var, fo, &rep);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static int holds_text(const char *path, const char *text) {
    nct_snapshot s = nct_snap(path);
    int same = s.size == (long)strlen(text) && memcmp(s.bytes, text, strlen(text)) == 0;
    nct_snap_free(&s);
    return same;
}

/* Symbolic links where the old code put its temporary (OUT.tmp.<pid>) and at the output's
 * own name + ".tmp": whatever they point to stays as it was. */
static void planted_links(minv_context *ctx) {
    char planted[64];
    write_text("out_victim.txt", "precious\n");
    snprintf(planted, sizeof planted, "out_new.nc.tmp.%ld", (long)getpid());
    unlink("out_new.nc");
    unlink(planted);
    CHECK(symlink("out_victim.txt", planted) == 0, "symlink: %s", strerror(errno));
    CHECK_STATUS(invert_to(ctx, "out_new.nc", NULL, &fo_keep), MINV_SUCCESS, ctx);
    CHECK(holds_text("out_victim.txt", "precious\n"), "a link at the old temporary name was followed");
    struct stat st;
    CHECK(lstat(planted, &st) == 0 && S_ISLNK(st.st_mode), "the planted link was removed or replaced");
    unlink(planted);
}

/* Not regular files: refused before any open (a FIFO would block nc_open), and left alone. */
static void special_files(minv_context *ctx) {
    unlink("out_fifo.nc");
    CHECK(mkfifo("out_fifo.nc", 0600) == 0, "mkfifo: %s", strerror(errno));
    alarm(60); /* a hang fails the test instead of stalling it */
    CHECK_STATUS(invert_to(ctx, "out_fifo.nc", NULL, &fo_replace), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'out_fifo.nc' is a FIFO (named pipe), not a regular file: minv never writes to or replaces one");
    minv_report rep;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "out_fifo.nc", "A", "out_x.nc", NULL, &fo_replace, &rep),
                 MINV_ERR_IO, ctx);
    HAS(minv_last_error(ctx), "'out_fifo.nc' is a FIFO (named pipe), not a regular file, so variable 'A' cannot be read");
    alarm(0);
    struct stat st;
    CHECK(lstat("out_fifo.nc", &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");

    CHECK_STATUS(invert_to(ctx, "/dev/null", NULL, &fo_replace), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output '/dev/null' is a character device, not a regular file");
    CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is no longer a device");

    mkdir("out_dir.nc", 0700);
    CHECK_STATUS(invert_to(ctx, "out_dir.nc", NULL, &fo_replace), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'out_dir.nc' is a directory");

    write_text("out_target.nc", "text\n");
    unlink("out_link.nc");
    CHECK(symlink("out_target.nc", "out_link.nc") == 0, "symlink: %s", strerror(errno));
    CHECK_STATUS(invert_to(ctx, "out_link.nc", NULL, &fo_replace), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'out_link.nc' is a symbolic link (to 'out_target.nc')");
    CHECK(holds_text("out_target.nc", "text\n") && lstat("out_link.nc", &st) == 0 && S_ISLNK(st.st_mode),
          "the link or its target changed");
}

/* Replaced only when asked; added to without being asked. */
static void existing_files(minv_context *ctx) {
    write_text("out_text.nc", "hello\n");
    chmod("out_text.nc", 0640);
    CHECK_STATUS(invert_to(ctx, "out_text.nc", NULL, &fo_keep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'out_text.nc' exists and is not a netCDF file: minv replaces an existing file only when asked");
    CHECK(holds_text("out_text.nc", "hello\n") && !nct_tmp_left("out_text.nc"), "out_text.nc was touched");
    CHECK_STATUS(invert_to(ctx, "out_text.nc", NULL, &fo_replace), MINV_SUCCESS, ctx);
    struct stat st;
    CHECK(stat("out_text.nc", &st) == 0 && (st.st_mode & 0777) == 0640, "the replaced file's mode is %o, not 640",
          (unsigned)(st.st_mode & 0777));
    size_t count;
    double *x = nct_read("out_text.nc", "A_inv", &count);
    CHECK(count == N * N, "out_text.nc holds A_inv after -O");
    free(x);

    /* it holds A_inv now: not again without overwrite, but another variable is added */
    nct_snapshot before = nct_snap("out_text.nc");
    CHECK_STATUS(invert_to(ctx, "out_text.nc", NULL, &fo_keep), MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "output 'out_text.nc' already holds a variable 'A_inv': minv replaces it only when asked");
    CHECK(nct_same(&before, "out_text.nc"), "a refused call changed the file");
    nct_snap_free(&before);
    CHECK_STATUS(invert_to(ctx, "out_text.nc", "B", &fo_keep), MINV_SUCCESS, ctx);
    x = nct_read("out_text.nc", "A_inv", &count);
    free(x);
    x = nct_read("out_text.nc", "B", &count);
    CHECK(count == N * N, "B added beside A_inv");
    free(x);
    CHECK_STATUS(invert_to(ctx, "out_text.nc", "B", &fo_keep), MINV_ERR_INVALID_ARG, ctx);
    CHECK_STATUS(invert_to(ctx, "out_text.nc", "B", &fo_replace), MINV_SUCCESS, ctx);
}

/* A name of `len` characters in the current directory. */
static void long_name(minv_context *ctx, int len) {
    char name[300];
    memset(name, 'n', (size_t)len);
    memcpy(name + len - 3, ".nc", 4);
    unlink(name);
    CHECK_STATUS(invert_to(ctx, name, NULL, &fo_keep), MINV_SUCCESS, ctx);
    CHECK(nct_exists(name), "a name of %d characters was not written", len);
    unlink(name);
}

/* A child that makes a temporary for out_stale.nc and dies, or waits until told. */
static pid_t leave_temporary(int stay, int *release) {
    int ready[2], go[2];
    CHECK(pipe(ready) == 0 && pipe(go) == 0, "pipe");
    pid_t pid = fork();
    if (pid == 0) {
        minv_context *ctx = nct_context();
        minv_nc_output o;
        char c = 0;
        minv_nc_lock();
        if (minv_nc_output_plan(ctx, &o, "out_stale.nc", "A_inv", 1, NULL, 0) != MINV_SUCCESS ||
            minv_nc_output_create(ctx, &o) != MINV_SUCCESS)
            _exit(3);
        if (write(ready[1], &c, 1) != 1 || (stay && read(go[0], &c, 1) != 1))
            _exit(4);
        _exit(0); /* as a killed process: the temporary stays */
    }
    char c;
    CHECK(read(ready[0], &c, 1) == 1, "the child made no temporary");
    close(ready[0]);
    close(ready[1]);
    close(go[0]);
    *release = go[1];
    if (!stay) {
        int status;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child failed: %d", status);
    }
    return pid;
}

static void stale_temporaries(minv_context *ctx) {
    int release;
    minv_report rep;
    unlink("out_stale.nc");
    leave_temporary(0, &release);
    close(release);
    CHECK(nct_tmp_left("out_stale.nc"), "the dead child's temporary is not there");
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "out_in.nc", "A", "out_stale.nc", NULL, &fo_replace, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(!nct_tmp_left("out_stale.nc"), "the temporary of a dead process was left");
    HAS(rep.reason, "removed 1 temporary file of 'out_stale.nc' left by minv runs that died");

    pid_t alive = leave_temporary(1, &release);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "out_in.nc", "A", "out_stale.nc", NULL, &fo_replace, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(nct_tmp_left("out_stale.nc"), "the temporary of a live process was removed");
    CHECK(strstr(rep.reason, "removed") == NULL, "a live process's temporary reported removed: %s", rep.reason);
    char c = 0;
    CHECK(write(release, &c, 1) == 1, "release the child");
    close(release);
    waitpid(alive, NULL, 0);
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "out_in.nc", "A", "out_stale.nc", NULL, &fo_replace, &rep),
                 MINV_SUCCESS, ctx);
    CHECK(!nct_tmp_left("out_stale.nc"), "the temporary was left once its process ended");
}

/* The format chooser on sizes no test file can have: a classic input whose result is too large
 * for classic goes to 64-bit offset, then CDF-5, and says so; a format asked for that cannot
 * hold it, or cannot deflate, is refused. */
static void formats(minv_context *ctx) {
    int format;
    char why[256];
    const size_t gb3 = (size_t)3 << 30, gb5 = (size_t)5 << 30;
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_AUTO, 0, NC_FORMAT_CLASSIC, 1000, &format, why, sizeof why),
                 MINV_SUCCESS, ctx);
    CHECK(format == NC_FORMAT_CLASSIC && !why[0], "a small classic result: format %d, '%s'", format, why);
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_AUTO, 0, NC_FORMAT_CLASSIC, gb3, &format, why, sizeof why),
                 MINV_SUCCESS, ctx);
    CHECK(format == NC_FORMAT_64BIT_OFFSET, "3 GiB from classic: format %d", format);
    HAS(why, "the output is netCDF-3 64-bit offset, not netCDF-3 classic as the input: its variable takes 3.221 GB");
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_AUTO, 0, NC_FORMAT_CLASSIC, gb5, &format, why, sizeof why),
                 MINV_SUCCESS, ctx);
    CHECK(format == NC_FORMAT_64BIT_DATA, "5 GiB from classic: format %d", format);
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_AUTO, 0, NC_FORMAT_NETCDF4_CLASSIC, gb5, &format, why, sizeof why),
                 MINV_SUCCESS, ctx);
    CHECK(format == NC_FORMAT_NETCDF4_CLASSIC && !why[0], "netCDF-4 classic model follows: %d", format);
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_AUTO, 5, NC_FORMAT_64BIT_DATA, 1000, &format, why, sizeof why),
                 MINV_SUCCESS, ctx);
    CHECK(format == NC_FORMAT_NETCDF4, "deflate asks for netCDF-4: %d", format);
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_CLASSIC, 0, NC_FORMAT_NETCDF4, gb3, &format, why, sizeof why),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "more than the netCDF-3 classic format holds");
    CHECK_STATUS(minv_nc_choose_format(ctx, MINV_FORMAT_CDF5, 1, NC_FORMAT_NETCDF4, 1000, &format, why, sizeof why),
                 MINV_ERR_INVALID_ARG, ctx);
    HAS(minv_last_error(ctx), "deflate level 1 asks for a netCDF-4 output, and the format asked for is CDF-5");
}

/* Units as UDUNITS writes them: inverted and divided where they are products of powers. */
static void units(void) {
    static const struct { const char *num, *den, *want; } cases[] = {
        {NULL, "K2", "K-2"},         {NULL, "m2 s-2", "m-2 s2"},   {NULL, "m^2.s^-2", "m-2 s2"},
        {NULL, "kg m**-3", "kg-1 m3"}, {NULL, "m/s", "m-1 s"},     {NULL, "1", "1"},
        {"m s-1", "K2", "m s-1 K-2"}, {"K", "K2", "K-1"},          {"m2", "m2", "1"},
        {NULL, "degrees_north", "degrees_north-1"}, {NULL, "%", "%-1"}};
    static const char *const unreadable[] = {"days since 2000-01-01", "10 m", "log(Pa)", "m/s/s", "", "K2 ("};
    char out[128];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK(minv_nc_units_ratio(cases[k].num, cases[k].den, out, sizeof out) && strcmp(out, cases[k].want) == 0,
              "'%s' / '%s' gave '%s', expected '%s'", cases[k].num ? cases[k].num : "1", cases[k].den, out, cases[k].want);
    }
    for (size_t k = 0; k < sizeof unreadable / sizeof unreadable[0]; k++)
        CHECK(!minv_nc_units_ratio(NULL, unreadable[k], out, sizeof out), "'%s' read as units '%s'", unreadable[k], out);
}

int main(void) {
    minv_context *ctx = nct_context();
    minv_file_options_default(&fo_keep);
    nct_options(&fo_replace);
    write_input();
    planted_links(ctx);
    special_files(ctx);
    existing_files(ctx);
    for (int len = 246; len <= 255; len += 3)
        long_name(ctx, len);
    long_name(ctx, 255);
    stale_temporaries(ctx);
    formats(ctx);
    units();
    minv_destroy(ctx);
    return tu_finish("test_nc_outputs");
}
