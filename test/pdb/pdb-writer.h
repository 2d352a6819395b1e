/*
 * A Portable PDB writer for tests and benchmarks: builds a tiny PDB in
 * memory (metadata root, streams, #~ with the Document and
 * MethodDebugInformation tables, #Blob), from a spec of documents and
 * per-method sequence-point blobs written with the compressed-integer
 * helpers (cu, cs) or, for plain cases, pdbw_points(). Header-only, no
 * bounds checks: for the small PDBs of tests (each part under 8 KiB).
 * Shared by test/pdb/test-pdb-table.c, the version store's source tests
 * and bench/bench-versions.c.
 */
#ifndef ILMAP_TEST_PDB_WRITER_H
#define ILMAP_TEST_PDB_WRITER_H

#include <stdint.h>
#include <string.h>

#define PDBW_METHODS 8 /* methods a spec may have: tokens 0x06000001.. */

typedef struct out {
    uint8_t d[8192];
    size_t n;
} out;

static inline void put(out *o, const void *p, size_t n)
{
    memcpy(o->d + o->n, p, n);
    o->n += n;
}
static inline void put8(out *o, unsigned v) { o->d[o->n++] = (uint8_t)v; }
static inline void put16(out *o, unsigned v) { put8(o, v & 0xFF); put8(o, v >> 8 & 0xFF); }
static inline void put32(out *o, uint32_t v) { put16(o, v & 0xFFFF); put16(o, v >> 16); }
static inline void align4(out *o) { while (o->n % 4) put8(o, 0); }
static inline void put_index(out *o, uint32_t v, int wide) { wide ? put32(o, v) : put16(o, v); }

/* A compressed integer's payload in 1, 2 or 4 bytes (ECMA-335 II.23.2). */
static inline void put_width(out *o, uint32_t raw, unsigned bytes)
{
    if (bytes == 1) {
        put8(o, raw);
    } else if (bytes == 2) {
        put8(o, 0x80 | raw >> 8);
        put8(o, raw & 0xFF);
    } else {
        put8(o, 0xC0 | raw >> 24);
        put8(o, raw >> 16 & 0xFF);
        put8(o, raw >> 8 & 0xFF);
        put8(o, raw & 0xFF);
    }
}

/* Unsigned: the shortest width. */
static inline void cu(out *o, uint32_t v)
{
    put_width(o, v, v < 0x80 ? 1 : v < 0x4000 ? 2 : 4);
}

/* Signed: the two's complement in 7, 14 or 29 bits, rotated left by one
 * so the sign lands in bit 0, written in that width whatever its value. */
static inline void cs(out *o, int32_t v)
{
    unsigned bits = v >= -0x40 && v <= 0x3F ? 7 : v >= -0x2000 && v <= 0x1FFF ? 14 : 29;
    uint32_t mask = (1u << bits) - 1, t = (uint32_t)v & mask;
    put_width(o, ((t << 1) | (t >> (bits - 1))) & mask, bits == 7 ? 1 : bits == 14 ? 2 : 4);
}

typedef struct spec {
    unsigned heaps;             /* the #~ HeapSizes byte */
    int ndocs;
    out doc_names[4];           /* name blobs' contents */
    int nmethods;
    uint32_t method_doc[PDBW_METHODS]; /* MethodDebugInformation.Document */
    out points[PDBW_METHODS];          /* sequence-point blobs' contents (n 0: nil) */
    int type_system_table;      /* set a type-system table bit in #~ */
} spec;

typedef struct built {
    out o;
    size_t tables_at;           /* the #~ stream's offset */
    size_t blob_at;             /* the #Blob heap's offset */
    uint32_t point_blob[PDBW_METHODS]; /* each method's blob index */
} built;

static inline uint32_t add_blob(out *heap, const uint8_t *p, size_t n)
{
    uint32_t at = (uint32_t)heap->n;
    cu(heap, (uint32_t)n);
    put(heap, p, n);
    return at;
}

/* A name blob: separator and parts (each added to the heap). */
static inline void name_blob(out *name, out *heap, char sep, const char *const *parts, int n)
{
    name->n = 0;
    put8(name, (unsigned char)sep);
    for (int i = 0; i < n; i++)
        cu(name, parts[i][0] ? add_blob(heap, (const uint8_t *)parts[i], strlen(parts[i])) : 0);
}

static inline void build(const spec *s, out *heap, built *b)
{
    int wide_blob = s->heaps & 4, wide_guid = s->heaps & 2;
    uint32_t doc_name[4];
    for (int i = 0; i < s->ndocs; i++)
        doc_name[i] = add_blob(heap, s->doc_names[i].d, s->doc_names[i].n);
    for (int i = 0; i < s->nmethods; i++)
        b->point_blob[i] = s->points[i].n ? add_blob(heap, s->points[i].d, s->points[i].n) : 0;
    align4(heap);

    out pdb = { { 0 }, 0 }, tables = { { 0 }, 0 };
    for (int i = 0; i < 20; i++)
        put8(&pdb, 0xA0 + i);
    put32(&pdb, 0x06000001);
    put32(&pdb, 1u << 6); /* MethodDef rows referenced */
    put32(&pdb, 0);
    put32(&pdb, (uint32_t)s->nmethods);

    put32(&tables, 0);
    put8(&tables, 2);
    put8(&tables, 0);
    put8(&tables, s->heaps);
    put8(&tables, 1);
    uint64_t valid = (1ull << 0x30) | (1ull << 0x31) | (s->type_system_table ? 1ull << 6 : 0);
    put32(&tables, (uint32_t)valid);
    put32(&tables, (uint32_t)(valid >> 32));
    put32(&tables, 0);
    put32(&tables, 0);
    if (s->type_system_table)
        put32(&tables, 1);
    put32(&tables, (uint32_t)s->ndocs);
    put32(&tables, (uint32_t)s->nmethods);
    if (s->heaps & 0x40)
        put32(&tables, 0xDEADBEEF);
    for (int i = 0; i < s->ndocs; i++) {
        put_index(&tables, doc_name[i], wide_blob);
        put_index(&tables, 1, wide_guid);
        put_index(&tables, 0, wide_blob);
        put_index(&tables, 1, wide_guid);
    }
    for (int i = 0; i < s->nmethods; i++) {
        put16(&tables, s->method_doc[i]);
        put_index(&tables, b->point_blob[i], wide_blob);
    }
    align4(&tables);

    static const char *const names[] = { "#Pdb", "#~", "#Strings", "#US", "#GUID", "#Blob" };
    uint8_t strings[4] = { 0 }, us[4] = { 0 }, guid[16] = { 1 };
    const out *bodies[6];
    out s_strings = { { 0 }, 0 }, s_us = { { 0 }, 0 }, s_guid = { { 0 }, 0 };
    put(&s_strings, strings, 4);
    put(&s_us, us, 4);
    put(&s_guid, guid, 16);
    bodies[0] = &pdb; bodies[1] = &tables; bodies[2] = &s_strings; bodies[3] = &s_us;
    bodies[4] = &s_guid; bodies[5] = heap;

    out *o = &b->o;
    o->n = 0;
    put32(o, 0x424A5342);
    put16(o, 1);
    put16(o, 1);
    put32(o, 0);
    put32(o, 12);
    put(o, "PDB v1.0\0\0\0\0", 12);
    put16(o, 0);
    put16(o, 6);
    size_t header_size = 0;
    for (int i = 0; i < 6; i++)
        header_size += 8 + ((strlen(names[i]) + 4) & ~(size_t)3);
    size_t at = o->n + header_size;
    for (int i = 0; i < 6; i++) {
        put32(o, (uint32_t)at);
        put32(o, (uint32_t)bodies[i]->n);
        put(o, names[i], strlen(names[i]) + 1);
        align4(o);
        if (i == 1)
            b->tables_at = at;
        if (i == 5)
            b->blob_at = at;
        at += bodies[i]->n;
    }
    for (int i = 0; i < 6; i++)
        put(o, bodies[i]->d, bodies[i]->n);
}

/* The spec every test starts from: two documents, one method. */
static inline void base_spec(spec *s, out *heap)
{
    memset(s, 0, sizeof *s);
    heap->n = 0;
    put8(heap, 0); /* the empty blob */
    static const char *const a[] = { "", "src", "a.cs" };
    static const char *const bn[] = { "C:", "b.fs" };
    name_blob(&s->doc_names[0], heap, '/', a, 3);
    name_blob(&s->doc_names[1], heap, '\\', bn, 2);
    s->ndocs = 2;
    s->nmethods = 1;
    s->method_doc[0] = 1;
}

/* One point for pdbw_points(): visible ones span one column of one line. */
typedef struct pdbw_point {
    uint32_t il;
    uint32_t line, column; /* line under 0x10000000, not 0xFEEFEE; column under 0xFFFF */
    int hidden;
} pdbw_point;

/* A method's blob with these points (IL offsets strictly increasing) in
 * the method's Document column's document: LocalSignature 0, then each
 * point (the first visible one absolute, the next ones as deltas). */
static inline void pdbw_points(out *o, const pdbw_point *p, size_t n)
{
    uint32_t il = 0, line = 0, column = 0;
    int seen = 0;

    o->n = 0;
    cu(o, 0);
    for (size_t i = 0; i < n; i++) {
        cu(o, p[i].il - il);
        il = p[i].il;
        if (p[i].hidden) {
            cu(o, 0);
            cu(o, 0);
            continue;
        }
        cu(o, 0); /* one line, */
        cu(o, 1); /* one column */
        if (!seen) {
            cu(o, p[i].line);
            cu(o, p[i].column);
        } else {
            cs(o, (int32_t)(p[i].line - line));
            cs(o, (int32_t)(p[i].column - column));
        }
        seen = 1;
        line = p[i].line;
        column = p[i].column;
    }
}

#endif
