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

#endif
