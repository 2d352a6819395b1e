/* The one allocation behind each map: 64-byte aligned, and on Linux
 * backed by transparent huge pages when large, because a lookup in a big
 * map touches several random pages and TLB misses would dominate. */
#ifndef ILMAP_BLOCK_ALLOC_H
#define ILMAP_BLOCK_ALLOC_H

#include <stddef.h>

/* Plans the arrays of one block: each starts on a 64-byte boundary (the
 * rank kernels load whole aligned nodes). Overflow is sticky and checked
 * once, after the last array. */
typedef struct block_plan {
    size_t size;
    int overflow;
} block_plan;

/* Reserves count elements of elem_size bytes; returns their offset. */
size_t block_plan_add(block_plan *plan, size_t count, size_t elem_size);

/* Returns a 64-byte aligned block of at least size bytes, or NULL; *held
 * receives the bytes actually reserved. */
void *block_alloc(size_t size, size_t *held);
void block_free(void *block);

#endif
