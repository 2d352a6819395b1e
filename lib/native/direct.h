/*
 * The direct form's common shapes, inline in lookup.c's public functions
 * (and in direct.c's other copies): native -> IL through the native
 * bucket's window (NATIVE_FAST_TO_IL), the detail from the entry column
 * and a packed answer word (NATIVE_FAST_DETAIL), IL -> native through
 * the IL bucket's window (NATIVE_FAST_IL). What they cannot answer goes
 * to direct.c or general.c by a tail call (forms.h).
 */
#ifndef ILMAP_NATIVE_DIRECT_H
#define ILMAP_NATIVE_DIRECT_H

#include "native/answer.h"
#include "native/buckets.h"
#include "native/forms.h"

/* The interval of x on a map of the inline shape (NATIVE_FAST_TO_IL):
 * the bucket's window, every key when x is past the table; NATIVE_NONE
 * for a full bucket, which the caller hands to its general path. */
ILMAP_ALWAYS_INLINE uint32_t fast_rank(const ilmap_native *m, const native_index *ix, uint32_t x)
{
    uint32_t r = buckets_rank_window(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                                     native_at(m, ix->native_first_off), 0, ix->native_nb,
                                     ix->native_shift, x, NATIVE_COMMON_FLAGS != 0);
    if (!NATIVE_LIKELY(r != NATIVE_NONE) && (x >> ix->native_shift) >= ix->native_nb)
        r = ix->nkeys; /* past the table: every key is <= x */
    return r;
}

/* ilmap_native_to_il_detail on a direct map with an entry column. */
ILMAP_ALWAYS_INLINE unsigned detail_entries(const ilmap_native *m, uint32_t native_offset,
                                      uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    /* One rank: the direct answer and the interval's entry. */
    const native_index *ix = native_index_of(m);
    /* the inline path's window (NATIVE_FAST_TO_IL); a full bucket, the
     * other shapes the general way (answer_at() reads the entry column
     * too) */
    uint32_t r = fast_rank(m, ix, native_offset);
    if (!NATIVE_LIKELY(r != NATIVE_NONE))
        return native_detail_any(m, native_offset, il_offset, entry, which);
    /* the entry column, and the packed answer word (NATIVE_FAST_DETAIL
     * implies NATIVE_PACKED): IL offset, `which`, kind */
    uint32_t a = ((const uint16_t *)native_at(m, ix->entries_off))[r];
    uint32_t word = ((const uint32_t *)native_at(m, ix->answers_off))[r];

    if (entry)
        *entry = (size_t)a - 1; /* 0: ILMAP_NO_INDEX */
    if (which)
        *which = word >> 24;
    return packed_result(native_at(m, NATIVE_INDEXED_KEYS_OFF), word, r, native_offset, il_offset);
}

/* ilmap_il_to_native on a direct map of the common shape
 * (NATIVE_FAST_IL) for a normal IL offset: the IL column's bucket, the
 * floor entry (a step back over a group of two), its start/end values;
 * pairs says how they are kept (NATIVE_FAST_PAIRS: a uint16_t pair, else
 * uint8_t positions in the keys), a constant in each copy. Everything
 * rarer leaves by a tail call, so that this path saves no register. */
ILMAP_ALWAYS_INLINE ilmap_status fast_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                             ilmap_native_entry *entry, size_t *index,
                                             int *il_matched, int pairs)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
    uint32_t lo = ix->prolog_end;
    /* buckets_rank() on the narrow table; a full bucket and no floor
     * (p == lo) go the general way. */
    const uint16_t *first = native_at(m, ix->il_first_off);
    uint32_t b = il_offset >> ix->il_shift;
    /* past the table (rare: above the last IL offset's bucket): every
     * normal IL offset is <= x; a branch, so that the bucket's loads need
     * not wait for a clamp. A full bucket: the general way. */
    uint32_t p;
    if (NATIVE_LIKELY(b < ix->il_nb)) {
        uint32_t from = first[b], len = first[b + 1] - from;
        if (!NATIVE_LIKELY(len <= NATIVE_WINDOW))
            return native_il_to_native_any(m, il_offset, entry, index, il_matched);
        p = from + window_rank_small(il + from, len, il_offset, NATIVE_COMMON_FLAGS != 0);
    } else {
        p = ix->normal_end;
    }
    if (!NATIVE_LIKELY(p > lo))
        return native_il_to_native_any(m, il_offset, entry, index, il_matched);
    /* The floor's IL group: a step back over a group of two, a longer
     * one (rare) the general way. il[lo - 1] never equals il[lo] in this
     * shape (a PROLOG's IL offset or the last key, checked when
     * assembled), so that k needs no test against lo. */
    uint32_t k = p - 1;
    const uint32_t *row = il + k; /* row[-1] is il[lo - 1] for k == lo */
    uint32_t v = row[0];
    if (!NATIVE_LIKELY(row[-1] != v))
        return native_direct_group(m, il_offset, entry, index, il_matched, k);
    if (entry) {
        uint32_t start, end;
        if (pairs) {
            uint32_t pair = ((const uint32_t *)native_at(m, ix->starts_off))[k];
            start = pair & 0xFFFFu;
            end = pair >> 16;
        } else {
            const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
            start = keys[((const uint8_t *)native_at(m, ix->starts_off))[k]];
            end = keys[((const uint8_t *)native_at(m, ix->ends_off))[k]];
        }
        entry->il_offset = v;
        entry->native_start = start;
        entry->native_end = k == ix->unknown_end ? m->code_size : end;
    }
    if (index)
        *index = k;
    if (il_matched)
        *il_matched = v == il_offset;
    return ILMAP_OK;
}

#endif
