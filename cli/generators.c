/* Test matrices for `minv generate`. Every entry is a function of (seed, i, j), so the parallel
 * loops give the same matrix on any number of threads; member t of a batch is member 0 times
 * 1 + t/10, as --help and the long_name say.
 *   soar        c(r) = (1 + r/L) exp(-r/L), second-order auto-regressive correlation
 *   gaussian    c(r) = exp(-r^2 / (2 L^2)) (badly conditioned beyond L ~ 2)
 *   kms         a_ij = rho^|i-j| (Kac-Murdock-Szego); its inverse is tridiagonal
 *   spd         random symmetric, off-diagonal in [-1, 1), diagonal = row sum of |.| + 1
 *   general     random in [-1, 1)
 *   tridiagonal diagonal in [3, 5), off-diagonals in [-1, 1): strictly diagonally dominant
 * with r the distance between grid points i and j on an nx x ny grid of unit spacing. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "generators.h"

static const char *const names[] = {"soar", "gaussian", "kms", "spd", "general", "tridiagonal"};

int gen_kind_from(const char *name, gen_kind *kind) {
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
        if (strcmp(name, names[k]) == 0) {
            *kind = (gen_kind)k;
            return 1;
        }
    return 0;
}

const char *gen_kind_name(gen_kind kind) { return names[kind]; }

int gen_is_symmetric(gen_kind kind) { return kind == GEN_SOAR || kind == GEN_GAUSSIAN || kind == GEN_KMS || kind == GEN_SPD; }

/* splitmix64 of the entry's coordinates: uniform in [-1, 1) */
static double uniform(uint64_t seed, int64_t i, int64_t j) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ULL ^ (uint64_t)i * 0x94D049BB133111EBULL ^ (uint64_t)j * 0xBF58476D1CE4E5B9ULL;
    for (int r = 0; r < 2; r++) {
        z += 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
    }
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

static double distance(const gen_params *p, int64_t i, int64_t j) {
    double dx = (double)(i % p->nx - j % p->nx), dy = (double)(i / p->nx - j / p->nx);
    return sqrt(dx * dx + dy * dy);
}

/* Entry (i, j) of a symmetric kind, i >= j (the diagonal of spd is set afterwards). */
static double symmetric_entry(const gen_params *p, int64_t i, int64_t j) {
    switch (p->kind) {
    case GEN_SOAR: {
        double r = distance(p, i, j) / p->length;
        return (1 + r) * exp(-r);
    }
    case GEN_GAUSSIAN: {
        double r = distance(p, i, j) / p->length;
        return exp(-0.5 * r * r);
    }
    case GEN_KMS: return pow(p->rho, (double)(i - j));
    default: return i == j ? 0 : uniform(p->seed, i, j);
    }
}

static double general_entry(const gen_params *p, int64_t i, int64_t j) {
    if (p->kind == GEN_GENERAL)
        return uniform(p->seed, i, j);
    if (i == j) /* tridiagonal */
        return 4 + uniform(p->seed, i, j);
    return i - j == 1 || j - i == 1 ? uniform(p->seed, i, j) : 0;
}

void gen_fill(const gen_params *p, int64_t member, double *a, int64_t lda) {
    const int64_t n = p->n;
    const double scale = 1 + (double)member / 10;
    if (gen_is_symmetric(p->kind)) {
#pragma omp parallel for schedule(dynamic, 16)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = j; i < n; i++)
                a[i + j * lda] = a[j + i * lda] = scale * symmetric_entry(p, i, j);
        if (p->kind == GEN_SPD) {
#pragma omp parallel for
            for (int64_t i = 0; i < n; i++) {
                double sum = 0;
                for (int64_t j = 0; j < n; j++)
                    sum += fabs(a[i + j * lda]);
                a[i + i * lda] = sum + scale;
            }
        }
        return;
    }
#pragma omp parallel for
    for (int64_t j = 0; j < p->cols; j++)
        for (int64_t i = 0; i < n; i++)
            a[i + j * lda] = scale * general_entry(p, i, j);
}

void gen_describe(const gen_params *p, char *buf, size_t len) {
    char grid[96];
    if (p->ny > 1)
        snprintf(grid, sizeof grid, "on a %lld x %lld grid", (long long)p->nx, (long long)p->ny);
    else
        snprintf(grid, sizeof grid, "on a line of %lld points", (long long)p->n);
    switch (p->kind) {
    case GEN_SOAR:
        snprintf(buf, len, "SOAR correlation (1 + r/L) exp(-r/L), L = %g grid spacings, %s", p->length, grid);
        break;
    case GEN_GAUSSIAN:
        snprintf(buf, len, "Gaussian correlation exp(-r^2 / (2 L^2)), L = %g grid spacings, %s", p->length, grid);
        break;
    case GEN_KMS: snprintf(buf, len, "KMS matrix rho^|i-j|, rho = %g", p->rho); break;
    case GEN_SPD:
        snprintf(buf, len, "random symmetric positive definite (diagonally dominant), seed %llu", (unsigned long long)p->seed);
        break;
    case GEN_GENERAL: snprintf(buf, len, "random general matrix, entries in [-1, 1), seed %llu", (unsigned long long)p->seed); break;
    case GEN_TRIDIAGONAL:
        snprintf(buf, len, "random tridiagonal matrix, diagonally dominant, seed %llu", (unsigned long long)p->seed);
        break;
    }
}
