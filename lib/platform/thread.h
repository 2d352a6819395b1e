/*
 * The library's threading: a mutex (the version store's writers), and
 * what only the profiler shim needs, hosted here so that there is one
 * copy: a condition variable with a timed wait on a monotonic clock, and
 * one worker thread. Over pthreads (thread_posix.c) or Win32 SRW locks,
 * condition variables and threads (thread_win32.c).
 *
 * Internal: these symbols are hidden in the shared library (not in
 * ilmap.map, no ILMAP_API) and reach the shim and the tests through the
 * internal static copy. The objects are opaque storage, so that no
 * includer ever meets <pthread.h> or <windows.h> (the shim's COM headers
 * must not); the .c files check the sizes statically.
 */
#ifndef ILMAP_PLATFORM_THREAD_H
#define ILMAP_PLATFORM_THREAD_H

#include <stdint.h>

typedef struct ilmap_mutex {
    _Alignas(8) unsigned char opaque[64];
} ilmap_mutex;
typedef struct ilmap_cond {
    _Alignas(8) unsigned char opaque[64];
} ilmap_cond;
typedef struct ilmap_thread {
    _Alignas(8) unsigned char opaque[16];
    int started;
} ilmap_thread;

/* Inits return 0 on success, non-zero on failure (nothing to undo then).
 * Every call accepts NULL and does nothing (inits fail). */
int ilmap_mutex_init(ilmap_mutex *m);
void ilmap_mutex_destroy(ilmap_mutex *m);
void ilmap_mutex_lock(ilmap_mutex *m);
void ilmap_mutex_unlock(ilmap_mutex *m);

int ilmap_cond_init(ilmap_cond *c);
void ilmap_cond_destroy(ilmap_cond *c);
void ilmap_cond_broadcast(ilmap_cond *c);
/* Waits with m held; returns 0 when signalled (or spuriously woken), 1 on
 * timeout. */
int ilmap_cond_timedwait(ilmap_cond *c, ilmap_mutex *m, uint32_t milliseconds);

int ilmap_thread_start(ilmap_thread *t, void (*fn)(void *), void *arg);
void ilmap_thread_join(ilmap_thread *t);

/* Milliseconds on the clock the timed waits use (monotonic, from an
 * arbitrary start): for a wait that must count real time across several
 * timed waits, each of which a wake-up can cut short. */
uint64_t ilmap_monotonic_ms(void);

#endif
