/*
 * Enter/leave hooks and libilmap's FunctionIDMapper; see elt.h.
 * Everything the runtime calls here (filter, mapper, hooks) may run on any
 * thread, possibly with runtime locks held: it takes no lock, allocates
 * nothing and only counts, with relaxed atomics where nothing else is
 * published.
 */
#include "elt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "com/flags.h"
#include "com/guids.h"
#include "com/metadata.h"
#include "log.h"
#include "platform/elt_hooks.h"
#include "utf16.h"

/* The hooks' way to the counters: they get nothing but the client ID. */
static _Atomic(shim_elt *) active;
static atomic_flag claimed = ATOMIC_FLAG_INIT;

DWORD shim_elt_event_mask(void)
{
    /* ENTERLEAVE alone: none of FUNCTION_ARGS, FUNCTION_RETVAL or
     * FRAME_INFO, so the runtime takes the fast path and JIT-compiled
     * code calls the shim's stubs directly (platform/elt_hooks.h says
     * why the slow path is not safe). */
    return COR_PRF_MONITOR_ENTERLEAVE;
}

#define RELAXED memory_order_relaxed

static void bump(atomic_uint_least64_t *counter)
{
    atomic_fetch_add_explicit(counter, 1, RELAXED);
}

/* ---- What the runtime calls ------------------------------------------ */

enum hook_kind { HOOK_ENTER, HOOK_LEAVE, HOOK_TAILCALL };

static void count_hook(UINT_PTR id, enum hook_kind kind)
{
    shim_elt *e = atomic_load_explicit(&active, memory_order_acquire);
    if (!e)
        return;
    /* 0 and IDs past the table are not client IDs of this mapper: a
     * FunctionID (no mapper in force) or garbage. Counted, never used as
     * an index. */
    if (id == 0 || id > e->capacity) {
        bump(&e->unknown_ids);
        return;
    }
    atomic_uint_least64_t *counts = kind == HOOK_ENTER   ? e->enters
                                    : kind == HOOK_LEAVE ? e->leaves
                                                         : e->tailcalls;
    bump(&counts[id]);
}

/* Called by the platform's stubs with every register saved. */
void shim_elt_count(uintptr_t id, int kind)
{
    count_hook(id, kind == SHIM_ELT_LEAVE      ? HOOK_LEAVE
                   : kind == SHIM_ELT_TAILCALL ? HOOK_TAILCALL
                                               : HOOK_ENTER);
}

static int watched(shim_elt *e, ModuleID module)
{
    if (!module)
        return 0;
    for (const shim_elt_module *m = atomic_load_explicit(&e->modules, memory_order_acquire); m;
         m = m->next)
        if (m->module == module)
            return 1;
    return 0;
}

/* libilmap's filter: hook a function iff its module is watched.
 * GetFunctionInfo may be called from anywhere (clr-abi §2: ASYNC). */
static int filter(void *context, ilmap_function_id function)
{
    shim_elt *e = context;
    if (!e || !e->info)
        return 0;
    bump(&e->filter_calls);
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (FAILED(e->info->lpVtbl->GetFunctionInfo(e->info, function, &cls, &module, &token))) {
        bump(&e->filter_no_info);
        return 0;
    }
    int hook = watched(e, module);
    if (hook)
        bump(&e->filter_hooked);
    return hook;
}

/*
 * The FunctionIDMapper2 the runtime calls. The answer is exactly
 * libilmap's ilmap_fid_mapper_callback2 (the mapper as client data); the
 * wrapper only observes it, so that the checks can tell repeated calls
 * for one FunctionID apart and see that each got the same client ID.
 */
static UINT_PTR CLR_STDCALL map_function(FunctionID function, void *client_data,
                                         BOOL *hook_function)
{
    shim_elt *e = client_data;
    if (!e || !e->mapper) {
        if (hook_function)
            *hook_function = 0;
        return function;
    }
    UINT_PTR id = ilmap_fid_mapper_callback2(function, e->mapper, hook_function);
    bump(&e->mapper_calls);
    if (!hook_function || !*hook_function) {
        bump(&e->unhooked_calls);
        if (id != function) /* libilmap answers an unhooked function with itself */
            bump(&e->id_mismatches);
        return id;
    }
    if (id == 0 || id > e->capacity) {
        bump(&e->bad_ids);
        return id;
    }
    if (atomic_fetch_add_explicit(&e->map_calls[id], 1, RELAXED) > 0)
        bump(&e->repeated_calls);
    uintptr_t first = 0;
    if (!atomic_compare_exchange_strong(&e->function_of[id], &first, function) &&
        first != function)
        bump(&e->id_mismatches); /* one ID answered for two FunctionIDs */
    return id;
}

/* ---- Set-up ------------------------------------------------------------ */

int shim_elt_start(shim_elt *e, ICorProfilerInfo4 *info, size_t max_functions, shim_report *r)
{
    if (!e || !info) {
        shim_log("ELT: bad arguments; no enter/leave hooks");
        return 1;
    }
    if (atomic_flag_test_and_set(&claimed)) {
        shim_log("ELT: already started in this process");
        return 1;
    }
    shim_elt_hooks hooks;
    if (!shim_elt_hooks_get(&hooks)) {
        shim_log("ELT: no fast-path hook stubs for this platform; running without enter/leave "
                 "hooks (the runtime's slow path would corrupt vector arguments)");
        shim_report_check(r, "elt_setup", 0, "\"status\":\"no hook stubs for this platform\"");
        return 1;
    }
    e->info = info;
    e->capacity = max_functions ? max_functions : SHIM_ELT_DEFAULT_FUNCTIONS;
    e->hr_hooks = e->hr_mapper = E_FAIL;
    ilmap_status st = ilmap_fid_mapper_create(e->capacity, filter, e, &e->mapper);
    size_t n = e->capacity + 1;
    e->enters = calloc(n, sizeof *e->enters);
    e->leaves = calloc(n, sizeof *e->leaves);
    e->tailcalls = calloc(n, sizeof *e->tailcalls);
    e->map_calls = calloc(n, sizeof *e->map_calls);
    e->function_of = calloc(n, sizeof *e->function_of);
    if (st != ILMAP_OK || !e->enters || !e->leaves || !e->tailcalls || !e->map_calls ||
        !e->function_of) {
        shim_log("ELT: cannot create the mapper for %zu functions (%s); no enter/leave hooks",
                 e->capacity, ilmap_status_str(st));
        shim_report_check(r, "elt_setup", 0, "\"status\":\"%s\",\"capacity\":%zu",
                          ilmap_status_str(st), e->capacity);
        /* Nothing was handed to the runtime: safe to free. */
        ilmap_fid_mapper_free(e->mapper);
        free(e->enters);
        free(e->leaves);
        free(e->tailcalls);
        free(e->map_calls);
        free(e->function_of);
        e->mapper = NULL;
        e->enters = e->leaves = e->tailcalls = e->map_calls = NULL;
        e->function_of = NULL;
        return 1;
    }
    /* Published before the runtime can call anything. */
    atomic_store_explicit(&active, e, memory_order_release);

    /* Hooks first, then the mapper (clr-abi §6: mask, hooks, mapper). */
    e->hr_hooks = info->lpVtbl->SetEnterLeaveFunctionHooks3(info, hooks.enter, hooks.leave,
                                                            hooks.tailcall);
    if (SUCCEEDED(e->hr_hooks))
        e->hr_mapper = info->lpVtbl->SetFunctionIDMapper2(info, map_function, e);
    int ok = SUCCEEDED(e->hr_hooks) && SUCCEEDED(e->hr_mapper);
    e->started = 1;
    shim_report_check(r, "elt_setup", ok,
                      "\"hooks_hr\":\"0x%08X\",\"mapper_hr\":\"0x%08X\",\"capacity\":%zu,"
                      "\"path\":\"fast\",\"saves\":\"%s\"",
                      (unsigned)e->hr_hooks, (unsigned)e->hr_mapper, e->capacity, hooks.how);
    if (!ok)
        shim_log("ELT: SetEnterLeaveFunctionHooks3WithInfo 0x%08X, SetFunctionIDMapper2 0x%08X",
                 (unsigned)e->hr_hooks, (unsigned)e->hr_mapper);
    return !ok;
}

void shim_elt_watch_module(shim_elt *e, ModuleID module)
{
    if (!e || !e->started || !module || watched(e, module))
        return;
    /* Pushed in front, never removed or freed: the filter may be walking
     * the list on another thread at any time (see elt.h). */
    shim_elt_module *m = malloc(sizeof *m);
    if (!m) {
        shim_log("ELT: out of memory; the functions of module 0x%" PRIxPTR " are not hooked",
                 module);
        atomic_fetch_add(&e->modules_refused, 1);
        return;
    }
    m->module = module;
    m->next = atomic_load_explicit(&e->modules, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&e->modules, &m->next, m,
                                                  memory_order_release, memory_order_relaxed)) {
    }
    atomic_fetch_add(&e->modules_watched, 1);
}

/* ---- Shutdown checks ------------------------------------------------------ */

/* "Method" from metadata, JSON-safe; "?" when the runtime cannot say. */
static void method_name(ICorProfilerInfo4 *info, ModuleID module, mdToken token, char *out,
                        size_t cap)
{
    char utf8[512] = "?";
    IUnknown *unk = NULL;
    if (info->lpVtbl->GetModuleMetaData(info, module, CLR_OF_READ, &IID_IMetaDataImport,
                                        &unk) == S_OK &&
        unk) {
        IMetaDataImport *md = (IMetaDataImport *)(void *)unk;
        WCHAR name[256];
        ULONG len = 0, sig_size = 0, rva = 0;
        mdTypeDef cls = 0;
        DWORD attr = 0, impl = 0;
        PCCOR_SIGNATURE sig = NULL;
        if (md->lpVtbl->GetMethodProps(md, token, &cls, name, 256, &len, &attr, &sig, &sig_size,
                                       &rva, &impl) == S_OK)
            shim_utf16_to_utf8(name, len < 256 ? len : 256, utf8, sizeof utf8);
        md->lpVtbl->Release(md);
    }
    shim_json_escape(out, cap, utf8);
}

/* One client ID: handed out by the mapper, or seen by a hook. */
static void check_client(shim_elt *e, shim_report *r, size_t id, size_t hooked)
{
    uint64_t enters = atomic_load(&e->enters[id]), leaves = atomic_load(&e->leaves[id]),
             tailcalls = atomic_load(&e->tailcalls[id]), calls = atomic_load(&e->map_calls[id]);
    uintptr_t answered_for = atomic_load(&e->function_of[id]);
    ilmap_function_id function = 0;
    uintptr_t back = 0;
    int hook = 0;
    ilmap_status st_function = ilmap_fid_mapper_get_function(e->mapper, id, &function);
    ilmap_status st_lookup = ilmap_fid_mapper_lookup(e->mapper, function, &back, &hook);
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    HRESULT hr = function ? e->info->lpVtbl->GetFunctionInfo(e->info, function, &cls, &module,
                                                             &token)
                          : E_INVALIDARG;
    char name[512] = "?";
    if (SUCCEEDED(hr))
        method_name(e->info, module, token, name, sizeof name);
    int round_trip = st_function == ILMAP_OK && st_lookup == ILMAP_OK && back == id && hook;
    int ok = id <= hooked && round_trip && answered_for == function && calls > 0 &&
             SUCCEEDED(hr) && watched(e, module) && enters >= leaves + tailcalls;
    shim_report_check(r, "elt_client", ok,
                      "\"client_id\":%zu,\"method\":\"%s\",\"token\":\"0x%08X\","
                      "\"function\":\"0x%" PRIxPTR "\",\"round_trip\":%s,\"mapper_calls\":%" PRIu64
                      ",\"same_function\":%s,\"watched\":%s,\"enters\":%" PRIu64
                      ",\"leaves\":%" PRIu64 ",\"tailcalls\":%" PRIu64,
                      id, name, (unsigned)token, function, round_trip ? "true" : "false", calls,
                      answered_for == function ? "true" : "false",
                      watched(e, module) ? "true" : "false", enters, leaves, tailcalls);
}

void shim_elt_check(shim_elt *e, shim_report *r)
{
    if (!e || !r || !e->started || !e->mapper)
        return;
    ilmap_fid_mapper_stats stats;
    ilmap_fid_mapper_get_stats(e->mapper, &stats);
    uint64_t calls = atomic_load(&e->mapper_calls), unhooked = atomic_load(&e->unhooked_calls),
             repeated = atomic_load(&e->repeated_calls),
             mismatches = atomic_load(&e->id_mismatches), bad = atomic_load(&e->bad_ids),
             filter_calls = atomic_load(&e->filter_calls),
             filter_hooked = atomic_load(&e->filter_hooked),
             no_info = atomic_load(&e->filter_no_info), unknown = atomic_load(&e->unknown_ids);
    /* The filter ran on every first sight (more often only when threads
     * raced), and decided both ways; libilmap never ran out of room nor
     * gave an ID twice. */
    int mapper_ok = calls > 0 && stats.mapped > 0 && stats.hooked > 0 &&
                    stats.hooked < stats.mapped && stats.refused == 0 && bad == 0 &&
                    mismatches == 0 && filter_calls >= stats.mapped &&
                    filter_hooked >= stats.hooked && atomic_load(&e->modules_refused) == 0;
    shim_report_check(r, "elt_mapper", mapper_ok,
                      "\"mapper_calls\":%" PRIu64 ",\"mapped\":%zu,\"hooked\":%zu,"
                      "\"refused\":%zu,\"unhooked_calls\":%" PRIu64 ",\"repeated_calls\":%" PRIu64
                      ",\"id_mismatches\":%" PRIu64 ",\"bad_ids\":%" PRIu64
                      ",\"filter_calls\":%" PRIu64 ",\"filter_hooked\":%" PRIu64
                      ",\"filter_no_info\":%" PRIu64 ",\"modules_watched\":%zu,"
                      "\"modules_refused\":%zu",
                      calls, stats.mapped, stats.hooked, stats.refused, unhooked, repeated,
                      mismatches, bad, filter_calls, filter_hooked, no_info,
                      atomic_load(&e->modules_watched), atomic_load(&e->modules_refused));

    uint64_t enters = 0, leaves = 0, tailcalls = 0;
    size_t seen = 0;
    for (size_t id = 1; id <= e->capacity; id++) {
        uint64_t in = atomic_load(&e->enters[id]), out = atomic_load(&e->leaves[id]),
                 tail = atomic_load(&e->tailcalls[id]);
        if (in || out || tail)
            seen++;
        else if (id > stats.hooked)
            continue;
        enters += in;
        leaves += out;
        tailcalls += tail;
        check_client(e, r, id, stats.hooked);
    }
    shim_report_check(r, "elt_hooks", unknown == 0 && enters > 0 && seen > 0,
                      "\"unknown_ids\":%" PRIu64 ",\"ids_seen\":%zu,\"enters\":%" PRIu64
                      ",\"leaves\":%" PRIu64 ",\"tailcalls\":%" PRIu64,
                      unknown, seen, enters, leaves, tailcalls);
}
