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
 * And the slotted form, search_slots_*() / search_slot_rank_*(), for keys
 * that partition a known span (offsets in a page of code, in a body): a
 * table that says how many keys lie below each slot of the span takes
 * the search straight to the one or two keys of x's slot, a constant
 * number of dependent loads however many keys there are.
 *
 * The fast paths are separate and stay so: the lookup kernels of
 * lib/core/lookup_kernels.c and the rank indexes of lib/index/.
 *
 * Everything here is inlined (ILMAP_ALWAYS_INLINE), so the predicate is a
 * constant and a search costs what the hand-written loop cost.
 */
#ifndef ILMAP_COMMON_SEARCH_H
#define ILMAP_COMMON_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "platform/compiler.h"


/* The partition point of [lo, hi): the first i with before(ctx, i) == 0,
 * hi when there is none. before must hold on a prefix of [lo, hi) and
 * fail on the rest (e.g. "key[i] < x" on ascending keys). */
ILMAP_ALWAYS_INLINE size_t search_partition(size_t lo, size_t hi,
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
ILMAP_ALWAYS_INLINE uint32_t search_key_u32(const void *base, size_t stride, size_t i)
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

ILMAP_ALWAYS_INLINE int search_below_u32(const void *ctx, size_t i)
{
    const search_u32 *s = ctx;
    return search_key_u32(s->base, s->stride, i) < s->key;
}

ILMAP_ALWAYS_INLINE int search_at_or_below_u32(const void *ctx, size_t i)
{
    const search_u32 *s = ctx;
    return search_key_u32(s->base, s->stride, i) <= s->key;
}

/* How many of the n ascending keys (base, stride as for search_key_u32())
 * are < key: the index of the first key >= key (n when none). */
ILMAP_ALWAYS_INLINE size_t search_lower_u32(const void *base, size_t stride, size_t n, uint32_t key)
{
    const search_u32 s = { base, stride, key };
    return search_partition(0, n, search_below_u32, &s);
}

/* How many of the n ascending keys are <= key: the index of the first key
 * > key (n when none); the floor key, when there is one, is at the index
 * before it. */
ILMAP_ALWAYS_INLINE size_t search_upper_u32(const void *base, size_t stride, size_t n, uint32_t key)
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
    ILMAP_ALWAYS_INLINE uint32_t name(const type *keys, size_t stride, uint32_t n, type key,     \
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

/*
 * Slots: the span [0, span) of the keys cut into slots of 2^shift, slot
 * s covering [s << shift, (s + 1) << shift). A table below[0..nslots]
 * (nslots + 1 entries) holds, per slot, how many keys are < its first
 * value (so below[nslots] == n). The keys <= x are then below[s] plus
 * those of slot s that are <= x (s = x >> shift): with about as many
 * slots as keys, one or two.
 *
 * search_slot_shift(): the smallest shift that cuts span (>= 1) into at
 * most max(n, 1) slots, but at most 31 (so a span over 2^31 gets at least
 * two), and their number: ceil(span / 2^shift).
 */
ILMAP_ALWAYS_INLINE unsigned search_slot_shift(uint64_t span, uint32_t n, uint32_t *nslots)
{
    uint64_t want = n ? n : 1;
    unsigned shift = 0;
    while (shift < 31 && ((span - 1) >> shift) + 1 > want)
        shift++;
    *nslots = (uint32_t)(((span - 1) >> shift) + 1);
    return shift;
}

/* Fills below[0..nslots] for n ascending keys (keys[0], keys[stride], ...)
 * whose values are < nslots << shift. */
#define SEARCH_DEFINE_SLOTS(name, key_type, below_type)                                     \
    ILMAP_ALWAYS_INLINE void name(const key_type *keys, size_t stride, uint32_t n, unsigned shift, \
                            uint32_t nslots, below_type *below)                             \
    {                                                                                       \
        uint32_t i = 0;                                                                     \
        for (uint32_t s = 0; s <= nslots; s++) {                                            \
            uint64_t first = (uint64_t)s << shift;                                          \
            while (i < n && keys[(size_t)i * stride] < first)                              \
                i++;                                                                        \
            below[s] = (below_type)i;                                                       \
        }                                                                                   \
    }

/* How many of the keys are <= x (x < nslots << shift), by the table. */
#define SEARCH_DEFINE_SLOT_RANK(name, key_type, below_type, rank)                           \
    ILMAP_ALWAYS_INLINE uint32_t name(const key_type *keys, size_t stride, const below_type *below, \
                                unsigned shift, key_type x)                                 \
    {                                                                                       \
        uint32_t s = (uint32_t)(x >> shift);                                                \
        uint32_t lo = below[s];                                                             \
        return lo + rank(keys + (size_t)lo * stride, stride, (uint32_t)below[s + 1] - lo, x, 1); \
    }

SEARCH_DEFINE_SLOTS(search_slots_u16, uint16_t, uint16_t)
SEARCH_DEFINE_SLOTS(search_slots_u32, uint32_t, uint32_t)
SEARCH_DEFINE_SLOT_RANK(search_slot_rank_u16, uint16_t, uint16_t, search_rank_u16)
SEARCH_DEFINE_SLOT_RANK(search_slot_rank_u32, uint32_t, uint32_t, search_rank_u32)

#endif
