/*
 * Every storage form of an ilmap_native (doc/performance.md#native-memory)
 * answers as the runtime's scans do: maps shaped to land in each one
 * (small; direct with 8-, 16- and 32-bit key positions; the entry-answer
 * form a gapped array falls back to; PROLOG call instructions nested in
 * the ranges before them),
 * each lookup checked against a model written from doc/native-to-il.md
 * (MapNativeOffsetToIL's first match in sorted order, the IL floor's
 * first entry of the greatest IL offset <= x) over the exported table,
 * at every breakpoint, next to it, and at random offsets; then small maps
 * of every size, maps without a PROLOG (whose first IL offset equals the
 * word before it or not) and maps at the edges of the 16-bit forms (code
 * or IL offsets at 65535, 65536). Seeded; a
 * failure prints the map, the offset and both answers.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap.h"
#include "native/shape.h"
#include "prng.h"
#include "test.h"

/* The shapes the checked maps got (native/shape.h): every form and every
 * feature this build can give must be reached, or the test fails (a
 * threshold that moved would otherwise leave a shape unchecked without a
 * word). */
static unsigned long forms_seen[NATIVE_SHAPE_FORMS], features_seen[NATIVE_FEATURES];

static void note_shape(const ilmap_native *m)
{
    native_shape s = native_shape_of(m);
    forms_seen[s.form]++;
    for (unsigned i = 0; i < NATIVE_FEATURES; i++)
        features_seen[i] += (s.features >> i) & 1u;
}

static void check_shapes_reached(void)
{
    printf("maps checked by shape:");
    for (unsigned f = 0; f < NATIVE_SHAPE_FORMS; f++)
        printf(" %s %lu", native_shape_form_name((native_shape_form)f), forms_seen[f]);
    printf("\nby feature:");
    for (unsigned i = 0; i < NATIVE_FEATURES; i++)
        printf(" %s %lu", native_shape_feature_name(i), features_seen[i]);
    printf("\n");
    for (unsigned f = 0; f < NATIVE_SHAPE_FORMS; f++) {
        test_checks++;
        if (!forms_seen[f]) {
            test_failures++;
            fprintf(stderr, "no map checked has the shape %s\n",
                    native_shape_form_name((native_shape_form)f));
        }
    }
    unsigned built = native_shape_features_built();
    for (unsigned i = 0; i < NATIVE_FEATURES; i++) {
        if (!((built >> i) & 1u)) {
            if (features_seen[i]) {
                test_failures++;
                fprintf(stderr, "a map has the feature %s, which this build cannot give\n",
                        native_shape_feature_name(i));
            }
            continue;
        }
        test_checks++;
        if (!features_seen[i]) {
            test_failures++;
            fprintf(stderr, "no map checked has the feature %s\n", native_shape_feature_name(i));
        }
    }
}

/* The runtime's scan over the stored table (end 0: open, except for a
 * PROLOG); returns the entry, or (size_t)-1. */
static size_t model_entry(const ilmap_native_record *t, size_t n, uint32_t x)
{
    for (size_t i = 0; i < n; i++)
        if (x >= t[i].native_start &&
            ((t[i].native_end == 0 && t[i].il_offset != ILMAP_PROLOG) || x < t[i].native_end))
            return i;
    return (size_t)-1;
}

static unsigned model_to_il(const ilmap_native_record *t, size_t n, uint32_t last_il, uint32_t x,
                            uint32_t *il)
{
    size_t i = model_entry(t, n, x);

    *il = 0;
    if (i == (size_t)-1)
        return ILMAP_MAPPING_NO_INFO;
    switch (t[i].il_offset) {
    case ILMAP_PROLOG: return ILMAP_MAPPING_PROLOG;
    case ILMAP_NO_MAPPING: return ILMAP_MAPPING_UNMAPPED_ADDRESS;
    case ILMAP_EPILOG: *il = last_il; return ILMAP_MAPPING_EPILOG;
    default: break;
    }
    *il = t[i].il_offset;
    return x == t[i].native_start ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
}

/* The floor entry of IL offset x (not special), or (size_t)-1: in the
 * sorted table, the first entry of the last group of normal IL offsets
 * <= x. */
static size_t model_floor(const ilmap_native_record *t, size_t n, uint32_t x)
{
    size_t best = (size_t)-1;

    for (size_t i = 0; i < n; i++) {
        uint32_t il = t[i].il_offset;
        if (il >= ILMAP_EPILOG || il > x)
            continue;
        if (best == (size_t)-1 || t[best].il_offset < il)
            best = i;
    }
    return best;
}

static void check_native(const char *name, const ilmap_native *m, const ilmap_native_record *t,
                         size_t n, uint32_t x)
{
    uint32_t want_il, got_il = 0xDEADu, detail_il = 0xDEADu, which = 0;
    unsigned want = model_to_il(t, n, ilmap_native_get_last_il(m), x, &want_il);
    unsigned got = ilmap_native_to_il(m, x, &got_il);
    size_t entry = 0, want_entry = model_entry(t, n, x);
    unsigned detail = ilmap_native_to_il_detail(m, x, &detail_il, &entry, &which);
    /* which: the special entries the scan visited, those up to the
     * matched one (all of them without one) */
    uint32_t want_which = 0;
    for (size_t i = 0; i < (want_entry == (size_t)-1 ? n : want_entry + 1); i++)
        want_which += t[i].il_offset >= ILMAP_EPILOG;

    test_checks++;
    if (got != want || got_il != want_il || detail != want || detail_il != want_il ||
        which != want_which ||
        entry != (want_entry == (size_t)-1 ? ILMAP_NO_INDEX : want_entry)) {
        test_failures++;
        fprintf(stderr, "%s (n = %zu): native %u: got (0x%X, %u), detail (0x%X, %u, entry %zu), "
                        "model (0x%X, %u, entry %zu)\n",
                name, n, x, got, got_il, detail, detail_il, entry, want, want_il, want_entry);
    }
}

/* ilmap_il_to_native_ranges(x): every entry of IL offset x in table
 * order, exported (the code size as the end of unknown), a normal IL
 * offset or a special one; with room for all, for one, and for none. */
static void check_ranges(const char *name, const ilmap_native *m, const ilmap_native_record *t,
                         size_t n, uint32_t x, uint32_t code_size)
{
    static ilmap_native_entry got[70000];
    size_t total = 0, want = 0, cap = n + 1 < 70000 ? n + 1 : 70000;
    ilmap_status st = ilmap_il_to_native_ranges(m, x, cap, &total, got);
    int bad = st != ILMAP_OK;

    for (size_t i = 0; i < n; i++) {
        if (t[i].il_offset != x)
            continue;
        uint32_t end = (t[i].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) ? code_size
                                                                               : t[i].native_end;
        if (want < total && (got[want].il_offset != x ||
                             got[want].native_start != t[i].native_start ||
                             got[want].native_end != end))
            bad = 1;
        want++;
    }
    bad |= total != want;
    ilmap_native_entry one;
    size_t total1 = 7;
    st = ilmap_il_to_native_ranges(m, x, 1, &total1, &one);
    bad |= total1 != want || st != (want > 1 ? ILMAP_E_TRUNCATED : ILMAP_OK);
    if (want && !bad)
        bad |= one.native_start != got[0].native_start || one.native_end != got[0].native_end;
    size_t total0 = 7;
    bad |= ilmap_il_to_native_ranges(m, x, 0, &total0, NULL) != ILMAP_OK || total0 != want;
    test_checks++;
    if (bad) {
        test_failures++;
        fprintf(stderr, "%s (n = %zu): ranges of IL %u: got %zu, model %zu\n", name, n, x, total,
                want);
    }
}

static void check_il(const char *name, const ilmap_native *m, const ilmap_native_record *t,
                     size_t n, uint32_t x, uint32_t code_size)
{
    check_ranges(name, m, t, n, x, code_size);
    ilmap_native_entry e;
    size_t index = 0, want = model_floor(t, n, x);
    int matched = -1;
    ilmap_status st = ilmap_il_to_native(m, x, &e, &index, &matched);

    test_checks++;
    if (want == (size_t)-1) {
        if (st != ILMAP_E_NOT_FOUND || index != ILMAP_NO_INDEX || matched != 0) {
            test_failures++;
            fprintf(stderr, "%s (n = %zu): IL %u: got %s, index %zu; model: none\n", name, n, x,
                    ilmap_status_str(st), index);
        }
        return;
    }
    uint32_t end = (t[want].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) ? code_size
                                                                              : t[want].native_end;
    if (st != ILMAP_OK || index != want || e.il_offset != t[want].il_offset ||
        e.native_start != t[want].native_start || e.native_end != end ||
        matched != (t[want].il_offset == x)) {
        test_failures++;
        fprintf(stderr, "%s (n = %zu): IL %u: got %s, index %zu (%u, %u, %u); model %zu (%u, %u, %u)\n",
                name, n, x, ilmap_status_str(st), index, e.il_offset, e.native_start, e.native_end,
                want, t[want].il_offset, t[want].native_start, end);
    }
}

/* IL -> native for the special IL offsets: the first entry of that
 * class in the sorted table, matched, or none. */
static void check_special(const char *name, const ilmap_native *m, const ilmap_native_record *t,
                          size_t n, uint32_t code_size)
{
    static const uint32_t specials[] = { ILMAP_PROLOG, ILMAP_EPILOG, ILMAP_NO_MAPPING };

    for (size_t s = 0; s < 3; s++) {
        check_ranges(name, m, t, n, specials[s], code_size);
        ilmap_native_entry e;
        size_t index = 0, want = (size_t)-1;
        int matched = -1;
        ilmap_status st = ilmap_il_to_native(m, specials[s], &e, &index, &matched);
        for (size_t i = 0; i < n && want == (size_t)-1; i++)
            if (t[i].il_offset == specials[s])
                want = i;
        test_checks++;
        if (want == (size_t)-1 ? st != ILMAP_E_NOT_FOUND || index != ILMAP_NO_INDEX || matched
                               : st != ILMAP_OK || index != want || !matched ||
                                     e.il_offset != specials[s] ||
                                     e.native_start != t[want].native_start ||
                                     e.native_end != ((t[want].source &
                                                       ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
                                                          ? code_size
                                                          : t[want].native_end)) {
            test_failures++;
            fprintf(stderr, "%s (n = %zu): IL 0x%X: got %s, index %zu\n", name, n, specials[s],
                    ilmap_status_str(st), index);
        }
    }
}

/* Lookups both ways: every start and end and their neighbours, the
 * code's end and beyond, the top of the range, random offsets; every IL
 * offset of the table and its neighbours, random ones. */
/* The map's export reads back (ilmap_native_from_entries accepts every
 * array the build exports, doc/native-to-il.md#accepts), and the two
 * answer alike below the code size. At and above it the built map reads
 * the end-unknown entry's stored end, 0, and the array its exported one,
 * the code size; when that entry is a PROLOG, its stored end 0 matches
 * nothing while the exported range does, so there they differ from its
 * start on. */
static void check_read_back(const char *name, const ilmap_native *m, const ilmap_native_record *t,
                            size_t n, prng *rng)
{
    static int printed;
    uint32_t code_size = ilmap_native_get_code_size(m), limit = code_size;
    for (size_t i = 0; i < n; i++)
        if ((t[i].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN) &&
            t[i].il_offset == ILMAP_PROLOG)
            limit = t[i].native_start;
    ilmap_native_entry *e = malloc((n ? n : 1) * sizeof *e);
    ilmap_native *back = NULL;
    size_t total = 0;

    if (!e)
        exit(TEST_EXIT_SETUP_FAILURE);
    CHECK(ilmap_native_export(m, n, &total, e) == ILMAP_OK);
    ilmap_status st = ilmap_native_from_entries(e, total, code_size, &back);
    test_checks++;
    if (st != ILMAP_OK) {
        test_failures++;
        fprintf(stderr, "%s: the export of %zu entries does not read back: %s\n", name, total,
                ilmap_status_str(st));
    }
    /* Large maps: a sample (the detail is O(n) from 65,535 entries on). */
    size_t step = n > 4096 ? n / 256 : 1, queries = n > 4096 ? 256 : 2000;
    for (size_t i = 0; back && i < n + queries; i += i < n ? step : 1) {
        uint32_t x = i < n ? t[i].native_start : code_size ? prng_below(rng, code_size) : 0;
        uint32_t il1 = 0, il2 = 0, w1 = 0, w2 = 0;
        size_t k1 = 0, k2 = 0;
        if (x >= limit)
            continue;
        unsigned r1 = ilmap_native_to_il_detail(m, x, &il1, &k1, &w1);
        unsigned r2 = ilmap_native_to_il_detail(back, x, &il2, &k2, &w2);
        test_checks++;
        if (r1 != r2 || (r1 != ILMAP_MAPPING_EPILOG && il1 != il2) || k1 != k2 || w1 != w2) {
            test_failures++;
            if (printed++ < 20)
                fprintf(stderr, "%s: native %u: built (0x%X, IL %u, #%zu, %u), read back "
                                "(0x%X, IL %u, #%zu, %u)\n",
                        name, x, r1, il1, k1, w1, r2, il2, k2, w2);
        }
    }
    ilmap_native_free(back);
    free(e);
}

static void check_map(const char *name, const ilmap_native *m, prng *rng)
{
    size_t n = ilmap_native_get_count(m), total = 0;
    uint32_t code_size = ilmap_native_get_code_size(m), max_il = 0;
    ilmap_native_record *t = malloc((n ? n : 1) * sizeof *t);

    if (!t)
        exit(TEST_EXIT_SETUP_FAILURE);
    CHECK(ilmap_native_export_records(m, ILMAP_RECORDS_EXPORTED, n, &total, t) == ILMAP_OK);
    CHECK(total == n);
    /* Large maps: a sample of the entries (the model is a scan). */
    size_t step = n > 4096 ? n / 512 : 1;
    for (size_t i = 0; i < n; i += step) {
        for (uint32_t d = 0; d < 3; d++) {
            check_native(name, m, t, n, t[i].native_start + d - 1);
            check_native(name, m, t, n, t[i].native_end + d - 1);
            /* (IL offset 0's left neighbour is NO_MAPPING, a special
             * offset the floor model does not cover) */
            if (t[i].il_offset < ILMAP_EPILOG && t[i].il_offset + d - 1 < ILMAP_EPILOG)
                check_il(name, m, t, n, t[i].il_offset + d - 1, code_size);
        }
        if (t[i].il_offset < ILMAP_EPILOG && t[i].il_offset > max_il)
            max_il = t[i].il_offset;
    }
    for (uint32_t x = code_size; x < code_size + 3; x++)
        check_native(name, m, t, n, x);
    check_native(name, m, t, n, 0xFFFFFFFFu);
    check_il(name, m, t, n, 0xFFFFFFFCu, code_size);
    for (uint32_t x = 65533; x < 65538; x++)
        check_il(name, m, t, n, x, code_size);
    check_special(name, m, t, n, code_size);
    for (int q = 0; q < 2000; q++) {
        check_native(name, m, t, n, prng_below(rng, code_size + 8));
        check_il(name, m, t, n, prng_below(rng, max_il + 8), code_size);
    }
    check_read_back(name, m, t, n, rng);
    note_shape(m);
    free(t);
}

/* A JIT's boundaries, n of them: a prolog, IL offsets mostly rising with
 * loops placed again and some repeated (groups of 2 or more), unmapped
 * stubs, epilogs; about `calls` of them are PROLOG call instructions, as
 * a probe's calls before the first COR_IL_MAP entry are once translated:
 * exported, nested in the range before them (doc/native-maps.md#call-sites). */
static ilmap_native *jit_map(size_t n, unsigned calls, prng *rng)
{
    ilmap_boundary *jit = malloc(n * sizeof *jit);
    uint32_t native = 0, il = 0;
    ilmap_native *m = NULL;

    if (!jit)
        exit(TEST_EXIT_SETUP_FAILURE);
    for (size_t i = 0; i < n; i++) {
        uint32_t r = prng_below(rng, 64);
        jit[i].il_offset = i == 0 ? ILMAP_PROLOG
                           : i + 2 >= n ? ILMAP_EPILOG
                           : r == 0 ? ILMAP_NO_MAPPING
                           : r < 5 && il > 0 ? prng_below(rng, il)
                           : r < 8 ? il : (il += 1 + prng_below(rng, 5));
        jit[i].native_offset = native;
        jit[i].source = ILMAP_SOURCE_SEQUENCE_POINT;
        if (calls && i > 0 && prng_below(rng, (uint32_t)n) < calls) {
            jit[i].il_offset = ILMAP_PROLOG;
            jit[i].source = ILMAP_SOURCE_CALL_INSTRUCTION;
        }
        native += 1 + prng_below(rng, 12);
    }
    CHECK(ilmap_native_build(jit, n, NULL, native + 3, 0, &m) == ILMAP_OK);
    free(jit);
    return m;
}

/* An exported array with a gap after every range (twice the intervals:
 * the entry-answer form), as ilmap_native_from_entries takes it. */
static ilmap_native *gapped_map(size_t n, prng *rng)
{
    ilmap_native_entry *e = malloc(n * sizeof *e);
    ilmap_native *m = NULL;
    uint32_t il = 0;

    if (!e)
        exit(TEST_EXIT_SETUP_FAILURE);
    for (size_t i = 0; i < n; i++) {
        il += prng_below(rng, 3);
        e[i] = (ilmap_native_entry){ i == 0 ? ILMAP_PROLOG : il, 4 * (uint32_t)i,
                                     4 * (uint32_t)i + 2 };
    }
    CHECK(ilmap_native_from_entries(e, n, 4 * (uint32_t)n, &m) == ILMAP_OK);
    free(e);
    return m;
}

/* n ranges spread evenly over code_size bytes of code (the last one ends
 * there), as ilmap_native_from_entries takes them: with a PROLOG first
 * when prolog, else the first IL offset is first_il; then IL offsets up
 * to last_il, every 7th repeating its predecessor's (a group of two),
 * every 23rd a loop placed again (an earlier offset). For the edges of
 * the 16-bit forms (code or IL at 65535, 65536) and for the word before
 * the first normal entry (first_il equal to the last key, code_size). */
static ilmap_native *spread_map(size_t n, uint32_t code_size, int prolog, uint32_t first_il,
                                uint32_t last_il)
{
    ilmap_native_entry *e = malloc(n * sizeof *e);
    ilmap_native *m = NULL;

    if (!e)
        exit(TEST_EXIT_SETUP_FAILURE);
    for (size_t i = 0; i < n; i++) {
        uint32_t il = first_il + (uint32_t)((uint64_t)(last_il - first_il) * i / (n - 1));
        if (i % 7 == 6)
            il = e[i - 1].il_offset;
        if (i % 23 == 22)
            il = first_il + (uint32_t)(i % 5);
        e[i] = (ilmap_native_entry){ i == 0 && prolog ? ILMAP_PROLOG : il,
                                     (uint32_t)((uint64_t)code_size * i / n),
                                     (uint32_t)((uint64_t)code_size * (i + 1) / n) };
    }
    CHECK(ilmap_native_from_entries(e, n, code_size, &m) == ILMAP_OK);
    free(e);
    return m;
}

/* JIT boundaries: a PROLOG (else a NO_MAPPING) at 0, then one per IL
 * offset of il[0, k)
 * (the last, in native order, of unknown end: the code size), starts
 * spread up to last_start. */
static ilmap_native *edge_map(const uint32_t *il, size_t k, uint32_t last_start,
                              uint32_t code_size, int prolog)
{
    ilmap_boundary jit[16];
    ilmap_native *m = NULL;

    jit[0] = (ilmap_boundary){ 0, prolog ? ILMAP_PROLOG : ILMAP_NO_MAPPING,
                               ILMAP_SOURCE_SEQUENCE_POINT };
    for (size_t i = 0; i < k; i++)
        jit[i + 1] = (ilmap_boundary){ (uint32_t)((uint64_t)last_start * (i + 1) / k), il[i],
                                       ILMAP_SOURCE_SEQUENCE_POINT };
    CHECK(ilmap_native_build(jit, k + 1, NULL, code_size, 0, &m) == ILMAP_OK);
    return m;
}

/* n JIT boundaries of which about `specials` in 8 are EPILOGs or
 * NO_MAPPINGs (a few PROLOGs first), the normal IL offsets rising to
 * top: the answer word's `which` and entry at their widest (small maps:
 * up to 32 each; direct maps: hundreds of specials), and top at 65535 /
 * 65536 (the answer words' 16-bit IL offsets: doc/performance.md). */
static ilmap_native *specials_map(size_t n, uint32_t specials, uint32_t top, prng *rng)
{
    ilmap_boundary *jit = malloc(n * sizeof *jit);
    uint32_t native = 0;
    ilmap_native *m = NULL;

    if (!jit)
        exit(TEST_EXIT_SETUP_FAILURE);
    for (size_t i = 0; i < n; i++) {
        uint32_t r = prng_below(rng, 8);
        jit[i].il_offset = i < 2 ? ILMAP_PROLOG
                           : r < specials ? (r & 1 ? ILMAP_EPILOG : ILMAP_NO_MAPPING)
                                          : (uint32_t)((uint64_t)top * i / n);
        if (i > 0 && jit[i].il_offset == jit[i - 1].il_offset && i >= 2)
            jit[i].il_offset = (uint32_t)((uint64_t)top * i / n); /* keep every boundary */
        jit[i].native_offset = native;
        jit[i].source = ILMAP_SOURCE_SEQUENCE_POINT;
        native += 1 + prng_below(rng, 9);
    }
    jit[n - 1].il_offset = top;
    CHECK(ilmap_native_build(jit, n, NULL, native + 2, 0, &m) == ILMAP_OK);
    free(jit);
    return m;
}

int main(int argc, char **argv)
{
    prng rng = prng_init(test_seed(argc, argv, 0x4C41594F55545321ull));
    static const struct {
        const char *name;
        size_t n;
        unsigned calls; /* 0: built; else PROLOG calls among them; ~0u: gapped */
    } shapes[] = {
        { "small", 3, 0 },           { "small", 8, 0 },
        { "small", 32, 0 },          { "small, PROLOG calls", 20, 4 },
        { "direct, 8-bit", 100, 0 }, { "direct, 16-bit", 3000, 0 },
        { "direct, 32-bit", 70000, 0 }, { "direct, PROLOG calls", 500, 9 },
        { "gapped", 40, ~0u },       { "gapped", 5000, ~0u },
    };

    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        ilmap_native *m = shapes[s].calls == ~0u ? gapped_map(shapes[s].n, &rng)
                                                 : jit_map(shapes[s].n, shapes[s].calls, &rng);
        if (m)
            check_map(shapes[s].name, m, &rng);
        ilmap_native_free(m);
    }
    /* Small maps of every size (one 8-key step, several), with and
     * without a PROLOG. */
    for (size_t n = 3; n <= 32; n++) {
        ilmap_native *m = jit_map(n, 0, &rng);
        if (m)
            check_map("small, every size", m, &rng);
        ilmap_native_free(m);
        m = jit_map(n, 2, &rng); /* PROLOG calls, sometimes several */
        if (m)
            check_map("small, PROLOG calls, every size", m, &rng);
        ilmap_native_free(m);
        m = spread_map(n, 4 * (uint32_t)n + (uint32_t)n % 3, 0, (uint32_t)n % 4, 3 * (uint32_t)n);
        if (m)
            check_map("small, no prolog", m, &rng);
        ilmap_native_free(m);
    }
    /* Tiny maps (native.h: up to 8 normal entries, no two with the same
     * IL offset, IL below 65535 and code up to 65535; else the small
     * form's general copy): built ones with PROLOG calls, and
     * IL offsets and code at the edges of 16 bits (65534 to 65536), with
     * and without a group of two (i % 7 == 6 in spread_map). */
    for (int r = 0; r < 300; r++) {
        ilmap_native *m = jit_map(3 + (size_t)prng_below(&rng, 8), (unsigned)prng_below(&rng, 3),
                                  &rng);
        if (m)
            check_map("tiny", m, &rng);
        ilmap_native_free(m);
    }
    static const struct {
        size_t n;
        uint32_t code_size, first_il, last_il;
        int prolog;
    } tiny[] = {
        { 6, 65535, 0, 65534, 1 },  { 6, 65535, 0, 65535, 1 },  { 6, 65536, 0, 65534, 1 },
        { 6, 40, 60000, 65536, 1 }, { 5, 65535, 3, 65534, 0 }, { 8, 65535, 0, 65534, 1 },
        { 8, 65535, 0, 65534, 0 },  { 4, 20, 65530, 65534, 1 }, { 4, 20, 65533, 65535, 0 },
        { 3, 12, 1, 2, 1 },
    };
    for (size_t s = 0; s < sizeof tiny / sizeof tiny[0]; s++) {
        ilmap_native *m = spread_map(tiny[s].n, tiny[s].code_size, tiny[s].prolog,
                                     tiny[s].first_il, tiny[s].last_il);
        if (m)
            check_map("tiny, 16-bit edges", m, &rng);
        ilmap_native_free(m);
    }
    /* Tiny maps whose last entry in native order (of unknown end) is a
     * normal one: its end, the code size, at 65535 (tiny) and 65536
     * (not); IL offsets up to 65534 (tiny), 65535 and 65536 (not); an IL
     * group of two (not tiny), in order and not; EPILOGs and NO_MAPPINGs
     * placed between (the bound leaves room for the table of 5 normal
     * entries of 8, not of 7). */
    static const struct {
        uint32_t il[7];
        uint32_t last_start, code_size;
    } edges[] = {
        { { 0, ILMAP_EPILOG, 20, 30, ILMAP_EPILOG, 50, 65534 }, 65000, 65535 },
        { { 0, ILMAP_EPILOG, 20, 30, ILMAP_NO_MAPPING, 50, 65534 }, 65534, 65535 },
        { { 0, ILMAP_EPILOG, 20, 30, ILMAP_EPILOG, 50, 65534 }, 65000, 65536 },
        { { 0, ILMAP_EPILOG, 20, 30, ILMAP_EPILOG, 50, 65535 }, 65000, 65535 },
        { { 0, ILMAP_EPILOG, 20, 30, ILMAP_EPILOG, 50, 65536 }, 65000, 65535 },
        { { 65534, 3, ILMAP_EPILOG, 7, 40, ILMAP_NO_MAPPING, 1 }, 700, 800 },
        { { 5, 10, ILMAP_EPILOG, 10, 40, ILMAP_EPILOG, 60 }, 700, 800 },
        { { 60, 10, ILMAP_EPILOG, 30, 10, ILMAP_EPILOG, 5 }, 700, 800 },
        { { 60, 10, 30, 40, 10, 70, 5 }, 700, 800 },
    };
    for (size_t s = 0; s < sizeof edges / sizeof edges[0]; s++) {
        for (int prolog = 0; prolog < 2; prolog++) {
            ilmap_native *m =
                edge_map(edges[s].il, 7, edges[s].last_start, edges[s].code_size, prolog);
            if (m)
                check_map("tiny, unknown end, 16-bit edges", m, &rng);
            ilmap_native_free(m);
        }
    }
    /* The word before the first normal IL offset (no PROLOG: the last
     * key, the code size) equal to it and not; code and IL offsets at
     * the edges of 16 bits. */
    static const struct {
        const char *name;
        size_t n;
        uint32_t code_size;
        int prolog;
        uint32_t first_il, last_il;
    } spread[] = {
        { "no prolog, first IL = last key", 200, 1000, 0, 1000, 1600 },
        { "no prolog, first IL = last key", 20, 90, 0, 90, 150 },
        { "no prolog, first IL = last key", 6, 30, 0, 30, 40 },
        { "no prolog", 200, 1000, 0, 0, 1600 },
        { "code 65535", 3000, 65535, 1, 0, 9000 },
        { "code 65536", 3000, 65536, 1, 0, 9000 },
        { "code 65537", 3000, 65537, 1, 0, 9000 },
        { "IL 65535", 3000, 30000, 1, 0, 65535 },
        { "IL 65536", 3000, 30000, 1, 0, 65536 },
        { "IL 65536, code 65536", 300, 65536, 1, 65000, 65536 },
        { "small, code 65536", 12, 65536, 1, 0, 65535 },
        /* keys and IL offsets around 2^31 (the inline paths compare
         * them as signed: not for these) and near the top */
        { "code 2^31", 300, 0x80000010u, 1, 0, 9000 },
        { "code below 2^31", 300, 0x7FFFFF00u, 1, 0, 9000 },
        { "IL below 2^31", 300, 30000, 1, 0x7FFF0000u, 0x7FFFFF00u },
        { "IL 2^31", 300, 30000, 1, 0x7FFFFF00u, 0x80000100u },
        { "code and IL near 2^32", 300, 0xFFFFF000u, 1, 0xFFFF0000u, 0xFFFFFF00u },
        { "small, code 2^31", 6, 0x80000010u, 1, 0, 40 },
        { "small, IL 2^31", 6, 60, 1, 0x7FFFFFF0u, 0x80000010u },
        { "small, code and IL below 2^31", 6, 0x7FFFFFF0u, 1, 0x7FFFFF00u, 0x7FFFFFF0u },
        { "small, near 2^32", 7, 0xFFFFFFF0u, 1, 0xFFFFFF00u, 0xFFFFFFF0u },
    };
    for (size_t s = 0; s < sizeof spread / sizeof spread[0]; s++) {
        ilmap_native *m = spread_map(spread[s].n, spread[s].code_size, spread[s].prolog,
                                     spread[s].first_il, spread[s].last_il);
        if (m)
            check_map(spread[s].name, m, &rng);
        ilmap_native_free(m);
    }
    /* Special-heavy maps: small ones of every size and direct ones, IL
     * offsets up to 65535 (narrow answer words) and 65536 (not). */
    for (size_t n = 3; n <= 600; n += n < 40 ? 1 : 97) {
        for (uint32_t specials = 3; specials <= 7; specials += 4) {
            for (uint32_t top = 65535; top <= 65536; top++) {
                ilmap_native *m = specials_map(n, specials, top, &rng);
                if (m)
                    check_map("special-heavy", m, &rng);
                ilmap_native_free(m);
            }
        }
    }
    /* Boundaries all at native 0 (code of 0 bytes, or every entry but
     * the last empty): one key, and columns too short for an 8-key step
     * without the block's padding. */
    for (uint32_t code_size = 0; code_size <= 2; code_size++) {
        for (size_t k = 1; k <= 3; k++) {
            static const uint32_t il[3] = { 0, 4, ILMAP_EPILOG };
            for (int prolog = 0; prolog < 2; prolog++) {
                ilmap_native *m = edge_map(il, k, 0, code_size, prolog);
                if (m)
                    check_map("every boundary at native 0", m, &rng);
                ilmap_native_free(m);
            }
        }
    }
    check_shapes_reached();
    return test_finish("native-layouts");
}
