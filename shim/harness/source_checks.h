/*
 * Check c_source: a recorded frame's document, line and column from the
 * version store and the module's PDB (doc/shim.md#check-c-source).
 */
#ifndef SHIM_HARNESS_SOURCE_CHECKS_H
#define SHIM_HARNESS_SOURCE_CHECKS_H

#include "harness/frames.h"
#include "harness/harness.h"

/* What the frames' source checks counted. */
typedef struct shim_source_counts {
    uint64_t instrumented, plain, unmapped; /* checked, by kind of method */
    uint64_t instrumented_runtime_lines;    /* instrumented frames the runtime gave a line */
    uint64_t plain_caller, instrumented_caller; /* of them, our line is the call site's */
    uint64_t skipped_no_body, skipped_tiers, skipped_other;
    uint64_t skipped_no_line; /* neither a call-site line nor a runtime one */
} shim_source_counts;

/* One frame of the frames file (frames.h). */
void shim_check_frame_source(shim_harness *h, shim_profiler *p,
                             const shim_frame_modules *modules, const shim_frame *f,
                             shim_source_counts *c);

#endif
