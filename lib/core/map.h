/* The inside of an ilmap: the entries as given, plus one search direction
 * per column. */
#ifndef ILMAP_CORE_MAP_H
#define ILMAP_CORE_MAP_H

#include "common/search.h"
#include "ilmap.h"
#include "index/cpu.h"
#include "index/count.h"
#include "index/rank_index.h"

/*
 * One translation direction, keyed on one column (key) answering from the
 * other (value).
 *
 * The runtime's scan (doc/il-maps.md#translation, rules 4-5) answers value[i-1]
 * for the first i >= 1 with x < key[i], else value[n-1]. Only "stops", entries
 * whose key exceeds every earlier key from index 1 on, can end the scan first,
 * and their keys ascend strictly. Rule 2 answers PROLOG below key[0]; for
 * x >= key[0] stops with keys <= key[0] never end the scan. So the index
 * holds key[0] followed by the stops above it, and values[r], for r keys
 * <= x, is PROLOG for r = 0 and the scan's answer otherwise: one search,
 * no branch on the PROLOG rule. For a strict map every entry from 1 on is
 * a stop: the index is the whole key column, values is PROLOG followed by
 * the value column.
 *
 * The DAC flavour has no PROLOG rule: below key[0] it needs the stops at
 * or under key[0] (`low_*`, lenient maps only), and otherwise the first
 * stop above key[0], whose answer is values[1].
 */
struct ilmap_direction;
typedef uint32_t (*direction_lookup_fn)(const struct ilmap_direction *d, uint32_t x);
/* Eight searches at once: rank[k] = count of keys <= x[k] (the answer is
 * values[rank[k]]), every x[k] < 0xFFFFFFFF (map_batch.c;
 * lookup_kernels.c). */
#define DIRECTION_BLOCK 8u
typedef void (*direction_rank8_fn)(const struct ilmap_direction *d, const uint32_t *x,
                                   uint32_t *rank);
/* A run of blocks (batch_block.h): from in[0..n), whole blocks of eight,
 * each inside *iv filled with its value, the others searched as rank8
 * does it (inline, no call per block) with *iv moved to the interval of
 * the block's last query. Stops before the first block holding an input
 * the flavour does not search; returns how many queries it answered (a
 * multiple of 8). Trees of at most BATCH_KERNEL_LAYERS layers; NULL for
 * taller ones. */
struct batch_interval;
struct batch_flavour;
#define BATCH_KERNEL_LAYERS 3u
typedef size_t (*direction_batch_fn)(const struct ilmap_direction *d,
                                     const struct batch_flavour *fl, const uint32_t *in,
                                     uint32_t *out, size_t n, struct batch_interval *iv);

struct ilmap_direction {
    uint32_t first_key;         /* key[0]; 0 for an empty map */
    int inline_vectors;         /* SSE2 and one node: 1 (<= 4 keys) or 4 vectors
                                   compared inline; 0: call `lookup` */
    direction_lookup_fn lookup; /* values[count of keys <= x]; x < 0xFFFFFFFF */
    direction_rank8_fn rank8;   /* the search for a block of eight */
    direction_batch_fn batch;   /* runs of blocks (small trees), or NULL */
    direction_batch_fn batch_dac; /* the same for the DAC flavour */
    const uint32_t *values;     /* index.nkeys + 1 answers, values[0] = PROLOG */
    rank_index index;
    uint32_t low_count;         /* stops with keys <= key[0] (lenient) */
    const uint32_t *low_keys;
    const uint32_t *low_values;
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

/* Rules 2-3 for the special inputs: PROLOG stays PROLOG, NO_MAPPING
 * passes through, EPILOG too unless it is below the first key (rule 2
 * comes first). An empty map has first_key 0: all pass through. */
static inline uint32_t direction_translate_special(const struct ilmap_direction *d, uint32_t x)
{
    if (x == ILMAP_PROLOG || x < d->first_key)
        return ILMAP_PROLOG;
    return x;
}

/* The in-process rules (doc/il-maps.md#translation, rules 1-5). */
static inline uint32_t direction_translate(const struct ilmap_direction *d, uint32_t x)
{
    if (x >= ILMAP_EPILOG)
        return direction_translate_special(d, x);
#ifdef RANK_HAVE_X86
    /* Small maps are the common case (methods have tens of entries): one
     * node compare here saves the jump to a kernel. */
    if (d->inline_vectors == 1)
        return d->values[node_count4_sse2(d->index.nodes, (int32_t)(x ^ RANK_BIAS))];
    if (d->inline_vectors)
        return d->values[node_count_sse2(d->index.nodes, (int32_t)(x ^ RANK_BIAS))];
#elif defined(RANK_HAVE_NEON)
    if (d->inline_vectors == 1)
        return d->values[node_count4_neon(d->index.nodes, (int32_t)(x ^ RANK_BIAS))];
    if (d->inline_vectors)
        return d->values[node_count_neon(d->index.nodes, (int32_t)(x ^ RANK_BIAS))];
#endif
    return d->lookup(d, x);
}

/* The DAC's scan below the first key (no PROLOG rule): the first stop
 * whose key exceeds x answers; stops at or under key[0] come first. */
static inline uint32_t direction_dac_below_first_key(const struct ilmap_direction *d, uint32_t x)
{
    size_t lo = search_upper_u32(d->low_keys, sizeof *d->low_keys, d->low_count, x);
    return lo < d->low_count ? d->low_values[lo] : d->values[1];
}

/* The DAC's rules (doc/il-maps.md#dac): inputs negative as signed 32-bit
 * values, specials too, pass through; below the first key the scan
 * without the PROLOG rule; otherwise the in-process search. */
static inline uint32_t direction_translate_dac(const struct ilmap_direction *d, uint32_t x)
{
    if (x >= 0x80000000u)
        return x;
    if (x < d->first_key)
        return direction_dac_below_first_key(d, x);
    return d->lookup(d, x);
}

#endif
