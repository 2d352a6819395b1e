/*
 * Batch lookups. Every answer is the single lookup's; what makes a batch
 * fast is that each answer is valid on a whole interval of inputs (all
 * inputs between two consecutive keys share it), so the batch remembers
 * the last interval and answers every query inside it without a search.
 * Sorted or clustered queries then cost a compare per block of 8.
 */
#include <string.h>

#include "core/map.h"

#ifdef RANK_HAVE_X86
#include <emmintrin.h>
#elif defined(RANK_HAVE_NEON)
#include <arm_neon.h>
#endif

/* Queries x with x - lo < span (unsigned) all answer `value`: the
 * interval between the rank-th key and the next. */
typedef struct interval {
    uint32_t lo;
    uint32_t span;
    uint32_t value;
    uint32_t rank; /* keys <= lo */
} interval;

/* The interval of inputs with `rank` keys at or below them, capped below
 * EPILOG (the index's keys are read from its leaf layer, in order). */
static inline void interval_at(const struct ilmap_direction *d, uint32_t rank, interval *iv)
{
    const rank_index *index = &d->index;
    uint32_t lo = rank > 0 ? rank_index_key(index, rank - 1) : 0;
    uint32_t hi = ILMAP_EPILOG;

    if (rank < index->nkeys && rank_index_key(index, rank) < hi)
        hi = rank_index_key(index, rank);
    iv->lo = lo;
    iv->span = hi - lo;
    iv->value = d->values[rank];
    iv->rank = rank;
}

/* Where the interval after iv ends: the key after its upper key, capped
 * at EPILOG (no special input is below it). */
static inline uint32_t next_bound(const struct ilmap_direction *d, const interval *iv)
{
    uint32_t r = iv->rank + 1u;
    uint32_t k = r < d->index.nkeys ? rank_index_key(&d->index, r) : ILMAP_EPILOG;
    return k < ILMAP_EPILOG ? k : ILMAP_EPILOG;
}

/* Inside the interval: its value; else the single lookup. No interval
 * update, so consecutive lookups stay independent (they overlap in the
 * CPU), which is what random queries need. */
static inline uint32_t translate_or_reuse(const struct ilmap_direction *d, uint32_t x,
                                          const interval *iv)
{
    if (x - iv->lo < iv->span)
        return iv->value;
    return direction_translate(d, x);
}

#ifdef RANK_HAVE_X86
/* Non-zero when all 8 queries at in lie in the interval. */
static inline int block_inside(const uint32_t *in, const interval *iv)
{
    const __m128i bias = _mm_set1_epi32((int)0x80000000u);
    __m128i lo = _mm_set1_epi32((int)iv->lo);
    __m128i span = _mm_xor_si128(_mm_set1_epi32((int)iv->span), bias);
    __m128i a = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)in), lo);
    __m128i b = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)(in + 4)), lo);
    __m128i in_a = _mm_cmplt_epi32(_mm_xor_si128(a, bias), span);
    __m128i in_b = _mm_cmplt_epi32(_mm_xor_si128(b, bias), span);
    return _mm_movemask_epi8(_mm_and_si128(in_a, in_b)) == 0xFFFF;
}

static inline void block_fill(uint32_t *out, uint32_t value)
{
    __m128i v = _mm_set1_epi32((int)value);
    _mm_storeu_si128((__m128i *)(void *)out, v);
    _mm_storeu_si128((__m128i *)(void *)(out + 4), v);
}
#elif defined(RANK_HAVE_NEON)
/* NEON has unsigned compares: no bias needed. */
static inline int block_inside(const uint32_t *in, const interval *iv)
{
    uint32x4_t lo = vdupq_n_u32(iv->lo);
    uint32x4_t span = vdupq_n_u32(iv->span);
    uint32x4_t in_a = vcltq_u32(vsubq_u32(vld1q_u32(in), lo), span);
    uint32x4_t in_b = vcltq_u32(vsubq_u32(vld1q_u32(in + 4), lo), span);
    return vminvq_u32(vandq_u32(in_a, in_b)) == 0xFFFFFFFFu;
}

static inline void block_fill(uint32_t *out, uint32_t value)
{
    uint32x4_t v = vdupq_n_u32(value);
    vst1q_u32(out, v);
    vst1q_u32(out + 4, v);
}
#else
static inline int block_inside(const uint32_t *in, const interval *iv)
{
    uint32_t outside = 0;
    for (int k = 0; k < 8; k++)
        outside |= (uint32_t)(in[k] - iv->lo >= iv->span);
    return !outside;
}

static inline void block_fill(uint32_t *out, uint32_t value)
{
    for (int k = 0; k < 8; k++)
        out[k] = value;
}
#endif

/* The one-node counts the single lookups inline (map.h), per platform. */
#ifdef RANK_HAVE_X86
#define BATCH_INLINE_COUNT4 node_count4_sse2
#define BATCH_INLINE_COUNT node_count_sse2
#elif defined(RANK_HAVE_NEON)
#define BATCH_INLINE_COUNT4 node_count4_neon
#define BATCH_INLINE_COUNT node_count_neon
#endif

/* How many of the 8 biased keys at k are <= x (biased xb); they ascend. */
#ifdef RANK_HAVE_X86
static inline uint32_t window_count8(const int32_t *k, int32_t xb)
{
    __m128i x = _mm_set1_epi32(xb);
    __m128i a = _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(const void *)k), x);
    __m128i b = _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(const void *)(k + 4)), x);
    unsigned above = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(a)) |
                     ((unsigned)_mm_movemask_ps(_mm_castsi128_ps(b)) << 4);
    return NODE_CTZ(above | 0x100u);
}
#elif defined(RANK_HAVE_NEON)
static inline uint32_t window_count8(const int32_t *k, int32_t xb)
{
    int32x4_t x = vdupq_n_s32(xb);
    int32x4_t a = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(k), x));
    int32x4_t b = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(k + 4), x));
    return (uint32_t)-vaddvq_s32(vaddq_s32(a, b));
}
#else
static inline uint32_t window_count8(const int32_t *k, int32_t xb)
{
    uint32_t c = 0;
    for (int j = 0; j < 8; j++)
        c += k[j] <= xb;
    return c;
}
#endif

/* Ascending queries past the remembered interval, one search each as a
 * merge does it: the count of the next 8 keys of the index's leaf layer
 * that are <= x moves the rank on (a full search when x is 8 keys or
 * more ahead, or the window would leave the layer). Returns 0 when a
 * query is special (the caller searches the block instead), else 1, with
 * iv at the last query's interval. */
static inline int block_merge(const struct ilmap_direction *d, const uint32_t *in, uint32_t *out,
                              interval *iv)
{
    const rank_index *index = &d->index;
    const int32_t *leaves = index->nodes + index->layer_start[index->nlayers - 1];
    uint32_t room = (index->nkeys + RANK_NODE_KEYS - 1u) / RANK_NODE_KEYS * RANK_NODE_KEYS;
    uint32_t r = iv->rank, x[DIRECTION_BLOCK];

    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {
        x[k] = in[k];
        if (x[k] >= ILMAP_EPILOG)
            return 0;
    }
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {
        uint32_t c = r + 8u <= room ? window_count8(leaves + r, (int32_t)(x[k] ^ RANK_BIAS)) : 8u;
        r = c < 8u ? r + c : rank_index_count_le(index, x[k]);
        out[k] = d->values[r];
    }
    interval_at(d, r, iv);
    return 1;
}

/* Eight lookups with no call per query: the small maps' node compared
 * inline, the others through the direction's block search (interleaved
 * descents). The special inputs (>= EPILOG) are searched as 0 and
 * answered by their rule. in and out may be the same. Returns the rank of
 * the last query, or UINT32_MAX when the block held a special input. */
static inline uint32_t block_lookup(const struct ilmap_direction *d, const uint32_t *in,
                                    uint32_t *out)
{
    uint32_t x[DIRECTION_BLOCK], r[DIRECTION_BLOCK];
    unsigned special = 0;

    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {
        x[k] = in[k];
        special |= (unsigned)(x[k] >= ILMAP_EPILOG) << k;
    }
#ifdef BATCH_INLINE_COUNT
    if (d->inline_vectors == 1 && !special) {
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
            r[k] = BATCH_INLINE_COUNT4(d->index.nodes, (int32_t)(x[k] ^ RANK_BIAS));
    } else if (d->inline_vectors && !special) {
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
            r[k] = BATCH_INLINE_COUNT(d->index.nodes, (int32_t)(x[k] ^ RANK_BIAS));
    } else
#endif
    if (!special) {
        /* The caller's queries themselves: a copy just stored would be
         * read back by the kernel's wide loads, which store forwarding
         * does not serve (a stall per block). */
        d->rank8(d, in, r);
    } else {
        uint32_t safe[DIRECTION_BLOCK];
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
            safe[k] = x[k] >= ILMAP_EPILOG ? 0 : x[k];
        d->rank8(d, safe, r);
    }
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
        out[k] = (special >> k) & 1u ? direction_translate_special(d, x[k]) : d->values[r[k]];
    return special ? UINT32_MAX : r[DIRECTION_BLOCK - 1];
}

static void translate_batch(const ilmap *map, const struct ilmap_direction *d,
                            const uint32_t *in, uint32_t *out, size_t n)
{
    if (!in || !out || n == 0)
        return;
    if (!map || map->count == 0) { /* identity */
        if (in != out)
            memmove(out, in, n * sizeof *out);
        return;
    }

    interval iv = { 0, 0, 0, 0 };
    size_t i = 0;

    /*
     * Blocks of 8, whatever the order of the queries, with no pre-pass:
     * a block inside the remembered interval (sorted or clustered queries,
     * several per key) is one compare and a fill; any other block is
     * eight lookups at once (block_lookup: no call per query, the misses
     * of a large map overlapped), or, ascending from the remembered
     * interval in a large map, a merge along its keys. After a block whose
     * queries ascend, the interval of its last query is remembered, from
     * the rank found, where sorted queries continue (a block of random
     * queries ascends once in 40,320).
     */
    for (; i + DIRECTION_BLOCK <= n; i += DIRECTION_BLOCK) {
        if (block_inside(in + i, &iv)) {
            block_fill(out + i, iv.value);
            continue;
        }
        unsigned descents = 0;
        for (uint32_t k = 1; k < DIRECTION_BLOCK; k++)
            descents += in[i + k] < in[i + k - 1];
        if (descents == 0 && in[i] - iv.lo < iv.span && d->index.nkeys > 0 &&
            in[i + DIRECTION_BLOCK - 1] < next_bound(d, &iv)) {
            /* Ascending, from the interval into the next one at most
             * (several queries per key): each query is this interval's
             * value or the next one's, a select, no branch. A query at or
             * past the interval's end is below the next bound, so the
             * interval has a next (rank < nkeys, values[rank + 1]). */
            uint32_t end = iv.lo + iv.span, x[DIRECTION_BLOCK];
            uint32_t next = in[i + DIRECTION_BLOCK - 1] >= end ? d->values[iv.rank + 1u] : 0;
            for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
                x[k] = in[i + k];
            for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
                out[i + k] = x[k] < end ? iv.value : next;
            if (x[DIRECTION_BLOCK - 1] >= end)
                interval_at(d, iv.rank + 1u, &iv);
            continue;
        }
        /* Ascending from the remembered interval on (a sorted run, about
         * a query per key or sparser) in a map too big for the cache to
         * hold its nodes (three layers and more: over 272 keys): a merge
         * along the keys, whose reads are sequential. In smaller maps the
         * eight independent searches below are faster than the merge's
         * chain of dependent steps. */
        if (descents == 0 && d->index.nlayers >= 3 && in[i] >= iv.lo && iv.span != 0 &&
            block_merge(d, in + i, out + i, &iv))
            continue;
        uint32_t last = block_lookup(d, in + i, out + i);
        /* Ascending: the last query's interval (two keys read, no search)
         * may hold the next block. */
        if (descents == 0 && last != UINT32_MAX && d->index.nkeys > 0)
            interval_at(d, last, &iv);
    }
    for (; i < n; i++)
        out[i] = translate_or_reuse(d, in[i], &iv);
}

void ilmap_old_to_new_batch(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n)
{
    translate_batch(map, map ? &map->old_to_new : NULL, in, out, n);
}

void ilmap_new_to_old_batch(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n)
{
    translate_batch(map, map ? &map->new_to_old : NULL, in, out, n);
}
