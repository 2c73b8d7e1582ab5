/* Test matrices for `minv generate`: covariances of data assimilation and classic test
 * matrices, reproducible from a seed whatever the number of threads. */
#ifndef MINV_CLI_GENERATORS_H
#define MINV_CLI_GENERATORS_H

#include <stdint.h>

typedef enum { GEN_SOAR, GEN_GAUSSIAN, GEN_KMS, GEN_SPD, GEN_GENERAL, GEN_TRIDIAGONAL } gen_kind;

typedef struct {
    gen_kind kind;
    int64_t n, cols;   /* rows; columns (n, or k for a rectangular `general`) */
    int64_t nx, ny;    /* the grid of soar and gaussian: nx * ny = n (ny = 1 on a line) */
    double length;     /* soar, gaussian: correlation length in grid spacings */
    double rho;        /* kms */
    uint64_t seed;     /* spd, general, tridiagonal */
} gen_params;

/* Parses a kind name ("soar", ...); returns 0 if unknown. */
int gen_kind_from(const char *name, gen_kind *kind);
const char *gen_kind_name(gen_kind kind);
int gen_is_symmetric(gen_kind kind);
/* Member `member` of a batch (0 for a single matrix) into the column-major n x cols a: the
 * matrix times (1 + member / 10), random kinds included. */
void gen_fill(const gen_params *p, int64_t member, double *a, int64_t lda);
/* What it is, for the long_name attribute. */
void gen_describe(const gen_params *p, char *buf, size_t len);

#endif
