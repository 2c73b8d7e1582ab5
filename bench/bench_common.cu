// See bench_common.h: the parts that need CUDA (bench_host.c has the others).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "minv_commit.h"

void bench_header(FILE *out, int argc, char **argv) {
    cudaDeviceProp prop;
    char date[64], first[sizeof prop.name] = "no GPU", name[4 * sizeof prop.name];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    int count = 0, same = 1;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    for (int d = 0; d < count; d++) { /* "NVIDIA H200", "2 x NVIDIA H200", or "A + B" when they differ */
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
        if (d == 0) snprintf(first, sizeof first, "%s", prop.name);
        else same = same && !strcmp(first, prop.name);
    }
    if (count > 1 && same) snprintf(name, sizeof name, "%d x %s", count, first);
    else snprintf(name, sizeof name, "%s", first);
    for (int d = 1; d < count && !same; d++)
        if (cudaGetDeviceProperties(&prop, d) == cudaSuccess && strlen(name) + strlen(prop.name) + 4 < sizeof name)
            snprintf(name + strlen(name), sizeof name - strlen(name), " + %s", prop.name);
    fprintf(out, "# device: %s, date: %s, commit: %s, command:", name, date, MINV_COMMIT);
    for (int k = 0; k < argc; k++) fprintf(out, " %s", argv[k]);
    fprintf(out, "\n");
    bench_meter *m = bench_meter_get();
    fprintf(out, "# measured: %d warm-up run(s), then the median of at least %d runs (%d under %.0f ms); energy from "
                 "NVML (%s)\n",
            BENCH_WARMUPS, BENCH_MIN_RUNS, BENCH_MIN_RUNS_SHORT, 1e3 * BENCH_SHORT,
            m->count ? "every GPU's counter read in one pass around each timed run" : "absent here");
}

void bench_touch(void *p, size_t bytes) { memset(p, 0, bytes); }

/* ---- NVML ---- */

bench_meter *bench_meter_get(void) {
    static bench_meter meter;
    static bool opened = false;
    if (opened)
        return &meter;
    opened = true;
    meter.count = 0;
    meter.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!meter.lib)
        return &meter;
    int (*init)(void) = (int (*)(void))dlsym(meter.lib, "nvmlInit_v2");
    int (*by_bus)(const char *, void **) = (int (*)(const char *, void **))dlsym(meter.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    int (*limit)(void *, unsigned *) = (int (*)(void *, unsigned *))dlsym(meter.lib, "nvmlDeviceGetEnforcedPowerLimit");
    meter.energy = (int (*)(void *, unsigned long long *))dlsym(meter.lib, "nvmlDeviceGetTotalEnergyConsumption");
    int count = 0;
    if (!init || !by_bus || !meter.energy || init() != 0 || cudaGetDeviceCount(&count) != cudaSuccess)
        return &meter;
    for (int d = 0; d < count && d < 16; d++) {
        char bus[32];
        unsigned long long mj;
        unsigned mw = 0;
        if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) != cudaSuccess || by_bus(bus, &meter.dev[d]) != 0 ||
            meter.energy(meter.dev[d], &mj) != 0) {
            meter.count = 0; /* all or nothing: a partial sum would pass for the whole */
            return &meter;
        }
        meter.limit_w[d] = limit && limit(meter.dev[d], &mw) == 0 ? mw / 1e3 : 0;
        meter.count = d + 1;
    }
    return &meter;
}

bool bench_meter_read(bench_meter *m, double *j) {
    for (int d = 0; d < m->count; d++) {
        unsigned long long mj;
        if (m->energy(m->dev[d], &mj) != 0)
            return false;
        j[d] = (double)mj / 1e3;
    }
    return true;
}

/* ---- the measurement ---- */

bool bench_enough(const double *t, int runs, double energy_seconds) {
    if (runs >= BENCH_MAX_RUNS)
        return true;
    double sorted[BENCH_MAX_RUNS];
    std::copy(t, t + runs, sorted);
    const int need = runs > 0 && bench_median(sorted, runs) < BENCH_SHORT ? BENCH_MIN_RUNS_SHORT : BENCH_MIN_RUNS;
    return runs >= need && (energy_seconds < 0 || energy_seconds >= BENCH_ENERGY_SECONDS);
}

bench_result bench_summarise(double *t, int runs, unsigned gpus, double joules, double joules_all) {
    bench_result r;
    double total = 0;
    for (int k = 0; k < runs; k++) total += t[k];
    r.runs = runs;
    r.seconds = bench_median(t, runs); /* sorts t */
    r.fastest = t[0];
    r.slowest = t[runs - 1];
    r.joules = r.joules_all = r.watts = -1;
    r.limit_w = 0;
    r.impossible = false;
    if (gpus && runs > 0 && joules > 0) {
        bench_meter *m = bench_meter_get();
        r.joules = joules / runs;
        r.joules_all = joules_all / runs;
        r.watts = joules / total;
        bool known = true;
        for (int d = 0; d < m->count; d++)
            if (gpus >> d & 1u) {
                r.limit_w += m->limit_w[d];
                known = known && m->limit_w[d] > 0;
            }
        if (!known) r.limit_w = 0;
        r.impossible = r.limit_w > 0 && r.watts > 1.05 * r.limit_w;
    }
    return r;
}

const char *bench_energy_text(const bench_result &r, char *buf, size_t len) {
    if (r.joules < 0) snprintf(buf, len, "-");
    else if (r.impossible) snprintf(buf, len, "%.1f (IMPOSSIBLE: %.0f W > limit %.0f W)", r.joules, r.watts, r.limit_w);
    else snprintf(buf, len, "%.1f", r.joules);
    return buf;
}

std::vector<int64_t> bench_list(const char *arg) {
    std::vector<int64_t> v;
    for (char *end; *arg; arg = *end == ',' ? end + 1 : end) {
        v.push_back(strtoll(arg, &end, 10));
        if (end == arg) {
            v.pop_back();
            break;
        }
    }
    return v;
}

double bench_dgemm_tflops(int64_t n, int64_t products) {
    const size_t bytes = sizeof(double) * (size_t)n * (size_t)n;
    const double one = 1, zero = 0;
    double *a, *b, *c;
    cublasHandle_t h;
    BENCH_CK(cublasCreate(&h));
    BENCH_CK(cudaMalloc((void **)&a, bytes));
    BENCH_CK(cudaMalloc((void **)&b, bytes));
    BENCH_CK(cudaMalloc((void **)&c, bytes));
    BENCH_CK(cudaMemset(a, 0x3f, bytes)); /* about 0.5: no zeros or denormals */
    BENCH_CK(cudaMemset(b, 0x3f, bytes));
    if (products < 1) products = 1;
    const double s = bench_median_events([] {}, [&] {
        for (int64_t k = 0; k < products; k++)
            BENCH_CK(cublasDgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n));
    });
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 2.0 * (double)n * (double)n * (double)n * (double)products / s / 1e12;
}

namespace {
struct stage_log {
    bool sync;
    int count;
    const char *name[32];
    double at[32];
};

void on_stage(void *user, const char *stage, double fraction) {
    stage_log *log = (stage_log *)user;
    if (fraction == 0 && log->count < 32) {
        if (log->sync) cudaDeviceSynchronize();
        log->name[log->count] = stage;
        log->at[log->count++] = bench_now();
    }
}
} // namespace

void bench_print_stages(FILE *out, minv_context *ctx, bool sync, const std::function<void()> &call) {
    stage_log log = {sync, 0, {NULL}, {0}};
    minv_set_progress(ctx, on_stage, &log);
    cudaDeviceSynchronize();
    const double t0 = bench_now();
    call();
    cudaDeviceSynchronize();
    const double t1 = bench_now();
    minv_set_progress(ctx, NULL, NULL);
    fprintf(out, "    stages (ms): start %.3f", ((log.count ? log.at[0] : t1) - t0) * 1e3);
    for (int k = 0; k < log.count; k++)
        fprintf(out, ", %s %.3f", log.name[k], ((k + 1 < log.count ? log.at[k + 1] : t1) - log.at[k]) * 1e3);
    fprintf(out, " (whole %.3f)\n", (t1 - t0) * 1e3);
}
