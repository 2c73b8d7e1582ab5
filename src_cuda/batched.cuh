// What the batched GPU files share: the arguments every batched kernel takes, the per-member
// outcome they write, the reductions of the register kernels, and the launchers, one file
// each:
//   batched_small.cu     k <= 32: a group of k' (a power of two >= k) lanes per matrix, a row
//                        in each lane's registers, Gauss-Jordan by warp shuffles
//   batched_tile.cu      k <= 128: a thread block per matrix, 16 x 16 threads holding it in
//                        registers, pivot row and column through shared memory
//   batched_blocked.cu   larger k: Gauss-Jordan by panels of columns (a block per matrix, the
//                        panel in shared memory) and cuBLAS batched GEMM updates
//   batched_residual.cu  residual probes and solve residuals, a block per member
//   batched.cu           the driver: paths, chunks, host staging, solves, outcomes
// Every path pivots without moving rows: the pivot of step j is row p_j, and in the end row
// p_j holds row j of (P A)^-1 = A^-1 P^T, so x(j, p_c) = w(p_j, c) (src_c/cpu/batched_t.h is
// the reference). A matrix of order n < k is padded by the identity, which never pivots
// before step n, so variable sizes run as one uniform batch.
#ifndef MINV_BATCHED_CUH
#define MINV_BATCHED_CUH

#include "gpu.h"

/* How members are factored: all pivoted, all SPD (no pivoting, a non-positive pivot is
 * NOT_SPD), or AUTO (SPD where symmetric with a positive diagonal, else pivoted, and a member
 * the SPD attempt fails is redone pivoted). */
enum { GJ_PIVOTED = 0, GJ_SPD = 1, GJ_AUTO = 2 };

/* Per member, three ints: status (a minv_status), info (column or -1), spd (1 when the SPD
 * path produced the result). A member is written when it succeeded or is singular to
 * working precision (status SINGULAR with info -1). */
enum { RES_STATUS = 0, RES_INFO = 1, RES_SPD = 2, RES_INTS = 3 };

/* A strided batch of `count` members in device memory and what to do with it. */
struct batch_args {
    const void *a;        /* members of type Tio at a + m * sa, leading dimension lda */
    int64_t lda, sa;
    void *x;              /* results (inverse, or solution for the small kernel's solves) */
    int64_t ldx, sx;
    const void *b;        /* right-hand sides (small kernel solves); NULL to invert */
    int64_t ldb, sb;
    int nrhs;
    int64_t count;
    int k;                /* order of every member, or the largest with sizes */
    const int32_t *sizes; /* member orders (device), NULL when uniform */
    int mode;             /* GJ_* */
    double sym_tol;       /* AUTO and SPD: asymmetry allowed, relative to max |a_ij| */
    int32_t *res;         /* RES_INTS per member (device) */
    double *rcond;        /* per member (device): 1 / (||A||_inf ||A^-1||_inf) when written, else -1 */
};

#ifdef __CUDACC__
constexpr unsigned FULL_MASK = 0xffffffffu;

/* Whether member m's result is to be written. */
__device__ __forceinline__ bool member_written(const int32_t *res, int64_t m) {
    const int32_t s = res[m * RES_INTS + RES_STATUS];
    return s == MINV_SUCCESS || (s == MINV_ERR_SINGULAR && res[m * RES_INTS + RES_INFO] < 0);
}

/* Reductions over a block whose size is a multiple of 32; `scratch` holds 32 values. Every
 * thread gets the result. */
template <typename T, typename Op>
__device__ T block_reduce(T v, T *scratch, Op op) {
    for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(FULL_MASK, v, o));
    const int warp = threadIdx.x / 32, warps = blockDim.x / 32;
    __syncthreads(); /* scratch may still be read from a previous reduction */
    if (threadIdx.x % 32 == 0) scratch[warp] = v;
    __syncthreads();
    v = scratch[0];
    for (int w = 1; w < warps; w++) v = op(v, scratch[w]);
    return v;
}

struct op_max {
    template <typename T> __device__ T operator()(T a, T b) const { return a > b || a != a ? a : b; }
};
struct op_min {
    template <typename T> __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};
struct op_sum {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};

/* The pivot of a warp: the largest candidate, the lowest row on ties (as LAPACK's i_amax). */
__device__ __forceinline__ void warp_argmax(double &v, int &row) {
    for (int o = 16; o > 0; o /= 2) {
        const double ov = __shfl_xor_sync(FULL_MASK, v, o);
        const int orow = __shfl_xor_sync(FULL_MASK, row, o);
        if (ov > v || (ov == v && orow < row)) {
            v = ov;
            row = orow;
        }
    }
}

/* A reciprocal condition below eps of the compute type: singular to working precision. */
template <typename Tc> __device__ __forceinline__ bool below_eps(double rcond) {
    const double eps = sizeof(Tc) == 8 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    return !(rcond >= eps);
}
#endif

/* ---- the backend's ops (batched.cu): host batches and strided device batches ---- */
minv_status minv_gpu_invert_batched(minv_context *ctx, minv_method method, minv_dtype compute, const minv_batch *a,
                                    const minv_batch *x, minv_batch_results *res, minv_batch_report *report);
minv_status minv_gpu_solve_batched(minv_context *ctx, minv_method method, minv_dtype compute, const minv_batch *a,
                                   const minv_batch *b, const minv_batch *x, minv_batch_results *res,
                                   minv_batch_report *report);
minv_status minv_gpu_invert_batched_device(minv_context *ctx, minv_method method, minv_dtype compute,
                                           const minv_batch *a, const minv_batch *x, minv_batch_results *res,
                                           minv_batch_report *report);
minv_status minv_gpu_solve_batched_device(minv_context *ctx, minv_method method, minv_dtype compute,
                                          const minv_batch *a, const minv_batch *b, const minv_batch *x,
                                          minv_batch_results *res, minv_batch_report *report);

/* ---- launchers; each checks its launches ---- */
/* k <= 32; inverts into x, or solves into x when b is set. */
minv_status minv_gpu_gj_small(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc);
/* 32 < k <= 128; inverts into x of type tout (tio, or tc for a workspace). */
minv_status minv_gpu_gj_tile(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc, minv_dtype tout);
/* k > 128: the panel width that fits shared memory, 0 when none does. */
int minv_gpu_gj_blocked_panel(minv_context *ctx, int k, minv_dtype tc);
/* Bytes of device workspace per member of the blocked path with panel width nb (spd: of the
 * Cholesky path that SPD members take); a batch needs count times that plus
 * MINV_GPU_BLOCKED_SLACK for alignment. */
enum { MINV_GPU_BLOCKED_SLACK = 6 * 256 };
size_t minv_gpu_gj_blocked_bytes(int k, int nb, minv_dtype tc, int spd);
/* k > 128, with `work` of minv_gpu_gj_blocked_bytes per member; inverts into x of type tout:
 * Gauss-Jordan, or Cholesky when p.mode is GJ_SPD. */
minv_status minv_gpu_gj_blocked(minv_context *ctx, const batch_args &p, minv_dtype tio, minv_dtype tc,
                                minv_dtype tout, int nb, void *work);

/* C_b = alpha op(A_b) B_b + beta C_b for `count` strided members. */
cublasStatus_t minv_gemm_strided(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, double alpha,
                                 const double *a, int lda, long long sa, const double *b, int ldb, long long sb,
                                 double beta, double *c, int ldc, long long sc, int count);
cublasStatus_t minv_gemm_strided(cublasHandle_t h, cublasOperation_t ta, int m, int n, int k, double alpha,
                                 const float *a, int lda, long long sa, const float *b, int ldb, long long sb,
                                 double beta, float *c, int ldc, long long sc, int count);

/* Residuals: probes A v before an inversion (av: 2 k doubles and anorm per member), the
 * sampled ratio after it; solves: max over `cols` sampled columns. -1 for members not
 * written. */
minv_status minv_gpu_probes_before(minv_context *ctx, const batch_args &p, minv_dtype tio, double *av, double *anorm);
minv_status minv_gpu_probes_after(minv_context *ctx, const batch_args &p, minv_dtype tio, const double *av,
                                  const double *anorm, double *residual);
minv_status minv_gpu_solve_residual(minv_context *ctx, const batch_args &p, minv_dtype tio, int64_t cols,
                                    double *residual);

#endif
