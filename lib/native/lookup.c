/*
 * Lookups on a built map: native -> IL (doc/native-to-il.md#scan,
 * MapNativeOffsetToIL), IL -> native (MapILOffsetToMapEntry's floor), all
 * ranges of an IL offset, and the call sites. A small map is scanned;
 * an indexed one answers in O(1) where keys are spread out (the bucket
 * tables), O(log n) at worst. No allocation, no locks.
 */
#include <string.h>

#include "common/copy_out.h"
#include "common/search.h"
#include "index/node_count.h"
#include "native/buckets.h"
#include "native/native.h"

/* The table's classes: PROLOGs [0, prolog_end), normal entries up to
 * normal_end, EPILOGs up to epilog_end, then NO_MAPPINGs up to count. */
typedef struct classes {
    uint32_t prolog_end, normal_end, epilog_end;
} classes;

static classes classes_of(const ilmap_native *m, const uint32_t *il, uint32_t count)
{
    classes c;

    if (native_indexed(m)) {
        const native_index *x = native_index_of(m);
        c.prolog_end = x->prolog_end;
        c.normal_end = x->normal_end;
        c.epilog_end = x->epilog_end;
        return c;
    }
    c.prolog_end = 0;
    while (c.prolog_end < count && il[c.prolog_end] == ILMAP_PROLOG)
        c.prolog_end++;
    c.normal_end = c.prolog_end;
    while (c.normal_end < count && il[c.normal_end] < ILMAP_EPILOG)
        c.normal_end++;
    c.epilog_end = c.normal_end;
    while (c.epilog_end < count && il[c.epilog_end] == ILMAP_EPILOG)
        c.epilog_end++;
    return c;
}

/* A small map's first entry, in table order, matching native offset x
 * (the runtime's condition, doc/native-to-il.md#scan), or NATIVE_NONE;
 * every entry is tested, without a branch, and the first hit picked
 * (NATIVE_SMALL_MAX <= 32: one bit each). */
static inline uint32_t small_entry_at(const uint32_t *il, uint32_t count, uint32_t x)
{
    const uint32_t *start = il + count, *end = start + count;
    uint32_t hits = 0;

    for (uint32_t i = 0; i < count; i++) {
        uint32_t open = (end[i] == 0) & (il[i] != ILMAP_PROLOG);
        hits |= (uint32_t)((x >= start[i]) & ((x < end[i]) | open)) << i;
    }
    return hits ? NODE_CTZ(hits) : NATIVE_NONE;
}

/* An indexed map's entry for x: the answer of x's elementary interval
 * (as many breakpoints as are <= x). */
static inline uint32_t indexed_entry_at(const ilmap_native *m, uint32_t x)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *keys = native_at(m, ix->keys_off);
    /* 0xFFFFFFFF is no bucket query; its interval is the last. */
    uint32_t r = x == 0xFFFFFFFFu
                     ? ix->nintervals - 1
                     : buckets_rank(keys, ix->nkeys, native_at(m, ix->native_first_off), ix->native_nb,
                                    ix->native_shift, ix->nkeys, x);
    if (ix->wide)
        return ((const uint32_t *)native_at(m, ix->answers_off))[r];
    uint32_t k = ((const uint16_t *)native_at(m, ix->answers_off))[r];
    return k == 0xFFFFu ? NATIVE_NONE : k;
}

static inline uint32_t entry_at(const ilmap_native *m, const uint32_t *il, uint32_t count,
                                uint32_t x)
{
    return native_indexed(m) ? indexed_entry_at(m, x) : small_entry_at(il, count, x);
}

/* The answer when entry k (or none) matches x; EXACT for a normal entry
 * hit at its start. */
static inline unsigned answer_of(const ilmap_native *m, const uint32_t *il, uint32_t count,
                                 uint32_t k, uint32_t x, uint32_t *il_offset)
{
    uint32_t out = 0;
    unsigned result;

    if (k == NATIVE_NONE) {
        result = ILMAP_MAPPING_NO_INFO;
    } else {
        uint32_t v = il[k];
        switch (v) {
        case ILMAP_PROLOG: result = ILMAP_MAPPING_PROLOG; break;
        case ILMAP_NO_MAPPING: result = ILMAP_MAPPING_UNMAPPED_ADDRESS; break;
        case ILMAP_EPILOG:
            result = ILMAP_MAPPING_EPILOG;
            out = m->last_il;
            break;
        default:
            out = v;
            result = x == il[count + k] ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
            break;
        }
    }
    if (il_offset)
        *il_offset = out;
    return result;
}

unsigned ilmap_native_to_il_detail(const ilmap_native *m, uint32_t native_offset,
                                   uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    if (!m) {
        if (il_offset)
            *il_offset = 0;
        if (entry)
            *entry = ILMAP_NO_INDEX;
        if (which)
            *which = 0;
        return ILMAP_MAPPING_NO_INFO;
    }

    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m);
    uint32_t k = entry_at(m, il, count, native_offset);

    if (entry)
        *entry = k == NATIVE_NONE ? ILMAP_NO_INDEX : k;
    if (which) {
        /* The specials the scan visited: PROLOGs lead the table, EPILOGs
         * and NO_MAPPINGs end it. */
        classes c = classes_of(m, il, count);
        uint32_t upto = k == NATIVE_NONE ? count : k + 1;
        *which = upto <= c.prolog_end  ? upto
                 : upto <= c.normal_end ? c.prolog_end
                                        : c.prolog_end + (upto - c.normal_end);
    }
    return answer_of(m, il, count, k, native_offset, il_offset);
}

unsigned ilmap_native_to_il(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset)
{
    if (!m) {
        if (il_offset)
            *il_offset = 0;
        return ILMAP_MAPPING_NO_INFO;
    }

    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m);
    return answer_of(m, il, count, entry_at(m, il, count, native_offset), native_offset,
                     il_offset);
}

/* How many normal entries have an IL offset <= x (x not special), as the
 * position after them in the IL column. */
static inline uint32_t il_rank(const ilmap_native *m, const uint32_t *il, uint32_t count,
                               uint32_t x, uint32_t *prolog_end)
{
    if (native_indexed(m)) {
        const native_index *ix = native_index_of(m);
        *prolog_end = ix->prolog_end;
        return buckets_rank(il, count, native_at(m, ix->il_first_off), ix->il_nb, ix->il_shift,
                            ix->normal_end, x);
    }
    /* Small: PROLOGs lead, and every special exceeds x. */
    uint32_t prologs = 0, below = 0;
    for (uint32_t i = 0; i < count; i++) {
        prologs += il[i] == ILMAP_PROLOG;
        below += il[i] <= x;
    }
    *prolog_end = prologs;
    return prologs + below;
}

/* The first entry of the IL group holding entry k (entries [lo, k] are
 * normal and sorted): a short walk back, then a binary search, so that a
 * large group costs O(log n). */
static uint32_t group_start(const uint32_t *il, uint32_t lo, uint32_t k)
{
    uint32_t v = il[k];

    for (unsigned step = 0; step < 4; step++) {
        if (k == lo || il[k - 1] != v)
            return k;
        k--;
    }
    return lo + (uint32_t)search_lower_u32(il + lo, sizeof *il, k - lo, v);
}

/* The exported entries [*begin, *end) whose IL offset is il exactly. */
static void entries_of(const ilmap_native *m, uint32_t x, uint32_t *begin, uint32_t *end)
{
    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m);

    *begin = *end = 0;
    if (native_is_special(x)) {
        classes c = classes_of(m, il, count);
        switch (x) {
        case ILMAP_PROLOG:
            *end = c.prolog_end;
            return;
        case ILMAP_EPILOG:
            *begin = c.normal_end;
            *end = c.epilog_end;
            return;
        default: /* ILMAP_NO_MAPPING */
            *begin = c.epilog_end;
            *end = count;
            return;
        }
    }
    uint32_t lo, p = il_rank(m, il, count, x, &lo);
    if (p > lo && il[p - 1] == x) {
        *begin = group_start(il, lo, p - 1);
        *end = p;
    }
}

ilmap_status ilmap_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                ilmap_native_entry *entry, size_t *index, int *il_matched)
{
    uint32_t k = NATIVE_NONE;
    int matched = 0;

    if (m && native_is_special(il_offset)) {
        uint32_t begin, end;
        entries_of(m, il_offset, &begin, &end);
        if (begin < end) {
            k = begin;
            matched = 1;
        }
    } else if (m) {
        const uint32_t *il = native_columns(m);
        uint32_t lo, p = il_rank(m, il, native_count(m), il_offset, &lo);
        if (p > lo) {
            k = group_start(il, lo, p - 1);
            matched = il[k] == il_offset;
        }
    }

    if (entry) {
        if (k != NATIVE_NONE)
            *entry = native_exported(m, k);
        else
            memset(entry, 0, sizeof *entry);
    }
    if (index)
        *index = k == NATIVE_NONE ? ILMAP_NO_INDEX : k;
    if (il_matched)
        *il_matched = matched;
    if (!m)
        return ILMAP_E_INVALID_ARG;
    return k == NATIVE_NONE ? ILMAP_E_NOT_FOUND : ILMAP_OK;
}

ilmap_status ilmap_il_to_native_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                       size_t *total, ilmap_native_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;

    uint32_t begin, end;
    entries_of(m, il_offset, &begin, &end);
    size_t n = copy_out_fit(cap, end - begin);
    for (size_t i = 0; i < n; i++)
        out[i] = native_exported(m, begin + (uint32_t)i);
    return copy_out_done(cap, end - begin, total);
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
