/*
 * Selecting methods as modules load (ModuleLoadFinished: the selectors
 * resolved in the module's metadata, the methods registered, those not
 * late requested in one batch), and the callbacks of a method's first
 * compilation: JITCompilationStarted (the JIT-time instrumentation of
 * collectible code, jit_instrument.h), JITCompilationFinished and the
 * cached-function search of precompiled code (the late ReJIT trigger;
 * original bodies into the store).
 */
#ifndef SHIM_PROFILER_MODULES_H
#define SHIM_PROFILER_MODULES_H

#include "profiler/profiler.h"

HRESULT CLR_STDCALL shim_cb_module_load_finished(ICorProfilerCallback4 *self, ModuleID module,
                                                 HRESULT status);
HRESULT CLR_STDCALL shim_cb_jit_started(ICorProfilerCallback4 *self, FunctionID function,
                                        BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                         HRESULT status, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_cache_search_started(ICorProfilerCallback4 *self,
                                                 FunctionID function, BOOL *use_cached);
HRESULT CLR_STDCALL shim_cb_cache_search_finished(ICorProfilerCallback4 *self,
                                                  FunctionID function, COR_PRF_JIT_CACHE result);

/* The module's name (JSON-safe; "" when the runtime cannot say). */
void shim_module_name(shim_profiler *p, ModuleID module, char *out, size_t cap);

#endif
