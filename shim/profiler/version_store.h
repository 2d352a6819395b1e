/*
 * libilmap's version store (ilmap_store) as the shim keeps it: every
 * ReJIT version the runtime compiled, with the COR_IL_MAP the shim gave
 * it and its native body (code ranges + the runtime's exported map), so
 * that an instruction pointer can be answered from the store the way a
 * sampling profiler would, and compared with the direct answer (check
 * "c_store", harness/checks.c).
 */
#ifndef SHIM_VERSION_STORE_H
#define SHIM_VERSION_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap-versions.h"
#include "platform/thread.h"

typedef struct shim_store {
    ilmap_store *store;          /* NULL: the store could not be created */
    ilmap_store_reader *reader;  /* the shim's one reader slot, used under lock */
    ilmap_mutex lock;            /* one reading thread at a time (unloads, shutdown) */
    int lock_ready;
} shim_store;

/* Creates the store; logs and returns non-zero on failure (the shim then
 * runs without it). */
int shim_store_open(shim_store *s);

/*
 * Records one compiled ReJIT version: function registered as an instance
 * of (module, token), version rejit made current with a copy of il_map
 * (NULL: no map, as the runtime has none), and a native body over ranges
 * with the runtime's export (original IL offsets when il_map was given).
 * Thread-safe (the store's writers serialize). Returns the first failing
 * status, ILMAP_OK when all went in.
 */
ilmap_status shim_store_add(shim_store *s, FunctionID function, ModuleID module,
                            mdMethodDef token, ReJITID rejit, const ilmap *il_map,
                            const COR_PRF_CODE_INFO *ranges, size_t range_count,
                            const ilmap_native_entry *exported, uint32_t count,
                            uint32_t code_size);

/* One more native body of a version already in the store: a later tier
 * of a ReJIT version, or a body of the original code (rejit 0; the
 * function is registered as an instance of (module, token) if it is not
 * yet). original_il: the export is in original IL offsets (compiled under
 * a COR_IL_MAP). Returns the first failing status. */
ilmap_status shim_store_add_body(shim_store *s, FunctionID function, ModuleID module,
                                 mdMethodDef token, ReJITID rejit, int original_il,
                                 const COR_PRF_CODE_INFO *ranges, size_t range_count,
                                 const ilmap_native_entry *exported, uint32_t count,
                                 uint32_t code_size);

/* An address's source (ilmap_store_snapshot_lookup_source()) and its
 * document's name (up to cap bytes with the NUL; *total: the name's size)
 * read inside one read on the shim's reader slot; source->pdb is NULL on
 * return (the read has ended). Returns the first failing status. */
ilmap_status shim_store_read_source(shim_store *s, uintptr_t address, unsigned flags,
                                    ilmap_store_location *location, ilmap_store_source *source,
                                    char *document, size_t cap, size_t *total);

/* The IL-level map of (module, token) (ilmap_store_set_il_map), a copy of
 * map: what the original version's bodies compiled after a
 * SetILInstrumentedCodeMap at JIT time capture. */
ilmap_status shim_store_set_il_map(shim_store *s, ModuleID module, mdMethodDef token,
                                   const ilmap *map);

/* Where address is, per the store. The reader slot is claimed on first
 * use and shared by the threads that ask, one at a time (under s->lock). */
ilmap_status shim_store_lookup(shim_store *s, uintptr_t address, ilmap_store_location *out);

/* ModuleUnloadStarted: everything the store holds for module goes, in
 * one publication (ilmap_store_remove_module, doc/rejit.md#removal); the
 * store's counters just before and after, when before/after are not NULL
 * (zeroed if they cannot be read). Returns the removal's status. */
ilmap_status shim_store_remove_module(shim_store *s, ModuleID module,
                                      ilmap_store_removed *removed, ilmap_store_stats *before,
                                      ilmap_store_stats *after);

/* The store's counters after freeing what no read can see any more
 * (ilmap_store_reclaim); *pending gets what still waits for readers. */
ilmap_status shim_store_settle(shim_store *s, ilmap_store_stats *stats, size_t *pending);

/* The address of native offset `native` in code laid out over ranges
 * (hot first, then cold, offsets running across them end to end, as the
 * runtime counts them). 0 on success, non-zero past the end. */
int shim_code_address(const COR_PRF_CODE_INFO *ranges, size_t range_count, uint32_t native,
                      uintptr_t *address);

#endif
