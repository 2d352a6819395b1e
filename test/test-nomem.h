/*
 * The failing allocator of the allocation-failure tests
 * (test-versions-nomem.c, test/sig/test-sig-nomem.c): the executable links
 * the library's static copy with the linker's --wrap for malloc, calloc
 * and realloc (see their meson.build), so the library's calls come here.
 * The library has no allocation hook of its own.
 *
 * nomem_budget: allocations left before they fail; < 0, never fail.
 * nomem_calls counts every call. Single-threaded. Include it in one
 * translation unit.
 */
#ifndef ILMAP_TEST_NOMEM_H
#define ILMAP_TEST_NOMEM_H

#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);

static long nomem_budget = -1;
static long nomem_calls;

static int nomem_allow(void)
{
    nomem_calls++;
    if (nomem_budget < 0)
        return 1;
    if (nomem_budget == 0)
        return 0;
    nomem_budget--;
    return 1;
}

void *__wrap_malloc(size_t size)
{
    return nomem_allow() ? __real_malloc(size) : NULL;
}

void *__wrap_calloc(size_t n, size_t size)
{
    return nomem_allow() ? __real_calloc(n, size) : NULL;
}

void *__wrap_realloc(void *p, size_t size)
{
    return nomem_allow() ? __real_realloc(p, size) : NULL;
}

#endif
