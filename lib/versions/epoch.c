/* Epoch-based reclamation: slots, retirement, the reclaim scan. See
 * epoch.h for why it is safe. */
#include <stdlib.h>
#include <string.h>

#include "platform/memory.h"
#include "platform/fence.h"
#include "versions/epoch.h"

int epoch_init(epoch_domain *d, uint32_t nslots, struct ilmap_store *store,
               retire_release_fn release, int writer_fence)
{
    size_t bytes = (size_t)nslots * sizeof(struct ilmap_store_reader);

    memset(d, 0, sizeof *d);
    d->slots = ilmap_aligned_alloc(_Alignof(struct ilmap_store_reader), bytes);
    if (!d->slots)
        return -1;
    for (uint32_t i = 0; i < nslots; i++) {
        ilmap_atomic_init_u64(&d->slots[i].announced, 0);
        ilmap_atomic_init_u32(&d->slots[i].depth, 0);
        ilmap_atomic_init_u32(&d->slots[i].owned, 0);
        d->slots[i].domain = d;
        d->slots[i].store = store;
    }
    d->nslots = nslots;
    ilmap_atomic_init_u32(&d->used_slots, 0);
    ilmap_atomic_init_u64(&d->global, 1);
    d->release = release;
    d->store = store;
    d->writer_fence = writer_fence && ilmap_heavy_fence_available() ? 1u : 0u;
    return 0;
}

static void free_batch(epoch_domain *d, retire_batch *b)
{
    for (size_t i = 0; i < b->count; i++)
        d->release(d->store, &b->items[i]);
    free(b->items);
    free(b);
}

void epoch_destroy(epoch_domain *d)
{
    while (d->head) {
        retire_batch *next = d->head->next;
        free_batch(d, d->head);
        d->head = next;
    }
    ilmap_aligned_free(d->slots);
    d->slots = NULL;
}

struct ilmap_store_reader *epoch_claim(epoch_domain *d)
{
    for (uint32_t i = 0; i < d->nslots; i++) {
        uint32_t expected = 0;
        if (ilmap_atomic_cas_u32(&d->slots[i].owned, &expected, 1,
                                                    ilmap_mo_acq_rel,
                                                    ilmap_mo_relaxed)) {
            /* Raise the scan bound before the slot can announce anything:
             * the announcement that follows is ordered after this. */
            uint32_t used = ilmap_atomic_load_u32(&d->used_slots, ilmap_mo_relaxed);
            while (used < i + 1 &&
                   !ilmap_atomic_cas_weak_u32(&d->used_slots, &used, i + 1,
                                                          ilmap_mo_seq_cst,
                                                          ilmap_mo_relaxed)) {
            }
            return &d->slots[i];
        }
    }
    return NULL;
}

uint32_t epoch_registered(const epoch_domain *d)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < d->nslots; i++)
        n += ilmap_atomic_load_u32(&d->slots[i].owned, ilmap_mo_relaxed) != 0;
    return n;
}

void epoch_retire(epoch_domain *d, retire_batch *batch)
{
    /* After the swap (the caller's seq_cst exchange): readers announcing
     * this epoch or later load the new snapshot. */
    batch->tag = ilmap_atomic_fetch_add_u64(&d->global, 1, ilmap_mo_seq_cst) + 1;
    batch->next = NULL;
    if (d->tail)
        d->tail->next = batch;
    else
        d->head = batch;
    d->tail = batch;
    d->pending += batch->count;
    d->batches++;
}

uint64_t epoch_reclaim(epoch_domain *d, int force)
{
    if (!d->head)
        return 0;
    if (d->writer_fence) {
        if (!force && d->batches < EPOCH_LAZY_BATCHES)
            return d->pending;
        /* The readers' half of the fence (epoch.h); if the OS refuses it
         * now, no announcement can be trusted: free nothing this time. */
        if (ilmap_heavy_fence() != 0)
            return d->pending;
    }

    /* The oldest epoch still announced; batches tagged at most that are
     * unreachable. A slot claimed after we read used_slots announces an
     * epoch read after the increments above, so it protects nothing we
     * free. */
    uint64_t oldest = UINT64_MAX;
    uint32_t used = ilmap_atomic_load_u32(&d->used_slots, ilmap_mo_seq_cst);
    for (uint32_t i = 0; i < used; i++) {
        uint64_t e = ilmap_atomic_load_u64(&d->slots[i].announced, ilmap_mo_seq_cst);
        if (e != 0 && e < oldest)
            oldest = e;
    }

    while (d->head && d->head->tag <= oldest) {
        retire_batch *b = d->head;
        d->head = b->next;
        if (!d->head)
            d->tail = NULL;
        d->pending -= b->count;
        d->reclaimed += b->count;
        d->batches--;
        free_batch(d, b);
    }
    return d->pending;
}
