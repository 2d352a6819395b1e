/*
 * The shim's ICorProfilerCallback4 vtable: the do-nothing stubs of
 * com/callback_stubs.c with the callbacks the profiler acts on (profiler.c,
 * modules.c, unload.c, rejit.c) put in their slots.
 */
#include <stdatomic.h>

#include "com/callback_stubs.h"
#include "profiler/callbacks.h"
#include "profiler/modules.h"
#include "profiler/profiler.h"
#include "profiler/rejit.h"
#include "profiler/unload.h"

static ICorProfilerCallback4Vtbl vtbl;

static void build(ICorProfilerCallback4Vtbl *v)
{
    *v = clr_callback4_stubs;
    v->QueryInterface = shim_cb_query_interface;
    v->AddRef = shim_cb_add_ref;
    v->Release = shim_cb_release;
    v->Initialize = shim_cb_initialize;
    v->Shutdown = shim_cb_shutdown;
    v->ModuleLoadFinished = shim_cb_module_load_finished;
    v->ModuleUnloadStarted = shim_cb_module_unload_started;
    v->ClassLoadFinished = shim_cb_class_load_finished;
    v->JITCompilationStarted = shim_cb_jit_started;
    v->JITCompilationFinished = shim_cb_jit_finished;
    v->JITCachedFunctionSearchStarted = shim_cb_cache_search_started;
    v->JITCachedFunctionSearchFinished = shim_cb_cache_search_finished;
    v->ReJITCompilationStarted = shim_cb_rejit_started;
    v->GetReJITParameters = shim_cb_get_rejit_parameters;
    v->ReJITCompilationFinished = shim_cb_rejit_finished;
    v->ReJITError = shim_cb_rejit_error;
}

const ICorProfilerCallback4Vtbl *shim_callback_vtbl(void)
{
    /* Built once, on first use: C cannot initialise one static struct
     * from another at compile time. 0 = empty, 1 = being built, 2 = ready;
     * a thread that loses the race waits the few stores it takes. */
    static atomic_int state;
    int expected = 0;
    if (atomic_compare_exchange_strong(&state, &expected, 1)) {
        build(&vtbl);
        atomic_store(&state, 2);
    } else {
        while (atomic_load(&state) != 2) {
        }
    }
    return &vtbl;
}
