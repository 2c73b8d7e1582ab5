// One matrix of order n <= 512 in one thread-block cluster (lu_cluster.cu, cholesky_cluster.cu):
// ceil(n / 32) blocks of 32 threads a block, block b holding columns 32 b .. 32 b + 31 in
// shared memory, a thread a row. The launch, and whether the device can hold such a cluster.
#ifndef MINV_CLUSTER_CUH
#define MINV_CLUSTER_CUH

#include <cooperative_groups.h>

#include "gpu.h"

namespace minv_cluster {

constexpr int W = 32;          /* columns a block, and the panel width */
constexpr int MAX_THREADS = 512; /* a thread a row: n rounded up to a warp */
constexpr int MAX_BLOCKS = 16; /* a non-portable cluster; 8 is the portable size */
static_assert(MAX_BLOCKS + 1 <= (int)sizeof(((minv_gpu *)0)->cluster_fits[0]), "minv_gpu::cluster_fits");

inline int blocks_for(int64_t n) { return (int)((n + W - 1) / W); }
inline bool applies(int64_t n) { return n >= 1 && n <= (int64_t)W * MAX_BLOCKS; }

/* The launch of `blocks` blocks as one cluster; attr holds the cluster's shape. */
inline cudaLaunchConfig_t config(int blocks, size_t smem, cudaStream_t stream, cudaLaunchAttribute *attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3((unsigned)(blocks * 32));
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)blocks;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

/* Whether `kernel` runs in a cluster of `blocks` blocks with `smem` bytes each on g's device:
 * asked once per context and device (the attributes and the occupancy query cost about 10 us),
 * remembered in *known (0 not asked, 1 yes, -1 no); the kernel's attributes are set for
 * max_smem, the most any order takes. A failed query is not sticky: the caller takes
 * cuSOLVER instead. */
template <typename Kernel> bool fits(minv_gpu *g, Kernel kernel, int blocks, size_t smem, size_t max_smem, signed char *known) {
    if (*known == 0) {
        cudaLaunchAttribute attr;
        cudaLaunchConfig_t cfg = config(blocks, smem, g->stream, &attr);
        int clusters = 0;
        cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)max_smem);
        if (e == cudaSuccess) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
        if (e == cudaSuccess) e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg);
        if (e != cudaSuccess) (void)cudaGetLastError();
        *known = e == cudaSuccess && clusters >= 1 ? 1 : -1;
    }
    return *known > 0;
}

} // namespace minv_cluster

#endif
