/*
 * A read prefetch hint: ILMAP_PREFETCH(p) asks the CPU to start loading the
 * cache line at p. For a chain of dependent cache misses whose later
 * addresses are known early (a store lookup knows a body's address before
 * it reads the body): the loads then overlap instead of following one
 * another. Only a hint: never faults, compiles to nothing where the
 * compiler has no way to say it.
 */
#ifndef ILMAP_PLATFORM_PREFETCH_H
#define ILMAP_PLATFORM_PREFETCH_H

#if defined(__GNUC__) || defined(__clang__)
#define ILMAP_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 3)
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define ILMAP_PREFETCH(p) _mm_prefetch((const char *)(p), _MM_HINT_T0)
#else
#define ILMAP_PREFETCH(p) ((void)(p))
#endif

#endif
