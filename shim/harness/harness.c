/*
 * The harness's hooks: what the profiler tells it becomes report lines
 * (checks and events), and at shutdown check (c), the hook checks and the
 * summary line with the profiler's counters and where every selected
 * method ended up.
 */
#include "harness/harness.h"
#include "harness/body_checks.h"
#include "harness/checks.h"
#include "harness/elt_checks.h"
#include "harness/unload_checks.h"

#include <stdatomic.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/text.h"

static shim_harness the_harness;

shim_harness_method *shim_harness_method_of(shim_method *m)
{
    if (!m->observer)
        m->observer = calloc(1, sizeof(shim_harness_method));
    return m->observer;
}

static void on_configure(void *ctx, shim_profiler *p, shim_settings *s)
{
    shim_harness *h = ctx;
    (void)p;
    s->probe_every = shim_env_u32("ILMAP_SHIM_PROBE_EVERY", s->probe_every);
    s->twins = getenv("ILMAP_SHIM_TWINS");
    shim_report_open(&h->report, getenv("ILMAP_SHIM_REPORT"));
    const char *frames = getenv("ILMAP_SHIM_FRAMES");
    if (frames && *frames) {
        size_t n = strlen(frames) + 1;
        h->frames_path = malloc(n);
        if (h->frames_path)
            memcpy(h->frames_path, frames, n);
    }
}

static void report_runtime(shim_report *r, shim_profiler *p)
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
    shim_report_event(r, "runtime",
                      "\"hr\":\"0x%08X\",\"runtime_type\":%d,\"version\":\"%u.%u.%u.%u\","
                      "\"string\":\"%s\",\"info5\":%s,\"info9\":%s",
                      (unsigned)hr, (int)type, major, minor, build, qfe, safe,
                      p->has_info5 ? "true" : "false", p->has_info9 ? "true" : "false");
}

static void on_initialized(void *ctx, shim_profiler *p, const shim_init_note *n)
{
    shim_report *r = &((shim_harness *)ctx)->report;
    if (FAILED(n->hr_mask)) {
        shim_report_event(r, "initialize_failed", "\"hr\":\"0x%08X\"", (unsigned)n->hr_mask);
        shim_report_close(r);
        return;
    }
    report_runtime(r, p);
    if (p->elt_enabled || p->elt.setup == SHIM_ELT_SETUP_NO_STUBS)
        shim_check_elt_setup(&p->elt, r);
    if (p->elt.args)
        shim_report_event(r, "args_setup",
                          "\"ok\":%s,\"hooks_hr\":\"0x%08X\",\"mapper_hr\":\"0x%08X\","
                          "\"selectors\":%zu,\"max_calls\":%" PRIu32,
                          p->args_enabled ? "true" : "false", (unsigned)p->elt.hr_hooks,
                          (unsigned)p->elt.hr_mapper, p->args.selection.count,
                          p->args.max_calls);
    shim_report_event(r, "initialized",
                      "\"event_mask\":\"0x%08X\",\"high_mask_hr\":\"0x%08X\",\"selectors\":%zu,"
                      "\"probe\":%s,\"elt\":%s,\"store\":%s",
                      (unsigned)n->mask, (unsigned)n->hr_high, p->selection.count,
                      p->selection.probe.type_name ? "true" : "false",
                      p->elt_enabled ? "true" : "false", p->store.store ? "true" : "false");
    if (n->rejit_thread_failed)
        shim_report_event(r, "rejit_thread_failed", NULL);
}

static void on_rejit_requested(void *ctx, shim_profiler *p, const shim_request_note *n)
{
    shim_report *r = &((shim_harness *)ctx)->report;
    if (!n->method) {
        shim_report_event(r, "rejit_requested",
                          "\"module\":\"%s\",\"methods\":%zu,\"hr\":\"0x%08X\",\"timed_out\":%s",
                          n->module ? n->module : "", n->count, (unsigned)n->hr,
                          n->hr == S_FALSE ? "true" : "false");
        return;
    }
    shim_report_event(r, "rejit_requested_late",
                      "\"method\":\"%s\",\"function\":\"0x%" PRIxPTR "\",\"trigger\":\"%s\","
                      "\"hr\":\"0x%08X\",\"waited\":%s",
                      shim_method_name(p, n->method), n->function, n->trigger, (unsigned)n->hr,
                      n->wait_ms ? "true" : "false");
}

static void on_rejit_parameters(void *ctx, shim_profiler *p, shim_method *m,
                             const shim_params_note *n)
{
    shim_report *r = &((shim_harness *)ctx)->report;
    const char *name = shim_method_name(p, m);
    const shim_instrumented *inst = n->inst;
    if (m->wrap) {
        /* ILMAP_SHIM_WRAP: wrapped, or why not (a method the wrap cannot
         * take is no failure; the shim failing to prepare it is). */
        if (n->refused)
            shim_report_check(r, "wrap", !m->wrap_failed,
                              "\"method\":\"%s\",\"token\":\"0x%08X\",\"wrapped\":false,"
                              "\"reason\":\"%s\"",
                              name, (unsigned)m->token, n->refused);
        else if (inst)
            shim_report_check(r, "wrap", SUCCEEDED(n->hr_body),
                              "\"method\":\"%s\",\"token\":\"0x%08X\",\"wrapped\":true,"
                              "\"old_size\":%u,\"new_size\":%zu",
                              name, (unsigned)m->token, (unsigned)n->il_size, inst->body_size);
    }
    if (n->refused) {
        shim_report_event(r, "instrument_refused", "\"method\":\"%s\",\"why\":\"%s\"", name,
                          n->refused);
        return;
    }
    if (!inst) {
        shim_report_check(r, "il_body", 0, "\"method\":\"%s\",\"hr\":\"0x%08X\"", name,
                          (unsigned)n->hr_il);
        return;
    }
    shim_report_check(r, "instrument", 1,
                      "\"method\":\"%s\",\"old_size\":%u,\"new_size\":%zu,\"probes\":%u,"
                      "\"widened\":%u",
                      name, (unsigned)n->il_size, inst->body_size, (unsigned)inst->probes,
                      (unsigned)inst->widened);
    shim_report_check(r, "set_body", SUCCEEDED(n->hr_body),
                      "\"method\":\"%s\",\"token\":\"0x%08X\",\"hr\":\"0x%08X\",\"how\":\"%s\","
                      "\"new_size\":%zu,\"map_entries\":%zu",
                      name, (unsigned)m->token, (unsigned)n->hr_body, inst->how, inst->body_size,
                      inst->map_count);
    if (!n->map_checked)
        return;
    shim_report_check(r, "map_valid", n->map_status == ILMAP_OK,
                      "\"method\":\"%s\",\"status\":\"%s\",\"entries\":%zu", name,
                      ilmap_status_str(n->map_status), inst->map_count);
    if (n->map_tried)
        shim_report_check(r, "set_map", SUCCEEDED(n->hr_map),
                          "\"method\":\"%s\",\"hr\":\"0x%08X\",\"entries\":%zu", name,
                          (unsigned)n->hr_map, inst->map_count);
    if (!n->recorded)
        return;
    /* The new body's instruction starts, for (a) of the unmapped twin. */
    uint32_t *starts = malloc((inst->new_start_count ? inst->new_start_count : 1) *
                              sizeof *starts);
    if (starts && inst->new_start_count)
        memcpy(starts, inst->new_starts, inst->new_start_count * sizeof *starts);
    shim_lock(p);
    shim_harness_method *hm = shim_harness_method_of(m);
    if (hm && starts && !hm->new_starts) {
        hm->new_starts = starts;
        hm->new_start_count = inst->new_start_count;
        starts = NULL;
    }
    shim_unlock(p);
    free(starts);
}

static void on_rejit_finished(void *ctx, shim_profiler *p, shim_method *m, FunctionID function,
                           ReJITID rejit, HRESULT status)
{
    shim_report *r = &((shim_harness *)ctx)->report;
    const char *name = shim_method_name(p, m);
    shim_report_check(r, "rejit_compiled", SUCCEEDED(status),
                      "\"method\":\"%s\",\"function\":\"0x%" PRIxPTR "\",\"rejit\":%" PRIuPTR
                      ",\"hr\":\"0x%08X\"",
                      name, function, rejit, (unsigned)status);
    shim_lock(p);
    int instrumented = m->life == SHIM_LIFE_INSTRUMENTED;
    shim_unlock(p);
    if (SUCCEEDED(status) && !instrumented)
        shim_report_event(r, "rejit_uninstrumented", "\"method\":\"%s\"", name);
}

static void on_rejit_error(void *ctx, shim_profiler *p, shim_method *m, mdMethodDef token,
                        FunctionID function, HRESULT status)
{
    shim_report *r = &((shim_harness *)ctx)->report;
    shim_report_check(r, "rejit_error", 0,
                      "\"method\":\"%s\",\"token\":\"0x%08X\",\"function\":\"0x%" PRIxPTR
                      "\",\"hr\":\"0x%08X\"",
                      m ? shim_method_name(p, m) : "?", (unsigned)token, function,
                      (unsigned)status);
}

static void on_body_read(void *ctx, shim_profiler *p, shim_method *m, const shim_body_note *n)
{
    shim_check_body(ctx, p, m, n);
    shim_check_body_lookup(ctx, p, m, n);
}

static void on_module_unloaded(void *ctx, shim_profiler *p, const shim_unload_note *n)
{
    shim_check_unload(ctx, p, n);
}

static void on_args_line(void *ctx, shim_profiler *p, const char *line)
{
    (void)p;
    shim_report_line(&((shim_harness *)ctx)->report, line);
}

/* One statics_generic event per listed generic class: how many of its
 * ClassIDs got lines, and what the runtime answered at the last report
 * for the fields of those that got none (the type definition's own
 * ClassID, the canonical instantiation shared code runs as). */
static void report_generic_statics(shim_harness *h, shim_profiler *p)
{
    for (const shim_statics_class *c = atomic_load(&p->statics.classes); c; c = c->next) {
        if (!c->generic)
            continue;
        size_t shown = 0;
        char hidden[2048];
        size_t len = 0;
        hidden[0] = '\0';
        for (shim_statics_inst *i = atomic_load(&c->insts); i; i = atomic_load(&i->next)) {
            if (!i->hidden) {
                shown++;
                continue;
            }
            int n = snprintf(hidden + len, sizeof hidden - len, "%s{\"type_args\":%s,\"hr\":{",
                             len ? "," : "", i->type_args);
            for (size_t f = 0; n > 0 && (size_t)n < sizeof hidden - len && f < c->field_count;
                 f++) {
                len += (size_t)n;
                n = snprintf(hidden + len, sizeof hidden - len, "%s\"%s\":\"0x%08X\"",
                             f ? "," : "", c->fields[f].name, (unsigned)atomic_load(&i->hr[f]));
            }
            if (n > 0 && (size_t)n < sizeof hidden - len) {
                len += (size_t)n;
                n = snprintf(hidden + len, sizeof hidden - len, "}}");
            }
            if (n < 0 || (size_t)n >= sizeof hidden - len) {
                len = 0; /* too long: none listed */
                hidden[0] = '\0';
                break;
            }
            len += (size_t)n;
        }
        shim_report_event(&h->report, "statics_generic",
                          "\"class\":\"%s\",\"instantiations\":%zu,\"open_hr\":\"0x%08X\","
                          "\"hidden\":[%s]",
                          c->name, shown, (unsigned)c->open_hr, hidden);
    }
}

static void on_shutdown(void *ctx, shim_profiler *p)
{
    shim_harness *h = ctx;
    shim_check_frames(h, p);
    shim_report_bodies_by_tier(h);
    shim_check_store_final(h, p);
    if (p->elt_enabled)
        shim_check_elt(&p->elt, &h->report);
    if (p->args_enabled) {
        size_t methods = 0;
        for (const shim_args_target *t = atomic_load(&p->args.targets); t; t = t->next)
            methods++;
        size_t classes = 0;
        for (const shim_statics_class *c = atomic_load(&p->statics.classes); c; c = c->next)
            classes++;
        shim_report_event(&h->report, "args_done",
                          "\"methods\":%zu,\"lines\":%" PRIu64 ",\"skipped\":%" PRIu64
                          ",\"refused\":%" PRIu64 ",\"statics_classes\":%zu,"
                          "\"statics_lines\":%" PRIu64 ",\"statics_incomplete\":%" PRIu64
                          ",\"statics_failed\":%" PRIu64,
                          methods, (uint64_t)atomic_load(&p->args.lines),
                          (uint64_t)atomic_load(&p->args.skipped),
                          (uint64_t)atomic_load(&p->args.refused), classes,
                          (uint64_t)atomic_load(&p->statics.lines),
                          (uint64_t)atomic_load(&p->statics.incomplete),
                          (uint64_t)atomic_load(&p->statics.failed));
    }
    if (p->args_enabled && p->statics_enabled)
        report_generic_statics(h, p);
    shim_lock(p);
    /* Where every selected method ended up: instrumented, refused by the
     * instrumenter, requested but never compiled (never called after the
     * request), late and never compiled at all, or observed (never
     * instrumented by design; of those, the ones compiled). They add up
     * to methods_selected; the field suite holds the shim to that. */
    size_t rejitted = 0, requested_not_compiled = 0, late_never_compiled = 0;
    size_t observed = 0, observed_compiled = 0;
    for (size_t i = 0; i < p->registry.count; i++) {
        const shim_method *m = p->registry.methods[i];
        const shim_harness_method *hm = m->observer;
        rejitted += hm && hm->version_count != 0;
        switch (m->life) {
        case SHIM_LIFE_OBSERVED:
            observed++;
            observed_compiled += m->body_count != 0;
            break;
        case SHIM_LIFE_INSTRUMENTED:
        case SHIM_LIFE_REFUSED:
            break;
        case SHIM_LIFE_REQUESTED:
            requested_not_compiled++;
            break;
        case SHIM_LIFE_WAITING:
            /* at JIT time, a method that never compiled counts as
             * requested: its module said it would be instrumented */
            if (m->kind == SHIM_KIND_LATE)
                late_never_compiled++;
            else
                requested_not_compiled++;
            break;
        }
    }
    const shim_counters *c = &p->count;
    shim_report_summary(
        &h->report,
        "\"methods_selected\":%zu,\"methods_instrumented\":%" PRIu64 ",\"methods_rejitted\":%zu,"
        "\"modules_loaded\":%" PRIu64 ",\"jit_started\":%" PRIu64 ",\"jit_finished\":%" PRIu64
        ",\"rejit_requested\":%" PRIu64 ",\"rejit_parameters\":%" PRIu64
        ",\"rejit_started\":%" PRIu64 ",\"rejit_finished\":%" PRIu64 ",\"rejit_errors\":%" PRIu64
        ",\"methods_skipped_no_body\":%" PRIu64 ",\"methods_refused\":%" PRIu64
        ",\"methods_dropped\":%" PRIu64 ",\"versions_dropped\":%" PRIu64
        ",\"bodies_dropped\":%" PRIu64 ",\"late_waiting\":%zu,\"late_trigger_jit\":%" PRIu64
        ",\"late_trigger_cached_search\":%" PRIu64 ",\"cached_searches\":%" PRIu64
        ",\"bodies_checked\":%" PRIu64 ",\"bodies_extra\":%" PRIu64 ",\"keep_tiering\":%s"
        ",\"methods_requested_not_compiled\":%zu,\"methods_late_never_compiled\":%zu"
        ",\"modules_unloaded\":%" PRIu64 ",\"methods_unloaded\":%" PRIu64
        ",\"unload_store_failures\":%" PRIu64 ",\"bodies_stored_extra\":%" PRIu64
        ",\"bodies_stored_original\":%" PRIu64
        ",\"methods_observed\":%zu,\"methods_observed_compiled\":%zu",
        p->registry.count, c->instrumented_bodies, rejitted, c->modules_loaded, c->jit_started,
        c->jit_finished, c->rejit_requested, c->rejit_params, c->rejit_started,
        c->rejit_finished, c->rejit_errors, c->methods_skipped_no_body, c->methods_refused,
        c->methods_dropped, h->versions_dropped, c->bodies_dropped, c->late_waiting,
        c->late_by_jit, c->late_by_cached_search, c->cached_searches, c->bodies_read,
        c->bodies_extra, p->keep_tiering ? "true" : "false", requested_not_compiled,
        late_never_compiled, c->modules_unloaded, c->methods_unloaded, c->unload_store_failures,
        c->bodies_stored_extra, c->bodies_stored_original, observed, observed_compiled);
    shim_unlock(p);
    shim_report_close(&h->report);
}

static const shim_hooks harness_hooks = {
    &the_harness,      on_configure,     on_initialized,
    on_rejit_requested, on_rejit_parameters, on_rejit_finished,
    on_rejit_error,    on_body_read,     on_shutdown,
    on_module_unloaded, on_args_line,
};

const shim_hooks *shim_harness_hooks(void)
{
    return &harness_hooks;
}
