/* The Win32 twin of thread_posix.c ("Windows-ready where cheap"). */
#include "thread.h"

#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdlib.h>

_Static_assert(sizeof(SRWLOCK) <= sizeof(((shim_mutex *)0)->opaque), "mutex fits");
_Static_assert(sizeof(CONDITION_VARIABLE) <= sizeof(((shim_cond *)0)->opaque), "cond fits");
_Static_assert(sizeof(HANDLE) <= sizeof(((shim_thread *)0)->opaque), "thread fits");

#define LOCK(m) ((SRWLOCK *)(void *)(m)->opaque)
#define COND(c) ((CONDITION_VARIABLE *)(void *)(c)->opaque)
#define HANDLE_OF(t) ((HANDLE *)(void *)(t)->opaque)

int shim_mutex_init(shim_mutex *m)
{
    if (!m)
        return 1;
    InitializeSRWLock(LOCK(m));
    return 0;
}

void shim_mutex_destroy(shim_mutex *m)
{
    (void)m; /* SRW locks own no resources */
}

void shim_mutex_lock(shim_mutex *m)
{
    if (m)
        AcquireSRWLockExclusive(LOCK(m));
}

void shim_mutex_unlock(shim_mutex *m)
{
    if (m)
        ReleaseSRWLockExclusive(LOCK(m));
}

int shim_cond_init(shim_cond *c)
{
    if (!c)
        return 1;
    InitializeConditionVariable(COND(c));
    return 0;
}

void shim_cond_destroy(shim_cond *c)
{
    (void)c;
}

void shim_cond_broadcast(shim_cond *c)
{
    if (c)
        WakeAllConditionVariable(COND(c));
}

int shim_cond_timedwait(shim_cond *c, shim_mutex *m, uint32_t milliseconds)
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

int shim_thread_start(shim_thread *t, void (*fn)(void *), void *arg)
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

void shim_thread_join(shim_thread *t)
{
    if (t && t->started) {
        WaitForSingleObject(*HANDLE_OF(t), INFINITE);
        CloseHandle(*HANDLE_OF(t));
        t->started = 0;
    }
}
