/*
 * Source lines for the shim: each tracked module's Portable PDB, found
 * and opened when the module loads (ilmap_pdb_open_for_assembly: the
 * CodeView path, embedded, or beside the DLL; ids checked), kept with its
 * bytes for the module's life and released at ModuleUnloadStarted; and
 * one lookup, code address -> document, line, column.
 */
#ifndef SHIM_PROFILER_SOURCES_H
#define SHIM_PROFILER_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap-pdb.h"
#include "ilmap-versions.h"
#include "platform/thread.h"
#include "profiler/version_store.h"

typedef struct shim_source_module {
    ModuleID module;
    ilmap_pdb *pdb; /* owns its bytes */
} shim_source_module;

typedef struct shim_sources {
    shim_source_module *items;
    size_t count, cap;
    ilmap_mutex lock; /* guards items; held across a lookup's PDB reads */
    int lock_ready;
    uint64_t opened, missing; /* modules with a PDB, without one */
} shim_sources;

/* 0, or non-zero when the lock cannot be made (the shim then keeps no
 * PDBs; logged). */
int shim_sources_open(shim_sources *s);

/* A tracked module has loaded from `path` (UTF-8): its PDB is opened and
 * kept. Every failure is logged; the module then has no source lines. */
void shim_sources_module_loaded(shim_sources *s, ModuleID module, const char *path);

/* ModuleUnloadStarted: the module's PDB and its bytes are freed. */
void shim_sources_module_unloaded(shim_sources *s, ModuleID module);

/* What an address's source is. */
typedef struct shim_source {
    ilmap_store_location location; /* the store's answer */
    uint32_t il_offset;            /* the original IL offset the PDB was asked */
    char document[1024];           /* as the PDB stores it, NUL-terminated */
    uint32_t line, column;
} shim_source;

/*
 * address -> function, version, original IL offset (the version store),
 * then the method's source by the runtime's rule
 * (ilmap_pdb_find_source(module's PDB, 0x06000000 | method_def, original
 * IL offset)). flags: ILMAP_STORE_RETURN_ADDRESS-like, bit 0 set for a
 * return address (a non-leaf frame): address - 1 is looked up, as the
 * runtime does.
 *
 * Meant to move to the store: ilmap_store_attach_pdb() at module load and
 * ilmap_store_lookup_source() here (the store would own the PDB and free
 * it when no reader can see it); this function is the one place to
 * change.
 *
 * Returns ILMAP_OK; ILMAP_E_NOT_FOUND (no body at address, no IL offset
 * there (a body without a map), no PDB for the module, or no visible
 * sequence point at or before the offset); ILMAP_E_TRUNCATED (the
 * document name is longer than out->document); ILMAP_E_FORMAT (the PDB).
 * out->location is filled whenever the store answered.
 */
#define SHIM_SOURCE_RETURN_ADDRESS 1u
ilmap_status shim_source_lookup(shim_store *store, shim_sources *s, uintptr_t address,
                                unsigned flags, shim_source *out);

#endif
