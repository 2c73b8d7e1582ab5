#include "bench_mpi_common.h"
#include "minv_commit.h" /* the build's commit: a copy of the tree may carry a stale .git */

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int bm_rank, bm_size, bm_warmup = 1;

void bm_init(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bm_size);
    bm_warmup = atoi(bm_option(*argc, *argv, "warmup", "1"));
}

static void cpu_model(char *buf, size_t len) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, len, "unknown CPU");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *v = strchr(line, ':');
            snprintf(buf, len, "%s", v ? v + 2 : line);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
}

void bm_header(int argc, char **argv) {
    if (bm_rank != 0)
        return;
    char cpu[256], host[128] = "", date[64];
    time_t now = time(NULL);
    struct tm tm;
    cpu_model(cpu, sizeof cpu);
    gethostname(host, sizeof host);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
    printf("# machine: %s, %ld cores, %s; date: %s; commit: %s; command: mpirun -np %d", cpu, sysconf(_SC_NPROCESSORS_ONLN),
           host, date, MINV_COMMIT, bm_size);
    for (int i = 0; i < argc; i++) printf(" %s", i == 0 ? (strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0]) : argv[i]);
    printf("\n");
}

const char *bm_option(int argc, char **argv, const char *name, const char *def) {
    const size_t len = strlen(name);
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) != 0 || strncmp(argv[i] + 2, name, len) != 0)
            continue;
        if (argv[i][2 + len] == '=')
            return argv[i] + 3 + len;
        if (argv[i][2 + len] == '\0')
            return i + 1 < argc ? argv[i + 1] : "";
    }
    return def;
}

int bm_list(const char *text, int64_t *out, int max) {
    int count = 0;
    for (const char *p = text; *p && count < max;) {
        char *end;
        out[count++] = strtoll(p, &end, 10);
        p = *end == ',' ? end + 1 : end + strlen(end);
    }
    return count;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The slowest rank's time of one call, after prepare (untimed) and a barrier. */
static double timed(void (*prepare)(void *), void (*call)(void *), void *arg) {
    if (prepare)
        prepare(arg);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    call(arg);
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static double median_of(double *t, int reps) {
    qsort(t, (size_t)reps, sizeof *t, by_value);
    return reps % 2 ? t[reps / 2] : (t[reps / 2 - 1] + t[reps / 2]) / 2;
}

double bm_median(int reps, void (*prepare)(void *), void (*call)(void *), void *arg) {
    double *t = malloc((size_t)reps * sizeof(double));
    if (bm_warmup)
        timed(prepare, call, arg);
    for (int r = 0; r < reps; r++) t[r] = timed(prepare, call, arg);
    const double m = median_of(t, reps);
    free(t);
    return m;
}

void bm_median_pair(int reps, void (*prep_a)(void *), void (*a)(void *), void (*prep_b)(void *), void (*b)(void *),
                    void *arg, double *ta, double *tb) {
    double *t = malloc(2 * (size_t)reps * sizeof(double));
    if (bm_warmup) {
        timed(prep_a, a, arg);
        timed(prep_b, b, arg);
    }
    for (int r = 0; r < reps; r++) {
        t[r] = timed(prep_a, a, arg);
        t[reps + r] = timed(prep_b, b, arg);
    }
    *ta = median_of(t, reps);
    *tb = median_of(t + reps, reps);
    free(t);
}

minv_context *bm_context(const char *backend, double device_gb) {
    minv_options o;
    minv_context *ctx = NULL;
    minv_mpi_options_default(MPI_COMM_WORLD, &o);
    o.backend = strcmp(backend, "gpu") == 0 ? MINV_BACKEND_GPU : MINV_BACKEND_CPU;
    o.device_memory = (int64_t)(device_gb * 1e9);
    int ok = minv_create(&ctx, &o) == MINV_SUCCESS, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (bm_rank == 0)
            fprintf(stderr, "bench: a rank cannot have a %s context\n", backend);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return ctx;
}

void bm_check(minv_context *ctx, minv_status st, const char *what) {
    if (st == MINV_SUCCESS)
        return;
    if (bm_rank == 0)
        fprintf(stderr, "bench: %s: %s\n", what, minv_last_error(ctx));
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* A reproducible value of entry (i, j), in [-1, 1). */
static double hashed(uint64_t i, uint64_t j) {
    uint64_t x = i * 0x9E3779B97F4A7C15ull ^ (j + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (double)(x >> 11) * 0x1p-52 - 1.0;
}

void bm_fill(const minv_mpi_layout *l, int spd, double *piece) {
    int64_t *rows = malloc((size_t)(l->local_rows > 0 ? l->local_rows : 1) * sizeof(int64_t));
    for (int64_t li = 0; li < l->local_rows; li++) rows[li] = minv_mpi_layout_row(l, li);
    /* threaded: a piece of order 10^5 takes minutes on one core */
#pragma omp parallel for schedule(static)
    for (int64_t lj = 0; lj < l->local_cols; lj++) {
        const int64_t j = minv_mpi_layout_col(l, lj);
        for (int64_t li = 0; li < l->local_rows; li++) {
            const int64_t i = rows[li];
            double v = spd ? hashed((uint64_t)(i < j ? i : j), (uint64_t)(i < j ? j : i)) : hashed((uint64_t)i, (uint64_t)j);
            if (i == j)
                v = (double)l->n + (spd ? 1.0 : v);
            piece[lj * l->lld + li] = v;
        }
    }
    free(rows);
}

size_t bm_piece_elems(const minv_mpi_layout *l) { return (size_t)l->lld * (size_t)(l->local_cols > 0 ? l->local_cols : 1); }

double *bm_alloc_piece(const minv_mpi_layout *l) {
    double *p = malloc(bm_piece_elems(l) * sizeof(double));
    if (!p) {
        fprintf(stderr, "bench: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}
