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

typedef struct shim_store {
    ilmap_store *store;          /* NULL: the store could not be created */
    ilmap_store_reader *reader;  /* the one reading thread's slot (shutdown) */
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

/* Where address is, per the store. Reads from one thread at a time (the
 * reader slot is claimed on first use). */
ilmap_status shim_store_lookup(shim_store *s, uintptr_t address, ilmap_store_location *out);

/* The address of native offset `native` in code laid out over ranges
 * (hot first, then cold, offsets running across them end to end, as the
 * runtime counts them). 0 on success, non-zero past the end. */
int shim_code_address(const COR_PRF_CODE_INFO *ranges, size_t range_count, uint32_t native,
                      uintptr_t *address);

#endif
