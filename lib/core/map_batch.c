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

/* Queries x with x - lo < span (unsigned) all answer `value`. */
typedef struct interval {
    uint32_t lo;
    uint32_t span;
    uint32_t value;
} interval;

/* The in-process answer for x, and the interval of inputs sharing it
 * (left unchanged for the special inputs, which share it with nothing).
 * Interval r of the index is [key r-1, key r), capped below EPILOG. */
static uint32_t translate_remember(const struct ilmap_direction *d, uint32_t x, interval *iv)
{
    if (x >= ILMAP_EPILOG || d->index.nkeys == 0)
        return direction_translate(d, x);

    const rank_index *index = &d->index;
    uint32_t rank = rank_index_count_le(index, x);
    uint32_t lo = rank > 0 ? rank_index_key(index, rank - 1) : 0;
    uint32_t hi = ILMAP_EPILOG;

    if (rank < index->nkeys && rank_index_key(index, rank) < hi)
        hi = rank_index_key(index, rank);
    iv->lo = lo;
    iv->span = hi - lo;
    iv->value = d->values[rank];
    return iv->value;
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

    interval iv = { 0, 0, 0 };
    size_t i = 0;

    /* Blocks of 8: all inside the remembered interval is one compare and
     * a fill. Otherwise the interval moves to the block's first query
     * outside it (where sorted queries continue) and the rest of the block
     * reuses it when it has been paying off; when it has not (random
     * queries), the rest are plain lookups with no branch on the interval
     * to mispredict. */
    int reuse = 1;
    for (; i + 8 <= n; i += 8) {
        if (block_inside(in + i, &iv)) {
            block_fill(out + i, iv.value);
            continue;
        }
        size_t k = i, end = i + 8;
        while (k < end) { /* in[k] is read before out[k] (maybe == in) is written */
            uint32_t x = in[k];
            int inside = x - iv.lo < iv.span;
            out[k++] = inside ? iv.value : translate_remember(d, x, &iv);
            if (!inside)
                break;
        }
        unsigned hits = 0, rest = (unsigned)(end - k);
        if (reuse) {
            for (; k < end; k++) {
                uint32_t x = in[k];
                hits += x - iv.lo < iv.span;
                out[k] = translate_or_reuse(d, x, &iv);
            }
        } else {
            for (; k < end; k++) {
                uint32_t x = in[k];
                hits += x - iv.lo < iv.span;
                out[k] = direction_translate(d, x);
            }
        }
        reuse = 2 * hits >= rest;
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
