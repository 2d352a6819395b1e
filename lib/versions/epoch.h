/*
 * Epoch-based reclamation for the store's snapshots.
 *
 * The domain has a global epoch (starting at 1) and a fixed array of
 * reader slots, each announcing the epoch its reader entered at, or 0 when
 * it is not reading.
 *
 * Reader: announce the global epoch, then load the snapshot pointer
 * (store.h); when done, announce 0. Writer: swap the snapshot pointer,
 * then advance the global epoch to t and tag what it replaced with t.
 *
 * Why that is safe: a reader that can still hold a replaced object
 * loaded the pointer before the swap, so its announcement came before
 * the swap too, and carries an epoch < t (the epoch was advanced after the
 * swap). A batch tagged t is freed only when every slot announces 0 or an
 * epoch >= t. An announcement of an old, stale epoch (a reader that read
 * the epoch, was preempted, and stored it late) only delays freeing: the
 * announcement store and the pointer load are sequentially consistent, so
 * a scan that missed the announcement ran before it, and the pointer load
 * after it sees the new snapshot. All the orderings are the C11 seq_cst
 * total order over: the announcement, the pointer load (reader), the swap,
 * the epoch increment and the scan's loads (writer).
 *
 * With writer fences (ILMAP_STORE_WRITER_FENCE) the announcement is a
 * plain store: the writer makes every running thread of the process
 * execute a full fence (platform/fence.h) between the swap and the scan,
 * which orders any reader's announcement before its pointer load as far
 * as the scan can tell: a reader whose load came before that fence has
 * its announcement visible to the scan; one whose load came after sees
 * the new snapshot.
 * Nesting, for signal handlers that interrupt a read on the same slot:
 * `depth` counts the reads in progress on the slot; only a read that
 * finds depth 0 clears the announcement at its end, and a nested read
 * announces only if nothing is announced yet (it interrupted the outer
 * one before its announcement). A handler restores depth before it
 * returns, so the interrupted code's plain load/store of depth is safe.
 * Both fields are lock-free atomics: no lock, so nothing a handler can
 * deadlock on.
 */
#ifndef ILMAP_VERSIONS_EPOCH_H
#define ILMAP_VERSIONS_EPOCH_H

#include <stddef.h>
#include <stdint.h>

#include "platform/atomic.h" /* lock-free only: the read path is async-signal-safe */
#include "versions/txn.h"

struct ilmap_store;
struct epoch_domain;

/* One reader slot; the public ilmap_store_reader. A cache line each, so
 * that readers on different cores do not share their announcements'
 * line. */
struct ilmap_store_reader {
    _Alignas(64) ilmap_atomic_u64 announced; /* 0: not reading */
    ilmap_atomic_u32 depth;                  /* reads in progress on the slot */
    ilmap_atomic_u32 owned;                  /* registered */
    struct epoch_domain *domain;
    struct ilmap_store *store;
};

/* Objects retired by one publication, freed together. */
typedef struct retire_batch {
    struct retire_batch *next;
    uint64_t tag; /* free once no slot announces an epoch below it */
    size_t count;
    retire_item *items;
} retire_batch;

/* Frees one retired object; store: the domain's store (for what the
 * object came from). */
typedef void (*retire_release_fn)(struct ilmap_store *store, const retire_item *item);

/* Cache lines: `global` is read by every read and written once per
 * publication; the writer-only fields, written many times per
 * publication, live on another line so readers never miss on them. */
typedef struct epoch_domain {
    _Alignas(64) ilmap_atomic_u64 global;
    struct ilmap_store_reader *slots;
    uint32_t nslots;
    ilmap_atomic_u32 used_slots; /* slots ever claimed: the scan stops there */
    /* Readers announce without a fence; reclamation fences for them
     * (ILMAP_STORE_WRITER_FENCE, platform/fence.h). Set at init. */
    uint32_t writer_fence;
    /* Writer-only (under the store's mutex). */
    _Alignas(64) retire_batch *head, *tail; /* oldest first, tags ascending */
    uint64_t pending;          /* items in the batches */
    uint32_t batches;          /* batches queued */
    uint64_t reclaimed;
    retire_release_fn release;
    struct ilmap_store *store; /* release's context */
} epoch_domain;

/* 0 or ILMAP_E_NOMEM. writer_fence: use platform/fence.h's process-wide
 * fence if it is available (d->writer_fence says whether it is). */
int epoch_init(epoch_domain *d, uint32_t nslots, struct ilmap_store *store,
               retire_release_fn release, int writer_fence);

/* Frees every pending batch (no reader may be left) and the slots. */
void epoch_destroy(epoch_domain *d);

/* Claims a free slot; NULL when all are taken. Lock-free. */
struct ilmap_store_reader *epoch_claim(epoch_domain *d);

/* Registered slots (a count, racy by nature). */
uint32_t epoch_registered(const epoch_domain *d);

/* Enters a read (nesting as above). 0, or -1 when depth would overflow. */
static inline int epoch_enter(struct ilmap_store_reader *r)
{
    uint32_t depth = ilmap_atomic_load_u32(&r->depth, ilmap_mo_relaxed);

    if (depth >= 0x80000000u)
        return -1;
    ilmap_atomic_store_u32(&r->depth, depth + 1, ilmap_mo_relaxed);
    /* A handler arriving from here on sees depth > 0 and will not clear. */
    ilmap_atomic_signal_fence();
    if (depth == 0 || ilmap_atomic_load_u64(&r->announced, ilmap_mo_relaxed) == 0) {
        /* Acquire: an epoch this new implies the swap it followed is seen. */
        uint64_t e = ilmap_atomic_load_u64(&r->domain->global, ilmap_mo_acquire);
        if (r->domain->writer_fence) {
            /* Ordered before the snapshot load by the reclaimer's
             * process-wide fence (platform/fence.h). */
            ilmap_atomic_store_u64(&r->announced, e, ilmap_mo_relaxed);
            ilmap_atomic_signal_fence();
        } else {
            ilmap_atomic_store_u64(&r->announced, e, ilmap_mo_seq_cst);
        }
    }
    return 0;
}

/* Leaves the innermost read. 0, or -1 when not inside one. */
static inline int epoch_leave(struct ilmap_store_reader *r)
{
    uint32_t depth = ilmap_atomic_load_u32(&r->depth, ilmap_mo_relaxed);

    if (depth == 0)
        return -1;
    ilmap_atomic_store_u32(&r->depth, depth - 1, ilmap_mo_relaxed);
    ilmap_atomic_signal_fence();
    if (depth == 1) /* release: our reads happen before a writer frees */
        ilmap_atomic_store_u64(&r->announced, 0, ilmap_mo_release);
    return 0;
}

/* After a publication: tags the batch with a new epoch and queues it.
 * The batch and its items are the domain's from now on. */
void epoch_retire(epoch_domain *d, retire_batch *batch);

/* Frees every batch no reader can still see. Returns the items left.
 * With writer fences, each scan costs a process-wide fence, so unless
 * `force`, batches are let to gather (EPOCH_LAZY_BATCHES) first. */
#define EPOCH_LAZY_BATCHES 32u
uint64_t epoch_reclaim(epoch_domain *d, int force);

#endif
