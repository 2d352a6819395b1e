/*
 * Lookups on a built map: native -> IL (doc/native-to-il.md#scan,
 * MapNativeOffsetToIL), IL -> native (MapILOffsetToMapEntry's floor), all
 * ranges of an IL offset, and the call sites. A scanned map tests every
 * entry, a small one binary-searches its keys, an indexed one answers in
 * O(1) where keys are spread out (the bucket tables), O(log n) at worst.
 * No allocation, no locks, and no branch on the query in the common path
 * (a profiler's sample offsets are random: such a branch would
 * mispredict); each public lookup is one function with its helpers
 * inlined, and the common indexed shape (narrow tables, the platform's
 * SIMD window) has a copy of its own with those choices made.
 */
#include <string.h>

#include "common/copy_out.h"
#include "common/search.h"
#include "index/count.h"
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

/*
 * The answer functions give the exported index + 1 of the first entry,
 * in table order, whose range holds native offset x (the runtime's
 * condition, doc/native-to-il.md#scan), 0 when none does.
 */

/* A scanned map (up to 32 entries, usually 1 or 2): every entry is
 * tested, without a branch, and the first hit picked. */
NATIVE_INLINE uint32_t scan_answer(const uint32_t *il, uint32_t count, uint32_t x)
{
    const uint32_t *start = il + count, *end = start + count;
    uint32_t hits = 0;

    for (uint32_t i = 0; i < count; i++) {
        uint32_t open = (end[i] == 0) & (il[i] != ILMAP_PROLOG);
        hits |= (uint32_t)((x >= start[i]) & ((x < end[i]) | open)) << i;
    }
    return hits ? COUNT_CTZ(hits) + 1 : 0;
}

/* How many of a small map's ascending keys[0, nkeys) are <= x: its
 * native keys, or the normal entries' IL offsets. Groups of 4 keys
 * (index/count.h); a last group may read up to 3 words past the keys,
 * inside the block (after the native keys, the IL column of at least 3
 * entries; after the IL column, the answers of at least 4 intervals),
 * compared and ignored. Without vector compares: a binary search. */
NATIVE_INLINE uint32_t small_rank(const uint32_t *keys, uint32_t nkeys, uint32_t x)
{
#if COUNT_HAVE_VECTOR
    uint32_t rank = 0;
    for (uint32_t i = 0; i < nkeys; i += 4)
        rank += count4_u32(keys + i, nkeys - i < 4 ? nkeys - i : 4, x);
    return rank;
#else
    return rank_search(keys, nkeys, x);
#endif
}

/* small_rank() 8 keys per step (NATIVE_SMALL_WIDE: a last step, or the
 * first when nkeys = 0, may read up to 8 words past the keys, inside the
 * block; one: nkeys <= 8, NATIVE_SMALL_ONE, a single step, every key
 * below 2^31, so that x capped at INT32_MAX needs no bias). */
NATIVE_INLINE uint32_t small_rank8(const uint32_t *keys, uint32_t nkeys, uint32_t x, int one)
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

/* The direct answer of interval r (r >= 1) at x: its IL offset (the
 * answer word's low 16 bits in a small map: il_mask 0xFFFF) and kind,
 * EXACT where x is the interval's left key and the interval begins at
 * the entry's start. */
NATIVE_INLINE unsigned direct_result(const uint32_t *keys, const uint32_t *il_answers,
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
NATIVE_INLINE unsigned packed_result(const uint32_t *keys, uint32_t word, uint32_t r, uint32_t x,
                                     uint32_t *il_offset)
{
    uint32_t kind = (word >> 16) & 0xFFu;
    uint32_t exact = (x == keys[r - 1]) & (kind >> 7);

    if (il_offset)
        *il_offset = word & 0xFFFFu;
    return (kind & 0x7Fu) >> exact;
}

/* A direct map's interval of x through its bucket table. flags is
 * ix->flags' bucket bits, a constant in the common shape's copy. */
NATIVE_INLINE uint32_t direct_rank(const ilmap_native *m, const native_index *ix, unsigned flags,
                                   uint32_t x)
{
    return buckets_rank(native_at(m, NATIVE_INDEXED_KEYS_OFF), native_at(m, ix->native_first_off),
                        (flags & NATIVE_WIDE_NATIVE) != 0, ix->native_nb, ix->native_shift, x,
                        (flags & NATIVE_SIMD) != 0);
}

/* native -> IL on a direct map. */
NATIVE_INLINE unsigned direct_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    const native_index *ix = native_index_of(m);
    unsigned flags = ix->flags & (NATIVE_WIDE_NATIVE | NATIVE_SIMD);
    uint32_t r = flags == NATIVE_COMMON_FLAGS ? direct_rank(m, ix, NATIVE_COMMON_FLAGS, x)
                                              : direct_rank(m, ix, flags, x);
    if (m->info & NATIVE_PACKED)
        return packed_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                             ((const uint32_t *)native_at(m, ix->answers_off))[r], r, x, il_offset);
    return direct_result(native_at(m, NATIVE_INDEXED_KEYS_OFF), native_at(m, ix->answers_off),
                         native_at(m, ix->kinds_off), r, x, il_offset, 0xFFFFFFFFu);
}

/* The interval of x on a map of the inline shape (NATIVE_FAST_TO_IL):
 * the bucket's window, every key when x is past the table; NATIVE_NONE
 * for a full bucket, which the caller hands to its general path. */
NATIVE_INLINE uint32_t fast_rank(const ilmap_native *m, const native_index *ix, uint32_t x)
{
    uint32_t r = buckets_rank_window(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                                     native_at(m, ix->native_first_off), 0, ix->native_nb,
                                     ix->native_shift, x, NATIVE_COMMON_FLAGS != 0);
    if (!NATIVE_LIKELY(r != NATIVE_NONE) && (x >> ix->native_shift) >= ix->native_nb)
        r = ix->nkeys; /* past the table: every key is <= x */
    return r;
}

/* A small map's interval of x: its keys counted 8 at a time where the
 * block allows (one step: NATIVE_SMALL_ONE, or one set), else 4. */
NATIVE_INLINE uint32_t small_interval(uint32_t info, const uint32_t *keys, uint32_t x, int one)
{
    uint32_t nkeys = native_small_keys(info);
    return one || (info & (NATIVE_SMALL_WIDE | NATIVE_SMALL_ONE)) ? small_rank8(keys, nkeys, x, one)
                                                                  : small_rank(keys, nkeys, x);
}

/* native -> IL on a small map. */
NATIVE_INLINE unsigned small_direct_to_il_of(const ilmap_native *m, uint32_t x,
                                             uint32_t *il_offset, int one)
{
    uint32_t info = m->info;
    uint32_t nkeys = native_small_keys(info), count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    const uint32_t *keys = native_at(m, sizeof *m);
    const uint32_t *il_answers = keys + nkeys + count;
    return direct_result(keys, il_answers, (const uint8_t *)(il_answers + nkeys + 1),
                         small_interval(info, keys, x, one), x, il_offset, 0xFFFFu);
}

NATIVE_INLINE unsigned small_direct_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    return small_direct_to_il_of(m, x, il_offset, 0);
}

/* An indexed map: the same through the bucket table. flags is
 * ix->flags, a constant in the common shape's copy. */
NATIVE_INLINE uint32_t indexed_answer(const ilmap_native *m, const native_index *ix,
                                      unsigned flags, uint32_t x)
{
    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    uint32_t r = buckets_rank(keys, native_at(m, ix->native_first_off),
                              (flags & NATIVE_WIDE_NATIVE) != 0, ix->native_nb, ix->native_shift,
                              x, (flags & NATIVE_SIMD) != 0);
    if (flags & NATIVE_WIDE_ANSWERS)
        return ((const uint32_t *)native_at(m, ix->answers_off))[r];
    return ((const uint16_t *)native_at(m, ix->answers_off))[r];
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

/* Any map's answer, its IL column and count. */
NATIVE_INLINE uint32_t answer_at(const ilmap_native *m, uint32_t x, const uint32_t **column,
                                 uint32_t *count)
{
    uint32_t info = m->info;

    switch (info & NATIVE_FORM_MASK) {
    case NATIVE_FORM_DIRECT: {
        const native_index *ix = native_index_of(m);
        if (ix->flags & NATIVE_ENTRIES) {
            *column = native_columns(m);
            *count = ix->count;
            return ((const uint16_t *)native_at(m, ix->entries_off))[direct_rank(
                m, ix, ix->flags & (NATIVE_WIDE_NATIVE | NATIVE_SIMD), x)];
        }
    }
        /* fall through */
    case NATIVE_FORM_SMALL:
        *column = native_columns(m);
        *count = native_count(m);
        return entry_by_scan(m, x);
    case NATIVE_FORM_INDEXED: {
        const native_index *ix = native_index_of(m);
        unsigned flags = ix->flags;
        *column = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
        *count = ix->count;
        if (flags == NATIVE_COMMON_FLAGS)
            return indexed_answer(m, ix, NATIVE_COMMON_FLAGS, x);
        return indexed_answer(m, ix, flags, x);
    }
    default:
        *column = native_columns(m);
        *count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
        return scan_answer(*column, *count, x);
    }
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
NATIVE_INLINE unsigned answer_of(const ilmap_native *m, const uint32_t *il, uint32_t count,
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
NATIVE_INLINE unsigned answer_normal_first(const ilmap_native *m, const uint32_t *il,
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

/* The lookup of each form, for ilmap_native_to_il: the indexed one
 * inline there, the others apart, so that each has the registers to
 * itself. */
NATIVE_NOINLINE unsigned small_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    return small_direct_to_il(m, x, il_offset);
}

NATIVE_NOINLINE unsigned small_to_il_one(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    return small_direct_to_il_of(m, x, il_offset, 1);
}

NATIVE_NOINLINE unsigned scan_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    const uint32_t *il = native_columns(m);
    uint32_t count = (m->info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    return answer_of(m, il, count, scan_answer(il, count, x), x, il_offset);
}

/* ilmap_native_to_il_detail for what the public function leaves: no
 * map, neither entry nor which asked, the forms without an entry per
 * interval (the entry by the runtime's scan). */
NATIVE_NOINLINE unsigned detail_other(const ilmap_native *m, uint32_t native_offset,
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
    if (!entry && !which)
        return ilmap_native_to_il(m, native_offset, il_offset);
    const uint32_t *il;
    uint32_t count, a = answer_at(m, native_offset, &il, &count);

    if (entry)
        *entry = a ? a - 1 : ILMAP_NO_INDEX;
    if (which) {
        /* The specials the scan visited: PROLOGs lead the table, EPILOGs
         * and NO_MAPPINGs end it. */
        classes c = classes_of(m, il, count);
        *which = native_specials_visited(a ? a : count, c.prolog_end, c.normal_end);
    }
    switch (native_form(m)) {
    case NATIVE_FORM_DIRECT: return direct_to_il(m, native_offset, il_offset);
    case NATIVE_FORM_SMALL: return small_direct_to_il(m, native_offset, il_offset);
    default: return answer_of(m, il, count, a, native_offset, il_offset);
    }
}


/* ilmap_native_to_il_detail on a direct map with an entry column. */
NATIVE_INLINE unsigned detail_entries(const ilmap_native *m, uint32_t native_offset,
                                      uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    /* One rank: the direct answer and the interval's entry. */
    const native_index *ix = native_index_of(m);
    /* the inline path's window (NATIVE_FAST_TO_IL); a full bucket, the
     * other shapes the general way (answer_at() reads the entry column
     * too) */
    uint32_t r = fast_rank(m, ix, native_offset);
    if (!NATIVE_LIKELY(r != NATIVE_NONE))
        return detail_other(m, native_offset, il_offset, entry, which);
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

/* ilmap_native_to_il_detail on a small map: the interval's answer word
 * holds the IL offset, `which` and the entry (native.h). */
NATIVE_INLINE unsigned detail_small_of(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                                       size_t *entry, uint32_t *which, int one)
{
    uint32_t info = m->info;
    uint32_t nkeys = native_small_keys(info), count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    const uint32_t *keys = native_at(m, sizeof *m);
    uint32_t r = small_interval(info, keys, x, one);
    /* native_small_layout_of(): the IL column, the answers, the kinds */
    const uint32_t *words = keys + nkeys + count;
    uint32_t word = words[r];
    uint32_t kind = ((const uint8_t *)(words + nkeys + 1))[r];
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

NATIVE_NOINLINE unsigned detail_small_one(const ilmap_native *m, uint32_t x,
                                          uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    return detail_small_of(m, x, il_offset, entry, which, 1);
}

NATIVE_NOINLINE unsigned detail_small(const ilmap_native *m, uint32_t x, uint32_t *il_offset,
                                      size_t *entry, uint32_t *which)
{
    return detail_small_of(m, x, il_offset, entry, which, 0);
}

unsigned ilmap_native_to_il_detail(const ilmap_native *m, uint32_t native_offset,
                                   uint32_t *il_offset, size_t *entry, uint32_t *which)
{
    if (NATIVE_LIKELY(m != NULL)) {
        uint32_t info = m->info;
        if ((info & (NATIVE_FORM_MASK | NATIVE_FAST_DETAIL)) ==
            (NATIVE_FORM_DIRECT | NATIVE_FAST_DETAIL))
            return detail_entries(m, native_offset, il_offset, entry, which);
        if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_ONE)) == (NATIVE_FORM_SMALL | NATIVE_SMALL_ONE))
            return detail_small_one(m, native_offset, il_offset, entry, which);
        if ((info & NATIVE_FORM_MASK) == NATIVE_FORM_SMALL)
            return detail_small(m, native_offset, il_offset, entry, which);
    }
    return detail_other(m, native_offset, il_offset, entry, which);
}

/* ilmap_native_to_il for the maps the public function leaves: none,
 * scanned, indexed with entry answers, direct of an uncommon shape. */
NATIVE_NOINLINE unsigned native_to_il_other(const ilmap_native *m, uint32_t native_offset,
                                            uint32_t *il_offset)
{
    if (!m) {
        if (il_offset)
            *il_offset = 0;
        return ILMAP_MAPPING_NO_INFO;
    }

    switch (native_form(m)) {
    case NATIVE_FORM_DIRECT:
        if ((m->info & (NATIVE_FAST_TO_IL | NATIVE_PACKED)) == NATIVE_FAST_TO_IL) {
            /* the inline shape with IL offsets of 64 KiB and more (not
             * packed: a kind column); a packed one comes here only from
             * the inline path's full bucket, which a second rank would
             * not change */
            const native_index *ix = native_index_of(m);
            uint32_t r = fast_rank(m, ix, native_offset);
            if (NATIVE_LIKELY(r != NATIVE_NONE))
                return direct_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                                     native_at(m, ix->answers_off), native_at(m, ix->kinds_off),
                                     r, native_offset, il_offset, 0xFFFFFFFFu);
        }
        return direct_to_il(m, native_offset, il_offset);
    case NATIVE_FORM_INDEXED: {
        const native_index *ix = native_index_of(m);
        const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
        uint32_t a = ix->flags == NATIVE_COMMON_FLAGS
                         ? indexed_answer(m, ix, NATIVE_COMMON_FLAGS, native_offset)
                         : indexed_answer(m, ix, ix->flags, native_offset);
        return answer_normal_first(m, il, ix->count, a, native_offset, il_offset);
    }
    case NATIVE_FORM_SMALL: return small_to_il(m, native_offset, il_offset);
    default: return scan_to_il(m, native_offset, il_offset);
    }
}

/* The direct form's common shape inline, the rest apart. */
unsigned ilmap_native_to_il(const ilmap_native *m, uint32_t native_offset, uint32_t *il_offset)
{
    if (NATIVE_LIKELY(m != NULL)) {
        uint32_t info = m->info;
        if (NATIVE_LIKELY((info & (NATIVE_FORM_MASK | NATIVE_FAST_TO_IL | NATIVE_PACKED)) ==
                          (NATIVE_FORM_DIRECT | NATIVE_FAST_TO_IL | NATIVE_PACKED))) {
            const native_index *ix = native_index_of(m);
            uint32_t r = fast_rank(m, ix, native_offset);
            if (r == NATIVE_NONE)
                return native_to_il_other(m, native_offset, il_offset);
            return packed_result(native_at(m, NATIVE_INDEXED_KEYS_OFF),
                                 ((const uint32_t *)native_at(m, ix->answers_off))[r], r,
                                 native_offset, il_offset);
        }
        if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_ONE)) == (NATIVE_FORM_SMALL | NATIVE_SMALL_ONE))
            return small_to_il_one(m, native_offset, il_offset);
        if ((info & NATIVE_FORM_MASK) == NATIVE_FORM_SMALL)
            return small_to_il(m, native_offset, il_offset);
    }
    return native_to_il_other(m, native_offset, il_offset);
}

/* How many normal entries have an IL offset <= x (x not special), as the
 * position after them in the IL column; the column, its count and
 * where its normal entries start in *column, *count and *prolog_end. */
NATIVE_INLINE uint32_t il_rank(const ilmap_native *m, uint32_t x, const uint32_t **column,
                               uint32_t *count, uint32_t *prolog_end)
{
    uint32_t info = m->info;

    switch (info & NATIVE_FORM_MASK) {
    case NATIVE_FORM_INDEXED:
    case NATIVE_FORM_DIRECT: {
        const native_index *ix = native_index_of(m);
        const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
        const void *first = native_at(m, ix->il_first_off);
        unsigned flags = ix->flags & (NATIVE_WIDE_IL | NATIVE_SIMD);
        *column = il;
        *count = ix->count;
        *prolog_end = ix->prolog_end;
        if (flags == NATIVE_COMMON_FLAGS)
            return buckets_rank(il, first, 0, ix->il_nb, ix->il_shift, x,
                                NATIVE_COMMON_FLAGS != 0);
        return buckets_rank(il, first, (flags & NATIVE_WIDE_IL) != 0, ix->il_nb, ix->il_shift, x,
                            (flags & NATIVE_SIMD) != 0);
    }
    case NATIVE_FORM_SMALL: {
        const uint32_t *il = native_columns(m);
        uint32_t lo = (info >> NATIVE_SMALL_PROLOG_SHIFT) & 0x3Fu;
        uint32_t hi = (info >> NATIVE_SMALL_NORMAL_SHIFT) & 0x3Fu;
        *column = il;
        *count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
        *prolog_end = lo;
        return lo + rank_search(il + lo, hi - lo, x);
    }
    default: break;
    }
    /* Scanned: PROLOGs lead, and every special exceeds x. */
    const uint32_t *il = native_columns(m);
    uint32_t n = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu, prologs = 0, below = 0;
    for (uint32_t i = 0; i < n; i++) {
        prologs += il[i] == ILMAP_PROLOG;
        below += il[i] <= x;
    }
    *column = il;
    *count = n;
    *prolog_end = prologs;
    return prologs + below;
}

/* The first entry of the IL group holding entry k, which is not its
 * first (entries [lo, k] are normal and sorted): a short walk back, then
 * a binary search, so that a large group costs O(log n). */
NATIVE_NOINLINE uint32_t group_start_before(const uint32_t *il, uint32_t lo, uint32_t k)
{
    uint32_t v = il[k];

    for (unsigned step = 0; step < 4; step++) {
        if (k == lo || il[k - 1] != v)
            return k;
        k--;
    }
    return lo + (uint32_t)search_lower_u32(il + lo, sizeof *il, k - lo, v);
}

/* The first entry of the IL group holding entry k; most groups have one
 * entry. */
NATIVE_INLINE uint32_t group_start(const uint32_t *il, uint32_t lo, uint32_t k)
{
    if (k == lo || il[k - 1] != il[k])
        return k;
    return group_start_before(il, lo, k - 1);
}

/* The exported form of entry k of an indexed map with entry answers
 * (its start and end columns follow the IL column;
 * doc/native-maps.md#export, ExportILToNativeMap). */
NATIVE_INLINE ilmap_native_entry exported_at(const ilmap_native *m, const uint32_t *il,
                                             uint32_t count, uint32_t k)
{
    const native_index *ix = native_index_of(m);
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;
    ilmap_native_entry e;
    uint32_t source;

    e.il_offset = il[k];
    e.native_start = il[(size_t)count + k];
    e.native_end = il[2 * (size_t)count + k];
    switch (mode) {
    case NATIVE_SRC_ZERO: return e;
    case NATIVE_SRC_UNIFORM: source = ix->source; break;
    case NATIVE_SRC_U8: source = ((const uint8_t *)native_at(m, ix->sources_off))[k]; break;
    default: source = ((const uint32_t *)native_at(m, ix->sources_off))[k]; break;
    }
    if (source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
        e.native_end = m->code_size;
    return e;
}

/* The exported entries [*begin, *end) whose IL offset is x exactly. */
static void entries_of(const ilmap_native *m, uint32_t x, uint32_t *begin, uint32_t *end)
{
    const uint32_t *il;
    uint32_t count, lo, p;

    *begin = *end = 0;
    if (native_is_special(x)) {
        il = native_columns(m);
        count = native_count(m);
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
    p = il_rank(m, x, &il, &count, &lo);
    if (p > lo && il[p - 1] == x) {
        *begin = group_start(il, lo, p - 1);
        *end = p;
    }
}

/* ilmap_il_to_native for every map and offset; the common case has a
 * copy of its own below. */
NATIVE_NOINLINE ilmap_status il_to_native_any(const ilmap_native *m, uint32_t il_offset,
                                              ilmap_native_entry *entry, size_t *index,
                                              int *il_matched)
{
    uint32_t k = NATIVE_NONE;
    int matched = 0;

    if (!m) {
        if (entry)
            memset(entry, 0, sizeof *entry);
        if (index)
            *index = ILMAP_NO_INDEX;
        if (il_matched)
            *il_matched = 0;
        return ILMAP_E_INVALID_ARG;
    }

    if (native_is_special(il_offset)) {
        uint32_t begin, end;
        entries_of(m, il_offset, &begin, &end);
        if (begin < end) {
            k = begin;
            matched = 1;
        }
    } else {
        const uint32_t *il;
        uint32_t count, lo, p = il_rank(m, il_offset, &il, &count, &lo);
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

/* ilmap_il_to_native for what the public function leaves: an indexed
 * map with entry answers (its common shape here), and every other case. */
NATIVE_NOINLINE ilmap_status il_to_native_other(const ilmap_native *m, uint32_t il_offset,
                                                ilmap_native_entry *entry, size_t *index,
                                                int *il_matched)
{
    if (m && native_form(m) == NATIVE_FORM_INDEXED && !native_is_special(il_offset)) {
        const native_index *ix = native_index_of(m);
        if ((ix->flags & (NATIVE_WIDE_IL | NATIVE_SIMD)) == NATIVE_COMMON_FLAGS) {
            const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
            uint32_t lo = ix->prolog_end;
            uint32_t p = buckets_rank(il, native_at(m, ix->il_first_off), 0, ix->il_nb,
                                      ix->il_shift, il_offset, NATIVE_COMMON_FLAGS != 0);
            if (NATIVE_LIKELY(p > lo)) {
                uint32_t k = group_start(il, lo, p - 1);
                if (entry)
                    *entry = exported_at(m, il, ix->count, k);
                if (index)
                    *index = k;
                if (il_matched)
                    *il_matched = il[k] == il_offset;
                return ILMAP_OK;
            }
        }
    }
    return il_to_native_any(m, il_offset, entry, index, il_matched);
}

/* Entry k of a positional map (keys, position columns of `width`
 * bytes) as exported; unknown is the entry of unknown end (native.h). */
NATIVE_INLINE ilmap_native_entry positional_entry(const ilmap_native *m, const uint32_t *keys,
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

/* The floor entry k's results. */
NATIVE_INLINE ilmap_status floor_found(const uint32_t *il, uint32_t k, uint32_t il_offset,
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
NATIVE_INLINE ilmap_status floor_none(ilmap_native_entry *entry, size_t *index, int *il_matched)
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
NATIVE_INLINE uint32_t short_group_start(const uint32_t *il, uint32_t lo, uint32_t p)
{
    uint32_t k = p - 1;

    if (k == lo || il[k - 1] != il[k])
        return k;
    k--;
    return k == lo || il[k - 1] != il[k] ? k : NATIVE_NONE;
}

/* ilmap_il_to_native on a small map, for a normal IL offset: the floor
 * entry when it is its IL group's first (nearly always), the rest (no
 * floor, a group) the general way by a tail call. */
NATIVE_INLINE ilmap_status small_il_to_native_of(const ilmap_native *m, uint32_t il_offset,
                                                 ilmap_native_entry *entry, size_t *index,
                                                 int *il_matched, int one)
{
    uint32_t info = m->info;
    uint32_t nkeys = native_small_keys(info), count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    uint32_t lo = (info >> NATIVE_SMALL_PROLOG_SHIFT) & 0x3Fu;
    uint32_t hi = (info >> NATIVE_SMALL_NORMAL_SHIFT) & 0x3Fu;
    const uint32_t *keys = native_at(m, sizeof *m);
    const uint32_t *il = keys + nkeys;
    /* The normal entries' IL offsets ascend: counted as the keys are
     * (a last group may read past them, into the block). */
    uint32_t p = lo + (one || (info & (NATIVE_SMALL_WIDE | NATIVE_SMALL_ONE))
                           ? small_rank8(il + lo, hi - lo, il_offset, one)
                           : small_rank(il + lo, hi - lo, il_offset));
    /* the positions follow the answers (native.h) */
    const uint8_t *starts = (const uint8_t *)(il + count + nkeys + 1) + nkeys + 1;
    uint32_t unknown = starts[2 * count]; /* 0xFF: none, never an entry's index */
    if (!NATIVE_LIKELY(p > lo)) /* no floor (x below the first IL offset) */
        return floor_none(entry, index, il_matched);
    uint32_t k = p - 1;
    const uint32_t *row = il + k; /* row[-1]: a key or a PROLOG's IL for k == lo */
    uint32_t v = row[0];

    /* a floor that is not its group's first: the general way (one:
     * NATIVE_SMALL_ONE makes the test against lo needless) */
    if (one ? !NATIVE_LIKELY(row[-1] != v) : !NATIVE_LIKELY((k == lo) | (row[-1] != v)))
        return il_to_native_any(m, il_offset, entry, index, il_matched);
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

NATIVE_NOINLINE NATIVE_NO_SLP ilmap_status small_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                                ilmap_native_entry *entry, size_t *index,
                                                int *il_matched)
{
    return small_il_to_native_of(m, il_offset, entry, index, il_matched, 0);
}

NATIVE_NOINLINE NATIVE_NO_SLP ilmap_status small_il_to_native_one(const ilmap_native *m, uint32_t il_offset,
                                                    ilmap_native_entry *entry, size_t *index,
                                                    int *il_matched)
{
    return small_il_to_native_of(m, il_offset, entry, index, il_matched, 1);
}

/* How many of a tiny map's uint16_t IL offsets (ascending, below 65535;
 * lanes is twice their count) are <= x (at most 65535): index/count.h's
 * count8_u16 (the table has 16 bytes from col on). */
NATIVE_INLINE uint32_t tiny_rank(const unsigned char *col, uint32_t lanes, uint32_t x)
{
    return count8_u16(col, lanes / 2, x);
}

/* floor_none() out of line, so that the tiny map's path keeps its
 * values where the arguments arrive. */
NATIVE_NOINLINE ilmap_status tiny_none(ilmap_native_entry *entry, size_t *index, int *il_matched)
{
    return floor_none(entry, index, il_matched);
}

/* ilmap_il_to_native on a tiny map (native.h) for a normal IL offset:
 * the floor among the normal entries' uint16_t IL offsets (no two equal:
 * the floor is its group's first), its start | end pair. */
NATIVE_NOINLINE NATIVE_NO_SLP ilmap_status small_il_to_native_tiny(const ilmap_native *m,
                                                                   uint32_t il_offset,
                                                                   ilmap_native_entry *entry,
                                                                   size_t *index, int *il_matched)
{
    uint32_t info = m->info;
    uint32_t nkeys = native_small_keys(info), count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    /* native_small_layout_of(...).tiny */
    const unsigned char *tiny =
        (const unsigned char *)m + sizeof *m + 9 * (size_t)nkeys + 6 * (size_t)count + 6;
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

/* The results of a direct map's floor entry k (not of unknown end when
 * there are several). */
NATIVE_INLINE ilmap_status direct_found(const ilmap_native *m, const uint32_t *il, uint32_t k,
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

/* ilmap_il_to_native on a direct map, for a normal IL offset: the
 * common shape here, anything rarer (wide or portable tables, a long IL
 * group) through il_to_native_any, by a
 * tail call, so that this path keeps its values in registers. */
NATIVE_NOINLINE ilmap_status direct_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                                 ilmap_native_entry *entry, size_t *index,
                                                 int *il_matched)
{
    const native_index *ix = native_index_of(m);
    unsigned flags = ix->flags;

    if ((flags & (NATIVE_WIDE_IL | NATIVE_SIMD)) != NATIVE_COMMON_FLAGS)
        return il_to_native_any(m, il_offset, entry, index, il_matched);

    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    const uint32_t *il = keys + ix->nkeys;
    uint32_t lo = ix->prolog_end;
    uint32_t p = buckets_rank(il, native_at(m, ix->il_first_off), 0, ix->il_nb, ix->il_shift,
                              il_offset, NATIVE_COMMON_FLAGS != 0);
    if (p == lo)
        return floor_none(entry, index, il_matched);
    uint32_t k = short_group_start(il, lo, p);
    if (k == NATIVE_NONE)
        return il_to_native_any(m, il_offset, entry, index, il_matched);
    return direct_found(m, il, k, il_offset, entry, index, il_matched);
}

/* fast_il_to_native() when entry k, the floor, is not the first of its
 * IL group (rare: a loop body placed twice): the group's first entry. */
NATIVE_NOINLINE NATIVE_NO_SLP ilmap_status direct_group(const ilmap_native *m, uint32_t il_offset,
                                          ilmap_native_entry *entry, size_t *index,
                                          int *il_matched, uint32_t k)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
    return direct_found(m, il, group_start(il, ix->prolog_end, k), il_offset, entry, index,
                        il_matched);
}

/* ilmap_il_to_native on a direct map of the common shape
 * (NATIVE_FAST_IL) for a normal IL offset: the IL column's bucket, the
 * floor entry (a step back over a group of two), its start/end values;
 * pairs says how they are kept (NATIVE_FAST_PAIRS: a uint16_t pair, else
 * uint8_t positions in the keys), a constant in each copy. Everything
 * rarer leaves by a tail call, so that this path saves no register. */
NATIVE_INLINE ilmap_status fast_il_to_native(const ilmap_native *m, uint32_t il_offset,
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
            return il_to_native_other(m, il_offset, entry, index, il_matched);
        p = from + window_rank_small(il + from, len, il_offset, NATIVE_COMMON_FLAGS != 0);
    } else {
        p = ix->normal_end;
    }
    if (!NATIVE_LIKELY(p > lo))
        return il_to_native_other(m, il_offset, entry, index, il_matched);
    /* The floor's IL group: a step back over a group of two, a longer
     * one (rare) the general way. il[lo - 1] never equals il[lo] in this
     * shape (a PROLOG's IL offset or the last key, checked when
     * assembled), so that k needs no test against lo. */
    uint32_t k = p - 1;
    const uint32_t *row = il + k; /* row[-1] is il[lo - 1] for k == lo */
    uint32_t v = row[0];
    if (!NATIVE_LIKELY(row[-1] != v))
        return direct_group(m, il_offset, entry, index, il_matched, k);
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

NATIVE_NOINLINE NATIVE_NO_SLP ilmap_status fast_il_to_native_positions(const ilmap_native *m,
                                                         uint32_t il_offset,
                                                         ilmap_native_entry *entry,
                                                         size_t *index, int *il_matched)
{
    return fast_il_to_native(m, il_offset, entry, index, il_matched, 0);
}

/* ilmap_il_to_native for the shapes the public function leaves. */
NATIVE_NOINLINE ilmap_status il_to_native_shapes(const ilmap_native *m, uint32_t il_offset,
                                                 ilmap_native_entry *entry, size_t *index,
                                                 int *il_matched)
{
    if (m && !native_is_special(il_offset)) {
        uint32_t info = m->info;
        uint32_t shape = info & (NATIVE_FORM_MASK | NATIVE_FAST_IL | NATIVE_FAST_PAIRS);
        if (shape == (NATIVE_FORM_DIRECT | NATIVE_FAST_IL))
            return fast_il_to_native_positions(m, il_offset, entry, index, il_matched);
        if ((info & NATIVE_FORM_MASK) == NATIVE_FORM_DIRECT)
            return direct_il_to_native(m, il_offset, entry, index, il_matched);
        if ((info & NATIVE_FORM_MASK) == NATIVE_FORM_SMALL)
            return small_il_to_native(m, il_offset, entry, index, il_matched);
    }
    return il_to_native_other(m, il_offset, entry, index, il_matched);
}

/* The commonest shape inline (a direct map with uint16_t start/end
 * pairs, a normal IL offset), everything else by a tail call. */
NATIVE_NO_SLP ilmap_status ilmap_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                              ilmap_native_entry *entry, size_t *index,
                                              int *il_matched)
{
    if (NATIVE_LIKELY(m != NULL) && !native_is_special(il_offset)) {
        uint32_t info = m->info;
        uint32_t shape = info & (NATIVE_FORM_MASK | NATIVE_FAST_IL | NATIVE_FAST_PAIRS);
        if (NATIVE_LIKELY(shape == (NATIVE_FORM_DIRECT | NATIVE_FAST_IL | NATIVE_FAST_PAIRS)))
            return fast_il_to_native(m, il_offset, entry, index, il_matched, 1);
        if (shape == (NATIVE_FORM_DIRECT | NATIVE_FAST_IL))
            return fast_il_to_native_positions(m, il_offset, entry, index, il_matched);
        if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_ONE | NATIVE_SMALL_WIDE)) ==
            (NATIVE_FORM_SMALL | NATIVE_SMALL_ONE))
            return small_il_to_native_tiny(m, il_offset, entry, index, il_matched);
        if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_ONE)) == (NATIVE_FORM_SMALL | NATIVE_SMALL_ONE))
            return small_il_to_native_one(m, il_offset, entry, index, il_matched);
        if ((info & NATIVE_FORM_MASK) == NATIVE_FORM_SMALL)
            return small_il_to_native(m, il_offset, entry, index, il_matched);
    }
    return il_to_native_shapes(m, il_offset, entry, index, il_matched);
}

/* The IL column of any map (native_columns() without its switch). */
NATIVE_INLINE const uint32_t *il_column(const ilmap_native *m)
{
    uint32_t info = m->info, form = info & NATIVE_FORM_MASK;
    size_t off = form == NATIVE_FORM_SCAN    ? sizeof *m
                 : form == NATIVE_FORM_SMALL ? sizeof *m + 4 * (size_t)native_small_keys(info)
                                             : NATIVE_INDEXED_KEYS_OFF +
                                                   4 * (size_t)native_index_of(m)->nkeys;
    return (const uint32_t *)native_at(m, (uint32_t)off);
}

/* ilmap_il_to_native_ranges for the entries [k, end) (end NATIVE_NONE:
 * the group of normal IL offset x whose first entry is k, forward while
 * the IL offset is x). */
NATIVE_NOINLINE ilmap_status ranges_group(const ilmap_native *m, uint32_t x, uint32_t k,
                                          uint32_t end, size_t cap, size_t *total,
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
NATIVE_NOINLINE ilmap_status ranges_special(const ilmap_native *m, uint32_t il_offset,
                                            size_t cap, size_t *total, ilmap_native_entry *out)
{
    uint32_t begin, end;
    entries_of(m, il_offset, &begin, &end);
    return ranges_group(m, il_offset, begin, end, cap, total, out);
}

ilmap_status ilmap_il_to_native_ranges(const ilmap_native *m, uint32_t il_offset, size_t cap,
                                       size_t *total, ilmap_native_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    if (!m)
        return ILMAP_E_INVALID_ARG;

    uint32_t info = m->info;
    if ((info & (NATIVE_FORM_MASK | NATIVE_FAST_IL)) == (NATIVE_FORM_DIRECT | NATIVE_FAST_IL) &&
        !native_is_special(il_offset)) {
        /* fast_il_to_native()'s path: the IL column's bucket, the floor;
         * an IL group of one (the words on both sides differ: the one
         * before the first normal entry does in this shape, the one
         * after the column is inside the block) handed out here, the
         * rest below. */
        const native_index *ix = native_index_of(m);
        const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
        const uint32_t *il = keys + ix->nkeys;
        const uint16_t *first = native_at(m, ix->il_first_off);
        uint32_t b = il_offset >> ix->il_shift;
        /* past the table: above every normal IL offset */
        if (!NATIVE_LIKELY(b < ix->il_nb))
            return copy_out_done(cap, 0, total);
        {
            uint32_t from = first[b], len = first[b + 1] - from;
            if (NATIVE_LIKELY(len <= NATIVE_WINDOW)) {
                uint32_t p = from + window_rank_small(il + from, len, il_offset,
                                                      NATIVE_COMMON_FLAGS != 0);
                const uint32_t *row = il + p - 1;
                if (NATIVE_LIKELY(p > ix->prolog_end)) {
                    if (row[0] != il_offset)
                        return copy_out_done(cap, 0, total);
                    if (NATIVE_LIKELY((row[-1] != il_offset) & (row[1] != il_offset))) {
                        if (cap) {
                            uint32_t k = p - 1, start, end;
                            if (info & NATIVE_FAST_PAIRS) {
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
                }
            }
        }
    }
    if ((info & (NATIVE_FORM_MASK | NATIVE_SMALL_ONE | NATIVE_SMALL_WIDE)) ==
            (NATIVE_FORM_SMALL | NATIVE_SMALL_ONE) &&
        !native_is_special(il_offset)) {
        /* a tiny map (small_il_to_native_tiny()): no two normal entries
         * share an IL offset */
        uint32_t nkeys = native_small_keys(info), count = (info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
        const unsigned char *tiny =
            (const unsigned char *)m + sizeof *m + 9 * (size_t)nkeys + 6 * (size_t)count + 6;
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
    if (NATIVE_LIKELY(!native_is_special(il_offset))) {
        /* The group's first entry by ilmap_il_to_native's fast path (its
         * floor is the first of its IL group); a group of one (nearly
         * all) answered here. The word after it in the IL column is
         * inside the block in every form (native.h): when it equals
         * il_offset (a second entry, or a value past the column) the
         * group is walked apart. */
        ilmap_native_entry e;
        size_t k;
        int matched;
        if (ilmap_il_to_native(m, il_offset, &e, &k, &matched) != ILMAP_OK || !matched)
            return copy_out_done(cap, 0, total);
        if (!NATIVE_LIKELY(il_column(m)[k + 1] != il_offset))
            return ranges_group(m, il_offset, (uint32_t)k, NATIVE_NONE, cap, total, out);
        if (cap)
            out[0] = e;
        return copy_out_done(cap, 1, total);
    }
    return ranges_special(m, il_offset, cap, total, out);
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
