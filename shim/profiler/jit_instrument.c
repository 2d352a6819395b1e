/*
 * Instrumenting code the runtime will not rejit. ReJIT ignores methods of
 * collectible assemblies (RequestReJIT succeeds and nothing follows,
 * shim/FINDINGS.md, fifth round), so for a method of a collectible module
 * (SHIM_KIND_JIT_TIME) the shim does what profilers did before ReJIT: at
 * the method's first JITCompilationStarted it reads the original IL, has
 * libilmap's rewriter insert the probes, hands the runtime the new body
 * (ICorProfilerInfo::SetILFunctionBody, in memory from the module's
 * IMethodMalloc: the runtime keeps the pointer) and the COR_IL_MAP
 * (ICorProfilerInfo::SetILInstrumentedCodeMap, which copies it), and makes
 * the map the store's IL-level map of the method. The body the JIT then
 * compiles is the original version's (ReJITID 0); JITCompilationFinished
 * stores it (bodies.c). The hooks hear of it as of GetReJITParameters
 * (rejit_parameters). Failures are logged; the method runs uninstrumented.
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "profiler/profiler.h"

/* The new body at `header` and its map: SetILFunctionBody, then (except
 * for the unmapped twin) SetILInstrumentedCodeMap; the map is kept. */
static void give_body(shim_profiler *p, shim_method *m, const char *name, FunctionID function,
                      const shim_instrumented *inst, shim_params_note *note)
{
    IMethodMalloc *alloc = NULL;
    HRESULT hr = p->info->lpVtbl->GetILFunctionBodyAllocator(p->info, m->module, &alloc);
    void *mem = SUCCEEDED(hr) && alloc && inst->body_size <= 0xFFFFFFFFu
                    ? alloc->lpVtbl->Alloc(alloc, (ULONG)inst->body_size)
                    : NULL;
    if (alloc)
        alloc->lpVtbl->Release(alloc);
    if (!mem) {
        note->hr_body = FAILED(hr) ? hr : E_OUTOFMEMORY;
        return;
    }
    memcpy(mem, inst->body, inst->body_size);
    note->hr_body = p->info->lpVtbl->SetILFunctionBody(p->info, m->module, m->token, mem);
    if (FAILED(note->hr_body))
        return;
    ilmap *map = NULL;
    note->map_checked = 1;
    note->map_status = ilmap_create(inst->map, inst->map_count, 0, &map);
    if (note->map_status != ILMAP_OK)
        return;
    if (m->role != SHIM_ROLE_TWIN_UNMAPPED) {
        COR_IL_MAP *entries = shim_instrumented_cor_map(inst);
        if (!entries) {
            ilmap_free(map);
            shim_log("out of memory for the IL map of %s", name);
            return;
        }
        note->map_tried = 1;
        note->hr_map = p->info->lpVtbl->SetILInstrumentedCodeMap(p->info, function, 1,
                                                                 (ULONG)inst->map_count, entries);
        free(entries); /* the runtime copied it */
        if (FAILED(note->hr_map)) {
            ilmap_free(map);
            return;
        }
    }
    int stored = m->role != SHIM_ROLE_TWIN_UNMAPPED &&
                 shim_store_set_il_map(&p->store, m->module, m->token, map) == ILMAP_OK;
    shim_lock(p);
    m->life = SHIM_LIFE_INSTRUMENTED;
    m->il_map_stored = stored;
    m->map = map;
    note->recorded = 1;
    p->count.instrumented_bodies++;
    shim_unlock(p);
}

void shim_jit_instrument(shim_profiler *p, FunctionID function)
{
    shim_method *m = shim_lock_function(p, function);
    if (!m)
        return;
    ModuleID module = m->module;
    mdMethodDef token = m->token;
    int mine = m->kind == SHIM_KIND_JIT_TIME && m->life == SHIM_LIFE_WAITING;
    if (mine) /* once per method: the new IL serves every later compilation */
        m->life = SHIM_LIFE_REQUESTED;
    shim_probe probe = {mine ? m->probe_token : 0, p->probe_every};
    shim_unlock(p);
    if (!mine)
        return;
    const char *name = shim_method_name(p, m);
    shim_params_note note;
    memset(&note, 0, sizeof note);
    LPCBYTE header = NULL;
    note.hr_il = p->info->lpVtbl->GetILFunctionBody(p->info, module, token, &header,
                                                    &note.il_size);
    if (FAILED(note.hr_il) || !header || !note.il_size) {
        shim_log("GetILFunctionBody(%s) failed: 0x%08X", name, (unsigned)note.hr_il);
        SHIM_HOOK(p, rejit_parameters, m, &note);
        return;
    }
    shim_instrumented inst;
    if (shim_instrument(header, note.il_size, &probe, &inst, &note.refused)) {
        if (!note.refused)
            note.refused = "?";
        if (p->verbose)
            shim_log("not instrumenting %s: %s", name, note.refused);
        shim_lock(p);
        p->count.methods_refused++;
        m->life = SHIM_LIFE_REFUSED;
        shim_unlock(p);
        SHIM_HOOK(p, rejit_parameters, m, &note);
        return;
    }
    note.inst = &inst;
    give_body(p, m, name, function, &inst, &note);
    if (FAILED(note.hr_body) || (note.map_tried && FAILED(note.hr_map)))
        shim_log("instrumenting %s at JIT time: SetILFunctionBody 0x%08X, "
                 "SetILInstrumentedCodeMap 0x%08X; continuing",
                 name, (unsigned)note.hr_body, (unsigned)note.hr_map);
    SHIM_HOOK(p, rejit_parameters, m, &note);
    shim_instrumented_free(&inst);
}
