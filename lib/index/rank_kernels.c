/* The generic descent of rank_index.h, once per instruction set. */
#include "index/node_count.h"

uint32_t rank_count_le_portable(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    if (index->nlayers == 0)
        return 0;
    NODE_DESCEND(node_count_portable, index, xb, index->nlayers);
}

#ifdef RANK_HAVE_X86
uint32_t rank_count_le_sse2(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    if (index->nlayers == 0)
        return 0;
    NODE_DESCEND(node_count_sse2, index, xb, index->nlayers);
}

NODE_TARGET_AVX2 uint32_t rank_count_le_avx2(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    if (index->nlayers == 0)
        return 0;
    NODE_DESCEND(node_count_avx2, index, xb, index->nlayers);
}
#endif

#ifdef RANK_HAVE_NEON
uint32_t rank_count_le_neon(const rank_index *index, uint32_t x)
{
    int32_t xb = (int32_t)(x ^ RANK_BIAS);
    if (index->nlayers == 0)
        return 0;
    NODE_DESCEND(node_count_neon, index, xb, index->nlayers);
}
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
