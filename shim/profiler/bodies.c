/*
 * Native bodies one by one: claimed by code start, read by it, recorded in
 * the version store with their own native map (bodies.h).
 */
#include "profiler/bodies.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* Claims one native body: 1 when it is new (then *index is its number
 * among the bodies of (function, rejit)), 0 when it was read already or
 * cannot be recorded (counted). The caller holds the lock. */
int shim_claim_body(shim_profiler *p, shim_method *m, FunctionID function, ReJITID rejit,
                    UINT_PTR start, unsigned *index)
{
    unsigned same = 0;
    for (size_t i = 0; i < m->body_count; i++) {
        if (m->bodies[i].code_start == start)
            return 0;
        same += m->bodies[i].function == function && m->bodies[i].rejit == rejit;
    }
    if (m->body_count == m->body_cap) {
        size_t cap = m->body_cap ? m->body_cap * 2 : 4;
        shim_body *grown = cap < SIZE_MAX / sizeof *grown
                               ? realloc(m->bodies, cap * sizeof *grown)
                               : NULL;
        if (!grown) {
            p->count.bodies_dropped++;
            shim_note_dropped(p, 4, "a native body not checked");
            return 0;
        }
        m->bodies = grown;
        m->body_cap = cap;
    }
    shim_body b = {function, rejit, start, 0, 0};
    m->bodies[m->body_count++] = b;
    p->count.bodies_read++;
    if (same)
        p->count.bodies_extra++;
    *index = same;
    return 1;
}

uint64_t shim_code_size(const COR_PRF_CODE_INFO *ranges, ULONG32 count)
{
    uint64_t size = 0;
    for (ULONG32 i = 0; i < count; i++)
        size += ranges[i].size;
    return size;
}

/* Reads the map of the body in note->source into note (runtime order,
 * also in libilmap's type); 0 when it was read whole and is not empty. */
ilmap_native_entry *shim_read_body_map(shim_body_note *note)
{
    if (shim_read_map(&note->source, &note->map) != S_OK || note->map.total == 0)
        return NULL;
    ilmap_native_entry *e = malloc(note->map.total * sizeof *e);
    if (!e)
        return NULL;
    for (ULONG32 i = 0; i < note->map.total; i++) {
        e[i].il_offset = note->map.entries[i].ilOffset;
        e[i].native_start = note->map.entries[i].nativeStartOffset;
        e[i].native_end = note->map.entries[i].nativeEndOffset;
    }
    return e;
}

void shim_note_start(shim_body_note *note, ModuleID module, mdMethodDef token,
                     FunctionID function, ReJITID rejit)
{
    memset(note, 0, sizeof *note);
    note->module = module;
    note->token = token;
    note->function = function;
    note->rejit = rejit;
}

/* Tells the hooks, then frees what the note points to. */
void shim_note_done(shim_profiler *p, shim_method *m, shim_body_note *note,
                    COR_PRF_CODE_INFO *code)
{
    SHIM_HOOK(p, body_read, m, note);
    free((void *)note->exported);
    free(note->map.entries);
    free(code);
}

void shim_record_bodies(shim_profiler *p, shim_method *m, ModuleID module, mdMethodDef token,
                        FunctionID function, ReJITID rejit)
{
    UINT_PTR *starts = NULL;
    ULONG32 n = 0;
    if (FAILED(shim_read_code_starts(p->info, function, rejit, &starts, &n))) {
        free(starts);
        return;
    }
    if (p->verbose) {
        shim_lock(p);
        size_t known = 0;
        for (size_t b = 0; b < m->body_count; b++)
            known += m->bodies[b].function == function && m->bodies[b].rejit == rejit;
        shim_unlock(p);
        shim_log("%s: function 0x%" PRIxPTR " rejit %" PRIuPTR ": %u code starts, %zu known",
                 shim_method_name(p, m), function, rejit, (unsigned)n, known);
    }
    shim_lock(p);
    /* Under the COR_IL_MAP the runtime exports original IL offsets
     * (doc/rejit.md#store-maps): a ReJIT version's, or a method instrumented
     * at JIT time; other original code has no map at all. */
    int original_il = (rejit != 0 || m->kind == SHIM_KIND_JIT_TIME) && m->map &&
                      m->role != SHIM_ROLE_TWIN_UNMAPPED;
    shim_unlock(p);
    for (ULONG32 i = 0; i < n; i++) {
        shim_body_note note;
        shim_note_start(&note, module, token, function, rejit);
        shim_lock(p);
        int fresh = starts[i] != 0 &&
                    shim_claim_body(p, m, function, rejit, starts[i], &note.index);
        shim_unlock(p);
        if (!fresh)
            continue;
        COR_PRF_CODE_INFO *code = NULL;
        note.hr_code = shim_read_code_info_at(p->info, starts[i], &code, &note.range_count);
        if (SUCCEEDED(note.hr_code))
            note.code_size = shim_code_size(code, note.range_count);
        note.ranges = code;
        note.code_ok = SUCCEEDED(note.hr_code) && note.range_count > 0 &&
                       code[0].startAddress == starts[i] && note.code_size <= 0xFFFFFFFFu;
        shim_map_source src = {p->info, 1, function, rejit, starts[i]};
        note.source = src;
        if (note.code_ok)
            note.exported = shim_read_body_map(&note);
        if (note.exported) {
            note.stored = 1;
            note.store_status = shim_store_add_body(&p->store, function, module, token, rejit,
                                                    original_il, code, note.range_count,
                                                    note.exported, note.map.total,
                                                    (uint32_t)note.code_size);
            shim_lock(p);
            for (size_t b = 0; b < m->body_count; b++)
                if (m->bodies[b].code_start == starts[i]) {
                    m->bodies[b].stored = 1;
                    m->bodies[b].in_store = note.store_status == ILMAP_OK;
                }
            if (note.store_status == ILMAP_OK && rejit)
                p->count.bodies_stored_extra++;
            else if (note.store_status == ILMAP_OK)
                p->count.bodies_stored_original++;
            shim_unlock(p);
        }
        shim_note_done(p, m, &note, code);
    }
    free(starts);
}

void shim_record_jit_bodies(shim_profiler *p, FunctionID function)
{
    if (!p->has_info9 || !p->store.store)
        return;
    shim_method *m = shim_lock_function(p, function);
    if (!m)
        return;
    shim_unlock(p);
    shim_record_bodies(p, m, m->module, m->token, function, 0);
}
