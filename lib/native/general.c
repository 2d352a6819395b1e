/*
 * The lookups every form shares, for what the forms' fast paths leave:
 * the runtime's scan for an entry (ilmap_native_to_il_detail on the
 * forms without an entry per interval), the IL floor through any form's
 * IL rank (MapILOffsetToMapEntry, doc/native-to-il.md), the entries of a
 * special IL offset's class, the ranges of an IL group.
 */
#include <string.h>

#include "common/copy_out.h"
#include "common/search.h"
#include "native/answer.h"
#include "native/forms.h"

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

/* The runtime's scan itself over any map (the positional forms keep no
 * entry per interval): exported index + 1 of the first entry whose range
 * holds x, 0 when none. O(n): ilmap_native_to_il_detail only. */
static uint32_t entry_by_scan(const ilmap_native *m, uint32_t x)
{
    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m);

    for (uint32_t k = 0; k < count; k++) {
        uint32_t end = native_bound(m, k, 1);
        if (x >= native_bound(m, k, 0) && (x < end || (end == 0 && il[k] != ILMAP_PROLOG)))
            return k + 1;
    }
    return 0;
}

/* Any map's answer (the exported index + 1 of the runtime's entry, 0:
 * none) at x. */
static uint32_t answer_at(const ilmap_native *m, uint32_t x)
{
    switch (native_form(m)) {
    case NATIVE_FORM_DIRECT:
        if (native_index_of(m)->flags & NATIVE_ENTRIES)
            return native_direct_answer(m, x);
        return entry_by_scan(m, x);
    case NATIVE_FORM_SMALL: return entry_by_scan(m, x);
    case NATIVE_FORM_INDEXED: return native_indexed_answer(m, x);
    default: return native_scan_answer(m, x);
    }
}

/* ilmap_native_to_il_detail for what the public function leaves:
 * neither entry nor which asked, the forms without an entry per interval
 * (the entry by the runtime's scan). */
unsigned native_detail_any(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset,
                           size_t *entry, uint32_t *which)
{
    if (!entry && !which)
        return ilmap_native_to_il(m, native_offset, il_offset);
    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m), a = answer_at(m, native_offset);

    if (entry)
        *entry = a ? a - 1 : ILMAP_NO_INDEX;
    if (which) {
        /* The specials the scan visited: PROLOGs lead the table, EPILOGs
         * and NO_MAPPINGs end it. */
        classes c = classes_of(m, il, count);
        *which = native_specials_visited(a ? a : count, c.prolog_end, c.normal_end);
    }
    switch (native_form(m)) {
    case NATIVE_FORM_DIRECT: return native_direct_to_il(m, native_offset, il_offset);
    case NATIVE_FORM_SMALL: return native_small_to_il(m, native_offset, il_offset);
    default: return answer_of(m, il, count, a, native_offset, il_offset);
    }
}

/* How many normal entries have an IL offset <= x (x not special), as the
 * position after them in the IL column (native_columns()); where its
 * normal entries start in *prolog_end. */
static uint32_t il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end)
{
    switch (native_form(m)) {
    case NATIVE_FORM_INDEXED:
    case NATIVE_FORM_DIRECT: return native_index_il_rank(m, x, prolog_end);
    case NATIVE_FORM_SMALL: return native_small_il_rank(m, x, prolog_end);
    default: return native_scan_il_rank(m, x, prolog_end);
    }
}

/* The first entry of the IL group holding entry k, which is not its
 * first (entries [lo, k] are normal and sorted): a short walk back, then
 * a binary search, so that a large group costs O(log n). */
uint32_t native_group_start_before(const uint32_t *il, uint32_t lo, uint32_t k)
{
    uint32_t v = il[k];

    for (unsigned step = 0; step < 4; step++) {
        if (k == lo || il[k - 1] != v)
            return k;
        k--;
    }
    return lo + (uint32_t)search_lower_u32(il + lo, sizeof *il, k - lo, v);
}

/* The exported entries [*begin, *end) whose IL offset is x exactly. */
static void entries_of(const ilmap_native *m, uint32_t x, uint32_t *begin, uint32_t *end)
{
    const uint32_t *il = native_columns(m);
    uint32_t count = native_count(m), lo, p;

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
    p = il_rank(m, x, &lo);
    if (p > lo && il[p - 1] == x) {
        *begin = group_start(il, lo, p - 1);
        *end = p;
    }
}

/* ilmap_il_to_native for every map and offset: the IL floor's first
 * entry of its group (MapILOffsetToMapEntry, doc/native-to-il.md), a
 * special offset's first entry of its class. */
ilmap_status native_il_to_native_any(const ilmap_native *m, uint32_t il_offset,
                                     ilmap_native_entry *entry, size_t *index, int *il_matched)
{
    uint32_t k = NATIVE_NONE;
    int matched = 0;

    if (native_is_special(il_offset)) {
        uint32_t begin, end;
        entries_of(m, il_offset, &begin, &end);
        if (begin < end) {
            k = begin;
            matched = 1;
        }
    } else {
        const uint32_t *il = native_columns(m);
        uint32_t lo, p = il_rank(m, il_offset, &lo);
        if (p > lo) {
            k = group_start(il, lo, p - 1);
            matched = il[k] == il_offset;
        }
    }

    if (entry) {
        if (k == NATIVE_NONE)
            memset(entry, 0, sizeof *entry);
        else
            *entry = native_exported(m, k);
    }
    if (index)
        *index = k == NATIVE_NONE ? ILMAP_NO_INDEX : k;
    if (il_matched)
        *il_matched = matched;
    return k == NATIVE_NONE ? ILMAP_E_NOT_FOUND : ILMAP_OK;
}

/* ilmap_il_to_native_ranges for the entries [k, end) (end NATIVE_NONE:
 * the group of normal IL offset x whose first entry is k, forward while
 * the IL offset is x). */
static ilmap_status ranges_group(const ilmap_native *m, uint32_t x, uint32_t k, uint32_t end,
                                 size_t cap, size_t *total,
                                          ilmap_native_entry *out)
{
    if (end == NATIVE_NONE) {
        const uint32_t *il = native_columns(m);
        uint32_t count = native_count(m);
        end = k + 1;
        while (end < count && il[end] == x)
            end++;
    }
    size_t n = copy_out_fit(cap, end - k);
    for (size_t i = 0; i < n; i++)
        out[i] = native_exported(m, k + (uint32_t)i);
    return copy_out_done(cap, end - k, total);
}

/* ilmap_il_to_native_ranges for a special IL offset (its class). */
static ilmap_status ranges_special(const ilmap_native *m, uint32_t il_offset,
                                            size_t cap, size_t *total, ilmap_native_entry *out)
{
    uint32_t begin, end;
    entries_of(m, il_offset, &begin, &end);
    return ranges_group(m, il_offset, begin, end, cap, total, out);
}

/* Past the forms' fast paths: the floor by ilmap_il_to_native (its
 * group's first entry), a group of one (nearly all) handed out here. The
 * word after it in the IL column is inside the block in every form
 * (native.h): when it equals il_offset (a second entry, or a value past
 * the column) the group is walked apart. */
ilmap_status native_ranges_any(const ilmap_native *m, uint32_t il_offset, size_t cap,
                               size_t *total, ilmap_native_entry *out)
{
    if (native_is_special(il_offset))
        return ranges_special(m, il_offset, cap, total, out);
    ilmap_native_entry e;
    size_t k;
    int matched;
    if (ilmap_il_to_native(m, il_offset, &e, &k, &matched) != ILMAP_OK || !matched)
        return copy_out_done(cap, 0, total);
    if (!NATIVE_LIKELY(native_columns(m)[k + 1] != il_offset))
        return ranges_group(m, il_offset, (uint32_t)k, NATIVE_NONE, cap, total, out);
    if (cap)
        out[0] = e;
    return copy_out_done(cap, 1, total);
}
