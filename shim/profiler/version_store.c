#include "profiler/version_store.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

int shim_store_open(shim_store *s)
{
    if (!s)
        return 1;
    memset(s, 0, sizeof *s);
    s->lock_ready = ilmap_mutex_init(&s->lock) == 0;
    /* Few readers: the store is read at shutdown only. */
    ilmap_status st = ilmap_store_create(4, 0, &s->store);
    if (st != ILMAP_OK) {
        shim_log("cannot create the version store: %s; check c_store skipped",
                 ilmap_status_str(st));
        return 1;
    }
    return 0;
}

/* A private copy of an IL map: the store owns what it is given, one
 * object per version, while the method keeps its own. */
static ilmap_status copy_map(const ilmap *map, ilmap **out)
{
    *out = NULL;
    size_t n = 0;
    ilmap_status st = ilmap_export(map, 0, &n, NULL);
    if (st != ILMAP_OK || n == 0)
        return st;
    ilmap_entry *e = malloc(n * sizeof *e);
    if (!e)
        return ILMAP_E_NOMEM;
    st = ilmap_export(map, n, &n, e);
    if (st == ILMAP_OK)
        st = ilmap_create(e, n, 0, out);
    free(e);
    return st;
}

/* One native body into the store: its ranges as the store takes them, its
 * map built from the runtime's export (ours until the store accepts it). */
static ilmap_status attach_body(shim_store *s, FunctionID function, ReJITID rejit,
                                int original_il, const COR_PRF_CODE_INFO *ranges,
                                size_t range_count, const ilmap_native_entry *exported,
                                uint32_t count, uint32_t code_size)
{
    ilmap_code_range r[ILMAP_STORE_MAX_RANGES];
    for (size_t i = 0; i < range_count; i++)
        r[i] = (ilmap_code_range){ranges[i].startAddress, ranges[i].size};
    ilmap_native *native = NULL;
    ilmap_status st = ilmap_native_from_entries(exported, count, code_size, &native);
    if (st != ILMAP_OK)
        return st;
    st = ilmap_store_add_body(s->store, function, rejit, r, range_count, native,
                              original_il ? ILMAP_BODY_ORIGINAL_IL : 0);
    if (st != ILMAP_OK)
        ilmap_native_free(native);
    return st;
}

ilmap_status shim_store_add(shim_store *s, FunctionID function, ModuleID module,
                            mdMethodDef token, ReJITID rejit, const ilmap *il_map,
                            const COR_PRF_CODE_INFO *ranges, size_t range_count,
                            const ilmap_native_entry *exported, uint32_t count,
                            uint32_t code_size)
{
    if (!s || !s->store || !ranges || !exported)
        return ILMAP_E_INVALID_ARG;
    if (range_count == 0 || range_count > ILMAP_STORE_MAX_RANGES)
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = ilmap_store_add_function(s->store, function, module, token);
    if (st != ILMAP_OK)
        return st;

    ilmap *version_map = NULL;
    if (il_map && (st = copy_map(il_map, &version_map)) != ILMAP_OK)
        return st;
    st = ilmap_store_add_version(s->store, function, rejit, version_map, ILMAP_VERSION_CURRENT);
    if (st != ILMAP_OK) {
        ilmap_free(version_map); /* still ours on failure */
        return st;
    }

    /* Under a COR_IL_MAP the runtime exports original IL offsets already
     * (doc/rejit.md#store-maps): the store must not translate them again. Without
     * one they are the new body's offsets, and the version has no map. */
    return attach_body(s, function, rejit, il_map != NULL, ranges, range_count, exported, count,
                       code_size);
}

ilmap_status shim_store_add_body(shim_store *s, FunctionID function, ModuleID module,
                                 mdMethodDef token, ReJITID rejit, int original_il,
                                 const COR_PRF_CODE_INFO *ranges, size_t range_count,
                                 const ilmap_native_entry *exported, uint32_t count,
                                 uint32_t code_size)
{
    if (!s || !s->store || !ranges || !exported)
        return ILMAP_E_INVALID_ARG;
    if (range_count == 0 || range_count > ILMAP_STORE_MAX_RANGES)
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = ilmap_store_add_function(s->store, function, module, token);
    if (st != ILMAP_OK)
        return st;
    return attach_body(s, function, rejit, original_il, ranges, range_count, exported, count,
                       code_size);
}

ilmap_status shim_store_set_il_map(shim_store *s, ModuleID module, mdMethodDef token,
                                   const ilmap *map)
{
    if (!s || !s->store || !map)
        return ILMAP_E_INVALID_ARG;
    ilmap *copy = NULL;
    ilmap_status st = copy_map(map, &copy);
    if (st != ILMAP_OK)
        return st;
    st = ilmap_store_set_il_map(s->store, module, token, copy);
    if (st != ILMAP_OK)
        ilmap_free(copy); /* still ours on failure */
    return st;
}

ilmap_status shim_store_lookup(shim_store *s, uintptr_t address, ilmap_store_location *out)
{
    if (!s || !s->store || !out)
        return ILMAP_E_INVALID_ARG;
    if (!s->lock_ready)
        return ILMAP_E_NOMEM; /* no way to keep two threads off the one slot */
    ilmap_mutex_lock(&s->lock);
    ilmap_status st = ILMAP_OK;
    if (!s->reader)
        st = ilmap_store_reader_register(s->store, &s->reader);
    if (st == ILMAP_OK)
        st = ilmap_store_lookup(s->reader, address, out);
    ilmap_mutex_unlock(&s->lock);
    return st;
}

ilmap_status shim_store_read_source(shim_store *s, uintptr_t address, unsigned flags,
                                    ilmap_store_location *location, ilmap_store_source *source,
                                    char *document, size_t cap, size_t *total)
{
    if (!s || !s->store || !location || !source || !document || !cap || !total)
        return ILMAP_E_INVALID_ARG;
    document[0] = '\0';
    *total = 0;
    if (!s->lock_ready)
        return ILMAP_E_NOMEM; /* no way to keep two threads off the one slot */
    ilmap_mutex_lock(&s->lock);
    ilmap_status st = ILMAP_OK;
    const ilmap_store_snapshot *snapshot = NULL;
    if (!s->reader)
        st = ilmap_store_reader_register(s->store, &s->reader);
    if (st == ILMAP_OK)
        st = ilmap_store_reader_begin(s->reader, &snapshot);
    if (st == ILMAP_OK) {
        st = ilmap_store_snapshot_lookup_source(snapshot, address, flags, location, source);
        /* source->pdb is valid until the read ends: the name is read now. */
        if (st == ILMAP_OK)
            st = ilmap_pdb_get_document_name(source->pdb, source->point.document, cap, total,
                                             document, NULL);
        source->pdb = NULL;
        (void)ilmap_store_reader_end(s->reader);
    }
    ilmap_mutex_unlock(&s->lock);
    return st;
}

static void stats_of(ilmap_store *store, ilmap_store_stats *out)
{
    if (out && ilmap_store_get_stats(store, out) != ILMAP_OK)
        memset(out, 0, sizeof *out);
}

ilmap_status shim_store_remove_module(shim_store *s, ModuleID module,
                                      ilmap_store_removed *removed, ilmap_store_stats *before,
                                      ilmap_store_stats *after)
{
    if (removed)
        memset(removed, 0, sizeof *removed);
    if (before)
        memset(before, 0, sizeof *before);
    if (after)
        memset(after, 0, sizeof *after);
    if (!s || !s->store || !module)
        return ILMAP_E_INVALID_ARG;
    stats_of(s->store, before);
    ilmap_status st = ilmap_store_remove_module(s->store, module, removed);
    stats_of(s->store, after);
    return st;
}

ilmap_status shim_store_settle(shim_store *s, ilmap_store_stats *stats, size_t *pending)
{
    if (pending)
        *pending = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!s || !s->store)
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = ilmap_store_reclaim(s->store, pending);
    stats_of(s->store, stats);
    return st;
}

int shim_code_address(const COR_PRF_CODE_INFO *ranges, size_t range_count, uint32_t native,
                      uintptr_t *address)
{
    if (!ranges || !address)
        return 1;
    uint64_t skipped = 0;
    for (size_t i = 0; i < range_count; i++) {
        if (native < skipped + ranges[i].size) {
            *address = ranges[i].startAddress + (uintptr_t)(native - skipped);
            return 0;
        }
        skipped += ranges[i].size;
    }
    return 1;
}
