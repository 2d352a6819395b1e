/*
 * Check "store_lookup" on a body just stored: the store answers addresses
 * inside it (each entry of its map) with this body and the map's IL
 * offset, whichever tier it is; counts per version kind and body number
 * for the "bodies_by_tier" event at shutdown.
 */
#ifndef SHIM_HARNESS_BODY_CHECKS_H
#define SHIM_HARNESS_BODY_CHECKS_H

#include "harness/harness.h"

void shim_check_body_lookup(shim_harness *h, shim_profiler *p, shim_method *m,
                            const shim_body_note *n);
void shim_report_bodies_by_tier(shim_harness *h);

#endif
