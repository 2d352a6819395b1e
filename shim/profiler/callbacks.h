/*
 * The profiler's ICorProfilerCallback4 vtable: the callbacks the rooms
 * implement (profiler.h, modules.h, rejit.h, unload.h) in their slots,
 * the S_OK stubs of com/callback_stubs.h in every other.
 */
#ifndef SHIM_PROFILER_CALLBACKS_H
#define SHIM_PROFILER_CALLBACKS_H

#include "com/callback.h"

/* The vtable, every slot filled, built on first use. */
const ICorProfilerCallback4Vtbl *shim_callback_vtbl(void);

#endif
