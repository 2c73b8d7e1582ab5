/* A matrix moved between two block-cyclic layouts of one communicator (the parallel NetCDF
 * slabs and the solvers' blocks): the matrix is cut where either layout's blocks end, each
 * piece of the cut lying in one block of each layout and so on one rank of each, and the
 * pieces travel by one MPI_Alltoallv a round of columns, packed and unpacked by the ranks'
 * threads. ScaLAPACK's p?gemr2d, used before, moved 0.3-0.4 GB/s a rank on the 2 x H100 host
 * (bench/results/mpi_gpu_h100x2.md), the whole of a 4-rank read's time. A round moves at most
 * MINV_MPI_ROUND_BYTES of the matrix in all, so no message nears 2 GB, and at most a quarter of its
 * columns. */
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"
#include "scalapack.h"

/* The starts of the pieces along one dimension of length len: every multiple of b1, b2 and b3
 * below len, sorted, then len. */
static int64_t *cuts(int64_t len, int64_t b1, int64_t b2, int64_t b3, int64_t *count) {
    const int64_t most = len / b1 + len / b2 + len / b3 + 4;
    int64_t *c = malloc((size_t)most * sizeof(int64_t)), k = 0, at = 0;
    if (!c)
        return NULL;
    while (at < len) {
        c[k++] = at;
        const int64_t n1 = (at / b1 + 1) * b1, n2 = (at / b2 + 1) * b2, n3 = (at / b3 + 1) * b3;
        at = n1 < n2 ? n1 : n2;
        at = n3 < at ? n3 : at;
    }
    c[k++] = len;
    *count = k - 1;
    return c;
}

/* One piece this rank sends or receives: its place in the matrix and in the buffer. */
typedef struct {
    int64_t r0, r1, c0, c1;
    size_t at;
} piece;

/* Pieces from the matrix a (layout lf) into the buffer to, from the buffer from into the
 * matrix b (layout lt), or (both layouts given) from a to b straight, a column of a piece a copy. */
static void copy_pieces(const piece *list, int64_t count, const char *from, const minv_mpi_layout *lf, char *to,
                        const minv_mpi_layout *lt, size_t es, int team) {
#pragma omp parallel for num_threads(team) if (team > 1) schedule(dynamic, 16)
    for (int64_t k = 0; k < count; k++) {
        const piece *p = &list[k];
        const size_t rows = (size_t)(p->r1 - p->r0);
        for (int64_t c = p->c0; c < p->c1; c++) {
            const size_t step = (size_t)(c - p->c0) * rows;
            const size_t src = lf ? minv_mpi_layout_offset(lf, p->r0, c) : p->at + step, dst = lt ? minv_mpi_layout_offset(lt, p->r0, c) : p->at + step;
            memcpy(to + dst * es, from + src * es, rows * es);
        }
    }
}

minv_status minv_mpi_redistribute(minv_context *ctx, minv_dtype t, const minv_mpi_layout *from, const void *a,
                                  const minv_mpi_layout *to, void *b) {
    MPI_Comm comm = minv_mpi_layout_comm(from);
    int size, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    const int64_t m = from->m, n = from->n, es = (int64_t)t;
    /* a round: at most MINV_MPI_ROUND_BYTES, and a quarter of the columns (so every matrix of more than a
     * few columns goes in several rounds, tested so) */
    int64_t width = MINV_MPI_ROUND_BYTES / es / (m > 0 ? m : 1);
    width = (n + 3) / 4 < width ? (n + 3) / 4 : width;
    width = width > 0 ? width : 1;
    const int team = minv_threads_for(ctx->cpu_threads, (double)m * (double)n / size);
    int64_t nrows = 0, ncols = 0;
    int64_t *rcut = cuts(m, from->mb, to->mb, m > 0 ? m : 1, &nrows), *ccut = cuts(n, from->nb, to->nb, width, &ncols);
    int *ints = calloc((size_t)size * 6 + (size_t)(from->nprow * from->npcol + to->nprow * to->npcol), sizeof(int));
    piece *out_list = malloc((size_t)(nrows > 0 ? nrows : 1) * (size_t)(ncols > 0 ? ncols : 1) * sizeof(piece)),
          *in_list = malloc((size_t)(nrows > 0 ? nrows : 1) * (size_t)(ncols > 0 ? ncols : 1) * sizeof(piece));
    char *out = malloc((size_t)(m > 0 ? m : 1) * (size_t)width * (size_t)es),
         *in = malloc((size_t)(m > 0 ? m : 1) * (size_t)width * (size_t)es);
    minv_status status = minv_mpi_agree(ctx, comm, rcut && ccut && ints && out_list && in_list && out && in ? MINV_SUCCESS
                                                  : minv_fail(ctx, MINV_ERR_ALLOC, "cannot allocate a redistribution's buffers"));
    if (status != MINV_SUCCESS)
        goto cleanup;
    int *scount = ints, *sdispl = ints + size, *rcount = ints + 2 * size, *rdispl = ints + 3 * size;
    int *sfill = ints + 4 * size, *rfill = ints + 5 * size; /* where the next piece to or from each rank goes */
    int *rank_from = ints + 6 * size, *rank_to = rank_from + from->nprow * from->npcol;
    minv_mpi_layout_ranks(from, rank_from);
    minv_mpi_layout_ranks(to, rank_to);
    const MPI_Datatype type = t == MINV_R64 ? MPI_DOUBLE : MPI_FLOAT;
    /* rounds of whole column pieces, width columns at most (width is among the cuts) */
    for (int64_t j0 = 0; j0 < ncols || (j0 == 0 && ncols == 0);) {
        int64_t j1 = j0;
        while (j1 < ncols && ccut[j1 + 1] - ccut[j0] <= width) j1++;
        memset(scount, 0, 4 * (size_t)size * sizeof(int));
        /* the sizes each rank sends and receives, then each piece's place in the buffers */
        for (int64_t j = j0; j < j1; j++)
            for (int64_t i = 0; i < nrows; i++) {
                const int64_t e = (rcut[i + 1] - rcut[i]) * (ccut[j + 1] - ccut[j]);
                const int s = minv_mpi_layout_holder(from, rank_from, rcut[i], ccut[j]), d = minv_mpi_layout_holder(to, rank_to, rcut[i], ccut[j]);
                if (s == me && d != me)
                    scount[d] += (int)e;
                if (d == me && s != me)
                    rcount[s] += (int)e;
            }
        for (int r = 1; r < size; r++) {
            sdispl[r] = sdispl[r - 1] + scount[r - 1];
            rdispl[r] = rdispl[r - 1] + rcount[r - 1];
        }
        memcpy(sfill, sdispl, (size_t)size * sizeof(int));
        memcpy(rfill, rdispl, (size_t)size * sizeof(int));
        int64_t nout = 0, nin = 0, nstay = 0;
        for (int64_t j = j0; j < j1; j++)
            for (int64_t i = 0; i < nrows; i++) {
                const int64_t e = (rcut[i + 1] - rcut[i]) * (ccut[j + 1] - ccut[j]);
                const int s = minv_mpi_layout_holder(from, rank_from, rcut[i], ccut[j]), d = minv_mpi_layout_holder(to, rank_to, rcut[i], ccut[j]);
                if (s == me && d == me) /* stays on this rank: listed from the end of in_list */
                    in_list[nrows * ncols - 1 - nstay++] = (piece){rcut[i], rcut[i + 1], ccut[j], ccut[j + 1], 0};
                else if (s == me) {
                    out_list[nout++] = (piece){rcut[i], rcut[i + 1], ccut[j], ccut[j + 1], (size_t)sfill[d]};
                    sfill[d] += (int)e;
                }
                else if (d == me) {
                    in_list[nin++] = (piece){rcut[i], rcut[i + 1], ccut[j], ccut[j + 1], (size_t)rfill[s]};
                    rfill[s] += (int)e;
                }
            }
        copy_pieces(out_list, nout, a, from, out, NULL, (size_t)es, team);
        MPI_Alltoallv(out, scount, sdispl, type, in, rcount, rdispl, type, comm);
        copy_pieces(in_list, nin, in, NULL, b, to, (size_t)es, team);
        copy_pieces(in_list + nrows * ncols - nstay, nstay, a, from, b, to, (size_t)es, team);
        if (ncols == 0)
            break;
        j0 = j1;
    }
cleanup:
    free(rcut);
    free(ccut);
    free(ints);
    free(out_list);
    free(in_list);
    free(out);
    free(in);
    return status;
}
