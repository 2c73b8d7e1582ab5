// What the host's side of the GPUs' links carries (issue 21's batches on two GPUs): pinned
// host memory to and from every GPU, each direction alone and both at once, one GPU alone
// and every GPU at once, each copy on a stream of its own. GB/s are bytes moved over the time
// of the whole round (medians of five). Then what page-locking the caller's memory costs
// (minv_host_register), beside one copy of it.
//   bench_links [--mb M]      (M MB a copy, 512 by default)
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

namespace {

struct link {
    void *host_up, *host_down, *dev_up, *dev_down;
    cudaStream_t up, down;
};

/* One round: the chosen directions on the chosen GPUs at once; seconds. */
double round_trip(link *l, int first, int gpus, bool up, bool down, size_t bytes) {
    const double t0 = bench_now();
    for (int g = first; g < first + gpus; g++) {
        cudaSetDevice(g);
        if (up) cudaMemcpyAsync(l[g].dev_up, l[g].host_up, bytes, cudaMemcpyHostToDevice, l[g].up);
        if (down) cudaMemcpyAsync(l[g].host_down, l[g].dev_down, bytes, cudaMemcpyDeviceToHost, l[g].down);
    }
    for (int g = first; g < first + gpus; g++) {
        cudaSetDevice(g);
        cudaStreamSynchronize(l[g].up);
        cudaStreamSynchronize(l[g].down);
    }
    return bench_now() - t0;
}

double median_round(link *l, int first, int gpus, bool up, bool down, size_t bytes) {
    double t[5];
    round_trip(l, first, gpus, up, down, bytes);
    for (int r = 0; r < 5; r++) t[r] = round_trip(l, first, gpus, up, down, bytes);
    return bench_median(t, 5);
}

} // namespace

int main(int argc, char **argv) {
    size_t mb = 512;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--mb") && k + 1 < argc) mb = (size_t)atoll(argv[++k]);
        else {
            fprintf(stderr, "usage: bench_links [--mb M]\n");
            return 1;
        }
    }
    const size_t bytes = mb << 20;
    int gpus = 0;
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) {
        fprintf(stderr, "bench_links: no GPU\n");
        return 0;
    }
    bench_header(stdout, argc, argv);
    link *l = (link *)calloc((size_t)gpus, sizeof *l);
    for (int g = 0; g < gpus; g++) {
        cudaSetDevice(g);
        cudaMallocHost(&l[g].host_up, bytes);
        cudaMallocHost(&l[g].host_down, bytes);
        cudaMalloc(&l[g].dev_up, bytes);
        cudaMalloc(&l[g].dev_down, bytes);
        bench_touch(l[g].host_up, bytes);
        bench_touch(l[g].host_down, bytes);
        cudaMemset(l[g].dev_down, 1, bytes);
        cudaStreamCreateWithFlags(&l[g].up, cudaStreamNonBlocking);
        cudaStreamCreateWithFlags(&l[g].down, cudaStreamNonBlocking);
    }
    printf("\n## Pinned host memory and the GPUs' links, %zu MB a copy (GB/s: bytes moved / the round's time)\n\n", mb);
    printf("| GPUs at once | up | down | up and down at once (each GPU) | in all |\n|---:|---:|---:|---:|---:|\n");
    const int counts[2] = {1, gpus};
    for (int c = 0; c < (gpus > 1 ? 2 : 1); c++) {
        const int n = counts[c];
        const double u = median_round(l, 0, n, true, false, bytes), d = median_round(l, 0, n, false, true, bytes),
                     b = median_round(l, 0, n, true, true, bytes);
        printf("| %d | %.1f | %.1f | %.1f | %.1f |\n", n, n * bytes / u / 1e9 / n, n * bytes / d / 1e9 / n,
               2.0 * bytes / b / 1e9, 2.0 * n * bytes / b / 1e9);
    }
    /* what page-locking the caller's memory costs (minv_host_register), against copying it */
    char *user = (char *)malloc(bytes), *copy = (char *)malloc(bytes);
    bench_touch(user, bytes);
    bench_touch(copy, bytes);
    double reg[5], unreg[5], cp[5];
    cudaSetDevice(0);
    for (int r = 0; r < 5; r++) {
        double t0 = bench_now();
        cudaHostRegister(user, bytes, cudaHostRegisterPortable);
        reg[r] = bench_now() - t0;
        t0 = bench_now();
        cudaHostUnregister(user);
        unreg[r] = bench_now() - t0;
        t0 = bench_now();
        memcpy(copy, user, bytes);
        cp[r] = bench_now() - t0;
    }
    printf("\nPage-locking %zu MB of touched pageable memory: register %.1f ms, unregister %.1f ms; one memcpy of it "
           "(one thread) %.1f ms\n",
           mb, 1e3 * bench_median(reg, 5), 1e3 * bench_median(unreg, 5), 1e3 * bench_median(cp, 5));
    free(user);
    free(copy);
    return 0;
}
