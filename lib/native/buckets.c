#include "native/buckets.h"

void buckets_plan(const uint32_t *keys, uint32_t n, uint32_t *nbuckets, uint32_t *shift)
{
    uint64_t extent = n ? (uint64_t)keys[n - 1] + 1 : 1;
    uint32_t count = 1, s = 0;

    while (count < n)
        count *= 2;
    while (((uint64_t)count << s) < extent)
        s++;
    *nbuckets = count;
    *shift = s;
}

void buckets_init(buckets *b, const uint32_t *keys, uint32_t n, uint32_t nbuckets,
                  uint32_t shift, uint32_t *key_store, uint32_t *first_store)
{
    uint32_t k = 0;

    for (uint32_t i = 0; i < n; i++)
        key_store[i] = keys[i];
    for (uint32_t i = 0; i < BUCKET_SCAN; i++)
        key_store[n + i] = 0xFFFFFFFFu;
    for (uint64_t i = 0; i <= nbuckets; i++) {
        while (k < n && keys[k] < (i << shift))
            k++;
        first_store[i] = k;
    }
    b->keys = key_store;
    b->first = first_store;
    b->nkeys = n;
    b->nbuckets = nbuckets;
    b->shift = shift;
}
