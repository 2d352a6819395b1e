#define _POSIX_C_SOURCE 200809L /* pthread_condattr_setclock, clock_gettime under -std=c11 */

#include "thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(((shim_mutex *)0)->opaque), "mutex fits");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(((shim_cond *)0)->opaque), "cond fits");
_Static_assert(sizeof(pthread_t) <= sizeof(((shim_thread *)0)->opaque), "thread fits");

#define MUTEX(m) ((pthread_mutex_t *)(void *)(m)->opaque)
#define COND(c) ((pthread_cond_t *)(void *)(c)->opaque)
#define THREAD(t) ((pthread_t *)(void *)(t)->opaque)

int shim_mutex_init(shim_mutex *m)
{
    return m ? pthread_mutex_init(MUTEX(m), NULL) : EINVAL;
}

void shim_mutex_destroy(shim_mutex *m)
{
    if (m)
        pthread_mutex_destroy(MUTEX(m));
}

void shim_mutex_lock(shim_mutex *m)
{
    if (m)
        pthread_mutex_lock(MUTEX(m));
}

void shim_mutex_unlock(shim_mutex *m)
{
    if (m)
        pthread_mutex_unlock(MUTEX(m));
}

int shim_cond_init(shim_cond *c)
{
    if (!c)
        return EINVAL;
    /* A monotonic clock: wall-clock jumps must not stretch or cut the
     * wait for the ReJIT request. */
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(COND(c), &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

void shim_cond_destroy(shim_cond *c)
{
    if (c)
        pthread_cond_destroy(COND(c));
}

void shim_cond_broadcast(shim_cond *c)
{
    if (c)
        pthread_cond_broadcast(COND(c));
}

int shim_cond_timedwait(shim_cond *c, shim_mutex *m, uint32_t milliseconds)
{
    if (!c || !m)
        return 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += (time_t)(milliseconds / 1000u);
    ts.tv_nsec += (long)(milliseconds % 1000u) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return pthread_cond_timedwait(COND(c), MUTEX(m), &ts) == ETIMEDOUT;
}

typedef struct start_args {
    void (*fn)(void *);
    void *arg;
} start_args;

static void *trampoline(void *p)
{
    start_args a = *(start_args *)p;
    free(p);
    a.fn(a.arg);
    return NULL;
}

int shim_thread_start(shim_thread *t, void (*fn)(void *), void *arg)
{
    if (!t || !fn)
        return EINVAL;
    t->started = 0;
    start_args *a = malloc(sizeof *a);
    if (!a)
        return ENOMEM;
    a->fn = fn;
    a->arg = arg;
    int rc = pthread_create(THREAD(t), NULL, trampoline, a);
    if (rc != 0) {
        free(a);
        return rc;
    }
    t->started = 1;
    return 0;
}

void shim_thread_join(shim_thread *t)
{
    if (t && t->started) {
        pthread_join(*THREAD(t), NULL);
        t->started = 0;
    }
}
