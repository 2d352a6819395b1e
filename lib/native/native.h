/* The inside of an ilmap_native: the runtime's sorted table, plus one
 * index per lookup direction. */
#ifndef ILMAP_NATIVE_NATIVE_H
#define ILMAP_NATIVE_NATIVE_H

#include <stdlib.h>

#include "ilmap.h"
#include "index/cpu.h"
#include "index/rank_index.h"
#include "native/buckets.h"

#define NATIVE_NONE 0xFFFFFFFFu

/* -10 and MAX_ILNUM as the two flavours' duplicate trackers start
 * (doc/native-maps.md#translation-filter); both are plain IL values that a
 * translation can produce. */
#define NATIVE_TRACKER_START 0xFFFFFFF6u
#define NATIVE_MAX_ILNUM 0xFFFFFFFCu

/*
 * The answer for one elementary interval of the native axis. Between two
 * consecutive breakpoints (all starts and non-zero ends) every "x >=
 * start" and "x < end" test of the runtime's scan is constant, so the
 * first matching entry is too; only EXACT vs APPROXIMATE depends on x,
 * and only at the interval's left edge, hence `start`.
 */
struct native_answer {
    uint32_t il;     /* what the runtime hands back */
    uint32_t start;  /* the matched entry's start (EXACT test) */
    uint32_t result; /* ILMAP_MAPPING_*: APPROXIMATE for normal entries */
    uint32_t entry;  /* exported index, NATIVE_NONE when nothing matches */
    uint32_t which;  /* specials visited by the scan */
};

struct ilmap_native {
    uint32_t count;  /* exported entries: records[0, count) */
    uint32_t ncalls; /* call sites: records[count, count + ncalls) */
    uint32_t code_size;
    uint32_t last_il;
    int dac;
    cpu_level level;
    const ilmap_native_record *records;

    /* native -> IL: breaks holds the breakpoints below 0xFFFFFFFF (the
     * rank index cannot take that key); nintervals - 1 counts them all,
     * so the interval of x = 0xFFFFFFFF is the last one. */
    rank_index breaks;
    uint32_t nintervals;
    const struct native_answer *answers;

    buckets break_buckets; /* the same keys, answering most queries */

    /* IL -> native: the distinct IL offsets of the normal entries, which
     * sit in records[prolog_end, normal_end) sorted by IL; group g starts
     * at group_first[g] and ends where group g + 1 starts. */
    rank_index il_keys;
    buckets il_buckets;
    const uint32_t *group_first; /* il_keys.nkeys + 1 */
    uint32_t prolog_end;         /* PROLOGs are records[0, prolog_end) */
    uint32_t normal_end;
    uint32_t epilog_end;         /* then NO_MAPPINGs up to count */

    /* Call sites in native order (indexes into the call-site list). */
    const uint32_t *calls_by_start;

    size_t bytes;
};

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

/* The exported form of record k (doc/native-maps.md#export,
 * ExportILToNativeMap). */
static inline ilmap_native_entry native_exported(const ilmap_native *m, uint32_t k)
{
    const ilmap_native_record *r = &m->records[k];
    ilmap_native_entry e;

    e.il_offset = r->il_offset;
    e.native_start = r->native_start;
    e.native_end = (r->source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) ? m->code_size
                                                                          : r->native_end;
    return e;
}

#endif
