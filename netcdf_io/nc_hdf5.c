/* HDF5 beneath netCDF-4: its error stack silenced and read.
 *
 * HDF5 prints its error stack ("HDF5-DIAG: Error detected in HDF5 ...") on stderr from any
 * thread whose automatic printing is on. netCDF-C turns printing off once, for the thread
 * that initialises it; the library is thread-safe here, so every other thread keeps HDF5's
 * default and prints dozens of lines from calls that netCDF-C handles itself. And netCDF-C
 * maps every HDF5 failure to "NetCDF: HDF error" (or EACCES when a file cannot be created),
 * which hides the cause: a full disk reads "Permission denied".
 *
 * So while minv holds the NetCDF lock, the calling thread's automatic handler is this
 * file's: it prints nothing and keeps the system error (errno) and the innermost message of
 * HDF5's last failure, which minv_nc_fail puts in minv's message. The thread's own handler
 * comes back when the lock is released. Built without HDF5 (a netCDF-C without netCDF-4),
 * these do nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncio.h"

#if MINV_NC_HAVE_HDF5
#include <H5Epublic.h>
#include <H5public.h>

/* One thread at a time holds the lock, but each thread has its own HDF5 handler: the last
 * failure is per thread. */
static _Thread_local struct {
    int error;                  /* errno of the last failure with a system cause, else 0 */
    char message[160];          /* its innermost HDF5 message */
} last;

typedef struct {
    int error;
    const char *message;
} walk_state;

/* HDF5's messages of a system failure end "..., errno = 28, error message = 'No space left on
 * device', ..." (the sec2 driver); keep the innermost one. */
static herr_t visit(unsigned n, const H5E_error2_t *e, void *data) {
    (void)n;
    walk_state *w = data;
    const char *at = e->desc ? strstr(e->desc, "errno = ") : NULL;
    if (e->desc && e->desc[0])
        w->message = e->desc;
    if (at)
        w->error = atoi(at + 8);
    return 0;
}

static herr_t record(hid_t stack, void *data) {
    (void)data;
    walk_state w = {0, NULL};
    H5Ewalk2(stack, H5E_WALK_DOWNWARD, visit, &w); /* downward: the innermost comes last */
    last.error = w.error;
    snprintf(last.message, sizeof last.message, "%s", w.message ? w.message : "");
    return 0;
}

void minv_nc_hdf5_begin(minv_nc_hdf5_state *saved) {
    /* netCDF-C switches HDF5's printing off as it initialises, which would replace this
     * handler during the first call: it initialises first */
    nc_initialize();
    H5E_auto2_t func = NULL;
    void *data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    saved->func = (void (*)(void))func;
    saved->data = data;
    H5Eset_auto2(H5E_DEFAULT, record, NULL);
    minv_nc_hdf5_clear();
}

void minv_nc_hdf5_end(const minv_nc_hdf5_state *saved) {
    H5Eset_auto2(H5E_DEFAULT, (H5E_auto2_t)saved->func, saved->data);
}

void minv_nc_hdf5_clear(void) {
    last.error = 0;
    last.message[0] = '\0';
}

int minv_nc_hdf5_errno(void) { return last.error; }

const char *minv_nc_hdf5_message(void) { return last.message; }

void minv_nc_hdf5_version(unsigned version[3]) {
    if (H5get_libversion(&version[0], &version[1], &version[2]) < 0)
        version[0] = version[1] = version[2] = 0;
}

#else

void minv_nc_hdf5_begin(minv_nc_hdf5_state *saved) { saved->func = NULL, saved->data = NULL; }
void minv_nc_hdf5_end(const minv_nc_hdf5_state *saved) { (void)saved; }
void minv_nc_hdf5_clear(void) {}
int minv_nc_hdf5_errno(void) { return 0; }
const char *minv_nc_hdf5_message(void) { return ""; }
void minv_nc_hdf5_version(unsigned version[3]) { version[0] = version[1] = version[2] = 0; }

#endif
