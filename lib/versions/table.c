/* The copy-on-write B+tree's writer side; see table.h. */
#include <stdlib.h>
#include <string.h>

#include "versions/table.h"

#define WORD sizeof(uint64_t)

/* ---- Nodes of either kind, through their head ------------------------ */

static vt_leaf *as_leaf(vt_head *h)
{
    return (vt_leaf *)(void *)h;
}

static vt_node *as_node(vt_head *h)
{
    return (vt_node *)(void *)h;
}

static uint64_t *key_at(vt_shape s, vt_node *n, uint32_t i)
{
    return n->words + VT_FANOUT + (size_t)i * s.key_words;
}

static vt_head **kids(vt_node *n)
{
    return (vt_head **)(void *)n->words;
}

static uint32_t capacity(const vt_head *h)
{
    return h->height ? VT_FANOUT : VT_LEAF_CAP;
}

/* Below this a node that has a sibling is merged with it (table.h). */
static uint32_t minimum(const vt_head *h)
{
    return capacity(h) / 4;
}

static uint64_t records_of(const vt_head *h)
{
    return h->height ? vt_as_node(h)->records : h->count;
}

/* The first key under h (h not empty). */
static const uint64_t *first_key(vt_shape s, const vt_head *h)
{
    return h->height ? vt_node_key(s, vt_as_node(h), 0) : vt_as_leaf(h)->words;
}

/* The records under children [i, i + k) of n. */
static uint64_t span_records(const vt_node *n, uint32_t i, uint32_t k)
{
    uint64_t sum = 0;

    for (uint32_t j = i; j < i + k; j++)
        sum += records_of(vt_child(n, j));
    return sum;
}

/* A fresh, empty node (height 0: a leaf). */
static vt_head *head_new(vt_txn *tx, vt_shape s, uint32_t height)
{
    vt_head *h;

    if (height == 0) {
        vt_leaf *leaf = vt_txn_alloc(tx, vt_leaf_bytes(s));
        if (!leaf)
            return NULL;
        h = &leaf->head;
    } else {
        vt_node *n = vt_txn_alloc(tx, vt_node_bytes(s));
        if (!n)
            return NULL;
        n->records = 0;
        h = &n->head;
    }
    h->gen = tx->gen;
    h->count = 0;
    h->height = height;
    return h;
}

/* Moves k entries (records, or keys with their children) from src at si
 * to dst at di, both of one height; they may be the same node. Node
 * record counts are the caller's. */
static void move_entries(vt_shape s, vt_head *dst, uint32_t di, vt_head *src, uint32_t si,
                         uint32_t k)
{
    if (dst->height == 0) {
        size_t rw = s.rec_words;
        memmove(as_leaf(dst)->words + di * rw, as_leaf(src)->words + si * rw, k * rw * WORD);
    } else {
        vt_node *d = as_node(dst), *sn = as_node(src);
        memmove(key_at(s, d, di), key_at(s, sn, si), (size_t)k * s.key_words * WORD);
        memmove(kids(d) + di, kids(sn) + si, k * sizeof(vt_head *));
    }
}

/* Removes entry i of a fresh node. */
static void drop_entry(vt_shape s, vt_head *h, uint32_t i)
{
    move_entries(s, h, i, h, i + 1, h->count - i - 1);
    h->count--;
}

/* Gets rid of a node the draft no longer points to: a fresh one is freed
 * now, a published one after the grace period. */
static ilmap_status let_go(vt_txn *tx, vt_head *h)
{
    if (h->gen == tx->gen) {
        vt_txn_discard(tx, h);
        return ILMAP_OK;
    }
    return vt_txn_retire(tx, h, RETIRE_MEMORY);
}

/* A fresh copy of h's entries (and record count). */
static vt_head *copy_of(vt_txn *tx, vt_shape s, vt_head *h)
{
    vt_head *copy = head_new(tx, s, h->height);

    if (copy) {
        move_entries(s, copy, 0, h, 0, h->count);
        copy->count = h->count;
        if (h->height)
            as_node(copy)->records = as_node(h)->records;
    }
    return copy;
}

/* Makes child i of the fresh node n this transaction's own and returns
 * it, or NULL (out of memory). */
static vt_head *own_child(vt_txn *tx, vt_shape s, vt_node *n, uint32_t i)
{
    vt_head *child = kids(n)[i];

    if (child->gen == tx->gen)
        return child;

    vt_head *copy = copy_of(tx, s, child);
    if (!copy || vt_txn_retire(tx, child, RETIRE_MEMORY) != ILMAP_OK)
        return NULL; /* copy is fresh: the abort frees it */
    kids(n)[i] = copy;
    return copy;
}

/* Makes *tp a fresh root (an empty one if the table was never written). */
static ilmap_status own_root(vt_txn *tx, vt_shape s, vt_top **tp)
{
    vt_node *t = *tp;
    vt_head *copy;

    if (t && t->head.gen == tx->gen)
        return ILMAP_OK;
    copy = t ? copy_of(tx, s, &t->head) : head_new(tx, s, 1);
    if (!copy || (t && vt_txn_retire(tx, t, RETIRE_MEMORY) != ILMAP_OK))
        return ILMAP_E_NOMEM;
    *tp = as_node(copy);
    return ILMAP_OK;
}

/* ---- Insert ------------------------------------------------------------ */

/*
 * Puts an entry at position p of the fresh node h: a record (leaf), or
 * key and child (interior node). A full h is split first; *right then
 * receives the new right sibling. edge: h is on the tree's right edge.
 */
static ilmap_status put_entry(vt_txn *tx, vt_shape s, vt_head *h, uint32_t p,
                              const uint64_t *entry, vt_head *child, int edge, vt_head **right)
{
    vt_head *dst = h;

    *right = NULL;
    if (h->count == capacity(h)) {
        vt_head *r = head_new(tx, s, h->height);
        if (!r)
            return ILMAP_E_NOMEM;
        /* Appending at the right edge keeps h full (table.h). */
        uint32_t keep = edge && p == h->count ? h->count : h->count / 2;
        move_entries(s, r, 0, h, keep, h->count - keep);
        r->count = h->count - keep;
        h->count = keep;
        if (h->height) {
            uint64_t moved = span_records(as_node(r), 0, r->count);
            as_node(r)->records = moved;
            as_node(h)->records -= moved;
        }
        if (p >= keep) {
            dst = r;
            p -= keep;
        }
        *right = r;
    }

    move_entries(s, dst, p + 1, dst, p, dst->count - p);
    dst->count++;
    if (dst->height == 0) {
        memcpy(as_leaf(dst)->words + (size_t)p * s.rec_words, entry, s.rec_words * WORD);
    } else {
        vt_node *n = as_node(dst);
        memcpy(key_at(s, n, p), entry, s.key_words * WORD);
        kids(n)[p] = child;
        n->records += records_of(child);
    }
    return ILMAP_OK;
}

/* Inserts rec under the fresh node h; *right as for put_entry(). */
static ilmap_status insert_under(vt_txn *tx, vt_shape s, vt_head *h, const uint64_t *rec,
                                 int edge, vt_head **right)
{
    *right = NULL;
    if (h->height == 0)
        return put_entry(tx, s, h, vt_leaf_rank(s, vt_as_leaf(h), rec, 0), rec, NULL, edge, right);

    vt_node *n = as_node(h);
    uint32_t c = vt_route(s, n, rec);
    uint32_t i = c ? c - 1 : 0; /* a key below every child's goes first */
    vt_head *child = own_child(tx, s, n, i);
    vt_head *split;

    if (!child)
        return ILMAP_E_NOMEM;
    ilmap_status st = insert_under(tx, s, child, rec, edge && i == h->count - 1, &split);
    if (st != ILMAP_OK)
        return st;
    /* rec may be the child's first key now. */
    memcpy(key_at(s, n, i), first_key(s, child), s.key_words * WORD);
    n->records++;
    if (!split)
        return ILMAP_OK;
    n->records -= records_of(split); /* put_entry counts them in again */
    return put_entry(tx, s, h, i + 1, first_key(s, split), split, edge, right);
}

/* Whether inserting key would split every node on its path, the root too. */
static int splits_root(vt_shape s, const vt_node *n, const uint64_t *key)
{
    for (;;) {
        if (n->head.count < VT_FANOUT)
            return 0;
        uint32_t c = vt_route(s, n, key);
        const vt_head *child = vt_child(n, c ? c - 1 : 0);
        if (n->head.height == 1)
            return child->count == VT_LEAF_CAP;
        n = vt_as_node(child);
    }
}

ilmap_status vt_insert(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *rec)
{
    const vt_node *t = *tp;

    if (t && t->records == UINT64_MAX)
        return ILMAP_E_LIMIT;
    /* The new root would hold a level more than a cursor can follow. */
    if (t && t->head.height + 1 >= VT_MAX_DEPTH && splits_root(s, t, rec))
        return ILMAP_E_LIMIT;

    ilmap_status st = own_root(tx, s, tp);
    if (st != ILMAP_OK)
        return st;

    vt_node *root = *tp;
    if (root->head.count == 0) {
        /* An empty table's root (height 1) gets its first leaf. */
        vt_head *leaf = head_new(tx, s, 0);
        if (!leaf)
            return ILMAP_E_NOMEM;
        memcpy(as_leaf(leaf)->words, rec, s.rec_words * WORD);
        leaf->count = 1;
        memcpy(key_at(s, root, 0), rec, s.key_words * WORD);
        kids(root)[0] = leaf;
        root->head.count = 1;
        root->records = 1;
        return ILMAP_OK;
    }

    vt_head *split;
    st = insert_under(tx, s, &root->head, rec, 1, &split);
    if (st != ILMAP_OK || !split)
        return st;

    /* The root split: a new root over the two halves. */
    vt_head *up = head_new(tx, s, root->head.height + 1);
    if (!up)
        return ILMAP_E_NOMEM;
    vt_node *n = as_node(up);
    memcpy(key_at(s, n, 0), first_key(s, &root->head), s.key_words * WORD);
    memcpy(key_at(s, n, 1), first_key(s, split), s.key_words * WORD);
    kids(n)[0] = &root->head;
    kids(n)[1] = split;
    up->count = 2;
    n->records = root->records + records_of(split);
    *tp = n;
    return ILMAP_OK;
}

/* ---- Replace ----------------------------------------------------------- */

ilmap_status vt_replace(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *rec)
{
    if (!vt_find(s, *tp, rec))
        return ILMAP_E_NOT_FOUND;

    ilmap_status st = own_root(tx, s, tp);
    if (st != ILMAP_OK)
        return st;

    vt_head *h = &(*tp)->head;
    while (h->height > 0) {
        /* The key is present, so every level routes to a child. */
        vt_node *n = as_node(h);
        h = own_child(tx, s, n, vt_route(s, n, rec) - 1);
        if (!h)
            return ILMAP_E_NOMEM;
    }

    vt_leaf *leaf = as_leaf(h);
    uint32_t pos = vt_leaf_rank(s, leaf, rec, 0);
    memcpy(leaf->words + (size_t)pos * s.rec_words, rec, s.rec_words * WORD);
    return ILMAP_OK;
}

/* ---- Remove ------------------------------------------------------------ */

/*
 * Child i of the fresh node n is under a quarter full: merges it with a
 * sibling when both fit in one node, else evens the two out (table.h).
 * n has at least two children.
 */
static ilmap_status rebalance(vt_txn *tx, vt_shape s, vt_node *n, uint32_t i)
{
    uint32_t l = i > 0 ? i - 1 : 0;
    vt_head *a = own_child(tx, s, n, l);
    vt_head *b = a ? own_child(tx, s, n, l + 1) : NULL;

    if (!b)
        return ILMAP_E_NOMEM;

    uint32_t total = a->count + b->count;
    if (total <= capacity(a)) {
        move_entries(s, a, a->count, b, 0, b->count);
        a->count = total;
        if (a->height)
            as_node(a)->records += as_node(b)->records;
        drop_entry(s, &n->head, l + 1);
        vt_txn_discard(tx, b);
        return ILMAP_OK;
    }

    uint32_t want = total / 2; /* a's share; b gets the rest */
    if (a->count < want) {
        uint32_t k = want - a->count;
        uint64_t moved = a->height ? span_records(as_node(b), 0, k) : 0;
        move_entries(s, a, a->count, b, 0, k);
        move_entries(s, b, 0, b, k, b->count - k);
        a->count += k;
        b->count -= k;
        if (a->height) {
            as_node(a)->records += moved;
            as_node(b)->records -= moved;
        }
    } else {
        uint32_t k = a->count - want;
        uint64_t moved = a->height ? span_records(as_node(a), want, k) : 0;
        move_entries(s, b, k, b, 0, b->count);
        move_entries(s, b, 0, a, want, k);
        a->count -= k;
        b->count += k;
        if (a->height) {
            as_node(a)->records -= moved;
            as_node(b)->records += moved;
        }
    }
    /* b's first entry changed; a's did not. */
    memcpy(key_at(s, n, l + 1), first_key(s, b), s.key_words * WORD);
    return ILMAP_OK;
}

/* Removes key's record (present) from under the fresh node h. */
static ilmap_status remove_under(vt_txn *tx, vt_shape s, vt_head *h, const uint64_t *key)
{
    if (h->height == 0) {
        drop_entry(s, h, vt_leaf_rank(s, vt_as_leaf(h), key, 0));
        return ILMAP_OK;
    }

    vt_node *n = as_node(h);
    uint32_t i = vt_route(s, n, key) - 1; /* present: at least 1 */
    vt_head *child = own_child(tx, s, n, i);

    if (!child)
        return ILMAP_E_NOMEM;
    ilmap_status st = remove_under(tx, s, child, key);
    if (st != ILMAP_OK)
        return st;
    n->records--;
    if (child->count == 0) {
        drop_entry(s, h, i);
        vt_txn_discard(tx, child);
        return ILMAP_OK;
    }
    memcpy(key_at(s, n, i), first_key(s, child), s.key_words * WORD);
    if (child->count < minimum(child) && h->count >= 2)
        return rebalance(tx, s, n, i);
    return ILMAP_OK;
}

ilmap_status vt_remove(vt_txn *tx, vt_shape s, vt_top **tp, const uint64_t *key)
{
    if (!vt_find(s, *tp, key))
        return ILMAP_E_NOT_FOUND;

    ilmap_status st = own_root(tx, s, tp);
    if (st == ILMAP_OK)
        st = remove_under(tx, s, &(*tp)->head, key);
    if (st != ILMAP_OK)
        return st;

    /* A root with one child is a level that routes nowhere: the child
     * (fresh or published, it is not written) becomes the root. */
    vt_node *root = *tp;
    while (root->head.height > 1 && root->head.count == 1) {
        vt_node *child = as_node(kids(root)[0]);
        if ((st = let_go(tx, &root->head)) != ILMAP_OK)
            return st;
        root = child;
        *tp = root;
    }
    if (root->head.count == 0)
        root->head.height = 1; /* empty (fresh: it just lost its last child) */
    return ILMAP_OK;
}

/* ---- Teardown ---------------------------------------------------------- */

/* Recursion as deep as the tree: VT_MAX_DEPTH at most. */
static void destroy(vt_head *h)
{
    if (h->height) {
        for (uint32_t i = 0; i < h->count; i++)
            destroy(kids(as_node(h))[i]);
    }
    free(h);
}

void vt_destroy(vt_top *top)
{
    if (top)
        destroy(&top->head);
}
