/* A libFuzzer target over minv's NetCDF reader: the bytes are a file, and it goes through
 * what `minv info f.nc:A` and `minv invert f.nc:A out.nc` run: the reader's open (format,
 * variable, shape, slice or batch, missing-value and packing attributes, the classic-size
 * check, the tile plan), every matrix read tile by tile or a batch chunk whole, the file
 * analysis, and an inversion written through the sink. Variables tried: A, then v as one
 * column (the 1-D path). Sizes are capped so that each input runs in milliseconds.
 *
 * Built by -DMINV_BUILD_FUZZ=ON with clang (fuzz/CMakeLists.txt); fuzz/replay.c runs the same
 * function over files in the ordinary test build (regression inputs). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncio.h"

enum { MAX_ELEMS = 1 << 14 }; /* values read per input: a 128 x 128 matrix */

static minv_context *ctx;
static char in_path[512], out_path[512];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    o.cpu_threads = 1;
    if (minv_create(&ctx, &o) != MINV_SUCCESS)
        abort();
    /* tmpfs where there is one: an input is written per run */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(in_path, sizeof in_path, "%s/minv-fuzz-%ld.nc", dir, (long)getpid());
    snprintf(out_path, sizeof out_path, "%s/minv-fuzz-%ld-out.nc", dir, (long)getpid());
    return 0;
}

static int write_input(const uint8_t *data, size_t size) {
    int fd = open(in_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return 0;
    int ok = write(fd, data, size) == (ssize_t)size;
    close(fd);
    return ok;
}

/* Every matrix of an open source, as invert reads them. */
static void read_all(minv_nc_source *s) {
    minv_mat m = {0};
    if (minv_mat_alloc(ctx, &m, MINV_R64, s->rows, s->cols) != MINV_SUCCESS)
        return;
    if (s->batch && s->count > 1) {
        double *disk = malloc((size_t)s->count * s->d0 * s->d1 * sizeof(double));
        double *dst = malloc((size_t)s->count * s->d0 * s->d1 * sizeof(double));
        if (disk && dst)
            minv_nc_source_read_matrices(ctx, s, 0, s->count, disk, MINV_R64, dst);
        free(disk);
        free(dst);
    }
    for (int64_t k = 0; k < s->count; k++)
        if (minv_nc_source_read(ctx, s, k, k % 2, &m) != MINV_SUCCESS)
            break;
    minv_mat_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!ctx)
        LLVMFuzzerInitialize(NULL, NULL);
    if (!write_input(data, size))
        return 0;
    /* options from the size, so that a mutation of the bytes keeps them */
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.fortran_order = (int32_t)(size & 1);
    fo.tile = size % 3 == 0 ? 3 : 0;
    fo.precision = size % 5 == 0 ? MINV_PRECISION_SINGLE : MINV_PRECISION_DOUBLE;

    minv_nc_source s;
    minv_nc_lock();
    minv_status st = minv_nc_source_open(ctx, &s, in_path, "A", &fo, MINV_NC_ALLOW_BATCH);
    int small = st == MINV_SUCCESS && s.d0 * s.d1 * (size_t)s.count <= MAX_ELEMS;
    if (small)
        read_all(&s);
    if (st == MINV_SUCCESS)
        minv_nc_source_close(&s);
    if (minv_nc_source_open(ctx, &s, in_path, "v", &fo, MINV_NC_ALLOW_VECTOR) == MINV_SUCCESS) {
        if (s.d0 * s.d1 <= MAX_ELEMS && s.count == 1)
            read_all(&s);
        minv_nc_source_close(&s);
    }
    minv_nc_unlock();

    if (small) { /* the entry points, each under its own lock */
        minv_analysis an;
        minv_report rep;
        if (!s.batch)
            minv_analyze_file(ctx, in_path, "A", &fo, &an);
        unlink(out_path);
        minv_invert_file(ctx, MINV_METHOD_AUTO, in_path, "A", out_path, NULL, &fo, &rep);
        unlink(out_path);
    }
    return 0;
}
