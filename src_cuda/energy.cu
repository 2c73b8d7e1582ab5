// GPU energy to solution from NVML's total-energy counters (the many-RHS paper's section 4),
// summed over the context's GPUs. NVML is loaded at run time, so libminv runs where it is
// absent (no meter, and the report says energy -1); only the four calls below are used, so
// their signatures are declared here rather than taken from nvml.h.
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"

typedef int nvml_return;             /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device; /* nvmlDevice_t, opaque */

struct minv_energy {
    void *lib;
    nvml_return (*shutdown)(void);
    nvml_return (*total_energy)(nvml_device, unsigned long long *); /* millijoules since load */
    int count;
    nvml_device devices[MINV_MAX_DEVICES];
};

void minv_gpu_energy_close(minv_gpu *g) {
    minv_energy *e = g->energy;
    if (!e)
        return;
    if (e->shutdown) e->shutdown();
    if (e->lib) dlclose(e->lib);
    free(e);
    g->energy = NULL;
}

void minv_gpu_energy_open(minv_gpu *g, const int *devices, int count) {
    minv_energy *e = (minv_energy *)calloc(1, sizeof *e);
    nvml_return (*init)(void);
    nvml_return (*by_bus)(const char *, nvml_device *);
    if (!e) return;
    g->energy = e;
    e->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!e->lib) goto fail;
    init = (nvml_return(*)(void))dlsym(e->lib, "nvmlInit_v2");
    e->shutdown = (nvml_return(*)(void))dlsym(e->lib, "nvmlShutdown");
    by_bus = (nvml_return(*)(const char *, nvml_device *))dlsym(e->lib, "nvmlDeviceGetHandleByPciBusId_v2");
    e->total_energy = (nvml_return(*)(nvml_device, unsigned long long *))dlsym(e->lib, "nvmlDeviceGetTotalEnergyConsumption");
    if (!init || !e->shutdown || !by_bus || !e->total_energy || init() != 0) {
        e->shutdown = NULL;
        goto fail;
    }
    for (int k = 0; k < count && k < MINV_MAX_DEVICES; k++) {
        char bus[32];
        unsigned long long mj;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, devices[k]) != cudaSuccess || by_bus(bus, &e->devices[k]) != 0 ||
            e->total_energy(e->devices[k], &mj) != 0)
            goto fail;
        e->count = k + 1;
    }
    return;
fail:
    minv_gpu_energy_close(g);
}

extern "C" double minv_gpu_energy(minv_context *ctx) {
    minv_energy *e = ctx->gpu ? ctx->gpu->energy : NULL;
    double sum = 0;
    if (!e || e->count == 0)
        return -1;
    for (int k = 0; k < e->count; k++) {
        unsigned long long mj;
        if (e->total_energy(e->devices[k], &mj) != 0)
            return -1;
        sum += (double)mj;
    }
    return sum / 1e3;
}
