/* Each block of a square block-cyclic matrix beside its transpose partner: block (I, J) of a
 * rank's piece with block (J, I), wherever that lies. The symmetry check and the mirrored SPD
 * inverse need A^T against A; ScaLAPACK's p?tran sends entry by entry and p?gemr2d onto the
 * transposed grid ran at 0.3-0.4 GB/s a rank (2 x H100 host, n = 32768), so the partners
 * travel as whole blocks, one MPI_Alltoallv a round. A round moves at most MINV_MPI_ROUND_BYTES from a
 * rank (no message near 2 GB) and a quarter of a rank's blocks (buffers of a quarter of a
 * piece; every matrix of more than a few blocks goes in several rounds, tested so). Only the
 * blocks on and below the diagonal travel: each pair meets once, at the block above. A rank
 * that holds both blocks of a pair reads its own. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "mpi_internal.h"
#include "scalapack.h"

typedef struct {
    int64_t bi, bj; /* global block row and column */
} block;

/* The blocks of this rank in a given order, by the rank holding each one's partner. */
typedef struct {
    block *all;      /* every local block, grouped by partner rank */
    int64_t *start;  /* size + 1 offsets into all */
} by_rank;

/* The rank holding block (bi, bj). */
static int owner(const minv_mpi_layout *l, const int *rank_of, int64_t bi, int64_t bj) {
    return minv_mpi_layout_holder(l, rank_of, bi * l->mb, bj * l->nb);
}

/* The global block of this rank's local block row li and column lj. */
static block global_block(const minv_mpi_layout *l, int64_t li, int64_t lj) {
    return (block){minv_mpi_layout_row(l, li * l->mb) / l->mb, minv_mpi_layout_col(l, lj * l->nb) / l->nb};
}

/* The rank's blocks on and above the diagonal (receiving: in column-major order of (bi, bj),
 * the order in which partner (bj, bi) arrives from its holder) or on and below it (sending,
 * row-major: the holder's column-major order seen from the other side), grouped by the rank of
 * their partners. */
static int group(const minv_mpi_layout *l, const int *rank_of, int size, int row_major, by_rank *g) {
    const int64_t mbk = (l->local_rows + l->mb - 1) / l->mb, nbk = (l->local_cols + l->nb - 1) / l->nb,
                  count = mbk * nbk;
    g->all = malloc((size_t)(count > 0 ? count : 1) * sizeof(block));
    g->start = calloc((size_t)size + 1, sizeof(int64_t));
    int *rank = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    if (!g->all || !g->start || !rank) {
        free(rank);
        return 1;
    }
    for (int64_t k = 0; k < count; k++) {
        const int64_t outer = k / (row_major ? nbk : mbk), inner = k % (row_major ? nbk : mbk);
        const block b = global_block(l, row_major ? outer : inner, row_major ? inner : outer);
        rank[k] = (row_major ? b.bi >= b.bj : b.bi <= b.bj) ? owner(l, rank_of, b.bj, b.bi) : -1;
        if (rank[k] >= 0)
            g->start[rank[k] + 1]++;
    }
    for (int r = 0; r < size; r++) g->start[r + 1] += g->start[r];
    int64_t *fill = malloc((size_t)size * sizeof(int64_t));
    if (!fill) {
        free(rank);
        return 1;
    }
    memcpy(fill, g->start, (size_t)size * sizeof(int64_t));
    for (int64_t k = 0; k < count; k++) {
        const int64_t outer = k / (row_major ? nbk : mbk), inner = k % (row_major ? nbk : mbk);
        if (rank[k] >= 0)
            g->all[fill[rank[k]]++] = global_block(l, row_major ? outer : inner, row_major ? inner : outer);
    }
    free(fill);
    free(rank);
    return 0;
}

/* Where block (bi, bj) of this rank starts in its piece, and its size. */
static char *at(const minv_mpi_layout *l, minv_dtype t, void *piece, block b, int64_t *rows, int64_t *cols) {
    *rows = l->m - b.bi * l->mb < l->mb ? l->m - b.bi * l->mb : l->mb;
    *cols = l->n - b.bj * l->nb < l->nb ? l->n - b.bj * l->nb : l->nb;
    return (char *)piece + minv_mpi_layout_offset(l, b.bi * l->mb, b.bj * l->nb) * (size_t)t;
}

minv_status minv_mpi_transposed_blocks(minv_context *ctx, minv_dtype t, const minv_mpi_layout *l, void *piece,
                                       minv_mpi_block_visit visit, void *arg) {
    MPI_Comm comm = minv_mpi_layout_comm(l);
    int size, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    const int inside = minv_mpi_in_grid(l);
    const int64_t nb = l->nb, bs = nb * nb; /* a block travels as nb x nb, column-major */
    const int64_t local_blocks = ((l->local_rows + l->mb - 1) / l->mb) * ((l->local_cols + l->nb - 1) / l->nb),
                  fit = MINV_MPI_ROUND_BYTES / (bs * (int64_t)t) / size;
    /* blocks a pair of ranks exchange in a round, the same on every rank */
    int64_t per_round = inside ? (local_blocks + 3) / 4 : INT64_MAX;
    per_round = fit < per_round ? fit : per_round;
    MPI_Allreduce(MPI_IN_PLACE, &per_round, 1, MPI_INT64_T, MPI_MIN, comm);
    per_round = per_round > 0 && per_round < INT64_MAX ? per_round : 1;
    const int team = minv_threads_for(ctx->cpu_threads, (double)l->local_rows * (double)l->local_cols);
    by_rank send = {0}, recv = {0};
    /* counts and displacements, then the rank at each grid place */
    int *counts = calloc((size_t)size * 4 + (size_t)l->nprow * (size_t)l->npcol, sizeof(int));
    char *out = NULL, *in = NULL;
    minv_status status = minv_mpi_agree(ctx, comm, counts ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate %d counts", 4 * size));
    if (status != MINV_SUCCESS)
        goto cleanup;
    int *rank_of = counts + 4 * size;
    minv_mpi_layout_ranks(l, rank_of);
    int ok = !inside || (group(l, rank_of, size, 1, &send) == 0 && group(l, rank_of, size, 0, &recv) == 0);
    int64_t rounds = 0;
    if (ok && inside)
        for (int r = 0; r < size; r++) {
            const int64_t k = (send.start[r + 1] - send.start[r] + per_round - 1) / per_round;
            rounds = k > rounds ? k : rounds;
        }
    out = ok ? malloc((size_t)(per_round * size) * (size_t)(bs * t)) : NULL;
    in = ok ? malloc((size_t)(per_round * size) * (size_t)(bs * t)) : NULL;
    ok = ok && out && in;
    status = minv_mpi_agree(ctx, comm, ok ? MINV_SUCCESS : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate the blocks of A^T"));
    if (status != MINV_SUCCESS)
        goto cleanup;
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT64_T, MPI_MAX, comm);
    MPI_Datatype tile;
    MPI_Type_contiguous((int)bs, t == MINV_R64 ? MPI_DOUBLE : MPI_FLOAT, &tile);
    MPI_Type_commit(&tile);
    int *scount = counts, *sdispl = counts + size, *rcount = counts + 2 * size, *rdispl = counts + 3 * size;
    for (int64_t round = 0; round < (rounds > 0 ? rounds : 1); round++) {
        /* this round's part of each rank's list: blocks [round * per_round, ...) of it */
        for (int r = 0; r < size; r++) {
            const int64_t s0 = inside ? send.start[r] + round * per_round : 0, s1 = inside ? send.start[r + 1] : 0,
                          r0 = inside ? recv.start[r] + round * per_round : 0, r1 = inside ? recv.start[r + 1] : 0;
            scount[r] = r == me || s0 >= s1 ? 0 : (int)(s1 - s0 < per_round ? s1 - s0 : per_round);
            rcount[r] = r == me || r0 >= r1 ? 0 : (int)(r1 - r0 < per_round ? r1 - r0 : per_round);
            sdispl[r] = r == 0 ? 0 : sdispl[r - 1] + scount[r - 1];
            rdispl[r] = r == 0 ? 0 : rdispl[r - 1] + rcount[r - 1];
        }
        /* pack: each block nb x nb at its slot (the edge blocks' unused part left as it is) */
        const int64_t leaving = sdispl[size - 1] + scount[size - 1];
#pragma omp parallel for num_threads(team) if (team > 1) schedule(dynamic, 1)
        for (int64_t k = 0; k < leaving; k++) {
            int r = 0;
            while (k >= sdispl[r] + scount[r]) r++;
            int64_t rows, cols;
            const char *from = at(l, t, piece, send.all[send.start[r] + round * per_round + (k - sdispl[r])], &rows, &cols);
            char *to = out + (size_t)k * (size_t)(bs * t);
            for (int64_t c = 0; c < cols; c++)
                memcpy(to + (size_t)(c * nb) * (size_t)t, from + (size_t)(c * l->lld) * (size_t)t, (size_t)rows * (size_t)t);
        }
        MPI_Alltoallv(out, scount, sdispl, tile, in, rcount, rdispl, tile, comm);
        /* the received partners; in the first round the pairs held here, and the blocks below
         * the diagonal alone (the send list's, less its diagonal ones) */
        const int64_t own = inside && round == 0 ? recv.start[me + 1] - recv.start[me] : 0,
                      below = inside && round == 0 ? send.start[size] : 0;
        const int64_t arrived = rdispl[size - 1] + rcount[size - 1];
#pragma omp parallel for num_threads(team) if (team > 1) schedule(dynamic, 1)
        for (int64_t k = 0; k < arrived + own + below; k++) {
            int thread = 0;
#ifdef _OPENMP
            thread = omp_get_thread_num();
#endif
            block b;
            const char *partner;
            int64_t ldp = nb, rows, cols, prow, pcol;
            if (k < arrived) {
                int r = 0;
                while (k >= rdispl[r] + rcount[r]) r++;
                b = recv.all[recv.start[r] + round * per_round + (k - rdispl[r])];
                partner = in + (size_t)k * (size_t)(bs * t);
            } else if (k < arrived + own) {
                b = recv.all[recv.start[me] + (k - arrived)];
                partner = at(l, t, piece, (block){b.bj, b.bi}, &prow, &pcol);
                ldp = l->lld;
            } else {
                b = send.all[k - arrived - own];
                if (b.bi == b.bj)
                    continue;
                partner = NULL;
                ldp = 0;
            }
            char *mine = at(l, t, piece, b, &rows, &cols);
            visit(arg, thread, b.bi, b.bj, mine, l->lld, partner, ldp, rows, cols);
        }
    }
    MPI_Type_free(&tile);
cleanup:
    free(send.all);
    free(send.start);
    free(recv.all);
    free(recv.start);
    free(out);
    free(in);
    free(counts);
    return status;
}
