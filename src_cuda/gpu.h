/* Everything the CUDA backend's files share, by concern. Only src_cuda/ includes CUDA
 * headers. */
#ifndef MINV_GPU_H
#define MINV_GPU_H

#include "gpu_state.h"
#include "gpu_workspace.h"
#include "gpu_transfer.h"
#include "gpu_kernels.h"
#include "gpu_algorithms.h"

#endif
