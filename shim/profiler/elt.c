/*
 * Enter/leave hooks and libilmap's FunctionIDMapper; see elt.h.
 * Everything the runtime calls here (filter, mapper, hooks) may run on any
 * thread, possibly with runtime locks held: it takes no lock, allocates
 * nothing and only counts, with relaxed atomics where nothing else is
 * published.
 */
#include "profiler/elt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "com/flags.h"
#include "platform/elt_hooks.h"
#include "base/log.h"
#include "values/values.h"

/* The hooks' way to the counters: they get nothing but the client ID. */
static _Atomic(shim_elt *) active;
static atomic_flag claimed = ATOMIC_FLAG_INIT;

DWORD shim_elt_event_mask(int args)
{
    /* Argument mode: the slow path, for the named methods only (args.h). */
    if (args)
        return shim_args_event_mask();
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

/* The stubs' counting (platform/elt_hooks.h) in C, over the same table:
 * argument mode's slow-path hooks count this way. */
void shim_elt_count(uintptr_t id, int kind)
{
    const shim_elt_hook_table *t = &shim_elt_hook_counts;
    atomic_uint_least64_t *counts = t->counts[kind];
    if (!counts)
        return;
    /* 0 and IDs past the table are not client IDs of this mapper: a
     * FunctionID (no mapper in force) or garbage. Counted, never used as
     * an index. */
    if (id == 0 || id > t->capacity) {
        bump(t->unknown);
        return;
    }
    bump(&counts[id]);
}

/* Argument mode's slow-path hooks: plain C, called through the runtime's
 * helper with the client ID and the ELT info handle. */
static shim_args_target *args_target(shim_elt *e, UINT_PTR id, FunctionID *function)
{
    if (!e || !e->args || id == 0 || id > e->capacity)
        return NULL;
    *function = atomic_load_explicit(&e->function_of[id], RELAXED);
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    if (!*function)
        return NULL;
    HRESULT hr = e->info->lpVtbl->GetFunctionInfo(e->info, *function, &cls, &module, &token);
    if (FAILED(hr)) {
        shim_values_log_once(1u << 26, "GetFunctionInfo 0x%08X in a hook; such calls not "
                                       "reported",
                             (unsigned)hr);
        return NULL;
    }
    return shim_args_find(e->args, module, token);
}

/* The three slow-path hooks differ only in what they hand args.c. */
static void args_hook(UINT_PTR id, COR_PRF_ELT_INFO elt, enum shim_elt_kind kind)
{
    shim_elt_count(id, kind);
    shim_elt *e = atomic_load_explicit(&active, memory_order_acquire);
    FunctionID function = 0;
    shim_args_target *t = args_target(e, id, &function);
    if (!t)
        return;
    if (kind == SHIM_ELT_ENTER)
        shim_args_enter(e->args, t, function, elt);
    else if (kind == SHIM_ELT_LEAVE)
        shim_args_leave(e->args, t, function, elt);
    else
        shim_args_tailcall(e->args, t);
}

static void CLR_STDCALL args_enter(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    args_hook(id.clientID, elt, SHIM_ELT_ENTER);
}

static void CLR_STDCALL args_leave(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    args_hook(id.clientID, elt, SHIM_ELT_LEAVE);
}

static void CLR_STDCALL args_tailcall(FunctionIDOrClientID id, COR_PRF_ELT_INFO elt)
{
    args_hook(id.clientID, elt, SHIM_ELT_TAILCALL);
}

int shim_elt_watched(shim_elt *e, ModuleID module)
{
    if (!module)
        return 0;
    for (const shim_elt_module *m = atomic_load_explicit(&e->modules, memory_order_acquire); m;
         m = m->next)
        if (atomic_load_explicit(&m->module, memory_order_relaxed) == module)
            return 1;
    return 0;
}

void shim_elt_unwatch_module(shim_elt *e, ModuleID module)
{
    if (!e || !e->started || !module)
        return;
    for (shim_elt_module *m = atomic_load_explicit(&e->modules, memory_order_acquire); m;
         m = m->next) {
        uintptr_t expected = module;
        atomic_compare_exchange_strong(&m->module, &expected, (uintptr_t)0);
    }
}

/* libilmap's filter: hook a function iff its module is watched.
 * GetFunctionInfo may be called from anywhere (doc/profiling-abi.md#call-rules). */
static int filter(void *context, ilmap_function_id function)
{
    shim_elt *e = context;
    if (!e || !e->info)
        return 0;
    bump(&e->filter_calls);
    ClassID cls = 0;
    ModuleID module = 0;
    mdToken token = 0;
    HRESULT hr = e->info->lpVtbl->GetFunctionInfo(e->info, function, &cls, &module, &token);
    if (FAILED(hr)) {
        bump(&e->filter_no_info);
        if (e->args)
            shim_values_log_once(1u << 27, "GetFunctionInfo 0x%08X at the FunctionIDMapper; "
                                           "such functions not hooked",
                                 (unsigned)hr);
        return 0;
    }
    shim_args_target *t = e->args ? shim_args_find(e->args, module, token) : NULL;
    if (t) {
        shim_args_prepare(e->args, t);
        shim_args_prepare_body(e->args, t, function);
    }
    int hook = e->args ? t != NULL : shim_elt_watched(e, module);
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

int shim_elt_stubs_available(void)
{
    shim_elt_hooks hooks;
    return shim_elt_hooks_get(&hooks, 0);
}

int shim_elt_start(shim_elt *e, ICorProfilerInfo4 *info, size_t max_functions)
{
    if (!e || !info) {
        shim_log("ELT: bad arguments; no enter/leave hooks");
        return 1;
    }
    if (atomic_flag_test_and_set(&claimed)) {
        shim_log("ELT: already started in this process");
        return 1;
    }
    shim_elt_hooks hooks = {0};
    if (!e->args && !shim_elt_hooks_get(&hooks, e->floor)) {
        shim_log("ELT: no fast-path hook stubs for this platform; running without enter/leave "
                 "hooks (the runtime's slow path would corrupt vector arguments)");
        e->setup = SHIM_ELT_SETUP_NO_STUBS;
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
        e->setup = SHIM_ELT_SETUP_NO_MAPPER;
        e->mapper_status = st;
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
    /* Published before the runtime can call anything: the slow-path
     * hooks find e through active; both kinds of hook count through the
     * table (floor mode's count nothing). */
    atomic_store_explicit(&active, e, memory_order_release);
    if (!e->floor) {
        shim_elt_hook_counts.capacity = e->capacity;
        shim_elt_hook_counts.unknown = &e->unknown_ids;
        shim_elt_hook_counts.counts[SHIM_ELT_ENTER] = e->enters;
        shim_elt_hook_counts.counts[SHIM_ELT_LEAVE] = e->leaves;
        shim_elt_hook_counts.counts[SHIM_ELT_TAILCALL] = e->tailcalls;
        atomic_thread_fence(memory_order_release);
    }

    /* Mask, hooks, then the mapper (doc/function-ids.md#setup). */
    if (e->args)
        e->hr_hooks = info->lpVtbl->SetEnterLeaveFunctionHooks3WithInfo(info, args_enter,
                                                                        args_leave,
                                                                        args_tailcall);
    else
        e->hr_hooks = info->lpVtbl->SetEnterLeaveFunctionHooks3(info, hooks.enter,
                                                                hooks.leave, hooks.tailcall);
    if (SUCCEEDED(e->hr_hooks))
        e->hr_mapper = info->lpVtbl->SetFunctionIDMapper2(info, map_function, e);
    int ok = SUCCEEDED(e->hr_hooks) && SUCCEEDED(e->hr_mapper);
    e->started = 1;
    e->setup = SHIM_ELT_SETUP_SET;
    e->saves = e->args ? "slow-path" : hooks.how;
    if (!ok)
        shim_log("ELT: SetEnterLeaveFunctionHooks3WithInfo 0x%08X, SetFunctionIDMapper2 0x%08X",
                 (unsigned)e->hr_hooks, (unsigned)e->hr_mapper);
    return !ok;
}

void shim_elt_watch_module(shim_elt *e, ModuleID module)
{
    if (!e || !e->started || !module || shim_elt_watched(e, module))
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
    atomic_init(&m->module, module);
    m->next = atomic_load_explicit(&e->modules, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&e->modules, &m->next, m,
                                                  memory_order_release, memory_order_relaxed)) {
    }
    atomic_fetch_add(&e->modules_watched, 1);
}
