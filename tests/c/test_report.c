/* The report's structured fields on the CPU: stages (compute within the call's seconds, no
 * copies), the device (-1), fallbacks (no GPU for an AUTO context built or run without one;
 * Cholesky to LU), reconditioning (kind, shift, condition numbers), matrices and worst; and a
 * reason that outgrows the struct, cut with "..." instead of losing its end silently. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

enum { N = 40 };

static void stages_and_fallbacks(void) {
    minv_context *ctx = NULL;
    minv_options o;
    minv_options_default(&o); /* AUTO: the CPU where no GPU is usable */
    CHECK_STATUS(minv_create(&ctx, &o), MINV_SUCCESS, ctx);
    const int on_gpu = minv_context_backend(ctx) == MINV_BACKEND_GPU;
    double *a = tu_alloc(N, N, N), *x = tu_alloc(N, N, N);
    tu_rng rng;
    tu_seed(&rng, 3);
    tu_spd(&rng, N, a, N);
    minv_report r;
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, N, a, N, x, N, &r), MINV_SUCCESS, ctx);
    CHECK(r.stages.compute_seconds > 0 && r.stages.compute_seconds <= r.seconds, "compute %g of %g s", r.stages.compute_seconds, r.seconds);
    CHECK(r.stages.read_seconds == 0 && r.stages.write_seconds == 0 && r.stages.read_bytes == 0 && r.stages.write_bytes == 0, "file stages set");
    CHECK(r.matrices == 1 && r.worst == -1 && r.recondition == MINV_RECONDITION_NONE && r.condition_before == -1,
          "matrices %lld, worst %lld, recondition %d", (long long)r.matrices, (long long)r.worst, (int)r.recondition);
    if (r.backend == MINV_BACKEND_GPU) /* the host form copies A up and the inverse down */
        CHECK(r.device >= 0 && r.stages.upload_bytes >= (double)N * N * 8 && r.stages.download_bytes >= (double)N * N * 8 &&
                  r.stages.upload_seconds > 0 && r.stages.download_seconds > 0,
              "device %d, upload %g B in %g s, download %g B in %g s", (int)r.device, r.stages.upload_bytes,
              r.stages.upload_seconds, r.stages.download_bytes, r.stages.download_seconds);
    else
        CHECK(r.device == -1 && r.stages.upload_bytes == 0 && r.stages.download_bytes == 0, "device %d, upload %g", (int)r.device,
              r.stages.upload_bytes);
    if (!on_gpu) /* AUTO found no GPU: every report says so */
        CHECK(r.fallbacks == MINV_FALLBACK_NO_GPU && strstr(r.reason, "CPU backend: "), "fallbacks %d: %s", (int)r.fallbacks,
              r.reason);
    /* symmetric with a positive diagonal but indefinite: AUTO's Cholesky hands it to LU */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i + j * N] = i == j ? 1 : 2.0 / (1 + abs(i - j));
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, N, a, N, x, N, &r), MINV_SUCCESS, ctx);
    CHECK(r.method == MINV_METHOD_LU && (r.fallbacks & MINV_FALLBACK_LU), "method %s, fallbacks %d",
          minv_method_name(r.method), (int)r.fallbacks);
    CHECK(strcmp(minv_fallback_name(MINV_FALLBACK_LU), "lu") == 0 && strcmp(minv_fallback_name(MINV_FALLBACK_NO_GPU), "no-gpu") == 0 &&
              strcmp(minv_recondition_name(MINV_RECONDITION_RIDGE), "ridge") == 0,
          "names");
    /* a ridge: kind, delta and the condition numbers */
    tu_with_cond(&rng, N, 1e6, 1, a, N);
    minv_set_option(ctx, MINV_OPT_RECONDITION, MINV_RECONDITION_RIDGE);
    CHECK_STATUS(minv_invert_d(ctx, MINV_METHOD_AUTO, N, a, N, x, N, &r), MINV_SUCCESS, ctx);
    CHECK(r.recondition == MINV_RECONDITION_RIDGE && r.recondition_shift > 0 && fabs(r.condition_before / 1e6 - 1) < 1e-3 &&
              r.condition_after == 1000,
          "ridge: %d, delta %g, %g -> %g", (int)r.recondition, r.recondition_shift, r.condition_before, r.condition_after);
    free(a);
    free(x);
    minv_destroy(ctx);
}

/* Notes past the struct's size: the reason ends in "...", and stays there. */
static void reason_cut(void) {
    minv_report r;
    minv_report_init(&r, MINV_METHOD_AUTO, 1, 0);
    for (int k = 0; k < 40; k++)
        minv_report_note(&r, "note %d of a long account of what happened", k);
    const size_t len = strlen(r.reason);
    CHECK(len == MINV_REASON_LEN - 1 && strcmp(r.reason + len - 3, "...") == 0, "reason of %zu characters ends in \"%s\"",
          len, r.reason + (len > 10 ? len - 10 : 0));
    CHECK(strncmp(r.reason, "note 0 of", 9) == 0 && strstr(r.reason, "; note 1 of"), "the first notes are kept");
    minv_report_init(&r, MINV_METHOD_AUTO, 1, 0);
    minv_report_note(&r, "short");
    minv_report_note(&r, "notes");
    CHECK(strcmp(r.reason, "short; notes") == 0, "reason \"%s\"", r.reason);
}

int main(void) {
    stages_and_fallbacks();
    reason_cut();
    return tu_finish("test_report");
}
