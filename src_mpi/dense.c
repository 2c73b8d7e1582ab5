/* One matrix over many ranks: the entry points' checks, the first non-finite entry, the
 * analysis behind AUTO (symmetry, diagonal), the backend (cuSOLVERMp on GPU contexts where the
 * plugin is there, ScaLAPACK otherwise), the fallback of AUTO from Cholesky to LU, the
 * condition and residual, and the report, the same on every rank. The residuals are minv's
 * (residual.c's ratios on the distributed products). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mpi_internal.h"
#include "scalapack.h"

/* ---- small distributed helpers ---- */

static double max_over(double v, MPI_Comm comm) {
    double out;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
    return out;
}

static double get(minv_dtype t, const void *p, size_t e) {
    return t == MINV_R64 ? ((const double *)p)[e] : (double)((const float *)p)[e];
}

/* A norm of a layout's matrix (columns ja.. of ncols), known on every rank. */
static double norm_of(minv_dtype t, char which, const minv_mpi_layout *l, const void *p, int ja, int ncols) {
    const double v = minv_mpi_in_grid(l) ? sl_lange(t, which, (int)l->m, ncols, p, ja, l->desc) : -1;
    return max_over(v, minv_mpi_layout_comm(l));
}

/* ---- checks ---- */

static minv_status check_layout(minv_context *ctx, const char *fn, int pos, const char *name,
                                const minv_mpi_layout *l) {
    if (!l || !l->internal)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is %s", fn, pos, name,
                         l ? "not a layout (made by minv_mpi_layout_create, _like or _from_desc)" : "NULL");
    return MINV_SUCCESS;
}

static minv_status check_piece(minv_context *ctx, const char *fn, int pos, const char *name,
                               const minv_mpi_layout *l, const void *p) {
    if (!p && l->local_rows > 0 && l->local_cols > 0)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: argument %d (%s) is NULL but this rank's piece is %lld x %lld",
                         fn, pos, name, (long long)l->local_rows, (long long)l->local_cols);
    return MINV_SUCCESS;
}

static minv_status check_method(minv_context *ctx, const char *fn, minv_method m) {
    if (m != MINV_METHOD_AUTO && m != MINV_METHOD_CHOLESKY && m != MINV_METHOD_LU)
        return minv_fail(ctx, (int)m < 0 || (int)m >= MINV_METHOD_COUNT ? MINV_ERR_INVALID_ARG : MINV_ERR_NOT_IMPLEMENTED,
                         "%s: argument 2 (method) = %s: one matrix over many ranks is inverted or solved by auto, cholesky or lu",
                         fn, (int)m < 0 || (int)m >= MINV_METHOD_COUNT ? "not a minv_method" : minv_method_name(m));
    return MINV_SUCCESS;
}

/* ---- one pass over a piece: the first NaN or Inf, and the 1- and infinity-norms ---- */

typedef struct {
    double norm_1, norm_inf;
} norms;

/* The sum of |a_ij| down one local column, each |a_ij| also added to rowsum[li] where given:
 * loops the compiler vectorises. A NaN or Inf in the column makes the sum NaN or Inf. */
#define COLUMN_SUM(name, T)                                                                        \
    static double name(const T *a, int64_t rows, double *rowsum) {                                 \
        double s = 0;                                                                              \
        if (rowsum) {                                                                              \
            _Pragma("omp simd reduction(+ : s)") for (int64_t i = 0; i < rows; i++) {              \
                const double v = fabs((double)a[i]);                                               \
                s += v;                                                                            \
                rowsum[i] += v;                                                                    \
            }                                                                                      \
        } else {                                                                                   \
            _Pragma("omp simd reduction(+ : s)") for (int64_t i = 0; i < rows; i++) s += fabs((double)a[i]); \
        }                                                                                          \
        return s;                                                                                  \
    }
COLUMN_SUM(column_sum_d, double)
COLUMN_SUM(column_sum_s, float)

/* The threads of a pass over this rank's piece. */
static int piece_threads(minv_context *ctx, const minv_mpi_layout *l) {
    return minv_threads_for(ctx->cpu_threads, (double)l->local_rows * (double)l->local_cols);
}

/* The column sums of |a_ij| of this rank's piece into colsum (global column index); with
 * rowsum, its row sums by local row, from `team` threads' parts (team x local_rows, zeroed);
 * with first, the first non-finite entry in column-major order of the global matrix
 * (INT64_MAX: none) and its value, searched only in the columns whose sum is not finite. */
static void piece_sums(minv_dtype t, const minv_mpi_layout *l, const void *p, int team, double *parts, double *colsum,
                       double *rowsum, int64_t *first, double *value) {
    const int64_t rows = l->local_rows, cols = l->local_cols;
#pragma omp parallel num_threads(team) if (team > 1)
    {
        int me = 0;
#ifdef _OPENMP
        me = omp_get_thread_num();
#endif
        double *mine = rowsum ? parts + (size_t)me * (size_t)rows : NULL, bad_value = 0;
        int64_t bad = INT64_MAX;
#pragma omp for schedule(static)
        for (int64_t lj = 0; lj < cols; lj++) {
            const size_t at = (size_t)(lj * l->lld);
            const double sum = t == MINV_R64 ? column_sum_d((const double *)p + at, rows, mine)
                                             : column_sum_s((const float *)p + at, rows, mine);
            const int64_t j = minv_mpi_layout_col(l, lj);
            if (colsum)
                colsum[j] = sum;
            if (first && !isfinite(sum))
                for (int64_t li = 0; li < rows; li++) {
                    const double v = get(t, p, at + (size_t)li);
                    if (!isfinite(v)) {
                        const int64_t e = j * l->m + minv_mpi_layout_row(l, li);
                        if (e < bad) {
                            bad = e;
                            bad_value = v;
                        }
                        break;
                    }
                }
        }
        if (first && bad != INT64_MAX)
#pragma omp critical(minv_mpi_first_bad)
        {
            if (bad < *first) {
                *first = bad;
                *value = bad_value;
            }
        }
    }
    if (rowsum)
        for (int r = 0; r < team; r++)
            for (int64_t li = 0; li < rows; li++) rowsum[li] += parts[(size_t)r * (size_t)rows + (size_t)li];
}

/* With a name, the first non-finite entry in column-major order of the global matrix is
 * MINV_ERR_NOT_FINITE, naming it (without, such entries make the norms NaN or Inf, as in
 * p?lange); where out is given, the norms from the column and row sums of |a_ij| summed over
 * the ranks: one read of the piece where ScaLAPACK's p?lange took one per norm, its
 * infinity-norm striding across the rows. */
static minv_status scan_piece(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *p,
                              const char *name, norms *out) {
    int64_t first = INT64_MAX;
    double value = 0;
    const int64_t m = l->m, n = l->n, rows = l->local_rows;
    const int team = piece_threads(ctx, l);
    MPI_Comm comm = minv_mpi_layout_comm(l);
    /* the global column and row sums, then the local row sums and each thread's */
    double *sums = out ? calloc((size_t)(m + n + rows * (team + 1)), sizeof(double)) : NULL;
    double *colsum = sums, *rowsum = sums ? sums + n : NULL, *local = sums ? rowsum + m : NULL,
           *parts = sums ? local + rows : NULL;
    if (out) {
        minv_status status = minv_mpi_agree(ctx, comm, sums ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %lld sums", (long long)(m + n)));
        if (status != MINV_SUCCESS)
            return status;
    }
    piece_sums(t, l, p, team, parts, colsum, local, name ? &first : NULL, &value);
    const int64_t global = minv_mpi_min_i64(first, comm);
    if (global != INT64_MAX) {
        free(sums);
        int rank, size;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        const int owner = (int)minv_mpi_min_i64(first == global ? rank : size, comm);
        MPI_Bcast(&value, 1, MPI_DOUBLE, owner, comm);
        const long long i = global % l->m + 1, j = global / l->m + 1;
        return minv_fail(ctx, MINV_ERR_NOT_FINITE, "%s(%lld,%lld) = %g (row %lld, column %lld, 1-based) is the first non-finite entry",
                         name, i, j, value, i, j);
    }
    if (out) {
        for (int64_t li = 0; li < rows; li++) rowsum[minv_mpi_layout_row(l, li)] = local[li];
        MPI_Allreduce(MPI_IN_PLACE, colsum, (int)(m + n), MPI_DOUBLE, MPI_SUM, comm);
        out->norm_1 = out->norm_inf = 0;
        for (int64_t j = 0; j < n; j++)
            if (colsum[j] > out->norm_1 || isnan(colsum[j])) out->norm_1 = colsum[j];
        for (int64_t i = 0; i < m; i++)
            if (rowsum[i] > out->norm_inf || isnan(rowsum[i])) out->norm_inf = rowsum[i];
        free(sums);
    }
    return MINV_SUCCESS;
}

/* Every column's 1-norm of a layout's matrix, on every rank: out[0 .. l->n). */
static void column_norms_1(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *p, double *out) {
    memset(out, 0, (size_t)l->n * sizeof(double));
    piece_sums(t, l, p, piece_threads(ctx, l), NULL, out, NULL, NULL, NULL);
    MPI_Allreduce(MPI_IN_PLACE, out, (int)l->n, MPI_DOUBLE, MPI_SUM, minv_mpi_layout_comm(l));
}

/* ---- what AUTO and CHOLESKY need to know ---- */

typedef struct {
    double asymmetry; /* max |a_ij - a_ji| / max |a_ij| */
    double diag_min;
    int symmetric;
} analysis;

/* One block against its transpose partner, by 32 x 32 tiles (the partner read across its
 * columns): max |a_ij - a_ji| and max |a_ij| into the thread's sums, and the least diagonal
 * entry of a diagonal block; a block below the diagonal (no partner) gives max |a_ij| alone.
 * A is finite here, scanned before. */
typedef struct {
    double diff, big, diag;
    char pad[40]; /* a cache line a thread */
} asymmetry;

#define BLOCK_ASYMMETRY(name, T)                                                                   \
    static void name(asymmetry *s, int64_t bi, int64_t bj, const T *a, int64_t lda, const T *p, int64_t ldp, \
                     int64_t rows, int64_t cols) {                                                 \
        double d = s->diff, b = s->big;                                                            \
        if (!p) {                                                                                  \
            for (int64_t c = 0; c < cols; c++) {                                                   \
                _Pragma("omp simd reduction(max : b)") for (int64_t r = 0; r < rows; r++)          \
                    b = fabs((double)a[c * lda + r]) > b ? fabs((double)a[c * lda + r]) : b;       \
            }                                                                                      \
            s->big = b;                                                                            \
            return;                                                                                \
        }                                                                                          \
        for (int64_t c0 = 0; c0 < cols; c0 += 32)                                                  \
            for (int64_t r0 = 0; r0 < rows; r0 += 32)                                              \
                for (int64_t c = c0; c < c0 + 32 && c < cols; c++)                                 \
                    for (int64_t r = r0; r < r0 + 32 && r < rows; r++) {                           \
                        const double v = (double)a[c * lda + r], e = fabs(v - (double)p[r * ldp + c]); \
                        d = e > d ? e : d;                                                         \
                        b = fabs(v) > b ? fabs(v) : b;                                             \
                    }                                                                              \
        if (bi == bj)                                                                              \
            for (int64_t k = 0; k < rows; k++) s->diag = (double)a[k * lda + k] < s->diag ? (double)a[k * lda + k] : s->diag; \
        s->diff = d;                                                                               \
        s->big = b;                                                                                \
    }
BLOCK_ASYMMETRY(block_asymmetry_d, double)
BLOCK_ASYMMETRY(block_asymmetry_s, float)

typedef struct {
    minv_dtype t;
    asymmetry *sums; /* one a thread */
} asymmetry_job;

static void visit_asymmetry(void *arg, int thread, int64_t bi, int64_t bj, void *mine, int64_t ldm, const void *partner,
                            int64_t ldp, int64_t rows, int64_t cols) {
    asymmetry_job *job = arg;
    if (job->t == MINV_R64)
        block_asymmetry_d(&job->sums[thread], bi, bj, mine, ldm, partner, ldp, rows, cols);
    else
        block_asymmetry_s(&job->sums[thread], bi, bj, mine, ldm, partner, ldp, rows, cols);
}

static minv_status analyze(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *a, analysis *an) {
    const int threads = ctx->cpu_threads > 0 ? ctx->cpu_threads : 1;
    asymmetry_job job = {t, malloc((size_t)threads * sizeof(asymmetry))};
    MPI_Comm comm = minv_mpi_layout_comm(l);
    minv_status status = minv_mpi_agree(ctx, comm, job.sums ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the analysis' sums"));
    if (status != MINV_SUCCESS)
        return status;
    for (int k = 0; k < threads; k++) job.sums[k] = (asymmetry){0, 0, INFINITY, {0}};
    status = minv_mpi_transposed_blocks(ctx, t, l, (void *)a, visit_asymmetry, &job);
    double diff = 0, big = 0, diag = INFINITY;
    for (int k = 0; k < threads; k++) {
        diff = job.sums[k].diff > diff ? job.sums[k].diff : diff;
        big = job.sums[k].big > big ? job.sums[k].big : big;
        diag = job.sums[k].diag < diag ? job.sums[k].diag : diag;
    }
    free(job.sums);
    if (status != MINV_SUCCESS)
        return status;
    diff = max_over(diff, comm);
    big = max_over(big, comm);
    an->diag_min = -max_over(-diag, comm);
    an->asymmetry = big > 0 ? diff / big : 0;
    an->symmetric = an->asymmetry <= minv_symmetry_tol(ctx, t);
    return MINV_SUCCESS;
}

/* ---- residuals ---- */

/* The probes of minv's sampled inverse residual: V (n x 2, global) and A V in layout lv. */
typedef struct {
    minv_mpi_layout lv;
    double *v;     /* n x MINV_PROBES, every rank */
    void *vp, *av; /* pieces of V and A V */
} probes;

static void probes_free(probes *p) {
    minv_mpi_layout_free(&p->lv);
    free(p->v);
    free(p->vp);
    free(p->av);
}

static minv_status probes_make(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *a, probes *p) {
    const int64_t n = l->n;
    minv_status status = minv_mpi_layout_like(ctx, l, n, MINV_PROBES, &p->lv);
    if (status != MINV_SUCCESS)
        return status;
    p->v = malloc((size_t)(n * MINV_PROBES) * sizeof(double));
    p->vp = minv_mpi_alloc_piece(&p->lv, t);
    p->av = minv_mpi_alloc_piece(&p->lv, t);
    status = minv_mpi_agree(ctx, minv_mpi_layout_comm(l),
                            p->v && p->vp && p->av ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the residual's probes"));
    if (status != MINV_SUCCESS)
        return status;
    minv_probe_vectors(p->v, n, MINV_PROBES);
    for (int64_t lj = 0; lj < p->lv.local_cols; lj++)
        for (int64_t li = 0; li < p->lv.local_rows; li++) {
            const double v = p->v[minv_mpi_layout_col(&p->lv, lj) * n + minv_mpi_layout_row(&p->lv, li)];
            if (t == MINV_R64) ((double *)p->vp)[lj * p->lv.lld + li] = v;
            else ((float *)p->vp)[lj * p->lv.lld + li] = (float)v;
        }
    if (minv_mpi_in_grid(l))
        sl_gemm(t, 'N', 'N', (int)n, MINV_PROBES, (int)n, 1, a, l->desc, p->vp, 1, p->lv.desc, 0, p->av, 1, p->lv.desc);
    return MINV_SUCCESS;
}

/* max over probes of ||X (A v) - v||_inf / (||X||_inf ||A||_inf ||v||_inf), minv's ratio. */
static minv_status residual_sampled(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *x,
                                    double xnorm_inf, probes *p, double anorm_inf, double *residual) {
    const int64_t n = l->n;
    MPI_Comm comm = minv_mpi_layout_comm(l);
    double *w = calloc((size_t)(n * MINV_PROBES), sizeof(double));
    minv_status status = minv_mpi_agree(ctx, comm, w ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the residual"));
    if (status != MINV_SUCCESS)
        return status;
    if (minv_mpi_in_grid(l))
        sl_gemm(t, 'N', 'N', (int)n, MINV_PROBES, (int)n, 1, x, l->desc, p->av, 1, p->lv.desc, 0, p->vp, 1, p->lv.desc);
    for (int64_t lj = 0; lj < p->lv.local_cols; lj++)
        for (int64_t li = 0; li < p->lv.local_rows; li++)
            w[minv_mpi_layout_col(&p->lv, lj) * n + minv_mpi_layout_row(&p->lv, li)] = get(t, p->vp, (size_t)(lj * p->lv.lld + li));
    MPI_Allreduce(MPI_IN_PLACE, w, (int)(n * MINV_PROBES), MPI_DOUBLE, MPI_SUM, comm);
    *residual = minv_probe_ratio(n, MINV_PROBES, p->v, w, xnorm_inf, anorm_inf);
    free(w);
    return MINV_SUCCESS;
}

/* ||I - A X||_1 / (n ||A||_1 ||X||_1) */
static minv_status residual_full(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, const void *a,
                                 const void *x, double anorm_1, double *residual) {
    void *r = minv_mpi_alloc_piece(l, t);
    minv_status status = minv_mpi_agree(ctx, minv_mpi_layout_comm(l),
                                        r ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the residual"));
    if (status != MINV_SUCCESS)
        return status;
    const int n = (int)l->n;
    if (minv_mpi_in_grid(l)) {
        sl_laset(t, 'A', n, n, 0, 1, r, l->desc);
        sl_gemm(t, 'N', 'N', n, n, n, -1, a, l->desc, x, 1, l->desc, 1, r, 1, l->desc);
    }
    *residual = norm_of(t, '1', l, r, 1, n) / ((double)n * anorm_1 * norm_of(t, '1', l, x, 1, n));
    free(r);
    return MINV_SUCCESS;
}

/* The infinity norm of each column of a layout's matrix, on every rank. */
static void column_inf_norms(minv_dtype t, const minv_mpi_layout *l, const void *p, double *out) {
    for (int64_t j = 0; j < l->n; j++) out[j] = 0;
    for (int64_t lj = 0; lj < l->local_cols; lj++) {
        double m = 0;
        for (int64_t li = 0; li < l->local_rows; li++) m = fmax(m, fabs(get(t, p, (size_t)(lj * l->lld + li))));
        out[minv_mpi_layout_col(l, lj)] = m;
    }
    MPI_Allreduce(MPI_IN_PLACE, out, (int)l->n, MPI_DOUBLE, MPI_MAX, minv_mpi_layout_comm(l));
}

/* max over the checked columns j (all, or four spread over them) of ||b_j - A x_j||_inf /
 * (||A||_inf ||x_j||_inf + ||b_j||_inf), minv's ratio. */
static minv_status residual_solve(minv_context *ctx, minv_dtype t, int mode, const minv_mpi_layout *la, const void *a,
                                  const minv_mpi_layout *lb, const void *b, const void *x, double anorm_inf,
                                  double *residual) {
    const int64_t nrhs = lb->n, count = minv_residual_columns(mode, nrhs), n = la->n;
    minv_mpi_layout lr = {0};
    MPI_Comm comm = minv_mpi_layout_comm(la);
    minv_status status = minv_mpi_layout_like(ctx, la, n, count, &lr);
    if (status != MINV_SUCCESS)
        return status;
    /* the sampled columns of B in r and of X in xs, then r -= A xs: one product, one read of A */
    void *r = minv_mpi_alloc_piece(&lr, t), *xs = minv_mpi_alloc_piece(&lr, t);
    double *norms = malloc((size_t)(3 * nrhs) * sizeof(double));
    if ((status = minv_mpi_agree(ctx, comm, r && xs && norms ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the residual"))) != MINV_SUCCESS)
        goto cleanup;
    if (minv_mpi_in_grid(la)) {
        for (int64_t s = 0; s < count; s++) {
            const int j = (int)minv_residual_column(s, count, nrhs) + 1, c = (int)s + 1;
            sl_copy(t, (int)n, 1, b, j, lb->desc, r, c, lr.desc);
            sl_copy(t, (int)n, 1, x, j, lb->desc, xs, c, lr.desc);
        }
        sl_gemm(t, 'N', 'N', (int)n, (int)count, (int)n, -1, a, la->desc, xs, 1, lr.desc, 1, r, 1, lr.desc);
    }
    column_inf_norms(t, &lr, r, norms);
    column_inf_norms(t, lb, x, norms + nrhs);
    column_inf_norms(t, lb, b, norms + 2 * nrhs);
    double worst = 0;
    for (int64_t s = 0; s < count; s++) {
        const int64_t j = minv_residual_column(s, count, nrhs);
        const double ratio = minv_solve_column_ratio(1, &norms[s], &norms[nrhs + j], &norms[2 * nrhs + j], anorm_inf);
        if (ratio > worst || isnan(ratio))
            worst = ratio;
    }
    *residual = worst;
cleanup:
    free(r);
    free(xs);
    free(norms);
    minv_mpi_layout_free(&lr);
    return status;
}

/* ---- the call ---- */

typedef struct {
    minv_fpguard guard;
    double t0;
} call;

/* The backend of this context: cuSOLVERMp where every rank's context is on a GPU and the
 * plugin serves the layout, ScaLAPACK otherwise (with a note where a GPU was there). */
static const minv_mpi_dense_ops *backend_of(minv_context *ctx, const minv_mpi_layout *l, minv_report *r) {
    char why[512] = "";
    MPI_Comm comm = minv_mpi_layout_comm(l);
    const int gpu = minv_context_backend(ctx) == MINV_BACKEND_GPU;
    if (minv_mpi_min_i64(gpu, comm) == 1) {
        const minv_mpi_dense_ops *ops = minv_mpi_gpu_ops(ctx, l, r, why, sizeof why);
        if (ops) {
            r->backend = MINV_BACKEND_GPU;
            return ops;
        }
    } else if (minv_mpi_max_i64(gpu, comm) == 1) {
        snprintf(why, sizeof why, "not every rank's context is on a GPU");
    }
    if (why[0]) {
        minv_report_note(r, "GPU not used: %s", why);
        r->fallbacks |= MINV_FALLBACK_CPU; /* some rank's context is on a GPU */
    }
    return &minv_mpi_scalapack_ops;
}

static void note_grid(minv_report *r, const minv_mpi_layout *l, MPI_Comm comm) {
    int size;
    MPI_Comm_size(comm, &size);
    minv_report_note(r, "%d x %d grid of %d rank%s, blocks of %lld x %lld", (int)l->nprow, (int)l->npcol, size,
                     size == 1 ? "" : "s", (long long)l->mb, (long long)l->nb);
}

/* The factorisation's column, agreed: the smallest that any rank reports. */
static minv_status factor_outcome(minv_context *ctx, MPI_Comm comm, int spd, int info, minv_report *r) {
    const int64_t col = minv_mpi_min_i64(info > 0 ? info : INT64_MAX, comm);
    if (col == INT64_MAX)
        return MINV_SUCCESS;
    r->info = col - 1;
    if (spd)
        return minv_fail(ctx, MINV_ERR_NOT_SPD, "the leading minor of order %lld is not positive definite (column %lld, 1-based)",
                         (long long)col, (long long)col);
    return minv_fail(ctx, MINV_ERR_SINGULAR, "U(%lld,%lld) is exactly zero: no pivot in column %lld (1-based)",
                     (long long)col, (long long)col, (long long)col);
}

/* Cholesky or LU for A: AUTO takes Cholesky where A is symmetric with a positive diagonal;
 * CHOLESKY on a non-symmetric A is refused, as minv.h refuses it. */
static minv_status choose(minv_context *ctx, minv_method method, minv_dtype t, const minv_mpi_layout *l, const void *a,
                          int *spd, minv_report *r) {
    analysis an = {0};
    *spd = 0;
    if (method == MINV_METHOD_LU)
        return MINV_SUCCESS;
    minv_status status = analyze(ctx, t, l, a, &an);
    if (status != MINV_SUCCESS)
        return status;
    r->asymmetry = an.asymmetry;
    if (method == MINV_METHOD_CHOLESKY && !an.symmetric)
        return minv_fail(ctx, MINV_ERR_NOT_SPD,
                         "Cholesky needs a symmetric matrix; relative asymmetry max|a_ij - a_ji| / max|a_ij| = %.3g exceeds the symmetry tolerance %.3g",
                         an.asymmetry, minv_symmetry_tol(ctx, t));
    *spd = method == MINV_METHOD_CHOLESKY || (an.symmetric && an.diag_min > 0);
    if (method == MINV_METHOD_AUTO)
        minv_report_note(r, "%s", *spd ? "auto: symmetric with a positive diagonal, so Cholesky"
                                        : an.symmetric ? "auto: symmetric but a diagonal entry is not positive, so LU"
                                                       : "auto: not symmetric, so LU");
    return MINV_SUCCESS;
}

void minv_mpi_copy_piece(minv_dtype t, const minv_mpi_layout *l, const void *from, void *to) {
    if (from != to && l->local_rows > 0)
        for (int64_t j = 0; j < l->local_cols; j++)
            memcpy((char *)to + (size_t)(j * l->lld) * (size_t)t, (const char *)from + (size_t)(j * l->lld) * (size_t)t,
                   (size_t)l->local_rows * (size_t)t);
}

/* The report's time and stages, as serial minv's: compute is the call less the GPU backend's
 * copies of the pieces (the upload and download stages, the same on every rank); the device is
 * rank 0's, as the report is the same everywhere. */
static void finish(minv_context *ctx, minv_report *r, MPI_Comm comm, double t0) {
    const double seconds = MPI_Wtime() - t0;
    r->seconds = max_over(seconds, comm);
    r->gflops = r->seconds > 0 ? r->flops / r->seconds / 1e9 : 0;
    r->stages.compute_seconds = r->seconds - r->stages.upload_seconds - r->stages.download_seconds;
    int device = r->backend == MINV_BACKEND_GPU && ctx->device_count > 0 ? ctx->devices[0] : -1;
    MPI_Bcast(&device, 1, MPI_INT, 0, comm);
    r->device = device;
    if (ctx->backend_note[0]) /* an AUTO context that found no GPU */
        r->fallbacks |= MINV_FALLBACK_NO_GPU;
}

/* AUTO where Cholesky finds A not positive definite: the note, and LU next (1). */
static int not_spd_so_lu(minv_context *ctx, minv_method method, minv_status status, minv_report *r) {
    if (!(status == MINV_ERR_NOT_SPD && method == MINV_METHOD_AUTO))
        return 0;
    minv_report_note(r, "not positive definite at column %lld (1-based), so LU", (long long)r->info + 1);
    r->fallbacks |= MINV_FALLBACK_LU;
    r->info = -1;
    minv_clear_error(ctx);
    return 1;
}

/* After a Cholesky whose residual shows that A's asymmetry mattered (A symmetric only within a
 * raised tolerance): AUTO goes on by LU (1; A and B are still at hand, kept where the call is
 * in place), CHOLESKY fails (0, *status NOT_SPD). 0 and *status untouched otherwise. Every
 * rank holds the same residual, so every rank takes the same way. */
static int retry_by_lu(minv_context *ctx, minv_dtype t, int64_t n, minv_method method, minv_report *r,
                       minv_status *status) {
    if (!minv_cholesky_residual_too_large(t, n, r))
        return 0;
    if (method != MINV_METHOD_AUTO) {
        *status = minv_fail_cholesky_residual(ctx, t, n, r->asymmetry, r);
        return 0;
    }
    minv_report_note(r, "Cholesky's residual %.3g is above 100 n eps: the asymmetry mattered, so LU instead", r->residual);
    r->fallbacks |= MINV_FALLBACK_LU;
    r->residual = -1;
    r->residual_kind = 0;
    return 1;
}

/* The context to this thread for a call on layout l, agreed over its ranks (none where l is
 * not a layout); the report says where the call is refused. */
static minv_status enter(minv_context *ctx, const minv_mpi_layout *l, minv_report *r) {
    const minv_status status = minv_mpi_enter(ctx, l && l->internal ? minv_mpi_layout_comm(l) : MPI_COMM_NULL);
    if (status != MINV_SUCCESS)
        minv_report_note(r, "refused: %s", minv_status_string(status));
    return status;
}

static minv_status invert_expert(minv_context *ctx, const char *fn, minv_method method, minv_dtype t,
                                 const minv_mpi_layout *l, const void *a, void *x, minv_report *report) {
    minv_report local, *r = report ? report : &local;
    minv_report_init(r, method, l && l->internal ? l->n : 0, 0);
    if (!ctx || enter(ctx, l, r) != MINV_SUCCESS)
        return ctx ? MINV_ERR_CONTEXT_BUSY : MINV_ERR_INVALID_ARG;
    if (check_layout(ctx, fn, 3, "layout", l) != MINV_SUCCESS) {
        minv_mpi_leave(ctx);
        return MINV_ERR_INVALID_ARG; /* no communicator to agree over */
    }
    MPI_Comm comm = minv_mpi_layout_comm(l);
    const double t0 = MPI_Wtime();
    minv_fpguard guard;
    minv_fpguard_begin(&guard);
    minv_clear_error(ctx);
    const int n = (int)l->n;
    probes pr = {0};
    void *keep = NULL;
    int spd = 0, info = 0;

    minv_status status = check_method(ctx, fn, method);
    if (status == MINV_SUCCESS && (l->m != l->n || l->mb != l->nb))
        status = minv_fail(ctx, MINV_ERR_SHAPE, "%s: the layout holds a %lld x %lld matrix in %lld x %lld blocks; inversion needs a square matrix in square blocks",
                           fn, (long long)l->m, (long long)l->n, (long long)l->mb, (long long)l->nb);
    if (status == MINV_SUCCESS)
        status = check_piece(ctx, fn, 4, "a", l, a);
    if (status == MINV_SUCCESS)
        status = check_piece(ctx, fn, 5, "ainv", l, x);
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS || n == 0) /* n = 0: LAPACK's quick return */
        goto cleanup;
    /* in place as the ranks with a piece say: an empty piece's NULLs (a == x) say nothing, and
     * every rank must take the same collective steps below */
    const int in_place = minv_mpi_max_i64(a == x && a != NULL, comm) > 0;
    norms an, xn;
    MINV_TRY(scan_piece(ctx, t, l, a, "A", &an));
    const double anorm_1 = an.norm_1, anorm_inf = an.norm_inf;
    if (anorm_1 == 0) {
        r->info = 0;
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "A is zero: every entry is 0");
        goto cleanup;
    }
    MINV_TRY(choose(ctx, method, t, l, a, &spd, r));
    /* sampled at least where Cholesky reads a triangle of a matrix symmetric only within a
     * raised tolerance: the residual shows whether that mattered */
    const int residual_mode = minv_residual_mode(ctx, t, r->asymmetry, spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU);
    if (residual_mode == 1)
        MINV_TRY(probes_make(ctx, t, l, a, &pr));
    /* in place, A is kept where it may be needed again: AUTO's fallbacks, the full residual */
    if (in_place && ((method == MINV_METHOD_AUTO && spd) || residual_mode == 2)) {
        keep = minv_mpi_alloc_piece(l, t);
        MINV_TRY(minv_mpi_agree(ctx, comm, keep ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot keep a copy of A")));
        minv_mpi_copy_piece(t, l, a, keep);
    }
    const void *orig = in_place ? keep : a;
    const minv_mpi_dense_ops *ops = backend_of(ctx, l, r);
    for (;;) {
        MINV_TRY(minv_mpi_agree(ctx, comm, ops->invert(ctx, l, t, spd, orig ? orig : a, x, &info, r)));
        status = factor_outcome(ctx, comm, spd, info, r);
        if (not_spd_so_lu(ctx, method, status, r)) {
            spd = 0;
            continue;
        }
        if (status != MINV_SUCCESS)
            goto cleanup;
        r->method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
        MINV_TRY(scan_piece(ctx, t, l, x, NULL, &xn));
        if (residual_mode == 1) {
            MINV_TRY(residual_sampled(ctx, t, l, x, xn.norm_inf, &pr, anorm_inf, &r->residual));
            r->residual_kind = 1;
        } else if (residual_mode == 2) {
            MINV_TRY(residual_full(ctx, t, l, orig, x, anorm_1, &r->residual));
            r->residual_kind = 2;
        }
        if (!retry_by_lu(ctx, t, n, method, r, &status))
            break;
        spd = 0;
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    /* exact, from the inverse: better than ScaLAPACK's p?gecon, which can miss by 10x */
    r->rcond = 1 / (anorm_1 * xn.norm_1);
    r->flops = minv_batch_flops(spd, n, 0);
    note_grid(r, l, comm);
    status = minv_check_rcond(ctx, t, r);
cleanup:
    probes_free(&pr);
    free(keep);
    finish(ctx, r, comm, t0);
    minv_fpguard_end(&guard);
    minv_mpi_leave(ctx);
    return status;
}

static minv_status solve_expert(minv_context *ctx, const char *fn, minv_method method, minv_dtype t,
                                const minv_mpi_layout *la, const void *a, const minv_mpi_layout *lb, const void *b,
                                void *x, minv_report *report) {
    minv_report local, *r = report ? report : &local;
    minv_report_init(r, method, la && la->internal ? la->n : 0, lb && lb->internal ? lb->n : 0);
    if (!ctx || enter(ctx, la, r) != MINV_SUCCESS)
        return ctx ? MINV_ERR_CONTEXT_BUSY : MINV_ERR_INVALID_ARG;
    if (check_layout(ctx, fn, 3, "la", la) != MINV_SUCCESS || check_layout(ctx, fn, 5, "lb", lb) != MINV_SUCCESS) {
        minv_mpi_leave(ctx);
        return MINV_ERR_INVALID_ARG;
    }
    MPI_Comm comm = minv_mpi_layout_comm(la);
    const double t0 = MPI_Wtime();
    minv_fpguard guard;
    minv_fpguard_begin(&guard);
    minv_clear_error(ctx);
    const int n = (int)la->n, nrhs = (int)lb->n;
    double precision = MINV_PRECISION_DOUBLE;
    minv_get_option(ctx, MINV_OPT_PRECISION, &precision);
    if (precision == MINV_PRECISION_MIXED) /* ScaLAPACK and cuSOLVERMp factor in the data's precision */
        minv_report_note(r, "MINV_OPT_PRECISION mixed is the serial solves'; over the ranks A is factored in the data's precision");
    void *work = NULL, *bkeep = NULL, *xw = NULL;
    double *colnorms = NULL;
    minv_mpi_layout lw = {0}; /* [B | h]: Hager's start vector h = (1/n, ...) solved with B, as serial minv does */
    int spd = 0, info = 0;

    minv_status status = check_method(ctx, fn, method);
    if (status == MINV_SUCCESS && (la->m != la->n || la->mb != la->nb))
        status = minv_fail(ctx, MINV_ERR_SHAPE, "%s: la holds a %lld x %lld matrix in %lld x %lld blocks; A must be square in square blocks",
                           fn, (long long)la->m, (long long)la->n, (long long)la->mb, (long long)la->nb);
    if (status == MINV_SUCCESS && (lb->m != la->n || lb->mb != la->nb || lb->desc[SL_RSRC] != la->desc[SL_RSRC] ||
                                   (minv_mpi_in_grid(la) && lb->desc[SL_CTXT] != la->desc[SL_CTXT])))
        status = minv_fail(ctx, MINV_ERR_SHAPE, "%s: lb (%lld x %lld in blocks of %lld rows) must have A's %lld rows in A's blocks of %lld on A's grid (minv_mpi_layout_like)",
                           fn, (long long)lb->m, (long long)lb->n, (long long)lb->mb, (long long)la->n, (long long)la->nb);
    if (status == MINV_SUCCESS)
        status = check_piece(ctx, fn, 4, "a", la, a);
    if (status == MINV_SUCCESS)
        status = check_piece(ctx, fn, 6, "b", lb, b);
    if (status == MINV_SUCCESS)
        status = check_piece(ctx, fn, 7, "x", lb, x);
    if (status == MINV_SUCCESS && x == b && !(bkeep = minv_mpi_alloc_piece(lb, t)))
        status = minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a copy of B's piece (%lld x %lld)", (long long)lb->local_rows,
                           (long long)lb->local_cols);
    /* n = 0 or nrhs = 0: LAPACK's quick return, nothing read or written */
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS || n == 0 || nrhs == 0)
        goto cleanup;
    norms an;
    MINV_TRY(scan_piece(ctx, t, la, a, "A", &an));
    MINV_TRY(scan_piece(ctx, t, lb, b, "B", NULL));
    const double anorm_1 = an.norm_1, anorm_inf = an.norm_inf;
    if (anorm_1 == 0) {
        r->info = 0;
        status = minv_fail(ctx, MINV_ERR_SINGULAR, "A is zero: every entry is 0");
        goto cleanup;
    }
    MINV_TRY(choose(ctx, method, t, la, a, &spd, r));
    const int residual_mode = minv_residual_mode(ctx, t, r->asymmetry, spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU);
    if (bkeep)
        minv_mpi_copy_piece(t, lb, b, bkeep);
    const void *borig = bkeep ? bkeep : b;
    MINV_TRY(minv_mpi_layout_like(ctx, la, n, (int64_t)nrhs + 1, &lw));
    xw = minv_mpi_alloc_piece(&lw, t);
    colnorms = malloc((size_t)(2 * nrhs + 2) * sizeof(double));
    MINV_TRY(minv_mpi_agree(ctx, comm, xw && colnorms ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the right-hand sides' piece")));
    const minv_mpi_dense_ops *ops = backend_of(ctx, la, r);
    if (ops == &minv_mpi_scalapack_ops) { /* its factors stay in work for its condition estimate */
        work = minv_mpi_alloc_piece(la, t);
        MINV_TRY(minv_mpi_agree(ctx, comm, work ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a copy of A's piece (%lld x %lld)",
                                                                          (long long)la->local_rows, (long long)la->local_cols)));
    }
    for (;;) {
        /* B's columns lie in [B | h]'s piece where they lie in B's: a local copy */
        minv_mpi_copy_piece(t, lb, borig, xw);
        for (int64_t lj = 0; lj < lw.local_cols; lj++)
            if (minv_mpi_layout_col(&lw, lj) == nrhs)
                for (int64_t li = 0; li < lw.local_rows; li++) {
                    const size_t e = (size_t)(lj * lw.lld + li);
                    if (t == MINV_R64) ((double *)xw)[e] = 1.0 / n;
                    else ((float *)xw)[e] = 1.0f / (float)n;
                }
        MINV_TRY(minv_mpi_agree(ctx, comm, ops->solve(ctx, la, t, spd, a, work, &lw, xw, &info, r)));
        status = factor_outcome(ctx, comm, spd, info, r);
        if (not_spd_so_lu(ctx, method, status, r)) {
            spd = 0;
            continue;
        }
        if (status != MINV_SUCCESS)
            goto cleanup;
        r->method = spd ? MINV_METHOD_CHOLESKY : MINV_METHOD_LU;
        minv_mpi_copy_piece(t, lb, xw, x);
        if (residual_mode > 0) {
            MINV_TRY(residual_solve(ctx, t, residual_mode, la, a, lb, borig, x, anorm_inf, &r->residual));
            r->residual_kind = residual_mode;
        }
        if (!retry_by_lu(ctx, t, n, method, r, &status))
            break;
        spd = 0;
    }
    if (status != MINV_SUCCESS)
        goto cleanup;
    /* ||A^-1||_1 >= ||x_j||_1 / ||b_j||_1 for every column, Hager's included (||h||_1 = 1): a
     * bound for nothing; where it leaves rcond below 1e-4, where an overstatement could hide a
     * matrix singular to working precision, ScaLAPACK's estimate from the factor as well */
    column_norms_1(ctx, t, &lw, xw, colnorms);
    column_norms_1(ctx, t, lb, borig, colnorms + nrhs + 1);
    colnorms[2 * nrhs + 1] = 1;
    r->rcond = minv_rcond_lower_bound(nrhs + 1, colnorms, colnorms + nrhs + 1, anorm_1);
    if (r->rcond > 0 && r->rcond < 1e-4) {
        if (ops == &minv_mpi_scalapack_ops) {
            const double estimate = max_over(minv_mpi_in_grid(la) ? sl_rcond(t, spd, n, work, la->desc, anorm_1) : -1, comm);
            if (estimate >= 0) /* both overstate rcond, if at all */
                r->rcond = fmin(r->rcond, estimate);
        } else
            minv_report_note(r, "rcond bounded from the solution's columns (no estimator on this backend)");
    }
    r->flops = minv_batch_flops(spd, n, nrhs);
    note_grid(r, la, comm);
    status = minv_check_rcond(ctx, t, r);
cleanup:
    free(work);
    free(bkeep);
    free(xw);
    free(colnorms);
    if (lw.internal)
        minv_mpi_layout_free(&lw);
    finish(ctx, r, comm, t0);
    minv_fpguard_end(&guard);
    minv_mpi_leave(ctx);
    return status;
}

minv_status minv_mpi_invert_d(minv_context *ctx, minv_method method, const minv_mpi_layout *layout,
                              const double *a, double *ainv, minv_report *report) {
    return invert_expert(ctx, "minv_mpi_invert_d", method, MINV_R64, layout, a, ainv, report);
}

minv_status minv_mpi_invert_s(minv_context *ctx, minv_method method, const minv_mpi_layout *layout,
                              const float *a, float *ainv, minv_report *report) {
    return invert_expert(ctx, "minv_mpi_invert_s", method, MINV_R32, layout, a, ainv, report);
}

minv_status minv_mpi_solve_d(minv_context *ctx, minv_method method, const minv_mpi_layout *la,
                             const double *a, const minv_mpi_layout *lb, const double *b,
                             double *x, minv_report *report) {
    return solve_expert(ctx, "minv_mpi_solve_d", method, MINV_R64, la, a, lb, b, x, report);
}

minv_status minv_mpi_solve_s(minv_context *ctx, minv_method method, const minv_mpi_layout *la,
                             const float *a, const minv_mpi_layout *lb, const float *b, float *x,
                             minv_report *report) {
    return solve_expert(ctx, "minv_mpi_solve_s", method, MINV_R32, la, a, lb, b, x, report);
}
