/* Block-cyclic layouts over a BLACS grid of an MPI communicator: made by minv (grid and blocks
 * chosen or given) or from the caller's ScaLAPACK descriptor; the pieces' sizes and global
 * indices; whole matrices of one rank dealt into the pieces and back (ScaLAPACK's p?gemr2d). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "scalapack.h"

/* The default block edge: ScaLAPACK's usual 64 on CPUs; on GPUs cuSOLVERMp's kernels want
 * large blocks (n = 16384 on one H100: getrs of the identity 6.4 s with blocks of 64, 0.65 s
 * with 512, 0.58 s with 1024). */
enum { DEFAULT_BLOCK = 64, DEFAULT_GPU_BLOCK = 512 };

/* What the layouts of one grid share; freed with the last of them. */
struct minv_mpi_grid {
    int refs;
    MPI_Comm comm;   /* the caller's, duplicated: minv's messages never meet the caller's */
    int sys;         /* its BLACS system handle */
    int context;     /* the layout's BLACS context; -1 on ranks outside the grid */
    int own_context; /* made here (freed here), or the caller's */
    int all;         /* a 1 x P grid of every rank, the context of redistributions */
};

typedef struct minv_mpi_grid minv_mpi_grid;

static minv_mpi_grid *grid_of(const minv_mpi_layout *l) { return (minv_mpi_grid *)l->internal; }

MPI_Comm minv_mpi_layout_comm(const minv_mpi_layout *l) { return grid_of(l)->comm; }
int minv_mpi_layout_all(const minv_mpi_layout *l) { return grid_of(l)->all; }

static int64_t round_of(const minv_mpi_layout *l) { return l && l->npcol > 1 ? l->nb * l->npcol : 1; }

int minv_mpi_column_cycle(const minv_mpi_layout *a, const minv_mpi_layout *b) {
    return sl_column_cycle(a->n, round_of(a), round_of(b));
}

/* The squarest nprow <= npcol with nprow npcol = p. */
static void default_grid(int p, int *nprow, int *npcol) {
    int r = (int)sqrt((double)p);
    while (r > 1 && p % r != 0) r--;
    *nprow = r;
    *npcol = p / r;
}

static minv_mpi_grid *grid_new(MPI_Comm comm) {
    minv_mpi_grid *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    int me, np, size;
    g->refs = 1;
    MPI_Comm_dup(comm, &g->comm);
    MPI_Comm_size(g->comm, &size);
    Cblacs_pinfo(&me, &np); /* the BLACS start on first use */
    g->sys = Csys2blacs_handle(g->comm);
    g->all = g->sys;
    Cblacs_gridinit(&g->all, "R", 1, size);
    g->context = -1;
    return g;
}

static void grid_release(minv_mpi_grid *g) {
    if (!g || --g->refs > 0)
        return;
    if (g->own_context && g->context >= 0)
        Cblacs_gridexit(g->context);
    Cblacs_gridexit(g->all);
    Cfree_blacs_system_handle(g->sys);
    MPI_Comm_free(&g->comm);
    free(g);
}

/* The piece of this rank and the descriptor, from the global shape and the grid. */
static void fill_piece(minv_mpi_layout *l, int rsrc, int csrc) {
    int m = (int)l->m, n = (int)l->n, mb = (int)l->mb, nb = (int)l->nb, nprow = l->nprow, npcol = l->npcol;
    int myrow = l->myrow, mycol = l->mycol;
    l->local_rows = l->local_cols = 0;
    if (myrow >= 0) {
        l->local_rows = numroc_(&m, &mb, &myrow, &rsrc, &nprow);
        l->local_cols = numroc_(&n, &nb, &mycol, &csrc, &npcol);
    }
    l->lld = l->local_rows > 1 ? l->local_rows : 1;
    const int32_t desc[9] = {1, myrow >= 0 ? grid_of(l)->context : -1, m, n, mb, nb, rsrc, csrc, (int32_t)l->lld};
    memcpy(l->desc, desc, sizeof desc);
}

static minv_status check_sizes(minv_context *ctx, const char *fn, int64_t m, int64_t n, int64_t mb, int64_t nb) {
    if (m < 0 || n < 0 || m > INT_MAX || n > INT_MAX)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: m = %lld and n = %lld must be 0 to %d (ScaLAPACK's int)", fn,
                         (long long)m, (long long)n, INT_MAX);
    if (mb < 1 || nb < 1 || mb > INT_MAX || nb > INT_MAX)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: the blocks %lld x %lld must be at least 1 x 1", fn, (long long)mb,
                         (long long)nb);
    return MINV_SUCCESS;
}

/* A layout entry point refused (another thread is inside a call on some rank's context) leaves
 * an empty layout, which minv_mpi_layout_free takes. */
static minv_status refused(minv_status status, minv_mpi_layout *layout) {
    if (layout)
        memset(layout, 0, sizeof *layout);
    return status;
}

minv_status minv_mpi_layout_create(minv_context *ctx, MPI_Comm comm, int64_t m, int64_t n,
                                   int64_t nb, int32_t nprow, int32_t npcol,
                                   minv_mpi_layout *layout) {
    minv_status status = minv_mpi_enter(ctx, comm);
    if (status != MINV_SUCCESS)
        return refused(status, layout);
    status = minv_mpi_layout_make(ctx, comm, m, n, nb, nb, nprow, npcol, layout);
    minv_mpi_leave(ctx);
    return status;
}

minv_status minv_mpi_layout_make(minv_context *ctx, MPI_Comm comm, int64_t m, int64_t n, int64_t mb, int64_t nb,
                                 int32_t nprow, int32_t npcol, minv_mpi_layout *layout) {
    static const char fn[] = "minv_mpi_layout_create";
    int size;
    MPI_Comm_size(comm, &size);
    minv_status status = MINV_SUCCESS;
    if (!layout)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: layout is NULL", fn);
    else
        memset(layout, 0, sizeof *layout);
    if (status == MINV_SUCCESS && (nprow < 0 || npcol < 0 || (nprow == 0) != (npcol == 0) || (int64_t)nprow * npcol > size))
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG,
                           "%s: the grid %d x %d needs both or neither of nprow and npcol, and at most the communicator's %d ranks",
                           fn, (int)nprow, (int)npcol, size);
    if (status == MINV_SUCCESS && nprow == 0)
        default_grid(size, &nprow, &npcol);
    /* the same on every rank: the GPU's where every rank's context is on one, as dense.c decides */
    const int on_gpu = nb == 0 && minv_mpi_min_i64(ctx && minv_context_backend(ctx) == MINV_BACKEND_GPU, comm) == 1;
    if (status == MINV_SUCCESS && nb == 0) {
        const int64_t across = nprow > npcol ? nprow : npcol, big = m > n ? m : n, even = (big + across - 1) / across;
        const int64_t block = on_gpu ? DEFAULT_GPU_BLOCK : DEFAULT_BLOCK;
        nb = even < block ? (even > 0 ? even : 1) : block;
    }
    if (mb == 0)
        mb = nb;
    if (status == MINV_SUCCESS)
        status = check_sizes(ctx, fn, m, n, mb, nb);
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS)
        return status;
    minv_mpi_grid *g = grid_new(comm);
    if (minv_mpi_agree(ctx, comm, g ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "%s: out of memory", fn)) != MINV_SUCCESS) {
        grid_release(g);
        return MINV_ERR_ALLOC;
    }
    g->context = g->sys;
    g->own_context = 1;
    Cblacs_gridinit(&g->context, "C", nprow, npcol);
    int pr, pc, myrow = -1, mycol = -1;
    if (g->context >= 0)
        Cblacs_gridinfo(g->context, &pr, &pc, &myrow, &mycol);
    *layout = (minv_mpi_layout){.m = m, .n = n, .mb = mb, .nb = nb, .nprow = nprow, .npcol = npcol,
                                .myrow = myrow >= 0 ? myrow : -1, .mycol = myrow >= 0 ? mycol : -1, .internal = g};
    fill_piece(layout, 0, 0);
    return MINV_SUCCESS;
}

static minv_status layout_like(minv_context *ctx, const minv_mpi_layout *like, int64_t m, int64_t n,
                               minv_mpi_layout *layout) {
    static const char fn[] = "minv_mpi_layout_like";
    if (!like || !like->internal || !layout)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s", fn, !layout ? "layout is NULL" : "like is not a layout");
    minv_status status = check_sizes(ctx, fn, m, n, like->mb, like->nb);
    if ((status = minv_mpi_agree(ctx, grid_of(like)->comm, status)) != MINV_SUCCESS)
        return status;
    *layout = *like;
    layout->m = m;
    layout->n = n;
    grid_of(layout)->refs++;
    fill_piece(layout, like->desc[SL_RSRC], like->desc[SL_CSRC]);
    return MINV_SUCCESS;
}

minv_status minv_mpi_layout_like(minv_context *ctx, const minv_mpi_layout *like, int64_t m,
                                 int64_t n, minv_mpi_layout *layout) {
    minv_status status = minv_mpi_enter(ctx, like && like->internal ? grid_of(like)->comm : MPI_COMM_NULL);
    if (status != MINV_SUCCESS)
        return refused(status, layout);
    status = layout_like(ctx, like, m, n, layout);
    minv_mpi_leave(ctx);
    return status;
}

static minv_status layout_from_desc(minv_context *ctx, MPI_Comm comm, const int32_t desc[9], minv_mpi_layout *layout) {
    static const char fn[] = "minv_mpi_layout_from_desc";
    minv_status status = MINV_SUCCESS;
    int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
    if (!desc || !layout)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: %s is NULL", fn, !desc ? "desc" : "layout");
    else if (desc[SL_DTYPE] != 1)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: desc[0] = %d: only dense descriptors (1) are understood", fn,
                           (int)desc[SL_DTYPE]);
    if (status == MINV_SUCCESS) {
        if (desc[SL_CTXT] >= 0)
            Cblacs_gridinfo(desc[SL_CTXT], &nprow, &npcol, &myrow, &mycol);
        status = check_sizes(ctx, fn, desc[SL_M], desc[SL_N], desc[SL_MB], desc[SL_NB]);
    }
    if (status == MINV_SUCCESS && myrow >= 0 && desc[SL_LLD] < 1)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: desc[8] (LLD) = %d must be at least 1", fn, (int)desc[SL_LLD]);
    if ((status = minv_mpi_agree(ctx, comm, status)) != MINV_SUCCESS)
        return status;
    /* ranks outside the caller's grid learn its shape from those inside */
    const int64_t rows = minv_mpi_max_i64(myrow >= 0 ? nprow : 0, comm), cols = minv_mpi_max_i64(myrow >= 0 ? npcol : 0, comm);
    minv_mpi_grid *g = grid_new(comm);
    if (minv_mpi_agree(ctx, comm, g ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "%s: out of memory", fn)) != MINV_SUCCESS) {
        grid_release(g);
        return MINV_ERR_ALLOC;
    }
    g->context = myrow >= 0 ? desc[SL_CTXT] : -1;
    *layout = (minv_mpi_layout){.m = desc[SL_M], .n = desc[SL_N], .mb = desc[SL_MB], .nb = desc[SL_NB],
                                .nprow = (int32_t)rows, .npcol = (int32_t)cols, .myrow = myrow >= 0 ? myrow : -1,
                                .mycol = myrow >= 0 ? mycol : -1, .internal = g};
    fill_piece(layout, desc[SL_RSRC], desc[SL_CSRC]);
    if (myrow >= 0) { /* the caller's leading dimension, which may exceed the piece's */
        layout->lld = desc[SL_LLD];
        layout->desc[SL_LLD] = desc[SL_LLD];
    }
    return MINV_SUCCESS;
}

minv_status minv_mpi_layout_from_desc(minv_context *ctx, MPI_Comm comm, const int32_t desc[9],
                                      minv_mpi_layout *layout) {
    minv_status status = minv_mpi_enter(ctx, comm);
    if (status != MINV_SUCCESS)
        return refused(status, layout);
    status = layout_from_desc(ctx, comm, desc, layout);
    minv_mpi_leave(ctx);
    return status;
}

void minv_mpi_layout_free(minv_mpi_layout *layout) {
    if (!layout || !layout->internal)
        return;
    grid_release(grid_of(layout));
    layout->internal = NULL;
}

static int64_t global_index(int64_t local, int64_t block, int coord, int src, int nprocs) {
    int l = (int)local + 1, b = (int)block;
    return (int64_t)indxl2g_(&l, &b, &coord, &src, &nprocs) - 1;
}

int64_t minv_mpi_layout_row(const minv_mpi_layout *l, int64_t li) {
    return global_index(li, l->mb, l->myrow, l->desc[SL_RSRC], l->nprow);
}

int64_t minv_mpi_layout_col(const minv_mpi_layout *l, int64_t lj) {
    return global_index(lj, l->nb, l->mycol, l->desc[SL_CSRC], l->npcol);
}

void minv_mpi_layout_ranks(const minv_mpi_layout *l, int *rank_of) {
    const int places = l->nprow * l->npcol;
    int me;
    MPI_Comm_rank(minv_mpi_layout_comm(l), &me);
    for (int k = 0; k < places; k++) rank_of[k] = -1;
    if (minv_mpi_in_grid(l))
        rank_of[l->myrow * l->npcol + l->mycol] = me;
    MPI_Allreduce(MPI_IN_PLACE, rank_of, places, MPI_INT, MPI_MAX, minv_mpi_layout_comm(l));
}

int minv_mpi_layout_holder(const minv_mpi_layout *l, const int *rank_of, int64_t i, int64_t j) {
    const int64_t p = (l->desc[SL_RSRC] + i / l->mb) % l->nprow, q = (l->desc[SL_CSRC] + j / l->nb) % l->npcol;
    return rank_of[p * l->npcol + q];
}

void *minv_mpi_alloc_piece(const minv_mpi_layout *l, minv_dtype t) {
    return minv_alloc_large((size_t)l->lld * (size_t)(l->local_cols > 0 ? l->local_cols : 1) * (size_t)t);
}

size_t minv_mpi_layout_offset(const minv_mpi_layout *l, int64_t i, int64_t j) {
    /* global block I is local block I / nprow of its holder, whatever the source process */
    const int64_t li = i / l->mb / l->nprow * l->mb + i % l->mb, lj = j / l->nb / l->npcol * l->nb + j % l->nb;
    return (size_t)(lj * l->lld + li);
}

int64_t minv_mpi_layout_local_row(const minv_mpi_layout *l, int64_t i) {
    int g = (int)i + 1, b = (int)l->mb, nprocs = l->nprow, src = l->desc[SL_RSRC], me = l->myrow;
    if (me < 0 || indxg2p_(&g, &b, &me, &src, &nprocs) != me)
        return -1;
    return (int64_t)indxg2l_(&g, &b, &me, &src, &nprocs) - 1;
}

/* ---- whole matrices of one rank ---- */

/* A 1 x 1 grid on rank root of the layout's communicator (-1 elsewhere) and the descriptor of
 * a whole m x n matrix there. */
static int root_grid(const minv_mpi_layout *l, int root, int64_t lda, int desc[9]) {
    int rank, context = grid_of(l)->sys;
    MPI_Comm_rank(grid_of(l)->comm, &rank);
    Cblacs_gridmap(&context, &root, 1, 1, 1);
    const int m = (int)l->m, n = (int)l->n;
    const int d[9] = {1, rank == root ? context : -1, m, n, m > 0 ? m : 1, n > 0 ? n : 1, 0, 0, (int)(lda > 0 ? lda : 1)};
    memcpy(desc, d, sizeof d);
    return rank == root ? context : -1;
}

/* scatter: whole (on root) into piece, else piece into whole. */
static minv_status redistribute_call(minv_context *ctx, const char *fn, const minv_mpi_layout *l, int root, int64_t lda,
                                     int scatter, void *whole, void *piece, minv_dtype t) {
    int rank, size;
    minv_status status = MINV_SUCCESS;
    if (!l || !l->internal)
        return minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: layout is not a layout", fn);
    MPI_Comm_rank(grid_of(l)->comm, &rank);
    MPI_Comm_size(grid_of(l)->comm, &size);
    if (root < 0 || root >= size)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: root = %d is not a rank of the layout's %d", fn, root, size);
    else if (rank == root && lda < (l->m > 1 ? l->m : 1))
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: lda = %lld is less than the %lld rows", fn, (long long)lda,
                           (long long)l->m);
    else if (rank == root && l->m * l->n > 0 && !whole)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: the whole matrix is NULL on the root", fn);
    else if (l->local_rows * l->local_cols > 0 && !piece)
        status = minv_fail(ctx, MINV_ERR_INVALID_ARG, "%s: the local piece is NULL", fn);
    if ((status = minv_mpi_agree(ctx, grid_of(l)->comm, status)) != MINV_SUCCESS)
        return status;
    int desc[9];
    const int context = root_grid(l, root, lda, desc);
    if (l->m > 0 && l->n > 0) {
        if (scatter)
            sl_gemr2d(t, (int)l->m, (int)l->n, whole, desc, piece, l->desc, grid_of(l)->all,
                      minv_mpi_column_cycle(l, NULL));
        else
            sl_gemr2d(t, (int)l->m, (int)l->n, piece, l->desc, whole, desc, grid_of(l)->all,
                      minv_mpi_column_cycle(l, NULL));
    }
    if (context >= 0)
        Cblacs_gridexit(context);
    return MINV_SUCCESS;
}

static minv_status redistribute(minv_context *ctx, const char *fn, const minv_mpi_layout *l, int root, int64_t lda,
                                int scatter, void *whole, void *piece, minv_dtype t) {
    minv_status status = minv_mpi_enter(ctx, l && l->internal ? grid_of(l)->comm : MPI_COMM_NULL);
    if (status != MINV_SUCCESS)
        return status;
    status = redistribute_call(ctx, fn, l, root, lda, scatter, whole, piece, t);
    minv_mpi_leave(ctx);
    return status;
}

minv_status minv_mpi_scatter_d(minv_context *ctx, const minv_mpi_layout *layout, int root,
                               const double *a, int64_t lda, double *local) {
    return redistribute(ctx, "minv_mpi_scatter_d", layout, root, lda, 1, (void *)a, local, MINV_R64);
}

minv_status minv_mpi_scatter_s(minv_context *ctx, const minv_mpi_layout *layout, int root,
                               const float *a, int64_t lda, float *local) {
    return redistribute(ctx, "minv_mpi_scatter_s", layout, root, lda, 1, (void *)a, local, MINV_R32);
}

minv_status minv_mpi_gather_d(minv_context *ctx, const minv_mpi_layout *layout,
                              const double *local, int root, double *a, int64_t lda) {
    return redistribute(ctx, "minv_mpi_gather_d", layout, root, lda, 0, a, (void *)local, MINV_R64);
}

minv_status minv_mpi_gather_s(minv_context *ctx, const minv_mpi_layout *layout,
                              const float *local, int root, float *a, int64_t lda) {
    return redistribute(ctx, "minv_mpi_gather_s", layout, root, lda, 0, a, (void *)local, MINV_R32);
}
