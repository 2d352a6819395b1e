/* Size checks: overflow-checked size arithmetic (size_add, size_mul), and
 * checks against the 32-bit offsets of IL code, edits and maps.
 * Written so that they mean the same on every host: where size_t is 64
 * bits a count can exceed UINT32_MAX and is rejected; where size_t is 32
 * bits (i686, arm) every count fits and the check is a constant 0,
 * without a comparison the compiler would flag as always false. */
#ifndef ILMAP_COMMON_SIZE_LIMITS_H
#define ILMAP_COMMON_SIZE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

static inline int size_exceeds_u32(size_t n)
{
#if SIZE_MAX > UINT32_MAX
    return n > UINT32_MAX;
#else
    (void)n;
    return 0;
#endif
}

/* *out = a + b; 0 (and *out untouched) when it would overflow. */
static inline int size_add(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b)
        return 0;
    *out = a + b;
    return 1;
}

/* *out = a * b; 0 (and *out untouched) when it would overflow. */
static inline int size_mul(size_t a, size_t b, size_t *out)
{
    if (b != 0 && a > SIZE_MAX / b)
        return 0;
    *out = a * b;
    return 1;
}

#endif
