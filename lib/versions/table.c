/* The copy-on-write table's writer side; see table.h. */
#include <stdlib.h>
#include <string.h>

#include "versions/table.h"

#define WORD sizeof(uint64_t)

static size_t leaf_bytes(vt_shape s)
{
    return sizeof(vt_leaf) + (size_t)VT_LEAF_CAP * s.rec_words * WORD;
}

static vt_leaf *leaf_new(vt_txn *tx, vt_shape s)
{
    vt_leaf *leaf = txn_alloc(tx, leaf_bytes(s));

    if (leaf) {
        leaf->gen = tx->gen;
        leaf->count = 0;
        leaf->unused = 0;
    }
    return leaf;
}

/* One block: the struct, then the keys, then the leaf pointers (both
 * arrays of 8-byte elements, so both aligned). */
static vt_top *top_new(vt_txn *tx, vt_shape s, uint32_t cap)
{
    size_t per_leaf = s.key_words * WORD + sizeof(vt_leaf *);

    if (cap > (SIZE_MAX - sizeof(vt_top)) / per_leaf)
        return NULL;

    vt_top *t = txn_alloc(tx, sizeof(vt_top) + cap * per_leaf);
    if (t) {
        t->gen = tx->gen;
        t->nleaves = 0;
        t->cap = cap;
        t->records = 0;
        t->keys = (uint64_t *)(t + 1);
        t->leaves = (vt_leaf **)(t->keys + (size_t)cap * s.key_words);
    }
    return t;
}

/* Makes *tp a fresh top with room for `extra` more leaves. */
static ilmap_status own_top(vt_txn *tx, vt_shape s, vt_top **tp, uint32_t extra)
{
    vt_top *t = *tp;
    uint32_t n = t ? t->nleaves : 0;

    if (t && t->gen == tx->gen && t->cap - n >= extra)
        return ILMAP_OK;
    if (n > UINT32_MAX - extra - 2)
        return ILMAP_E_LIMIT;

    /* A shared top is copied with a little room (one change may split
     * more than once); a fresh one that ran out doubles. */
    uint32_t cap = n + extra + 2;
    if (t && t->gen == tx->gen && n <= UINT32_MAX / 2 && cap < 2 * n)
        cap = 2 * n;

    vt_top *copy = top_new(tx, s, cap);
    if (!copy)
        return ILMAP_E_NOMEM;
    if (t) {
        memcpy(copy->keys, t->keys, (size_t)n * s.key_words * WORD);
        memcpy(copy->leaves, t->leaves, (size_t)n * sizeof *t->leaves);
        copy->nleaves = n;
        copy->records = t->records;
        if (t->gen == tx->gen)
            txn_discard(tx, t);
        else if (txn_retire(tx, t, RETIRE_MEMORY) != ILMAP_OK)
            return ILMAP_E_NOMEM; /* copy is fresh: the abort frees it */
    }
    *tp = copy;
    return ILMAP_OK;
}

/* Makes leaf i of the fresh top t a fresh leaf. */
static ilmap_status own_leaf(vt_txn *tx, vt_shape s, vt_top *t, uint32_t i)
{
    vt_leaf *leaf = t->leaves[i];

    if (leaf->gen == tx->gen)
        return ILMAP_OK;

    vt_leaf *copy = leaf_new(tx, s);
    if (!copy)
        return ILMAP_E_NOMEM;
    memcpy(copy->words, leaf->words, (size_t)leaf->count * s.rec_words * WORD);
    copy->count = leaf->count;
    if (txn_retire(tx, leaf, RETIRE_MEMORY) != ILMAP_OK)
        return ILMAP_E_NOMEM;
    t->leaves[i] = copy;
    return ILMAP_OK;
}

/* The leaf index and the position of key's record, or 0 when absent. */
static int locate(vt_shape s, const vt_top *t, const uint64_t *key, uint32_t *leaf, uint32_t *pos)
{
    uint32_t c = t ? vt_route(s, t, key) : 0;

    if (c == 0)
        return 0;

    const vt_leaf *l = t->leaves[c - 1];
    uint32_t r = vt_leaf_rank(s, l, key, 1);
    if (vt_cmp(vt_record(l, s, r - 1), key, s.key_words) != 0)
        return 0;
    *leaf = c - 1;
    *pos = r - 1;
    return 1;
}

ilmap_status vt_insert(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *rec)
{
    size_t rec_bytes = s.rec_words * WORD;
    ilmap_status st = own_top(tx, s, tp, 1);

    if (st != ILMAP_OK)
        return st;

    vt_top *t = *tp;
    if (t->nleaves == 0) {
        vt_leaf *leaf = leaf_new(tx, s);
        if (!leaf)
            return ILMAP_E_NOMEM;
        memcpy(leaf->words, rec, rec_bytes);
        leaf->count = 1;
        t->leaves[0] = leaf;
        memcpy(t->keys, rec, s.key_words * WORD);
        t->nleaves = 1;
        t->records = 1;
        return ILMAP_OK;
    }

    uint32_t c = vt_route(s, t, rec);
    uint32_t li = c ? c - 1 : 0; /* a key below every leaf goes first */
    st = own_leaf(tx, s, t, li);
    if (st != ILMAP_OK)
        return st;

    vt_leaf *leaf = t->leaves[li];
    uint32_t pos = vt_leaf_rank(s, leaf, rec, 0);
    if (leaf->count == VT_LEAF_CAP) {
        const uint32_t half = VT_LEAF_CAP / 2;
        vt_leaf *right = leaf_new(tx, s);
        if (!right)
            return ILMAP_E_NOMEM;
        memcpy(right->words, vt_record(leaf, s, half), (size_t)(VT_LEAF_CAP - half) * rec_bytes);
        right->count = VT_LEAF_CAP - half;
        leaf->count = half;

        uint32_t after = t->nleaves - li - 1;
        memmove(t->keys + (size_t)(li + 2) * s.key_words, t->keys + (size_t)(li + 1) * s.key_words,
                (size_t)after * s.key_words * WORD);
        memmove(t->leaves + li + 2, t->leaves + li + 1, (size_t)after * sizeof *t->leaves);
        t->leaves[li + 1] = right;
        memcpy(t->keys + (size_t)(li + 1) * s.key_words, right->words, s.key_words * WORD);
        t->nleaves++;
        if (pos > half) {
            leaf = right;
            pos -= half;
            li++;
        }
    }

    uint64_t *at = leaf->words + (size_t)pos * s.rec_words;
    memmove(at + s.rec_words, at, (size_t)(leaf->count - pos) * rec_bytes);
    memcpy(at, rec, rec_bytes);
    leaf->count++;
    if (pos == 0)
        memcpy(t->keys + (size_t)li * s.key_words, rec, s.key_words * WORD);
    t->records++;
    return ILMAP_OK;
}

/* Finds key's record and makes its top and leaf this transaction's own,
 * so the record may be written in place. */
static ilmap_status own_record(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *key,
                               uint32_t *li, uint32_t *pos)
{
    if (!locate(s, *tp, key, li, pos))
        return ILMAP_E_NOT_FOUND;

    ilmap_status st = own_top(tx, s, tp, 0);
    if (st == ILMAP_OK)
        st = own_leaf(tx, s, *tp, *li);
    return st;
}

ilmap_status vt_replace(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *rec)
{
    uint32_t li, pos;
    ilmap_status st = own_record(tx, s, tp, rec, &li, &pos);

    if (st != ILMAP_OK)
        return st;
    memcpy((*tp)->leaves[li]->words + (size_t)pos * s.rec_words, rec, s.rec_words * WORD);
    return ILMAP_OK;
}

ilmap_status vt_remove(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *key)
{
    uint32_t li, pos;
    ilmap_status st = own_record(tx, s, tp, key, &li, &pos);

    if (st != ILMAP_OK)
        return st;

    vt_top *t = *tp;
    vt_leaf *leaf = t->leaves[li];
    uint64_t *at = leaf->words + (size_t)pos * s.rec_words;
    memmove(at, at + s.rec_words, (size_t)(leaf->count - pos - 1) * s.rec_words * WORD);
    leaf->count--;
    t->records--;
    if (leaf->count == 0) {
        /* Published tables have no empty leaf: routing relies on it. */
        uint32_t after = t->nleaves - li - 1;
        txn_discard(tx, leaf);
        memmove(t->keys + (size_t)li * s.key_words, t->keys + (size_t)(li + 1) * s.key_words,
                (size_t)after * s.key_words * WORD);
        memmove(t->leaves + li, t->leaves + li + 1, (size_t)after * sizeof *t->leaves);
        t->nleaves--;
    } else if (pos == 0) {
        memcpy(t->keys + (size_t)li * s.key_words, leaf->words, s.key_words * WORD);
    }
    return ILMAP_OK;
}

void vt_destroy(vt_top *top)
{
    if (!top)
        return;
    for (uint32_t i = 0; i < top->nleaves; i++)
        free(top->leaves[i]);
    free(top);
}
