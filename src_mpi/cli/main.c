/* minv-mpi: the minv command's invert and solve over the ranks of an MPI job.
 *   mpirun -np P minv-mpi invert IN.nc:VAR OUT.nc[:VAR] [options]
 *   mpirun -np P minv-mpi solve A.nc:VAR B.nc:VAR X.nc[:VAR] [options]
 * The options, arguments and report are the minv command's (its option parsing and output are
 * compiled in), plus --block; each rank gets its own GPU (node rank % GPUs) unless --devices
 * names one. Rank 0 prints; every rank exits with the same status. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "minv_mpi.h"
#include "nc_mpi.h"

static const cli_command commands[] = {
    {"invert", "IN.nc:VAR OUT.nc[:VAR] [options]   (under mpirun -np P minv-mpi)",
     "Inverts the matrix VAR of IN.nc over the ranks and writes it to OUT.nc as VAR (default <VAR>_inv).",
     "As minv invert: VAR(row, column) in ncdump's order (--fortran-order: reversed), --slice picks a\n"
     "matrix of a higher-rank VAR, a rank-3 VAR of square matrices is a batch, groups by path, the\n"
     "output written under a temporary name and renamed when complete, an existing one replaced only\n"
     "with -O, its format the input's unless --format. One matrix is dealt over the ranks in blocks\n"
     "of --block (ScaLAPACK; cuSOLVERMp where every rank has a GPU); a batch in ranges of whole\n"
     "matrices. Classic, 64-bit offset and CDF-5 files are read and written collectively (PnetCDF),\n"
     "netCDF-4 files read by every rank and written through rank 0.",
     CLI_MPI_INVERT},
    {"solve", "A.nc:VAR B.nc:VAR X.nc[:VAR] [options]   (under mpirun -np P minv-mpi)",
     "Solves A X = B over the ranks and writes X to X.nc as VAR (default X).",
     "As minv solve: B has one dimension of length n and one of the right-hand sides, in either\n"
     "order, or is 1-D; X gets B's dimensions, layout and (unless --format) format. A and B are\n"
     "dealt over the ranks in blocks of --block (ScaLAPACK; cuSOLVERMp where every rank has a GPU).",
     CLI_MPI_SOLVE},
};

static int run(const cli_command *cmd, int argc, char **argv, int rank) {
    cli_args args;
    cli_settings s;
    cli_path_var p[3] = {{0}};
    minv_context *ctx = NULL;
    minv_report report;
    const int solve = cmd == &commands[1], npos = solve ? 3 : 2;
    int code = cli_parse(cmd, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(cmd);
        return CLI_OK;
    }
    if (args.npos != npos)
        return cli_error(CLI_USAGE, "%s: expected %s, got %d argument%s (see minv-mpi %s --help)", cmd->name,
                         solve ? "A.nc:VAR B.nc:VAR X.nc[:VAR]" : "IN.nc:VAR OUT.nc[:VAR]", args.npos,
                         args.npos == 1 ? "" : "s", cmd->name);
    if ((code = cli_settings_from(&args, &s)) != CLI_OK)
        return code;
    if (s.solve_precision >= 0)
        return cli_error(CLI_USAGE, "%s: --precision mixed is the serial minv's; over the ranks, double or single", cmd->name);
    const char *v = cli_value(&args, "block");
    int64_t block = 0;
    if (v && !cli_parse_int(v, 1, 1 << 20, &block))
        return cli_error(CLI_USAGE, "--block %s: expected a block edge of 1 or more", v);
    for (int k = 0; k < npos && code == CLI_OK; k++)
        code = cli_split(args.pos[k], k == npos - 1 ? (solve ? "X" : "output") : k == 0 ? (solve ? "A" : "input") : "B",
                         k < npos - 1, &p[k]);
    if (code != CLI_OK)
        goto cleanup;
    /* rank 0 opens the inputs first in a child process (cli/probe.c: NetCDF-C or HDF5 crashing,
     * hanging or exhausting memory on a corrupt file ends the command with one line); the ranks
     * stop together */
    for (int k = 0; rank == 0 && k < npos - 1 && code == CLI_OK; k++)
        code = cli_probe_input(p[k].path, p[k].var, &s.fopts, solve && k == 1);
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (code != CLI_OK)
        goto cleanup;
    /* one GPU a rank, unless the command line names the devices */
    minv_options mine;
    minv_mpi_options_default(MPI_COMM_WORLD, &mine);
    if (!cli_value(&args, "devices")) {
        s.opts.device = mine.device;
        s.opts.ndevices = mine.ndevices;
    }
    s.quiet |= rank != 0;
    code = cli_context(&s, &ctx);
    int worst = code; /* a context one rank cannot make stops them all */
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != CLI_OK) {
        code = code != CLI_OK ? code : cli_error(worst, "another rank could not create its context");
        goto cleanup;
    }
    minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)block);
    cli_guard_outputs(minv_mpi_nc_remove_temporaries);
    minv_status st = solve ? minv_mpi_solve_file(ctx, MPI_COMM_WORLD, s.method, p[0].path, p[0].var, p[1].path, p[1].var,
                                                 p[2].path, p[2].var, &s.fopts, &report)
                           : minv_mpi_invert_file(ctx, MPI_COMM_WORLD, s.method, p[0].path, p[0].var, p[1].path,
                                                  p[1].var, &s.fopts, &report);
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = cli_fail(ctx, st);
        goto cleanup;
    }
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char title[3072];
    if (solve)
        snprintf(title, sizeof title, "minv-mpi solve (%d rank%s): A = '%s':%s, B = '%s':%s -> '%s':%s", size,
                 size == 1 ? "" : "s", p[0].path, p[0].var, p[1].path, p[1].var, p[2].path, p[2].var ? p[2].var : "X");
    else
        snprintf(title, sizeof title, "minv-mpi invert (%d rank%s): '%s':%s -> '%s':%s%s", size, size == 1 ? "" : "s",
                 p[0].path, p[0].var, p[1].path, p[1].var ? p[1].var : p[0].var, p[1].var ? "" : "_inv");
    cli_print_report(title, &report, s.fopts.precision);
cleanup:
    minv_destroy(ctx);
    for (int k = 0; k < 3; k++) cli_path_var_free(&p[k]);
    return code;
}

int main(int argc, char **argv) {
    int rank, code = CLI_USAGE;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* every rank reaches the same outcome; rank 0 says it */
    if (rank != 0 && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
        return MPI_Finalize(), CLI_FAILED;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("usage: mpirun -np P minv-mpi COMMAND [ARGS] [options]\n\ncommands:\n"
               "  invert     invert a matrix variable (or every matrix of a batch) over the ranks\n"
               "  solve      solve A X = B over the ranks\n\n"
               "`minv-mpi COMMAND --help` describes each. Exit status: 0 on success, 1 when the job fails,\n"
               "2 for a wrong command line; the same on every rank.\n");
        code = argc < 2 ? CLI_USAGE : CLI_OK;
    } else if (strcmp(argv[1], "--version") == 0) {
        printf("minv-mpi %s (CUDA: %s, cuSOLVERMp: %s, NetCDF: %s, PnetCDF: %s)\n", minv_version(),
               MINV_HAVE_CUDA ? "yes" : "no", MINV_MPI_HAVE_CUSOLVERMP ? "yes" : "no", MINV_HAVE_NETCDF ? "yes" : "no",
               MINV_MPI_HAVE_PNETCDF ? "yes" : "no");
        code = CLI_OK;
    } else {
        size_t k = 0;
        while (k < 2 && strcmp(argv[1], commands[k].name) != 0) k++;
        code = k < 2 ? run(&commands[k], argc - 2, argv + 2, rank)
                     : cli_error(CLI_USAGE, "unknown command '%s': expected invert or solve (see minv-mpi --help)", argv[1]);
    }
    MPI_Finalize();
    return code;
}
