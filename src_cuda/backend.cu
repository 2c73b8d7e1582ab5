// The GPU backend's table of algorithms. Methods it lacks run on the CPU, and the report
// says so.
#include "gpu.h"

extern "C" const minv_backend_ops minv_gpu_backend = {
    "gpu",
    NULL,
    {NULL},
    {NULL},
};
