// The out-of-core engine of the iterative inversion: A, V and the step's temporaries stay in
// pinned host memory and every product streams through the GPU (ooc_gemm.cu), as the paper's
// tiling does for matrices beyond device memory. The host form tries the in-core engine first.
#include <math.h>
#include <string.h>

#include "gpu.h"

namespace {

struct ooc_engine {
    minv_iter_engine base;
    minv_ooc_plan plan;
    minv_mat m[IT_BUFFERS]; /* pinned host */
    minv_mat *out;
};

minv_status product(minv_iter_engine *base, int dst, int x, int y, double alpha, int src, double beta, double gamma,
                    double *residual) {
    ooc_engine *e = (ooc_engine *)base;
    return minv_gpu_ooc_gemm(base->ctx, &e->plan, &e->m[x], &e->m[y], alpha, src == IT_NONE ? NULL : &e->m[src],
                             beta, gamma, &e->m[dst], residual);
}

template <typename T> void host_guess(const minv_mat *a, minv_mat *d, minv_guess kind, double scale) {
    const int64_t n = a->rows;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n; j++) {
        T *col = (T *)minv_at(d, 0, j);
        memset(col, 0, (size_t)n * sizeof(T));
        col[j] = kind == MINV_GUESS_DIAGONAL ? T(1) / *(const T *)minv_at(a, j, j) : (T)scale;
    }
}

minv_status guess(minv_iter_engine *base, int dst, minv_guess kind, double scale) {
    ooc_engine *e = (ooc_engine *)base;
    if (kind == MINV_GUESS_TRANSPOSE)
        return minv_gpu_ooc_transpose(base->ctx, &e->plan, &e->m[IT_A], scale, &e->m[dst]);
    if (e->m[IT_A].dtype == MINV_R64) host_guess<double>(&e->m[IT_A], &e->m[dst], kind, scale);
    else host_guess<float>(&e->m[IT_A], &e->m[dst], kind, scale);
    return MINV_SUCCESS;
}

minv_status load(minv_iter_engine *base, int dst, const minv_mat *host) {
    ooc_engine *e = (ooc_engine *)base;
    minv_host_copy(host, &e->m[dst]);
    return MINV_SUCCESS;
}

minv_status finish(minv_iter_engine *base, int v) {
    ooc_engine *e = (ooc_engine *)base;
    minv_host_copy(&e->m[v], e->out);
    return MINV_SUCCESS;
}

minv_status invert_out_of_core(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                               minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    const size_t bytes = (size_t)n * (size_t)n * (size_t)a->dtype;
    minv_probes probes = {0};
    ooc_engine e;
    memset(&e, 0, sizeof e);
    e.base = (minv_iter_engine){ctx, n, product, guess, load, NULL, finish};
    e.out = x;
    MINV_TRY(minv_gpu_ooc_plan(ctx, a->dtype, n, &e.plan));
    for (int k = 0; k < IT_BUFFERS; k++) {
        void *p;
        MINV_TRY(minv_gpu_pinned(ctx, PIN_OOC + k, bytes, &p));
        e.m[k] = (minv_mat){a->dtype, n, n, n, p};
    }
    minv_host_copy(a, &e.m[IT_A]);
    if (ctx->residual_mode == 1)
        MINV_TRY(minv_probes_make(ctx, a, an, &probes));
    minv_report_note(report, "out of core: %.3g GB per matrix in host memory, tiles of %lld through a %.3g GB device budget, %d streams",
                     (double)bytes / 1e9, (long long)e.plan.tile, (double)ctx->gpu->budget / 1e9, e.plan.streams);
    MINV_TRY(minv_iterate(ctx, &e.base, a->dtype, an, report));
    {
        double xnorm = minv_norm1(x);
        report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
    }
    if (ctx->residual_mode == 1) {
        report->residual = minv_residual_inverse_sampled(x, &probes);
        report->residual_kind = report->residual >= 0;
    } else if (ctx->residual_mode == 2) {
        minv_report_note(report, "no full residual out of core");
    }
cleanup:
    minv_probes_free(&probes);
    return status;
}

} // namespace

minv_status minv_gpu_iterative_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                           const minv_analysis *an, minv_report *report) {
    const double n = (double)a->rows, in_core = (IT_BUFFERS + (ctx->mixed_precision ? 0.5 * IT_BUFFERS : 0)) * n * n * a->dtype;
    if (minv_gpu_fits(ctx, in_core)) {
        minv_status status = minv_gpu_invert_host(ctx, minv_gpu_iterative_invert, a, x, an, report);
        if (status != MINV_ERR_DEVICE_MEMORY)
            return status;
        minv_report_note(report, "in core failed: %s", minv_last_error(ctx));
        minv_clear_error(ctx);
        report->history_len = 0;
        report->flops = 0;
    }
    return invert_out_of_core(ctx, a, x, an, report);
}
