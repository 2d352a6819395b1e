/*
 * Check "store_lookup": every native body the profiler put in the version
 * store, whichever tier it is (the first body of a ReJIT version, its
 * later tiers, each JIT-compiled body of the original code), is answered
 * by the store the way a sampler would ask: for the first address of each
 * entry of the body's map, the store must find this function, version and
 * body at that native offset and give the answer of the body's own map.
 * The bodies checked are counted by version kind and body number (0 = the
 * first compiled; with tiering kept the later ones are the later tiers)
 * and reported at shutdown ("bodies_by_tier").
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/body_checks.h"

void shim_check_body_lookup(shim_harness *h, shim_profiler *p, shim_method *m,
                            const shim_body_note *n)
{
    if (!n->stored || n->store_status != ILMAP_OK || !n->exported || !n->ranges ||
        !n->range_count)
        return;
    const char *name = shim_method_name(p, m);
    UINT_PTR start = n->ranges[0].startAddress;
    ilmap_native *own = NULL;
    if (ilmap_native_from_entries(n->exported, n->map.total, (uint32_t)n->code_size, &own) !=
        ILMAP_OK)
        return; /* the store took it, so this does not happen; nothing to compare with */
    size_t checked = 0, wrong = 0;
    uint32_t first_wrong = 0;
    ilmap_status first_status = ILMAP_OK;
    for (uint32_t i = 0; i < n->map.total; i++) {
        const ilmap_native_entry *e = &n->exported[i];
        uintptr_t address = 0;
        if (e->native_end <= e->native_start ||
            shim_code_address(n->ranges, n->range_count, e->native_start, &address))
            continue;
        uint32_t il = 0;
        unsigned mapping = ilmap_native_to_il(own, e->native_start, &il);
        ilmap_store_location loc;
        memset(&loc, 0, sizeof loc);
        ilmap_status st = shim_store_lookup(&p->store, address, &loc);
        checked++;
        if (st != ILMAP_OK || loc.function_id != n->function || loc.rejit_id != n->rejit ||
            loc.code_start != start || loc.native_offset != e->native_start ||
            loc.mapping != mapping || loc.il_offset != il) {
            if (!wrong++) {
                first_wrong = e->native_start;
                first_status = st;
            }
        }
    }
    ilmap_native_free(own);
    shim_report_check(&h->report, "store_lookup", checked > 0 && wrong == 0,
                      "\"method\":\"%s\",\"code_start\":\"0x%" PRIxPTR "\",\"body\":%u,"
                      "\"rejit\":%" PRIuPTR ",\"checked\":%zu,\"wrong\":%zu,"
                      "\"first_wrong\":%u,\"status\":\"%s\"",
                      name, start, n->index, n->rejit, checked, wrong, (unsigned)first_wrong,
                      ilmap_status_str(first_status));
    unsigned slot = n->index < SHIM_TIER_SLOTS ? n->index : SHIM_TIER_SLOTS - 1;
    shim_lock(p);
    if (n->rejit)
        h->tier_rejit[slot]++;
    else
        h->tier_original[slot]++;
    shim_unlock(p);
}

static void list(char *out, size_t cap, const uint64_t *v)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < SHIM_TIER_SLOTS && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%" PRIu64, i ? "," : "", v[i]);
}

void shim_report_bodies_by_tier(shim_harness *h)
{
    char original[256], rejit[256];
    list(original, sizeof original, h->tier_original);
    list(rejit, sizeof rejit, h->tier_rejit);
    shim_report_event(&h->report, "bodies_by_tier", "\"original\":[%s],\"rejit\":[%s]",
                      original, rejit);
}
