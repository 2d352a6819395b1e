/*
 * The public lookups on a built map: native -> IL
 * (doc/native-to-il.md#scan, MapNativeOffsetToIL), with the detail, IL
 * -> native (MapILOffsetToMapEntry's floor), all ranges of an IL offset,
 * and the call sites. Each checks its arguments, answers the commonest
 * shape inline (a direct map's bucket window, direct.h), and hands every
 * other map to its form's lookup (forms.h: scan.c, small.c, indexed.c,
 * direct.c, general.c) by one switch on the form. No allocation, no
 * locks, and no branch on the query in the common paths (a profiler's
 * sample offsets are random: such a branch would mispredict).
 */
#include <string.h>

#include "common/copy_out.h"
#include "common/search.h"
#include "native/direct.h"

/* The answers without a map. */
ILMAP_NOINLINE unsigned no_map_to_il(uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    if (il_offset)
        *il_offset = 0;
    if (entry)
        *entry = ILMAP_NO_INDEX;
    if (which)
        *which = 0;
    return ILMAP_MAPPING_NO_INFO;
}

/* No map, or a special IL offset. */
ILMAP_NOINLINE ilmap_status il_to_native_rest(const ilmap_native *m, uint32_t il_offset,
                                               ilmap_native_entry *entry, size_t *index,
                                               int *il_matched)
{
    if (m)
        return native_il_to_native_any(m, il_offset, entry, index, il_matched);
    floor_none(entry, index, il_matched);
    return ILMAP_E_INVALID_ARG;
}

unsigned ilmap_native_to_il(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset)
{
    if (!NATIVE_LIKELY(m != NULL))
        return no_map_to_il(il_offset, NULL, NULL);
    uint32_t info = m->info;
    if (NATIVE_LIKELY((info & (NATIVE_FORM_MASK | NATIVE_FAST_TO_IL | NATIVE_PACKED)) ==
                      (NATIVE_FORM_DIRECT | NATIVE_FAST_TO_IL | NATIVE_PACKED))) {
        const native_index *ix = native_index_of(m);
        uint32_t r = fast_rank(m, ix, native_offset);
        if (!NATIVE_LIKELY(r != NATIVE_NONE)) /* a full bucket */
            return native_direct_to_il(m, native_offset, il_offset);
        return packed_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                             ((const uint32_t *)native_at(m, ix->answers_off))[r], r,
                             native_offset, il_offset);
    }
    switch (NATIVE_FORM_SWITCH(info)) {
    case NATIVE_FORM_SCAN: return native_scan_to_il(m, native_offset, il_offset);
    case NATIVE_FORM_SMALL:
        return (info & NATIVE_SMALL_ONE) ? native_small_to_il_one(m, native_offset, il_offset)
                                         : native_small_to_il(m, native_offset, il_offset);
    case NATIVE_FORM_INDEXED: return native_indexed_to_il(m, native_offset, il_offset);
    default: return native_direct_to_il(m, native_offset, il_offset);
    }
}

unsigned ilmap_native_to_il_detail(const ilmap_native *m, uint32_t native_offset,
                                   uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    if (!NATIVE_LIKELY(m != NULL))
        return no_map_to_il(il_offset, entry, which);
    uint32_t info = m->info;
    switch (NATIVE_FORM_SWITCH(info)) {
    case NATIVE_FORM_SMALL:
        return (info & NATIVE_SMALL_ONE)
                   ? native_small_detail_one(m, native_offset, il_offset, entry, which)
                   : native_small_detail(m, native_offset, il_offset, entry, which);
    case NATIVE_FORM_DIRECT:
        if (info & NATIVE_FAST_DETAIL)
            return detail_entries(m, native_offset, il_offset, entry, which);
        /* fall through */
    default: return native_detail_any(m, native_offset, il_offset, entry, which);
    }
}

NATIVE_NO_SLP ilmap_status ilmap_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                              ilmap_native_entry *entry, size_t *index,
                                              int *il_matched)
{
    if (!NATIVE_LIKELY(m != NULL && !native_is_special(il_offset)))
        return il_to_native_rest(m, il_offset, entry, index, il_matched);
    /* The commonest shapes before the switch, each by one test: a large
     * method's direct map (with uint16_t pairs: inline; with positions)
     * and a small method's tiny map. */
    uint32_t info = m->info;
    if (NATIVE_LIKELY((info & (NATIVE_FORM_MASK | NATIVE_FAST_IL | NATIVE_FAST_PAIRS)) ==
                      (NATIVE_FORM_DIRECT | NATIVE_FAST_IL | NATIVE_FAST_PAIRS)))
        return fast_il_to_native(m, il_offset, entry, index, il_matched, 1);
    if ((info & (NATIVE_FORM_MASK | NATIVE_FAST_IL | NATIVE_FAST_PAIRS)) ==
        (NATIVE_FORM_DIRECT | NATIVE_FAST_IL))
        return native_direct_il_to_native_positions(m, il_offset, entry, index, il_matched);
    if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_TINY)) == (NATIVE_FORM_SMALL | NATIVE_SMALL_TINY))
        return native_small_il_to_native_tiny(m, il_offset, entry, index, il_matched);
    switch (NATIVE_FORM_SWITCH(info)) {
    case NATIVE_FORM_SMALL:
        return (info & NATIVE_SMALL_ONE)
                   ? native_small_il_to_native_one(m, il_offset, entry, index, il_matched)
                   : native_small_il_to_native(m, il_offset, entry, index, il_matched);
    case NATIVE_FORM_DIRECT: return native_direct_il_to_native(m, il_offset, entry, index, il_matched);
    case NATIVE_FORM_INDEXED:
        return native_indexed_il_to_native(m, il_offset, entry, index, il_matched);
    default: return native_il_to_native_any(m, il_offset, entry, index, il_matched);
    }
}

ilmap_status ilmap_il_to_native_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                       size_t *total, ilmap_native_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;
    if (!native_is_special(il_offset)) {
        uint32_t info = m->info;
        switch (NATIVE_FORM_SWITCH(info)) {
        case NATIVE_FORM_SMALL:
            if (info & NATIVE_SMALL_TINY)
                return native_small_tiny_ranges(m, il_offset, cap, total, out);
            break;
        case NATIVE_FORM_DIRECT:
            if (info & NATIVE_FAST_IL)
                return native_direct_ranges(m, il_offset, cap, total, out);
            break;
        default: break;
        }
    }
    return native_ranges_any(m, il_offset, cap, total, out);
}

/* Call site calls_by_start[i] starts before native_offset. */
typedef struct call_probe {
    const ilmap_native_record *calls;
    const uint32_t *calls_by_start;
    uint32_t native_offset;
} call_probe;

static inline int call_starts_before(const void *ctx, size_t i)
{
    const call_probe *p = ctx;
    return p->calls[p->calls_by_start[i]].native_start < p->native_offset;
}

ilmap_status ilmap_native_find_call_site(const ilmap_native *m, uint32_t native_offset,
                                         ilmap_native_record *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!m || !out)
        return ILMAP_E_INVALID_ARG;
    if (!native_indexed(m))
        return ILMAP_E_NOT_FOUND; /* small maps have no call sites */

    /* The first call site in native order whose start is >= the offset;
     * calls_by_start breaks ties by list order, so it is the first one. */
    const native_index *ix = native_index_of(m);
    const ilmap_native_record *calls = native_at(m, ix->calls_off);
    const call_probe p = { calls, native_at(m, ix->calls_by_start_off), native_offset };
    size_t lo = search_partition(0, ix->ncalls, call_starts_before, &p);
    if (lo == ix->ncalls || calls[p.calls_by_start[lo]].native_start != native_offset)
        return ILMAP_E_NOT_FOUND;
    *out = calls[p.calls_by_start[lo]];
    return ILMAP_OK;
}
