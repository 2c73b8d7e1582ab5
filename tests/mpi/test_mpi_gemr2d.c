/* ScaLAPACK's p?gemr2d in parts of whole columns (src_mpi/scalapack.c): a redistribution between
 * two block sizes, moved in parts of a few rounds of the process columns (each part with
 * descriptors of its columns alone; a last part narrower; parts asked smaller than a round),
 * puts every value where it belongs, in double and float, between two grids and from the
 * whole matrix on one rank (the scatter's case). minv splits every redistribution at 1 GiB a call
 * because p?gemr2d sizes its buffers in int bytes by each descriptor's whole local piece
 * ("xxmr2d:out of memory" where a rank held 2 GB, bench_mpi_io at n = 16384), which a test of
 * CI's size cannot reach. */
#include <stdlib.h>
#include <string.h>

#include "mpi_testutil.h"
#include "mpi_internal.h" /* minv_mpi_layout_all: the context of every rank */
#include "scalapack.h"

enum { M = 37, N = 61 };

/* from: blocks of 4 on the default grid, or (one) the whole matrix on rank 0's 1 x 1 grid */
static void redistribute_in_parts(minv_context *ctx, minv_dtype t, int one, int64_t part_elems) {
    minv_mpi_layout from, to;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, M, N, 4, one, one, &from), MINV_SUCCESS, ctx);
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, M, N, 3, 0, 0, &to), MINV_SUCCESS, ctx);
    const size_t es = (size_t)t;
    const size_t from_elems = (size_t)from.lld * (size_t)(from.local_cols > 0 ? from.local_cols : 1);
    const size_t to_elems = (size_t)to.lld * (size_t)(to.local_cols > 0 ? to.local_cols : 1);
    char *a = malloc(from_elems * es), *b = calloc(to_elems, es);
    /* a(i, j) = 1000 i + j, exact in float too */
    for (int64_t lj = 0; lj < from.local_cols; lj++)
        for (int64_t li = 0; li < from.local_rows; li++) {
            const double v = 1000.0 * (double)minv_mpi_layout_row(&from, li) + (double)minv_mpi_layout_col(&from, lj);
            const size_t e = (size_t)(lj * from.lld + li);
            if (t == MINV_R64) ((double *)a)[e] = v;
            else ((float *)a)[e] = (float)v;
        }
    sl_gemr2d_parts(t, M, N, a, from.desc, b, to.desc, minv_mpi_layout_all(&from), minv_mpi_column_cycle(&from, &to),
                    part_elems);
    int wrong = 0;
    for (int64_t lj = 0; lj < to.local_cols; lj++)
        for (int64_t li = 0; li < to.local_rows; li++) {
            const double want = 1000.0 * (double)minv_mpi_layout_row(&to, li) + (double)minv_mpi_layout_col(&to, lj);
            const size_t e = (size_t)(lj * to.lld + li);
            const double got = t == MINV_R64 ? ((double *)b)[e] : (double)((float *)b)[e];
            wrong += got != want;
        }
    int all_wrong = 0;
    MPI_Allreduce(&wrong, &all_wrong, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_wrong == 0, "%s%s, parts of %lld elements: %d values misplaced", t == MINV_R64 ? "double" : "float",
          one ? ", from one rank" : "", (long long)part_elems, all_wrong);
    free(a);
    free(b);
    minv_mpi_layout_free(&to);
    minv_mpi_layout_free(&from);
}

int main(int argc, char **argv) {
    minv_context *ctx = mt_init(&argc, &argv);
    const int64_t parts[] = {(int64_t)M * N, (int64_t)M * 5, (int64_t)M * 4 + 3, 10};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        for (int one = 0; one < 2; one++) {
            redistribute_in_parts(ctx, MINV_R64, one, parts[k]);
            redistribute_in_parts(ctx, MINV_R32, one, parts[k]);
        }
    return mt_finish("test_mpi_gemr2d", ctx);
}
