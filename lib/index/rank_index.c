#include "index/rank_index.h"

/* Node counts per layer, leaves first: ceil(n/16), then ceil(prev/17)
 * until one node remains. Returns the number of layers. */
static uint32_t layer_nodes(uint32_t nkeys, uint64_t nodes[RANK_MAX_LAYERS])
{
    uint32_t layers = 0;
    uint64_t count = ((uint64_t)nkeys + RANK_NODE_KEYS - 1) / RANK_NODE_KEYS;

    if (nkeys == 0)
        return 0;
    for (;;) {
        nodes[layers++] = count;
        if (count == 1 || layers == RANK_MAX_LAYERS)
            break;
        count = (count + RANK_FANOUT - 1) / RANK_FANOUT;
    }
    return layers;
}

size_t rank_index_slots(uint32_t nkeys, int *overflow)
{
    uint64_t nodes[RANK_MAX_LAYERS];
    uint32_t layers = layer_nodes(nkeys, nodes);
    uint64_t total = 0;

    *overflow = 0;
    for (uint32_t i = 0; i < layers; i++)
        total += nodes[i] * RANK_NODE_KEYS;
    if (total > SIZE_MAX / sizeof(int32_t)) {
        *overflow = 1;
        return 0;
    }
    return (size_t)total;
}

/* The smallest key under node `node` of the layer `height` levels above
 * the leaves: the first key of its leftmost leaf. */
static uint32_t subtree_min(const uint32_t *keys, uint32_t nkeys, uint64_t node,
                            uint32_t height)
{
    uint64_t leaf = node;

    for (uint32_t h = 0; h < height; h++) {
        leaf *= RANK_FANOUT;
        if (leaf * RANK_NODE_KEYS >= nkeys)
            return RANK_PAD_KEY;
    }
    if (leaf * RANK_NODE_KEYS >= nkeys)
        return RANK_PAD_KEY;
    return keys[leaf * RANK_NODE_KEYS];
}

void rank_index_init(rank_index *index, const uint32_t *keys, uint32_t nkeys,
                     int32_t *nodes, rank_count_fn count_le)
{
    uint64_t counts[RANK_MAX_LAYERS];
    uint32_t layers = layer_nodes(nkeys, counts);
    uint32_t start = 0;

    index->nkeys = nkeys;
    index->nlayers = layers;
    index->nodes = nodes;
    index->count_le = count_le;
    for (uint32_t i = 0; i < RANK_MAX_LAYERS; i++)
        index->layer_start[i] = 0;

    /* Root first: layer_start[0] is the root, the leaves come last. */
    for (uint32_t i = 0; i < layers; i++) {
        uint32_t height = layers - 1 - i; /* levels above the leaves */
        uint64_t n = counts[height];
        int32_t *layer = nodes + start;

        index->layer_start[i] = start;
        if (height == 0) {
            uint64_t slots = n * RANK_NODE_KEYS;
            for (uint64_t k = 0; k < slots; k++)
                layer[k] = (int32_t)((k < nkeys ? keys[k] : RANK_PAD_KEY) ^ RANK_BIAS);
        } else {
            /* Separator c of node q is the smallest key of child c + 1:
             * a query >= it belongs right of child c. */
            for (uint64_t q = 0; q < n; q++)
                for (uint32_t c = 0; c < RANK_NODE_KEYS; c++) {
                    uint64_t child = q * RANK_FANOUT + c + 1;
                    uint32_t key = subtree_min(keys, nkeys, child, height - 1);
                    layer[q * RANK_NODE_KEYS + c] = (int32_t)(key ^ RANK_BIAS);
                }
        }
        start += (uint32_t)(n * RANK_NODE_KEYS);
    }
}
