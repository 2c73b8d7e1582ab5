/* The minv command: dense inversion and many-right-hand-side solves on NetCDF files.
 *   minv invert IN.nc:VAR OUT.nc[:VAR]
 *   minv solve A.nc:VAR B.nc:VAR X.nc[:VAR]
 *   minv info IN.nc:VAR
 *   minv generate KIND N OUT.nc[:VAR]
 * The report goes to stdout; errors are one line on stderr and a non-zero exit status. Under
 * mpirun with several ranks, invert and solve run as minv-mpi (mpi_handoff.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int distributed; /* under mpirun with several ranks, minv-mpi's job */
} commands[] = {
    {"invert", cli_invert, "invert a matrix variable (or every matrix of a batch) into a file", 1},
    {"solve", cli_solve, "solve A X = B for many right-hand sides into a file", 1},
    {"info", cli_info, "analyse a matrix variable: symmetry, dominance, bandwidth, norms, condition", 0},
    {"generate", cli_generate, "write a test matrix: soar, gaussian, kms, spd, general, tridiagonal", 0},
};

static void usage(void) {
    printf("usage: minv COMMAND [ARGS] [options]\n\ncommands:\n");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        printf("  %-10s %s\n", commands[k].name, commands[k].summary);
    printf("\n`minv COMMAND --help` describes each; `minv --version` prints the version.\n"
           "Exit status: 0 on success, 1 when the job fails, 2 for a wrong command line.\n");
}

int main(int argc, char **argv) {
    if (argc < 2)
        return cli_error(CLI_USAGE, "no command given: expected invert, solve, info or generate (see minv --help)");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)
        return usage(), CLI_OK;
    if (strcmp(argv[1], "--version") == 0) {
        if (argc > 2)
            return cli_error(CLI_USAGE, "--version takes no arguments, got '%s'", argv[2]);
        printf("minv %s (CUDA: %s, NetCDF: %s)\n", minv_version(), MINV_HAVE_CUDA ? "yes" : "no",
               MINV_HAVE_NETCDF ? "yes" : "no");
        return CLI_OK;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[1], commands[k].name) == 0) {
            const int code = commands[k].distributed ? cli_mpi_handoff(argv) : -1;
            return code >= 0 ? code : commands[k].run(argc - 2, argv + 2);
        }
    return cli_error(CLI_USAGE, "unknown command '%s': expected invert, solve, info or generate (see minv --help)", argv[1]);
}
