/*
 * Check c_source: each frame the program recorded (the ILMAP_SHIM_FRAMES
 * file, one line per Frames.Record call: token, native offset, IL offset,
 * method, [CallerLineNumber], StackFrame's line and column, then
 * tab-separated StackFrame's file name and [CallerFilePath]) looked up by
 * address in the version store, which has the module's PDB attached
 * (shim_source_lookup: ilmap_store_snapshot_lookup_source, a return
 * address given as one with ILMAP_STORE_RETURN_ADDRESS)
 * and held against the runtime and the compiler:
 *   - when StackFrame gave a line (every frame on .NET 10, instrumented
 *     ones included): document, line and column equal its, compared
 *     exactly (the runtime reports the document name as the PDB stores
 *     it);
 *   - when it gave none: the line equals the call site's.
 * Whether document and line are the call site's ([CallerFilePath],
 * [CallerLineNumber]) is counted by kind of method
 * (observed, never instrumented; instrumented; the unmapped twin,
 * instrumented without a COR_IL_MAP, whose IL offsets neither the runtime
 * nor the store can translate back).
 * A frame that cannot be placed at one address is counted as skipped
 * with its reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/frames.h"
#include "harness/source_checks.h"
#include "base/text.h"

/* The one body address of the frame's query, or a skip reason. */
static const char *place(shim_profiler *p, const shim_frame_modules *modules,
                         const shim_frame *f, uint32_t query, int *kind, const char **name,
                         uintptr_t *address, uintptr_t *code_start)
{
    const shim_version *v = NULL;
    const shim_method *owner = NULL;
    size_t candidates = 0, original_bodies = 0, observed = 0;
    UINT_PTR original_start = 0;
    size_t rejit_bodies = 0;
    shim_lock(p);
    for (size_t i = 0; i < p->registry.count; i++) {
        const shim_method *mi = p->registry.methods[i];
        if (!shim_frame_names(modules, mi, f))
            continue;
        const shim_harness_method *hm = mi->observer;
        if (mi->kind == SHIM_KIND_OBSERVE) {
            observed++;
            owner = mi;
            for (size_t b = 0; b < mi->body_count; b++)
                if (mi->bodies[b].rejit == 0 && mi->bodies[b].in_store) {
                    original_bodies++;
                    original_start = mi->bodies[b].code_start;
                }
            continue;
        }
        if (!hm)
            continue;
        candidates += hm->version_count;
        if (hm->version_count) {
            v = hm->versions[0];
            owner = mi;
            for (size_t b = 0; b < mi->body_count; b++)
                rejit_bodies += mi->bodies[b].rejit == v->rejit;
        }
    }
    *name = owner ? shim_method_name(p, owner) : "?";
    *kind = owner && owner->kind == SHIM_KIND_OBSERVE ? 0 : owner && owner->role == SHIM_ROLE_TWIN_UNMAPPED ? 2 : 1;
    shim_unlock(p);
    if (observed) {
        if (observed > 1 || candidates)
            return "ambiguous";
        if (original_bodies == 0)
            return "no_body";
        if (original_bodies > 1)
            return "tiers"; /* the frame does not say which tier ran */
        *code_start = original_start;
        *address = original_start + query;
        return NULL;
    }
    if (candidates == 0)
        return "no_body";
    if (candidates > 1)
        return "ambiguous";
    if (rejit_bodies > 1)
        return "tiers";
    *code_start = v->code_start;
    if (shim_code_address(v->ranges, v->range_count, query, address))
        return "past_end";
    return NULL;
}

static void count_skip(shim_source_counts *c, const char *why)
{
    if (strcmp(why, "no_body") == 0)
        c->skipped_no_body++;
    else if (strcmp(why, "tiers") == 0)
        c->skipped_tiers++;
    else
        c->skipped_other++;
}

void shim_check_frame_source(shim_harness *h, shim_profiler *p,
                             const shim_frame_modules *modules, const shim_frame *f,
                             shim_source_counts *c)
{
    unsigned native = f->native, caller_line = f->caller_line, rt_line = f->runtime_line,
             rt_column = f->runtime_column;
    long long il_signed = f->il;
    const char *rt_file = f->runtime_file, *caller_file = f->caller_file;
    /* Nothing to hold the answer to: no call-site line, no runtime line
     * (a frame above the program's own code, in a module without PDB). */
    if (caller_line == 0 && rt_line == 0) {
        c->skipped_no_line++;
        return;
    }
    uint32_t query = native ? native - 1 : 0; /* a return address, as check (c) */
    int kind = 1;
    const char *name = "?";
    uintptr_t address = 0, code_start = 0;
    const char *why = place(p, modules, f, query, &kind, &name, &address, &code_start);
    char method[400], file[1100], runtime_file[1100];
    shim_json_escape(method, sizeof method, name);
    if (why) {
        count_skip(c, why);
        shim_report_event(&h->report, "c_source_skipped",
                          "\"method\":\"%s\",\"native\":%u,\"reason\":\"%s\"", method, native,
                          why);
        return;
    }
    shim_source src;
    /* The frame's return address itself (native, one past query) with the
     * store's return-address rule, where it lies in the same range. */
    ilmap_status st = native ? shim_source_lookup(&p->store, address + 1,
                                                  ILMAP_STORE_RETURN_ADDRESS, &src)
                             : shim_source_lookup(&p->store, address, 0, &src);
    int placed = src.location.code_start == code_start && src.location.native_offset == query;
    int same_as_runtime = st == ILMAP_OK && rt_line != 0 && src.line == rt_line &&
                          src.column == rt_column && strcmp(src.document, rt_file) == 0;
    int caller_agrees =
        st == ILMAP_OK && src.line == caller_line && strcmp(src.document, caller_file) == 0;
    /* The runtime's line when it gave one (exactly: our lookup reads the
     * same native map and PDB); the call site's line otherwise. The call
     * site is no oracle where the runtime itself reports another line
     * (frames in exception handlers, and the unmapped twin's new IL:
     * shim/FINDINGS.md, round 9): counted, not required. */
    int ok = placed && (rt_line ? same_as_runtime : caller_agrees);
    const char *kind_str;
    if (kind == 0) {
        kind_str = "not_instrumented";
        c->plain++;
        c->plain_caller += caller_agrees;
    } else if (kind == 2) {
        kind_str = "unmapped_twin";
        c->unmapped++;
    } else {
        kind_str = "instrumented";
        c->instrumented++;
        c->instrumented_caller += caller_agrees;
        if (rt_line)
            c->instrumented_runtime_lines++;
    }
    shim_json_escape(file, sizeof file, src.document);
    shim_json_escape(runtime_file, sizeof runtime_file, rt_file);
    shim_report_check(&h->report, "c_source", ok,
                      "\"method\":\"%s\",\"kind\":\"%s\",\"native\":%u,\"query\":%u,"
                      "\"status\":\"%s\",\"rejit\":%" PRIuPTR ",\"mapping\":\"0x%02X\",\"runtime_il\":%lld,"
                      "\"original_il\":%u,\"line\":%u,\"column\":%u,\"caller_line\":%u,"
                      "\"runtime_line\":%u,\"runtime_column\":%u,\"caller_agrees\":%s,"
                      "\"file\":\"%s\",\"runtime_file\":\"%s\"",
                      method, kind_str, native, (unsigned)query, ilmap_status_str(st),
                      (uintptr_t)src.location.rejit_id, src.location.mapping, il_signed, (unsigned)src.location.original_il_offset,
                      (unsigned)src.line, (unsigned)src.column, caller_line, rt_line, rt_column,
                      caller_agrees ? "true" : "false", file, runtime_file);
}
