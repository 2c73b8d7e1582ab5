/* A wall-clock and memory guard around opening the command's inputs, which may come from
 * anywhere. NetCDF-C and HDF5 offer neither, and a crafted file can crash them (a corrupt
 * HDF5 global heap), hang them or have them allocate gigabytes before they return an error.
 * So the reader's open (the header, the variable, its storage and attributes) runs first in
 * a child process, with its output discarded, under a time limit and (but under
 * AddressSanitizer, which reserves terabytes of address space) a limit on its address space.
 * When the child dies of a signal, runs out of time or of memory, the command stops with one
 * line saying so; otherwise the real call opens the file, and reports any other error itself.
 * Only the command does this: forking inside a user's (threaded, MPI, CUDA) program is not a
 * library's to do. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ncio.h"

/* The child's exit statuses; any other (a sanitizer's report, say) counts as a crash. */
enum { PROBE_SECONDS = 60, PROBE_DONE = 0, PROBE_OUT_OF_MEMORY = 3, PROBE_NO_CONTEXT = 4 };
static const rlim_t probe_bytes = (rlim_t)8 << 30; /* far above any sound header */

static void probe_child(const char *path, const char *var, const minv_file_options *fopts, int flags) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        dup2(null, 1);
        dup2(null, 2);
    }
#if !defined(__SANITIZE_ADDRESS__)
    struct rlimit mem = {probe_bytes, probe_bytes};
    setrlimit(RLIMIT_AS, &mem);
#endif
    alarm(PROBE_SECONDS);
    minv_options o;
    minv_context *ctx = NULL;
    minv_nc_source s;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    if (minv_create(&ctx, &o) != MINV_SUCCESS)
        _exit(PROBE_NO_CONTEXT);
    minv_status st = minv_nc_source_open(ctx, &s, path, var, fopts, flags);
    if (st == MINV_SUCCESS)
        minv_nc_source_close(&s);
    /* any other error is the real call's to report, with its full message */
    _exit(st == MINV_ERR_ALLOC || strstr(minv_last_error(ctx), "Memory allocation") ? PROBE_OUT_OF_MEMORY : PROBE_DONE);
}

int cli_probe_input(const char *path, const char *var, const minv_file_options *fopts, int vector) {
    if (minv_nc_is_url(path) || access(path, R_OK) != 0)
        return CLI_OK; /* the real call says what is wrong */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return CLI_OK; /* no guard: the real call goes on unguarded */
    if (pid == 0)
        probe_child(path, var, fopts, MINV_NC_ALLOW_BATCH | (vector ? MINV_NC_SLICE_IF_RANKED | MINV_NC_ALLOW_VECTOR : 0));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        return cli_error(CLI_FAILED, "'%s': opening it and variable '%s' took more than %d s (a corrupt file?); minv gave up",
                         path, var, PROBE_SECONDS);
    if (WIFEXITED(status) && WEXITSTATUS(status) == PROBE_OUT_OF_MEMORY)
        return cli_error(CLI_FAILED, "'%s': opening it for variable '%s' needs more than %.0f GB of memory (a corrupt header?); minv gave up",
                         path, var, (double)probe_bytes / (1 << 30));
    if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != PROBE_DONE &&
                                WEXITSTATUS(status) != PROBE_NO_CONTEXT))
        return cli_error(CLI_FAILED, "'%s': NetCDF-C or HDF5 crashed (%s) reading it for variable '%s': the file is corrupt",
                         path, WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "a sanitizer's report", var);
    return CLI_OK;
}
