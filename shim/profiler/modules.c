/*
 * Selecting methods: as each module loads, the selectors are resolved in
 * its metadata, the methods found are registered, and those not marked
 * late are handed to the ReJIT thread in one batch. Late methods are
 * requested at their first compilation (JIT-compiled, or precompiled
 * ReadyToRun code found by the runtime's cached-function search).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "com/flags.h"
#include "com/guids.h"
#include "com/metadata.h"
#include "profiler/bodies.h"
#include "base/log.h"
#include "profiler/jit_instrument.h"
#include "profiler/modules.h"
#include "profiler/profiler.h"
#include "profiler/wrap.h"
#include "select/resolve.h"
#include "base/text.h"

void shim_module_name(shim_profiler *p, ModuleID module, char *out, size_t cap)
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
                              int collectible, mdMethodDef **tokens_out)
{
    *tokens_out = NULL;
    mdMethodDef probe = 0;
    if (p->selection.probe.type_name)
        probe = shim_resolve_probe(md, &p->selection.probe);
    shim_found_list found = {NULL, 0, 0};
    if (shim_resolve_all(md, &p->selection, &found)) {
        shim_lock(p);
        p->count.methods_dropped++; /* at least one; the list stopped there */
        shim_note_dropped(p, 1, "method selection in a module stopped early");
        shim_unlock(p);
    }
    if (found.count == 0) {
        shim_found_list_free(&found);
        return 0;
    }
    mdMethodDef *tokens = malloc(found.count * sizeof *tokens);
    if (!tokens) {
        shim_lock(p);
        p->count.methods_dropped += found.count;
        shim_note_dropped(p, 1, "the methods selected in a module");
        shim_unlock(p);
        shim_found_list_free(&found);
        return 0;
    }
    size_t added = 0;
    shim_wrap_module wrap_refs; /* made on the first wrapped method */
    shim_wrap_module_init(&wrap_refs);
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
        shim_method_props(md, f->token, method, sizeof method, &has_il);
        if (!has_il) {
            shim_lock(p);
            p->count.methods_skipped_no_body++;
            shim_unlock(p);
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
        shim_lock(p);
        shim_method *m = shim_registry_find(&p->registry, module, f->token);
        shim_method *wrapped = NULL;
        if (!m) {
            m = shim_registry_add(&p->registry, module, f->token);
            if (!m) {
                p->count.methods_dropped++;
                shim_note_dropped(p, 1, "a selected method not registered");
            } else {
                m->selector = f->selector;
                m->role = sel->role;
                m->probe_token = probe;
                memcpy(m->name, display, sizeof m->name);
                if (sel->wrap) {
                    m->wrap = 1;
                    wrapped = m;
                }
                if (sel->observe) {
                    /* only its JIT-compiled bodies go into the store:
                     * nothing is requested */
                    m->kind = SHIM_KIND_OBSERVE;
                    m->life = SHIM_LIFE_OBSERVED;
                } else if (sel->late && !collectible) {
                    m->kind = SHIM_KIND_LATE;
                    m->life = SHIM_LIFE_WAITING;
                    p->count.late_waiting++;
                } else if (collectible) {
                    /* never rejitted: instrumented at its first JIT
                     * compilation instead (jit_instrument.c), a late
                     * selector's method too (its ReJIT would never come) */
                    m->kind = SHIM_KIND_JIT_TIME;
                    m->life = SHIM_LIFE_WAITING;
                    p->any_jit_time = 1;
                } else {
                    m->kind = SHIM_KIND_REJIT;
                    m->life = SHIM_LIFE_REQUESTED;
                    tokens[added++] = f->token;
                }
            }
        }
        shim_unlock(p);
        /* Its references and spec, before any ReJIT request for it (made
         * when this callback returns) or its first compilation. */
        if (wrapped)
            shim_wrap_prepare(p, module, md, &wrap_refs, wrapped);
    }
    shim_wrap_module_done(&wrap_refs);
    shim_found_list_free(&found);
    if (added == 0) {
        free(tokens);
        return 0;
    }
    *tokens_out = tokens;
    return added;
}

/* The runtime does not rejit code of collectible assemblies
 * (shim/FINDINGS.md, fifth round): 1 collectible, 0 not, -1 unknown
 * (GetModuleInfo2 failed; logged). */
static int is_collectible(shim_profiler *p, ModuleID module)
{
    LPCBYTE base = NULL;
    ULONG len = 0;
    AssemblyID assembly = 0;
    DWORD flags = 0;
    HRESULT hr = p->info->lpVtbl->GetModuleInfo2(p->info, module, &base, 0, &len, NULL,
                                                 &assembly, &flags);
    if (FAILED(hr)) {
        shim_log("GetModuleInfo2(0x%llx) failed: 0x%08X; its methods are not instrumented "
                 "(a ReJIT request for a collectible module would be ignored)",
                 (unsigned long long)module, (unsigned)hr);
        return -1;
    }
    return (flags & COR_PRF_MODULE_COLLECTIBLE) != 0;
}

/* The module's file (GetModuleInfo's name is its path) and its PDB. */
static void open_pdb(shim_profiler *p, ModuleID module)
{
    WCHAR name[1024];
    ULONG len = 0;
    LPCBYTE base = NULL;
    AssemblyID assembly = 0;
    HRESULT hr = p->info->lpVtbl->GetModuleInfo(p->info, module, &base, 1024, &len, name,
                                                &assembly);
    if (FAILED(hr) || len == 0 || len >= 1024) {
        shim_log("GetModuleInfo(0x%llx) 0x%08X: no path, so no PDB and no source lines",
                 (unsigned long long)module, (unsigned)hr);
        return;
    }
    char path[3 * 1024 + 1];
    shim_utf16_to_utf8(name, len, path, sizeof path);
    shim_sources_module_loaded(&p->store, module, path);
}

HRESULT CLR_STDCALL shim_cb_module_load_finished(ICorProfilerCallback4 *self, ModuleID module,
                                                 HRESULT status)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_lock(p);
    p->count.modules_loaded++;
    shim_unlock(p);
    if (FAILED(status) || (p->selection.count == 0 && !p->args_enabled))
        return S_OK;

    IUnknown *unk = NULL;
    HRESULT hr = p->info->lpVtbl->GetModuleMetaData(p->info, module, CLR_OF_READ,
                                                    &IID_IMetaDataImport, &unk);
    if (hr != S_OK || !unk) {
        /* Resource-only and dynamic modules have no metadata to select
         * from; a runtime that fails the call leaves a module unselected
         * the same way: said once, not for every such module. */
        static atomic_flag said = ATOMIC_FLAG_INIT;
        if (!atomic_flag_test_and_set(&said))
            shim_log("GetModuleMetaData(0x%llx) 0x%08X: nothing of that module is selected or "
                     "reported (logged once: modules without metadata are skipped the same way)",
                     (unsigned long long)module, (unsigned)hr);
        return S_OK;
    }
    IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
    /* Argument reports: before anything of the module is JIT-compiled. */
    if (p->args_enabled)
        shim_args_module_loaded(&p->args, module, md);
    mdMethodDef *tokens = NULL;
    int collectible = is_collectible(p, module);
    if (collectible < 0) {
        md->lpVtbl->Release(md);
        return S_OK;
    }
    shim_lock(p);
    size_t before = p->registry.count;
    shim_unlock(p);
    size_t n = register_module(p, module, md, collectible, &tokens);
    md->lpVtbl->Release(md);
    shim_lock(p);
    int selected = p->registry.count > before;
    shim_unlock(p);
    /* The ID mapper hooks the functions of modules with selected methods
     * (all of them, the probe included); nothing of this module is
     * JIT-compiled before this callback returns. */
    if (selected && p->elt_enabled)
        shim_elt_watch_module(&p->elt, module);
    /* Its PDB, for source lines (sources.h): failures are logged. */
    if (selected)
        open_pdb(p, module);
    if (n == 0 || !tokens) {
        free(tokens);
        return S_OK;
    }

    char name[1024];
    shim_module_name(p, module, name, sizeof name);
    ModuleID *modules = n <= ULONG_MAX ? malloc(n * sizeof *modules) : NULL;
    if (!modules) {
        shim_lock(p);
        p->count.methods_dropped += n;
        shim_note_dropped(p, 1, "a module's ReJIT request");
        shim_unlock(p);
        free(tokens);
        return S_OK;
    }
    for (size_t i = 0; i < n; i++)
        modules[i] = module;
    /* Wait for the request so that the first calls already run the
     * instrumented body; the timeout keeps a runtime that blocks the
     * request until this callback returns from hanging the process. */
    hr = shim_rejit_request(&p->rejit, modules, tokens, (ULONG)n, 0, p->wait_ms);
    free(modules);
    free(tokens);
    shim_lock(p);
    p->count.rejit_requested += n;
    shim_unlock(p);
    shim_request_note note = {name, NULL, 0, NULL, n, hr, p->wait_ms};
    SHIM_HOOK(p, rejit_requested, &note);
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
    (void)safe_to_block;
    shim_profiler *p = shim_profiler_of(self);
    if (p && p->initialized) {
        shim_lock(p);
        p->count.jit_started++;
        int any = p->any_jit_time;
        shim_unlock(p);
        if (any)
            shim_jit_instrument(p, function);
    }
    return S_OK;
}

/* A late method has just got its original native code (JIT-compiled, or
 * found precompiled): now ask for its ReJIT, so that it has two native
 * versions (rejitid 0 and n). */
static void late_trigger(shim_profiler *p, FunctionID function, const char *trigger,
                         uint32_t wait_ms)
{
    shim_method *m = shim_lock_function(p, function);
    if (!m)
        return;
    ModuleID module = m->module;
    mdMethodDef token = m->token;
    int now = m->kind == SHIM_KIND_LATE && m->life == SHIM_LIFE_WAITING;
    if (now) {
        m->life = SHIM_LIFE_REQUESTED;
        p->count.late_waiting--;
        p->count.rejit_requested++;
        if (trigger[0] == 'j')
            p->count.late_by_jit++;
        else
            p->count.late_by_cached_search++;
    }
    shim_unlock(p);
    if (!now)
        return;
    /* Found precompiled: the request waits until that code is published
     * (shim/FINDINGS.md#rejit-before-publish). */
    FunctionID publish = trigger[0] == 'c' ? function : 0;
    HRESULT hr = shim_rejit_request(&p->rejit, &module, &token, 1, publish, wait_ms);
    shim_request_note note = {NULL, m, function, trigger, 1, hr, wait_ms};
    SHIM_HOOK(p, rejit_requested, &note);
    if (FAILED(hr))
        shim_log("late RequestReJIT for %s failed: 0x%08X", shim_method_name(p, m),
                 (unsigned)hr);
}

HRESULT CLR_STDCALL shim_cb_jit_finished(ICorProfilerCallback4 *self, FunctionID function,
                                         HRESULT status, BOOL safe_to_block)
{
    (void)safe_to_block;
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_lock(p);
    p->count.jit_finished++;
    size_t waiting = p->count.late_waiting;
    shim_unlock(p);
    if (FAILED(status))
        return S_OK;
    /* A late method's ReJIT request first: the sooner it is made, the
     * fewer calls run the original code. */
    if (waiting)
        late_trigger(p, function, "jit", p->wait_ms);
    /* Every JIT compilation of a selected method is a new body of its
     * original code (one per tier with tiering kept): into the store. It
     * stays readable by its code start after the request. */
    shim_record_jit_bodies(p, function);
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
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized)
        return S_OK;
    shim_lock(p);
    p->count.cached_searches++;
    size_t waiting = p->count.late_waiting;
    shim_unlock(p);
    if (!waiting || result != COR_PRF_CACHED_FUNCTION_FOUND)
        return S_OK;
    /* Not waiting for the request here: this thread is inside the
     * runtime's code lookup for the method, and may hold what
     * RequestReJIT needs. The ReJIT thread makes the request later. */
    late_trigger(p, function, "cached_search", 0);
    return S_OK;
}

