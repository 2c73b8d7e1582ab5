#include "mpi_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mt_rank, mt_size;

minv_context *mt_init(int *argc, char ***argv) {
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    return tu_context(MINV_BACKEND_CPU, 0);
}

int mt_finish(const char *name, minv_context *ctx) {
    int all = 0;
    MPI_Allreduce(&tu_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mt_rank == 0) {
        if (all)
            fprintf(stderr, "%s (%d ranks): %d check(s) failed\n", name, mt_size, all);
        else
            printf("%s (%d ranks): all checks passed\n", name, mt_size);
    }
    minv_destroy(ctx);
    MPI_Finalize();
    return all ? 1 : 0;
}

int mt_same(const void *p, size_t len) {
    unsigned char buf[4096];
    int differ = 0, any = 0;
    for (size_t at = 0; at < len; at += sizeof buf) {
        const size_t part = len - at < sizeof buf ? len - at : sizeof buf;
        memcpy(buf, (const char *)p + at, part);
        MPI_Bcast(buf, (int)part, MPI_BYTE, 0, MPI_COMM_WORLD);
        differ |= memcmp(buf, (const char *)p + at, part) != 0;
    }
    MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

int mt_same_text(const char *s) {
    char buf[2048] = {0};
    snprintf(buf, sizeof buf, "%s", s);
    return mt_same(buf, sizeof buf);
}

double *mt_piece_of(const minv_mpi_layout *l, const double *a, int64_t lda) {
    double *p = malloc((size_t)(l->lld * (l->local_cols > 0 ? l->local_cols : 1)) * sizeof(double));
    for (int64_t lj = 0; lj < l->local_cols; lj++)
        for (int64_t li = 0; li < l->local_rows; li++)
            p[lj * l->lld + li] = a[minv_mpi_layout_col(l, lj) * lda + minv_mpi_layout_row(l, li)];
    return p;
}

double *mt_whole_of(minv_context *ctx, const minv_mpi_layout *l, const double *piece) {
    double *w = malloc((size_t)(l->m * l->n) * sizeof(double));
    CHECK_STATUS(minv_mpi_gather_d(ctx, l, piece, 0, w, l->m), MINV_SUCCESS, ctx);
    MPI_Bcast(w, (int)(l->m * l->n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return w;
}
