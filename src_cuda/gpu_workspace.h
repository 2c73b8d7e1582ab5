/* Device and pinned host workspaces of a context, by named slot (workspace.cu). */
#ifndef MINV_GPU_WORKSPACE_H
#define MINV_GPU_WORKSPACE_H

#include "../src_c/internal.h"

/* Device workspaces, by role. An algorithm reserves the slots it needs in one call, so the
 * budget is checked once and the second DA cycle reuses every allocation. */
enum { MINV_GPU_STREAMS = 4 };
enum minv_ws_slot {
    WS_A = 0, /* the input matrix; the analysis leaves it here for the method that follows */
    WS_B, WS_C, WS_D, WS_E, WS_F, WS_G, WS_H,
    WS_LOW,                           /* IT_BUFFERS single-precision copies (mixed precision) */
    WS_PANEL_FIRST = WS_LOW + IT_BUFFERS,
    WS_PANEL = WS_PANEL_FIRST,        /* MINV_GPU_STREAMS panels of minv_gpu_stream_panels */
    WS_AUX = WS_PANEL + MINV_GPU_STREAMS, /* MINV_GPU_STREAMS companions for its callbacks */
    WS_SOLVER = WS_AUX + MINV_GPU_STREAMS, /* cuSOLVER workspace */
    WS_SMALL,  /* reductions, info, pivots */
    WS_SCALAR, /* a few scalars for norms and checks */
    WS_VEC,    /* residual probes and sampled columns */
    WS_RESID,  /* a copy of A for the full residual */
    WS_AHEAD,      /* a small Cholesky factor made beside the analysis, and its info (cholesky.cu) */
    WS_AHEAD_WORK, /* its cuSOLVER workspace */
    WS_COUNT
};
enum minv_pinned_slot {
    PIN_STAGE = 0,                         /* MINV_GPU_STREAMS panel staging buffers */
    PIN_AUX = PIN_STAGE + MINV_GPU_STREAMS, /* MINV_GPU_STREAMS for callbacks */
    PIN_OOC = PIN_AUX + MINV_GPU_STREAMS,   /* IT_BUFFERS host matrices of out-of-core methods */
    PIN_SMALL = PIN_OOC + IT_BUFFERS,       /* a vector */
    PIN_READ_BACK,                          /* small results on their way to the host */
    PIN_PERMUTATION,                        /* getrf's row permutation on its way up */
    PIN_COUNT
};

/* A device slot's name for messages ("WS_B", "WS_PANEL+2") into name, which it returns. */
enum { MINV_SLOT_NAME_LEN = 32 };
const char *minv_gpu_slot_name(int slot, char name[MINV_SLOT_NAME_LEN]);
/* Makes slots[k] hold at least bytes[k] for k < count and returns the pointers, held until
 * the scope that reserved them ends (minv_gpu_scope) or the call does. Fails with
 * MINV_ERR_DEVICE_MEMORY when the slots this call holds would exceed the budget; slots not
 * held are released first when that makes room; with MINV_ERR_INTERNAL, naming the slot, when
 * the request lists a slot twice, a slot that does not exist, or a slot still held by an
 * earlier request (growing it would leave that request's pointer dangling, and keeping it
 * would alias the two): a buffer passes from one phase to the next only by the first
 * phase's scope ending. */
minv_status minv_gpu_reserve(minv_context *ctx, int count, const int *slots, const size_t *bytes,
                             void **ptrs);
/* The same on one device of the team, against its own budget. */
minv_status minv_gpu_reserve_on(minv_context *ctx, minv_gpu *g, int count, const int *slots, const size_t *bytes,
                                void **ptrs);
/* Whether `bytes` in total would fit the budget. */
int minv_gpu_fits(const minv_context *ctx, double bytes);
/* Bytes of the budget that the slots this call holds leave free. */
double minv_gpu_available(const minv_context *ctx);
/* The requests made after a mark, released together: every slot they reserved, on every
 * device of the team, stays cached for later requests and calls but may be released to
 * make room. */
typedef unsigned long long minv_gpu_mark;
minv_gpu_mark minv_gpu_mark_now(const minv_context *ctx);
void minv_gpu_release_since(minv_context *ctx, minv_gpu_mark mark);
#ifdef __cplusplus
/* What a function reserves for its own use is released when it returns, on every path, so
 * that the next phase of the call (a retry, the condition estimate, the residual) may
 * reserve the same slots. Slots a function hands to its caller belong to the caller's scope. */
struct minv_gpu_scope {
    minv_context *ctx;
    minv_gpu_mark mark;
    explicit minv_gpu_scope(minv_context *c) : ctx(c), mark(minv_gpu_mark_now(c)) {}
    ~minv_gpu_scope() { minv_gpu_release_since(ctx, mark); }
    minv_gpu_scope(const minv_gpu_scope &) = delete;
    minv_gpu_scope &operator=(const minv_gpu_scope &) = delete;
};
#endif
/* Device memory of a call's own outside the slots (the banded inversion's A and A^-1), charged
 * to the budget until freed: MINV_ERR_DEVICE_MEMORY when the budget cannot hold it. */
minv_status minv_gpu_own_alloc(minv_context *ctx, size_t bytes, void **dev);
void minv_gpu_own_free(minv_context *ctx, void *dev, size_t bytes);
minv_status minv_gpu_pinned(minv_context *ctx, int slot, size_t bytes, void **ptr);
/* Small results (reductions, norms, info, sampled vectors) to the host: one copy into the
 * context's pinned read-back buffer, then the stream waited for. *host is valid until the next
 * read-back; a pageable copy costs a staging pass and a malloc on the way. */
minv_status minv_gpu_read_back(minv_context *ctx, const void *dev, size_t bytes, void **host);
void minv_gpu_release_all(minv_gpu *g);
/* End of a public call: unlock the slots and forget the staged upload. */
void minv_gpu_end_call(minv_context *ctx);

#endif
