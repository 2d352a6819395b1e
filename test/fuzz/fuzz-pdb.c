/*
 * libFuzzer target for ilmap-pdb.h: the input is a Portable PDB's bytes,
 * or a PE file (starting "MZ") whose debug directory is read and whose
 * embedded PDB, when small, is inflated and read the same way.
 * Invariants: a refusal leaves no handle and names a defect at an offset
 * within the bytes; an opened PDB answers every document name (a size
 * query, then the name, NUL-terminated at that size), every method's
 * sequence points (or a defect inside the bytes), and ilmap_pdb_find_source
 * agrees with the runtime's rule applied to that list at every point's IL
 * offset, just before it and far past the end; ilmap_pdb_lines answers
 * exactly what ilmap_pdb_find_source answers (status, point, defect) at
 * those offsets, for every method, malformed blobs included;
 * ilmap_pdb_check_map lists
 * every visible point against an empty map and none against a map with an
 * entry per point. The seed corpus
 * (test/fuzz/corpus-pdb) holds small real PDBs.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-pdb.h"

#include "fuzz.h"

#define MAX_METHODS 256u
#define MAX_POINTS 512u

/* The rule on a decoded list: the last visible point at or before il. */
static int rule(const ilmap_pdb_sequence_point *sp, size_t n, uint32_t il, size_t *found)
{
    int any = 0;
    for (size_t i = 0; i < n && sp[i].il_offset <= il; i++)
        if (sp[i].start_line != ILMAP_PDB_HIDDEN_LINE) {
            *found = i;
            any = 1;
        }
    return any;
}

static void check_query(const ilmap_pdb *pdb, uint32_t token, const ilmap_pdb_sequence_point *sp,
                        size_t n, uint32_t il)
{
    ilmap_pdb_sequence_point got;
    ilmap_pdb_error e;
    size_t want = 0;
    ilmap_status st = ilmap_pdb_find_source(pdb, token, il, &got, &e);
    if (rule(sp, n, il, &want))
        REQUIRE(st == ILMAP_OK && memcmp(&got, &sp[want], sizeof got) == 0);
    else
        REQUIRE(st == ILMAP_E_NOT_FOUND);
}

/* The lines of a method against the stateless query at one offset. */
static void check_lines_at(const ilmap_pdb *pdb, const ilmap_pdb_lines *lines, uint32_t token,
                           uint32_t il)
{
    ilmap_pdb_sequence_point a, b;
    ilmap_pdb_error ea, eb;
    ilmap_status sa = ilmap_pdb_find_source(pdb, token, il, &a, &ea);
    ilmap_status sb = ilmap_pdb_lines_find_source(lines, il, &b, &eb);
    REQUIRE(sa == sb && memcmp(&a, &b, sizeof a) == 0);
    REQUIRE(ea.defect == eb.defect && ea.offset == eb.offset);
}

/* sp, n: the method's points when they decoded (n 0 otherwise). */
static void check_lines(const ilmap_pdb *pdb, uint32_t token, const ilmap_pdb_sequence_point *sp,
                        size_t n)
{
    ilmap_pdb_lines *lines = NULL;
    if (ilmap_pdb_lines_create(pdb, token, &lines) != ILMAP_OK) {
        REQUIRE(lines == NULL);
        return; /* out of memory */
    }
    size_t visible = 0;
    for (size_t i = 0; i < n; i++) {
        visible += sp[i].start_line != ILMAP_PDB_HIDDEN_LINE;
        check_lines_at(pdb, lines, token, sp[i].il_offset);
        check_lines_at(pdb, lines, token, sp[i].il_offset + 1);
        if (sp[i].il_offset > 0)
            check_lines_at(pdb, lines, token, sp[i].il_offset - 1);
    }
    REQUIRE(n == 0 || ilmap_pdb_lines_get_count(lines) == visible);
    static const uint32_t more[] = { 0, 1, 2, 16, 255, 4096, 0x7FFFFFFFu, 0xFFFFFFFFu };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        check_lines_at(pdb, lines, token, more[i]);
    ilmap_pdb_lines_free(lines);
}

static void walk(const uint8_t *data, size_t size)
{
    ilmap_pdb *pdb = NULL;
    ilmap_pdb_error e;
    ilmap_status st = ilmap_pdb_open(data, size, &pdb, &e);
    if (st != ILMAP_OK) {
        REQUIRE(st == ILMAP_E_FORMAT && pdb == NULL);
        REQUIRE(e.defect != ILMAP_PDB_DEFECT_NONE && e.offset <= size);
        return;
    }
    ilmap_pdb_info info;
    REQUIRE(ilmap_pdb_get_info(pdb, &info) == ILMAP_OK);
    for (uint32_t d = 1; d <= info.document_count && d <= MAX_METHODS; d++) {
        size_t total = 0;
        st = ilmap_pdb_get_document_name(pdb, d, 0, &total, NULL, &e);
        if (st != ILMAP_OK) {
            REQUIRE(st == ILMAP_E_FORMAT && e.offset < size);
            continue;
        }
        REQUIRE(total >= 1);
        char *name = malloc(total);
        if (!name)
            continue;
        size_t again = 0;
        REQUIRE(ilmap_pdb_get_document_name(pdb, d, total, &again, name, &e) == ILMAP_OK);
        REQUIRE(again == total && name[total - 1] == '\0');
        free(name);
    }
    static ilmap_pdb_sequence_point sp[MAX_POINTS];
    for (uint32_t m = 1; m <= info.method_count && m <= MAX_METHODS; m++) {
        uint32_t token = 0x06000000u | m;
        size_t n = 0;
        st = ilmap_pdb_get_sequence_points(pdb, token, MAX_POINTS, &n, sp, &e);
        if (st == ILMAP_E_FORMAT) {
            REQUIRE(n == 0 && e.offset < size);
            check_lines(pdb, token, sp, 0);
            continue;
        }
        if (st == ILMAP_E_TRUNCATED)
            continue;
        REQUIRE(st == ILMAP_OK);
        check_lines(pdb, token, sp, n);
        for (size_t i = 0; i < n; i++) {
            REQUIRE(sp[i].document >= 1 && sp[i].document <= info.document_count);
            REQUIRE(i == 0 || sp[i].il_offset > sp[i - 1].il_offset);
            check_query(pdb, token, sp, n, sp[i].il_offset);
            if (sp[i].il_offset > 0)
                check_query(pdb, token, sp, n, sp[i].il_offset - 1);
        }
        check_query(pdb, token, sp, n, 0xFFFFFFFFu);
        /* Seed 000's check: with no map every visible point is listed;
         * with one entry per point none is. */
        static size_t missing[MAX_POINTS];
        static ilmap_entry map[MAX_POINTS];
        size_t visible = 0, bad = 0;
        for (size_t i = 0; i < n; i++) {
            visible += sp[i].start_line != ILMAP_PDB_HIDDEN_LINE;
            map[i] = (ilmap_entry){ sp[i].il_offset, (uint32_t)i, 1 };
        }
        REQUIRE(ilmap_pdb_check_map(sp, n, NULL, 0, MAX_POINTS, &bad, missing) == ILMAP_OK);
        REQUIRE(bad == visible);
        REQUIRE(ilmap_pdb_check_map(sp, n, map, n, MAX_POINTS, &bad, missing) == ILMAP_OK);
        REQUIRE(bad == 0);
    }
    ilmap_pdb_free(pdb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 2 && data[0] == 'M' && data[1] == 'Z') {
        ilmap_pdb_pe_info pe;
        ilmap_pdb_error e;
        ilmap_status st = ilmap_pdb_read_pe(data, size, &pe, &e);
        if (st != ILMAP_OK) {
            REQUIRE(st == ILMAP_E_FORMAT && e.offset <= size);
            return 0;
        }
        if (pe.has_codeview)
            REQUIRE(pe.path >= (const char *)data &&
                    pe.path + pe.path_size <= (const char *)data + size);
        if (pe.has_embedded && pe.pdb_size <= (1u << 20)) {
            uint8_t *pdb = malloc(pe.pdb_size ? pe.pdb_size : 1);
            if (!pdb)
                return 0;
            st = ilmap_pdb_inflate(data, size, &pe, pdb, pe.pdb_size, &e);
            REQUIRE(st == ILMAP_OK || st == ILMAP_E_FORMAT || st == ILMAP_E_UNSUPPORTED ||
                    st == ILMAP_E_NOMEM);
            if (st == ILMAP_OK)
                walk(pdb, pe.pdb_size);
            free(pdb);
        }
        return 0;
    }
    walk(data, size);
    return 0;
}
