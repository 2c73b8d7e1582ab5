// The GPU backend's table of algorithms. Host data is uploaded by each algorithm (or found
// where the analysis left it); methods the table lacks run on the CPU, and the report says so.
#include "gpu.h"

static void end_call(minv_context *ctx) { minv_gpu_end_call(ctx); }

static minv_backend_ops make_table() {
    minv_backend_ops t = {};
    t.name = "gpu";
    t.computes_residual = 1;
    t.analyze = minv_gpu_analyze;
    t.analyze_device = minv_gpu_analyze_device;
    t.end_call = end_call;
    return t;
}

extern "C" const minv_backend_ops minv_gpu_backend = make_table();
