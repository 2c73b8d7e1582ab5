/* The CPU backend's table of algorithms. */
#include "cpu.h"

const minv_backend_ops minv_cpu_backend = {
    .name = "cpu",
    .analyze = minv_cpu_analyze,
    .invert_tridiagonal = minv_cpu_tridiagonal_invert,
    .invert = {[MINV_METHOD_CHOLESKY] = minv_cpu_cholesky_invert,
               [MINV_METHOD_LU] = minv_cpu_lu_invert,
               [MINV_METHOD_GAUSS_JORDAN] = minv_cpu_gauss_jordan_invert,
               [MINV_METHOD_ITERATIVE] = minv_cpu_iterative_invert,
               [MINV_METHOD_TRIDIAGONAL] = minv_tridiagonal_invert_dense,
               [MINV_METHOD_GJ_BASELINE] = minv_cpu_gj_baseline_invert},
    .solve = {[MINV_METHOD_CHOLESKY] = minv_cpu_cholesky_solve,
              [MINV_METHOD_LU] = minv_cpu_lu_solve,
              [MINV_METHOD_GAUSS_JORDAN] = minv_cpu_gauss_jordan_solve},
    .solve_mixed = {[MINV_METHOD_CHOLESKY] = minv_cpu_cholesky_solve_mixed,
                    [MINV_METHOD_LU] = minv_cpu_lu_solve_mixed},
    .eigen = minv_cpu_eigen,
    .invert_batched = minv_cpu_invert_batched,
    .solve_batched = minv_cpu_solve_batched,
};
