// Host arrays as a Fortran DA code holds them (pageable or pinned, every page touched), and the
// peer for host-array calls: what a cuSOLVER user writes around potrf + potri / potrs (getrf +
// getrs for general matrices), with its device buffers allocated once. Shared by bench_host_calls and bench_data_path_gpu.
#ifndef MINV_BENCH_HOST_PEER_H
#define MINV_BENCH_HOST_PEER_H

#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* A (n x n, as `fill` writes it), X (n x n), B (n x nrhs) and Y (n x nrhs). */
struct bench_host_arrays {
    int64_t n, nrhs;
    double *a, *x, *b, *y;
    bool pinned;
    bench_host_arrays(int64_t n_, int64_t nrhs_, bool pinned_, void (*fill)(double *a, int64_t n))
        : n(n_), nrhs(nrhs_), pinned(pinned_) {
        const size_t nn = sizeof(double) * n * n, nb = sizeof(double) * n * nrhs;
        if (pinned) {
            BENCH_CK(cudaMallocHost((void **)&a, nn));
            BENCH_CK(cudaMallocHost((void **)&x, nn));
            BENCH_CK(cudaMallocHost((void **)&b, nb));
            BENCH_CK(cudaMallocHost((void **)&y, nb));
        } else {
            a = (double *)malloc(nn);
            x = (double *)malloc(nn);
            b = (double *)malloc(nb);
            y = (double *)malloc(nb);
        }
        fill(a, n);
        bench_random(b, n, nrhs, 2);
        memset(x, 0, nn); /* touched, as the user's arrays are */
        memset(y, 0, nb);
    }
    bench_host_arrays(const bench_host_arrays &) = delete;
    bench_host_arrays &operator=(const bench_host_arrays &) = delete;
    ~bench_host_arrays() {
        if (pinned) {
            cudaFreeHost(a);
            cudaFreeHost(x);
            cudaFreeHost(b);
            cudaFreeHost(y);
        } else {
            free(a);
            free(x);
            free(b);
            free(y);
        }
    }
};

/* The cuSOLVER user's path on host arrays: cudaMemcpy up, potrf + potri (the lower triangle of
 * the inverse comes back) or potrf + potrs, cudaMemcpy down; for a general matrix (`general`),
 * getrf + getrs, the inverse by getrs on an identity kept on the device. */
struct bench_cusolver_user {
    cusolverDnHandle_t h;
    int n, nrhs, lwork = 0, *info, *ipiv = NULL;
    bool general;
    double *d_a, *d_b, *work, *d_x = NULL, *d_identity = NULL;
    bench_cusolver_user(int64_t n_, int64_t nrhs_, bool general_ = false)
        : n((int)n_), nrhs((int)nrhs_), general(general_) {
        BENCH_CK(cusolverDnCreate(&h));
        BENCH_CK(cudaMalloc((void **)&d_a, sizeof(double) * n * n));
        BENCH_CK(cudaMalloc((void **)&d_b, sizeof(double) * n * nrhs));
        BENCH_CK(cudaMalloc((void **)&info, sizeof(int)));
        int lf = 0, li = 0;
        if (general) {
            BENCH_CK(cusolverDnDgetrf_bufferSize(h, n, n, d_a, n, &lf));
            BENCH_CK(cudaMalloc((void **)&ipiv, sizeof(int) * n));
            BENCH_CK(cudaMalloc((void **)&d_x, sizeof(double) * n * n));
            BENCH_CK(cudaMalloc((void **)&d_identity, sizeof(double) * n * n));
            double *identity = (double *)calloc((size_t)n * n, sizeof(double));
            for (int i = 0; i < n; i++) identity[(size_t)i * n + i] = 1;
            BENCH_CK(cudaMemcpy(d_identity, identity, sizeof(double) * n * n, cudaMemcpyHostToDevice));
            free(identity);
        } else {
            BENCH_CK(cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, &lf));
            BENCH_CK(cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, &li));
        }
        lwork = lf > li ? lf : li;
        BENCH_CK(cudaMalloc((void **)&work, sizeof(double) * (lwork > 0 ? lwork : 1)));
    }
    bench_cusolver_user(const bench_cusolver_user &) = delete;
    bench_cusolver_user &operator=(const bench_cusolver_user &) = delete;
    ~bench_cusolver_user() {
        cudaFree(d_a);
        cudaFree(d_b);
        cudaFree(info);
        cudaFree(work);
        cudaFree(ipiv);
        cudaFree(d_x);
        cudaFree(d_identity);
        cusolverDnDestroy(h);
    }
    void invert(bench_host_arrays &m) {
        BENCH_CK(cudaMemcpy(d_a, m.a, sizeof(double) * n * n, cudaMemcpyHostToDevice));
        if (general) {
            BENCH_CK(cusolverDnDgetrf(h, n, n, d_a, n, work, ipiv, info));
            BENCH_CK(cudaMemcpy(d_x, d_identity, sizeof(double) * n * n, cudaMemcpyDeviceToDevice));
            BENCH_CK(cusolverDnDgetrs(h, CUBLAS_OP_N, n, n, d_a, n, ipiv, d_x, n, info));
            BENCH_CK(cudaMemcpy(m.x, d_x, sizeof(double) * n * n, cudaMemcpyDeviceToHost));
            return;
        }
        BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
        BENCH_CK(cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
        BENCH_CK(cudaMemcpy(m.x, d_a, sizeof(double) * n * n, cudaMemcpyDeviceToHost));
    }
    void solve(bench_host_arrays &m) {
        BENCH_CK(cudaMemcpy(d_a, m.a, sizeof(double) * n * n, cudaMemcpyHostToDevice));
        if (general) BENCH_CK(cusolverDnDgetrf(h, n, n, d_a, n, work, ipiv, info));
        else BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
        BENCH_CK(cudaMemcpy(d_b, m.b, sizeof(double) * n * nrhs, cudaMemcpyHostToDevice));
        if (general) BENCH_CK(cusolverDnDgetrs(h, CUBLAS_OP_N, n, nrhs, d_a, n, ipiv, d_b, n, info));
        else BENCH_CK(cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, d_a, n, d_b, n, info));
        BENCH_CK(cudaMemcpy(m.y, d_b, sizeof(double) * n * nrhs, cudaMemcpyDeviceToHost));
    }
    /* potrf + potri on device data, the copy of A excluded (SPD) */
    double device_invert(const double *d_source) {
        return bench_median_events(
            [&] { BENCH_CK(cudaMemcpy(d_a, d_source, sizeof(double) * n * n, cudaMemcpyDeviceToDevice)); },
            [&] {
                BENCH_CK(cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
                BENCH_CK(cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
            });
    }
};

#endif
