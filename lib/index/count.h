/*
 * The library's one home for counting, with vector compares, how many keys
 * of a short ascending run are <= x: one function per run shape and
 * instruction set (SSE2 and AVX2 on x86-64, NEON on arm64, a loop
 * everywhere), each inlined into its caller's loop.
 *
 *   node_count_*     the 16 keys of a rank index node (rank_index.h),
 *                    biased int32, aligned; node_count4_* its first 4
 *   count8_i32       8 biased int32 keys (a rank index's leaf layer,
 *                    read as one window: lib/core/map_batch.c)
 *   count4_u32       the first `valid` (<= 4) of 4 uint32_t keys (a
 *                    native map's bucket window: lib/native/)
 *   count8_u32       the first `valid` (<= 8) of 8 uint32_t keys
 *   count8_u16       the first `valid` (<= 8) of 8 uint16_t keys, at
 *                    any alignment, x <= 65535 (a tiny native map's IL
 *                    column)
 *   *_low            the same where the counted keys and x are below
 *                    2^31: a signed compare needs no bias
 *   count8_all_within whether 8 values all lie in [lo, lo + span) (a
 *                    batch's block of queries inside one interval:
 *                    lib/core/batch_block.h), count8_fill their answers
 *   count_queries8_* the other way round: 8 queries side by side, each
 *                    counted against every key of one node (the IL
 *                    maps' batch kernels, lib/core/lookup_kernels.c)
 *
 * The keys above x form a suffix of a run (they ascend), so the count is
 * the position of the first lane above x, the trailing zeros of the
 * "key > x" mask with a guard bit at `valid`; NEON sums its all-ones
 * lanes instead. SSE2 compares signed: unsigned keys are biased (x ^
 * 2^31). Every function reads its whole run (4, 8 or 16 words) whatever
 * `valid` says: the caller guarantees that the words are readable.
 * COUNT_HAVE_VECTOR says whether count4_u32/count8_u32 are vector code
 * or the loops (a caller may prefer a binary search then).
 */
#ifndef ILMAP_INDEX_COUNT_H
#define ILMAP_INDEX_COUNT_H

#include <string.h>

#include "index/rank_index.h"
#include "platform/compiler.h"

/* Every function here is inlined into its caller's loop (ILMAP_ALWAYS_INLINE). */

ILMAP_ALWAYS_INLINE uint32_t node_count_portable(const int32_t *node, int32_t xb)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < RANK_NODE_KEYS; k++)
        n += node[k] <= xb;
    return n;
}

#ifdef RANK_HAVE_X86
#include <immintrin.h>

ILMAP_ALWAYS_INLINE uint32_t node_count_sse2(const int32_t *node, int32_t xb)
{
    __m128i x = _mm_set1_epi32(xb);
    const __m128i *p = (const __m128i *)(const void *)node;
    __m128i a = _mm_cmpgt_epi32(_mm_load_si128(p + 0), x);
    __m128i b = _mm_cmpgt_epi32(_mm_load_si128(p + 1), x);
    __m128i c = _mm_cmpgt_epi32(_mm_load_si128(p + 2), x);
    __m128i d = _mm_cmpgt_epi32(_mm_load_si128(p + 3), x);
    __m128i packed = _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_epi8(packed) | 0x10000u);
}

/* The first 4 keys only: the whole node when it holds at most 4. */
ILMAP_ALWAYS_INLINE uint32_t node_count4_sse2(const int32_t *node, int32_t xb)
{
    __m128i above = _mm_cmpgt_epi32(_mm_load_si128((const __m128i *)(const void *)node),
                                    _mm_set1_epi32(xb));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_ps(_mm_castsi128_ps(above)) | 0x10u);
}

#if defined(__GNUC__) || defined(__clang__)
#define COUNT_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
#else
#define COUNT_TARGET_AVX2
#endif

COUNT_TARGET_AVX2 ILMAP_ALWAYS_INLINE uint32_t node_count_avx2(const int32_t *node, int32_t xb)
{
    __m256i x = _mm256_set1_epi32(xb);
    const __m256i *p = (const __m256i *)(const void *)node;
    __m256i lo = _mm256_cmpgt_epi32(_mm256_load_si256(p + 0), x);
    __m256i hi = _mm256_cmpgt_epi32(_mm256_load_si256(p + 1), x);
    uint32_t above = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(lo)) |
                     ((uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(hi)) << 8);
    return RANK_NODE_KEYS - (uint32_t)_mm_popcnt_u32(above);
}
#endif

#ifdef RANK_HAVE_NEON
#include <arm_neon.h>

/* Lanes with key <= x are all ones (-1): their sum, negated, is the
 * count (the same answer as the trailing zeros of "key > x" above). */
ILMAP_ALWAYS_INLINE uint32_t node_count_neon(const int32_t *node, int32_t xb)
{
    int32x4_t x = vdupq_n_s32(xb);
    int32x4_t a = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 0), x));
    int32x4_t b = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 4), x));
    int32x4_t c = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 8), x));
    int32x4_t d = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 12), x));
    return (uint32_t)-vaddvq_s32(vaddq_s32(vaddq_s32(a, b), vaddq_s32(c, d)));
}

/* The first 4 keys only: the whole node when it holds at most 4. */
ILMAP_ALWAYS_INLINE uint32_t node_count4_neon(const int32_t *node, int32_t xb)
{
    uint32x4_t le = vcleq_s32(vld1q_s32(node), vdupq_n_s32(xb));
    return (uint32_t)-vaddvq_s32(vreinterpretq_s32_u32(le));
}
#endif

/* A small run, portable: a loop over every lane, the guard as a lane
 * bound (the native buckets' scalar choice; count4_u32 where there is no
 * vector code). */
ILMAP_ALWAYS_INLINE uint32_t count4_u32_portable(const uint32_t *k, uint32_t valid, uint32_t x)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < 4; j++)
        n += (j < valid) & (k[j] <= x);
    return n;
}


#if defined(RANK_HAVE_X86)
#define COUNT_HAVE_VECTOR 1

ILMAP_ALWAYS_INLINE uint32_t count8_i32(const int32_t *k, int32_t xb)
{
    __m128i x = _mm_set1_epi32(xb);
    __m128i a = _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(const void *)k), x);
    __m128i b = _mm_cmpgt_epi32(_mm_loadu_si128((const __m128i *)(const void *)(k + 4)), x);
    unsigned above = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(a)) |
                     ((unsigned)_mm_movemask_ps(_mm_castsi128_ps(b)) << 4);
    return ILMAP_CTZ32(above | 0x100u);
}

ILMAP_ALWAYS_INLINE uint32_t count4_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    const __m128i bias = _mm_set1_epi32(INT32_MIN);
    const __m128i xb = _mm_set1_epi32((int32_t)(x ^ 0x80000000u));
    __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)k), bias);
    uint32_t above = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(a, xb)));
    return ILMAP_CTZ32(above | (1u << valid));
}

ILMAP_ALWAYS_INLINE uint32_t count4_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)k);
    __m128i above = _mm_cmpgt_epi32(a, _mm_set1_epi32((int32_t)x));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_ps(_mm_castsi128_ps(above)) | (1u << valid));
}

/* Two compares, their masks packed to 16-bit lanes: the count is half
 * the position of the first mask bit of a key above x. */
ILMAP_ALWAYS_INLINE uint32_t count8_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    const __m128i bias = _mm_set1_epi32(INT32_MIN);
    const __m128i xb = _mm_set1_epi32((int32_t)(x ^ 0x80000000u));
    __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)k), bias);
    __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(k + 4)), bias);
    __m128i above = _mm_packs_epi32(_mm_cmpgt_epi32(a, xb), _mm_cmpgt_epi32(b, xb));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_epi8(above) | (1u << (2 * valid))) >> 1;
}

ILMAP_ALWAYS_INLINE uint32_t count8_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    const __m128i xs = _mm_set1_epi32((int32_t)x);
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)k);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(k + 4));
    __m128i above = _mm_packs_epi32(_mm_cmpgt_epi32(a, xs), _mm_cmpgt_epi32(b, xs));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_epi8(above) | (1u << (2 * valid))) >> 1;
}
#elif defined(RANK_HAVE_NEON)
#define COUNT_HAVE_VECTOR 1

ILMAP_ALWAYS_INLINE uint32_t count8_i32(const int32_t *k, int32_t xb)
{
    int32x4_t x = vdupq_n_s32(xb);
    int32x4_t a = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(k), x));
    int32x4_t b = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(k + 4), x));
    return (uint32_t)-vaddvq_s32(vaddq_s32(a, b));
}

/* NEON compares unsigned: no bias; the lanes at or past `valid` are
 * masked off. */
ILMAP_ALWAYS_INLINE uint32_t count4_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    static const uint32_t lanes[4] = { 0, 1, 2, 3 };
    uint32x4_t xv = vdupq_n_u32(x), lv = vdupq_n_u32(valid);
    uint32x4_t a = vandq_u32(vcleq_u32(vld1q_u32(k), xv), vcltq_u32(vld1q_u32(lanes), lv));
    return (uint32_t)-vaddvq_s32(vreinterpretq_s32_u32(a));
}

ILMAP_ALWAYS_INLINE uint32_t count4_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    return count4_u32(k, valid, x);
}

ILMAP_ALWAYS_INLINE uint32_t count8_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    static const uint32_t lanes[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    uint32x4_t xv = vdupq_n_u32(x), lv = vdupq_n_u32(valid);
    uint32x4_t a = vandq_u32(vcleq_u32(vld1q_u32(k), xv), vcltq_u32(vld1q_u32(lanes), lv));
    uint32x4_t b =
        vandq_u32(vcleq_u32(vld1q_u32(k + 4), xv), vcltq_u32(vld1q_u32(lanes + 4), lv));
    return (uint32_t)-vaddvq_s32(vreinterpretq_s32_u32(vaddq_u32(a, b)));
}

ILMAP_ALWAYS_INLINE uint32_t count8_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    return count8_u32(k, valid, x);
}
#else
#define COUNT_HAVE_VECTOR 0

/* No vector code: count8_i32 and count8_u32 as loops over every lane. */
ILMAP_ALWAYS_INLINE uint32_t count8_i32(const int32_t *k, int32_t xb)
{
    uint32_t c = 0;
    for (int j = 0; j < 8; j++)
        c += k[j] <= xb;
    return c;
}

ILMAP_ALWAYS_INLINE uint32_t count4_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    return count4_u32_portable(k, valid, x);
}

ILMAP_ALWAYS_INLINE uint32_t count4_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    return count4_u32_portable(k, valid, x);
}

ILMAP_ALWAYS_INLINE uint32_t count8_u32(const uint32_t *k, uint32_t valid, uint32_t x)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < 8; j++)
        n += (j < valid) & (k[j] <= x);
    return n;
}

ILMAP_ALWAYS_INLINE uint32_t count8_u32_low(const uint32_t *k, uint32_t valid, uint32_t x)
{
    return count8_u32(k, valid, x);
}
#endif

/*
 * count_queries8_*: one node of nkeys (<= 16) keys, and eight queries x
 * side by side in vectors, compared with one key at a time: a key above
 * a query adds -1 to its lane, from the number of keys compared down, so
 * that what is left is the query's count. The keys are compared four at
 * a time, as many groups as hold real keys; the padding after them is
 * above every query (rank_index.h) and counts nothing. floor 1 compares
 * key[0] as the least key, below every query (the DAC's rank: a caller
 * passes a constant).
 */
ILMAP_ALWAYS_INLINE int32_t count_node_key(const int32_t *node, uint32_t j, uint32_t floor)
{
    return floor && j == 0 ? INT32_MIN : node[j];
}

ILMAP_ALWAYS_INLINE void count_queries8_portable(const int32_t *node, uint32_t nkeys,
                                           const uint32_t *x, uint32_t *rank, uint32_t floor)
{
    for (uint32_t k = 0; k < 8; k++) {
        int32_t xb = (int32_t)(x[k] ^ RANK_BIAS);
        uint32_t c = 0;
        for (uint32_t j = 0; j < nkeys; j++)
            c += count_node_key(node, j, floor) <= xb;
        rank[k] = c;
    }
}

#ifdef RANK_HAVE_X86
ILMAP_ALWAYS_INLINE void count_queries8_sse2(const int32_t *node, uint32_t nkeys, const uint32_t *x,
                                       uint32_t *rank, uint32_t floor)
{
    const uint32_t groups = (nkeys + 3u) / 4u;
    const __m128i bias = _mm_set1_epi32((int)RANK_BIAS);
    __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)x), bias);
    __m128i b = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(x + 4)), bias);
    __m128i ca = _mm_set1_epi32((int)groups * 4), cb = ca;
    for (uint32_t j = 0; j < groups * 4; j += 4) {
        for (uint32_t u = 0; u < 4; u++) {
            __m128i key = _mm_set1_epi32(count_node_key(node, j + u, floor));
            ca = _mm_add_epi32(ca, _mm_cmpgt_epi32(key, a));
            cb = _mm_add_epi32(cb, _mm_cmpgt_epi32(key, b));
        }
    }
    _mm_storeu_si128((__m128i *)(void *)rank, ca);
    _mm_storeu_si128((__m128i *)(void *)(rank + 4), cb);
}

COUNT_TARGET_AVX2 ILMAP_ALWAYS_INLINE void count_queries8_avx2(const int32_t *node, uint32_t nkeys,
                                                         const uint32_t *x, uint32_t *rank,
                                                         uint32_t floor)
{
    const uint32_t groups = (nkeys + 3u) / 4u;
    __m256i q = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)x),
                                 _mm256_set1_epi32((int)RANK_BIAS));
    __m256i c = _mm256_set1_epi32((int)groups * 4);
    for (uint32_t j = 0; j < groups * 4; j += 4)
        for (uint32_t u = 0; u < 4; u++)
            c = _mm256_add_epi32(
                c, _mm256_cmpgt_epi32(_mm256_set1_epi32(count_node_key(node, j + u, floor)), q));
    _mm256_storeu_si256((__m256i *)(void *)rank, c);
}
#endif

#ifdef RANK_HAVE_NEON
ILMAP_ALWAYS_INLINE void count_queries8_neon(const int32_t *node, uint32_t nkeys, const uint32_t *x,
                                       uint32_t *rank, uint32_t floor)
{
    const uint32_t groups = (nkeys + 3u) / 4u;
    const uint32x4_t bias = vdupq_n_u32(RANK_BIAS);
    int32x4_t a = vreinterpretq_s32_u32(veorq_u32(vld1q_u32(x), bias));
    int32x4_t b = vreinterpretq_s32_u32(veorq_u32(vld1q_u32(x + 4), bias));
    uint32x4_t ca = vdupq_n_u32(groups * 4), cb = ca;
    for (uint32_t j = 0; j < groups * 4; j += 4) {
        for (uint32_t u = 0; u < 4; u++) {
            int32x4_t key = vdupq_n_s32(count_node_key(node, j + u, floor));
            ca = vaddq_u32(ca, vcgtq_s32(key, a));
            cb = vaddq_u32(cb, vcgtq_s32(key, b));
        }
    }
    vst1q_u32(rank, ca);
    vst1q_u32(rank + 4, cb);
}
#endif

/* count8_all_within: whether all 8 values at x have x - lo < span
 * (unsigned): a block of queries inside one interval
 * (lib/core/batch_block.h). count8_fill: their 8 answers, as two 16-byte
 * stores (one 32-byte store, which the compiler makes of a loop in the
 * AVX2 kernels, splits a cache line every other block of a 16-byte
 * aligned output: the sorted batches ran 1.3x-1.8x slower). Plain
 * inline, which the compiler does anyway: forced, it allocates the batch
 * kernels' registers otherwise, one instruction more per block. */
#ifdef RANK_HAVE_X86
static inline int count8_all_within(const uint32_t *x, uint32_t lo, uint32_t span)
{
    const __m128i bias = _mm_set1_epi32((int)0x80000000u);
    __m128i l = _mm_set1_epi32((int)lo);
    __m128i s = _mm_xor_si128(_mm_set1_epi32((int)span), bias);
    __m128i a = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)x), l);
    __m128i b = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + 4)), l);
    __m128i in_a = _mm_cmplt_epi32(_mm_xor_si128(a, bias), s);
    __m128i in_b = _mm_cmplt_epi32(_mm_xor_si128(b, bias), s);
    return _mm_movemask_epi8(_mm_and_si128(in_a, in_b)) == 0xFFFF;
}

static inline void count8_fill(uint32_t *out, uint32_t value)
{
    __m128i v = _mm_set1_epi32((int)value);
    _mm_storeu_si128((__m128i *)(void *)out, v);
    _mm_storeu_si128((__m128i *)(void *)(out + 4), v);
}
#elif defined(RANK_HAVE_NEON)
/* NEON compares unsigned: no bias. */
static inline int count8_all_within(const uint32_t *x, uint32_t lo, uint32_t span)
{
    uint32x4_t l = vdupq_n_u32(lo);
    uint32x4_t s = vdupq_n_u32(span);
    uint32x4_t in_a = vcltq_u32(vsubq_u32(vld1q_u32(x), l), s);
    uint32x4_t in_b = vcltq_u32(vsubq_u32(vld1q_u32(x + 4), l), s);
    return vminvq_u32(vandq_u32(in_a, in_b)) == 0xFFFFFFFFu;
}

static inline void count8_fill(uint32_t *out, uint32_t value)
{
    uint32x4_t v = vdupq_n_u32(value);
    vst1q_u32(out, v);
    vst1q_u32(out + 4, v);
}
#else
static inline int count8_all_within(const uint32_t *x, uint32_t lo, uint32_t span)
{
    uint32_t outside = 0;
    for (int k = 0; k < 8; k++)
        outside |= (uint32_t)(x[k] - lo >= span);
    return !outside;
}

static inline void count8_fill(uint32_t *out, uint32_t value)
{
    for (int k = 0; k < 8; k++)
        out[k] = value;
}
#endif

#ifdef RANK_HAVE_X86
ILMAP_ALWAYS_INLINE uint32_t count8_u16(const void *k, uint32_t valid, uint32_t x)
{
    const __m128i bias = _mm_set1_epi16((short)0x8000);
    __m128i c = _mm_xor_si128(_mm_loadu_si128((const __m128i *)k), bias);
    __m128i xb = _mm_set1_epi16((short)(uint16_t)(x ^ 0x8000u));
    return ILMAP_CTZ32((uint32_t)_mm_movemask_epi8(_mm_cmpgt_epi16(c, xb)) | (1u << (2 * valid))) >>
           1;
}
#else
/* Only the `valid` keys are read here. */
ILMAP_ALWAYS_INLINE uint32_t count8_u16(const void *k, uint32_t valid, uint32_t x)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < valid; j++) {
        uint16_t v;
        memcpy(&v, (const unsigned char *)k + 2 * (size_t)j, sizeof v);
        n += v <= x;
    }
    return n;
}
#endif

#endif
