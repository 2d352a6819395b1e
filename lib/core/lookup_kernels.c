#include "core/lookup_kernels.h"

#include "index/node_count.h"
#include "platform/prefetch.h"

static uint32_t lookup_no_keys(const struct ilmap_direction *d, uint32_t x)
{
    (void)x;
    return d->values[0];
}

/* One function per (instruction set, height); height 0 = any, looped. */
#define DEFINE_LOOKUP(ATTR, ISA, NODE_COUNT, H)                                       \
    ATTR static uint32_t lookup_##ISA##_##H(const struct ilmap_direction *d, uint32_t x) \
    {                                                                                 \
        const rank_index *index = &d->index;                                          \
        int32_t xb = (int32_t)(x ^ RANK_BIAS);                                        \
        const uint32_t *values = d->values;                                           \
        uint32_t rank;                                                                \
        do {                                                                          \
            const int32_t *nodes_ = index->nodes;                                     \
            uint32_t q_ = 0;                                                          \
            uint32_t layers_ = (H) ? (H) : index->nlayers;                            \
            for (uint32_t i_ = 0; i_ + 1 < layers_; i_++)                             \
                q_ = q_ * RANK_FANOUT +                                               \
                     NODE_COUNT(nodes_ + index->layer_start[i_] + q_ * RANK_NODE_KEYS, xb); \
            rank = q_ * RANK_NODE_KEYS +                                              \
                   NODE_COUNT(nodes_ + index->layer_start[layers_ - 1] + q_ * RANK_NODE_KEYS, xb); \
        } while (0);                                                                  \
        return values[rank];                                                          \
    }

#define DEFINE_LOOKUPS(ATTR, ISA, NODE_COUNT)                                         \
    DEFINE_LOOKUP(ATTR, ISA, NODE_COUNT, 0)                                           \
    DEFINE_LOOKUP(ATTR, ISA, NODE_COUNT, 1)                                           \
    DEFINE_LOOKUP(ATTR, ISA, NODE_COUNT, 2)                                           \
    DEFINE_LOOKUP(ATTR, ISA, NODE_COUNT, 3)                                           \
    static const direction_lookup_fn lookups_##ISA[4] = {                             \
        lookup_##ISA##_0, lookup_##ISA##_1, lookup_##ISA##_2, lookup_##ISA##_3 };

#define NO_ATTR
DEFINE_LOOKUPS(NO_ATTR, portable, node_count_portable)
#ifdef RANK_HAVE_X86
DEFINE_LOOKUPS(NO_ATTR, sse2, node_count_sse2)
DEFINE_LOOKUPS(NODE_TARGET_AVX2, avx2, node_count_avx2)
#endif
#ifdef RANK_HAVE_NEON
DEFINE_LOOKUPS(NO_ATTR, neon, node_count_neon)
#endif

static void rank8_no_keys(const struct ilmap_direction *d, const uint32_t *x, uint32_t *rank)
{
    (void)d;
    (void)x;
    for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)
        rank[k] = 0;
}

/* Eight descents in lockstep: per layer, each query's node count, then a
 * prefetch of the node it descends to, which the other seven queries'
 * work hides. One function per (instruction set, height) as above. */
#define DEFINE_RANK8(ATTR, ISA, NODE_COUNT, H)                                            \
    ATTR static void rank8_##ISA##_##H(const struct ilmap_direction *d, const uint32_t *x, \
                                       uint32_t *rank)                                    \
    {                                                                                     \
        const rank_index *index = &d->index;                                              \
        const int32_t *nodes = index->nodes;                                              \
        const uint32_t layers = (H) ? (H) : index->nlayers;                               \
        int32_t xb[DIRECTION_BLOCK];                                                      \
        uint32_t q[DIRECTION_BLOCK];                                                      \
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {                                  \
            xb[k] = (int32_t)(x[k] ^ RANK_BIAS);                                          \
            q[k] = 0;                                                                     \
        }                                                                                 \
        for (uint32_t l = 0; l + 1 < layers; l++) {                                       \
            const int32_t *layer = nodes + index->layer_start[l];                         \
            const int32_t *next = nodes + index->layer_start[l + 1];                      \
            for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {                              \
                q[k] = q[k] * RANK_FANOUT + NODE_COUNT(layer + q[k] * RANK_NODE_KEYS, xb[k]); \
                if ((H) == 0 || (H) > 2) /* two layers (<= 272 keys) stay cached */     \
                    ILMAP_PREFETCH(next + q[k] * RANK_NODE_KEYS);                         \
            }                                                                             \
        }                                                                                 \
        const int32_t *leaves = nodes + index->layer_start[layers - 1];                   \
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++)                                    \
            rank[k] = q[k] * RANK_NODE_KEYS + NODE_COUNT(leaves + q[k] * RANK_NODE_KEYS, xb[k]); \
    }

#define DEFINE_RANK8S(ATTR, ISA, NODE_COUNT)                                              \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 0)                                                \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 1)                                                \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 2)                                                \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 3)                                                \
    static const direction_rank8_fn rank8s_##ISA[4] = {                                   \
        rank8_##ISA##_0, rank8_##ISA##_1, rank8_##ISA##_2, rank8_##ISA##_3 };

DEFINE_RANK8S(NO_ATTR, portable, node_count_portable)
#ifdef RANK_HAVE_X86
DEFINE_RANK8S(NO_ATTR, sse2, node_count_sse2)
DEFINE_RANK8S(NODE_TARGET_AVX2, avx2, node_count_avx2)
#endif
#ifdef RANK_HAVE_NEON
DEFINE_RANK8S(NO_ATTR, neon, node_count_neon)
#endif

direction_rank8_fn rank8_kernel_for(cpu_level level, uint32_t nlayers)
{
    const direction_rank8_fn *table = rank8s_portable;

    if (nlayers == 0)
        return rank8_no_keys;
#ifdef RANK_HAVE_X86
    if (level == CPU_AVX2)
        table = rank8s_avx2;
    else if (level == CPU_SSE2)
        table = rank8s_sse2;
#elif defined(RANK_HAVE_NEON)
    if (level == CPU_NEON)
        table = rank8s_neon;
#else
    (void)level;
#endif
    return table[nlayers <= 3 ? nlayers : 0];
}

direction_lookup_fn lookup_kernel_for(cpu_level level, uint32_t nlayers)
{
    const direction_lookup_fn *table = lookups_portable;

    if (nlayers == 0)
        return lookup_no_keys;
#ifdef RANK_HAVE_X86
    if (level == CPU_AVX2)
        table = lookups_avx2;
    else if (level == CPU_SSE2)
        table = lookups_sse2;
#elif defined(RANK_HAVE_NEON)
    if (level == CPU_NEON)
        table = lookups_neon;
#else
    (void)level;
#endif
    return table[nlayers <= 3 ? nlayers : 0];
}
