/*
 * The tree descent of rank_index.h, once per instruction set. Each node is
 * sorted, so the keys above x form a suffix: the count of keys <= x is the
 * number of trailing zeros of the "key > x" mask (with a guard bit for a
 * node entirely <= x). Only the node compare differs between versions.
 */
#include "index/rank_index.h"

#if defined(__GNUC__) || defined(__clang__)
#define RANK_CTZ(m) ((uint32_t)__builtin_ctz(m))
#else
static uint32_t rank_ctz_portable(uint32_t m)
{
    uint32_t n = 0;
    while (!(m & 1u)) {
        m >>= 1;
        n++;
    }
    return n;
}
#define RANK_CTZ(m) rank_ctz_portable(m)
#endif

#define RANK_DESCEND(NODE_COUNT)                                             \
    do {                                                                     \
        const int32_t *nodes = index->nodes;                                 \
        uint32_t layers = index->nlayers;                                    \
        uint64_t q = 0;                                                      \
        if (layers == 0)                                                     \
            return 0;                                                        \
        for (uint32_t i = 0; i + 1 < layers; i++) {                          \
            const int32_t *node = nodes + index->layer_start[i] + q * RANK_NODE_KEYS; \
            q = q * RANK_FANOUT + NODE_COUNT(node, xb);                      \
        }                                                                    \
        return (uint32_t)(q * RANK_NODE_KEYS) +                              \
               NODE_COUNT(nodes + index->layer_start[layers - 1] + q * RANK_NODE_KEYS, xb); \
    } while (0)

static inline uint32_t node_count_portable(const int32_t *node, int32_t xb)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < RANK_NODE_KEYS; k++)
        n += node[k] <= xb;
    return n;
}

uint32_t rank_count_le_portable(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    RANK_DESCEND(node_count_portable);
}

#ifdef RANK_HAVE_X86
#include <immintrin.h>

static inline uint32_t node_count_sse2(const int32_t *node, int32_t xb)
{
    __m128i x = _mm_set1_epi32(xb);
    const __m128i *p = (const __m128i *)node;
    __m128i a = _mm_cmpgt_epi32(_mm_load_si128(p + 0), x);
    __m128i b = _mm_cmpgt_epi32(_mm_load_si128(p + 1), x);
    __m128i c = _mm_cmpgt_epi32(_mm_load_si128(p + 2), x);
    __m128i d = _mm_cmpgt_epi32(_mm_load_si128(p + 3), x);
    __m128i ab = _mm_packs_epi32(a, b);
    __m128i cd = _mm_packs_epi32(c, d);
    uint32_t above = (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(ab, cd));
    return RANK_CTZ(above | 0x10000u);
}

uint32_t rank_count_le_sse2(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    RANK_DESCEND(node_count_sse2);
}

#if defined(__GNUC__) || defined(__clang__)
#define RANK_TARGET_AVX2 __attribute__((target("avx2,popcnt")))
#else
#define RANK_TARGET_AVX2
#endif

RANK_TARGET_AVX2 static inline uint32_t node_count_avx2(const int32_t *node, int32_t xb)
{
    __m256i x = _mm256_set1_epi32(xb);
    const __m256i *p = (const __m256i *)node;
    __m256i lo = _mm256_cmpgt_epi32(_mm256_load_si256(p + 0), x);
    __m256i hi = _mm256_cmpgt_epi32(_mm256_load_si256(p + 1), x);
    uint32_t above = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(lo)) |
                     ((uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(hi)) << 8);
    return RANK_NODE_KEYS - (uint32_t)_mm_popcnt_u32(above);
}

RANK_TARGET_AVX2 uint32_t rank_count_le_avx2(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    RANK_DESCEND(node_count_avx2);
}
#endif
