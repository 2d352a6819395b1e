/*
 * A write transaction's bookkeeping: the blocks it allocated (fresh, not
 * yet visible to readers) and the published blocks it replaced (to be
 * retired: freed after the grace period, epoch.h).
 *
 * Why both lists: a change is all or nothing. If anything fails half-way,
 * abort frees the fresh blocks and forgets the retire list, and the
 * published snapshot is exactly as before. Only after the new snapshot is
 * published do the replaced blocks become garbage.
 */
#ifndef ILMAP_VERSIONS_TXN_H
#define ILMAP_VERSIONS_TXN_H

#include <stddef.h>
#include <stdint.h>

#include "ilmap.h"

/* What a retired object is, so the reclaimer knows how to free it. */
typedef enum retire_kind {
    RETIRE_MEMORY = 0, /* a plain block: free() */
    RETIRE_MAPREF = 1, /* a store_mapref and its ilmap */
    RETIRE_BODY = 2,   /* a store_body and its ilmap_native */
    RETIRE_PDB = 3     /* a store_pdbref: its PDB freed, then its release called */
} retire_kind;

typedef struct retire_item {
    void *ptr;
    retire_kind kind;
} retire_item;

typedef struct vt_txn {
    uint64_t gen; /* unique per transaction, > every published node's */
    void **fresh;
    size_t nfresh, fresh_cap;
    retire_item *retired;
    size_t nretired, retired_cap;
} vt_txn;

void vt_txn_init(vt_txn *tx, uint64_t gen);

/* A fresh block of size bytes (freed by vt_txn_abort()), or NULL. */
void *vt_txn_alloc(vt_txn *tx, size_t size);

/* Frees a fresh block now: it was replaced before anyone could see it. */
void vt_txn_discard(vt_txn *tx, void *p);

/* Makes room for `more` retirements, so that vt_txn_retire() cannot fail
 * after a point of no return. */
ilmap_status vt_txn_reserve(vt_txn *tx, size_t more);

/* Adds a published object to the retire list (growing it if needed). */
ilmap_status vt_txn_retire(vt_txn *tx, void *p, retire_kind kind);

/* Undoes everything: frees the fresh blocks, forgets the retire list. */
void vt_txn_abort(vt_txn *tx);

/* After publication: the fresh blocks belong to the published snapshot
 * now. The retire list is left for the caller to take (vt_txn_take_retired). */
void vt_txn_settle(vt_txn *tx);

/* Hands the retire list over (the caller frees the array); resets it. */
retire_item *vt_txn_take_retired(vt_txn *tx, size_t *count);

#ifdef TXN_TEST_HOOKS
/* Test builds only (test/meson.build builds txn.c into test-table with
 * TXN_TEST_HOOKS; the library never has it): called before every
 * allocation, with the block's size (0 for the lists' own arrays); a
 * non-zero return makes the allocation fail. */
extern int (*vt_txn_test_alloc)(size_t size);
#endif

#endif
