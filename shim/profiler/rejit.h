/*
 * The ReJIT callbacks: GetReJITParameters (the one instrumentation
 * sequence, new_body.h, into the function control), ReJITCompilationStarted
 * and Finished (each new native body read and stored, bodies.h), and
 * ReJITError.
 */
#ifndef SHIM_PROFILER_REJIT_H
#define SHIM_PROFILER_REJIT_H

#include "profiler/profiler.h"

HRESULT CLR_STDCALL shim_cb_rejit_started(ICorProfilerCallback4 *self, FunctionID function,
                                          ReJITID rejit, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_get_rejit_parameters(ICorProfilerCallback4 *self, ModuleID module,
                                                 mdMethodDef token,
                                                 ICorProfilerFunctionControl *control);
HRESULT CLR_STDCALL shim_cb_rejit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                           ReJITID rejit, HRESULT status, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_rejit_error(ICorProfilerCallback4 *self, ModuleID module,
                                        mdMethodDef token, FunctionID function, HRESULT status);

#endif
