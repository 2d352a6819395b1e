/*
 * The store's address index: which body's code range holds an
 * instruction pointer.
 *
 * Why not a sorted table of ranges: a sampler's lookup is a chain of
 * dependent cache misses, and a binary search over 100,000 ranges is
 * about 17 of them (the upper ones cached, the last several not). Code
 * addresses have structure a search ignores: the runtime allocates code
 * in a few large heaps, so the bits above a page are few distinct values.
 * The index is a radix tree over the page number (address >> 16: 64 KiB
 * pages), 8 bits per level, with as many levels as the highest page
 * needs (two for addresses below 4 GiB, four below 2^48), over small
 * sorted leaves, one per page, holding the ranges that touch that page:
 * 16-bit offsets of where each range starts in the page (0 for a range
 * that began on an earlier page) and a tagged pointer to the body (the
 * range's index in the low 3 bits). A leaf also says, for each 256-byte
 * slot of its page, how many ranges start before the slot (search.h's
 * slots), so a lookup goes from the slot straight to the one or two
 * offsets that can hold the answer: a few node loads (the upper levels
 * stay cached: there are few of them), then three dependent loads in the
 * leaf whatever the page holds.
 *
 * A leaf also holds, per slot, where the answer record of the slot's
 * first byte lies (the caller's ax_record_fn says where, at insertion),
 * so that a lookup asks for the record's line as soon as it has the
 * leaf, together with the body's rather than after it: at scale the
 * body's line and the record's are each a cache miss, and this way they
 * overlap. It is a prefetch address only, never read through: a slot
 * whose first byte no range holds has none (0).
 *
 * Copy-on-write like the store's tables (table.h): published nodes and
 * leaves are never changed; a change copies the path from the root to the
 * page's leaf (at most 8 nodes of 256 pointers) and the leaf, unless they
 * are fresh in the running transaction (gen == the transaction's), and
 * retires what it replaced. Installing a body therefore writes a bounded
 * number of words whatever the number of bodies: the path, and the
 * leaves of the pages the body's ranges touch.
 *
 * Readers: lock-free, allocation-free, async-signal-safe; they only
 * follow pointers of published, immutable nodes.
 */
#ifndef ILMAP_VERSIONS_ADDR_INDEX_H
#define ILMAP_VERSIONS_ADDR_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "common/search.h"
#include "platform/prefetch.h"
#include "ilmap.h"
#include "versions/txn.h"

#define AX_PAGE_BITS 16u
#define AX_LEVEL_BITS 8u
#define AX_FANOUT (1u << AX_LEVEL_BITS)
/* Levels for the largest page number: (bits of an address - 16) / 8,
 * rounded up. */
#define AX_MAX_HEIGHT ((sizeof(uintptr_t) * 8u - AX_PAGE_BITS + AX_LEVEL_BITS - 1u) / AX_LEVEL_BITS)
/* A body's range index rides in the low bits of its pointer: bodies are
 * malloc'd, so aligned to at least 8 bytes. ILMAP_STORE_MAX_RANGES must
 * fit (checked in addr_index.c). */
#define AX_TAG_MASK ((uintptr_t)7u)

typedef struct ax_node {
    uint64_t gen;
    uint32_t used; /* non-NULL children */
    uint32_t unused;
    void *child[AX_FANOUT]; /* nodes, or leaves on the last level */
} ax_node;

/* Slots of a leaf: 256 bytes each, 256 per page. */
#define AX_SLOT_BITS 8u
#define AX_SLOTS (1u << (AX_PAGE_BITS - AX_SLOT_BITS))
/* Ranges starting in one page, at most: below[] holds counts in 16 bits.
 * (A test build lowers it to reach it.) */
#ifndef AX_LEAF_MAX
#define AX_LEAF_MAX 0xFFFFu
#endif
/* Lines of a body prefetched at most, when its address is known. */
#define AX_MAX_LINES 8u

/* One page's ranges, by start offset in the page. One block: the struct,
 * offs[count] (padded to pointer alignment), refs[count], then lines[count]:
 * per range, how many cache lines of its body a lookup may read (a
 * prefetch hint, 1..AX_MAX_LINES). */
typedef struct ax_leaf {
    uint64_t gen;
    uint32_t count; /* 1..AX_LEAF_MAX in a published index */
    uint32_t unused;
    /* Per slot: where the answer record of its first byte lies (0: no
     * range holds that byte). A prefetch hint, set and cleared with the
     * range that holds the byte. */
    uintptr_t record[AX_SLOTS];
    uint16_t below[AX_SLOTS + 1]; /* ranges starting before each slot (search.h) */
    uint16_t offs[];
} ax_leaf;

/* The index as a snapshot holds it (by value). height 0: empty. */
typedef struct ax_root {
    ax_node *node;
    uint32_t height;
} ax_root;

static inline const uintptr_t *ax_refs(const ax_leaf *leaf)
{
    size_t off = ((size_t)leaf->count * sizeof(uint16_t) + sizeof(uintptr_t) - 1) &
                 ~(sizeof(uintptr_t) - 1);
    return (const uintptr_t *)(const void *)((const unsigned char *)(leaf + 1) + off);
}

static inline const uint8_t *ax_lines(const ax_leaf *leaf)
{
    return (const uint8_t *)(ax_refs(leaf) + leaf->count);
}

/* The leaf of the page holding address, or NULL. */
static inline const ax_leaf *ax_page(ax_root root, uintptr_t address)
{
    uint64_t key = (uint64_t)address >> AX_PAGE_BITS;
    uint32_t h = root.height;
    const ax_node *n = root.node;

    if (h == 0 || (h * AX_LEVEL_BITS < 64u && (key >> (h * AX_LEVEL_BITS)) != 0))
        return NULL;
    while (--h > 0) {
        n = n->child[(key >> (h * AX_LEVEL_BITS)) & (AX_FANOUT - 1u)];
        if (!n)
            return NULL;
    }
    return n->child[key & (AX_FANOUT - 1u)];
}

/* How many of the leaf's offsets are <= off. */
static inline uint32_t ax_rank(const ax_leaf *leaf, uint32_t off)
{
    return search_slot_rank_u16(leaf->offs, 1, leaf->below, AX_SLOT_BITS, (uint16_t)off);
}

/* The record hint of address's slot in leaf (0: none). */
static inline uintptr_t ax_leaf_record(const ax_leaf *leaf, uintptr_t address)
{
    return leaf->record[(address >> AX_SLOT_BITS) & (AX_SLOTS - 1u)];
}

/*
 * The tagged body pointer (body | range index) of the range with the
 * greatest start at or below address in address's page, or 0: the only
 * range that can hold address. The caller checks that it does (address -
 * start < size), from the body it already has to load. *lines: the
 * body's prefetch hint (0 with no candidate). Prefetches the answer
 * record of address's slot (two lines: a slot's records).
 */
static inline uintptr_t ax_candidate(ax_root root, uintptr_t address, uint32_t *lines)
{
    const ax_leaf *leaf = ax_page(root, address);
    *lines = 0;
    if (!leaf)
        return 0;
    uintptr_t record = ax_leaf_record(leaf, address);
    if (record) {
        ILMAP_PREFETCH((const void *)record);
        ILMAP_PREFETCH((const char *)record + 64);
    }
    uint32_t i = ax_rank(leaf, (uint32_t)(address & 0xFFFFu));
    if (i == 0)
        return 0;
    *lines = ax_lines(leaf)[i - 1];
    return ax_refs(leaf)[i - 1];
}

/*
 * Writer side, inside a transaction (txn.h); `root` is the transaction's
 * draft. On ILMAP_E_NOMEM the draft may be half-changed: the caller aborts
 * the transaction (fresh nodes freed, published index untouched).
 */

/* Whether [start, start + size) overlaps a range in the index; the
 * caller gives each range's bounds for a tag. */
typedef void (*ax_bounds_fn)(uintptr_t ref, uintptr_t *start, size_t *size);
int ax_overlaps(ax_root root, uintptr_t start, size_t size, ax_bounds_fn bounds);

/* Where the answer record for address (inside ref's range) lies: the
 * slots' prefetch hint (0: none). */
typedef uintptr_t (*ax_record_fn)(uintptr_t ref, uintptr_t address);

/* Adds [start, start + size) for ref (tagged body pointer), whose body a
 * lookup may read in its first `lines` cache lines (clamped to
 * 1..AX_MAX_LINES); record(ref, a) gives the record hint of each slot
 * whose first byte a the range holds (record NULL: no hints). It must not
 * overlap a range in the index (check with ax_overlaps first). */
ilmap_status ax_insert(vt_txn *tx, ax_root *root, uintptr_t start, size_t size, uintptr_t ref,
                       uint32_t lines, ax_record_fn record);

/* Removes the range added with (start, size, ref); ILMAP_E_NOT_FOUND if
 * it is not there. */
ilmap_status ax_remove(vt_txn *tx, ax_root *root, uintptr_t start, size_t size, uintptr_t ref);

/* Frees every node and leaf (teardown, no reader left; bodies are not
 * the index's). */
void ax_destroy(ax_root root);

#endif
