/* The bodies' chunks and free lists; see body_heap.h. */
#include <stdint.h>
#include <stdlib.h>

#include "platform/memory.h"
#include "versions/body_heap.h"

#if defined(__SANITIZE_ADDRESS__)
#define BH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BH_ASAN 1
#endif
#endif
#ifdef BH_ASAN
#include <sanitizer/asan_interface.h>
#define BH_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define BH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define BH_POISON(p, n) ((void)(p), (void)(n))
#define BH_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define FIRST_CHUNK ((size_t)16u << 10)
#define LAST_CHUNK ((size_t)1u << 20)

/* A chunk's first line: the list of chunks; blocks follow. */
struct bh_chunk {
    struct bh_chunk *next;
    size_t bytes;
};

void bh_init(body_heap *h)
{
    h->chunks = NULL;
    h->bump = h->end = NULL;
    h->next_chunk = FIRST_CHUNK;
    for (size_t i = 0; i <= BH_MAX_LINES; i++)
        h->free_blocks[i] = NULL;
    h->held = 0;
}

/* Lines for size bytes; 0 when that is more than BH_MAX_LINES. */
static size_t lines_of(size_t size)
{
    return size <= (size_t)BH_MAX_LINES * BH_LINE ? (size + BH_LINE - 1u) / BH_LINE : 0;
}

static int new_chunk(body_heap *h, size_t need)
{
    size_t bytes = h->next_chunk;
    while (bytes - BH_LINE < need) /* need <= 4 KiB < FIRST_CHUNK - 64 */
        bytes *= 2;
    struct bh_chunk *c = ilmap_aligned_alloc(BH_LINE, bytes);
    if (!c)
        return 0;
    c->next = h->chunks;
    c->bytes = bytes;
    h->chunks = c;
    h->held += bytes;
    /* The rest of the old chunk is dropped: at most one block's worth. */
    h->bump = (unsigned char *)c + BH_LINE;
    h->end = (unsigned char *)c + bytes;
    BH_POISON(h->bump, (size_t)(h->end - h->bump));
    if (h->next_chunk < LAST_CHUNK)
        h->next_chunk *= 2;
    return 1;
}

void *bh_alloc(body_heap *h, size_t size)
{
    size_t lines = lines_of(size ? size : 1u);
    if (lines == 0) {
        if (size > SIZE_MAX - BH_LINE)
            return NULL;
        size_t bytes = (size + BH_LINE - 1u) & ~(size_t)(BH_LINE - 1u);
        void *big = ilmap_aligned_alloc(BH_LINE, bytes);
        if (big)
            h->held += bytes;
        return big;
    }
    size_t bytes = lines * BH_LINE;
    void *p = h->free_blocks[lines];
    if (p) {
        BH_UNPOISON(p, bytes);
        h->free_blocks[lines] = *(void **)p;
        return p;
    }
    if ((size_t)(h->end - h->bump) < bytes && !new_chunk(h, bytes))
        return NULL;
    p = h->bump;
    h->bump += bytes;
    BH_UNPOISON(p, bytes);
    return p;
}

void bh_free(body_heap *h, void *p, size_t size)
{
    if (!p)
        return;
    size_t lines = lines_of(size ? size : 1u);
    if (lines == 0) {
        h->held -= (size + BH_LINE - 1u) & ~(size_t)(BH_LINE - 1u);
        ilmap_aligned_free(p);
        return;
    }
    *(void **)p = h->free_blocks[lines];
    h->free_blocks[lines] = p;
    BH_POISON((unsigned char *)p + sizeof(void *), lines * BH_LINE - sizeof(void *));
}

void bh_destroy(body_heap *h)
{
    struct bh_chunk *c = h->chunks;
    while (c) {
        struct bh_chunk *next = c->next;
        BH_UNPOISON(c, c->bytes);
        ilmap_aligned_free(c);
        c = next;
    }
    bh_init(h);
}
