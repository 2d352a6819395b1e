/*
 * A complete ICorProfilerCallback4 vtable of do-nothing stubs (every
 * callback returns S_OK), so that a profiler writes only the callbacks it
 * acts on: copy the table, replace those slots (QueryInterface, AddRef and
 * Release included: the stubs' QueryInterface refuses everything).
 */
#ifndef SHIM_COM_CALLBACK_STUBS_H
#define SHIM_COM_CALLBACK_STUBS_H

#include "callback.h"

extern const ICorProfilerCallback4Vtbl clr_callback4_stubs;

#endif
