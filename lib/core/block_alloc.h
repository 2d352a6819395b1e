/* The one allocation behind each map: 64-byte aligned, and on Linux
 * backed by transparent huge pages when large, because a lookup in a big
 * map touches several random pages and TLB misses would dominate. */
#ifndef ILMAP_BLOCK_ALLOC_H
#define ILMAP_BLOCK_ALLOC_H

#include <stddef.h>

/* Returns a 64-byte aligned block of at least size bytes, or NULL; *held
 * receives the bytes actually reserved. */
void *block_alloc(size_t size, size_t *held);
void block_free(void *block);

#endif
