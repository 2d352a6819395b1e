#include "native/buckets.h"

uint32_t buckets_plan(uint32_t last, uint64_t most, uint32_t *nbuckets)
{
    uint64_t extent = (uint64_t)last + 1;
    uint32_t s = 0;

    if (most < 2)
        most = 2; /* keeps the shift below 32 */
    while (((extent + ((uint64_t)1 << s) - 1) >> s) > most)
        s++;
    *nbuckets = (uint32_t)((extent + ((uint64_t)1 << s) - 1) >> s);
    return s;
}

void buckets_fill(const uint32_t *keys, uint32_t n, uint32_t base, uint32_t nbuckets,
                  uint32_t shift, int wide, void *first)
{
    uint32_t k = 0;

    for (uint64_t i = 0; i <= (uint64_t)nbuckets + 1; i++) {
        while (k < n && keys[k] < (i << shift))
            k++;
        if (wide)
            ((uint32_t *)first)[i] = base + k;
        else
            ((uint16_t *)first)[i] = (uint16_t)(base + k);
    }
}
