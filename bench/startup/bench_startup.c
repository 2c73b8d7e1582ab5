/* Process start-up, measured: runs each program given (argv[2...]) argv[1] times, in turn so
 * that the machine's load falls on all alike, and prints as a markdown table the median, 10th
 * and 90th percentile of the wall time from spawn to exit and of the CPU time the process used
 * (user + system: what the dynamic loader and the libraries' initialisers cost, unaffected by
 * other processes on a loaded machine), in milliseconds, with each median's difference to the
 * first program's. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One run of path: its wall and CPU time in ms; 0 when it exited with 0. */
static int run(const char *path, double *wall, double *cpu) {
    char *argv[] = {(char *)path, NULL};
    pid_t pid;
    int status;
    struct rusage ru;
    double t0 = now();
    if (posix_spawn(&pid, path, NULL, NULL, argv, environ) != 0 || wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *wall = (now() - t0) * 1e3;
    *cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static double median(double *s, int n) {
    qsort(s, (size_t)n, sizeof *s, by_value);
    return s[n / 2];
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNS PROGRAM...\n", argv[0]);
        return 1;
    }
    int runs = atoi(argv[1]), np = argc - 2;
    double *wall = malloc(sizeof *wall * (size_t)runs * (size_t)np);
    double *cpu = malloc(sizeof *cpu * (size_t)runs * (size_t)np);
    if (runs < 1 || !wall || !cpu)
        return 1;
    for (int r = -1; r < runs; r++) /* r = -1: warm-up, so that the page cache holds every library */
        for (int p = 0; p < np; p++) {
            size_t k = (size_t)p * runs + (r < 0 ? 0 : r);
            if (run(argv[2 + p], &wall[k], &cpu[k]) != 0) {
                fprintf(stderr, "%s failed\n", argv[2 + p]);
                return 1;
            }
        }
    printf("| program | wall median ms | wall p10-p90 ms | CPU median ms | CPU p10-p90 ms | wall, CPU median - first's |\n"
           "|---|---|---|---|---|---|\n");
    double wall0 = 0, cpu0 = 0;
    for (int p = 0; p < np; p++) {
        double *w = wall + (size_t)p * runs, *c = cpu + (size_t)p * runs;
        double wm = median(w, runs), cm = median(c, runs);
        if (p == 0) wall0 = wm, cpu0 = cm;
        printf("| %s | %.2f | %.2f-%.2f | %.2f | %.2f-%.2f | %+.2f, %+.2f |\n", argv[2 + p], wm, w[runs / 10],
               w[runs * 9 / 10], cm, c[runs / 10], c[runs * 9 / 10], wm - wall0, cm - cpu0);
    }
    free(wall);
    free(cpu);
    return 0;
}
