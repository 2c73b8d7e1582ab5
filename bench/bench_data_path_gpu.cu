// The GPU stages of the data path, each against its floor or peer in one run:
//   floors   pinned PCIe each way (cudaMemcpy of the matrix from and to cudaMallocHost
//            memory), and the inversion on device data (minv_invert_device_d, AUTO) beside
//            cuSOLVER potrf + potri on the same device data
//   host     whole calls on host arrays, as a Fortran DA code makes them: minv_invert_d and
//            minv_solve_d (nrhs right-hand sides) from pageable and from pinned arrays, against
//            what a cuSOLVER user writes (cudaMemcpy up, potrf + potri or potrf + potrs, the
//            result down), pageable and pinned; minv's report gives its upload, compute and
//            download seconds
// SPD SOAR matrices (bench_spd); medians of three after a warm-up, both sides' buffers
// touched first. bench_data_path.py runs it where a GPU exists.
// Usage: bench_data_path_gpu [--n N ...] [--nrhs K]
#include <string.h>

#include "bench_host_peer.h"

namespace {

/* SPD SOAR (bench_spd), as the file path reads it */
void soar(double *a, int64_t n) { bench_spd(a, n, 1); }

void floors(minv_context *ctx, int64_t n) {
    const size_t bytes = sizeof(double) * n * n;
    bench_host_arrays pinned(n, 1, true, soar);
    double *d_a, *d_x;
    BENCH_CK(cudaMalloc((void **)&d_a, bytes));
    BENCH_CK(cudaMalloc((void **)&d_x, bytes));
    const double up = bench_median_wall([&] { BENCH_CK(cudaMemcpy(d_a, pinned.a, bytes, cudaMemcpyHostToDevice)); });
    const double down = bench_median_wall([&] { BENCH_CK(cudaMemcpy(pinned.x, d_a, bytes, cudaMemcpyDeviceToHost)); });
    minv_report r;
    const double minv_s = bench_median_wall(
        [&] { bench_check(ctx, minv_invert_device_d(ctx, MINV_METHOD_AUTO, n, d_a, n, d_x, n, &r), "minv_invert_device_d"); });
    const double peer_s = bench_cusolver_user(n, 1).device_invert(d_a);
    printf("| %lld | %.1f | %.1f | %.4f | %.4f |\n", (long long)n, bytes / up / 1e9, bytes / down / 1e9, minv_s, peer_s);
    fflush(stdout);
    cudaFree(d_a);
    cudaFree(d_x);
}

void host_calls(minv_context *ctx, int64_t n, int64_t nrhs) {
    for (int op = 0; op < 2; op++) {
        double minv_s[2], peer_s[2];
        minv_report r[2];
        for (int pinned = 0; pinned < 2; pinned++) {
            bench_host_arrays m(n, nrhs, pinned == 1, soar);
            bench_cusolver_user p(n, nrhs);
            minv_s[pinned] = bench_median_wall([&] {
                bench_check(ctx,
                            op == 0 ? minv_invert_d(ctx, MINV_METHOD_AUTO, n, m.a, n, m.x, n, &r[pinned])
                                    : minv_solve_d(ctx, MINV_METHOD_AUTO, n, nrhs, m.a, n, m.b, n, m.y, n, &r[pinned]),
                            op == 0 ? "minv_invert_d" : "minv_solve_d");
            });
            peer_s[pinned] = bench_median_wall([&] { op == 0 ? p.invert(m) : p.solve(m); });
        }
        char what[32];
        snprintf(what, sizeof what, op == 0 ? "invert" : "solve %lld rhs", (long long)nrhs);
        printf("| %lld | %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.3f / %.3f / %.3f |\n", (long long)n, what, minv_s[0] * 1e3,
               minv_s[1] * 1e3, peer_s[0] * 1e3, peer_s[1] * 1e3, peer_s[0] / minv_s[0], r[0].stages.upload_seconds * 1e3,
               r[0].stages.compute_seconds * 1e3, r[0].stages.download_seconds * 1e3);
        fflush(stdout);
    }
}

} // namespace

int main(int argc, char **argv) {
    int64_t sizes[16], count = 0, nrhs = 30;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc && count < 16)
            sizes[count++] = atoll(argv[++a]);
        else if (!strcmp(argv[a], "--nrhs") && a + 1 < argc)
            nrhs = atoll(argv[++a]);
        else {
            fprintf(stderr, "usage: bench_data_path_gpu [--n N ...] [--nrhs K]\n");
            return 2;
        }
    }
    if (count == 0) {
        const int64_t defaults[] = {256, 4096, 16384};
        for (int64_t n : defaults) sizes[count++] = n;
    }
    bench_header(stdout, argc, argv);
    minv_context *ctx = bench_context(MINV_BACKEND_GPU, 0, 0);
    printf("\nFloors: pinned PCIe (GB/s) and the inversion on device data (s), minv and cuSOLVER potrf + potri\n\n");
    printf("| n | H2D pinned (GB/s) | D2H pinned (GB/s) | minv device (s) | cuSOLVER device (s) |\n|---|---|---|---|---|\n");
    for (int64_t k = 0; k < count; k++) floors(ctx, sizes[k]);
    printf("\nHost arrays, whole calls (ms): minv and the cuSOLVER user's path, from pageable and pinned memory\n\n");
    printf("| n | op | minv pageable | minv pinned | cuSOLVER pageable | cuSOLVER pinned | speed-up vs pageable peer | minv upload / compute / download |\n"
           "|---|---|---|---|---|---|---|---|\n");
    for (int64_t k = 0; k < count; k++) host_calls(ctx, sizes[k], nrhs);
    minv_destroy(ctx);
    return 0;
}
