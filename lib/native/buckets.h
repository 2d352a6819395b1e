/*
 * A bucket table in front of an ascending uint32_t array: "how many keys
 * are <= x" in O(1) where keys are spread out, O(log n) where they crowd.
 * Native offsets and IL offsets of one method are both spread over a
 * small range, so nearly every lookup is answered by one bucket.
 *
 * Bucket b covers [b << shift, (b + 1) << shift) and first[b] is the
 * position of its first key (keys below it: first[b] - first[0]). There
 * is about one bucket per four to eight keys, so the table costs at most
 * a byte per key. A bucket of at most NATIVE_SCAN keys is finished by
 * counting, without a branch, over a window of NATIVE_SCAN keys that
 * holds it; a fuller one by the library's binary search.
 */
#ifndef ILMAP_NATIVE_BUCKETS_H
#define ILMAP_NATIVE_BUCKETS_H

#include <stdint.h>

#include "common/search.h"

#define NATIVE_SCAN 16u

/* The table's shape for keys[0, n) (ascending, all < 0xFFFFFFFF):
 * *nbuckets buckets of 1 << *shift values. */
void buckets_plan(const uint32_t *keys, uint32_t n, uint32_t *nbuckets, uint32_t *shift);

/* first[0, nbuckets] for keys[0, n), which sit at position base of the
 * array the lookups search. */
void buckets_fill(const uint32_t *keys, uint32_t n, uint32_t base, uint32_t nbuckets,
                  uint32_t shift, uint32_t *first);

/*
 * How many keys are <= x, as the position after them: lo + the count in
 * bucket x's range [lo, hi). array[0, len) holds the keys (len >=
 * NATIVE_SCAN); its values before lo that the window reaches are skipped,
 * and those after hi must exceed x (the next buckets' keys, or values
 * the caller knows to be larger).
 * end is the position past the last key, for x beyond the table.
 */
static inline uint32_t buckets_rank(const uint32_t *array, uint32_t len, const uint32_t *first,
                                    uint32_t nbuckets, uint32_t shift, uint32_t end, uint32_t x)
{
    uint64_t b = (uint64_t)x >> shift;

    if (b >= nbuckets)
        return end;
    uint32_t lo = first[b], hi = first[b + 1];
    if (hi - lo > NATIVE_SCAN || len < NATIVE_SCAN)
        return lo + (uint32_t)search_upper_u32(array + lo, sizeof *array, hi - lo, x);
    uint32_t w = lo < len - NATIVE_SCAN ? lo : len - NATIVE_SCAN;
    const uint32_t *k = array + w;
    uint32_t n = 0;
    for (uint32_t j = 0; j < NATIVE_SCAN; j++)
        n += (w + j >= lo) & (k[j] <= x);
    return lo + n;
}

#endif
