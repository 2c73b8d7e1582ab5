/* Residuals and condition estimates on the device, and the GPU algorithms' entry points
 * (one file each). */
#ifndef MINV_GPU_ALGORITHMS_H
#define MINV_GPU_ALGORITHMS_H

#include "gpu_state.h"

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
/* The two halves of a solve's residual for a path that makes the vectors itself (small_solve.cu):
 * plan fills mode, n and count only; finish takes the host copy of the sampled columns' b, x
 * and A x (n each, in end's layout: the count b's, then x and A x for each) to the report. */
void minv_gpu_solve_residual_plan(const minv_context *ctx, const minv_mat *b, minv_gpu_residual *r);
void minv_gpu_solve_residual_finish(const minv_gpu_residual *r, double *host, const minv_analysis *an,
                                    minv_report *report);
/* rcond = 1 / (||A||_1 ||A^-1||_1) from an explicit inverse. */
minv_status minv_gpu_rcond_from_inverse(minv_context *ctx, const minv_mat *x, const minv_analysis *an,
                                        minv_report *report);
/* Hager-Higham estimate of ||A^-1||_1 from a factorisation: solve(vec, transpose) overwrites
 * the device vector vec (n entries of the matrix's type) with A^-1 vec or A^-T vec; first, if
 * not NULL, is the method's first vector A^-1 e/n, solved already (beside B). */
typedef minv_status (*minv_gpu_vec_solve)(minv_context *ctx, void *vec, int transpose, void *user);
minv_status minv_gpu_rcond_estimate(minv_context *ctx, minv_dtype t, int64_t n, double anorm,
                                    minv_gpu_vec_solve solve, void *user, const void *first, double *rcond);
/* A factor solve's right-hand sides as the CPU's solves take them (cpu/factor.c): begin puts
 * B where the solve runs, w (a workspace with Hager's vector e/n as its last column, or X,
 * the vector then apart in h), and takes B's column norms; after the solve of w (and h),
 * end leaves X in x and rcond bounded from the solutions and the factor f's diagonal (spd:
 * Cholesky's L, else getrf's LU): 1 / (||A||_1 max(max_j ||x_j||_1 / ||b_j||_1, 1 / min l_ii^2
 * or 1 / (n min |u_ii|))), an upper bound on rcond that costs one column. solve_rcond then
 * refines report->rcond by Hager's estimate where it is under MINV_RCOND_ESTIMATE_BELOW, as the
 * CPU does (at small orders the exact norm from f's inverse, minv_rcond_exact_applies), and
 * notes it in the report. */
typedef struct {
    minv_mat w, h;   /* h.data NULL when the vector is w's last column */
    double *norms;   /* device */
    int64_t m;       /* B's columns */
} minv_gpu_rhs;
/* Where Hager's vector is, solved: the estimate's first step. */
static inline const void *minv_gpu_rhs_vector(const minv_gpu_rhs *r) {
    return r->h.data ? r->h.data
                     : (const char *)r->w.data + (size_t)r->m * (size_t)r->w.ld * (size_t)r->w.dtype;
}
minv_status minv_gpu_rhs_begin(minv_context *ctx, const minv_mat *b, minv_mat *x, minv_gpu_rhs *r);
minv_status minv_gpu_rhs_end(minv_context *ctx, const minv_gpu_rhs *r, minv_mat *x, const minv_mat *f, int spd,
                             double anorm, double *rcond);
minv_status minv_gpu_solve_rcond(minv_context *ctx, const minv_mat *f, int spd, double anorm, minv_gpu_vec_solve solve,
                                 void *user, const void *first, minv_report *report);
/* rhs_end's bound from the host copy of its norms (2 (m + 2): B's m columns' and two more slots,
 * then the solutions' m, Hager's vector's and min |f_ii|), which it overwrites. */
double minv_gpu_rcond_bound(double *norms, int64_t m, int64_t n, int spd, double anorm);

/* ---- the solve stage of a small factor solve or inversion in one launch (small_solve.cu) ----
 * For orders up to 512 and at most n right-hand sides. begin reserves the results (and, for an
 * inversion's sampled residual, puts the probes and A v from a where they will be read back)
 * before the factorisation, which writes its info (an int) at s->out; minv_gpu_small_solve
 * then solves B (x may be b; b NULL: the identity, x = A^-1) through the factor f (perm: LU's
 * permutation on the device; NULL for Cholesky's L, whose transpose the caller has put in f's
 * upper triangle), Hager's first vector beside B into s->vec, and reads everything back at once
 * into *host. With `symmetric`, X's lower triangle is written to both. Where the info is not 0
 * nothing else is written. After the caller has checked the info, end fills the report: a
 * solve's rcond bound (refined by Hager's estimate with solve/user where it is low,
 * minv_gpu_solve_rcond) and residual; an inversion's rcond from ||X||_1 and residual. */
typedef struct {
    double *out;
    void *vec;  /* a solve's Hager vector, solved; NULL for an inversion */
    size_t bytes;
    int64_t m, count; /* B's columns (n for an inversion); the solve's sampled residual columns */
    int probes; /* an inversion's residual probes are on their way */
} minv_small_solve;
int minv_gpu_small_solve_applies(int64_t n, int64_t nrhs);
minv_status minv_gpu_small_solve_begin(minv_context *ctx, const minv_mat *b, minv_small_solve *s,
                                       minv_gpu_residual *res);
minv_status minv_gpu_small_invert_begin(minv_context *ctx, const minv_mat *a, minv_small_solve *s,
                                        minv_gpu_residual *res);
minv_status minv_gpu_small_solve(minv_context *ctx, const minv_small_solve *s, const minv_mat *f, const int64_t *perm,
                                 const minv_mat *a, const minv_mat *b, minv_mat *x, int symmetric, double **host);
minv_status minv_gpu_small_solve_end(minv_context *ctx, const minv_small_solve *s, const minv_gpu_residual *res,
                                     double *host, const minv_mat *f, int spd, minv_gpu_vec_solve solve, void *user,
                                     const minv_analysis *an, minv_report *report);
minv_status minv_gpu_small_invert_end(minv_context *ctx, const minv_small_solve *s, const minv_gpu_residual *res,
                                      const double *host, const minv_mat *x, const minv_analysis *an,
                                      minv_report *report);
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
/* LU with partial pivoting of a square device matrix of order n <= 512 in one thread-block
 * cluster (lu_cluster.cu), with cusolverDnXgetrf's outputs: x in place, ipiv (n device int64,
 * 1-based), *info_dev the first zero pivot's column or 0; and, unless perm is NULL, the
 * interchanges as minv_gpu_pivot_permutation's perm (n device int64). Enqueued on the compute
 * stream; *launched is 0 where it does not apply (larger orders, or no cluster of that size fits
 * the device), and the caller then takes getrf. */
minv_status minv_gpu_lu_cluster(minv_context *ctx, minv_mat *x, int64_t *ipiv, int64_t *perm, int *info_dev,
                                int *launched);
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
/* Where the call may take the Cholesky solve, or the small inversion (ctx->stage; one device;
 * not just after such a factor went untaken): a's factor enqueued now on the side stream after
 * the compute stream's work so far, beside the analysis there (where the budget has room for
 * it; above the small solves' orders under AUTO, behind a look at the diagonal and sampled
 * mirrored pairs that stops potrf at once for a matrix AUTO would not take for SPD); the
 * Cholesky of the same matrix takes it (ctx->gpu->ahead), the end of the call waits for it. */
minv_status minv_gpu_cholesky_ahead(minv_context *ctx, const minv_mat *a);
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
/* x = op(A)^-1 x for A triangular (uplo, diag as cuBLAS takes them) and x of at most
 * MINV_GPU_NARROW_COLS columns, in one launch (triangular_narrow.cu), enqueued on the compute
 * stream; the same result from run to run. Where the device budget has no room left for the
 * launch's sums, cuBLAS's TRSM (which needs none of minv's) solves instead, and
 * minv_gpu_narrow_note then says so in the call's report. */
enum { MINV_GPU_NARROW_COLS = 4 };
minv_status minv_gpu_narrow_solve(minv_context *ctx, const minv_mat *a, cublasFillMode_t uplo, cublasOperation_t op,
                                  cublasDiagType_t diag, minv_mat *x);
void minv_gpu_narrow_note(minv_context *ctx, minv_report *report);
/* The same solves split for callers that solve many times with one factorisation (mixed
 * precision): triangle `which` (0: L, unit for LU; 1: U for LU, L^T for Cholesky, whose blocks
 * are triangle 0's) gets its diagonal blocks of order nb inverted into e
 * (minv_gpu_triangle_blocks_bytes), then x = T^-1 x as often as wanted, enqueued on the
 * compute stream without synchronising; leaf, nb x x->cols elements, holds each diagonal
 * block's product on its way back into x. */
size_t minv_gpu_triangle_blocks_bytes(minv_dtype t, int64_t n, int64_t nb);
minv_status minv_gpu_triangle_blocks(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, void *e);
minv_status minv_gpu_triangle_solve(minv_context *ctx, const minv_mat *f, int lu, int which, int64_t nb, const void *e,
                                    minv_mat *x, void *leaf);
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
minv_status minv_gpu_tridiagonal_invert_host(minv_context *ctx, const struct minv_tri_plan *plan, minv_mat *x,
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
