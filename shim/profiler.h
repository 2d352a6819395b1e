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
#ifndef SHIM_PROFILER_H
#define SHIM_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "com/callback.h"
#include "com/info.h"
#include "elt.h"
#include "ilmap.h"
#include "platform/thread.h"
#include "rejit_thread.h"
#include "report.h"
#include "selection.h"
#include "version_store.h"

#define SHIM_NO_TWIN ((size_t)-1)

/* One native code version of an instrumented method, as the runtime
 * reported it after ReJITCompilationFinished (its first native body).
 * Allocated one by one and never moved, so a pointer to it stays valid
 * after the lock is dropped. */
typedef struct shim_version {
    FunctionID function;
    ReJITID rejit;
    UINT_PTR code_start;
    uint32_t code_size;             /* hot + cold */
    COR_PRF_CODE_INFO *ranges;      /* GetCodeInfo3: hot, then cold */
    uint32_t range_count;
    ilmap_native_entry *exported;   /* GetILToNativeMapping3/2, runtime order */
    uint32_t exported_count;
} shim_version;

/* A native body (code start) whose map was checked: with tiering kept one
 * (FunctionID, ReJITID) has one body per tier. */
typedef struct shim_body {
    FunctionID function;
    ReJITID rejit;
    UINT_PTR code_start;
} shim_body;

/* One selected method: (module, methodDef) as ReJIT identifies it.
 * Allocated one by one and never moved or freed while the process runs:
 * callbacks keep a pointer across unlock. */
typedef struct shim_method {
    ModuleID module;
    mdMethodDef token;
    size_t selector;           /* index in profiler.selection.items */
    int role;                  /* enum shim_role */
    size_t twin;               /* index in methods, SHIM_NO_TWIN */
    uint32_t probe_token;      /* 0: nop probe */
    char name[320];            /* "Ns.Type::Method", JSON-safe, for the report */
    int late;                  /* ReJIT only after the first JIT compilation */
    int requested;             /* ReJIT requested */
    /* Set once, in GetReJITParameters, then read-only. */
    int instrumented;
    int refused;               /* the instrumenter refused its IL (instrument_refused) */
    ilmap *map;                /* the map built for the new body */
    uint32_t *new_starts;      /* instruction starts of the new body */
    size_t new_start_count;
    /* Appended in ReJITCompilationFinished (under the lock; the array
     * grows, the records it points to do not move). */
    shim_version **versions;
    size_t version_count, version_cap;
    shim_body *bodies;         /* code starts already checked (copied out) */
    size_t body_count, body_cap;
    int twin_checked;
} shim_method;

typedef struct shim_profiler {
    ICorProfilerCallback4 iface; /* first: the COM pointer is &iface */
    ICorProfilerInfo4 *info;
    int has_info5;
    int has_info9; /* GetILToNativeMapping3: maps of one native code version */
    shim_mutex lock; /* guards methods and counters; never held across runtime calls */
    int lock_ready;
    shim_selection selection;
    shim_method **methods;     /* grows; the records do not move */
    size_t method_count, method_cap;
    size_t *method_index;      /* open addressing on (module, token): index + 1, 0 empty */
    size_t index_cap;          /* power of two, or 0 */
    shim_rejit_worker rejit;
    shim_report report;
    shim_store store;  /* every ReJIT version and its native body (libilmap) */
    int elt_enabled;   /* ILMAP_SHIM_ELT=1 */
    shim_elt elt;      /* enter/leave hooks and libilmap's FunctionIDMapper */
    char *frames_path;
    uint32_t wait_ms;
    uint32_t probe_every;
    int verbose;
    int initialized;
    /* counters for the summary line */
    size_t late_waiting; /* late methods whose first JIT compilation is still to come */
    int keep_tiering;  /* ILMAP_SHIM_KEEP_TIERING=1 */
    int any_late;      /* late selectors exist: cached searches are monitored */
    /* what was not done, with a count (each kind logged once) */
    uint64_t methods_skipped_no_body, methods_refused, methods_dropped, versions_dropped,
        bodies_dropped, late_by_jit, late_by_cached_search, cached_searches, bodies_checked,
        bodies_extra;
    int dropped_logged;
    uint64_t modules_loaded, jit_started, jit_finished, rejit_requested, rejit_params,
        rejit_started, rejit_finished, rejit_errors, instrumented_bodies;
} shim_profiler;

/* The single instance, created on first use (see above). *ppv gets the
 * callback interface for riid, or NULL with E_NOINTERFACE. */
HRESULT shim_profiler_create(const IID *riid, void **ppv);

/* The callbacks with real bodies (profiler.c); callbacks.c puts them and
 * the S_OK stubs into the vtable. */
HRESULT CLR_STDCALL shim_cb_query_interface(ICorProfilerCallback4 *self, const IID *riid,
                                            void **ppv);
ULONG CLR_STDCALL shim_cb_add_ref(ICorProfilerCallback4 *self);
ULONG CLR_STDCALL shim_cb_release(ICorProfilerCallback4 *self);
HRESULT CLR_STDCALL shim_cb_initialize(ICorProfilerCallback4 *self, IUnknown *info);
HRESULT CLR_STDCALL shim_cb_shutdown(ICorProfilerCallback4 *self);
HRESULT CLR_STDCALL shim_cb_module_load_finished(ICorProfilerCallback4 *self, ModuleID module,
                                                 HRESULT status);
HRESULT CLR_STDCALL shim_cb_jit_started(ICorProfilerCallback4 *self, FunctionID function,
                                        BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                         HRESULT status, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_cache_search_started(ICorProfilerCallback4 *self,
                                                 FunctionID function, BOOL *use_cached);
HRESULT CLR_STDCALL shim_cb_cache_search_finished(ICorProfilerCallback4 *self,
                                                  FunctionID function, COR_PRF_JIT_CACHE result);
HRESULT CLR_STDCALL shim_cb_rejit_started(ICorProfilerCallback4 *self, FunctionID function,
                                          ReJITID rejit, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_get_rejit_parameters(ICorProfilerCallback4 *self, ModuleID module,
                                                 mdMethodDef token,
                                                 ICorProfilerFunctionControl *control);
HRESULT CLR_STDCALL shim_cb_rejit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                           ReJITID rejit, HRESULT status, BOOL safe_to_block);
HRESULT CLR_STDCALL shim_cb_rejit_error(ICorProfilerCallback4 *self, ModuleID module,
                                        mdMethodDef token, FunctionID function, HRESULT status);

/* The vtable (callbacks.c): every slot filled, built on first use. */
const ICorProfilerCallback4Vtbl *shim_callback_vtbl(void);

/* Registry helpers (profiler.c); the caller holds p->lock. */
shim_method *shim_find_method(shim_profiler *p, ModuleID module, mdMethodDef token);

/* The i-th method (NULL past the end); the caller holds p->lock. */
shim_method *shim_method_at(shim_profiler *p, size_t i);

/* Logs the first refusal of each kind (a bit in p->dropped_logged) with
 * what it was about; the counts go into the summary. */
void shim_note_dropped(shim_profiler *p, int kind_bit, const char *what);

/* Method name for the report (JSON-safe; static storage in selection). */
const char *shim_method_name(const shim_profiler *p, const shim_method *m);

#endif
