/*
 * The profiler object and what its callbacks share.
 *
 * Global state: exactly one shim_profiler exists, a static in profiler.c.
 * The runtime creates one main profiler per process and talks to it only
 * through the COM pointer, but the class factory must hand out an object
 * that outlives every callback and the shim's own ReJIT thread, and the
 * runtime's Release calls give no reliable end of life; so the instance
 * is static, created once, and never freed. Everything else hangs off it.
 */
#ifndef SHIM_PROFILER_PROFILER_H
#define SHIM_PROFILER_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "com/callback.h"
#include "com/info.h"
#include "ilmap.h"
#include "platform/thread.h"
#include "profiler/elt.h"
#include "values/statics.h"
#include "profiler/hooks.h"
#include "profiler/registry.h"
#include "profiler/rejit_thread.h"
#include "select/selection.h"
#include "profiler/sources.h"
#include "profiler/version_store.h"

/* What the profiler did and did not do, for the hooks (the harness's
 * summary line prints them); guarded by the lock. */
typedef struct shim_counters {
    uint64_t modules_loaded, jit_started, jit_finished, rejit_requested, rejit_params,
        rejit_started, rejit_finished, rejit_errors, instrumented_bodies;
    uint64_t late_by_jit, late_by_cached_search, cached_searches;
    uint64_t bodies_read, bodies_extra; /* extra: a version's bodies after its first */
    /* in the version store besides each ReJIT version's first body: the
     * ReJIT versions' later bodies (tiers), the original code's bodies */
    uint64_t bodies_stored_extra, bodies_stored_original;
    /* what was not done (each kind logged once, see shim_note_dropped) */
    uint64_t methods_skipped_no_body, methods_refused, methods_dropped, bodies_dropped;
    /* ModuleUnloadStarted: modules seen, method records dropped with them,
     * store removals that failed (the module then stays in the store) */
    uint64_t modules_unloaded, methods_unloaded, unload_store_failures;
    size_t late_waiting; /* late methods whose first compilation is still to come */
} shim_counters;

struct shim_profiler {
    ICorProfilerCallback4 iface; /* first: the COM pointer is &iface */
    ICorProfilerInfo4 *info;
    int has_info5;
    int has_info9; /* GetILToNativeMapping3: maps of one native code version */
    ilmap_mutex lock; /* guards methods and counters; never held across runtime calls */
    int lock_ready;
    const shim_hooks *hooks; /* NULL: none */
    shim_selection selection;
    shim_registry registry;    /* the selected methods (registry.h), under lock */
    shim_rejit_worker rejit;
    shim_store store;  /* every ReJIT version and its native body (libilmap) */
    int elt_enabled;   /* ILMAP_SHIM_ELT=1 */
    shim_elt elt;      /* enter/leave hooks and libilmap's FunctionIDMapper */
    int args_enabled;  /* ILMAP_SHIM_ARGS names methods (the hooks are elt's, in argument mode) */
    shim_args args;
    /* ILMAP_SHIM_STATICS lists classes (reported at args' leaves; needs
     * ILMAP_SHIM_ARGS) */
    int statics_enabled;
    shim_statics statics;
    uint32_t wait_ms;
    uint32_t probe_every;
    int verbose;
    int initialized;
    int keep_tiering;  /* ILMAP_SHIM_KEEP_TIERING=1 */
    int any_late;      /* late selectors exist: cached searches are monitored */
    int any_jit_time;  /* a collectible module had selected methods (under lock) */
    int dropped_logged;
    shim_counters count;
};

/* The single instance, created on first use (see above). *ppv gets the
 * callback interface for riid, or NULL with E_NOINTERFACE. hooks (may be
 * NULL) must outlive the process's profiling. */
HRESULT shim_profiler_create(const IID *riid, void **ppv, const shim_hooks *hooks);

/* The callbacks profiler.c implements: the object, Initialize, Shutdown,
 * and ClassLoadFinished (static-field reports of generic classes,
 * statics.h). The other rooms' callbacks are in their own headers
 * (modules.h, rejit.h, unload.h); callbacks.h puts them all and the S_OK
 * stubs into the vtable. */
HRESULT CLR_STDCALL shim_cb_query_interface(ICorProfilerCallback4 *self, const IID *riid,
                                            void **ppv);
ULONG CLR_STDCALL shim_cb_add_ref(ICorProfilerCallback4 *self);
ULONG CLR_STDCALL shim_cb_release(ICorProfilerCallback4 *self);
HRESULT CLR_STDCALL shim_cb_initialize(ICorProfilerCallback4 *self, IUnknown *info);
HRESULT CLR_STDCALL shim_cb_shutdown(ICorProfilerCallback4 *self);
HRESULT CLR_STDCALL shim_cb_class_load_finished(ICorProfilerCallback4 *self, ClassID cls,
                                                HRESULT status);

/* The profiler behind a callback's `self`; NULL if it is not ours. */
shim_profiler *shim_profiler_of(ICorProfilerCallback4 *self);

/* The one instance once Initialize has succeeded, else NULL (for the
 * exported queries of progress.h, which have no `self`). */
shim_profiler *shim_profiler_instance(void);

/* Calls an optional hook: SHIM_HOOK(p, body_read, m, &note). */
#define SHIM_HOOK(p, hook, ...)                                                                \
    do {                                                                                       \
        if ((p)->hooks && (p)->hooks->hook)                                                    \
            (p)->hooks->hook((p)->hooks->ctx, (p), __VA_ARGS__);                               \
    } while (0)

/* The profiler lock (no-ops when it could not be created). */
void shim_lock(shim_profiler *p);
void shim_unlock(shim_profiler *p);

/* The selected method that `function` is, looked up with GetFunctionInfo
 * (outside the lock), returned with p->lock held; NULL, with the lock not
 * held, when the function is not a selected method or the runtime cannot
 * say which it is (logged with ILMAP_SHIM_VERBOSE). */
shim_method *shim_lock_function(shim_profiler *p, FunctionID function);

/* Logs the first refusal of each kind (a bit in p->dropped_logged) with
 * what it was about; the counts go into the summary. */
void shim_note_dropped(shim_profiler *p, int kind_bit, const char *what);

/* A number from the environment (C syntax: 10, 0x10), else fallback;
 * an unparsable one is logged and ignored. */
uint32_t shim_env_u32(const char *name, uint32_t fallback);

/* Method name for logs and the report (JSON-safe). */
const char *shim_method_name(const shim_profiler *p, const shim_method *m);

#endif
