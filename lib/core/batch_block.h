/*
 * Blocks of eight queries, shared by the batch lookups (map_batch.c) and
 * the batch kernels (lookup_kernels.c). Each answer is valid on a whole
 * interval of inputs (all inputs between two consecutive keys share it),
 * so a batch remembers the interval of its last search and answers a
 * block inside it with one compare and a fill.
 */
#ifndef ILMAP_CORE_BATCH_BLOCK_H
#define ILMAP_CORE_BATCH_BLOCK_H

#include "core/map.h"
#include "index/count.h"

/* Queries x with x - lo < span (unsigned) all answer `value`: the
 * interval between the rank-th key and the next. */
struct batch_interval {
    uint32_t lo;
    uint32_t span;
    uint32_t value;
    uint32_t rank; /* keys <= lo */
};

/* Which inputs a flavour answers by the search: x - base < width, with
 * the answer values[max(rank, floor)]. The others are special: the
 * in-process rules answer inputs >= EPILOG themselves (base 0, width
 * EPILOG, floor 0: rank 0 is PROLOG). The DAC has no PROLOG rule: below
 * the first key its scan answers values[1] unless the map has stops at or
 * under key[0] (map.h), so it searches every input below 0x80000000 with
 * floor 1 (rank 0 answers as rank 1); with such stops (lenient maps
 * only) the inputs below the first key are special too (base key[0]).
 * Only inputs below the first key have rank 0: x - first < first_span
 * for all the others the flavour searches. */
struct batch_flavour {
    uint32_t base;
    uint32_t width;
    uint32_t floor;
    uint32_t first;
    uint32_t first_span;
};

/* What the interval of a rank is read from, loaded once per batch (the
 * stores of the answers could otherwise alias the map's fields). */
struct batch_source {
    const int32_t *leaves;  /* the index's leaf layer: the keys, biased */
    const uint32_t *values; /* values[rank] */
    uint32_t nkeys;
    uint32_t base;          /* the start of the flavour's searched inputs */
    uint32_t limit;         /* the end of them */
    uint32_t floor;         /* the flavour's least rank (batch_flavour) */
    uint32_t first, first_span; /* the searched inputs of rank >= 1 */
};

static inline struct batch_source batch_source_of(const struct ilmap_direction *d,
                                                  const struct batch_flavour *fl)
{
    const rank_index *index = &d->index;
    struct batch_source src = { index->nodes + index->layer_start[index->nlayers - 1],
                                d->values, index->nkeys, fl->base, fl->base + fl->width,
                                fl->floor, fl->first, fl->first_span };
    return src;
}

/* The answer for `rank` keys at or below the query: a select, no branch. */
static inline uint32_t batch_value(const struct batch_source *src, uint32_t rank)
{
    return src->values[rank < src->floor ? src->floor : rank];
}

/* The interval of inputs with `rank` keys at or below them, capped at
 * the end of the flavour's searched inputs. Ranks up to the floor share
 * their answer: their interval starts where the searched inputs do. */
static inline void batch_interval_at(const struct batch_source *src, uint32_t rank,
                                     struct batch_interval *iv)
{
    uint32_t lo = rank > src->floor ? (uint32_t)src->leaves[rank - 1] ^ RANK_BIAS : src->base;
    uint32_t hi = src->limit;

    if (rank < src->nkeys && ((uint32_t)src->leaves[rank] ^ RANK_BIAS) < hi)
        hi = (uint32_t)src->leaves[rank] ^ RANK_BIAS;
    iv->lo = lo;
    iv->span = hi - lo;
    iv->value = batch_value(src, rank);
    iv->rank = rank;
}

/* The answers of a searched block of eight queries at in, of ranks r:
 * values[r[k]], with the floor's select only in a block holding a query
 * below the first key (a compare per block, not a select per query). in
 * and out may be the same: in is read before out is written. */
static inline void batch_answer8(const struct batch_source *src, const uint32_t *in,
                                 const uint32_t *r, uint32_t *out)
{
    if (src->floor != 0 && !count8_all_within(in, src->first, src->first_span)) {
        for (uint32_t k = 0; k < 8; k++)
            out[k] = batch_value(src, r[k]);
        return;
    }
    for (uint32_t k = 0; k < 8; k++)
        out[k] = src->values[r[k]];
}

#endif
