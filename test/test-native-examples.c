/*
 * IL-to-native maps, by example: the worked example of
 * doc/native-maps.md#worked-example, the buffer protocol
 * (doc/buffer-protocol.md) and the lookups of doc/native-to-il.md#scan as
 * table-driven tests, each quirk of the build on a hand-computed case,
 * from_entries' validation, IL -> native, call sites, composition, and
 * every bad-input status. Every build is checked with all three lookup
 * kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-serial.h"
#include "ilmap.h"
#include "platform/memory.h" /* ilmap_malloc_size: the allocator's rounding */
#include "test.h"

#define P ILMAP_PROLOG
#define E ILMAP_EPILOG
#define NM ILMAP_NO_MAPPING
#define CALL ILMAP_SOURCE_CALL_INSTRUCTION
#define UNKNOWN ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const unsigned kernels[] = { 0, ILMAP_NO_AVX2, ILMAP_PORTABLE };

static ilmap *make_map(const ilmap_entry *entries, size_t count)
{
    ilmap *map = NULL;
    ilmap_status st = ilmap_create(entries, count, 0, &map);
    CHECK(st == ILMAP_OK);
    return map;
}

static ilmap_native *build(const ilmap_boundary *jit, size_t count, const ilmap *map,
                           uint32_t code_size, unsigned flags)
{
    ilmap_native *m = NULL;
    ilmap_status st = ilmap_native_build(jit, count, map, code_size, flags, &m);
    test_checks++;
    if (st != ILMAP_OK) {
        test_failures++;
        fprintf(stderr, "ilmap_native_build: %s\n", ilmap_status_str(st));
    }
    return m;
}

/* The export equals want[0, n), entry for entry. */
static void check_export(const char *name, const ilmap_native *m, const ilmap_native_entry *want,
                         size_t n)
{
    ilmap_native_entry got[64];
    size_t total = 0xDEADu;

    CHECK(ilmap_native_export(m, COUNT(got), &total, got) == ILMAP_OK);
    CHECK_EQ_U32(total, (uint32_t)n);
    CHECK(ilmap_native_get_count(m) == n);
    for (size_t i = 0; i < n && i < total; i++) {
        test_checks++;
        if (memcmp(&got[i], &want[i], sizeof got[i]) != 0) {
            test_failures++;
            fprintf(stderr, "%s: export[%zu] = (0x%X, %u, %u), want (0x%X, %u, %u)\n", name, i,
                    got[i].il_offset, got[i].native_start, got[i].native_end, want[i].il_offset,
                    want[i].native_start, want[i].native_end);
        }
    }
}

typedef struct lookup_row {
    uint32_t native;
    uint32_t il;
    unsigned result;
} lookup_row;

static void check_lookups(const char *name, const ilmap_native *m, const lookup_row *rows,
                          size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t il = 0xDEADu;
        unsigned result = ilmap_native_to_il(m, rows[i].native, &il);
        test_checks++;
        if (result != rows[i].result || il != rows[i].il) {
            test_failures++;
            fprintf(stderr, "%s: native %u -> (IL 0x%X, result 0x%X), want (0x%X, 0x%X)\n", name,
                    rows[i].native, il, result, rows[i].il, rows[i].result);
        }
        CHECK(ilmap_native_to_il(m, rows[i].native, NULL) == rows[i].result);
    }
}

/* Builds with each kernel and checks the export and the lookups. */
static void check_case(const char *name, const ilmap_boundary *jit, size_t count,
                       const ilmap *map, uint32_t code_size, unsigned flags,
                       const ilmap_native_entry *want, size_t nwant, uint32_t last_il,
                       const lookup_row *rows, size_t nrows)
{
    for (size_t k = 0; k < COUNT(kernels); k++) {
        ilmap_native *m = build(jit, count, map, code_size, flags | kernels[k]);
        if (!m)
            return;
        check_export(name, m, want, nwant);
        CHECK_EQ_U32(ilmap_native_get_last_il(m), last_il);
        CHECK_EQ_U32(ilmap_native_get_code_size(m), code_size);
        CHECK(ilmap_native_get_flags(m) == (flags & ILMAP_DAC));
        check_lookups(name, m, rows, nrows);
        ilmap_native_free(m);
    }
}

/* ---- doc/native-maps.md#worked-example, doc/native-to-il.md#scan ---- */

static const ilmap_entry spec_map[] = { { 0, 0, 1 }, { 6, 36, 1 }, { 8, 50, 1 } };
static const ilmap_boundary spec_jit[] = {
    { 0, P, 0 }, { 5, 0, 0 }, { 12, 36, 0 }, { 20, 44, 0 }, { 30, 50, 0 }, { 40, E, 0 },
};
static const ilmap_native_entry spec_export[] = {
    { P, 0, 5 }, { 0, 5, 12 }, { 6, 12, 30 }, { 8, 30, 40 }, { E, 40, 48 },
};

static void test_worked_example(void)
{
    ilmap *map = make_map(spec_map, COUNT(spec_map));
    /* The native -> IL examples (25, 12, 3, 45, 100) plus every row of the
     * table. */
    const lookup_row in_process[] = {
        { 25, 6, ILMAP_MAPPING_APPROXIMATE }, { 12, 6, ILMAP_MAPPING_EXACT },
        { 3, 0, ILMAP_MAPPING_PROLOG },       { 0, 0, ILMAP_MAPPING_PROLOG },
        { 45, 50, ILMAP_MAPPING_EPILOG },     { 100, 50, ILMAP_MAPPING_EPILOG },
        { 40, 50, ILMAP_MAPPING_EPILOG },     { 0xFFFFFFFFu, 50, ILMAP_MAPPING_EPILOG },
        { 5, 0, ILMAP_MAPPING_EXACT },        { 11, 0, ILMAP_MAPPING_APPROXIMATE },
        { 20, 6, ILMAP_MAPPING_APPROXIMATE }, { 30, 8, ILMAP_MAPPING_EXACT },
        { 39, 8, ILMAP_MAPPING_APPROXIMATE },
    };
    const lookup_row dac[] = {
        { 25, 6, ILMAP_MAPPING_APPROXIMATE }, { 12, 6, ILMAP_MAPPING_EXACT },
        { 3, 0, ILMAP_MAPPING_PROLOG },       { 45, 8, ILMAP_MAPPING_EPILOG },
        { 100, 8, ILMAP_MAPPING_EPILOG },
    };
    check_case("worked example in-process", spec_jit, COUNT(spec_jit), map, 48, 0, spec_export,
               COUNT(spec_export), 50, in_process, COUNT(in_process));
    check_case("worked example DAC", spec_jit, COUNT(spec_jit), map, 48, ILMAP_DAC, spec_export,
               COUNT(spec_export), 8, dac, COUNT(dac));

    /* Without a map nothing is translated or dropped; lastIL is 50 in
     * both flavours. */
    const ilmap_native_entry raw[] = {
        { P, 0, 5 }, { 0, 5, 12 }, { 36, 12, 20 }, { 44, 20, 30 }, { 50, 30, 40 }, { E, 40, 48 },
    };
    const lookup_row raw_rows[] = { { 25, 44, ILMAP_MAPPING_APPROXIMATE },
                                    { 45, 50, ILMAP_MAPPING_EPILOG } };
    check_case("worked example no map", spec_jit, COUNT(spec_jit), NULL, 48, 0, raw, COUNT(raw), 50, raw_rows,
               COUNT(raw_rows));
    check_case("worked example no map, DAC", spec_jit, COUNT(spec_jit), NULL, 48, ILMAP_DAC, raw, COUNT(raw),
               50, raw_rows, COUNT(raw_rows));

    /* An empty map is no map (doc/il-maps.md#empty-map). */
    ilmap *empty = make_map(NULL, 0);
    check_case("worked example empty map", spec_jit, COUNT(spec_jit), empty, 48, 0, raw, COUNT(raw), 50,
               raw_rows, COUNT(raw_rows));
    ilmap_free(empty);

    /* The stored records: the end-unknown entry keeps end 0 and the flag. */
    ilmap_native *m = build(spec_jit, COUNT(spec_jit), map, 48, 0);
    if (m) {
        ilmap_native_record rec[8];
        size_t total = 0;
        CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 8, &total, rec) == ILMAP_OK);
        CHECK_EQ_U32(total, 5);
        CHECK_EQ_U32(rec[4].il_offset, E);
        CHECK_EQ_U32(rec[4].native_end, 0);
        CHECK_EQ_U32(rec[4].source, UNKNOWN);
        CHECK_EQ_U32(rec[3].native_end, 40);
        CHECK_EQ_U32(rec[3].source, 0);
        CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_CALL_SITES, 8, &total, rec) == ILMAP_OK);
        CHECK_EQ_U32(total, 0);
        CHECK(ilmap_native_get_memory_bytes(m) > sizeof(ilmap_native_entry) * 5);

        /* which: specials visited, the matched one included. */
        size_t entry = 0;
        uint32_t which = 99, il = 0;
        CHECK(ilmap_native_to_il_detail(m, 3, &il, &entry, &which) == ILMAP_MAPPING_PROLOG);
        CHECK(entry == 0);
        CHECK_EQ_U32(which, 1);
        CHECK(ilmap_native_to_il_detail(m, 25, &il, &entry, &which) == ILMAP_MAPPING_APPROXIMATE);
        CHECK(entry == 2);
        CHECK_EQ_U32(which, 1);
        CHECK(ilmap_native_to_il_detail(m, 47, &il, &entry, &which) == ILMAP_MAPPING_EPILOG);
        CHECK(entry == 4);
        CHECK_EQ_U32(which, 2);
        CHECK_EQ_U32(il, 50);
        ilmap_native_free(m);
    }
    ilmap_free(map);
}

/* The doc/native-to-il.md#scan rows that the worked example lacks: NO_MAPPING,
 * no match, empty and NULL maps. */
static void test_lookup_table(void)
{
    const ilmap_boundary jit[] = { { 2, 7, 0 }, { 6, NM, 0 }, { 9, 8, 0 } };
    const ilmap_native_entry want[] = { { 7, 2, 6 }, { 8, 9, 12 }, { NM, 6, 9 } };
    const lookup_row rows[] = {
        { 0, 0, ILMAP_MAPPING_NO_INFO },          { 1, 0, ILMAP_MAPPING_NO_INFO },
        { 2, 7, ILMAP_MAPPING_EXACT },            { 5, 7, ILMAP_MAPPING_APPROXIMATE },
        { 6, 0, ILMAP_MAPPING_UNMAPPED_ADDRESS }, { 8, 0, ILMAP_MAPPING_UNMAPPED_ADDRESS },
        { 9, 8, ILMAP_MAPPING_EXACT },            { 12, 8, ILMAP_MAPPING_APPROXIMATE },
        { 0xFFFFFFFFu, 8, ILMAP_MAPPING_APPROXIMATE },
    };
    check_case("native -> IL table", jit, COUNT(jit), NULL, 12, 0, want, COUNT(want), 8, rows,
               COUNT(rows));

    ilmap_native *m = build(NULL, 0, NULL, 0, 0);
    if (m) {
        const lookup_row none[] = { { 0, 0, ILMAP_MAPPING_NO_INFO },
                                    { 0xFFFFFFFFu, 0, ILMAP_MAPPING_NO_INFO } };
        check_lookups("empty", m, none, COUNT(none));
        CHECK(ilmap_native_get_count(m) == 0);
        CHECK_EQ_U32(ilmap_native_get_last_il(m), 0);
        ilmap_native_free(m);
    }
    uint32_t il = 5;
    size_t entry = 0;
    uint32_t which = 5;
    CHECK(ilmap_native_to_il(NULL, 3, &il) == ILMAP_MAPPING_NO_INFO);
    CHECK_EQ_U32(il, 0);
    CHECK(ilmap_native_to_il_detail(NULL, 3, &il, &entry, &which) == ILMAP_MAPPING_NO_INFO);
    CHECK(entry == ILMAP_NO_INDEX);
    CHECK_EQ_U32(which, 0);
}

/* ---- doc/buffer-protocol.md#libilmap and ilmap.h: the buffer protocol ---- */

static ilmap_status export_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_native_export(ctx, cap, total, out);
}

static ilmap_status records_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_native_export_records(ctx, ILMAP_RECORDS_EXPORTED, cap, total, out);
}

static ilmap_status call_sites_call(void *ctx, size_t cap, size_t *total, void *out)
{
    return ilmap_native_export_records(ctx, ILMAP_RECORDS_CALL_SITES, cap, total, out);
}

typedef struct ranges_ctx {
    const ilmap_native *m;
    uint32_t il;
} ranges_ctx;

static ilmap_status ranges_call(void *ctx, size_t cap, size_t *total, void *out)
{
    const ranges_ctx *r = ctx;
    return ilmap_il_to_native_ranges(r->m, r->il, cap, total, out);
}

static void test_export_protocol(void)
{
    ilmap *map = make_map(spec_map, COUNT(spec_map));
    ilmap_native *m = build(spec_jit, COUNT(spec_jit), map, 48, 0);
    ilmap_native_entry buf[8];
    const ilmap_native_entry poison = { 0xAAAAAAAAu, 0xAAAAAAAAu, 0xAAAAAAAAu };
    size_t total;

    if (!m)
        return;
    /* map NULL, cMap 0, pcMap set: size query. */
    total = 77;
    CHECK(ilmap_native_export(m, 0, &total, NULL) == ILMAP_OK);
    CHECK(total == 5);
    /* map set, cMap 0: nothing copied. */
    for (size_t i = 0; i < COUNT(buf); i++)
        buf[i] = poison;
    total = 77;
    CHECK(ilmap_native_export(m, 0, &total, buf) == ILMAP_OK);
    CHECK(total == 5);
    CHECK(memcmp(&buf[0], &poison, sizeof poison) == 0);
    /* cap < n: the first cap entries, *total = the total, and unlike the
     * runtime's S_OK, ILMAP_E_TRUNCATED. */
    total = 77;
    CHECK(ilmap_native_export(m, 2, &total, buf) == ILMAP_E_TRUNCATED);
    CHECK(total == 5);
    CHECK(memcmp(buf, spec_export, 2 * sizeof buf[0]) == 0);
    CHECK(memcmp(&buf[2], &poison, sizeof poison) == 0);
    /* cap >= n: n entries. */
    for (size_t i = 0; i < COUNT(buf); i++)
        buf[i] = poison;
    CHECK(ilmap_native_export(m, 8, &total, buf) == ILMAP_OK);
    CHECK(total == 5);
    CHECK(memcmp(buf, spec_export, sizeof spec_export) == 0);
    CHECK(memcmp(&buf[5], &poison, sizeof poison) == 0);
    CHECK(ilmap_native_export(m, 5, &total, buf) == ILMAP_OK);
    CHECK(memcmp(buf, spec_export, sizeof spec_export) == 0);
    /* total is required (the runtime allows pcMap NULL with cMap 0). */
    CHECK(ilmap_native_export(m, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_export(m, 0, NULL, buf) == ILMAP_E_INVALID_ARG);
    /* cap > 0 with total or out NULL: invalid argument, nothing copied. */
    for (size_t i = 0; i < COUNT(buf); i++)
        buf[i] = poison;
    total = 77;
    CHECK(ilmap_native_export(m, 3, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK(ilmap_native_export(m, 3, NULL, buf) == ILMAP_E_INVALID_ARG);
    CHECK(memcmp(&buf[0], &poison, sizeof poison) == 0);
    CHECK(ilmap_native_export(m, 3, NULL, NULL) == ILMAP_E_INVALID_ARG);
    /* No map at all (the runtime's functionId 0). */
    total = 77;
    CHECK(ilmap_native_export(NULL, 0, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK(ilmap_native_export(NULL, 8, &total, buf) == ILMAP_E_INVALID_ARG);
    test_copy_out_protocol("ilmap_native_export", export_call, m, spec_export,
                           COUNT(spec_export), sizeof spec_export[0]);

    /* The same protocol for records and ranges. */
    ilmap_native_record rec[8];
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 0, &total, NULL) == ILMAP_OK);
    CHECK(total == 5);
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 2, &total, rec) ==
          ILMAP_E_TRUNCATED);
    CHECK(total == 5);
    CHECK_EQ_U32(rec[1].native_start, 5);
    total = 77;
    CHECK(ilmap_native_export_records(m, 2, 0, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 1, &total, NULL) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_export_records(NULL, ILMAP_RECORDS_EXPORTED, 0, &total, NULL) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 0, NULL, NULL) ==
          ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 8, &total, rec) == ILMAP_OK);
    test_copy_out_protocol("ilmap_native_export_records", records_call, m, rec, total,
                           sizeof rec[0]);
    test_copy_out_protocol("ilmap_native_export_records (call sites)", call_sites_call, m, rec, 0,
                           sizeof rec[0]);
    CHECK(ilmap_il_to_native_ranges(m, 6, 0, &total, NULL) == ILMAP_OK);
    CHECK(total == 1);
    CHECK(ilmap_il_to_native_ranges(m, 6, 1, NULL, buf) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_il_to_native_ranges(NULL, 6, 0, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    /* Every IL offset of the export, specials included, and one with none. */
    for (size_t k = 0; k <= COUNT(spec_export); k++) {
        ranges_ctx rc = { m, k < COUNT(spec_export) ? spec_export[k].il_offset : 999 };
        ilmap_native_entry want[8];
        size_t n = 0;
        for (size_t i = 0; i < COUNT(spec_export); i++)
            if (spec_export[i].il_offset == rc.il)
                want[n++] = spec_export[i];
        test_copy_out_protocol("ilmap_il_to_native_ranges", ranges_call, &rc, want, n,
                               sizeof want[0]);
    }

    ilmap_native_free(m);
    ilmap_free(map);
}

/* ---- the build's quirks, one hand-computed case each ---- */

static void test_build_quirks(void)
{
    const uint32_t A = ILMAP_MAPPING_APPROXIMATE, X = ILMAP_MAPPING_EXACT;

    /* Second filter: the same IL twice in a row is dropped in-process, its
     * range absorbed by the first; the DAC keeps both. */
    {
        const ilmap_boundary jit[] = { { 0, 1, 0 }, { 4, 1, 0 }, { 6, 2, 0 } };
        const ilmap_native_entry in_proc[] = { { 1, 0, 6 }, { 2, 6, 9 } };
        const ilmap_native_entry dac[] = { { 1, 0, 4 }, { 1, 4, 6 }, { 2, 6, 9 } };
        const lookup_row r1[] = { { 4, 1, A }, { 5, 1, A }, { 0, 1, X } };
        const lookup_row r2[] = { { 4, 1, X }, { 5, 1, A }, { 0, 1, X } };
        check_case("second filter", jit, 3, NULL, 9, 0, in_proc, 2, 2, r1, 3);
        check_case("second filter, DAC", jit, 3, NULL, 9, ILMAP_DAC, dac, 3, 2, r2, 3);
    }
    /* The second filter steps back over one call instruction, not two; the
     * end offsets skip call instructions; calls are split off. */
    {
        const ilmap_boundary jit[] = {
            { 0, 5, 0 }, { 3, 9, CALL }, { 5, 5, 0 },                  /* dropped */
            { 7, 6, 0 }, { 8, 2, CALL }, { 9, 3, CALL }, { 10, 6, 0 }, /* kept */
            { 12, 7, 0 },
        };
        const ilmap_native_entry want[] = { { 5, 0, 7 }, { 6, 7, 10 }, { 6, 10, 12 },
                                            { 7, 12, 20 } };
        const lookup_row rows[] = { { 3, 5, A }, { 5, 5, A }, { 8, 6, A }, { 10, 6, X } };
        check_case("call instructions", jit, COUNT(jit), NULL, 20, 0, want, COUNT(want), 9,
                   rows, COUNT(rows));

        ilmap_native *m = build(jit, COUNT(jit), NULL, 20, 0);
        if (m) {
            ilmap_native_record calls[4];
            size_t total = 0;
            CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_CALL_SITES, 4, &total, calls) ==
                  ILMAP_OK);
            CHECK(total == 3);
            test_copy_out_protocol("ilmap_native_export_records (call sites)", call_sites_call, m,
                                   calls, 3, sizeof calls[0]);
            /* Sorted by IL: 2 @8, 3 @9, 9 @3; each ends at the next
             * non-call start. */
            CHECK_EQ_U32(calls[0].il_offset, 2);
            CHECK_EQ_U32(calls[0].native_start, 8);
            CHECK_EQ_U32(calls[0].native_end, 10);
            CHECK_EQ_U32(calls[1].il_offset, 3);
            CHECK_EQ_U32(calls[2].il_offset, 9);
            CHECK_EQ_U32(calls[2].native_start, 3);
            CHECK_EQ_U32(calls[2].native_end, 7);
            CHECK_EQ_U32(calls[2].source, CALL);

            ilmap_native_record c;
            CHECK(ilmap_native_find_call_site(m, 9, &c) == ILMAP_OK);
            CHECK_EQ_U32(c.il_offset, 3);
            CHECK(ilmap_native_find_call_site(m, 3, &c) == ILMAP_OK);
            CHECK_EQ_U32(c.il_offset, 9);
            CHECK(ilmap_native_find_call_site(m, 4, &c) == ILMAP_E_NOT_FOUND);
            CHECK_EQ_U32(c.il_offset, 0);
            CHECK(ilmap_native_find_call_site(m, 0, &c) == ILMAP_E_NOT_FOUND);
            CHECK(ilmap_native_find_call_site(m, 100, &c) == ILMAP_E_NOT_FOUND);
            CHECK(ilmap_native_find_call_site(m, 9, NULL) == ILMAP_E_INVALID_ARG);
            CHECK(ilmap_native_find_call_site(NULL, 9, &c) == ILMAP_E_INVALID_ARG);
            ilmap_native_free(m);
        }
    }
    /* The end-offset skip stops at the final entry: a trailing call takes
     * the end-unknown flag with it, so no exported entry reaches the code
     * size and offsets past the call answer NO_INFO. */
    {
        const ilmap_boundary jit[] = { { 0, 1, 0 }, { 4, 2, CALL } };
        const ilmap_native_entry want[] = { { 1, 0, 4 } };
        const lookup_row rows[] = { { 3, 1, A }, { 4, 0, ILMAP_MAPPING_NO_INFO },
                                    { 9, 0, ILMAP_MAPPING_NO_INFO } };
        check_case("trailing call", jit, 2, NULL, 10, 0, want, 1, 2, rows, 3);
        ilmap_native *m = build(jit, 2, NULL, 10, 0);
        if (m) {
            ilmap_native_record c;
            CHECK(ilmap_native_find_call_site(m, 4, &c) == ILMAP_OK);
            CHECK_EQ_U32(c.native_end, 0);
            CHECK_EQ_U32(c.source, CALL | UNKNOWN);
            ilmap_native_free(m);
        }
    }
    /* An empty prolog: PROLOG and IL 0 both at native 0. The PROLOG's end
     * is 0, and end 0 never matches a PROLOG. */
    {
        const ilmap_boundary jit[] = { { 0, P, 0 }, { 0, 0, 0 }, { 7, 3, 0 } };
        const ilmap_native_entry want[] = { { P, 0, 0 }, { 0, 0, 7 }, { 3, 7, 10 } };
        const lookup_row rows[] = { { 0, 0, X }, { 6, 0, A }, { 7, 3, X }, { 50, 3, A } };
        check_case("empty prolog", jit, 3, NULL, 10, 0, want, 3, 3, rows, 4);
    }
    /* Two normal boundaries at native 0: the first gets end 0, which the
     * runtime reads as "to the end" and, being earlier in IL order than the
     * last entry, wins everywhere it is not preceded. */
    {
        const ilmap_boundary jit[] = { { 0, 5, 0 }, { 0, 2, 0 }, { 6, 9, 0 } };
        const ilmap_native_entry want[] = { { 2, 0, 6 }, { 5, 0, 0 }, { 9, 6, 10 } };
        const lookup_row rows[] = { { 0, 2, X }, { 5, 2, A }, { 6, 5, A }, { 8, 5, A } };
        check_case("end 0 at native 0", jit, 3, NULL, 10, 0, want, 3, 9, rows, 4);
    }
    /* Overlaps resolve by sorted order: PROLOG < IL < EPILOG < NO_MAPPING,
     * ties by native start; lastIL skips every negative offset. */
    {
        const ilmap_boundary jit[] = { { 0, NM, 0 }, { 2, E, 0 }, { 4, 0x80000000u, 0 },
                                       { 6, 3, 0 } };
        const ilmap_native_entry want[] = { { 3, 6, 9 }, { 0x80000000u, 4, 6 }, { E, 2, 4 },
                                            { NM, 0, 2 } };
        const lookup_row rows[] = { { 1, 0, ILMAP_MAPPING_UNMAPPED_ADDRESS },
                                    { 3, 3, ILMAP_MAPPING_EPILOG },
                                    { 5, 0x80000000u, A },
                                    { 100, 3, A } };
        check_case("classes", jit, 4, NULL, 9, 0, want, 4, 3, rows, 4);
    }
    /* The tracker moves on an entry the second filter drops, so the entry
     * after it survives: identity map [(0,0),(10,10)]. */
    {
        const ilmap_entry ident[] = { { 0, 0, 1 }, { 10, 10, 1 } };
        ilmap *map = make_map(ident, 2);
        const ilmap_boundary jit[] = { { 0, 0, 0 }, { 4, 10, CALL }, { 8, 0, 0 }, { 12, 10, 0 } };
        const ilmap_native_entry want[] = { { 0, 0, 12 }, { 10, 12, 16 } };
        const lookup_row rows[] = { { 9, 0, A }, { 12, 10, X } };
        check_case("tracker", jit, 4, map, 16, 0, want, 2, 10, rows, 2);
        ilmap_free(map);
    }
    /* The in-process tracker starts at -10: a first entry translating to
     * 0xFFFFFFF6 is dropped. The DAC's starts at MAX_ILNUM. */
    {
        const ilmap_entry high[] = { { 0xFFFFFFF6u, 0, 1 }, { 0xFFFFFFF7u, 4, 1 } };
        ilmap *map = make_map(high, 2);
        const ilmap_boundary jit[] = { { 0, 0, 0 }, { 2, 4, 0 } };
        const ilmap_native_entry in_proc[] = { { 0xFFFFFFF7u, 2, 8 } };
        const ilmap_native_entry dac[] = { { 0xFFFFFFF6u, 0, 2 }, { 0xFFFFFFF7u, 2, 8 } };
        const lookup_row r1[] = { { 0, 0, ILMAP_MAPPING_NO_INFO }, { 3, 0xFFFFFFF7u, A } };
        const lookup_row r2[] = { { 0, 0xFFFFFFF6u, X }, { 3, 0xFFFFFFF7u, A } };
        check_case("tracker -10", jit, 2, map, 8, 0, in_proc, 1, 4, r1, 2);
        check_case("tracker -10, DAC", jit, 2, map, 8, ILMAP_DAC, dac, 2, 0, r2, 2);
        ilmap_free(map);
    }
    /* The DAC compacts away everything translating to MAX_ILNUM, but its
     * tracker still moves there. */
    {
        const ilmap_entry m2[] = { { 5, 0, 1 }, { 0xFFFFFFFCu, 4, 1 } };
        ilmap *map = make_map(m2, 2);
        const ilmap_boundary jit[] = { { 0, 0, 0 }, { 2, 4, 0 }, { 6, 0, 0 } };
        const ilmap_native_entry dac[] = { { 5, 0, 6 }, { 5, 6, 10 } };
        const ilmap_native_entry in_proc[] = { { 5, 0, 2 }, { 5, 6, 10 }, { 0xFFFFFFFCu, 2, 6 } };
        const lookup_row r[] = { { 3, 5, A } };
        const lookup_row r2[] = { { 3, 0xFFFFFFFCu, A } };
        check_case("MAX_ILNUM, DAC", jit, 3, map, 10, ILMAP_DAC, dac, 2, 5, r, 1);
        check_case("MAX_ILNUM", jit, 3, map, 10, 0, in_proc, 3, 4, r2, 1);
        ilmap_free(map);
    }
    /* No PROLOG rule in the DAC: with M' = [(2->10), (6->36)], new 5 is
     * PROLOG in-process and 2 in the DAC (then a duplicate of 12 -> 2). */
    {
        const ilmap_entry m3[] = { { 2, 10, 1 }, { 6, 36, 1 } };
        ilmap *map = make_map(m3, 2);
        const ilmap_boundary jit[] = { { 0, 5, 0 }, { 3, 12, 0 } };
        const ilmap_native_entry in_proc[] = { { P, 0, 3 }, { 2, 3, 8 } };
        const ilmap_native_entry dac[] = { { 2, 0, 8 } };
        const lookup_row r1[] = { { 1, 0, ILMAP_MAPPING_PROLOG }, { 3, 2, X } };
        const lookup_row r2[] = { { 1, 2, A }, { 3, 2, A }, { 0, 2, X } };
        check_case("no PROLOG rule in-process", jit, 2, map, 8, 0, in_proc, 2, 12, r1, 2);
        check_case("no PROLOG rule, DAC", jit, 2, map, 8, ILMAP_DAC, dac, 1, 2, r2, 3);
        ilmap_free(map);
    }
    /* A PROLOG call instruction is exported (sorted with the PROLOGs). */
    {
        const ilmap_boundary jit[] = { { 0, P, CALL }, { 3, 1, 0 } };
        const ilmap_native_entry want[] = { { P, 0, 3 }, { 1, 3, 5 } };
        const lookup_row rows[] = { { 2, 0, ILMAP_MAPPING_PROLOG } };
        check_case("PROLOG call", jit, 2, NULL, 5, 0, want, 2, 1, rows, 1);
    }
    /* A call in IL injected before the map's first new offset
     * (doc/native-maps.md#call-sites): its boundary translates to PROLOG,
     * sorts first and is exported, nested in IL 4's range with the same
     * end. from_entries accepts that export and answers as the build does
     * (doc/native-to-il.md, 6.6). The DAC has no PROLOG rule: there the
     * call translates to 0 and is split off. */
    {
        const ilmap_entry probe[] = { { 0, 5, 1 }, { 4, 10, 1 }, { 6, 12, 1 } };
        ilmap *map = make_map(probe, 3);
        const ilmap_boundary jit[] = { { 0, 10, 0 }, { 3, 0, CALL }, { 8, 12, 0 } };
        const ilmap_native_entry want[] = { { P, 3, 8 }, { 4, 0, 8 }, { 6, 8, 12 } };
        const ilmap_native_entry dac[] = { { 4, 0, 8 }, { 6, 8, 12 } };
        const lookup_row rows[] = {
            { 0, 4, X }, { 2, 4, A }, { 3, 0, ILMAP_MAPPING_PROLOG },
            { 7, 0, ILMAP_MAPPING_PROLOG }, { 8, 6, X }, { 11, 6, A },
        };
        /* At and past the code size the built map reads the last entry's
         * stored end (0: open), the array its exported one (12). */
        const lookup_row built_top[] = { { 12, 6, A } };
        const lookup_row read_top[] = { { 12, 0, ILMAP_MAPPING_NO_INFO } };
        const lookup_row dac_rows[] = { { 3, 4, A }, { 8, 6, X } };
        check_case("probe call before the first map entry", jit, 3, map, 12, 0, want, 3, 12,
                   rows, COUNT(rows));
        check_case("probe call before the first map entry, DAC", jit, 3, map, 12, ILMAP_DAC, dac,
                   2, 6, dac_rows, COUNT(dac_rows));
        size_t bad = 12345, other = 12345;
        ilmap_native *m = NULL;
        CHECK(ilmap_native_validate(want, 3, 12, &bad, &other) == ILMAP_OK);
        CHECK(bad == ILMAP_NO_INDEX && other == ILMAP_NO_INDEX);
        m = build(jit, 3, map, 12, 0);
        if (m)
            check_lookups("probe call, built, at the code size", m, built_top, 1);
        ilmap_native_free(m);
        m = NULL;
        CHECK(ilmap_native_from_entries(want, 3, 12, &m) == ILMAP_OK);
        if (m) {
            check_export("probe call, read back", m, want, 3);
            check_lookups("probe call, read back", m, rows, COUNT(rows));
            check_lookups("probe call, read back, at the code size", m, read_top, 1);
            ilmap_native_free(m);
        }
        ilmap_free(map);
    }
    /* Several calls in a row, PROLOG or not: each PROLOG one nests in the
     * range before it (all end at 9); the others are split off. */
    {
        const ilmap_boundary jit[] = {
            { 0, 2, 0 }, { 2, P, CALL }, { 4, 7, CALL }, { 5, P, CALL }, { 9, 3, 0 },
        };
        const ilmap_native_entry want[] = { { P, 2, 9 }, { P, 5, 9 }, { 2, 0, 9 }, { 3, 9, 11 } };
        const lookup_row rows[] = {
            { 1, 2, A }, { 2, 0, ILMAP_MAPPING_PROLOG }, { 8, 0, ILMAP_MAPPING_PROLOG },
            { 9, 3, X },
        };
        ilmap_native *m = NULL;
        check_case("PROLOG calls in a row", jit, 5, NULL, 11, 0, want, 4, 7, rows, COUNT(rows));
        CHECK(ilmap_native_from_entries(want, 4, 11, &m) == ILMAP_OK);
        if (m)
            check_lookups("PROLOG calls in a row, read back", m, rows, COUNT(rows));
        ilmap_native_free(m);
    }
    /* A JIT never sets NATIVE_END_OFFSET_UNKNOWN: the runtime does, on the
     * last entry. An input carrying it is refused with its index (its
     * export would stretch over every later range). */
    {
        const ilmap_boundary jit[] = { { 0, 1, 0 }, { 3, 2, UNKNOWN | CALL }, { 4, 3, 0 } };
        ilmap_native *m = (ilmap_native *)(uintptr_t)1;
        size_t bad = 12345;
        CHECK(ilmap_native_validate_boundaries(jit, 3, 5, &bad) == ILMAP_E_INVALID_ARG);
        CHECK(bad == 1);
        CHECK(ilmap_native_build(jit, 3, NULL, 5, 0, &m) == ILMAP_E_INVALID_ARG);
        CHECK(m == NULL);
        CHECK(ilmap_native_build(jit, 3, NULL, 5, ILMAP_DAC, &m) == ILMAP_E_INVALID_ARG);
        /* Order and code size are checked first at each index. */
        const ilmap_boundary late[] = { { 0, 1, 0 }, { 6, 2, UNKNOWN } };
        CHECK(ilmap_native_validate_boundaries(late, 2, 5, &bad) == ILMAP_E_CODE_SIZE);
        CHECK(bad == 1);
    }
}

/* ---- bad input ---- */

static void test_bad_input(void)
{
    const ilmap_boundary unsorted[] = { { 0, 1, 0 }, { 8, 2, 0 }, { 4, 3, 0 } };
    const ilmap_boundary ok[] = { { 0, 1, 0 }, { 4, 2, 0 }, { 4, 3, 0 }, { 9, 4, 0 } };
    ilmap_native *m = (ilmap_native *)(uintptr_t)1;
    size_t bad = 0;

    CHECK(ilmap_native_build(unsorted, 3, NULL, 10, 0, &m) == ILMAP_E_NATIVE_ORDER);
    CHECK(m == NULL);
    CHECK(ilmap_native_validate_boundaries(unsorted, 3, 10, &bad) == ILMAP_E_NATIVE_ORDER);
    CHECK(bad == 2);
    /* code_size smaller than the last start; equal is fine. */
    CHECK(ilmap_native_build(ok, 4, NULL, 8, 0, &m) == ILMAP_E_CODE_SIZE);
    CHECK(ilmap_native_validate_boundaries(ok, 4, 8, &bad) == ILMAP_E_CODE_SIZE);
    CHECK(bad == 3);
    CHECK(ilmap_native_validate_boundaries(ok, 4, 9, &bad) == ILMAP_OK);
    CHECK(bad == ILMAP_NO_INDEX);
    CHECK(ilmap_native_build(ok, 4, NULL, 9, 0, &m) == ILMAP_OK);
    ilmap_native_free(m);
    /* Order is checked before size at each index. */
    CHECK(ilmap_native_validate_boundaries(unsorted, 3, 5, &bad) == ILMAP_E_CODE_SIZE);
    CHECK(bad == 1);
    /* Counts too large are refused before anything is read. */
    m = (ilmap_native *)(uintptr_t)1;
    CHECK(ilmap_native_build(ok, (size_t)ILMAP_NATIVE_MAX_ENTRIES + 1, NULL, 9, 0, &m) ==
          ILMAP_E_INVALID_ARG);
    CHECK(m == NULL);
    CHECK(ilmap_native_build(ok, SIZE_MAX, NULL, 9, 0, &m) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_validate_boundaries(ok, SIZE_MAX, 9, &bad) == ILMAP_E_INVALID_ARG);
    CHECK(bad == ILMAP_NO_INDEX);
    CHECK(ilmap_native_build(NULL, 1, NULL, 9, 0, &m) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_build(ok, 4, NULL, 9, 0, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_build(ok, 4, NULL, 9, ILMAP_LENIENT, &m) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_build(ok, 4, NULL, 9, 1u << 20, &m) == ILMAP_E_INVALID_ARG);
    CHECK(m == NULL);

    const ilmap_native_entry e[] = { { 1, 0, 4 } };
    CHECK(ilmap_native_from_entries(NULL, 1, 9, &m) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_from_entries(e, 1, 9, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_from_entries(e, SIZE_MAX, 9, &m) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_translate(NULL, 1, 9, NULL, 0, &m, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_translate(e, 1, 9, NULL, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_translate(e, 1, 9, NULL, ILMAP_LENIENT, &m, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_translate(e, SIZE_MAX, 9, NULL, 0, &m, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_native_translate(e, 1, 0, NULL, 0, &m, NULL) == ILMAP_OK);
    ilmap_native_free(m);
    const ilmap_native_entry far[] = { { 1, 12, 14 } };
    int lossless = 1;
    CHECK(ilmap_native_translate(far, 1, 9, NULL, 0, &m, &lossless) == ILMAP_E_CODE_SIZE);
    CHECK(m == NULL);
    CHECK(lossless == 0);

    ilmap_native_entry entry = { 1, 2, 3 };
    size_t index = 0;
    int il_matched = 1;
    CHECK(ilmap_il_to_native(NULL, 3, &entry, &index, &il_matched) == ILMAP_E_INVALID_ARG);
    CHECK(entry.il_offset == 0 && entry.native_start == 0 && entry.native_end == 0);
    CHECK(index == ILMAP_NO_INDEX);
    CHECK(il_matched == 0);

    /* NULL is a no-op for free and 0 for the accessors. */
    ilmap_native_free(NULL);
    CHECK(ilmap_native_get_count(NULL) == 0);
    CHECK(ilmap_native_get_code_size(NULL) == 0);
    CHECK(ilmap_native_get_last_il(NULL) == 0);
    CHECK(ilmap_native_get_flags(NULL) == 0);
    CHECK(ilmap_native_get_memory_bytes(NULL) == 0);

    CHECK(strcmp(ilmap_status_str(ILMAP_E_NOT_FOUND), "unknown status") != 0);
    CHECK(strcmp(ilmap_status_str(ILMAP_E_NATIVE_ORDER), "unknown status") != 0);
    CHECK(strcmp(ilmap_status_str(ILMAP_E_CODE_SIZE), "unknown status") != 0);
    CHECK(strcmp(ilmap_status_str(ILMAP_E_BAD_RANGE), "unknown status") != 0);
    CHECK(strcmp(ilmap_status_str(ILMAP_E_OVERLAP), "unknown status") != 0);
}

/* ---- from_entries and its validation ---- */

typedef struct validate_row {
    const char *what;
    ilmap_native_entry entries[5];
    size_t count;
    uint32_t code_size;
    ilmap_status status;
    size_t bad;
    size_t other;
} validate_row;

static void test_validate(void)
{
    const size_t NO = ILMAP_NO_INDEX;
    const validate_row rows[] = {
        { "valid, any order", { { 3, 6, 9 }, { P, 0, 2 }, { 1, 2, 6 } }, 3, 9, ILMAP_OK, NO, NO },
        { "end 0 = to the end", { { 1, 0, 4 }, { 2, 4, 0 } }, 2, 9, ILMAP_OK, NO, NO },
        { "PROLOG end 0 is empty", { { P, 0, 0 }, { 1, 0, 9 } }, 2, 9, ILMAP_OK, NO, NO },
        { "PROLOG end 0 anywhere", { { P, 5, 0 }, { 1, 0, 9 } }, 2, 9, ILMAP_OK, NO, NO },
        { "empty ranges overlap nothing", { { 1, 0, 9 }, { 2, 4, 4 } }, 2, 9, ILMAP_OK, NO, NO },
        { "start beyond code", { { 1, 0, 4 }, { 2, 10, 10 } }, 2, 9, ILMAP_E_CODE_SIZE, 1, NO },
        { "end beyond code", { { 1, 0, 4 }, { 2, 4, 10 } }, 2, 9, ILMAP_E_CODE_SIZE, 1, NO },
        { "end 0 from beyond code", { { 2, 10, 0 } }, 1, 9, ILMAP_E_CODE_SIZE, 0, NO },
        { "start after end", { { 1, 0, 4 }, { 2, 6, 5 } }, 2, 9, ILMAP_E_BAD_RANGE, 1, NO },
        { "lowest index first", { { 2, 6, 5 }, { 1, 0, 40 } }, 2, 9, ILMAP_E_BAD_RANGE, 0, NO },
        { "overlap", { { 1, 0, 5 }, { 2, 4, 9 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        { "overlap, reversed", { { 2, 4, 9 }, { 1, 0, 5 } }, 2, 9, ILMAP_E_OVERLAP, 0, 1 },
        { "same start", { { 1, 3, 5 }, { 2, 3, 4 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        /* End 0 is open to the top, yet never part of the overlap check:
         * the runtime exports such entries (several boundaries at one
         * native offset) and its scan resolves them by table order. */
        { "end 0 overlaps nothing", { { 1, 0, 0 }, { 2, 4, 6 } }, 2, 9, ILMAP_OK, NO, NO },
        { "epilog-only body", { { P, 0, 0 }, { 0, 0, 0 }, { E, 0, 6 } }, 3, 6, ILMAP_OK, NO,
          NO },
        { "end 0 before a later range", { { 1, 5, 0 }, { 2, 0, 9 } }, 2, 9, ILMAP_OK, NO, NO },
        { "end 0 below its start", { { 2, 6, 0 }, { 1, 0, 6 } }, 2, 9, ILMAP_OK, NO, NO },
        { "end 0 at the code size", { { 2, 9, 0 }, { 1, 0, 9 } }, 2, 9, ILMAP_OK, NO, NO },
        { "several end 0 at one start", { { 1, 0, 0 }, { 2, 0, 0 }, { 1, 0, 0 }, { 3, 0, 9 } }, 4,
          9, ILMAP_OK, NO, NO },
        { "code size 0", { { P, 0, 0 }, { 1, 0, 0 }, { E, 0, 0 } }, 3, 0, ILMAP_OK, NO, NO },
        { "empty range at the code size", { { 1, 0, 9 }, { 2, 9, 9 } }, 2, 9, ILMAP_OK, NO, NO },
        { "PROLOG end 0 from beyond code", { { 1, 0, 4 }, { P, 10, 0 } }, 2, 9,
          ILMAP_E_CODE_SIZE, 1, NO },
        { "overlap among end-0 entries", { { 1, 0, 0 }, { 2, 0, 5 }, { 3, 3, 0 }, { 4, 4, 9 } },
          4, 9, ILMAP_E_OVERLAP, 3, 1 },
        { "end 0 does not hide a bad range", { { 1, 0, 0 }, { 2, 7, 6 } }, 2, 9,
          ILMAP_E_BAD_RANGE, 1, NO },
        { "nested, furthest end owns", { { 1, 0, 8 }, { 2, 2, 3 }, { 3, 4, 5 } }, 3, 9,
          ILMAP_E_OVERLAP, 1, 0 },
        { "lowest overlap reported", { { 1, 6, 9 }, { 2, 7, 8 }, { 3, 0, 3 }, { 4, 2, 4 } }, 4,
          9, ILMAP_E_OVERLAP, 3, 2 },
        { "duplicates", { { 1, 0, 4 }, { 1, 0, 4 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        /* The one overlap the runtime exports: a PROLOG range (a call
         * instruction translated to PROLOG) nested in another with the
         * same end (doc/native-to-il.md#accepts). */
        { "PROLOG nested, same end", { { P, 3, 8 }, { 4, 0, 8 }, { 6, 8, 9 } }, 3, 9, ILMAP_OK,
          NO, NO },
        { "PROLOG nested, same start and end", { { P, 0, 8 }, { 4, 0, 8 } }, 2, 9, ILMAP_OK, NO,
          NO },
        { "PROLOG nested, same start, normal first", { { 4, 0, 8 }, { P, 0, 8 } }, 2, 9, ILMAP_OK,
          NO, NO },
        { "PROLOGs nested twice", { { P, 5, 8 }, { P, 3, 8 }, { 4, 0, 8 } }, 3, 9, ILMAP_OK, NO,
          NO },
        { "PROLOGs alone, nested", { { P, 0, 8 }, { P, 2, 8 } }, 2, 9, ILMAP_OK, NO, NO },
        { "PROLOG nested, ends differ", { { 1, 0, 8 }, { P, 3, 7 } }, 2, 9, ILMAP_E_OVERLAP, 1,
          0 },
        { "PROLOG nested past the end", { { 1, 0, 8 }, { P, 3, 9 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        { "normal nested in a PROLOG", { { P, 0, 8 }, { 1, 3, 8 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        { "two normals with a PROLOG, same range", { { P, 0, 8 }, { 1, 0, 8 }, { 2, 0, 8 } }, 3, 9,
          ILMAP_E_OVERLAP, 2, 0 },
        { "EPILOG nested", { { 1, 0, 8 }, { E, 3, 8 } }, 2, 9, ILMAP_E_OVERLAP, 1, 0 },
        { "nested group, then an overlap", { { 1, 0, 4 }, { P, 2, 4 }, { 2, 3, 6 } }, 3, 9,
          ILMAP_E_OVERLAP, 2, 0 },
        { "empty", { { 0, 0, 0 } }, 0, 0, ILMAP_OK, NO, NO },
    };

    for (size_t i = 0; i < COUNT(rows); i++) {
        const validate_row *r = &rows[i];
        size_t bad = 12345, other = 12345;
        ilmap_status st = ilmap_native_validate(r->entries, r->count, r->code_size, &bad, &other);
        test_checks++;
        if (st != r->status || bad != r->bad || other != r->other) {
            test_failures++;
            fprintf(stderr, "validate '%s': %s bad %zu other %zu, want %s bad %zu other %zu\n",
                    r->what, ilmap_status_str(st), bad, other, ilmap_status_str(r->status), r->bad,
                    r->other);
        }
        ilmap_native *m = (ilmap_native *)(uintptr_t)1;
        CHECK(ilmap_native_from_entries(r->entries, r->count, r->code_size, &m) == r->status);
        CHECK((m != NULL) == (r->status == ILMAP_OK));
        ilmap_native_free(m);
    }
    size_t bad = 0;
    CHECK(ilmap_native_validate(NULL, 1, 9, &bad, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(bad == ILMAP_NO_INDEX);
    CHECK(ilmap_native_validate(NULL, 0, 9, NULL, NULL) == ILMAP_OK);
}

static void test_from_entries(void)
{
    /* Any order in, the runtime's order out; ends kept as given. */
    const ilmap_native_entry in[] = { { E, 40, 48 }, { 6, 12, 30 }, { P, 0, 5 }, { 8, 30, 40 },
                                      { 0, 5, 12 } };
    ilmap_native *m = NULL;

    CHECK(ilmap_native_from_entries(in, COUNT(in), 48, &m) == ILMAP_OK);
    if (!m)
        return;
    check_export("from_entries", m, spec_export, COUNT(spec_export));
    CHECK_EQ_U32(ilmap_native_get_last_il(m), 8);
    const lookup_row rows[] = {
        { 25, 6, ILMAP_MAPPING_APPROXIMATE }, { 12, 6, ILMAP_MAPPING_EXACT },
        { 3, 0, ILMAP_MAPPING_PROLOG },       { 45, 8, ILMAP_MAPPING_EPILOG },
        { 48, 0, ILMAP_MAPPING_NO_INFO },     { 100, 0, ILMAP_MAPPING_NO_INFO },
    };
    check_lookups("from_entries", m, rows, COUNT(rows));
    ilmap_native_free(m);

    /* The same with the last end unset (as an LCG method's map has it):
     * end 0 stays 0, so the EPILOG answers past the code too. */
    const ilmap_native_entry open_in[] = { { E, 40, 0 }, { 6, 12, 30 }, { P, 0, 5 },
                                           { 8, 30, 40 }, { 0, 5, 12 } };
    const ilmap_native_entry open_out[] = { { P, 0, 5 }, { 0, 5, 12 }, { 6, 12, 30 },
                                            { 8, 30, 40 }, { E, 40, 0 } };
    CHECK(ilmap_native_from_entries(open_in, COUNT(open_in), 48, &m) == ILMAP_OK);
    if (!m)
        return;
    check_export("from_entries, end 0", m, open_out, COUNT(open_out));
    const lookup_row open_rows[] = {
        { 25, 6, ILMAP_MAPPING_APPROXIMATE }, { 45, 8, ILMAP_MAPPING_EPILOG },
        { 48, 8, ILMAP_MAPPING_EPILOG },      { 100, 8, ILMAP_MAPPING_EPILOG },
        { 0xFFFFFFFFu, 8, ILMAP_MAPPING_EPILOG },
    };
    check_lookups("from_entries, end 0", m, open_rows, COUNT(open_rows));
    ilmap_native_free(m);

    /* The runtime's export of an empty prolog round-trips. */
    const ilmap_native_entry prolog[] = { { P, 0, 0 }, { 0, 0, 7 }, { 3, 7, 10 } };
    CHECK(ilmap_native_from_entries(prolog, 3, 10, &m) == ILMAP_OK);
    if (m) {
        check_export("empty prolog round trip", m, prolog, 3);
        const lookup_row r[] = { { 0, 0, ILMAP_MAPPING_EXACT } };
        check_lookups("empty prolog round trip", m, r, 1);
        ilmap_native_free(m);
    }
}

/* ---- end 0 in exported arrays (doc/native-to-il.md) ---- */

#define X_ ILMAP_MAPPING_EXACT
#define A_ ILMAP_MAPPING_APPROXIMATE
#define PR_ ILMAP_MAPPING_PROLOG
#define EP_ ILMAP_MAPPING_EPILOG
#define UN_ ILMAP_MAPPING_UNMAPPED_ADDRESS
#define NI_ ILMAP_MAPPING_NO_INFO
#define NONE_ ILMAP_NO_INDEX

typedef struct probe {
    uint32_t native;
    uint32_t il;
    unsigned result;
    size_t entry; /* index in the exported order */
    uint32_t which;
} probe;

typedef struct end_zero_case {
    const char *what;
    ilmap_native_entry in[6];
    size_t n;
    uint32_t code_size;
    ilmap_native_entry out[6]; /* the export: the runtime's order, ends as given */
    uint32_t last_il;
    probe probes[14];
    size_t nprobes;
} end_zero_case;

static const end_zero_case end_zero_cases[] = {
    /* An optimized method that is all epilog: every boundary at 0, so the
     * PROLOG and IL 0 get end 0; only the last (the EPILOG) was flagged
     * and exported with the code size. IL 0, reached first, matches
     * everything from 0 up. */
    { "epilog-only body", { { P, 0, 0 }, { 0, 0, 0 }, { E, 0, 6 } }, 3, 6,
      { { P, 0, 0 }, { 0, 0, 0 }, { E, 0, 6 } }, 0,
      { { 0, 0, X_, 1, 1 }, { 1, 0, A_, 1, 1 }, { 3, 0, A_, 1, 1 }, { 5, 0, A_, 1, 1 },
        { 6, 0, A_, 1, 1 }, { 7, 0, A_, 1, 1 }, { 8, 0, A_, 1, 1 },
        { 0xFFFFFFFFu, 0, A_, 1, 1 } }, 8 },
    /* The same array handed over in another order: same map. */
    { "epilog-only body, shuffled", { { E, 0, 6 }, { 0, 0, 0 }, { P, 0, 0 } }, 3, 6,
      { { P, 0, 0 }, { 0, 0, 0 }, { E, 0, 6 } }, 0,
      { { 0, 0, X_, 1, 1 }, { 6, 0, A_, 1, 1 }, { 8, 0, A_, 1, 1 } }, 3 },
    /* End 0 first in the table: boundaries (0, IL 2), (0, IL 5), (4, IL 9). */
    { "end 0 first", { { 2, 0, 0 }, { 5, 0, 4 }, { 9, 4, 10 } }, 3, 10,
      { { 2, 0, 0 }, { 5, 0, 4 }, { 9, 4, 10 } }, 9,
      { { 0, 2, X_, 0, 0 }, { 3, 2, A_, 0, 0 }, { 4, 2, A_, 0, 0 }, { 9, 2, A_, 0, 0 },
        { 10, 2, A_, 0, 0 }, { 18, 2, A_, 0, 0 } }, 6 },
    /* End 0 in the middle of the table: boundaries (0, IL 4), (0, IL 1),
     * (5, IL 9), (9, EPILOG). IL 1 answers [0, 5); IL 4 everything after,
     * so IL 9 and the EPILOG never answer. */
    { "end 0 in the middle", { { 4, 0, 0 }, { 1, 0, 5 }, { 9, 5, 9 }, { E, 9, 12 } }, 4, 12,
      { { 1, 0, 5 }, { 4, 0, 0 }, { 9, 5, 9 }, { E, 9, 12 } }, 9,
      { { 0, 1, X_, 0, 0 }, { 4, 1, A_, 0, 0 }, { 5, 4, A_, 1, 0 }, { 8, 4, A_, 1, 0 },
        { 9, 4, A_, 1, 0 }, { 11, 4, A_, 1, 0 }, { 12, 4, A_, 1, 0 }, { 20, 4, A_, 1, 0 } },
      8 },
    /* End 0 in the middle, starting inside another range (not something
     * the runtime builds, but read by the same scan). */
    { "end 0 in the middle, late start",
      { { P, 0, 3 }, { 3, 3, 8 }, { 5, 6, 0 }, { 7, 8, 12 }, { E, 12, 14 } }, 5, 14,
      { { P, 0, 3 }, { 3, 3, 8 }, { 5, 6, 0 }, { 7, 8, 12 }, { E, 12, 14 } }, 7,
      { { 0, 0, PR_, 0, 1 }, { 2, 0, PR_, 0, 1 }, { 3, 3, X_, 1, 1 }, { 6, 3, A_, 1, 1 },
        { 7, 3, A_, 1, 1 }, { 8, 5, A_, 2, 1 }, { 12, 5, A_, 2, 1 }, { 14, 5, A_, 2, 1 },
        { 22, 5, A_, 2, 1 } }, 9 },
    /* End 0 last: an EPILOG whose end was never set answers past the
     * code as well. */
    { "end 0 last, EPILOG", { { P, 0, 4 }, { 1, 4, 9 }, { E, 9, 0 } }, 3, 12,
      { { P, 0, 4 }, { 1, 4, 9 }, { E, 9, 0 } }, 1,
      { { 0, 0, PR_, 0, 1 }, { 4, 1, X_, 1, 1 }, { 8, 1, A_, 1, 1 }, { 9, 1, EP_, 2, 2 },
        { 12, 1, EP_, 2, 2 }, { 13, 1, EP_, 2, 2 }, { 0xFFFFFFFFu, 1, EP_, 2, 2 } }, 7 },
    { "end 0 last, NO_MAPPING", { { 0, 0, 3 }, { NM, 3, 0 } }, 2, 5,
      { { 0, 0, 3 }, { NM, 3, 0 } }, 0,
      { { 0, 0, X_, 0, 0 }, { 2, 0, A_, 0, 0 }, { 3, 0, UN_, 1, 1 }, { 5, 0, UN_, 1, 1 },
        { 13, 0, UN_, 1, 1 } }, 5 },
    { "end 0 last, normal", { { 0, 0, 3 }, { 6, 3, 0 } }, 2, 5,
      { { 0, 0, 3 }, { 6, 3, 0 } }, 6,
      { { 2, 0, A_, 0, 0 }, { 3, 6, X_, 1, 0 }, { 4, 6, A_, 1, 0 }, { 5, 6, A_, 1, 0 },
        { 13, 6, A_, 1, 0 } }, 5 },
    /* Several end-0 entries: boundaries (0, PROLOG), (0, IL 8), (0, IL 2),
     * (0, IL 5), (7, EPILOG). The PROLOG's end 0 matches nothing; IL 2 is
     * the first to match and answers everything. */
    { "several end 0 at native 0",
      { { P, 0, 0 }, { 8, 0, 0 }, { 2, 0, 0 }, { 5, 0, 7 }, { E, 7, 10 } }, 5, 10,
      { { P, 0, 0 }, { 2, 0, 0 }, { 5, 0, 7 }, { 8, 0, 0 }, { E, 7, 10 } }, 8,
      { { 0, 2, X_, 1, 1 }, { 6, 2, A_, 1, 1 }, { 7, 2, A_, 1, 1 }, { 10, 2, A_, 1, 1 },
        { 50, 2, A_, 1, 1 } }, 5 },
    /* Several end-0 entries at different starts: the EPILOG answers below
     * IL 1's start, IL 1 from there on, IL 3 never. */
    { "several end 0, staggered", { { 3, 5, 0 }, { 1, 2, 0 }, { E, 0, 2 } }, 3, 6,
      { { 1, 2, 0 }, { 3, 5, 0 }, { E, 0, 2 } }, 3,
      { { 0, 3, EP_, 2, 1 }, { 1, 3, EP_, 2, 1 }, { 2, 1, X_, 0, 0 }, { 5, 1, A_, 0, 0 },
        { 6, 1, A_, 0, 0 }, { 9, 1, A_, 0, 0 } }, 6 },
    /* PROLOG with end 0 anywhere matches nothing, but the scan visits it. */
    { "PROLOG end 0 in the middle of the code", { { P, 4, 0 }, { 0, 0, 4 }, { 2, 4, 8 } }, 3, 8,
      { { P, 4, 0 }, { 0, 0, 4 }, { 2, 4, 8 } }, 2,
      { { 0, 0, X_, 1, 1 }, { 3, 0, A_, 1, 1 }, { 4, 2, X_, 2, 1 }, { 7, 2, A_, 2, 1 },
        { 8, 0, NI_, NONE_, 1 }, { 100, 0, NI_, NONE_, 1 } }, 6 },
    { "PROLOG end 0 at the code size", { { 0, 0, 8 }, { P, 8, 0 } }, 2, 8,
      { { P, 8, 0 }, { 0, 0, 8 } }, 0,
      { { 0, 0, X_, 1, 1 }, { 7, 0, A_, 1, 1 }, { 8, 0, NI_, NONE_, 1 },
        { 9, 0, NI_, NONE_, 1 } }, 4 },
    { "two PROLOGs end 0, EPILOG end 0", { { P, 0, 0 }, { P, 3, 0 }, { E, 0, 0 } }, 3, 4,
      { { P, 0, 0 }, { P, 3, 0 }, { E, 0, 0 } }, 0,
      { { 0, 0, EP_, 2, 3 }, { 3, 0, EP_, 2, 3 }, { 4, 0, EP_, 2, 3 },
        { 9, 0, EP_, 2, 3 } }, 4 },
    /* Empty ranges (start == end, non-zero) match nothing. */
    { "empty ranges", { { 1, 0, 4 }, { 2, 4, 4 }, { 3, 4, 9 }, { 4, 9, 9 } }, 4, 9,
      { { 1, 0, 4 }, { 2, 4, 4 }, { 3, 4, 9 }, { 4, 9, 9 } }, 4,
      { { 0, 1, X_, 0, 0 }, { 3, 1, A_, 0, 0 }, { 4, 3, X_, 2, 0 }, { 8, 3, A_, 2, 0 },
        { 9, 0, NI_, NONE_, 0 }, { 17, 0, NI_, NONE_, 0 } }, 6 },
    /* Code size 0: every range is empty or open. */
    { "code size 0", { { P, 0, 0 }, { 1, 0, 0 }, { E, 0, 0 } }, 3, 0,
      { { P, 0, 0 }, { 1, 0, 0 }, { E, 0, 0 } }, 1,
      { { 0, 1, X_, 1, 1 }, { 1, 1, A_, 1, 1 }, { 8, 1, A_, 1, 1 } }, 3 },
};

/* Serializing and reading back keeps the entries as they are. */
static void check_serial_round_trip(const char *name, const ilmap_native *m,
                                    const ilmap_native_entry *want, size_t n)
{
    unsigned char buf[32 + 12 * 8];
    size_t size = 0;
    ilmap_native *back = NULL;
    ilmap_serial_error err;

    CHECK(ilmap_native_serialize(m, sizeof buf, &size, buf) == ILMAP_OK);
    CHECK(ilmap_native_deserialize(buf, size, 0, &back, &err) == ILMAP_OK);
    if (!back)
        return;
    check_export(name, back, want, n);
    ilmap_native_free(back);
}

static void check_end_zero_case(const end_zero_case *t)
{
    size_t bad = 7, other = 7;
    ilmap_native *m = NULL;
    size_t total = 0;

    CHECK(ilmap_native_validate(t->in, t->n, t->code_size, &bad, &other) == ILMAP_OK);
    CHECK(bad == ILMAP_NO_INDEX && other == ILMAP_NO_INDEX);
    ilmap_status st = ilmap_native_from_entries(t->in, t->n, t->code_size, &m);
    test_checks++;
    if (st != ILMAP_OK || !m) {
        test_failures++;
        fprintf(stderr, "%s: from_entries = %s\n", t->what, ilmap_status_str(st));
        return;
    }
    check_export(t->what, m, t->out, t->n);
    CHECK_EQ_U32(ilmap_native_get_last_il(m), t->last_il);
    CHECK_EQ_U32(ilmap_native_get_code_size(m), t->code_size);

    /* The records: ends as given, no source bits. */
    ilmap_native_record rec[6];
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, 6, &total, rec) == ILMAP_OK);
    for (size_t i = 0; i < t->n && i < total; i++) {
        CHECK_EQ_U32(rec[i].native_end, t->out[i].native_end);
        CHECK_EQ_U32(rec[i].source, 0);
    }

    for (size_t i = 0; i < t->nprobes; i++) {
        const probe *p = &t->probes[i];
        uint32_t il = 0xDEADu, which = 0xDEADu, plain_il = 0xDEADu;
        size_t entry = 12345;
        unsigned r = ilmap_native_to_il_detail(m, p->native, &il, &entry, &which);
        unsigned plain = ilmap_native_to_il(m, p->native, &plain_il);
        test_checks++;
        if (r != p->result || il != p->il || entry != p->entry || which != p->which ||
            plain != r || plain_il != il) {
            test_failures++;
            fprintf(stderr,
                    "%s: native %u -> (0x%X, IL 0x%X, #%zu, which %u), want "
                    "(0x%X, 0x%X, #%zu, %u)\n",
                    t->what, p->native, r, il, entry, which, p->result, p->il, p->entry,
                    p->which);
        }
    }

    /* IL -> native and the ranges hand the entries back as given. */
    for (size_t i = 0; i < t->n; i++) {
        ilmap_native_entry e, all[6];
        size_t index = 99;
        int il_matched = -1;
        CHECK(ilmap_il_to_native(m, t->out[i].il_offset, &e, &index, &il_matched) == ILMAP_OK);
        CHECK(il_matched == 1);
        CHECK(index <= i && t->out[index].il_offset == t->out[i].il_offset);
        CHECK(index <= i && memcmp(&e, &t->out[index], sizeof e) == 0);
        CHECK(ilmap_il_to_native_ranges(m, t->out[i].il_offset, 6, &total, all) == ILMAP_OK);
        int found = 0;
        for (size_t j = 0; j < total && j < 6; j++)
            found |= memcmp(&all[j], &t->out[i], sizeof e) == 0;
        CHECK(found);
    }

    /* Round trips: export -> from_entries, and through bytes. */
    ilmap_native_entry again[6];
    ilmap_native *m2 = NULL;
    CHECK(ilmap_native_export(m, 6, &total, again) == ILMAP_OK);
    CHECK(ilmap_native_from_entries(again, total, t->code_size, &m2) == ILMAP_OK);
    if (m2) {
        check_export(t->what, m2, t->out, t->n);
        ilmap_native_free(m2);
    }
    check_serial_round_trip(t->what, m, t->out, t->n);
    ilmap_native_free(m);
}

static void test_end_zero(void)
{
    for (size_t c = 0; c < COUNT(end_zero_cases); c++)
        check_end_zero_case(&end_zero_cases[c]);

    /* The build from the JIT's boundaries (all at native 0) exports that
     * very array, and its bytes read back unchanged. */
    const ilmap_boundary jit[] = { { 0, P, 0 }, { 0, 0, 0 }, { 0, E, 0 } };
    const ilmap_native_entry want[] = { { P, 0, 0 }, { 0, 0, 0 }, { E, 0, 6 } };
    const lookup_row rows[] = { { 0, 0, X_ }, { 5, 0, A_ }, { 6, 0, A_ }, { 8, 0, A_ } };
    check_case("epilog-only body, built", jit, 3, NULL, 6, 0, want, 3, 0, rows, 4);
    ilmap_native *built = build(jit, 3, NULL, 6, 0);
    if (built) {
        check_serial_round_trip("epilog-only body, serialized", built, want, 3);
        ilmap_native_free(built);
    }
}

/* ---- IL -> native ---- */

static void test_il_to_native(void)
{
    /* IL 4 twice (a funclet), specials, a gap between IL 4 and 9. */
    const ilmap_native_entry in[] = {
        { P, 0, 2 }, { 0, 2, 6 }, { 4, 20, 24 }, { 4, 6, 10 }, { 9, 10, 14 },
        { E, 14, 17 }, { NM, 17, 20 }, { E, 24, 26 },
    };
    ilmap_native *m = NULL;

    CHECK(ilmap_native_from_entries(in, COUNT(in), 26, &m) == ILMAP_OK);
    if (!m)
        return;
    typedef struct row {
        uint32_t il;
        ilmap_status status;
        uint32_t start, end;
        size_t index;
        int il_matched;
    } row;
    /* Export order: P@0, 0@2, 4@6, 4@20, 9@10, E@14, E@24, NM@17. */
    const row rows[] = {
        { 0, ILMAP_OK, 2, 6, 1, 1 },          { 1, ILMAP_OK, 2, 6, 1, 0 },
        { 4, ILMAP_OK, 6, 10, 2, 1 },         { 8, ILMAP_OK, 6, 10, 2, 0 },
        { 9, ILMAP_OK, 10, 14, 4, 1 },        { 0xFFFFFFFCu, ILMAP_OK, 10, 14, 4, 0 },
        { P, ILMAP_OK, 0, 2, 0, 1 },          { E, ILMAP_OK, 14, 17, 5, 1 },
        { NM, ILMAP_OK, 17, 20, 7, 1 },
    };
    for (size_t i = 0; i < COUNT(rows); i++) {
        ilmap_native_entry e;
        size_t index = 99;
        int il_matched = -1;
        ilmap_status st = ilmap_il_to_native(m, rows[i].il, &e, &index, &il_matched);
        test_checks++;
        if (st != rows[i].status || e.native_start != rows[i].start ||
            e.native_end != rows[i].end || index != rows[i].index ||
            il_matched != rows[i].il_matched) {
            test_failures++;
            fprintf(stderr, "il_to_native(0x%X): %s [%u, %u) #%zu il_matched %d\n", rows[i].il,
                    ilmap_status_str(st), e.native_start, e.native_end, index, il_matched);
        }
    }
    CHECK(ilmap_il_to_native(m, 3, NULL, NULL, NULL) == ILMAP_OK);
    ilmap_native_free(m);

    /* Below the first normal entry, and no entry with that special. */
    const ilmap_native_entry few[] = { { P, 0, 2 }, { 5, 2, 6 } };
    CHECK(ilmap_native_from_entries(few, 2, 6, &m) == ILMAP_OK);
    if (m) {
        ilmap_native_entry e = { 1, 1, 1 };
        size_t index = 0;
        int il_matched = 1;
        CHECK(ilmap_il_to_native(m, 4, &e, &index, &il_matched) == ILMAP_E_NOT_FOUND);
        CHECK(e.native_start == 0 && e.native_end == 0 && e.il_offset == 0);
        CHECK(index == ILMAP_NO_INDEX);
        CHECK(il_matched == 0);
        CHECK(ilmap_il_to_native(m, E, &e, &index, &il_matched) == ILMAP_E_NOT_FOUND);
        CHECK(ilmap_il_to_native(m, 6, &e, &index, &il_matched) == ILMAP_OK);
        CHECK_EQ_U32(e.il_offset, 5);
        ilmap_native_free(m);
    }

    /* All ranges of an IL offset, lowest start first; the end-unknown
     * entry as exported. */
    const ilmap_boundary jit[] = { { 0, 3, 0 }, { 4, 7, 0 }, { 9, 3, 0 }, { 12, 7, 0 } };
    m = build(jit, 4, NULL, 15, 0);
    if (m) {
        ilmap_native_entry out[4];
        size_t total = 0;
        CHECK(ilmap_il_to_native_ranges(m, 7, 4, &total, out) == ILMAP_OK);
        CHECK(total == 2);
        CHECK_EQ_U32(out[0].native_start, 4);
        CHECK_EQ_U32(out[0].native_end, 9);
        CHECK_EQ_U32(out[1].native_start, 12);
        CHECK_EQ_U32(out[1].native_end, 15);
        ranges_ctx rc = { m, 7 };
        test_copy_out_protocol("ilmap_il_to_native_ranges (7)", ranges_call, &rc, out, 2,
                               sizeof out[0]);
        CHECK(ilmap_il_to_native_ranges(m, 7, 1, &total, out) == ILMAP_E_TRUNCATED);
        CHECK(total == 2);
        CHECK(ilmap_il_to_native_ranges(m, 5, 4, &total, out) == ILMAP_OK);
        CHECK(total == 0);
        CHECK(ilmap_il_to_native_ranges(m, P, 4, &total, out) == ILMAP_OK);
        CHECK(total == 0);
        CHECK(ilmap_il_to_native_ranges(m, 3, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
        ilmap_native_free(m);
    }
}

/* ---- translation (ilmap_native_translate) ---- */

static void test_translate(void)
{
    ilmap *map = make_map(spec_map, COUNT(spec_map));
    /* The worked example exported with no map (IL in instrumented
     * coordinates), shuffled, composed with its map: the worked example's
     * result (doc/native-maps.md#worked-example). */
    const ilmap_native_entry raw[] = {
        { 44, 20, 30 }, { P, 0, 5 }, { E, 40, 48 }, { 0, 5, 12 }, { 36, 12, 20 }, { 50, 30, 40 },
    };
    ilmap_native *m = NULL;
    int lossless = -1;

    CHECK(ilmap_native_translate(raw, COUNT(raw), 48, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    if (m) {
        check_export("compose", m, spec_export, COUNT(spec_export));
        CHECK_EQ_U32(ilmap_native_get_last_il(m), 50);
        ilmap_native_free(m);
    }
    CHECK(ilmap_native_translate(raw, COUNT(raw), 48, map, ILMAP_DAC, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    if (m) {
        check_export("compose, DAC", m, spec_export, COUNT(spec_export));
        CHECK_EQ_U32(ilmap_native_get_last_il(m), 8);
        ilmap_native_free(m);
    }
    /* No map: the same export back. */
    CHECK(ilmap_native_translate(raw, COUNT(raw), 48, NULL, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    if (m) {
        const ilmap_native_entry sorted[] = { { P, 0, 5 }, { 0, 5, 12 }, { 36, 12, 20 },
                                              { 44, 20, 30 }, { 50, 30, 40 }, { E, 40, 48 } };
        check_export("compose, no map", m, sorted, COUNT(sorted));
        ilmap_native_free(m);
    }

    /* Boundaries sharing a start: the empty ranges go first. */
    const ilmap_native_entry shared[] = { { 3, 4, 9 }, { 1, 0, 4 }, { 2, 4, 4 } };
    CHECK(ilmap_native_translate(shared, 3, 9, NULL, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    if (m) {
        const ilmap_native_entry want[] = { { 1, 0, 4 }, { 2, 4, 4 }, { 3, 4, 9 } };
        check_export("compose, shared start", m, want, 3);
        ilmap_native_free(m);
    }

    /* What the export shows was lost: a gap (a trailing call instruction),
     * two empty ranges with different IL at one start, an overlap, the
     * same IL twice in a row (in-process only). */
    const ilmap_native_entry gap[] = { { 1, 0, 4 } };
    CHECK(ilmap_native_translate(gap, 1, 9, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 0);
    ilmap_native_free(m);
    const ilmap_native_entry empties[] = { { 1, 4, 4 }, { 2, 4, 4 }, { 3, 4, 9 }, { 0, 0, 4 } };
    CHECK(ilmap_native_translate(empties, 4, 9, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 0);
    ilmap_native_free(m);
    const ilmap_native_entry same_il[] = { { 1, 4, 4 }, { 1, 4, 4 }, { 3, 4, 9 }, { 0, 0, 4 } };
    CHECK(ilmap_native_translate(same_il, 4, 9, map, ILMAP_DAC, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    ilmap_native_free(m);
    const ilmap_native_entry overlap[] = { { 1, 0, 6 }, { 2, 4, 9 } };
    CHECK(ilmap_native_translate(overlap, 2, 9, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 0);
    ilmap_native_free(m);
    const ilmap_native_entry twice[] = { { 1, 0, 4 }, { 1, 4, 9 } };
    CHECK(ilmap_native_translate(twice, 2, 9, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 0);
    ilmap_native_free(m);
    CHECK(ilmap_native_translate(twice, 2, 9, map, ILMAP_DAC, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    ilmap_native_free(m);
    /* An LCG-style last end of 0 is accepted as "to the end". */
    const ilmap_native_entry lcg[] = { { 1, 0, 4 }, { 2, 4, 0 } };
    CHECK(ilmap_native_translate(lcg, 2, 9, map, 0, &m, &lossless) == ILMAP_OK);
    CHECK(lossless == 1);
    ilmap_native_free(m);
    ilmap_free(map);
}

/* Memory (doc/performance.md#native-memory): every byte of the map is
 * counted (at least the 12 bytes per entry it must keep, plus its head),
 * and a map costs at most 2x the exported array (n x 12 bytes) at every
 * size: built from JIT-shaped boundaries, and read back from that export.
 * Arrays with a gap after every range (only ilmap_native_from_entries can
 * be given them) have twice the breakpoints: at most 2.6x. */
static void test_memory_bound(void)
{
    static const size_t sizes[] = { 1, 2, 3, 8, 17, 32, 33, 64, 1000, 4096, 65535, 65536 };

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        ilmap_boundary *jit = malloc(n * sizeof *jit);
        ilmap_native_entry *out = malloc(n * sizeof *out);
        uint32_t native = 0, il = 0, seed = 12345u + (uint32_t)n;
        ilmap_native *m = NULL, *back = NULL, *gapped = NULL;
        size_t total = 0;

        if (!jit || !out)
            exit(TEST_EXIT_SETUP_FAILURE);
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            jit[i].il_offset = i == 0 ? ILMAP_PROLOG
                             : (i + 1 == n && n > 2) ? ILMAP_EPILOG
                             : (seed >> 16) % 29 == 0 ? ILMAP_NO_MAPPING
                                                      : (il += 1 + (seed >> 20) % 5);
            if (i > 0 && jit[i].il_offset == jit[i - 1].il_offset)
                jit[i].il_offset = il += 1; /* keep every boundary */
            jit[i].native_offset = native;
            jit[i].source = ILMAP_SOURCE_SEQUENCE_POINT | ((seed >> 24) % 7 == 0 ? ILMAP_SOURCE_STACK_EMPTY : 0);
            native += 1 + (seed >> 8) % 12;
        }
        CHECK(ilmap_native_build(jit, n, NULL, native, 0, &m) == ILMAP_OK);
        size_t count = ilmap_native_get_count(m);
        CHECK(count == n);
        CHECK(ilmap_native_export(m, n, &total, out) == ILMAP_OK);
        CHECK(ilmap_native_from_entries(out, n, native, &back) == ILMAP_OK);
        for (size_t i = 0; i < n; i++) /* a gap after every range */
            out[i] = (ilmap_native_entry){ out[i].il_offset, 4 * (uint32_t)i, 4 * (uint32_t)i + 2 };
        CHECK(ilmap_native_from_entries(out, n, 4 * (uint32_t)n, &gapped) == ILMAP_OK);

        const ilmap_native *maps[] = { m, back, gapped };
        for (size_t k = 0; k < 3; k++) {
            size_t bytes = ilmap_native_get_memory_bytes(maps[k]);
            size_t limit = k < 2 ? 2 * n * 12 : 13 * n * 12 / 5;
            /* No map is smaller than its entries plus a byte, as the
             * allocator rounds that block: 12 bytes per entry and any
             * head. Where that alone exceeds the bound (glibc on i686:
             * blocks of 12, 28, 44 bytes, so a 1-entry map reports 28
             * against a bound of 24), the bound cannot be met and the
             * smallest block is allowed (doc/performance.md#native-memory). */
            void *smallest = malloc(n * 12 + 1);
            if (!smallest)
                exit(TEST_EXIT_SETUP_FAILURE);
            size_t floor_bytes = ilmap_malloc_size(smallest, n * 12 + 1);
            free(smallest);
            limit = floor_bytes > limit ? floor_bytes : limit;
            CHECK(bytes >= n * 12 + 12 && bytes <= limit);
            if (bytes > limit)
                fprintf(stderr, "n=%zu (%s): %zu bytes, %.2fx the exported array\n", n,
                        k == 0 ? "built" : k == 1 ? "export" : "gapped", bytes,
                        (double)bytes / (double)(n * 12));
        }
        ilmap_native_free(m);
        ilmap_native_free(back);
        ilmap_native_free(gapped);
        free(jit);
        free(out);
    }
}

int main(void)
{
    test_worked_example();
    test_lookup_table();
    test_export_protocol();
    test_build_quirks();
    test_bad_input();
    test_validate();
    test_from_entries();
    test_end_zero();
    test_il_to_native();
    test_translate();
    test_memory_bound();
    return test_finish("native-examples");
}
