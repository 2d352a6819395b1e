/*
 * Each tracked module's PDB, and address -> source (sources.h).
 */
#include "profiler/sources.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profiler/log.h"

int shim_sources_open(shim_sources *s)
{
    memset(s, 0, sizeof *s);
    if (ilmap_mutex_init(&s->lock) != 0) {
        shim_log("cannot create the PDB table's lock; no source lines");
        return -1;
    }
    s->lock_ready = 1;
    return 0;
}

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

void shim_sources_module_loaded(shim_sources *s, ModuleID module, const char *path)
{
    if (!s->lock_ready || !path || !*path)
        return;
    ilmap_pdb *pdb = NULL;
    ilmap_pdb_origin origin = ILMAP_PDB_ORIGIN_NONE;
    ilmap_pdb_error e;
    ilmap_status st = ilmap_pdb_open_for_assembly(path, NULL, 0, &pdb, &origin, &e);
    if (st != ILMAP_OK) {
        ilmap_mutex_lock(&s->lock);
        s->missing++;
        ilmap_mutex_unlock(&s->lock);
        shim_log("%s: no PDB (%s%s%s); its frames have no source lines", path,
                 ilmap_status_str(st), e.defect ? ", " : "",
                 e.defect ? ilmap_pdb_defect_str(e.defect) : "");
        return;
    }
    ilmap_mutex_lock(&s->lock);
    int kept = 0;
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        shim_source_module *grown =
            cap < SIZE_MAX / sizeof *grown ? realloc(s->items, cap * sizeof *grown) : NULL;
        if (grown) {
            s->items = grown;
            s->cap = cap;
        }
    }
    if (s->count < s->cap) {
        s->items[s->count].module = module;
        s->items[s->count].pdb = pdb;
        s->count++;
        s->opened++;
        kept = 1;
    }
    ilmap_mutex_unlock(&s->lock);
    if (!kept) {
        ilmap_pdb_free(pdb);
        shim_log("%s: out of memory keeping its PDB; its frames have no source lines", path);
        return;
    }
    shim_log("%s: PDB %s", path, origin_str(origin));
}

void shim_sources_module_unloaded(shim_sources *s, ModuleID module)
{
    if (!s->lock_ready)
        return;
    ilmap_pdb *pdb = NULL;
    ilmap_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i].module == module) {
            pdb = s->items[i].pdb;
            s->items[i] = s->items[--s->count];
            break;
        }
    ilmap_mutex_unlock(&s->lock);
    ilmap_pdb_free(pdb);
}

ilmap_status shim_source_lookup(shim_store *store, shim_sources *s, uintptr_t address,
                                unsigned flags, shim_source *out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!store || !s || !s->lock_ready)
        return ILMAP_E_INVALID_ARG;
    if ((flags & SHIM_SOURCE_RETURN_ADDRESS) && address > 0)
        address--;
    ilmap_status st = shim_store_lookup(store, address, &out->location);
    if (st != ILMAP_OK)
        return st;
    /* The runtime's rule for a frame: no IL offset (so no line) where the
     * body has no map; IL offset 0 for a prolog, an unmapped stretch or
     * an offset no entry covers, which gets the line of the method's
     * first sequence point (shim/FINDINGS.md, round 9). */
    if (out->location.mapping & ILMAP_MAPPING_NO_INFO)
        return ILMAP_E_NOT_FOUND;
    if (out->location.mapping &
        (ILMAP_MAPPING_EXACT | ILMAP_MAPPING_APPROXIMATE | ILMAP_MAPPING_EPILOG))
        out->il_offset = out->location.original_il_offset;
    else
        out->il_offset = 0;
    ilmap_pdb_sequence_point sp;
    ilmap_pdb_error e;
    size_t total = 0;
    ilmap_mutex_lock(&s->lock);
    const ilmap_pdb *pdb = NULL;
    for (size_t i = 0; i < s->count; i++)
        if (s->items[i].module == (ModuleID)out->location.module_id)
            pdb = s->items[i].pdb;
    st = pdb ? ilmap_pdb_find_source(pdb, 0x06000000u | (out->location.method_def & 0xFFFFFFu),
                                     out->il_offset, &sp, &e)
             : ILMAP_E_NOT_FOUND;
    if (st == ILMAP_OK)
        st = ilmap_pdb_get_document_name(pdb, sp.document, sizeof out->document, &total,
                                         out->document, &e);
    ilmap_mutex_unlock(&s->lock);
    if (st != ILMAP_OK) {
        out->document[0] = '\0';
        return st;
    }
    out->line = sp.start_line;
    out->column = sp.start_column;
    return ILMAP_OK;
}
