/* The minv command: shared declarations of its subcommands (cmd_*.c), option parsing
 * (args.c) and output (output.c). */
#ifndef MINV_CLI_H
#define MINV_CLI_H

#include <stdint.h>

#include "minv.h"

/* Exit statuses: 0 success, 1 the job failed, 2 the command line is wrong. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_USAGE = 2 };

/* ---- options (args.c) ---- */

typedef struct {
    const char *name; /* without the leading "--" */
    const char *arg;  /* the value's placeholder in --help, NULL for a flag */
    const char *help;
} cli_option;

/* Option groups that subcommands combine. */
extern const cli_option cli_compute_options[]; /* --method --backend --device-memory --precision
                                                  --tol --max-iter --residual --threads */
extern const cli_option cli_file_options[];    /* --slice --tile --fortran-order --batch-chunk */
extern const cli_option cli_output_options[];  /* --deflate */
extern const cli_option cli_general_options[]; /* --quiet --help */

enum { CLI_MAX_ARGS = 64 };

typedef struct {
    const char *name, *usage, *summary, *details; /* for --help */
    const cli_option *const *groups;              /* NULL-terminated */
} cli_command;

typedef struct {
    const cli_option *opt[CLI_MAX_ARGS];
    const char *value[CLI_MAX_ARGS];
    int nopts;
    const char *pos[CLI_MAX_ARGS];
    int npos;
    int help;
} cli_args;

/* Splits argv into options of the command's groups and positional arguments; prints the
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
    double tol, max_iter, residual, recondition, target_condition; /* < 0: not given */
    int quiet;
} cli_settings;

/* Applies the shared options; prints the error and returns CLI_USAGE on a bad value. */
int cli_settings_from(const cli_args *a, cli_settings *s);
/* A context with the settings' options and tunables, progress on stderr; CLI_FAILED and the
 * error printed when it cannot be made. */
int cli_context(const cli_settings *s, minv_context **ctx);

/* "file.nc:VAR" -> path and variable (VAR may be absent when optional). The returned strings
 * point into a copy owned by spec. */
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

/* ---- output (output.c) ---- */

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
/* "read       134 MB in 0.05 s (2700 MB/s) <how>" */
void cli_print_stage(const char *label, double seconds, double bytes, const char *how);
/* Progress on stderr, only when it is a terminal and not --quiet. */
void cli_progress(void *user, const char *stage, double fraction);
void cli_progress_done(void);
/* Removes `path`'s temporary output if the command is interrupted (SIGINT, SIGTERM, SIGHUP). */
void cli_guard_output(const char *path);

/* ---- subcommands ---- */
int cli_invert(int argc, char **argv);
int cli_solve(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_generate(int argc, char **argv);

#endif
