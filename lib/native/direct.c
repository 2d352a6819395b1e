/*
 * The direct form (native.h): bucket tables over the keys and over the
 * IL column, a direct answer per interval, each entry's start and end as
 * positions in the keys or as values. The common shapes are inline in
 * lookup.c (direct.h); the rest of the form is here.
 */
#include "common/copy_out.h"
#include "native/direct.h"

/* A direct map's interval of x through its bucket table. flags is
 * ix->flags' bucket bits, a constant in the common shape's copy. */
ILMAP_ALWAYS_INLINE uint32_t direct_rank(const ilmap_native *m, const native_index *ix, unsigned flags,
                                   uint32_t x)
{
    return buckets_rank(native_at(m, NATIVE_INDEXED_KEYS_OFF), native_at(m, ix->native_first_off),
                        (flags & NATIVE_WIDE_NATIVE) != 0, ix->native_nb, ix->native_shift, x,
                        (flags & NATIVE_SIMD) != 0);
}

/* native -> IL on a direct map: the inline shape with IL offsets of
 * 64 KiB and more (NATIVE_FAST_TO_IL, not packed: a kind column) through
 * the bucket's window; every shape through the full rank (a packed one
 * of the inline shape comes here only from a full bucket, which a second
 * window would not change). */
unsigned native_direct_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    const native_index *ix = native_index_of(m);
    if ((m->info & (NATIVE_FAST_TO_IL | NATIVE_PACKED)) == NATIVE_FAST_TO_IL) {
        uint32_t r = fast_rank(m, ix, x);
        if (NATIVE_LIKELY(r != NATIVE_NONE))
            return direct_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                                 native_at(m, ix->answers_off), native_at(m, ix->kinds_off), r, x,
                                 il_offset, 0xFFFFFFFFu);
    }
    unsigned flags = ix->flags & (NATIVE_WIDE_NATIVE | NATIVE_SIMD);
    uint32_t r = flags == NATIVE_COMMON_FLAGS ? direct_rank(m, ix, NATIVE_COMMON_FLAGS, x)
                                              : direct_rank(m, ix, flags, x);
    if (m->info & NATIVE_PACKED)
        return packed_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                             ((const uint32_t *)native_at(m, ix->answers_off))[r], r, x, il_offset);
    return direct_result(native_at(m, NATIVE_INDEXED_KEYS_OFF), native_at(m, ix->answers_off),
                         native_at(m, ix->kinds_off), r, x, il_offset, 0xFFFFFFFFu);
}

/* Entry k of a positional map (keys, position columns of `width`
 * bytes) as exported; unknown is the entry of unknown end (native.h). */
ILMAP_ALWAYS_INLINE ilmap_native_entry positional_entry(const ilmap_native *m, const uint32_t *keys,
                                                  const uint32_t *il, const void *starts,
                                                  const void *ends, unsigned width,
                                                  uint32_t unknown, uint32_t k)
{
    ilmap_native_entry e;
    uint32_t end = keys[native_position(ends, width, k)];

    e.il_offset = il[k];
    e.native_start = keys[native_position(starts, width, k)];
    e.native_end = k == unknown ? m->code_size : end;
    return e;
}

/* The results of a direct map's floor entry k (not of unknown end when
 * there are several). */
ILMAP_ALWAYS_INLINE ilmap_status direct_found(const ilmap_native *m, const uint32_t *il, uint32_t k,
                                        uint32_t il_offset, ilmap_native_entry *entry,
                                        size_t *index, int *il_matched)
{
    const native_index *ix = native_index_of(m);
    unsigned flags = ix->flags;
    uint32_t unknown = ix->unknown_end;
    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    ilmap_native_entry e;
    if ((flags & (NATIVE_VALUES | NATIVE_POS16 | NATIVE_POS32)) ==
        (NATIVE_VALUES | NATIVE_POS16)) {
        /* start | end << 16 */
        uint32_t pair = ((const uint32_t *)native_at(m, ix->starts_off))[k];
        e.il_offset = il[k];
        e.native_start = pair & 0xFFFFu;
        e.native_end = k == unknown ? m->code_size : pair >> 16;
    } else if (flags & NATIVE_VALUES) {
        uint32_t end = ((const uint32_t *)native_at(m, ix->ends_off))[k];
        e.il_offset = il[k];
        e.native_start = ((const uint32_t *)native_at(m, ix->starts_off))[k];
        e.native_end = k == unknown ? m->code_size : end;
    } else {
        e = positional_entry(m, keys, il, native_at(m, ix->starts_off),
                             native_at(m, ix->ends_off), native_position_width(flags), unknown, k);
    }
    return floor_found(il, k, il_offset, e, entry, index, il_matched);
}

/* ilmap_il_to_native on a direct map without NATIVE_FAST_IL: the
 * narrow IL table here, anything rarer (wide or portable tables, a long
 * IL group) the general way, by a tail call, so that this path keeps its
 * values in registers. */
ilmap_status native_direct_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                        ilmap_native_entry *entry, size_t *index,
                                        int *il_matched)
{
    const native_index *ix = native_index_of(m);
    unsigned flags = ix->flags;

    if ((flags & (NATIVE_WIDE_IL | NATIVE_SIMD)) != NATIVE_COMMON_FLAGS)
        return native_il_to_native_any(m, il_offset, entry, index, il_matched);

    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    const uint32_t *il = keys + ix->nkeys;
    uint32_t lo = ix->prolog_end;
    uint32_t p = buckets_rank(il, native_at(m, ix->il_first_off), 0, ix->il_nb, ix->il_shift,
                              il_offset, NATIVE_COMMON_FLAGS != 0);
    if (p == lo)
        return floor_none(entry, index, il_matched);
    uint32_t k = short_group_start(il, lo, p);
    if (k == NATIVE_NONE)
        return native_il_to_native_any(m, il_offset, entry, index, il_matched);
    return direct_found(m, il, k, il_offset, entry, index, il_matched);
}

/* fast_il_to_native() when entry k, the floor, is not the first of its
 * IL group (rare: a loop body placed twice): the group's first entry. */
NATIVE_NO_SLP ilmap_status native_direct_group(const ilmap_native *m, uint32_t il_offset,
                                               ilmap_native_entry *entry, size_t *index,
                                               int *il_matched, uint32_t k)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
    return direct_found(m, il, group_start(il, ix->prolog_end, k), il_offset, entry, index,
                        il_matched);
}

NATIVE_NO_SLP ilmap_status native_direct_il_to_native_positions(const ilmap_native *m,
                                                                uint32_t il_offset,
                                                                ilmap_native_entry *entry,
                                                                size_t *index, int *il_matched)
{
    return fast_il_to_native(m, il_offset, entry, index, il_matched, 0);
}

uint32_t native_direct_answer(const ilmap_native *m, uint32_t x)
{
    const native_index *ix = native_index_of(m);
    return ((const uint16_t *)native_at(m, ix->entries_off))[direct_rank(
        m, ix, ix->flags & (NATIVE_WIDE_NATIVE | NATIVE_SIMD), x)];
}

/* fast_il_to_native()'s path: the IL column's bucket, the floor; an IL
 * group of one (the words on both sides differ: the one before the
 * first normal entry does in this shape, the one after the column is
 * inside the block) handed out here, the rest the general way. */
ilmap_status native_direct_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                  size_t *total, ilmap_native_entry *out)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    const uint32_t *il = keys + ix->nkeys;
    const uint16_t *first = native_at(m, ix->il_first_off);
    uint32_t b = il_offset >> ix->il_shift;
    /* past the table: above every normal IL offset */
    if (!NATIVE_LIKELY(b < ix->il_nb))
        return copy_out_done(cap, 0, total);
    uint32_t from = first[b], len = first[b + 1] - from;
    if (!NATIVE_LIKELY(len <= NATIVE_WINDOW))
        return native_ranges_any(m, il_offset, cap, total, out);
    uint32_t p = from + window_rank_small(il + from, len, il_offset, NATIVE_COMMON_FLAGS != 0);
    const uint32_t *row = il + p - 1;
    if (!NATIVE_LIKELY(p > ix->prolog_end))
        return native_ranges_any(m, il_offset, cap, total, out);
    if (row[0] != il_offset)
        return copy_out_done(cap, 0, total);
    if (!NATIVE_LIKELY((row[-1] != il_offset) & (row[1] != il_offset)))
        return native_ranges_any(m, il_offset, cap, total, out);
    if (cap) {
        uint32_t k = p - 1, start, end;
        if (m->info & NATIVE_FAST_PAIRS) {
            uint32_t pair = ((const uint32_t *)native_at(m, ix->starts_off))[k];
            start = pair & 0xFFFFu;
            end = pair >> 16;
        } else {
            start = keys[((const uint8_t *)native_at(m, ix->starts_off))[k]];
            end = keys[((const uint8_t *)native_at(m, ix->ends_off))[k]];
        }
        out[0].il_offset = il_offset;
        out[0].native_start = start;
        out[0].native_end = k == ix->unknown_end ? m->code_size : end;
    }
    return copy_out_done(cap, 1, total);
}
