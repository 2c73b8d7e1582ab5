/* Option parsing shared by the subcommands: the table of options, argv splitting, --help, the
 * shared settings, and the small value parsers. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"

enum {
    INV = CLI_INVERT, SOL = CLI_SOLVE, INF = CLI_INFO, GEN = CLI_GENERATE, COMPUTE = INV | SOL | INF,
    MPI = CLI_MPI_INVERT | CLI_MPI_SOLVE
};

/* --format's spellings, every command's help and message alike (cli_parse_format takes them) */
#define FORMAT_NAMES "classic, 64bit (or 64bit-offset), cdf5, netcdf4 or netcdf4-classic"

/* To add an option: a line here naming the subcommands that take it (its place sets its place
 * in their --help), then read it with cli_value or cli_flag: in cli_settings_from when several
 * subcommands share it, else in the subcommand. */
const cli_option cli_options[] = {
    /* what to compute, and where */
    {"method", "auto|cholesky|lu|gauss-jordan|iterative|tridiagonal", "method (default auto: chosen from the matrix)", INV},
    {"method", "auto|cholesky|lu|gauss-jordan", "method (default auto: chosen from the matrix)", SOL},
    {"method", "auto|cholesky|lu|gauss-jordan", "method (default auto: chosen from the matrix; gauss-jordan for a batch's matrices only)",
     CLI_MPI_INVERT},
    {"method", "auto|cholesky|lu", "method (default auto: chosen from the matrix)", CLI_MPI_SOLVE},
    {"method", "auto|cholesky|lu|gauss-jordan|iterative|tridiagonal",
     "the method invert would run, whose factorisation estimates the condition (default auto)", INF},
    {"backend", "auto|cpu|gpu", "where to compute (default auto: the GPU where present)", COMPUTE | MPI},
    {"device-memory", "SIZE", "device memory minv may use, e.g. 2G, 512M (default: all free)", COMPUTE | MPI},
    {"devices", "all|D[,D...]", "CUDA devices of multi-GPU methods (gauss-jordan), the first for the rest (default all)", INV | SOL},
    {"devices", "D", "the CUDA device of every rank (default: each rank its own, its rank on the node modulo the node's GPUs)", MPI},
    {"block", "N", "edge of the blocks of the block-cyclic layout of one matrix (default 64, 512 on GPUs, less for small matrices)", MPI},
    {"precision", "double|single|mixed",
     "compute precision, whatever the type on disk, and the output's type: double, or float for single (default double); "
     "mixed: solves factor in low precision and refine to double accuracy",
     INV | SOL},
    {"precision", "double|single|mixed",
     "compute precision, whatever the type on disk (default double); mixed: solves factor in low precision and refine to double accuracy",
     INF},
    {"precision", "double|single", "compute precision, whatever the type on disk, and the output's type: double, or float for "
                                   "single (default double)", MPI},
    {"tol", "X", "iterative method: stop when the residual norm <= X", INV},
    {"max-iter", "N", "iterative method: iteration cap (default 100)", INV},
    {"residual", "none|sampled|full", "residual in the report (default sampled, O(n^2))", INV | SOL | MPI},
    {"recondition", "none|ridge|floor", "symmetric matrices: work on a nearby SPD matrix of condition --target-condition", INV | SOL},
    {"target-condition", "T", "reconditioning: the condition number to reach (default 1000)", INV | SOL},
    {"threads", "N", "threads for minv's own CPU loops (default: all)", COMPUTE | MPI},
    {"symmetry-tol", "X", "relative asymmetry up to which a matrix is symmetric, for Cholesky on its lower "
                          "triangle (default 16 roundings of the precision; 0 to 1e-5)", COMPUTE | MPI},
    /* reading the inputs */
    {"slice", "I[,J...]", "indices into the leading dimensions of a higher-rank variable, 0-based, in ncdump order", INV | INF | CLI_MPI_INVERT},
    {"slice", "I[,J...]", "indices into the leading dimensions of a higher-rank A (and B), 0-based, in ncdump order", SOL | CLI_MPI_SOLVE},
    {"tile", "N", "read through NetCDF-C in N x N tiles (default: whole chunks or rows, read directly on all threads)", COMPUTE},
    {"fortran-order", NULL, "the variables were written from Fortran arrays (dimensions reversed)", COMPUTE | MPI},
    {"batch-chunk", "N", "a batch: invert N whole matrices at a time (default: as many as 32 MiB of doubles hold)", INV | CLI_MPI_INVERT},
    {"allow-remote", NULL, "inputs may be URLs (OPeNDAP, S3), fetched over the network (default: refused)", COMPUTE | MPI},
    {"tridiagonal", "DL,D,DU", "IN.nc holds a tridiagonal matrix as three 1-D variables: sub-diagonal (n-1), diagonal (n), super-diagonal (n-1)", INV},
    {"tridiagonal-algorithm", "auto|write-once|sherman-morrison|pivoted", "tridiagonal inversion (either form): the algorithm (default auto)", INV},
    /* info */
    {"no-rcond", NULL, "skip the condition estimate (it costs one factorisation; a batch's, one inversion)", INF},
    {"json", NULL, "print it all as one JSON object, for scripts (schema above)", INF},
    /* generate */
    {"length", "L", "soar, gaussian: correlation length in grid spacings (default 3 for soar, 1 for gaussian)", GEN},
    {"grid", "1d|2d", "soar, gaussian: points on a line or a square grid (default 2d; N a perfect square)", GEN},
    {"grid-shape", "NXxNY", "soar, gaussian: a rectangular 2-D grid, NX * NY = N", GEN},
    {"rho", "R", "kms: a_ij = R^|i-j|, |R| < 1 (default 0.5)", GEN},
    {"seed", "S", "spd, general, tridiagonal: random seed (default 1)", GEN},
    {"cols", "K", "general: K columns (right-hand sides B(n, K)) instead of N", GEN},
    {"batch", "T", "T matrices along an unlimited Time dimension, matrix t scaled by 1 + t/10", GEN},
    {"type", "TYPE", "type on disk: double, float, int64, int, short, byte, uint64, uint, ushort, ubyte (default double)", GEN},
    {"scale", "S", "integer types: store round(value / S) with scale_factor = S (default 1)", GEN},
    {"format", "FORMAT", FORMAT_NAMES " (default netcdf4, chunked)", GEN},
    {"dims", "D0,D1", "names of the matrix dimensions (default n,n for symmetric kinds, row,col for the others, n,rhs for "
                      "general --cols K)", GEN},
    /* writing the output */
    {"overwrite", NULL, "-O: replace an output file that is not netCDF or whose only variable is VAR (an earlier run's) with a new "
                        "one; in a netCDF file with other variables (all kept), overwrite VAR where it has the result's shape and "
                        "type and no packing, fill or valid-range attributes, else refuse (default: only add VAR to a netCDF "
                        "file that lacks it)", INV | SOL | GEN | MPI},
    {"format", "FORMAT", FORMAT_NAMES ": format of a new output (default: the input's, where the result fits it)",
     INV | SOL | MPI},
    {"deflate", "0-9", "deflate level of a netCDF-4 output (default 0; above 0 the output is netCDF-4)", INV | SOL | MPI},
    {"deflate", "0-9", "deflate level of the netCDF-4 output (default 0)", GEN},
    /* general */
    {"quiet", NULL, "-q: no progress on the terminal", INV | SOL | INF | GEN | MPI},
    {"help", NULL, "this help", INV | SOL | INF | GEN | MPI},
    {NULL, NULL, NULL, 0}};

const char cli_format_names[] = FORMAT_NAMES;

int cli_parse_format(const char *text, int32_t *format) {
    static const struct { const char *name; minv_file_format format; } names[] = {
        {"classic", MINV_FORMAT_CLASSIC}, {"64bit", MINV_FORMAT_64BIT_OFFSET}, {"64bit-offset", MINV_FORMAT_64BIT_OFFSET},
        {"cdf5", MINV_FORMAT_CDF5},       {"netcdf4", MINV_FORMAT_NETCDF4},   {"netcdf4-classic", MINV_FORMAT_NETCDF4_CLASSIC}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcmp(text, names[k].name) == 0) {
            *format = names[k].format;
            return 1;
        }
    return 0;
}

/* The command a subcommand belongs to, for messages and --help. */
static const char *program(const cli_command *cmd) { return cmd->id & MPI ? "minv-mpi" : "minv"; }

static const cli_option *find_option(const cli_command *cmd, const char *name, size_t len) {
    for (const cli_option *o = cli_options; o->name; o++)
        if ((o->commands & cmd->id) && strlen(o->name) == len && strncmp(o->name, name, len) == 0)
            return o;
    return NULL;
}

int cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *out) {
    memset(out, 0, sizeof *out);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            out->help = 1;
            continue;
        }
        if (strcmp(arg, "-O") == 0) /* cdo's and nco's short form */
            arg = "--overwrite";
        else if (strcmp(arg, "-q") == 0)
            arg = "--quiet";
        else if (arg[0] == '-' && arg[1] != '-' && arg[1] != '\0') /* a file named so is ./-x */
            return cli_error(CLI_USAGE, "%s: unknown option %s (see %s %s --help)", cmd->name, arg, program(cmd), cmd->name);
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            if (out->npos == CLI_MAX_ARGS)
                return cli_error(CLI_USAGE, "%s: too many arguments", cmd->name);
            out->pos[out->npos++] = arg;
            continue;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const cli_option *o = find_option(cmd, name, len);
        if (!o)
            return cli_error(CLI_USAGE, "%s: unknown option --%.*s (see %s %s --help)", cmd->name, (int)len, name, program(cmd),
                             cmd->name);
        const char *value = NULL;
        if (o->arg) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return cli_error(CLI_USAGE, "%s: --%s needs a value (%s)", cmd->name, o->name, o->arg);
        } else if (eq) {
            return cli_error(CLI_USAGE, "%s: --%s takes no value", cmd->name, o->name);
        }
        if (out->nopts == CLI_MAX_ARGS)
            return cli_error(CLI_USAGE, "%s: too many options", cmd->name);
        out->opt[out->nopts] = o;
        out->value[out->nopts++] = value;
    }
    return CLI_OK;
}

const char *cli_value(const cli_args *a, const char *name) {
    const char *value = NULL;
    for (int i = 0; i < a->nopts; i++)
        if (strcmp(a->opt[i]->name, name) == 0)
            value = a->value[i];
    return value;
}

int cli_flag(const cli_args *a, const char *name) {
    for (int i = 0; i < a->nopts; i++)
        if (strcmp(a->opt[i]->name, name) == 0)
            return 1;
    return 0;
}

void cli_help(const cli_command *cmd) {
    printf("usage: %s %s %s\n\n%s\n", program(cmd), cmd->name, cmd->usage, cmd->summary);
    if (cmd->details)
        printf("\n%s\n", cmd->details);
    printf("\noptions:\n");
    for (const cli_option *o = cli_options; o->name; o++) {
        if (!(o->commands & cmd->id))
            continue;
        char left[96];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (strlen(left) > 26)
            printf("  %s\n  %-26s  %s\n", left, "", o->help);
        else
            printf("  %-26s  %s\n", left, o->help);
    }
}

/* ---- values ---- */

int cli_parse_int(const char *text, int64_t lo, int64_t hi, int64_t *value) {
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi)
        return 0;
    *value = v;
    return 1;
}

int cli_parse_double(const char *text, double *value) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v))
        return 0;
    *value = v;
    return 1;
}

int cli_parse_size(const char *text, int64_t *bytes) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !(v >= 0))
        return 0;
    const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (*end && (!u || (end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]))))
        return 0;
    for (const char *p = units; u && p <= u; p++)
        v *= 1024;
    if (v > 9.2e18)
        return 0;
    *bytes = (int64_t)v;
    return 1;
}

/* The values an option takes, as its --help lists them ("a|b|c") for the command that parsed
 * `a`, where it was given. */
static const char *listed_values(const cli_args *a, const char *name) {
    for (int i = 0; i < a->nopts; i++)
        if (strcmp(a->opt[i]->name, name) == 0)
            return a->opt[i]->arg;
    return "";
}

/* "a|b|c" as "a, b or c", for messages. */
static void or_list(const char *listed, char *buf, size_t len) {
    const char *last = strrchr(listed, '|');
    buf[0] = '\0';
    for (const char *p = listed; *p && strlen(buf) + 1 < len; p++) {
        if (*p != '|')
            snprintf(buf + strlen(buf), len - strlen(buf), "%c", *p);
        else
            snprintf(buf + strlen(buf), len - strlen(buf), "%s", p == last ? " or " : ", ");
    }
}

/* A method among `listed` ("auto|cholesky|..."): each command takes the ones its --help lists. */
static int parse_method(const char *text, const char *listed, minv_method *m) {
    const size_t len = strlen(text);
    int in_list = 0;
    for (const char *p = listed; len > 0 && !in_list && (p = strstr(p, text)); p++)
        in_list = (p == listed || p[-1] == '|') && (p[len] == '|' || !p[len]);
    for (int k = 0; in_list && k <= MINV_METHOD_TRIDIAGONAL; k++)
        if (strcmp(text, minv_method_name((minv_method)k)) == 0) {
            *m = (minv_method)k;
            return 1;
        }
    return 0;
}

static int parse_slice(const char *text, minv_file_options *fo) {
    const char *p = text;
    fo->nslice = 0;
    while (*p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (errno || end == p || v < 0 || fo->nslice == MINV_MAX_SLICE || (*end && *end != ','))
            return 0;
        fo->slice[fo->nslice++] = v;
        p = *end ? end + 1 : end;
    }
    return fo->nslice > 0;
}

int cli_settings_from(const cli_args *a, cli_settings *s) {
    const char *v;
    int64_t i;
    minv_options_default(&s->opts);
    minv_file_options_default(&s->fopts);
    s->method = MINV_METHOD_AUTO;
    s->tol = s->max_iter = s->residual = s->recondition = s->target_condition = s->solve_precision = s->symmetry_tol = -1;
    s->quiet = cli_flag(a, "quiet");
    if ((v = cli_value(a, "method")) && !parse_method(v, listed_values(a, "method"), &s->method)) {
        char expected[128];
        or_list(listed_values(a, "method"), expected, sizeof expected);
        return cli_error(CLI_USAGE, "--method %s: expected %s", v, expected);
    }
    if ((v = cli_value(a, "backend"))) {
        if (strcmp(v, "auto") == 0) s->opts.backend = MINV_BACKEND_AUTO;
        else if (strcmp(v, "cpu") == 0) s->opts.backend = MINV_BACKEND_CPU;
        else if (strcmp(v, "gpu") == 0) s->opts.backend = MINV_BACKEND_GPU;
        else return cli_error(CLI_USAGE, "--backend %s: expected auto, cpu or gpu", v);
    }
    if ((v = cli_value(a, "devices")) && strcmp(v, "all") != 0) {
        const char *p = v;
        s->opts.ndevices = 0;
        while (*p) {
            char *end;
            errno = 0;
            const long d = strtol(p, &end, 10);
            if (end == p || errno || d < 0 || d > INT32_MAX || (*end && *end != ',') ||
                s->opts.ndevices == MINV_MAX_DEVICES)
                return cli_error(CLI_USAGE, "--devices %s: expected all or up to %d device numbers such as 0,1", v,
                                 MINV_MAX_DEVICES);
            s->opts.devices[s->opts.ndevices++] = (int32_t)d;
            p = *end ? end + 1 : end;
        }
        if (s->opts.ndevices == 0)
            return cli_error(CLI_USAGE, "--devices %s: expected all or device numbers such as 0,1", v);
    }
    if ((v = cli_value(a, "device-memory")) && !cli_parse_size(v, &s->opts.device_memory))
        return cli_error(CLI_USAGE, "--device-memory %s: expected a size such as 2G, 512M or 1073741824", v);
    if ((v = cli_value(a, "precision"))) {
        if (strcmp(v, "double") == 0) s->fopts.precision = MINV_PRECISION_DOUBLE;
        else if (strcmp(v, "single") == 0 || strcmp(v, "float") == 0) s->fopts.precision = MINV_PRECISION_SINGLE;
        else if (strcmp(v, "mixed") == 0) s->solve_precision = MINV_PRECISION_MIXED; /* data in double */
        else return cli_error(CLI_USAGE, "--precision %s: expected double, single or mixed", v);
    }
    if ((v = cli_value(a, "tol")) && !(cli_parse_double(v, &s->tol) && s->tol >= 0))
        return cli_error(CLI_USAGE, "--tol %s: expected a number >= 0", v);
    /* the library's range (minv.h, MINV_OPT_SYMMETRY_TOL), refused here as a wrong command line */
    if ((v = cli_value(a, "symmetry-tol")) &&
        !(cli_parse_double(v, &s->symmetry_tol) && s->symmetry_tol >= 0 && s->symmetry_tol <= 1e-5))
        return cli_error(CLI_USAGE, "--symmetry-tol %s: expected a number from 0 to 1e-5", v);
    if ((v = cli_value(a, "max-iter"))) {
        if (!cli_parse_int(v, 1, INT32_MAX, &i))
            return cli_error(CLI_USAGE, "--max-iter %s: expected an integer >= 1", v);
        s->max_iter = (double)i;
    }
    if ((s->tol >= 0 || s->max_iter >= 0) && s->method != MINV_METHOD_ITERATIVE)
        return cli_error(CLI_USAGE, "--%s applies to the iterative method only: add --method iterative, or drop it",
                         s->tol >= 0 ? "tol" : "max-iter");
    if ((v = cli_value(a, "residual"))) {
        if (strcmp(v, "none") == 0) s->residual = 0;
        else if (strcmp(v, "sampled") == 0) s->residual = 1;
        else if (strcmp(v, "full") == 0) s->residual = 2;
        else return cli_error(CLI_USAGE, "--residual %s: expected none, sampled or full", v);
    }
    if ((v = cli_value(a, "recondition"))) {
        if (strcmp(v, "none") == 0) s->recondition = MINV_RECONDITION_NONE;
        else if (strcmp(v, "ridge") == 0) s->recondition = MINV_RECONDITION_RIDGE;
        else if (strcmp(v, "floor") == 0) s->recondition = MINV_RECONDITION_FLOOR;
        else return cli_error(CLI_USAGE, "--recondition %s: expected none, ridge or floor", v);
    }
    /* the floor's inverse comes from the eigen-decomposition itself, so the library takes it
     * with AUTO only (minv.h, MINV_OPT_RECONDITION) */
    if (s->recondition == MINV_RECONDITION_FLOOR && s->method != MINV_METHOD_AUTO)
        return cli_error(CLI_USAGE, "--recondition floor computes the result from the eigen-decomposition, so it takes "
                                    "--method auto only, not --method %s (--recondition ridge takes any method)",
                         minv_method_name(s->method));
    if ((v = cli_value(a, "target-condition")) && !(cli_parse_double(v, &s->target_condition) && s->target_condition > 1))
        return cli_error(CLI_USAGE, "--target-condition %s: expected a number > 1", v);
    if (s->target_condition > 0 && s->recondition <= MINV_RECONDITION_NONE)
        return cli_error(CLI_USAGE, "--target-condition applies to reconditioning only: add --recondition ridge or floor, or drop it");
    if ((v = cli_value(a, "threads"))) {
        if (!cli_parse_int(v, 1, 4096, &i))
            return cli_error(CLI_USAGE, "--threads %s: expected an integer from 1 to 4096", v);
        s->opts.cpu_threads = (int32_t)i;
    }
    if ((v = cli_value(a, "slice")) && !parse_slice(v, &s->fopts))
        return cli_error(CLI_USAGE, "--slice %s: expected up to %d indices >= 0 separated by commas, e.g. --slice 3 or --slice 0,2",
                         v, MINV_MAX_SLICE);
    if ((v = cli_value(a, "tile"))) {
        if (!cli_parse_int(v, 1, INT64_MAX, &i))
            return cli_error(CLI_USAGE, "--tile %s: expected an integer >= 1", v);
        s->fopts.tile = i;
    }
    s->fopts.fortran_order = cli_flag(a, "fortran-order");
    s->fopts.allow_remote = cli_flag(a, "allow-remote");
    if ((v = cli_value(a, "batch-chunk"))) {
        if (!cli_parse_int(v, 1, INT32_MAX, &i))
            return cli_error(CLI_USAGE, "--batch-chunk %s: expected an integer >= 1", v);
        s->fopts.batch_chunk = (int32_t)i;
    }
    s->fopts.overwrite = cli_flag(a, "overwrite");
    if ((v = cli_value(a, "format")) && !cli_parse_format(v, &s->fopts.format))
        return cli_error(CLI_USAGE, "--format %s: expected %s", v, cli_format_names);
    if ((v = cli_value(a, "deflate"))) {
        if (!cli_parse_int(v, 0, 9, &i))
            return cli_error(CLI_USAGE, "--deflate %s: expected a level from 0 to 9", v);
        s->fopts.deflate_level = (int32_t)i;
    }
    if (s->fopts.deflate_level > 0 && s->fopts.format != MINV_FORMAT_AUTO && s->fopts.format != MINV_FORMAT_NETCDF4 &&
        s->fopts.format != MINV_FORMAT_NETCDF4_CLASSIC)
        return cli_error(CLI_USAGE, "--deflate needs a netCDF-4 output: drop --format %s, or use --format netcdf4", cli_value(a, "format"));
    return CLI_OK;
}

int cli_context(const cli_settings *s, minv_context **ctx) {
    minv_status st = minv_create(ctx, &s->opts);
    if (st != MINV_SUCCESS)
        return cli_error(CLI_FAILED, "%s%s", st == MINV_ERR_NO_GPU ? minv_last_error(NULL) : minv_status_string(st),
                         st == MINV_ERR_NO_GPU ? "; --backend auto runs on the CPU instead" : "");
    const struct { minv_option opt; double value; } tunables[] = {
        {MINV_OPT_TOLERANCE, s->tol}, {MINV_OPT_MAX_ITERATIONS, s->max_iter}, {MINV_OPT_RESIDUAL, s->residual},
        {MINV_OPT_RECONDITION, s->recondition}, {MINV_OPT_TARGET_CONDITION, s->target_condition},
        {MINV_OPT_PRECISION, s->solve_precision}, {MINV_OPT_SYMMETRY_TOL, s->symmetry_tol}};
    for (size_t k = 0; k < sizeof tunables / sizeof tunables[0]; k++)
        if (tunables[k].value >= 0 && (st = minv_set_option(*ctx, tunables[k].opt, tunables[k].value)) != MINV_SUCCESS) {
            int code = cli_fail(*ctx, st);
            minv_destroy(*ctx);
            *ctx = NULL;
            return code;
        }
    if (!s->quiet)
        minv_set_progress(*ctx, cli_progress, NULL);
    return CLI_OK;
}

/* ---- file:variable ---- */

/* 1 when `name` ends as a NetCDF or HDF5 file's name does, as no variable's is likely to. */
static int file_suffix(const char *name) {
    static const char *const suffixes[] = {".nc", ".nc3", ".nc4", ".cdf", ".netcdf", ".h5", ".hdf5"};
    const size_t len = strlen(name);
    for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0]; k++) {
        const size_t n = strlen(suffixes[k]);
        if (len > n && strcasecmp(name + len - n, suffixes[k]) == 0)
            return 1;
    }
    return 0;
}

int cli_split(const char *text, const char *what, int var_required, cli_path_var *out) {
    memset(out, 0, sizeof *out);
    out->copy = strdup(text);
    if (!out->copy)
        return cli_error(CLI_FAILED, "out of memory");
    /* the last colon parts FILE:VAR, unless the whole names an existing file, or what follows
     * the colon ends as a file's name (inv_2026-01-01T06:00.nc) and what precedes names none:
     * then the colon is the file name's own */
    char *colon = access(text, F_OK) == 0 ? NULL : strrchr(out->copy, ':');
    if (colon && file_suffix(colon + 1)) {
        *colon = '\0';
        const int file_before = access(out->copy, F_OK) == 0;
        *colon = ':';
        if (!file_before)
            colon = NULL;
    }
    out->path = out->copy;
    if (colon) {
        *colon = '\0';
        out->var = colon + 1;
    }
    if (!out->path[0] || (colon && !out->var[0]) || (var_required && !colon)) {
        /* the usual slip: a file named without its variable */
        const int file_only = var_required && out->path[0] && (!colon || !out->var[0]) && access(out->path, R_OK) == 0;
        char hint[4200] = "";
        if (file_only)
            snprintf(hint, sizeof hint, " (the variable to read after the colon; `ncdump -h %s` lists them)", out->path);
        cli_path_var_free(out);
        return cli_error(CLI_USAGE, "%s '%s': expected FILE.nc:VARIABLE%s%s", what, text, var_required ? "" : " or FILE.nc", hint);
    }
    return CLI_OK;
}

void cli_path_var_free(cli_path_var *pv) {
    free(pv->copy);
    memset(pv, 0, sizeof *pv);
}
