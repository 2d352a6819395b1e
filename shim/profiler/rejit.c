/*
 * The ReJIT sequence for the profiler's methods:
 *   GetReJITParameters: the one instrumentation sequence (new_body.h)
 *     into the ReJIT's function control;
 *   ReJITCompilationFinished: read the new version's native body (code
 *     ranges, IL-to-native map by code start) and record it in libilmap's
 *     version store; with tiering kept, read each later body too.
 * Runtime calls happen without the profiler lock held: the runtime may
 * call back into the profiler on another thread meanwhile.
 */
#include <inttypes.h>

#include "com/function_control.h"
#include "base/log.h"
#include "profiler/bodies.h"
#include "profiler/new_body.h"
#include "profiler/profiler.h"
#include "profiler/rejit.h"

HRESULT CLR_STDCALL shim_cb_rejit_started(ICorProfilerCallback4 *self, FunctionID function,
                                          ReJITID rejit, BOOL safe_to_block)
{
    (void)function;
    (void)rejit;
    (void)safe_to_block;
    shim_profiler *p = shim_profiler_of(self);
    if (p && p->initialized) {
        shim_lock(p);
        p->count.rejit_started++;
        shim_unlock(p);
    }
    return S_OK;
}

/* The ReJIT's sink: the function control copies body and map. */
static HRESULT control_body(void *ctx, shim_profiler *p, shim_method *m, const uint8_t *body,
                            size_t size)
{
    (void)p;
    (void)m;
    ICorProfilerFunctionControl *control = ctx;
    if (size > 0xFFFFFFFFu)
        return E_INVALIDARG;
    return control->lpVtbl->SetILFunctionBody(control, (ULONG)size, body);
}

static HRESULT control_map(void *ctx, shim_profiler *p, ULONG count, COR_IL_MAP *entries)
{
    (void)p;
    ICorProfilerFunctionControl *control = ctx;
    return control->lpVtbl->SetILInstrumentedCodeMap(control, count, entries);
}

HRESULT CLR_STDCALL shim_cb_get_rejit_parameters(ICorProfilerCallback4 *self, ModuleID module,
                                                 mdMethodDef token,
                                                 ICorProfilerFunctionControl *control)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized || !control)
        return S_OK;
    shim_lock(p);
    p->count.rejit_params++;
    shim_method *m = shim_registry_find(&p->registry, module, token);
    shim_unlock(p);
    if (!m)
        return S_OK; /* not ours: the runtime keeps the original IL */
    shim_body_sink sink = {control_body, control_map, control, 0, "ReJIT"};
    shim_new_body(p, m, &sink);
    return S_OK;
}

/* The first native body of a new (function, rejit): its code ranges
 * (GetCodeInfo3), its map read by code start, and the version recorded
 * in libilmap's version store with the COR_IL_MAP the runtime was given. */
static void read_first_body(shim_profiler *p, shim_method *m, ModuleID module,
                            mdMethodDef token, FunctionID function, ReJITID rejit)
{
    shim_body_note note;
    shim_note_start(&note, module, token, function, rejit);
    note.first = 1;
    COR_PRF_CODE_INFO *code = NULL;
    note.hr_code = shim_read_code_info(p->info, function, rejit, &code, &note.range_count);
    if (SUCCEEDED(note.hr_code))
        note.code_size = shim_code_size(code, note.range_count);
    note.ranges = code;
    note.code_ok = SUCCEEDED(note.hr_code) && note.range_count > 0 &&
                   note.code_size <= 0xFFFFFFFFu;
    if (note.code_ok) {
        shim_lock(p);
        shim_claim_body(p, m, function, rejit, code[0].startAddress, &note.index);
        shim_unlock(p);
        shim_map_source src = {p->info, p->has_info9, function, rejit, code[0].startAddress};
        note.source = src;
        ilmap_native_entry *exported = shim_read_body_map(&note);
        note.exported = exported;
        if (exported) {
            note.stored = 1;
            note.store_status = shim_store_add(
                &p->store, function, module, token, rejit,
                m->role == SHIM_ROLE_TWIN_UNMAPPED ? NULL : m->map, code, note.range_count,
                exported, note.map.total, (uint32_t)note.code_size);
            shim_lock(p);
            for (size_t i = 0; i < m->body_count; i++)
                if (m->bodies[i].code_start == code[0].startAddress) {
                    m->bodies[i].stored = 1;
                    m->bodies[i].in_store = note.store_status == ILMAP_OK;
                }
            shim_unlock(p);
        }
    }
    shim_note_done(p, m, &note, code);
}

HRESULT CLR_STDCALL shim_cb_rejit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                           ReJITID rejit, HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_lock(p);
    p->count.rejit_finished++;
    shim_unlock(p);
    shim_method *m = shim_lock_function(p, function);
    if (!m)
        return S_OK;
    ModuleID module = m->module;
    mdMethodDef token = m->token;
    int instrumented = m->life == SHIM_LIFE_INSTRUMENTED;
    int known = 0; /* this version's first body is stored already */
    for (size_t i = 0; i < m->body_count; i++)
        known |= m->bodies[i].function == function && m->bodies[i].rejit == rejit &&
                 m->bodies[i].stored;
    shim_unlock(p);
    SHIM_HOOK(p, rejit_finished, m, function, rejit, status);
    if (FAILED(status) || !instrumented)
        return S_OK;
    if (!known)
        read_first_body(p, m, module, token, function, rejit);
    /* With tiering kept, one more body per tier: ReJITCompilationFinished
     * fires for each, while GetCodeInfo3 keeps describing the first. */
    if (p->has_info9)
        shim_record_bodies(p, m, module, token, function, rejit);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_rejit_error(ICorProfilerCallback4 *self, ModuleID module,
                                        mdMethodDef token, FunctionID function, HRESULT status)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_lock(p);
    p->count.rejit_errors++;
    shim_method *m = shim_registry_find(&p->registry, module, token);
    shim_unlock(p);
    shim_log("ReJITError for token 0x%08X: 0x%08X", (unsigned)token, (unsigned)status);
    SHIM_HOOK(p, rejit_error, m, token, function, status);
    return S_OK;
}
