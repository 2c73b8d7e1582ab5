/* A^-1 of an SPD A from its Cholesky factor L, in place in the lower triangle, as LAPACK's
 * potri: L^-1, then L^-T L^-1 (lauum). L^-1 goes by halves, both diagonal blocks inverted and
 * then L21 := -L22^-1 L21 L11^-1 by two triangular products, down to blocks that trtri
 * inverts: OpenBLAS's trtri, which potri calls, spends its time in level-2 loops, and
 * potri took 1.3-1.9x as long as this at n = 128-512 on the dev VM (1.05x at 1000). */
#include "cpu.h"
#include "../lapack.h"

enum { TRTRI_BLOCK = 32 }; /* diagonal blocks this small go to trtri */

/* L^-1 in place; LAPACK's info (the 1-based column of a zero diagonal entry). */
static int inverse_lower(minv_dtype t, int64_t n, void *l, int64_t ld) {
    if (n <= TRTRI_BLOCK)
        return la_trtri(t, n, l, ld);
    const int64_t n1 = n / 2, n2 = n - n1;
    char *l11 = l, *l21 = l11 + (size_t)n1 * (size_t)t, *l22 = l21 + (size_t)n1 * (size_t)ld * (size_t)t;
    int info = inverse_lower(t, n1, l11, ld);
    if (info == 0 && (info = inverse_lower(t, n2, l22, ld)) != 0)
        info += (int)n1;
    if (info != 0)
        return info;
    la_trmm(t, 'R', 'L', 'N', 'N', n2, n1, -1.0, l11, ld, l21, ld);
    la_trmm(t, 'L', 'L', 'N', 'N', n2, n1, 1.0, l22, ld, l21, ld);
    return 0;
}

int minv_cpu_potri(minv_dtype t, int64_t n, void *l, int64_t ld) {
    const int info = inverse_lower(t, n, l, ld);
    return info != 0 ? info : la_lauum(t, n, l, ld);
}
