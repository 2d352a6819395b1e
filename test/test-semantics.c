/*
 * The worked examples of doc/il-maps.md#more-examples and the
 * COR_IL_MAP example of doc/il-maps.md#seed-example, as tables: every row is
 * (map, direction, input, expected) and is checked through the single lookup
 * and the batch.
 */
#include "ilmap.h"
#include "test.h"

enum direction { OLD_TO_NEW, NEW_TO_OLD, NEW_TO_OLD_DAC };

typedef struct example {
    const char *what;
    enum direction direction;
    uint32_t input;
    uint32_t expected;
} example;

#define P ILMAP_PROLOG
#define E ILMAP_EPILOG
#define N ILMAP_NO_MAPPING

static const char *direction_name(enum direction d)
{
    return d == OLD_TO_NEW ? "old->new" : d == NEW_TO_OLD ? "new->old" : "new->old (DAC)";
}

static uint32_t lookup(const ilmap *map, enum direction d, uint32_t x)
{
    switch (d) {
    case OLD_TO_NEW: return ilmap_old_to_new(map, x);
    case NEW_TO_OLD: return ilmap_new_to_old(map, x);
    case NEW_TO_OLD_DAC: break;
    }
    return ilmap_new_to_old_dac(map, x);
}

static uint32_t lookup_batch(const ilmap *map, enum direction d, uint32_t x)
{
    uint32_t in[1] = { x }, out[1] = { 0 };
    if (d == OLD_TO_NEW)
        ilmap_old_to_new_batch(map, in, out, 1);
    else if (d == NEW_TO_OLD)
        ilmap_new_to_old_batch(map, in, out, 1);
    else
        ilmap_new_to_old_dac_batch(map, in, out, 1);
    return out[0];
}

static void check_table(const char *name, const ilmap_entry *entries, size_t count,
                        unsigned flags, const example *rows, size_t nrows)
{
    static const unsigned impls[] = { 0, ILMAP_NO_AVX2, ILMAP_PORTABLE };
    for (size_t f = 0; f < sizeof impls / sizeof impls[0]; f++) {
        ilmap *map = NULL;
        ilmap_status st = ilmap_create(entries, count, flags | impls[f], &map);
        CHECK(st == ILMAP_OK);
        if (st != ILMAP_OK) {
            fprintf(stderr, "%s: ilmap_create: %s\n", name, ilmap_status_str(st));
            return;
        }
        for (size_t i = 0; i < nrows; i++) {
            const example *r = &rows[i];
            uint32_t got = lookup(map, r->direction, r->input);
            test_checks++;
            if (got != r->expected) {
                test_failures++;
                fprintf(stderr, "%s [%s, %s]: %s %s 0x%X -> 0x%X, want 0x%X\n", name,
                        ilmap_get_implementation(map), r->what, direction_name(r->direction),
                        "input", r->input, got, r->expected);
            }
            CHECK_EQ_U32(lookup_batch(map, r->direction, r->input), r->expected);
        }
        ilmap_free(map);
    }
}

#define TABLE(name, entries, flags, rows)                                                \
    check_table(name, entries, sizeof entries / sizeof entries[0], flags, rows,          \
                sizeof rows / sizeof rows[0])

/* doc/il-maps.md#more-examples, map M = [(0->0), (6->36), (8->50)]. */
static void spec_map_m(void)
{
    static const ilmap_entry m[] = { { 0, 0, 1 }, { 6, 36, 1 }, { 8, 50, 1 } };
    static const example rows[] = {
        { "M", OLD_TO_NEW, 0, 0 },     { "M", OLD_TO_NEW, 3, 0 },     { "M", OLD_TO_NEW, 6, 36 },
        { "M", OLD_TO_NEW, 7, 36 },    { "M", OLD_TO_NEW, 8, 50 },    { "M", OLD_TO_NEW, 100, 50 },
        { "M", NEW_TO_OLD, 36, 6 },    { "M", NEW_TO_OLD, 44, 6 },    { "M", NEW_TO_OLD, 49, 6 },
        { "M", NEW_TO_OLD, 50, 8 },    { "M", NEW_TO_OLD, 999, 8 },   { "M", NEW_TO_OLD_DAC, 44, 6 },
        { "M", NEW_TO_OLD_DAC, 999, 8 },
        /* specials (doc/decisions.md#decision-3) */
        { "M", OLD_TO_NEW, P, P },     { "M", OLD_TO_NEW, E, E },     { "M", OLD_TO_NEW, N, N },
        { "M", NEW_TO_OLD, P, P },     { "M", NEW_TO_OLD, E, E },     { "M", NEW_TO_OLD, N, N },
        { "M", NEW_TO_OLD_DAC, P, P }, { "M", NEW_TO_OLD_DAC, E, E }, { "M", NEW_TO_OLD_DAC, N, N },
        /* the dead "offset < 0" guard: large inputs go through the rules,
         * except in the DAC, where they pass through */
        { "M", OLD_TO_NEW, 0x80000000u, 50 },      { "M", NEW_TO_OLD, 0xFFFFFFFCu, 8 },
        { "M", NEW_TO_OLD_DAC, 0x80000000u, 0x80000000u },
        { "M", NEW_TO_OLD_DAC, 0x7FFFFFFFu, 8 },
    };
    TABLE("more-examples M", m, 0, rows);
}

/* doc/il-maps.md#more-examples, M' = [(2->10), (6->36)]: the PROLOG rule and
 * its absence in the DAC. */
static void spec_map_m_prime(void)
{
    static const ilmap_entry m[] = { { 2, 10, 1 }, { 6, 36, 1 } };
    static const example rows[] = {
        { "M'", OLD_TO_NEW, 1, P },     { "M'", NEW_TO_OLD, 5, P },
        { "M'", NEW_TO_OLD_DAC, 5, 2 }, { "M'", OLD_TO_NEW, 0, P },
        { "M'", OLD_TO_NEW, 2, 10 },    { "M'", NEW_TO_OLD, 10, 2 },
        { "M'", NEW_TO_OLD_DAC, 0, 2 }, { "M'", NEW_TO_OLD_DAC, 40, 6 },
    };
    TABLE("more-examples M'", m, 0, rows);
}

/* doc/il-maps.md#lenient, duplicate old offsets: the last of the equal keys
 * wins. */
static void spec_duplicates(void)
{
    static const ilmap_entry m[] = { { 6, 36, 1 }, { 6, 40, 1 }, { 8, 50, 1 } };
    static const example rows[] = {
        { "dup", OLD_TO_NEW, 6, 40 }, { "dup", OLD_TO_NEW, 7, 40 },
        { "dup", OLD_TO_NEW, 8, 50 }, { "dup", OLD_TO_NEW, 5, P },
    };
    TABLE("duplicates (lenient)", m, ILMAP_LENIENT, rows);
}

/* doc/il-maps.md#lenient, non-monotone new offsets [(0->10), (2->5),
 * (4->20)]. */
static void spec_non_monotone(void)
{
    static const ilmap_entry m[] = { { 0, 10, 1 }, { 2, 5, 1 }, { 4, 20, 1 } };
    static const example rows[] = {
        { "nm", NEW_TO_OLD, 7, P },      { "nm", NEW_TO_OLD, 3, P },
        { "nm", NEW_TO_OLD_DAC, 7, 2 },  { "nm", NEW_TO_OLD_DAC, 3, 0 },
        { "nm", NEW_TO_OLD, 15, 2 },     { "nm", NEW_TO_OLD_DAC, 15, 2 },
        { "nm", NEW_TO_OLD, 20, 4 },     { "nm", NEW_TO_OLD_DAC, 20, 4 },
        { "nm", NEW_TO_OLD, 10, 2 },     { "nm", OLD_TO_NEW, 3, 5 },
    };
    TABLE("non-monotone (lenient)", m, ILMAP_LENIENT, rows);
}

/* doc/il-maps.md#seed-example: map (0,0), (5,10), (9,20). */
static void seed_example(void)
{
    static const ilmap_entry m[] = { { 0, 0, 1 }, { 5, 10, 1 }, { 9, 20, 1 } };
    example rows[64];
    size_t n = 0;

    for (uint32_t old = 0; old <= 4; old++)
        rows[n++] = (example){ "seed", OLD_TO_NEW, old, 0 };
    for (uint32_t old = 5; old <= 8; old++)
        rows[n++] = (example){ "seed", OLD_TO_NEW, old, 10 };
    rows[n++] = (example){ "seed", OLD_TO_NEW, 9, 20 };
    rows[n++] = (example){ "seed", OLD_TO_NEW, 1000, 20 };
    for (uint32_t nw = 0; nw <= 9; nw++)
        rows[n++] = (example){ "seed", NEW_TO_OLD, nw, 0 };
    for (uint32_t nw = 10; nw <= 19; nw++)
        rows[n++] = (example){ "seed", NEW_TO_OLD, nw, 5 };
    rows[n++] = (example){ "seed", NEW_TO_OLD, 20, 9 };
    rows[n++] = (example){ "seed", NEW_TO_OLD, 12345, 9 };
    check_table("seed-example", m, 3, 0, rows, n);
}

/* An empty map is the identity, specials included (rule 1). */
static void empty_map(void)
{
    static const example rows[] = {
        { "empty", OLD_TO_NEW, 0, 0 },     { "empty", OLD_TO_NEW, 77, 77 },
        { "empty", OLD_TO_NEW, P, P },     { "empty", NEW_TO_OLD, E, E },
        { "empty", NEW_TO_OLD, N, N },     { "empty", NEW_TO_OLD_DAC, 5, 5 },
        { "empty", NEW_TO_OLD_DAC, P, P }, { "empty", NEW_TO_OLD, 0xFFFFFFFCu, 0xFFFFFFFCu },
    };
    check_table("empty map", NULL, 0, 0, rows, sizeof rows / sizeof rows[0]);
    check_table("empty map (lenient)", NULL, 0, ILMAP_LENIENT, rows, sizeof rows / sizeof rows[0]);
}

/* Decision 7: keys equal to the special values are accepted and the rules
 * apply in the runtime's order (PROLOG rule before the pass-through). */
static void keys_at_the_top(void)
{
    static const ilmap_entry high_first[] = { { 0xFFFFFFFEu, 5, 1 } };
    static const example rows1[] = {
        { "top", OLD_TO_NEW, E, P },   /* EPILOG < first key: PROLOG */
        { "top", OLD_TO_NEW, P, P },   { "top", OLD_TO_NEW, N, N },
        { "top", OLD_TO_NEW, 0, P },   { "top", NEW_TO_OLD, 5, 0xFFFFFFFEu },
        { "top", NEW_TO_OLD, 4, P },   { "top", NEW_TO_OLD_DAC, 4, 0xFFFFFFFEu },
    };
    TABLE("keys at the top", high_first, 0, rows1);

    static const ilmap_entry specials[] = {
        { 0, 0, 1 }, { 0xFFFFFFFCu, 10, 1 }, { 0xFFFFFFFDu, 20, 1 }, { 0xFFFFFFFFu, 30, 1 },
    };
    static const example rows2[] = {
        { "special keys", OLD_TO_NEW, 0xFFFFFFFBu, 0 },
        { "special keys", OLD_TO_NEW, 0xFFFFFFFCu, 10 },
        { "special keys", OLD_TO_NEW, E, E },  { "special keys", OLD_TO_NEW, P, P },
        { "special keys", OLD_TO_NEW, N, N },  { "special keys", NEW_TO_OLD, 25, 0xFFFFFFFDu },
        { "special keys", NEW_TO_OLD, 30, 0xFFFFFFFFu },
        { "special keys", NEW_TO_OLD, 19, 0xFFFFFFFCu },
    };
    TABLE("special values as keys", specials, 0, rows2);
}

/* fAccurate is carried, never interpreted (doc/decisions.md#decision-4). */
static void accurate_is_ignored(void)
{
    static const ilmap_entry a[] = { { 0, 0, 1 }, { 5, 10, 0 }, { 9, 20, -7 } };
    static const example rows[] = {
        { "accurate", OLD_TO_NEW, 6, 10 }, { "accurate", NEW_TO_OLD, 25, 9 },
        { "accurate", NEW_TO_OLD, 15, 5 },
    };
    TABLE("fAccurate ignored", a, 0, rows);

    ilmap *map = NULL;
    ilmap_entry back[3];
    size_t total = 0;
    CHECK(ilmap_create(a, 3, 0, &map) == ILMAP_OK);
    CHECK(ilmap_export(map, 3, &total, back) == ILMAP_OK);
    CHECK(total == 3 && back[1].accurate == 0 && back[2].accurate == -7);
    ilmap_free(map);
}

int main(void)
{
    spec_map_m();
    spec_map_m_prime();
    spec_duplicates();
    spec_non_monotone();
    seed_example();
    empty_map();
    keys_at_the_top();
    accurate_is_ignored();
    return test_finish("semantics");
}
