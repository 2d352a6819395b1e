/*
 * The library's one plain binary search, for every sorted array that is
 * searched without an index: search_partition() over any predicate, and
 * search_lower_u32() / search_upper_u32() over ascending uint32_t keys
 * laid out at a fixed byte stride (a plain array, or one field of an
 * array of structs).
 *
 * The fast paths are separate and stay so: the lookup kernels of
 * lib/core/lookup_kernels.c, the rank indexes of lib/index/, and the
 * branch-free vt_rank1() of the version tables.
 *
 * Everything here is inlined (SEARCH_INLINE), so the predicate is a
 * constant and a search costs what the hand-written loop cost.
 */
#ifndef ILMAP_COMMON_SEARCH_H
#define ILMAP_COMMON_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define SEARCH_INLINE static inline __attribute__((always_inline))
#else
#define SEARCH_INLINE static inline
#endif

/* The partition point of [lo, hi): the first i with before(ctx, i) == 0,
 * hi when there is none. before must hold on a prefix of [lo, hi) and
 * fail on the rest (e.g. "key[i] < x" on ascending keys). */
SEARCH_INLINE size_t search_partition(size_t lo, size_t hi,
                                      int (*before)(const void *ctx, size_t i),
                                      const void *ctx)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (before(ctx, mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Key i of a uint32_t column that starts at base, stride bytes apart. */
SEARCH_INLINE uint32_t search_key_u32(const void *base, size_t stride, size_t i)
{
    uint32_t k;
    memcpy(&k, (const unsigned char *)base + i * stride, sizeof k);
    return k;
}

typedef struct search_u32 {
    const void *base;
    size_t stride;
    uint32_t key;
} search_u32;

SEARCH_INLINE int search_below_u32(const void *ctx, size_t i)
{
    const search_u32 *s = ctx;
    return search_key_u32(s->base, s->stride, i) < s->key;
}

SEARCH_INLINE int search_at_or_below_u32(const void *ctx, size_t i)
{
    const search_u32 *s = ctx;
    return search_key_u32(s->base, s->stride, i) <= s->key;
}

/* How many of the n ascending keys (base, stride as for search_key_u32())
 * are < key: the index of the first key >= key (n when none). */
SEARCH_INLINE size_t search_lower_u32(const void *base, size_t stride, size_t n, uint32_t key)
{
    const search_u32 s = { base, stride, key };
    return search_partition(0, n, search_below_u32, &s);
}

/* How many of the n ascending keys are <= key: the index of the first key
 * > key (n when none); the floor key, when there is one, is at the index
 * before it. */
SEARCH_INLINE size_t search_upper_u32(const void *base, size_t stride, size_t n, uint32_t key)
{
    const search_u32 s = { base, stride, key };
    return search_partition(0, n, search_at_or_below_u32, &s);
}

#endif
