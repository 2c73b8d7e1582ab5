/* Whether threads help small SPD calls on the CPU (issue 18: may the CPU take a GPU context's
 * host calls at n <= 512?): LAPACK's dpotrf + dpotri / dpotrs with the BLAS on 1 ... 16 threads
 * (OpenBLAS's openblas_set_num_threads, where the BLAS is OpenBLAS), and minv's CPU context with
 * cpu_threads 1, 4 and 16; medians of 41 calls, the input copies timed as minv's own are.
 *   bench_small_cpu          (KMS(0.5) matrices, n = 128 ... 512, 30 right-hand sides) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "minv.h"
void dpotrf_(const char *, const int *, double *, const int *, int *);
void dpotri_(const char *, const int *, double *, const int *, int *);
void dpotrs_(const char *, const int *, const int *, const double *, const int *, double *, const int *, int *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
static double med(double *v, int k) { qsort(v, k, sizeof *v, cmp); return v[k / 2]; }
int main(void) {
    enum { R = 41, NRHS = 30 };
    void (*set_threads)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    int sizes[] = {128, 256, 384, 512};
    for (int si = 0; si < 4; si++) {
        int n = sizes[si], info, nrhs = NRHS;
        double *a = malloc(sizeof(double) * n * n), *w = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * NRHS),
               *y = malloc(sizeof(double) * n * NRHS), t[R];
        for (int j = 0; j < n; j++) for (int i = 0; i < n; i++) { int d = abs(i - j); double v = 1; for (int k = 0; k < d && v > 1e-300; k++) v *= 0.5; a[j * n + i] = v; }
        for (int i = 0; i < n * NRHS; i++) b[i] = i % 17 - 8;
        for (int op = 0; op < 2; op++) {
            printf("n %d %s: LAPACK", n, op ? "solve30" : "invert");
            int th[] = {1, 2, 4, 8, 16};
            for (int ti = 0; ti < (set_threads ? 5 : 1); ti++) {
                if (set_threads)
                    set_threads(th[ti]);
                else
                    printf(" (the BLAS's own threads)");
                for (int k = 0; k < R; k++) {
                    double t0 = now();
                    memcpy(w, a, sizeof(double) * n * n);
                    dpotrf_("L", &n, w, &n, &info);
                    if (op == 0) dpotri_("L", &n, w, &n, &info);
                    else { memcpy(y, b, sizeof(double) * n * NRHS); dpotrs_("L", &n, &nrhs, w, &n, y, &n, &info); }
                    t[k] = now() - t0;
                }
                printf(" %dT %.1f", th[ti], med(t, R) * 1e6);
            }
            if (set_threads)
                set_threads(16);
            int cth[] = {1, 4, 16};
            printf(" | minv CPU");
            for (int ci = 0; ci < 3; ci++) {
                minv_options o; minv_options_default(&o); o.backend = MINV_BACKEND_CPU; o.cpu_threads = cth[ci];
                minv_context *ctx; minv_create(&ctx, &o);
                minv_report r;
                for (int k = 0; k < R; k++) {
                    double t0 = now();
                    if (op == 0) minv_invert_d(ctx, MINV_METHOD_AUTO, n, a, n, w, n, &r);
                    else minv_solve_d(ctx, MINV_METHOD_AUTO, n, NRHS, a, n, b, n, y, n, &r);
                    t[k] = now() - t0;
                }
                printf(" %dT %.1f", cth[ci], med(t, R) * 1e6);
                minv_destroy(ctx);
            }
            printf(" us\n");
        }
        free(a); free(w); free(b); free(y);
    }
    return 0;
}
