/* Invert a SOAR background-error correlation matrix on a 2-D grid with minv's C API, and
 * print the report. Usage: example_invert_soar [grid_edge]  (n = grid_edge^2) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "minv.h"

int main(int argc, char **argv) {
    int64_t edge = argc > 1 ? atoll(argv[1]) : 40, n = edge * edge;
    double length = 3.0; /* correlation length in grid spacings */
    double *b = malloc(sizeof(double) * n * n), *binv = malloc(sizeof(double) * n * n);
    if (!b || !binv) {
        fprintf(stderr, "cannot allocate two %lld x %lld matrices\n", (long long)n, (long long)n);
        return 1;
    }
    /* SOAR: c(r) = (1 + r/L) exp(-r/L) */
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double dx = (double)(i % edge - j % edge), dy = (double)(i / edge - j / edge);
            double r = sqrt(dx * dx + dy * dy) / length;
            b[j * n + i] = (1 + r) * exp(-r);
        }

    minv_context *ctx;
    minv_status st = minv_create(&ctx, NULL);
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "minv_create: %s\n", minv_status_string(st));
        return 1;
    }
    minv_report rep;
    st = minv_invert_d(ctx, MINV_METHOD_AUTO, n, b, n, binv, n, &rep);
    if (st != MINV_SUCCESS) {
        fprintf(stderr, "minv_invert_d: %s\n", minv_last_error(ctx));
        return 1;
    }
    printf("n %lld  method %s  backend %s  %.3f s  %.1f GFLOP/s  residual %.2e  rcond %.2e\n%s\n",
           (long long)n, minv_method_name(rep.method), minv_backend_name(rep.backend), rep.seconds,
           rep.gflops, rep.residual, rep.rcond, rep.reason);
    /* the answer checked as a user would: B times a few columns of B^-1 gives those of I,
     * to ||e_j - B x_j||_inf / (||B||_inf ||x_j||_inf) of a few eps */
    double bnorm = 0, worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int64_t j = 0; j < n; j++) s += fabs(b[j * n + i]);
        bnorm = fmax(bnorm, s);
    }
    for (int64_t j = 0; j < n; j += n / 4 + 1) {
        double xnorm = 0, rnorm = 0;
        for (int64_t i = 0; i < n; i++) xnorm = fmax(xnorm, fabs(binv[j * n + i]));
        for (int64_t i = 0; i < n; i++) {
            double r = i == j ? 1 : 0;
            for (int64_t k = 0; k < n; k++) r -= b[k * n + i] * binv[j * n + k];
            rnorm = fmax(rnorm, fabs(r));
        }
        const double q = rnorm / (bnorm * xnorm);
        worst = q > worst || isnan(q) ? q : worst;
    }
    printf("check: ||e_j - B x_j||_inf / (||B||_inf ||x_j||_inf) = %.2e on sampled columns\n", worst);
    if (!(worst < 1e-12)) {
        fprintf(stderr, "the inverse is wrong: residual %.2e\n", worst);
        return 1;
    }
    minv_destroy(ctx);
    free(b);
    free(binv);
    return 0;
}
