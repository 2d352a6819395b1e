/* The inside of an ilmap_native: the runtime's sorted table, compactly,
 * plus one index per lookup direction when the map is not small. */
#ifndef ILMAP_NATIVE_NATIVE_H
#define ILMAP_NATIVE_NATIVE_H

#include <stdint.h>
#include <stdlib.h>

#include "ilmap.h"

#define NATIVE_NONE 0xFFFFFFFFu

/* -10 and MAX_ILNUM as the two flavours' duplicate trackers start
 * (doc/native-maps.md#translation-filter); both are plain IL values that a
 * translation can produce. */
#define NATIVE_TRACKER_START 0xFFFFFFF6u
#define NATIVE_MAX_ILNUM 0xFFFFFFFCu

/*
 * The layout of an ilmap_native (doc/performance.md#native-memory): one
 * malloc'd block, sized to what the map needs, in one of two forms.
 *
 * Both start with a head (info word, code size, lastIL) and hold the
 * exported entries in the runtime's sorted order as three columns of
 * uint32_t (IL offset, native start, stored native end), then the source
 * bits (none when all are 0, one value in the head when all are equal,
 * else a column of uint8_t or uint32_t).
 *
 * A small map (at most NATIVE_SMALL_MAX entries, no call sites) is only
 * that: its lookups scan the columns, which for so few entries is as
 * fast as an index and costs no memory.
 *
 * An indexed map has an index part after the head (native_index) and,
 * after the columns:
 *   - native -> IL: the breakpoints of the native axis (starts and
 *     non-zero ends below 0xFFFFFFFF, ascending) and, per elementary
 *     interval, the
 *     exported index of the first matching entry (intervals.c), as
 *     uint16_t when the count allows, else uint32_t (NATIVE_NONE: no
 *     match). The answer itself (IL offset, EXACT, `which`) is read from
 *     the columns at that index.
 *   - bucket tables (buckets.h) over the breakpoints and over the IL
 *     column's normal entries, a uint32_t per bucket and about one bucket
 *     per four to eight keys.
 *   - the call sites as full records and their native order.
 */

/* Entries up to which a map without call sites is scanned. */
#define NATIVE_SMALL_MAX 32u

/* info word bits. */
#define NATIVE_INDEXED 0x1u
#define NATIVE_DAC 0x2u
#define NATIVE_SRC_SHIFT 2u /* 2 bits: enum native_src */
#define NATIVE_SMALL_COUNT_SHIFT 4u /* small maps: the count, 6 bits */
#define NATIVE_SMALL_SOURCE_SHIFT 16u /* small maps: the common source */

/* How the source bits are kept. */
enum native_src {
    NATIVE_SRC_ZERO = 0,    /* all 0 */
    NATIVE_SRC_UNIFORM = 1, /* all equal: in the head (small) or index */
    NATIVE_SRC_U8 = 2,      /* a uint8_t column */
    NATIVE_SRC_U32 = 3      /* a uint32_t column */
};

struct ilmap_native {
    uint32_t info;
    uint32_t code_size;
    uint32_t last_il;
};

/* The index part of an indexed map, right after the head. Offsets are in
 * bytes from the start of the block. */
typedef struct native_index {
    uint32_t count;  /* exported entries */
    uint32_t ncalls; /* call sites */
    uint32_t source; /* the common source (NATIVE_SRC_UNIFORM) */
    uint32_t prolog_end, normal_end, epilog_end; /* the table's classes */
    uint32_t nkeys;      /* native breakpoints below 0xFFFFFFFF */
    uint32_t nintervals; /* all breakpoints + 1 */
    uint32_t native_nb, il_nb; /* buckets */
    uint8_t native_shift, il_shift;
    uint8_t wide;        /* answers are uint32_t */
    uint8_t reserved;
    uint32_t keys_off, native_first_off, il_first_off, answers_off;
    uint32_t calls_off, calls_by_start_off, sources_off;
} native_index;

static inline int native_indexed(const ilmap_native *m)
{
    return (m->info & NATIVE_INDEXED) != 0;
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
                             : (m->info >> NATIVE_SMALL_COUNT_SHIFT) & 0x3Fu;
}

/* The IL column; the start and end columns follow it, count apart. */
static inline const uint32_t *native_columns(const ilmap_native *m)
{
    size_t head = sizeof *m + (native_indexed(m) ? sizeof(native_index) : 0);
    return (const uint32_t *)(const void *)((const unsigned char *)m + head);
}

/* The stored source bits of exported entry k. */
static inline uint32_t native_source(const ilmap_native *m, uint32_t k)
{
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;
    uint32_t count = native_count(m);
    const uint32_t *end_column = native_columns(m) + 2 * (size_t)count;
    const void *sources = end_column + count; /* small maps */

    if (mode == NATIVE_SRC_ZERO)
        return 0;
    if (native_indexed(m))
        sources = native_at(m, native_index_of(m)->sources_off);
    if (mode == NATIVE_SRC_UNIFORM)
        return native_indexed(m) ? native_index_of(m)->source
                                 : m->info >> NATIVE_SMALL_SOURCE_SHIFT;
    if (mode == NATIVE_SRC_U8)
        return ((const uint8_t *)sources)[k];
    return ((const uint32_t *)sources)[k];
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
    const uint32_t *column = native_columns(m);
    r.il_offset = column[k];
    r.native_start = column[(size_t)count + k];
    r.native_end = column[2 * (size_t)count + k];
    r.source = native_source(m, k);
    return r;
}

/* The exported form of entry k (doc/native-maps.md#export,
 * ExportILToNativeMap). */
static inline ilmap_native_entry native_exported(const ilmap_native *m, uint32_t k)
{
    uint32_t count = native_count(m);
    const uint32_t *column = native_columns(m);
    ilmap_native_entry e;

    e.il_offset = column[k];
    e.native_start = column[(size_t)count + k];
    e.native_end = column[2 * (size_t)count + k];
    if (native_source(m, k) & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
        e.native_end = m->code_size;
    return e;
}

#endif
