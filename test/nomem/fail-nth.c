/*
 * A failing allocator for whole programs (the ilmap tool), loaded with
 * LD_PRELOAD: the ILMAP_FAIL_AT-th allocation after the program's start
 * (1-based, counting malloc, calloc, realloc, aligned_alloc,
 * posix_memalign and memalign, libc's own calls included, e.g. inside
 * fopen) returns NULL with errno ENOMEM; every other one goes to glibc's
 * allocator. At exit it writes to the file ILMAP_FAIL_REPORT "injected"
 * when the failure happened, "clean" when the program made fewer
 * allocations (so a driver knows when it has tried every point).
 * glibc only (it calls __libc_malloc and friends); single-threaded
 * programs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);
void *__libc_memalign(size_t align, size_t size);

static long fail_at = -1; /* armed by the constructor */
static long calls;
static int injected;

static int allow(void)
{
    if (fail_at < 0)
        return 1;
    if (++calls != fail_at)
        return 1;
    injected = 1;
    errno = ENOMEM;
    return 0;
}

void *malloc(size_t size)
{
    return allow() ? __libc_malloc(size) : NULL;
}

void *calloc(size_t n, size_t size)
{
    return allow() ? __libc_calloc(n, size) : NULL;
}

void *realloc(void *p, size_t size)
{
    return allow() ? __libc_realloc(p, size) : NULL;
}

void *memalign(size_t align, size_t size)
{
    return allow() ? __libc_memalign(align, size) : NULL;
}

void *aligned_alloc(size_t align, size_t size)
{
    return allow() ? __libc_memalign(align, size) : NULL;
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (!allow())
        return ENOMEM;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

__attribute__((constructor)) static void arm(void)
{
    const char *at = getenv("ILMAP_FAIL_AT");
    if (at && *at)
        fail_at = strtol(at, NULL, 10);
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("ILMAP_FAIL_REPORT");
    long was = fail_at;
    fail_at = -1; /* fopen below must not fail */
    if (!path || was < 0)
        return;
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(injected ? "injected\n" : "clean\n", f);
        fclose(f);
    }
}
