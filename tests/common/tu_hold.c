/* See tu_hold.h. */
#include "tu_hold.h"

void tu_hold_progress(void *hold, const char *stage, double fraction) {
    tu_hold *h = hold;
    (void)stage;
    (void)fraction;
    pthread_mutex_lock(&h->lock);
    if (!h->inside) {
        h->inside = 1;
        pthread_cond_broadcast(&h->cond);
        while (!h->tried) pthread_cond_wait(&h->cond, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
}

void tu_hold_wait_inside(tu_hold *h) {
    pthread_mutex_lock(&h->lock);
    while (!h->inside) pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

void tu_hold_done(tu_hold *h) {
    pthread_mutex_lock(&h->lock);
    h->tried = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}
