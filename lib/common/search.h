/*
 * The library's one plain binary search, for every sorted array that is
 * searched without an index: search_partition() over any predicate, and
 * search_lower_u32() / search_upper_u32() over ascending uint32_t keys
 * laid out at a fixed byte stride (a plain array, or one field of an
 * array of structs).
 *
 * Plus the branch-free form, search_rank_u16/u32/u64(), for the read
 * paths where lookups are random (a sampler's): a classic search
 * mispredicts half of its branches there, and each misprediction costs
 * more than the compare; this one compiles to conditional moves.
 *
 * The fast paths are separate and stay so: the lookup kernels of
 * lib/core/lookup_kernels.c and the rank indexes of lib/index/.
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

/*
 * Branch-free: how many of the n ascending keys (keys[0], keys[stride],
 * ...) are <= key (< key unless or_equal). One definition for the three
 * key widths the read paths use.
 */
#define SEARCH_DEFINE_RANK(name, type)                                                     \
    SEARCH_INLINE uint32_t name(const type *keys, size_t stride, uint32_t n, type key,     \
                                int or_equal)                                               \
    {                                                                                       \
        uint32_t lo = 0;                                                                    \
        if (n == 0)                                                                         \
            return 0;                                                                       \
        while (n > 1) {                                                                     \
            uint32_t half = n / 2;                                                          \
            type k = keys[(size_t)(lo + half) * stride];                                    \
            lo = (or_equal ? k <= key : k < key) ? lo + half : lo;                          \
            n -= half;                                                                      \
        }                                                                                   \
        type k = keys[(size_t)lo * stride];                                                 \
        return lo + (uint32_t)(or_equal ? k <= key : k < key);                              \
    }

SEARCH_DEFINE_RANK(search_rank_u16, uint16_t)
SEARCH_DEFINE_RANK(search_rank_u32, uint32_t)
SEARCH_DEFINE_RANK(search_rank_u64, uint64_t)

#endif
