/*
 * A copy-on-write sorted table: the building block of the store's
 * snapshots.
 *
 * Records are fixed-size rows of 64-bit words, the first key_words of
 * which are the key (compared word by word, lexicographically). A table
 * is a B+tree: leaves of up to VT_LEAF_CAP records in key order, under
 * interior nodes of up to VT_FANOUT children, each child with the first
 * key of its subtree. All leaves are at the same depth; the root is always
 * an interior node (height >= 1), so that the handle of a table is one
 * type whatever its size.
 *
 * Why a tree and not one sorted array, or two levels: a writer must never
 * modify what readers may be reading, so every change copies what it
 * touches. With one array that is the whole table per change (quadratic
 * over a profiler's run, where every JIT compilation adds a body); with a
 * top array over leaves it is the top array, O(n / VT_LEAF_CAP) words.
 * In a tree it is the path from the root to the leaf: O(depth *
 * VT_FANOUT) words, the depth growing as log n (5-10 KB per insert at
 * 100,000 records, against 40-100 KB with the top array;
 * doc/performance.md). A lookup is one search per level.
 *
 * Why a fanout of 128 over leaves of 64: the store's lookup at a few
 * thousand bodies (the size that matters for a sampler, doc/performance.md)
 * then takes two levels, as with the top array, up to 8,192 records (a
 * fanout of 64 took a third level there, +20% per floor search); a level
 * costs one more dependent cache miss, a wider node only one more step of
 * a branch-free search. Its copy costs 2-4 KB (by key size) per level.
 *
 * Ownership across snapshots: each node records the generation of the
 * write transaction that made it. Nodes of the running transaction are
 * "fresh": not yet visible to any reader, so the writer may change them in
 * place; any other node is shared with published snapshots, so it is
 * copied (and so is every node above it, which must point at the copy),
 * and the original handed to the transaction's retire list, to be freed
 * once no reader can see it (epoch.h).
 *
 * Shape rules, which the writer keeps after every change:
 *   - every interior node's key i is exactly the first key of child i's
 *     subtree, and its `records` the number of records below it;
 *   - no node is empty, except the root of an empty table (height 1, no
 *     children);
 *   - a root of height > 1 has at least two children (a root with one
 *     is replaced by that child);
 *   - a node that is neither the root nor on the tree's right edge is at
 *     least a quarter full.
 * Splits halve a full node, except at the right edge when the new entry
 * goes last: then the full node stays full and the new right sibling gets
 * the one entry, so that keys arriving in ascending order (code addresses,
 * mostly) fill nodes instead of leaving them half empty. A removal that
 * leaves a node under a quarter full merges it with its left sibling (the
 * right one for a first child) when both fit in one node, and otherwise
 * moves entries over from the sibling until both are equal; a node left
 * empty is dropped.
 *
 * Depth: a cursor holds the path from the root (vt_cursor), so the depth
 * is bounded, by VT_MAX_DEPTH; an insert that would grow the tree past it
 * fails with ILMAP_E_LIMIT. A tree grows a level only when a full root
 * splits, and below a full root of height 6 the quarter-full rule leaves
 * at least 127 * 32^5 * 16 (2^36) records; nodes filled to 70%, as random
 * inserts leave them, hold 3 * 10^7 records at depth 4.
 */
#ifndef ILMAP_VERSIONS_TABLE_H
#define ILMAP_VERSIONS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/search.h"
#include "ilmap.h"
#include "versions/txn.h"
#include "platform/compiler.h"

/* The node sizes may be overridden, for a test only (test/meson.build
 * builds table.c into it with tiny nodes, so that a few hundred records
 * make a deep tree); the library uses these. */
#ifndef VT_LEAF_CAP
#define VT_LEAF_CAP 64u  /* records per leaf */
#endif
#ifndef VT_FANOUT
#define VT_FANOUT 128u   /* children per interior node */
#endif
#ifndef VT_MAX_DEPTH
#define VT_MAX_DEPTH 7u  /* levels from the root to a leaf, both included */
#endif
#define VT_MAX_WORDS 6u

/* The read path's helpers are inlined into their callers even where the
 * compiler would not, so that a table's shape (a constant there) folds
 * into them: one-word keys then take the branch-free search. */

typedef struct vt_shape {
    uint32_t key_words; /* 1..3 */
    uint32_t rec_words; /* key_words..VT_MAX_WORDS */
} vt_shape;

/* The first member of every node, leaf or interior: what the writer needs
 * to handle a child without knowing its kind. */
typedef struct vt_head {
    uint64_t gen;    /* the transaction that made it; set once, before publication */
    uint32_t count;  /* records (leaf) or children (interior node) */
    uint32_t height; /* 0: a leaf; h > 0: an interior node over nodes of height h - 1 */
} vt_head;

typedef struct vt_leaf {
    vt_head head;
    uint64_t words[]; /* VT_LEAF_CAP * rec_words */
} vt_leaf;

typedef struct vt_node {
    vt_head head;
    uint64_t records; /* in the subtree */
    /* VT_FANOUT child pointers (vt_head *), each in a word of its own,
     * then VT_FANOUT * key_words words of keys: both at fixed offsets, so
     * that a reader computes rather than loads where they are, and the
     * children first, so that their place does not depend on the shape
     * (vt_destroy() has none). */
    uint64_t words[];
} vt_node;

/* A table: its root, or NULL when it was never written. */
typedef vt_node vt_top;

/* Allocation sizes (what a copy costs). */
static inline size_t vt_leaf_bytes(vt_shape s)
{
    return sizeof(vt_leaf) + (size_t)VT_LEAF_CAP * s.rec_words * sizeof(uint64_t);
}

static inline size_t vt_node_bytes(vt_shape s)
{
    return sizeof(vt_node) + (size_t)VT_FANOUT * (s.key_words + 1u) * sizeof(uint64_t);
}

ILMAP_ALWAYS_INLINE int vt_cmp(const uint64_t *a, const uint64_t *b, uint32_t key_words)
{
    for (uint32_t i = 0; i < key_words; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

ILMAP_ALWAYS_INLINE const uint64_t *vt_record(const vt_leaf *leaf, vt_shape s, uint32_t i)
{
    return leaf->words + (size_t)i * s.rec_words;
}

ILMAP_ALWAYS_INLINE const uint64_t *vt_node_key(vt_shape s, const vt_node *n, uint32_t i)
{
    return n->words + VT_FANOUT + (size_t)i * s.key_words;
}

ILMAP_ALWAYS_INLINE const vt_head *vt_child(const vt_node *n, uint32_t i)
{
    return ((const vt_head *const *)(const void *)n->words)[i];
}

/* A head is the first member of its node, so the conversions are exact. */
ILMAP_ALWAYS_INLINE const vt_leaf *vt_as_leaf(const vt_head *h)
{
    return (const vt_leaf *)(const void *)h;
}

ILMAP_ALWAYS_INLINE const vt_node *vt_as_node(const vt_head *h)
{
    return (const vt_node *)(const void *)h;
}

/* Multi-word keys, rows of row_words words from words: row i is before
 * key when its key is < key (<= key when or_equal). */
typedef struct vt_probe {
    const uint64_t *words;
    size_t row_words;
    uint32_t key_words;
    const uint64_t *key;
    int or_equal;
} vt_probe;

ILMAP_ALWAYS_INLINE int vt_probe_before(const void *ctx, size_t i)
{
    const vt_probe *p = ctx;
    int c = vt_cmp(p->words + i * p->row_words, p->key, p->key_words);
    return c < 0 || (p->or_equal && c == 0);
}

/* How many children of n have a first key <= key. */
ILMAP_ALWAYS_INLINE uint32_t vt_route(vt_shape s, const vt_node *n, const uint64_t *key)
{
    if (s.key_words == 1)
        return search_rank_u64(vt_node_key(s, n, 0), 1, n->head.count, key[0], 1);

    const vt_probe p = { vt_node_key(s, n, 0), s.key_words, s.key_words, key, 1 };
    return (uint32_t)search_partition(0, n->head.count, vt_probe_before, &p);
}

/* How many records of leaf have a key < key (or <= key when or_equal). */
ILMAP_ALWAYS_INLINE uint32_t vt_leaf_rank(vt_shape s, const vt_leaf *leaf, const uint64_t *key,
                                    int or_equal)
{
    if (s.key_words == 1)
        return search_rank_u64(leaf->words, s.rec_words, leaf->head.count, key[0], or_equal);

    const vt_probe p = { leaf->words, s.rec_words, s.key_words, key, or_equal };
    return (uint32_t)search_partition(0, leaf->head.count, vt_probe_before, &p);
}

/* The record with the greatest key <= key, or NULL. */
ILMAP_ALWAYS_INLINE const uint64_t *vt_floor(vt_shape s, const vt_top *t, const uint64_t *key)
{
    uint32_t c = t ? vt_route(s, t, key) : 0;

    if (c == 0)
        return NULL;
    /* Below the root every search finds at least one key <= key: the
     * parent's key for a node is the node's first key, and it was. */
    const vt_node *n = t;
    uint32_t height = t->head.height;
    const vt_head *h = vt_child(n, c - 1);
    while (--height > 0) {
        n = vt_as_node(h);
        h = vt_child(n, vt_route(s, n, key) - 1);
    }
    const vt_leaf *leaf = vt_as_leaf(h);
    return vt_record(leaf, s, vt_leaf_rank(s, leaf, key, 1) - 1);
}

/* The record with exactly this key, or NULL. */
ILMAP_ALWAYS_INLINE const uint64_t *vt_find(vt_shape s, const vt_top *t, const uint64_t *key)
{
    const uint64_t *r = vt_floor(s, t, key);

    return r && vt_cmp(r, key, s.key_words) == 0 ? r : NULL;
}

/* A position in a table, for walking records in key order: the path from
 * the root (node[0]) down to the leaf, and the child taken at each level.
 * Fixed-size (VT_MAX_DEPTH bounds the path), so a walk allocates nothing. */
typedef struct vt_cursor {
    const vt_leaf *leaf; /* NULL: past the end */
    uint32_t pos;
    uint32_t levels;     /* interior nodes on the path */
    const vt_node *node[VT_MAX_DEPTH - 1];
    uint32_t child[VT_MAX_DEPTH - 1];
} vt_cursor;

/* The record after the cursor's (moving it there), or NULL. */
ILMAP_ALWAYS_INLINE const uint64_t *vt_next(vt_shape s, vt_cursor *cur)
{
    const vt_leaf *leaf = cur->leaf;

    if (!leaf)
        return NULL;
    if (++cur->pos < leaf->head.count)
        return vt_record(leaf, s, cur->pos);

    /* The leaf is done: up to the nearest node with a child to the right
     * of the path, then down that child's first children. */
    uint32_t l = cur->levels;
    while (l > 0 && cur->child[l - 1] + 1 >= cur->node[l - 1]->head.count)
        l--;
    if (l == 0) {
        cur->leaf = NULL;
        return NULL;
    }
    const vt_head *h = vt_child(cur->node[l - 1], ++cur->child[l - 1]);
    for (; l < cur->levels; l++) {
        cur->node[l] = vt_as_node(h);
        cur->child[l] = 0;
        h = vt_child(cur->node[l], 0);
    }
    cur->leaf = vt_as_leaf(h);
    cur->pos = 0;
    return vt_record(cur->leaf, s, 0);
}

/* The first record with a key >= key (the cursor is left on it), or NULL. */
ILMAP_ALWAYS_INLINE const uint64_t *vt_seek(vt_shape s, const vt_top *t, const uint64_t *key,
                                      vt_cursor *cur)
{
    const vt_node *n = t;

    cur->leaf = NULL;
    cur->pos = 0;
    cur->levels = 0;
    /* The height check only guards the path array: writers keep it. */
    if (!n || n->head.count == 0 || n->head.height >= VT_MAX_DEPTH)
        return NULL;
    for (uint32_t l = 0; l < VT_MAX_DEPTH - 1; l++) {
        /* A key below the node's first goes to its first child (and is
         * below that child's first key too, so on down). */
        uint32_t c = vt_route(s, n, key);
        uint32_t i = c ? c - 1 : 0;
        const vt_head *h = vt_child(n, i);
        cur->node[l] = n;
        cur->child[l] = i;
        if (n->head.height == 1) {
            cur->levels = l + 1;
            cur->leaf = vt_as_leaf(h);
            break;
        }
        n = vt_as_node(h);
    }
    if (!cur->leaf)
        return NULL;

    uint32_t r = vt_leaf_rank(s, cur->leaf, key, 0);
    if (r < cur->leaf->head.count) {
        cur->pos = r;
        return vt_record(cur->leaf, s, r);
    }
    /* Every key of this leaf is < key: the answer starts the next leaf. */
    cur->pos = cur->leaf->head.count - 1;
    return vt_next(s, cur);
}

static inline uint64_t vt_records(const vt_top *t)
{
    return t ? t->records : 0;
}

/*
 * Writer side, inside a transaction (txn.h). *top is the transaction's
 * draft of the table (NULL = empty); each function may replace it with a
 * fresh copy, and writes only fresh nodes. On ILMAP_E_NOMEM the draft may
 * be half-changed: the caller aborts the transaction, which frees every
 * fresh node, and the published table is untouched. Any other error
 * leaves the draft as it was.
 */

/* Inserts rec; its key must not be in the table. ILMAP_E_LIMIT when the
 * tree would grow deeper than VT_MAX_DEPTH. */
ilmap_status vt_insert(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *rec);

/* Overwrites the record with rec's key; ILMAP_E_NOT_FOUND if absent. */
ilmap_status vt_replace(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *rec);

/* Removes the record with this key; ILMAP_E_NOT_FOUND if absent. */
ilmap_status vt_remove(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *key);

/* Frees a whole table, every node (teardown, no reader left). */
void vt_destroy(vt_top *top);

#endif
