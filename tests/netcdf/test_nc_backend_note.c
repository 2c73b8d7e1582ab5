/* What an output file says of the backend (its minv_reason attribute): nothing when the CPU
 * was asked for; with AUTO on a machine where no GPU is usable, one short note on why
 * ("CPU backend: no NVIDIA driver (libcuda.so.1 not found)" and the like), never the CUDA
 * runtime's "driver version is insufficient". The results are checked too (inverse by the
 * LAPACK tester's ratio, solve by its residual). */
#include <float.h>

#include "nctest.h"

enum { N = 5, K = 2 };

static int count_of(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

/* The inverse and the solve of the files on ctx; their outputs' minv_reason (malloc'ed). */
static void run(minv_context *ctx, const double *a_disk, const double *b_disk, char **inv_reason,
                char **solve_reason) {
    minv_report rep;
    size_t count;
    CHECK_STATUS(minv_invert_file(ctx, MINV_METHOD_AUTO, "a.nc", "A", "inv.nc", "Ainv", NCT_REPLACE, &rep), MINV_SUCCESS, ctx);
    double *x = nct_read("inv.nc", "Ainv", &count);
    /* symmetric A: the disk's row-major order is its column-major one */
    double ratio = tu_inverse_ratio(N, a_disk, N, x, N, DBL_EPSILON);
    CHECK(count == N * N && ratio < 30, "inverse ratio %.3g", ratio);
    free(x);
    CHECK_STATUS(minv_solve_file(ctx, MINV_METHOD_AUTO, "a.nc", "A", "b.nc", "B", "x.nc", "X", NCT_REPLACE, &rep),
                 MINV_SUCCESS, ctx);
    /* B(n, nrhs) in C order on disk: the file's X is nrhs columns of n, row-major */
    double *xs = nct_read("x.nc", "X", &count), *xc = nct_c_view(xs, N, K), *bc = nct_c_view(b_disk, N, K);
    ratio = tu_solve_ratio(N, K, a_disk, N, bc, N, xc, N, DBL_EPSILON);
    CHECK(count == N * K && ratio < 30, "solve ratio %.3g", ratio);
    free(xs);
    free(xc);
    free(bc);
    *inv_reason = nct_read_text_att("inv.nc", "Ainv", "minv_reason");
    *solve_reason = nct_read_text_att("x.nc", "X", "minv_reason");
    CHECK(*inv_reason && *solve_reason, "minv_reason missing");
}

int main(void) {
    static const char *const ab[2] = {"n", "nrhs"}, *const aa[2] = {"row", "col"};
    const size_t alen[2] = {N, N}, blen[2] = {N, K};
    const nct_storage st = {.cmode = NC_CLOBBER | NC_NETCDF4};
    tu_rng rng;
    double a[N * N], b[N * K];
    tu_seed(&rng, 23);
    tu_spd(&rng, N, a, N);
    tu_rect(&rng, N, K, b, N); /* used as row-major N x K on disk */
    nct_write("a.nc", 0, &st, "A", NC_DOUBLE, 2, aa, alen, 0, a);
    nct_write("b.nc", 0, &st, "B", NC_DOUBLE, 2, ab, blen, 0, b);

    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    minv_context *cpu = NULL, *any = NULL;
    char *inv = NULL, *sol = NULL;
    CHECK_STATUS(minv_create(&cpu, &o), MINV_SUCCESS, cpu);
    run(cpu, a, b, &inv, &sol);
    CHECK(inv && !strstr(inv, "GPU") && !strstr(inv, "CPU backend"), "CPU asked for: minv_reason \"%s\"", inv);
    CHECK(sol && !strstr(sol, "GPU") && !strstr(sol, "CPU backend"), "CPU asked for: minv_reason \"%s\"", sol);
    free(inv);
    free(sol);

    CHECK_STATUS(minv_create(&any, NULL), MINV_SUCCESS, any);
    run(any, a, b, &inv, &sol);
    if (minv_context_backend(any) == MINV_BACKEND_CPU) {
        CHECK(inv && count_of(inv, "CPU backend: ") == 1 && !strstr(inv, "insufficient"), "AUTO: minv_reason \"%s\"", inv);
        CHECK(sol && count_of(sol, "CPU backend: ") == 1 && !strstr(sol, "insufficient"), "AUTO: minv_reason \"%s\"", sol);
    } else {
        CHECK(inv && !strstr(inv, "CPU backend"), "AUTO on the GPU: minv_reason \"%s\"", inv);
    }
    printf("AUTO's minv_reason: \"%s\"\n", inv ? inv : "");
    free(inv);
    free(sol);
    minv_destroy(any);
    minv_destroy(cpu);
    return tu_finish("test_nc_backend_note");
}
