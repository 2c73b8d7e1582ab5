/* The output file's life: what may be written where, the temporary file it is written to,
 * and the rename that puts it in place, or its removal.
 *
 * Where: the output must be a local path in an existing, writable directory, never one of the
 * call's inputs, and, when something is there already, a regular file (a FIFO, device,
 * socket or directory is refused, and so is a symbolic link, which the rename would
 * replace). An existing file is replaced only when the caller asked (overwrite); a netCDF file
 * that lacks the variable gains it without being asked, since nothing in it is lost.
 *
 * The temporary file is created O_CREAT | O_EXCL | O_NOFOLLOW under an unpredictable name in
 * the target's directory: <name>.tmp.<pid>.<host>.<random>, with <name> shortened so that the
 * whole stays within NAME_MAX. netCDF-C and HDF5 create files by name (open with O_CREAT |
 * O_TRUNC, neither O_EXCL nor O_NOFOLLOW), so a symbolic link planted under the temporary name
 * between our creation and theirs would have them truncate whatever it points to. They are
 * given "/proc/self/fd/N" instead, a name of the very file this process created and holds
 * open: whatever happens to the directory entry meanwhile, the library opens that file and no
 * other, and its NC_CLOBBER truncates only our empty file. Where /proc is missing, the
 * temporary name is given after checking that it still names our file.
 *
 * The space the output needs is reserved (fallocate, beyond the end of the file) before the
 * data are written: a full disk is reported then, in a few words, instead of in the middle of
 * HDF5's metadata flush, after which HDF5 1.10 cannot close the file at all ("slist already
 * enabled?") and crashes at exit. What is not used is released on commit.
 *
 * Temporaries of processes that died (same host, by pid) are removed by the next run that
 * writes the same output; the minv command removes its own when interrupted. A failed
 * temporary's space is released (truncated through our descriptor) even if a library still
 * holds it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "ncio.h"

/* ---- temporaries in flight, for a signal handler ---- */

/* A handful of outputs are written at once at most (one per call, under the NetCDF lock);
 * the minv command's handler removes them when interrupted. Slots are filled under the lock
 * and read by minv_nc_remove_temporaries, which only calls unlink. */
enum { IN_FLIGHT = 8 };
static char in_flight[IN_FLIGHT][PATH_MAX];
static volatile sig_atomic_t in_flight_used[IN_FLIGHT];

static void track(const char *tmp) {
    for (int k = 0; k < IN_FLIGHT; k++)
        if (!in_flight_used[k]) {
            snprintf(in_flight[k], sizeof in_flight[k], "%s", tmp);
            in_flight_used[k] = 1;
            return;
        }
}

static void untrack(const char *tmp) {
    for (int k = 0; k < IN_FLIGHT; k++)
        if (in_flight_used[k] && strcmp(in_flight[k], tmp) == 0)
            in_flight_used[k] = 0;
}

void minv_nc_remove_temporaries(void) {
    for (int k = 0; k < IN_FLIGHT; k++)
        if (in_flight_used[k])
            unlink(in_flight[k]);
}

/* ---- names ---- */

/* The directory of `path` ("." for a bare name) and its last component. */
static void split_path(const char *path, char *dir, size_t dlen, const char **base) {
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    if (!slash)
        snprintf(dir, dlen, ".");
    else
        snprintf(dir, dlen, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* This host, as 8 hex digits (FNV-1a of its name): a pid means something only on its host. */
static unsigned host_id(void) {
    char name[256] = "";
    unsigned h = 2166136261u;
    gethostname(name, sizeof name - 1);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

enum { SUFFIX_MAX = 5 + 20 + 1 + 8 + 1 + 6 }; /* ".tmp." pid "." host "." random */

/* How much of the output's name starts its temporaries' names. */
static int prefix_length(const char *base) {
    const int room = NAME_MAX - SUFFIX_MAX, len = (int)strlen(base);
    return len < room ? len : room;
}

/* ---- what may be written where ---- */

static minv_status check_directory(minv_context *ctx, const char *path) {
    char dir[PATH_MAX];
    const char *base;
    struct stat st;
    split_path(path, dir, sizeof dir, &base);
    if (!base[0])
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' names a directory, not a file", path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return minv_fail(ctx, MINV_ERR_NOT_FOUND, "cannot write '%s': the directory '%s' does not exist", path, dir);
    if (access(dir, W_OK) != 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': the directory '%s' is not writable", path, dir);
    return MINV_SUCCESS;
}

/* An existing netCDF file: *holds_var when `var` is in its root group, *only_var when nothing
 * else is (an earlier run's output); 0 when it is no readable netCDF file. */
static int inspect_netcdf(minv_context *ctx, const char *path, const char *var, int *format, int *holds_var,
                          int *only_var) {
    int ncid, nvars = 0, ngroups = 0, varid;
    minv_status status = minv_nc_classic_check(ctx, path, NULL);
    minv_clear_error(ctx);
    if (status != MINV_SUCCESS || nc_open(path, NC_NOWRITE, &ncid) != NC_NOERR)
        return 0;
    int ok = nc_inq_nvars(ncid, &nvars) == NC_NOERR && nc_inq_format(ncid, format) == NC_NOERR;
    *holds_var = ok && nc_inq_varid(ncid, var, &varid) == NC_NOERR;
    *only_var = *holds_var && nvars == 1 && !(nc_inq_grps(ncid, &ngroups, NULL) == NC_NOERR && ngroups > 0);
    nc_close(ncid);
    return ok;
}

minv_status minv_nc_output_plan(minv_context *ctx, minv_nc_output *o, const char *path, const char *var,
                                int overwrite, const char *const *inputs, int ninputs) {
    struct stat st;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->path = path;
    if (minv_nc_is_url(path))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' is a URL: minv writes its outputs to local files only", path);
    for (int i = 0; i < ninputs; i++)
        if (minv_nc_same_file(path, inputs[i]))
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "the output '%s' is the input file '%s'; minv never modifies its input: choose another output file",
                             path, inputs[i]);
    minv_status status = check_directory(ctx, path);
    if (status != MINV_SUCCESS)
        return status;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT)
            return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
        o->plan = MINV_NC_OUT_NEW;
        return MINV_SUCCESS;
    }
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX] = "?";
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 1] = '\0';
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' is a symbolic link (to '%s'): minv writes a temporary file and renames it into place, which would replace the link, so give the path of the file it points to",
                         path, target);
    }
    if (!S_ISREG(st.st_mode))
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' is %s, not a regular file: minv never writes to or replaces one", path,
                         minv_nc_file_kind(st.st_mode));
    o->mode = st.st_mode & 0777;
    o->keep_mode = 1;
    int holds_var = 0, only_var = 0;
    if (!inspect_netcdf(ctx, path, var, &o->format, &holds_var, &only_var)) {
        if (!overwrite)
            return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' exists and is not a netCDF file: minv replaces an existing file only when asked (overwrite; -O or --overwrite on the command line)",
                             path);
        o->plan = MINV_NC_OUT_REPLACE;
        return MINV_SUCCESS;
    }
    if (holds_var && !overwrite)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "output '%s' already holds a variable '%s': minv replaces it only when asked (overwrite; -O or --overwrite on the command line), or give another variable name",
                         path, var);
    o->plan = only_var ? MINV_NC_OUT_REPLACE : MINV_NC_OUT_ADD;
    return MINV_SUCCESS;
}

/* ---- the temporary file ---- */

/* Removes `dir`'s temporaries of `base` left by processes of this host that are gone. */
static int remove_stale(const char *dir, const char *base, unsigned host) {
    const int plen = prefix_length(base);
    DIR *d = opendir(dir);
    int removed = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        long pid;
        unsigned their_host;
        char rnd[8], path[PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, base, (size_t)plen) != 0 ||
            sscanf(e->d_name + plen, ".tmp.%ld.%8x.%7s", &pid, &their_host, rnd) != 3 || strlen(rnd) != 6 ||
            their_host != host || pid <= 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to ask about */
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && unlink(path) == 0)
            removed++;
    }
    if (d)
        closedir(d);
    return removed;
}

static int still_ours(const minv_nc_output *o) {
    struct stat st;
    return lstat(o->tmp, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

static void random_letters(char *out, int n) {
    static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char bytes[16];
    if (getrandom(bytes, (size_t)n, GRND_NONBLOCK) != n) { /* no entropy yet: unlikely, still unique by O_EXCL */
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        for (int k = 0; k < n; k++)
            bytes[k] = (unsigned char)((unsigned long)t.tv_nsec >> (3 * k) ^ (unsigned long)getpid() >> k);
    }
    for (int k = 0; k < n; k++)
        out[k] = set[bytes[k] % (sizeof set - 1)];
    out[n] = '\0';
}

static minv_status copy_into(minv_context *ctx, const char *from, int out) {
    minv_status status = MINV_SUCCESS;
    char *buf = malloc(1 << 20);
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (!buf || in < 0 || fstat(in, &st) != 0) {
        status = minv_fail(ctx, MINV_ERR_IO, "cannot read '%s' to add a variable to it: %s", from, strerror(errno));
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) { /* it changed since it was looked at */
        status = minv_fail(ctx, MINV_ERR_IO, "'%s' is no longer a regular file", from);
        goto cleanup;
    }
    for (;;) {
        ssize_t got = read(in, buf, 1 << 20);
        if (got == 0)
            break;
        if (got < 0 || write(out, buf, (size_t)got) != got) {
            status = minv_fail(ctx, MINV_ERR_IO, "cannot copy '%s' to add a variable to it: %s", from, strerror(errno));
            goto cleanup;
        }
    }
cleanup:
    free(buf);
    if (in >= 0)
        close(in);
    return status;
}

minv_status minv_nc_output_create(minv_context *ctx, minv_nc_output *o) {
    char dir[PATH_MAX], rnd[8];
    const char *base;
    struct stat st;
    const unsigned host = host_id();
    split_path(o->path, dir, sizeof dir, &base);
    o->stale_removed = remove_stale(dir, base, host);
    const size_t len = strlen(o->path) + SUFFIX_MAX + 1;
    o->tmp = malloc(len);
    if (!o->tmp)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a file name");
    for (int attempt = 0; attempt < 32 && o->fd < 0; attempt++) {
        random_letters(rnd, 6);
        snprintf(o->tmp, len, "%.*s%.*s.tmp.%ld.%08x.%s", (int)(base - o->path), o->path, prefix_length(base), base,
                 (long)getpid(), host, rnd);
        o->fd = open(o->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (o->fd < 0 && errno != EEXIST)
            break;
    }
    if (o->fd < 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot create a temporary file beside '%s': %s", o->path, strerror(errno));
    track(o->tmp);
    if (fstat(o->fd, &st) != 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot create '%s': %s", o->tmp, strerror(errno));
    o->dev = st.st_dev;
    o->ino = st.st_ino;
    if (o->keep_mode) /* a replaced or extended file keeps its permissions */
        fchmod(o->fd, o->mode);
    if (o->plan == MINV_NC_OUT_ADD) {
        minv_status status = copy_into(ctx, o->path, o->fd);
        if (status != MINV_SUCCESS)
            return status;
    }
    struct stat via;
    snprintf(o->proc_path, sizeof o->proc_path, "/proc/self/fd/%d", o->fd);
    o->open_path = o->proc_path;
    if (stat(o->proc_path, &via) != 0 || via.st_dev != o->dev || via.st_ino != o->ino) {
        if (!still_ours(o))
            return minv_fail(ctx, MINV_ERR_IO, "the temporary file '%s' was replaced as it was created", o->tmp);
        o->open_path = o->tmp;
    }
    return MINV_SUCCESS;
}

minv_status minv_nc_output_reserve(minv_context *ctx, minv_nc_output *o, size_t bytes) {
    struct stat st;
    struct rlimit limit;
    if (fstat(o->fd, &st) != 0 || bytes > (size_t)LLONG_MAX - (size_t)st.st_size)
        return MINV_SUCCESS;
    /* a file size limit (ulimit -f) that fallocate does not check, and writes past which
     * fail inside HDF5 */
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        (rlim_t)st.st_size + bytes > limit.rlim_cur)
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s (it needs about %.3g MB, and the file size limit, ulimit -f, is %.3g MB)",
                         o->path, strerror(EFBIG), (double)bytes / 1e6, (double)limit.rlim_cur / 1e6);
    /* beyond the end, without changing the size the library sees */
    if (fallocate(o->fd, FALLOC_FL_KEEP_SIZE, st.st_size, (off_t)bytes) == 0)
        return MINV_SUCCESS;
    const int why = errno;
    struct statvfs fs;
    if (why == EFBIG) /* RLIMIT_FSIZE, or the file system's largest file */
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s (it needs about %.3g MB)", o->path, strerror(why),
                         (double)bytes / 1e6);
    if (why != ENOSPC && why != EDQUOT)
        return MINV_SUCCESS; /* a file system that cannot reserve: the writes will tell */
    double free_mb = fstatvfs(o->fd, &fs) == 0 ? (double)fs.f_bavail * (double)fs.f_frsize / 1e6 : 0;
    return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s (it needs about %.3g MB, the file system has %.3g MB free)",
                     o->path, strerror(why), (double)bytes / 1e6, free_mb);
}

/* ---- the end: in place, or gone ---- */

minv_status minv_nc_output_commit(minv_context *ctx, minv_nc_output *o) {
    struct stat info;
    if (fstat(o->fd, &info) == 0 && ftruncate(o->fd, info.st_size) != 0) /* what was reserved and not used */
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
    /* on disk before it takes the name, so that a crash leaves the old file or the new one */
    if (fsync(o->fd) != 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
    if (!still_ours(o))
        return minv_fail(ctx, MINV_ERR_IO, "the temporary file '%s' of '%s' was replaced or removed while minv wrote it", o->tmp,
                         o->path);
    int st = -1;
    if (o->plan == MINV_NC_OUT_NEW) { /* a file that appeared meanwhile is not replaced unasked */
        st = renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE);
        if (st != 0 && errno == EEXIST)
            return minv_fail(ctx, MINV_ERR_IO, "'%s' appeared while minv was writing it: minv replaces an existing file only when asked (overwrite; -O or --overwrite)",
                             o->path);
        if (st != 0 && (errno == EINVAL || errno == ENOSYS)) { /* a file system without it */
            struct stat there;
            st = lstat(o->path, &there) == 0 ? (errno = EEXIST, -1) : rename(o->tmp, o->path);
        }
    } else {
        st = rename(o->tmp, o->path);
    }
    if (st != 0)
        return minv_fail(ctx, MINV_ERR_IO, "cannot put '%s' in place of '%s': %s", o->tmp, o->path, strerror(errno));
    char dir[PATH_MAX];
    const char *base;
    split_path(o->path, dir, sizeof dir, &base);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) { /* the new name durable too */
        fsync(dfd);
        close(dfd);
    }
    untrack(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    close(o->fd);
    o->fd = -1;
    return MINV_SUCCESS;
}

void minv_nc_output_release(minv_nc_output *o) {
    if (!o->tmp || o->fd < 0) /* never created (a zeroed struct), or committed */
        return;
    /* every other descriptor on the temporary (the library's) now writes to memory: what it
     * still flushes while closing cannot fail on a full disk and leave HDF5 half-closed */
    int sink = memfd_create("minv-discarded-output", MFD_CLOEXEC);
    DIR *d = sink >= 0 ? opendir("/proc/self/fd") : NULL;
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != o->fd && fd != dirfd(d) && fd != sink && fstat(fd, &st) == 0 &&
            st.st_dev == o->dev && st.st_ino == o->ino)
            dup3(sink, fd, O_CLOEXEC);
    }
    if (d)
        closedir(d);
    if (sink >= 0)
        close(sink);
}

void minv_nc_output_discard(minv_nc_output *o, int library_closed) {
    if (!o->tmp) /* never created (a zeroed struct), or committed */
        return;
    if (o->fd >= 0) {
        const int released = ftruncate(o->fd, 0); /* its space goes back now, whoever still holds it */
        (void)released;                           /* and if not, when the last holder closes it */
        if (still_ours(o))
            unlink(o->tmp);
        /* HDF5 that could not close the file believes it open, by inode: were the inode freed
         * and reused by a later output, HDF5 would refuse that one as "already open" (netCDF-C
         * says "Permission denied"). Our descriptor keeps the inode, empty, until exit. */
        if (library_closed)
            close(o->fd);
        o->fd = -1;
    }
    untrack(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
}
