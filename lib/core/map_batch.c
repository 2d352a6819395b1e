/*
 * Batch lookups. Every answer is the single lookup's; what makes a batch
 * fast is that each answer is valid on a whole interval of inputs (all
 * inputs between two consecutive keys share it), so the batch remembers
 * the last interval and answers every query inside it without a search
 * (batch_block.h). Sorted or clustered queries then cost a compare per
 * block of 8.
 */
#include <string.h>

#include "core/batch_block.h"
#include "platform/compiler.h"

/* Each flavour gets its own copy of the batch, with no test of the
 * flavour per query. */

typedef struct batch_interval interval;
typedef struct batch_flavour flavour;

/* The flavours (batch_block.h): the in-process rules search every input
 * below EPILOG; the DAC's, every input below 0x80000000 with rank 0
 * answered as rank 1, or from the first key on when the map has stops at
 * or under it (lenient maps: the scan below the first key reads them). */
static inline flavour flavour_of(const struct ilmap_direction *d, int dac)
{
    flavour f = { 0, ILMAP_EPILOG, 0, 0, ILMAP_EPILOG };
    if (dac) {
        f.base = d->low_count ? d->first_key : 0;
        f.width = f.base < 0x80000000u ? 0x80000000u - f.base : 0;
        f.floor = 1;
        f.first = d->first_key;
        f.first_span = d->first_key < 0x80000000u ? 0x80000000u - d->first_key : 0;
    }
    return f;
}

/* The flavour's answer for `rank` keys at or below the query. */
static inline uint32_t flavour_value(const struct ilmap_direction *d, const flavour *fl,
                                     uint32_t rank)
{
    return d->values[rank < fl->floor ? fl->floor : rank];
}

/* The single lookup of a flavour. */
static inline uint32_t translate_one(const struct ilmap_direction *d, uint32_t x, int dac)
{
    return dac ? direction_translate_dac(d, x) : direction_translate(d, x);
}

/* Inside the interval: its value; else the single lookup. No interval
 * update, so consecutive lookups stay independent (they overlap in the
 * CPU), which is what random queries need. */
static inline uint32_t translate_or_reuse(const struct ilmap_direction *d, uint32_t x,
                                          const interval *iv, int dac)
{
    if (x - iv->lo < iv->span)
        return iv->value;
    return translate_one(d, x, dac);
}


/* Ascending queries past the remembered interval, one search each as a
 * merge does it: the count of the next 8 keys of the index's leaf layer
 * that are <= x moves the rank on (a full search when x is 8 keys or
 * more ahead, or the window would leave the layer). Returns 0 when a
 * query is special (the caller searches the block instead), else 1, with
 * iv at the last query's interval. */
static inline int block_merge(const struct ilmap_direction *d, const flavour *fl,
                              const uint32_t *in, uint32_t *out, interval *iv)
{
    const rank_index *index = &d->index;
    const int32_t *leaves = index->nodes + index->layer_start[index->nlayers - 1];
    uint32_t room = (index->nkeys + RANK_NODE_KEYS - 1u) / RANK_NODE_KEYS * RANK_NODE_KEYS;
    uint32_t r = iv->rank, x[DIRECTION_BLOCK], ranks[DIRECTION_BLOCK];

    if (!count8_all_within(in, fl->base, fl->width))
        return 0;
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
        x[k] = in[k]; /* read all before the first answer is written (in place) */
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {
        uint32_t c = r + 8u <= room ? count8_i32(leaves + r, (int32_t)(x[k] ^ RANK_BIAS)) : 8u;
        r = c < 8u ? r + c : rank_index_count_le(index, x[k]);
        ranks[k] = r;
    }
    const struct batch_source src = batch_source_of(d, fl);
    batch_answer8(&src, x, ranks, out);
    batch_interval_at(&src, r, iv);
    return 1;
}

/* Eight lookups with no call per query (the direction's block search:
 * interleaved descents). The inputs the flavour does not search are
 * searched as 0 and answered by its rule. in and out may be the
 * same: every query is read before the first answer is written. Returns
 * the rank of the last query, or UINT32_MAX when the block held an input
 * not searched. */
static inline uint32_t block_lookup(const struct ilmap_direction *d, const flavour *fl,
                                    const uint32_t *in, uint32_t *out, int dac)
{
    uint32_t r[DIRECTION_BLOCK];

    if (count8_all_within(in, fl->base, fl->width)) {
        /* The caller's queries themselves: a copy just stored would be
         * read back by the kernel's wide loads, which store forwarding
         * does not serve (a stall per block). */
        const struct batch_source src = batch_source_of(d, fl);
        d->rank8(d, in, r);
        batch_answer8(&src, in, r, out);
        return r[DIRECTION_BLOCK - 1];
    }
    uint32_t x[DIRECTION_BLOCK], safe[DIRECTION_BLOCK];
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {
        x[k] = in[k];
        safe[k] = x[k] - fl->base < fl->width ? x[k] : 0;
    }
    d->rank8(d, safe, r);
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
        out[k] = x[k] - fl->base < fl->width ? flavour_value(d, fl, r[k])
                                             : translate_one(d, x[k], dac);
    return UINT32_MAX;
}

/* Two intervals in a row, the remembered one and the next: queries x with
 * x - lo < span answer value below end, next from end on. A block inside
 * them is answered by a select per query, whichever order its queries
 * are in, with no branch on where each falls. */
typedef struct pair {
    uint32_t lo, span, end, value, next, rank;
} pair;

static inline uint32_t key_capped(const struct ilmap_direction *d, uint32_t r, uint32_t limit)
{
    uint32_t k = r < d->index.nkeys ? rank_index_key(&d->index, r) : limit;
    return k < limit ? k : limit;
}

static inline void pair_at(const struct ilmap_direction *d, const flavour *fl, uint32_t rank,
                           pair *p)
{
    uint32_t limit = fl->base + fl->width;
    /* ranks up to the floor share their answer (batch_interval_at) */
    uint32_t lo = rank > fl->floor ? rank_index_key(&d->index, rank - 1) : fl->base;

    p->lo = lo;
    p->end = key_capped(d, rank, limit);
    p->span = key_capped(d, rank + 1u, limit) - lo;
    p->value = flavour_value(d, fl, rank);
    /* At rank nkeys the first interval reaches the limit: no query is
     * at or past its end, and values[rank + 1] does not exist. */
    p->next = rank < d->index.nkeys ? flavour_value(d, fl, rank + 1u) : p->value;
    p->rank = rank;
}

/*
 * A tree of more than BATCH_KERNEL_LAYERS layers (over 4,624 keys, more
 * than the cache holds near the core). Per block: inside the remembered
 * pair of intervals, a select per query, and the pair moves on to the
 * last query's interval (several queries per key: no branch on whether
 * the block crossed a key); ascending past it (a sorted run, about a
 * query per key or sparser), a merge along the leaf keys, whose reads are
 * sequential; anything else, eight descents at once with the misses
 * overlapped. After an ascending block the pair of its last query is
 * remembered, from the rank found, where sorted queries continue (a block
 * of random queries ascends once in 40,320). Returns how many queries it
 * answered (whole blocks), and the last interval in *iv.
 */
static inline size_t batch_large(const struct ilmap_direction *d, const flavour *fl,
                                 const uint32_t *in, uint32_t *out, size_t n, interval *iv,
                                 int dac)
{
    pair p = { 0, 0, 0, 0, 0, 0 };
    size_t i = 0;

    for (; i + DIRECTION_BLOCK <= n; i += DIRECTION_BLOCK) {
        if (count8_all_within(in + i, p.lo, p.span)) {
            uint32_t last = in[i + DIRECTION_BLOCK - 1], end = p.end;
            for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
                out[i + k] = in[i + k] < end ? p.value : p.next;
            pair_at(d, fl, p.rank + (last >= end), &p);
            continue;
        }
        unsigned descents = 0;
        for (uint32_t k = 1; k < DIRECTION_BLOCK; k++)
            descents += in[i + k] < in[i + k - 1];
        interval at = { p.lo, p.end - p.lo, p.value, p.rank };
        if (descents == 0 && in[i] >= p.lo && p.span != 0 &&
            block_merge(d, fl, in + i, out + i, &at)) {
            pair_at(d, fl, at.rank, &p);
            continue;
        }
        uint32_t last = block_lookup(d, fl, in + i, out + i, dac);
        if (descents == 0 && last != UINT32_MAX)
            pair_at(d, fl, last, &p);
    }
    iv->lo = p.lo;
    iv->span = p.end - p.lo;
    iv->value = p.value;
    iv->rank = p.rank;
    return i;
}

ILMAP_ALWAYS_INLINE void translate_batch(const ilmap *map, const struct ilmap_direction *d,
                                   const uint32_t *in, uint32_t *out, size_t n, int dac)
{
    if (!in || !out || n == 0)
        return;
    if (!map || map->count == 0) { /* identity */
        if (in != out)
            memmove(out, in, n * sizeof *out);
        return;
    }

    const flavour fl = flavour_of(d, dac);
    interval iv = { 0, 0, 0, 0 };
    size_t i = 0;

    /* Blocks of 8, whatever the order of the queries, with no pre-pass
     * (the order is seen block by block). A small tree's kernel runs
     * until a block holds an input its flavour does not search, which is
     * answered here. */
    if (n < DIRECTION_BLOCK) {
        for (; i < n; i++) /* no whole block, no interval yet */
            out[i] = translate_one(d, in[i], dac);
        return;
    }
    const direction_batch_fn batch = dac ? d->batch_dac : d->batch;
    if (batch) {
        for (;;) {
            i += batch(d, &fl, in + i, out + i, n - i, &iv);
            if (i + DIRECTION_BLOCK > n)
                break;
            block_lookup(d, &fl, in + i, out + i, dac);
            i += DIRECTION_BLOCK;
        }
    } else {
        i = batch_large(d, &fl, in, out, n, &iv, dac);
    }
    for (; i < n; i++)
        out[i] = translate_or_reuse(d, in[i], &iv, dac);
}

void ilmap_old_to_new_batch(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n)
{
    translate_batch(map, map ? &map->old_to_new : NULL, in, out, n, 0);
}

void ilmap_new_to_old_batch(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n)
{
    translate_batch(map, map ? &map->new_to_old : NULL, in, out, n, 0);
}

void ilmap_new_to_old_dac_batch(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n)
{
    translate_batch(map, map ? &map->new_to_old : NULL, in, out, n, 1);
}
