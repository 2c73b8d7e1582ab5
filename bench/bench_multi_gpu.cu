// Benchmark for Gauss-Jordan over several GPUs: time, energy to solution and the
// energy-delay product EDP(w) = E t^w (the many-RHS paper's section 4), against cuSOLVER's
// multi-GPU LU (cusolverMg) measured in the same run:
//   compare    A X = B with nrhs = n, and A^-1, by minv's Gauss-Jordan on 1 and on g GPUs (A and
//              B on the first GPU, the whole call timed) against cusolverMg getrf + getrs (B = I
//              for the inverse) on the same GPUs, A and B already distributed (the distribution
//              is not timed): seconds, TFLOP/s, joules, EDP(1..3), GFLOP/s per W, speed-ups
//              against the peer and against one GPU (the paper's Tables 4 to 6)
//   sweep      block size NB of the Gauss-Jordan solve: time and energy per NB, the time- and
//              the energy-optimal NB per n (the paper's Tables 2 and 3)
//   broadcast  the per-step panel broadcast: cudaMemcpyPeerAsync from device 0 to every other
//              device at once against NCCL's ncclBroadcast (libnccl.so.2 opened at run time, so
//              the program neither links nor needs NCCL)
// Usage: bench_multi_gpu compare   [--n 16384,32768] [--gpus 1,2] [--runs 3] [--tile 256]
//        bench_multi_gpu sweep     [--n 16384,32768] [--gpus G] [--runs 3]
//        bench_multi_gpu broadcast [--gpus G]
// --gpus defaults to 1 and all visible GPUs (compare) or all visible (sweep, broadcast); a run
// on g GPUs uses CUDA devices 0 .. g-1. Exit status 1 when a result fails its residual check.
#define DISABLE_CUSOLVERMG_DEPRECATED /* cusolverMg is deprecated in CUDA 13 but still the peer */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverMg.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"

namespace {

std::vector<int64_t> sizes = {16384, 32768};
std::vector<int> gpu_counts; /* empty: the mode's default */
int runs = 3;
int64_t tile = 256; /* cusolverMg's column tile (NVIDIA's samples use 256) */
int visible = 0;
int failures = 0;
const double BAD_RESIDUAL = 1e-8; /* a wrong layout or pivot order gives O(1) */

std::vector<int64_t> parse_list(const char *s, const char *what) {
    std::vector<int64_t> v;
    for (const char *p = s; *p;) {
        char *end;
        const long long x = strtoll(p, &end, 10);
        if (end == p || x <= 0) {
            fprintf(stderr, "bench_multi_gpu: %s wants positive integers separated by commas, got '%s'\n", what, s);
            exit(2);
        }
        v.push_back(x);
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "bench_multi_gpu: %s: unexpected '%s'\n", what, end);
            exit(2);
        }
    }
    return v;
}

double flops(bool solve, int64_t n) { /* the Gauss-Jordan counts of bench_gauss_jordan, for both sides */
    const double d = (double)n;
    return solve ? d * d * d + 2 * d * d * d : 2 * d * d * d;
}

size_t free_bytes(int dev) {
    size_t f = 0, t = 0;
    BENCH_CK(cudaSetDevice(dev));
    BENCH_CK(cudaMemGetInfo(&f, &t));
    return f;
}

/* Whether `bytes` more fit on device dev, leaving 1 GiB and 3% for cuBLAS, cuSOLVER and NCCL. */
bool fits(int dev, double bytes) { return bytes + 1073741824.0 < 0.97 * (double)free_bytes(dev); }

void sync_all(int g) {
    for (int d = 0; d < g; d++) {
        BENCH_CK(cudaSetDevice(d));
        BENCH_CK(cudaDeviceSynchronize());
    }
    BENCH_CK(cudaSetDevice(0));
}

/* Peer access both ways between devices 0 .. g-1 where the hardware has it (a minv context may
 * have enabled it already); whether every pair has it. */
bool enable_peers(int g) {
    bool all = true;
    for (int a = 0; a < g; a++)
        for (int b = 0; b < g; b++) {
            int can = 0;
            if (a == b) continue;
            BENCH_CK(cudaDeviceCanAccessPeer(&can, a, b));
            if (!can) {
                all = false;
                continue;
            }
            BENCH_CK(cudaSetDevice(a));
            const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
            else BENCH_CK(e);
        }
    BENCH_CK(cudaSetDevice(0));
    return all;
}

/* The timed runs of one case, bench_measure's way (bench_common.h): after a warm-up, at least
 * `runs` runs (and three, five under 10 ms, and a second of timed work for the energy
 * counters); around each timed run every visible GPU's NVML counter is read in one pass, so
 * that the energy of the g GPUs used and of all visible GPUs come from the same readings and
 * the same runs as the time. */
struct timed_runs {
    int g;
    double t[BENCH_MAX_RUNS], before[16], joules = 0, joules_all = 0, timed = 0;
    int count = 0;
    bench_meter *m = bench_meter_get();
    bool metered = m->count > 0;
    explicit timed_runs(int g_) : g(g_) {}
    bool more(int k) const { return k < 0 || count < runs || !bench_enough(t, count, metered ? timed : -1); }
    void start(int k) {
        if (k >= 0 && metered) metered = bench_meter_read(m, before);
    }
    void stop(int k, double seconds) {
        if (k < 0) return;
        double after[16];
        if (metered && (metered = bench_meter_read(m, after)))
            for (int d = 0; d < m->count; d++) {
                joules_all += after[d] - before[d];
                if (d < g) joules += after[d] - before[d];
            }
        t[count++] = seconds;
        timed += seconds;
    }
    /* the median time; energy per run (the mean over the same runs), flagged where it implies
     * more power than the g boards' limits */
    bench_result result() { return bench_summarise(t, count, metered ? (1u << g) - 1 : 0, joules, joules_all); }
};

/* A (uniform in [-1, 1): partial pivoting has work to do) and B (uniform) of order n on device
 * 0, and ||A||_inf for the residuals. */
struct problem {
    int64_t n = 0;
    double *a = nullptr, *b = nullptr, anorm = 0;
    ~problem() {
        cudaSetDevice(0);
        cudaFree(a);
        cudaFree(b);
    }
};

bool make_problem(problem &p, int64_t n) {
    const size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
    if (!fits(0, 2.0 * (double)bytes)) return false;
    double *h = (double *)malloc(bytes);
    if (!h) return false;
    p.n = n;
    bench_random(h, n, n, 41);
    std::vector<double> rows((size_t)n, 0.0);
#pragma omp parallel for schedule(static)
    for (int64_t i0 = 0; i0 < n; i0 += 256) /* row sums, a band of rows a thread */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = i0; i < n && i < i0 + 256; i++) rows[i] += fabs(h[j * n + i]);
    p.anorm = *std::max_element(rows.begin(), rows.end());
    BENCH_CK(cudaSetDevice(0));
    BENCH_CK(cudaMalloc((void **)&p.a, bytes));
    BENCH_CK(cudaMemcpy(p.a, h, bytes, cudaMemcpyHostToDevice));
    bench_random(h, n, n, 42);
    BENCH_CK(cudaMalloc((void **)&p.b, bytes));
    BENCH_CK(cudaMemcpy(p.b, h, bytes, cudaMemcpyHostToDevice));
    free(h);
    return true;
}

/* max over four sampled columns j of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf)
 * (minv's sampled kind), by cuBLAS gemv on device 0; b_j = e_j for an inverse. column(j) gives
 * x_j's device pointer and its device. */
template <class F> double sampled_residual(cublasHandle_t blas, const problem &p, bool inverse, F column) {
    const int64_t n = p.n, js[4] = {0, n / 3, 2 * n / 3, n - 1};
    const double one = 1, minus = -1;
    double *x, *r, worst = 0;
    std::vector<double> hx((size_t)n), hr((size_t)n);
    BENCH_CK(cudaSetDevice(0));
    BENCH_CK(cudaMalloc((void **)&x, sizeof(double) * n));
    BENCH_CK(cudaMalloc((void **)&r, sizeof(double) * n));
    for (int k = 0; k < 4; k++) {
        const int64_t j = js[k];
        const std::pair<const double *, int> src = column(j);
        BENCH_CK(cudaMemcpyPeer(x, 0, src.first, src.second, sizeof(double) * n));
        if (inverse) {
            BENCH_CK(cudaMemset(r, 0, sizeof(double) * n));
            BENCH_CK(cudaMemcpy(r + j, &one, sizeof(double), cudaMemcpyHostToDevice));
        } else {
            BENCH_CK(cudaMemcpy(r, p.b + j * n, sizeof(double) * n, cudaMemcpyDeviceToDevice));
        }
        BENCH_CK(cudaMemcpy(hr.data(), r, sizeof(double) * n, cudaMemcpyDeviceToHost));
        double bn = 0, xn = 0, rn = 0;
        for (double v : hr) bn = std::max(bn, fabs(v));
        BENCH_CK(cudaSetDevice(0));
        BENCH_CK(cublasDgemv(blas, CUBLAS_OP_N, (int)n, (int)n, &minus, p.a, (int)n, x, 1, &one, r, 1));
        BENCH_CK(cudaMemcpy(hr.data(), r, sizeof(double) * n, cudaMemcpyDeviceToHost));
        BENCH_CK(cudaMemcpy(hx.data(), x, sizeof(double) * n, cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < n; i++) {
            rn = std::max(rn, fabs(hr[i]));
            xn = std::max(xn, fabs(hx[i]));
        }
        const double q = rn / (p.anorm * xn + bn);
        worst = isfinite(q) && isfinite(worst) ? std::max(worst, q) : INFINITY;
    }
    cudaFree(x);
    cudaFree(r);
    return worst;
}

/* One measured case: the median time of its runs, the energy per run over the same runs
 * (-1 where not measured; impossible: above the boards' power limits). */
struct result {
    int64_t n;
    int g;
    bool solve, minv;
    int runs;
    double t, e, e_all, residual, excluded;
    bool impossible;
    double watts; /* the energy over the timed seconds of the same runs */
};

std::vector<result> results;
std::vector<std::string> notes;

void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    notes.push_back(line);
}

void print_notes() {
    if (!notes.empty()) printf("\n");
    for (const std::string &s : notes) printf("- %s\n", s.c_str());
    notes.clear();
}

/* "%.4g" or "-" for a figure not measured */
std::string fig(double v, const char *fmt = "%.4g") {
    char s[64];
    if (!(v >= 0) || !isfinite(v)) return "-";
    snprintf(s, sizeof s, fmt, v);
    return s;
}

void print_compare_row(const result &r) {
    const double f = flops(r.solve, r.n), e = r.e;
    printf("| %lld | %d | %s | %s | %d | %.4f | %.1f | %s%s | %s | %s | %s | %s | %s | %s | %.2g%s | %s |\n", (long long)r.n,
           r.g, r.solve ? "solve" : "inverse", r.minv ? "minv GJ" : "cusolverMg", r.runs, r.t, f / r.t / 1e12,
           fig(e, "%.1f").c_str(), r.impossible ? " IMPOSSIBLE (above the power limit)" : "", fig(r.e_all, "%.1f").c_str(), fig(r.watts, "%.0f").c_str(),
           fig(e >= 0 ? e * r.t : -1).c_str(), fig(e >= 0 ? e * r.t * r.t : -1).c_str(),
           fig(e >= 0 ? e * r.t * r.t * r.t : -1).c_str(), fig(e > 0 ? f / e / 1e9 : -1, "%.1f").c_str(), r.residual,
           r.residual <= BAD_RESIDUAL ? "" : " BAD", r.minv ? "-" : fig(r.excluded, "%.3f").c_str());
    fflush(stdout);
}

/* ---- minv ---------------------------------------------------------------------------------- */

/* minv's Gauss-Jordan solve (nrhs = n) or inverse on ctx, data on device 0: the whole call,
 * medians of a warm-up and `runs` calls; false (with a note) when the devices cannot hold it.
 * Energy is read around the call, as for the peer, not by the call's own MINV_OPT_ENERGY:
 * NVML's reads take milliseconds a GPU in some virtual machines, which would be timed. */
bool minv_measure(minv_context *ctx, int g, cublasHandle_t blas, const problem &p, bool solve, result *out,
                  minv_report *rep) {
    const int64_t n = p.n;
    double *x = nullptr;
    if (!fits(0, sizeof(double) * (double)n * (double)n) ||
        cudaMalloc((void **)&x, sizeof(double) * (size_t)n * (size_t)n) != cudaSuccess) {
        cudaGetLastError();
        note("n = %lld, %d GPU(s), minv %s: skipped, X does not fit on device 0", (long long)n, g,
             solve ? "solve" : "inverse");
        return false;
    }
    timed_runs tr(g);
    for (int k = -BENCH_WARMUPS; tr.more(k); k++) {
        sync_all(g);
        tr.start(k);
        const double t0 = bench_now();
        const minv_status st = solve ? minv_solve_device_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, n, p.a, n, p.b, n, x, n, rep)
                                     : minv_invert_device_d(ctx, MINV_METHOD_GAUSS_JORDAN, n, p.a, n, x, n, rep);
        const double s = bench_now() - t0;
        tr.stop(k, s);
        if (st == MINV_ERR_DEVICE_MEMORY) {
            note("n = %lld, %d GPU(s), minv %s: skipped, device memory: %s", (long long)n, g, solve ? "solve" : "inverse",
                 minv_last_error(ctx));
            BENCH_CK(cudaSetDevice(0));
            cudaFree(x);
            return false;
        }
        bench_check(ctx, st, solve ? "minv_solve_device_d" : "minv_invert_device_d");
    }
    const bench_result m = tr.result();
    *out = result{n, g, solve, true, m.runs, m.seconds, m.joules, m.joules_all, 0, -1, m.impossible, m.watts};
    out->residual = sampled_residual(blas, p, !solve, [&](int64_t j) { return std::make_pair((const double *)x + j * n, 0); });
    if (rep->residual_kind > 0 && !(rep->residual <= BAD_RESIDUAL)) out->residual = std::max(out->residual, rep->residual);
    BENCH_CK(cudaSetDevice(0));
    cudaFree(x);
    return true;
}

/* ---- the peer: cusolverMg ------------------------------------------------------------------- */

/* Fills the local columns of device d (the global columns of its tiles) with the identity. */
__global__ void identity_part(double *part, int64_t rows, int64_t cols, int64_t local_cols, int64_t tile_, int g,
                              int d) {
    for (int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; c < local_cols; c += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = ((c / tile_) * g + d) * tile_ + c % tile_;
        if (j < cols && j < rows) part[c * rows + j] = 1;
    }
}

/* A rows x cols matrix in cusolverMg's 1-D column block-cyclic layout over devices 0 .. g-1
 * (a 1 x g grid): column tile b (tile columns, the last one short) lives on device b % g as
 * that device's local tile b / g; each device holds its tiles one after the other, column-major
 * with leading dimension rows, room for a whole number of tiles, as NVIDIA's samples allocate. */
struct mg_matrix {
    int g = 0;
    int64_t rows = 0, cols = 0, local_cols = 0;
    std::vector<double *> part;
    cudaLibMgMatrixDesc_t desc = nullptr;

    void locate(int64_t j, int *dev, int64_t *local) const {
        const int64_t b = j / tile;
        *dev = (int)(b % g);
        *local = (b / g) * tile + j % tile;
    }
    bool alloc(int g_, int64_t rows_, int64_t cols_, cudaLibMgGrid_t grid) {
        g = g_, rows = rows_, cols = cols_;
        const int64_t tiles = (cols + tile - 1) / tile;
        local_cols = tile * ((tiles + g - 1) / g);
        part.assign(g, nullptr);
        for (int d = 0; d < g; d++) {
            BENCH_CK(cudaSetDevice(d));
            if (cudaMalloc((void **)&part[d], sizeof(double) * (size_t)rows * (size_t)local_cols) != cudaSuccess) {
                cudaGetLastError();
                part[d] = nullptr;
                return false;
            }
        }
        BENCH_CK(cudaSetDevice(0));
        BENCH_CK(cusolverMgCreateMatrixDesc(&desc, rows, cols, rows, tile, CUDA_R_64F, grid));
        return true;
    }
    void release() {
        for (int d = 0; d < (int)part.size(); d++) {
            cudaSetDevice(d);
            cudaFree(part[d]);
        }
        part.clear();
        if (desc) cusolverMgDestroyMatrixDesc(desc);
        desc = nullptr;
        cudaSetDevice(0);
    }
    /* The column-major matrix src (device 0, leading dimension rows) into the layout. */
    void scatter(const double *src) const {
        BENCH_CK(cudaSetDevice(0));
        for (int64_t j0 = 0; j0 < cols; j0 += tile) {
            int d;
            int64_t local;
            locate(j0, &d, &local);
            const int64_t w = std::min(tile, cols - j0);
            BENCH_CK(cudaMemcpyPeerAsync(part[d] + local * rows, d, src + j0 * rows, 0, sizeof(double) * rows * w, 0));
        }
        sync_all(g);
    }
    void identity() const {
        for (int d = 0; d < g; d++) {
            BENCH_CK(cudaSetDevice(d));
            BENCH_CK(cudaMemsetAsync(part[d], 0, sizeof(double) * (size_t)rows * (size_t)local_cols, 0));
            identity_part<<<(unsigned)std::min<int64_t>((local_cols + 255) / 256, 4096), 256>>>(part[d], rows, cols, local_cols,
                                                                                              tile, g, d);
            BENCH_CK(cudaGetLastError());
        }
        sync_all(g);
    }
    std::pair<const double *, int> column(int64_t j) const {
        int d;
        int64_t local;
        locate(j, &d, &local);
        return std::make_pair((const double *)part[d] + local * rows, d);
    }
};

/* cusolverMg on devices 0 .. g-1 for one n: A, B (n x n), the pivots and the workspace. */
struct mg_case {
    int g = 0;
    int64_t n = 0, lwork = 0;
    cusolverMgHandle_t h = nullptr;
    cudaLibMgGrid_t grid = nullptr;
    mg_matrix a, b;
    std::vector<int *> ipiv;
    std::vector<double *> work;

    /* false, with the reason in why, when the devices cannot hold it */
    bool open(int g_, int64_t n_, std::string &why) {
        g = g_, n = n_;
        int devs[MINV_MAX_DEVICES];
        for (int d = 0; d < g; d++) devs[d] = d;
        if (!enable_peers(g)) note("cusolverMg on %d GPUs: peer access is missing between some of them", g);
        BENCH_CK(cusolverMgCreate(&h));
        BENCH_CK(cusolverMgDeviceSelect(h, g, devs));
        BENCH_CK(cusolverMgCreateDeviceGrid(&grid, 1, g, devs, CUDALIBMG_GRID_MAPPING_COL_MAJOR));
        const double part = sizeof(double) * (double)n * (double)(tile * (((n + tile - 1) / tile + g - 1) / g));
        for (int d = 0; d < g; d++)
            if (!fits(d, 2 * part)) {
                why = "A and B do not fit on device " + std::to_string(d);
                return false;
            }
        if (!a.alloc(g, n, n, grid) || !b.alloc(g, n, n, grid)) {
            why = "cudaMalloc of the distributed A and B failed";
            return false;
        }
        ipiv.assign(g, nullptr); /* laid out as a 1 x n row of A's column tiles */
        for (int d = 0; d < g; d++) {
            BENCH_CK(cudaSetDevice(d));
            BENCH_CK(cudaMalloc((void **)&ipiv[d], sizeof(int) * (size_t)a.local_cols));
        }
        BENCH_CK(cudaSetDevice(0));
        int64_t lwork_getrf = 0, lwork_getrs = 0;
        BENCH_CK(cusolverMgGetrf_bufferSize(h, (int)n, (int)n, (void **)a.part.data(), 1, 1, a.desc, ipiv.data(), CUDA_R_64F,
                                            &lwork_getrf));
        BENCH_CK(cusolverMgGetrs_bufferSize(h, CUBLAS_OP_N, (int)n, (int)n, (void **)a.part.data(), 1, 1, a.desc, ipiv.data(),
                                            (void **)b.part.data(), 1, 1, b.desc, CUDA_R_64F, &lwork_getrs));
        lwork = std::max<int64_t>(std::max(lwork_getrf, lwork_getrs), 1); /* elements of the compute type, per device */
        work.assign(g, nullptr);
        for (int d = 0; d < g; d++) {
            bool ok = fits(d, sizeof(double) * (double)lwork); /* leaves device d current */
            if (ok && cudaMalloc((void **)&work[d], sizeof(double) * (size_t)lwork) != cudaSuccess) {
                cudaGetLastError();
                work[d] = nullptr;
                ok = false;
            }
            if (!ok) {
                why = "the workspace (" + std::to_string(lwork / 131072) + " MiB a device) does not fit on device " +
                      std::to_string(d);
                return false;
            }
        }
        BENCH_CK(cudaSetDevice(0));
        return true;
    }
    void close() {
        for (int d = 0; d < (int)work.size(); d++) {
            cudaSetDevice(d);
            cudaFree(work[d]);
        }
        for (int d = 0; d < (int)ipiv.size(); d++) {
            cudaSetDevice(d);
            cudaFree(ipiv[d]);
        }
        work.clear();
        ipiv.clear();
        a.release();
        b.release();
        if (grid) cusolverMgDestroyGrid(grid);
        if (h) cusolverMgDestroy(h);
        grid = nullptr;
        h = nullptr;
        cudaSetDevice(0);
    }

    /* getrf + getrs with nrhs = n (B = I for the inverse): the distribution of A and B from
     * device 0 before each run is not timed (reported as `excluded`), nor is its energy. */
    result measure(bool solve, const problem &p, cublasHandle_t blas) {
        std::vector<double> xs;
        timed_runs tr(g);
        for (int k = -BENCH_WARMUPS; tr.more(k); k++) {
            const double s0 = bench_now();
            a.scatter(p.a);
            if (solve) b.scatter(p.b);
            else b.identity();
            sync_all(g);
            const double excluded = bench_now() - s0;
            tr.start(k);
            const double t0 = bench_now();
            int info = 0;
            BENCH_CK(cusolverMgGetrf(h, (int)n, (int)n, (void **)a.part.data(), 1, 1, a.desc, ipiv.data(), CUDA_R_64F,
                                     (void **)work.data(), lwork, &info));
            sync_all(g);
            if (info != 0) {
                fprintf(stderr, "bench_multi_gpu: cusolverMgGetrf info = %d at n = %lld on %d GPU(s)\n", info, (long long)n, g);
                exit(3);
            }
            BENCH_CK(cusolverMgGetrs(h, CUBLAS_OP_N, (int)n, (int)n, (void **)a.part.data(), 1, 1, a.desc, ipiv.data(),
                                     (void **)b.part.data(), 1, 1, b.desc, CUDA_R_64F, (void **)work.data(), lwork, &info));
            sync_all(g);
            const double s = bench_now() - t0;
            tr.stop(k, s);
            if (info != 0) {
                fprintf(stderr, "bench_multi_gpu: cusolverMgGetrs info = %d at n = %lld on %d GPU(s)\n", info, (long long)n, g);
                exit(3);
            }
            if (k >= 0) xs.push_back(excluded);
        }
        const bench_result m = tr.result();
        result r{n, g, solve, false, m.runs, m.seconds, m.joules, m.joules_all, 0, bench_median(xs.data(), (int)xs.size()),
                 m.impossible, m.watts};
        r.residual = sampled_residual(blas, p, !solve, [&](int64_t j) { return b.column(j); });
        return r;
    }
};

/* ---- compare ----------------------------------------------------------------------------------- */

const result *find(int64_t n, int g, bool solve, bool minv) {
    for (const result &r : results)
        if (r.n == n && r.g == g && r.solve == solve && r.minv == minv) return &r;
    return nullptr;
}

std::string ratio(double num, double den) {
    char s[32];
    if (!(num > 0) || !(den > 0)) return "-";
    snprintf(s, sizeof s, "%.2f", num / den);
    return s;
}

void compare() {
    if (gpu_counts.empty()) gpu_counts = visible > 1 ? std::vector<int>{1, visible} : std::vector<int>{1};
    printf("\n## minv Gauss-Jordan on 1 and %d GPU(s) vs cuSOLVER's multi-GPU LU (cusolverMg getrf + getrs), nrhs = n\n\n",
           gpu_counts.back());
    printf("minv: the whole call, A and B (or A) on device 0 (the context's first GPU, ndevices = GPUs), X written there.\n");
    printf("cusolverMg: getrf + getrs (B = I for the inverse) on A and B already distributed 1-D block-cyclic by column\n");
    printf("tiles of %lld over the same GPUs; that distribution from device 0 is NOT in its time (last column).\n",
           (long long)tile);
    printf("TFLOP/s on the Gauss-Jordan counts for both (solve n^3 + 2 n^2 nrhs, inverse 2 n^3). J: NVML energy over the\n");
    printf("GPUs the method runs on; J all: over all %d visible GPUs, idle ones included. W = J / s over the same runs; EDP(w) = J s^w;\n", visible);
    printf("GFLOP/s/W = flops / J / 1e9. Times: medians after a warm-up (at least %d runs, 3, and 1 s of timed work); J and\n", runs);
    printf("J all: per run, the mean over the same runs, from every GPU's counter read in one pass around each run; a J that\n");
    printf("implies more power than the boards' limits (NVML) is marked IMPOSSIBLE.\n");
    printf("residual: max over 4 sampled columns of ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf); BAD above %.0e.\n\n",
           BAD_RESIDUAL);
    printf("| n | GPUs | operation | method | runs | s | TFLOP/s | J | J all | W | EDP(1) J s | EDP(2) J s^2 | EDP(3) J s^3 | "
           "GFLOP/s/W | residual | distribution s (not timed) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    if (!bench_meter_get()->count) note("no energy figures: NVML could not be loaded or has no counters for these GPUs");
    cublasHandle_t blas;
    BENCH_CK(cudaSetDevice(0));
    BENCH_CK(cublasCreate(&blas));
    for (int64_t n : sizes) {
        problem p;
        if (!make_problem(p, n)) {
            note("n = %lld: skipped, A and B (%.1f GB) do not fit on device 0 (or in host memory)", (long long)n,
                 16e-9 * (double)n * n);
            continue;
        }
        for (int g : gpu_counts) {
            if (g > visible) {
                note("%d GPUs asked for, %d visible: skipped", g, visible);
                continue;
            }
            minv_context *ctx = bench_context_gpus(MINV_BACKEND_GPU, 0, 0, g);
            bench_check(ctx, minv_set_option(ctx, MINV_OPT_RESIDUAL, 1), "residual option");
            int32_t count = 0, devs[MINV_MAX_DEVICES];
            bench_check(ctx, minv_context_devices(ctx, &count, devs), "minv_context_devices");
            for (int op = 0; op < 2; op++) {
                result r;
                minv_report rep;
                if (!minv_measure(ctx, g, blas, p, op == 0, &r, &rep)) continue;
                if (!(r.residual <= BAD_RESIDUAL)) failures++;
                results.push_back(r);
                print_compare_row(r);
                note("n = %lld, %d GPU(s), minv %s, context devices %d (first %d): %s", (long long)n, g,
                     op == 0 ? "solve" : "inverse", count, devs[0], rep.reason);
            }
            minv_destroy(ctx); /* its workspaces go, for the peer */
            mg_case mg;
            std::string why;
            if (mg.open(g, n, why)) {
                for (int op = 0; op < 2; op++) {
                    const result r = mg.measure(op == 0, p, blas);
                    if (!(r.residual <= BAD_RESIDUAL)) failures++;
                    results.push_back(r);
                    print_compare_row(r);
                }
                note("n = %lld, %d GPU(s), cusolverMg: tile %lld, workspace %.2f GiB a device", (long long)n, g,
                     (long long)tile, 8.0 * mg.lwork / 1073741824.0);
            } else {
                note("n = %lld, %d GPU(s), cusolverMg: skipped, %s", (long long)n, g, why.c_str());
            }
            mg.close();
        }
    }
    cublasDestroy(blas);
    print_notes();

    printf("\n## Ratios: minv against cusolverMg on the same GPUs (above 1: minv better), and g GPUs against 1\n\n");
    printf("| n | GPUs | operation | speed-up t_peer / t_minv | energy E_peer / E_minv | EDP(1) ratio | EDP(2) ratio | "
           "EDP(3) ratio | minv speed-up over 1 GPU | cusolverMg speed-up over 1 GPU | minv J all, 1 GPU / g GPUs |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const result &m : results) {
        if (!m.minv) continue;
        const result *q = find(m.n, m.g, m.solve, false), *m1 = find(m.n, 1, m.solve, true), *q1 = find(m.n, 1, m.solve, false);
        const double edp[3] = {m.e * m.t, m.e * m.t * m.t, m.e * m.t * m.t * m.t};
        std::string r[3];
        for (int w = 0; w < 3; w++)
            r[w] = q && m.e >= 0 && q->e >= 0 ? ratio(q->e * pow(q->t, w + 1), edp[w]) : "-";
        printf("| %lld | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", (long long)m.n, m.g, m.solve ? "solve" : "inverse",
               q ? ratio(q->t, m.t).c_str() : "-", q ? ratio(q->e, m.e).c_str() : "-", r[0].c_str(), r[1].c_str(),
               r[2].c_str(), m1 ? ratio(m1->t, m.t).c_str() : "-", q && q1 ? ratio(q1->t, q->t).c_str() : "-",
               m1 ? ratio(m1->e_all, m.e_all).c_str() : "-");
    }
    fflush(stdout);
}

/* ---- sweep ----------------------------------------------------------------------------------- */

void sweep() {
    const int g = gpu_counts.empty() ? visible : gpu_counts.front();
    if (g > visible) {
        printf("bench_multi_gpu: %d GPUs asked for, %d visible\n", g, visible);
        exit(2);
    }
    const int64_t nbs[] = {128, 192, 256, 384, 512, 768, 1024};
    const int count = (int)(sizeof nbs / sizeof nbs[0]);
    printf("\n## Block size NB of minv's Gauss-Jordan solve (nrhs = n) on %d GPU(s): time and energy per NB\n\n", g);
    printf("The whole call, A and B on device 0; medians after a warm-up (at least %d runs, 3, and 1 s of timed work). J: NVML\n"
           "over the context's %d GPU(s), per run, from the same runs.\n\n", runs, g);
    printf("| n | NB | s | TFLOP/s | J | W | EDP(1) J s | GFLOP/s/W | residual |\n|---|---|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    minv_context *ctx = bench_context_gpus(MINV_BACKEND_GPU, 0, 0, g);
    bench_check(ctx, minv_set_option(ctx, MINV_OPT_RESIDUAL, 1), "residual option");
    cublasHandle_t blas;
    BENCH_CK(cudaSetDevice(0));
    BENCH_CK(cublasCreate(&blas));
    struct best {
        int64_t n, nb_t, nb_e;
        double t_t, e_t, t_e, e_e;
    };
    std::vector<best> bests;
    for (int64_t n : sizes) {
        problem p;
        if (!make_problem(p, n)) {
            note("n = %lld: skipped, A and B do not fit on device 0 (or in host memory)", (long long)n);
            continue;
        }
        best b{n, 0, 0, 1e300, -1, -1, 1e300};
        for (int k = 0; k < count; k++) {
            result r;
            minv_report rep;
            bench_check(ctx, minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, (double)nbs[k]), "block size option");
            if (!minv_measure(ctx, g, blas, p, true, &r, &rep)) continue;
            if (!(r.residual <= BAD_RESIDUAL)) failures++;
            const double f = flops(true, n);
            printf("| %lld | %lld | %.4f | %.1f | %s | %s | %s | %s | %.2g%s |\n", (long long)n, (long long)nbs[k], r.t,
                   f / r.t / 1e12, (fig(r.e, "%.1f") + (r.impossible ? " IMPOSSIBLE (above the power limit)" : "")).c_str(),
                   fig(r.watts, "%.0f").c_str(),
                   fig(r.e >= 0 ? r.e * r.t : -1).c_str(), fig(r.e > 0 ? f / r.e / 1e9 : -1, "%.1f").c_str(), r.residual,
                   r.residual <= BAD_RESIDUAL ? "" : " BAD");
            fflush(stdout);
            if (r.t < b.t_t) b.nb_t = nbs[k], b.t_t = r.t, b.e_t = r.e;
            if (r.e >= 0 && r.e < b.e_e) b.nb_e = nbs[k], b.e_e = r.e, b.t_e = r.t;
        }
        if (b.nb_t) bests.push_back(b);
    }
    bench_check(ctx, minv_set_option(ctx, MINV_OPT_BLOCK_SIZE, 0), "block size option");
    cublasDestroy(blas);
    minv_destroy(ctx);
    print_notes();
    printf("\n## Optimal NB per n on %d GPU(s) (the paper's Table 2) and the EDP(1) of both (its Table 3)\n\n", g);
    printf("| n | energy-optimal NB | J | s | time-optimal NB | s | J | EDP(1) energy-optimal | EDP(1) time-optimal |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    for (const best &b : bests)
        printf("| %lld | %s | %s | %s | %lld | %.4f | %s | %s | %s |\n", (long long)b.n,
               b.nb_e ? std::to_string(b.nb_e).c_str() : "-", fig(b.nb_e ? b.e_e : -1, "%.1f").c_str(),
               fig(b.nb_e ? b.t_e : -1, "%.4f").c_str(), (long long)b.nb_t, b.t_t, fig(b.e_t, "%.1f").c_str(),
               fig(b.nb_e ? b.e_e * b.t_e : -1).c_str(), fig(b.e_t >= 0 ? b.e_t * b.t_t : -1).c_str());
    fflush(stdout);
}

/* ---- broadcast --------------------------------------------------------------------------------- */

/* The few NCCL entry points used, declared to nccl.h's ABI (ncclComm_t is a pointer, ncclResult_t
 * and ncclDataType_t are C enums, passed as int). */
struct nccl_api {
    void *lib = nullptr;
    int (*comm_init_all)(void **comms, int ndev, const int *devlist) = nullptr;
    int (*comm_destroy)(void *comm) = nullptr;
    int (*broadcast)(const void *send, void *recv, size_t count, int datatype, int root, void *comm,
                     cudaStream_t stream) = nullptr;
    int (*group_start)(void) = nullptr;
    int (*group_end)(void) = nullptr;
    const char *(*error_string)(int result) = nullptr;
    static const int float64 = 8; /* ncclFloat64 */

    bool load(std::string &why) {
        lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *e = dlerror();
            why = e ? e : "dlopen failed";
            return false;
        }
        comm_init_all = (int (*)(void **, int, const int *))dlsym(lib, "ncclCommInitAll");
        comm_destroy = (int (*)(void *))dlsym(lib, "ncclCommDestroy");
        broadcast = (int (*)(const void *, void *, size_t, int, int, void *, cudaStream_t))dlsym(lib, "ncclBroadcast");
        group_start = (int (*)(void))dlsym(lib, "ncclGroupStart");
        group_end = (int (*)(void))dlsym(lib, "ncclGroupEnd");
        error_string = (const char *(*)(int))dlsym(lib, "ncclGetErrorString");
        if (!comm_init_all || !comm_destroy || !broadcast || !group_start || !group_end || !error_string) {
            why = "libnccl.so.2 lacks ncclCommInitAll, ncclBroadcast, ncclGroupStart/End, ncclCommDestroy or ncclGetErrorString";
            return false;
        }
        return true;
    }
    void check(int r, const char *what) const {
        if (r != 0) {
            fprintf(stderr, "bench_multi_gpu: %s failed: %s\n", what, error_string(r));
            exit(3);
        }
    }
};

/* Seconds per operation: median of 5 batches of reps, after one batch of warm-up. */
template <class Issue, class Wait> double per_op(int reps, Issue issue, Wait wait) {
    double times[5];
    for (int k = -1; k < 5; k++) {
        const double t0 = bench_now();
        for (int r = 0; r < reps; r++) issue();
        wait();
        if (k >= 0) times[k] = (bench_now() - t0) / reps;
    }
    return bench_median(times, 5);
}

void broadcast() {
    const int g = gpu_counts.empty() ? visible : gpu_counts.front();
    printf("\n## Per-step panel broadcast from device 0 to the other %d GPU(s): peer copies vs NCCL\n\n", g - 1);
    if (g < 2 || g > visible) {
        printf("Needs 2 GPUs or more (%d asked for, %d visible): nothing to measure.\n", g, visible);
        return;
    }
    const bool peers = enable_peers(g);
    printf("peer copies: cudaMemcpyPeerAsync from device 0 to each other device at once, one stream each (peer access %s).\n",
           peers ? "between every pair" : "missing between some pairs: the driver stages those copies through the host");
    printf("NCCL: ncclBroadcast from rank 0 over communicators from ncclCommInitAll, in one group. GB/s: bytes each\n");
    printf("receiver gets / seconds (NCCL's algorithm bandwidth). Medians of 5 batches of repetitions after a warm-up.\n\n");
    const int64_t mib[] = {8, 32, 64, 128};
    const size_t most = (size_t)128 << 20;
    std::vector<double *> buf(g, nullptr);
    std::vector<cudaStream_t> copy(g, nullptr), ns(g, nullptr);
    for (int d = 0; d < g; d++) {
        BENCH_CK(cudaSetDevice(d));
        BENCH_CK(cudaMalloc((void **)&buf[d], most));
        BENCH_CK(cudaMemset(buf[d], 0x3f, most));
        BENCH_CK(cudaStreamCreateWithFlags(&ns[d], cudaStreamNonBlocking));
    }
    BENCH_CK(cudaSetDevice(0));
    for (int d = 1; d < g; d++) BENCH_CK(cudaStreamCreateWithFlags(&copy[d], cudaStreamNonBlocking));
    nccl_api nccl;
    std::string why;
    std::vector<void *> comms(g, nullptr);
    bool have_nccl = nccl.load(why);
    if (have_nccl) {
        std::vector<int> devs(g);
        for (int d = 0; d < g; d++) devs[d] = d;
        const int r = nccl.comm_init_all(comms.data(), g, devs.data());
        if (r != 0) {
            why = std::string("ncclCommInitAll failed: ") + nccl.error_string(r);
            have_nccl = false;
        }
        BENCH_CK(cudaSetDevice(0));
    }
    if (!have_nccl) printf("NCCL not available (%s): peer copies only.\n\n", why.c_str());
    printf("| MiB | a panel n x NB of doubles | peer copies ms | peer copies GB/s | NCCL ms | NCCL GB/s | faster |\n");
    printf("|---|---|---|---|---|---|---|\n");
    for (int64_t m : mib) {
        const size_t bytes = (size_t)m << 20;
        const int reps = (int)std::max<int64_t>(10, 1024 / m);
        const double tp = per_op(
            reps,
            [&] {
                BENCH_CK(cudaSetDevice(0)); /* the copy streams' device */
                for (int d = 1; d < g; d++) BENCH_CK(cudaMemcpyPeerAsync(buf[d], d, buf[0], 0, bytes, copy[d]));
            },
            [&] {
                for (int d = 1; d < g; d++) BENCH_CK(cudaStreamSynchronize(copy[d]));
            });
        double tn = -1;
        if (have_nccl)
            tn = per_op(
                reps,
                [&] {
                    nccl.check(nccl.group_start(), "ncclGroupStart");
                    for (int d = 0; d < g; d++)
                        nccl.check(nccl.broadcast(buf[d], buf[d], bytes / sizeof(double), nccl_api::float64, 0, comms[d], ns[d]),
                                   "ncclBroadcast");
                    nccl.check(nccl.group_end(), "ncclGroupEnd");
                },
                [&] {
                    for (int d = 0; d < g; d++) BENCH_CK(cudaStreamSynchronize(ns[d]));
                });
        const char *faster = tn < 0 ? "-" : tp <= tn ? "peer copies" : "NCCL";
        printf("| %lld | %lld x 512 | %.3f | %.1f | %s | %s | %s |\n", (long long)m, (long long)(bytes / 8 / 512), 1e3 * tp,
               bytes / tp / 1e9, fig(tn >= 0 ? 1e3 * tn : -1, "%.3f").c_str(), fig(tn > 0 ? bytes / tn / 1e9 : -1, "%.1f").c_str(),
               faster);
        fflush(stdout);
    }
    for (int d = 0; d < g; d++)
        if (comms[d]) nccl.comm_destroy(comms[d]);
    for (int d = 0; d < g; d++) {
        cudaSetDevice(d);
        cudaFree(buf[d]);
        cudaStreamDestroy(ns[d]);
    }
    cudaSetDevice(0);
    for (int d = 1; d < g; d++) cudaStreamDestroy(copy[d]);
}

} // namespace

int main(int argc, char **argv) {
    const char *what = argc > 1 && argv[1][0] != '-' ? argv[1] : "compare";
    for (int k = 1; k < argc; k++) {
        const bool more = k + 1 < argc;
        if (!strcmp(argv[k], "--n") && more) sizes = parse_list(argv[++k], "--n");
        else if (!strcmp(argv[k], "--gpus") && more) {
            gpu_counts.clear();
            for (int64_t g : parse_list(argv[++k], "--gpus")) gpu_counts.push_back((int)g);
        } else if (!strcmp(argv[k], "--runs") && more) runs = (int)parse_list(argv[++k], "--runs")[0];
        else if (!strcmp(argv[k], "--tile") && more) tile = parse_list(argv[++k], "--tile")[0];
        else if (k > 1 || argv[k][0] == '-') {
            fprintf(stderr, "usage: bench_multi_gpu [compare|sweep|broadcast] [--n N1,N2] [--gpus G1,G2] [--runs R] [--tile T]\n");
            return 2;
        }
    }
    if (strcmp(what, "compare") && strcmp(what, "sweep") && strcmp(what, "broadcast")) {
        fprintf(stderr, "bench_multi_gpu: unknown mode '%s' (compare, sweep or broadcast)\n", what);
        return 2;
    }
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
        printf("bench_multi_gpu: no GPU, nothing to measure\n");
        return 0;
    }
    visible = std::min(visible, (int)MINV_MAX_DEVICES);
    bench_header(stdout, argc, argv);
    if (!strcmp(what, "compare")) compare();
    else if (!strcmp(what, "sweep")) sweep();
    else broadcast();
    if (failures) fprintf(stderr, "bench_multi_gpu: %d result(s) failed the residual check\n", failures);
    return failures ? 1 : 0;
}
