/* The minv command: shared declarations of its subcommands (cmd_*.c), option parsing
 * (args.c) and output (output.c). */
#ifndef MINV_CLI_H
#define MINV_CLI_H

#include <stdint.h>

#include "minv.h"

/* Exit statuses: 0 success, 1 the job failed, 2 the command line is wrong. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* ---- options (args.c) ---- */

/* The subcommands, as bits: each option lists the ones that take it. minv-mpi's invert and
 * solve (src_mpi/cli) have bits of their own: they take most of minv's options, and --block. */
enum { CLI_INVERT = 1, CLI_SOLVE = 2, CLI_INFO = 4, CLI_GENERATE = 8, CLI_MPI_INVERT = 16, CLI_MPI_SOLVE = 32 };

typedef struct {
    const char *name;  /* without the leading "--" */
    const char *arg;   /* the value's placeholder in --help, NULL for a flag */
    const char *help;
    unsigned commands; /* CLI_INVERT | CLI_SOLVE | ...: the subcommands that take it */
} cli_option;

/* Every option of every subcommand, in the order --help lists them. A name may appear more
 * than once, for disjoint sets of subcommands, where its values or meaning differ. */
extern const cli_option cli_options[];

enum { CLI_MAX_ARGS = 64 };

typedef struct {
    const char *name, *usage, *summary, *details; /* for --help */
    unsigned id;                                  /* CLI_INVERT, ...: selects its options */
} cli_command;

typedef struct {
    const cli_option *opt[CLI_MAX_ARGS];
    const char *value[CLI_MAX_ARGS];
    int nopts;
    const char *pos[CLI_MAX_ARGS];
    int npos;
    int help;
} cli_args;

/* Splits argv into the command's options and positional arguments; prints the
 * error and returns CLI_USAGE on an unknown option or a missing value. */
int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out);
/* The value of option `name`, or NULL when not given (the last one wins). */
const char *cli_value(const cli_args *a, const char *name);
int cli_flag(const cli_args *a, const char *name);
void cli_help(const cli_command *cmd);

/* What the shared options set. */
typedef struct {
    minv_options opts;
    minv_file_options fopts;
    minv_method method;
    double tol, max_iter, residual, recondition, target_condition, symmetry_tol; /* < 0: not given */
    double solve_precision; /* MINV_OPT_PRECISION (--precision mixed); < 0: not given */
    int quiet;
} cli_settings;

/* Applies the shared options; prints the error and returns CLI_USAGE on a bad value. */
int cli_settings_from(const cli_args *a, cli_settings *s);
/* A context with the settings' options and tunables, progress on stderr; CLI_FAILED and the
 * error printed when it cannot be made. */
int cli_context(const cli_settings *s, minv_context **ctx);

/* "file.nc:VAR" -> path and variable (VAR may be absent when optional), parted at the last
 * colon unless the colon belongs to the file's name (README, "NetCDF files and the `minv`
 * command"). The returned strings point into a copy owned by spec. */
typedef struct {
    char *path, *var;
    char *copy;
} cli_path_var;
int cli_split(const char *text, const char *what, int var_required, cli_path_var *out);
void cli_path_var_free(cli_path_var *pv);

/* Sizes such as 2G, 512M, 1.5G, 4096 (bytes; K, M, G, T are powers of 1024). */
int cli_parse_size(const char *text, int64_t *bytes);
int cli_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *value);
int cli_parse_double(const char *text, double *value);
/* --format's names into a minv_file_format; cli_format_names lists them for messages. */
int cli_parse_format(const char *text, int32_t *format);
extern const char cli_format_names[];

/* ---- output (output.c) ---- */

/* Started as one of several MPI ranks: exec minv-mpi with the same command line (mpi_handoff.c).
 * Returns -1 where this process is alone, else only on failure, with the exit status. */
int cli_mpi_handoff(char **argv);
/* "minv: error: ..." on stderr, one line; returns `code`. */
int cli_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The library's last error as one line; returns CLI_FAILED. */
int cli_fail(minv_context *ctx, minv_status status);
/* The report of an invert or solve, line by line on stdout. */
void cli_print_report(const char *title, const minv_report *r, minv_precision precision);
/* A report's reason is "; "-separated notes for people: why the method and backend, fallbacks,
 * how the file routines read and wrote, and the core's note on why AUTO got no GPU, which
 * starts "CPU backend: ". cli_notes splits a copy of it; cli_is_why is 0 for that last note
 * only (the command shows it beside the backend). */
enum { CLI_MAX_NOTES = 32 };
int cli_notes(const char *reason, char copy[MINV_REASON_LEN], char *notes[CLI_MAX_NOTES]);
int cli_is_why(const char *note);
/* A stage: "134 MB in 0.05 s (2700 MB/s) <how>" into buf, or on a line of its own after its
 * label. */
void cli_stage_text(char *buf, size_t len, double seconds, double bytes, const char *how);
void cli_print_stage(const char *label, double seconds, double bytes, const char *how);
/* Progress on stderr, only when it is a terminal and not --quiet: one line redrawn in place
 * with the stage, its percentage and the seconds since the command's first report. */
void cli_progress(void *user, const char *stage, double fraction);
void cli_progress_done(void);
/* Removes the temporary outputs being written if the command is interrupted (SIGINT,
 * SIGTERM, SIGHUP), by `remove`: minv_nc_remove_temporaries of the copy of the NetCDF layer
 * that writes them (minv's own; minv-mpi's is libminv_mpi's, minv_mpi_nc_remove_temporaries). */
void cli_guard_outputs(void (*remove)(void));

/* ---- the inputs' open, guarded (probe.c) ---- */

/* Opens `var` of `path` as the reader does, in a child process with a time and a memory
 * limit: CLI_FAILED with one line when NetCDF-C or HDF5 crash, hang or exhaust memory on it,
 * CLI_OK otherwise (other errors are the real call's to report). vector: B of a solve. */
int cli_probe_input(const char *path, const char *var, const minv_file_options *fopts, int vector);

/* ---- subcommands ---- */
int cli_invert(int argc, char **argv);
int cli_solve(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_generate(int argc, char **argv);

#endif
