/*
 * The library's one over-aligned allocator (cache-line aligned structs of
 * the version store, the bodies' chunks). Built on malloc, aligned by hand
 * with the pointer malloc returned kept in the word before the block: the
 * same code on every platform (Windows' C runtimes have no aligned_alloc),
 * and a test that interposes malloc reaches these allocations too. Memory
 * from ilmap_aligned_alloc must be released with ilmap_aligned_free, never
 * free().
 */
#ifndef ILMAP_PLATFORM_MEMORY_H
#define ILMAP_PLATFORM_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(_WIN32) || defined(__GLIBC__)
#  include <malloc.h>
#endif

/* align: a power of two (raised to a pointer's size if smaller); any
 * size. NULL on failure or when size + align would overflow. */
static inline void *ilmap_aligned_alloc(size_t align, size_t size)
{
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (align & (align - 1u))
        return NULL;
    if (size > SIZE_MAX - align - sizeof(void *))
        return NULL;
    unsigned char *raw = malloc(size + align + sizeof(void *));
    if (!raw)
        return NULL;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + align - 1u) & ~(uintptr_t)(align - 1u);
    unsigned char *p = raw + (at - (uintptr_t)raw);
    ((void **)(void *)p)[-1] = raw;
    return p;
}

/* NULL is a no-op. */
static inline void ilmap_aligned_free(void *p)
{
    if (p)
        free(((void **)p)[-1]);
}

/* The bytes a malloc'd block p of `requested` bytes really holds, where
 * the C library says (glibc, Windows): what a map reports as its memory
 * includes the allocator's rounding. Elsewhere, the request. */
static inline size_t ilmap_malloc_size(void *p, size_t requested)
{
#if defined(_WIN32)
    (void)requested;
    return _msize(p);
#elif defined(__GLIBC__)
    (void)requested;
    return malloc_usable_size(p);
#else
    (void)p;
    return requested;
#endif
}

/* At least what ilmap_malloc_size will report for a malloc'd block of
 * size bytes: on glibc, a heap chunk is the request plus a size_t header
 * rounded up to 16 bytes (at least four size_t), less the header; a
 * large block (from 128 KiB by default) may be mapped in whole pages. */
static inline size_t ilmap_malloc_estimate(size_t size)
{
#if defined(__GLIBC__)
    size_t header = sizeof(size_t), chunk;
    if (size >= 128u * 1024u)
        return size > SIZE_MAX - 4095u ? SIZE_MAX : size + 4095u;
    chunk = (size + header + 15u) & ~(size_t)15u;
    if (chunk < 4 * header)
        chunk = 4 * header;
    return chunk - header;
#else
    return size;
#endif
}

#endif
