/* Device calls on the caller's CUDA stream (minv_set_stream). The inputs reach the device by
 * copies enqueued on that stream behind a host function that sleeps 200 ms, and the results
 * leave by copies enqueued after the call, with no synchronisation in between: the results are
 * right only if minv's work waited for the stream and the stream for minv's. Checked by the
 * LAPACK-tester ratios (< 30; a zero, stale or NaN output gives 1/eps or NaN): the inverse of a
 * general and of an SPD matrix (n = 400), a solve with 30 right-hand sides, the same device
 * buffers reused in a second round so that stale results from round one cannot pass; then the
 * stream unset (NULL): a plain synchronous call, and one whose input is still on its way on the
 * legacy default stream. Skips without a GPU. */
#include <cuda_runtime.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static void CUDART_CB sleep_a_while(void *user) {
    (void)user;
    usleep(200000);
}

/* The device matrices and the pinned host copies they go up from and come down to. */
typedef struct {
    int64_t n, k;
    double *ha, *hb, *hx;  /* pinned */
    double *da, *db, *dx;  /* device */
} buffers;

static int alloc(buffers *s, int64_t n, int64_t k) {
    const size_t an = sizeof(double) * (size_t)(n * n), bn = sizeof(double) * (size_t)(n * (n > k ? n : k));
    s->n = n;
    s->k = k;
    return cudaMallocHost((void **)&s->ha, an) == cudaSuccess && cudaMallocHost((void **)&s->hb, bn) == cudaSuccess &&
           cudaMallocHost((void **)&s->hx, bn) == cudaSuccess && cudaMalloc((void **)&s->da, an) == cudaSuccess &&
           cudaMalloc((void **)&s->db, bn) == cudaSuccess && cudaMalloc((void **)&s->dx, bn) == cudaSuccess;
}

static void release(buffers *s) {
    cudaFreeHost(s->ha); cudaFreeHost(s->hb); cudaFreeHost(s->hx);
    cudaFree(s->da); cudaFree(s->db); cudaFree(s->dx);
}

/* Host memory to device, late: behind a sleep on the stream. The device copies are poisoned
 * (all bytes 0xff: NaN) first, synchronously, so that reading them early shows. */
static void upload_late(cudaStream_t s, void *dev, const void *host, size_t bytes) {
    CHECK(cudaMemset(dev, 0xff, bytes) == cudaSuccess, "cudaMemset");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "cudaDeviceSynchronize");
    CHECK(cudaLaunchHostFunc(s, sleep_a_while, NULL) == cudaSuccess, "cudaLaunchHostFunc");
    CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s) == cudaSuccess, "cudaMemcpyAsync up");
}

static void invert_on_stream(minv_context *gpu, cudaStream_t s, buffers *m, int spd, int round) {
    const int64_t n = m->n;
    const size_t bytes = sizeof(double) * (size_t)(n * n);
    tu_rng rng;
    tu_seed(&rng, 2410 + 2 * (uint64_t)round + (uint64_t)spd);
    if (spd) tu_spd(&rng, n, m->ha, n);
    else tu_general(&rng, n, m->ha, n);
    memset(m->hx, 0, bytes);
    upload_late(s, m->da, m->ha, bytes);
    minv_report rep;
    CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, m->da, n, m->dx, n, &rep), MINV_SUCCESS, gpu);
    CHECK(cudaMemcpyAsync(m->hx, m->dx, bytes, cudaMemcpyDeviceToHost, s) == cudaSuccess, "cudaMemcpyAsync down");
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "cudaStreamSynchronize");
    const double r = tu_inverse_ratio(n, m->ha, n, m->hx, n, DBL_EPSILON);
    CHECK(r < 30, "minv_invert_device_d on the caller's stream, %s, round %d: ratio %.3g", spd ? "SPD" : "general",
          round, r);
    CHECK(rep.backend == MINV_BACKEND_GPU && rep.method == (spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU),
          "report: %s on the %s", minv_method_name(rep.method), minv_backend_name(rep.backend));
}

static void solve_on_stream(minv_context *gpu, cudaStream_t s, buffers *m, int round) {
    const int64_t n = m->n, k = m->k;
    const size_t abytes = sizeof(double) * (size_t)(n * n), bbytes = sizeof(double) * (size_t)(n * k);
    tu_rng rng;
    tu_seed(&rng, 2420 + (uint64_t)round);
    tu_general(&rng, n, m->ha, n);
    tu_rect(&rng, n, k, m->hb, n);
    memset(m->hx, 0, bbytes);
    upload_late(s, m->da, m->ha, abytes);
    upload_late(s, m->db, m->hb, bbytes);
    CHECK_STATUS(minv_solve_device_d(gpu, MINV_METHOD_AUTO, n, k, m->da, n, m->db, n, m->dx, n, NULL), MINV_SUCCESS, gpu);
    CHECK(cudaMemcpyAsync(m->hx, m->dx, bbytes, cudaMemcpyDeviceToHost, s) == cudaSuccess, "cudaMemcpyAsync down");
    CHECK(cudaStreamSynchronize(s) == cudaSuccess, "cudaStreamSynchronize");
    const double r = tu_solve_ratio(n, k, m->ha, n, m->hb, n, m->hx, n, DBL_EPSILON);
    CHECK(r < 30, "minv_solve_device_d on the caller's stream, round %d: ratio %.3g", round, r);
}

int main(void) {
    minv_context *gpu = tu_context(MINV_BACKEND_GPU, 0);
    if (!gpu) return tu_skip_no_gpu("test_stream_gpu");
    cudaStream_t s = NULL;
    buffers m = {0};
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreate");
    CHECK(alloc(&m, 400, 30), "device and pinned buffers");
    CHECK_STATUS(minv_set_stream(gpu, s), MINV_SUCCESS, gpu);
    for (int round = 0; round < 2; round++) {
        invert_on_stream(gpu, s, &m, 0, round);
        invert_on_stream(gpu, s, &m, 1, round);
        solve_on_stream(gpu, s, &m, round);
    }
    /* unset: the call is synchronous again, its results there on return */
    CHECK_STATUS(minv_set_stream(gpu, NULL), MINV_SUCCESS, gpu);
    {
        const int64_t n = m.n;
        const size_t bytes = sizeof(double) * (size_t)(n * n);
        tu_rng rng;
        tu_seed(&rng, 2430);
        tu_general(&rng, n, m.ha, n);
        CHECK(cudaMemcpy(m.da, m.ha, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "cudaMemcpy up");
        CHECK(cudaMemset(m.dx, 0, bytes) == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess, "cudaMemset");
        CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, m.da, n, m.dx, n, NULL), MINV_SUCCESS, gpu);
        CHECK(cudaMemcpy(m.hx, m.dx, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy down");
        const double r = tu_inverse_ratio(n, m.ha, n, m.hx, n, DBL_EPSILON);
        CHECK(r < 30, "minv_invert_device_d with the stream unset: ratio %.3g", r);
    }
    /* unset, with the input still on its way on the legacy default stream (behind the sleep,
     * device copy poisoned): the call must wait for that stream's work, as cuBLAS's calls on
     * stream 0 would */
    {
        const int64_t n = m.n;
        const size_t bytes = sizeof(double) * (size_t)(n * n);
        tu_rng rng;
        tu_seed(&rng, 2431);
        tu_spd(&rng, n, m.ha, n);
        upload_late(cudaStreamLegacy, m.da, m.ha, bytes);
        CHECK_STATUS(minv_invert_device_d(gpu, MINV_METHOD_AUTO, n, m.da, n, m.dx, n, NULL), MINV_SUCCESS, gpu);
        CHECK(cudaMemcpy(m.hx, m.dx, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "cudaMemcpy down");
        const double r = tu_inverse_ratio(n, m.ha, n, m.hx, n, DBL_EPSILON);
        CHECK(r < 30, "minv_invert_device_d after stream 0's late upload: ratio %.3g", r);
    }
    release(&m);
    cudaStreamDestroy(s);
    minv_destroy(gpu);
    return tu_finish("test_stream_gpu");
}
