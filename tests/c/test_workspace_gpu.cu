/* The device workspaces' aliasing check (src_cuda/workspace.cu), called directly as the GPU
 * algorithms call it (no public call lists a slot twice): a request naming one slot twice, a
 * slot that does not exist, or a slot an earlier request of the call still holds, fails with
 * MINV_ERR_INTERNAL and the slot's name and hands out nothing; a request of distinct slots
 * gets distinct buffers; a scope releases what was reserved within it and nothing else; the
 * context then works (an inversion checked by its residual ratio). Skips (77) without a GPU.
 * The whole GPU suite checks that no algorithm reserves a slot it or its caller holds. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src_cuda/gpu.h"

static int failures = 0;

static void check(int ok, const char *what, const minv_context *ctx) {
    if (!ok) {
        failures++;
        printf("FAIL: %s (%s)\n", what, minv_last_error(ctx));
    }
}

int main(void) {
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_GPU;
    minv_context *ctx = NULL;
    if (minv_create(&ctx, &o) != MINV_SUCCESS) {
        printf("test_workspace_gpu: no usable GPU, skipped\n");
        return 77;
    }
    const size_t bytes[2] = {1024, 4096};
    void *ptrs[2] = {NULL, NULL};

    const int twice[2] = {WS_B, WS_B};
    check(minv_gpu_reserve(ctx, 2, twice, bytes, ptrs) == MINV_ERR_INTERNAL, "WS_B twice: MINV_ERR_INTERNAL", ctx);
    check(strstr(minv_last_error(ctx), "WS_B is reserved twice") != NULL, "the message names WS_B", ctx);
    check(!ptrs[0] && !ptrs[1], "nothing handed out", ctx);

    const int panels[2] = {WS_PANEL + 1, WS_PANEL + 1};
    check(minv_gpu_reserve(ctx, 2, panels, bytes, ptrs) == MINV_ERR_INTERNAL, "WS_PANEL+1 twice", ctx);
    check(strstr(minv_last_error(ctx), "WS_PANEL+1") != NULL, "the message names WS_PANEL+1", ctx);

    const int none[1] = {WS_COUNT};
    check(minv_gpu_reserve(ctx, 1, none, bytes, ptrs) == MINV_ERR_INTERNAL, "a slot past WS_COUNT", ctx);
    check(strstr(minv_last_error(ctx), "does not exist") != NULL, "the message says the slot does not exist", ctx);

    const int two[2] = {WS_B, WS_C};
    check(minv_gpu_reserve(ctx, 2, two, bytes, ptrs) == MINV_SUCCESS, "WS_B and WS_C", ctx);
    check(ptrs[0] && ptrs[1] && ptrs[0] != ptrs[1], "distinct buffers", ctx);

    /* a later request of the same call may not take WS_B while the first holds it: grown, the
     * first pointer would dangle; returned as it is, the two would alias */
    void *held_b = ptrs[0], *again = NULL;
    const int b_only[1] = {WS_B};
    const size_t larger[1] = {1 << 20};
    check(minv_gpu_reserve(ctx, 1, b_only, larger, &again) == MINV_ERR_INTERNAL, "WS_B again while held", ctx);
    check(strstr(minv_last_error(ctx), "WS_B is reserved again") != NULL, "the message names WS_B", ctx);
    check(!again && ctx->gpu->ws[WS_B] == held_b, "WS_B's buffer kept for its holder", ctx);

    /* what a scope reserves is released when it ends, and only that */
    void *inner = NULL, *inner_again = NULL;
    const int d_only[1] = {WS_D};
    {
        minv_gpu_scope phase(ctx);
        check(minv_gpu_reserve(ctx, 1, d_only, bytes, &inner) == MINV_SUCCESS, "WS_D in a scope", ctx);
    }
    check(minv_gpu_reserve(ctx, 1, d_only, bytes, &inner_again) == MINV_SUCCESS, "WS_D after its scope ended", ctx);
    check(inner && inner_again == inner, "the cached buffer handed out again", ctx);
    check(minv_gpu_reserve(ctx, 1, b_only, bytes, &again) == MINV_ERR_INTERNAL, "WS_B still held after the scope",
          ctx);
    minv_gpu_end_call(ctx);
    check(minv_gpu_reserve(ctx, 1, b_only, larger, &again) == MINV_SUCCESS, "WS_B in the next call", ctx);
    minv_gpu_end_call(ctx);

    /* the context is unharmed: a general matrix inverted, ||I - A X||_1 / (n ||A||_1 ||X||_1 eps) < 30 */
    enum { N = 200 };
    double *a = (double *)malloc(sizeof(double) * N * N), *x = (double *)malloc(sizeof(double) * N * N);
    unsigned long long s = 2424;
    for (int k = 0; k < N * N; k++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        a[k] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
    for (int i = 0; i < N; i++) a[i + i * N] += N;
    check(minv_invert_d(ctx, MINV_METHOD_LU, N, a, N, x, N, NULL) == MINV_SUCCESS, "an inversion after", ctx);
    double rmax = 0, anorm = 0, xnorm = 0;
    for (int j = 0; j < N; j++) {
        double rc = 0, ac = 0, xc = 0;
        for (int i = 0; i < N; i++) {
            double ax = 0;
            for (int k = 0; k < N; k++) ax += a[i + k * N] * x[k + j * N];
            rc += fabs((i == j) - ax);
            ac += fabs(a[i + j * N]);
            xc += fabs(x[i + j * N]);
        }
        rmax = rc > rmax ? rc : rmax;
        anorm = ac > anorm ? ac : anorm;
        xnorm = xc > xnorm ? xc : xnorm;
    }
    const double ratio = rmax / (N * anorm * xnorm * DBL_EPSILON);
    printf("test_workspace_gpu: inversion after the refusals, ratio %.3g\n", ratio);
    check(ratio < 30, "the inversion's ratio < 30", ctx);
    free(a);
    free(x);
    minv_destroy(ctx);
    if (failures) {
        printf("test_workspace_gpu: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_workspace_gpu: all checks passed\n");
    return 0;
}
