/* The generic descent of rank_index.h, once per instruction set. */
#include "index/count.h"

/* The descent: root to leaf, one node per layer; the leaf position
 * reached is the count. LAYERS may be a constant, so that specialised
 * copies have no loop. */
#define RANK_DESCEND(NODE_COUNT, index, xb, LAYERS)                                  \
    do {                                                                             \
        const int32_t *nodes_ = (index)->nodes;                                      \
        uint32_t q_ = 0;                                                             \
        for (uint32_t i_ = 0; i_ + 1 < (LAYERS); i_++)                               \
            q_ = q_ * RANK_FANOUT +                                                  \
                 NODE_COUNT(nodes_ + (index)->layer_start[i_] + q_ * RANK_NODE_KEYS, xb); \
        return q_ * RANK_NODE_KEYS +                                                 \
               NODE_COUNT(nodes_ + (index)->layer_start[(LAYERS) - 1] + q_ * RANK_NODE_KEYS, xb); \
    } while (0)

/* One kernel: the shared descent over one instruction set's node count. */
#define RANK_KERNEL(attr, name, node_count)                                \
    attr uint32_t name(const rank_index *index, uint32_t x)                \
    {                                                                       \
        int32_t xb = (int32_t)(x ^ RANK_BIAS);                             \
        if (index->nlayers == 0)                                            \
            return 0;                                                       \
        RANK_DESCEND(node_count, index, xb, index->nlayers);                \
    }

RANK_KERNEL(, rank_count_le_portable, node_count_portable)

#ifdef RANK_HAVE_X86
RANK_KERNEL(, rank_count_le_sse2, node_count_sse2)
RANK_KERNEL(COUNT_TARGET_AVX2, rank_count_le_avx2, node_count_avx2)
#endif

#ifdef RANK_HAVE_NEON
RANK_KERNEL(, rank_count_le_neon, node_count_neon)
#endif

rank_count_fn rank_kernel_for(cpu_level level)
{
#ifdef RANK_HAVE_X86
    if (level == CPU_AVX2)
        return rank_count_le_avx2;
    if (level == CPU_SSE2)
        return rank_count_le_sse2;
#endif
#ifdef RANK_HAVE_NEON
    if (level == CPU_NEON)
        return rank_count_le_neon;
#endif
    (void)level;
    return rank_count_le_portable;
}
