/*
 * The per-version and per-body checks after a native body was read (the
 * first of a version: every per-version check, (b) when both twins are
 * in; a later one: the per-body checks), and checks (c) and c_store from
 * the ILMAP_SHIM_FRAMES file at shutdown (doc/shim.md#checks).
 */
#ifndef SHIM_HARNESS_CHECKS_H
#define SHIM_HARNESS_CHECKS_H

#include "harness/harness.h"

void shim_check_body(shim_harness *h, shim_profiler *p, shim_method *m,
                     const shim_body_note *n);
void shim_check_frames(shim_harness *h, shim_profiler *p);

#endif
