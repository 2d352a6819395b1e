/*
 * Each tracked module's PDB into the version store, and address ->
 * source (sources.h).
 */
#include "profiler/sources.h"

#include <string.h>

#include "base/log.h"

static const char *origin_str(ilmap_pdb_origin o)
{
    switch (o) {
    case ILMAP_PDB_ORIGIN_CODEVIEW_PATH:
        return "the CodeView path";
    case ILMAP_PDB_ORIGIN_CODEVIEW_NAME:
        return "the CodeView name beside it";
    case ILMAP_PDB_ORIGIN_EMBEDDED:
        return "embedded";
    case ILMAP_PDB_ORIGIN_BESIDE:
        return "beside it";
    default:
        return "nowhere";
    }
}

void shim_sources_module_loaded(shim_store *store, ModuleID module, const char *path)
{
    if (!store || !store->store || !path || !*path)
        return;
    ilmap_pdb *pdb = NULL;
    ilmap_pdb_origin origin = ILMAP_PDB_ORIGIN_NONE;
    ilmap_pdb_error e;
    ilmap_status st = ilmap_pdb_open_for_assembly(path, NULL, 0, &pdb, &origin, &e);
    if (st != ILMAP_OK) {
        shim_log("%s: no PDB (%s%s%s); its frames have no source lines", path,
                 ilmap_status_str(st), e.defect ? ", " : "",
                 e.defect ? ilmap_pdb_defect_str(e.defect) : "");
        return;
    }
    /* The handle owns its bytes: nothing else to release with it. */
    st = ilmap_store_attach_pdb(store->store, (ilmap_module_id)module, pdb, NULL, NULL);
    if (st != ILMAP_OK) {
        ilmap_pdb_free(pdb);
        shim_log("%s: the store did not take its PDB (%s); its frames have no source lines",
                 path, ilmap_status_str(st));
        return;
    }
    shim_log("%s: PDB %s", path, origin_str(origin));
}

ilmap_status shim_source_lookup(shim_store *store, uintptr_t address, unsigned flags,
                                shim_source *out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->location.mapping = ILMAP_MAPPING_NO_INFO;
    if (!store)
        return ILMAP_E_INVALID_ARG;
    ilmap_store_source src;
    size_t total = 0;
    ilmap_status st = shim_store_read_source(store, address, flags, &out->location, &src,
                                             out->document, sizeof out->document, &total);
    if (st != ILMAP_OK) {
        out->document[0] = '\0';
        return st;
    }
    out->line = src.point.start_line;
    out->column = src.point.start_column;
    return ILMAP_OK;
}
