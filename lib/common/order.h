/*
 * qsort comparators for plain unsigned keys: negative, zero or positive as
 * *a sorts before, with or after *b. One copy for the whole library (the
 * amalgamation puts every source in one translation unit).
 */
#ifndef ILMAP_COMMON_ORDER_H
#define ILMAP_COMMON_ORDER_H

#include <stdint.h>

static inline int order_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static inline int order_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

#endif
