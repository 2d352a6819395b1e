/*
 * The version store's readers: slots, reads, and the queries on a
 * snapshot. Nothing here locks, allocates or makes a system call, so all
 * of it is async-signal-safe (epoch.h, table.h).
 */
#include <string.h>

#include "common/copy_out.h"
#include "platform/prefetch.h"
#include "versions/store.h"

ilmap_status ilmap_store_reader_register(ilmap_store *store, ilmap_store_reader **out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    *out = NULL;
    if (!store)
        return ILMAP_E_INVALID_ARG;
    *out = epoch_claim(&store->epoch);
    return *out ? ILMAP_OK : ILMAP_E_FULL;
}

ilmap_status ilmap_store_reader_unregister(ilmap_store_reader *reader)
{
    if (!reader || ilmap_atomic_load_u32(&reader->depth, ilmap_mo_relaxed) != 0)
        return ILMAP_E_INVALID_ARG;
    ilmap_atomic_store_u32(&reader->owned, 0, ilmap_mo_release);
    return ILMAP_OK;
}

ilmap_status ilmap_store_reader_begin(ilmap_store_reader *reader,
                                      const ilmap_store_snapshot **snapshot)
{
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    *snapshot = NULL;
    if (!reader)
        return ILMAP_E_INVALID_ARG;
    if (epoch_enter(reader) != 0)
        return ILMAP_E_LIMIT;
    /* seq_cst: after the announcement (epoch.h). */
    *snapshot = ilmap_atomic_load_ptr(&reader->store->current, ilmap_mo_seq_cst);
    return ILMAP_OK;
}

ilmap_status ilmap_store_reader_end(ilmap_store_reader *reader)
{
    if (!reader || epoch_leave(reader) != 0)
        return ILMAP_E_INVALID_ARG;
    return ILMAP_OK;
}

uint64_t ilmap_store_snapshot_get_generation(const ilmap_store_snapshot *snapshot)
{
    return snapshot ? snapshot->generation : 0;
}

static const uint64_t *snapshot_find(const ilmap_store_snapshot *v, enum store_table table,
                            const uint64_t *key)
{
    return vt_find(store_shapes[table], v->tables[table], key);
}

/* The body whose ranges hold address, and which range; NULL if none. */
static const struct store_body *body_at(const ilmap_store_snapshot *v, uintptr_t address,
                                        uint32_t *range)
{
    uint32_t lines;
    uintptr_t ref = ax_candidate(v->code, address, &lines);
    const struct store_body *body = (const struct store_body *)(ref & ~AX_TAG_MASK);
    uint32_t ri = (uint32_t)(ref & AX_TAG_MASK);

    /* The lines of the body a lookup reads (its fields, ranges, and its
     * answers when small: answers.h) load together rather than one after
     * another; the index knows how many when it hands out the body. */
    for (uint32_t k = 1; k < lines; k++)
        ILMAP_PREFETCH((const char *)body + 64u * k);

    if (!body || address - body->ranges[ri].start >= body->ranges[ri].size)
        return NULL;
    *range = ri;
    return body;
}

static void location_clear(ilmap_store_location *out)
{
    memset(out, 0, sizeof *out);
    out->mapping = ILMAP_MAPPING_NO_INFO;
}

ilmap_status ilmap_store_snapshot_lookup(const ilmap_store_snapshot *snapshot, uintptr_t address,
                                         ilmap_store_location *out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    location_clear(out);
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;

    uint32_t ri = 0;
    const struct store_body *body = body_at(snapshot, address, &ri);
    if (!body)
        return ILMAP_E_NOT_FOUND;

    uint32_t native_offset =
        body->ranges[ri].base + (uint32_t)(address - body->ranges[ri].start);
    uint32_t il = 0, original = 0;
    unsigned mapping = answers_at(&body->answers, native_offset, &il, &original);

    out->function_id = body->function_id;
    out->rejit_id = body->rejit_id;
    out->module_id = body->module_id;
    out->method_def = body->method_def;
    out->code_start = body->ranges[0].start;
    out->range_index = ri;
    out->native_offset = native_offset;
    out->mapping = mapping;
    out->il_offset = il;
    out->original_il_offset = original;
    return ILMAP_OK;
}

ilmap_status ilmap_store_lookup(ilmap_store_reader *reader, uintptr_t address,
                                ilmap_store_location *out)
{
    const ilmap_store_snapshot *snapshot;

    if (!out)
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = ilmap_store_reader_begin(reader, &snapshot);
    if (st != ILMAP_OK) {
        location_clear(out);
        return st;
    }
    st = ilmap_store_snapshot_lookup(snapshot, address, out);
    (void)ilmap_store_reader_end(reader);
    return st;
}

static const struct store_mapref *mapref_of(uint64_t word)
{
    return ptr_of_word(word);
}

static const struct store_mapref *method_mapref(const ilmap_store_snapshot *v, uint64_t module,
                                                uint64_t method_def)
{
    const uint64_t key[2] = { module, method_def };
    const uint64_t *m = snapshot_find(v, T_METHODS, key);
    return m ? mapref_of(m[METHOD_MAP]) : NULL;
}

/* The IL map of a version (doc/rejit.md#store-maps) into *out (NULL: none);
 * ILMAP_E_NOT_FOUND when the snapshot has no such version. */
static ilmap_status version_mapref(const ilmap_store_snapshot *v, ilmap_function_id function_id,
                                   ilmap_rejit_id rejit_id, const struct store_mapref **out)
{
    *out = NULL;
    const uint64_t vkey[2] = { function_id, rejit_id };
    const uint64_t *ver = snapshot_find(v, T_VERSIONS, vkey);
    if (!ver)
        return ILMAP_E_NOT_FOUND;
    if (rejit_id != 0) {
        *out = mapref_of(ver[VER_MAP]);
        return ILMAP_OK;
    }
    /* The original version has no map of its own: the method's applies. */
    const uint64_t fkey[1] = { function_id };
    const uint64_t *fn = snapshot_find(v, T_FUNCTIONS, fkey);
    if (fn)
        *out = method_mapref(v, fn[FUNC_MODULE], fn[FUNC_METHOD_DEF]);
    return ILMAP_OK;
}

/* A kept map's entries with the buffer protocol, from the map or, in a
 * compact store, from the packed entries; none for NULL. After
 * copy_out_check(). */
static ilmap_status mapref_copy_out(const struct store_mapref *mr, size_t cap, size_t *total,
                                    ilmap_entry *out)
{
    if (mr && mr->map)
        return ilmap_export(mr->map, cap, total, out);
    size_t count = mr ? mr->count : 0;
    if (count)
        packed_il_read(mr->packed, copy_out_fit(cap, count), out);
    return copy_out_done(cap, count, total);
}

ilmap_status ilmap_store_snapshot_get_il_map(const ilmap_store_snapshot *snapshot,
                                             ilmap_function_id function_id,
                                             ilmap_rejit_id rejit_id, const ilmap **map)
{
    if (!map)
        return ILMAP_E_INVALID_ARG;
    *map = NULL;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    const struct store_mapref *mr;
    ilmap_status st = version_mapref(snapshot, function_id, rejit_id, &mr);
    *map = mr ? mr->map : NULL;
    return st;
}

ilmap_status ilmap_store_snapshot_get_il_entries(const ilmap_store_snapshot *snapshot,
                                                 ilmap_function_id function_id,
                                                 ilmap_rejit_id rejit_id, size_t cap,
                                                 size_t *total, ilmap_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    const struct store_mapref *mr;
    st = version_mapref(snapshot, function_id, rejit_id, &mr);
    return st != ILMAP_OK ? st : mapref_copy_out(mr, cap, total, out);
}

ilmap_status ilmap_store_snapshot_get_method_map(const ilmap_store_snapshot *snapshot,
                                                 ilmap_module_id module, uint32_t method_def,
                                                 const ilmap **map)
{
    if (!map)
        return ILMAP_E_INVALID_ARG;
    *map = NULL;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    const struct store_mapref *mr = method_mapref(snapshot, module, method_def);
    *map = mr ? mr->map : NULL;
    return ILMAP_OK;
}

ilmap_status ilmap_store_snapshot_get_method_entries(const ilmap_store_snapshot *snapshot,
                                                     ilmap_module_id module, uint32_t method_def,
                                                     size_t cap, size_t *total, ilmap_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    return mapref_copy_out(method_mapref(snapshot, module, method_def), cap, total, out);
}

ilmap_status ilmap_store_snapshot_get_function(const ilmap_store_snapshot *snapshot,
                                               ilmap_function_id function_id,
                                               ilmap_store_function_info *out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;

    const uint64_t key[1] = { function_id };
    const uint64_t *fn = snapshot_find(snapshot, T_FUNCTIONS, key);
    if (!fn)
        return ILMAP_E_NOT_FOUND;
    out->module_id = (ilmap_module_id)fn[FUNC_MODULE];
    out->method_def = (uint32_t)fn[FUNC_METHOD_DEF];
    out->current_rejit_id = (ilmap_rejit_id)fn[FUNC_CURRENT];
    return ILMAP_OK;
}

/* The buffer protocol (common/copy_out.h) over the records from `from`
 * whose first `prefix` key words equal from's, copying key word `pick` of
 * each. The caller has checked the protocol's arguments. */
static ilmap_status list_prefix(const ilmap_store_snapshot *v, enum store_table table,
                                const uint64_t *from, uint32_t prefix, uint32_t pick, size_t cap,
                                size_t *total, uintptr_t *out)
{
    const vt_shape s = store_shapes[table];
    vt_cursor cur;
    size_t n = 0;

    for (const uint64_t *r = vt_seek(s, v->tables[table], from, &cur);
         r && vt_cmp(r, from, prefix) == 0; r = vt_next(s, &cur)) {
        if (n < cap)
            out[n] = (uintptr_t)r[pick];
        n++;
    }
    return copy_out_done(cap, n, total);
}

ilmap_status ilmap_store_snapshot_list_versions(const ilmap_store_snapshot *snapshot,
                                                ilmap_function_id function_id, size_t cap,
                                                size_t *total, ilmap_rejit_id *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;

    const uint64_t key[1] = { function_id };
    if (!snapshot_find(snapshot, T_FUNCTIONS, key))
        return ILMAP_E_NOT_FOUND;
    const uint64_t from[2] = { function_id, 0 };
    return list_prefix(snapshot, T_VERSIONS, from, VER_REJIT, VER_REJIT, cap, total, out);
}

ilmap_status ilmap_store_snapshot_list_bodies(const ilmap_store_snapshot *snapshot,
                                              ilmap_function_id function_id,
                                              ilmap_rejit_id rejit_id, size_t cap, size_t *total,
                                              uintptr_t *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;

    const uint64_t vkey[2] = { function_id, rejit_id };
    if (!snapshot_find(snapshot, T_VERSIONS, vkey))
        return ILMAP_E_NOT_FOUND;
    const uint64_t from[3] = { function_id, rejit_id, 0 };
    return list_prefix(snapshot, T_BODIES, from, BODY_START, BODY_START, cap, total, out);
}

ilmap_status ilmap_store_snapshot_get_body(const ilmap_store_snapshot *snapshot, uintptr_t address,
                                           ilmap_store_body_info *out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;

    uint32_t ri;
    const struct store_body *body = body_at(snapshot, address, &ri);
    if (!body)
        return ILMAP_E_NOT_FOUND;
    out->function_id = body->function_id;
    out->rejit_id = body->rejit_id;
    out->module_id = body->module_id;
    out->method_def = body->method_def;
    out->flags = body->flags;
    out->code_size = body->code_size;
    out->range_count = body->nranges;
    for (uint32_t i = 0; i < body->nranges; i++) {
        out->ranges[i].start = body->ranges[i].start;
        out->ranges[i].size = body->ranges[i].size;
    }
    out->native_map = body->native;
    out->il_map = body->il_map;
    return ILMAP_OK;
}

/* The start of a copy-out about the body holding address: the buffer
 * protocol's checks, then the body (NULL unless ILMAP_OK). */
static ilmap_status copy_out_body(const ilmap_store_snapshot *snapshot, uintptr_t address,
                                  size_t cap, size_t *total, const void *out,
                                  const struct store_body **body)
{
    *body = NULL;
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!snapshot)
        return ILMAP_E_INVALID_ARG;
    uint32_t ri;
    *body = body_at(snapshot, address, &ri);
    return *body ? ILMAP_OK : ILMAP_E_NOT_FOUND;
}

ilmap_status ilmap_store_snapshot_get_native_entries(const ilmap_store_snapshot *snapshot,
                                                     uintptr_t address, size_t cap,
                                                     size_t *total, ilmap_native_entry *out)
{
    const struct store_body *body;
    ilmap_status st = copy_out_body(snapshot, address, cap, total, out, &body);
    if (st != ILMAP_OK)
        return st;
    if (body->native)
        return ilmap_native_export(body->native, cap, total, out);
    size_t count = body->packed ? body->packed_count : 0;
    packed_native_read(body->packed, copy_out_fit(cap, count), out);
    return copy_out_done(cap, count, total);
}

ilmap_status ilmap_store_snapshot_get_body_il_entries(const ilmap_store_snapshot *snapshot,
                                                      uintptr_t address, size_t cap,
                                                      size_t *total, ilmap_entry *out)
{
    const struct store_body *body;
    ilmap_status st = copy_out_body(snapshot, address, cap, total, out, &body);
    return st != ILMAP_OK ? st : mapref_copy_out(body->il, cap, total, out);
}
