/*
 * A copy-on-write sorted table: the building block of the store's
 * snapshots.
 *
 * Records are fixed-size rows of 64-bit words, the first key_words of
 * which are the key (compared word by word, lexicographically). A table
 * is two levels: a top array of leaf pointers, each with its leaf's first
 * key, and leaves of up to VT_LEAF_CAP records in key order.
 *
 * Why two levels and not one sorted array: a writer must never modify
 * what readers may be reading, so every change copies what it touches.
 * With one array that is the whole table per change (quadratic over a
 * profiler's run, where every JIT compilation adds a body); here it is
 * one leaf plus the top array, O(VT_LEAF_CAP + n / VT_LEAF_CAP) words,
 * while a lookup is still two binary searches.
 *
 * Ownership across snapshots: each node records the generation of the
 * write transaction that made it. Nodes of the running transaction are
 * "fresh": not yet visible to any reader, so the writer may change them in
 * place; any other node is shared with published snapshots, so it is
 * copied, and the original handed to the transaction's retire list, to be
 * freed once no reader can see it (epoch.h).
 */
#ifndef ILMAP_VERSIONS_TABLE_H
#define ILMAP_VERSIONS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "common/search.h"
#include "ilmap.h"
#include "versions/txn.h"

#define VT_LEAF_CAP 64u
#define VT_MAX_WORDS 6u

/* The read path's helpers are inlined into their callers even where the
 * compiler would not, so that a table's shape (a constant there) folds
 * into them: one-word keys then take the branch-free search. */
#if defined(__GNUC__) || defined(__clang__)
#define VT_INLINE static inline __attribute__((always_inline))
#else
#define VT_INLINE static inline
#endif

typedef struct vt_shape {
    uint32_t key_words; /* 1..3 */
    uint32_t rec_words; /* key_words..VT_MAX_WORDS */
} vt_shape;

typedef struct vt_leaf {
    uint64_t gen;      /* the transaction that made it; set once, before publication */
    uint32_t count;    /* >= 1 in a published table */
    uint32_t unused;
    uint64_t words[];  /* VT_LEAF_CAP * rec_words */
} vt_leaf;

typedef struct vt_top {
    uint64_t gen;
    uint32_t nleaves;
    uint32_t cap;      /* room in keys and leaves */
    uint64_t records;  /* over all leaves */
    uint64_t *keys;    /* nleaves * key_words: each leaf's first key */
    vt_leaf **leaves;
} vt_top;

VT_INLINE int vt_cmp(const uint64_t *a, const uint64_t *b, uint32_t key_words)
{
    for (uint32_t i = 0; i < key_words; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

VT_INLINE const uint64_t *vt_record(const vt_leaf *leaf, vt_shape s, uint32_t i)
{
    return leaf->words + (size_t)i * s.rec_words;
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

VT_INLINE int vt_probe_before(const void *ctx, size_t i)
{
    const vt_probe *p = ctx;
    int c = vt_cmp(p->words + i * p->row_words, p->key, p->key_words);
    return c < 0 || (p->or_equal && c == 0);
}

/*
 * How many of n one-word keys, `stride` words apart, are <= key (< key
 * unless or_equal). Branch-free: random lookups (a sampler's) mispredict
 * half the branches of a classic binary search, and each costs more than
 * the compare; this form compiles to conditional moves.
 */
VT_INLINE uint32_t vt_rank1(const uint64_t *keys, size_t stride, uint32_t n, uint64_t key,
                                int or_equal)
{
    uint32_t lo = 0;

    if (n == 0)
        return 0;
    while (n > 1) {
        uint32_t half = n / 2;
        uint64_t k = keys[(size_t)(lo + half) * stride];
        lo = (or_equal ? k <= key : k < key) ? lo + half : lo;
        n -= half;
    }
    uint64_t k = keys[(size_t)lo * stride];
    return lo + (uint32_t)(or_equal ? k <= key : k < key);
}

/* How many leaves have a first key <= key. */
VT_INLINE uint32_t vt_route(vt_shape s, const vt_top *t, const uint64_t *key)
{
    if (s.key_words == 1)
        return vt_rank1(t->keys, 1, t->nleaves, key[0], 1);

    const vt_probe p = { t->keys, s.key_words, s.key_words, key, 1 };
    return (uint32_t)search_partition(0, t->nleaves, vt_probe_before, &p);
}

/* How many records of leaf have a key < key (or <= key when or_equal). */
VT_INLINE uint32_t vt_leaf_rank(vt_shape s, const vt_leaf *leaf, const uint64_t *key,
                                    int or_equal)
{
    if (s.key_words == 1)
        return vt_rank1(leaf->words, s.rec_words, leaf->count, key[0], or_equal);

    const vt_probe p = { leaf->words, s.rec_words, s.key_words, key, or_equal };
    return (uint32_t)search_partition(0, leaf->count, vt_probe_before, &p);
}

/* The record with the greatest key <= key, or NULL. */
VT_INLINE const uint64_t *vt_floor(vt_shape s, const vt_top *t, const uint64_t *key)
{
    uint32_t c = t ? vt_route(s, t, key) : 0;

    if (c == 0)
        return NULL;
    /* The leaf's first key is <= key, so the rank is at least 1. */
    const vt_leaf *leaf = t->leaves[c - 1];
    return vt_record(leaf, s, vt_leaf_rank(s, leaf, key, 1) - 1);
}

/* The record with exactly this key, or NULL. */
VT_INLINE const uint64_t *vt_find(vt_shape s, const vt_top *t, const uint64_t *key)
{
    const uint64_t *r = vt_floor(s, t, key);

    return r && vt_cmp(r, key, s.key_words) == 0 ? r : NULL;
}

/* A position in a table, for walking records in key order. */
typedef struct vt_cursor {
    const vt_top *top;
    uint32_t leaf;
    uint32_t pos;
} vt_cursor;

/* The first record with a key >= key (the cursor is left on it), or NULL. */
VT_INLINE const uint64_t *vt_seek(vt_shape s, const vt_top *t, const uint64_t *key,
                                      vt_cursor *cur)
{
    cur->top = t;
    cur->leaf = 0;
    cur->pos = 0;
    if (!t || t->nleaves == 0)
        return NULL;

    uint32_t c = vt_route(s, t, key);
    if (c > 0) {
        const vt_leaf *leaf = t->leaves[c - 1];
        uint32_t r = vt_leaf_rank(s, leaf, key, 0);
        if (r < leaf->count) {
            cur->leaf = c - 1;
            cur->pos = r;
            return vt_record(leaf, s, r);
        }
        cur->leaf = c;
    }
    return cur->leaf < t->nleaves ? vt_record(t->leaves[cur->leaf], s, 0) : NULL;
}

/* The record after the cursor's (moving it there), or NULL. */
VT_INLINE const uint64_t *vt_next(vt_shape s, vt_cursor *cur)
{
    const vt_top *t = cur->top;

    if (!t || cur->leaf >= t->nleaves)
        return NULL;
    if (++cur->pos >= t->leaves[cur->leaf]->count) {
        cur->leaf++;
        cur->pos = 0;
        if (cur->leaf >= t->nleaves)
            return NULL;
    }
    return vt_record(t->leaves[cur->leaf], s, cur->pos);
}

static inline uint64_t vt_records(const vt_top *t)
{
    return t ? t->records : 0;
}

/*
 * Writer side, inside a transaction (txn.h). *top is the transaction's
 * draft of the table (NULL = empty); each function may replace it with a
 * fresh copy. On ILMAP_E_NOMEM the draft may be half-changed: the caller
 * aborts the transaction, which frees every fresh node, and the published
 * table is untouched.
 */

/* Inserts rec; its key must not be in the table. */
ilmap_status vt_insert(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *rec);

/* Overwrites the record with rec's key (which must be in the table). */
ilmap_status vt_replace(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *rec);

/* Removes the record with this key; ILMAP_E_NOT_FOUND if absent. */
ilmap_status vt_remove(vt_txn *tx, vt_shape s, vt_top **top, const uint64_t *key);

/* Frees a whole table, leaves included (teardown, no reader left). */
void vt_destroy(vt_top *top);

#endif
