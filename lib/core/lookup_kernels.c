#include "core/lookup_kernels.h"

#include "core/batch_block.h"
#include "index/count.h"
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
DEFINE_LOOKUPS(COUNT_TARGET_AVX2, avx2, node_count_avx2)
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
 * work hides. One function per (instruction set, height) as above.
 *
 * floor (a constant where the body is inlined, batch_block.h): 1 counts
 * key[0] as at or below every query, the DAC's rank (rank 0 answers as
 * rank 1). Every other key of the index is above key[0], so a query below
 * it searches as key[0] itself: one max per query, before the descent. */
#define DEFINE_RANK8(ATTR, ISA, NODE_COUNT, H)                                            \
    ATTR static inline void rank8_body_##ISA##_##H(const struct ilmap_direction *d,       \
                                                   const uint32_t *x, uint32_t *rank,     \
                                                   uint32_t floor)                        \
    {                                                                                     \
        const rank_index *index = &d->index;                                              \
        const int32_t *nodes = index->nodes;                                              \
        const uint32_t layers = (H) ? (H) : index->nlayers;                               \
        const int32_t low = (int32_t)(d->first_key ^ RANK_BIAS);                          \
        int32_t xb[DIRECTION_BLOCK];                                                      \
        uint32_t q[DIRECTION_BLOCK];                                                      \
        for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) {                                  \
            xb[k] = (int32_t)(x[k] ^ RANK_BIAS);                                          \
            if (floor && xb[k] < low)                                                     \
                xb[k] = low;                                                              \
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

/* One node (at most 16 keys): the block's eight queries side by side,
 * counted against each key (index/count.h: count_queries8_*). */
static inline void rank8_body_portable_1(const struct ilmap_direction *d, const uint32_t *x,
                                         uint32_t *rank, uint32_t floor)
{
    count_queries8_portable(d->index.nodes, d->index.nkeys, x, rank, floor);
}

#ifdef RANK_HAVE_X86
static inline void rank8_body_sse2_1(const struct ilmap_direction *d, const uint32_t *x,
                                     uint32_t *rank, uint32_t floor)
{
    count_queries8_sse2(d->index.nodes, d->index.nkeys, x, rank, floor);
}

COUNT_TARGET_AVX2 static inline void rank8_body_avx2_1(const struct ilmap_direction *d,
                                                       const uint32_t *x, uint32_t *rank,
                                                       uint32_t floor)
{
    count_queries8_avx2(d->index.nodes, d->index.nkeys, x, rank, floor);
}
#endif

#ifdef RANK_HAVE_NEON
static inline void rank8_body_neon_1(const struct ilmap_direction *d, const uint32_t *x,
                                     uint32_t *rank, uint32_t floor)
{
    count_queries8_neon(d->index.nodes, d->index.nkeys, x, rank, floor);
}
#endif

/* The block search as a function (map.h: rank8), and the run of blocks
 * (map.h: batch) with the search inline: a block inside the remembered
 * interval is filled, a block holding an input the flavour does not
 * search ends the run, any other is searched, and its last query's
 * interval remembered (sorted queries continue there; for random ones it
 * is as good a guess as any, and costs two key reads). The flavour's rank
 * floor (batch_block.h) is a constant of each copy: 0 for the in-process
 * rules (batch), 1 for the DAC's (batch_dac), so the in-process copy has
 * no select at all, and the DAC's none either: its search counts key[0]
 * below every query. In a one-node tree that is free (key[0] is not
 * compared); in taller ones it costs a max per query, so it is done only
 * in blocks holding a query below the first key (a compare per block). */
#define DEFINE_BATCH(ATTR, ISA, H, NAME, FLOOR)                                           \
    ATTR static size_t NAME##_##ISA##_##H(const struct ilmap_direction *d,                \
                                          const struct batch_flavour *fl, const uint32_t *in, \
                                          uint32_t *out, size_t n, struct batch_interval *iv) \
    {                                                                                     \
        struct batch_source src = batch_source_of(d, fl);                                 \
        const uint32_t base = fl->base, width = fl->width;                                \
        struct batch_interval v = *iv;                                                    \
        size_t i = 0;                                                                     \
        src.floor = (FLOOR); /* fl->floor, known here */                                  \
        for (; i + DIRECTION_BLOCK <= n; i += DIRECTION_BLOCK) {                          \
            if (count8_all_within(in + i, v.lo, v.span)) {                                \
                count8_fill(out + i, v.value);                                            \
                continue;                                                                 \
            }                                                                             \
            if (!count8_all_within(in + i, base, width))                                  \
                break;                                                                    \
            uint32_t r[DIRECTION_BLOCK];                                                  \
            if ((FLOOR) && ((H) == 1 || !count8_all_within(in + i, src.first, src.first_span))) \
                rank8_body_##ISA##_##H(d, in + i, r, 1);                                  \
            else                                                                          \
                rank8_body_##ISA##_##H(d, in + i, r, 0);                                  \
            for (uint32_t k = 0; k < DIRECTION_BLOCK; k++) /* r[k] >= FLOOR */            \
                out[i + k] = src.values[r[k]];                                            \
            batch_interval_at(&src, r[DIRECTION_BLOCK - 1], &v);                          \
        }                                                                                 \
        *iv = v;                                                                          \
        return i;                                                                         \
    }

#define DEFINE_RANK8_KERNELS(ATTR, ISA, H)                                                \
    ATTR static void rank8_##ISA##_##H(const struct ilmap_direction *d, const uint32_t *x, \
                                       uint32_t *rank)                                    \
    {                                                                                     \
        rank8_body_##ISA##_##H(d, x, rank, 0);                                            \
    }                                                                                     \
    DEFINE_BATCH(ATTR, ISA, H, batch, 0u)                                                 \
    DEFINE_BATCH(ATTR, ISA, H, batch_dac, 1u)

#define DEFINE_RANK8S(ATTR, ISA, NODE_COUNT)                                              \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 0)                                                \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 2)                                                \
    DEFINE_RANK8(ATTR, ISA, NODE_COUNT, 3)                                                \
    ATTR static void rank8_##ISA##_0(const struct ilmap_direction *d, const uint32_t *x,  \
                                     uint32_t *rank)                                      \
    {                                                                                     \
        rank8_body_##ISA##_0(d, x, rank, 0);                                              \
    }                                                                                     \
    DEFINE_RANK8_KERNELS(ATTR, ISA, 1)                                                    \
    DEFINE_RANK8_KERNELS(ATTR, ISA, 2)                                                    \
    DEFINE_RANK8_KERNELS(ATTR, ISA, 3)                                                    \
    static const direction_rank8_fn rank8s_##ISA[4] = {                                   \
        rank8_##ISA##_0, rank8_##ISA##_1, rank8_##ISA##_2, rank8_##ISA##_3 };             \
    static const direction_batch_fn batches_##ISA[2][4] = {                               \
        { NULL, batch_##ISA##_1, batch_##ISA##_2, batch_##ISA##_3 },                      \
        { NULL, batch_dac_##ISA##_1, batch_dac_##ISA##_2, batch_dac_##ISA##_3 } };

DEFINE_RANK8S(NO_ATTR, portable, node_count_portable)
#ifdef RANK_HAVE_X86
DEFINE_RANK8S(NO_ATTR, sse2, node_count_sse2)
DEFINE_RANK8S(COUNT_TARGET_AVX2, avx2, node_count_avx2)
#endif
#ifdef RANK_HAVE_NEON
DEFINE_RANK8S(NO_ATTR, neon, node_count_neon)
#endif

/* One selection of the instruction set for both kernels. */
direction_kernels direction_kernels_for(cpu_level level, uint32_t nlayers)
{
    const direction_lookup_fn *lookups = lookups_portable;
    const direction_rank8_fn *rank8s = rank8s_portable;
    const direction_batch_fn (*batches)[4] = batches_portable;
    direction_kernels k;

    if (nlayers == 0) {
        k.lookup = lookup_no_keys;
        k.rank8 = rank8_no_keys;
        k.batch = NULL;
        k.batch_dac = NULL;
        return k;
    }
#ifdef RANK_HAVE_X86
    if (level == CPU_AVX2) {
        lookups = lookups_avx2;
        rank8s = rank8s_avx2;
        batches = batches_avx2;
    } else if (level == CPU_SSE2) {
        lookups = lookups_sse2;
        rank8s = rank8s_sse2;
        batches = batches_sse2;
    }
#elif defined(RANK_HAVE_NEON)
    if (level == CPU_NEON) {
        lookups = lookups_neon;
        rank8s = rank8s_neon;
        batches = batches_neon;
    }
#else
    (void)level;
#endif
    k.lookup = lookups[nlayers <= 3 ? nlayers : 0];
    k.rank8 = rank8s[nlayers <= 3 ? nlayers : 0];
    k.batch = batches[0][nlayers <= 3 ? nlayers : 0];
    k.batch_dac = batches[1][nlayers <= 3 ? nlayers : 0];
    return k;
}
