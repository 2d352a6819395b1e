/* The address index's writer side; see addr_index.h. */
#include <stdlib.h>
#include <string.h>

#include "ilmap-versions.h"
#include "versions/addr_index.h"

_Static_assert(ILMAP_STORE_MAX_RANGES <= AX_TAG_MASK + 1u,
               "a body's range index must fit in the tag bits of its pointer");
_Static_assert(AX_MAX_HEIGHT <= 8u, "the path arrays below hold 8 levels");

#define PAGE_MASK ((uint64_t)(1u << AX_PAGE_BITS) - 1u)
#define LEVEL_MASK ((uint64_t)AX_FANOUT - 1u)

static size_t leaf_bytes(uint32_t count)
{
    /* count <= 65536 (ranges in one page do not overlap): no overflow. */
    size_t offs = ((size_t)count * sizeof(uint16_t) + sizeof(uintptr_t) - 1) &
                  ~(sizeof(uintptr_t) - 1);
    return sizeof(ax_leaf) + offs + (size_t)count * (sizeof(uintptr_t) + 1u);
}

static uintptr_t *leaf_refs(ax_leaf *leaf)
{
    return (uintptr_t *)(uintptr_t)ax_refs(leaf);
}

static uint8_t *leaf_lines(ax_leaf *leaf)
{
    return (uint8_t *)(uintptr_t)ax_lines(leaf);
}

/* The slots of leaf (page `page`) whose first byte [start, start + size)
 * holds: their record hints from record(ref, first byte), or 0 when
 * record is NULL. */
static void leaf_records(ax_leaf *leaf, uint64_t page, uintptr_t start, size_t size,
                         uintptr_t ref, ax_record_fn record)
{
    const uint64_t slot = (uint64_t)1u << AX_SLOT_BITS;
    uint64_t lo = page << AX_PAGE_BITS, hi = lo | PAGE_MASK, last = (uint64_t)start + size - 1u;
    if (lo < (uint64_t)start) {
        lo = ((uint64_t)start + slot - 1u) & ~(slot - 1u); /* the first slot it starts */
        if (lo < (uint64_t)start)
            return; /* no slot starts above start */
    }
    if (hi > last)
        hi = last;
    for (uint64_t a = lo; a <= hi; a += slot)
        leaf->record[(a >> AX_SLOT_BITS) & (AX_SLOTS - 1u)] =
            record ? record(ref, (uintptr_t)a) : 0;
}

/* Fills the slot table once the offsets are in. */
static void leaf_index(ax_leaf *leaf)
{
    search_slots_u16(leaf->offs, 1, leaf->count, AX_SLOT_BITS, AX_SLOTS, leaf->below);
}

static ax_leaf *leaf_new(vt_txn *tx, uint32_t count)
{
    ax_leaf *leaf = vt_txn_alloc(tx, leaf_bytes(count));
    if (leaf) {
        leaf->gen = tx->gen;
        leaf->count = count;
        leaf->unused = 0;
    }
    return leaf;
}

static ax_node *node_new(vt_txn *tx)
{
    ax_node *n = vt_txn_alloc(tx, sizeof *n);
    if (n) {
        memset(n, 0, sizeof *n);
        n->gen = tx->gen;
    }
    return n;
}

/* A published block is retired (freed after the grace period); a fresh
 * one, replaced before anyone saw it, is freed now. */
static ilmap_status drop(vt_txn *tx, void *block, uint64_t gen)
{
    if (gen == tx->gen) {
        vt_txn_discard(tx, block);
        return ILMAP_OK;
    }
    return vt_txn_retire(tx, block, RETIRE_MEMORY);
}

/* Makes *slot a fresh node (a copy if it was published). */
static ilmap_status own_node(vt_txn *tx, ax_node **slot)
{
    ax_node *n = *slot;
    if (n->gen == tx->gen)
        return ILMAP_OK;
    ax_node *copy = vt_txn_alloc(tx, sizeof *copy);
    if (!copy)
        return ILMAP_E_NOMEM;
    memcpy(copy, n, sizeof *copy);
    copy->gen = tx->gen;
    *slot = copy;
    return vt_txn_retire(tx, n, RETIRE_MEMORY);
}

static int covers(uint32_t height, uint64_t key)
{
    return height > 0 && (height * AX_LEVEL_BITS >= 64u || (key >> (height * AX_LEVEL_BITS)) == 0);
}

/* The fresh path from the root down to the node holding the leaf slot of
 * page `key`: path[0] is the root, path[height - 1] the last level. With
 * create, missing nodes (and levels above the root) are made; without,
 * a missing node is ILMAP_E_NOT_FOUND. */
static ilmap_status own_path(vt_txn *tx, ax_root *root, uint64_t key, int create,
                             ax_node *path[8])
{
    if (!covers(root->height, key)) {
        if (!create)
            return ILMAP_E_NOT_FOUND;
        while (!covers(root->height, key)) {
            if (root->height >= AX_MAX_HEIGHT)
                return ILMAP_E_LIMIT;
            ax_node *top = node_new(tx);
            if (!top)
                return ILMAP_E_NOMEM;
            if (root->node) {
                top->child[0] = root->node; /* it covered the keys with 0 above */
                top->used = 1;
            }
            root->node = top;
            root->height++;
        }
    }
    ilmap_status st = own_node(tx, &root->node);
    if (st != ILMAP_OK)
        return st;
    ax_node *n = root->node;
    path[0] = n;
    for (uint32_t level = 1; level < root->height; level++) {
        uint32_t shift = (root->height - level) * AX_LEVEL_BITS;
        void **slot = &n->child[(key >> shift) & LEVEL_MASK];
        if (!*slot) {
            if (!create)
                return ILMAP_E_NOT_FOUND;
            ax_node *c = node_new(tx);
            if (!c)
                return ILMAP_E_NOMEM;
            *slot = c;
            n->used++;
        } else if ((st = own_node(tx, (ax_node **)slot)) != ILMAP_OK) {
            return st;
        }
        n = *slot;
        path[level] = n;
    }
    return ILMAP_OK;
}

int ax_overlaps(ax_root root, uintptr_t start, size_t size, ax_bounds_fn bounds)
{
    uint64_t first = (uint64_t)start >> AX_PAGE_BITS;
    uint64_t last_addr = (uint64_t)start + size - 1u; /* size >= 1, no wrap (checked) */
    uint64_t last = last_addr >> AX_PAGE_BITS;

    for (uint64_t page = first; page <= last; page++) {
        uint64_t lo = page == first ? (uint64_t)start : page << AX_PAGE_BITS;
        uint64_t hi = page == last ? last_addr : (page << AX_PAGE_BITS) | PAGE_MASK;
        const ax_leaf *leaf = ax_page(root, (uintptr_t)lo);
        if (!leaf)
            continue;
        uint32_t i = ax_rank(leaf, (uint32_t)(lo & PAGE_MASK));
        if (i > 0) {
            uintptr_t s;
            size_t z;
            bounds(ax_refs(leaf)[i - 1], &s, &z);
            if ((uintptr_t)lo - s < z)
                return 1; /* a range from below lo reaches lo */
        }
        if (i < leaf->count && leaf->offs[i] <= (hi & PAGE_MASK))
            return 1; /* a range starts inside [lo, hi] */
    }
    return 0;
}

ilmap_status ax_insert(vt_txn *tx, ax_root *root, uintptr_t start, size_t size, uintptr_t ref,
                       uint32_t lines, ax_record_fn record)
{
    uint8_t hint = (uint8_t)(lines < 1u ? 1u : lines > AX_MAX_LINES ? AX_MAX_LINES : lines);

    uint64_t first = (uint64_t)start >> AX_PAGE_BITS;
    uint64_t last = ((uint64_t)start + size - 1u) >> AX_PAGE_BITS;

    for (uint64_t page = first; page <= last; page++) {
        ax_node *path[8];
        ilmap_status st = own_path(tx, root, page, 1, path);
        if (st != ILMAP_OK)
            return st;
        ax_node *bottom = path[root->height - 1];
        void **slot = &bottom->child[page & LEVEL_MASK];
        ax_leaf *old = *slot;
        uint32_t n = old ? old->count : 0;
        uint16_t off = page == first ? (uint16_t)(start & PAGE_MASK) : 0;
        uint32_t at = old ? ax_rank(old, off) : 0;

        if (n >= AX_LEAF_MAX)
            return ILMAP_E_LIMIT;
        ax_leaf *leaf = leaf_new(tx, n + 1);
        if (!leaf)
            return ILMAP_E_NOMEM;
        uintptr_t *refs = leaf_refs(leaf);
        uint8_t *hints = leaf_lines(leaf);
        if (old) {
            const uintptr_t *orefs = ax_refs(old);
            const uint8_t *ohints = ax_lines(old);
            memcpy(leaf->offs, old->offs, at * sizeof off);
            memcpy(leaf->offs + at + 1, old->offs + at, (n - at) * sizeof off);
            memcpy(refs, orefs, at * sizeof *refs);
            memcpy(refs + at + 1, orefs + at, (n - at) * sizeof *refs);
            memcpy(hints, ohints, at);
            memcpy(hints + at + 1, ohints + at, n - at);
            memcpy(leaf->record, old->record, sizeof leaf->record);
        } else {
            memset(leaf->record, 0, sizeof leaf->record);
        }
        leaf->offs[at] = off;
        refs[at] = ref;
        hints[at] = hint;
        leaf_records(leaf, page, start, size, ref, record);
        leaf_index(leaf);
        *slot = leaf;
        if (!old)
            bottom->used++;
        else if ((st = drop(tx, old, old->gen)) != ILMAP_OK)
            return st;
    }
    return ILMAP_OK;
}

/* After a leaf slot emptied: unlinks the nodes left without children,
 * bottom up (all fresh: own_path copied them). */
static void prune(vt_txn *tx, ax_root *root, uint64_t key, ax_node *path[8])
{
    for (uint32_t level = root->height; level-- > 1;) {
        if (path[level]->used != 0)
            return;
        uint32_t shift = (root->height - level) * AX_LEVEL_BITS;
        path[level - 1]->child[(key >> shift) & LEVEL_MASK] = NULL;
        path[level - 1]->used--;
        vt_txn_discard(tx, path[level]);
    }
    if (path[0]->used == 0) {
        vt_txn_discard(tx, path[0]);
        root->node = NULL;
        root->height = 0;
    }
}

ilmap_status ax_remove(vt_txn *tx, ax_root *root, uintptr_t start, size_t size, uintptr_t ref)
{
    uint64_t first = (uint64_t)start >> AX_PAGE_BITS;
    uint64_t last = ((uint64_t)start + size - 1u) >> AX_PAGE_BITS;

    for (uint64_t page = first; page <= last; page++) {
        ax_node *path[8];
        ilmap_status st = own_path(tx, root, page, 0, path);
        if (st != ILMAP_OK)
            return st;
        ax_node *bottom = path[root->height - 1];
        void **slot = &bottom->child[page & LEVEL_MASK];
        ax_leaf *old = *slot;
        if (!old)
            return ILMAP_E_NOT_FOUND;
        uint16_t off = page == first ? (uint16_t)(start & PAGE_MASK) : 0;
        uint32_t n = old->count, at = ax_rank(old, off);
        const uintptr_t *orefs = ax_refs(old);
        if (at == 0 || old->offs[at - 1] != off || orefs[at - 1] != ref)
            return ILMAP_E_NOT_FOUND;
        at--;

        ax_leaf *leaf = NULL;
        if (n > 1) {
            leaf = leaf_new(tx, n - 1);
            if (!leaf)
                return ILMAP_E_NOMEM;
            uintptr_t *refs = leaf_refs(leaf);
            uint8_t *hints = leaf_lines(leaf);
            const uint8_t *ohints = ax_lines(old);
            memcpy(leaf->offs, old->offs, at * sizeof off);
            memcpy(leaf->offs + at, old->offs + at + 1, (n - at - 1) * sizeof off);
            memcpy(refs, orefs, at * sizeof *refs);
            memcpy(refs + at, orefs + at + 1, (n - at - 1) * sizeof *refs);
            memcpy(hints, ohints, at);
            memcpy(hints + at, ohints + at + 1, n - at - 1);
            memcpy(leaf->record, old->record, sizeof leaf->record);
            leaf_records(leaf, page, start, size, ref, NULL);
            leaf_index(leaf);
        }
        *slot = leaf;
        if ((st = drop(tx, old, old->gen)) != ILMAP_OK)
            return st;
        if (!leaf) {
            bottom->used--;
            prune(tx, root, page, path);
        }
    }
    return ILMAP_OK;
}

static void destroy_node(ax_node *n, uint32_t levels_below)
{
    for (uint32_t i = 0; i < AX_FANOUT; i++) {
        if (!n->child[i])
            continue;
        if (levels_below == 0)
            free(n->child[i]);
        else
            destroy_node(n->child[i], levels_below - 1);
    }
    free(n);
}

void ax_destroy(ax_root root)
{
    if (root.node)
        destroy_node(root.node, root.height - 1);
}
