/*
 * The profiler object: creation, QueryInterface, Initialize and Shutdown.
 * modules.c selects methods as modules load; rejit.c runs the ReJIT
 * sequence. Rules kept everywhere: check every argument, never fail in a
 * way that takes the process down, log with the "[ilmap-shim]" prefix and
 * carry on. What an observer wants to know goes through the hooks
 * (hooks.h); nothing here depends on one being attached.
 */
#include "profiler/profiler.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "profiler/callbacks.h"
#include "com/guids.h"
#include "values/classes.h"
#include "base/log.h"

#define SHIM_DEFAULT_WAIT_MS 10000u
#define SHIM_DEFAULT_PROBE_EVERY 3u

/* The one instance; see profiler.h for why it is static. */
static shim_profiler the_profiler;
static atomic_flag the_profiler_created = ATOMIC_FLAG_INIT;
static atomic_uint the_profiler_refs;
/* Set once Initialize has succeeded: from then on the instance's lock,
 * registry and ReJIT thread exist (shim_profiler_instance). */
static atomic_int the_profiler_ready;

shim_profiler *shim_profiler_of(ICorProfilerCallback4 *self)
{
    return self == &the_profiler.iface ? &the_profiler : NULL;
}

shim_profiler *shim_profiler_instance(void)
{
    return atomic_load(&the_profiler_ready) ? &the_profiler : NULL;
}

static int is_callback_iid(const IID *riid)
{
    return shim_guid_equal(riid, &IID_IUnknown) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback2) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback3) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback4);
}

HRESULT shim_profiler_create(const IID *riid, void **ppv, const shim_hooks *hooks)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!riid)
        return E_INVALIDARG;
    if (!is_callback_iid(riid))
        return E_NOINTERFACE;
    /* A second main profiler in one process is not a thing the runtime
     * does; refusing keeps the single instance's state consistent. */
    if (atomic_flag_test_and_set(&the_profiler_created)) {
        shim_log("CreateInstance called twice; refusing the second profiler");
        return CORPROF_E_PROFILER_ALREADY_ACTIVE;
    }
    the_profiler.iface.lpVtbl = shim_callback_vtbl();
    the_profiler.hooks = hooks;
    atomic_store(&the_profiler_refs, 1);
    *ppv = &the_profiler.iface;
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_query_interface(ICorProfilerCallback4 *self, const IID *riid,
                                            void **ppv)
{
    if (!ppv)
        return E_POINTER;
    *ppv = NULL;
    if (!shim_profiler_of(self) || !riid)
        return E_INVALIDARG;
    /* Callback5..11 (and anything else) are refused: the runtime then
     * settles on Callback4 (doc/profiling-abi.md#loading). */
    if (!is_callback_iid(riid))
        return E_NOINTERFACE;
    atomic_fetch_add(&the_profiler_refs, 1);
    *ppv = self;
    return S_OK;
}

/* Counted for COM's sake only; the static instance is never freed. */
ULONG CLR_STDCALL shim_cb_add_ref(ICorProfilerCallback4 *self)
{
    if (!shim_profiler_of(self))
        return 0;
    return (ULONG)atomic_fetch_add(&the_profiler_refs, 1) + 1;
}

ULONG CLR_STDCALL shim_cb_release(ICorProfilerCallback4 *self)
{
    if (!shim_profiler_of(self))
        return 0;
    unsigned old = atomic_load(&the_profiler_refs);
    while (old > 0 && !atomic_compare_exchange_weak(&the_profiler_refs, &old, old - 1)) {
    }
    return old > 0 ? (ULONG)(old - 1) : 0;
}

const char *shim_method_name(const shim_profiler *p, const shim_method *m)
{
    if (!p || !m)
        return "?";
    if (m->name[0])
        return m->name;
    if (m->selector >= p->selection.count)
        return "?";
    return p->selection.items[m->selector].json_name;
}

void shim_note_dropped(shim_profiler *p, int kind_bit, const char *what)
{
    if (!p || (p->dropped_logged & kind_bit))
        return;
    p->dropped_logged |= kind_bit;
    shim_log("out of memory: %s (logged once; the summary has the count)", what ? what : "?");
}

void shim_lock(shim_profiler *p)
{
    if (p->lock_ready)
        ilmap_mutex_lock(&p->lock);
}

void shim_unlock(shim_profiler *p)
{
    if (p->lock_ready)
        ilmap_mutex_unlock(&p->lock);
}

shim_method *shim_lock_function(shim_profiler *p, FunctionID function)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    HRESULT hr = p->info->lpVtbl->GetFunctionInfo(p->info, function, &cls, &module, &token);
    if (FAILED(hr)) {
        if (p->verbose)
            shim_log("GetFunctionInfo(0x%" PRIxPTR ") failed: 0x%08X", (uintptr_t)function,
                     (unsigned)hr);
        return NULL;
    }
    shim_lock(p);
    shim_method *m = shim_registry_find(&p->registry, module, token);
    if (!m)
        shim_unlock(p);
    return m;
}

uint32_t shim_env_u32(const char *name, uint32_t fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    /* Decimal, or 0x hex; nothing else (no sign, no blanks, no octal),
     * and nothing past 32 bits: strtoul would take "-5" as a huge number
     * where long has 32 bits. */
    int hex = v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && v[2] != '\0';
    uint64_t n = 0;
    int ok = 1;
    for (const char *c = hex ? v + 2 : v; *c && ok; c++) {
        int d = *c >= '0' && *c <= '9'             ? *c - '0'
                : hex && *c >= 'a' && *c <= 'f'    ? *c - 'a' + 10
                : hex && *c >= 'A' && *c <= 'F'    ? *c - 'A' + 10
                                                   : -1;
        ok = d >= 0;
        n = n * (hex ? 16u : 10u) + (uint64_t)(d < 0 ? 0 : d);
        ok = ok && n <= 0xFFFFFFFFu;
    }
    if (!ok) {
        shim_log("ignoring %s=%s (want a whole number from 0 to 4294967295, decimal or 0x "
                 "hex); using %u", name, v, (unsigned)fallback);
        return fallback;
    }
    return (uint32_t)n;
}

/* Info5 and Info9 are the same object with more slots: only the knowledge
 * that they exist is new. The extra reference is dropped at once; the
 * runtime owns the object's lifetime (its AddRef/Release are no-ops). */
static int has_interface(IUnknown *unk, const IID *iid, const char *name, const char *without)
{
    void *obj = NULL;
    HRESULT hr = unk->lpVtbl->QueryInterface(unk, iid, &obj);
    if (FAILED(hr) || !obj) {
        shim_log("the runtime has no %s (0x%08X): %s", name, (unsigned)hr, without);
        return 0;
    }
    ((ICorProfilerInfo4 *)obj)->lpVtbl->Release(obj);
    return 1;
}

/* An args report line, handed to the observer. */
static void emit_args_line(void *ctx, const char *line)
{
    shim_profiler *p = ctx;
    SHIM_HOOK(p, args_line, line);
}

HRESULT CLR_STDCALL shim_cb_initialize(ICorProfilerCallback4 *self, IUnknown *info_unk)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !info_unk) {
        shim_log("Initialize: bad arguments");
        return E_INVALIDARG;
    }
    if (p->initialized)
        return S_OK;

    void *info = NULL;
    HRESULT hr = info_unk->lpVtbl->QueryInterface(info_unk, &IID_ICorProfilerInfo4, &info);
    if (FAILED(hr) || !info) {
        shim_log("Initialize: the runtime has no ICorProfilerInfo4 (0x%08X); not profiling",
                 (unsigned)hr);
        return E_FAIL;
    }
    p->info = info;
    p->has_info5 = has_interface(info_unk, &IID_ICorProfilerInfo5, "ICorProfilerInfo5",
                                 "tiered compilation stays on");
    p->has_info9 = has_interface(info_unk, &IID_ICorProfilerInfo9, "ICorProfilerInfo9",
                                 "bodies are not read by their code start (GetILToNativeMapping3)");

    p->lock_ready = ilmap_mutex_init(&p->lock) == 0;
    shim_settings settings = {NULL, SHIM_DEFAULT_PROBE_EVERY};
    SHIM_HOOK(p, configure, &settings);
    p->verbose = shim_env_u32("ILMAP_SHIM_VERBOSE", 0) != 0;
    p->wait_ms = shim_env_u32("ILMAP_SHIM_WAIT_MS", SHIM_DEFAULT_WAIT_MS);
    p->probe_every = settings.probe_every;
    if (shim_selection_parse(getenv("ILMAP_SHIM_METHODS"), settings.twins,
                             getenv("ILMAP_SHIM_LATE"), getenv("ILMAP_SHIM_PROBE"),
                             &p->selection)) {
        memset(&p->selection, 0, sizeof p->selection);
    }
    /* Wrapped methods, then observed ones: a method also selected above
     * keeps the first selector that names it (resolve.c). */
    if (shim_selection_add_wrapped(&p->selection, getenv("ILMAP_SHIM_WRAP"),
                                   getenv("ILMAP_SHIM_WRAP_LATE"),
                                   getenv("ILMAP_SHIM_WRAP_HOOKS")))
        shim_log("ILMAP_SHIM_WRAP ignored from where memory ran out");
    if (shim_selection_add_observed(&p->selection, getenv("ILMAP_SHIM_OBSERVE")))
        shim_log("ILMAP_SHIM_OBSERVE ignored from where memory ran out");
    for (size_t i = 0; i < p->selection.count; i++)
        p->any_late |= p->selection.items[i].late;
    p->keep_tiering = shim_env_u32("ILMAP_SHIM_KEEP_TIERING", 0) != 0;

    /* JIT and module events drive the selection; ENABLE_REJIT must be in
     * the mask for RequestReJIT; DISABLE_INLINING because a caller that
     * inlined a method before it was rejitted would keep running the old
     * body (doc/rejit.md#inlining). Ignoring R2R code
     * (DISABLE_ALL_NGEN_IMAGES) is not needed for ReJIT in CoreCLR and
     * costs startup time: opt-in. */
    shim_init_note note = {S_OK, 0, E_NOTIMPL, 0};
    DWORD mask = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS |
                 COR_PRF_ENABLE_REJIT | COR_PRF_DISABLE_INLINING;
    /* Late methods in ReadyToRun code are never JIT-compiled: their
     * trigger is the runtime finding their precompiled code. */
    if (p->any_late)
        mask |= COR_PRF_MONITOR_CACHE_SEARCHES;
    if (shim_env_u32("ILMAP_SHIM_DISABLE_NGEN", 0))
        mask |= COR_PRF_DISABLE_ALL_NGEN_IMAGES;
    /* Enter/leave hooks, only on request: they make the runtime JIT every
     * method (ReadyToRun code has no hooks) and call the hooks on every
     * call of a hooked function. */
    p->elt_enabled = shim_env_u32("ILMAP_SHIM_ELT", 0) != 0;
    /* Floor mode: the same hooks, mapper and filter, but hooks that only
     * return (elt.h): what bench/overhead.py measures the stubs against. */
    p->elt.floor = p->elt_enabled && shim_env_u32("ILMAP_SHIM_ELT_FLOOR", 0) != 0;
    /* Argument reports use the same hooks and mapper in argument mode
     * (slow path, only the named methods hooked): the two exclude each
     * other, because the event mask chooses one path for every hook. */
    p->args_enabled = shim_args_init(&p->args, getenv("ILMAP_SHIM_ARGS"),
                                     shim_env_u32("ILMAP_SHIM_ARGS_MAX", 0)) == 0;
    p->statics_enabled = shim_statics_init(&p->statics, getenv("ILMAP_SHIM_STATICS")) == 0;
    if (p->statics_enabled && !p->args_enabled) {
        shim_log("ILMAP_SHIM_STATICS is set without ILMAP_SHIM_ARGS: static fields are reported "
                 "at the leaves of argument reports; none");
        p->statics_enabled = 0;
    }
    if (p->args_enabled && p->elt_enabled) {
        shim_log("ILMAP_SHIM_ARGS is set: ILMAP_SHIM_ELT ignored (one kind of hook per process)");
        p->elt_enabled = 0;
    }
    /* A mode the shim refuses leaves the runtime as it was: without this
     * ABI's fast-path stubs, no enter/leave monitoring at all. */
    if (p->elt_enabled && !shim_elt_stubs_available()) {
        shim_log("ELT: no fast-path hook stubs for this platform; ILMAP_SHIM_ELT refused, "
                 "the runtime's settings left as they were (the slow path would corrupt "
                 "vector arguments)");
        p->elt.setup = SHIM_ELT_SETUP_NO_STUBS;
        p->elt_enabled = 0;
    }
    if (p->elt_enabled || p->args_enabled)
        mask |= shim_elt_event_mask(p->args_enabled);
    /* Argument and static-field reports learn at ClassLoadFinished what
     * the hooks cannot ask for: the generic struct instantiations of a
     * generic instantiation's fields (S<T> in Holder<int>), and a listed
     * generic class's instantiations, whose statics exist per
     * instantiation (doc/shim.md#statics). */
    if (p->args_enabled)
        mask |= COR_PRF_MONITOR_CLASS_LOADS;
    note.mask = mask;
    note.hr_mask = p->info->lpVtbl->SetEventMask(p->info, mask);
    if (FAILED(note.hr_mask)) {
        shim_log("Initialize: SetEventMask(0x%08X) failed: 0x%08X; not profiling",
                 (unsigned)mask, (unsigned)note.hr_mask);
        SHIM_HOOK(p, initialized, &note);
        return E_FAIL;
    }
    /* One native body per (method, ReJIT version): tiering would add
     * versions, and GetILToNativeMapping2 reports only the first. */
    if (p->has_info5 && !p->keep_tiering) {
        note.hr_high = p->info->lpVtbl->SetEventMask2(p->info, mask,
                                                      COR_PRF_HIGH_DISABLE_TIERED_COMPILATION);
        if (FAILED(note.hr_high))
            shim_log("SetEventMask2 (disable tiering) failed: 0x%08X; continuing",
                     (unsigned)note.hr_high);
    }
    /* The hooks and the mapper go in after the final event mask; the ID
     * mapper must be set before the first JIT compilation
     * (doc/function-ids.md#setup). */
    if (p->args_enabled) {
        p->args.info = p->info;
        p->args.emit = emit_args_line;
        p->args.emit_ctx = p;
        p->args.statics = p->statics_enabled ? &p->statics : NULL;
        p->elt.args = &p->args;
        if (shim_elt_start(&p->elt, p->info, shim_env_u32("ILMAP_SHIM_ELT_MAX", 0))) {
            shim_log("continuing without argument reports");
            p->args_enabled = 0;
        }
    }
    if (p->elt_enabled && shim_elt_start(&p->elt, p->info, shim_env_u32("ILMAP_SHIM_ELT_MAX", 0)))
        shim_log("continuing without enter/leave hooks");
    shim_store_open(&p->store);
    if (p->selection.count && shim_rejit_start(&p->rejit, p->info))
        note.rejit_thread_failed = 1;
    p->initialized = 1;
    atomic_store(&the_profiler_ready, 1);
    SHIM_HOOK(p, initialized, &note);
    if (p->verbose)
        shim_log("initialized: %zu selectors, event mask 0x%08X", p->selection.count,
                 (unsigned)mask);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_class_load_finished(ICorProfilerCallback4 *self, ClassID cls,
                                                HRESULT status)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized || !p->args_enabled || FAILED(status))
        return S_OK;
    shim_classes_learn_instantiation(&p->args, cls);
    if (p->statics_enabled)
        shim_statics_class_loaded(&p->statics, &p->args, cls);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_shutdown(ICorProfilerCallback4 *self)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_rejit_stop(&p->rejit, 2000);
    if (p->hooks && p->hooks->shutdown)
        p->hooks->shutdown(p->hooks->ctx, p);
    return S_OK;
}
