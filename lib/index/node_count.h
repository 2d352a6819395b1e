/*
 * How many keys of one 16-key node are <= x, per instruction set. Nodes
 * are sorted, so the keys above x form a suffix: the answer is the number
 * of trailing zeros of the "key > x" mask (a guard bit covers a node that
 * is entirely <= x). Keys and x are biased (see rank_index.h).
 */
#ifndef ILMAP_NODE_COUNT_H
#define ILMAP_NODE_COUNT_H

#include "index/rank_index.h"

#if defined(__GNUC__) || defined(__clang__)
#define NODE_CTZ(m) ((uint32_t)__builtin_ctz(m))
#else
static inline uint32_t node_ctz_portable(uint32_t m)
{
    uint32_t n = 0;
    while (!(m & 1u)) {
        m >>= 1;
        n++;
    }
    return n;
}
#define NODE_CTZ(m) node_ctz_portable(m)
#endif

static inline uint32_t node_count_portable(const int32_t *node, int32_t xb)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < RANK_NODE_KEYS; k++)
        n += node[k] <= xb;
    return n;
}

#ifdef RANK_HAVE_X86
#include <immintrin.h>

static inline uint32_t node_count_sse2(const int32_t *node, int32_t xb)
{
    __m128i x = _mm_set1_epi32(xb);
    const __m128i *p = (const __m128i *)(const void *)node;
    __m128i a = _mm_cmpgt_epi32(_mm_load_si128(p + 0), x);
    __m128i b = _mm_cmpgt_epi32(_mm_load_si128(p + 1), x);
    __m128i c = _mm_cmpgt_epi32(_mm_load_si128(p + 2), x);
    __m128i d = _mm_cmpgt_epi32(_mm_load_si128(p + 3), x);
    __m128i packed = _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
    return NODE_CTZ((uint32_t)_mm_movemask_epi8(packed) | 0x10000u);
}

/* The first 4 keys only: the whole node when it holds at most 4. */
static inline uint32_t node_count4_sse2(const int32_t *node, int32_t xb)
{
    __m128i above = _mm_cmpgt_epi32(_mm_load_si128((const __m128i *)(const void *)node),
                                    _mm_set1_epi32(xb));
    return NODE_CTZ((uint32_t)_mm_movemask_ps(_mm_castsi128_ps(above)) | 0x10u);
}

#if defined(__GNUC__) || defined(__clang__)
#define NODE_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
#else
#define NODE_TARGET_AVX2
#endif

NODE_TARGET_AVX2 static inline uint32_t node_count_avx2(const int32_t *node, int32_t xb)
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
static inline uint32_t node_count_neon(const int32_t *node, int32_t xb)
{
    int32x4_t x = vdupq_n_s32(xb);
    int32x4_t a = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 0), x));
    int32x4_t b = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 4), x));
    int32x4_t c = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 8), x));
    int32x4_t d = vreinterpretq_s32_u32(vcleq_s32(vld1q_s32(node + 12), x));
    return (uint32_t)-vaddvq_s32(vaddq_s32(vaddq_s32(a, b), vaddq_s32(c, d)));
}

/* The first 4 keys only: the whole node when it holds at most 4. */
static inline uint32_t node_count4_neon(const int32_t *node, int32_t xb)
{
    uint32x4_t le = vcleq_s32(vld1q_s32(node), vdupq_n_s32(xb));
    return (uint32_t)-vaddvq_s32(vreinterpretq_s32_u32(le));
}
#endif

/* The descent: root to leaf, one node per layer; the leaf position
 * reached is the count. LAYERS may be a constant, so that specialised
 * copies have no loop. */
#define NODE_DESCEND(NODE_COUNT, index, xb, LAYERS)                                  \
    do {                                                                             \
        const int32_t *nodes_ = (index)->nodes;                                      \
        uint32_t q_ = 0;                                                             \
        for (uint32_t i_ = 0; i_ + 1 < (LAYERS); i_++)                               \
            q_ = q_ * RANK_FANOUT +                                                  \
                 NODE_COUNT(nodes_ + (index)->layer_start[i_] + q_ * RANK_NODE_KEYS, xb); \
        return q_ * RANK_NODE_KEYS +                                                 \
               NODE_COUNT(nodes_ + (index)->layer_start[(LAYERS) - 1] + q_ * RANK_NODE_KEYS, xb); \
    } while (0)

#endif
