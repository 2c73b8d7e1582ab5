/* Internal declarations shared by the core and the backends. Never installed. */
#ifndef MINV_INTERNAL_H
#define MINV_INTERNAL_H

#include <fenv.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "minv.h"
#include "batch_tally.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of a matrix; the value is the element size in bytes. */
typedef enum { MINV_R32 = 4, MINV_R64 = 8 } minv_dtype;

/* A column-major matrix in host memory. */
typedef struct {
    minv_dtype dtype;
    int64_t rows, cols, ld;
    void *data;
} minv_mat;

/* MINV_METHOD_COUNT: the public methods (minv_method). The backend tables have one more id:
 * MINV_METHOD_GJ_BASELINE, the iterative paper's row-by-row out-of-core Gauss-Jordan, kept as
 * the benchmarks' baseline and reached through minv_invert_gj_baseline only. */
enum { MINV_METHOD_COUNT = 6, MINV_METHOD_GJ_BASELINE = MINV_METHOD_COUNT, MINV_METHOD_IDS, MINV_ERROR_LEN = 1024 };

/* A batch of column-major matrices (host or device memory), described once so that every
 * public form (strided, pointers, variable sizes, subsets) reaches the backends the same way.
 * Member b has order minv_batch_order(m, b) and minv_batch_cols(m, b) columns. */
typedef struct {
    minv_dtype dtype;       /* storage type */
    int64_t count;          /* members */
    int64_t rows;           /* order of every member; with sizes, the largest */
    int64_t cols;           /* columns when not square (right-hand sides) */
    int square;             /* 1: member b is order x order; 0: order x cols */
    const int64_t *sizes;   /* member orders (variable sizes, subsets); NULL when uniform */
    void *base;             /* strided: member b at base + b * stride elements */
    int64_t ld, stride;
    void *const *ptrs;      /* pointer forms: member b at ptrs[b] (base is NULL) */
    const int64_t *lds;     /* per-member leading dimensions (variable sizes); NULL: ld */
    const int64_t *index;   /* subsets: member b is rows and columns index[b * ldindex + i],
                               i < sizes[b], of its matrix (inputs only) */
    int64_t ldindex;
} minv_batch;

/* What each member of a batched call came to, filled by the backend (count entries each),
 * and their tally for the report. A backend given device data and no arrays (status NULL:
 * nobody asked for the members' outcomes) fills the tally instead and sets `tallied`. */
typedef struct {
    int tallied;
    minv_batch_tally tally;
    minv_status *status;
    int64_t *info;     /* 0-based column of a zero pivot, non-positive minor or NaN; -1 */
    int8_t *spd;       /* 1 when the SPD path produced the result */
    double *residual;  /* -1 when not computed */
    double *rcond;     /* 1 / (||A||_inf ||A^-1||_inf) of a member written (estimated for CPU
                          solves); -1 otherwise */
} minv_batch_results;

/* One backend: a table of algorithms, NULL where the backend lacks one. The host forms work
 * on host matrices (a GPU backend moves the data itself); the device forms, GPU only, on
 * device matrices. */
typedef minv_status (*minv_analyze_op)(minv_context *ctx, const minv_mat *a, minv_analysis *out);
/* x = A^-1. a is not modified unless it is x itself (in place); then, on MINV_ERR_NOT_SPD,
 * x holds A again so that the caller may fall back to another method. Sets report->rcond and
 * report->info (and the residual when the backend computes residuals). */
typedef minv_status (*minv_invert_op)(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                      const minv_analysis *an, minv_report *report);
/* x = A^-1 b; a and b are not modified unless b is x itself. */
typedef minv_status (*minv_solve_op)(minv_context *ctx, const minv_mat *a, const minv_mat *b,
                                     minv_mat *x, const minv_analysis *an, minv_report *report);
struct minv_tri_plan; /* tridiagonal.h */
struct minv_banded_io; /* minv_banded, below */
/* x_b = A_b^-1 for every member (x may be a itself: in place), computed in `compute`;
 * method is AUTO, CHOLESKY, LU or GAUSS_JORDAN, resolved per member. Member outcomes go to
 * res (and residuals when ctx->residual_mode > 0, with report->residual_kind); the returned
 * status is the call's own (allocation, device): MINV_ERR_NOT_IMPLEMENTED and
 * MINV_ERR_DEVICE_MEMORY let host data fall back to the CPU. Notes go to report->reason. */
typedef minv_status (*minv_invert_batched_op)(minv_context *ctx, minv_method method,
                                              minv_dtype compute, const minv_batch *a,
                                              const minv_batch *x, minv_batch_results *res,
                                              minv_batch_report *report);
/* x_b = A_b^-1 b_b; x may be b itself. */
typedef minv_status (*minv_solve_batched_op)(minv_context *ctx, minv_method method,
                                             minv_dtype compute, const minv_batch *a,
                                             const minv_batch *b, const minv_batch *x,
                                             minv_batch_results *res, minv_batch_report *report);
typedef struct minv_backend_ops {
    const char *name;
    int computes_residual; /* the ops fill report->residual where the data lives */
    minv_analyze_op analyze;
    /* x = A^-1 for the tridiagonal A of a plan (tridiagonal.h), by the plan's path; x in host
     * memory, or (the device form, GPU only) in device memory. Sets report->rcond and, where
     * the backend computes residuals, the residual. */
    minv_status (*invert_tridiagonal)(minv_context *ctx, const struct minv_tri_plan *plan,
                                      minv_mat *x, minv_report *report);
    minv_status (*invert_tridiagonal_device)(minv_context *ctx, const struct minv_tri_plan *plan,
                                             minv_mat *x, minv_report *report);
    /* host[k] = dev[k * stride], k < count, elements of type t (GPU only: the bands of device
     * data come to the host for the plan). */
    minv_status (*download_vector)(minv_context *ctx, const void *dev, int64_t stride,
                                   int64_t count, minv_dtype t, void *host);
    minv_invert_op invert[MINV_METHOD_IDS];
    minv_solve_op solve[MINV_METHOD_IDS];
    /* What AUTO runs for a general (not SPD) dense matrix of order n, inverted (nrhs 0) or
     * solved: the method measured fastest on this backend; NULL: LU. */
    minv_method (*general_method)(const minv_context *ctx, int64_t n, int64_t nrhs);
    minv_analyze_op analyze_device;
    minv_invert_op invert_device[MINV_METHOD_IDS];
    minv_solve_op solve_device[MINV_METHOD_IDS];
    /* Symmetric eigen-decomposition of host data, for reconditioning: w = the eigenvalues,
     * ascending. With x not NULL (the floor) the eigenvectors too, in the same decomposition:
     * when lambda_max > 0 and lambda_min < f = fraction lambda_max, x = V diag(1 / max(w, f))
     * V^T, or that times b when b is not NULL, and *applied = 1; else x is left alone and
     * *applied = 0. NULL where the backend lacks it (the CPU's then runs). */
    minv_status (*eigen)(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                         minv_mat *x, int *applied);
    /* Joules the context's devices have used since some fixed time, or -1 without a meter. */
    double (*energy)(minv_context *ctx);
    /* First NaN/Inf of a device matrix (finite = 1 if none); NULL on the CPU. */
    minv_status (*all_finite_device)(minv_context *ctx, const minv_mat *m, int64_t *bad_i,
                                     int64_t *bad_j, int *finite);
    /* Batches (batched.c): host forms, and device forms (strided device batches). */
    minv_invert_batched_op invert_batched, invert_batched_device;
    minv_solve_batched_op solve_batched, solve_batched_device;
    /* Called at the end of every public call: drops per-call state such as staged uploads. */
    void (*end_call)(minv_context *ctx);
    /* Mixed-precision solves (MINV_OPT_PRECISION, refine.c) of host and device data, for the
     * methods that have one; MINV_ERR_NO_CONVERGENCE when refinement does not reach the double
     * solve's backward error, so that the caller runs that instead. */
    minv_solve_op solve_mixed[MINV_METHOD_IDS];
    minv_solve_op solve_mixed_device[MINV_METHOD_IDS];
    /* minv_set_stream, and the start of a call on device data, which then waits for the
     * caller's stream (end_call makes the stream wait for minv's); NULL on the CPU. */
    minv_status (*set_stream)(minv_context *ctx, void *stream);
    minv_status (*begin_device_call)(minv_context *ctx);
    /* Device matrices of a call's own (banded.c), charged to the device budget while they
     * live: MINV_ERR_DEVICE_MEMORY when they do not fit it; NULL on the CPU. */
    minv_status (*device_alloc)(minv_context *ctx, size_t bytes, void **dev);
    void (*device_free)(minv_context *ctx, void *dev, size_t bytes);
    /* The bands of io (of `band` rows or columns) to the rows x cols device matrix dev (ld
     * rows), each band's transfer overlapping the filling of the next; and back from dev, each
     * band's drain overlapping the transfer of the next. *io_seconds gains the time spent in
     * fill or drain. */
    minv_status (*banded_upload)(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                 const struct minv_banded_io *io, void *dev, double *io_seconds);
    minv_status (*banded_download)(minv_context *ctx, minv_dtype t, int64_t rows, int64_t cols, int64_t band,
                                   const void *dev, const struct minv_banded_io *io, double *io_seconds);
    /* minv_host_register / unregister; NULL on the CPU (nothing to do). */
    minv_status (*host_register)(minv_context *ctx, void *p, size_t bytes);
    minv_status (*host_unregister)(minv_context *ctx, void *p);
} minv_backend_ops;

extern const minv_backend_ops minv_cpu_backend;

typedef struct minv_gpu minv_gpu; /* CUDA state: handles, streams, buffers (src_cuda) */

/* Host workspaces of a context, by use; each is held until it must grow. */
typedef enum {
    MINV_WORK_MATRIX = 0, /* n x n: the staged copy of A, its factor or inverse */
    MINV_WORK_RHS,        /* n x (nrhs + 1): right-hand sides and the estimator's column */
    MINV_WORK_SCAN,       /* the analysis' per-thread sums */
    MINV_WORK_PROBES,     /* the residual's probe vectors and products */
    MINV_WORK_LAPACK,     /* pivots and LAPACK's work arrays */
    MINV_WORK_SLOTS
} minv_work_slot;

typedef struct {
    double upload_seconds, download_seconds, upload_bytes, download_bytes;
} minv_moved;

struct minv_context {
    minv_options opts;
    minv_backend backend;        /* resolved: CPU or GPU */
    const minv_backend_ops *ops; /* the backend in use */
    minv_gpu *gpu;               /* NULL on the CPU backend */
    int device_count;            /* the GPUs of multi-GPU methods, devices[0] = gpu's */
    int devices[MINV_MAX_DEVICES];
    int cpu_threads;             /* resolved thread count */
    double tolerance;
    int64_t max_iterations;
    int64_t block_size;
    int64_t tile_size;
    double symmetry_tol;
    int residual_mode;
    minv_guess initial_guess;
    minv_iteration iteration;
    int mixed_precision;         /* MINV_OPT_MIXED_PRECISION: the iterative inversion's */
    minv_precision precision;    /* MINV_OPT_PRECISION: the solves' */
    minv_recondition recondition;
    double target_condition;
    minv_tridiagonal_algorithm tridiagonal_algorithm;
    int measure_energy;
    /* Streams of the out-of-core product (src_cuda/ooc_gemm.cu): 3 (one upload stream) or 4
     * (the paper's count: the two operands' slabs on two upload streams); not a public option,
     * set by bench_iterative to measure one against the other. */
    int ooc_streams;
    char last_error[MINV_ERROR_LEN];
    char backend_note[MINV_REASON_LEN]; /* why AUTO did not get the GPU, for reports */
    minv_progress_fn progress;
    void *progress_user;
    const minv_mat *call_guess; /* this call's warm start for the iteration, else NULL */
    /* a batched call's per-member outcomes, grown on demand and kept for the next call: fresh
     * pages for 100000 members cost more than a small batch's whole GPU work */
    minv_batch_results batch_outcomes;
    int64_t batch_outcomes_count;
    /* The thread inside a call on this context (0: none) and how deeply (an entry point that
     * calls another on the same context, as the file layer does); see minv_context_enter. */
    uintptr_t owner;
    int depth;
    /* host workspaces (workspace.c), kept from call to call */
    struct {
        void *data;
        size_t bytes;
    } work[MINV_WORK_SLOTS];
    /* this call's copy of A made by the CPU analysis for the factorisation (minv_cpu_staged):
     * its lower triangle (and the diagonal 4 x 4 blocks); LU completes the rest */
    struct {
        int wanted;      /* set by the entry point before the analysis: copy A */
        int probes;      /* and multiply it by the residual's probe vectors */
        const void *src; /* the matrix copied, NULL when none is held */
        int64_t ld;
        const void *probes_of; /* the matrix whose products A v are in MINV_WORK_PROBES */
        /* set by the entry point before the analysis: the right-hand sides (n for an
         * inversion) of the double Cholesky of A itself that may follow it, 0 where none can,
         * whether it is an inversion and whether the caller asked for Cholesky (not AUTO); the
         * GPU factors A beside its analysis on these */
        int64_t cholesky_columns;
        int cholesky_inverse, cholesky_asked;
    } stage;
    /* this call's copies of host arrays to and from the device, tallied by the GPU backend
     * (transfer.cu) for the report's stages; cleared when a call begins */
    minv_moved moved;
    /* what a library built on this one keeps with the context from call to call (libminv_mpi:
     * its cuSOLVERMp sessions), released by minv_destroy through `release` */
    struct {
        void *state;
        void (*release)(void *state);
    } attached;
};

/* ---- one thread at a time (context.c) ----
 * Every entry point that uses a context runs between enter and leave: another thread's call on
 * it meanwhile gets MINV_ERR_CONTEXT_BUSY from enter, having touched nothing; the same thread
 * may enter again (nested entry points). */
minv_status minv_context_enter(minv_context *ctx);
void minv_context_leave(minv_context *ctx);

/* ---- errors (status.c) ---- */
/* Records a printf-style message on ctx and returns status, so callers can
 * `return minv_fail(ctx, MINV_ERR_..., "...", ...)`. */
minv_status minv_fail(minv_context *ctx, minv_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void minv_clear_error(minv_context *ctx);
/* ctx's last error past its "<status>: ", for a note on a failure the call goes on from. */
const char *minv_error_detail(const minv_context *ctx, minv_status status);
/* Whether a batch member's output is written: it succeeded, or is singular to working
 * precision only (info < 0; minv.h writes its result as LAPACK's xGESVX does). */
static inline int minv_member_written(minv_status status, int64_t info) {
    return status == MINV_SUCCESS || (status == MINV_ERR_SINGULAR && info < 0);
}
/* Why the last minv_create of the calling thread failed, "" after a success (context.c). */
const char *minv_create_error(void);
/* Appends "; <text>" to the report's reason (what ran, why, and every fallback). */
void minv_report_note_text(minv_report *r, const char *text); /* a fixed text: nothing formatted */
void minv_report_note(minv_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The same for a batch report. */
void minv_batch_note(minv_batch_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same for a reason of `size` characters. */
void minv_reason_vnote(char *reason, size_t size, const char *fmt, va_list args);

/* Check macro for internal calls: on failure jump to the function's `cleanup:` label. */
#define MINV_TRY(expr)                  \
    do {                                \
        status = (expr);                \
        if (status != MINV_SUCCESS)     \
            goto cleanup;               \
    } while (0)

/* ---- floating-point environment (fpguard.c) ----
 * Every public entry point runs between begin and end: traps are masked inside, and the
 * caller's trap settings and exception flags are restored on the way out. */
typedef struct {
    fenv_t saved;
    unsigned mxcsr;               /* the fast path (x86-64, every trap masked): SSE state */
    unsigned short x87_status;    /* and the x87 flags */
    int fast;
} minv_fpguard;
void minv_fpguard_begin(minv_fpguard *guard);
void minv_fpguard_end(minv_fpguard *guard);
/* Subnormal operands and results take a microcode assist on Intel cores, a hundred cycles or
 * more each: potrf + potri of KMS(0.5) (a_ij = 0.5^|i-j|) of order 1024 took 187 ms on one
 * core of the H100 machine's Xeon and 30 ms with them flushed to zero. Where A's scale makes them
 * irrelevant, the CPU's factorisations and inverses run with them flushed (SSE's FTZ and DAZ, on
 * the calling thread: a multi-threaded BLAS's own workers keep their settings): each flushed
 * value is below eps^4 of max |a_ij| and of 1 / (n max |a_ij|), the scales of A, its factors
 * and its inverse (max |a_ij| bounded by ||A||_1 and ||A||_1 / n). begin returns what end
 * restores (0: nothing changed). */
typedef unsigned minv_flush;
minv_flush minv_flush_subnormals_begin(minv_dtype t, int64_t n, double norm_1);
void minv_flush_subnormals_end(minv_flush saved);
/* Inside minv's OpenMP regions: a worker thread may have been created earlier with the
 * caller's traps on (a prior parallel region of the program), so each masks them for its share
 * of the work and restores its own environment; thread 0, the calling thread, is covered by
 * the call's guard already. Reductions are combined before minv_worker_end. */
typedef struct {
    minv_fpguard guard;
    int guarded;
} minv_worker;
void minv_worker_begin(minv_worker *w);
void minv_worker_end(minv_worker *w);

/* Hot loops compiled three times, for x86-64-v4 (AVX-512: the same 32-byte vectors, with 32
 * registers instead of 16 and masked blends), x86-64-v3 (AVX2, FMA) and the baseline, the
 * processor picking at load time: the library itself is built for any x86-64. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(__clang__)
#define MINV_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define MINV_SIMD_CLONES
#endif
/* Loops left in scalars where vectors would lose more to store-to-load forwarding than they
 * gain (GCC's attribute; other compilers vectorise them as usual). */
#if defined(__GNUC__) && !defined(__clang__)
#define MINV_NO_VECTORIZE __attribute__((optimize("no-tree-vectorize")))
#else
#define MINV_NO_VECTORIZE
#endif
/* The helpers of a MINV_SIMD_CLONES function: inlined, so that each clone compiles them for
 * its own target. */
#define MINV_INLINE static inline __attribute__((always_inline))

/* ---- threads ----
 * Starting or waking a team costs microseconds on an idle machine and milliseconds on a loaded
 * one, more than a pass over a small matrix: a parallel pass gets one thread per
 * MINV_THREAD_GRAIN elements of work, and none beyond the calling thread below that. */
enum { MINV_THREAD_GRAIN = 1 << 18 };
int minv_threads_for(int cap, double work); /* cap: the context's cpu_threads */

/* ---- host workspaces (workspace.c) ---- */
/* *p = at least `bytes` of slot's workspace (64-byte aligned), grown if need be. */
minv_status minv_workspace(minv_context *ctx, minv_work_slot slot, size_t bytes, void **p);
void minv_workspace_free(minv_context *ctx);

/* ---- helpers ---- */
/* Calls the context's progress callback, if any. */
void minv_progress(minv_context *ctx, const char *stage, double fraction);
double minv_now(void);                          /* monotonic seconds */
double minv_eps(minv_dtype dtype);              /* unit roundoff * 2 (LAPACK's 'E') */
void minv_zero(void *p, size_t bytes);          /* memset(p, 0, bytes) by the C library's */
void minv_copy_bytes(void *to, const void *from, size_t bytes); /* memcpy, the C library's */
/* Pointer to element (i, j) of m. */
static inline void *minv_at(const minv_mat *m, int64_t i, int64_t j) {
    return (char *)m->data + ((size_t)j * (size_t)m->ld + (size_t)i) * (size_t)m->dtype;
}
/* Allocates an n x cols matrix with ld = rows, or returns MINV_ERR_ALLOC via ctx. */
minv_status minv_mat_alloc(minv_context *ctx, minv_mat *m, minv_dtype dtype, int64_t rows,
                           int64_t cols);
void minv_mat_free(minv_mat *m);
/* malloc, with 2 MiB pages asked for where the block is large (free() releases it). */
void *minv_alloc_large(size_t bytes);
void minv_mat_copy(const minv_mat *src, minv_mat *dst); /* same dtype and shape */
void minv_mat_mirror_lower(minv_mat *a); /* the strict upper triangle from the lower */
/* 1 when every entry is finite; else 0 with the first bad entry in column-major order. */
int minv_all_finite(const minv_mat *m, int64_t *bad_i, int64_t *bad_j, double *value);

/* ---- analysis (analysis.c): backends reduce, this assembles ---- */
#include "sumsq.h"
typedef struct {
    double max_colsum, max_abs;
    minv_sumsq sumsq;
    int64_t first_bad; /* column-major linear index of the first NaN/Inf; INT64_MAX if none */
    int64_t lower_bw, upper_bw;
} minv_scan_totals;
/* AUTO for a solve (nrhs > 0), and for inversion (nrhs 0) when A is not tridiagonal:
 * Cholesky, or the backend's general method. */
minv_method minv_choose_dense_method(const minv_context *ctx, const minv_analysis *an, int64_t nrhs);
/* t: the type of the matrix analysed, which sets the default symmetry tolerance. */
void minv_analysis_assemble(const minv_context *ctx, minv_dtype t, int64_t n, const minv_scan_totals *totals,
                            const double *rowsum, const double *diag, double max_asymmetry,
                            minv_analysis *out);
/* MINV_OPT_SYMMETRY_TOL for data of type t: the context's setting, or by default
 * MINV_SYMMETRY_EPS roundings of t. A matrix whose relative asymmetry is at most this is
 * symmetric: Cholesky reads its lower triangle. */
enum { MINV_SYMMETRY_EPS = 16 };
#define MINV_SYMMETRY_TOL_MAX 1e-5
double minv_symmetry_tol(const minv_context *ctx, minv_dtype t);

/* ---- residuals (residual.c) ----
 * The pieces both backends share: the probe vectors, and the ratios from products the
 * backend computed where its data lives. */
enum { MINV_PROBES = 2 };
double minv_norm1(const minv_mat *m); /* max column sum of |m_ij| */
/* y = M x in double, and the row sums of |M| into rowabs when it is not NULL. */
void minv_gemv_double(const minv_mat *m, const double *x, double *y, double *rowabs);
/* Y = M X for k <= MINV_GEMV_MAX vectors in one pass over M (X cols x k, Y rows x k). */
void minv_gemv_double_multi(const minv_mat *m, const double *x, int k, double *y, double *rowabs);
void minv_probe_vectors(double *v, int64_t n, int count);
/* max over probes k of ||w_k - v_k||_inf / (||X||_inf ||A||_inf ||v_k||_inf), w_k = X (A v_k) */
double minv_probe_ratio(int64_t n, int count, const double *v, const double *w, double xnorm_inf,
                        double anorm_inf);
/* Which columns of a solve the residual checks: `count` of them, the s-th being column
 * minv_residual_column(s, count, nrhs). */
int64_t minv_residual_columns(int mode, int64_t nrhs);
int64_t minv_residual_column(int64_t s, int64_t count, int64_t nrhs);
/* A factor solve's rcond bound (from its solutions and the factor's diagonal) under this is
 * refined by a condition estimate (LAPACK's pocon/gecon, or Hager's method on the GPU). */
#define MINV_RCOND_ESTIMATE_BELOW 1e-4
#define MINV_NOTE_RCOND_ESTIMATED "rcond: Higham's estimate (LAPACK's), as the bound from the factor and the solution is below 1e-4"
/* Up to these orders (Cholesky, LU) both backends take ||A^-1||_1 exactly instead, from an
 * explicit inverse of the factor on the host (n^3 / 3 flops for Cholesky, 2 n^3 / 3 for LU):
 * Higham's five to ten solves are chains of dependent steps there and cost more. Measured on
 * the dev VM, one thread, a driver calling minv_solve_d on SOAR matrices (rcond 2e-6) in a
 * loop, the thread's CPU time a call with the estimate -> with the exact form: Cholesky 1.8
 * -> 1.1 us at n = 8, 8.3 -> 5.0 at 32, 31 -> 21-26 at 64, 42-53 -> 52 at 80, 91 -> 155 at
 * 128; LU (made asymmetric by 1%) 9.9 -> 8.0 at 32, 20-27 -> 19-24 at 48, 35 -> 40 at 64
 * (bench/results/cpu_calls_devmachine.md, round 6b). */
enum { MINV_RCOND_EXACT_SPD_N = 64, MINV_RCOND_EXACT_LU_N = 48 };
#define MINV_NOTE_RCOND_EXACT "rcond: exact, from the factor's inverse (a small order), as the bound from the factor and the solution is below 1e-4"
static inline int minv_rcond_exact_applies(int64_t n, int spd) {
    return n <= (spd ? MINV_RCOND_EXACT_SPD_N : MINV_RCOND_EXACT_LU_N);
}
/* ||A^-1||_1 from a host factor f of order n (minv_rcond_exact_applies): Cholesky's lower
 * triangle when spd, else getrf's L and U (pivots not needed); Inf or NaN where the inverse
 * overflows (cpu/estimate.c). */
double minv_cpu_inverse_norm_exact(const minv_mat *f, int spd);
/* 1 / (||A||_1 ||A^-1||_1), or 0 when the inverse's norm is 0, not finite or unknown (every
 * backend's rcond from a norm of the inverse, cpu/factor.c). */
double minv_cpu_rcond(double anorm_1, double inverse_norm_1);
/* A solve that keeps no factorisation (Gauss-Jordan) bounds ||A^-1||_1 from below by
 * max_j ||x_j||_1 / ||b_j||_1 over its columns, one of them Hager's start vector (1/n, ...),
 * whose solution is the estimator's first step: rcond = 1 / (||A||_1 that bound), 0 when
 * no column gives one. Like any estimate it may overstate rcond. */
double minv_rcond_lower_bound(int64_t count, const double *xnorm_1, const double *bnorm_1, double anorm_1);
/* The same from host matrices: x holds the solutions of b's columns and, last, of Hager's
 * vector (1/n, ...), whose 1-norm is 1; -1 without memory. */
double minv_rcond_from_solution(const minv_mat *b, const minv_mat *x, double anorm_1);
/* ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf) */
double minv_solve_column_ratio(int64_t n, const double *ax_minus_b, const double *x,
                               const double *b, double anorm_inf);
/* Residual of an inverse: probes must hold A v for the probe vectors, computed before the
 * inversion (the input may be overwritten in place). */
typedef struct {
    int64_t count;
    double *v, *av; /* n x count each, double */
    double anorm_inf;
    int borrowed;   /* v and av lie in the context's workspace (the CPU analysis made them) */
} minv_probes;
enum { MINV_GEMV_MAX = 4 }; /* vectors multiplied in one pass over a matrix */
minv_status minv_probes_make(minv_context *ctx, const minv_mat *a, const minv_analysis *an,
                             minv_probes *p);
void minv_probes_free(minv_probes *p);
double minv_residual_inverse_sampled(const minv_mat *x, const minv_probes *p);
minv_status minv_residual_inverse_full(minv_context *ctx, const minv_mat *a, const minv_mat *x,
                                       double anorm_1, double *residual);
minv_status minv_residual_solve(minv_context *ctx, int mode, const minv_mat *a,
                                const minv_mat *b, const minv_mat *x, double *residual);
/* The same with ||A||_inf known (the analysis has it), which saves a pass over A; symmetric:
 * A is exactly symmetric (the analysis' asymmetry is 0), so that its lower triangle alone is
 * read. */
minv_status minv_residual_solve_norm(minv_context *ctx, int mode, const minv_mat *a, double anorm_inf, int symmetric,
                                     const minv_mat *b, const minv_mat *x, double *residual);

/* ---- batches (batched.c) ---- */
static inline int64_t minv_batch_order(const minv_batch *m, int64_t b) {
    return m->sizes ? m->sizes[b] : m->rows;
}
static inline int64_t minv_batch_cols(const minv_batch *m, int64_t b) {
    return m->square ? minv_batch_order(m, b) : m->cols;
}
/* Member b's storage (its whole matrix; a subset's index is not applied). */
minv_mat minv_batch_member(const minv_batch *m, int64_t b);
/* Member b into dst (type t, leading dimension ldd), converted, through the subset index
 * when there is one; scatter writes member b from src (no index: outputs are compact). */
void minv_batch_gather(const minv_batch *m, int64_t b, minv_dtype t, void *dst, int64_t ldd);
void minv_batch_scatter(const minv_batch *m, int64_t b, minv_dtype t, const void *src, int64_t lds);
/* Why a member failed: "exactly singular: no pivot in column 3 (1-based)" and the like. */
void minv_batch_member_reason(char *buf, size_t len, minv_status st, int64_t info);
/* The NetCDF layer's batches: a dense batch (leading dimension k, stride k * k, type t)
 * inverted in place, every member's outcome in res (nbatch entries each, the caller's). */
minv_status minv_invert_batched_results(minv_context *ctx, minv_method method, minv_dtype t, int64_t k,
                                        int64_t nbatch, void *a, minv_batch_results *res,
                                        minv_batch_report *report);
/* Flops of one member's inversion or solve by an SPD (spd = 1) or a general method. */
void minv_batch_outcomes_free(minv_batch_results *res);
double minv_batch_flops(int spd, int64_t n, int64_t nrhs);
/* The same over members of total sum_n2 = sum of n^2 and sum_n3 of n^3. */
double minv_batch_flops_sums(int spd, double sum_n2, double sum_n3, int64_t nrhs);

/* ---- the hyperpower iteration (iterative.c), on any backend's engine ----
 * The paper's algorithm lives in iterative.c once: guess, convergence control, the two
 * iteration formulas. A backend supplies an engine that multiplies its n x n buffers. */
enum { IT_A = 0, IT_V0, IT_V1, IT_P, IT_T0, IT_T1, IT_BUFFERS, IT_NONE = -1 };
typedef struct minv_iter_engine minv_iter_engine;
struct minv_iter_engine {
    minv_context *ctx;
    int64_t n;
    /* dst = alpha x y + beta src + gamma I (src may be dst or IT_NONE; dst is neither x nor
     * y); when residual is not NULL it receives ||I - dst||_F. */
    minv_status (*product)(minv_iter_engine *e, int dst, int x, int y, double alpha, int src,
                           double beta, double gamma, double *residual);
    /* dst = diag(1 / a_ii) (MINV_GUESS_DIAGONAL), scale A^T (TRANSPOSE), scale I (IDENTITY) */
    minv_status (*guess)(minv_iter_engine *e, int dst, minv_guess kind, double scale);
    /* dst = the caller's host matrix (a warm start) */
    minv_status (*load)(minv_iter_engine *e, int dst, const minv_mat *host);
    /* Switches every later product to single (low = 1) or back to double precision,
     * converting A and buffer v; NULL where the engine has one precision only. */
    minv_status (*set_precision)(minv_iter_engine *e, int low, int v);
    /* The converged buffer v becomes the op's result. */
    minv_status (*finish)(minv_iter_engine *e, int v);
};
/* Runs the iteration on e; fills the report's iterations, history and flops. */
minv_status minv_iterate(minv_context *ctx, minv_iter_engine *e, minv_dtype t,
                         const minv_analysis *an, minv_report *report);

/* ---- mixed-precision solves (refine.c), on any backend's engine ----
 * A factored in a low precision, the solution refined in double: the decisions live in
 * refine.c once, the arithmetic in each backend's engine. The engine refines `cols` = nrhs + 1
 * columns: the caller's, and last Hager's start vector (1/n, ...), whose solution bounds
 * ||A^-1||_1 for the report's rcond as the Gauss-Jordan solve does. */
typedef struct minv_refine_engine minv_refine_engine;
struct minv_refine_engine {
    minv_context *ctx;
    int64_t n, nrhs;
    int levels;                 /* factor precisions the engine has, fastest first */
    const char *level_names[2]; /* for the report: "TF32 tensor-core", ... */
    /* Factors A at precision `level`: MINV_ERR_NOT_SPD or MINV_ERR_SINGULAR when the
     * low-precision factorisation breaks down (A may still be fine in double). */
    minv_status (*factor)(minv_refine_engine *e, int level);
    /* x = 0 and r = b (the start); norms of b for the backward errors. */
    minv_status (*reset)(minv_refine_engine *e);
    /* One step: x += A_low^-1 r, then r = b - A x in double, and the backward error of each of
     * the caller's columns, ||r_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf), into berr. */
    minv_status (*step)(minv_refine_engine *e, double *berr);
    /* The caller's x from the refined one; *rcond from Hager's column (-1 if none). Float
     * data: x rounded to float, and berr becomes the backward error of that. */
    minv_status (*finish)(minv_refine_engine *e, double *rcond, double *berr);
};
/* Refines on e: MINV_SUCCESS with the report's iterations, residual (every column, kind 2,
 * where the context asks for a residual) and a note; MINV_ERR_NO_CONVERGENCE with the reason
 * when no level of the engine gets there. */
minv_status minv_refine(minv_context *ctx, minv_refine_engine *e, minv_report *report);

/* ---- reconditioning (recondition.c) ----
 * For MINV_OPT_RECONDITION on a symmetric host matrix a: the ridge leaves a copy A + delta I
 * in shifted (allocated here; the caller frees it) for the call to use in place of A; the
 * floor computes the result itself, x = A'^-1 (b NULL) or A'^-1 b, and sets *done. When A is
 * already within the target neither happens. The report says what changed. */
minv_status minv_recondition_apply(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                             minv_mat *shifted, int *done, minv_report *report);

/* ---- entry-point helpers (dispatch.c), shared with the entry points of tridiagonal.c ---- */
/* Where the caller's matrices live for this call. */
typedef enum { MINV_ON_HOST = 0, MINV_ON_DEVICE = 1 } minv_place;
/* MINV_ERR_NOT_FINITE naming name(i, j) (0-based here, 1-based in the message) as the first
 * NaN or Inf, with its value for host data. */
minv_status minv_fail_not_finite(minv_context *ctx, minv_place place, const char *name, const minv_mat *m, int64_t i,
                                 int64_t j);
/* Bracket every public call: FP guard, timing, energy, the note on the backend, per-call
 * state. */
typedef struct {
    minv_fpguard guard;
    double t0, e0;
    int entered; /* minv_call_begin succeeded: minv_call_end has work to do */
} minv_call;
/* MINV_ERR_CONTEXT_BUSY when another thread is inside a call on ctx: the entry point returns
 * at once, through minv_call_refused when it has a report (minv_call_end does nothing then). */
minv_status minv_call_begin(minv_context *ctx, minv_call *c);
void minv_call_end(minv_context *ctx, minv_call *c, minv_report *r);
/* After minv_call_begin, in a call on data in `place`: device data follows the caller's
 * stream (minv_set_stream). */
minv_status minv_call_place(minv_context *ctx, minv_place place);
minv_status minv_call_refused(minv_report *r, minv_status status, minv_method method, int64_t n, int64_t nrhs);
/* minv_call_begin and minv_call_place for a call with a report, which says so where either
 * refuses the call; minv_call_end follows in every case. r NULL: the caller asked for no
 * report, and the call is not timed (two clock reads, 7% of an order-8 solve). */
minv_status minv_call_open(minv_context *ctx, minv_call *c, minv_place place, minv_report *r, minv_method method,
                           int64_t n, int64_t nrhs);
void minv_report_init(minv_report *r, minv_method method, int64_t n, int64_t nrhs);
/* Cholesky reads A's lower triangle, so on a matrix symmetric only within a raised
 * MINV_OPT_SYMMETRY_TOL its result stands only if it solves A itself (dispatch.c; the MPI
 * layer's dense calls too): the residual a call computes (the context's kind, and the sampled
 * one at least for such a Cholesky), whether Cholesky's residual is above 100 n eps, and the
 * NOT_SPD error then. */
int minv_residual_mode(const minv_context *ctx, minv_dtype t, double asymmetry, minv_method method);
int minv_cholesky_residual_too_large(minv_dtype t, int64_t n, const minv_report *r);
minv_status minv_fail_cholesky_residual(minv_context *ctx, minv_dtype t, int64_t n, double asymmetry,
                                        const minv_report *r);
/* The stages of a call that took `seconds` on backend `backend` (upload, download and the
 * device from the context's tally, compute the rest), and the fallback of an AUTO context
 * without a GPU; shared by the dense and batched reports. */
void minv_report_stages(const minv_context *ctx, minv_backend backend, double seconds, minv_stages *stages,
                        int32_t *device, int32_t *fallbacks);
/* The bad argument is named with its position, as LAPACK does. */
minv_status minv_check_order(minv_context *ctx, const char *fn, int pos, const char *name, int64_t n);
minv_status minv_check_matrix(minv_context *ctx, const char *fn, const void *p, int pos,
                              const char *name, int64_t rows, int64_t cols, int64_t ld,
                              const char *ldname, minv_dtype t);
minv_status minv_check_place(minv_context *ctx, const char *fn, minv_place place);
/* Range only; the batched calls narrow the set further. */
minv_status minv_check_method(minv_context *ctx, const char *fn, int pos, minv_method m);

/* Where a fallback is written: the reason (MINV_REASON_LEN characters), fallback bits and
 * backend of a minv_report or a minv_batch_report; backend NULL where only a step of the call
 * (the reconditioning's eigen-decomposition) moves. */
typedef struct {
    char *reason;
    int32_t *fallbacks;
    minv_backend *backend;
} minv_report_sink;
#define MINV_REPORT_SINK(r) ((minv_report_sink){(r)->reason, &(r)->fallbacks, &(r)->backend})
/* The one GPU-to-CPU fallback of every call (dense, batched, tridiagonal, reconditioning):
 * after an attempt that returned `status` on data in `place` with *ops, host data that the GPU
 * backend could not take (MINV_ERR_DEVICE_MEMORY, or MINV_ERR_NOT_IMPLEMENTED: it lacks the
 * op) goes to the CPU's backend where that has the op (cpu_has). Then *ops becomes the CPU's,
 * `to` gets the note "<the error>, so the CPU ran <what>" and MINV_FALLBACK_CPU (and
 * backend = CPU), the error is cleared, and 1 is returned for the caller to try again; else 0
 * and nothing changes. */
int minv_fall_back_to_cpu(minv_context *ctx, minv_status status, minv_place place, int cpu_has, const char *what,
                          const minv_backend_ops **ops, minv_report_sink to);
/* The benchmarks' baseline (bench_iterative): A^-1 of host data by the iterative paper's
 * row-by-row out-of-core Gauss-Jordan, through the path of minv_invert_d/_s (analysis,
 * routing, fallback, residual, report); t is A's and ainv's type. Not part of the API. */
minv_status minv_invert_gj_baseline(minv_context *ctx, minv_dtype t, int64_t n, const void *a, int64_t lda, void *ainv,
                                    int64_t ldainv, minv_report *report);
/* MINV_ERR_SINGULAR when the report's rcond is below working precision. */
minv_status minv_check_rcond(minv_context *ctx, minv_dtype t, const minv_report *r);
/* The body of minv_invert_d/_s/_inplace and the device forms, between minv_call_open and
 * minv_call_end: checks, analysis, routing, retries, residual and report; fn names the entry
 * in messages, method_pos the method's argument (0 where the library chose it). */
minv_status minv_invert_expert(minv_context *ctx, const char *fn, minv_place place, minv_method method, int method_pos,
                               minv_dtype t, int64_t n, const void *a, int64_t lda, void *ainv, int64_t ldainv,
                               int inplace, minv_report *report);
/* The same for minv_solve_d/_s/_inplace and the device forms (x may be b: in place). */
minv_status minv_solve_expert(minv_context *ctx, const char *fn, minv_place place, minv_method method, minv_dtype t,
                              int64_t n, int64_t nrhs, const void *a, int64_t lda, const void *b, int64_t ldb, void *x,
                              int64_t ldx, minv_report *report);

/* ---- matrices that arrive and leave in bands (banded.c) ----
 * The file routines' reader and writer hand A (and B) over band by band and take A^-1 (or X)
 * back the same way, so that where they fit the GPU the host holds a few bands, never the
 * matrices. A band is `count` rows (by_rows) or columns of a rows x cols matrix from `at`,
 * column-major in m (count x cols or rows x count, ld m->ld); bands start at multiples of
 * `align`, and span a multiple of it unless they reach the end. fill puts the input's band in
 * m; drain takes the band of the result. Either may fail (a read or a write): the call then
 * fails with its status. */
typedef struct minv_banded_io {
    int by_rows;
    int64_t align;
    int64_t band; /* rows or columns a band on the device path (rounded up to align); 0: the
                     library's choice, about 256 MiB */
    minv_status (*fill)(void *user, int64_t at, int64_t count, minv_mat *m);
    minv_status (*drain)(void *user, int64_t at, int64_t count, const minv_mat *m);
    void *user;
} minv_banded;
/* A^-1 of the n x n matrix of type t that io delivers, delivered back through io, as
 * minv_invert_d/_s computes it: the report counts the computation (seconds, stages), not the
 * time spent in fill and drain. */
minv_status minv_invert_banded(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, const minv_banded *io,
                               minv_report *report);
/* X = A^-1 B, A n x n from a_io (fill only), B from bx_io's fill and X to its drain (n x nrhs
 * both), as minv_solve_d/_s computes it; the report as minv_invert_banded's. */
minv_status minv_solve_banded(minv_context *ctx, minv_method method, minv_dtype t, int64_t n, int64_t nrhs,
                              const minv_banded *a_io, const minv_banded *bx_io, minv_report *report);

/* ---- tridiagonal inversion (tridiagonal.c) ---- */
/* The invert ops of MINV_METHOD_TRIDIAGONAL (host and device data): the bands of a dense A go
 * to the band inversion; MINV_ERR_SHAPE when A is not tridiagonal. */
minv_status minv_tridiagonal_invert_dense(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                          const minv_analysis *an, minv_report *report);
minv_status minv_tridiagonal_invert_dense_device(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                                 const minv_analysis *an, minv_report *report);

/* ---- block-cyclic distribution over GPUs (cyclic.c) ----
 * D = [A | B'] with A n x n and B' n x rhs: A's columns in blocks of nb, then B''s; block j of
 * the `blocks` lives on device j % ndev, whose local storage holds its blocks in order
 * (rows[d] columns of D in all). */
typedef struct {
    int64_t n, rhs, nb, a_blocks, blocks;
    int ndev;
    int64_t rows[MINV_MAX_DEVICES];
} minv_cyclic;
void minv_cyclic_init(minv_cyclic *c, int64_t n, int64_t rhs, int64_t nb, int ndev);
int minv_cyclic_owner(const minv_cyclic *c, int64_t block);
/* First column of the block within A (block < a_blocks) or within B', and its width. */
int64_t minv_cyclic_start(const minv_cyclic *c, int64_t block);
int64_t minv_cyclic_width(const minv_cyclic *c, int64_t block);
/* Where the device's first block numbered >= block begins in its local storage (rows[device]
 * when it has none); minv_cyclic_local: where the block begins on its owner. */
int64_t minv_cyclic_local_from(const minv_cyclic *c, int device, int64_t block);
int64_t minv_cyclic_local(const minv_cyclic *c, int64_t block);

/* ---- the GPU backend ----
 * minv_gpu_create opens the GPU state of a context and, on success, sets ctx->backend and
 * ctx->ops to the GPU's; else it fails with the reason. Defined by the CUDA backend
 * (src_cuda/gpu_context.cu) where it is linked in, by the plugin's loader (gpu_plugin.c) in
 * libminv, and by gpu_none.c without CUDA. */
minv_status minv_gpu_create(minv_context *ctx);
void minv_gpu_destroy(minv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
