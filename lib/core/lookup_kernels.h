/* value-for-x functions: values[count of keys <= x], specialised by
 * instruction set and tree height so that small maps run straight-line
 * code. Chosen once per map at build time. */
#ifndef ILMAP_LOOKUP_KERNELS_H
#define ILMAP_LOOKUP_KERNELS_H

#include "core/map.h"

direction_lookup_fn lookup_kernel_for(cpu_level level, uint32_t nlayers);

/* The block form (map.h): the eight descents interleaved layer by layer,
 * each prefetching its node of the next layer, so that in a large map
 * their cache misses overlap instead of following one another. */
direction_rank8_fn rank8_kernel_for(cpu_level level, uint32_t nlayers);

#endif
