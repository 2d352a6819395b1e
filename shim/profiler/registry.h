/*
 * The selected methods: one record per (module, methodDef), how it is
 * instrumented (its kind, fixed when it is registered) and where it is in
 * its life (shim_life, which moves forward under the profiler lock), the
 * native bodies read of it, and an index by (module, token).
 *
 * Records are allocated one by one and never move: callbacks keep a
 * pointer across unlock. A record is freed only when its module unloads
 * (unload.c): by then the runtime runs, compiles and rejits nothing of
 * that module any more, so no callback about it can hold the pointer.
 * Every function here expects the caller to hold the profiler lock.
 */
#ifndef SHIM_PROFILER_REGISTRY_H
#define SHIM_PROFILER_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap.h"
#include "ilmap-il.h"

/* How a selected method gets its new body; fixed at registration. */
typedef enum shim_kind {
    SHIM_KIND_REJIT,    /* ReJIT requested when its module loads */
    SHIM_KIND_LATE,     /* ReJIT requested after its first compilation */
    /* in a collectible module, which the runtime never rejits: the new
     * body and map are given at JITCompilationStarted (jit_instrument.c) */
    SHIM_KIND_JIT_TIME,
    SHIM_KIND_OBSERVE   /* ILMAP_SHIM_OBSERVE: bodies recorded, never instrumented */
} shim_kind;

/* Where a selected method is in its life. Each step only moves forward:
 * WAITING -> REQUESTED -> INSTRUMENTED or REFUSED; OBSERVED stays. */
typedef enum shim_life {
    SHIM_LIFE_WAITING,      /* late: its first compilation has not come; at JIT time: its
                               JIT has not started */
    SHIM_LIFE_REQUESTED,    /* ReJIT requested, or (at JIT time) a thread is
                               instrumenting it; no new body taken yet */
    SHIM_LIFE_INSTRUMENTED, /* the runtime took its new body (and map) */
    SHIM_LIFE_REFUSED,      /* the rewriter refused its IL: it runs its original code */
    SHIM_LIFE_OBSERVED      /* SHIM_KIND_OBSERVE: never instrumented */
} shim_life;

/* A native body (code start) already read: with tiering kept one
 * (FunctionID, ReJITID) has one body per tier. */
typedef struct shim_body {
    FunctionID function;
    ReJITID rejit;
    UINT_PTR code_start;
    int stored; /* the version's first body, read whole and handed to the store */
    int in_store; /* the store took it (ILMAP_OK): removed with the module */
} shim_body;

typedef struct shim_method shim_method;

/* One selected method: (module, methodDef) as ReJIT identifies it. */
struct shim_method {
    ModuleID module;
    mdMethodDef token;
    size_t selector;           /* index in profiler.selection.items */
    int role;                  /* enum shim_role: the unmapped twin gets no COR_IL_MAP */
    uint32_t probe_token;      /* 0: nop probe */
    char name[320];            /* "Ns.Type::Method", JSON-safe */
    shim_kind kind;
    shim_life life;
    int il_map_stored;         /* its map is the store's IL-level map for (module, token) */
    ilmap *map;                /* the map built for the new body; set with INSTRUMENTED */
    /* Appended as bodies are read, under the lock. */
    shim_body *bodies;
    size_t body_count, body_cap;
    void *observer;            /* the hooks' own per-method data (hooks.h); NULL without */
    /* ILMAP_SHIM_WRAP (wrap.h): set when the module loads, before any
     * ReJIT request; read-only afterwards. */
    int wrap;
    const char *wrap_refused;  /* static reason it is not wrapped, or NULL */
    int wrap_failed;           /* the refusal is the shim's failure, not the method's */
    ilmap_il_wrap_spec wrap_spec;
};

/* The records and their index. */
typedef struct shim_registry {
    shim_method **methods;     /* grows; the records do not move */
    size_t count, cap;
    size_t *index;             /* open addressing on (module, token): position + 1, 0 empty */
    size_t index_cap;          /* power of two, or 0 */
} shim_registry;

/* The record of (module, token), or NULL. */
shim_method *shim_registry_find(const shim_registry *r, ModuleID module, mdMethodDef token);

/* The i-th record, NULL past the end. */
shim_method *shim_registry_at(const shim_registry *r, size_t i);

/* A new zeroed record for (module, token), indexed; NULL when memory
 * runs out. The caller fills in the rest. */
shim_method *shim_registry_add(shim_registry *r, ModuleID module, mdMethodDef token);

/* Takes every record of module out (list and index) and returns them in
 * *out, a malloc'ed array of *count (NULL when there are none). Returns
 * non-zero when memory ran out: then nothing was taken out. The caller
 * frees each record with shim_method_free. */
int shim_registry_unlink_module(shim_registry *r, ModuleID module, shim_method ***out,
                                size_t *count);

/* Frees a record taken out by shim_registry_unlink_module (not its
 * observer data, which belongs to the hooks). */
void shim_method_free(shim_method *m);

#endif
