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
#include <string.h>

#include "profiler/jit_instrument.h"
#include "profiler/new_body.h"
#include "profiler/profiler.h"

/* The runtime's own sink at JIT time: the body in memory from the
 * module's allocator (the runtime keeps that pointer), the map copied. */
typedef struct jit_sink {
    FunctionID function;
} jit_sink;

static HRESULT jit_body(void *ctx, shim_profiler *p, shim_method *m, const uint8_t *body,
                        size_t size)
{
    (void)ctx;
    IMethodMalloc *alloc = NULL;
    HRESULT hr = p->info->lpVtbl->GetILFunctionBodyAllocator(p->info, m->module, &alloc);
    void *mem = SUCCEEDED(hr) && alloc && size <= 0xFFFFFFFFu
                    ? alloc->lpVtbl->Alloc(alloc, (ULONG)size)
                    : NULL;
    if (alloc)
        alloc->lpVtbl->Release(alloc);
    if (!mem)
        return FAILED(hr) ? hr : E_OUTOFMEMORY;
    memcpy(mem, body, size);
    return p->info->lpVtbl->SetILFunctionBody(p->info, m->module, m->token, mem);
}

static HRESULT jit_map(void *ctx, shim_profiler *p, ULONG count, COR_IL_MAP *entries)
{
    const jit_sink *s = ctx;
    return p->info->lpVtbl->SetILInstrumentedCodeMap(p->info, s->function, 1, count, entries);
}

void shim_jit_instrument(shim_profiler *p, FunctionID function)
{
    shim_method *m = shim_lock_function(p, function);
    if (!m)
        return;
    int mine = m->kind == SHIM_KIND_JIT_TIME && m->life == SHIM_LIFE_WAITING;
    if (mine) /* once per method: the new IL serves every later compilation */
        m->life = SHIM_LIFE_REQUESTED;
    shim_unlock(p);
    if (!mine)
        return;
    jit_sink ctx = {function};
    shim_body_sink sink = {jit_body, jit_map, &ctx, 1, "JIT time"};
    shim_new_body(p, m, &sink);
}
