#define _POSIX_C_SOURCE 200809L /* pthread_condattr_setclock, clock_gettime under -std=c11 */
/* The POSIX half of platform/thread.h. */

#include "platform/thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

_Static_assert(sizeof(pthread_mutex_t) <= sizeof(((ilmap_mutex *)0)->opaque), "mutex fits");
_Static_assert(sizeof(pthread_cond_t) <= sizeof(((ilmap_cond *)0)->opaque), "cond fits");
_Static_assert(sizeof(pthread_t) <= sizeof(((ilmap_thread *)0)->opaque), "thread fits");

#define MUTEX(m) ((pthread_mutex_t *)(void *)(m)->opaque)
#define COND(c) ((pthread_cond_t *)(void *)(c)->opaque)
#define THREAD(t) ((pthread_t *)(void *)(t)->opaque)

int ilmap_mutex_init(ilmap_mutex *m)
{
    return m ? pthread_mutex_init(MUTEX(m), NULL) : EINVAL;
}

void ilmap_mutex_destroy(ilmap_mutex *m)
{
    if (m)
        pthread_mutex_destroy(MUTEX(m));
}

void ilmap_mutex_lock(ilmap_mutex *m)
{
    if (m)
        pthread_mutex_lock(MUTEX(m));
}

void ilmap_mutex_unlock(ilmap_mutex *m)
{
    if (m)
        pthread_mutex_unlock(MUTEX(m));
}

int ilmap_cond_init(ilmap_cond *c)
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

void ilmap_cond_destroy(ilmap_cond *c)
{
    if (c)
        pthread_cond_destroy(COND(c));
}

void ilmap_cond_broadcast(ilmap_cond *c)
{
    if (c)
        pthread_cond_broadcast(COND(c));
}

uint64_t ilmap_monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int ilmap_cond_timedwait(ilmap_cond *c, ilmap_mutex *m, uint32_t milliseconds)
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

int ilmap_thread_start(ilmap_thread *t, void (*fn)(void *), void *arg)
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

void ilmap_thread_join(ilmap_thread *t)
{
    if (t && t->started) {
        pthread_join(*THREAD(t), NULL);
        t->started = 0;
    }
}
