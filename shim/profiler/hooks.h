/*
 * The profiler's one door to an observer such as the conformance harness
 * (shim/harness/): a struct of optional functions the profiler calls at
 * defined points with what it has just done. Any pointer may be NULL, and
 * so may the whole struct: the profiler does the same work either way.
 *
 * Hooks run on the thread of the callback that calls them, without the
 * profiler lock held (take it with shim_lock to read method records).
 * They may call the runtime through p->info. The records they receive
 * stay valid after the hook returns, the notes only during the call.
 */
#ifndef SHIM_PROFILER_HOOKS_H
#define SHIM_PROFILER_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap.h"
#include "ilmap-versions.h"
#include "profiler/instrument.h"
#include "profiler/registry.h"
#include "profiler/runtime_read.h"

typedef struct shim_profiler shim_profiler;

/* Settings an observer may supply in Initialize, before the profiler
 * reads its own from the environment. */
typedef struct shim_settings {
    const char *twins;    /* twin pairs for the selection (selection.h); NULL: none */
    uint32_t probe_every; /* preset to the profiler's default (shim_probe.every) */
} shim_settings;

/* The end of Initialize. */
typedef struct shim_init_note {
    HRESULT hr_mask;      /* SetEventMask; a failure means the profiler is off */
    DWORD mask;
    HRESULT hr_high;      /* SetEventMask2 (tiering off); E_NOTIMPL when not called */
    int rejit_thread_failed;
} shim_init_note;

/* One RequestReJIT made: a module's batch, or one late method. */
typedef struct shim_request_note {
    const char *module;        /* batch: the module's name, JSON-safe */
    const shim_method *method; /* late: the method, else NULL */
    FunctionID function;       /* late: the function whose compilation triggered it */
    const char *trigger;       /* late: "jit" or "cached_search" */
    size_t count;              /* methods requested */
    HRESULT hr;                /* S_FALSE: not made within wait_ms (it still will be) */
    uint32_t wait_ms;
} shim_request_note;

/* GetReJITParameters for one of the profiler's methods: how far it got. */
typedef struct shim_params_note {
    HRESULT hr_il;                 /* GetILFunctionBody */
    ULONG il_size;
    const char *refused;           /* the rewriter's reason when it refused, else NULL */
    const shim_instrumented *inst; /* the new body and its map (NULL: none) */
    HRESULT hr_body;               /* SetILFunctionBody */
    int map_checked;               /* ilmap_create ran on the rewriter's map */
    ilmap_status map_status;
    int map_tried;                 /* SetILInstrumentedCodeMap was called */
    HRESULT hr_map;
    int recorded;                  /* this call made the method instrumented */
} shim_params_note;

/* One native body of a ReJIT version, read in ReJITCompilationFinished:
 * its code ranges and its IL-to-native map, read by code start. */
typedef struct shim_body_note {
    ModuleID module;
    mdMethodDef token;
    FunctionID function;
    ReJITID rejit;
    int first;                     /* the version's first body (the one stored) */
    unsigned index;                /* its number among the version's bodies */
    HRESULT hr_code;               /* GetCodeInfo3 (first body) or GetCodeInfo4 */
    const COR_PRF_CODE_INFO *ranges;
    ULONG32 range_count;
    uint64_t code_size;            /* hot + cold */
    int code_ok;                   /* ranges usable: the map was read */
    shim_map_source source;        /* how the map was read */
    shim_map_read map;             /* the two calls and their result */
    const ilmap_native_entry *exported; /* map.total entries (NULL: not read) */
    int stored;                    /* first body: shim_store_add was called */
    ilmap_status store_status;
} shim_body_note;

/* ModuleUnloadStarted, after the module left the version store and the
 * registry. The records in methods are freed when the hook returns: an
 * observer frees its per-method data (shim_method.observer) here. */
typedef struct shim_unload_note {
    ModuleID module;
    const char *name;              /* JSON-safe; "" when unknown */
    ilmap_status status;           /* ilmap_store_remove_module (INVALID_ARG: no store) */
    ilmap_store_removed removed;   /* what the store took out */
    ilmap_store_stats before, after; /* the store's counters around the removal */
    shim_method *const *methods;   /* the module's records, out of the registry */
    size_t method_count;
    size_t requests_dropped;       /* pending ReJIT requests for it, never made */
} shim_unload_note;

typedef struct shim_hooks {
    void *ctx; /* passed back as every hook's first argument */
    void (*configure)(void *ctx, shim_profiler *p, shim_settings *s);
    void (*initialized)(void *ctx, shim_profiler *p, const shim_init_note *n);
    void (*rejit_requested)(void *ctx, shim_profiler *p, const shim_request_note *n);
    void (*rejit_parameters)(void *ctx, shim_profiler *p, shim_method *m,
                             const shim_params_note *n);
    /* ReJITCompilationFinished for one of the profiler's methods, before
     * its bodies are read. */
    void (*rejit_finished)(void *ctx, shim_profiler *p, shim_method *m, FunctionID function,
                           ReJITID rejit, HRESULT status);
    /* ReJITError; m NULL when the method is not the profiler's. */
    void (*rejit_error)(void *ctx, shim_profiler *p, shim_method *m, mdMethodDef token,
                        FunctionID function, HRESULT status);
    void (*body_read)(void *ctx, shim_profiler *p, shim_method *m, const shim_body_note *n);
    /* Shutdown, after the ReJIT thread stopped. */
    void (*shutdown)(void *ctx, shim_profiler *p);
    void (*module_unloaded)(void *ctx, shim_profiler *p, const shim_unload_note *n);
    /* One {"type":"args",...} report line (a whole JSON object, no
     * newline), at the leave of a call of an ILMAP_SHIM_ARGS method, on
     * that thread, inside the runtime's enter/leave hook. */
    void (*args_line)(void *ctx, shim_profiler *p, const char *line);
} shim_hooks;

#endif
