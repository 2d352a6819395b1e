/* The inside of an ilmap: the entries as given, plus one search direction
 * per column. */
#ifndef ILMAP_CORE_MAP_H
#define ILMAP_CORE_MAP_H

#include "ilmap.h"
#include "index/cpu.h"
#include "index/rank_index.h"

/*
 * One translation direction. The runtime's scan (spec §1, rules 4-5)
 * answers value[i-1] for the first i >= 1 with x < key[i], else
 * value[n-1]. Only entries whose key exceeds every earlier key (from
 * index 1 on) can stop the scan, and those keys ascend strictly; `index`
 * holds them and values[r] is the answer when r of them are <= x. For a
 * strict map they are all of key[1..n), so values is the other column.
 */
struct ilmap_direction {
    uint32_t first_key;     /* key[0]: the PROLOG rule's bound */
    rank_index index;
    const uint32_t *values; /* index.nkeys + 1 answers */
};

struct ilmap {
    uint32_t count;
    int lenient;
    cpu_level level;
    const uint32_t *old_column;
    const uint32_t *new_column;
    const int32_t *accurate;
    struct ilmap_direction old_to_new;
    struct ilmap_direction new_to_old;
    size_t bytes;
};

/* The in-process rules (spec §1, rules 2-5) for a non-empty map. */
static inline uint32_t direction_translate(const struct ilmap_direction *d, uint32_t x)
{
    if (x < d->first_key || x == ILMAP_PROLOG)
        return ILMAP_PROLOG;
    if (x >= ILMAP_EPILOG) /* EPILOG or NO_MAPPING: PROLOG is handled */
        return x;
    return d->values[rank_index_count_le(&d->index, x)];
}

#endif
