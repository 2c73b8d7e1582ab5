/* The GPU backend of a libminv built with CUDA: the plugin libminv_cuda.so (src_cuda/), opened
 * on the first context that may use a GPU, so that a program using only the CPU loads no CUDA
 * library and pays nothing for one. The NVIDIA driver is asked first whether there is a device
 * at all, so that a machine without one does not load the CUDA libraries either. What is found
 * (no driver, no device, a driver too old, no plugin) is decided once per process: a context
 * created with MINV_BACKEND_AUTO notes it, one with MINV_BACKEND_GPU fails with it.
 *
 * The plugin is looked for at $MINV_CUDA_PLUGIN when that is set; else beside the object that
 * holds this loader (libminv.so, or a program linking libminv statically), then where the
 * dynamic linker looks (LD_LIBRARY_PATH, the RUNPATH of that object), then in the folder minv
 * was configured to install to. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_plugin.h"

/* Paths are shown up to PATH_SHOWN characters, so that a note keeps its end. */
enum { PATH_LEN = 4096, PATH_SHOWN = 200 };

static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static const minv_cuda_plugin *plugin;   /* NULL where no GPU can be used ... */
static char plugin_why[MINV_REASON_LEN]; /* ... and why */

/* 0 when the NVIDIA driver starts and has a device; else -1 and why not. Only the driver is
 * loaded (libcuda.so.1, which the CUDA runtime would load anyway), and kept. */
static int probe_driver(char *why, size_t len) {
    enum { CUDA_ERROR_NO_DEVICE = 100 };
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        snprintf(why, len, "no NVIDIA driver (libcuda.so.1 not found)");
        return -1;
    }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(cuda, "cuDeviceGetCount");
    int (*version)(int *) = (int (*)(int *))dlsym(cuda, "cuDriverGetVersion");
    int (*error_string)(int, const char **) = (int (*)(int, const char **))dlsym(cuda, "cuGetErrorString");
    if (!init || !count || !version) {
        snprintf(why, len, "the NVIDIA driver's libcuda.so.1 lacks cuInit, cuDeviceGetCount or cuDriverGetVersion");
        return -1;
    }
    int err = init(0), devices = 0, v = 0;
    if (err == CUDA_ERROR_NO_DEVICE || (err == 0 && (count(&devices) != 0 || devices == 0))) {
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        snprintf(why, len, "no CUDA device%s%s%s", visible ? " (CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "",
                 visible ? ")" : "");
        return -1;
    }
    if (err != 0) {
        const char *text = NULL;
        if (error_string) error_string(err, &text);
        snprintf(why, len, "the NVIDIA driver could not start: %s (CUresult %d)", text ? text : "unknown error", err);
        return -1;
    }
    /* the runtime of one CUDA major version runs on any driver of that version or later */
    if (version(&v) == 0 && v / 1000 < MINV_CUDA_MAJOR) {
        snprintf(why, len, "NVIDIA driver too old: it supports CUDA %d.%d < %d.%d, the CUDA minv was built with",
                 v / 1000, v % 1000 / 10, MINV_CUDA_MAJOR, MINV_CUDA_MINOR);
        return -1;
    }
    return 0;
}

/* The folder of the object holding this loader, or "" where it has no path. */
static void loader_folder(char *dir, size_t len) {
    Dl_info info;
    dir[0] = '\0';
    if (!dladdr((void *)&minv_gpu_create, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
        return;
    snprintf(dir, len, "%s", info.dli_fname);
    char *slash = strrchr(dir, '/');
    slash[slash == dir ? 1 : 0] = '\0';
}

/* The plugin at path, checked; NULL (and why) where it is not one of this build. */
static const minv_cuda_plugin *check_plugin(void *lib, const char *path, char *why, size_t len) {
    minv_cuda_plugin_entry entry = (minv_cuda_plugin_entry)dlsym(lib, MINV_CUDA_PLUGIN_ENTRY);
    if (!entry) {
        snprintf(why, len, "%.*s is not a minv CUDA plugin (it has no %s)", PATH_SHOWN, path, MINV_CUDA_PLUGIN_ENTRY);
        return NULL;
    }
    const minv_cuda_plugin *p = entry();
    const minv_cuda_plugin mine = {MINV_VERSION_STRING, MINV_CUDA_PLUGIN_LAYOUT, NULL, NULL};
    if (strcmp(p->version, mine.version) != 0 || p->context_size != mine.context_size ||
        p->ops_size != mine.ops_size || p->report_size != mine.report_size ||
        p->batch_report_size != mine.batch_report_size) {
        snprintf(why, len, "the CUDA plugin %.*s belongs to another build of minv (%s; this libminv is %s)",
                 PATH_SHOWN, path, p->version, mine.version);
        return NULL;
    }
    return p;
}

static void open_plugin(void) {
    char path[PATH_LEN], dir[PATH_LEN] = "";
    const char *given = getenv("MINV_CUDA_PLUGIN");
    const size_t len = sizeof plugin_why;
    int by_name = 0; /* not found by path: the dynamic linker searches for it */
    if (given && given[0]) {
        if (access(given, F_OK) != 0) {
            snprintf(plugin_why, len, "the CUDA plugin %.*s (MINV_CUDA_PLUGIN) was not found", PATH_SHOWN, given);
            return;
        }
        snprintf(path, sizeof path, "%s", given);
    } else {
        loader_folder(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s", dir, MINV_CUDA_PLUGIN_FILE);
        if (!dir[0] || access(path, F_OK) != 0) {
            snprintf(path, sizeof path, "%s", MINV_CUDA_PLUGIN_FILE);
            by_name = 1;
        }
    }
    if (probe_driver(plugin_why, len) != 0)
        return;

    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    char error[MINV_REASON_LEN];
    snprintf(error, sizeof error, "%s", lib ? "" : dlerror());
    if (!lib && by_name) {
        snprintf(path, sizeof path, "%s/%s", MINV_PLUGIN_INSTALL_DIR, MINV_CUDA_PLUGIN_FILE);
        if (access(path, F_OK) == 0) {
            by_name = 0;
            if (!(lib = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
                snprintf(error, sizeof error, "%s", dlerror());
        }
    }
    if (!lib) {
        /* dlerror names the file that is missing: the plugin itself, or a library it needs */
        if (by_name && strncmp(error, MINV_CUDA_PLUGIN_FILE ":", strlen(MINV_CUDA_PLUGIN_FILE) + 1) == 0)
            snprintf(plugin_why, len,
                     "the CUDA plugin %s was not found beside %.*s, on the library path or in %.*s (set "
                     "MINV_CUDA_PLUGIN to its path)",
                     MINV_CUDA_PLUGIN_FILE, PATH_SHOWN, dir[0] ? dir : "libminv", PATH_SHOWN, MINV_PLUGIN_INSTALL_DIR);
        else
            snprintf(plugin_why, len, "the CUDA plugin %.*s could not be loaded: %.250s", PATH_SHOWN, path, error);
        return;
    }
    if (!(plugin = check_plugin(lib, path, plugin_why, len)))
        dlclose(lib);
}

minv_status minv_gpu_create(minv_context *ctx) {
    pthread_once(&plugin_once, open_plugin);
    if (!plugin)
        return minv_fail(ctx, MINV_ERR_NO_GPU, "%s", plugin_why);
    return plugin->create(ctx);
}

void minv_gpu_destroy(minv_context *ctx) {
    if (plugin && ctx->gpu)
        plugin->destroy(ctx);
}
