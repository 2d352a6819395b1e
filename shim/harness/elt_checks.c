/*
 * The harness's checks of the enter/leave hooks and libilmap's
 * FunctionIDMapper (ILMAP_SHIM_ELT=1): how the set-up went, and at
 * shutdown the checks "elt_mapper" (the mapper was called, decided some
 * functions yes and some no, never failed), "elt_client" (one per client
 * ID handed out or seen by a hook: the ID round-trips through
 * ilmap_fid_mapper_get_function/lookup, every mapper answer for it was for
 * the same FunctionID, the function is in a watched module, enters >=
 * leaves + tailcalls) and "elt_hooks" (no hook saw an ID the mapper did
 * not hand out, and hooks ran). Calls the runtime (names for the report).
 */
#include <inttypes.h>
#include <stdio.h>

#include "com/flags.h"
#include "com/guids.h"
#include "com/metadata.h"
#include "harness/elt_checks.h"
#include "select/resolve.h"
#include "base/text.h"

void shim_check_elt_setup(const shim_elt *e, shim_report *r)
{
    switch (e->setup) {
    case SHIM_ELT_SETUP_NO_STUBS:
        shim_report_check(r, "elt_setup", 0, "\"status\":\"no hook stubs for this platform\"");
        break;
    case SHIM_ELT_SETUP_NO_MAPPER:
        shim_report_check(r, "elt_setup", 0, "\"status\":\"%s\",\"capacity\":%zu",
                          ilmap_status_str(e->mapper_status), e->capacity);
        break;
    case SHIM_ELT_SETUP_SET:
        shim_report_check(r, "elt_setup", SUCCEEDED(e->hr_hooks) && SUCCEEDED(e->hr_mapper),
                          "\"hooks_hr\":\"0x%08X\",\"mapper_hr\":\"0x%08X\",\"capacity\":%zu,"
                          "\"path\":\"fast\",\"saves\":\"%s\"",
                          (unsigned)e->hr_hooks, (unsigned)e->hr_mapper, e->capacity,
                          e->saves ? e->saves : "");
        break;
    default:
        break;
    }
}

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
        shim_method_props(md, token, utf8, sizeof utf8, NULL);
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
             SUCCEEDED(hr) && shim_elt_watched(e, module) && enters >= leaves + tailcalls;
    shim_report_check(r, "elt_client", ok,
                      "\"client_id\":%zu,\"method\":\"%s\",\"token\":\"0x%08X\","
                      "\"function\":\"0x%" PRIxPTR "\",\"round_trip\":%s,\"mapper_calls\":%" PRIu64
                      ",\"same_function\":%s,\"watched\":%s,\"enters\":%" PRIu64
                      ",\"leaves\":%" PRIu64 ",\"tailcalls\":%" PRIu64,
                      id, name, (unsigned)token, function, round_trip ? "true" : "false", calls,
                      answered_for == function ? "true" : "false",
                      shim_elt_watched(e, module) ? "true" : "false", enters, leaves, tailcalls);
}

void shim_check_elt(shim_elt *e, shim_report *r)
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
    /* Floor mode's hooks only return: nothing may have been counted. */
    int hooks_ok = unknown == 0 && (e->floor ? enters + leaves + tailcalls == 0 && seen == 0
                                             : enters > 0 && seen > 0);
    shim_report_check(r, "elt_hooks", hooks_ok,
                      "\"floor\":%s,\"unknown_ids\":%" PRIu64 ",\"ids_seen\":%zu,"
                      "\"enters\":%" PRIu64 ",\"leaves\":%" PRIu64 ",\"tailcalls\":%" PRIu64,
                      e->floor ? "true" : "false", unknown, seen, enters, leaves, tailcalls);
}
