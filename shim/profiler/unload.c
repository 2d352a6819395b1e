/*
 * ModuleUnloadStarted: a collectible assembly's module is going away, and
 * its ModuleID, its FunctionIDs and its code addresses may be handed out
 * again to code loaded later (doc/rejit.md#removal). Everything the shim
 * keeps about the module goes: the version store's records, in one
 * publication (ilmap_store_remove_module); the method records (registry
 * and index; the bodies and maps they hold); ReJIT requests still queued
 * for it; its watch for the enter/leave hooks. One log line says what was
 * removed. Nothing here fails the callback: a failure is logged and
 * counted, and the shim carries on.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "profiler/modules.h"
#include "profiler/profiler.h"
#include "profiler/unload.h"

HRESULT CLR_STDCALL shim_cb_module_unload_started(ICorProfilerCallback4 *self, ModuleID module)
{
    shim_profiler *p = shim_profiler_of(self);
    if (!p || !p->initialized || !module)
        return S_OK;
    shim_unload_note note;
    memset(&note, 0, sizeof note);
    note.module = module;
    char name[1024];
    shim_module_name(p, module, name, sizeof name); /* still answered at UnloadStarted */
    note.name = name;

    note.requests_dropped = shim_rejit_forget_module(&p->rejit, module);
    if (p->elt_enabled)
        shim_elt_unwatch_module(&p->elt, module);
    if (p->args_enabled)
        shim_args_module_unloaded(&p->args, module);
    note.status = shim_store_remove_module(&p->store, module, &note.removed, &note.before,
                                           &note.after);

    shim_lock(p);
    p->count.modules_unloaded++;
    size_t count = 0;
    shim_method **methods = NULL;
    int unlink_failed = shim_registry_unlink_module(&p->registry, module, &methods, &count);
    p->count.methods_unloaded += count;
    for (size_t i = 0; i < count; i++) /* a late method still waiting stops waiting */
        if (methods[i]->kind == SHIM_KIND_LATE && methods[i]->life == SHIM_LIFE_WAITING &&
            p->count.late_waiting)
            p->count.late_waiting--;
    if (note.status != ILMAP_OK && p->store.store)
        p->count.unload_store_failures++;
    shim_unlock(p);
    note.methods = methods;
    note.method_count = count;

    if (note.status != ILMAP_OK && p->store.store)
        shim_log("module %s (0x%" PRIxPTR ") unloading: removing it from the version store "
                 "failed: %s; it stays there",
                 name, module, ilmap_status_str(note.status));
    if (unlink_failed)
        shim_log("module %s (0x%" PRIxPTR ") unloading: out of memory; its method records "
                 "stay (and may answer for a module loaded at the same ModuleID)",
                 name, module);
    if (count || note.removed.functions || note.removed.il_maps || p->verbose)
        shim_log("module %s (0x%" PRIxPTR ") unloaded: store removed %zu functions, %zu ReJIT "
                 "versions, %zu bodies, %zu IL maps; %zu method records and %zu queued ReJIT "
                 "requests dropped",
                 name, module, note.removed.functions, note.removed.versions,
                 note.removed.bodies, note.removed.il_maps, count, note.requests_dropped);
    SHIM_HOOK(p, module_unloaded, &note);
    for (size_t i = 0; i < count; i++)
        shim_method_free(methods[i]);
    free(methods);
    return S_OK;
}
