/* The Win32 half of platform/thread.h (SRW locks: Vista and later). */
#ifndef _WIN32_WINNT
#  define _WIN32_WINNT 0x0600
#endif
#include "platform/thread.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdlib.h>

_Static_assert(sizeof(SRWLOCK) <= sizeof(((ilmap_mutex *)0)->opaque), "mutex fits");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(((ilmap_cond *)0)->opaque), "cond fits");
_Static_assert(sizeof(HANDLE) <= sizeof(((ilmap_thread *)0)->opaque), "thread fits");

#define LOCK(m) ((SRWLOCK *)(void *)(m)->opaque)
#define COND(c) ((CONDITION_VARIABLE *)(void *)(c)->opaque)
#define HANDLE_OF(t) ((HANDLE *)(void *)(t)->opaque)

int ilmap_mutex_init(ilmap_mutex *m)
{
    if (!m)
        return 1;
    InitializeSRWLock(LOCK(m));
    return 0;
}

void ilmap_mutex_destroy(ilmap_mutex *m)
{
    (void)m; /* SRW locks own no resources */
}

void ilmap_mutex_lock(ilmap_mutex *m)
{
    if (m)
        AcquireSRWLockExclusive(LOCK(m));
}

void ilmap_mutex_unlock(ilmap_mutex *m)
{
    if (m)
        ReleaseSRWLockExclusive(LOCK(m));
}

int ilmap_cond_init(ilmap_cond *c)
{
    if (!c)
        return 1;
    InitializeConditionVariable(COND(c));
    return 0;
}

void ilmap_cond_destroy(ilmap_cond *c)
{
    (void)c;
}

void ilmap_cond_broadcast(ilmap_cond *c)
{
    if (c)
        WakeAllConditionVariable(COND(c));
}

uint64_t ilmap_monotonic_ms(void)
{
    return (uint64_t)GetTickCount64();
}

int ilmap_cond_timedwait(ilmap_cond *c, ilmap_mutex *m, uint32_t milliseconds)
{
    if (!c || !m)
        return 1;
    if (SleepConditionVariableSRW(COND(c), LOCK(m), milliseconds, 0))
        return 0;
    return GetLastError() == ERROR_TIMEOUT;
}

typedef struct start_args {
    void (*fn)(void *);
    void *arg;
} start_args;

static DWORD WINAPI trampoline(LPVOID p)
{
    start_args a = *(start_args *)p;
    free(p);
    a.fn(a.arg);
    return 0;
}

int ilmap_thread_start(ilmap_thread *t, void (*fn)(void *), void *arg)
{
    if (!t || !fn)
        return 1;
    t->started = 0;
    start_args *a = malloc(sizeof *a);
    if (!a)
        return 1;
    a->fn = fn;
    a->arg = arg;
    HANDLE h = CreateThread(NULL, 0, trampoline, a, 0, NULL);
    if (!h) {
        free(a);
        return 1;
    }
    *HANDLE_OF(t) = h;
    t->started = 1;
    return 0;
}

void ilmap_thread_join(ilmap_thread *t)
{
    if (t && t->started) {
        WaitForSingleObject(*HANDLE_OF(t), INFINITE);
        CloseHandle(*HANDLE_OF(t));
        t->started = 0;
    }
}
