/*
 * The whole journey (doc/source-lines.md#store): ilmap_store_attach_pdb()
 * and ilmap_store_(snapshot_)lookup_source(). Table-driven first: the
 * line each mapping kind gets (EXACT, APPROXIMATE, PROLOG, EPILOG,
 * NO_MAPPING, NO_INFO), hidden points, original IL offsets through an IL
 * map, the return-address flag, no PDB, a method without points, a
 * defective blob, detach, replace, remove_module, store teardown (the
 * release called exactly once, and only after reclamation: counted, and
 * the PDB's buffer freed by the release so that ASan sees any late use),
 * and bad arguments with defined outputs. Then a seeded random test
 * against a model written from the doc: the location is
 * ilmap_store_snapshot_lookup() of the address (minus one for a return
 * address), and the point is the last visible sequence point at or before
 * the location's original IL offset among the points the test wrote,
 * none for NO_INFO or a module without a PDB (argv[1] or ILMAP_TEST_SEED
 * replays a run).
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-versions.h"
#include "test.h"

#include "pdb/pdb-writer.h"

#define MOD1 ((ilmap_module_id)TEST_ID_BASE(0x7F0000001000u, 0x1000u))
#define MOD2 ((ilmap_module_id)TEST_ID_BASE(0x7F0000002000u, 0x2000u))
#define FID1 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00010u, 0xA00010u))
#define FID2 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00020u, 0xA00020u))
#define FID3 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00030u, 0xA00030u))
#define FID4 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00040u, 0xA00040u))
#define FID5 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00050u, 0xA00050u))
#define FID6 ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00060u, 0xA00060u))
#define MD(n) (0x06000000u + (n))
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- PDBs: built in memory, their bytes in a heap block the release
 * frees (a late read of the PDB is then a use after free under ASan) ---- */

typedef struct owned_pdb {
    ilmap_pdb *pdb;
    void *bytes;
} owned_pdb;

/* What the releases did: calls, and the contexts they were given. */
typedef struct releases {
    int calls;
} releases;

typedef struct release_ctx {
    releases *counter;
    void *bytes;
} release_ctx;

static void release_bytes(void *context)
{
    release_ctx *c = context;
    c->counter->calls++;
    free(c->bytes);
    free(c);
}

/* A PDB of methods 1..n, each with its points (n_points[i] 0: nil blob),
 * all in document 1 ("/src/a.cs"). */
static owned_pdb make_pdb(const pdbw_point *const *points, const size_t *n_points, int n)
{
    static spec s;
    static out heap;
    static built b;
    owned_pdb o = { NULL, NULL };

    base_spec(&s, &heap);
    s.nmethods = n;
    for (int i = 0; i < n; i++) {
        s.method_doc[i] = 1;
        if (n_points[i])
            pdbw_points(&s.points[i], points[i], n_points[i]);
    }
    build(&s, &heap, &b);
    o.bytes = malloc(b.o.n);
    if (!o.bytes)
        return o;
    memcpy(o.bytes, b.o.d, b.o.n);
    CHECK_ST(ilmap_pdb_open(o.bytes, b.o.n, &o.pdb, NULL), ILMAP_OK);
    return o;
}

/* Attaches o to module with a counted release that frees its bytes. */
static ilmap_status attach(ilmap_store *s, ilmap_module_id module, owned_pdb o, releases *counter)
{
    release_ctx *c = malloc(sizeof *c);
    if (!c)
        return ILMAP_E_NOMEM;
    c->counter = counter;
    c->bytes = o.bytes;
    ilmap_status st = ilmap_store_attach_pdb(s, module, o.pdb, release_bytes, c);
    if (st != ILMAP_OK)
        free(c);
    return st;
}

static void free_owned(owned_pdb o)
{
    ilmap_pdb_free(o.pdb);
    free(o.bytes);
}

/* ---- the table ---- */

/* Method 1: lines 10, 11, hidden, 13, 14; method 2: a nil blob;
 * method 3: its first point at IL 6; method 4: a defective blob. */
static const pdbw_point m1_points[] = {
    { 0, 10, 5, 0 }, { 4, 11, 9, 0 }, { 8, 0, 0, 1 }, { 12, 13, 9, 0 }, { 20, 14, 5, 0 },
};
static const pdbw_point m3_points[] = { { 6, 30, 3, 0 } };

static owned_pdb table_pdb(uint32_t line_shift)
{
    pdbw_point m1[COUNT(m1_points)], m3[COUNT(m3_points)];
    memcpy(m1, m1_points, sizeof m1);
    memcpy(m3, m3_points, sizeof m3);
    for (size_t i = 0; i < COUNT(m1); i++)
        m1[i].line += m1[i].hidden ? 0 : line_shift;
    m3[0].line += line_shift;
    const pdbw_point *const pts[] = { m1, NULL, m3, m1 };
    const size_t n[] = { COUNT(m1), 0, COUNT(m3), COUNT(m1) };
    static spec s;
    static out heap;
    static built b;
    owned_pdb o = { NULL, NULL };
    base_spec(&s, &heap);
    s.nmethods = 4;
    for (int i = 0; i < 4; i++) {
        s.method_doc[i] = 1;
        if (n[i])
            pdbw_points(&s.points[i], pts[i], n[i]);
    }
    s.points[3].n = 4; /* method 4: cut inside its first point */
    build(&s, &heap, &b);
    o.bytes = malloc(b.o.n);
    if (o.bytes) {
        memcpy(o.bytes, b.o.d, b.o.n);
        CHECK_ST(ilmap_pdb_open(o.bytes, b.o.n, &o.pdb, NULL), ILMAP_OK);
    }
    return o;
}

/* The body of method 1 (code 40): prolog, IL 0, 4, 8 (hidden), 12, 20,
 * NO_MAPPING, epilog. */
static const ilmap_native_entry body1[] = {
    { ILMAP_PROLOG, 0, 4 }, { 0, 4, 10 },  { 4, 10, 14 },          { 8, 14, 16 },
    { 12, 16, 24 },         { 20, 24, 30 }, { ILMAP_NO_MAPPING, 30, 34 }, { ILMAP_EPILOG, 34, 40 },
};

static ilmap_native *native_of(const ilmap_native_entry *e, size_t n, uint32_t size)
{
    ilmap_native *m = NULL;
    CHECK_ST(ilmap_native_from_entries(e, n, size, &m), ILMAP_OK);
    return m;
}

#define B1 ((uintptr_t)0x10000) /* FID1 (method 1), 40 bytes */
#define B2 ((uintptr_t)0x10100) /* FID2 (method 1, ReJIT 1 under an IL map) */
#define B3 ((uintptr_t)0x10200) /* FID3 (method 3) */
#define B4 ((uintptr_t)0x10300) /* FID4 (method 4: defective blob) */
#define B5 ((uintptr_t)0x10400) /* FID1's second body: no native map */
#define B6 ((uintptr_t)0x10500) /* FID5 (module 2, method 2: no PDB at first) */
#define B7 ((uintptr_t)0x10600) /* FID2 (method 1, ReJIT 2: ILMAP_BODY_ORIGINAL_IL) */
#define B8 ((uintptr_t)0x10700) /* FID6 (module 2, method 1: no sequence points), and +64 */

static void add_code(ilmap_store *s, ilmap_function_id fid, ilmap_rejit_id rejit, uintptr_t at,
                     uint32_t size, ilmap_native *map, unsigned flags)
{
    const ilmap_code_range r = { at, size };
    CHECK_ST(ilmap_store_add_body(s, fid, rejit, &r, 1, map, flags), ILMAP_OK);
}

static ilmap_store *table_store(void)
{
    ilmap_store *s = NULL;
    CHECK_ST(ilmap_store_create(0, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD(1)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID2, MOD1, MD(1)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID3, MOD1, MD(3)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID4, MOD1, MD(4)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID5, MOD2, MD(2)), ILMAP_OK);
    add_code(s, FID1, 0, B1, 40, native_of(body1, COUNT(body1), 40), 0);
    /* ReJIT 1: original o is instrumented o + 100 (0 stays 0). */
    const ilmap_entry shift[] = { { 0, 0, 1 }, { 4, 104, 1 }, { 12, 112, 1 }, { 20, 120, 1 } };
    ilmap *il = NULL;
    CHECK_ST(ilmap_create(shift, COUNT(shift), 0, &il), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID2, 1, il, 0), ILMAP_OK);
    const ilmap_native_entry b2[] = { { 104, 0, 8 }, { 120, 8, 16 } };
    add_code(s, FID2, 1, B2, 16, native_of(b2, COUNT(b2), 16), 0);
    CHECK_ST(ilmap_store_add_version(s, FID2, 2, NULL, 0), ILMAP_OK);
    const ilmap_native_entry b7[] = { { 12, 0, 8 } };
    add_code(s, FID2, 2, B7, 8, native_of(b7, COUNT(b7), 8), ILMAP_BODY_ORIGINAL_IL);
    const ilmap_native_entry b3[] = { { 0, 0, 4 }, { 6, 4, 8 } };
    add_code(s, FID3, 0, B3, 8, native_of(b3, COUNT(b3), 8), 0);
    const ilmap_native_entry b4[] = { { 0, 0, 8 } };
    add_code(s, FID4, 0, B4, 8, native_of(b4, COUNT(b4), 8), 0);
    add_code(s, FID1, 0, B5, 8, NULL, 0);
    const ilmap_native_entry b6[] = { { 0, 0, 8 } };
    add_code(s, FID5, 0, B6, 8, native_of(b6, COUNT(b6), 8), 0);
    return s;
}

typedef struct source_case {
    const char *what;
    uintptr_t address;
    unsigned flags;
    ilmap_status status;
    ilmap_function_id function_id; /* 0: no body */
    unsigned mapping;
    uint32_t original_il;
    int has_pdb;                   /* source.pdb set */
    uint32_t line, column;         /* ILMAP_OK only */
} source_case;

#define RA ILMAP_STORE_RETURN_ADDRESS
#define M_EX ILMAP_MAPPING_EXACT
#define M_AP ILMAP_MAPPING_APPROXIMATE
#define M_PRO ILMAP_MAPPING_PROLOG
#define M_EPI ILMAP_MAPPING_EPILOG
#define M_UN ILMAP_MAPPING_UNMAPPED_ADDRESS
#define M_NO ILMAP_MAPPING_NO_INFO

static const source_case cases[] = {
    { "prolog: IL 0", B1 + 0, 0, ILMAP_OK, FID1, M_PRO, 0, 1, 10, 5 },
    { "prolog's last byte", B1 + 3, 0, ILMAP_OK, FID1, M_PRO, 0, 1, 10, 5 },
    { "exact IL 0", B1 + 4, 0, ILMAP_OK, FID1, M_EX, 0, 1, 10, 5 },
    { "approximate IL 0", B1 + 9, 0, ILMAP_OK, FID1, M_AP, 0, 1, 10, 5 },
    { "exact IL 4", B1 + 10, 0, ILMAP_OK, FID1, M_EX, 4, 1, 11, 9 },
    { "return address: IL 0's call", B1 + 10, RA, ILMAP_OK, FID1, M_AP, 0, 1, 10, 5 },
    { "hidden IL 8: the visible before", B1 + 14, 0, ILMAP_OK, FID1, M_EX, 8, 1, 11, 9 },
    { "exact IL 12", B1 + 16, 0, ILMAP_OK, FID1, M_EX, 12, 1, 13, 9 },
    { "approximate IL 12", B1 + 23, 0, ILMAP_OK, FID1, M_AP, 12, 1, 13, 9 },
    { "return address: approximate IL 12", B1 + 24, RA, ILMAP_OK, FID1, M_AP, 12, 1, 13, 9 },
    { "IL 20", B1 + 24, 0, ILMAP_OK, FID1, M_EX, 20, 1, 14, 5 },
    { "NO_MAPPING: IL 0", B1 + 31, 0, ILMAP_OK, FID1, M_UN, 0, 1, 10, 5 },
    { "epilog: lastIL 20", B1 + 36, 0, ILMAP_OK, FID1, M_EPI, 20, 1, 14, 5 },
    { "return address past the end: the epilog", B1 + 40, RA, ILMAP_OK, FID1, M_EPI, 20, 1, 14,
      5 },
    { "past the end, not a return address", B1 + 40, 0, ILMAP_E_NOT_FOUND, 0, M_NO, 0, 0, 0, 0 },
    { "return address at the code start: before it", B1, RA, ILMAP_E_NOT_FOUND, 0, M_NO, 0, 0, 0,
      0 },
    { "return address 0", 0, RA, ILMAP_E_NOT_FOUND, 0, M_NO, 0, 0, 0, 0 },
    { "ReJIT under an IL map: instrumented 104 is 4", B2 + 2, 0, ILMAP_OK, FID2, M_AP, 4, 1, 11,
      9 },
    { "ReJIT under an IL map: 120 is 20", B2 + 8, 0, ILMAP_OK, FID2, M_EX, 20, 1, 14, 5 },
    { "ORIGINAL_IL body: 12 as it is", B7 + 1, 0, ILMAP_OK, FID2, M_AP, 12, 1, 13, 9 },
    { "before the method's first point", B3 + 1, 0, ILMAP_E_NOT_FOUND, FID3, M_AP, 0, 1, 0, 0 },
    { "the method's first point", B3 + 4, 0, ILMAP_OK, FID3, M_EX, 6, 1, 30, 3 },
    { "a defective blob", B4 + 1, 0, ILMAP_E_FORMAT, FID4, M_AP, 0, 1, 0, 0 },
    { "no native map: NO_INFO", B5 + 2, 0, ILMAP_E_NOT_FOUND, FID1, M_NO, 0, 1, 0, 0 },
    { "a module without a PDB", B6 + 2, 0, ILMAP_E_NOT_FOUND, FID5, M_AP, 0, 0, 0, 0 },
    { "no body", 0x20000, 0, ILMAP_E_NOT_FOUND, 0, M_NO, 0, 0, 0, 0 },
};

/* One case through the snapshot form and the one-call form. */
static void run_case(ilmap_store_reader *r, const source_case *c, uint32_t line_shift,
                     const ilmap_pdb *pdb)
{
    for (int form = 0; form < 2; form++) {
        ilmap_store_location loc, plain;
        ilmap_store_source src;
        memset(&loc, 0xAB, sizeof loc);
        memset(&src, 0xAB, sizeof src);
        const ilmap_store_snapshot *v = NULL;
        CHECK_ST(ilmap_store_reader_begin(r, &v), ILMAP_OK);
        ilmap_status st = form == 0
                              ? ilmap_store_snapshot_lookup_source(v, c->address, c->flags, &loc, &src)
                              : ilmap_store_lookup_source(r, c->address, c->flags, &loc, &src);
        /* The location is the plain lookup's, of address - 1 for a return address. */
        (void)ilmap_store_snapshot_lookup(v, c->address - (c->flags & RA ? 1u : 0u), &plain);
        int ok = st == c->status && loc.function_id == c->function_id &&
                 loc.mapping == c->mapping && loc.original_il_offset == c->original_il &&
                 memcmp(&loc, &plain, sizeof loc) == 0 && (src.pdb != NULL) == c->has_pdb &&
                 (!src.pdb || src.pdb == pdb);
        if (c->status == ILMAP_OK)
            ok = ok && src.point.document == 1 && src.point.start_line == c->line + line_shift &&
                 src.point.start_column == c->column;
        else
            ok = ok && src.point.document == 0 && src.point.start_line == 0 &&
                 src.point.il_offset == 0;
        if (c->status == ILMAP_OK && src.pdb) { /* the name through the PDB given */
            char name[32];
            size_t total = 0;
            ok = ok && ilmap_pdb_get_document_name(src.pdb, src.point.document, sizeof name,
                                                   &total, name, NULL) == ILMAP_OK &&
                 strcmp(name, "/src/a.cs") == 0;
        }
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  %s (form %d): %s, fid %d, mapping %u, original IL %u, pdb %d, "
                    "%u:%u\n", c->what, form, ilmap_status_str(st), loc.function_id == c->function_id,
                    loc.mapping, loc.original_il_offset, src.pdb != NULL, src.point.start_line,
                    src.point.start_column);
        CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
    }
}

static void test_table(void)
{
    ilmap_store *s = table_store();
    ilmap_store_reader *r = NULL;
    releases rel = { 0 };
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    owned_pdb p = table_pdb(0);
    CHECK_ST(attach(s, MOD1, p, &rel), ILMAP_OK);
    ilmap_store_stats stats;
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.pdbs == 1);
    /* Attached after the bodies: the store decoded the lines of module 1's
     * three methods then (MD 1, 3, 4; 4 is defective and answers so),
     * a slot for each of the PDB's 4 methods besides
     * (doc/source-lines.md#store). */
    CHECK(stats.source_methods == 3);
    CHECK(stats.source_bytes > 4 * sizeof(void *));
    for (size_t i = 0; i < COUNT(cases); i++)
        run_case(r, &cases[i], 0, p.pdb);

    /* The defect is the PDB's to tell. */
    ilmap_store_location loc;
    ilmap_store_source src;
    ilmap_pdb_sequence_point sp;
    ilmap_pdb_error e;
    CHECK_ST(ilmap_store_lookup_source(r, B4 + 1, 0, &loc, &src), ILMAP_E_FORMAT);
    CHECK_ST(ilmap_pdb_find_source(p.pdb, MD(4), loc.original_il_offset, &sp, &e),
             ILMAP_E_FORMAT);
    CHECK(e.defect == ILMAP_PDB_DEFECT_TRUNCATED);

    /* Attaching the same PDB again: nothing changes, nothing published. */
    uint64_t gen = stats.generation;
    CHECK_ST(ilmap_store_attach_pdb(s, MOD1, p.pdb, NULL, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.generation == gen && rel.calls == 0);
    /* The same PDB to another module: refused, nothing changes. */
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, p.pdb, NULL, NULL), ILMAP_E_EXISTS);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.generation == gen && stats.pdbs == 1);
    /* Detaching a module without one: nothing published. */
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, NULL, release_bytes, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.generation == gen);

    /* Replace under a read: the read keeps the old PDB, whose release
     * waits for the read to end. */
    const ilmap_store_snapshot *old = NULL;
    CHECK_ST(ilmap_store_reader_begin(r, &old), ILMAP_OK);
    owned_pdb q = table_pdb(100);
    CHECK_ST(attach(s, MOD1, q, &rel), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    CHECK(rel.calls == 0);
    CHECK_ST(ilmap_store_snapshot_lookup_source(old, B1 + 10, 0, &loc, &src), ILMAP_OK);
    CHECK(src.pdb == p.pdb && src.point.start_line == 11);
    /* A nested read sees the new one. */
    for (size_t i = 0; i < COUNT(cases); i++)
        run_case(r, &cases[i], 100, q.pdb);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    CHECK(rel.calls == 1);

    /* Module 2 gets one, with no release. */
    const pdbw_point m2pts[] = { { 0, 50, 1, 0 } };
    const pdbw_point *const m2p[] = { NULL, m2pts };
    const size_t m2n[] = { 0, 1 };
    owned_pdb m2 = make_pdb(m2p, m2n, 2);
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, m2.pdb, NULL, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_lookup_source(r, B6 + 2, 0, &loc, &src), ILMAP_OK);
    CHECK(src.pdb == m2.pdb && src.point.start_line == 50);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.source_methods == 4); /* module 1's three (replaced PDB), MD 2 */
    /* A body added while the PDB is attached: its method decoded then
     * (MD 1 of module 2 has no sequence points: no line, the PDB named). */
    CHECK_ST(ilmap_store_add_function(s, FID6, MOD2, MD(1)), ILMAP_OK);
    const ilmap_native_entry b8[] = { { 0, 0, 8 } };
    add_code(s, FID6, 0, B8, 8, native_of(b8, COUNT(b8), 8), 0);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.source_methods == 5);
    CHECK_ST(ilmap_store_lookup_source(r, B8 + 2, 0, &loc, &src), ILMAP_E_NOT_FOUND);
    CHECK(loc.function_id == FID6 && src.pdb == m2.pdb);
    /* A second body of a decoded method decodes nothing more. */
    add_code(s, FID6, 0, B8 + 64, 8, native_of(b8, COUNT(b8), 8), 0);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.source_methods == 5);
    /* The one-call form inside a read of the caller's own on the same slot
     * (reads nest): the PDB it hands out outlives a detach until that read
     * ends. */
    const ilmap_store_snapshot *outer = NULL;
    CHECK_ST(ilmap_store_reader_begin(r, &outer), ILMAP_OK);
    CHECK_ST(ilmap_store_lookup_source(r, B6 + 2, 0, &loc, &src), ILMAP_OK);
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, NULL, NULL, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    char held_name[32];
    size_t held_total = 0;
    CHECK_ST(ilmap_pdb_get_document_name(src.pdb, src.point.document, sizeof held_name,
                                         &held_total, held_name, NULL),
             ILMAP_OK);
    CHECK(strcmp(held_name, "/src/a.cs") == 0);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    free(m2.bytes);
    m2 = make_pdb(m2p, m2n, 2);
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, m2.pdb, NULL, NULL), ILMAP_OK);
    /* Detach: no source, the PDB freed at reclamation (its bytes are ours). */
    CHECK_ST(ilmap_store_attach_pdb(s, MOD2, NULL, NULL, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_lookup_source(r, B6 + 2, 0, &loc, &src), ILMAP_E_NOT_FOUND);
    CHECK(loc.function_id == FID5 && !src.pdb);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.source_methods == 3); /* module 1's only */
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    free(m2.bytes);

    /* remove_module drops the PDB in the same publication; a read begun
     * before keeps it, the release comes after. */
    CHECK_ST(ilmap_store_reader_begin(r, &old), ILMAP_OK);
    ilmap_store_removed removed;
    CHECK_ST(ilmap_store_remove_module(s, MOD1, &removed), ILMAP_OK);
    CHECK(removed.functions == 4);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.pdbs == 0 && stats.source_methods == 0 && stats.source_bytes == 0);
    CHECK(rel.calls == 1);
    CHECK_ST(ilmap_store_snapshot_lookup_source(old, B1 + 16, 0, &loc, &src), ILMAP_OK);
    CHECK(src.pdb == q.pdb && src.point.start_line == 113);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    CHECK(rel.calls == 2);
    CHECK_ST(ilmap_store_lookup_source(r, B1 + 16, 0, &loc, &src), ILMAP_E_NOT_FOUND);
    CHECK(loc.function_id == 0 && !src.pdb);
    /* A module known only by its PDB goes too. */
    owned_pdb only = table_pdb(0);
    CHECK_ST(attach(s, MOD1, only, &rel), ILMAP_OK);
    CHECK_ST(ilmap_store_remove_module(s, MOD1, &removed), ILMAP_OK);
    CHECK(removed.functions == 0);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    CHECK(rel.calls == 3);

    /* The store's teardown releases what is attached, once. */
    owned_pdb last = table_pdb(0);
    CHECK_ST(attach(s, MOD2, last, &rel), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    ilmap_store_free(s);
    CHECK(rel.calls == 4);
}

/* Every public function checks its arguments and leaves outputs defined. */
static void test_arguments(void)
{
    ilmap_store *s = table_store();
    ilmap_store_reader *r = NULL;
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    owned_pdb p = table_pdb(0);
    CHECK_ST(ilmap_store_attach_pdb(NULL, MOD1, p.pdb, NULL, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_attach_pdb(s, 0, p.pdb, NULL, NULL), ILMAP_E_INVALID_ARG);

    ilmap_store_location loc;
    ilmap_store_source src;
    const ilmap_store_snapshot *v = NULL;
    CHECK_ST(ilmap_store_reader_begin(r, &v), ILMAP_OK);
    const unsigned bad_flags[] = { 2u, 0x80000000u, RA | 4u };
    for (size_t i = 0; i < COUNT(bad_flags); i++) {
        memset(&loc, 0xAB, sizeof loc);
        memset(&src, 0xAB, sizeof src);
        CHECK_ST(ilmap_store_snapshot_lookup_source(v, B1 + 4, bad_flags[i], &loc, &src),
                 ILMAP_E_INVALID_ARG);
        CHECK(loc.function_id == 0 && loc.mapping == M_NO && !src.pdb && src.point.start_line == 0);
        memset(&loc, 0xAB, sizeof loc);
        memset(&src, 0xAB, sizeof src);
        CHECK_ST(ilmap_store_lookup_source(r, B1 + 4, bad_flags[i], &loc, &src),
                 ILMAP_E_INVALID_ARG);
        CHECK(loc.function_id == 0 && loc.mapping == M_NO && !src.pdb && src.point.start_line == 0);
    }
    memset(&loc, 0xAB, sizeof loc);
    memset(&src, 0xAB, sizeof src);
    CHECK_ST(ilmap_store_snapshot_lookup_source(NULL, B1 + 4, 0, &loc, &src), ILMAP_E_INVALID_ARG);
    CHECK(loc.function_id == 0 && loc.mapping == M_NO && !src.pdb);
    memset(&src, 0xAB, sizeof src);
    CHECK_ST(ilmap_store_snapshot_lookup_source(v, B1 + 4, 0, NULL, &src), ILMAP_E_INVALID_ARG);
    CHECK(!src.pdb && src.point.document == 0);
    memset(&loc, 0xAB, sizeof loc);
    CHECK_ST(ilmap_store_snapshot_lookup_source(v, B1 + 4, 0, &loc, NULL), ILMAP_E_INVALID_ARG);
    CHECK(loc.function_id == 0 && loc.mapping == M_NO);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
    memset(&loc, 0xAB, sizeof loc);
    memset(&src, 0xAB, sizeof src);
    CHECK_ST(ilmap_store_lookup_source(NULL, B1 + 4, 0, &loc, &src), ILMAP_E_INVALID_ARG);
    CHECK(loc.function_id == 0 && loc.mapping == M_NO && !src.pdb);
    CHECK_ST(ilmap_store_lookup_source(r, B1 + 4, 0, NULL, &src), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_lookup_source(r, B1 + 4, 0, &loc, NULL), ILMAP_E_INVALID_ARG);
    CHECK(ilmap_store_reader_end(r) == ILMAP_E_INVALID_ARG); /* no read left open */
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    ilmap_store_free(s);
    free_owned(p); /* never handed over */
}

/* ---- the random test: a model written from doc/source-lines.md#store ---- */

#define RW_MODULES 3
#define RW_METHODS 4
#define RW_POINTS 12
#define RW_BODIES 24

typedef struct rw_method {
    pdbw_point points[RW_POINTS];
    size_t n; /* 0: nil blob */
} rw_method;

typedef struct rw_module {
    int attached;
    rw_method methods[RW_METHODS];
} rw_module;

typedef struct rw_world {
    ilmap_store *store;
    ilmap_store_reader *reader;
    releases rel;
    int handed_over;
    rw_module modules[RW_MODULES];
    uintptr_t body_start[RW_BODIES];
    uint32_t body_size[RW_BODIES];
    size_t nbodies;
} rw_world;

static ilmap_module_id rw_module_id(int m)
{
    return MOD1 + (ilmap_module_id)m * 0x1000u;
}

static ilmap_function_id rw_fid(int m, int k)
{
    return FID1 + (ilmap_function_id)(m * RW_METHODS + k) * 0x10u;
}

/* Random points: IL strictly increasing, from 0 or later, some hidden. */
static void rw_points(prng *rng, rw_method *mt)
{
    mt->n = prng_below(rng, 6) == 0 ? 0 : 1 + prng_below(rng, RW_POINTS);
    uint32_t il = prng_below(rng, 3) == 0 ? prng_below(rng, 8) : 0;
    for (size_t i = 0; i < mt->n; i++) {
        mt->points[i].il = il;
        mt->points[i].hidden = prng_below(rng, 4) == 0;
        mt->points[i].line = mt->points[i].hidden ? 0 : 1 + prng_below(rng, 500);
        mt->points[i].column = mt->points[i].hidden ? 0 : 1 + prng_below(rng, 80);
        il += 1 + prng_below(rng, 10);
    }
}

static void rw_attach(rw_world *w, prng *rng, int m)
{
    rw_module *mod = &w->modules[m];
    rw_module next;
    const pdbw_point *pts[RW_METHODS];
    size_t n[RW_METHODS];
    for (int k = 0; k < RW_METHODS; k++) {
        rw_points(rng, &next.methods[k]);
        pts[k] = next.methods[k].points;
        n[k] = next.methods[k].n;
    }
    owned_pdb o = make_pdb(pts, n, RW_METHODS);
    CHECK_ST(attach(w->store, rw_module_id(m), o, &w->rel), ILMAP_OK);
    w->handed_over++;
    memcpy(mod->methods, next.methods, sizeof next.methods);
    mod->attached = 1;
}

/* The model's rule (doc/source-lines.md#rule): the last visible point at
 * or before il, in blob order; NULL when none. */
static const pdbw_point *rw_rule(const rw_method *mt, uint32_t il)
{
    const pdbw_point *best = NULL;
    for (size_t i = 0; i < mt->n && mt->points[i].il <= il; i++) {
        if (!mt->points[i].hidden)
            best = &mt->points[i];
    }
    return best;
}

static void rw_add_bodies(rw_world *w, prng *rng)
{
    uintptr_t next = 0x100000;
    w->nbodies = 0;
    for (int m = 0; m < RW_MODULES; m++) {
        for (int k = 0; k < RW_METHODS; k++) {
            CHECK_ST(ilmap_store_add_function(w->store, rw_fid(m, k), rw_module_id(m), MD(k + 1)),
                     ILMAP_OK);
            for (int b = 0; b < 2 && w->nbodies < RW_BODIES; b++) {
                uint32_t size = 8 + prng_below(rng, 120);
                ilmap_native_entry e[16];
                size_t ne = 0;
                uint32_t at = 0;
                while (at < size && ne < COUNT(e)) {
                    uint32_t len = 1 + prng_below(rng, 12), kind = prng_below(rng, 10);
                    if (len > size - at)
                        len = size - at;
                    e[ne].il_offset = kind == 0   ? ILMAP_PROLOG
                                      : kind == 1 ? ILMAP_EPILOG
                                      : kind == 2 ? ILMAP_NO_MAPPING
                                                  : prng_below(rng, 100);
                    e[ne].native_start = at;
                    e[ne].native_end = at + len;
                    ne++;
                    at += len;
                }
                ilmap_native *map = prng_below(rng, 8) == 0 ? NULL : native_of(e, ne, size);
                const ilmap_code_range r = { next, size };
                CHECK_ST(ilmap_store_add_body(w->store, rw_fid(m, k), 0, &r, 1, map, 0), ILMAP_OK);
                w->body_start[w->nbodies] = next;
                w->body_size[w->nbodies++] = size;
                next += size + prng_below(rng, 3) * 16;
            }
        }
    }
}

static int rw_module_of(ilmap_module_id id)
{
    for (int m = 0; m < RW_MODULES; m++) {
        if (rw_module_id(m) == id)
            return m;
    }
    return -1;
}

static void rw_check(rw_world *w, uintptr_t a, unsigned flags, long round)
{
    const ilmap_store_snapshot *v = NULL;
    CHECK_ST(ilmap_store_reader_begin(w->reader, &v), ILMAP_OK);
    ilmap_store_location want_loc, loc;
    ilmap_store_source src;
    ilmap_status want = ilmap_store_snapshot_lookup(v, flags ? a - 1 : a, &want_loc);
    const pdbw_point *want_point = NULL;
    int want_pdb = 0;
    if (want == ILMAP_OK) {
        int m = rw_module_of(want_loc.module_id);
        const rw_module *mod = m >= 0 ? &w->modules[m] : NULL;
        want_pdb = mod && mod->attached;
        want = ILMAP_E_NOT_FOUND;
        if (want_pdb && want_loc.mapping != ILMAP_MAPPING_NO_INFO) {
            want_point = rw_rule(&mod->methods[(want_loc.method_def & 0xFFFFFFu) - 1],
                                 want_loc.original_il_offset);
            want = want_point ? ILMAP_OK : ILMAP_E_NOT_FOUND;
        }
    }
    ilmap_status got = ilmap_store_snapshot_lookup_source(v, a, flags, &loc, &src);
    int same = got == want && memcmp(&loc, &want_loc, sizeof loc) == 0 &&
               (src.pdb != NULL) == want_pdb;
    if (same && want_point)
        same = src.point.il_offset == want_point->il && src.point.document == 1 &&
               src.point.start_line == want_point->line &&
               src.point.start_column == want_point->column &&
               src.point.end_line == want_point->line &&
               src.point.end_column == want_point->column + 1;
    if (same && !want_point)
        same = src.point.start_line == 0 && src.point.document == 0;
    CHECK(same);
    if (!same)
        fprintf(stderr, "  round %ld, address 0x%jx, flags %u: got %s (pdb %d, IL %u %u:%u), "
                "want %s (pdb %d, IL %u %u:%u); location: method 0x%08x, mapping %u, IL %u, "
                "original IL %u\n", round, (uintmax_t)a, flags, ilmap_status_str(got),
                src.pdb != NULL, src.point.il_offset, src.point.start_line, src.point.start_column,
                ilmap_status_str(want), want_pdb, want_point ? want_point->il : 0,
                want_point ? want_point->line : 0, want_point ? want_point->column : 0,
                want_loc.method_def, want_loc.mapping, want_loc.il_offset,
                want_loc.original_il_offset);
    CHECK_ST(ilmap_store_reader_end(w->reader), ILMAP_OK);
}

static void test_random(uint64_t seed)
{
    prng rng = prng_init(seed);
    long rounds = test_iterations(60), queries = 0, answered = 0;
    for (long round = 0; round < rounds; round++) {
        rw_world w;
        memset(&w, 0, sizeof w);
        CHECK_ST(ilmap_store_create(0, 0, &w.store), ILMAP_OK);
        CHECK_ST(ilmap_store_reader_register(w.store, &w.reader), ILMAP_OK);
        rw_add_bodies(&w, &rng);
        for (int step = 0; step < 8; step++) {
            /* A writer's move: attach, replace, detach, or remove a module. */
            int m = (int)prng_below(&rng, RW_MODULES);
            uint32_t move = prng_below(&rng, 8);
            if (move < 5) {
                rw_attach(&w, &rng, m);
            } else if (move < 7) {
                CHECK_ST(ilmap_store_attach_pdb(w.store, rw_module_id(m), NULL, NULL, NULL),
                         ILMAP_OK);
                w.modules[m].attached = 0;
            } else if (step == 7) { /* late, so that other steps query it */
                CHECK_ST(ilmap_store_remove_module(w.store, rw_module_id(m), NULL), ILMAP_OK);
                w.modules[m].attached = 0;
            }
            for (size_t b = 0; b < w.nbodies; b++) {
                uintptr_t start = w.body_start[b];
                uint32_t size = w.body_size[b];
                const uintptr_t probes[] = { start, start + 1, start + size - 1, start + size,
                                             start + prng_below(&rng, size + 1) };
                for (size_t i = 0; i < COUNT(probes); i++) {
                    for (unsigned flags = 0; flags <= RA; flags++) {
                        rw_check(&w, probes[i], flags, round);
                        queries++;
                    }
                }
            }
        }
        ilmap_store_location loc;
        ilmap_store_source src;
        for (size_t b = 0; b < w.nbodies; b++)
            answered += ilmap_store_lookup_source(w.reader, w.body_start[b], 0, &loc, &src) ==
                        ILMAP_OK;
        CHECK_ST(ilmap_store_reader_unregister(w.reader), ILMAP_OK);
        ilmap_store_free(w.store);
        CHECK(w.rel.calls == w.handed_over); /* each release once */
        if (w.rel.calls != w.handed_over)
            fprintf(stderr, "  round %ld: %d releases for %d PDBs\n", round, w.rel.calls,
                    w.handed_over);
    }
    printf("random: %ld rounds, %ld queries (%ld of the code starts answered at the end)\n",
           rounds, queries, answered);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x50C4CE11u);
    test_table();
    test_arguments();
    test_random(seed);
    return test_finish("test-versions-source");
}
