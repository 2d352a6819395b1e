/*
 * At ModuleUnloadStarted, the store's removal against what the shim had
 * put in for the module (then the module's per-method data is freed); at
 * shutdown, "store_final": after reclaiming nothing is pending and the
 * store holds exactly the loaded modules' bodies.
 */
#ifndef SHIM_HARNESS_UNLOAD_CHECKS_H
#define SHIM_HARNESS_UNLOAD_CHECKS_H

#include "harness/harness.h"

void shim_check_unload(shim_harness *h, shim_profiler *p, const shim_unload_note *n);
void shim_check_store_final(shim_harness *h, shim_profiler *p);

#endif
