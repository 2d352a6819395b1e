/* value-for-x functions: values[count of keys <= x], specialised by
 * instruction set and tree height so that small maps run straight-line
 * code. Chosen once per map at build time. */
#ifndef ILMAP_LOOKUP_KERNELS_H
#define ILMAP_LOOKUP_KERNELS_H

#include "core/map.h"

/* The kernels of one direction, for its map's instruction set (chosen
 * once, when the map is built) and its tree height:
 *  - lookup: one query;
 *  - rank8: a block of eight (map.h). A one-node tree compares the eight
 *    queries side by side with each key; taller trees run the eight
 *    descents interleaved layer by layer, each prefetching its node of the
 *    next layer, so that in a large map their cache misses overlap
 *    instead of following one another;
 *  - batch, batch_dac: runs of blocks with that search inline, for the
 *    in-process flavour and the DAC's (trees of at most
 *    BATCH_KERNEL_LAYERS layers; NULL for taller ones). */
typedef struct direction_kernels {
    direction_lookup_fn lookup;
    direction_rank8_fn rank8;
    direction_batch_fn batch;
    direction_batch_fn batch_dac;
} direction_kernels;

direction_kernels direction_kernels_for(cpu_level level, uint32_t nlayers);

#endif
