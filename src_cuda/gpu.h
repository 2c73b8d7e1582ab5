/* CUDA state owned by a context, device workspaces that persist across calls, checks that
 * turn CUDA, cuBLAS and cuSOLVER errors into minv statuses carrying the library's message,
 * and the kernels shared by the GPU algorithms. Only src_cuda/ includes CUDA headers. */
#ifndef MINV_GPU_H
#define MINV_GPU_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

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
    WS_COUNT
};
enum minv_pinned_slot {
    PIN_STAGE = 0,                         /* MINV_GPU_STREAMS panel staging buffers */
    PIN_AUX = PIN_STAGE + MINV_GPU_STREAMS, /* MINV_GPU_STREAMS for callbacks */
    PIN_OOC = PIN_AUX + MINV_GPU_STREAMS,   /* IT_BUFFERS host matrices of out-of-core methods */
    PIN_SMALL = PIN_OOC + IT_BUFFERS,       /* a vector */
    PIN_COUNT
};

typedef struct minv_energy minv_energy; /* NVML counters (energy.cu) */

struct minv_gpu {
    int device;
    minv_energy *energy;                     /* NULL where NVML is absent */
    char name[256];
    int sm_count;
    cudaStream_t stream;                     /* compute */
    cudaStream_t copy[MINV_GPU_STREAMS];     /* transfers overlapped with compute */
    cublasHandle_t blas;
    cublasHandle_t blas_side;                /* on copy[MINV_GPU_STREAMS - 1], for work beside blas's */
    cusolverDnHandle_t solver;
    cusolverDnParams_t solver_params;
    size_t budget;                           /* bytes minv may hold on the device */
    void *ws[WS_COUNT];
    size_t ws_bytes[WS_COUNT];
    int ws_locked[WS_COUNT]; /* reserved during the current call: never released under it */
    void *pinned[PIN_COUNT];
    size_t pinned_bytes[PIN_COUNT];
    /* The host matrix the analysis uploaded to WS_A during the current call, if any. */
    const void *staged_host;
    int64_t staged_n, staged_ld;
    minv_dtype staged_dtype;
    /* In the context's state (team[0] is itself): every device of ctx->devices, the others
     * opened by the first multi-GPU call and kept for the next DA cycle. */
    minv_gpu *team[MINV_MAX_DEVICES];
    int peers_enabled;
};

minv_status minv_cuda_fail(minv_context *ctx, cudaError_t err, const char *what, const char *file, int line);
minv_status minv_cublas_fail(minv_context *ctx, cublasStatus_t err, const char *what, const char *file, int line);
minv_status minv_cusolver_fail(minv_context *ctx, cusolverStatus_t err, const char *what, const char *file, int line);

/* In a function with `minv_status status` and a `cleanup:` label. */
#define CUDA_TRY(call)                                                                   \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            status = minv_cuda_fail(ctx, err_, #call, __FILE__, __LINE__);               \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
#define CUBLAS_TRY(call)                                                                 \
    do {                                                                                 \
        cublasStatus_t err_ = (call);                                                    \
        if (err_ != CUBLAS_STATUS_SUCCESS) {                                             \
            status = minv_cublas_fail(ctx, err_, #call, __FILE__, __LINE__);             \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
#define CUSOLVER_TRY(call)                                                               \
    do {                                                                                 \
        cusolverStatus_t err_ = (call);                                                  \
        if (err_ != CUSOLVER_STATUS_SUCCESS) {                                           \
            status = minv_cusolver_fail(ctx, err_, #call, __FILE__, __LINE__);           \
            goto cleanup;                                                                \
        }                                                                                \
    } while (0)
/* After a kernel launch. */
#define LAUNCH_TRY() CUDA_TRY(cudaGetLastError())

/* ---- energy (energy.cu) ---- */
/* Loads NVML and finds the given CUDA devices; on any failure g->energy stays NULL. */
void minv_gpu_energy_open(minv_gpu *g, const int *devices, int count);
void minv_gpu_energy_close(minv_gpu *g);

/* ---- several devices (gpu_context.cu) ---- */
/* team[0 .. ctx->device_count): the state of each device of the context, ctx->gpu first;
 * opens the others on first use, with peer access between every pair that has it. */
minv_status minv_gpu_team(minv_context *ctx, minv_gpu **team);

/* ---- workspaces (workspace.cu) ---- */
/* Makes slots[k] hold at least bytes[k] for k < count and returns the pointers, locked until
 * the call ends. Fails with MINV_ERR_DEVICE_MEMORY when the slots this call holds would
 * exceed the budget; unlocked slots are released first when that makes room. */
minv_status minv_gpu_reserve(minv_context *ctx, int count, const int *slots, const size_t *bytes,
                             void **ptrs);
/* The same on one device of the team, against its own budget. */
minv_status minv_gpu_reserve_on(minv_context *ctx, minv_gpu *g, int count, const int *slots, const size_t *bytes,
                                void **ptrs);
/* Whether `bytes` in total would fit the budget. */
int minv_gpu_fits(const minv_context *ctx, double bytes);
/* Bytes of the budget that the slots this call holds leave free. */
double minv_gpu_available(const minv_context *ctx);
/* Slots [first, first + count) are no longer needed by this call: they stay cached for the
 * next one but may be released to make room. */
void minv_gpu_unlock(minv_context *ctx, int first, int count);
minv_status minv_gpu_pinned(minv_context *ctx, int slot, size_t bytes, void **ptr);
void minv_gpu_release_all(minv_gpu *g);
/* End of a public call: unlock the slots and forget the staged upload. */
void minv_gpu_end_call(minv_context *ctx);

/* ---- transfers (transfer.cu) ---- */
/* dst = src, host matrices of one shape, column by column on the host's threads (matrices
 * this large saturate one thread's memory bandwidth). */
void minv_host_copy(const minv_mat *src, minv_mat *dst);
/* Whether p is page-locked host memory (minv's or registered by the caller). */
int minv_host_is_pinned(const void *p);
/* Rows [i0, i0+rows) x columns [j0, j0+cols) of a host matrix to (up) or from a dense device
 * block (ld = rows), enqueued on s. */
cudaError_t minv_gpu_copy_block(const minv_mat *host, int64_t i0, int64_t j0, int64_t rows, int64_t cols, void *dev,
                                int up, cudaStream_t s);
/* Host column-major matrix to a dense device matrix (ld = rows) and back, on the compute
 * stream; synchronous with respect to the host on return. */
minv_status minv_gpu_upload(minv_context *ctx, const minv_mat *host, void *dev);
minv_status minv_gpu_download(minv_context *ctx, const void *dev, const minv_mat *host);
/* A on the device in WS_A: reuses the analysis's upload of the same host matrix. */
minv_status minv_gpu_stage_input(minv_context *ctx, const minv_mat *host, void **dev);
/* Streams a host matrix to the device in column panels of at most panel_cols, through pinned
 * buffers and MINV_GPU_STREAMS streams so that copies overlap the work; `work` enqueues its
 * kernels for the panel (dense, ld = rows, columns j0...) on `stream`. Panels in flight at
 * once use different `buffer` indices, so a callback may keep resources per buffer (the
 * slots WS_AUX + buffer and PIN_AUX + buffer are its own). */
typedef minv_status (*minv_panel_fn)(minv_context *ctx, const minv_mat *panel, int64_t j0,
                                     cudaStream_t stream, int buffer, void *user);
minv_status minv_gpu_stream_panels(minv_context *ctx, const minv_mat *host, int64_t panel_cols,
                                   minv_panel_fn work, void *user);

/* ---- out of core (ooc_gemm.cu, transpose.cu): n x n matrices in host memory, streamed ----
 * C-stationary tiles: a tile x tile block of C stays on the device while slabs of X (tile x
 * slab) and Y (slab x tile) stream in on one stream (or, with 4 streams, X's and Y's on two),
 * GEMMs run on another and finished tiles stream out on a third; two buffers of each let all
 * of them overlap. */
typedef struct {
    int64_t tile, slab;
    int streams; /* 3 or 4: ctx->ooc_streams */
} minv_ooc_plan;
/* The largest tiles that fit the budget for n x n matrices of type t. */
minv_status minv_gpu_ooc_plan(minv_context *ctx, minv_dtype t, int64_t n, minv_ooc_plan *plan);
/* c = alpha x y + beta s + gamma I (s may be NULL); *residual (if not NULL) = ||I - c||_F.
 * c must not be x or y; it may be s. Host memory should be pinned for full speed. */
minv_status minv_gpu_ooc_gemm(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *x, const minv_mat *y,
                              double alpha, const minv_mat *s, double beta, double gamma, minv_mat *c,
                              double *residual);
/* dst = scale src^T for square host matrices, tile by tile through the device. */
minv_status minv_gpu_ooc_transpose(minv_context *ctx, const minv_ooc_plan *plan, const minv_mat *src, double scale,
                                   minv_mat *dst);

/* ---- shared kernels (kernels.cu), on dense device matrices; T = double or float ---- */
template <typename T> void minv_k_set_identity(T *a, int64_t n, int64_t ld, T diag, cudaStream_t s);
template <typename T> void minv_k_add_diagonal(T *a, int64_t n, int64_t ld, T value, cudaStream_t s);
/* The strict upper triangle from the lower (lower_to_upper) or the other way round. */
template <typename T> void minv_k_mirror(T *a, int64_t n, int64_t ld, int lower_to_upper, cudaStream_t s);
/* diag[i] = a(i, i) (save) or a(i, i) = diag[i] (restore). */
template <typename T> void minv_k_diagonal(T *a, int64_t n, int64_t ld, T *diag, int save, cudaStream_t s);
/* Column-major index of the first NaN/Inf into *out (atomic min; start it at ULLONG_MAX). */
template <typename T> void minv_k_first_nonfinite(const T *a, int64_t rows, int64_t cols, int64_t ld,
                                                  unsigned long long *out, cudaStream_t s);
template <typename Tin, typename Tout>
void minv_k_convert(const Tin *in, int64_t ldin, Tout *out, int64_t ldout, int64_t rows, int64_t cols,
                    cudaStream_t s);
/* max over columns of sum |a_ij| into *out (device double). */
template <typename T> void minv_k_norm1(const T *a, int64_t rows, int64_t cols, int64_t ld, double *out,
                                        cudaStream_t s);
/* ||I - P||_F^2 of a square matrix into *out (device double). */
template <typename T> void minv_k_identity_residual(const T *p, int64_t n, int64_t ld, double *out,
                                                    cudaStream_t s);
/* Adds to *out the squares of (I - P) over a tile of P whose (0, 0) is (row0, col0) of the
 * whole matrix; *out is not reset. */
template <typename T> void minv_k_identity_residual_tile(const T *p, int64_t rows, int64_t cols, int64_t ld,
                                                         int64_t row0, int64_t col0, double *out, cudaStream_t s);
/* dst = diag(1 / a_ii), zero elsewhere. */
template <typename T> void minv_k_diagonal_inverse(const T *a, int64_t n, int64_t lda, T *dst, int64_t ld,
                                                   cudaStream_t s);
/* y = A x and rowabs = row sums of |A| (when not NULL), accumulated in double. */
template <typename T> void minv_k_gemv_double(const T *a, int64_t rows, int64_t cols, int64_t ld,
                                              const double *x, double *y, double *rowabs, cudaStream_t s);
/* out = a^T * alpha (tiled through shared memory, reads and writes coalesced). */
template <typename T> void minv_k_transpose(const T *a, int64_t rows, int64_t cols, int64_t lda, T *out,
                                            int64_t ldout, T alpha, cudaStream_t s);

/* ---- cuBLAS by type ---- */
cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                         int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
                         const double *b, int64_t ldb, double beta, double *c, int64_t ldc);
cublasStatus_t minv_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                         int64_t n, int64_t k, double alpha, const float *a, int64_t lda,
                         const float *b, int64_t ldb, double beta, float *c, int64_t ldc);
/* B = alpha op(A)^-1 B (left) or alpha B op(A)^-1 (right), A triangular. */
cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const double *a, int64_t lda,
                         double *b, int64_t ldb);
cublasStatus_t minv_trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t op,
                         cublasDiagType_t diag, int64_t m, int64_t n, double alpha, const float *a, int64_t lda,
                         float *b, int64_t ldb);
/* x = op(A)^-1 x, A triangular, x one vector. */
cublasStatus_t minv_trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag,
                         int64_t n, const double *a, int64_t lda, double *x);
cublasStatus_t minv_trsv(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t op, cublasDiagType_t diag,
                         int64_t n, const float *a, int64_t lda, float *x);
/* C (lower) = alpha op(A) op(A)^T + beta C, C n x n, op(A) n x k. */
cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const double *a,
                         int64_t lda, double beta, double *c, int64_t ldc);
cublasStatus_t minv_syrk(cublasHandle_t h, cublasOperation_t op, int64_t n, int64_t k, double alpha, const float *a,
                         int64_t lda, double beta, float *c, int64_t ldc);
cudaDataType minv_cuda_type(minv_dtype t);

/* ---- residuals and condition (residual.cu, condition.cu) ----
 * Inversion: begin before A is overwritten (probes A v, or a copy of A for the full kind),
 * end with X; solve: begin saves the sampled columns of B, end forms A x - b. Both fill the
 * report's residual as the CPU does, from products computed here on the device. */
typedef struct {
    int mode;
    int64_t n, count;
    double *v, *av;  /* device: probes and their products, n x count */
    minv_mat acopy;  /* device: A for the full kind */
} minv_gpu_residual;
minv_status minv_gpu_inverse_residual_begin(minv_context *ctx, const minv_mat *a, minv_gpu_residual *r);
minv_status minv_gpu_inverse_residual_end(minv_context *ctx, const minv_gpu_residual *r, const minv_mat *x,
                                          const minv_analysis *an, minv_report *report);
minv_status minv_gpu_solve_residual_begin(minv_context *ctx, const minv_mat *b, minv_gpu_residual *r);
minv_status minv_gpu_solve_residual_end(minv_context *ctx, const minv_gpu_residual *r, const minv_mat *a,
                                        const minv_mat *x, const minv_analysis *an, minv_report *report);
/* rcond = 1 / (||A||_1 ||A^-1||_1) from an explicit inverse. */
minv_status minv_gpu_rcond_from_inverse(minv_context *ctx, const minv_mat *x, const minv_analysis *an,
                                        minv_report *report);
/* Hager-Higham estimate of ||A^-1||_1 from a factorisation: solve(vec, transpose) overwrites
 * the device vector vec (n entries of the matrix's type) with A^-1 vec or A^-T vec. */
typedef minv_status (*minv_gpu_vec_solve)(minv_context *ctx, void *vec, int transpose, void *user);
minv_status minv_gpu_rcond_estimate(minv_context *ctx, minv_dtype t, int64_t n, double anorm,
                                    minv_gpu_vec_solve solve, void *user, double *rcond);
/* First NaN/Inf of a device matrix in column-major order; 1 if none. */
minv_status minv_gpu_all_finite(minv_context *ctx, const minv_mat *m, int64_t *bad_i, int64_t *bad_j, int *finite);

/* The order of the diagonal blocks that triangular.cu inverts at the bottom of its
 * recursions: n x nb scratch beside the factor. */
constexpr int64_t MINV_TRI_INVERSE_NB = 1024, MINV_TRI_SOLVE_NB = 256;
/* ---- the GPU algorithms (one file each) ---- */
minv_status minv_gpu_analyze(minv_context *ctx, const minv_mat *a, minv_analysis *out);
minv_status minv_gpu_analyze_device(minv_context *ctx, const minv_mat *d_a, minv_analysis *out);
/* Device forms, with the signatures of minv_invert_op and minv_solve_op on device matrices. */
minv_status minv_gpu_cholesky_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                     minv_report *r);
minv_status minv_gpu_cholesky_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *r);
minv_status minv_gpu_lu_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                               minv_report *r);
/* LAPACK's interchanges (row i with row ipiv[i] - 1, 1-based over the whole matrix, in turn) as
 * one permutation: perm[i] is the row of A that ends at row i of P A. Device vectors of n. */
minv_status minv_gpu_pivot_permutation(minv_context *ctx, const int64_t *ipiv, int64_t n, int64_t *perm);
minv_status minv_gpu_lu_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                              const minv_analysis *an, minv_report *r);
/* cuSOLVER potrf on a device matrix (cholesky.cu): the device workspace for order n and leading
 * dimension ld (a, the matrix, is not read and may be NULL: the size depends on the shape);
 * then x = L L^T in place (lower) with it and an int on the device for info, synchronising the
 * compute stream. On MINV_ERR_NOT_SPD report->info is the 0-based column in the whole matrix,
 * x's first column being col0. */
minv_status minv_gpu_potrf_workspace(minv_context *ctx, minv_dtype t, int64_t n, int64_t ld, const void *a,
                                     size_t *dev_bytes);
minv_status minv_gpu_potrf(minv_context *ctx, minv_mat *x, int64_t col0, void *work, size_t work_bytes, int *info_dev,
                           minv_report *report);
/* Host forms of the Cholesky inversion and solve (cholesky_ooc.cu): in core when A fits the
 * budget, else out of core, A, its factor and the result in host memory and streamed. */
minv_status minv_gpu_cholesky_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                          minv_report *r);
minv_status minv_gpu_cholesky_solve_host(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                         const minv_analysis *an, minv_report *r);
/* A^-1 from its Cholesky factor: l holds L (lower) on entry and the lower triangle of
 * L^-T L^-1 on return (triangular.cu). */
minv_status minv_gpu_spd_inverse_from_factor(minv_context *ctx, minv_mat *l);
/* x = A^-1 x from the Cholesky factor L (lower) of A. */
minv_status minv_gpu_spd_solve_with_factor(minv_context *ctx, const minv_mat *l, minv_mat *x);
/* x = U^-1 L^-1 x from getrf's factors (L unit lower and U upper in lu), x already permuted by
 * getrf's interchanges (x = P B): the triangular solves of A^-1 B. */
minv_status minv_gpu_lu_solve_with_factors(minv_context *ctx, const minv_mat *lu, minv_mat *x);
/* The same solves split for callers that solve many times with one factorisation (mixed
 * precision): triangle `which` (0: L, unit for LU; 1: U for LU, L^T for Cholesky, whose blocks
 * are triangle 0's) gets its diagonal blocks of order nb inverted into e
 * (minv_gpu_triangle_blocks_bytes), then x = T^-1 x as often as wanted, enqueued on the
 * compute stream without synchronising. */
size_t minv_gpu_triangle_blocks_bytes(minv_dtype t, int64_t n, int64_t nb);
minv_status minv_gpu_triangle_blocks(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, void *e);
minv_status minv_gpu_triangle_solve(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, const void *e,
                                    minv_mat *x);
minv_status minv_gpu_iterative_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                      minv_report *r);
/* The backend's eigen op for reconditioning (eigen.cu), on host data; see internal.h. */
minv_status minv_gpu_eigen(minv_context *ctx, const minv_mat *a, double *w, double fraction, const minv_mat *b,
                           minv_mat *x, int *applied);
extern "C" double minv_gpu_energy(minv_context *ctx);
/* Blocked Gauss-Jordan (gauss_jordan.cu), device forms. */
minv_status minv_gpu_gauss_jordan_invert(minv_context *ctx, const minv_mat *a, minv_mat *x, const minv_analysis *an,
                                         minv_report *r);
minv_status minv_gpu_gauss_jordan_solve(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                        const minv_analysis *an, minv_report *r);
/* Their host forms: in core where the budget allows, else D stays in pinned host memory and
 * streams through the device once per super-panel (gauss_jordan_ooc.cu). */
minv_status minv_gpu_gauss_jordan_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                              const minv_analysis *an, minv_report *r);
minv_status minv_gpu_gauss_jordan_solve_host(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                             const minv_analysis *an, minv_report *r);
/* The row interchanges of one GETRF panel (cuSOLVER's 1-based ipiv for rows k0 .. k0+w-1)
 * on a row-major matrix held as its transpose, rows x n column-major: the rows of A are its
 * columns. The plan turns them into one permutation, 2 w (destination, source) pairs (4 w
 * entries; cur is an n-vector holding the identity, and left so); applying it gathers the
 * listed columns through tmp (2 w columns of rows elements). */
minv_status minv_gpu_interchange_plan(minv_context *ctx, const int64_t *ipiv, int64_t k0, int64_t w, int64_t *cur,
                                      int64_t *pairs);
minv_status minv_gpu_apply_interchange(minv_context *ctx, minv_dtype t, void *v, int64_t rows, int64_t ld, int64_t w,
                                       const int64_t *pairs, void *tmp);
/* Factorisations in low precision for the mixed-precision solves (mixed_factor.cu): f (float,
 * n x n, on the device) becomes its Cholesky factor (lower; lu 0) or its LU factors with
 * partial pivoting (lu 1; ipiv: n device int64, LAPACK's 1-based interchanges), with the GEMMs
 * in TF32 or in three TF32 products (about single precision). MINV_ERR_NOT_SPD or
 * MINV_ERR_SINGULAR, with the column in the message, when the factorisation breaks down. */
enum { MINV_LOWP_TF32 = 0, MINV_LOWP_TF32X3 = 1, MINV_LOWP_LEVELS = 2 };
minv_status minv_gpu_lowp_factor(minv_context *ctx, minv_mat *f, int lu, int level, int64_t *ipiv);
/* The mixed-precision solves (mixed.cu), device forms (the signature of minv_solve_op). */
minv_status minv_gpu_cholesky_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                          const minv_analysis *an, minv_report *r);
minv_status minv_gpu_lu_solve_mixed(minv_context *ctx, const minv_mat *a, const minv_mat *b, minv_mat *x,
                                    const minv_analysis *an, minv_report *r);
/* The paper's Gauss-Jordan baseline; in core when the matrix fits, else slabs per pivot. */
minv_status minv_gpu_gj_baseline_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                             const minv_analysis *an, minv_report *r);
/* Host form with an out-of-core fallback: matrices beyond the device budget stay in pinned
 * host memory and every product streams tiles through the GPU. */
minv_status minv_gpu_iterative_invert_host(minv_context *ctx, const minv_mat *a, minv_mat *x,
                                           const minv_analysis *an, minv_report *r);
/* Tridiagonal inversion by a plan's path (src_c/tridiagonal.h): X in device memory, or X in
 * host memory through a device copy; and the bands of device data for the plan. */
minv_status minv_gpu_tridiagonal_invert_device(minv_context *ctx, const struct minv_tri_plan *plan, minv_mat *x,
                                               minv_report *r);
minv_status minv_gpu_tridiagonal_invert(minv_context *ctx, const struct minv_tri_plan *plan, minv_mat *x,
                                        minv_report *r);
minv_status minv_gpu_download_vector(minv_context *ctx, const void *dev, int64_t stride, int64_t count, minv_dtype t,
                                     void *host);
/* Host forms of any device form: upload (or find the analysis's upload), run, download. */
minv_status minv_gpu_invert_host(minv_context *ctx, minv_invert_op device_op, const minv_mat *a, minv_mat *x,
                                 const minv_analysis *an, minv_report *r);
minv_status minv_gpu_solve_host(minv_context *ctx, minv_solve_op device_op, const minv_mat *a, const minv_mat *b,
                                minv_mat *x, const minv_analysis *an, minv_report *r);
/* dst = src on the device (same shape), on the compute stream. */
minv_status minv_gpu_copy(minv_context *ctx, const minv_mat *src, minv_mat *dst);
/* The backend's table (backend.cu): a context's ops once minv_gpu_create succeeds. */
extern "C" const minv_backend_ops minv_gpu_backend;

#endif
