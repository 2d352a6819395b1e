#include "native/buckets.h"

/* The narrowest buckets that keep the table at most one bucket per four
 * keys (and at least one). */
void buckets_plan(const uint32_t *keys, uint32_t n, uint32_t *nbuckets, uint32_t *shift)
{
    uint64_t extent = n ? (uint64_t)keys[n - 1] + 1 : 1;
    uint64_t most = n / 4 ? n / 4 : 1;
    uint32_t s = 0;

    while (((extent + ((uint64_t)1 << s) - 1) >> s) > most)
        s++;
    *nbuckets = (uint32_t)((extent + ((uint64_t)1 << s) - 1) >> s);
    *shift = s;
}

void buckets_fill(const uint32_t *keys, uint32_t n, uint32_t base, uint32_t nbuckets,
                  uint32_t shift, uint32_t *first)
{
    uint32_t k = 0;

    for (uint64_t i = 0; i <= nbuckets; i++) {
        while (k < n && keys[k] < (i << shift))
            k++;
        first[i] = base + k;
    }
}
