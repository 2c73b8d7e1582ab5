/* Small helpers: clocks, machine epsilon, matrix buffers. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

double minv_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* GCC expands a memset or memcpy of a known or bounded size inline as rep stosq / movsq, which
 * took 80-120 ns for a report's 720 bytes on the development VM (AMD EPYC under KVM) where the
 * C library's took 20: the size is not known here, so these are the library's. */
void minv_zero(void *p, size_t bytes) { memset(p, 0, bytes); }

void minv_copy_bytes(void *to, const void *from, size_t bytes) { memcpy(to, from, bytes); }

double minv_eps(minv_dtype dtype) { return dtype == MINV_R64 ? DBL_EPSILON : FLT_EPSILON; }

minv_status minv_mat_alloc(minv_context *ctx, minv_mat *m, minv_dtype dtype, int64_t rows,
                           int64_t cols) {
    m->dtype = dtype;
    m->rows = rows;
    m->cols = cols;
    m->ld = rows > 0 ? rows : 1;
    m->data = NULL;
    size_t count = (size_t)m->ld * (size_t)(cols > 0 ? cols : 1);
    if ((uint64_t)m->ld > SIZE_MAX / (uint64_t)(cols > 0 ? cols : 1) / (uint64_t)dtype)
        return minv_fail(ctx, MINV_ERR_ALLOC, "%lld x %lld matrix exceeds the address space",
                         (long long)rows, (long long)cols);
    const size_t bytes = count * (size_t)dtype;
    m->data = minv_alloc_large(bytes);
    if (!m->data)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %.3g GB for a %lld x %lld work matrix",
                         (double)count * (double)dtype / 1e9, (long long)rows, (long long)cols);
    return MINV_SUCCESS;
}

void *minv_alloc_large(size_t bytes) {
    void *p = malloc(bytes);
#if defined(MADV_HUGEPAGE)
    /* faulting a fresh large block in 4 KiB pages costs as much as filling it: the whole
     * 2 MiB pages inside the block are asked for (a refusal costs only the small pages' faults) */
    const size_t huge = (size_t)2 << 20;
    if (p && bytes >= 8 * huge) {
        const uintptr_t first = ((uintptr_t)p + huge - 1) / huge * huge, end = ((uintptr_t)p + bytes) / huge * huge;
        madvise((void *)first, end - first, MADV_HUGEPAGE);
    }
#endif
    return p;
}

void minv_mat_free(minv_mat *m) {
    free(m->data);
    m->data = NULL;
}

void minv_mat_copy(const minv_mat *src, minv_mat *dst) {
    size_t col_bytes = (size_t)src->rows * (size_t)src->dtype;
    if (src->data == dst->data && src->ld == dst->ld)
        return;
    for (int64_t j = 0; j < src->cols; j++)
        memcpy(minv_at(dst, 0, j), minv_at(src, 0, j), col_bytes);
}

/* First NaN or Inf in column-major order; returns 0 and sets (*bad_i, *bad_j) if found. A
 * column is first summed as x * 0, which is NaN exactly when it holds a NaN or Inf and
 * vectorises; only a column that fails is searched. */
int minv_all_finite(const minv_mat *m, int64_t *bad_i, int64_t *bad_j, double *value) {
    for (int64_t j = 0; j < m->cols; j++) {
        double probe = 0;
        if (m->dtype == MINV_R64) {
            const double *c = (const double *)minv_at(m, 0, j);
#pragma omp simd reduction(+ : probe)
            for (int64_t i = 0; i < m->rows; i++) probe += c[i] * 0.0;
        } else {
            const float *c = (const float *)minv_at(m, 0, j);
#pragma omp simd reduction(+ : probe)
            for (int64_t i = 0; i < m->rows; i++) probe += (double)c[i] * 0.0;
        }
        if (probe == 0)
            continue;
        for (int64_t i = 0; i < m->rows; i++) {
            double v = m->dtype == MINV_R64 ? *(const double *)minv_at(m, i, j)
                                            : (double)*(const float *)minv_at(m, i, j);
            if (!isfinite(v)) {
                *bad_i = i;
                *bad_j = j;
                *value = v;
                return 0;
            }
        }
    }
    return 1;
}

void minv_mat_mirror_lower(minv_mat *a) {
    const size_t es = (size_t)a->dtype;
    const int64_t n = a->rows, tile = 64;
    /* Tiles keep the strided reads in cache. */
    for (int64_t jj = 0; jj < n; jj += tile)
        for (int64_t ii = jj; ii < n; ii += tile)
            for (int64_t j = jj; j < jj + tile && j < n; j++)
                for (int64_t i = ii > j + 1 ? ii : j + 1; i < ii + tile && i < n; i++)
                    memcpy(minv_at(a, j, i), minv_at(a, i, j), es);
}
