/* The write transaction's two lists; see txn.h. */
#include <stdlib.h>

#include "versions/txn.h"

void vt_txn_init(vt_txn *tx, uint64_t gen)
{
    tx->gen = gen;
    tx->fresh = NULL;
    tx->nfresh = tx->fresh_cap = 0;
    tx->retired = NULL;
    tx->nretired = tx->retired_cap = 0;
}

#ifdef TXN_TEST_HOOKS
int (*vt_txn_test_alloc)(size_t size);
#define TEST_FAILS(size) (vt_txn_test_alloc && vt_txn_test_alloc(size))
#else
#define TEST_FAILS(size) 0
#endif

/* Grows an array of elem-byte elements to hold at least need of them. */
static int grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;

    size_t next = *cap ? *cap : 8;
    while (next < need) {
        if (next > SIZE_MAX / 2)
            return 0;
        next *= 2;
    }
    if (next > SIZE_MAX / elem || TEST_FAILS(0))
        return 0;
    void *p = realloc(*array, next * elem);
    if (!p)
        return 0;
    *array = p;
    *cap = next;
    return 1;
}

void *vt_txn_alloc(vt_txn *tx, size_t size)
{
    if (tx->nfresh == SIZE_MAX ||
        !grow((void **)&tx->fresh, &tx->fresh_cap, tx->nfresh + 1, sizeof *tx->fresh))
        return NULL;

    void *p = TEST_FAILS(size) ? NULL : malloc(size ? size : 1);
    if (p)
        tx->fresh[tx->nfresh++] = p;
    return p;
}

void vt_txn_discard(vt_txn *tx, void *p)
{
    /* Newest first: what is discarded was usually allocated just before. */
    for (size_t i = tx->nfresh; i-- > 0;) {
        if (tx->fresh[i] == p) {
            tx->fresh[i] = tx->fresh[--tx->nfresh];
            free(p);
            return;
        }
    }
}

ilmap_status vt_txn_reserve(vt_txn *tx, size_t more)
{
    if (more > SIZE_MAX - tx->nretired ||
        !grow((void **)&tx->retired, &tx->retired_cap, tx->nretired + more, sizeof *tx->retired))
        return ILMAP_E_NOMEM;
    return ILMAP_OK;
}

ilmap_status vt_txn_retire(vt_txn *tx, void *p, retire_kind kind)
{
    ilmap_status st = vt_txn_reserve(tx, 1);

    if (st != ILMAP_OK)
        return st;
    tx->retired[tx->nretired].ptr = p;
    tx->retired[tx->nretired].kind = kind;
    tx->nretired++;
    return ILMAP_OK;
}

void vt_txn_abort(vt_txn *tx)
{
    for (size_t i = 0; i < tx->nfresh; i++)
        free(tx->fresh[i]);
    free(tx->fresh);
    free(tx->retired);
    vt_txn_init(tx, tx->gen);
}

void vt_txn_settle(vt_txn *tx)
{
    free(tx->fresh);
    tx->fresh = NULL;
    tx->nfresh = tx->fresh_cap = 0;
}

retire_item *vt_txn_take_retired(vt_txn *tx, size_t *count)
{
    retire_item *items = tx->retired;

    *count = tx->nretired;
    tx->retired = NULL;
    tx->nretired = tx->retired_cap = 0;
    return items;
}
