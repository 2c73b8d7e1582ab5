/* The C side of test_c_agreement: the same computations through the C API alone, and the
 * layout of the structs the Fortran layer mirrors, as the C compiler sees them. */
#include <stddef.h>
#include <stdint.h>

#include "minv.h"

/* sizeof and the offset of every field of minv_options, minv_report, minv_analysis,
 * minv_file_options and minv_batch_report, in declaration order; returns how many values it
 * wrote. */
int64_t ref_layout(int64_t *out) {
    int64_t k = 0;
#define SIZE(T) out[k++] = (int64_t)sizeof(T)
#define OFF(T, f) out[k++] = (int64_t)offsetof(T, f)
    SIZE(minv_options);
    OFF(minv_options, backend); OFF(minv_options, device); OFF(minv_options, cpu_threads);
    OFF(minv_options, ndevices); OFF(minv_options, device_memory); OFF(minv_options, devices);
    SIZE(minv_report);
    OFF(minv_report, method); OFF(minv_report, backend); OFF(minv_report, n);
    OFF(minv_report, nrhs); OFF(minv_report, iterations); OFF(minv_report, info);
    OFF(minv_report, residual); OFF(minv_report, residual_kind); OFF(minv_report, reserved);
    OFF(minv_report, rcond); OFF(minv_report, seconds); OFF(minv_report, flops);
    OFF(minv_report, gflops); OFF(minv_report, energy); OFF(minv_report, history_len);
    OFF(minv_report, residual_history);
    OFF(minv_report, stages.read_seconds); OFF(minv_report, stages.upload_seconds);
    OFF(minv_report, stages.compute_seconds); OFF(minv_report, stages.download_seconds);
    OFF(minv_report, stages.write_seconds); OFF(minv_report, stages.read_bytes);
    OFF(minv_report, stages.upload_bytes); OFF(minv_report, stages.download_bytes);
    OFF(minv_report, stages.write_bytes); OFF(minv_report, device); OFF(minv_report, fallbacks); OFF(minv_report, recondition);
    OFF(minv_report, reserved2); OFF(minv_report, recondition_shift); OFF(minv_report, condition_before);
    OFF(minv_report, condition_after); OFF(minv_report, matrices); OFF(minv_report, worst);
    OFF(minv_report, reason); OFF(minv_report, asymmetry);
    SIZE(minv_analysis);
    OFF(minv_analysis, n); OFF(minv_analysis, finite); OFF(minv_analysis, symmetric);
    OFF(minv_analysis, diag_dominant); OFF(minv_analysis, tridiagonal);
    OFF(minv_analysis, diag_positive); OFF(minv_analysis, reserved);
    OFF(minv_analysis, first_bad_row); OFF(minv_analysis, first_bad_col);
    OFF(minv_analysis, lower_bandwidth); OFF(minv_analysis, upper_bandwidth);
    OFF(minv_analysis, asymmetry); OFF(minv_analysis, norm_1); OFF(minv_analysis, norm_inf);
    OFF(minv_analysis, norm_fro); OFF(minv_analysis, diag_min); OFF(minv_analysis, diag_max);
    OFF(minv_analysis, auto_method);
    SIZE(minv_file_options);
    OFF(minv_file_options, precision); OFF(minv_file_options, deflate_level);
    OFF(minv_file_options, nslice); OFF(minv_file_options, overwrite);
    OFF(minv_file_options, slice); OFF(minv_file_options, tile);
    OFF(minv_file_options, fortran_order); OFF(minv_file_options, batch_chunk);
    OFF(minv_file_options, format); OFF(minv_file_options, allow_remote);
    OFF(minv_file_options, index_base); OFF(minv_file_options, reserved);
    SIZE(minv_batch_report);
    OFF(minv_batch_report, method); OFF(minv_batch_report, backend); OFF(minv_batch_report, nbatch);
    OFF(minv_batch_report, k); OFF(minv_batch_report, nrhs); OFF(minv_batch_report, cholesky_count);
    OFF(minv_batch_report, failed); OFF(minv_batch_report, first_failed);
    OFF(minv_batch_report, first_status); OFF(minv_batch_report, reserved);
    OFF(minv_batch_report, first_info); OFF(minv_batch_report, residual); OFF(minv_batch_report, worst);
    OFF(minv_batch_report, residual_kind); OFF(minv_batch_report, reserved2); OFF(minv_batch_report, rcond);
    OFF(minv_batch_report, seconds); OFF(minv_batch_report, flops); OFF(minv_batch_report, gflops);
    OFF(minv_batch_report, stages.read_seconds); OFF(minv_batch_report, stages.upload_seconds);
    OFF(minv_batch_report, stages.compute_seconds); OFF(minv_batch_report, stages.download_seconds);
    OFF(minv_batch_report, stages.write_seconds); OFF(minv_batch_report, stages.read_bytes);
    OFF(minv_batch_report, stages.upload_bytes); OFF(minv_batch_report, stages.download_bytes);
    OFF(minv_batch_report, stages.write_bytes); OFF(minv_batch_report, device); OFF(minv_batch_report, fallbacks);
    OFF(minv_batch_report, reason);
#undef SIZE
#undef OFF
    return k;
}

/* One call on a fresh CPU context; `op` picks it: 0 invert, 1 invert in place (a becomes
 * the inverse), 2 solve. The report's info stays 0-based, as C gives it. */
static minv_status with_context(int op, int single, int method, int64_t n, int64_t k, void *a,
                                const void *b, void *x, minv_report *rep) {
    minv_options opts;
    minv_options_default(&opts);
    opts.backend = MINV_BACKEND_CPU;
    minv_context *ctx;
    minv_status st = minv_create(&ctx, &opts);
    if (st != MINV_SUCCESS)
        return st;
    minv_method m = (minv_method)method;
    if (op == 0)
        st = single ? minv_invert_s(ctx, m, n, a, n, x, n, rep) : minv_invert_d(ctx, m, n, a, n, x, n, rep);
    else if (op == 1)
        st = single ? minv_invert_inplace_s(ctx, m, n, a, n, rep) : minv_invert_inplace_d(ctx, m, n, a, n, rep);
    else
        st = single ? minv_solve_s(ctx, m, n, k, a, n, b, n, x, n, rep)
                    : minv_solve_d(ctx, m, n, k, a, n, b, n, x, n, rep);
    minv_destroy(ctx);
    return st;
}

int ref_invert_d(int method, int64_t n, double *a, double *x, minv_report *rep) {
    return with_context(0, 0, method, n, 0, a, NULL, x, rep);
}
int ref_invert_s(int method, int64_t n, float *a, float *x, minv_report *rep) {
    return with_context(0, 1, method, n, 0, a, NULL, x, rep);
}
int ref_invert_inplace_d(int method, int64_t n, double *a, minv_report *rep) {
    return with_context(1, 0, method, n, 0, a, NULL, NULL, rep);
}
int ref_invert_inplace_s(int method, int64_t n, float *a, minv_report *rep) {
    return with_context(1, 1, method, n, 0, a, NULL, NULL, rep);
}
int ref_solve_d(int method, int64_t n, int64_t k, double *a, const double *b, double *x,
                minv_report *rep) {
    return with_context(2, 0, method, n, k, a, b, x, rep);
}
int ref_solve_s(int method, int64_t n, int64_t k, float *a, const float *b, float *x,
                minv_report *rep) {
    return with_context(2, 1, method, n, k, a, b, x, rep);
}
