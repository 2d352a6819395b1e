/*
 * Enter/leave hooks with libilmap's FunctionIDMapper (ILMAP_SHIM_ELT=1).
 *
 * The runtime calls a FunctionIDMapper only when enter/leave monitoring
 * is on, so this part turns it on the way a plain-C profiler can: the
 * slow-path hooks (SetEnterLeaveFunctionHooks3WithInfo, which needs
 * COR_PRF_ENABLE_FRAME_INFO besides COR_PRF_MONITOR_ENTERLEAVE). The
 * mapper is libilmap's ilmap_fid_mapper: its filter hooks the functions of
 * the modules the selection named (shim_elt_watch_module), and it hands
 * each hooked function a dense client ID, which the hooks use to count
 * calls in plain arrays, lock-free. The counters are public: an observer
 * can read them (the harness checks them against the mapper's answers at
 * shutdown, harness/elt_checks.c).
 *
 * The hooks are the platform's fast-path stubs (platform/elt_hooks.h),
 * which count into the same arrays themselves, through the table
 * shim_elt_start fills: the runtime's slow-path helper does not preserve
 * whole vector registers and would corrupt the application
 * (shim/FINDINGS.md, "ELT slow path"). On a platform without stubs the
 * shim runs without hooks.
 *
 * One shim_elt per process (the hooks receive no context pointer, so
 * they find it through a static); it is never freed, because the runtime
 * may call the hooks and the mapper until the process ends.
 */
#ifndef SHIM_PROFILER_ELT_H
#define SHIM_PROFILER_ELT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "com/info.h"
#include "ilmap-versions.h"
#include "values/args.h"

#define SHIM_ELT_DEFAULT_FUNCTIONS 65536u

/* A watched module; a list that only grows (see shim_elt_watch_module);
 * an unloaded module's entry is cleared to 0, never unlinked. */
typedef struct shim_elt_module {
    atomic_uintptr_t module;
    struct shim_elt_module *next;
} shim_elt_module;

typedef struct shim_elt {
    ICorProfilerInfo4 *info;
    /* Argument mode (ILMAP_SHIM_ARGS, args.h): set before shim_elt_start,
     * the mapper hooks only args' methods and the hooks are the slow-path
     * ones in C (they count too); NULL: counting mode, fast-path stubs. */
    shim_args *args;
    /* Floor mode (ILMAP_SHIM_ELT_FLOOR=1), set before shim_elt_start: the
     * hooks handed to the runtime only return (platform/elt_hooks.h), so
     * a run measures what calling hooks costs the runtime itself; the
     * mapper and its filter are the same, nothing is counted. */
    int floor;
    ilmap_fid_mapper *mapper;
    size_t capacity; /* distinct FunctionIDs the mapper takes; client IDs are 1..capacity */
    /* Indexed by client ID (entry 0 unused). */
    atomic_uint_least64_t *enters, *leaves, *tailcalls;
    atomic_uint_least64_t *map_calls;  /* mapper calls that answered this ID */
    atomic_uintptr_t *function_of;     /* the FunctionID it was first answered for */
    /* The modules whose functions are hooked. */
    _Atomic(shim_elt_module *) modules;
    atomic_size_t modules_watched, modules_refused;
    /* Mapper calls as the shim's wrapper saw them. */
    atomic_uint_least64_t mapper_calls, unhooked_calls, repeated_calls, id_mismatches,
        bad_ids;
    /* The filter's decisions (first sight of a FunctionID). */
    atomic_uint_least64_t filter_calls, filter_hooked, filter_no_info;
    /* Hook calls with an ID the mapper cannot have handed out. */
    atomic_uint_least64_t unknown_ids;
    HRESULT hr_hooks, hr_mapper;
    int started;
    /* How shim_elt_start ended, for an observer. */
    int setup;                 /* enum shim_elt_setup */
    ilmap_status mapper_status; /* ilmap_fid_mapper_create */
    const char *saves;          /* the stubs' way of saving vector state */
} shim_elt;

enum shim_elt_setup {
    SHIM_ELT_SETUP_NONE = 0,    /* not tried, or refused (bad arguments, second start) */
    SHIM_ELT_SETUP_NO_STUBS,    /* no fast-path stubs for this platform */
    SHIM_ELT_SETUP_NO_MAPPER,   /* the mapper or the counters could not be created */
    SHIM_ELT_SETUP_SET          /* handed to the runtime: see hr_hooks, hr_mapper */
};

/* The event-mask bits the hooks need; SetEventMask must have them before
 * shim_elt_start (doc/profiling-abi.md#elt-abi). args: argument mode. */
DWORD shim_elt_event_mask(int args);

/* Whether this ABI has fast-path hook stubs (platform/elt_hooks.h). Ask
 * before the event mask: without stubs the hooks are refused, and the
 * mask must not ask the runtime for enter/leave monitoring (it would JIT
 * every method, ReadyToRun code included, for hooks that never come). */
int shim_elt_stubs_available(void);

/*
 * In Initialize, after SetEventMask: creates the mapper for max_functions
 * (0: SHIM_ELT_DEFAULT_FUNCTIONS) and the counters, sets the hooks and
 * the mapper; e->setup says how far it got. Returns 0 when both are set;
 * otherwise logs and returns non-zero, and the run goes on without them.
 * Only one shim_elt may be started per process.
 */
int shim_elt_start(shim_elt *e, ICorProfilerInfo4 *info, size_t max_functions);

/* Counts a hook call of kind (enum shim_elt_kind) with client ID id by
 * the stubs' rule (platform/elt_hooks.h), in C: argument mode's
 * slow-path hooks count this way. */
void shim_elt_count(uintptr_t id, int kind);

/* Is module watched (its functions hooked)? */
int shim_elt_watched(shim_elt *e, ModuleID module);

/* Hooks the functions of module from now on (call it in
 * ModuleLoadFinished, before any of them is JIT-compiled). */
void shim_elt_watch_module(shim_elt *e, ModuleID module);

/* ModuleUnloadStarted: module is not watched any more (its ModuleID can
 * be reused by a module loaded later). Functions already mapped keep
 * their answer: libilmap's mapper has no removal. */
void shim_elt_unwatch_module(shim_elt *e, ModuleID module);

#endif
