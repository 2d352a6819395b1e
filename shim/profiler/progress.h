/*
 * What a program running under the shim may ask of it (exported by
 * dllmain.c as ilmap_shim_wait_rejits and ilmap_shim_most_bodies,
 * doc/shim.md#progress): so that a test program waits for the shim's
 * work instead of guessing how long it takes. Both are safe to call from
 * managed code on any thread at any time; before Initialize, and when
 * the shim is not the process's profiler, they answer -1.
 */
#ifndef SHIM_PROFILER_PROGRESS_H
#define SHIM_PROFILER_PROGRESS_H

#include <stdint.h>

/* Waits up to timeout_ms until every ReJIT request the shim has queued so
 * far has been made. 1: all made (the next call of each requested method
 * compiles its new version); 0: timed out; -1: no ReJIT thread. */
int shim_progress_wait_rejits(uint32_t timeout_ms);

/* The most native bodies the shim has read for one ReJIT version of the
 * selected method named `name` ("Ns.Type::Method"), 0 when it has read
 * none, -1 when no selected method has that name (or name is NULL). */
int shim_progress_most_bodies(const char *name);

#endif
