/*
 * The version store when memory runs out: every writer, removals first,
 * with the n-th allocation and every later one failing, for n = 0, 1, 2,
 * (ilmap_store_attach_pdb() too: attach, replace, detach, and the PDB
 * going with its module),
 * ... until the call succeeds. Each ILMAP_E_NOMEM must leave the store
 * exactly as it was (ilmap-versions.h: "on failure nothing changed"),
 * checked through the public queries, and the call must then succeed
 * with the same answer as on a store that never failed. Leaks and double
 * frees on the failure paths show under ASan.
 *
 * The failing allocator is test/test-nomem.h's: this executable links the
 * library's static copy with the linker's --wrap for malloc, calloc and
 * realloc (test/meson.build), so the library's calls come here. The
 * library has no allocation hook of its own.
 */
#include <stddef.h>
#include <string.h>

#include "ilmap-versions.h"
#include "test-nomem.h"
#include "test.h"

#include "pdb/pdb-writer.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MOD(i) ((ilmap_module_id)TEST_ID_BASE(0x7F0000001000ull, 0x71000000u) + ((i) << 12))
#define FID(m, f) ((ilmap_function_id)TEST_ID_BASE(0x7F0000A00000ull, 0x72000000u) + \
                   ((uintptr_t)(m) << 16) + ((uintptr_t)(f) << 4))
#define MD(f) (0x06000001u + (uint32_t)(f) / 2)
#define CODE(m, f, b) ((uintptr_t)0x10000000u + ((uintptr_t)(m) << 20) + ((uintptr_t)(f) << 8) + \
                       ((uintptr_t)(b) << 6))
#define MODULES 3
#define FUNCS 90 /* per module: more than a table leaf holds (64 records) */

/* The maps handed to the store are made with failures off. */
static ilmap *shift_map(uint32_t k)
{
    ilmap_entry e[8];
    ilmap *m = NULL;
    long saved = nomem_budget;

    for (uint32_t o = 0; o < 8; o++) {
        e[o].old_offset = o;
        e[o].new_offset = o ? o + k : 0;
        e[o].accurate = 1;
    }
    nomem_budget = -1;
    if (ilmap_create(e, COUNT(e), 0, &m) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    nomem_budget = saved;
    return m;
}

static ilmap_native *flat_native(uint32_t il, uint32_t size)
{
    const ilmap_native_entry e[] = { { il, 0, size } };
    ilmap_native *n = NULL;
    long saved = nomem_budget;

    nomem_budget = -1;
    if (ilmap_native_from_entries(e, 1, size, &n) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    nomem_budget = saved;
    return n;
}

/* PDB number k: methods 1..PDBW_METHODS, each one point at IL 0, line
 * 100 * k + its row. Its bytes are freed by the release, which counts. */
static long released;

static void release_bytes(void *bytes)
{
    free(bytes);
    released++;
}

static ilmap_status attach_pdb(ilmap_store *s, ilmap_module_id module, uint32_t k)
{
    static spec sp;
    static out heap;
    static built b;
    ilmap_pdb *pdb = NULL;
    long saved = nomem_budget;

    nomem_budget = -1; /* made with failures off */
    base_spec(&sp, &heap);
    sp.nmethods = PDBW_METHODS;
    for (int i = 0; i < PDBW_METHODS; i++) {
        const pdbw_point pt = { 0, 100 * k + (uint32_t)i + 1, 1, 0 };
        sp.method_doc[i] = 1;
        pdbw_points(&sp.points[i], &pt, 1);
    }
    build(&sp, &heap, &b);
    void *bytes = malloc(b.o.n);
    if (!bytes || (memcpy(bytes, b.o.d, b.o.n), ilmap_pdb_open(bytes, b.o.n, &pdb, NULL)) !=
                      ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    nomem_budget = saved;
    ilmap_status st = ilmap_store_attach_pdb(s, module, pdb, release_bytes, bytes);
    if (st != ILMAP_OK) { /* still ours */
        ilmap_pdb_free(pdb);
        free(bytes);
    }
    return st;
}

static void want(ilmap_status got, ilmap_status expected, const char *what, int line)
{
    test_checks++;
    if (got != expected) {
        test_failures++;
        fprintf(stderr, "line %d: %s = %s, want %s\n", line, what, ilmap_status_str(got),
                ilmap_status_str(expected));
    }
}
#define WANT(expr, st) want((expr), (st), #expr, __LINE__)

/* Modules 1..MODULES: every method of the even functions has an IL map;
 * function f has versions 2 (current when f % 3 == 0) and 3 (no map) when
 * f % 2 == 0; bodies: one of version 0 (hot + cold when f % 4 == 0), one
 * of version 2 where it exists; the method maps of functions f % 5 == 0
 * are replaced after their first body, so only that body holds the old
 * one. */
static void populate(ilmap_store *s)
{
    for (uintptr_t m = 1; m <= MODULES; m++) {
        for (uintptr_t f = 0; f < FUNCS; f++) {
            ilmap_function_id fid = FID(m, f);
            WANT(ilmap_store_add_function(s, fid, MOD(m), MD(f)), ILMAP_OK);
            if (f % 2 == 0 && f % 10 != 4)
                WANT(ilmap_store_set_il_map(s, MOD(m), MD(f), shift_map(1 + (uint32_t)f % 7)),
                     ILMAP_OK);
            const ilmap_code_range code[] = { { CODE(m, f, 0), 16 }, { CODE(m, f, 1), 8 } };
            size_t n = f % 4 == 0 ? 2 : 1;
            WANT(ilmap_store_add_body(s, fid, 0, code, n, flat_native(3, (uint32_t)(16 + 8 * (n - 1))),
                                      0),
                 ILMAP_OK);
            if (f % 5 == 0)
                WANT(ilmap_store_set_il_map(s, MOD(m), MD(f), shift_map(2)), ILMAP_OK);
            if (f % 2 == 0) {
                WANT(ilmap_store_add_version(s, fid, 2, shift_map(4),
                                             f % 3 == 0 ? ILMAP_VERSION_CURRENT : 0),
                     ILMAP_OK);
                WANT(ilmap_store_add_version(s, fid, 3, NULL, 0), ILMAP_OK);
                const ilmap_code_range rejit[] = { { CODE(m, f, 2), 16 } };
                WANT(ilmap_store_add_body(s, fid, 2, rejit, 1, flat_native(5, 16), 0), ILMAP_OK);
            }
        }
    }
    /* Modules 1 and 2 have PDBs. */
    WANT(attach_pdb(s, MOD(1), 1), ILMAP_OK);
    WANT(attach_pdb(s, MOD(2), 2), ILMAP_OK);
}

/* ---- The store's state, as the public queries answer it -------------- */

typedef struct state {
    uint64_t *w;
    size_t n, cap;
    int pointers; /* maps by address (one store), else by content (across stores) */
} state;

static void put_word(state *st, uint64_t x)
{
    if (st->n == st->cap) {
        st->cap = st->cap ? 2 * st->cap : 1024;
        st->w = __real_realloc(st->w, st->cap * sizeof *st->w);
        if (!st->w)
            exit(TEST_EXIT_SETUP_FAILURE);
    }
    st->w[st->n++] = x;
}

static void put_map(state *st, const ilmap *map)
{
    put_word(st, st->pointers ? (uint64_t)(uintptr_t)map : map ? ilmap_old_to_new(map, 1) : 0);
}

/* A map's entries as a read gives them back (every store keeps them). */
static void put_entries(state *st, ilmap_status read, size_t total, const ilmap_entry *e,
                        size_t cap)
{
    put_word(st, (uint64_t)read);
    put_word(st, total);
    for (size_t i = 0; i < total && i < cap; i++) {
        put_word(st, e[i].old_offset);
        put_word(st, e[i].new_offset);
        put_word(st, (uint32_t)e[i].accurate);
    }
}

static void put_location(state *st, const ilmap_store_snapshot *v, uintptr_t address)
{
    ilmap_store_location loc;
    put_word(st, (uint64_t)ilmap_store_snapshot_lookup(v, address, &loc));
    put_word(st, loc.function_id);
    put_word(st, loc.rejit_id);
    put_word(st, loc.module_id);
    put_word(st, loc.method_def);
    put_word(st, loc.code_start);
    put_word(st, loc.range_index);
    put_word(st, loc.native_offset);
    put_word(st, loc.mapping);
    put_word(st, loc.il_offset);
    put_word(st, loc.original_il_offset);

    /* And its source: the PDB by address (one store) or by its lines. */
    ilmap_store_source src;
    put_word(st, (uint64_t)ilmap_store_snapshot_lookup_source(v, address, 0, &loc, &src));
    put_word(st, st->pointers ? (uint64_t)(uintptr_t)src.pdb : src.pdb != NULL);
    put_word(st, src.point.start_line);
}

static void capture(ilmap_store *s, ilmap_store_reader *r, state *st)
{
    const ilmap_store_snapshot *v;
    ilmap_store_stats stats;

    st->n = 0;
    WANT(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    put_word(st, stats.generation);
    put_word(st, stats.functions);
    put_word(st, stats.versions);
    put_word(st, stats.bodies);
    put_word(st, stats.il_maps);
    put_word(st, stats.pdbs);
    WANT(ilmap_store_reader_begin(r, &v), ILMAP_OK);
    for (uintptr_t m = 1; m <= MODULES + 1; m++) {
        for (uintptr_t f = 0; f < FUNCS; f++) {
            ilmap_function_id fid = FID(m, f);
            ilmap_store_function_info info;
            const ilmap *map;
            ilmap_rejit_id ids[8];
            size_t total = 0;

            ilmap_entry e[64];
            size_t ne = 0;
            put_word(st, (uint64_t)ilmap_store_snapshot_get_method_map(v, MOD(m), MD(f), &map));
            put_map(st, map);
            ilmap_status est = ilmap_store_snapshot_get_method_entries(v, MOD(m), MD(f),
                                                                       COUNT(e), &ne, e);
            put_entries(st, est, ne, e, COUNT(e));
            put_word(st, (uint64_t)ilmap_store_snapshot_get_function(v, fid, &info));
            put_word(st, info.module_id);
            put_word(st, info.method_def);
            put_word(st, info.current_rejit_id);
            put_word(st, (uint64_t)ilmap_store_snapshot_list_versions(v, fid, COUNT(ids), &total, ids));
            put_word(st, total);
            for (size_t i = 0; i < total && i < COUNT(ids); i++) {
                uintptr_t starts[8];
                size_t nb = 0;
                put_word(st, ids[i]);
                put_word(st, (uint64_t)ilmap_store_snapshot_get_il_map(v, fid, ids[i], &map));
                put_map(st, map);
                est = ilmap_store_snapshot_get_il_entries(v, fid, ids[i], COUNT(e), &ne, e);
                put_entries(st, est, ne, e, COUNT(e));
                put_word(st, (uint64_t)ilmap_store_snapshot_list_bodies(v, fid, ids[i], COUNT(starts),
                                                                   &nb, starts));
                for (size_t b = 0; b < nb && b < COUNT(starts); b++)
                    put_word(st, starts[b]);
            }
            for (uintptr_t b = 0; b < 3; b++)
                put_location(st, v, CODE(m, f, b) + 3);
        }
    }
    WANT(ilmap_store_reader_end(r), ILMAP_OK);
}

static int same(const state *a, const state *b)
{
    return a->n == b->n && memcmp(a->w, b->w, a->n * sizeof *a->w) == 0;
}

/* ---- The operations ---------------------------------------------------- */

typedef struct op {
    const char *name;
    ilmap_status (*run)(ilmap_store *s, ilmap_store_removed *removed);
    int publishes; /* does it change the store (so must allocate)? */
} op;

static ilmap_status op_remove_module(ilmap_store *s, ilmap_store_removed *rm)
{
    return ilmap_store_remove_module(s, MOD(2), rm);
}

static ilmap_status op_remove_unknown_module(ilmap_store *s, ilmap_store_removed *rm)
{
    return ilmap_store_remove_module(s, MOD(MODULES + 1), rm);
}

static ilmap_status op_remove_current_version(ilmap_store *s, ilmap_store_removed *rm)
{
    return ilmap_store_remove_version(s, FID(1, 6), 2, rm);
}

static ilmap_status op_remove_version(ilmap_store *s, ilmap_store_removed *rm)
{
    return ilmap_store_remove_version(s, FID(3, 4), 2, rm);
}

static ilmap_status op_remove_body(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return ilmap_store_remove_body(s, CODE(1, 8, 0));
}

static ilmap_status op_set_il_map(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    /* Replaces a map that a body still holds, or the caller keeps it. */
    ilmap *m = shift_map(6);
    ilmap_status st = ilmap_store_set_il_map(s, MOD(1), MD(10), m);
    if (st != ILMAP_OK)
        ilmap_free(m);
    return st;
}

static ilmap_status op_add_body(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    const ilmap_code_range code[] = { { CODE(1, 0, 3), 16 } };
    ilmap_native *n = flat_native(1, 16);
    ilmap_status st = ilmap_store_add_body(s, FID(1, 0), 2, code, 1, n, 0);
    if (st != ILMAP_OK)
        ilmap_native_free(n);
    return st;
}

static ilmap_status op_add_version(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    ilmap *m = shift_map(3);
    ilmap_status st = ilmap_store_add_version(s, FID(2, 1), 7, m, ILMAP_VERSION_CURRENT);
    if (st != ILMAP_OK)
        ilmap_free(m);
    return st;
}

static ilmap_status op_revert(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return ilmap_store_revert(s, MOD(3), MD(0), NULL);
}

static ilmap_status op_add_function(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return ilmap_store_add_function(s, FID(2, FUNCS + 1), MOD(2), MD(FUNCS + 1));
}

static ilmap_status op_set_il_map_for_function(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    ilmap *m = shift_map(5);
    ilmap_status st = ilmap_store_set_il_map_for_function(s, FID(3, 12), m);
    if (st != ILMAP_OK)
        ilmap_free(m);
    return st;
}

static ilmap_status op_set_current(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return ilmap_store_set_current(s, FID(1, 8), 3); /* version 2 was not current */
}

static ilmap_status op_attach_pdb(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return attach_pdb(s, MOD(3), 3);
}

static ilmap_status op_replace_pdb(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return attach_pdb(s, MOD(1), 4);
}

static ilmap_status op_detach_pdb(ilmap_store *s, ilmap_store_removed *rm)
{
    memset(rm, 0, sizeof *rm); /* not a removal: nothing to count */
    return ilmap_store_attach_pdb(s, MOD(2), NULL, NULL, NULL);
}

static const op ops[] = {
    { "add_function", op_add_function, 1 },
    { "set_il_map_for_function", op_set_il_map_for_function, 1 },
    { "set_current", op_set_current, 1 },
    { "remove_module", op_remove_module, 1 },
    { "remove_module (unknown)", op_remove_unknown_module, 0 },
    { "remove_version (current)", op_remove_current_version, 1 },
    { "remove_version", op_remove_version, 1 },
    { "remove_body", op_remove_body, 1 },
    { "set_il_map", op_set_il_map, 1 },
    { "add_body", op_add_body, 1 },
    { "add_version", op_add_version, 1 },
    { "revert", op_revert, 1 },
    { "attach_pdb", op_attach_pdb, 1 },
    { "attach_pdb (replace)", op_replace_pdb, 1 },
    { "attach_pdb (detach)", op_detach_pdb, 1 },
};

static void run_op(const op *o, unsigned flags, state *before, state *after, state *want_after)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    ilmap_store_removed want_removed, got;
    long failed = 0;

    /* The answer without failures. */
    if (ilmap_store_create(4, flags, &s) != ILMAP_OK ||
        ilmap_store_reader_register(s, &r) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    populate(s);
    memset(&want_removed, 0, sizeof want_removed);
    WANT(o->run(s, &want_removed), ILMAP_OK);
    capture(s, r, want_after);
    ilmap_store_free(s);

    for (long n = 0;; n++) {
        if (ilmap_store_create(4, flags, &s) != ILMAP_OK ||
            ilmap_store_reader_register(s, &r) != ILMAP_OK)
            exit(TEST_EXIT_SETUP_FAILURE);
        populate(s);
        capture(s, r, before);
        /* A read held across the call: a failed change retires nothing. */
        const ilmap_store_snapshot *held;
        WANT(ilmap_store_reader_begin(r, &held), ILMAP_OK);

        memset(&got, 0xA5, sizeof got);
        nomem_calls = 0;
        nomem_budget = n;
        ilmap_status st = o->run(s, &got);
        nomem_budget = -1;
        WANT(ilmap_store_reader_end(r), ILMAP_OK);

        if (st == ILMAP_E_NOMEM) {
            failed++;
            capture(s, r, after);
            CHECK(same(before, after));
            CHECK(got.il_maps == 0 && got.functions == 0 && got.versions == 0 && got.bodies == 0);
            size_t pending = 1;
            WANT(ilmap_store_reclaim(s, &pending), ILMAP_OK);
            CHECK(pending == 0);
            /* The store works on: the same call now succeeds as it would have
             * (the failed one published nothing: same generation too). */
            WANT(o->run(s, &got), ILMAP_OK);
            CHECK(memcmp(&got, &want_removed, sizeof got) == 0);
            after->pointers = 0;
            capture(s, r, after);
            after->pointers = 1;
            CHECK(same(after, want_after));
            ilmap_store_free(s);
            if (n > 100000) {
                CHECK(!"never succeeds");
                break;
            }
            continue;
        }
        WANT(st, ILMAP_OK);
        CHECK(memcmp(&got, &want_removed, sizeof got) == 0);
        after->pointers = 0;
        capture(s, r, after);
        after->pointers = 1;
        CHECK(same(after, want_after));
        ilmap_store_free(s);
        break;
    }
    /* A change that publishes allocates at least its snapshot. */
    CHECK(!o->publishes || failed > 0);
    printf("%s (store flags %#x): %ld allocation failures survived\n", o->name, flags, failed);
}

int main(int argc, char **argv)
{
    state before = { NULL, 0, 0, 1 }, after = { NULL, 0, 0, 1 }, want_after = { NULL, 0, 0, 0 };

    (void)argc;
    (void)argv;
    /* Every change in a default store and in compact ones (which pack the
     * native map when a body is added, the IL maps when they are handed
     * over and rebuild them to compose a body). */
    static const unsigned flag_sets[3] = { 0, ILMAP_STORE_COMPACT_NATIVE,
                                           ILMAP_STORE_COMPACT_NATIVE | ILMAP_STORE_COMPACT_IL };
    for (size_t f = 0; f < COUNT(flag_sets); f++)
        for (size_t i = 0; i < COUNT(ops); i++) {
            int failures = test_failures;
            run_op(&ops[i], flag_sets[f], &before, &after, &want_after);
            if (test_failures != failures)
                fprintf(stderr, "  in %s (store flags %#x)\n", ops[i].name, flag_sets[f]);
        }
    free(before.w);
    free(after.w);
    free(want_after.w);
    return test_finish("versions-nomem");
}
