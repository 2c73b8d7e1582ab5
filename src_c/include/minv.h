/*
 * minv: dense matrix inversion and many-right-hand-side solves for data assimilation,
 * on the GPU where one is present and on the CPU otherwise, with the same API and answers.
 *
 * Conventions (as LAPACK and cuSOLVER):
 *   - matrices are column-major with a leading dimension; sizes and indices are int64_t,
 *     indices 0-based in C (the Fortran module and all messages add 1);
 *   - `_d` routines take double, `_s` routines float;
 *   - every routine returns a minv_status; minv_last_error() holds the detail of the last
 *     failure on a context (which argument, which (i, j), which pivot);
 *   - the caller's input is never modified unless the routine's name says `inplace`;
 *   - outputs may not overlap inputs, but for the very same array with the same leading
 *     dimension: ainv == a (minv_invert_d/_s, as minv_invert_inplace does) and x == b
 *     (minv_solve_d/_s, as minv_solve_inplace does) work in place. Any other overlap (a shifted
 *     pointer, another leading dimension, x inside A) is not detected and its result undefined;
 *     the batched calls' rules are given with them;
 *   - an order or a number of right-hand sides of 0 is LAPACK's quick return: MINV_SUCCESS,
 *     nothing read or written (the arrays may be NULL), the report's rcond and residual -1;
 *     batches may hold members of order 0; only minv_analyze refuses n = 0;
 *   - a context is used by one thread at a time; separate contexts may run concurrently. A
 *     call on a context that another thread is inside is refused with MINV_ERR_CONTEXT_BUSY
 *     (it neither waits nor touches the context); give each thread its own context, as OpenMP
 *     codes give each thread its own LAPACK workspace.
 *   - no routine raises a floating-point exception: trap settings and flags are restored.
 */
#ifndef MINV_H
#define MINV_H

#include <stdint.h>

#include "minv_config.h"

#ifdef __cplusplus
extern "C" {
#endif
/* What this header declares is libminv's interface, exported; the library is built with
 * hidden visibility, so nothing else of it is. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

typedef enum {
    MINV_SUCCESS = 0,
    MINV_ERR_INVALID_ARG = 1,     /* a bad argument; the message names it */
    MINV_ERR_ALLOC = 2,           /* host memory could not be allocated */
    MINV_ERR_NOT_FINITE = 3,      /* NaN or Inf in the input (in files also a fill or out-of-
                                     range value); the message gives (i, j) */
    MINV_ERR_SINGULAR = 4,        /* exactly or numerically singular; report.info = column */
    MINV_ERR_NOT_SPD = 5,         /* not positive definite; report.info = column */
    MINV_ERR_NO_CONVERGENCE = 6,  /* an iterative method diverged, stagnated or hit its cap */
    MINV_ERR_NOT_IMPLEMENTED = 7, /* this method/backend pair does not exist (yet) */
    MINV_ERR_NO_GPU = 8,          /* the GPU backend was requested but none is usable */
    MINV_ERR_GPU = 9,             /* a CUDA, cuBLAS or cuSOLVER call failed */
    MINV_ERR_DEVICE_MEMORY = 10,  /* device memory exhausted and no fallback was allowed */
    MINV_ERR_SHAPE = 11,          /* wrong shape (non-square, mismatched dimensions) */
    MINV_ERR_IO = 12,             /* a file could not be read or written */
    MINV_ERR_NOT_FOUND = 13,      /* a file or a variable does not exist */
    MINV_ERR_INTERNAL = 14,       /* a bug in minv: please report it */
    MINV_ERR_CONTEXT_BUSY = 15    /* the context is in a call from another thread: refused, the
                                     other call unharmed (minv_last_error is that call's) */
} minv_status;

typedef enum {
    MINV_BACKEND_AUTO = 0, /* the GPU where present (small host calls on the CPU, faster than
                              the round trip: inversions n <= 128, solves of <= 4e6 flops), else
                              the CPU */
    MINV_BACKEND_CPU = 1,
    MINV_BACKEND_GPU = 2   /* fails with MINV_ERR_NO_GPU when no GPU is usable */
} minv_backend;

typedef enum {
    MINV_METHOD_AUTO = 0,         /* chosen from the matrix; the report says which and why */
    MINV_METHOD_CHOLESKY = 1,     /* symmetric positive definite */
    MINV_METHOD_LU = 2,           /* general, partial pivoting */
    MINV_METHOD_GAUSS_JORDAN = 3, /* general, blocked Gauss-Jordan with partial pivoting */
    MINV_METHOD_ITERATIVE = 4,    /* hyperpower (Soleymani) iteration */
    MINV_METHOD_TRIDIAGONAL = 5   /* tridiagonal matrices */
} minv_method;

enum { MINV_MAX_DEVICES = 16 };

/* Options fixed for the life of a context. */
typedef struct {
    minv_backend backend;
    int32_t device;         /* CUDA device index of every single-GPU method (with ndevices
                               > 0, devices[0] takes its place) */
    int32_t cpu_threads;    /* threads for minv's own CPU loops; 0 = all available */
    int32_t ndevices;       /* the GPUs of multi-GPU methods (Gauss-Jordan): devices[0 ..
                               ndevices); 0 = just `device`; -1 (minv_options_default) = all
                               visible devices, `device` first */
    int64_t device_memory;  /* bytes of device memory minv may use per device; 0 = all free */
    int32_t devices[MINV_MAX_DEVICES];
} minv_options;

/* Tunables that may change between calls on a context (minv_set_option / minv_get_option). */
typedef enum {
    MINV_OPT_TOLERANCE = 0,      /* iterative methods: stop when the residual norm <= this;
                                    0 = a precision-dependent default */
    MINV_OPT_MAX_ITERATIONS = 1, /* iterative methods: iteration cap (default 100) */
    MINV_OPT_BLOCK_SIZE = 2,     /* Gauss-Jordan (CPU and GPU): block size; 0 = automatic */
    MINV_OPT_TILE_SIZE = 3,      /* out-of-core Cholesky (GPU): the width of the slabs of L
                                    streamed past a panel; 0 = automatic. The other out-of-core
                                    methods size their tiles from the device budget */
    MINV_OPT_SYMMETRY_TOL = 4,   /* relative asymmetry max|a_ij - a_ji| / max|a_ij| up to
                                    which A is symmetric: AUTO takes Cholesky, which reads the
                                    lower triangle (report.asymmetry gives A's). Default -1:
                                    16 roundings of the call's precision (3.6e-15 in double,
                                    1.9e-6 in single), which takes a GEMM-formed H P H^T + R;
                                    0: exactly symmetric; at most 1e-5. A Cholesky result whose
                                    residual exceeds 100 n eps is not a success: AUTO redoes it
                                    by LU (out of place), CHOLESKY fails with NOT_SPD */
    MINV_OPT_RESIDUAL = 5,       /* residual in the report: 0 none, 1 sampled O(n^2)
                                    (default), 2 full O(n^3) */
    MINV_OPT_INITIAL_GUESS = 6,  /* iterative: a minv_guess (default MINV_GUESS_AUTO) */
    MINV_OPT_ITERATION = 7,      /* iterative: a minv_iteration (default: the paper's) */
    MINV_OPT_MIXED_PRECISION = 8, /* the iterative inversion only, double: 1 = early steps in
                                    single precision on the tensor cores, the last in double
                                    (default 0). Direct solves take MINV_OPT_PRECISION */
    MINV_OPT_RECONDITION = 9,    /* symmetric matrices, host data: a minv_recondition (default
                                    none); the report says what changed. The ridge runs the
                                    method asked for on A + delta I; the floor's result comes
                                    from A's eigen-decomposition itself, so it takes
                                    MINV_METHOD_AUTO only (another method: INVALID_ARG) */
    MINV_OPT_TARGET_CONDITION = 10, /* reconditioning: the 2-norm condition number to reach
                                       (default 1000; > 1) */
    MINV_OPT_TRIDIAGONAL_ALGORITHM = 11, /* tridiagonal inversion: a minv_tridiagonal_algorithm
                                            (default MINV_TRIDIAGONAL_AUTO) */
    MINV_OPT_ENERGY = 12,        /* 1 = measure GPU energy to solution into report.energy (NVML;
                                    reading the counters costs each call milliseconds in some
                                    virtual machines, so off by default) */
    MINV_OPT_PRECISION = 13      /* solves (Cholesky and LU, double or float data): a
                                    minv_precision, MINV_PRECISION_DOUBLE (default) or
                                    MINV_PRECISION_MIXED: A factored in a lower precision (the
                                    tensor cores' TF32, or a 3-term TF32 split near single
                                    accuracy, on the GPU; LAPACK's single on the CPU) and the
                                    solution refined in double until its backward error is that
                                    of the double solve (<= 2 eps); where refinement does not get
                                    there (condition beyond about 1e7) the double solve runs and
                                    the report says so (MINV_FALLBACK_DIRECT). Float data gets the double solution
                                    rounded to float. Inversions stay in double (refining an
                                    inverse costs more than inverting in double) and their
                                    reports say so; batched calls ignore this option */
} minv_option;

/* Compute precision: of the file routines (minv_file_options.precision: DOUBLE or SINGLE,
 * whatever the type on disk), and of solves (MINV_OPT_PRECISION: DOUBLE or MIXED). */
typedef enum {
    MINV_PRECISION_DOUBLE = 0,
    MINV_PRECISION_SINGLE = 1,
    MINV_PRECISION_MIXED = 2
} minv_precision;

/* Reconditioning of symmetric matrices, as DA systems do for observation-error covariances
 * (Weston et al. 2014; Tabeart et al. 2020): A is replaced by a nearby SPD matrix whose
 * condition number is the target T. */
typedef enum {
    MINV_RECONDITION_NONE = 0,
    MINV_RECONDITION_RIDGE = 1,  /* A + delta I, delta = (lambda_max - T lambda_min) / (T - 1) */
    MINV_RECONDITION_FLOOR = 2   /* eigenvalues below lambda_max / T raised to lambda_max / T */
} minv_recondition;

/* Initial inverse V0 of the iterative method (the paper's three, and the caller's). */
typedef enum {
    MINV_GUESS_AUTO = 0,      /* diagonal if strictly diagonally dominant, else transpose */
    MINV_GUESS_DIAGONAL = 1,  /* diag(1 / a_ii) */
    MINV_GUESS_TRANSPOSE = 2, /* A^T / (||A||_1 ||A||_inf) */
    MINV_GUESS_IDENTITY = 3   /* alpha I with ||I - alpha A|| < 1, alpha found adaptively */
} minv_guess;

/* The hyperpower iteration V <- V (I + R + ... + R^(p-1)), R = I - A V. */
typedef enum {
    MINV_ITERATION_SOLEYMANI7 = 0, /* the paper: order 7, nine products, Horner form */
    MINV_ITERATION_HYPERPOWER8 = 1 /* order 8 as V (I+R)(I+R^2)(I+R^4): six products */
} minv_iteration;

enum { MINV_REASON_LEN = 512, MINV_HISTORY_LEN = 64 };

/* What took the place of the first choice: bits of minv_report.fallbacks (and of
 * minv_batch_report.fallbacks); minv_fallback_name() names each. The reason says why. */
typedef enum {
    MINV_FALLBACK_NO_GPU = 1,   /* an AUTO context found no usable GPU, so the CPU ran the call */
    MINV_FALLBACK_CPU = 2,      /* the GPU lacked the method or the device memory for host data,
                                   so the CPU ran it (or a part of it: reconditioning's
                                   eigen-decomposition) */
    MINV_FALLBACK_LU = 4,       /* AUTO's Cholesky found A not positive definite, so LU ran */
    MINV_FALLBACK_DIRECT = 8,   /* an iteration did not converge, so a direct method ran: the
                                   warm start (a direct inversion), or mixed precision's
                                   refinement (the double solve) */
    MINV_FALLBACK_PATH = 16     /* the tridiagonal Sherman-Morrison path met a singular block,
                                   so another path ran */
} minv_fallback;

/* Where a call's time went, by stage, in seconds (0 for a stage that did not happen), and the
 * bytes the stages moved. read and write: the file routines' reading of the inputs and
 * writing of the output (write through the final fsync and rename), bytes as stored; upload
 * and download: the GPU backend's whole copies of host arrays to the device and back (copies
 * streamed beside the computation count their bytes, their time is compute's); compute: the
 * library call less its uploads and downloads. */
typedef struct {
    double read_seconds;
    double upload_seconds;
    double compute_seconds;
    double download_seconds;
    double write_seconds;
    double read_bytes;
    double upload_bytes;
    double download_bytes;
    double write_bytes;
} minv_stages;

/* What a call did. Filled on success and, as far as it got, on failure. */
typedef struct {
    minv_method method;      /* the method that produced the result; MINV_METHOD_AUTO where
                                the eigenvalue floor did (recondition == FLOOR: V diag(1 /
                                lambda') V^T from A's eigen-decomposition, no factorisation) */
    minv_backend backend;    /* where it ran: MINV_BACKEND_CPU or MINV_BACKEND_GPU */
    int64_t n;               /* order of A */
    int64_t nrhs;            /* right-hand sides (0 for an inversion) */
    int64_t iterations;      /* iterative methods; 0 otherwise */
    int64_t info;            /* on SINGULAR / NOT_SPD: the 0-based column; else -1 */
    double residual;         /* normalised residual, see residual_kind; -1 if not computed */
    int32_t residual_kind;   /* 0 none. Inverse: 1 sampled, max over two fixed probe vectors v
                                of ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf);
                                2 full, ||I - A X||_1 / (n ||A||_1 ||X||_1).
                                Solve: max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf +
                                ||b_j||_inf) over 4 sampled (1) or all (2) columns.
                                Divide by eps (2^-52, 2^-23) for LAPACK-tester ratios. */
    int32_t reserved;
    double rcond;            /* reciprocal 1-norm condition 1 / (||A||_1 ||A^-1||_1): exact for
                                inverses; for Cholesky and LU solves (CPU and GPU alike) from
                                lower bounds on ||A^-1||_1 (the factor's diagonal, and the
                                solution of B and of Hager's start vector solved with it; on
                                the CPU up to order 128 of B alone: the reason says which),
                                which may overstate rcond several times (up to 50 measured),
                                with Higham's estimate (LAPACK's pocon/gecon's, made by minv's
                                own triangular solves) as well where the bound is below 1e-4;
                                -1 if not computed */
    double seconds;          /* wall time of the whole call */
    double flops;            /* floating-point operations of the method */
    double gflops;           /* flops / seconds / 1e9 */
    double energy;           /* GPU energy to solution in joules, from NVML over the
                                context's GPUs, with MINV_OPT_ENERGY; -1 if not measured (off,
                                CPU, no NVML, or a call too short for the counter: the reason
                                says which of the last two) */
    int64_t history_len;     /* entries in residual_history */
    double residual_history[MINV_HISTORY_LEN]; /* iterative: ||I - A V_k||_F / sqrt(n) per
                                                   step (the first MINV_HISTORY_LEN steps) */
    minv_stages stages;      /* where the time went */
    int32_t device;          /* the CUDA device that computed (of several, the first); -1 on the
                                CPU */
    int32_t fallbacks;       /* minv_fallback bits: what took the place of the first choice */
    int32_t recondition;     /* the minv_recondition applied to A; NONE when not asked for or
                                when A was within the target */
    int32_t reserved2;
    double recondition_shift; /* ridge: the delta added to the diagonal; floor: the eigenvalue
                                 floor lambda_max / T; 0 without reconditioning */
    double condition_before; /* reconditioning: A's 2-norm condition number max|lambda| /
                                min|lambda| (inf when singular; an indefinite A is reconditioned
                                whatever it is), and A''s; -1 when not asked for */
    double condition_after;
    int64_t matrices;        /* the file routines: matrices the call inverted (a batch's
                                length); 1 otherwise */
    int64_t worst;           /* a batch from a file: the 0-based matrix with the largest
                                residual; -1 otherwise */
    char reason[MINV_REASON_LEN]; /* why this method and backend, any fallback taken, and how
                                     the file routines read and wrote, as "; "-separated notes
                                     for people (programs read the fields above). A reason
                                     longer than MINV_REASON_LEN - 1 characters is cut and
                                     ends in "..." */
    double asymmetry;        /* A's relative asymmetry max|a_ij - a_ji| / max|a_ij| from the
                                analysis (see MINV_OPT_SYMMETRY_TOL); -1 if not analysed */
} minv_report;

/* Properties of a matrix, from minv_analyze. Indices are 0-based, -1 when not applicable. */
typedef struct {
    int64_t n;
    int32_t finite;            /* 1 when every entry is finite */
    int32_t symmetric;         /* 1 when relative asymmetry <= MINV_OPT_SYMMETRY_TOL */
    int32_t diag_dominant;     /* 1 when strictly diagonally dominant by rows */
    int32_t tridiagonal;       /* 1 when lower and upper bandwidth are <= 1 */
    int32_t diag_positive;     /* 1 when every diagonal entry is > 0 */
    int32_t reserved;
    int64_t first_bad_row;     /* first NaN/Inf in column-major order */
    int64_t first_bad_col;
    int64_t lower_bandwidth;
    int64_t upper_bandwidth;
    double asymmetry;          /* max |a_ij - a_ji| / max |a_ij| */
    double norm_1;             /* max column sum of |a_ij| */
    double norm_inf;           /* max row sum of |a_ij| */
    double norm_fro;
    double diag_min;           /* smallest and largest diagonal entries (signed) */
    double diag_max;
    minv_method auto_method;   /* what MINV_METHOD_AUTO would choose to invert A on this
                                  context's backend (a solve with a tridiagonal A takes
                                  Cholesky or the general method) */
} minv_analysis;

typedef struct minv_context minv_context;

/* ---- context -------------------------------------------------------------------------- */
void minv_options_default(minv_options *opts);
/* opts may be NULL for the defaults. On failure *ctx is NULL. */
minv_status minv_create(minv_context **ctx, const minv_options *opts);
minv_status minv_destroy(minv_context *ctx);
/* The backend this context runs on: CPU or GPU, never AUTO after creation; AUTO for a NULL
 * ctx (no context, as after a failed minv_create). */
minv_backend minv_context_backend(const minv_context *ctx);
minv_status minv_set_option(minv_context *ctx, minv_option option, double value);
minv_status minv_get_option(const minv_context *ctx, minv_option option, double *value);
/* The CUDA devices the context's multi-GPU methods use, the first being the one of its
 * single-GPU methods: *count of them into devices[0 .. MINV_MAX_DEVICES); 0 on the CPU. */
minv_status minv_context_devices(const minv_context *ctx, int32_t *count, int32_t *devices);
/* Joules the context's GPUs have used since a fixed moment (NVML's counters, summed), to
 * bracket other code as the report brackets minv's calls. MINV_ERR_NOT_IMPLEMENTED where
 * there is no meter (the CPU backend, or NVML absent). */
minv_status minv_energy_counter(minv_context *ctx, double *joules);
/* The CUDA stream (a cudaStream_t, or an OpenACC queue's acc_get_cuda_stream, passed as void *
 * so that this header needs no CUDA header) that the device-memory calls (minv_*_device_*)
 * follow; NULL, the default, leaves them on minv's own streams as before. The stream must be
 * of the context's device (minv_context_devices' first) and outlive its use.
 *   Order: a device call's work starts after the work enqueued on the stream before the call,
 *   and work enqueued on the stream after the call starts after minv's (CUDA events, no host
 *   synchronisation for either); minv's kernels run on its own streams in between.
 *   What still waits on the host: the checks that decide the status (the factorisation's
 *   info: not SPD, singular), the residual and rcond the report carries (MINV_OPT_RESIDUAL,
 *   0 turns the residual off), and a context with several devices (minv_context_devices;
 *   the default on a multi-GPU node), which synchronises the stream at entry and exit.
 *   The call returns once those are known; the last kernels (forming the inverse or the
 *   solution) may still run, and report->seconds then counts the host's part. Without a stream
 *   every call returns with its work finished, as before.
 * Host-memory calls are not affected. On a CPU context a NULL stream succeeds (nothing to do)
 * and any other fails with MINV_ERR_NO_GPU; MINV_ERR_INVALID_ARG when the stream is not one
 * of the context's device. */
minv_status minv_set_stream(minv_context *ctx, void *stream);

/* Page-locks the caller's host memory [p, p + bytes) for the GPU (cudaHostRegister, portable
 * to every device), so that the calls on host arrays lying in it move them by DMA at the
 * link's rate instead of copying them through the context's staging buffers: single matrices,
 * and batches whose members lie one after another (leading dimension k and stride k * k, or
 * k * nrhs for right-hand sides), whose results then also come back straight into the
 * caller's array (a failed member's output still left as it was). Worth it for arrays a DA
 * code keeps from cycle to cycle: registering 640 MB took 23 ms and unregistering it 9 ms on
 * an H100 machine's host, more than one staged call moves (bench_links), and page-locked
 * memory is taken from what the system may page out. Call
 * minv_host_unregister before the memory is freed. Memory that is page-locked already
 * (cudaMallocHost, cudaHostRegister) is used as it is; a range registered twice is left as
 * it is. On a CPU context nothing is done (MINV_SUCCESS). MINV_ERR_ALLOC when the system
 * refuses (the locked-memory limit, ulimit -l), MINV_ERR_INVALID_ARG for a range that overlaps
 * a registered one only in part. */
minv_status minv_host_register(minv_context *ctx, void *p, int64_t bytes);
/* Undoes minv_host_register for the range that starts at p (MINV_ERR_INVALID_ARG when none
 * does); nothing on a CPU context. */
minv_status minv_host_unregister(minv_context *ctx, void *p);

/* ---- errors and names ----------------------------------------------------------------- */
const char *minv_status_string(minv_status status);
/* Detail of the last failure on ctx ("" after a success); valid until the next call. With
 * ctx NULL: why the calling thread's last minv_create failed (no usable GPU: which of no
 * NVIDIA driver, no CUDA device, a driver too old, no CUDA plugin); "" after a success. */
const char *minv_last_error(const minv_context *ctx);
/* "auto", "cholesky", "lu", "gauss-jordan", "iterative", "tridiagonal"; else "unknown". */
const char *minv_method_name(minv_method method);
/* "auto", "cpu", "gpu"; else "unknown". */
const char *minv_backend_name(minv_backend backend);
/* One bit of minv_report.fallbacks: "no-gpu", "cpu", "lu", "direct", "path"; else "unknown". */
const char *minv_fallback_name(minv_fallback fallback);
/* "none", "ridge", "floor" */
const char *minv_recondition_name(minv_recondition recondition);
const char *minv_version(void);

/* ---- analysis --------------------------------------------------------------------------- */
minv_status minv_analyze_d(minv_context *ctx, int64_t n, const double *a, int64_t lda,
                           minv_analysis *analysis);
minv_status minv_analyze_s(minv_context *ctx, int64_t n, const float *a, int64_t lda,
                           minv_analysis *analysis);

/* ---- inversion: ainv = A^-1 ---------------------------------------------------------------
 * report may be NULL. */
minv_status minv_invert_d(minv_context *ctx, minv_method method, int64_t n, const double *a,
                          int64_t lda, double *ainv, int64_t ldainv, minv_report *report);
minv_status minv_invert_s(minv_context *ctx, minv_method method, int64_t n, const float *a,
                          int64_t lda, float *ainv, int64_t ldainv, minv_report *report);
/* A is overwritten by its inverse. On failure A holds no meaningful values. */
minv_status minv_invert_inplace_d(minv_context *ctx, minv_method method, int64_t n, double *a,
                                  int64_t lda, minv_report *report);
minv_status minv_invert_inplace_s(minv_context *ctx, minv_method method, int64_t n, float *a,
                                  int64_t lda, minv_report *report);

/* ---- principal sub-matrix: ainv = A(idx, idx)^-1 -------------------------------------------
 * idx holds m distinct 0-based indices into A's rows and columns (the channels that passed
 * quality control, say); the m x m inverse goes to ainv. A is not copied by the caller. m = 0
 * (or n = 0) is the quick return: idx and ainv may be NULL. On failure report->info is a
 * column of A (idx[j] for the sub-matrix's column j), and the message names A's positions. */
minv_status minv_invert_subset_d(minv_context *ctx, minv_method method, int64_t n, const double *a,
                                 int64_t lda, int64_t m, const int64_t *idx, double *ainv,
                                 int64_t ldainv, minv_report *report);
minv_status minv_invert_subset_s(minv_context *ctx, minv_method method, int64_t n, const float *a,
                                 int64_t lda, int64_t m, const int64_t *idx, float *ainv,
                                 int64_t ldainv, minv_report *report);

/* ---- warm start: refine a nearby inverse V0 (e.g. the previous DA cycle's) ---------------
 * method MINV_METHOD_ITERATIVE iterates from V0 and may return MINV_ERR_NO_CONVERGENCE;
 * MINV_METHOD_AUTO does the same but falls back to a direct method when V0 is too far off,
 * and the report says so. v0 may be ainv itself. */
minv_status minv_invert_warm_d(minv_context *ctx, minv_method method, int64_t n, const double *a,
                               int64_t lda, const double *v0, int64_t ldv0, double *ainv,
                               int64_t ldainv, minv_report *report);
minv_status minv_invert_warm_s(minv_context *ctx, minv_method method, int64_t n, const float *a,
                               int64_t lda, const float *v0, int64_t ldv0, float *ainv,
                               int64_t ldainv, minv_report *report);

/* ---- tridiagonal inversion: ainv = A^-1 for A given by its three bands -------------------
 * A(i, i) = d[i], A(i + 1, i) = dl[i], A(i, i + 1) = du[i] (LAPACK's gtsv convention): dl and
 * du hold n - 1 entries and may be NULL when n = 1. The dense inverse is written once, in
 * O(n^2); minv_invert_d/_s with MINV_METHOD_TRIDIAGONAL (or AUTO on a matrix that the analysis
 * finds tridiagonal) extract the bands and run the same code. Where an algorithm's conditions
 * do not hold, a stable one runs instead and the report says why; report.flops counts the
 * arithmetic of the algorithm that ran (write-once 2 n^2: a multiply to advance each entry's
 * running product and one to scale it). The device forms take device pointers (GPU backend
 * only); only the bands (3n values) and the report cross PCIe. */
typedef enum {
    MINV_TRIDIAGONAL_AUTO = 0,            /* write-once where A is diagonally dominant by rows
                                             or by columns, else pivoted */
    MINV_TRIDIAGONAL_WRITE_ONCE = 1,      /* each entry written once from O(n) recurrences
                                             (Usmani's theta/phi as ratios, no overflow) */
    MINV_TRIDIAGONAL_SHERMAN_MORRISON = 2,/* the GPU paper's recursive Sherman-Morrison divide
                                             and conquer (Demere, Hormenou, Yoon), any n */
    MINV_TRIDIAGONAL_PIVOTED = 3          /* LU with partial pivoting (gttrf) solved for the
                                             identity: any nonsingular tridiagonal A */
} minv_tridiagonal_algorithm;

minv_status minv_invert_tridiagonal_d(minv_context *ctx, int64_t n, const double *dl,
                                      const double *d, const double *du, double *ainv,
                                      int64_t ldainv, minv_report *report);
minv_status minv_invert_tridiagonal_s(minv_context *ctx, int64_t n, const float *dl,
                                      const float *d, const float *du, float *ainv,
                                      int64_t ldainv, minv_report *report);
minv_status minv_invert_tridiagonal_device_d(minv_context *ctx, int64_t n, const double *dl,
                                             const double *d, const double *du, double *ainv,
                                             int64_t ldainv, minv_report *report);
minv_status minv_invert_tridiagonal_device_s(minv_context *ctx, int64_t n, const float *dl,
                                             const float *d, const float *du, float *ainv,
                                             int64_t ldainv, minv_report *report);

/* ---- solve: A X = B, B of shape (n, nrhs) ---------------------------------------------- */
minv_status minv_solve_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                         const double *a, int64_t lda, const double *b, int64_t ldb, double *x,
                         int64_t ldx, minv_report *report);
minv_status minv_solve_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                         const float *a, int64_t lda, const float *b, int64_t ldb, float *x,
                         int64_t ldx, minv_report *report);

/* B is overwritten by X, as LAPACK's gesv and posv do (A is not modified). */
minv_status minv_solve_inplace_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                 const double *a, int64_t lda, double *b, int64_t ldb,
                                 minv_report *report);
minv_status minv_solve_inplace_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                 const float *a, int64_t lda, float *b, int64_t ldb,
                                 minv_report *report);

/* ---- the same on device memory (GPU backend only; MINV_ERR_NO_GPU otherwise) ----------
 * a, ainv, b, x are device pointers on the context's device; nothing crosses PCIe but the
 * report. For data that already lives on the GPU (OpenACC, CUDA Fortran, cuBLAS codes). */
minv_status minv_invert_device_d(minv_context *ctx, minv_method method, int64_t n,
                                 const double *a, int64_t lda, double *ainv, int64_t ldainv,
                                 minv_report *report);
minv_status minv_invert_device_s(minv_context *ctx, minv_method method, int64_t n,
                                 const float *a, int64_t lda, float *ainv, int64_t ldainv,
                                 minv_report *report);
minv_status minv_solve_device_d(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                const double *a, int64_t lda, const double *b, int64_t ldb,
                                double *x, int64_t ldx, minv_report *report);
minv_status minv_solve_device_s(minv_context *ctx, minv_method method, int64_t n, int64_t nrhs,
                                const float *a, int64_t lda, const float *b, int64_t ldb,
                                float *x, int64_t ldx, minv_report *report);

/* ---- batched: many small matrices in one call ----------------------------------------------
 * What DA systems run most: a k x k ensemble-space matrix per grid point (LETKF, ETKF), an
 * observation-error block per profile or pixel. Member b (0 <= b < nbatch) of a batch is a
 * column-major matrix with a leading dimension:
 *   strided   a + b * stride_a, leading dimension lda; a Fortran array a(k, k, nbatch) has
 *             lda = k and stride_a = k * k. Members may not overlap: stride_a >= lda * k.
 *   _ptr      a[b], leading dimension lda (every member k x k)
 *   _vsize    a[b] of order k[b] >= 0, leading dimension lda[b]
 *   _subset   the principal submatrix A_b(idx_b, idx_b) of the strided member, idx_b =
 *             index[b * ldindex + 0 .. count[b] - 1] (0-based, distinct, < k; count[b] may be
 *             0): the channels used at one location, without a copy by the caller. Its inverse
 *             is count[b] x count[b], compact, in the leading block of member b of ainv.
 * Every form takes the order k (k[] for _vsize), then nrhs for solves, then nbatch: the sizes
 * of a member before the count of members, as cuBLAS and cuSOLVER's batched calls do.
 * Precision: _d double, _s float, _sd float storage with double compute (one rounding to float,
 * at the end). In place when ainv is a (the same pointer, leading dimension and stride; per
 * member for the pointer forms), or x is b for solves; never for _subset. Members run in
 * parallel: one member's output may not overlap another member's input or output. The strided
 * forms' strides keep them apart; the pointer forms do not check (it would take a sort of the
 * nbatch pointers), and two members given the same output pointer give undefined results.
 *
 * Methods, chosen per member:
 *   AUTO          the SPD path for a member that is symmetric (MINV_OPT_SYMMETRY_TOL) with a
 *                 positive diagonal, the general path otherwise; a member the SPD path finds
 *                 not positive definite is redone by the general path. The general path is
 *                 LU on the CPU (LAPACK above order 64; below, unblocked kernels with LU's
 *                 pivots, Gauss-Jordan for inverses) and Gauss-Jordan on the GPU.
 *   CHOLESKY      the SPD path for every member: LAPACK potrf/potri on the CPU (up to order
 *                 64: potrf unblocked, inverses by the sweep operator); on the GPU
 *                 Gauss-Jordan without pivoting up to k = 128 (stable for SPD matrices, it
 *                 meets a non-positive pivot at the column where potrf finds a non-positive
 *                 minor), beyond that cuSOLVER's batched potrf, L^-1 by batched TRSM and
 *                 L^-T L^-1 by batched GEMM. A member that is not symmetric or not positive
 *                 definite is MINV_ERR_NOT_SPD.
 *   LU            LAPACK getrf/getri (getrs) on the CPU; GPU contexts run host data on the CPU.
 *   GAUSS_JORDAN  Gauss-Jordan with partial pivoting (the pivots LU would choose).
 * The GPU keeps each matrix in registers (k <= 32: a warp per matrix or less) or in the
 * registers of a thread block (k <= 128); larger k run a blocked Gauss-Jordan with cuBLAS
 * batched GEMM updates (or the Cholesky path above), where AUTO takes the general path for
 * every member. GPU solves form
 * the inverse and multiply. The CPU runs members in parallel on the context's cpu_threads,
 * LAPACK inside each, a threaded OpenBLAS kept to one thread a call meanwhile (its idle
 * threads may still spin: OPENBLAS_NUM_THREADS=1 avoids them); a batch of fewer members than
 * threads runs them one after the other, the BLAS threaded inside each.
 *
 * Members are independent. status (nbatch entries, may be NULL) receives each member's status:
 * MINV_SUCCESS, MINV_ERR_NOT_FINITE (NaN or Inf in it), MINV_ERR_SINGULAR (an exactly zero
 * pivot, or a reciprocal condition 1 / (||A||_inf ||A^-1||_inf) below eps, estimated for CPU
 * solves from the factor's diagonal and the solution, whose result is still written),
 * MINV_ERR_NOT_SPD. A failed member's output is
 * left as it was (in place: its input), except a member singular to working precision. The call returns MINV_SUCCESS when
 * every member succeeded; otherwise the first failed member's status, with minv_last_error()
 * naming that member (0-based), its reason and column; every other member is still done.
 * Argument errors name the argument by position, and the member where it is one of them. */
typedef struct {
    minv_method method;      /* what ran: the method of every member, or MINV_METHOD_AUTO when
                                members differ (cholesky_count of them took the SPD path) */
    minv_backend backend;    /* where it ran */
    int64_t nbatch;
    int64_t k;               /* order; the largest for _vsize and _subset */
    int64_t nrhs;            /* right-hand sides (0 for an inversion) */
    int64_t cholesky_count;  /* members done by the SPD path */
    int64_t failed;          /* members whose status is not MINV_SUCCESS */
    int64_t first_failed;    /* 0-based index of the first of them; -1 if none */
    minv_status first_status; /* its status */
    int32_t reserved;
    int64_t first_info;      /* its 0-based column: zero pivot, non-positive minor, first
                                NaN/Inf (for _subset, of the member A_b, not of its subset);
                                -1 if none applies */
    double residual;         /* the largest member residual (kinds as in minv_report); -1 if
                                not computed. GPU batches compute the sampled kind (1). */
    int64_t worst;           /* the member with that residual; -1 */
    int32_t residual_kind;
    int32_t reserved2;
    double rcond;            /* the least reciprocal condition 1 / (||A||_inf ||A^-1||_inf) of
                                the members written (estimated for CPU solves); -1 if none */
    double seconds;          /* wall time of the whole call */
    double flops;            /* LAPACK's operation counts over the members that succeeded */
    double gflops;
    minv_stages stages;      /* where the time went (read and write stay 0: the batched API
                                reads no file) */
    int32_t device;          /* the CUDA device that computed; -1 on the CPU */
    int32_t fallbacks;       /* minv_fallback bits */
    char reason[MINV_REASON_LEN]; /* methods, backend, paths and kernels, fallbacks; cut with
                                     "..." past MINV_REASON_LEN - 1 characters */
} minv_batch_report;

/* ainv_b = A_b^-1. report may be NULL. */
minv_status minv_invert_batched_d(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                  const double *a, int64_t lda, int64_t stride_a, double *ainv,
                                  int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                  minv_batch_report *report);
minv_status minv_invert_batched_s(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                  const float *a, int64_t lda, int64_t stride_a, float *ainv,
                                  int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                  minv_batch_report *report);
minv_status minv_invert_batched_sd(minv_context *ctx, minv_method method, int64_t k, int64_t nbatch,
                                   const float *a, int64_t lda, int64_t stride_a, float *ainv,
                                   int64_t ldainv, int64_t stride_ainv, minv_status *status,
                                   minv_batch_report *report);
minv_status minv_invert_batched_ptr_d(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nbatch, const double *const *a, int64_t lda,
                                      double *const *ainv, int64_t ldainv, minv_status *status,
                                      minv_batch_report *report);
minv_status minv_invert_batched_ptr_s(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nbatch, const float *const *a, int64_t lda,
                                      float *const *ainv, int64_t ldainv, minv_status *status,
                                      minv_batch_report *report);
minv_status minv_invert_batched_ptr_sd(minv_context *ctx, minv_method method, int64_t k,
                                       int64_t nbatch, const float *const *a, int64_t lda,
                                       float *const *ainv, int64_t ldainv, minv_status *status,
                                       minv_batch_report *report);
minv_status minv_invert_batched_vsize_d(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nbatch, const double *const *a,
                                        const int64_t *lda, double *const *ainv,
                                        const int64_t *ldainv, minv_status *status,
                                        minv_batch_report *report);
minv_status minv_invert_batched_vsize_s(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nbatch, const float *const *a,
                                        const int64_t *lda, float *const *ainv,
                                        const int64_t *ldainv, minv_status *status,
                                        minv_batch_report *report);
minv_status minv_invert_batched_vsize_sd(minv_context *ctx, minv_method method,
                                         const int64_t *k, int64_t nbatch, const float *const *a,
                                         const int64_t *lda, float *const *ainv,
                                         const int64_t *ldainv, minv_status *status,
                                         minv_batch_report *report);
minv_status minv_invert_batched_subset_d(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const double *a, int64_t lda,
                                         int64_t stride_a, const int64_t *index, int64_t ldindex,
                                         const int64_t *count, double *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report);
minv_status minv_invert_batched_subset_s(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const float *a, int64_t lda,
                                         int64_t stride_a, const int64_t *index, int64_t ldindex,
                                         const int64_t *count, float *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report);
minv_status minv_invert_batched_subset_sd(minv_context *ctx, minv_method method, int64_t k,
                                          int64_t nbatch, const float *a, int64_t lda,
                                          int64_t stride_a, const int64_t *index,
                                          int64_t ldindex, const int64_t *count, float *ainv,
                                          int64_t ldainv, int64_t stride_ainv,
                                          minv_status *status, minv_batch_report *report);

/* A_b X_b = B_b with B_b and X_b of shape (k, nrhs) (k[b] x nrhs for _vsize). */
minv_status minv_solve_batched_d(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                 int64_t nbatch, const double *a, int64_t lda, int64_t stride_a,
                                 const double *b, int64_t ldb, int64_t stride_b, double *x,
                                 int64_t ldx, int64_t stride_x, minv_status *status,
                                 minv_batch_report *report);
minv_status minv_solve_batched_s(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                 int64_t nbatch, const float *a, int64_t lda, int64_t stride_a,
                                 const float *b, int64_t ldb, int64_t stride_b, float *x,
                                 int64_t ldx, int64_t stride_x, minv_status *status,
                                 minv_batch_report *report);
minv_status minv_solve_batched_sd(minv_context *ctx, minv_method method, int64_t k, int64_t nrhs,
                                  int64_t nbatch, const float *a, int64_t lda, int64_t stride_a,
                                  const float *b, int64_t ldb, int64_t stride_b, float *x,
                                  int64_t ldx, int64_t stride_x, minv_status *status,
                                  minv_batch_report *report);
minv_status minv_solve_batched_ptr_d(minv_context *ctx, minv_method method, int64_t k,
                                     int64_t nrhs, int64_t nbatch, const double *const *a,
                                     int64_t lda, const double *const *b, int64_t ldb,
                                     double *const *x, int64_t ldx, minv_status *status,
                                     minv_batch_report *report);
minv_status minv_solve_batched_ptr_s(minv_context *ctx, minv_method method, int64_t k,
                                     int64_t nrhs, int64_t nbatch, const float *const *a,
                                     int64_t lda, const float *const *b, int64_t ldb,
                                     float *const *x, int64_t ldx, minv_status *status,
                                     minv_batch_report *report);
minv_status minv_solve_batched_ptr_sd(minv_context *ctx, minv_method method, int64_t k,
                                      int64_t nrhs, int64_t nbatch, const float *const *a,
                                      int64_t lda, const float *const *b, int64_t ldb,
                                      float *const *x, int64_t ldx, minv_status *status,
                                      minv_batch_report *report);
minv_status minv_solve_batched_vsize_d(minv_context *ctx, minv_method method,
                                       const int64_t *k, int64_t nrhs, int64_t nbatch, const double *const *a,
                                       const int64_t *lda, const double *const *b,
                                       const int64_t *ldb, double *const *x, const int64_t *ldx,
                                       minv_status *status, minv_batch_report *report);
minv_status minv_solve_batched_vsize_s(minv_context *ctx, minv_method method,
                                       const int64_t *k, int64_t nrhs, int64_t nbatch, const float *const *a,
                                       const int64_t *lda, const float *const *b,
                                       const int64_t *ldb, float *const *x, const int64_t *ldx,
                                       minv_status *status, minv_batch_report *report);
minv_status minv_solve_batched_vsize_sd(minv_context *ctx, minv_method method,
                                        const int64_t *k, int64_t nrhs, int64_t nbatch, const float *const *a,
                                        const int64_t *lda, const float *const *b,
                                        const int64_t *ldb, float *const *x, const int64_t *ldx,
                                        minv_status *status, minv_batch_report *report);

/* Strided batches in device memory (GPU backend only; MINV_ERR_NO_GPU otherwise); status, if
 * not NULL, is host memory. */
minv_status minv_invert_batched_device_d(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const double *a, int64_t lda,
                                         int64_t stride_a, double *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report);
minv_status minv_invert_batched_device_s(minv_context *ctx, minv_method method, int64_t k,
                                         int64_t nbatch, const float *a, int64_t lda,
                                         int64_t stride_a, float *ainv, int64_t ldainv,
                                         int64_t stride_ainv, minv_status *status,
                                         minv_batch_report *report);
minv_status minv_solve_batched_device_d(minv_context *ctx, minv_method method, int64_t k,
                                        int64_t nrhs, int64_t nbatch, const double *a,
                                        int64_t lda, int64_t stride_a, const double *b,
                                        int64_t ldb, int64_t stride_b, double *x, int64_t ldx,
                                        int64_t stride_x, minv_status *status,
                                        minv_batch_report *report);
minv_status minv_solve_batched_device_s(minv_context *ctx, minv_method method, int64_t k,
                                        int64_t nrhs, int64_t nbatch, const float *a,
                                        int64_t lda, int64_t stride_a, const float *b,
                                        int64_t ldb, int64_t stride_b, float *x, int64_t ldx,
                                        int64_t stride_x, minv_status *status,
                                        minv_batch_report *report);

/* ---- progress: long calls report their stage and fraction done (0..1) ------------------
 * Stages: "read" and "write" (files), "analysis", "recondition", "<method> factor",
 * "<method> invert", "<method> solve" (cholesky, lu), "gauss-jordan", "iterate", "residual",
 * "invert batch" (a file's batch, chunk by chunk), "stream" (out-of-core transfers). A stage
 * run as one library call (a LAPACK or cuSOLVER factorisation) reports 0 at its start only;
 * blocked methods report each step. On the GPU a step is reported when it is queued, so the
 * fraction may lead the device. The callback runs on the calling thread, between steps; it
 * should return quickly. */
typedef void (*minv_progress_fn)(void *user, const char *stage, double fraction);
/* fn may be NULL to switch progress off (the default). */
minv_status minv_set_progress(minv_context *ctx, minv_progress_fn fn, void *user);

/* ---- NetCDF files: read a matrix variable tile by tile, write the result back ------------
 * Available when minv_config.h says MINV_HAVE_NETCDF; otherwise these return
 * MINV_ERR_NOT_IMPLEMENTED. A variable of rank > 2 is sliced to its last two dimensions by
 * `slice` (indices into the leading dimensions); without a slice a rank-3 variable whose last
 * two dimensions are equal is a batch, and every matrix of it is processed. An input variable
 * inside netCDF-4 groups is named by its path ("analysis/M", "/analysis/M", "a/b/M"); output
 * variables are written to the root group, so their names hold no '/'. Output is written to a
 * temporary name and renamed when complete; the input file is never modified. A new output
 * takes the input's format (see minv_file_format), global attributes and history (with a
 * line for this call first), and the input variable's attributes that still hold, with its
 * units inverted; what was left behind is listed in the attribute minv_not_carried. */
/* The format of a new output file. AUTO follows the input's where the result fits it (a
 * classic input too large for classic gives 64-bit offset or CDF-5, and the report says so);
 * a deflate level above 0 asks for netCDF-4. */
typedef enum {
    MINV_FORMAT_AUTO = 0,
    MINV_FORMAT_CLASSIC = 1,
    MINV_FORMAT_64BIT_OFFSET = 2,
    MINV_FORMAT_CDF5 = 3,
    MINV_FORMAT_NETCDF4 = 4,
    MINV_FORMAT_NETCDF4_CLASSIC = 5
} minv_file_format;

enum { MINV_MAX_SLICE = 8 };

typedef struct {
    minv_precision precision; /* compute precision, whatever the type on disk, and the output
                                 variable's type: NC_DOUBLE, or NC_FLOAT for SINGLE */
    int32_t deflate_level;    /* 0 (none) to 9, for netCDF-4 output */
    int32_t nslice;           /* number of indices in slice; 0 = no slice */
    int32_t overwrite;        /* 0: an existing output file is never replaced, nor a variable
                                 it holds (MINV_ERR_INVALID_ARG says so); a netCDF file that
                                 lacks the output variable gains it. 1: a file that is not
                                 netCDF or holds only the output variable is replaced; in one
                                 with other variables the output variable is overwritten when
                                 of the result's shape and type without packing, fill or
                                 valid-range attributes, else refused (README) */
    int64_t slice[MINV_MAX_SLICE]; /* 0-based indices into the leading dimensions */
    int64_t tile;             /* 0: the values are read directly, whole chunks or blocks of
                                 rows on all threads (NetCDF-C's tiles where the storage needs
                                 them); N > 0: through NetCDF-C in N x N tiles, and a file
                                 inversion on the GPU moves bands of N stored rows (rounded up
                                 to whole chunks of the output; 0: about 256 MiB a band) */
    int32_t fortran_order;    /* 0: a matrix variable is A(row, column) in the order ncdump
                                 shows; 1: it was written from a Fortran array by
                                 nf90_put_var, so its dimensions appear reversed. Inversion
                                 gives the same file either way; a general solve does not. */
    int32_t batch_chunk;      /* a batch is read, inverted (by the batched API) and written in
                                 chunks of this many whole matrices; 0 = as many as 32 MiB of
                                 doubles hold */
    int32_t format;           /* minv_file_format of a new output (MINV_FORMAT_AUTO) */
    int32_t allow_remote;     /* 1: inputs may be URLs (OPeNDAP, S3), which netCDF-C fetches over
                                 the network; 0: a URL is refused (MINV_ERR_INVALID_ARG) */
    int32_t index_base;       /* how messages count slice indices and batch members: 0 (C,
                                 ncdump) or 1 (Fortran; minv_mod sets it) */
    int32_t reserved;         /* 0 */
} minv_file_options;

void minv_file_options_default(minv_file_options *fopts);
/* out_var NULL or "" means "<in_var>_inv" (of in_var's name without its groups). If out_path
 * exists: a netCDF file that lacks out_var gains it; a file that is not netCDF, or one that
 * holds out_var, is replaced (out_var overwritten, when other variables are there, if of the
 * result's shape and type without packing, fill or valid-range attributes) only with
 * fopts->overwrite. A FIFO, device, socket, directory or symbolic link is never written. */
minv_status minv_invert_file(minv_context *ctx, minv_method method, const char *in_path,
                             const char *in_var, const char *out_path, const char *out_var,
                             const minv_file_options *fopts, minv_report *report);
/* x_var NULL or "" means "X". B has one dimension of length n (its rows) and one of length
 * nrhs, in either order; when both have length n, the order of fortran_order applies. A 1-D
 * B(n) is one right-hand side. X is written with B's dimensions and layout (1-D for a 1-D B);
 * an existing x_path is treated as out_path of minv_invert_file is. */
minv_status minv_solve_file(minv_context *ctx, minv_method method, const char *a_path,
                            const char *a_var, const char *b_path, const char *b_var,
                            const char *x_path, const char *x_var,
                            const minv_file_options *fopts, minv_report *report);
/* The analysis of a matrix variable (sliced as above; a batch is refused with SHAPE). */
minv_status minv_analyze_file(minv_context *ctx, const char *path, const char *var,
                              const minv_file_options *fopts, minv_analysis *analysis);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* MINV_H */
