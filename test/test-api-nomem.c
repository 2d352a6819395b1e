/*
 * Every public function of the maps, the serialized form, the IL decoder,
 * edit builder and rewriter, the FunctionIDMapper and the Portable PDB
 * reader (open, ilmap_pdb_lines) that allocates, when memory runs out (issue
 * 14): each operation runs with the n-th allocation and every later one
 * failing, for n = 0, 1, 2, ... until it succeeds without meeting a
 * failure. Each failing run must return ILMAP_E_NOMEM with its outputs
 * defined as the header says (NULL objects, zeroed counts), or succeed
 * with exactly the answer of a run that never failed (a failure the
 * function can absorb); the run that succeeds must give that answer too.
 * Leaks and double frees on the failure paths show under ASan/LSan (this
 * test runs in the sanitizer build as well). The version store's writers
 * and the signature decoder have their own tests of this kind
 * (test-versions-nomem.c, sig/test-sig-nomem.c).
 *
 * The failing allocator is test/test-nomem.h's (the linker's --wrap over
 * the library's static copy, see test/meson.build).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ilmap-algebra.h"
#include "ilmap-il.h"
#include "ilmap-pdb.h"
#include "ilmap-serial.h"
#include "ilmap-versions.h"
#include "ilmap.h"
#include "prng.h"
#include "il-gen.h"
#include "test-nomem.h"
#include "test.h"

/* What an operation produced, reduced to bytes to compare runs. */
typedef struct digest {
    uint8_t *bytes;
    size_t size, cap;
} digest;

static void put(digest *d, const void *p, size_t n)
{
    /* The test's own memory: past the failing allocator (not counted). */
    if (d->size + n > d->cap) {
        size_t cap = (d->cap ? d->cap * 2 : 256) + n;
        uint8_t *b = __real_realloc(d->bytes, cap);
        if (!b)
            exit(TEST_EXIT_SETUP_FAILURE);
        d->bytes = b;
        d->cap = cap;
    }
    memcpy(d->bytes + d->size, p, n);
    d->size += n;
}

static void put_u32(digest *d, uint32_t v)
{
    put(d, &v, sizeof v);
}

/* An IL map: its entries, flags, and every answer over its range. */
static void put_map(digest *d, const ilmap *m)
{
    size_t n = ilmap_get_count(m), total = 0;
    ilmap_entry *e = __real_calloc(n ? n : 1, sizeof *e);
    if (!e)
        exit(TEST_EXIT_SETUP_FAILURE);
    CHECK(ilmap_export(m, n, &total, e) == ILMAP_OK && total == n);
    put(d, e, n * sizeof *e);
    put_u32(d, ilmap_get_flags(m));
    for (uint32_t x = 0; x < 600; x += 3) {
        put_u32(d, ilmap_old_to_new(m, x));
        put_u32(d, ilmap_new_to_old(m, x));
        put_u32(d, ilmap_new_to_old_dac(m, x));
    }
    free(e);
}

/* A native map: its exported entries and its answers. */
static void put_native(digest *d, const ilmap_native *m)
{
    size_t n = ilmap_native_get_count(m), total = 0;
    ilmap_native_entry *e = __real_calloc(n ? n : 1, sizeof *e);
    if (!e)
        exit(TEST_EXIT_SETUP_FAILURE);
    CHECK(ilmap_native_export(m, n, &total, e) == ILMAP_OK && total == n);
    put(d, e, n * sizeof *e);
    uint32_t size = ilmap_native_get_code_size(m);
    put_u32(d, size);
    for (uint32_t x = 0; x <= size + 4; x += 5) {
        uint32_t il = 0;
        put_u32(d, ilmap_native_to_il(m, x, &il));
        put_u32(d, il);
    }
    free(e);
}

/* ---- the inputs, made once with failures off ---- */

#define MAP_N 3000 /* past a single index node: the index allocates too */

static ilmap_entry strict_entries[MAP_N], lenient_entries[64];
static ilmap *map_a, *map_b, *map_lenient;
static ilmap_boundary bounds[MAP_N];
static ilmap_native_entry native_entries[MAP_N];
static uint32_t code_size; /* of the native map */
static uint8_t *il_bytes, *native_bytes;
static size_t il_size, native_size;
static uint8_t *body;
static size_t body_size;
static ilmap_il_insertion insertions[24];
static size_t ninsertions;
static gen_code code;

static void make_inputs(void)
{
    prng rng = prng_init(14);
    uint32_t old = 0, new = 0;
    for (size_t i = 0; i < MAP_N; i++) {
        strict_entries[i] = (ilmap_entry){ old, new, (int32_t)(prng_u32(&rng) & 1) };
        old += 1 + prng_u32(&rng) % 5;
        new += 1 + prng_u32(&rng) % 9;
    }
    for (size_t i = 0; i < 64; i++)
        lenient_entries[i] = (ilmap_entry){ prng_u32(&rng) % 400, prng_u32(&rng) % 500, 1 };
    if (ilmap_create(strict_entries, MAP_N, 0, &map_a) != ILMAP_OK ||
        ilmap_invert(map_a, 0, &map_b) != ILMAP_OK ||
        ilmap_create(lenient_entries, 64, ILMAP_LENIENT, &map_lenient) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);

    uint32_t native = 0;
    for (size_t i = 0; i < MAP_N; i++) {
        bounds[i] = (ilmap_boundary){ native, strict_entries[i].new_offset, 0 };
        if (i % 97 == 0)
            bounds[i].il_offset = i % 2 ? ILMAP_PROLOG : ILMAP_EPILOG;
        uint32_t len = 1 + prng_u32(&rng) % 16;
        native_entries[i] = (ilmap_native_entry){ strict_entries[i].new_offset, native,
                                                  native + len };
        native += len;
    }
    code_size = native;

    ilmap_native *nm = NULL;
    if (ilmap_serialize(map_a, 0, &il_size, NULL) != ILMAP_OK ||
        !(il_bytes = malloc(il_size)) ||
        ilmap_serialize(map_a, il_size, &il_size, il_bytes) != ILMAP_OK ||
        ilmap_native_from_entries(native_entries, MAP_N, native, &nm) != ILMAP_OK ||
        ilmap_native_serialize(nm, 0, &native_size, NULL) != ILMAP_OK ||
        !(native_bytes = malloc(native_size)) ||
        ilmap_native_serialize(nm, native_size, &native_size, native_bytes) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    ilmap_native_free(nm);

    /* A method body with exception clauses and insertions on its
     * instruction boundaries (test/il-gen.h). */
    static const uint8_t pad[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
    ilmap_il_clause clauses[4];
    uint32_t nclauses = 0;
    int eh_fat = 0;
    gen_code_make(&rng, 400, &code);
    body = gen_body(&rng, &code, 4, &body_size, clauses, &nclauses, &eh_fat);
    ninsertions = gen_insertions(&rng, &code, insertions, 24, pad, sizeof pad);
    if (!body)
        exit(TEST_EXIT_SETUP_FAILURE);
}

/* ---- the operations: each returns its status and fills a digest ---- */

static ilmap_status op_create_strict(digest *d)
{
    ilmap *m = (ilmap *)1;
    ilmap_status st = ilmap_create(strict_entries, MAP_N, 0, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_map(d, m);
    ilmap_free(m);
    return st;
}

static ilmap_status op_create_lenient(digest *d)
{
    ilmap *m = (ilmap *)1;
    ilmap_status st = ilmap_create(lenient_entries, 64, ILMAP_LENIENT, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_map(d, m);
    ilmap_free(m);
    return st;
}

static ilmap_status op_compose(digest *d)
{
    ilmap *m = (ilmap *)1;
    unsigned exact = 0xFF;
    ilmap_status st = ilmap_compose(map_a, map_b, 0, &m, &exact);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK) {
        put_map(d, m);
        put_u32(d, exact);
    }
    ilmap_free(m);
    return st;
}

static ilmap_status op_compose_lenient(digest *d)
{
    ilmap *m = (ilmap *)1;
    ilmap_status st = ilmap_compose(map_lenient, map_a, ILMAP_LENIENT, &m, NULL);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_map(d, m);
    ilmap_free(m);
    return st;
}

static ilmap_status op_invert(digest *d)
{
    ilmap *m = (ilmap *)1;
    ilmap_status st = ilmap_invert(map_a, 0, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_map(d, m);
    ilmap_free(m);
    return st;
}

static ilmap_status op_equivalent(digest *d)
{
    int equal = -1;
    ilmap_difference diff;
    memset(&diff, 0, sizeof diff);
    ilmap_status st = ilmap_equivalent(map_a, map_lenient, ILMAP_DIR_ALL, 0, &equal, &diff);
    if (st == ILMAP_OK) {
        put_u32(d, (uint32_t)equal);
        put(d, &diff, sizeof diff);
    }
    return st;
}

static ilmap_status op_native_build(digest *d, unsigned flags)
{
    ilmap_native *m = (ilmap_native *)1;
    ilmap_status st = ilmap_native_build(bounds, MAP_N, map_a, code_size, flags, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_native(d, m);
    ilmap_native_free(m);
    return st;
}

static ilmap_status op_native_build_inproc(digest *d)
{
    return op_native_build(d, 0);
}

static ilmap_status op_native_build_dac(digest *d)
{
    return op_native_build(d, ILMAP_DAC);
}

static ilmap_status op_native_from_entries(digest *d)
{
    ilmap_native *m = (ilmap_native *)1;
    ilmap_status st = ilmap_native_from_entries(native_entries, MAP_N, code_size, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_native(d, m);
    ilmap_native_free(m);
    return st;
}

static ilmap_status op_native_translate(digest *d)
{
    ilmap_native *m = (ilmap_native *)1;
    int lossless = -1;
    ilmap_status st = ilmap_native_translate(native_entries, MAP_N, code_size, map_a, 0, &m, &lossless);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK) {
        put_native(d, m);
        put_u32(d, (uint32_t)lossless);
    }
    ilmap_native_free(m);
    return st;
}

static ilmap_status op_deserialize(digest *d)
{
    ilmap *m = (ilmap *)1;
    ilmap_serial_error err;
    ilmap_status st = ilmap_deserialize(il_bytes, il_size, 0, &m, &err);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_map(d, m);
    ilmap_free(m);
    return st;
}

static ilmap_status op_native_deserialize(digest *d)
{
    ilmap_native *m = (ilmap_native *)1;
    ilmap_serial_error err;
    ilmap_status st = ilmap_native_deserialize(native_bytes, native_size, 0, &m, &err);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st == ILMAP_OK)
        put_native(d, m);
    ilmap_native_free(m);
    return st;
}

static ilmap_status op_view_open(digest *d)
{
    ilmap_view v;
    ilmap_serial_error err;
    ilmap_status st = ilmap_view_open(il_bytes, il_size, 0, &v, &err);
    if (st == ILMAP_OK)
        for (uint32_t x = 0; x < 600; x += 7)
            put_u32(d, ilmap_view_old_to_new(&v, x));
    return st;
}

static ilmap_status op_rewrite(digest *d)
{
    ilmap_rewrite *r = (ilmap_rewrite *)1;
    size_t bad = 0;
    ilmap_status st =
        ilmap_rewrite_create(body, body_size, insertions, ninsertions, 2, 0, &r, &bad);
    CHECK(st == ILMAP_OK || r == NULL);
    CHECK(st != ILMAP_E_NOMEM || bad == ILMAP_NO_INDEX);
    if (st == ILMAP_OK) {
        size_t size = 0, count = 0;
        const uint8_t *b = ilmap_rewrite_get_body(r, &size);
        const ilmap_entry *e = ilmap_rewrite_get_entries(r, &count);
        put(d, b, size);
        put(d, e, count * sizeof *e);
    }
    ilmap_rewrite_free(r);
    return st;
}

/* The mapper: create, then map a few hundred FunctionIDs. A map that
 * fails must leave the mapper as it was, readable and writable: the same
 * call is made again with failures off and every answer must then be the
 * one of a mapper that never failed (the digest holds them all). */
static ilmap_status op_fid_mapper(digest *d)
{
    ilmap_fid_mapper *m = (ilmap_fid_mapper *)1;
    ilmap_status st = ilmap_fid_mapper_create(512, NULL, NULL, &m);
    CHECK(st == ILMAP_OK || m == NULL);
    if (st != ILMAP_OK)
        return st;
    for (uintptr_t f = 1; st == ILMAP_OK && f <= 300; f++) {
        uintptr_t client = 1;
        int hook = -1;
        st = ilmap_fid_mapper_map(m, (ilmap_function_id)(f * 64), &client, &hook);
        if (st == ILMAP_E_NOMEM) {
            CHECK(client == 0);
            long saved = nomem_budget;
            nomem_budget = -1;
            st = ilmap_fid_mapper_map(m, (ilmap_function_id)(f * 64), &client, &hook);
            nomem_budget = saved;
        }
        if (st == ILMAP_OK) {
            put(d, &client, sizeof client);
            put_u32(d, (uint32_t)hook);
        }
    }
    ilmap_fid_mapper_free(m);
    return st;
}

static ilmap_status op_il_decode(digest *d)
{
    size_t total = 1, bad = 0;
    ilmap_il_instr *out = __real_calloc(code.n ? code.n : 1, sizeof *out);
    if (!out)
        exit(TEST_EXIT_SETUP_FAILURE);
    ilmap_status st = ilmap_il_decode(code.code, code.size, code.n, &total, out, &bad);
    CHECK(st == ILMAP_OK || total == 0);
    if (st == ILMAP_OK)
        put(d, out, total * sizeof *out);
    free(out);
    return st;
}

static ilmap_status op_il_starts(digest *d)
{
    size_t total = 1, bad = 0;
    uint32_t *out = __real_calloc(code.n ? code.n : 1, sizeof *out);
    if (!out)
        exit(TEST_EXIT_SETUP_FAILURE);
    ilmap_status st = ilmap_il_starts(code.code, code.size, code.n, &total, out, &bad);
    CHECK(st == ILMAP_OK || total == 0);
    if (st == ILMAP_OK)
        put(d, out, total * sizeof *out);
    free(out);
    return st;
}

static ilmap_status op_body_validate(digest *d)
{
    ilmap_il_body b;
    size_t bad = 0;
    if (ilmap_il_body_parse(body, body_size, &b) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    ilmap_status st = ilmap_il_body_validate(&b, &bad);
    put_u32(d, (uint32_t)st);
    return st;
}

static ilmap_status op_edits_build(digest *d)
{
    uint32_t starts[400];
    ilmap_edit edits[8];
    ilmap_entry entries[400];
    uint32_t new_offsets[400], new_size = 7;
    size_t n = code.n < 400 ? code.n : 400, bad = 0;
    for (size_t i = 0; i < n; i++)
        starts[i] = code.ins[i].offset;
    for (size_t i = 0; i < 8; i++) /* out of order on purpose: the builder sorts */
        edits[i] = (ilmap_edit){ i % 3 ? ILMAP_EDIT_INSERT : ILMAP_EDIT_REPLACE,
                                 starts[(n - 1 - i * 37 % n)], 1 + (uint32_t)i };
    ilmap_status st = ilmap_edits_build(starts, n, code.size, edits, 8, entries, new_offsets,
                                        &new_size, &bad);
    if (st == ILMAP_OK) {
        put(d, entries, n * sizeof *entries);
        put(d, new_offsets, n * sizeof *new_offsets);
        put_u32(d, new_size);
    } else {
        CHECK(new_size == 0 && (n == 0 || (entries[0].old_offset == 0 && new_offsets[0] == 0)));
    }
    return st;
}

static ilmap_status op_native_validate(digest *d)
{
    size_t bad = 1, other = 1;
    ilmap_status st = ilmap_native_validate(native_entries, MAP_N, code_size, &bad, &other);
    put_u32(d, (uint32_t)st);
    return st;
}

static ilmap_status op_serialize(digest *d)
{
    uint8_t *out = __real_malloc(il_size);
    size_t total = 0;
    if (!out)
        exit(TEST_EXIT_SETUP_FAILURE);
    ilmap_status st = ilmap_serialize(map_a, il_size, &total, out);
    if (st == ILMAP_OK)
        put(d, out, total);
    free(out);
    return st;
}

/* A real PDB: the fuzz corpus's tiny.pdb (read with the test's own
 * memory). */
static uint8_t *pdb_bytes;
static size_t pdb_size;

static void load_pdb(void)
{
    const char *root = getenv("ILMAP_SOURCE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/test/fuzz/corpus-pdb/tiny.pdb", root ? root : ".");
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(TEST_EXIT_SETUP_FAILURE);
    }
    long n = ftell(f);
    rewind(f);
    pdb_bytes = __real_malloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || !pdb_bytes || fread(pdb_bytes, 1, (size_t)n, f) != (size_t)n)
        exit(TEST_EXIT_SETUP_FAILURE);
    pdb_size = (size_t)n;
    fclose(f);
}

/* Opens the PDB and decodes every method's lines; the digest holds each
 * method's answers for IL offsets 0..79. */
static ilmap_status op_pdb_lines(digest *d)
{
    ilmap_pdb *pdb = (ilmap_pdb *)d; /* must be overwritten */
    ilmap_status st = ilmap_pdb_open(pdb_bytes, pdb_size, &pdb, NULL);
    if (st != ILMAP_OK) {
        if (pdb)
            return ILMAP_E_INVALID_ARG; /* output not defined */
        return st;
    }
    ilmap_pdb_info info;
    ilmap_pdb_get_info(pdb, &info);
    for (uint32_t row = 1; row <= info.method_count && st == ILMAP_OK; row++) {
        ilmap_pdb_lines *lines = (ilmap_pdb_lines *)d;
        st = ilmap_pdb_lines_create(pdb, 0x06000000u | row, &lines);
        if (st != ILMAP_OK) {
            if (lines)
                st = ILMAP_E_INVALID_ARG;
            break;
        }
        put_u32(d, (uint32_t)ilmap_pdb_lines_get_count(lines));
        for (uint32_t il = 0; il < 80; il++) {
            ilmap_pdb_sequence_point sp;
            put_u32(d, (uint32_t)ilmap_pdb_lines_find_source(lines, il, &sp, NULL));
            put(d, &sp, sizeof sp);
        }
        ilmap_pdb_lines_free(lines);
    }
    ilmap_pdb_free(pdb);
    return st;
}

typedef struct op {
    const char *name;
    ilmap_status (*run)(digest *d);
} op;

static const op ops[] = {
    { "ilmap_create (strict)", op_create_strict },
    { "ilmap_create (lenient)", op_create_lenient },
    { "ilmap_compose", op_compose },
    { "ilmap_compose (lenient)", op_compose_lenient },
    { "ilmap_invert", op_invert },
    { "ilmap_equivalent", op_equivalent },
    { "ilmap_native_build", op_native_build_inproc },
    { "ilmap_native_build (DAC)", op_native_build_dac },
    { "ilmap_native_from_entries", op_native_from_entries },
    { "ilmap_native_translate", op_native_translate },
    { "ilmap_deserialize", op_deserialize },
    { "ilmap_native_deserialize", op_native_deserialize },
    { "ilmap_view_open", op_view_open },
    { "ilmap_rewrite_create", op_rewrite },
    { "ilmap_fid_mapper_create + map", op_fid_mapper },
    { "ilmap_il_decode", op_il_decode },
    { "ilmap_il_starts", op_il_starts },
    { "ilmap_il_body_validate", op_body_validate },
    { "ilmap_edits_build", op_edits_build },
    { "ilmap_native_validate", op_native_validate },
    { "ilmap_serialize", op_serialize },
    { "ilmap_pdb_open + ilmap_pdb_lines_create", op_pdb_lines },
};

int main(void)
{
    make_inputs();
    load_pdb();
    long points = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        const op *o = &ops[i];
        digest want = { 0 }, got = { 0 };
        nomem_budget = -1;
        if (o->run(&want) != ILMAP_OK) {
            fprintf(stderr, "%s: fails without failing allocations: %s\n", o->name, ilmap_status_str(o->run(&want)));
            return TEST_EXIT_SETUP_FAILURE;
        }
        long n, absorbed = 0;
        for (n = 0;; n++) {
            got.size = 0;
            nomem_calls = 0;
            nomem_budget = n;
            ilmap_status st = o->run(&got);
            int failed = nomem_calls > n; /* an allocation was refused */
            nomem_budget = -1;
            test_checks++;
            if (st == ILMAP_OK) {
                if (got.size != want.size || memcmp(got.bytes, want.bytes, want.size) != 0) {
                    test_failures++;
                    fprintf(stderr, "%s: allocation %ld failing: succeeded with another answer\n",
                            o->name, n + 1);
                }
                if (!failed)
                    break;
                absorbed++;
            } else if (st != ILMAP_E_NOMEM) {
                test_failures++;
                fprintf(stderr, "%s: allocation %ld failing: %s, want ILMAP_E_NOMEM\n", o->name,
                        n + 1, ilmap_status_str(st));
            } else if (!failed) {
                test_failures++;
                fprintf(stderr, "%s: ILMAP_E_NOMEM with no allocation refused\n", o->name);
            }
            if (n > 100000) {
                test_failures++;
                fprintf(stderr, "%s: still allocating after %ld failures\n", o->name, n);
                break;
            }
        }
        printf("%-32s %4ld failure points, %ld absorbed\n", o->name, n, absorbed);
        points += n;
        free(want.bytes);
        free(got.bytes);
    }
    printf("%ld failure points\n", points);
    ilmap_free(map_a);
    ilmap_free(map_b);
    ilmap_free(map_lenient);
    free(il_bytes);
    free(native_bytes);
    free(body);
    free(pdb_bytes);
    gen_code_free(&code);
    return test_finish("api-nomem");
}
