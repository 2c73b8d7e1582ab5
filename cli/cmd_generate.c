/* minv generate KIND N OUT.nc[:VAR]: test matrices written through the library's tiled
 * writer, in any numeric type and netCDF format, for tests, benchmarks and the main job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "generators.h"
#include "ncio.h"

static const cli_command command = {
    "generate", "KIND N OUT.nc[:VAR] [options]",
    "Writes an N x N test matrix of KIND to OUT.nc as VAR (default: A).",
    "KIND is soar or gaussian (correlations on a grid), kms, spd (random symmetric positive\n"
    "definite), general (random) or tridiagonal (random, diagonally dominant). The output is\n"
    "written under a temporary name and renamed when complete.",
    CLI_GENERATE};

static const struct { const char *name; nc_type type; } types[] = {
    {"double", NC_DOUBLE}, {"float", NC_FLOAT}, {"int64", NC_INT64}, {"int", NC_INT}, {"short", NC_SHORT},
    {"byte", NC_BYTE}, {"uint64", NC_UINT64}, {"uint", NC_UINT}, {"ushort", NC_USHORT}, {"ubyte", NC_UBYTE}};

/* The grid of soar and gaussian from --grid and --grid-shape. */
static int grid_from(const cli_args *a, gen_params *p) {
    const char *grid = cli_value(a, "grid"), *shape = cli_value(a, "grid-shape");
    if (grid && strcmp(grid, "1d") != 0 && strcmp(grid, "2d") != 0)
        return cli_error(CLI_USAGE, "generate: --grid %s: expected 1d or 2d", grid);
    if (shape && grid && strcmp(grid, "1d") == 0)
        return cli_error(CLI_USAGE, "generate: --grid-shape %s is a 2-D grid, and --grid 1d a line: give one of them", shape);
    if (shape) {
        long long nx, ny, cells;
        char tail;
        if (sscanf(shape, "%lldx%lld%c", &nx, &ny, &tail) != 2 || nx < 1 || ny < 1 || __builtin_mul_overflow(nx, ny, &cells) ||
            cells != p->n)
            return cli_error(CLI_USAGE, "generate: --grid-shape %s: expected NXxNY with NX * NY = N = %lld", shape, (long long)p->n);
        p->nx = nx;
        p->ny = ny;
    } else if (grid && strcmp(grid, "1d") == 0) {
        p->nx = p->n;
        p->ny = 1;
    } else {
        int64_t side = (int64_t)llround(sqrt((double)p->n));
        if (side * side != p->n)
            return cli_error(CLI_USAGE, "generate: N = %lld is not a perfect square for a 2-D grid: use --grid 1d or --grid-shape NXxNY",
                             (long long)p->n);
        p->nx = p->ny = side;
    }
    return CLI_OK;
}

static int params_from(const cli_args *a, gen_params *p) {
    const char *v;
    int64_t i;
    p->cols = p->n;
    p->nx = p->n;
    p->ny = 1;
    p->length = p->kind == GEN_GAUSSIAN ? 1 : 3;
    p->rho = 0.5;
    p->seed = 1;
    if (p->kind == GEN_SOAR || p->kind == GEN_GAUSSIAN) {
        int code = grid_from(a, p);
        if (code != CLI_OK)
            return code;
    } else if (cli_value(a, "grid") || cli_value(a, "grid-shape") || cli_value(a, "length")) {
        return cli_error(CLI_USAGE, "generate: --grid, --grid-shape and --length are for soar and gaussian");
    }
    if ((v = cli_value(a, "length")) && !(cli_parse_double(v, &p->length) && p->length > 0))
        return cli_error(CLI_USAGE, "generate: --length %s: expected a number > 0", v);
    if ((v = cli_value(a, "rho")) && !(p->kind == GEN_KMS && cli_parse_double(v, &p->rho) && fabs(p->rho) < 1))
        return cli_error(CLI_USAGE, "generate: --rho %s: expected a number with |rho| < 1, for kms", v);
    if ((v = cli_value(a, "seed"))) {
        if (p->kind != GEN_SPD && p->kind != GEN_GENERAL && p->kind != GEN_TRIDIAGONAL)
            return cli_error(CLI_USAGE, "generate: --seed is for the random kinds spd, general and tridiagonal, not %s",
                             gen_kind_name(p->kind));
        if (!cli_parse_int(v, 0, INT64_MAX, &i))
            return cli_error(CLI_USAGE, "generate: --seed %s: expected an integer >= 0", v);
        p->seed = (uint64_t)i;
    }
    if ((v = cli_value(a, "cols"))) {
        if (p->kind != GEN_GENERAL || !cli_parse_int(v, 1, INT32_MAX, &p->cols))
            return cli_error(CLI_USAGE, "generate: --cols %s: expected an integer >= 1, for general", v);
    }
    return CLI_OK;
}

/* Type, format, dimension names and batch of the output. */
static int spec_from(const cli_args *a, const gen_params *p, int64_t batch, minv_nc_sink_spec *spec) {
    const char *v;
    memset(spec, 0, sizeof *spec);
    spec->xtype = NC_DOUBLE;
    spec->input_format = NC_FORMAT_NETCDF4; /* the default, with no input to follow */
    spec->scale = 1;
    spec->view = MINV_NC_C_VIEW;
    spec->overwrite = cli_flag(a, "overwrite");
    if ((v = cli_value(a, "type"))) {
        size_t k = 0;
        while (k < sizeof types / sizeof types[0] && strcmp(v, types[k].name) != 0) k++;
        if (k == sizeof types / sizeof types[0])
            return cli_error(CLI_USAGE, "generate: --type %s: expected double, float, int64, int, short, byte, uint64, uint, ushort or ubyte", v);
        spec->xtype = types[k].type;
    }
    if ((v = cli_value(a, "format")) && !cli_parse_format(v, &spec->format))
        return cli_error(CLI_USAGE, "generate: --format %s: expected %s", v, cli_format_names);
    if ((v = cli_value(a, "scale")) && !(cli_parse_double(v, &spec->scale) && spec->scale > 0 && minv_nc_type_is_integer(spec->xtype)))
        return cli_error(CLI_USAGE, "generate: --scale %s: expected a number > 0, with an integer --type", v);
    if ((v = cli_value(a, "deflate"))) {
        int64_t level;
        if (!cli_parse_int(v, 0, 9, &level))
            return cli_error(CLI_USAGE, "generate: --deflate %s: expected a level from 0 to 9", v);
        spec->deflate_level = (int)level;
    }
    if (spec->deflate_level > 0 && spec->format != MINV_FORMAT_AUTO && spec->format != MINV_FORMAT_NETCDF4 &&
        spec->format != MINV_FORMAT_NETCDF4_CLASSIC)
        return cli_error(CLI_USAGE, "generate: --deflate needs --format netcdf4 (or netcdf4-classic)");
    spec->rank = batch > 0 ? 3 : 2;
    minv_nc_dim *d = spec->dims + spec->rank - 2;
    const int square = p->cols == p->n;
    snprintf(d[0].name, sizeof d[0].name, "%s", !square ? "n" : gen_is_symmetric(p->kind) ? "n" : "row");
    snprintf(d[1].name, sizeof d[1].name, "%s", !square ? "rhs" : gen_is_symmetric(p->kind) ? "n" : "col");
    if ((v = cli_value(a, "dims"))) {
        const char *comma = strchr(v, ',');
        if (!comma || comma == v || !comma[1] || strchr(comma + 1, ',') || comma - v > NC_MAX_NAME || strlen(comma + 1) > NC_MAX_NAME)
            return cli_error(CLI_USAGE, "generate: --dims %s: expected two names, D0,D1", v);
        snprintf(d[0].name, sizeof d[0].name, "%.*s", (int)(comma - v), v);
        snprintf(d[1].name, sizeof d[1].name, "%s", comma + 1);
    }
    if (!square && strcmp(d[0].name, d[1].name) == 0)
        return cli_error(CLI_USAGE, "generate: a %lld x %lld matrix needs two dimension names", (long long)p->n, (long long)p->cols);
    d[0].len = (size_t)p->n;
    d[1].len = (size_t)p->cols;
    if (batch > 0) {
        snprintf(spec->dims[0].name, sizeof spec->dims[0].name, "Time");
        spec->dims[0].len = (size_t)batch;
        spec->dims[0].unlimited = 1;
    }
    return CLI_OK;
}

int cli_generate(int argc, char **argv) {
    cli_args args;
    cli_path_var out = {0};
    gen_params p;
    minv_nc_sink_spec spec;
    minv_nc_sink sink = {.ncid = -1};
    minv_context *ctx = NULL;
    minv_options opts;
    minv_mat m = {0};
    int64_t batch = 0;
    char *history = NULL;
    const char *v;
    int code = cli_parse(&command, argc, argv, &args);
    if (code != CLI_OK)
        return code;
    if (args.help) {
        cli_help(&command);
        return CLI_OK;
    }
    if (args.npos != 3)
        return cli_error(CLI_USAGE, "generate: expected KIND N OUT.nc[:VAR], got %d argument%s (see minv generate --help)",
                         args.npos, args.npos == 1 ? "" : "s");
    memset(&p, 0, sizeof p);
    if (!gen_kind_from(args.pos[0], &p.kind))
        return cli_error(CLI_USAGE, "generate: unknown kind '%s': expected soar, gaussian, kms, spd, general or tridiagonal", args.pos[0]);
    if (!cli_parse_int(args.pos[1], 1, INT32_MAX, &p.n))
        return cli_error(CLI_USAGE, "generate: N = '%s': expected an integer >= 1", args.pos[1]);
    if ((v = cli_value(&args, "batch")) && !cli_parse_int(v, 1, INT32_MAX, &batch))
        return cli_error(CLI_USAGE, "generate: --batch %s: expected an integer >= 1", v);
    if ((code = params_from(&args, &p)) != CLI_OK || (code = spec_from(&args, &p, batch, &spec)) != CLI_OK ||
        (code = cli_split(args.pos[2], "output", 0, &out)) != CLI_OK)
        goto cleanup;
    const char *var = out.var ? out.var : "A";

    /* a CPU context: generating needs no GPU, only the writer's errors and progress */
    minv_options_default(&opts);
    opts.backend = MINV_BACKEND_CPU;
    minv_status st = minv_create(&ctx, &opts);
    if (st == MINV_SUCCESS && !cli_flag(&args, "quiet"))
        minv_set_progress(ctx, cli_progress, NULL);
    if (st == MINV_SUCCESS)
        st = minv_mat_alloc(ctx, &m, MINV_R64, p.n, p.cols);
    cli_guard_outputs(minv_nc_remove_temporaries);
    minv_nc_lock();
    if (st == MINV_SUCCESS)
        st = minv_nc_sink_open(ctx, &sink, out.path, var, &spec, batch > 0 ? batch : 1);
    for (int64_t t = 0; st == MINV_SUCCESS && t < (batch > 0 ? batch : 1); t++) {
        gen_fill(&p, t, m.data, m.ld);
        st = minv_nc_sink_write(ctx, &sink, t, &m);
    }
    if (st == MINV_SUCCESS) {
        char what[512], generator[512];
        size_t len = 64;
        gen_describe(&p, what, sizeof what);
        if (batch > 0)
            snprintf(what + strlen(what), sizeof what - strlen(what), "; matrix t of Time scaled by 1 + t/10");
        snprintf(generator, sizeof generator, "%s n=%lld cols=%lld grid=%lldx%lld length=%g rho=%g seed=%llu",
                 gen_kind_name(p.kind), (long long)p.n, (long long)p.cols, (long long)p.nx, (long long)p.ny, p.length,
                 p.rho, (unsigned long long)p.seed);
        for (int k = 0; k < argc; k++)
            len += strlen(argv[k]) + 1;
        history = malloc(len);
        if (history) {
            strcpy(history, "minv generate");
            for (int k = 0; k < argc; k++)
                strcat(strcat(history, " "), argv[k]);
        }
        minv_nc_attr attrs[] = {{"long_name", what, NULL, 0}, {"minv_generator", generator, NULL, 0}};
        st = minv_nc_sink_commit(ctx, &sink, attrs, 2, history ? history : "minv generate");
    }
    minv_nc_sink_abort(&sink);
    minv_nc_unlock();
    cli_progress_done();
    if (st != MINV_SUCCESS) {
        code = ctx ? cli_fail(ctx, st) : cli_error(CLI_FAILED, "%s", minv_status_string(st));
        goto cleanup;
    }
    printf("minv generate: %s %lld x %lld%s -> '%s':%s (%s), %.1f MB in %.3f s\n", gen_kind_name(p.kind), (long long)p.n,
           (long long)p.cols, batch > 0 ? " batch" : "", out.path, var, minv_nc_type_name(spec.xtype), sink.bytes / 1e6,
           sink.seconds);
cleanup:
    minv_mat_free(&m);
    minv_destroy(ctx);
    cli_path_var_free(&out);
    free(history);
    return code;
}
