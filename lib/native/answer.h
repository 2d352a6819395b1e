/*
 * What the lookups of every form share (lookup.c, scan.c, small.c,
 * indexed.c, direct.c, general.c): the runtime's result for an answer
 * (doc/native-to-il.md#scan), a direct answer's result, the results of
 * an IL floor, the first entry of an IL group.
 */
#ifndef ILMAP_NATIVE_ANSWER_H
#define ILMAP_NATIVE_ANSWER_H

#include <string.h>

#include "native/native.h"

/* The first entry of the IL group holding entry k, which is not its
 * first (general.c). */
uint32_t native_group_start_before(const uint32_t *il, uint32_t lo, uint32_t k);

/* The direct answer of interval r (r >= 1) at x: its IL offset (the
 * answer word's low 16 bits in a small map: il_mask 0xFFFF) and kind,
 * EXACT where x is the interval's left key and the interval begins at
 * the entry's start. */
ILMAP_ALWAYS_INLINE unsigned direct_result(const uint32_t *keys, const uint32_t *il_answers,
                                     const uint8_t *kinds, uint32_t r, uint32_t x,
                                     uint32_t *il_offset, uint32_t il_mask)
{
    uint32_t kind = kinds[r];
    uint32_t exact = (x == keys[r - 1]) & (kind >> 7);

    if (il_offset)
        *il_offset = il_answers[r] & il_mask;
    return (kind & 0x7Fu) >> exact;
}

/* The same from a packed answer word (NATIVE_PACKED): the IL offset and
 * the kind in one load. */
ILMAP_ALWAYS_INLINE unsigned packed_result(const uint32_t *keys, uint32_t word, uint32_t r, uint32_t x,
                                     uint32_t *il_offset)
{
    uint32_t kind = (word >> 16) & 0xFFu;
    uint32_t exact = (x == keys[r - 1]) & (kind >> 7);

    if (il_offset)
        *il_offset = word & 0xFFFFu;
    return (kind & 0x7Fu) >> exact;
}

/* The result of each class of answer (answer_of), twice: at [2c] when x
 * is not the entry's start, at [2c + 1] when it is (EXACT for a normal
 * entry). */
static const uint8_t native_results[10] = {
    ILMAP_MAPPING_APPROXIMATE,      ILMAP_MAPPING_EXACT,          /* 0: normal */
    ILMAP_MAPPING_EPILOG,           ILMAP_MAPPING_EPILOG,         /* 1: EPILOG */
    ILMAP_MAPPING_PROLOG,           ILMAP_MAPPING_PROLOG,         /* 2: PROLOG */
    ILMAP_MAPPING_UNMAPPED_ADDRESS, ILMAP_MAPPING_UNMAPPED_ADDRESS, /* 3: NO_MAPPING */
    ILMAP_MAPPING_NO_INFO,          ILMAP_MAPPING_NO_INFO,        /* 4: none */
};

/* The runtime's answer for answer a (entry a - 1, none for 0) at x,
 * without a branch on the class (the compiler makes the selections
 * conditional moves). For a = 0 the words before the IL and start
 * columns are read (native.h: inside the block) and ignored. */
ILMAP_ALWAYS_INLINE unsigned answer_of(const ilmap_native *m, const uint32_t *il, uint32_t count,
                                 uint32_t a, uint32_t x, uint32_t *il_offset)
{
    const uint32_t *row = il - 1 + a;
    uint32_t v = row[0];
    uint32_t special = v - (ILMAP_EPILOG - 1); /* 1-3 for EPILOG, PROLOG, NO_MAPPING */
    uint32_t cls = special < 4 ? special : 0;
    cls = a ? cls : 4;

    if (il_offset) {
        uint32_t out = cls == 0 ? v : 0;
        *il_offset = cls == 1 ? m->last_il : out;
    }
    return native_results[2 * cls + (x == row[count])];
}

/* The same, with a branch: a normal entry first. An indexed map's
 * specials (PROLOG, EPILOGs, unmapped stubs) cover little of its code,
 * so the branch is nearly always predicted and the common answer costs
 * a handful of instructions; a small map's specials can cover half its
 * code, and it takes answer_of() directly. */
ILMAP_ALWAYS_INLINE unsigned answer_normal_first(const ilmap_native *m, const uint32_t *il,
                                           uint32_t count, uint32_t a, uint32_t x,
                                           uint32_t *il_offset)
{
    const uint32_t *row = il - 1 + a;
    uint32_t v = row[0];

    if (NATIVE_LIKELY((a != 0) & (v < ILMAP_EPILOG))) {
        if (il_offset)
            *il_offset = v;
        /* APPROXIMATE >> 1 is EXACT */
        return ILMAP_MAPPING_APPROXIMATE >> (x == row[count]);
    }
    return answer_of(m, il, count, a, x, il_offset);
}

/* The floor entry k's results. */
ILMAP_ALWAYS_INLINE ilmap_status floor_found(const uint32_t *il, uint32_t k, uint32_t il_offset,
                                       ilmap_native_entry e, ilmap_native_entry *entry,
                                       size_t *index, int *il_matched)
{
    if (entry)
        *entry = e;
    if (index)
        *index = k;
    if (il_matched)
        *il_matched = il[k] == il_offset;
    return ILMAP_OK;
}

/* No floor entry. */
ILMAP_ALWAYS_INLINE ilmap_status floor_none(ilmap_native_entry *entry, size_t *index, int *il_matched)
{
    if (entry)
        memset(entry, 0, sizeof *entry);
    if (index)
        *index = ILMAP_NO_INDEX;
    if (il_matched)
        *il_matched = 0;
    return ILMAP_E_NOT_FOUND;
}

/* The floor entry from the rank p > lo of a normal IL offset: the first
 * of its IL group when the group has one or two entries (most), else
 * NATIVE_NONE (the caller asks il_to_native_any, which walks back). */
ILMAP_ALWAYS_INLINE uint32_t short_group_start(const uint32_t *il, uint32_t lo, uint32_t p)
{
    uint32_t k = p - 1;

    if (k == lo || il[k - 1] != il[k])
        return k;
    k--;
    return k == lo || il[k - 1] != il[k] ? k : NATIVE_NONE;
}

/* The first entry of the IL group holding entry k; most groups have one
 * entry. */
ILMAP_ALWAYS_INLINE uint32_t group_start(const uint32_t *il, uint32_t lo, uint32_t k)
{
    if (k == lo || il[k - 1] != il[k])
        return k;
    return native_group_start_before(il, lo, k - 1);
}

#endif
