/*
 * A static search tree over a strictly ascending array of uint32 keys that
 * answers one question: how many keys are <= x?
 *
 * Layout: a B+ tree with 16 keys (one 64-byte cache line) per node and 17
 * children per internal node, stored layer by layer, root first, leaves
 * last. The leaves are the keys themselves in order, so the leaf position
 * reached by a descent is the answer. Keys are stored biased (xor
 * 0x80000000) so that signed SIMD compares order them as unsigned.
 *
 * Padding slots hold 0xFFFFFFFF. A query must therefore be below
 * 0xFFFFFFFF; callers guarantee it (the runtime's rules answer
 * ILMAP_NO_MAPPING and every value >= 0x80000000 in the DAC flavour
 * before any search), so padding never collides with a real key, even a
 * key equal to a special value (doc/decisions.md#decision-7).
 */
#ifndef ILMAP_RANK_INDEX_H
#define ILMAP_RANK_INDEX_H

#include <stddef.h>
#include <stdint.h>

#define RANK_NODE_KEYS 16u
#define RANK_FANOUT (RANK_NODE_KEYS + 1u)
/* 16 * 17^7 > 2^32: no key count we accept needs more layers. */
#define RANK_MAX_LAYERS 8u
#define RANK_PAD_KEY 0xFFFFFFFFu
#define RANK_BIAS 0x80000000u

typedef struct rank_index rank_index;
typedef uint32_t (*rank_count_fn)(const rank_index *index, uint32_t x);

struct rank_index {
    uint32_t nkeys;
    uint32_t nlayers;                       /* 0 when nkeys == 0 */
    uint32_t layer_start[RANK_MAX_LAYERS];  /* in keys; [0] = root layer */
    const int32_t *nodes;                   /* biased keys, 64-byte aligned */
    rank_count_fn count_le;                 /* the CPU-specific descent */
};

/* Slots (int32 each) the tree for nkeys keys occupies; 0 for no keys.
 * Returns 0 and sets *overflow when the size does not fit a size_t. */
size_t rank_index_slots(uint32_t nkeys, int *overflow);

/* Builds the tree for keys[0..nkeys) (strictly ascending) into nodes,
 * which has rank_index_slots(nkeys) slots and is 64-byte aligned. O(n). */
void rank_index_init(rank_index *index, const uint32_t *keys, uint32_t nkeys,
                     int32_t *nodes, rank_count_fn count_le);

/* The i-th key (0 <= i < nkeys), read back from the leaves. */
static inline uint32_t rank_index_key(const rank_index *index, uint32_t i)
{
    return (uint32_t)index->nodes[index->layer_start[index->nlayers - 1] + i] ^ RANK_BIAS;
}

/* How many keys are <= x; x must be < 0xFFFFFFFF. */
static inline uint32_t rank_index_count_le(const rank_index *index, uint32_t x)
{
    return index->count_le(index, x);
}

/* The generic descent for a CPU level (cpu.h); rank_kernels.c. */
#include "index/cpu.h"
rank_count_fn rank_kernel_for(cpu_level level);

/* The descents, one per instruction set; rank_kernels.c. */
uint32_t rank_count_le_portable(const rank_index *index, uint32_t x);
#if defined(__x86_64__) || defined(_M_X64)
#define RANK_HAVE_X86 1
uint32_t rank_count_le_sse2(const rank_index *index, uint32_t x);
uint32_t rank_count_le_avx2(const rank_index *index, uint32_t x);
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define RANK_HAVE_NEON 1
uint32_t rank_count_le_neon(const rank_index *index, uint32_t x);
#endif

#endif
