/*
 * A bucket table in front of a rank index: "how many keys are <= x" in
 * O(1) where keys are spread out, falling back to the rank index's
 * O(log n) where they crowd. Native offsets and IL offsets of one method
 * are both spread over a small range, so nearly every lookup stays in
 * the table.
 *
 * Bucket b covers [b << shift, (b + 1) << shift) and first[b] counts the
 * keys below it; there are about as many buckets as keys. A bucket of at
 * most BUCKET_SCAN keys is finished by comparing them all, without a
 * branch: the keys after the bucket's (the next buckets', then
 * BUCKET_SCAN padding keys 0xFFFFFFFF) exceed every x in it.
 */
#ifndef ILMAP_NATIVE_BUCKETS_H
#define ILMAP_NATIVE_BUCKETS_H

#include <stdint.h>

#include "index/rank_index.h"

#define BUCKET_SCAN 4u

typedef struct buckets {
    const uint32_t *keys;  /* nkeys ascending, then BUCKET_SCAN padding */
    const uint32_t *first; /* nbuckets + 1 */
    uint32_t nkeys;
    uint32_t nbuckets;
    uint32_t shift;
} buckets;

/* The table's shape for keys[0, n) (ascending, all < 0xFFFFFFFF). */
void buckets_plan(const uint32_t *keys, uint32_t n, uint32_t *nbuckets, uint32_t *shift);

/* Fills key_store (n + BUCKET_SCAN slots) and first_store (nbuckets + 1)
 * and points b at them. */
void buckets_init(buckets *b, const uint32_t *keys, uint32_t n, uint32_t nbuckets,
                  uint32_t shift, uint32_t *key_store, uint32_t *first_store);

/* How many keys are <= x, for x < 0xFFFFFFFF; tree indexes the same
 * keys. */
static inline uint32_t buckets_count_le(const buckets *b, const rank_index *tree, uint32_t x)
{
    uint64_t i = (uint64_t)x >> b->shift;

    if (i >= b->nbuckets)
        return b->nkeys; /* every key lies below the last bucket's end */
    uint32_t lo = b->first[i], hi = b->first[i + 1];
    if (hi - lo > BUCKET_SCAN)
        return rank_index_count_le(tree, x);
    const uint32_t *k = b->keys + lo;
    return lo + (k[0] <= x) + (k[1] <= x) + (k[2] <= x) + (k[3] <= x);
}

#endif
