/*
 * The one instrumentation sequence, with two callers: GetReJITParameters
 * (rejit.c: the new body goes to the ReJIT's ICorProfilerFunctionControl)
 * and JITCompilationStarted for a method of a collectible module
 * (jit_instrument.c: the new body goes to the runtime itself,
 * ICorProfilerInfo::SetILFunctionBody). Each step, in order:
 *   1. the original IL (GetILFunctionBody);
 *   2. libilmap's rewriter inserts the probes (instrument.c); a refusal
 *      leaves the original IL, the method REFUSED;
 *   3. the new body to the sink; its map checked with ilmap_create;
 *   4. except for the unmapped twin, the COR_IL_MAP to the sink (which
 *      copies it);
 *   5. at JIT time, the map becomes the version store's IL-level map of
 *      the method;
 *   6. the method INSTRUMENTED with its map (a repeated request keeps the
 *      first: the body is the same), counted;
 *   7. the observers told (hooks.h, rejit_parameters), failures logged.
 * Runtime calls happen without the profiler lock held.
 */
#ifndef SHIM_PROFILER_NEW_BODY_H
#define SHIM_PROFILER_NEW_BODY_H

#include "profiler/profiler.h"

/* Where the new body and its COR_IL_MAP go. Both calls return the
 * runtime's HRESULT; the body and the map are the caller's to free after
 * the call (the runtime copies them, or the sink does). */
typedef struct shim_body_sink {
    HRESULT (*set_body)(void *ctx, shim_profiler *p, shim_method *m, const uint8_t *body,
                        size_t size);
    HRESULT (*set_map)(void *ctx, shim_profiler *p, ULONG count, COR_IL_MAP *entries);
    void *ctx;
    int store_il_map; /* step 5: the body compiles as the original version */
    const char *when; /* for logs: "ReJIT", "JIT time" */
} shim_body_sink;

/* Runs the sequence for m (selected, not observed) with its probe. */
void shim_new_body(shim_profiler *p, shim_method *m, const shim_body_sink *sink);

#endif
