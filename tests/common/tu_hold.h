/* A call held inside a context while another thread tries the same context: the call's
 * progress callback (tu_hold_progress, its user pointer the tu_hold) waits there, the first
 * time it is called, until the other thread says it has tried (tu_hold_done). For the
 * MINV_ERR_CONTEXT_BUSY tests of the serial and the MPI calls. */
#ifndef MINV_TU_HOLD_H
#define MINV_TU_HOLD_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int inside, tried;
} tu_hold;
#define TU_HOLD_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0}

void tu_hold_progress(void *hold, const char *stage, double fraction); /* minv_set_progress's callback */
void tu_hold_wait_inside(tu_hold *h); /* returns once the held call is inside */
void tu_hold_done(tu_hold *h);        /* the other thread has tried: the held call goes on */

#endif
