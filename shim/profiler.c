/*
 * The profiler object: creation, QueryInterface, and the callbacks the
 * shim acts on (Initialize, Shutdown, module loads, the ReJIT sequence).
 * Rules kept everywhere: check every argument, never fail in a way that
 * takes the process down, log with the "[ilmap-shim]" prefix and carry on.
 */
#include "profiler.h"

#include <inttypes.h>
#include <limits.h>
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

/* Methods without IL: abstract, P/Invoke, internal call, runtime or
 * native implementation, or no RVA. ReJIT has nothing to work on there. */
#define CLR_MD_ABSTRACT 0x0400u
#define CLR_MD_PINVOKE_IMPL 0x2000u
#define CLR_MI_CODE_TYPE_MASK 0x0003u
#define CLR_MI_INTERNAL_CALL 0x1000u

/* The method's own name (UTF-8) and whether it has an IL body; returns
 * non-zero when GetMethodProps fails. */
static int method_props(IMetaDataImport *md, mdMethodDef token, char *method, size_t cap,
                        int *has_il)
{
    WCHAR name[256];
    ULONG len = 0;
    mdTypeDef cls = 0;
    DWORD attr = 0, impl = 0;
    PCCOR_SIGNATURE sig = NULL;
    ULONG sig_size = 0, rva = 0;
    *has_il = 0;
    snprintf(method, cap, "?");
    if (md->lpVtbl->GetMethodProps(md, token, &cls, name, 256, &len, &attr, &sig, &sig_size,
                                   &rva, &impl) != S_OK)
        return 1;
    shim_utf16_to_utf8(name, len < 256 ? len : 256, method, cap);
    *has_il = rva != 0 && !(attr & (CLR_MD_ABSTRACT | CLR_MD_PINVOKE_IMPL)) &&
              (impl & CLR_MI_CODE_TYPE_MASK) == 0 && !(impl & CLR_MI_INTERNAL_CALL);
    return 0;
}

static size_t hash_key(ModuleID module, mdMethodDef token)
{
    uint64_t h = (uint64_t)module * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)token * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return (size_t)h;
}

shim_method *shim_method_at(shim_profiler *p, size_t i)
{
    return p && p->methods && i < p->method_count ? p->methods[i] : NULL;
}

shim_method *shim_find_method(shim_profiler *p, ModuleID module, mdMethodDef token)
{
    if (!p || !p->index_cap || !p->method_index)
        return NULL;
    size_t mask = p->index_cap - 1;
    size_t at = hash_key(module, token) & mask;
    for (size_t probes = 0; probes < p->index_cap; probes++, at = (at + 1) & mask) {
        size_t v = p->method_index[at];
        if (v == 0 || v > p->method_count)
            return NULL;
        shim_method *m = p->methods[v - 1];
        if (m->module == module && m->token == token)
            return m;
    }
    return NULL;
}

static void index_put(size_t *table, size_t cap, const shim_method *m, size_t value)
{
    size_t mask = cap - 1;
    size_t at = hash_key(m->module, m->token) & mask;
    while (table[at])
        at = (at + 1) & mask;
    table[at] = value;
}

/* Keeps the index at most half full; 0 on success. */
static int index_reserve(shim_profiler *p, size_t count)
{
    if (count <= p->index_cap / 2)
        return 0;
    size_t cap = p->index_cap ? p->index_cap : 1024;
    while (count > cap / 2) {
        if (cap > SIZE_MAX / 2 / sizeof(size_t))
            return -1;
        cap *= 2;
    }
    size_t *table = calloc(cap, sizeof *table);
    if (!table)
        return -1;
    for (size_t i = 0; i < p->method_count; i++)
        index_put(table, cap, p->methods[i], i + 1);
    free(p->method_index);
    p->method_index = table;
    p->index_cap = cap;
    return 0;
}

/* A new record for (module, token), indexed; NULL when memory runs out.
 * The caller holds p->lock. */
static shim_method *method_add(shim_profiler *p, ModuleID module, mdMethodDef token)
{
    if (p->method_count == SIZE_MAX)
        return NULL;
    if (p->method_count == p->method_cap) {
        size_t cap = p->method_cap ? p->method_cap : 256;
        if (p->method_cap) {
            if (cap > SIZE_MAX / 2 / sizeof *p->methods)
                return NULL;
            cap *= 2;
        }
        shim_method **grown = realloc(p->methods, cap * sizeof *grown);
        if (!grown)
            return NULL;
        p->methods = grown;
        p->method_cap = cap;
    }
    if (index_reserve(p, p->method_count + 1))
        return NULL;
    shim_method *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->module = module;
    m->token = token;
    m->twin = SHIM_NO_TWIN;
    p->methods[p->method_count++] = m;
    index_put(p->method_index, p->index_cap, m, p->method_count);
    return m;
}

void shim_note_dropped(shim_profiler *p, int kind_bit, const char *what)
{
    if (!p || (p->dropped_logged & kind_bit))
        return;
    p->dropped_logged |= kind_bit;
    shim_log("out of memory: %s (logged once; the summary has the count)", what ? what : "?");
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
    for (size_t i = 0; i < p->selection.count; i++)
        p->any_late |= p->selection.items[i].late;
    p->keep_tiering = env_u32("ILMAP_SHIM_KEEP_TIERING", 0) != 0;

    /* JIT and module events drive the selection; ENABLE_REJIT must be in
     * the mask for RequestReJIT; DISABLE_INLINING because a caller that
     * inlined a method before it was rejitted would keep running the old
     * body (clr-abi §6). Ignoring R2R code (DISABLE_ALL_NGEN_IMAGES) is
     * not needed for ReJIT in CoreCLR and costs startup time: opt-in. */
    DWORD mask = COR_PRF_MONITOR_JIT_COMPILATION | COR_PRF_MONITOR_MODULE_LOADS |
                 COR_PRF_ENABLE_REJIT | COR_PRF_DISABLE_INLINING;
    /* Late methods in ReadyToRun code are never JIT-compiled: their
     * trigger is the runtime finding their precompiled code. */
    if (p->any_late)
        mask |= COR_PRF_MONITOR_CACHE_SEARCHES;
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
    if (p->has_info5 && !p->keep_tiering) {
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
    if (p->selection.count && shim_rejit_start(&p->rejit, p->info))
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
 * be rejitted now (late ones wait for their first JIT compilation or
 * cached-code lookup), their tokens in *tokens_out (malloc'd, the caller
 * frees). */
static size_t register_module(shim_profiler *p, ModuleID module, IMetaDataImport *md,
                              mdMethodDef **tokens_out)
{
    *tokens_out = NULL;
    mdMethodDef probe = 0;
    if (p->selection.probe.type_name)
        probe = shim_resolve_probe(md, &p->selection.probe);
    shim_found_list found = {NULL, 0, 0};
    if (shim_resolve_all(md, &p->selection, &found)) {
        lock(p);
        p->methods_dropped++; /* at least one; the list stopped there */
        shim_note_dropped(p, 1, "method selection in a module stopped early");
        unlock(p);
    }
    if (found.count == 0) {
        shim_found_list_free(&found);
        return 0;
    }
    mdMethodDef *tokens = malloc(found.count * sizeof *tokens);
    if (!tokens) {
        lock(p);
        p->methods_dropped += found.count;
        shim_note_dropped(p, 1, "the methods selected in a module");
        unlock(p);
        shim_found_list_free(&found);
        return 0;
    }
    size_t added = 0;
    lock(p);
    size_t first = p->method_count;
    unlock(p);
    for (size_t i = 0; i < found.count; i++) {
        const shim_found *f = &found.items[i];
        if (f->selector >= p->selection.count)
            continue;
        const shim_selector *sel = &p->selection.items[f->selector];
        if (sel->role != SHIM_ROLE_PLAIN) {
            size_t same = 0;
            for (size_t j = 0; j < found.count; j++)
                same += found.items[j].selector == f->selector;
            if (same > 1) {
                shim_log("twin %s names %zu methods; twins must be unique, skipping it",
                         sel->json_name, same);
                continue;
            }
        }
        if (f->token == probe) {
            shim_log("%s is the probe itself; not instrumenting it", sel->json_name);
            continue;
        }
        char method[512];
        int has_il = 0;
        method_props(md, f->token, method, sizeof method, &has_il);
        if (!has_il) {
            lock(p);
            p->methods_skipped_no_body++;
            unlock(p);
            continue;
        }
        char type[1024];
        if (sel->ns_prefix)
            shim_type_full_name(md, f->type, type, sizeof type);
        else
            snprintf(type, sizeof type, "%s", sel->type_name);
        char full[1600];
        snprintf(full, sizeof full, "%s::%s", type, method);
        char display[320];
        shim_json_escape(display, sizeof display, full);
        lock(p);
        shim_method *m = shim_find_method(p, module, f->token);
        if (!m) {
            m = method_add(p, module, f->token);
            if (!m) {
                p->methods_dropped++;
                shim_note_dropped(p, 1, "a selected method not registered");
            } else {
                m->selector = f->selector;
                m->role = sel->role;
                m->probe_token = probe;
                m->late = sel->late;
                memcpy(m->name, display, sizeof m->name);
                if (m->late) {
                    p->late_waiting++;
                } else {
                    m->requested = 1;
                    tokens[added++] = f->token;
                }
            }
        }
        unlock(p);
    }
    shim_found_list_free(&found);
    /* Link twins registered in this module. */
    lock(p);
    for (size_t i = first; i < p->method_count; i++) {
        shim_method *m = p->methods[i];
        if (m->role == SHIM_ROLE_PLAIN || m->module != module)
            continue;
        size_t want = p->selection.items[m->selector].twin;
        for (size_t j = first; j < p->method_count; j++)
            if (p->methods[j]->selector == want && p->methods[j]->module == module)
                m->twin = j;
    }
    unlock(p);
    if (added == 0) {
        free(tokens);
        return 0;
    }
    *tokens_out = tokens;
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
    if (FAILED(status) || p->selection.count == 0)
        return S_OK;

    IUnknown *unk = NULL;
    HRESULT hr = p->info->lpVtbl->GetModuleMetaData(p->info, module, CLR_OF_READ,
                                                    &IID_IMetaDataImport, &unk);
    if (hr != S_OK || !unk)
        return S_OK; /* resource-only or dynamic module: nothing to select */
    IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
    mdMethodDef *tokens = NULL;
    lock(p);
    size_t before = p->method_count;
    unlock(p);
    size_t n = register_module(p, module, md, &tokens);
    md->lpVtbl->Release(md);
    lock(p);
    int selected = p->method_count > before;
    unlock(p);
    /* The ID mapper hooks the functions of modules with selected methods
     * (all of them, the probe included); nothing of this module is
     * JIT-compiled before this callback returns. */
    if (selected && p->elt_enabled)
        shim_elt_watch_module(&p->elt, module);
    if (n == 0 || !tokens) {
        free(tokens);
        return S_OK;
    }

    char name[1024];
    module_name(p, module, name, sizeof name);
    ModuleID *modules = n <= ULONG_MAX ? malloc(n * sizeof *modules) : NULL;
    if (!modules) {
        lock(p);
        p->methods_dropped += n;
        shim_note_dropped(p, 1, "a module's ReJIT request");
        unlock(p);
        free(tokens);
        return S_OK;
    }
    for (size_t i = 0; i < n; i++)
        modules[i] = module;
    /* Wait for the request so that the first calls already run the
     * instrumented body; the timeout keeps a runtime that blocks the
     * request until this callback returns from hanging the process. */
    hr = shim_rejit_request(&p->rejit, modules, tokens, (ULONG)n, p->wait_ms);
    free(modules);
    free(tokens);
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

/* A late method has just got its original native code (JIT-compiled, or
 * found precompiled): now ask for its ReJIT, so that it has two native
 * versions (rejitid 0 and n). */
static void late_trigger(shim_profiler *p, FunctionID function, const char *trigger,
                         uint32_t wait_ms)
{
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(p->info->lpVtbl->GetFunctionInfo(p->info, function, &cls, &module, &token)))
        return;
    lock(p);
    shim_method *m = shim_find_method(p, module, token);
    int now = m && m->late && !m->requested;
    if (now) {
        m->requested = 1;
        p->late_waiting--;
        p->rejit_requested++;
        if (trigger[0] == 'j')
            p->late_by_jit++;
        else
            p->late_by_cached_search++;
    }
    unlock(p);
    if (!now)
        return;
    HRESULT hr = shim_rejit_request(&p->rejit, &module, &token, 1, wait_ms);
    shim_report_event(&p->report, "rejit_requested_late",
                      "\"method\":\"%s\",\"function\":\"0x%" PRIxPTR "\",\"trigger\":\"%s\","
                      "\"hr\":\"0x%08X\",\"waited\":%s",
                      shim_method_name(p, m), function, trigger, (unsigned)hr,
                      wait_ms ? "true" : "false");
    if (FAILED(hr))
        shim_log("late RequestReJIT for %s failed: 0x%08X", shim_method_name(p, m),
                 (unsigned)hr);
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

    late_trigger(p, function, "jit", p->wait_ms);
    return S_OK;
}

/* ReadyToRun code raises no JIT event: the runtime's search of its
 * precompiled code is the first sign that a method is about to run. */
HRESULT CLR_STDCALL shim_cb_cache_search_started(ICorProfilerCallback4 *self,
                                                 FunctionID function, BOOL *use_cached)
{
    (void)self;
    (void)function;
    if (use_cached)
        *use_cached = 1; /* the precompiled code is fine: it is the original version */
    return S_OK;
}

HRESULT CLR_STDCALL shim_cb_cache_search_finished(ICorProfilerCallback4 *self,
                                                  FunctionID function, COR_PRF_JIT_CACHE result)
{
    shim_profiler *p = profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    lock(p);
    p->cached_searches++;
    size_t waiting = p->late_waiting;
    unlock(p);
    if (!waiting || result != COR_PRF_CACHED_FUNCTION_FOUND)
        return S_OK;
    /* Not waiting for the request here: this thread is inside the
     * runtime's code lookup for the method, and may hold what
     * RequestReJIT needs. The ReJIT thread makes the request later. */
    late_trigger(p, function, "cached_search", 0);
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
        /* A limit of the instrumenter, not a wrong map: counted, with the
         * reason; the runtime keeps the original IL for this version. */
        if (p->verbose)
            shim_log("not instrumenting %s: %s", name, why ? why : "?");
        lock(p);
        p->methods_refused++;
        m->refused = 1;
        unlock(p);
        shim_report_event(&p->report, "instrument_refused", "\"method\":\"%s\",\"why\":\"%s\"",
                          name, why ? why : "?");
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
    /* Where every selected method ended up: instrumented, refused by the
     * instrumenter, requested but never compiled (never called after the
     * request), or late and never compiled at all. They add up to
     * methods_selected; the field suite holds the shim to that. */
    size_t rejitted = 0, requested_not_compiled = 0, late_never_compiled = 0;
    for (size_t i = 0; i < p->method_count; i++) {
        const shim_method *m = p->methods[i];
        rejitted += m->version_count != 0;
        if (m->instrumented || m->refused)
            continue;
        if (m->requested)
            requested_not_compiled++;
        else
            late_never_compiled++;
    }
    shim_report_summary(
        &p->report,
        "\"methods_selected\":%zu,\"methods_instrumented\":%" PRIu64 ",\"methods_rejitted\":%zu,"
        "\"modules_loaded\":%" PRIu64 ",\"jit_started\":%" PRIu64 ",\"jit_finished\":%" PRIu64
        ",\"rejit_requested\":%" PRIu64 ",\"rejit_parameters\":%" PRIu64
        ",\"rejit_started\":%" PRIu64 ",\"rejit_finished\":%" PRIu64 ",\"rejit_errors\":%" PRIu64
        ",\"methods_skipped_no_body\":%" PRIu64 ",\"methods_refused\":%" PRIu64
        ",\"methods_dropped\":%" PRIu64 ",\"versions_dropped\":%" PRIu64
        ",\"bodies_dropped\":%" PRIu64 ",\"late_waiting\":%zu,\"late_trigger_jit\":%" PRIu64
        ",\"late_trigger_cached_search\":%" PRIu64 ",\"cached_searches\":%" PRIu64
        ",\"bodies_checked\":%" PRIu64 ",\"bodies_extra\":%" PRIu64 ",\"keep_tiering\":%s"
        ",\"methods_requested_not_compiled\":%zu,\"methods_late_never_compiled\":%zu",
        p->method_count, p->instrumented_bodies, rejitted, p->modules_loaded, p->jit_started,
        p->jit_finished, p->rejit_requested, p->rejit_params, p->rejit_started,
        p->rejit_finished, p->rejit_errors, p->methods_skipped_no_body, p->methods_refused,
        p->methods_dropped, p->versions_dropped, p->bodies_dropped, p->late_waiting,
        p->late_by_jit, p->late_by_cached_search, p->cached_searches, p->bodies_checked,
        p->bodies_extra, p->keep_tiering ? "true" : "false", requested_not_compiled,
        late_never_compiled);
    unlock(p);
    shim_report_close(&p->report);
    return S_OK;
}
