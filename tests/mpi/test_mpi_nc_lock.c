/* One NetCDF lock a process: libminv and libminv_mpi each carry the NetCDF layer, and NetCDF-C
 * is not thread-safe, so while a serial file call (libminv) is inside on one thread, held by
 * its progress callback, an MPI file call (libminv_mpi) of another thread, on its own context,
 * must wait for it rather than call NetCDF-C at the same time. Rank 0 holds; the main thread
 * alone calls MPI (MPI_THREAD_FUNNELED). A held lock that another copy ignored would let the
 * MPI read return within the hold. The serial call is libminv's own (dlsym on its handle):
 * libminv_mpi's copy exports minv.h's names too, and where it comes first in the lookup order
 * a plain call would go to it, whose lock is its own. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_testutil.h"

enum { N = 48 };

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int inside, read_returned, returned_during_hold;
    minv_status status;
} shared;

static shared s = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* Inside the serial call, at its first progress: say so, then hold the call (and its NetCDF
 * lock) for a while and see whether the MPI read got through meanwhile. */
static void hold(void *user, const char *stage, double fraction) {
    (void)user;
    (void)stage;
    (void)fraction;
    pthread_mutex_lock(&s.lock);
    if (!s.inside) {
        s.inside = 1;
        pthread_cond_broadcast(&s.cond);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 500000000L; /* the read of a 48 x 48 matrix takes milliseconds */
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!s.read_returned && pthread_cond_timedwait(&s.cond, &s.lock, &until) == 0) {
        }
        s.returned_during_hold = s.read_returned;
    }
    pthread_mutex_unlock(&s.lock);
}

/* libminv's own entry points (or the ones linked, where libminv is not a shared library) */
static struct {
    minv_status (*create)(minv_context **, const minv_options *);
    minv_status (*destroy)(minv_context *);
    minv_status (*set_progress)(minv_context *, minv_progress_fn, void *);
    minv_status (*invert_file)(minv_context *, minv_method, const char *, const char *, const char *, const char *,
                               const minv_file_options *, minv_report *);
} libminv = {minv_create, minv_destroy, minv_set_progress, minv_invert_file};

static void find_libminv(void) {
    void *lib = dlopen("libminv.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
        return;
    *(void **)&libminv.create = dlsym(lib, "minv_create");
    *(void **)&libminv.destroy = dlsym(lib, "minv_destroy");
    *(void **)&libminv.set_progress = dlsym(lib, "minv_set_progress");
    *(void **)&libminv.invert_file = dlsym(lib, "minv_invert_file");
}

static void *serial_call(void *ctx) {
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.overwrite = 1; /* a_inv.nc of an earlier run */
    s.status = libminv.invert_file(ctx, MINV_METHOD_AUTO, "a.nc", "A", "a_inv.nc", NULL, &fo, NULL);
    return NULL;
}

int main(int argc, char **argv) {
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    minv_context *ctx = tu_context(MINV_BACKEND_CPU, 0), *serial = NULL;
    minv_options o;
    minv_options_default(&o);
    o.backend = MINV_BACKEND_CPU;
    find_libminv();
    CHECK_STATUS(libminv.create(&serial, &o), MINV_SUCCESS, NULL);
    double *a = tu_alloc(N, N, N);
    tu_rng rng;
    tu_seed(&rng, 21);
    tu_spd(&rng, N, a, N);
    minv_mpi_layout l;
    CHECK_STATUS(minv_mpi_layout_create(ctx, MPI_COMM_WORLD, N, N, 8, 0, 0, &l), MINV_SUCCESS, ctx);
    double *piece = mt_piece_of(&l, a, N), *back = mt_piece_of(&l, a, N);
    minv_file_options fo;
    minv_file_options_default(&fo);
    fo.overwrite = 1;
    CHECK_STATUS(minv_mpi_write_d(ctx, &l, piece, "a.nc", "A", NULL, &fo), MINV_SUCCESS, ctx);
    memset(back, 0, (size_t)l.lld * (size_t)(l.local_cols > 0 ? l.local_cols : 1) * sizeof(double));

    pthread_t t;
    if (mt_rank == 0) {
        libminv.set_progress(serial, hold, NULL);
        pthread_create(&t, NULL, serial_call, serial);
        pthread_mutex_lock(&s.lock);
        while (!s.inside) pthread_cond_wait(&s.cond, &s.lock);
        pthread_mutex_unlock(&s.lock);
    }
    CHECK_STATUS(minv_mpi_read_d(ctx, &l, "a.nc", "A", NULL, back), MINV_SUCCESS, ctx);
    if (mt_rank == 0) {
        pthread_mutex_lock(&s.lock);
        s.read_returned = 1;
        pthread_cond_broadcast(&s.cond);
        pthread_mutex_unlock(&s.lock);
        pthread_join(t, NULL);
        CHECK(!s.returned_during_hold, "the MPI read went through while a serial file call held the NetCDF lock");
        CHECK(s.status == MINV_SUCCESS, "the serial call: %s (%s)", minv_status_string(s.status), minv_last_error(serial));
    }
    int same = memcmp(piece, back, (size_t)l.lld * (size_t)(l.local_cols > 0 ? l.local_cols : 1) * sizeof(double)) == 0;
    CHECK(same, "the piece read back differs from the one written");
    free(a);
    free(piece);
    free(back);
    minv_mpi_layout_free(&l);
    libminv.destroy(serial);
    return mt_finish("test_mpi_nc_lock", ctx);
}
