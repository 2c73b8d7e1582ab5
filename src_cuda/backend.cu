// The GPU backend's table of algorithms. Host data is uploaded by each algorithm (or found
// where the analysis left it); methods the table lacks run on the CPU, and the report says so.
#include "batched.cuh"

namespace {

/* Each algorithm the core calls runs in its own workspace scope: when it returns, on any
 * path, every slot it reserved is released, so that the core's next step (a retry by LU,
 * the CPU fallback's report, the reconditioning) starts with none held. */
template <auto F> struct scoped;
template <typename... Args, minv_status (*F)(minv_context *, Args...)> struct scoped<F> {
    static minv_status call(minv_context *ctx, Args... args) {
        minv_gpu_scope scope(ctx);
        return F(ctx, args...);
    }
};
#define SCOPED(f) scoped<f>::call

minv_status lu_invert(minv_context *c, const minv_mat *a, minv_mat *x, const minv_analysis *an, minv_report *r) {
    return minv_gpu_invert_host(c, minv_gpu_lu_invert, a, x, an, r);
}
minv_status lu_solve(minv_context *c, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                     minv_report *r) {
    return minv_gpu_solve_host(c, minv_gpu_lu_solve, a, b, x, an, r);
}

minv_status cholesky_solve_mixed(minv_context *c, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                 const minv_analysis *an, minv_report *r) {
    return minv_gpu_solve_host(c, minv_gpu_cholesky_solve_mixed, a, b, x, an, r);
}
minv_status lu_solve_mixed(minv_context *c, const minv_mat *a, const minv_mat *b, minv_mat *x, const minv_analysis *an,
                           minv_report *r) {
    return minv_gpu_solve_host(c, minv_gpu_lu_solve_mixed, a, b, x, an, r);
}

/* Gauss-Jordan where it measured faster than LU: inversions from n = 8192 on one GPU, solves
 * only over two GPUs or more from n = 16384 (bench/results/README.md, "Blocked Gauss-Jordan"
 * and "Several GPUs" give the figures). */
minv_method general_method(const minv_context *ctx, int64_t n, int64_t nrhs) {
    if (nrhs == 0 && n >= 8192) return MINV_METHOD_GAUSS_JORDAN;
    if (nrhs > 0 && ctx->device_count >= 2 && n >= 16384) return MINV_METHOD_GAUSS_JORDAN;
    return MINV_METHOD_LU;
}

minv_backend_ops make_table() {
    minv_backend_ops t = {};
    t.name = "gpu";
    t.general_method = general_method;
    t.computes_residual = 1;
    t.analyze = SCOPED(minv_gpu_analyze);
    t.invert_tridiagonal = SCOPED(minv_gpu_tridiagonal_invert_host);
    t.invert_tridiagonal_device = SCOPED(minv_gpu_tridiagonal_invert_device);
    t.download_vector = minv_gpu_download_vector;
    t.invert[MINV_METHOD_CHOLESKY] = SCOPED(minv_gpu_cholesky_invert_host);
    t.invert[MINV_METHOD_LU] = SCOPED(lu_invert);
    t.invert[MINV_METHOD_GAUSS_JORDAN] = SCOPED(minv_gpu_gauss_jordan_invert_host);
    t.invert[MINV_METHOD_ITERATIVE] = SCOPED(minv_gpu_iterative_invert_host);
    t.invert[MINV_METHOD_TRIDIAGONAL] = SCOPED(minv_tridiagonal_invert_dense);
    t.invert[MINV_METHOD_GJ_BASELINE] = SCOPED(minv_gpu_gj_baseline_invert_host);
    t.solve[MINV_METHOD_CHOLESKY] = SCOPED(minv_gpu_cholesky_solve_host);
    t.solve[MINV_METHOD_LU] = SCOPED(lu_solve);
    t.solve[MINV_METHOD_GAUSS_JORDAN] = SCOPED(minv_gpu_gauss_jordan_solve_host);
    t.analyze_device = SCOPED(minv_gpu_analyze_device);
    t.invert_device[MINV_METHOD_CHOLESKY] = SCOPED(minv_gpu_cholesky_invert);
    t.invert_device[MINV_METHOD_LU] = SCOPED(minv_gpu_lu_invert);
    t.invert_device[MINV_METHOD_GAUSS_JORDAN] = SCOPED(minv_gpu_gauss_jordan_invert);
    t.invert_device[MINV_METHOD_ITERATIVE] = SCOPED(minv_gpu_iterative_invert);
    t.invert_device[MINV_METHOD_TRIDIAGONAL] = SCOPED(minv_tridiagonal_invert_dense_device);
    t.solve_device[MINV_METHOD_CHOLESKY] = SCOPED(minv_gpu_cholesky_solve);
    t.solve_device[MINV_METHOD_LU] = SCOPED(minv_gpu_lu_solve);
    t.solve_device[MINV_METHOD_GAUSS_JORDAN] = SCOPED(minv_gpu_gauss_jordan_solve);
    t.eigen = SCOPED(minv_gpu_eigen);
    t.energy = minv_gpu_energy;
    t.all_finite_device = SCOPED(minv_gpu_all_finite);
    t.invert_batched = SCOPED(minv_gpu_invert_batched);
    t.invert_batched_device = SCOPED(minv_gpu_invert_batched_device);
    t.solve_batched = SCOPED(minv_gpu_solve_batched);
    t.solve_batched_device = SCOPED(minv_gpu_solve_batched_device);
    t.end_call = minv_gpu_end_call;
    t.set_stream = minv_gpu_set_stream;
    t.begin_device_call = minv_gpu_begin_device_call;
    t.device_alloc = minv_gpu_own_alloc;
    t.device_free = minv_gpu_own_free;
    t.banded_upload = minv_gpu_banded_upload;
    t.banded_download = minv_gpu_banded_download;
    t.host_register = SCOPED(minv_gpu_host_register);
    t.host_unregister = SCOPED(minv_gpu_host_unregister);
    t.solve_mixed[MINV_METHOD_CHOLESKY] = SCOPED(cholesky_solve_mixed);
    t.solve_mixed[MINV_METHOD_LU] = SCOPED(lu_solve_mixed);
    t.solve_mixed_device[MINV_METHOD_CHOLESKY] = SCOPED(minv_gpu_cholesky_solve_mixed);
    t.solve_mixed_device[MINV_METHOD_LU] = SCOPED(minv_gpu_lu_solve_mixed);
    return t;
}

} // namespace

extern "C" const minv_backend_ops minv_gpu_backend = make_table();
