/*
 * The memory of the store's bodies (store.h: a body, its ranges and its
 * answers in one block).
 *
 * Why not malloc: a sampler's lookup ends in one body, and which body is
 * random, so what a lookup costs at scale is how many pages and cache
 * lines the bodies are spread over. From malloc, each body lands between
 * the blocks its own installation copied (B+tree leaves, address index
 * nodes: several KB per install, freed a grace period later), so 4,096
 * bodies of a few hundred bytes sit on 4,096 pages, and the TLB misses.
 * Here bodies are carved one after another from chunks of their own, in
 * whole cache lines (64-byte aligned: a body's first line holds its
 * fields, and a lookup reads whole lines of it), and a freed body's block
 * is kept for the next body of the same number of lines.
 *
 * Blocks of up to BH_MAX_LINES lines come from chunks (16 KiB at first,
 * doubling up to 1 MiB, each from the C allocator); bigger ones are
 * allocated on their own. Chunks are returned at bh_destroy() only.
 *
 * Not thread-safe: the store's writers use it under their mutex (and the
 * reclaimer, which runs there too). Under AddressSanitizer a free block is
 * poisoned (but for the word that links it), so that a read of a body
 * freed too early is reported as it would be with malloc.
 */
#ifndef ILMAP_VERSIONS_BODY_HEAP_H
#define ILMAP_VERSIONS_BODY_HEAP_H

#include <stddef.h>

#define BH_LINE 64u
#define BH_MAX_LINES 64u /* blocks up to 4 KiB from chunks */

typedef struct body_heap {
    struct bh_chunk *chunks;           /* newest first */
    unsigned char *bump, *end;         /* the newest chunk's unused part */
    size_t next_chunk;                 /* bytes of the next chunk */
    void *free_blocks[BH_MAX_LINES + 1]; /* by lines; each links the next */
    size_t held;                       /* bytes from the C allocator: chunks, big blocks */
} body_heap;

void bh_init(body_heap *h);

/* A 64-byte aligned block of at least size bytes (size >= 1), or NULL. */
void *bh_alloc(body_heap *h, size_t size);

/* Returns a block from bh_alloc() with the same size. NULL is a no-op. */
void bh_free(body_heap *h, void *p, size_t size);

/* Frees every chunk; blocks not returned are gone with them (and big
 * blocks must have been returned). */
void bh_destroy(body_heap *h);

#endif
