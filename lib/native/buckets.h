/*
 * Counting the keys <= x in an ascending uint32_t array, the question
 * both lookup directions ask (native breakpoints, IL offsets).
 *
 * A bucket table answers it in O(1) where keys are spread out, O(log n)
 * where they crowd. Native offsets and IL offsets of one method are both
 * spread over a small range, so nearly every lookup is answered by one
 * bucket. Bucket b covers [b << shift, (b + 1) << shift) and first[b] is
 * the position of its first key; first[nbuckets] and first[nbuckets + 1]
 * are the position past the last key, so that a query beyond the table
 * is the (empty) bucket nbuckets, without a branch. Entries are uint16_t
 * when the positions fit, else uint32_t. The table's width is chosen
 * when the map is assembled: about a bucket per key, sparser where the
 * map's memory bound asks (assemble.c).
 *
 * A bucket of at most NATIVE_WINDOW keys is finished by comparing a
 * window of NATIVE_WINDOW keys from its first, without a branch (SSE2,
 * NEON, or portable code); values in the window past the bucket are
 * read but ignored, so the window must stay inside the map's block. A
 * fuller bucket is finished by the library's binary search.
 *
 * Small maps have no table: rank_search() is a branch-free binary search.
 */
#ifndef ILMAP_NATIVE_BUCKETS_H
#define ILMAP_NATIVE_BUCKETS_H

#include <stdint.h>

#include "common/search.h"
#include "index/count.h"
#include "native/native.h"


/* The flags of most indexed maps (native_index.flags): narrow tables,
 * and the SIMD window where the library has one. */
#if COUNT_HAVE_VECTOR
#define NATIVE_COMMON_FLAGS NATIVE_SIMD
#else
#define NATIVE_COMMON_FLAGS 0u
#endif

/* The narrowest buckets (smallest shift, below 32) over keys up to last
 * that give at most `most` buckets (at least 2); their count in
 * *nbuckets. */
uint32_t buckets_plan(uint32_t last, uint64_t most, uint32_t *nbuckets);

/* first[0, nbuckets + 2) for the ascending keys[0, n), which sit at
 * position base of the array the lookups search; uint32_t entries when
 * wide, else uint16_t. */
void buckets_fill(const uint32_t *keys, uint32_t n, uint32_t base, uint32_t nbuckets,
                  uint32_t shift, int wide, void *first);

/* How many of keys[0, n) are <= x: a branch-free binary search (the loop
 * runs log2(n) times whatever x is). */
ILMAP_ALWAYS_INLINE uint32_t rank_search(const uint32_t *keys, uint32_t n, uint32_t x)
{
    uint32_t lo = 0;

    if (n == 0)
        return 0;
    while (n > 1) {
        uint32_t half = n / 2;
        lo += (uint32_t)(keys[lo + half - 1] <= x) * half;
        n -= half;
    }
    return lo + (keys[lo] <= x);
}

/* How many of k[0, len) are <= x, len <= NATIVE_WINDOW, k ascending;
 * reads k[0, NATIVE_WINDOW): the map's choice of kernel (simd: the
 * vector one of index/count.h where the library has one). */
ILMAP_ALWAYS_INLINE uint32_t window_rank(const uint32_t *k, uint32_t len, uint32_t x, int simd)
{
    return simd ? count4_u32(k, len, x) : count4_u32_portable(k, len, x);
}

/* window_rank() where the bucket's keys and x are below 2^31 (the
 * lookups' inline paths, NATIVE_FAST_*: every bucket below nbuckets
 * ends there): a signed compare without the bias. */
ILMAP_ALWAYS_INLINE uint32_t window_rank_small(const uint32_t *k, uint32_t len, uint32_t x, int simd)
{
    return simd ? count4_u32_low(k, len, x) : count4_u32_portable(k, len, x);
}

/* Entry i of a bucket table. */
ILMAP_ALWAYS_INLINE uint32_t bucket_first(const void *first, int wide, uint32_t i)
{
    return wide ? ((const uint32_t *)first)[i] : ((const uint16_t *)first)[i];
}

/*
 * How many of array[0, end) are <= x, as a position: array is ascending
 * from the table's base up to end, first[] is its bucket table
 * (nbuckets, shift, wide). array[first[b], first[b] + NATIVE_WINDOW)
 * must be readable for every bucket b.
 */
ILMAP_ALWAYS_INLINE uint32_t buckets_rank(const uint32_t *array, const void *first, int wide,
                                    uint32_t nbuckets, uint32_t shift, uint32_t x, int simd)
{
    uint32_t b = x >> shift; /* shift < 32 */
    b = b < nbuckets ? b : nbuckets;
    uint32_t lo = bucket_first(first, wide, b), len = bucket_first(first, wide, b + 1) - lo;

    if (len > NATIVE_WINDOW)
        return lo + (uint32_t)search_upper_u32(array + lo, sizeof *array, len, x);
    return lo + window_rank(array + lo, len, x, simd);
}

/*
 * buckets_rank() for the lookups' inline paths: the count when x's
 * bucket is in the table and holds at most NATIVE_WINDOW keys, else
 * NATIVE_NONE, so that the caller hands the rare cases (x past the
 * table, a full bucket) to its general path by a tail call and the
 * inline path keeps no loop and few registers. Only for tables whose
 * buckets below nbuckets end by 2^31 (window_rank_small).
 */
ILMAP_ALWAYS_INLINE uint32_t buckets_rank_window(const uint32_t *array, const void *first, int wide,
                                           uint32_t nbuckets, uint32_t shift, uint32_t x,
                                           int simd)
{
    uint32_t b = x >> shift; /* shift < 32 */
    /* past the table (rare) too: a branch, not a clamp, so that the
     * bucket's loads need not wait for it */
    if (!NATIVE_LIKELY(b < nbuckets))
        return NATIVE_NONE;
    uint32_t lo = bucket_first(first, wide, b), len = bucket_first(first, wide, b + 1) - lo;

    if (len > NATIVE_WINDOW)
        return NATIVE_NONE;
    return lo + window_rank_small(array + lo, len, x, simd);
}

#endif
