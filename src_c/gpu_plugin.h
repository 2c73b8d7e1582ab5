/* The CUDA backend as a plugin (libminv_cuda.so): what its one exported function hands the
 * loader (gpu_plugin.c). The plugin is built from the same tree as libminv and shares its
 * internal layouts, so the loader refuses one from another build. */
#ifndef MINV_GPU_PLUGIN_H
#define MINV_GPU_PLUGIN_H

#include <stddef.h>

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MINV_CUDA_PLUGIN_FILE "libminv_cuda.so"
#define MINV_CUDA_PLUGIN_ENTRY "minv_cuda_plugin_v1"

typedef struct {
    const char *version; /* MINV_VERSION_STRING */
    /* the layouts both sides must agree on */
    size_t context_size, ops_size, report_size, batch_report_size;
    /* minv_gpu_create and minv_gpu_destroy of the CUDA backend (internal.h) */
    minv_status (*create)(minv_context *ctx);
    void (*destroy)(minv_context *ctx);
} minv_cuda_plugin;

/* The entry, MINV_CUDA_PLUGIN_ENTRY. */
typedef const minv_cuda_plugin *(*minv_cuda_plugin_entry)(void);

/* The layouts as this side of the plugin sees them. */
#define MINV_CUDA_PLUGIN_LAYOUT \
    sizeof(minv_context), sizeof(minv_backend_ops), sizeof(minv_report), sizeof(minv_batch_report)

#ifdef __cplusplus
}
#endif

#endif
