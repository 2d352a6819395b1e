/*
 * Clocks for the benchmarks and tests (header-only: they link the library
 * as users do, without its internal symbols): a monotonic clock and the
 * calling thread's CPU time, in nanoseconds. clock_gettime on POSIX (the
 * includer defines _POSIX_C_SOURCE >= 199309L before its first system
 * header: -std=c11 hides clock_gettime otherwise), QueryPerformanceCounter
 * and GetThreadTimes on Windows.
 */
#ifndef ILMAP_PLATFORM_CLOCK_H
#define ILMAP_PLATFORM_CLOCK_H

#include <stdint.h>

#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  include <windows.h>
#else
#  include <time.h>
#endif

static inline uint64_t ilmap_monotonic_ns(void)
{
#if defined(_WIN32)
    LARGE_INTEGER freq, now;

    QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    uint64_t f = (uint64_t)freq.QuadPart, t = (uint64_t)now.QuadPart;
    return t / f * 1000000000u + t % f * 1000000000u / f;
#else
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline uint64_t ilmap_thread_cpu_ns(void)
{
#if defined(_WIN32)
    FILETIME created, exited, kernel, user;

    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return 0;
    uint64_t k = (uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime;
    uint64_t u = (uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime;
    return (k + u) * 100u; /* 100 ns units */
#else
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

#endif
