/*
 * The version store and the FunctionIDMapper, one operation at a time:
 * every writer and query with good and bad arguments, the runtime's rules
 * they follow (doc/il-maps.md#set-map: last call wins, empty map clears,
 * shared by instances; doc/rejit.md#store-maps: ReJITID 0 uses the
 * method's map, versions carry their own, revert per method keeps old
 * versions readable; doc/function-ids.md#libilmap-mapper: idempotent
 * mapper, never 0 when hooking), ownership of the maps handed over (run
 * under ASan, a leak or double free fails), nested reads and when
 * reclamation frees. Then a seeded random test of address lookups against
 * a model (doc/rejit.md#store-lookup): the body whose ranges hold the
 * address (a scan of every range), the native offset across the ranges
 * laid end to end, ilmap_native_to_il() on the body's native map, and
 * ilmap_new_to_old() through the IL map its version had when it was
 * attached, unless ILMAP_BODY_ORIGINAL_IL.
 */
#include <stdlib.h>
#include <string.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
#define HAVE_MALLINFO2 1
#endif

#include "ilmap-versions.h"
#include "prng.h"
#include "store-shapes.h"
#include "test.h"

#define MOD1 ((ilmap_module_id)0x7F0000001000u)
#define MOD2 ((ilmap_module_id)0x7F0000002000u)
#define MD1 0x06000001u
#define MD2 0x06000002u
#define FID1 ((ilmap_function_id)0x7F0000A00010u)
#define FID2 ((ilmap_function_id)0x7F0000A00020u)
#define FID3 ((ilmap_function_id)0x7F0000A00030u)
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static ilmap *il_map(const ilmap_entry *entries, size_t count)
{
    ilmap *m = NULL;
    CHECK_ST(ilmap_create(entries, count, 0, &m), ILMAP_OK);
    return m;
}

/* The map of doc/il-maps.md#more-examples and
 * doc/native-maps.md#worked-example: (0->0), (6->36), (8->50). */
static ilmap *spec_map(void)
{
    static const ilmap_entry e[] = { { 0, 0, 1 }, { 6, 36, 1 }, { 8, 50, 1 } };
    return il_map(e, COUNT(e));
}

/* Original o -> o + shift for o in 1..63 (0 stays 0): instrumented
 * offsets x in [1 + shift, 63 + shift] translate back to x - shift. */
static ilmap *shift_map(uint32_t shift)
{
    ilmap_entry e[64];
    e[0].old_offset = e[0].new_offset = 0;
    e[0].accurate = 1;
    for (uint32_t o = 1; o < 64; o++) {
        e[o].old_offset = o;
        e[o].new_offset = o + shift;
        e[o].accurate = 1;
    }
    return il_map(e, COUNT(e));
}

/* The JIT output of doc/native-maps.md#worked-example, instrumented
 * coordinates, code 48. */
static const ilmap_boundary spec_jit[] = {
    { 0, ILMAP_PROLOG, 0 }, { 5, 0, 0 },  { 12, 36, 0 },
    { 20, 44, 0 },          { 30, 50, 0 }, { 40, ILMAP_EPILOG, 0 },
};

static ilmap_native *native_build(const ilmap *map, uint32_t code_size)
{
    ilmap_native *n = NULL;
    CHECK_ST(ilmap_native_build(spec_jit, COUNT(spec_jit), map, code_size, 0, &n), ILMAP_OK);
    return n;
}

/* A one-entry native map: every offset of a body of `size` is IL `il`. */
static ilmap_native *flat_native(uint32_t il, uint32_t size)
{
    const ilmap_native_entry e[] = { { il, 0, size } };
    ilmap_native *n = NULL;
    CHECK_ST(ilmap_native_from_entries(e, 1, size, &n), ILMAP_OK);
    return n;
}

/* The store's list queries bound to one key, for test_copy_out_protocol(). */
typedef struct list_ctx {
    const ilmap_store_snapshot *snapshot;
    ilmap_function_id function_id;
    ilmap_rejit_id rejit_id;
} list_ctx;

static ilmap_status versions_call(void *ctx, size_t cap, size_t *total, void *out)
{
    const list_ctx *c = ctx;
    return ilmap_store_snapshot_list_versions(c->snapshot, c->function_id, cap, total, out);
}

static ilmap_status bodies_call(void *ctx, size_t cap, size_t *total, void *out)
{
    const list_ctx *c = ctx;
    return ilmap_store_snapshot_list_bodies(c->snapshot, c->function_id, c->rejit_id, cap, total,
                                            out);
}

static const ilmap_store_snapshot *begin(ilmap_store_reader *r)
{
    const ilmap_store_snapshot *v = NULL;
    CHECK_ST(ilmap_store_reader_begin(r, &v), ILMAP_OK);
    return v;
}

static void end(ilmap_store_reader *r)
{
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_OK);
}

static uint64_t generation(ilmap_store_reader *r)
{
    uint64_t g = ilmap_store_snapshot_get_generation(begin(r));
    end(r);
    return g;
}

static void test_create_and_readers(void)
{
    ilmap_store *s = (ilmap_store *)1;
    ilmap_store_reader *r = (ilmap_store_reader *)1, *r2, *r3;
    const ilmap_store_snapshot *v = (const ilmap_store_snapshot *)1;
    ilmap_store_stats stats;

    CHECK_ST(ilmap_store_create(0, 0, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_create(0, 1u << 3, &s), ILMAP_E_INVALID_ARG);
    CHECK(s == NULL);
    {
        /* The writers' fence: asked for or not; in effect only if asked. */
        ilmap_store_stats st;
        CHECK_ST(ilmap_store_create(2, ILMAP_STORE_WRITER_FENCE, &s), ILMAP_OK);
        CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
        CHECK(st.writer_fence == 0 || st.writer_fence == 1);
        ilmap_store_free(s);
        CHECK_ST(ilmap_store_create(2, 0, &s), ILMAP_OK);
        CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
        CHECK(st.writer_fence == 0);
        ilmap_store_free(s);
        s = NULL;
    }
    CHECK(s == NULL);
    CHECK_ST(ilmap_store_create(ILMAP_STORE_MAX_READERS + 1, 0, &s), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_create(0, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.max_readers == ILMAP_STORE_DEFAULT_READERS && stats.readers == 0);
    CHECK(stats.generation == 0 && stats.functions == 0 && stats.retired == 0);
    CHECK_ST(ilmap_store_get_stats(NULL, &stats), ILMAP_E_INVALID_ARG);
    CHECK(stats.max_readers == 0);
    CHECK_ST(ilmap_store_get_stats(s, NULL), ILMAP_E_INVALID_ARG);
    ilmap_store_free(s);
    ilmap_store_free(NULL);

    CHECK_ST(ilmap_store_create(2, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(NULL, &r), ILMAP_E_INVALID_ARG);
    CHECK(r == NULL);
    CHECK_ST(ilmap_store_reader_register(s, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r2), ILMAP_OK);
    CHECK(r != r2);
    CHECK_ST(ilmap_store_reader_register(s, &r3), ILMAP_E_FULL);
    CHECK(r3 == NULL);
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.readers == 2);
    CHECK_ST(ilmap_store_reader_unregister(r2), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r3), ILMAP_OK);
    CHECK(r3 == r2); /* the slot came back */

    CHECK_ST(ilmap_store_reader_begin(NULL, &v), ILMAP_E_INVALID_ARG);
    CHECK(v == NULL);
    CHECK_ST(ilmap_store_reader_begin(r, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_reader_end(NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_E_INVALID_ARG); /* not inside a read */
    v = begin(r);
    CHECK(v != NULL && ilmap_store_snapshot_get_generation(v) == 0);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_E_INVALID_ARG); /* inside a read */
    end(r);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_unregister(NULL), ILMAP_E_INVALID_ARG);
    CHECK(ilmap_store_snapshot_get_generation(NULL) == 0);
    ilmap_store_free(s); /* r3 still registered: allowed */
}

static void test_method_maps(void)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    const ilmap *got = (const ilmap *)1;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);

    ilmap *a = spec_map();
    CHECK_ST(ilmap_store_set_il_map(NULL, MOD1, MD1, a), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_set_il_map(s, 0, MD1, a), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, 0x02000001u, a), ILMAP_E_INVALID_ARG); /* typedef */
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, 0x06000000u, a), ILMAP_E_INVALID_ARG); /* row 0 */
    CHECK(generation(r) == 0);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, a), ILMAP_OK); /* a is the store's now */
    CHECK(generation(r) == 1);

    const ilmap_store_snapshot *v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == a);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD2, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD2, MD1, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_method_map(NULL, MOD1, MD1, &got), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, NULL), ILMAP_E_INVALID_ARG);

    /* Last call wins; the old map stays readable through the held view. */
    ilmap *b = shift_map(100);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, b), ILMAP_OK);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == a);
    CHECK_EQ_U32(ilmap_new_to_old(got, 44), 6); /* a is alive: ASan would see otherwise */
    size_t pending = 0;
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending > 0);
    end(r);
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending == 0);
    CHECK_ST(ilmap_store_reclaim(NULL, &pending), ILMAP_E_INVALID_ARG);

    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == b);
    end(r);

    /* Handing the same map again is a no-op, not a double free. */
    uint64_t g = generation(r);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, b), ILMAP_OK);
    CHECK(generation(r) == g);

    /* An empty map clears (doc/il-maps.md#empty-map), and is freed by the
     * store. */
    ilmap *empty = il_map(NULL, 0);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, empty), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == NULL);
    end(r);
    /* Clearing again, and NULL, change nothing. */
    g = generation(r);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, il_map(NULL, 0)), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, NULL), ILMAP_OK);
    CHECK(generation(r) == g);
    /* NULL clears a map that is set. */
    CHECK_ST(ilmap_store_set_il_map(s, MOD2, MD2, spec_map()), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD2, MD2, NULL), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD2, MD2, &got), ILMAP_OK);
    CHECK(got == NULL);
    end(r);

    /* By FunctionID: the function's method, so every instance. */
    ilmap *c = spec_map();
    CHECK_ST(ilmap_store_set_il_map_for_function(s, FID1, c), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_set_il_map_for_function(s, 0, c), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_set_il_map_for_function(NULL, FID1, c), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID2, MOD1, MD1), ILMAP_OK); /* another instance */
    CHECK_ST(ilmap_store_set_il_map_for_function(s, FID1, c), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID2, 0, &got), ILMAP_OK);
    CHECK(got == c);
    end(r);

    ilmap_store_stats stats;
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.il_maps == 1 && stats.functions == 2 && stats.versions == 2);
    ilmap_store_free(s); /* frees c */
}

static void test_functions_and_versions(void)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    const ilmap *got;
    ilmap_store_function_info info;
    ilmap_rejit_id ids[8];
    size_t total = 99;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);

    CHECK_ST(ilmap_store_add_function(NULL, FID1, MOD1, MD1), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_function(s, 0, MOD1, MD1), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_function(s, FID1, 0, MD1), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, 0x0A000001u), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    uint64_t g = generation(r);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK); /* tiers report again */
    CHECK(generation(r) == g);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD2), ILMAP_E_EXISTS);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD2, MD1), ILMAP_E_EXISTS);

    const ilmap_store_snapshot *v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.module_id == MOD1 && info.method_def == MD1 && info.current_rejit_id == 0);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID2, &info), ILMAP_E_NOT_FOUND);
    CHECK(info.module_id == 0);
    CHECK_ST(ilmap_store_snapshot_get_function(NULL, FID1, &info), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, 0, &total, NULL), ILMAP_OK);
    CHECK(total == 1);
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID2, 0, &total, NULL), ILMAP_E_NOT_FOUND);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, 1, NULL, ids), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, 0, NULL, NULL), ILMAP_E_INVALID_ARG);
    total = 7;
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, 1, &total, NULL), ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_list_versions(NULL, FID1, 0, &total, NULL),
             ILMAP_E_INVALID_ARG);
    /* The original version exists and has no map: the method has none. */
    got = (const ilmap *)1;
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 0, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 2, &got), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID2, 0, &got), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_get_il_map(NULL, FID1, 0, &got), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 0, NULL), ILMAP_E_INVALID_ARG);
    end(r);

    /* ReJIT versions carry their own map; the original follows the
     * method's; no fallback either way (doc/rejit.md#store-maps). */
    ilmap *method = shift_map(10), *own = shift_map(20);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, method), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID1, 0, own, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_version(s, 0, 2, own, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_version(NULL, FID1, 2, own, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, own, 2), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_version(s, FID2, 2, own, 0), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, own, 0), ILMAP_OK);
    ilmap *again = shift_map(30);
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, again, 0), ILMAP_E_EXISTS);
    ilmap_free(again); /* refused: still ours */
    CHECK_ST(ilmap_store_add_version(s, FID1, 3, NULL, 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID1, 4, il_map(NULL, 0), ILMAP_VERSION_CURRENT),
             ILMAP_OK);

    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 0, &got), ILMAP_OK);
    CHECK(got == method);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 2, &got), ILMAP_OK);
    CHECK(got == own);
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 3, &got), ILMAP_OK);
    CHECK(got == NULL); /* no map of its own, and no fallback */
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 4, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 4);
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, 2, &total, ids), ILMAP_E_TRUNCATED);
    CHECK(total == 4 && ids[0] == 0 && ids[1] == 2); /* truncated, the total reported */
    CHECK_ST(ilmap_store_snapshot_list_versions(v, FID1, COUNT(ids), &total, ids), ILMAP_OK);
    CHECK(total == 4 && ids[2] == 3 && ids[3] == 4);
    {
        list_ctx lc = { v, FID1, 0 };
        const ilmap_rejit_id want[] = { 0, 2, 3, 4 };
        test_copy_out_protocol("ilmap_store_snapshot_list_versions", versions_call, &lc, want, 4,
                               sizeof want[0]);
    }
    end(r);

    /* set_current */
    CHECK_ST(ilmap_store_set_current(s, FID1, 9), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_set_current(s, FID2, 0), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_set_current(s, 0, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_set_current(NULL, FID1, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_set_current(s, FID1, 2), ILMAP_OK);
    g = generation(r);
    CHECK_ST(ilmap_store_set_current(s, FID1, 2), ILMAP_OK);
    CHECK(generation(r) == g); /* nothing changed, nothing published */
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 2);
    end(r);
    CHECK_ST(ilmap_store_set_current(s, FID1, 0), ILMAP_OK); /* one instance back */
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 0);
    end(r);
    ilmap_store_free(s);
}

/* RequestRevert: per method, all instances; versions and bodies stay. */
static void test_revert(void)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    ilmap_store_function_info info;
    ilmap_store_location loc;
    size_t n = 99;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK); /* Function<int> */
    CHECK_ST(ilmap_store_add_function(s, FID2, MOD1, MD1), ILMAP_OK); /* Function<string> */
    CHECK_ST(ilmap_store_add_function(s, FID3, MOD1, MD2), ILMAP_OK); /* another method */
    /* ReJITIDs of instances are unrelated (doc/rejit.md#rejit-ids). */
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, shift_map(5), ILMAP_VERSION_CURRENT), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID2, 3, shift_map(5), ILMAP_VERSION_CURRENT), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID3, 4, shift_map(5), ILMAP_VERSION_CURRENT), ILMAP_OK);
    const ilmap_code_range code[] = { { 0x10000, 64 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, code, 1, flat_native(7, 64), 0), ILMAP_OK);

    CHECK_ST(ilmap_store_revert(NULL, MOD1, MD1, &n), ILMAP_E_INVALID_ARG);
    CHECK(n == 0);
    CHECK_ST(ilmap_store_revert(s, 0, MD1, &n), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_revert(s, MOD1, 1, &n), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_revert(s, MOD1, MD1, &n), ILMAP_OK);
    CHECK(n == 2);
    const ilmap_store_snapshot *v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 0);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID2, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 0);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID3, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 4); /* another method: untouched */
    /* The reverted version still answers: code may still run in it. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x10010, &loc), ILMAP_OK);
    CHECK(loc.function_id == FID1 && loc.rejit_id == 2);
    CHECK_EQ_U32(loc.il_offset, 7);
    CHECK_EQ_U32(loc.original_il_offset, 2); /* 7 - 5 */
    const ilmap *got;
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 2, &got), ILMAP_OK);
    CHECK(got != NULL);
    end(r);

    uint64_t g = generation(r);
    CHECK_ST(ilmap_store_revert(s, MOD1, MD1, &n), ILMAP_OK); /* again: nothing to do */
    CHECK(n == 0 && generation(r) == g);
    CHECK_ST(ilmap_store_revert(s, MOD2, MD1, NULL), ILMAP_OK); /* no instance */

    /* ReJIT again after the revert: a new version becomes current. */
    CHECK_ST(ilmap_store_add_version(s, FID1, 5, shift_map(6), ILMAP_VERSION_CURRENT), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_function(v, FID1, &info), ILMAP_OK);
    CHECK(info.current_rejit_id == 5);
    end(r);
    ilmap_store_free(s);
}

static void test_bodies(void)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    ilmap_store_location loc;
    ilmap_store_body_info body;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, spec_map()), ILMAP_OK);

    /* The worked example compiled from instrumented IL, with no map applied:
     * the native map answers instrumented offsets, the store translates.
     * Hot 40 bytes at 0x1000, cold 8 at 0x9000: code size 48. */
    const ilmap_code_range hot_cold[] = { { 0x1000, 40 }, { 0x9000, 8 } };
    ilmap_native *native = native_build(NULL, 48);
    const ilmap_code_range one[] = { { 0x1000, 40 } };

    CHECK_ST(ilmap_store_add_body(NULL, FID1, 0, hot_cold, 2, native, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_body(s, 0, 0, hot_cold, 2, native, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, NULL, 2, native, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, hot_cold, 0, native, 0), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, hot_cold, ILMAP_STORE_MAX_RANGES + 1, native, 0),
             ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, hot_cold, 2, native, 4), ILMAP_E_INVALID_ARG);
    const ilmap_code_range zero[] = { { 0x1000, 40 }, { 0x9000, 0 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, zero, 2, native, 0), ILMAP_E_BAD_RANGE);
    const ilmap_code_range wrap[] = { { UINTPTR_MAX - 8, 16 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, wrap, 1, NULL, 0), ILMAP_E_BAD_RANGE);
#if UINTPTR_MAX > 0xFFFFFFFFu
    const ilmap_code_range huge[] = { { 0x100000000ull, 0xFFFFFFF0u }, { 0x300000000ull, 0x20 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, huge, 2, NULL, 0), ILMAP_E_LIMIT);
#endif
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, one, 1, native, 0), ILMAP_E_CODE_SIZE);
    const ilmap_code_range self[] = { { 0x1000, 40 }, { 0x1020, 8 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, self, 2, native, 0), ILMAP_E_OVERLAP);
    CHECK_ST(ilmap_store_add_body(s, FID1, 7, hot_cold, 2, native, 0), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_add_body(s, FID2, 0, hot_cold, 2, native, 0), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, hot_cold, 2, native, 0), ILMAP_OK); /* ours now */

    const ilmap_store_snapshot *v = begin(r);
    /* Hot: native 25 -> IL 44 (APPROXIMATE, of the entry at 20) -> 6. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 25, &loc), ILMAP_OK);
    CHECK(loc.function_id == FID1 && loc.rejit_id == 0 && loc.module_id == MOD1);
    CHECK(loc.method_def == MD1 && loc.code_start == 0x1000);
    CHECK(loc.range_index == 0 && loc.native_offset == 25);
    CHECK(loc.mapping == ILMAP_MAPPING_APPROXIMATE);
    CHECK_EQ_U32(loc.il_offset, 44);
    CHECK_EQ_U32(loc.original_il_offset, 6);
    /* Native 12 is exactly IL 36 -> 6. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 12, &loc), ILMAP_OK);
    CHECK(loc.mapping == ILMAP_MAPPING_EXACT);
    CHECK_EQ_U32(loc.original_il_offset, 6);
    /* Native 3: the prolog, IL 0 by convention, not translated. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 3, &loc), ILMAP_OK);
    CHECK(loc.mapping == ILMAP_MAPPING_PROLOG && loc.il_offset == 0 && loc.original_il_offset == 0);
    /* Cold: offsets continue after the hot range's 40: 0x9000 + 5 is 45,
     * the epilog; lastIL (50, instrumented) translates to 8. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x9000 + 5, &loc), ILMAP_OK);
    CHECK(loc.range_index == 1 && loc.native_offset == 45 && loc.code_start == 0x1000);
    CHECK(loc.mapping == ILMAP_MAPPING_EPILOG);
    CHECK_EQ_U32(loc.il_offset, 50);
    CHECK_EQ_U32(loc.original_il_offset, 8);
    /* Outside every range. */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 40, &loc), ILMAP_E_NOT_FOUND);
    CHECK(loc.function_id == 0 && loc.mapping == ILMAP_MAPPING_NO_INFO);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x0FFF, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x9008, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v, UINTPTR_MAX, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(NULL, 0x1000, &loc), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000, NULL), ILMAP_E_INVALID_ARG);

    CHECK_ST(ilmap_store_snapshot_get_body(v, 0x9003, &body), ILMAP_OK);
    CHECK(body.function_id == FID1 && body.rejit_id == 0 && body.code_size == 48);
    CHECK(body.range_count == 2 && body.ranges[1].start == 0x9000 && body.ranges[1].size == 8);
    CHECK(body.native_map == native && body.il_map != NULL && body.flags == 0);
    CHECK_ST(ilmap_store_snapshot_get_body(v, 0x8FFF, &body), ILMAP_E_NOT_FOUND);
    CHECK(body.function_id == 0 && body.native_map == NULL);
    CHECK_ST(ilmap_store_snapshot_get_body(NULL, 0x9003, &body), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_body(v, 0x9003, NULL), ILMAP_E_INVALID_ARG);
    end(r);

    /* Overlap with a body in the store, in either range. */
    ilmap_native *other = flat_native(0, 16);
    const ilmap_code_range into_hot[] = { { 0x0FF8, 16 } };
    const ilmap_code_range into_cold[] = { { 0x9007, 16 } };
    const ilmap_code_range around[] = { { 0x8000, 0x2000 }, { 0x100, 16 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, into_hot, 1, other, 0), ILMAP_E_OVERLAP);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, into_cold, 1, other, 0), ILMAP_E_OVERLAP);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, around, 2, NULL, 0), ILMAP_E_OVERLAP);

    /* Tiering: a second body of the same version, adjacent addresses;
     * this one's native map is original already (GetILToNativeMapping2
     * of code compiled under the map). */
    ilmap *for_build = spec_map();
    ilmap_native *runtime_map = native_build(for_build, 48);
    ilmap_free(for_build);
    const ilmap_code_range tier1[] = { { 0x1028, 48 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, tier1, 1, runtime_map, ILMAP_BODY_ORIGINAL_IL),
             ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1028 + 25, &loc), ILMAP_OK);
    CHECK(loc.code_start == 0x1028 && loc.native_offset == 25);
    CHECK_EQ_U32(loc.il_offset, 6); /* the runtime dropped the in-between entry */
    CHECK_EQ_U32(loc.original_il_offset, 6);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 39, &loc), ILMAP_OK);
    CHECK(loc.code_start == 0x1000); /* the neighbour's last byte */
    uintptr_t starts[4];
    size_t total = 0;
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 0, COUNT(starts), &total, starts),
             ILMAP_OK);
    CHECK(total == 2 && starts[0] == 0x1000 && starts[1] == 0x1028);
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 0, 0, &total, NULL), ILMAP_OK);
    CHECK(total == 2);
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 0, 1, &total, starts), ILMAP_E_TRUNCATED);
    CHECK(total == 2 && starts[0] == 0x1000);
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 9, 0, &total, NULL), ILMAP_E_NOT_FOUND);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 0, 1, &total, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 0, 0, NULL, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_list_bodies(NULL, FID1, 0, 0, &total, NULL),
             ILMAP_E_INVALID_ARG);
    {
        list_ctx lc = { v, FID1, 0 };
        const uintptr_t want[] = { 0x1000, 0x1028 };
        test_copy_out_protocol("ilmap_store_snapshot_list_bodies", bodies_call, &lc, want, 2,
                               sizeof want[0]);
        /* an unknown version: ILMAP_E_NOT_FOUND, *total 0, whatever cap is */
        total = 7;
        CHECK_ST(ilmap_store_snapshot_list_bodies(v, FID1, 9, 2, &total, starts),
                 ILMAP_E_NOT_FOUND);
        CHECK(total == 0);
    }
    end(r);

    /* A later SetILInstrumentedCodeMap does not retranslate code already
     * attached: the body keeps the map it captured
     * (doc/il-maps.md#set-map-timing). */
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, shift_map(1000)), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 25, &loc), ILMAP_OK);
    CHECK_EQ_U32(loc.original_il_offset, 6);
    const ilmap *current;
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 0, &current), ILMAP_OK);
    CHECK_EQ_U32(ilmap_new_to_old(current, 1044), 44);
    end(r);

    /* A ReJIT version's body uses the version's map; without a native
     * map the body is found but has no IL answer. */
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, shift_map(3), ILMAP_VERSION_CURRENT), ILMAP_OK);
    const ilmap_code_range rejit_code[] = { { 0x20000, 32 } };
    const ilmap_code_range bare[] = { { 0x30000, 32 } };
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, rejit_code, 1, flat_native(13, 32), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, bare, 1, NULL, 0), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x20004, &loc), ILMAP_OK);
    CHECK(loc.rejit_id == 2 && loc.mapping == ILMAP_MAPPING_APPROXIMATE);
    CHECK_EQ_U32(loc.il_offset, 13);
    CHECK_EQ_U32(loc.original_il_offset, 10);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 25, &loc), ILMAP_OK);
    CHECK(loc.rejit_id == 0); /* no longer current, still found */
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x30000, &loc), ILMAP_OK);
    CHECK(loc.rejit_id == 2 && loc.mapping == ILMAP_MAPPING_NO_INFO && loc.il_offset == 0);
    end(r);

    /* One-shot lookup. */
    CHECK_ST(ilmap_store_lookup(r, 0x20004, &loc), ILMAP_OK);
    CHECK(loc.rejit_id == 2);
    CHECK_ST(ilmap_store_lookup(r, 0x5, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_lookup(NULL, 0x20004, &loc), ILMAP_E_INVALID_ARG);
    CHECK(loc.function_id == 0);
    CHECK_ST(ilmap_store_lookup(r, 0x20004, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_E_INVALID_ARG); /* the one-shot ended its read */

    /* Removal: a cold range start is not a body start. */
    CHECK_ST(ilmap_store_remove_body(s, 0x9000), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_remove_body(s, 0x1001), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_remove_body(NULL, 0x1000), ILMAP_E_INVALID_ARG);
    const ilmap_store_snapshot *held = begin(r);
    CHECK_ST(ilmap_store_remove_body(s, 0x1000), ILMAP_OK);
    v = begin(r); /* nested: the current snapshot */
    CHECK(ilmap_store_snapshot_get_generation(v) == ilmap_store_snapshot_get_generation(held) + 1);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x1000 + 25, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x9005, &loc), ILMAP_E_NOT_FOUND);
    end(r);
    /* The outer read still sees the body, whose native map is alive. */
    CHECK_ST(ilmap_store_snapshot_lookup(held, 0x9005, &loc), ILMAP_OK);
    CHECK_EQ_U32(loc.original_il_offset, 8);
    CHECK_ST(ilmap_store_snapshot_get_body(held, 0x1000, &body), ILMAP_OK);
    CHECK(ilmap_native_get_count(body.native_map) == 6);
    end(r);
    /* Its addresses can be attached again. */
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, one, 1, flat_native(1, 40), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_lookup(r, 0x1000, &loc), ILMAP_OK);
    CHECK(loc.rejit_id == 2);

    size_t pending = 1;
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending == 0);
    ilmap_store_stats stats;
    CHECK_ST(ilmap_store_get_stats(s, &stats), ILMAP_OK);
    CHECK(stats.bodies == 4 && stats.versions == 2 && stats.reclaimed > 0);

    /* Ownership on failure: the caller keeps the map. */
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, into_hot, 1, other, 0), ILMAP_E_OVERLAP);
    ilmap_native_free(other);
    ilmap_store_free(s);
}

/* ---- Removal (doc/rejit.md#removal) ------------------------------------ */

#define MOD3 ((ilmap_module_id)0x7F0000003000u)
#define MOD4 ((ilmap_module_id)0x7F0000004000u)
#define FID4 ((ilmap_function_id)0x7F0000A00040u)

/* The store every removal case starts from:
 *   MOD1: MD1 map (a), bodies of FID1 version 0 captured an older map (b,
 *         then replaced: only the body holds it); MD2 map (shift 10).
 *         FID1, FID2 instances of MD1, FID3 of MD2.
 *         FID1 versions 2 (shift 5, current, two bodies), 3 (no map,
 *         no body); FID3 version 4 (shift 7, one body, not current).
 *         Bodies: FID1/0 0x1000 hot + 0x9000 cold, FID1/2 0x2000 and
 *         0x2100, FID2/0 0x3000, FID3/4 0x4000.
 *   MOD2: MD1 map, FID4 with version 2 (current), bodies FID4/0 0x5000,
 *         FID4/2 0x5100.
 *   MOD3: only an IL-level map (MD1), no function.
 */
static void populate(ilmap_store *s)
{
    const ilmap_code_range b1[] = { { 0x1000, 40 }, { 0x9000, 8 } };
    const ilmap_code_range b2[] = { { 0x2000, 32 } }, b3[] = { { 0x2100, 32 } };
    const ilmap_code_range b4[] = { { 0x3000, 32 } }, b5[] = { { 0x4000, 32 } };
    const ilmap_code_range b6[] = { { 0x5000, 32 } }, b7[] = { { 0x5100, 32 } };

    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID2, MOD1, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID3, MOD1, MD2), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, shift_map(1)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, b1, 2, native_build(NULL, 48), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, spec_map()), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD2, shift_map(10)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID1, 2, shift_map(5), ILMAP_VERSION_CURRENT), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID1, 3, NULL, 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID3, 4, shift_map(7), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, b2, 1, flat_native(13, 32), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID1, 2, b3, 1, flat_native(14, 32), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID2, 0, b4, 1, flat_native(40, 32), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID3, 4, b5, 1, flat_native(20, 32), 0), ILMAP_OK);

    CHECK_ST(ilmap_store_add_function(s, FID4, MOD2, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD2, MD1, shift_map(2)), ILMAP_OK);
    CHECK_ST(ilmap_store_add_version(s, FID4, 2, shift_map(3), ILMAP_VERSION_CURRENT), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID4, 0, b6, 1, flat_native(9, 32), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_add_body(s, FID4, 2, b7, 1, flat_native(9, 32), 0), ILMAP_OK);

    CHECK_ST(ilmap_store_set_il_map(s, MOD3, MD1, shift_map(4)), ILMAP_OK);
}

/* Every body address of populate(), one per range. */
static const uintptr_t all_code[] = { 0x1000, 0x9004, 0x2000, 0x2100, 0x3000, 0x4000,
                                      0x5000, 0x5100 };
static const ilmap_function_id all_fids[] = { FID1, FID2, FID3, FID4 };

enum { RM_MODULE, RM_VERSION };

typedef struct remove_case {
    const char *name;
    int kind;
    ilmap_module_id module;                 /* RM_MODULE */
    ilmap_function_id fid;                  /* RM_VERSION */
    ilmap_rejit_id rejit;
    int null_store;
    ilmap_status want;
    ilmap_store_removed counts;             /* il_maps, functions, versions, bodies */
    uintptr_t gone[8];                      /* addresses that stop answering; 0 ends */
    ilmap_function_id gone_fids[4];         /* functions no longer registered */
    ilmap_module_id gone_module;            /* whose MD1 and MD2 maps are gone */
    ilmap_function_id fid_current;          /* a function whose current version is */
    ilmap_rejit_id current;                 /* ... this afterwards */
} remove_case;

static const remove_case remove_cases[] = {
    { "module: functions, versions, bodies, maps", RM_MODULE, MOD1, 0, 0, 0, ILMAP_OK,
      { 2, 3, 3, 5 }, { 0x1000, 0x9004, 0x2000, 0x2100, 0x3000, 0x4000 }, { FID1, FID2, FID3 },
      MOD1, FID4, 2 },
    { "another module", RM_MODULE, MOD2, 0, 0, 0, ILMAP_OK, { 1, 1, 1, 2 }, { 0x5000, 0x5100 },
      { FID4 }, MOD2, FID1, 2 },
    { "module with an IL map only", RM_MODULE, MOD3, 0, 0, 0, ILMAP_OK, { 1, 0, 0, 0 }, { 0 },
      { 0 }, MOD3, FID1, 2 },
    { "unknown module", RM_MODULE, MOD4, 0, 0, 0, ILMAP_OK, { 0, 0, 0, 0 }, { 0 }, { 0 }, 0,
      FID1, 2 },
    { "module 0", RM_MODULE, 0, 0, 0, 0, ILMAP_E_INVALID_ARG, { 0, 0, 0, 0 }, { 0 }, { 0 }, 0,
      FID1, 2 },
    { "module, store NULL", RM_MODULE, MOD1, 0, 0, 1, ILMAP_E_INVALID_ARG, { 0, 0, 0, 0 },
      { 0 }, { 0 }, 0, FID1, 2 },
    { "current version: the original becomes current", RM_VERSION, 0, FID1, 2, 0, ILMAP_OK,
      { 0, 0, 1, 2 }, { 0x2000, 0x2100 }, { 0 }, 0, FID1, 0 },
    { "version without map or body", RM_VERSION, 0, FID1, 3, 0, ILMAP_OK, { 0, 0, 1, 0 },
      { 0 }, { 0 }, 0, FID1, 2 },
    { "version not current", RM_VERSION, 0, FID3, 4, 0, ILMAP_OK, { 0, 0, 1, 1 }, { 0x4000 },
      { 0 }, 0, FID3, 0 },
    { "version of another module", RM_VERSION, 0, FID4, 2, 0, ILMAP_OK, { 0, 0, 1, 1 },
      { 0x5100 }, { 0 }, 0, FID4, 0 },
    { "the original version", RM_VERSION, 0, FID1, 0, 0, ILMAP_E_INVALID_ARG, { 0, 0, 0, 0 },
      { 0 }, { 0 }, 0, FID1, 2 },
    { "function 0", RM_VERSION, 0, 0, 2, 0, ILMAP_E_INVALID_ARG, { 0, 0, 0, 0 }, { 0 }, { 0 },
      0, FID1, 2 },
    { "version, store NULL", RM_VERSION, 0, FID1, 2, 1, ILMAP_E_INVALID_ARG, { 0, 0, 0, 0 },
      { 0 }, { 0 }, 0, FID1, 2 },
    { "unknown version", RM_VERSION, 0, FID1, 9, 0, ILMAP_E_NOT_FOUND, { 0, 0, 0, 0 }, { 0 },
      { 0 }, 0, FID1, 2 },
    { "version of an unknown function", RM_VERSION, 0, FID1 + 0x1000, 2, 0, ILMAP_E_NOT_FOUND,
      { 0, 0, 0, 0 }, { 0 }, { 0 }, 0, FID1, 2 },
};

static int in_list(const uintptr_t *list, size_t n, uintptr_t x)
{
    for (size_t i = 0; i < n && list[i]; i++) {
        if (list[i] == x)
            return 1;
    }
    return 0;
}

static int same_location(const ilmap_store_location *a, const ilmap_store_location *b)
{
    return a->function_id == b->function_id && a->rejit_id == b->rejit_id &&
           a->module_id == b->module_id && a->method_def == b->method_def &&
           a->code_start == b->code_start && a->range_index == b->range_index &&
           a->native_offset == b->native_offset && a->mapping == b->mapping &&
           a->il_offset == b->il_offset && a->original_il_offset == b->original_il_offset;
}

static ilmap_status remove_call(const remove_case *c, ilmap_store *s, ilmap_store_removed *out)
{
    ilmap_store *target = c->null_store ? NULL : s;
    return c->kind == RM_MODULE ? ilmap_store_remove_module(target, c->module, out)
                                : ilmap_store_remove_version(target, c->fid, c->rejit, out);
}

static void run_remove_case(const remove_case *c)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    ilmap_store_location before[COUNT(all_code)], loc;
    ilmap_store_stats st0, st1;
    ilmap_store_removed got;
    int failures = test_failures;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    populate(s);
    for (size_t i = 0; i < COUNT(all_code); i++)
        CHECK_ST(ilmap_store_lookup(r, all_code[i], &before[i]), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st0), ILMAP_OK);

    /* A read that began before the removal: it sees everything until it
     * ends (its maps are alive: ASan would see otherwise). */
    const ilmap_store_snapshot *held = begin(r);
    memset(&got, 0xA5, sizeof got);
    CHECK_ST(remove_call(c, s, &got), c->want);
    CHECK(got.il_maps == c->counts.il_maps && got.functions == c->counts.functions &&
          got.versions == c->counts.versions && got.bodies == c->counts.bodies);
    CHECK_ST(remove_call(c, s, NULL), c->want == ILMAP_OK && c->kind == RM_VERSION
                                          ? ILMAP_E_NOT_FOUND
                                          : c->want); /* again: nothing left to remove */
    for (size_t i = 0; i < COUNT(all_code); i++) {
        CHECK_ST(ilmap_store_snapshot_lookup(held, all_code[i], &loc), ILMAP_OK);
        CHECK(same_location(&loc, &before[i]));
        ilmap_store_body_info body;
        CHECK_ST(ilmap_store_snapshot_get_body(held, all_code[i], &body), ILMAP_OK);
        CHECK(ilmap_native_get_count(body.native_map) > 0);
        CHECK(!body.il_map || ilmap_get_count(body.il_map) > 0);
    }
    end(r);

    /* After: what was removed is gone, the rest answers as before. */
    CHECK_ST(ilmap_store_get_stats(s, &st1), ILMAP_OK);
    int changed = c->want == ILMAP_OK && (c->counts.il_maps || c->counts.functions ||
                                          c->counts.versions || c->counts.bodies);
    CHECK(st1.generation == st0.generation + (changed ? 1 : 0)); /* one publication */
    CHECK(st1.il_maps == st0.il_maps - c->counts.il_maps);
    CHECK(st1.functions == st0.functions - c->counts.functions);
    /* Original versions leave with their functions, uncounted. */
    CHECK(st1.versions == st0.versions - c->counts.versions - c->counts.functions);
    CHECK(st1.bodies == st0.bodies - c->counts.bodies);
    const ilmap_store_snapshot *v = begin(r);
    for (size_t i = 0; i < COUNT(all_code); i++) {
        if (in_list(c->gone, COUNT(c->gone), all_code[i])) {
            CHECK_ST(ilmap_store_snapshot_lookup(v, all_code[i], &loc), ILMAP_E_NOT_FOUND);
            CHECK(loc.function_id == 0);
        } else {
            CHECK_ST(ilmap_store_snapshot_lookup(v, all_code[i], &loc), ILMAP_OK);
            CHECK(same_location(&loc, &before[i]));
        }
    }
    for (size_t i = 0; i < COUNT(all_fids); i++) {
        ilmap_store_function_info info;
        size_t total = 9;
        int gone = in_list(c->gone_fids, COUNT(c->gone_fids), all_fids[i]);
        CHECK_ST(ilmap_store_snapshot_get_function(v, all_fids[i], &info),
                 gone ? ILMAP_E_NOT_FOUND : ILMAP_OK);
        CHECK_ST(ilmap_store_snapshot_list_versions(v, all_fids[i], 0, &total, NULL),
                 gone ? ILMAP_E_NOT_FOUND : ILMAP_OK);
        if (all_fids[i] == c->fid_current)
            CHECK(info.current_rejit_id == c->current);
    }
    if (c->kind == RM_VERSION && c->want == ILMAP_OK) {
        const ilmap *m = (const ilmap *)1;
        size_t total = 9;
        CHECK_ST(ilmap_store_snapshot_get_il_map(v, c->fid, c->rejit, &m), ILMAP_E_NOT_FOUND);
        CHECK(m == NULL);
        CHECK_ST(ilmap_store_snapshot_list_bodies(v, c->fid, c->rejit, 0, &total, NULL),
                 ILMAP_E_NOT_FOUND);
    }
    if (c->gone_module) {
        const ilmap *m = (const ilmap *)1;
        CHECK_ST(ilmap_store_snapshot_get_method_map(v, c->gone_module, MD1, &m), ILMAP_OK);
        CHECK(m == NULL);
        CHECK_ST(ilmap_store_snapshot_get_method_map(v, c->gone_module, MD2, &m), ILMAP_OK);
        CHECK(m == NULL);
    }
    end(r);

    /* The held read ended: everything removed is freed. */
    size_t pending = 1;
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending == 0);

    /* Removed addresses can be attached again, to a function registered
     * (again) in the same module. */
    if (c->want == ILMAP_OK && c->gone[0]) {
        ilmap_function_id fid = c->kind == RM_VERSION ? c->fid : c->gone_fids[0];
        ilmap_rejit_id rejit = c->kind == RM_VERSION ? c->rejit : 0;
        const ilmap_code_range again[] = { { c->gone[0], 32 } };
        if (c->kind == RM_MODULE)
            CHECK_ST(ilmap_store_add_function(s, fid, c->module, MD2), ILMAP_OK);
        else
            CHECK_ST(ilmap_store_add_version(s, fid, rejit, shift_map(6), 0), ILMAP_OK);
        CHECK_ST(ilmap_store_add_body(s, fid, rejit, again, 1, flat_native(17, 32), 0), ILMAP_OK);
        CHECK_ST(ilmap_store_lookup(r, c->gone[0] + 1, &loc), ILMAP_OK);
        CHECK(loc.function_id == fid && loc.rejit_id == rejit && loc.il_offset == 17);
        CHECK_EQ_U32(loc.original_il_offset, c->kind == RM_VERSION ? 11 : 17);
    }
    if (test_failures != failures)
        fprintf(stderr, "  in removal case \"%s\"\n", c->name);
    ilmap_store_free(s);
}

static void test_remove(void)
{
    for (size_t i = 0; i < COUNT(remove_cases); i++)
        run_remove_case(&remove_cases[i]);
}

/* Removing a module, then a version of another, while readers of three
 * generations hold on: each keeps answering from its own snapshot until
 * it ends; reclaim frees each generation's garbage once its last reader
 * left. */
static void test_remove_under_readers(void)
{
    ilmap_store *s;
    ilmap_store_reader *r1, *r2, *r3;
    ilmap_store_location loc;
    size_t pending;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r1), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r2), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r3), ILMAP_OK);
    populate(s);

    const ilmap_store_snapshot *v1 = begin(r1);
    CHECK_ST(ilmap_store_remove_module(s, MOD1, NULL), ILMAP_OK);
    const ilmap_store_snapshot *v2 = begin(r2);
    CHECK_ST(ilmap_store_remove_version(s, FID4, 2, NULL), ILMAP_OK);
    const ilmap_store_snapshot *v3 = begin(r3);

    CHECK_ST(ilmap_store_snapshot_lookup(v1, 0x2004, &loc), ILMAP_OK);
    CHECK(loc.function_id == FID1 && loc.rejit_id == 2);
    CHECK_EQ_U32(loc.original_il_offset, 8); /* 13 - 5 */
    CHECK_ST(ilmap_store_snapshot_lookup(v2, 0x2004, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v2, 0x5104, &loc), ILMAP_OK);
    CHECK(loc.function_id == FID4 && loc.rejit_id == 2);
    CHECK_EQ_U32(loc.original_il_offset, 6); /* 9 - 3 */
    CHECK_ST(ilmap_store_snapshot_lookup(v3, 0x5104, &loc), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_lookup(v3, 0x5004, &loc), ILMAP_OK);

    /* The oldest reader protects both removals' garbage. */
    end(r2);
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending > 0);
    CHECK_ST(ilmap_store_snapshot_lookup(v1, 0x9004, &loc), ILMAP_OK);
    CHECK_EQ_U32(loc.original_il_offset, 50 - 1); /* lastIL through the replaced map it captured */
    end(r1);
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending == 0); /* r3 began after both: it protects nothing */
    CHECK_ST(ilmap_store_snapshot_lookup(v3, 0x5004, &loc), ILMAP_OK);
    end(r3);
    ilmap_store_free(s);
}

/* Reads nest (a signal handler on the same slot); only the outermost end
 * lets the writer free what the outer read saw. */
static void test_nesting_and_reclaim(void)
{
    ilmap_store *s;
    ilmap_store_reader *r, *r2;
    const ilmap *got;
    size_t pending;

    CHECK_ST(ilmap_store_create(4, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r2), ILMAP_OK);
    ilmap *first = spec_map();
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, first), ILMAP_OK);

    const ilmap_store_snapshot *outer = begin(r);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, shift_map(1)), ILMAP_OK);
    const ilmap_store_snapshot *inner = begin(r);
    CHECK(ilmap_store_snapshot_get_generation(inner) == ilmap_store_snapshot_get_generation(outer) + 1);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, shift_map(2)), ILMAP_OK);
    end(r); /* inner */
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending > 0); /* the outer read still protects */
    CHECK_ST(ilmap_store_snapshot_get_method_map(outer, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == first);
    CHECK_EQ_U32(ilmap_new_to_old(got, 37), 6);

    /* Another reader's read does not protect ours, nor block a writer. */
    const ilmap_store_snapshot *other = begin(r2);
    end(r); /* outer */
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, shift_map(3)), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending > 0); /* r2 holds the snapshot of generation 3 */
    CHECK_ST(ilmap_store_snapshot_get_method_map(other, MOD1, MD1, &got), ILMAP_OK);
    CHECK_EQ_U32(ilmap_new_to_old(got, 5), 3);
    end(r2);
    CHECK_ST(ilmap_store_reclaim(s, &pending), ILMAP_OK);
    CHECK(pending == 0);

    /* Deep nesting. */
    for (int i = 0; i < 100; i++)
        begin(r);
    for (int i = 0; i < 100; i++)
        end(r);
    CHECK_ST(ilmap_store_reader_end(r), ILMAP_E_INVALID_ARG);
    ilmap_store_free(s);
}

/* ---- FunctionIDMapper ----------------------------------------------- */

static int filter_calls;

/* Hooks FunctionIDs that are not multiples of 3 (of 16-byte units). */
static int not_third(void *context, ilmap_function_id fid)
{
    CHECK(context == &filter_calls);
    filter_calls++;
    return (fid >> 4) % 3 != 0;
}

static void test_fid_mapper(void)
{
    ilmap_fid_mapper *m = (ilmap_fid_mapper *)1;
    uintptr_t cid = 7, fid;
    int hook = 7;
    ilmap_fid_mapper_stats stats;

    CHECK_ST(ilmap_fid_mapper_create(8, NULL, NULL, NULL), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_create(0, NULL, NULL, &m), ILMAP_E_INVALID_ARG);
    CHECK(m == NULL);
    CHECK_ST(ilmap_fid_mapper_create(((size_t)1 << 24) + 1, NULL, NULL, &m), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_create(4, not_third, &filter_calls, &m), ILMAP_OK);

    CHECK_ST(ilmap_fid_mapper_map(NULL, 0x10, &cid, &hook), ILMAP_E_INVALID_ARG);
    CHECK(cid == 0 && hook == 0);
    CHECK_ST(ilmap_fid_mapper_map(m, 0, &cid, &hook), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x10, NULL, &hook), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x10, &cid, NULL), ILMAP_E_INVALID_ARG);
    CHECK(filter_calls == 0);

    /* Dense client IDs for hooked functions, in order, from 1. */
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x10, &cid, &hook), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x10, &cid, &hook), ILMAP_OK);
    CHECK(cid == 1 && hook == 1);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x30, &cid, &hook), ILMAP_OK); /* 3: not hooked */
    CHECK(cid == 0 && hook == 0);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x20, &cid, &hook), ILMAP_OK);
    CHECK(cid == 2 && hook == 1);
    CHECK(filter_calls == 3);
    /* Idempotent, without asking the filter again (re-JIT, tiers). */
    for (int i = 0; i < 3; i++) {
        CHECK_ST(ilmap_fid_mapper_map(m, 0x10, &cid, &hook), ILMAP_OK);
        CHECK(cid == 1 && hook == 1);
        CHECK_ST(ilmap_fid_mapper_map(m, 0x30, &cid, &hook), ILMAP_OK);
        CHECK(cid == 0 && hook == 0);
    }
    CHECK(filter_calls == 3);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x20, &cid, &hook), ILMAP_OK);
    CHECK(cid == 2 && hook == 1);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x30, &cid, &hook), ILMAP_OK);
    CHECK(cid == 0 && hook == 0);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x40, &cid, &hook), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0, &cid, &hook), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_fid_mapper_lookup(NULL, 0x20, &cid, &hook), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x20, NULL, &hook), ILMAP_E_INVALID_ARG);

    /* Reverse. */
    CHECK_ST(ilmap_fid_mapper_get_function(m, 2, &fid), ILMAP_OK);
    CHECK(fid == 0x20);
    CHECK_ST(ilmap_fid_mapper_get_function(m, 0, &fid), ILMAP_E_NOT_FOUND);
    CHECK(fid == 0);
    CHECK_ST(ilmap_fid_mapper_get_function(m, 3, &fid), ILMAP_E_NOT_FOUND); /* not handed out */
    CHECK_ST(ilmap_fid_mapper_get_function(m, 5, &fid), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_fid_mapper_get_function(NULL, 1, &fid), ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_fid_mapper_get_function(m, 1, NULL), ILMAP_E_INVALID_ARG);

    /* Full: 4 FunctionIDs at most. The 5th is refused, every time; the
     * others still answer. */
    CHECK_ST(ilmap_fid_mapper_map(m, 0x50, &cid, &hook), ILMAP_OK);
    CHECK(cid == 3 && hook == 1);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x70, &cid, &hook), ILMAP_E_FULL);
    CHECK(cid == 0 && hook == 0);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x70, &cid, &hook), ILMAP_E_FULL);
    CHECK_ST(ilmap_fid_mapper_lookup(m, 0x70, &cid, &hook), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_fid_mapper_map(m, 0x50, &cid, &hook), ILMAP_OK);
    CHECK(cid == 3);
    CHECK_ST(ilmap_fid_mapper_get_stats(m, &stats), ILMAP_OK);
    CHECK(stats.max_functions == 4 && stats.mapped == 4 && stats.hooked == 3);
    CHECK(stats.refused == 2);
    CHECK_ST(ilmap_fid_mapper_get_stats(NULL, &stats), ILMAP_E_INVALID_ARG);
    CHECK(stats.max_functions == 0);
    CHECK_ST(ilmap_fid_mapper_get_stats(m, NULL), ILMAP_E_INVALID_ARG);

    /* The callbacks, through the runtime's signatures. */
    ilmap_function_id_mapper2_fn cb2 = ilmap_fid_mapper_callback2;
    ilmap_function_id_mapper_fn cb1 = ilmap_fid_mapper_callback;
    int32_t bhook = 7;
    CHECK(cb2(0x20, m, &bhook) == 2 && bhook == 1);
    CHECK(cb2(0x30, m, &bhook) == 0x30 && bhook == 0); /* not hooked: FunctionID back */
    CHECK(cb2(0x70, m, &bhook) == 0x70 && bhook == 0);   /* full: left unhooked */
    bhook = 7;
    CHECK(cb2(0x20, NULL, &bhook) == 0x20 && bhook == 0);
    CHECK(cb2(0, m, &bhook) == 0 && bhook == 0);
    CHECK(cb2(0x20, m, NULL) == 0x20);
    bhook = 7;
    CHECK(cb1(0x20, &bhook) == 0x20 && bhook == 0); /* no global mapper */
    CHECK_ST(ilmap_fid_mapper_set_global(m), ILMAP_OK);
    CHECK(cb1(0x20, &bhook) == 2 && bhook == 1);
    CHECK(cb1(0x10, &bhook) == 1 && bhook == 1);
    ilmap_fid_mapper_free(m); /* uninstalls the global */
    bhook = 7;
    CHECK(cb1(0x20, &bhook) == 0x20 && bhook == 0);
    ilmap_fid_mapper_free(NULL);

    /* No filter: everything hooked. */
    CHECK_ST(ilmap_fid_mapper_create(1000, NULL, NULL, &m), ILMAP_OK);
    for (uintptr_t i = 1; i <= 1000; i++) {
        CHECK_ST(ilmap_fid_mapper_map(m, i * 0x40, &cid, &hook), ILMAP_OK);
        if (cid != i || hook != 1) {
            CHECK(cid == i && hook == 1);
            break;
        }
    }
    for (uintptr_t i = 1; i <= 1000; i++) {
        CHECK_ST(ilmap_fid_mapper_get_function(m, i, &fid), ILMAP_OK);
        CHECK_ST(ilmap_fid_mapper_lookup(m, fid, &cid, &hook), ILMAP_OK);
        if (fid != i * 0x40 || cid != i)
            CHECK(fid == i * 0x40 && cid == i);
    }
    CHECK_ST(ilmap_fid_mapper_map(m, 0x7, &cid, &hook), ILMAP_E_FULL);
    CHECK_ST(ilmap_fid_mapper_set_global(m), ILMAP_OK);
    CHECK_ST(ilmap_fid_mapper_set_global(NULL), ILMAP_OK);
    ilmap_fid_mapper_free(m);
}

/* ------------------------------------------------------------------ */
/* Random bodies against the model                                     */
/* ------------------------------------------------------------------ */

#define RB_FUNCS 6
#define RB_BODIES 48
#define RB_RANGES 3

typedef struct rb_body {
    int live;
    int func;
    ilmap_rejit_id rejit;
    unsigned flags;
    ilmap_code_range ranges[RB_RANGES];
    uint32_t nranges;
    ilmap_native *native; /* the model's twin of the store's map (NULL: none) */
    ilmap *il;            /* the model's twin of the IL map captured */
} rb_body;

typedef struct rb_world {
    prng rng;
    uintptr_t base;    /* where this round puts code */
    uintptr_t span;    /* how far from base */
    ilmap_native_entry native_entries[RB_BODIES][24];
    rb_body bodies[RB_BODIES];
    ilmap_entry il_entries[RB_FUNCS][2][16]; /* per function: version 0's map, version 1's */
    size_t il_count[RB_FUNCS][2];
    unsigned il_flags[RB_FUNCS][2];          /* 0 or ILMAP_LENIENT */
    unsigned store_flags; /* this round's: any of ILMAP_STORE_COMPACT_NATIVE, _IL */
} rb_world;

static ilmap_function_id rb_fid(int f)
{
    return TEST_ID_BASE(0x7F00C0000000ull, 0x4C000000u) + (uintptr_t)f * 0x40u;
}

/* A random IL map (count 0: none), entries sorted by old offset, or a
 * quarter of the time a lenient one (*flags ILMAP_LENIENT): two entries
 * swapped, an accurate flag past 1. */
static size_t rb_il_entries(prng *rng, ilmap_entry *e, unsigned *flags)
{
    size_t n = prng_below(rng, 4) == 0 ? 0 : 1 + prng_below(rng, 15);
    uint32_t o = 0, nw = prng_below(rng, 4);
    for (size_t i = 0; i < n; i++) {
        e[i].old_offset = o;
        e[i].new_offset = nw;
        e[i].accurate = 1;
        o += 1 + prng_below(rng, 6);
        nw += 1 + prng_below(rng, 12);
    }
    *flags = 0;
    if (n > 1 && prng_below(rng, 4) == 0) {
        size_t i = prng_below(rng, (uint32_t)n), j = prng_below(rng, (uint32_t)n);
        ilmap_entry t = e[i];
        e[i] = e[j];
        e[j] = t;
        e[j].accurate = -7;
        *flags = ILMAP_LENIENT;
    }
    return n;
}

static ilmap *rb_il(const ilmap_entry *e, size_t n, unsigned flags)
{
    ilmap *m = NULL;
    if (n && ilmap_create(e, n, flags, &m) != ILMAP_OK)
        return NULL;
    return m;
}

/* A random native map for code_size bytes: normal entries, specials, end
 * 0 (open) entries, as ilmap_native_from_entries() accepts them, IL
 * offsets about 65,535 now and then (a body's answers take the wide form
 * past it, as past 64 KiB of code: answers.h); count 0
 * when it refuses the draw (the body then has no map). */
static size_t rb_native_entries(prng *rng, uint32_t code_size, ilmap_native_entry *e)
{
    size_t n = prng_below(rng, 24);
    uint32_t at = 0;
    size_t k = 0;
    for (size_t i = 0; i < n && at < code_size; i++) {
        uint32_t len = 1 + prng_below(rng, code_size / 4 + 1);
        uint32_t end = code_size - at < len ? code_size : at + len;
        uint32_t pick = prng_below(rng, 10);
        e[k].il_offset = pick == 0 ? ILMAP_PROLOG : pick == 1 ? ILMAP_EPILOG
                       : pick == 2 ? ILMAP_NO_MAPPING
                       : pick == 3 && prng_below(rng, 4) == 0 ? 65530 + prng_below(rng, 12)
                                                               : prng_below(rng, 120);
        e[k].native_start = at;
        e[k].native_end = prng_below(rng, 6) == 0 ? 0 : end;
        k++;
        at = prng_below(rng, 5) == 0 ? at : end; /* sometimes two start together */
    }
    return k;
}

static ilmap_native *rb_native(const ilmap_native_entry *e, size_t n, uint32_t code_size)
{
    ilmap_native *m = NULL;
    if (n == 0 || ilmap_native_from_entries(e, n, code_size, &m) != ILMAP_OK)
        return NULL;
    return m;
}

static int rb_overlaps(const rb_world *w, const ilmap_code_range *r, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t j = i + 1; j < n; j++)
            if (r[i].start < r[j].start + r[j].size && r[j].start < r[i].start + r[i].size)
                return 1;
        for (int b = 0; b < RB_BODIES; b++) {
            const rb_body *o = &w->bodies[b];
            for (uint32_t k = 0; o->live && k < o->nranges; k++)
                if (r[i].start < o->ranges[k].start + o->ranges[k].size &&
                    o->ranges[k].start < r[i].start + r[i].size)
                    return 1;
        }
    }
    return 0;
}

/* What the store must answer for address (the model). */
static ilmap_status rb_expect(const rb_world *w, uintptr_t a, ilmap_store_location *want)
{
    memset(want, 0, sizeof *want);
    want->mapping = ILMAP_MAPPING_NO_INFO;
    for (int b = 0; b < RB_BODIES; b++) {
        const rb_body *o = &w->bodies[b];
        uint32_t base = 0;
        for (uint32_t k = 0; o->live && k < o->nranges; base += (uint32_t)o->ranges[k].size, k++) {
            if (a < o->ranges[k].start || a - o->ranges[k].start >= o->ranges[k].size)
                continue;
            want->function_id = rb_fid(o->func);
            want->rejit_id = o->rejit;
            want->module_id = MOD1;
            want->method_def = MD1 + (uint32_t)o->func;
            want->code_start = o->ranges[0].start;
            want->range_index = k;
            want->native_offset = base + (uint32_t)(a - o->ranges[k].start);
            uint32_t il = 0;
            want->mapping = o->native ? ilmap_native_to_il(o->native, want->native_offset, &il)
                                      : ILMAP_MAPPING_NO_INFO;
            want->il_offset = il;
            want->original_il_offset = il;
            if (!(o->flags & ILMAP_BODY_ORIGINAL_IL) && o->il &&
                (want->mapping == ILMAP_MAPPING_EXACT ||
                 want->mapping == ILMAP_MAPPING_APPROXIMATE ||
                 want->mapping == ILMAP_MAPPING_EPILOG))
                want->original_il_offset = ilmap_new_to_old(o->il, il);
            return ILMAP_OK;
        }
    }
    return ILMAP_E_NOT_FOUND;
}

static void rb_check(const rb_world *w, ilmap_store_reader *r, uintptr_t a, long round)
{
    ilmap_store_location got, want;
    ilmap_status st = ilmap_store_lookup(r, a, &got), wst = rb_expect(w, a, &want);
    test_checks++;
    if (st != wst || memcmp(&got, &want, sizeof got) != 0) {
        test_failures++;
        if (test_failures < 10)
            fprintf(stderr,
                    "random bodies, round %ld, address %#" PRIxPTR ": got %s fid %#" PRIxPTR
                    " rejit %" PRIuPTR " range %u offset %u mapping %#x il %u original %u; want "
                    "%s fid %#" PRIxPTR " rejit %" PRIuPTR " range %u offset %u mapping %#x il "
                    "%u original %u\n",
                    round, a, ilmap_status_str(st), got.function_id, got.rejit_id,
                    got.range_index, got.native_offset, got.mapping, got.il_offset,
                    got.original_il_offset, ilmap_status_str(wst), want.function_id,
                    want.rejit_id, want.range_index, want.native_offset, want.mapping,
                    want.il_offset, want.original_il_offset);
    }
}

/* A live body's exported native map, as the store gives it back (whole,
 * and truncated), against the model's map's export; and whether
 * get_body hands out the map, which a compact store does not keep. */
static void rb_check_entries(const rb_world *w, ilmap_store_reader *r, const rb_body *o,
                             long round)
{
    ilmap_native_entry want[24], got[24];
    size_t nwant = 0, ngot = 99, ncut = 99;
    if (o->native)
        CHECK_ST(ilmap_native_export(o->native, 24, &nwant, want), ILMAP_OK);
    const ilmap_store_snapshot *v = begin(r);
    ilmap_status st = ilmap_store_snapshot_get_native_entries(v, o->ranges[0].start, 24, &ngot,
                                                              got);
    ilmap_native_entry cut[1] = { { 7, 7, 7 } };
    ilmap_status cst = ilmap_store_snapshot_get_native_entries(
        v, o->ranges[o->nranges - 1].start + o->ranges[o->nranges - 1].size - 1, 1, &ncut, cut);
    ilmap_store_body_info info;
    CHECK_ST(ilmap_store_snapshot_get_body(v, o->ranges[0].start, &info), ILMAP_OK);
    int kept = (info.native_map != NULL) ==
               (o->native != NULL && !(w->store_flags & ILMAP_STORE_COMPACT_NATIVE));
    /* The IL map it captured, likewise. */
    ilmap_entry il_want[16], il_got[16];
    size_t il_nwant = 0, il_ngot = 99;
    if (o->il)
        CHECK_ST(ilmap_export(o->il, 16, &il_nwant, il_want), ILMAP_OK);
    ilmap_status ist = ilmap_store_snapshot_get_body_il_entries(v, o->ranges[0].start, 16,
                                                                &il_ngot, il_got);
    int il_kept = (info.il_map != NULL) ==
                  (o->il != NULL && !(w->store_flags & ILMAP_STORE_COMPACT_IL));
    end(r);
    test_checks++;
    if (ist != ILMAP_OK || il_ngot != il_nwant ||
        memcmp(il_got, il_want, il_nwant * sizeof il_want[0]) != 0 || !il_kept) {
        test_failures++;
        if (test_failures < 10)
            fprintf(stderr,
                    "random bodies, round %ld, flags %#x, body at %#" PRIxPTR ": IL entries %s, "
                    "%zu of %zu, il_map %s\n",
                    round, w->store_flags, o->ranges[0].start, ilmap_status_str(ist), il_ngot,
                    il_nwant, info.il_map ? "kept" : "NULL");
    }
    test_checks++;
    if (st != ILMAP_OK || ngot != nwant || memcmp(got, want, nwant * sizeof want[0]) != 0 ||
        cst != (nwant > 1 ? ILMAP_E_TRUNCATED : ILMAP_OK) || ncut != nwant ||
        (nwant > 0 ? memcmp(&cut[0], &want[0], sizeof cut[0]) != 0
                   : cut[0].il_offset != 7) ||
        !kept) {
        test_failures++;
        if (test_failures < 10)
            fprintf(stderr,
                    "random bodies, round %ld, flags %#x, body at %#" PRIxPTR ": entries %s, "
                    "%zu of %zu (truncated read %s, %zu), native_map %s\n",
                    round, w->store_flags, o->ranges[0].start, ilmap_status_str(st), ngot,
                    nwant, ilmap_status_str(cst), ncut, info.native_map ? "kept" : "NULL");
    }
}

/* Each function's IL maps as the store gives them back: the version's
 * (1), the method's (version 0's), against the model's arrays; and
 * whether the maps are handed out (a compact store keeps none). */
static void rb_check_il(const rb_world *w, ilmap_store_reader *r, long round)
{
    const ilmap_store_snapshot *v = begin(r);
    for (int f = 0; f < RB_FUNCS; f++) {
        for (int k = 0; k < 2; k++) {
            ilmap_entry got[16];
            size_t n = 99, want = w->il_count[f][k];
            ilmap_status st =
                k ? ilmap_store_snapshot_get_il_entries(v, rb_fid(f), 1, 16, &n, got)
                  : ilmap_store_snapshot_get_method_entries(v, MOD1, MD1 + (uint32_t)f, 16, &n,
                                                            got);
            const ilmap *m = (const ilmap *)1;
            CHECK_ST(ilmap_store_snapshot_get_il_map(v, rb_fid(f), (ilmap_rejit_id)k, &m),
                     ILMAP_OK);
            int handed = (m != NULL) == (want > 0 && !(w->store_flags & ILMAP_STORE_COMPACT_IL));
            test_checks++;
            if (st != ILMAP_OK || n != want ||
                memcmp(got, w->il_entries[f][k], want * sizeof got[0]) != 0 || !handed) {
                test_failures++;
                if (test_failures < 10)
                    fprintf(stderr,
                            "random bodies, round %ld, flags %#x, function %d version %d: IL "
                            "entries %s, %zu of %zu, map %s\n",
                            round, w->store_flags, f, k, ilmap_status_str(st), n, want,
                            m ? "handed out" : "NULL");
            }
        }
    }
    end(r);
}

/* Every address of every live body's ranges, their edges, and random
 * addresses around; every live body's exported entries; the IL maps. */
static void rb_check_all(const rb_world *w, ilmap_store_reader *r, long round)
{
    rb_check_il(w, r, round);
    for (int b = 0; b < RB_BODIES; b++) {
        const rb_body *o = &w->bodies[b];
        for (uint32_t k = 0; o->live && k < o->nranges; k++) {
            uintptr_t s = o->ranges[k].start, z = o->ranges[k].size;
            if (s > 0)
                rb_check(w, r, s - 1, round);
            rb_check(w, r, s + z, round);
            uintptr_t step = z > 128 ? z / 127 : 1;
            for (uintptr_t d = 0; d < z; d += step)
                rb_check(w, r, s + d, round);
            rb_check(w, r, s + z - 1, round);
        }
        if (o->live)
            rb_check_entries(w, r, o, round);
    }
    for (int i = 0; i < 64; i++)
        rb_check(w, r, w->base + (uintptr_t)(prng_next((prng *)&w->rng) % (w->span + 1)), round);
}

static void rb_round(rb_world *w, long round)
{
    ilmap_store *s;
    ilmap_store_reader *r;
    prng *rng = &w->rng;

    /* Where code goes: one page, a few pages, megabytes, near 4 GiB, high
     * 64-bit addresses and the top of the address space. */
    static const uintptr_t spans[] = { 0x8000u, 0x40000u, 0x4000000u };
    w->span = spans[prng_below(rng, 3)];
    switch (prng_below(rng, 4)) {
    case 0: w->base = 0x10000u; break;
    case 1: w->base = (uintptr_t)0xFFFFFFFFu - w->span - 0x100000u; break;
#if UINTPTR_MAX > 0xFFFFFFFFu
    case 2: w->base = (uintptr_t)0x7F1234560000ull + prng_below(rng, 0x10000u); break;
#endif
    default: w->base = UINTPTR_MAX - w->span - 0x1000u; break;
    }

    memset(w->bodies, 0, sizeof w->bodies);
    w->store_flags = (prng_below(rng, 2) ? ILMAP_STORE_COMPACT_NATIVE : 0) |
                     (prng_below(rng, 2) ? ILMAP_STORE_COMPACT_IL : 0);
    CHECK_ST(ilmap_store_create(2, w->store_flags, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    for (int f = 0; f < RB_FUNCS; f++) {
        CHECK_ST(ilmap_store_add_function(s, rb_fid(f), MOD1, MD1 + (uint32_t)f), ILMAP_OK);
        for (int k = 0; k < 2; k++)
            w->il_count[f][k] = rb_il_entries(rng, w->il_entries[f][k], &w->il_flags[f][k]);
        ilmap *m0 = rb_il(w->il_entries[f][0], w->il_count[f][0], w->il_flags[f][0]);
        ilmap *m1 = rb_il(w->il_entries[f][1], w->il_count[f][1], w->il_flags[f][1]);
        CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1 + (uint32_t)f, m0), ILMAP_OK);
        CHECK_ST(ilmap_store_add_version(s, rb_fid(f), 1, m1, 0), ILMAP_OK);
    }

    int ops = 40 + (int)prng_below(rng, 80);
    for (int op = 0; op < ops; op++) {
        int b = (int)prng_below(rng, RB_BODIES);
        rb_body *o = &w->bodies[b];
        if (o->live) {
            /* Remove it. */
            CHECK_ST(ilmap_store_remove_body(s, o->ranges[0].start), ILMAP_OK);
            ilmap_native_free(o->native);
            ilmap_free(o->il);
            memset(o, 0, sizeof *o);
            continue;
        }
        rb_body nb;
        memset(&nb, 0, sizeof nb);
        nb.func = (int)prng_below(rng, RB_FUNCS);
        nb.rejit = prng_below(rng, 2);
        nb.flags = prng_below(rng, 3) == 0 ? ILMAP_BODY_ORIGINAL_IL : 0;
        nb.nranges = 1 + prng_below(rng, RB_RANGES);
        uint32_t total = 0;
        for (uint32_t k = 0; k < nb.nranges; k++) {
            uint32_t size = prng_below(rng, 4) == 0 ? 1 + prng_below(rng, 0x30000u)
                                                    : 1 + prng_below(rng, 600);
            if ((uintptr_t)size > w->span)
                size = (uint32_t)w->span;
            nb.ranges[k].start = w->base + (uintptr_t)(prng_next(rng) % (w->span - size + 1));
            nb.ranges[k].size = size;
            total += size;
        }
        size_t ne = rb_native_entries(rng, total, w->native_entries[b]);
        ilmap_native *mine = rb_native(w->native_entries[b], ne, total);
        ilmap_native *theirs = rb_native(w->native_entries[b], ne, total);
        int clash = rb_overlaps(w, nb.ranges, nb.nranges);
        ilmap_status st = ilmap_store_add_body(s, rb_fid(nb.func), nb.rejit, nb.ranges,
                                               nb.nranges, theirs, nb.flags);
        CHECK_ST(st, clash ? ILMAP_E_OVERLAP : ILMAP_OK);
        if (st != ILMAP_OK) {
            ilmap_native_free(mine);
            ilmap_native_free(theirs);
            continue;
        }
        nb.live = 1;
        nb.native = mine;
        /* The IL map the version has now: captured by the body. */
        int v = nb.rejit ? 1 : 0;
        nb.il = rb_il(w->il_entries[nb.func][v], w->il_count[nb.func][v],
                      w->il_flags[nb.func][v]);
        *o = nb;
        /* Sometimes the method's map changes afterwards: bodies already
         * attached keep theirs (doc/il-maps.md#set-map). */
        if (prng_below(rng, 8) == 0) {
            int f = (int)prng_below(rng, RB_FUNCS);
            w->il_count[f][0] = rb_il_entries(rng, w->il_entries[f][0], &w->il_flags[f][0]);
            CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1 + (uint32_t)f,
                                            rb_il(w->il_entries[f][0], w->il_count[f][0],
                                                  w->il_flags[f][0])),
                     ILMAP_OK);
        }
        if (prng_below(rng, 12) == 0)
            rb_check_all(w, r, round);
    }
    rb_check_all(w, r, round);

    for (int b = 0; b < RB_BODIES; b++) {
        ilmap_native_free(w->bodies[b].native);
        ilmap_free(w->bodies[b].il);
    }
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    ilmap_store_free(s);
}

static void test_random_bodies(uint64_t seed)
{
    static rb_world w;
    /* A tenth of the cap where there is one (each round is ten times a
     * random-maps iteration); at least one. */
    long rounds = test_iterations(800) / 10 > 0 ? test_iterations(800) / 10 : 1;
    w.rng = prng_init(seed);
    for (long round = 0; round < rounds && test_failures == 0; round++)
        rb_round(&w, round);
}

/* n entries of width bytes of code each, IL offsets il_base + il_step * i. */
static void stride_entries(ilmap_native_entry *e, uint32_t n, uint32_t il_base,
                           uint32_t il_step, uint32_t width)
{
    for (uint32_t i = 0; i < n; i++) {
        e[i].il_offset = il_base + il_step * i;
        e[i].native_start = width * i;
        e[i].native_end = width * i + width;
    }
}

/* ilmap_store_stats.body_bytes: the bodies' blocks, from the store's own
 * chunks (a first small body takes a chunk) or, past 4 KiB, one block
 * each, given back when the body is reclaimed. */
static void test_body_bytes(void)
{
    ilmap_store *s = NULL;
    ilmap_store_stats st;
    CHECK_ST(ilmap_store_create(0, 0, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
    CHECK(st.body_bytes == 0);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    const ilmap_code_range small = { 0x10000, 16 };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, &small, 1, flat_native(0, 16), 0), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
    size_t chunk = st.body_bytes;
    CHECK(chunk >= 64 && chunk % 64 == 0);
    /* 1,024 intervals of 2 bytes each, IL offsets below 65,536: the
     * narrow form (answers.h), 8 bytes an interval, 8 KiB, a block of its
     * own. */
    enum { N = 1024 };
    static ilmap_native_entry e[N];
    stride_entries(e, N, 0, 1, 2);
    ilmap_native *big = NULL;
    CHECK_ST(ilmap_native_from_entries(e, N, 2 * N, &big), ILMAP_OK);
    const ilmap_code_range large = { 0x20000, 2 * N };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, &large, 1, big, 0), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
    size_t narrow = st.body_bytes - chunk;
    CHECK(narrow >= 8u * N && narrow < 16u * N && st.body_bytes % 64 == 0);
    /* The same with IL offsets past 65,535: the wide form, 16 bytes an
     * interval; both answer as their maps do. */
    stride_entries(e, N, 70000u, 1, 2);
    ilmap_native *wide = NULL;
    CHECK_ST(ilmap_native_from_entries(e, N, 2 * N, &wide), ILMAP_OK);
    const ilmap_code_range wider = { 0x30000, 2 * N };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, &wider, 1, wide, 0), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
    CHECK(st.body_bytes - chunk - narrow >= 16u * N);
    ilmap_store_reader *r = NULL;
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    ilmap_store_location loc;
    CHECK_ST(ilmap_store_lookup(r, 0x20000 + 2 * 700 + 1, &loc), ILMAP_OK);
    CHECK(loc.il_offset == 700 && loc.mapping == ILMAP_MAPPING_APPROXIMATE);
    CHECK_ST(ilmap_store_lookup(r, 0x30000 + 2 * 700, &loc), ILMAP_OK);
    CHECK(loc.il_offset == 70700 && loc.mapping == ILMAP_MAPPING_EXACT);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    CHECK_ST(ilmap_store_remove_body(s, 0x30000), ILMAP_OK);
    CHECK_ST(ilmap_store_remove_body(s, 0x20000), ILMAP_OK);
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &st), ILMAP_OK);
    CHECK(st.body_bytes == chunk);
    ilmap_store_free(s);
}

/* What a body costs a compact store (ILMAP_STORE_COMPACT_NATIVE): its
 * block (fields, range, narrow answers, packed entries) and nothing else,
 * the map freed, under 2x the runtime's exported array for it (12 bytes
 * an entry; doc/performance.md#store-compact). The IL maps, tables and
 * index the store keeps besides are not in this bound. */
static void test_compact_body_bytes(void)
{
    enum { N = 1024 };
    static ilmap_native_entry e[N], back[N];
    ilmap_store *s = NULL;
    ilmap_store_stats before, after;
    CHECK_ST(ilmap_store_create(0, ILMAP_STORE_COMPACT_NATIVE, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &before), ILMAP_OK);
    stride_entries(e, N, 0, 3, 5);
    ilmap_native *m = NULL;
    CHECK_ST(ilmap_native_from_entries(e, N, 5 * N, &m), ILMAP_OK);
    const ilmap_code_range code = { 0x40000, 5 * N };
    CHECK_ST(ilmap_store_add_body(s, FID1, 0, &code, 1, m, 0), ILMAP_OK);
    CHECK_ST(ilmap_store_get_stats(s, &after), ILMAP_OK);
    size_t block = after.body_bytes - before.body_bytes;
    CHECK(block > 0 && block <= 2u * 12u * N);
    ilmap_store_reader *r = NULL;
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    const ilmap_store_snapshot *v = begin(r);
    size_t total = 0;
    ilmap_store_body_info info;
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x40000 + 7, N, &total, back), ILMAP_OK);
    CHECK(total == N && memcmp(back, e, sizeof e) == 0);
    CHECK_ST(ilmap_store_snapshot_get_body(v, 0x40000, &info), ILMAP_OK);
    CHECK(info.native_map == NULL);
    /* The buffer protocol: a size query, a short buffer, bad arguments. */
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x40000, 0, &total, NULL), ILMAP_OK);
    CHECK(total == N);
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x40000, 3, &total, back),
             ILMAP_E_TRUNCATED);
    CHECK(total == N && memcmp(back, e, 3 * sizeof e[0]) == 0);
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x40000, 3, NULL, back),
             ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x40000, 3, &total, NULL),
             ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_get_native_entries(NULL, 0x40000, 3, &total, back),
             ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_native_entries(v, 0x90000, 3, &total, back),
             ILMAP_E_NOT_FOUND);
    CHECK(total == 0);
    end(r);
    printf("compact store: a body of %d entries takes %zu bytes, %.1f an entry (the exported "
           "array: 12)\n",
           N, block, (double)block / N);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    ilmap_store_free(s);
}

/* A store created with ILMAP_STORE_COMPACT_IL keeps IL maps' entries,
 * not the maps: the reads give the entries back (buffer protocol), the
 * map calls NULL, and bodies compose through the maps all the same. */
static void test_compact_il(void)
{
    enum { N = 40 };
    ilmap_entry e[N], back[N], ver[N];
    for (uint32_t i = 0; i < N; i++) {
        e[i].old_offset = i * 4;
        e[i].new_offset = i * 4 + (i ? 10 : 0);
        e[i].accurate = (int32_t)(i % 3) - 1;
        ver[i].old_offset = i * 2;
        ver[i].new_offset = i * 2 + (i ? 6 : 0);
        ver[i].accurate = 1;
    }
    ilmap_store *s = NULL;
    CHECK_ST(ilmap_store_create(0, ILMAP_STORE_COMPACT_IL, &s), ILMAP_OK);
    CHECK_ST(ilmap_store_add_function(s, FID1, MOD1, MD1), ILMAP_OK);
    ilmap *m = NULL, *twin = NULL, *vm = NULL;
    CHECK_ST(ilmap_create(e, N, 0, &m), ILMAP_OK);
    CHECK_ST(ilmap_create(ver, N, 0, &twin), ILMAP_OK);
    CHECK_ST(ilmap_create(ver, N, 0, &vm), ILMAP_OK);
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, m), ILMAP_OK); /* m is freed: not kept */
    CHECK_ST(ilmap_store_add_version(s, FID1, 1, vm, ILMAP_VERSION_CURRENT), ILMAP_OK);
    const ilmap_code_range code = { 0x50000, 64 };
    CHECK_ST(ilmap_store_add_body(s, FID1, 1, &code, 1, flat_native(30, 64), 0), ILMAP_OK);

    ilmap_store_reader *r = NULL;
    CHECK_ST(ilmap_store_reader_register(s, &r), ILMAP_OK);
    const ilmap_store_snapshot *v = begin(r);
    const ilmap *got = (const ilmap *)1;
    size_t total = 99;
    CHECK_ST(ilmap_store_snapshot_get_il_map(v, FID1, 0, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_method_map(v, MOD1, MD1, &got), ILMAP_OK);
    CHECK(got == NULL);
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID1, 0, N, &total, back), ILMAP_OK);
    CHECK(total == N && memcmp(back, e, sizeof e) == 0);
    CHECK_ST(ilmap_store_snapshot_get_method_entries(v, MOD1, MD1, N, &total, back), ILMAP_OK);
    CHECK(total == N && memcmp(back, e, sizeof e) == 0);
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID1, 1, N, &total, back), ILMAP_OK);
    CHECK(total == N && memcmp(back, ver, sizeof ver) == 0);
    CHECK_ST(ilmap_store_snapshot_get_body_il_entries(v, 0x50000 + 63, N, &total, back), ILMAP_OK);
    CHECK(total == N && memcmp(back, ver, sizeof ver) == 0);
    ilmap_store_body_info info;
    CHECK_ST(ilmap_store_snapshot_get_body(v, 0x50000, &info), ILMAP_OK);
    CHECK(info.il_map == NULL && info.native_map != NULL);
    /* The answers went through the version's map, rebuilt from its entries. */
    ilmap_store_location loc;
    CHECK_ST(ilmap_store_snapshot_lookup(v, 0x50000 + 5, &loc), ILMAP_OK);
    CHECK(loc.il_offset == 30 && loc.original_il_offset == ilmap_new_to_old(twin, 30) &&
          loc.original_il_offset != 30);
    /* The buffer protocol. */
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID1, 0, 0, &total, NULL), ILMAP_OK);
    CHECK(total == N);
    back[3].old_offset = 777;
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID1, 0, 3, &total, back), ILMAP_E_TRUNCATED);
    CHECK(total == N && memcmp(back, e, 3 * sizeof e[0]) == 0 && back[3].old_offset == 777);
    CHECK_ST(ilmap_store_snapshot_get_method_entries(v, MOD1, MD1, 3, &total, NULL),
             ILMAP_E_INVALID_ARG);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_get_body_il_entries(v, 0x50000, 3, NULL, back),
             ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_il_entries(NULL, FID1, 0, 3, &total, back),
             ILMAP_E_INVALID_ARG);
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID1, 2, 3, &total, back), ILMAP_E_NOT_FOUND);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_get_il_entries(v, FID2, 0, 3, &total, back), ILMAP_E_NOT_FOUND);
    CHECK_ST(ilmap_store_snapshot_get_body_il_entries(v, 0x90000, 3, &total, back),
             ILMAP_E_NOT_FOUND);
    CHECK(total == 0);
    CHECK_ST(ilmap_store_snapshot_get_method_entries(v, MOD2, MD1, 3, &total, back), ILMAP_OK);
    CHECK(total == 0);
    end(r);

    /* NULL clears the method's map in a compact store too (it keeps no map
     * to compare with). */
    CHECK_ST(ilmap_store_set_il_map(s, MOD1, MD1, NULL), ILMAP_OK);
    v = begin(r);
    CHECK_ST(ilmap_store_snapshot_get_method_entries(v, MOD1, MD1, N, &total, back), ILMAP_OK);
    CHECK(total == 0);
    end(r);
    CHECK_ST(ilmap_store_reader_unregister(r), ILMAP_OK);
    ilmap_free(twin);
    ilmap_store_free(s);
}

/* The whole heap a compact store takes for a profiler's bodies
 * (store-shapes.h: 4,096 bodies, a fifth of them a rejitted version's, IL
 * maps on 60% of versions), every map it keeps included: at most 2x the
 * runtime's exported native arrays (12 bytes an entry;
 * doc/performance.md#store-compact). Measured as glibc's heap growth;
 * elsewhere, and where the allocator is not glibc's (sanitizers), said and
 * not checked. */
static void test_compact_heap(void)
{
#ifdef HAVE_MALLINFO2
    enum { BODIES = 4096 };
    static ilmap_native_entry ne[SHAPE_MAX_NATIVE];
    ilmap_entry ie[SHAPE_IL_ENTRIES];
    const uint32_t funcs = BODIES * 5 / 6;
    prng rng = prng_init(0x5EED0028u);
    struct mallinfo2 before = mallinfo2();
    ilmap_store *s = NULL;
    CHECK_ST(ilmap_store_create(0, ILMAP_STORE_COMPACT_NATIVE | ILMAP_STORE_COMPACT_IL, &s),
             ILMAP_OK);
    size_t entries = 0;
    uintptr_t at = 0x10000000u;
    for (uint32_t i = 0; i < BODIES && s; i++) {
        uint32_t f = i < funcs ? i : prng_below(&rng, funcs), rejit = i < funcs ? 0 : i;
        ilmap_function_id fid = (ilmap_function_id)0x100000u + (ilmap_function_id)f * 16u;
        uint32_t md = 0x06000001u + f;
        ilmap *il = NULL;
        uint32_t nil = shape_il_entries(f, rejit, ie);
        if (nil)
            CHECK_ST(ilmap_create(ie, nil, 0, &il), ILMAP_OK);
        if (rejit == 0) {
            CHECK_ST(ilmap_store_add_function(s, fid, MOD1, md), ILMAP_OK);
            CHECK_ST(ilmap_store_set_il_map(s, MOD1, md, il), ILMAP_OK);
        } else {
            CHECK_ST(ilmap_store_add_version(s, fid, rejit, il, 0), ILMAP_OK);
        }
        uint32_t size = shape_body_size(&rng), n = shape_native_entries(size, i, ne);
        ilmap_native *native = NULL;
        CHECK_ST(ilmap_native_from_entries(ne, n, size, &native), ILMAP_OK);
        const ilmap_code_range code = { at, size };
        CHECK_ST(ilmap_store_add_body(s, fid, rejit, &code, 1, native, 0), ILMAP_OK);
        at += (size + 15u) & ~(uintptr_t)15u;
        entries += n;
    }
    CHECK_ST(ilmap_store_reclaim(s, NULL), ILMAP_OK);
    struct mallinfo2 after = mallinfo2();
    size_t grew = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
    if (after.uordblks + after.hblkhd <= before.uordblks + before.hblkhd) {
        printf("compact store heap: glibc's heap did not grow (another allocator): not checked\n");
    } else {
        test_checks++;
        if (grew > 2u * 12u * entries) {
            test_failures++;
            fprintf(stderr, "compact store heap: %zu bytes for %zu native entries, over 2x the "
                    "exported arrays (%zu)\n", grew, entries, 2u * 12u * entries);
        }
        printf("compact store heap: %d bodies, %zu native entries: %zu bytes, %.0f a body, "
               "%.2fx the exported arrays (bound: 2x)\n",
               BODIES, entries, grew, (double)grew / BODIES, (double)grew / (12.0 * entries));
    }
    ilmap_store_free(s);
#else
    printf("compact store heap: no mallinfo2 here: not checked\n");
#endif
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x5EED0012u);
    test_create_and_readers();
    test_method_maps();
    test_functions_and_versions();
    test_revert();
    test_bodies();
    test_body_bytes();
    test_compact_body_bytes();
    test_compact_il();
    test_compact_heap();
    test_remove();
    test_remove_under_readers();
    test_nesting_and_reclaim();
    test_fid_mapper();
    test_random_bodies(seed);
    return test_finish("versions");
}
