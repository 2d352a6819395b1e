#include "core/lookup_kernels.h"

#include "index/node_count.h"

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
