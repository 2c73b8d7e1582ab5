/* The choice of backend and what it says, on whatever machine runs it: a context asked for
 * the CPU notes nothing; AUTO without a usable GPU runs on the CPU and every report carries one
 * short, true note on why ("no NVIDIA driver (libcuda.so.1 not found)", "no CUDA device", ...,
 * never the CUDA runtime's "driver version is insufficient" where there is no driver); a
 * context asked for the GPU fails with MINV_ERR_NO_GPU and minv_last_error(NULL) says the same.
 *   test_backend              the machine as it is
 *   test_backend no-plugin    MINV_CUDA_PLUGIN names a missing file: the GPU fails with "the
 *                             CUDA plugin ... was not found", the CPU works
 *   test_backend bad-plugin   MINV_CUDA_PLUGIN names a library that is no plugin
 *   test_backend fake-driver  a stand-in driver that claims a device (fake_libcuda.c): the
 *                             plugin is opened, and its CUDA runtime's failure is the note
 * Where the driver has no device (or there is no plugin), no CUDA library may be loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char NOTE[] = "CPU backend: ";

static int count_of(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* The note of a report, after NOTE, up to the next "; "; "" without one. */
static void note_of(const char *reason, char *note, size_t len) {
    const char *p = strstr(reason, NOTE);
    note[0] = '\0';
    if (!p) return;
    p += strlen(NOTE);
    size_t n = strcspn(p, ";");
    snprintf(note, len, "%.*s", (int)n, p);
}

/* A 6 x 6 solve on ctx, checked against the residual bound; its report's reason. */
static void solve(minv_context *ctx, minv_report *rep) {
    enum { N = 6, K = 2 };
    tu_rng rng;
    tu_seed(&rng, 7);
    double a[N * N], b[N * K], x[N * K];
    tu_general(&rng, N, a, N);
    tu_rect(&rng, N, K, b, N);
    CHECK_STATUS(minv_solve_d(ctx, MINV_METHOD_AUTO, N, K, a, N, b, N, x, N, rep), MINV_SUCCESS, ctx);
    double ratio = tu_solve_ratio(N, K, a, N, b, N, x, N, 2.220446049250313e-16);
    CHECK(ratio < 30, "solve residual ratio %.3g", ratio);
}

static int name_has(struct dl_phdr_info *info, size_t size, void *what) {
    (void)size;
    return strstr(info->dlpi_name, (const char *)what) != NULL;
}

/* 1 when an object whose path holds `what` is loaded in this process. */
static int loaded(const char *what) { return dl_iterate_phdr(name_has, (void *)what); }

/* One of the true reasons this build can give for having no GPU. */
static int is_true_reason(const char *why) {
    static const char *const starts[] = {"no NVIDIA driver (libcuda.so.1 not found)", "no CUDA device",
                                         "NVIDIA driver too old: it supports CUDA ",
                                         "the NVIDIA driver could not start: ", "no usable CUDA device: ",
                                         "the CUDA plugin ", "minv was built without CUDA"};
    for (size_t k = 0; k < sizeof starts / sizeof *starts; k++)
        if (strncmp(why, starts[k], strlen(starts[k])) == 0) return 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "machine";
    const char *plugin = getenv("MINV_CUDA_PLUGIN");
    if ((strcmp(mode, "no-plugin") == 0 || strcmp(mode, "bad-plugin") == 0) && !plugin) {
        fprintf(stderr, "test_backend %s: run with MINV_CUDA_PLUGIN set (CTest does)\n", mode);
        return 1;
    }
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    char expected[1024] = "";
    if (!MINV_HAVE_CUDA)
        snprintf(expected, sizeof expected, "minv was built without CUDA (MINV_ENABLE_CUDA=OFF or no nvcc)");
    else if (strcmp(mode, "no-plugin") == 0)
        snprintf(expected, sizeof expected, "the CUDA plugin %s (MINV_CUDA_PLUGIN) was not found", plugin);
    else if (!driver)
        snprintf(expected, sizeof expected, "no NVIDIA driver (libcuda.so.1 not found)");
    else if (strcmp(mode, "bad-plugin") == 0)
        snprintf(expected, sizeof expected, "the CUDA plugin %s is not one of minv's (it has no minv_cuda_plugin_v1)", plugin);

    /* asked for the CPU: no note at all */
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    minv_context *cpu = NULL;
    minv_report rep;
    CHECK_STATUS(minv_create(&cpu, &o), MINV_SUCCESS, cpu);
    solve(cpu, &rep);
    CHECK(!strstr(rep.reason, "GPU") && !strstr(rep.reason, NOTE), "a CPU context's report: \"%s\"", rep.reason);
    CHECK(strcmp(minv_last_error(NULL), "") == 0, "after a successful create, minv_last_error(NULL) = \"%s\"",
          minv_last_error(NULL));

    /* AUTO: the GPU, or the CPU with one true note in every report */
    minv_context *any = NULL;
    CHECK_STATUS(minv_create(&any, NULL), MINV_SUCCESS, any);
    char note[1024] = "";
    if (any && minv_context_backend(any) == MINV_BACKEND_GPU) {
        CHECK(!expected[0], "AUTO got the GPU where \"%s\" was expected", expected);
        solve(any, &rep);
        CHECK(!strstr(rep.reason, NOTE), "a GPU context's report: \"%s\"", rep.reason);
    } else if (any) {
        for (int call = 0; call < 2; call++) {
            solve(any, &rep);
            CHECK(count_of(rep.reason, NOTE) == 1, "call %d: the note once, in \"%s\"", call, rep.reason);
            CHECK(!strstr(rep.reason, "insufficient"), "call %d: \"%s\"", call, rep.reason);
        }
        note_of(rep.reason, note, sizeof note);
        CHECK(is_true_reason(note), "AUTO's note: \"%s\"", note);
        /* where the driver says there is no device, or there is no plugin, nothing of CUDA is loaded */
        if (expected[0] || strcmp(mode, "no-plugin") == 0)
            CHECK(!loaded("libminv_cuda") && !loaded("libcudart") && !loaded("libcublas"),
                  "CUDA libraries loaded with AUTO on the CPU (%s)", note);
        if (strcmp(mode, "fake-driver") == 0) {
            CHECK(loaded("libminv_cuda"), "the stand-in driver claims a device, but the plugin was not opened");
            CHECK(strncmp(note, "no usable CUDA device: ", 23) == 0 || strncmp(note, "NVIDIA driver too old", 21) == 0,
                  "the plugin's CUDA runtime should fail on the stand-in driver: \"%s\"", note);
        }
        CHECK(!expected[0] || strcmp(note, expected) == 0, "AUTO's note \"%s\", expected \"%s\"", note, expected);
        double da[4] = {0};
        CHECK_STATUS(minv_invert_device_d(any, MINV_METHOD_AUTO, 2, da, 2, da, 2, NULL), MINV_ERR_NO_GPU, any);
        CHECK(strstr(minv_last_error(any), note) != NULL, "a device call on the CPU says why: \"%s\"", minv_last_error(any));
        minv_batch_report brep;
        double ab[2 * 4] = {2, 0, 0, 2, 3, 0, 0, 3}, xb[2 * 4];
        CHECK_STATUS(minv_invert_batched_d(any, MINV_METHOD_AUTO, 2, 2, ab, 2, 4, xb, 2, 4, NULL, &brep), MINV_SUCCESS, any);
        CHECK(count_of(brep.reason, NOTE) == 1 && strstr(brep.reason, note), "a batch report: \"%s\"", brep.reason);
        CHECK(fabs(xb[0] - 0.5) < 1e-15 && fabs(xb[7] - 1.0 / 3) < 1e-15, "batched inverses %g %g", xb[0], xb[7]);
    }

    /* asked for the GPU: it, or NO_GPU with the same reason for minv_last_error(NULL) */
    minv_context *gpu = NULL;
    o.backend = MINV_BACKEND_GPU;
    minv_status st = minv_create(&gpu, &o);
    if (any && minv_context_backend(any) == MINV_BACKEND_GPU) {
        CHECK(st == MINV_SUCCESS, "GPU create: %s", minv_last_error(NULL));
    } else {
        char want[1200];
        snprintf(want, sizeof want, "no usable GPU: %s", note);
        CHECK(st == MINV_ERR_NO_GPU && gpu == NULL, "GPU create returned %s", minv_status_string(st));
        CHECK(strcmp(minv_last_error(NULL), want) == 0, "minv_last_error(NULL) = \"%s\", expected \"%s\"",
              minv_last_error(NULL), want);
    }
    printf("test_backend %s: AUTO runs on the %s%s%s\n", mode, any ? minv_backend_name(minv_context_backend(any)) : "?",
           note[0] ? ": " : "", note);
    minv_destroy(gpu);
    minv_destroy(any);
    minv_destroy(cpu);
    return tu_finish("test_backend");
}
