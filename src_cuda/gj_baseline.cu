// The iterative paper's Gauss-Jordan baseline on the GPU (its Figures 16 and 17): one pivot
// row at a time, each step a rank-one update of every row. When the matrix fits the device
// it stays there; otherwise, as in the paper, slabs of rows stream up and back down for every
// pivot, from pinned host memory. Partial pivoting keeps it from failing on a zero diagonal.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

namespace {

/* Rows [r0, r0+rows) of the matrix, dense on the device: every row but the pivot row k gets
 * a(i, :) -= a(i, k) row, with a(i, k) taken as 0 first; the pivot row becomes `row`. */
template <typename T>
__global__ void eliminate(T *slab, int64_t rows, int64_t n, int64_t r0, int64_t k, const T *row, const T *col) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        T *a = slab + j * rows + i;
        *a = r0 + i == k ? row[j] : (j == k ? T(0) : *a) - col[i] * row[j];
    }
}

template <typename T> __global__ void copy_column(const T *slab, int64_t rows, int64_t k, T *col) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) col[i] = slab[k * rows + i];
}

template <typename T> __global__ void swap_rows(T *a, int64_t n, int64_t ld, int64_t k, int64_t p) {
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= n) return;
    T t = a[j * ld + k];
    a[j * ld + k] = a[j * ld + p];
    a[j * ld + p] = t;
}

template <typename T> __global__ void pivot_row(const T *a, int64_t n, int64_t ld, int64_t k, T inv, T *row) {
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < n) row[j] = j == k ? inv : a[j * ld + k] * inv;
}

template <typename T> void launch_step(T *slab, int64_t rows, int64_t n, int64_t r0, int64_t k, const T *row, T *col,
                                       cudaStream_t s) {
    copy_column<T><<<(unsigned)((rows + 255) / 256), 256, 0, s>>>(slab, rows, k, col);
    dim3 grid((unsigned)((rows + 255) / 256), (unsigned)(n < 65535 ? n : 65535));
    eliminate<T><<<grid, 256, 0, s>>>(slab, rows, n, r0, k, row, col);
}

/* Host side of a step: pivot search in column k, row interchange, the scaled pivot row. */
template <typename T> int64_t host_pivot(minv_mat *h, int64_t k, T *row) {
    const int64_t n = h->rows, ld = h->ld;
    T *a = (T *)h->data;
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++)
        if (fabs((double)a[k * ld + i]) > fabs((double)a[k * ld + p])) p = i;
    if (a[k * ld + p] == T(0)) return -1;
    if (p != k)
        for (int64_t j = 0; j < n; j++) {
            T t = a[j * ld + k];
            a[j * ld + k] = a[j * ld + p];
            a[j * ld + p] = t;
        }
    const T inv = T(1) / a[k * ld + k];
    for (int64_t j = 0; j < n; j++) row[j] = j == k ? inv : a[j * ld + k] * inv;
    return p;
}

template <typename T> void host_unswap(minv_mat *h, const int64_t *piv, int64_t steps) {
    for (int64_t k = steps - 1; k >= 0; k--)
        if (piv[k] != k) {
            T *c1 = (T *)minv_at(h, 0, k), *c2 = (T *)minv_at(h, 0, piv[k]);
            for (int64_t i = 0; i < h->rows; i++) {
                T t = c1[i];
                c1[i] = c2[i];
                c2[i] = t;
            }
        }
}

/* The whole matrix in pinned host memory h; slabs of `slab_rows` go up and down each step.
 * With one slab that holds every row, the matrix stays on the device and only column k
 * comes to the host, for the pivot search. */
template <typename T>
minv_status run(minv_context *ctx, minv_mat *h, int64_t slab_rows, int64_t *piv, minv_report *report) {
    minv_gpu_scope scope(ctx);
    minv_gpu *g = ctx->gpu;
    minv_status status = MINV_SUCCESS;
    const int64_t n = h->rows, slabs = (n + slab_rows - 1) / slab_rows;
    const int resident = slabs == 1;
    const size_t es = sizeof(T), slab_bytes = (size_t)slab_rows * (size_t)n * es;
    const int slots[2] = {WS_B, WS_SMALL};
    const size_t bytes[2] = {(resident ? 1 : 2) * slab_bytes, 2 * (size_t)n * es + 2 * (size_t)slab_rows * es};
    const unsigned row_blocks = (unsigned)((n + 255) / 256);
    void *p[2];
    T *row_host = NULL, *rowd, *col[2], *buf[2];
    int64_t steps = n, failed = -1;
    MINV_TRY(minv_gpu_reserve(ctx, 2, slots, bytes, p));
    buf[0] = (T *)p[0];
    buf[1] = resident ? buf[0] : (T *)((char *)p[0] + slab_bytes);
    rowd = (T *)p[1];
    col[0] = rowd + n;
    col[1] = col[0] + slab_rows;
    MINV_TRY(minv_gpu_pinned(ctx, PIN_SMALL, (size_t)n * es, (void **)&row_host));
    if (resident)
        CUDA_TRY(cudaMemcpyAsync(buf[0], h->data, slab_bytes, cudaMemcpyHostToDevice, g->stream));
    for (int64_t k = 0; k < n; k++) {
        int64_t pk;
        if (resident) {
            T *colk = (T *)minv_at(h, 0, k);
            CUDA_TRY(cudaMemcpyAsync(colk, buf[0] + k * n, (size_t)n * es, cudaMemcpyDeviceToHost, g->stream));
            CUDA_TRY(cudaStreamSynchronize(g->stream));
            pk = k;
            for (int64_t i = k + 1; i < n; i++)
                if (fabs((double)colk[i]) > fabs((double)colk[pk])) pk = i;
            if (colk[pk] == T(0)) pk = -1;
            else {
                if (pk != k) swap_rows<T><<<row_blocks, 256, 0, g->stream>>>(buf[0], n, n, k, pk);
                pivot_row<T><<<row_blocks, 256, 0, g->stream>>>(buf[0], n, n, k, T(1) / colk[pk], rowd);
            }
        } else {
            CUDA_TRY(cudaStreamSynchronize(g->stream));
            pk = host_pivot<T>(h, k, row_host);
            if (pk >= 0)
                CUDA_TRY(cudaMemcpyAsync(rowd, row_host, (size_t)n * es, cudaMemcpyHostToDevice, g->stream));
        }
        if (pk < 0) {
            failed = k;
            steps = k;
            break;
        }
        piv[k] = pk;
        for (int64_t s = 0; s < slabs; s++) {
            const int b = (int)(s % 2);
            const int64_t r0 = s * slab_rows, rows = n - r0 < slab_rows ? n - r0 : slab_rows;
            if (!resident)
                CUDA_TRY(cudaMemcpy2DAsync(buf[b], (size_t)rows * es, minv_at(h, r0, 0), (size_t)h->ld * es,
                                           (size_t)rows * es, (size_t)n, cudaMemcpyHostToDevice, g->stream));
            launch_step<T>(buf[b], rows, n, r0, k, rowd, col[b], g->stream);
            LAUNCH_TRY();
            if (!resident)
                CUDA_TRY(cudaMemcpy2DAsync(minv_at(h, r0, 0), (size_t)h->ld * es, buf[b], (size_t)rows * es,
                                           (size_t)rows * es, (size_t)n, cudaMemcpyDeviceToHost, g->stream));
        }
        if (k % 64 == 0) minv_progress(ctx, "gauss-jordan", (double)k / (double)n);
    }
    if (resident)
        CUDA_TRY(cudaMemcpyAsync(h->data, buf[0], slab_bytes, cudaMemcpyDeviceToHost, g->stream));
    CUDA_TRY(cudaStreamSynchronize(g->stream));
    host_unswap<T>(h, piv, steps);
    if (failed >= 0) {
        report->info = failed;
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "no nonzero pivot in column %lld (1-based)", (long long)failed + 1);
    }
cleanup:
    return status;
}

} // namespace

minv_status minv_gpu_gj_baseline_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                             const minv_analysis *an, minv_report *report) {
    minv_status status = MINV_SUCCESS;
    const int64_t n = a->rows;
    const size_t es = (size_t)a->dtype, bytes = (size_t)n * (size_t)n * es;
    int64_t *piv = (int64_t *)malloc((size_t)n * sizeof(int64_t));
    void *p;
    minv_mat h;
    int64_t slab_rows = n;
    if (!piv)
        return minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld pivots", (long long)n);
    MINV_TRY(minv_gpu_pinned(ctx, PIN_OOC, bytes, &p));
    h = (minv_mat){a->dtype, n, n, n, p};
    minv_mat_copy(a, &h);
    if ((double)bytes + 4.0 * n * es > minv_gpu_available(ctx)) { /* two slabs in 90% of what is free */
        slab_rows = (int64_t)(0.45 * minv_gpu_available(ctx) / ((double)n * es));
        if (slab_rows < 1) {
            status = minv_fail(ctx, MINV_ERR_DEVICE_MEMORY, "device budget too small for one row of %lld", (long long)n);
            goto cleanup;
        }
        minv_report_note(report, "out of core: slabs of %lld rows stream for each of the %lld pivots", (long long)slab_rows,
                         (long long)n);
    }
    MINV_TRY(a->dtype == MINV_R64 ? run<double>(ctx, &h, slab_rows, piv, report) : run<float>(ctx, &h, slab_rows, piv, report));
    minv_mat_copy(&h, x);
    {
        double xnorm = minv_norm1(x);
        report->rcond = xnorm > 0 && isfinite(xnorm) ? 1.0 / (an->norm_1 * xnorm) : 0;
    }
cleanup:
    free(piv);
    return status;
}
