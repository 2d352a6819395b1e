/*
 * Source lines for the shim: each tracked module's Portable PDB, found
 * and opened when the module loads (ilmap_pdb_open_for_assembly: the
 * CodeView path, embedded, or beside the DLL; ids checked) and attached
 * to the version store (ilmap_store_attach_pdb), which owns it from then
 * on and frees it, with its bytes, once no reader can see it (the module
 * removed at ModuleUnloadStarted, or the store freed); and one lookup,
 * code address -> document, line, column, answered by the store
 * (ilmap_store_snapshot_lookup_source).
 */
#ifndef SHIM_PROFILER_SOURCES_H
#define SHIM_PROFILER_SOURCES_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap-pdb.h"
#include "ilmap-versions.h"
#include "profiler/version_store.h"

/* A tracked module has loaded from `path` (UTF-8): its PDB is opened and
 * attached to the store. Every failure is logged; the module then has no
 * source lines. */
void shim_sources_module_loaded(shim_store *store, ModuleID module, const char *path);

/* What an address's source is. */
typedef struct shim_source {
    ilmap_store_location location; /* the store's answer */
    char document[1024];           /* as the PDB stores it, NUL-terminated */
    uint32_t line, column;
} shim_source;

/*
 * address -> function, version, original IL offset, then the method's
 * source by the runtime's rule: ilmap_store_snapshot_lookup_source()
 * (doc/source-lines.md#store), with the document's name read inside the
 * same read. flags: 0, or ILMAP_STORE_RETURN_ADDRESS for a return address
 * (a non-leaf frame: address - 1 is looked up, as the runtime does).
 *
 * Returns ilmap_store_snapshot_lookup_source()'s status (ILMAP_E_NOT_FOUND
 * with out->location.function_id 0: no body; not 0: no line), or
 * ilmap_pdb_get_document_name()'s (ILMAP_E_TRUNCATED: the name is longer
 * than out->document). out->location is filled whenever a body was found.
 */
ilmap_status shim_source_lookup(shim_store *store, uintptr_t address, unsigned flags,
                                shim_source *out);

#endif
