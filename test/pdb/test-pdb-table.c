/*
 * Table-driven tests of the Portable PDB reader (ilmap-pdb.h) over PDBs
 * built here in memory: the metadata root and streams, the #~ header with
 * narrow and wide heap indexes and the extra-data flag, document names,
 * the sequence-point grammar (initial document, document switches, hidden
 * points, first point absolute, signed compressed deltas at every width),
 * the lookup rule, and defects (status, defect and byte offset), every
 * truncation of a whole PDB included. And ilmap_pdb_lines against
 * ilmap_pdb_find_source() on random blobs (seeded: argv[1] or
 * ILMAP_TEST_SEED replays a run), corrupt ones included.
 */
#include "common/read_file.h"
#include "ilmap-pdb.h"
#include "test.h"

#include "pdb/pdb-writer.h"

static ilmap_pdb *open_built(const built *b)
{
    ilmap_pdb *p = NULL;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_open(b->o.d, b->o.n, &p, &e) == ILMAP_OK);
    CHECK(e.defect == ILMAP_PDB_DEFECT_NONE && e.offset == ILMAP_NO_INDEX);
    return p;
}

static void expect_source(const ilmap_pdb *p, uint32_t token, uint32_t il, ilmap_status want,
                          uint32_t doc, uint32_t line, uint32_t col)
{
    ilmap_pdb_sequence_point sp;
    ilmap_pdb_error e;
    ilmap_status st = ilmap_pdb_find_source(p, token, il, &sp, &e);
    CHECK(st == want);
    if (st != want)
        fprintf(stderr, "  IL %u: status %d, want %d\n", il, (int)st, (int)want);
    if (want == ILMAP_OK) {
        CHECK(sp.document == doc && sp.start_line == line && sp.start_column == col);
        if (!(sp.document == doc && sp.start_line == line && sp.start_column == col))
            fprintf(stderr, "  IL %u: %u %u:%u, want %u %u:%u\n", il, sp.document,
                    sp.start_line, sp.start_column, doc, line, col);
    }
}

/* ---- tests ---- */

static void names_and_info(void)
{
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    ilmap_pdb_info info;
    CHECK(ilmap_pdb_get_info(p, &info) == ILMAP_OK);
    CHECK(info.document_count == 2 && info.method_count == 1);
    CHECK(info.entry_point == 0x06000001 && info.referenced_tables == 1u << 6);
    CHECK(info.id[0] == 0xA0 && info.id[19] == 0xA0 + 19);
    CHECK(strcmp(info.version, "PDB v1.0") == 0);
    char name[64];
    size_t total;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_get_document_name(p, 1, sizeof name, &total, name, &e) == ILMAP_OK);
    CHECK(total == 10 && strcmp(name, "/src/a.cs") == 0);
    CHECK(ilmap_pdb_get_document_name(p, 2, sizeof name, &total, name, &e) == ILMAP_OK);
    CHECK(strcmp(name, "C:\\b.fs") == 0);
    /* The buffer protocol: a size query, then a short buffer. */
    CHECK(ilmap_pdb_get_document_name(p, 1, 0, &total, NULL, &e) == ILMAP_OK && total == 10);
    memset(name, 'x', sizeof name);
    CHECK(ilmap_pdb_get_document_name(p, 1, 4, &total, name, &e) == ILMAP_E_TRUNCATED);
    CHECK(total == 10 && memcmp(name, "/srcx", 5) == 0);
    CHECK(ilmap_pdb_get_document_name(p, 3, sizeof name, &total, name, &e) == ILMAP_E_NOT_FOUND);
    CHECK(ilmap_pdb_get_document_name(p, 0, sizeof name, &total, name, &e) == ILMAP_E_NOT_FOUND);
    CHECK(ilmap_pdb_get_document_name(p, 1, 4, NULL, name, &e) == ILMAP_E_INVALID_ARG);
    ilmap_pdb_free(p);

    /* Separator 0: parts joined with nothing; a non-ASCII separator. */
    base_spec(&s, &heap);
    static const char *const parts[] = { "ab", "cd" };
    name_blob(&s.doc_names[0], &heap, 0, parts, 2);
    s.doc_names[1].n = 0;
    put8(&s.doc_names[1], 0xC3);
    cu(&s.doc_names[1], 0);
    build(&s, &heap, &b);
    p = open_built(&b);
    CHECK(ilmap_pdb_get_document_name(p, 1, sizeof name, &total, name, &e) == ILMAP_OK);
    CHECK(strcmp(name, "abcd") == 0);
    CHECK(ilmap_pdb_get_document_name(p, 2, sizeof name, &total, name, &e) == ILMAP_E_FORMAT);
    CHECK(e.defect == ILMAP_PDB_DEFECT_DOCUMENT_NAME && total == 0);
    ilmap_pdb_free(p);
}

/* The grammar and the rule on one blob: a first point not at 0, a hidden
 * point, signed deltas, a document switch. */
static void grammar_and_rule(unsigned heaps)
{
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    s.heaps = heaps;
    out *o = &s.points[0];
    cu(o, 0);                  /* LocalSignature */
    cu(o, 2);                  /* IL 2 */
    cu(o, 0); cu(o, 4);        /* same line, 4 columns */
    cu(o, 10); cu(o, 5);       /* first visible: absolute 10:5 */
    cu(o, 3);                  /* IL 5: hidden */
    cu(o, 0); cu(o, 0);
    cu(o, 2);                  /* IL 7 */
    cu(o, 1); cs(o, -2);       /* one line, end column 2 before start */
    cs(o, 2); cs(o, -1);       /* 12:4 */
    cu(o, 0); cu(o, 2);        /* document 2 */
    cu(o, 4);                  /* IL 11 */
    cu(o, 0); cu(o, 1);
    cs(o, -12); cs(o, 0);      /* 0:4 (line 0 is allowed) */
    cu(o, 1);                  /* IL 12: hidden, last */
    cu(o, 0); cu(o, 0);
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    const uint32_t t = 0x06000001;
    expect_source(p, t, 0, ILMAP_E_NOT_FOUND, 0, 0, 0);
    expect_source(p, t, 1, ILMAP_E_NOT_FOUND, 0, 0, 0);
    expect_source(p, t, 2, ILMAP_OK, 1, 10, 5);
    expect_source(p, t, 5, ILMAP_OK, 1, 10, 5); /* hidden: the last visible */
    expect_source(p, t, 6, ILMAP_OK, 1, 10, 5);
    expect_source(p, t, 7, ILMAP_OK, 1, 12, 4);
    expect_source(p, t, 10, ILMAP_OK, 1, 12, 4);
    expect_source(p, t, 11, ILMAP_OK, 2, 0, 4);
    expect_source(p, t, 12, ILMAP_OK, 2, 0, 4);
    expect_source(p, t, 0xFFFFFFFFu, ILMAP_OK, 2, 0, 4);
    expect_source(p, 0x06000002, 0, ILMAP_E_NOT_FOUND, 0, 0, 0); /* no row */
    expect_source(p, 0x02000001, 0, ILMAP_E_INVALID_ARG, 0, 0, 0);

    ilmap_pdb_sequence_point sp[8];
    size_t total;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_get_sequence_points(p, t, 8, &total, sp, &e) == ILMAP_OK && total == 5);
    CHECK(sp[0].il_offset == 2 && sp[0].end_line == 10 && sp[0].end_column == 9);
    CHECK(sp[1].il_offset == 5 && sp[1].start_line == ILMAP_PDB_HIDDEN_LINE &&
          sp[1].end_line == ILMAP_PDB_HIDDEN_LINE && sp[1].start_column == 0);
    CHECK(sp[2].il_offset == 7 && sp[2].end_line == 13 && sp[2].end_column == 2);
    CHECK(sp[3].document == 2 && sp[3].il_offset == 11 && sp[3].end_column == 5);
    CHECK(sp[4].il_offset == 12 && sp[4].document == 2);
    CHECK(ilmap_pdb_get_sequence_points(p, t, 2, &total, sp, &e) == ILMAP_E_TRUNCATED &&
          total == 5);
    CHECK(ilmap_pdb_get_sequence_points(p, t, 0, &total, NULL, &e) == ILMAP_OK && total == 5);
    ilmap_pdb_free(p);
}

/* Initial document in the blob (Document column 0); a nil blob. */
static void initial_document(void)
{
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    s.nmethods = 2;
    s.method_doc[0] = 0;
    out *o = &s.points[0];
    cu(o, 0x11); cu(o, 2);     /* LocalSignature, InitialDocument 2 */
    cu(o, 0); cu(o, 0); cu(o, 1); cu(o, 7); cu(o, 1);
    s.method_doc[1] = 1;       /* points[1] empty: nil blob */
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    expect_source(p, 0x06000001, 3, ILMAP_OK, 2, 7, 1);
    expect_source(p, 0x06000002, 0, ILMAP_E_NOT_FOUND, 0, 0, 0);
    ilmap_pdb_free(p);
}

/* Signed deltas of lines and columns at every width, both signs, and the
 * unsigned first values at every width. */
static void delta_widths(void)
{
    static const int32_t deltas[] = { 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193,
                                      100000, -100000 };
    size_t n = sizeof deltas / sizeof deltas[0];
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    out *o = &s.points[0];
    uint32_t line = 0x4000 + 200000, col = 0x8000; /* 4-byte and 4-byte firsts */
    cu(o, 0);
    cu(o, 0); cu(o, 0); cu(o, 1); cu(o, line); cu(o, col);
    uint32_t want_line[16], want_col[16];
    want_line[0] = line;
    want_col[0] = col;
    for (size_t i = 0; i < n; i++) {
        cu(o, 1);
        cu(o, 0); cu(o, 1);
        int32_t dc = deltas[i] > 0x3000 || deltas[i] < -0x3000 ? deltas[i] / 8 : deltas[i];
        cs(o, deltas[i]);
        cs(o, dc);
        line = (uint32_t)((int32_t)line + deltas[i]);
        col = (uint32_t)((int32_t)col + dc);
        want_line[i + 1] = line;
        want_col[i + 1] = col;
    }
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    for (size_t i = 0; i <= n; i++)
        expect_source(p, 0x06000001, (uint32_t)i, ILMAP_OK, 1, want_line[i], want_col[i]);
    ilmap_pdb_free(p);
}

/* Defects inside a blob: status, defect, and the absolute offset. */
static void blob_defects(void)
{
    struct {
        uint8_t bytes[16];
        size_t n, bad_at; /* offset of the defect inside the blob */
        ilmap_pdb_defect defect;
        uint32_t good_il; /* an offset answered before the defect */
    } cases[] = {
        /* truncated: delta columns missing */
        { { 0, 0, 0 }, 3, 3, ILMAP_PDB_DEFECT_TRUNCATED, 0 },
        /* truncated 2-byte value */
        { { 0, 0x80 }, 2, 1, ILMAP_PDB_DEFECT_TRUNCATED, 0 },
        /* 111 prefix */
        { { 0, 0, 0, 1, 0xE0 }, 5, 4, ILMAP_PDB_DEFECT_COMPRESSED, 0 },
        /* non-shortest form */
        { { 0, 0x80, 0x05 }, 3, 1, ILMAP_PDB_DEFECT_COMPRESSED, 0 },
        /* document switch to row 9 */
        { { 0, 0, 0, 1, 1, 1, 0, 9 }, 8, 7, ILMAP_PDB_DEFECT_INDEX, 0 },
        /* line 0xFEEFEE written as a first value */
        { { 0, 0, 0, 1, 0xC0, 0xFE, 0xEF, 0xEE, 1 }, 9, 1, ILMAP_PDB_DEFECT_SEQUENCE_POINT, 0 },
        /* column 0x10000 */
        { { 0, 0, 0, 1, 1, 0xC0, 0x01, 0x00, 0x00 }, 9, 1, ILMAP_PDB_DEFECT_SEQUENCE_POINT, 0 },
        /* a visible point, then a negative line */
        { { 0, 0, 0, 1, 1, 1, 2, 0, 1, 0x7D, 0 }, 11, 6, ILMAP_PDB_DEFECT_SEQUENCE_POINT, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        spec s;
        out heap;
        built b;
        base_spec(&s, &heap);
        put(&s.points[0], cases[i].bytes, cases[i].n);
        build(&s, &heap, &b);
        ilmap_pdb *p = open_built(&b);
        size_t off = 0, total = 99;
        ilmap_pdb_sequence_point sp;
        ilmap_pdb_error e;
        CHECK(ilmap_pdb_get_sequence_points(p, 0x06000001, 1, &total, &sp, &e) == ILMAP_E_FORMAT);
        /* the blob's contents start after its 1-byte length */
        off = b.blob_at + b.point_blob[0] + 1;
        CHECK(total == 0 && e.defect == cases[i].defect && e.offset == off + cases[i].bad_at);
        if (e.defect != cases[i].defect || e.offset != off + cases[i].bad_at)
            fprintf(stderr, "  case %zu: defect %d at %zu, want %d at %zu\n", i, (int)e.defect,
                    e.offset, (int)cases[i].defect, off + cases[i].bad_at);
        CHECK(ilmap_pdb_find_source(p, 0x06000001, 0xFFFF, &sp, &e) == ILMAP_E_FORMAT);
        ilmap_pdb_free(p);
    }
}

/* The #~ header: the extra-data flag shifts the tables by 4 bytes; wide
 * heap indexes; a type-system table is refused. */
static void table_stream(void)
{
    grammar_and_rule(0x40);
    grammar_and_rule(0x04 | 0x02 | 0x01);
    grammar_and_rule(0x47);
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    s.type_system_table = 1;
    build(&s, &heap, &b);
    ilmap_pdb *p = (ilmap_pdb *)&s;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_open(b.o.d, b.o.n, &p, &e) == ILMAP_E_FORMAT && p == NULL);
    CHECK(e.defect == ILMAP_PDB_DEFECT_TABLE && e.offset == b.tables_at + 8);
}

/* Every prefix of a valid PDB is refused with an offset inside it, and
 * bad signatures and arguments. */
static void truncations(void)
{
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    cu(&s.points[0], 0);
    cu(&s.points[0], 0); cu(&s.points[0], 0); cu(&s.points[0], 1);
    cu(&s.points[0], 1); cu(&s.points[0], 1);
    build(&s, &heap, &b);
    for (size_t n = 0; n < b.o.n; n++) {
        ilmap_pdb *p = NULL;
        ilmap_pdb_error e;
        ilmap_status st = ilmap_pdb_open(b.o.d, n, &p, &e);
        CHECK(st == ILMAP_E_FORMAT && p == NULL && e.offset <= n);
        CHECK(e.defect == ILMAP_PDB_DEFECT_TRUNCATED || e.defect == ILMAP_PDB_DEFECT_STREAM);
    }
    uint8_t copy[8192];
    memcpy(copy, b.o.d, b.o.n);
    copy[0] = 'X';
    ilmap_pdb *p = NULL;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_open(copy, b.o.n, &p, &e) == ILMAP_E_FORMAT);
    CHECK(e.defect == ILMAP_PDB_DEFECT_SIGNATURE && e.offset == 0);
    CHECK(ilmap_pdb_open(NULL, 4, &p, &e) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_pdb_open(copy, 4, NULL, &e) == ILMAP_E_INVALID_ARG);
    CHECK(strcmp(ilmap_pdb_defect_str(ILMAP_PDB_DEFECT_ID_MISMATCH), "unknown defect") != 0);
    CHECK(strcmp(ilmap_pdb_defect_str((ilmap_pdb_defect)99), "unknown defect") == 0);
    ilmap_pdb_free(NULL);
}

/* PE files: not a PE, an id check against a CodeView entry. */
static void pe_files(void)
{
    ilmap_pdb_pe_info pe;
    ilmap_pdb_error e;
    uint8_t junk[64] = { 'M', 'Z' };
    CHECK(ilmap_pdb_read_pe(junk, 1, &pe, &e) == ILMAP_E_FORMAT &&
          e.defect == ILMAP_PDB_DEFECT_TRUNCATED);
    CHECK(ilmap_pdb_read_pe(junk, sizeof junk, &pe, &e) == ILMAP_E_FORMAT);
    junk[0] = 'B';
    CHECK(ilmap_pdb_read_pe(junk, sizeof junk, &pe, &e) == ILMAP_E_FORMAT &&
          e.defect == ILMAP_PDB_DEFECT_SIGNATURE);

    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    memset(&pe, 0, sizeof pe);
    CHECK(ilmap_pdb_check_id(p, &pe, &e) == ILMAP_E_NOT_FOUND);
    pe.has_codeview = 1;
    for (int i = 0; i < 16; i++)
        pe.guid[i] = (uint8_t)(0xA0 + i);
    pe.codeview_stamp = 0xB3B2B1B0u;
    CHECK(ilmap_pdb_check_id(p, &pe, &e) == ILMAP_OK);
    pe.codeview_stamp++;
    CHECK(ilmap_pdb_check_id(p, &pe, &e) == ILMAP_E_FORMAT &&
          e.defect == ILMAP_PDB_DEFECT_ID_MISMATCH);
    uint8_t room[4];
    pe.has_embedded = 0;
    CHECK(ilmap_pdb_inflate(junk, sizeof junk, &pe, room, 4, &e) == ILMAP_E_INVALID_ARG);
    /* Bytes that are no deflate data (block type 3): refused with zlib,
     * unsupported without it. */
    memset(junk, 0xFF, sizeof junk);
    pe.has_embedded = 1;
    pe.embedded_offset = 8;
    pe.embedded_size = 16;
    pe.pdb_size = 4;
    CHECK(ilmap_pdb_inflate(junk, sizeof junk, &pe, room, 3, &e) == ILMAP_E_INVALID_ARG);
    ilmap_status st = ilmap_pdb_inflate(junk, sizeof junk, &pe, room, 4, &e);
    CHECK((st == ILMAP_E_FORMAT && e.defect == ILMAP_PDB_DEFECT_DEFLATE && e.offset >= 8 &&
           e.offset <= 24) ||
          (st == ILMAP_E_UNSUPPORTED && e.defect == ILMAP_PDB_DEFECT_NONE));
    ilmap_pdb_free(p);
}

/* ilmap_pdb_open_for_assembly on the corpus's Tiny program (CodeView
 * entry naming Tiny.pdb; tiny.pdb beside it; a copy with the PDB
 * embedded): found, owning its bytes, answering the CLI test's lines. */
static void assemblies(void)
{
    ilmap_pdb *p = (ilmap_pdb *)(uintptr_t)1;
    ilmap_pdb_origin origin = ILMAP_PDB_ORIGIN_BESIDE;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_open_for_assembly(NULL, NULL, 0, &p, &origin, &e) == ILMAP_E_INVALID_ARG &&
          p == NULL && origin == ILMAP_PDB_ORIGIN_NONE);
    CHECK(ilmap_pdb_open_for_assembly("x.dll", NULL, 1, &p, NULL, &e) == ILMAP_E_INVALID_ARG);
    uint8_t junk[64] = { 'M', 'Z' };
    CHECK(ilmap_pdb_open_for_assembly("x.dll", junk, sizeof junk, &p, NULL, &e) ==
              ILMAP_E_FORMAT && p == NULL);
    CHECK(ilmap_pdb_open_for_assembly("/nonexistent/dir/x.dll", NULL, 0, &p, &origin, &e) ==
              ILMAP_E_IO && e.defect == ILMAP_PDB_DEFECT_NONE && p == NULL);
    const char *root = getenv("ILMAP_SOURCE_ROOT");
    if (!root)
        return;
    char path[4096];
    ilmap_pdb_sequence_point sp;
    snprintf(path, sizeof path, "%s/test/fuzz/corpus-pdb/tiny.dll", root);
    CHECK(ilmap_pdb_open_for_assembly(path, NULL, 0, &p, &origin, &e) == ILMAP_OK);
    /* beside it as tiny.pdb; on a case-blind file system by the
     * CodeView entry's name */
    CHECK(origin == ILMAP_PDB_ORIGIN_BESIDE || origin == ILMAP_PDB_ORIGIN_CODEVIEW_NAME);
    CHECK(ilmap_pdb_find_source(p, 0x06000001u, 3, &sp, &e) == ILMAP_OK && sp.start_line == 8 &&
          sp.start_column == 31);
    ilmap_pdb_free(p);
    snprintf(path, sizeof path, "%s/test/fuzz/corpus-pdb/tiny-embedded.dll", root);
    ilmap_status st = ilmap_pdb_open_for_assembly(path, NULL, 0, &p, &origin, &e);
    CHECK(st == ILMAP_OK || (st == ILMAP_E_UNSUPPORTED && p == NULL));
    if (st == ILMAP_OK)
        CHECK(ilmap_pdb_find_source(p, 0x06000001u, 0, &sp, &e) == ILMAP_OK &&
              sp.start_line == 7 && origin != ILMAP_PDB_ORIGIN_NONE);
    ilmap_pdb_free(p);
}

static int spill(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

/* A PDB file beside the assembly that is passed over (malformed, or
 * another id) is what ilmap_pdb_open_for_assembly reports when it takes
 * none: ILMAP_E_FORMAT with the defect, not ILMAP_E_NOT_FOUND. The
 * assembly's bytes are given (tiny.dll's, named beside-test.dll in the
 * working directory), the PDB candidates are read: beside-test.pdb. */
static void assemblies_refused(void)
{
    const char *root = getenv("ILMAP_SOURCE_ROOT");
    if (!root)
        return;
    char path[4096];
    size_t dll_size = 0, pdb_size = 0;
    snprintf(path, sizeof path, "%s/test/fuzz/corpus-pdb/tiny.dll", root);
    uint8_t *dll = common_read_file(path, &dll_size, NULL);
    snprintf(path, sizeof path, "%s/test/fuzz/corpus-pdb/tiny.pdb", root);
    uint8_t *pdb_bytes = common_read_file(path, &pdb_size, NULL);
    CHECK(dll && pdb_bytes);
    if (!dll || !pdb_bytes) {
        free(dll);
        free(pdb_bytes);
        return;
    }
    const char *dll_path = "beside-test.dll", *pdb_path = "beside-test.pdb";
    ilmap_pdb *p = NULL;
    ilmap_pdb_origin origin;
    ilmap_pdb_error e;
    remove(pdb_path);
    CHECK(ilmap_pdb_open_for_assembly(dll_path, dll, dll_size, &p, &origin, &e) ==
              ILMAP_E_NOT_FOUND && e.defect == ILMAP_PDB_DEFECT_NONE && p == NULL);
    /* malformed: its first 300 bytes */
    CHECK(spill(pdb_path, pdb_bytes, 300));
    CHECK(ilmap_pdb_open_for_assembly(dll_path, dll, dll_size, &p, &origin, &e) ==
              ILMAP_E_FORMAT && e.defect != ILMAP_PDB_DEFECT_NONE &&
          e.defect != ILMAP_PDB_DEFECT_ID_MISMATCH && p == NULL &&
          origin == ILMAP_PDB_ORIGIN_NONE);
    /* whole, but the assembly's CodeView GUID changed: another id */
    CHECK(spill(pdb_path, pdb_bytes, pdb_size));
    CHECK(ilmap_pdb_open_for_assembly(dll_path, dll, dll_size, &p, &origin, &e) == ILMAP_OK &&
          origin == ILMAP_PDB_ORIGIN_BESIDE);
    ilmap_pdb_free(p);
    uint8_t *rsds = NULL;
    for (size_t i = 0; i + 8 <= dll_size && !rsds; i++)
        if (memcmp(dll + i, "RSDS", 4) == 0)
            rsds = dll + i;
    CHECK(rsds != NULL);
    if (rsds) {
        rsds[4] ^= 0x5A;
        CHECK(ilmap_pdb_open_for_assembly(dll_path, dll, dll_size, &p, &origin, &e) ==
                  ILMAP_E_FORMAT && e.defect == ILMAP_PDB_DEFECT_ID_MISMATCH && e.offset == 0 &&
              p == NULL);
    }
    remove(pdb_path);
    free(dll);
    free(pdb_bytes);
}

/* The map-check rule (doc/source-lines.md#map-check): visible points
 * without an entry of their own. */
static void map_check(void)
{
    const ilmap_pdb_sequence_point sp[] = {
        { 0, 1, 5, 1, 5, 9 },
        { 3, 1, ILMAP_PDB_HIDDEN_LINE, 0, ILMAP_PDB_HIDDEN_LINE, 0 },
        { 6, 1, 6, 1, 6, 9 },
        { 9, 1, 7, 1, 7, 9 },
        { 12, 1, 8, 1, 8, 9 },
    };
    const ilmap_entry sorted[] = { { 0, 0, 1 }, { 6, 20, 1 }, { 7, 25, 1 }, { 12, 40, 1 } };
    const ilmap_entry unsorted[] = { { 12, 40, 1 }, { 0, 0, 1 }, { 9, 30, 1 } };
    size_t out[8], total = 99;
    CHECK(ilmap_pdb_check_map(sp, 5, sorted, 4, 8, &total, out) == ILMAP_OK);
    CHECK(total == 1 && out[0] == 3); /* IL 9; the hidden IL 3 needs none */
    CHECK(ilmap_pdb_check_map(sp, 5, unsorted, 3, 8, &total, out) == ILMAP_OK);
    CHECK(total == 1 && out[0] == 2);
    CHECK(ilmap_pdb_check_map(sp, 5, NULL, 0, 8, &total, out) == ILMAP_OK);
    CHECK(total == 4 && out[0] == 0 && out[1] == 2 && out[2] == 3 && out[3] == 4);
    CHECK(ilmap_pdb_check_map(sp, 5, NULL, 0, 2, &total, out) == ILMAP_E_TRUNCATED && total == 4);
    CHECK(ilmap_pdb_check_map(sp, 5, NULL, 0, 0, &total, NULL) == ILMAP_OK && total == 4);
    CHECK(ilmap_pdb_check_map(NULL, 0, sorted, 4, 0, &total, NULL) == ILMAP_OK && total == 0);
    CHECK(ilmap_pdb_check_map(NULL, 1, sorted, 4, 0, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_pdb_check_map(sp, 5, sorted, 4, 1, &total, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_pdb_check_map(sp, 5, sorted, 4, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
}

/* ilmap_pdb_lines answers what ilmap_pdb_find_source() answers, status,
 * point and defect, on random blobs: hidden points, document switches,
 * deltas of every width, values out of range, and one time in four a
 * truncated or overwritten byte. */
static void random_lines(uint64_t seed)
{
    prng rng = prng_init(seed);
    long rounds = test_iterations(3000), queries = 0, with_defect = 0;
    for (long round = 0; round < rounds; round++) {
        spec s;
        out heap;
        built b;
        base_spec(&s, &heap);
        uint32_t doc = prng_below(&rng, 8) == 0 ? 3 : prng_below(&rng, 3); /* 3: no such row */
        s.method_doc[0] = doc;
        out *o = &s.points[0];
        uint32_t offsets[256];
        size_t noff = 0;
        int npoints = (int)prng_below(&rng, 24), seen_visible = 0;
        uint32_t il = 0;
        cu(o, prng_below(&rng, 3)); /* LocalSignature */
        if (doc == 0)
            cu(o, 1 + prng_below(&rng, 2));
        for (int i = 0; i < npoints; i++) {
            if (i > 0 && prng_below(&rng, 8) == 0) {
                cu(o, 0);
                cu(o, 1 + prng_below(&rng, prng_below(&rng, 16) == 0 ? 4 : 2));
            }
            uint32_t w = prng_below(&rng, 16);
            uint32_t delta = (i == 0 ? 0 : 1) + prng_below(&rng, w == 0 ? 40000 : w < 3 ? 300 : 6);
            cu(o, delta);
            il += delta;
            offsets[noff++] = il ? il - 1 : 0;
            offsets[noff++] = il;
            offsets[noff++] = il + 1;
            if (prng_below(&rng, 4) == 0) { /* hidden */
                cu(o, 0);
                cu(o, 0);
                continue;
            }
            uint32_t dlines = prng_below(&rng, 4) == 0 ? prng_below(&rng, 20000) : prng_below(&rng, 3);
            cu(o, dlines);
            if (dlines == 0)
                cu(o, 1 + prng_below(&rng, 60));
            else
                cs(o, (int32_t)prng_below(&rng, 121) - 60);
            if (!seen_visible) {
                cu(o, prng_below(&rng, 8) == 0 ? prng_below(&rng, 1u << 29) : 50000 + prng_below(&rng, 500));
                cu(o, 20 + prng_below(&rng, 200));
                seen_visible = 1;
            } else {
                int big = prng_below(&rng, 8) == 0;
                cs(o, (int32_t)prng_below(&rng, big ? 40001 : 21) - (big ? 20000 : 10));
                cs(o, (int32_t)prng_below(&rng, 11) - 4);
            }
        }
        int corrupt = prng_below(&rng, 4) == 0 && o->n > 0;
        if (corrupt) {
            if (prng_below(&rng, 2))
                o->n = prng_below(&rng, (uint32_t)o->n);
            else
                o->d[prng_below(&rng, (uint32_t)o->n)] = (uint8_t)prng_u32(&rng);
        }
        for (int i = 0; i < 8; i++)
            offsets[noff++] = prng_below(&rng, il + 8);
        offsets[noff++] = 0xFFFFFFFFu;
        build(&s, &heap, &b);
        ilmap_pdb *p = open_built(&b);
        ilmap_pdb_lines *lines = NULL;
        CHECK(ilmap_pdb_lines_create(p, 0x06000001, &lines) == ILMAP_OK && lines);
        ilmap_pdb_free(p); /* the lines own their points */
        p = open_built(&b);
        int failed = 0;
        for (size_t q = 0; q < noff && lines; q++) {
            ilmap_pdb_sequence_point want, got;
            ilmap_pdb_error ew, eg;
            memset(&got, 0xAB, sizeof got);
            ilmap_status sw = ilmap_pdb_find_source(p, 0x06000001, offsets[q], &want, &ew);
            ilmap_status sg = ilmap_pdb_lines_find_source(lines, offsets[q], &got, &eg);
            with_defect += sw == ILMAP_E_FORMAT;
            queries++;
            int same = sw == sg && memcmp(&want, &got, sizeof want) == 0 &&
                       ew.defect == eg.defect && ew.offset == eg.offset;
            CHECK(same);
            if (!same && !failed++) {
                fprintf(stderr, "  round %ld, IL %u: find_source %d (%u %u:%u, defect %d at %zu), "
                        "lines %d (%u %u:%u, defect %d at %zu); Document column %u, blob:",
                        round, offsets[q], (int)sw, want.document, want.start_line,
                        want.start_column, (int)ew.defect, ew.offset, (int)sg, got.document,
                        got.start_line, got.start_column, (int)eg.defect, eg.offset, doc);
                for (size_t i = 0; i < o->n; i++)
                    fprintf(stderr, " %02x", o->d[i]);
                fprintf(stderr, "\n");
            }
        }
        ilmap_pdb_lines_free(lines);
        ilmap_pdb_free(p);
    }
    printf("random lines: %ld rounds, %ld queries (%ld meeting a defect)\n", rounds, queries,
           with_defect);
}

/* Lines: the argument checks, a method without points, a nil blob. */
static void lines_api(void)
{
    spec s;
    out heap;
    built b;
    base_spec(&s, &heap);
    s.nmethods = 2;
    s.method_doc[1] = 1; /* method 2: nil blob */
    cu(&s.points[0], 0);
    cu(&s.points[0], 3);
    cu(&s.points[0], 0); cu(&s.points[0], 2);
    cu(&s.points[0], 7); cu(&s.points[0], 1);
    build(&s, &heap, &b);
    ilmap_pdb *p = open_built(&b);
    ilmap_pdb_lines *l = (ilmap_pdb_lines *)&s;
    CHECK(ilmap_pdb_lines_create(NULL, 0x06000001, &l) == ILMAP_E_INVALID_ARG && !l);
    CHECK(ilmap_pdb_lines_create(p, 0x06000001, NULL) == ILMAP_E_INVALID_ARG);
    l = (ilmap_pdb_lines *)&s;
    CHECK(ilmap_pdb_lines_create(p, 0x02000001, &l) == ILMAP_E_INVALID_ARG && !l);
    ilmap_pdb_sequence_point sp;
    ilmap_pdb_error e;
    CHECK(ilmap_pdb_lines_find_source(NULL, 3, &sp, &e) == ILMAP_E_INVALID_ARG &&
          sp.start_line == 0 && e.defect == ILMAP_PDB_DEFECT_NONE && e.offset == ILMAP_NO_INDEX);
    CHECK(ilmap_pdb_lines_create(p, 0x06000001, &l) == ILMAP_OK && ilmap_pdb_lines_get_count(l) == 1);
    CHECK(ilmap_pdb_lines_find_source(l, 3, NULL, &e) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_pdb_lines_find_source(l, 2, &sp, NULL) == ILMAP_E_NOT_FOUND);
    CHECK(ilmap_pdb_lines_find_source(l, 3, &sp, NULL) == ILMAP_OK && sp.start_line == 7 &&
          sp.start_column == 1 && sp.end_column == 3 && sp.document == 1);
    ilmap_pdb_lines_free(l);
    for (uint32_t t = 0x06000002; t <= 0x06000003; t++) { /* nil blob, no row */
        CHECK(ilmap_pdb_lines_create(p, t, &l) == ILMAP_OK && ilmap_pdb_lines_get_count(l) == 0);
        CHECK(ilmap_pdb_lines_find_source(l, 0, &sp, &e) == ILMAP_E_NOT_FOUND);
        ilmap_pdb_lines_free(l);
    }
    ilmap_pdb_lines_free(NULL);
    CHECK(ilmap_pdb_lines_get_count(NULL) == 0);
    ilmap_pdb_free(p);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x5EC7109E5u);
    map_check();
    names_and_info();
    grammar_and_rule(0);
    initial_document();
    delta_widths();
    blob_defects();
    table_stream();
    truncations();
    pe_files();
    assemblies();
    assemblies_refused();
    lines_api();
    random_lines(seed);
    return test_finish("test-pdb-table");
}
