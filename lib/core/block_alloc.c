#if defined(__linux__)
#define _DEFAULT_SOURCE 1 /* madvise */
#endif

#include "core/block_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define CACHE_LINE 64u
#define HUGE_PAGE ((size_t)2 << 20)
/* Below this, huge pages would waste more memory than they save time. */
#define HUGE_THRESHOLD ((size_t)4 << 20)

size_t block_plan_add(block_plan *plan, size_t count, size_t elem_size)
{
    size_t offset = (plan->size + (CACHE_LINE - 1)) & ~(size_t)(CACHE_LINE - 1);

    if (offset < plan->size || (elem_size && count > (SIZE_MAX - offset) / elem_size)) {
        plan->overflow = 1;
        return 0;
    }
    plan->size = offset + count * elem_size;
    return offset;
}

/* Layout: [malloc'd start ... | start pointer][aligned block ...]. The
 * start pointer sits just before the block so block_free can find it. */
void *block_alloc(size_t size, size_t *held)
{
    *held = 0;
    if (size > SIZE_MAX - CACHE_LINE - sizeof(void *))
        return NULL;
    void *start = malloc(size + CACHE_LINE + sizeof(void *));
    if (!start)
        return NULL;
    uintptr_t raw = (uintptr_t)start + sizeof(void *);
    unsigned char *block = (unsigned char *)((raw + (CACHE_LINE - 1)) & ~(uintptr_t)(CACHE_LINE - 1));
    memcpy(block - sizeof(void *), &start, sizeof start);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Advice for the whole huge pages inside the block; only the ends
     * stay on small pages, and no memory is spent on alignment. */
    if (size >= HUGE_THRESHOLD) {
        uintptr_t first = ((uintptr_t)block + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
        uintptr_t end = ((uintptr_t)block + size) & ~(uintptr_t)(HUGE_PAGE - 1);
        if (end > first) /* advice only: failure changes nothing */
            (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
    }
#endif
    *held = size + CACHE_LINE + sizeof(void *);
    return block;
}

void block_free(void *block)
{
    void *start;

    if (!block)
        return;
    memcpy(&start, (unsigned char *)block - sizeof(void *), sizeof start);
    free(start);
}
