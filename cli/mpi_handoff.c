/* `mpirun -np P minv invert ...` (or solve) is the distributed job: started as one of several
 * MPI ranks, minv hands its command line to minv-mpi, which lies beside it (the build tree puts
 * both in cli/, an install both in bin/) or on PATH. Without it the ranks stop with a clear
 * message instead of each running the whole job and writing the same output. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* What the launcher (Open MPI, MPICH and Intel MPI's Hydra, MVAPICH2) told this process: the
 * first of its variables `names` that is set, or `otherwise`. */
static long launcher_says(const char *const names[3], long otherwise) {
    for (int k = 0; k < 3; k++) {
        const char *v = getenv(names[k]);
        if (v)
            return atol(v);
    }
    return otherwise;
}

static long launched_ranks(void) {
    static const char *const sizes[3] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"};
    return launcher_says(sizes, 1);
}

static long launched_rank(void) {
    static const char *const ranks[3] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK"};
    return launcher_says(ranks, 0);
}

int cli_mpi_handoff(char **argv) {
    const long ranks = launched_ranks();
    if (ranks <= 1)
        return -1;
    char self[PATH_MAX], beside[PATH_MAX + 16];
    const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    argv[0] = "minv-mpi";
    if (len > 0) {
        self[len] = '\0';
        snprintf(beside, sizeof beside, "%s/minv-mpi", dirname(self));
        execv(beside, argv);
    }
    execvp("minv-mpi", argv); /* returns only where there is none */
    if (launched_rank() != 0) /* the job's one message comes from its first rank */
        return CLI_USAGE;
    return cli_error(CLI_USAGE,
                     "started as one of %ld MPI ranks: the distributed job is minv-mpi's, and there is none beside "
                     "this minv or on PATH (%s); build minv with its MPI layer (see the README), or run minv "
                     "without mpirun",
                     ranks, strerror(errno));
}
