// The entry of libminv_cuda.so, the one symbol the plugin exports (plugin.ver): the CUDA
// backend's create and destroy, and the layouts it was built with, for the loader to check.
#include "gpu_plugin.h"

extern "C" __attribute__((visibility("default"))) const minv_cuda_plugin *minv_cuda_plugin_v1(void) {
    static const minv_cuda_plugin plugin = {MINV_VERSION_STRING, MINV_CUDA_PLUGIN_LAYOUT, minv_gpu_create,
                                            minv_gpu_destroy};
    return &plugin;
}
