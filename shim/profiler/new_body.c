/*
 * The one instrumentation sequence (new_body.h).
 */
#include "profiler/new_body.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* Steps 3 to 6: the body and its map to the sink, the map kept. */
static void hand_over(shim_profiler *p, shim_method *m, const char *name,
                      const shim_body_sink *sink, const shim_instrumented *inst,
                      shim_params_note *note)
{
    note->hr_body = sink->set_body(sink->ctx, p, m, inst->body, inst->body_size);
    if (FAILED(note->hr_body))
        return;
    ilmap *map = NULL;
    note->map_checked = 1;
    note->map_status = ilmap_create(inst->map, inst->map_count, 0, &map);
    if (note->map_status != ILMAP_OK) {
        /* the body is set; without a valid map no map is claimed */
        shim_log("the map of %s: %s; its new body runs without a COR_IL_MAP", name,
                 ilmap_status_str(note->map_status));
        return;
    }
    if (m->role != SHIM_ROLE_TWIN_UNMAPPED) {
        COR_IL_MAP *entries = shim_instrumented_cor_map(inst);
        if (!entries) {
            ilmap_free(map);
            shim_log("out of memory for the IL map of %s", name);
            return;
        }
        note->map_tried = 1;
        note->hr_map = sink->set_map(sink->ctx, p, (ULONG)inst->map_count, entries);
        free(entries); /* the runtime copied it */
        if (FAILED(note->hr_map)) {
            ilmap_free(map);
            return;
        }
    }
    int stored = sink->store_il_map && m->role != SHIM_ROLE_TWIN_UNMAPPED &&
                 shim_store_set_il_map(&p->store, m->module, m->token, map) == ILMAP_OK;
    shim_lock(p);
    if (m->life != SHIM_LIFE_INSTRUMENTED) {
        m->life = SHIM_LIFE_INSTRUMENTED;
        m->il_map_stored = stored;
        m->map = map;
        map = NULL;
        note->recorded = 1;
        p->count.instrumented_bodies++;
    }
    shim_unlock(p);
    ilmap_free(map); /* a repeated request: the first map stays, same body */
}

void shim_new_body(shim_profiler *p, shim_method *m, const shim_body_sink *sink)
{
    const char *name = shim_method_name(p, m);
    shim_lock(p);
    shim_probe probe = {m->probe_token, p->probe_every};
    shim_unlock(p);

    shim_params_note note;
    memset(&note, 0, sizeof note);
    LPCBYTE header = NULL;
    note.hr_il = p->info->lpVtbl->GetILFunctionBody(p->info, m->module, m->token, &header,
                                                    &note.il_size);
    if (FAILED(note.hr_il) || !header || !note.il_size) {
        shim_log("GetILFunctionBody(%s) failed: 0x%08X", name, (unsigned)note.hr_il);
        SHIM_HOOK(p, rejit_parameters, m, &note);
        return;
    }
    /* Probes, or the whole body wrapped (ILMAP_SHIM_WRAP: its spec, or
     * why it is not wrapped, was settled when its module loaded). */
    shim_instrumented inst;
    memset(&inst, 0, sizeof inst);
    int failed = 1;
    if (!m->wrap)
        failed = shim_instrument(header, note.il_size, &probe, &inst, &note.refused);
    else if (m->wrap_refused)
        note.refused = m->wrap_refused;
    else
        failed = shim_instrument_wrap(header, note.il_size, &m->wrap_spec, &inst, &note.refused);
    if (failed) {
        /* A limit of the instrumenter, not a wrong map: counted, with the
         * reason; the runtime keeps the original IL. A wrap prepared
         * when its module loaded that fails now (memory) is said. */
        if (!note.refused)
            note.refused = "?";
        if (p->verbose)
            shim_log("not instrumenting %s: %s", name, note.refused);
        else if (m->wrap && !m->wrap_refused)
            shim_log("wrap: %s: %s; it runs unwrapped", name, note.refused);
        shim_lock(p);
        p->count.methods_refused++;
        m->life = SHIM_LIFE_REFUSED;
        shim_unlock(p);
        SHIM_HOOK(p, rejit_parameters, m, &note);
        return;
    }
    note.inst = &inst;
    hand_over(p, m, name, sink, &inst, &note);
    if (FAILED(note.hr_body) || (note.map_tried && FAILED(note.hr_map)))
        shim_log("instrumenting %s (%s): SetILFunctionBody 0x%08X, "
                 "SetILInstrumentedCodeMap 0x%08X; continuing",
                 name, sink->when, (unsigned)note.hr_body, (unsigned)note.hr_map);
    SHIM_HOOK(p, rejit_parameters, m, &note);
    shim_instrumented_free(&inst);
}
