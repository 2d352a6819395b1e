/*
 * Instrumenting a method of a collectible module, which ReJIT ignores, at
 * its first JITCompilationStarted (jit_instrument.c says how).
 */
#ifndef SHIM_PROFILER_JIT_INSTRUMENT_H
#define SHIM_PROFILER_JIT_INSTRUMENT_H

#include "profiler/profiler.h"

/* The new body and map of `function` when it is a SHIM_KIND_JIT_TIME
 * method still waiting; nothing otherwise. */
void shim_jit_instrument(shim_profiler *p, FunctionID function);

#endif
