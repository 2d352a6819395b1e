/*
 * Lookups on a built map: native -> IL (doc/native-to-il.md#scan,
 * MapNativeOffsetToIL), IL -> native (MapILOffsetToMapEntry's floor), all
 * ranges of an IL offset, and the call sites. O(1) where keys are spread out
 * (the bucket tables), O(log n) at worst; no allocation, no locks.
 */
#include <string.h>

#include "common/copy_out.h"
#include "common/search.h"
#include "native/native.h"

/* The elementary interval holding x: as many breakpoints as are <= x. */
static inline const struct native_answer *answer_for(const ilmap_native *m, uint32_t x)
{
    /* 0xFFFFFFFF is no valid rank query; its interval is the last. */
    uint32_t r = x == 0xFFFFFFFFu ? m->nintervals - 1
                                  : buckets_count_le(&m->break_buckets, &m->breaks, x);
    return &m->answers[r];
}

/* EXACT for a normal entry hit at its start; written without a branch,
 * which a profiler's random sample offsets would mispredict. */
static inline unsigned exactness(const struct native_answer *a, uint32_t x)
{
    unsigned hit = (x == a->start) & (a->result == ILMAP_MAPPING_APPROXIMATE);
    return a->result ^ (hit * (ILMAP_MAPPING_APPROXIMATE ^ ILMAP_MAPPING_EXACT));
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

    const struct native_answer *a = answer_for(m, native_offset);
    unsigned result = exactness(a, native_offset);

    if (il_offset)
        *il_offset = a->il;
    if (entry)
        *entry = a->entry == NATIVE_NONE ? ILMAP_NO_INDEX : a->entry;
    if (which)
        *which = a->which;
    return result;
}

unsigned ilmap_native_to_il(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset)
{
    if (!m) {
        if (il_offset)
            *il_offset = 0;
        return ILMAP_MAPPING_NO_INFO;
    }

    const struct native_answer *a = answer_for(m, native_offset);
    unsigned result = exactness(a, native_offset);

    if (il_offset)
        *il_offset = a->il;
    return result;
}

/* The exported entries [*begin, *end) whose IL offset is il exactly. */
static void entries_of(const ilmap_native *m, uint32_t il, uint32_t *begin, uint32_t *end)
{
    switch (il) {
    case ILMAP_PROLOG:
        *begin = 0;
        *end = m->prolog_end;
        return;
    case ILMAP_EPILOG:
        *begin = m->normal_end;
        *end = m->epilog_end;
        return;
    case ILMAP_NO_MAPPING:
        *begin = m->epilog_end;
        *end = m->count;
        return;
    default:
        break;
    }
    uint32_t g = buckets_count_le(&m->il_buckets, &m->il_keys, il);
    if (g > 0 && m->records[m->group_first[g - 1]].il_offset == il) {
        *begin = m->group_first[g - 1];
        *end = m->group_first[g];
    } else {
        *begin = *end = 0;
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
        /* Non-special offsets are below 0xFFFFFFFD: valid rank queries. */
        uint32_t g = buckets_count_le(&m->il_buckets, &m->il_keys, il_offset);
        if (g > 0) {
            k = m->group_first[g - 1];
            matched = m->records[k].il_offset == il_offset;
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

    /* The first call site in native order whose start is >= the offset;
     * calls_by_start breaks ties by list order, so it is the first one. */
    const ilmap_native_record *calls = m->records + m->count;
    const call_probe p = { calls, m->calls_by_start, native_offset };
    size_t lo = search_partition(0, m->ncalls, call_starts_before, &p);
    if (lo == m->ncalls || calls[m->calls_by_start[lo]].native_start != native_offset)
        return ILMAP_E_NOT_FOUND;
    *out = calls[m->calls_by_start[lo]];
    return ILMAP_OK;
}
