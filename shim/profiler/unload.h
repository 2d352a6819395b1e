/*
 * ModuleUnloadStarted: the module's pending ReJIT requests, hooks,
 * argument targets, version-store entries and method records dropped,
 * then the observers told (hooks.h, module_unloaded).
 */
#ifndef SHIM_PROFILER_UNLOAD_H
#define SHIM_PROFILER_UNLOAD_H

#include "profiler/profiler.h"

HRESULT CLR_STDCALL shim_cb_module_unload_started(ICorProfilerCallback4 *self, ModuleID module);

#endif
