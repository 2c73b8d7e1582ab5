// Where a small SPD call's time goes on a GPU context (issues 18 and 20): minv_invert_d and
// minv_solve_d (30 right-hand sides) on host arrays at n = 64 ... 512, with the sampled residual
// and without, each segment between minv's progress markers timed on the host (medians of 40
// calls after one warm-up); beside them the cuSOLVER user's pageable potrf + potri / potrf +
// potrs, and the inversion on device data against potrf + potri alone. Then one matrix through
// the batched call (nbatch 1) against the single call, SPD (KMS) and general, host and device
// data: the batched kernels carry no per-call analysis, probes or read-backs of their own.
//   bench_small_steps        (KMS(0.5) matrices; prints one line per case)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include "minv.h"

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
struct marks { std::vector<std::pair<std::string, double>> m; };
static void on_progress(void *u, const char *stage, double) { ((marks *)u)->m.push_back({stage, now()}); }
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }

static void kms(double *a, int n) { for (int j = 0; j < n; j++) for (int i = 0; i < n; i++) { int d = i > j ? i - j : j - i; double v = 1; for (int k = 0; k < d && v > 1e-300; k++) v *= 0.5; a[(size_t)j * n + i] = v; } }

static void one_through_batch(minv_context *ctx) {
    for (int n : {32, 64, 128, 256, 512})
        for (int spd = 1; spd >= 0; spd--) {
            std::vector<double> a((size_t)n * n), x((size_t)n * n);
            unsigned s = 7;
            kms(a.data(), n);
            if (!spd)
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) {
                        s = s * 1103515245u + 12345u;
                        a[(size_t)j * n + i] += (i == j ? 1 : 0) + ((s >> 8) % 1000) / 3000.0;
                    }
            double *da, *dx;
            cudaMalloc(&da, sizeof(double) * n * n);
            cudaMalloc(&dx, sizeof(double) * n * n);
            cudaMemcpy(da, a.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
            std::vector<double> t[4];
            minv_report r;
            minv_batch_report br;
            minv_status one;
            const char *how[4] = {"single host", "batch of 1 host", "single device", "batch of 1 device"};
            for (int k = 0; k < 41; k++)
                for (int w = 0; w < 4; w++) {
                    const double t0 = now();
                    minv_status st = MINV_SUCCESS;
                    if (w == 0) st = minv_invert_d(ctx, MINV_METHOD_AUTO, n, a.data(), n, x.data(), n, &r);
                    if (w == 1) st = minv_invert_batched_d(ctx, MINV_METHOD_AUTO, n, 1, a.data(), n, n * n, x.data(), n, n * n, &one, &br);
                    if (w == 2) st = minv_invert_device_d(ctx, MINV_METHOD_AUTO, n, da, n, dx, n, &r);
                    if (w == 3) st = minv_invert_batched_device_d(ctx, MINV_METHOD_AUTO, n, 1, da, n, n * n, dx, n, n * n, &one, &br);
                    if (st) {
                        printf("fail %d %s\n", w, minv_last_error(ctx));
                        return;
                    }
                    if (k) t[w].push_back(now() - t0);
                }
            printf("n %d %s invert:", n, spd ? "spd" : "general");
            for (int w = 0; w < 4; w++) printf(" %s %.1f", how[w], med(t[w]) * 1e6);
            printf(" us | batch: %.160s\n", br.reason);
            cudaFree(da);
            cudaFree(dx);
        }
}

int main() {
    const int reps = 41, nrhs = 30;
    minv_options o; minv_options_default(&o); o.backend = MINV_BACKEND_GPU;
    minv_context *ctx; if (minv_create(&ctx, &o) != MINV_SUCCESS) { printf("no gpu ctx\n"); return 1; }
    cusolverDnHandle_t h; cusolverDnCreate(&h);
    for (int n : {64, 128, 256, 512}) {
        std::vector<double> a((size_t)n * n), x((size_t)n * n), b((size_t)n * nrhs), y((size_t)n * nrhs);
        kms(a.data(), n); for (size_t i = 0; i < b.size(); i++) b[i] = (double)(i % 17) - 8;
        double *da, *db, *dx, *work; int *info, lw = 0, l2 = 0;
        cudaMalloc(&da, sizeof(double) * n * n); cudaMalloc(&dx, sizeof(double) * n * n); cudaMalloc(&db, sizeof(double) * n * nrhs); cudaMalloc(&info, 4);
        cusolverDnDpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, da, n, &lw); cusolverDnDpotri_bufferSize(h, CUBLAS_FILL_MODE_LOWER, n, da, n, &l2);
        lw = std::max(lw, l2); cudaMalloc(&work, sizeof(double) * lw);
        for (int op = 0; op < 2; op++) {
            for (int resid : {1, 0}) {
                minv_set_option(ctx, MINV_OPT_RESIDUAL, resid);
                std::vector<double> tot; std::vector<std::vector<double>> seg; std::vector<std::string> names;
                minv_report r;
                for (int k = 0; k < reps; k++) {
                    marks mk; minv_set_progress(ctx, on_progress, &mk);
                    double t0 = now();
                    minv_status st = op == 0 ? minv_invert_d(ctx, MINV_METHOD_AUTO, n, a.data(), n, x.data(), n, &r)
                                             : minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, a.data(), n, b.data(), n, y.data(), n, &r);
                    double t1 = now();
                    if (st) { printf("fail %s\n", minv_last_error(ctx)); return 1; }
                    if (k == 0) continue;
                    tot.push_back(t1 - t0);
                    std::vector<double> s; double prev = t0; std::vector<std::string> nm;
                    for (auto &p : mk.m) { s.push_back(p.second - prev); nm.push_back(p.first); prev = p.second; }
                    s.push_back(t1 - prev); nm.push_back("end");
                    if (seg.empty()) { seg.resize(s.size()); names = nm; }
                    for (size_t i = 0; i < s.size() && i < seg.size(); i++) seg[i].push_back(s[i]);
                }
                minv_set_progress(ctx, NULL, NULL);
                printf("n %d %s resid %d: minv %.1f us (upload %.1f, download %.1f, compute %.1f us) |", n, op ? "solve30" : "invert", resid, med(tot) * 1e6,
                       r.stages.upload_seconds * 1e6, r.stages.download_seconds * 1e6, r.stages.compute_seconds * 1e6);
                for (size_t i = 0; i < seg.size(); i++) printf(" ->%s %.1f", names[i].c_str(), med(seg[i]) * 1e6);
                printf("\n   reason: %.300s\n", r.reason);
            }
            std::vector<double> tp;
            for (int k = 0; k < reps; k++) {
                double t0 = now();
                cudaMemcpy(da, a.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
                cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, da, n, work, lw, info);
                if (op == 0) { cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, da, n, work, lw, info); cudaMemcpy(x.data(), da, sizeof(double) * n * n, cudaMemcpyDeviceToHost); }
                else { cudaMemcpy(db, b.data(), sizeof(double) * n * nrhs, cudaMemcpyHostToDevice); cusolverDnDpotrs(h, CUBLAS_FILL_MODE_LOWER, n, nrhs, da, n, db, n, info); cudaMemcpy(y.data(), db, sizeof(double) * n * nrhs, cudaMemcpyDeviceToHost); }
                if (k) tp.push_back(now() - t0);
            }
            printf("n %d %s peer pageable %.1f us\n", n, op ? "solve30" : "invert", med(tp) * 1e6);
            // device-data minv, and peer on device
            std::vector<double> td, tq; minv_report r;
            cudaMemcpy(da, a.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice);
            minv_set_option(ctx, MINV_OPT_RESIDUAL, 1);
            if (op == 0) {
                for (int k = 0; k < reps; k++) { double t0 = now(); minv_invert_device_d(ctx, MINV_METHOD_AUTO, n, da, n, dx, n, &r); if (k) td.push_back(now() - t0); }
                for (int k = 0; k < reps; k++) { cudaMemcpy(dx, da, sizeof(double) * n * n, cudaMemcpyDeviceToDevice); cudaDeviceSynchronize(); double t0 = now();
                    cusolverDnDpotrf(h, CUBLAS_FILL_MODE_LOWER, n, dx, n, work, lw, info); cusolverDnDpotri(h, CUBLAS_FILL_MODE_LOWER, n, dx, n, work, lw, info); cudaDeviceSynchronize(); if (k) tq.push_back(now() - t0); }
                printf("n %d invert device: minv %.1f us, potrf+potri %.1f us; minv's reason: %.200s\n", n, med(td) * 1e6, med(tq) * 1e6, r.reason);
            }
        }
        cudaFree(da); cudaFree(dx); cudaFree(db); cudaFree(info); cudaFree(work);
    }
    one_through_batch(ctx);
    minv_destroy(ctx);
    return 0;
}
