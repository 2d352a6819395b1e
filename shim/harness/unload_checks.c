/*
 * The unload checks: when a module unloads, the profiler removes it from
 * the version store and hands the harness the module's method records
 * (hooks.h, module_unloaded). Here: what the store says it removed must be
 * exactly what the shim had put in for that module, its counters must
 * have dropped by that much, and none of the module's code starts may
 * still be answered. At shutdown, after reclaiming, nothing may be left
 * waiting and the store must hold exactly the bodies of the modules that
 * are still loaded.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/unload_checks.h"

/* What the shim put in the store for these records: bodies the store
 * took, their distinct ReJIT versions (function, rejit not 0) and
 * distinct functions (each with its original version). */
typedef struct stored_counts {
    size_t bodies, versions, functions, il_maps;
} stored_counts;

typedef struct key2 {
    uintptr_t a, b;
} key2;

static int cmp_key2(const void *x, const void *y)
{
    const key2 *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* How many distinct keys (sorts v); with b 0 throughout, distinct a. */
static size_t distinct(key2 *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_key2);
    size_t d = 1;
    for (size_t i = 1; i < n; i++)
        d += cmp_key2(&v[i], &v[i - 1]) != 0;
    return d;
}

/* 0 on success; the caller holds the profiler lock if the records are live. */
static int count_stored(shim_method *const *methods, size_t count, stored_counts *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < count; i++)
        out->il_maps += methods[i]->il_map_stored != 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < methods[i]->body_count; j++)
            out->bodies += methods[i]->bodies[j].in_store != 0;
    if (out->bodies == 0)
        return 0;
    key2 *functions = malloc(out->bodies * sizeof *functions);
    key2 *versions = malloc(out->bodies * sizeof *versions);
    if (!functions || !versions) {
        free(functions);
        free(versions);
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < methods[i]->body_count; j++) {
            const shim_body *b = &methods[i]->bodies[j];
            if (!b->in_store)
                continue;
            functions[n] = (key2){b->function, 0};
            /* the original version (ReJITID 0) is counted with its function */
            versions[n] = (key2){b->function, b->rejit};
            n++;
        }
    out->functions = distinct(functions, n);
    size_t rejit_versions = 0;
    for (size_t i = 0; i < n; i++)
        if (versions[i].b != 0)
            versions[rejit_versions++] = versions[i];
    out->versions = distinct(versions, rejit_versions);
    free(functions);
    free(versions);
    return 0;
}

static void free_observer(shim_method *m)
{
    shim_harness_method *hm = m->observer;
    if (!hm)
        return;
    for (size_t i = 0; i < hm->version_count; i++) {
        free(hm->versions[i]->ranges);
        free(hm->versions[i]->exported);
        free(hm->versions[i]);
    }
    free(hm->versions);
    free(hm->new_starts);
    free(hm);
    m->observer = NULL;
}

void shim_check_unload(shim_harness *h, shim_profiler *p, const shim_unload_note *n)
{
    shim_report *r = &h->report;
    const ilmap_store_removed *rm = &n->removed;
    size_t instrumented = 0;
    for (size_t i = 0; i < n->method_count; i++)
        instrumented += n->methods[i]->life == SHIM_LIFE_INSTRUMENTED;
    stored_counts want;
    int counted = count_stored(n->methods, n->method_count, &want) == 0;
    shim_report_event(r, "module_unloaded",
                      "\"module\":\"0x%" PRIxPTR "\",\"name\":\"%s\",\"status\":\"%s\","
                      "\"methods\":%zu,\"instrumented\":%zu,\"functions\":%zu,\"versions\":%zu,"
                      "\"bodies\":%zu,\"il_maps\":%zu,\"requests_dropped\":%zu",
                      n->module, n->name ? n->name : "", ilmap_status_str(n->status),
                      n->method_count, instrumented, rm->functions, rm->versions, rm->bodies,
                      rm->il_maps, n->requests_dropped);
    if (p->store.store && (n->method_count || rm->functions || rm->il_maps)) {
        /* The store removed exactly what the shim had put in for it (IL-level
         * maps: only of methods instrumented at JIT time; ReJIT versions
         * carry their own). */
        int ok = n->status == ILMAP_OK && counted && rm->bodies == want.bodies &&
                 rm->versions == want.versions && rm->functions == want.functions &&
                 rm->il_maps == want.il_maps;
        shim_report_check(r, "unload_removed", ok,
                          "\"name\":\"%s\",\"status\":\"%s\",\"functions\":%zu,"
                          "\"want_functions\":%zu,\"versions\":%zu,\"want_versions\":%zu,"
                          "\"bodies\":%zu,\"want_bodies\":%zu,\"il_maps\":%zu,"
                          "\"want_il_maps\":%zu",
                          n->name ? n->name : "", ilmap_status_str(n->status), rm->functions,
                          want.functions, rm->versions, want.versions, rm->bodies, want.bodies,
                          rm->il_maps, want.il_maps);
        /* The counters dropped by what was removed; a function's original
         * version is in stats.versions but not in removed.versions. (A
         * store write on another thread in between would show here: the
         * test program unloads while nothing else is compiled.) */
        const ilmap_store_stats *b = &n->before, *a = &n->after;
        int stats_ok = b->functions - a->functions == rm->functions &&
                       b->versions - a->versions == rm->versions + rm->functions &&
                       b->bodies - a->bodies == rm->bodies && b->il_maps - a->il_maps == rm->il_maps;
        shim_report_check(r, "unload_stats", stats_ok,
                          "\"name\":\"%s\",\"functions\":[%zu,%zu],\"versions\":[%zu,%zu],"
                          "\"bodies\":[%zu,%zu],\"il_maps\":[%zu,%zu],\"generation\":[%" PRIu64
                          ",%" PRIu64 "]",
                          n->name ? n->name : "", b->functions, a->functions, b->versions,
                          a->versions, b->bodies, a->bodies, b->il_maps, a->il_maps,
                          b->generation, a->generation);
        /* No code start of the module is answered any more. */
        for (size_t i = 0; i < n->method_count; i++) {
            const shim_method *m = n->methods[i];
            for (size_t j = 0; j < m->body_count; j++) {
                if (!m->bodies[j].in_store)
                    continue;
                ilmap_store_location loc;
                memset(&loc, 0, sizeof loc);
                ilmap_status st = shim_store_lookup(&p->store, m->bodies[j].code_start, &loc);
                shim_report_check(r, "unload_lookup", st == ILMAP_E_NOT_FOUND,
                                  "\"method\":\"%s\",\"code_start\":\"0x%" PRIxPTR "\","
                                  "\"rejit\":%" PRIuPTR ",\"status\":\"%s\"",
                                  shim_method_name(p, m), m->bodies[j].code_start,
                                  m->bodies[j].rejit, ilmap_status_str(st));
            }
        }
    }
    for (size_t i = 0; i < n->method_count; i++)
        free_observer(n->methods[i]);
}

void shim_check_store_final(shim_harness *h, shim_profiler *p)
{
    if (!p->store.store)
        return;
    ilmap_store_stats s;
    size_t pending = 0;
    ilmap_status st = shim_store_settle(&p->store, &s, &pending);
    shim_lock(p);
    stored_counts want;
    int counted = count_stored(p->registry.methods, p->registry.count, &want) == 0;
    uint64_t unloaded = p->count.modules_unloaded;
    shim_unlock(p);
    /* Nothing retired is left once no read is running, and the store
     * holds exactly what the shim put in for the modules still loaded. */
    int ok = st == ILMAP_OK && pending == 0 && s.retired == 0 && counted &&
             s.bodies == want.bodies && s.functions == want.functions &&
             s.versions == want.functions + want.versions && s.il_maps == want.il_maps;
    shim_report_check(&h->report, "store_final", ok,
                      "\"status\":\"%s\",\"pending\":%zu,\"retired\":%" PRIu64
                      ",\"reclaimed\":%" PRIu64 ",\"functions\":%zu,\"want_functions\":%zu,"
                      "\"versions\":%zu,\"want_versions\":%zu,\"bodies\":%zu,"
                      "\"want_bodies\":%zu,\"il_maps\":%zu,\"want_il_maps\":%zu,"
                      "\"modules_unloaded\":%" PRIu64,
                      ilmap_status_str(st), pending, s.retired, s.reclaimed, s.functions,
                      want.functions, s.versions, want.functions + want.versions, s.bodies,
                      want.bodies, s.il_maps, want.il_maps, unloaded);
}
