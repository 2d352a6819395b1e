/* The inside of an ilmap_native: the runtime's sorted table, compactly,
 * plus the native -> IL answers and, when the map is not small, a bucket
 * table per lookup direction. */
#ifndef ILMAP_NATIVE_NATIVE_H
#define ILMAP_NATIVE_NATIVE_H

#include <stdint.h>
#include <stdlib.h>

#include "ilmap.h"
#include "native/tuning.h"
#include "platform/compiler.h"

#define NATIVE_NONE 0xFFFFFFFFu

/* The lookups' helpers are inlined into each form's lookup (forms.h),
 * so that a lookup is the public function's switch and one function with
 * no call inside. */
/* NATIVE_NO_SLP: GCC's store merging through vector registers (two
 * 32-bit stores become movd, movd, punpckldq, movq) left out of the
 * IL -> native lookups, which write an entry's fields. */
#if defined(__GNUC__) && !defined(__clang__)
#define NATIVE_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define NATIVE_NO_SLP
#endif
#define NATIVE_LIKELY(c) ILMAP_EXPECT(!!(c), 1)
/* The form of info word i, for the public lookups' switch: small
 * expected (most methods' maps are small), so that its case is tested
 * first. */
#define NATIVE_FORM_SWITCH(i) ILMAP_EXPECT((i) & NATIVE_FORM_MASK, NATIVE_FORM_SMALL)

/* -10 and MAX_ILNUM as the two flavours' duplicate trackers start
 * (doc/native-maps.md#translation-filter); both are plain IL values that a
 * translation can produce. */
#define NATIVE_TRACKER_START 0xFFFFFFF6u
#define NATIVE_MAX_ILNUM 0xFFFFFFFCu

/*
 * The layout of an ilmap_native (doc/performance.md#native-memory): one
 * malloc'd block, sized to what the map needs, in one of four forms.
 *
 * All start with a head (info word, code size, lastIL) and keep the
 * exported entries in the runtime's sorted order: an IL column (uint32_t)
 * plus their native starts and stored ends, then the source bits (none
 * when all are 0, one value when all are equal, else a column of uint8_t
 * or uint32_t).
 *
 * The native -> IL answers are precomputed (intervals.c) over the
 * breakpoints of the native axis (0, the starts and the non-zero ends,
 * ascending, the "keys"): per elementary interval, either the answer
 * itself ("direct": a uint32_t answer word holding the IL offset handed
 * back, and a byte holding the mapping kind plus whether the interval
 * begins at the matched entry's start, which makes an offset equal to
 * its left key EXACT), or the exported index + 1 of the matched entry
 * (0: none). A lookup counts the keys <= x (at least 1: the key 0) and
 * reads that interval's answer. Where the IL offsets handed back fit 16
 * bits (every small map; a direct one with NATIVE_PACKED), the answer
 * word's high half also holds what ilmap_native_to_il_detail adds, the
 * runtime's `which`, and the kind byte (direct) or the matched entry
 * (small).
 *
 *   - scan (at most NATIVE_SCAN_MAX entries, no call sites, or a small
 *     map whose keys would not fit the memory bound or whose IL offsets
 *     do not fit 16 bits): starts and ends
 *     as uint32_t columns after the IL column; lookups test every entry.
 *   - small (up to NATIVE_SMALL_MAX entries, no call sites, every IL
 *     offset handed back below 65536): the keys, the IL column, the
 *     direct answers (answer words, NATIVE_SMALL_ENTRY_SHIFT, then the
 *     kind bytes), each entry's start and end as a uint8_t position in
 *     the keys, the source bits; the head's info word holds the counts.
 *     Lookups count the keys, or the normal entries' IL offsets, 8 at a
 *     time (index/count.h; a binary search without vector compares), in
 *     one step for maps of NATIVE_SMALL_ONE: no bucket table. The block
 *     is long enough for those reads (native_small_layout_of()). A
 *     "tiny" one (up to 8 normal entries, 16-bit values,
 *     native_small_tiny()) adds an IL -> native table after the byte
 *     naming the entry of unknown end.
 *   - direct (indexed, direct answers): an index part after the head
 *     (native_index), the keys, the IL column, the direct answers, the
 *     starts' and the ends' positions in the keys (uint8_t, uint16_t or
 *     uint32_t as the key count needs) or, where the bound allows, their
 *     values (NATIVE_VALUES), an entry column where the bound allows
 *     (NATIVE_ENTRIES), a bucket table (buckets.h) over the keys and
 *     one over the IL column's normal entries, the call sites as full
 *     records and their native order, the source bits.
 *   - indexed (entry answers): what a map gets when the direct answers
 *     would not fit the bound (gaps between its ranges double its
 *     intervals): the index part, the keys, the IL, start and end
 *     columns (uint32_t), the entry answers (uint16_t below 65535
 *     entries, else uint32_t), then as the direct form. A lookup reads
 *     the IL offset and start of entry a - 1 from the columns: for a = 0
 *     that is the word before each column, inside the block, read and
 *     then ignored, so that no branch is taken on it.
 *
 * In the indexed forms the keys sit right before the IL column, and the
 * IL column before more uint32_t words, so that a bucket's fixed-width
 * window never leaves the block.
 */

/* The small form's fields hold its counts (6 bits: entries, prolog_end,
 * normal_end; 7 bits: keys, at most 2 * count + 1). */
_Static_assert(NATIVE_SMALL_MAX < 64 && 2 * NATIVE_SMALL_MAX + 1 < 128,
               "a small map's counts fit its info word");

/* info word: the form, then per form. */
#define NATIVE_FORM_MASK 0x3u
#define NATIVE_FORM_SCAN 0x0u
#define NATIVE_FORM_SMALL 0x1u
#define NATIVE_FORM_INDEXED 0x2u /* entry answers */
#define NATIVE_FORM_DIRECT 0x3u  /* indexed, direct answers */
#define NATIVE_DAC 0x4u
#define NATIVE_SRC_SHIFT 3u /* 2 bits: enum native_src */
#define NATIVE_COUNT_SHIFT 5u /* scan and small: the count, 6 bits */
/* direct: the shapes the public lookups answer inline, decided when the
 * map is assembled so that a lookup tests one word it reads anyway.
 * TO_IL: narrow native table, the platform's window, every bucket below
 * the last ending by 2^31 (a signed compare without the bias); inline
 * with packed answer words (NATIVE_PACKED), one call away without. IL: the
 * same for the IL table, and the word before the first normal IL offset
 * (a PROLOG's, or the last key) differing from it (the floor's group
 * test needs no bound check). */
#define NATIVE_FAST_TO_IL 0x20u
#define NATIVE_FAST_IL 0x40u    /* ... and uint16_t pairs or uint8_t positions */
#define NATIVE_FAST_PAIRS 0x80u /* ... the former */
/* NATIVE_FAST_TO_IL with packed answer words, an entry column
 * (NATIVE_ENTRIES) and at most 255 special entries (`which` in the
 * answer word): the shape ilmap_native_to_il_detail answers by one
 * rank. */
#define NATIVE_FAST_DETAIL 0x100u
/* direct: packed answer words, and no kind column (every direct answer's
 * IL offset below 65536): IL offset | kind byte << 16 | which << 24,
 * `which` being the runtime's count of special entries its scan visited
 * for that interval (native_specials_visited) where the map has at most
 * 255 special entries (else 0, unused). */
#define NATIVE_PACKED 0x200u
#define NATIVE_SCAN_SOURCE_SHIFT 16u /* scan: the common source, 16 bits */
#define NATIVE_SMALL_KEYS_SHIFT 11u /* small: the keys, 7 bits */
#define NATIVE_SMALL_PROLOG_SHIFT 18u /* small: prolog_end, 6 bits */
#define NATIVE_SMALL_NORMAL_SHIFT 24u /* small: normal_end, 6 bits */
/* small: a "tiny" map (native_small_tiny(), with NATIVE_SMALL_ONE). */
#define NATIVE_SMALL_TINY 0x40000000u
/* small: at most NATIVE_ONE_MAX keys and normal
 * entries, so that each count is one step (most small maps), all below
 * 2^31 (a signed compare without a bias), and the word before the first
 * normal IL offset differs from it (IL -> native steps back without a
 * test). */
#define NATIVE_SMALL_ONE 0x80000000u
/* The info word's fields, as assemble.c writes them and the lookups read
 * them, side by side without overlap: form, DAC, source mode (2 bits),
 * then a scan or small map's count (6), a small map's keys (7),
 * prolog_end (6), normal_end (6), TINY, ONE; a direct map's shape bits
 * where the count would be. */
_Static_assert(NATIVE_SRC_SHIFT == 3 && NATIVE_COUNT_SHIFT == NATIVE_SRC_SHIFT + 2 &&
                   NATIVE_SMALL_KEYS_SHIFT == NATIVE_COUNT_SHIFT + 6 &&
                   NATIVE_SMALL_PROLOG_SHIFT == NATIVE_SMALL_KEYS_SHIFT + 7 &&
                   NATIVE_SMALL_NORMAL_SHIFT == NATIVE_SMALL_PROLOG_SHIFT + 6 &&
                   NATIVE_SMALL_TINY == 1u << (NATIVE_SMALL_NORMAL_SHIFT + 6) &&
                   NATIVE_SMALL_ONE == NATIVE_SMALL_TINY << 1,
               "a small map's info word: fields side by side");
_Static_assert((NATIVE_FORM_MASK | NATIVE_DAC) < 1u << NATIVE_SRC_SHIFT &&
                   NATIVE_FAST_TO_IL >= 1u << NATIVE_COUNT_SHIFT &&
                   (NATIVE_FAST_TO_IL | NATIVE_FAST_IL | NATIVE_FAST_PAIRS | NATIVE_FAST_DETAIL |
                    NATIVE_PACKED) < 1u << NATIVE_SMALL_KEYS_SHIFT,
               "a direct map's shape bits: above the source mode");
/* small: NATIVE_SMALL_TINY (with NATIVE_SMALL_ONE, whose conditions
 * hold too) marks a "tiny" map: 1 to NATIVE_ONE_MAX normal entries, no
 * two with the same IL offset, IL offsets below 65535 and exported starts and ends
 * (the code size for the entry of unknown end) below 65536, and room in
 * the bound for an IL -> native table after the byte naming the entry of
 * unknown end: a byte holding twice the normal entries' count, a byte
 * holding the first one's index (prolog_end), the normal entries' IL
 * offsets as uint16_t, then per normal entry its exported start | end
 * << 16 (uint32_t values; the table is stored and read with memcpy,
 * unaligned), with at least 16 bytes from the IL offsets on, so that one
 * 128-bit read of them (8 lanes, those past the normal entries ignored)
 * stays inside the block. */
static inline uint32_t native_small_tiny(uint32_t info)
{
    return (info & NATIVE_SMALL_TINY)
               ? ((info >> NATIVE_SMALL_NORMAL_SHIFT) & 0x3Fu) -
                     ((info >> NATIVE_SMALL_PROLOG_SHIFT) & 0x3Fu)
               : 0;
}

/* The bytes of a tiny map's table for its `normal` entries. */
static inline size_t native_tiny_bytes(uint32_t normal)
{
    return 2 + (6 * (size_t)normal < 16 ? 16 : 6 * (size_t)normal);
}

/* The exported entry of unknown end (END_OFFSET_UNKNOWN, exported with
 * the code size as its end) is kept as an index, so that the lookups need
 * not read the source bits: a built map has exactly one, the last in
 * native order (ilmap_native_build refuses the bit on its input), a map
 * from entries none (NATIVE_NONE; a small map's byte: 0xFF). */

/* A small map's answer word (always narrow): IL offset | which << 16 |
 * (exported index + 1 of the matched entry, 0: none) << 24. */
#define NATIVE_SMALL_ENTRY_SHIFT 24u

/* The runtime's `which` for an interval (doc/native-to-il.md#scan): the
 * special entries among the first upto of the table, upto being the
 * matched entry's index + 1, or the count when none matched; PROLOGs are
 * [0, prolog_end), EPILOGs and NO_MAPPINGs from normal_end on. */
static inline uint32_t native_specials_visited(uint32_t upto, uint32_t prolog_end,
                                               uint32_t normal_end)
{
    return (upto < prolog_end ? upto : prolog_end) + (upto > normal_end ? upto - normal_end : 0);
}

/* A direct answer's kind byte: the ILMAP_MAPPING_* result, with
 * NATIVE_KIND_AT_START when the interval begins at the matched (normal)
 * entry's start: there, x equal to the interval's left key is EXACT
 * (APPROXIMATE >> 1). */
#define NATIVE_KIND_AT_START 0x80u

/* How the source bits are kept. */
enum native_src {
    NATIVE_SRC_ZERO = 0,    /* all 0 */
    NATIVE_SRC_UNIFORM = 1, /* all equal: in the head (scan), a byte after
                               the answers (small) or the index */
    NATIVE_SRC_U8 = 2,      /* a uint8_t column */
    NATIVE_SRC_U32 = 3      /* a uint32_t column */
};

struct ilmap_native {
    uint32_t info;
    uint32_t code_size;
    uint32_t last_il;
};

/* native_index.flags */
#define NATIVE_WIDE_ANSWERS 0x1u /* entry answers are uint32_t */
#define NATIVE_WIDE_NATIVE 0x2u  /* the native bucket table is uint32_t */
#define NATIVE_WIDE_IL 0x4u      /* the IL bucket table is uint32_t */
#define NATIVE_SIMD 0x8u         /* bucket windows use SSE2 / NEON */
#define NATIVE_POS16 0x10u       /* direct: key positions are uint16_t */
#define NATIVE_POS32 0x20u       /* direct: key positions are uint32_t */
#define NATIVE_VALUES 0x40u      /* direct: the start and end columns hold the
                                    values themselves, not key positions:
                                    with NATIVE_POS16 one uint32_t per entry,
                                    start | end << 16 (starts_off ==
                                    ends_off), with NATIVE_POS32 two
                                    uint32_t columns */
#define NATIVE_ENTRIES 0x80u     /* direct: a uint16_t column holds each
                                    interval's exported index + 1 (0: none),
                                    for ilmap_native_to_il_detail */

/* The index part of an indexed map, right after the head; the keys
 * follow it. Offsets are in bytes from the start of the block. */
typedef struct native_index {
    uint32_t count;  /* exported entries */
    uint32_t nkeys;  /* native breakpoints */
    uint8_t native_shift, il_shift, flags;
    uint8_t packed; /* direct: NATIVE_PACKED's answer words, no kinds_off */
    uint32_t native_nb, il_nb; /* buckets */
    uint32_t native_first_off, il_first_off;
    uint32_t answers_off; /* entry answers, or the direct IL offsets */
    uint32_t kinds_off;   /* direct, not packed: the kind bytes */
    uint32_t starts_off, ends_off; /* direct: the key positions (or values) */
    uint32_t entries_off;          /* direct with NATIVE_ENTRIES */
    uint32_t unknown_end; /* the entry of unknown end (see above) */
    uint32_t prolog_end, normal_end, epilog_end; /* the table's classes */
    uint32_t ncalls; /* call sites */
    uint32_t source; /* the common source (NATIVE_SRC_UNIFORM) */
    uint32_t calls_off, calls_by_start_off, sources_off;
    uint32_t size; /* bytes of the block */
} native_index;

static inline unsigned native_form(const ilmap_native *m)
{
    return m->info & NATIVE_FORM_MASK;
}

/* The indexed forms, direct or not. */
static inline int native_indexed(const ilmap_native *m)
{
    return (native_form(m) & NATIVE_FORM_INDEXED) != 0;
}

static inline const native_index *native_index_of(const ilmap_native *m)
{
    return (const native_index *)(const void *)((const unsigned char *)m + sizeof *m);
}

static inline const void *native_at(const ilmap_native *m, uint32_t offset)
{
    return (const unsigned char *)m + offset;
}

static inline uint32_t native_count(const ilmap_native *m)
{
    return native_indexed(m) ? native_index_of(m)->count
                             : (m->info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
}

/* A small map's key count. */
static inline uint32_t native_small_keys(uint32_t info)
{
    return (info >> NATIVE_SMALL_KEYS_SHIFT) & 0x7Fu;
}

/* Where an indexed map's keys start. */
#define NATIVE_INDEXED_KEYS_OFF (sizeof(ilmap_native) + sizeof(native_index))
_Static_assert(sizeof(ilmap_native) == 12 && NATIVE_INDEXED_KEYS_OFF % sizeof(uint32_t) == 0,
               "the head, then an indexed map's keys aligned for uint32_t reads");

/* The keys of a small or indexed map. */
static inline const uint32_t *native_keys(const ilmap_native *m)
{
    return (const uint32_t *)native_at(
        m, native_indexed(m) ? (uint32_t)NATIVE_INDEXED_KEYS_OFF : (uint32_t)sizeof *m);
}

/* Bytes of each source value in mode's column (0: no column). */
static inline size_t native_source_bytes(unsigned mode)
{
    return mode == NATIVE_SRC_U8 ? 1 : mode == NATIVE_SRC_U32 ? 4 : 0;
}

/* A small map's byte offsets: the IL column, the direct answers (IL
 * offsets, kinds), the starts' and ends' positions, the byte naming the
 * entry of unknown end, a tiny map's table (tiny: its normal entries,
 * else 0), the source bits (a column, or the common byte), the end. */
typedef struct native_small_layout {
    size_t il, answers, kinds, starts, ends, unknown, tiny, sources, size;
} native_small_layout;

static inline native_small_layout native_small_layout_of(uint32_t count, uint32_t nkeys,
                                                         unsigned mode, uint32_t tiny)
{
    native_small_layout l;

    l.il = sizeof(ilmap_native) + 4 * (size_t)nkeys;
    l.answers = l.il + 4 * (size_t)count;
    l.kinds = l.answers + 4 * ((size_t)nkeys + 1);
    l.starts = l.kinds + nkeys + 1;
    l.ends = l.starts + count;
    l.unknown = l.ends + count;
    l.tiny = l.unknown + 1;
    l.sources = l.tiny + (tiny ? native_tiny_bytes(tiny) : 0);
    if (mode == NATIVE_SRC_U32)
        l.sources = (l.sources + 3u) & ~(size_t)3u;
    l.size = l.sources + (mode == NATIVE_SRC_UNIFORM ? 1 : count * native_source_bytes(mode));
    /* The lookups read 8 keys per step from any multiple of 8 into the
     * keys, and from the first normal entry's on into the IL column: at
     * most 8 words past the IL column (the keys' steps end before the
     * IL column's 7th word). Whatever the rest leaves short is padding. */
    if (l.size < l.il + 4 * ((size_t)count + 8))
        l.size = l.il + 4 * ((size_t)count + 8);
    return l;
}

/* The IL column; in the scan and indexed forms the start and end
 * columns follow it, count apart. */
static inline const uint32_t *native_columns(const ilmap_native *m)
{
    size_t head;

    switch (native_form(m)) {
    case NATIVE_FORM_SCAN: head = sizeof *m; break;
    case NATIVE_FORM_SMALL: head = sizeof *m + 4 * (size_t)native_small_keys(m->info); break;
    default:
        head = NATIVE_INDEXED_KEYS_OFF + (size_t)native_index_of(m)->nkeys * sizeof(uint32_t);
        break;
    }
    return (const uint32_t *)(const void *)((const unsigned char *)m + head);
}

/* Where the source column (or a small map's common byte) starts. */
static inline const void *native_sources(const ilmap_native *m, unsigned mode)
{
    uint32_t count = native_count(m);

    switch (native_form(m)) {
    case NATIVE_FORM_SMALL:
        return (const unsigned char *)m +
               native_small_layout_of(count, native_small_keys(m->info), mode,
                                      native_small_tiny(m->info)).sources;
    case NATIVE_FORM_SCAN: return native_columns(m) + 3 * (size_t)count;
    default: return native_at(m, native_index_of(m)->sources_off);
    }
}

/* The stored source bits of exported entry k. */
static inline uint32_t native_source(const ilmap_native *m, uint32_t k)
{
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;

    if (mode == NATIVE_SRC_ZERO)
        return 0;
    if (mode == NATIVE_SRC_UNIFORM) {
        if (native_form(m) == NATIVE_FORM_SCAN)
            return m->info >> NATIVE_SCAN_SOURCE_SHIFT;
        if (native_indexed(m))
            return native_index_of(m)->source;
        return *(const uint8_t *)native_sources(m, mode);
    }
    if (mode == NATIVE_SRC_U8)
        return ((const uint8_t *)native_sources(m, mode))[k];
    return ((const uint32_t *)native_sources(m, mode))[k];
}

/* Position i of a positional column of `width` bytes. */
static inline uint32_t native_position(const void *column, unsigned width, uint32_t i)
{
    switch (width) {
    case 1: return ((const uint8_t *)column)[i];
    case 2: return ((const uint16_t *)column)[i];
    default: return ((const uint32_t *)column)[i];
    }
}

/* A direct map's position width in bytes (1, 2 or 4). */
static inline unsigned native_position_width(unsigned flags)
{
    return (flags & NATIVE_POS32) ? 4u : (flags & NATIVE_POS16) ? 2u : 1u;
}

/* The stored native start (end: 0) or end (1) of exported entry k. */
static inline uint32_t native_bound(const ilmap_native *m, uint32_t k, int end)
{
    uint32_t count = native_count(m);

    switch (native_form(m)) {
    case NATIVE_FORM_SMALL: {
        native_small_layout l = native_small_layout_of(count, native_small_keys(m->info), 0, 0);
        const uint8_t *pos = native_at(m, (uint32_t)(end ? l.ends : l.starts));
        return native_keys(m)[pos[k]];
    }
    case NATIVE_FORM_DIRECT: {
        const native_index *x = native_index_of(m);
        if ((x->flags & (NATIVE_VALUES | NATIVE_POS16)) == (NATIVE_VALUES | NATIVE_POS16))
            return ((const uint32_t *)native_at(m, x->starts_off))[k] >> (end ? 16 : 0) & 0xFFFFu;
        uint32_t p = native_position(native_at(m, end ? x->ends_off : x->starts_off),
                                     native_position_width(x->flags), k);
        return (x->flags & NATIVE_VALUES) ? p : native_keys(m)[p];
    }
    default: return native_columns(m)[(size_t)(end ? 2 : 1) * count + k];
    }
}

/* What the build steps hand to native_assemble(): records already in the
 * runtime's sorted order, exported ones first, call sites after. */
typedef struct native_table {
    const ilmap_native_record *records;
    uint32_t count;
    uint32_t ncalls;
    uint32_t code_size;
    uint32_t last_il;
    int dac;
    unsigned flags; /* ILMAP_NO_AVX2 / ILMAP_PORTABLE */
} native_table;

/* Builds the object and its indexes from a sorted table; copies it. */
ilmap_status native_assemble(const native_table *table, ilmap_native **out);

/* Sorts records[0, n) with the runtime's comparator
 * (doc/native-maps.md#sort-order, MapSortIL), stably: equal records keep their
 * order. Returns 0 when out of memory. */
int native_sort(ilmap_native_record *records, uint32_t n);

/* Room for n records, at least one (so that 0 records is no failure);
 * NULL when out of memory. Freed with free(). */
static inline ilmap_native_record *native_records_new(uint32_t n)
{
    return malloc((size_t)(n ? n : 1) * sizeof(ilmap_native_record));
}

/* The common start of both builders: the input's check, then the record
 * array for count entries. *records is NULL unless ILMAP_OK is returned. */
static inline ilmap_status native_records_for(ilmap_status checked, size_t count,
                                              ilmap_native_record **records)
{
    *records = NULL;
    if (checked != ILMAP_OK)
        return checked;
    *records = native_records_new((uint32_t)count);
    return *records ? ILMAP_OK : ILMAP_E_NOMEM;
}

/* The number of trailing CALL_INSTRUCTION records of a sorted table:
 * the call-site list (doc/native-maps.md#call-sites). */
uint32_t native_trailing_calls(const ilmap_native_record *records, uint32_t n);

/* The sort's class of an entry: 0 PROLOG, 1 other non-call, 2 call. */
static inline unsigned native_group(const ilmap_native_record *r)
{
    if (r->il_offset == ILMAP_PROLOG)
        return 0;
    return (r->source & ILMAP_SOURCE_CALL_INSTRUCTION) ? 2u : 1u;
}

static inline int native_is_call(const ilmap_native_record *r)
{
    return (r->source & ILMAP_SOURCE_CALL_INSTRUCTION) != 0;
}

static inline int native_is_special(uint32_t il)
{
    return il >= ILMAP_EPILOG;
}

/* The runtime's signed maximum, starting from 0: values negative as
 * int32 (specials, anything >= 0x80000000) never raise it. */
static inline uint32_t native_signed_max(uint32_t current, uint32_t il)
{
    return il < 0x80000000u && il > current ? il : current;
}

/* Stored record k (k < count: exported; count + c: call site c). */
static inline ilmap_native_record native_record(const ilmap_native *m, uint32_t k)
{
    uint32_t count = native_count(m);
    ilmap_native_record r;

    if (k >= count) {
        const ilmap_native_record *calls = native_at(m, native_index_of(m)->calls_off);
        return calls[k - count];
    }
    r.il_offset = native_columns(m)[k];
    r.native_start = native_bound(m, k, 0);
    r.native_end = native_bound(m, k, 1);
    r.source = native_source(m, k);
    return r;
}

/* The exported form of entry k (doc/native-maps.md#export,
 * ExportILToNativeMap). */
static inline ilmap_native_entry native_exported(const ilmap_native *m, uint32_t k)
{
    ilmap_native_entry e;

    e.il_offset = native_columns(m)[k];
    e.native_start = native_bound(m, k, 0);
    e.native_end = native_bound(m, k, 1);
    if (native_source(m, k) & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
        e.native_end = m->code_size;
    return e;
}

#endif
