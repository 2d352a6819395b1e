/*
 * The little threading the shim needs (a mutex, a condition variable with
 * a timed wait, one worker thread), over pthreads or Win32. Kept apart so
 * that no COM header ever meets <windows.h>.
 */
#ifndef SHIM_PLATFORM_THREAD_H
#define SHIM_PLATFORM_THREAD_H

#include <stdint.h>

/* Opaque storage big enough for either platform's objects; the .c file
 * checks the size statically. */
typedef struct shim_mutex {
    _Alignas(8) unsigned char opaque[64];
} shim_mutex;
typedef struct shim_cond {
    _Alignas(8) unsigned char opaque[64];
} shim_cond;
typedef struct shim_thread {
    _Alignas(8) unsigned char opaque[16];
    int started;
} shim_thread;

/* All return 0 on success, non-zero on failure (nothing to undo then). */
int shim_mutex_init(shim_mutex *m);
void shim_mutex_destroy(shim_mutex *m);
void shim_mutex_lock(shim_mutex *m);
void shim_mutex_unlock(shim_mutex *m);

int shim_cond_init(shim_cond *c);
void shim_cond_destroy(shim_cond *c);
void shim_cond_broadcast(shim_cond *c);
/* Waits with m held; returns 0 when signalled (or spuriously woken), 1 on
 * timeout. */
int shim_cond_timedwait(shim_cond *c, shim_mutex *m, uint32_t milliseconds);

int shim_thread_start(shim_thread *t, void (*fn)(void *), void *arg);
void shim_thread_join(shim_thread *t);

#endif
