/*
 * The runtime conformance harness: attached to the profiler through its
 * hooks (profiler/hooks.h), it checks what the real runtime reports, and
 * libilmap, against each other, and writes every check, event and the
 * summary to the JSON-lines report (doc/shim.md#report). It reads the
 * switches that serve only it: ILMAP_SHIM_REPORT, ILMAP_SHIM_FRAMES,
 * ILMAP_SHIM_TWINS and ILMAP_SHIM_PROBE_EVERY.
 */
#ifndef SHIM_HARNESS_HARNESS_H
#define SHIM_HARNESS_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "harness/report.h"
#include "profiler/profiler.h"

/* The harness's hooks, one static instance per process. */
const shim_hooks *shim_harness_hooks(void);

/* One compiled version of an instrumented method as the harness keeps it
 * for (b) and (c): its first native body. Allocated one by one and never
 * moved, so a pointer to it stays valid after the lock is dropped. */
typedef struct shim_version {
    FunctionID function;
    ReJITID rejit;
    UINT_PTR code_start;
    uint32_t code_size;             /* hot + cold */
    COR_PRF_CODE_INFO *ranges;      /* hot, then cold */
    uint32_t range_count;
    ilmap_native_entry *exported;   /* the runtime's map, runtime order */
    uint32_t exported_count;
} shim_version;

/* The harness's data of one method (shim_method.observer). */
typedef struct shim_harness_method {
    uint32_t *new_starts;      /* instruction starts of the new body, for (a) of the unmapped twin */
    size_t new_start_count;
    shim_version **versions;   /* grows; the records do not move */
    size_t version_count, version_cap;
    int twin_checked;
} shim_harness_method;

#define SHIM_TIER_SLOTS 8 /* body numbers 0..6, the last slot for 7 and later */

typedef struct shim_harness {
    shim_report report;
    /* stored bodies whose lookups were checked, by body number: of the
     * original code (ReJITID 0), of ReJIT versions (under the report lock) */
    uint64_t tier_original[SHIM_TIER_SLOTS], tier_rejit[SHIM_TIER_SLOTS];
    char *frames_path;
    uint64_t versions_dropped;
    int dropped_logged;
} shim_harness;

/* m's data, created on first use (NULL when memory runs out); the caller
 * holds the profiler lock. */
shim_harness_method *shim_harness_method_of(shim_method *m);

#endif
