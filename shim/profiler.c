/*
 * The profiler object: creation, QueryInterface, and the callbacks the
 * shim acts on (Initialize, Shutdown, module loads, the ReJIT sequence).
 * Rules kept everywhere: check every argument, never fail in a way that
 * takes the process down, log with the "[ilmap-shim]" prefix and carry on.
 */
#include "profiler.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "com/flags.h"
#include "com/function_control.h"
#include "com/guids.h"
#include "com/metadata.h"
#include "instrument.h"
#include "log.h"
#include "resolve.h"
#include "utf16.h"

#define SHIM_METHOD_CAP 1024
#define SHIM_DEFAULT_WAIT_MS 10000u

/* The one instance; see profiler.h for why it is static. */
static shim_profiler the_profiler;
static atomic_flag the_profiler_created = ATOMIC_FLAG_INIT;
static atomic_uint the_profiler_refs;

static shim_profiler *profiler_of(ICorProfilerCallback4 *self)
{
    return self == &the_profiler.iface ? &the_profiler : NULL;
}

static int is_callback_iid(const IID *riid)
{
    return shim_guid_equal(riid, &IID_IUnknown) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback2) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback3) ||
           shim_guid_equal(riid, &IID_ICorProfilerCallback4);
}

HRESULT shim_profiler_create(const IID *riid, void **ppv)
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
    if (!profiler_of(self) || !riid)
        return E_INVALIDARG;
    /* Callback5..11 (and anything else) are refused: the runtime then
     * settles on Callback4 (clr-abi §6, step 5). */
    if (!is_callback_iid(riid))
        return E_NOINTERFACE;
    atomic_fetch_add(&the_profiler_refs, 1);
    *ppv = self;
    return S_OK;
}

/* Counted for COM's sake only; the static instance is never freed. */
ULONG CLR_STDCALL shim_cb_add_ref(ICorProfilerCallback4 *self)
{
    if (!profiler_of(self))
        return 0;
    return (ULONG)atomic_fetch_add(&the_profiler_refs, 1) + 1;
}

ULONG CLR_STDCALL shim_cb_release(ICorProfilerCallback4 *self)
{
    if (!profiler_of(self))
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

/* "Ns.Type::Method" for the report: the selector's type and the method's
 * own name from metadata (a "*" selector names no method). */
static void method_display_name(IMetaDataImport *md, const shim_selector *sel,
                                mdMethodDef token, char *out, size_t cap)
{
    WCHAR name[256];
    ULONG len = 0;
    mdTypeDef cls = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_size = 0, rva = 0;
    char method[512] = "?";
    if (md->lpVtbl->GetMethodProps(md, token, &cls, name, 256, &len, &attr, &sig, &sig_size,
                                   &rva, &impl) == S_OK)
        shim_utf16_to_utf8(name, len < 256 ? len : 256, method, sizeof method);
    char full[1024];
    snprintf(full, sizeof full, "%s::%s", sel->type_name, method);
    shim_json_escape(out, cap, full);
}

shim_method *shim_find_method(shim_profiler *p, ModuleID module, mdMethodDef token)
{
    if (!p)
        return NULL;
    for (size_t i = 0; i < p->method_count; i++)
        if (p->methods[i].module == module && p->methods[i].token == token)
            return &p->methods[i];
    return NULL;
}

static void lock(shim_profiler *p)
{
    if (p->lock_ready)
        shim_mutex_lock(&p->lock);
}

static void unlock(shim_profiler *p)
{
    if (p->lock_ready)
        shim_mutex_unlock(&p->lock);
}

static uint32_t env_u32(const char *name, uint32_t fallback)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end = NULL;
    unsigned long n = strtoul(v, &end, 0);
    if (!end || *end || n > 0xFFFFFFFFul) {
        shim_log("ignoring %s=%s (not a number)", name, v);
        return fallback;
    }
    return (uint32_t)n;
}

static void report_runtime(shim_profiler *p)
{
    USHORT instance = 0, major = 0, minor = 0, build = 0, qfe = 0;
    COR_PRF_RUNTIME_TYPE type = 0;
    WCHAR version[128];
    ULONG len = 0;
    char utf8[256] = "";
    HRESULT hr = p->info->lpVtbl->GetRuntimeInformation(p->info, &instance, &type, &major,
                                                        &minor, &build, &qfe, 128, &len,
                                                        version);
    if (SUCCEEDED(hr)) {
        shim_utf16_to_utf8(version, len < 128 ? len : 128, utf8, sizeof utf8);
    }
    char safe[512];
    shim_json_escape(safe, sizeof safe, utf8);
    shim_report_event(&p->report, "runtime",
                      "\"hr\":\"0x%08X\",\"runtime_type\":%d,\"version\":\"%u.%u.%u.%u\","
                      "\"string\":\"%s\",\"info5\":%s,\"info9\":%s",
                      (unsigned)hr, (int)type, major, minor, build, qfe, safe,
                      p->has_info5 ? "true" : "false", p->has_info9 ? "true" : "false");
}

HRESULT CLR_STDCALL shim_cb_initialize(ICorProfilerCallback4 *self, IUnknown *info_unk)
{
    shim_profiler *p = profiler_of(self);
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
    void *info5 = NULL;
    if (SUCCEEDED(info_unk->lpVtbl->QueryInterface(info_unk, &IID_ICorProfilerInfo5, &info5)) &&
        info5) {
        /* Same object, same layout: only the knowledge that slots 81-82
         * exist is new. The extra reference is dropped at once; the runtime
         * owns the object's lifetime (its AddRef/Release are no-ops). */
        p->has_info5 = 1;
        ((ICorProfilerInfo4 *)info5)->lpVtbl->Release(info5);
    }
    void *info9 = NULL;
    if (SUCCEEDED(info_unk->lpVtbl->QueryInterface(info_unk, &IID_ICorProfilerInfo9, &info9)) &&
        info9) {
        p->has_info9 = 1;
        ((ICorProfilerInfo4 *)info9)->lpVtbl->Release(info9);
    }

    p->lock_ready = shim_mutex_init(&p->lock) == 0;
    p->verbose = env_u32("ILMAP_SHIM_VERBOSE", 0) != 0;
    p->wait_ms = env_u32("ILMAP_SHIM_WAIT_MS", SHIM_DEFAULT_WAIT_MS);
    p->probe_every = env_u32("ILMAP_SHIM_PROBE_EVERY", 3);
    shim_report_open(&p->report, getenv("ILMAP_SHIM_REPORT"));
    const char *frames = getenv("ILMAP_SHIM_FRAMES");
    if (frames && *frames) {
        size_t n = strlen(frames) + 1;
        p->frames_path = malloc(n);
        if (p->frames_path)
            memcpy(p->frames_path, frames, n);
    }
    if (shim_selection_parse(getenv("ILMAP_SHIM_METHODS"), getenv("ILMAP_SHIM_TWINS"),
                             getenv("ILMAP_SHIM_LATE"), getenv("ILMAP_SHIM_PROBE"),
                             &p->selection)) {
        memset(&p->selection, 0, sizeof p->selection);
    }
    if (p->selection.count) {
        p->methods = calloc(SHIM_METHOD_CAP, sizeof *p->methods);
        if (p->methods)
            p->method_cap = SHIM_METHOD_CAP;
        else
            shim_log("out of memory for the method table; nothing will be instrumented");
    }

    /* JIT and module events drive the selection; ENABLE_REJIT must be in
     * the mask for RequestReJIT; DISABLE_INLINING because a caller that
     * inlined a method before it was rejitted would keep running the old
     * body (clr-abi §6). Ignoring R2R code (DISABLE_ALL_NGEN_IMAGES) is
     * not needed for ReJIT in CoreCLR and costs startup time: opt-in. */
    DWORD mask = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS |
                 COR_PRF_ENABLE_REJIT | COR_PRF_DISABLE_INLINING;
    if (env_u32("ILMAP_SHIM_DISABLE_NGEN", 0))
        mask |= COR_PRF_DISABLE_ALL_NGEN_IMAGES;
    /* Enter/leave hooks, only on request: they make the runtime JIT every
     * method (ReadyToRun code has no hooks) and call the hooks on every
     * call of a hooked function. */
    p->elt_enabled = env_u32("ILMAP_SHIM_ELT", 0) != 0;
    if (p->elt_enabled)
        mask |= shim_elt_event_mask();
    hr = p->info->lpVtbl->SetEventMask(p->info, mask);
    if (FAILED(hr)) {
        shim_log("Initialize: SetEventMask(0x%08X) failed: 0x%08X; not profiling",
                 (unsigned)mask, (unsigned)hr);
        shim_report_event(&p->report, "initialize_failed", "\"hr\":\"0x%08X\"", (unsigned)hr);
        shim_report_close(&p->report);
        return E_FAIL;
    }
    /* One native body per (method, ReJIT version): tiering would add
     * versions, and GetILToNativeMapping2 reports only the first. */
    HRESULT hr_high = E_NOTIMPL;
    if (p->has_info5 && !env_u32("ILMAP_SHIM_KEEP_TIERING", 0)) {
        hr_high = p->info->lpVtbl->SetEventMask2(p->info, mask,
                                                 COR_PRF_HIGH_DISABLE_TIERED_COMPILATION);
        if (FAILED(hr_high))
            shim_log("SetEventMask2 (disable tiering) failed: 0x%08X; continuing",
                     (unsigned)hr_high);
    }
    report_runtime(p);
    /* The hooks and the mapper go in after the final event mask (clr-abi
     * §6); the ID mapper must be set before the first JIT compilation. */
    if (p->elt_enabled && shim_elt_start(&p->elt, p->info, env_u32("ILMAP_SHIM_ELT_MAX", 0),
                                         &p->report))
        shim_log("continuing without enter/leave hooks");
    shim_store_open(&p->store);
    shim_report_event(&p->report, "initialized",
                      "\"event_mask\":\"0x%08X\",\"high_mask_hr\":\"0x%08X\",\"selectors\":%zu,"
                      "\"probe\":%s,\"elt\":%s,\"store\":%s",
                      (unsigned)mask, (unsigned)hr_high, p->selection.count,
                      p->selection.probe.type_name ? "true" : "false",
                      p->elt_enabled ? "true" : "false", p->store.store ? "true" : "false");
    if (p->selection.count && p->methods && shim_rejit_start(&p->rejit, p->info))
        shim_report_event(&p->report, "rejit_thread_failed", NULL);
    p->initialized = 1;
    if (p->verbose)
        shim_log("initialized: %zu selectors, event mask 0x%08X", p->selection.count,
                 (unsigned)mask);
    return S_OK;
}

static void module_name(shim_profiler *p, ModuleID module, char *out, size_t cap)
{
    WCHAR name[512];
    ULONG len = 0;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    out[0] = '\0';
    HRESULT hr = p->info->lpVtbl->GetModuleInfo(p->info, module, &base, 512, &len, name,
                                                &assembly);
    if (SUCCEEDED(hr)) {
        char utf8[1024];
        shim_utf16_to_utf8(name, len < 512 ? len : 512, utf8, sizeof utf8);
        shim_json_escape(out, cap, utf8);
    }
}

/* Resolves every selector in one module; returns how many methods are to
 * be rejitted now (late ones wait for their first JIT compilation), their
 * tokens in tokens[0..). */
static size_t register_module(shim_profiler *p, ModuleID module, IMetaDataImport *md,
                              mdMethodDef *tokens, size_t cap)
{
    mdMethodDef probe = 0;
    if (p->selection.probe.type_name)
        probe = shim_resolve_probe(md, &p->selection.probe);
    size_t added = 0;
    size_t first = p->method_count;
    for (size_t s = 0; s < p->selection.count && added < cap; s++) {
        const shim_selector *sel = &p->selection.items[s];
        mdMethodDef found[256];
        size_t n = shim_resolve_methods(md, sel, found, 256);
        if (n > 1 && sel->role != SHIM_ROLE_PLAIN) {
            shim_log("twin %s names %zu methods; twins must be unique, skipping it",
                     sel->json_name, n);
            continue;
        }
        for (size_t i = 0; i < n && added < cap; i++) {
            if (found[i] == probe) {
                shim_log("%s is the probe itself; not instrumenting it", sel->json_name);
                continue;
            }
            char display[320];
            method_display_name(md, sel, found[i], display, sizeof display);
            lock(p);
            shim_method *m = shim_find_method(p, module, found[i]);
            if (!m && p->method_count < p->method_cap) {
                m = &p->methods[p->method_count++];
                m->module = module;
                m->token = found[i];
                m->selector = s;
                m->role = sel->role;
                m->twin = SHIM_NO_TWIN;
                m->probe_token = probe;
                m->late = sel->late;
                memcpy(m->name, display, sizeof m->name);
                if (m->late) {
                    p->late_waiting++;
                } else {
                    m->requested = 1;
                    tokens[added++] = found[i];
                }
            } else if (!m) {
                shim_log("method table full; %s not instrumented", sel->json_name);
            }
            unlock(p);
        }
    }
    /* Link twins registered in this module. */
    lock(p);
    for (size_t i = first; i < p->method_count; i++) {
        shim_method *m = &p->methods[i];
        if (m->role == SHIM_ROLE_PLAIN)
            continue;
        size_t want = p->selection.items[m->selector].twin;
        for (size_t j = first; j < p->method_count; j++)
            if (p->methods[j].selector == want)
                m->twin = j;
    }
    unlock(p);
    return added;
}

HRESULT CLR_STDCALL shim_cb_module_load_finished(ICorProfilerCallback4 *self, ModuleID module,
                                                 HRESULT status)
{
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    lock(p);
    p->modules_loaded++;
    unlock(p);
    if (FAILED(status) || !p->methods || p->selection.count == 0)
        return S_OK;

    IUnknown *unk = NULL;
    HRESULT hr = p->info->lpVtbl->GetModuleMetaData(p->info, module, CLR_OF_READ,
                                                    &IID_IMetaDataImport, &unk);
    if (hr != S_OK || !unk)
        return S_OK; /* resource-only or dynamic module: nothing to select */
    IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
    mdMethodDef tokens[512];
    lock(p);
    size_t before = p->method_count;
    unlock(p);
    size_t n = register_module(p, module, md, tokens, 512);
    md->lpVtbl->Release(md);
    lock(p);
    int selected = p->method_count > before;
    unlock(p);
    /* The ID mapper hooks the functions of modules with selected methods
     * (all of them, the probe included); nothing of this module is
     * JIT-compiled before this callback returns. */
    if (selected && p->elt_enabled)
        shim_elt_watch_module(&p->elt, module);
    if (n == 0)
        return S_OK;

    char name[1024];
    module_name(p, module, name, sizeof name);
    ModuleID modules[512];
    for (size_t i = 0; i < n; i++)
        modules[i] = module;
    /* Wait for the request so that the first calls already run the
     * instrumented body; the timeout keeps a runtime that blocks the
     * request until this callback returns from hanging the process. */
    hr = shim_rejit_request(&p->rejit, modules, tokens, (ULONG)n, p->wait_ms);
    lock(p);
    p->rejit_requested += n;
    unlock(p);
    shim_report_event(&p->report, "rejit_requested",
                      "\"module\":\"%s\",\"methods\":%zu,\"hr\":\"0x%08X\",\"timed_out\":%s", name,
                      n, (unsigned)hr, hr == S_FALSE ? "true" : "false");
    if (FAILED(hr))
        shim_log("RequestReJIT for %zu methods in %s failed: 0x%08X", n, name, (unsigned)hr);
    else if (hr == S_FALSE)
        shim_log("RequestReJIT for %s not done within %u ms; continuing", name,
                 (unsigned)p->wait_ms);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_jit_started(ICorProfilerCallback4 *self, FunctionID function,
                                        BOOL safe_to_block)
{
    (void)function;
    (void)safe_to_block;
    shim_profiler *p = profiler_of(self);
    if (p && p->initialized) {
        lock(p);
        p->jit_started++;
        unlock(p);
    }
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                         HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    lock(p);
    p->jit_finished++;
    size_t waiting = p->late_waiting;
    unlock(p);
    if (!waiting || FAILED(status))
        return S_OK;

    /* A late method has just got its original native code: now ask for
     * its ReJIT, so that it has two native versions (rejitid 0 and n). */
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(p->info->lpVtbl->GetFunctionInfo(p->info, function, &cls, &module, &token)))
        return S_OK;
    lock(p);
    shim_method *m = shim_find_method(p, module, token);
    int now = m && m->late && !m->requested;
    if (now) {
        m->requested = 1;
        p->late_waiting--;
        p->rejit_requested++;
    }
    unlock(p);
    if (!now)
        return S_OK;
    HRESULT hr = shim_rejit_request(&p->rejit, &module, &token, 1, p->wait_ms);
    shim_report_event(&p->report, "rejit_requested_late",
                      "\"method\":\"%s\",\"function\":\"0x%" PRIxPTR "\",\"hr\":\"0x%08X\"",
                      shim_method_name(p, m), function, (unsigned)hr);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_rejit_started(ICorProfilerCallback4 *self, FunctionID function,
                                          ReJITID rejit, BOOL safe_to_block)
{
    (void)function;
    (void)rejit;
    (void)safe_to_block;
    shim_profiler *p = profiler_of(self);
    if (p && p->initialized) {
        lock(p);
        p->rejit_started++;
        unlock(p);
    }
    return S_OK;
}

static void set_body(shim_profiler *p, shim_method *m, const char *name,
                     ICorProfilerFunctionControl *control, shim_instrumented *inst)
{
    HRESULT hr = control->lpVtbl->SetILFunctionBody(control, (ULONG)inst->body_size,
                                                    inst->body);
    shim_report_check(&p->report, "set_body", SUCCEEDED(hr),
                      "\"method\":\"%s\",\"token\":\"0x%08X\",\"hr\":\"0x%08X\",\"how\":\"%s\","
                      "\"new_size\":%zu,\"map_entries\":%zu",
                      name, (unsigned)m->token, (unsigned)hr, inst->how, inst->body_size,
                      inst->map_count);
    if (FAILED(hr))
        return;

    ilmap *map = NULL;
    ilmap_status st = ilmap_create(inst->map, inst->map_count, 0, &map);
    shim_report_check(&p->report, "map_valid", st == ILMAP_OK,
                      "\"method\":\"%s\",\"status\":\"%s\",\"entries\":%zu", name,
                      ilmap_status_str(st), inst->map_count);
    if (st != ILMAP_OK)
        return; /* the body is set; without a valid map no map is claimed */

    if (m->role != SHIM_ROLE_TWIN_UNMAPPED) {
        COR_IL_MAP *entries = malloc((inst->map_count ? inst->map_count : 1) * sizeof *entries);
        if (!entries) {
            ilmap_free(map);
            shim_log("out of memory for the IL map of %s", name);
            return;
        }
        for (size_t i = 0; i < inst->map_count; i++) {
            entries[i].oldOffset = inst->map[i].old_offset;
            entries[i].newOffset = inst->map[i].new_offset;
            entries[i].fAccurate = inst->map[i].accurate;
        }
        hr = control->lpVtbl->SetILInstrumentedCodeMap(control, (ULONG)inst->map_count, entries);
        free(entries);
        shim_report_check(&p->report, "set_map", SUCCEEDED(hr),
                          "\"method\":\"%s\",\"hr\":\"0x%08X\",\"entries\":%zu", name,
                          (unsigned)hr, inst->map_count);
        if (FAILED(hr)) {
            ilmap_free(map);
            return;
        }
    }
    lock(p);
    if (!m->instrumented) {
        m->instrumented = 1;
        m->map = map;
        m->new_starts = inst->new_starts;
        m->new_start_count = inst->new_start_count;
        inst->new_starts = NULL; /* now owned by the method */
        map = NULL;
        p->instrumented_bodies++;
    }
    unlock(p);
    ilmap_free(map); /* a repeated request: the first map stays, same body */
}

HRESULT CLR_STDCALL shim_cb_get_rejit_parameters(ICorProfilerCallback4 *self, ModuleID module,
                                                 mdMethodDef token,
                                                 ICorProfilerFunctionControl *control)
{
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized || !control)
        return S_OK;
    lock(p);
    p->rejit_params++;
    shim_method *m = shim_find_method(p, module, token);
    shim_probe probe = {m ? m->probe_token : 0, p->probe_every};
    unlock(p);
    if (!m)
        return S_OK; /* not ours: the runtime keeps the original IL */
    const char *name = shim_method_name(p, m);

    LPCBYTE header = NULL;
    ULONG size = 0;
    HRESULT hr = p->info->lpVtbl->GetILFunctionBody(p->info, module, token, &header, &size);
    if (FAILED(hr) || !header || !size) {
        shim_log("GetILFunctionBody(%s) failed: 0x%08X", name, (unsigned)hr);
        shim_report_check(&p->report, "il_body", 0, "\"method\":\"%s\",\"hr\":\"0x%08X\"", name,
                          (unsigned)hr);
        return S_OK;
    }
    shim_instrumented inst;
    const char *why = NULL;
    if (shim_instrument(header, size, &probe, &inst, &why)) {
        shim_log("not instrumenting %s: %s", name, why ? why : "?");
        shim_report_check(&p->report, "instrument", 0, "\"method\":\"%s\",\"why\":\"%s\"", name,
                          why ? why : "?");
        return S_OK;
    }
    shim_report_check(&p->report, "instrument", 1,
                      "\"method\":\"%s\",\"old_size\":%u,\"new_size\":%zu,\"probes\":%u,"
                      "\"widened\":%u",
                      name, (unsigned)size, inst.body_size, (unsigned)inst.probes,
                      (unsigned)inst.widened);
    set_body(p, m, name, control, &inst);
    shim_instrumented_free(&inst);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_rejit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                           ReJITID rejit, HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    lock(p);
    p->rejit_finished++;
    unlock(p);
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    HRESULT hr = p->info->lpVtbl->GetFunctionInfo(p->info, function, &cls, &module, &token);
    if (FAILED(hr)) {
        shim_log("GetFunctionInfo after ReJIT failed: 0x%08X", (unsigned)hr);
        return S_OK;
    }
    lock(p);
    shim_method *m = shim_find_method(p, module, token);
    unlock(p);
    if (!m)
        return S_OK;
    shim_report_check(&p->report, "rejit_compiled", SUCCEEDED(status),
                      "\"method\":\"%s\",\"function\":\"0x%" PRIxPTR "\",\"rejit\":%" PRIuPTR
                      ",\"hr\":\"0x%08X\"",
                      shim_method_name(p, m), function, rejit, (unsigned)status);
    if (SUCCEEDED(status))
        shim_check_version(p, module, token, function, rejit);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_rejit_error(ICorProfilerCallback4 *self, ModuleID module,
                                        mdMethodDef token, FunctionID function, HRESULT status)
{
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    lock(p);
    p->rejit_errors++;
    shim_method *m = shim_find_method(p, module, token);
    unlock(p);
    shim_log("ReJITError for token 0x%08X: 0x%08X", (unsigned)token, (unsigned)status);
    shim_report_check(&p->report, "rejit_error", 0,
                      "\"method\":\"%s\",\"token\":\"0x%08X\",\"function\":\"0x%" PRIxPTR
                      "\",\"hr\":\"0x%08X\"",
                      m ? shim_method_name(p, m) : "?", (unsigned)token, function,
                      (unsigned)status);
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_shutdown(ICorProfilerCallback4 *self)
{
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_rejit_stop(&p->rejit, 2000);
    shim_check_frames(p);
    if (p->elt_enabled)
        shim_elt_check(&p->elt, &p->report);
    lock(p);
    size_t rejitted = 0;
    for (size_t i = 0; i < p->method_count; i++)
        rejitted += p->methods[i].version_count != 0;
    shim_report_summary(
        &p->report,
        "\"methods_selected\":%zu,\"methods_instrumented\":%" PRIu64 ",\"methods_rejitted\":%zu,"
        "\"modules_loaded\":%" PRIu64 ",\"jit_started\":%" PRIu64 ",\"jit_finished\":%" PRIu64
        ",\"rejit_requested\":%" PRIu64 ",\"rejit_parameters\":%" PRIu64
        ",\"rejit_started\":%" PRIu64 ",\"rejit_finished\":%" PRIu64 ",\"rejit_errors\":%" PRIu64,
        p->method_count, p->instrumented_bodies, rejitted, p->modules_loaded, p->jit_started,
        p->jit_finished, p->rejit_requested, p->rejit_params, p->rejit_started,
        p->rejit_finished, p->rejit_errors);
    unlock(p);
    shim_report_close(&p->report);
    return S_OK;
}
