/*
 * The best known ways to find the greatest key <= x in a sorted array,
 * written here as baselines for bench-lookup (issue 15's list), each
 * inlined into its own loop as a hand-written caller would have it:
 *
 *   branchless  binary search with conditional moves, no mispredictions;
 *   eytzinger   the keys in BFS order (a heap), descended with the line
 *               four levels below prefetched;
 *   stree       a static B+tree of 16-key nodes (one 64-byte line each),
 *               each node searched with one AVX2 compare-and-count;
 *   count       AVX2 compare-and-count over the whole array (small maps);
 *   merge       for ascending queries: a scalar sweep, a gallop
 *               (exponential then binary search from the last answer) and
 *               an AVX2 sweep (8 keys per compare).
 *
 * They answer rank(x) = how many keys are <= x; the caller turns that
 * into the map's answer (bench-lookup.c: the same prelude for the
 * special offsets as its other baselines). AVX2 code is compiled for
 * x86-64 with a target attribute and used only when the CPU has AVX2
 * (best_has_avx2()); elsewhere those baselines report "n/a".
 */
#ifndef ILMAP_BENCH_BEST_SEARCH_H
#define ILMAP_BENCH_BEST_SEARCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BEST_X86 1
#include <immintrin.h>
#define BEST_AVX2 __attribute__((target("avx2,popcnt,bmi")))
#endif

#define BEST_NODE 16u   /* keys per S-tree node */
#define BEST_PAD 0x7FFFFFFF /* a biased key above every biased query */

typedef struct best_keys {
    uint32_t n;
    const uint32_t *keys; /* ascending, the caller's */
    int32_t *biased;      /* keys ^ 0x80000000, padded to a multiple of 8 with BEST_PAD */
    uint32_t *eytz;       /* 1-based BFS order; eytz[0] unused */
    uint32_t *eytz_rank;  /* rank (index + 1) of eytz[k] */
    int32_t *stree;       /* biased S-tree nodes, layer 0 = root; 64-byte aligned */
    void *stree_block;    /* what malloc returned for it */
    uint32_t layers;
    uint32_t layer_start[8]; /* in keys */
    uint32_t layer_nodes[8];
} best_keys;

static inline int best_has_avx2(void)
{
#ifdef BEST_X86
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
    return 0;
#endif
}

static uint32_t best_eytz_fill(best_keys *b, uint32_t i, uint32_t k)
{
    if (k <= b->n) {
        i = best_eytz_fill(b, i, 2 * k);
        b->eytz[k] = b->keys[i];
        b->eytz_rank[k] = i + 1;
        i++;
        i = best_eytz_fill(b, i, 2 * k + 1);
    }
    return i;
}

/* The S-tree: the leaves are the biased keys in nodes of 16; node q of an
 * upper layer has children 17q .. 17q + 16 in the layer below and holds,
 * for children 1..16, the smallest key under that child (BEST_PAD where
 * the child holds none), so the count of its keys <= x is the child to
 * descend to. Eytzinger order is filled by an in-order walk. */
static int best_init(best_keys *b, const uint32_t *keys, uint32_t n)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->keys = keys;
    uint32_t padded = (n + 7u) & ~7u;
    b->biased = malloc((padded ? padded : 8u) * sizeof *b->biased);
    b->eytz = malloc(((size_t)n + 1u) * sizeof *b->eytz);
    b->eytz_rank = malloc(((size_t)n + 1u) * sizeof *b->eytz_rank);
    if (!b->biased || !b->eytz || !b->eytz_rank)
        return 0;
    for (uint32_t i = 0; i < (padded ? padded : 8u); i++)
        b->biased[i] = i < n ? (int32_t)(keys[i] ^ 0x80000000u) : BEST_PAD;
    best_eytz_fill(b, 0, 1);

    /* S-tree layers, counted from the leaves up. */
    uint32_t nodes[8], layers = 0, count = n ? (n + BEST_NODE - 1u) / BEST_NODE : 1u;
    nodes[layers++] = count;
    while (count > 1u && layers < 8u) {
        count = (count + BEST_NODE) / (BEST_NODE + 1u); /* 17 children per node */
        nodes[layers++] = count;
    }
    uint32_t total = 0;
    for (uint32_t l = 0; l < layers; l++) {
        b->layer_nodes[l] = nodes[layers - 1u - l];
        b->layer_start[l] = total;
        total += b->layer_nodes[l] * BEST_NODE;
    }
    b->layers = layers;
    b->stree_block = malloc((size_t)total * sizeof *b->stree + 64u);
    if (!b->stree_block)
        return 0;
    b->stree = (int32_t *)(void *)((unsigned char *)b->stree_block +
                                   (64u - (uintptr_t)b->stree_block % 64u) % 64u);
    int32_t *leaves = b->stree + b->layer_start[layers - 1u];
    for (uint32_t i = 0; i < b->layer_nodes[layers - 1u] * BEST_NODE; i++)
        leaves[i] = i < n ? (int32_t)(keys[i] ^ 0x80000000u) : BEST_PAD;
    /* Upper layers: key j of node q in layer l is the smallest leaf key of
     * child j + 1's subtree, i.e. leaf node ((17q + j + 1) * 17^(depth)). */
    for (uint32_t l = layers - 1u; l-- > 0;) {
        int32_t *layer = b->stree + b->layer_start[l];
        uint32_t below_span = 1; /* leaf nodes under one node of layer l + 1 */
        for (uint32_t d = l + 1u; d + 1u < layers; d++)
            below_span *= BEST_NODE + 1u;
        for (uint32_t q = 0; q < b->layer_nodes[l]; q++) {
            for (uint32_t j = 0; j < BEST_NODE; j++) {
                uint64_t child = (uint64_t)q * (BEST_NODE + 1u) + j + 1u;
                uint64_t leaf_node = child * below_span;
                uint64_t first = leaf_node * BEST_NODE;
                layer[q * BEST_NODE + j] = first < n ? (int32_t)(keys[first] ^ 0x80000000u) : BEST_PAD;
            }
        }
    }
    return 1;
}

static void best_free(best_keys *b)
{
    free(b->biased);
    free(b->eytz);
    free(b->eytz_rank);
    free(b->stree_block);
    memset(b, 0, sizeof *b);
}

/* ---- Single lookups: rank(x), how many keys are <= x ----------------- */

static inline uint32_t best_branchless(const best_keys *b, uint32_t x)
{
    const uint32_t *k = b->keys;
    uint32_t n = b->n, lo = 0;
    if (n == 0)
        return 0;
    while (n > 1) {
        uint32_t half = n / 2;
        lo = k[lo + half] <= x ? lo + half : lo;
        n -= half;
    }
    return lo + (k[lo] <= x);
}

static inline uint32_t best_eytzinger(const best_keys *b, uint32_t x)
{
    uint32_t k = 1, n = b->n;
    while (k <= n) {
        __builtin_prefetch(b->eytz + 16u * k);
        k = 2 * k + (b->eytz[k] <= x);
    }
    k >>= __builtin_ffs((int)~k); /* the last left turn: the successor */
    /* eytz[k] is the first key > x (k == 0: none); rank is its index. */
    return k ? b->eytz_rank[k] - 1u : n;
}

#ifdef BEST_X86
BEST_AVX2 static inline uint32_t best_node_count(const int32_t *node, __m256i xb)
{
    __m256i a = _mm256_cmpgt_epi32(_mm256_load_si256((const __m256i *)(const void *)node), xb);
    __m256i c = _mm256_cmpgt_epi32(_mm256_load_si256((const __m256i *)(const void *)(node + 8)), xb);
    uint32_t above = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(a)) |
                     ((uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(c)) << 8);
    return BEST_NODE - (uint32_t)__builtin_popcount(above);
}

BEST_AVX2 static inline uint32_t best_stree(const best_keys *b, uint32_t x)
{
    __m256i xb = _mm256_set1_epi32((int32_t)(x ^ 0x80000000u));
    uint32_t q = 0;
    for (uint32_t l = 0; l + 1u < b->layers; l++)
        q = q * (BEST_NODE + 1u) + best_node_count(b->stree + b->layer_start[l] + q * BEST_NODE, xb);
    return q * BEST_NODE +
           best_node_count(b->stree + b->layer_start[b->layers - 1u] + q * BEST_NODE, xb);
}

BEST_AVX2 static inline uint32_t best_count(const best_keys *b, uint32_t x)
{
    __m256i xb = _mm256_set1_epi32((int32_t)(x ^ 0x80000000u));
    __m256i acc = _mm256_setzero_si256();
    for (uint32_t i = 0; i < b->n; i += 8) /* lanes with key <= x add -1 */
        acc = _mm256_add_epi32(acc, _mm256_xor_si256(
                  _mm256_cmpgt_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(b->biased + i)), xb),
                  _mm256_set1_epi32(-1)));
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return (uint32_t)-_mm_cvtsi128_si32(s);
}

/* Ascending queries: from the last rank r, skip whole groups of 8 keys
 * <= x, then count the rest of the next group. */
BEST_AVX2 static inline uint32_t best_merge_avx2(const best_keys *b, uint32_t x, uint32_t r)
{
    __m256i xb = _mm256_set1_epi32((int32_t)(x ^ 0x80000000u));
    uint32_t padded = (b->n + 7u) & ~7u;
    for (;;) {
        if (r >= padded)
            return b->n;
        __m256i gt = _mm256_cmpgt_epi32(
            _mm256_loadu_si256((const __m256i *)(const void *)(b->biased + (r & ~7u))), xb);
        uint32_t above = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(gt));
        if (above)
            return (r & ~7u) + (uint32_t)__builtin_ctz(above);
        r = (r & ~7u) + 8u;
    }
}
#endif

/* Ascending queries, scalar: advance from the last rank. */
static inline uint32_t best_merge(const best_keys *b, uint32_t x, uint32_t r)
{
    while (r < b->n && b->keys[r] <= x)
        r++;
    return r;
}

/* Ascending queries: gallop from the last rank (1, 2, 4, ... keys ahead),
 * then a branchless search of the last step. */
static inline uint32_t best_gallop(const best_keys *b, uint32_t x, uint32_t r)
{
    uint32_t step = 1, lo = r;
    while (lo + step <= b->n && b->keys[lo + step - 1u] <= x) {
        lo += step;
        step *= 2;
    }
    /* keys[lo - 1] <= x (or lo == r); the answer is in [lo, lo + step). */
    uint32_t n = lo + step <= b->n ? step : b->n - lo;
    const uint32_t *k = b->keys + lo;
    uint32_t at = 0;
    if (n == 0)
        return lo;
    while (n > 1) {
        uint32_t half = n / 2;
        at = k[at + half] <= x ? at + half : at;
        n -= half;
    }
    return lo + at + (k[at] <= x);
}

#endif
