/*
 * The small form (native.h): up to NATIVE_SMALL_MAX entries, no call
 * sites, no bucket table. Its keys and its normal entries' IL offsets
 * are counted in the block with index/count.h's vector compares, 8 at a
 * time, or in one step (NATIVE_SMALL_ONE); a binary search without
 * vector compares. A tiny map
 * (native_small_tiny()) answers IL -> native from a table of its own.
 * The layout is native_small_layout_of()'s, which assemble.c writes.
 */
#include <string.h>

#include "common/copy_out.h"
#include "index/count.h"
#include "native/answer.h"
#include "native/buckets.h"
#include "native/forms.h"

/* How many of a small map's ascending keys[0, nkeys) are <= x: its
 * native keys, or the normal entries' IL offsets, 8 per step
 * (index/count.h; a last step, or the first when nkeys = 0, may read up
 * to 8 words past the keys, inside the block: native_small_layout_of()).
 * one: nkeys <= 8, NATIVE_SMALL_ONE, a single step, every key below
 * 2^31, so that x capped at INT32_MAX needs no bias. Without vector
 * compares: a binary search. */
ILMAP_ALWAYS_INLINE uint32_t small_rank8(const uint32_t *keys, uint32_t nkeys, uint32_t x, int one)
{
#if COUNT_HAVE_VECTOR
    if (one)
        return count8_u32_low(keys, nkeys, x < 0x7FFFFFFFu ? x : 0x7FFFFFFFu);
    /* The first step unconditionally (nkeys = 0 counts 0), the rest in a
     * loop. */
    uint32_t rank = 0, i = 0;
    do {
        rank += count8_u32(keys + i, nkeys - i < 8 ? nkeys - i : 8, x);
        i += 8;
    } while (i < nkeys);
    return rank;
#else
    (void)one;
    return rank_search(keys, nkeys, x);
#endif
}

/* A small map's interval of x (one: NATIVE_SMALL_ONE, in one step). */
ILMAP_ALWAYS_INLINE uint32_t small_interval(uint32_t info, const uint32_t *keys, uint32_t x, int one)
{
    return small_rank8(keys, native_small_keys(info), x, one);
}

/* The layout of small map m (native.h: its counts are in the info
 * word), as its writer laid it out; the tiny table's offset holds
 * whether or not the map has one. */
ILMAP_ALWAYS_INLINE native_small_layout small_layout(const ilmap_native *m)
{
    uint32_t info = m->info;
    return native_small_layout_of((info >> NATIVE_COUNT_SHIFT) & 0x3Fu, native_small_keys(info),
                                  0, 0);
}

/* native -> IL on a small map. */
ILMAP_ALWAYS_INLINE unsigned small_direct_to_il_of(const ilmap_native *m, uint32_t x,
                                             uint32_t *il_offset, int one)
{
    native_small_layout l = small_layout(m);
    const uint32_t *keys = native_at(m, sizeof *m);
    return direct_result(keys, native_at(m, (uint32_t)l.answers),
                         native_at(m, (uint32_t)l.kinds), small_interval(m->info, keys, x, one),
                         x, il_offset, 0xFFFFu);
}

unsigned native_small_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    return small_direct_to_il_of(m, x, il_offset, 0);
}

unsigned native_small_to_il_one(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    return small_direct_to_il_of(m, x, il_offset, 1);
}

/* ilmap_native_to_il_detail on a small map: the interval's answer word
 * holds the IL offset, `which` and the entry (native.h). */
ILMAP_ALWAYS_INLINE unsigned detail_small_of(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                                       size_t *entry, uint32_t *which, int one)
{
    native_small_layout l = small_layout(m);
    const uint32_t *keys = native_at(m, sizeof *m);
    uint32_t r = small_interval(m->info, keys, x, one);
    uint32_t word = ((const uint32_t *)native_at(m, (uint32_t)l.answers))[r];
    uint32_t kind = ((const uint8_t *)native_at(m, (uint32_t)l.kinds))[r];
    uint32_t exact = (x == keys[r - 1]) & (kind >> 7);
    uint32_t a = word >> NATIVE_SMALL_ENTRY_SHIFT;

    if (il_offset)
        *il_offset = word & 0xFFFFu;
    if (entry)
        *entry = (size_t)a - 1; /* 0: ILMAP_NO_INDEX */
    if (which)
        *which = (word >> 16) & 0xFFu;
    return (kind & 0x7Fu) >> exact;
}

unsigned native_small_detail_one(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                                 size_t *entry, uint32_t *which)
{
    return detail_small_of(m, x, il_offset, entry, which, 1);
}

unsigned native_small_detail(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                             size_t *entry, uint32_t *which)
{
    return detail_small_of(m, x, il_offset, entry, which, 0);
}

/* ilmap_il_to_native on a small map, for a normal IL offset: the floor
 * entry when it is its IL group's first (nearly always), the rest (no
 * floor, a group) the general way by a tail call. */
ILMAP_ALWAYS_INLINE ilmap_status small_il_to_native_of(const ilmap_native *m, uint32_t il_offset,
                                                 ilmap_native_entry *entry, size_t *index,
                                                 int *il_matched, int one)
{
    uint32_t info = m->info, count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    uint32_t lo = (info >> NATIVE_SMALL_PROLOG_SHIFT) & 0x3Fu;
    uint32_t hi = (info >> NATIVE_SMALL_NORMAL_SHIFT) & 0x3Fu;
    native_small_layout l = small_layout(m);
    const uint32_t *keys = native_at(m, sizeof *m);
    const uint32_t *il = native_at(m, (uint32_t)l.il);
    /* The normal entries' IL offsets ascend: counted as the keys are
     * (a last group may read past them, into the block). */
    uint32_t p = lo + small_rank8(il + lo, hi - lo, il_offset, one);
    const uint8_t *starts = native_at(m, (uint32_t)l.starts);
    uint32_t unknown = starts[2 * count]; /* l.unknown; 0xFF: none, never an entry's index */
    if (!NATIVE_LIKELY(p > lo)) /* no floor (x below the first IL offset) */
        return floor_none(entry, index, il_matched);
    uint32_t k = p - 1;
    const uint32_t *row = il + k; /* row[-1]: a key or a PROLOG's IL for k == lo */
    uint32_t v = row[0];

    /* a floor that is not its group's first: the general way (one:
     * NATIVE_SMALL_ONE makes the test against lo needless) */
    if (one ? !NATIVE_LIKELY(row[-1] != v) : !NATIVE_LIKELY((k == lo) | (row[-1] != v)))
        return native_il_to_native_any(m, il_offset, entry, index, il_matched);
    if (entry) {
        uint32_t end = keys[starts[count + k]];
        entry->il_offset = v;
        entry->native_start = keys[starts[k]];
        entry->native_end = k == unknown ? m->code_size : end;
    }
    if (index)
        *index = k;
    if (il_matched)
        *il_matched = v == il_offset;
    return ILMAP_OK;
}

NATIVE_NO_SLP ilmap_status native_small_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                                     ilmap_native_entry *entry, size_t *index,
                                                     int *il_matched)
{
    return small_il_to_native_of(m, il_offset, entry, index, il_matched, 0);
}

NATIVE_NO_SLP ilmap_status native_small_il_to_native_one(const ilmap_native *m,
                                                         uint32_t il_offset,
                                                         ilmap_native_entry *entry, size_t *index,
                                                         int *il_matched)
{
    return small_il_to_native_of(m, il_offset, entry, index, il_matched, 1);
}

/* How many of a tiny map's uint16_t IL offsets (ascending, below 65535;
 * lanes is twice their count) are <= x (at most 65535): index/count.h's
 * count8_u16 (the table has 16 bytes from col on). */
ILMAP_ALWAYS_INLINE uint32_t tiny_rank(const unsigned char *col, uint32_t lanes, uint32_t x)
{
    return count8_u16(col, lanes / 2, x);
}

/* floor_none() out of line, so that the tiny map's path keeps its
 * values where the arguments arrive. */
ILMAP_NOINLINE ilmap_status tiny_none(ilmap_native_entry *entry, size_t *index, int *il_matched)
{
    return floor_none(entry, index, il_matched);
}

/* ilmap_il_to_native on a tiny map (native.h) for a normal IL offset:
 * the floor among the normal entries' uint16_t IL offsets (no two equal:
 * the floor is its group's first), its start | end pair. */
NATIVE_NO_SLP ilmap_status native_small_il_to_native_tiny(const ilmap_native *m,
                                                          uint32_t il_offset,
                                                          ilmap_native_entry *entry,
                                                          size_t *index, int *il_matched)
{
    const unsigned char *tiny = native_at(m, (uint32_t)small_layout(m).tiny);
    uint32_t lanes = tiny[0], lo = tiny[1];
    const unsigned char *col = tiny + 2;
    const unsigned char *pairs = col + lanes - 4; /* by p */
    size_t p = tiny_rank(col, lanes, il_offset < 0xFFFFu ? il_offset : 0xFFFFu);
    if (!NATIVE_LIKELY(p != 0))
        return tiny_none(entry, index, il_matched);
    uint16_t v;
    uint32_t pair;
    memcpy(&v, col + 2 * p - 2, sizeof v);
    memcpy(&pair, pairs + 4 * p, sizeof pair);
    if (entry) {
        entry->il_offset = v;
        entry->native_start = pair & 0xFFFFu;
        entry->native_end = pair >> 16;
    }
    if (index)
        *index = (size_t)lo + p - 1;
    if (il_matched)
        *il_matched = v == il_offset;
    return ILMAP_OK;
}

/* A tiny map's IL offsets have no two equal: the floor, when it is the
 * IL offset asked, is the only range. */
ilmap_status native_small_tiny_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                      size_t *total, ilmap_native_entry *out)
{
    const unsigned char *tiny = native_at(m, (uint32_t)small_layout(m).tiny);
    uint32_t lanes = tiny[0];
    const unsigned char *col = tiny + 2;
    size_t p = tiny_rank(col, lanes, il_offset < 0xFFFFu ? il_offset : 0xFFFFu);
    uint16_t v = 0;
    if (p)
        memcpy(&v, col + 2 * p - 2, sizeof v);
    if (!p || v != il_offset)
        return copy_out_done(cap, 0, total);
    if (cap) {
        uint32_t pair;
        memcpy(&pair, col + lanes - 4 + 4 * p, sizeof pair);
        out[0].il_offset = il_offset;
        out[0].native_start = pair & 0xFFFFu;
        out[0].native_end = pair >> 16;
    }
    return copy_out_done(cap, 1, total);
}

/* The normal entries [prolog_end, normal_end) are in the info word. */
uint32_t native_small_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end)
{
    uint32_t info = m->info;
    uint32_t lo = (info >> NATIVE_SMALL_PROLOG_SHIFT) & 0x3Fu;
    uint32_t hi = (info >> NATIVE_SMALL_NORMAL_SHIFT) & 0x3Fu;

    *prolog_end = lo;
    return lo + rank_search(native_columns(m) + lo, hi - lo, x);
}
