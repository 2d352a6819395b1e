/*
 * Map algebra: the map of an edit, composition against a brute-force
 * model of the runtime's two-step answer on random maps (with the
 * exactness it reports checked both ways), associativity, inversion
 * laws, the equivalence check against brute force, and stacked
 * rewriters end to end.
 */
#include <stdlib.h>
#include <string.h>

#include "il-gen.h"
#include "ilmap-algebra.h"
#include "ilmap-il.h"
#include "test.h"

/* Every key and value of the random maps is below SMALL or special, so
 * these points decide every answer (see ilmap_equivalent: answers only
 * change at keys). */
#define SMALL 160u
static uint32_t points[SMALL + 16];
static size_t npoints;

static void init_points(void)
{
    static const uint32_t extra[] = {SMALL,           SMALL + 1,   SMALL + 7,    1000,
                                     0x7FFFFFFEu,     0x7FFFFFFFu, 0x80000000u,  0x80000001u,
                                     0xFFFFFFFBu,     0xFFFFFFFCu, ILMAP_EPILOG, ILMAP_PROLOG,
                                     ILMAP_NO_MAPPING};
    for (uint32_t x = 0; x < SMALL; x++)
        points[npoints++] = x;
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        points[npoints++] = extra[i];
}

static uint32_t look(const ilmap *m, unsigned dir, uint32_t x)
{
    return dir == ILMAP_DIR_OLD_TO_NEW   ? ilmap_old_to_new(m, x)
           : dir == ILMAP_DIR_NEW_TO_OLD ? ilmap_new_to_old(m, x)
                                         : ilmap_new_to_old_dac(m, x);
}

typedef struct map_kind {
    int specials; /* special values may appear as keys or values */
    int lenient;
} map_kind;

static const uint32_t special_values[] = {ILMAP_EPILOG, ILMAP_PROLOG, ILMAP_NO_MAPPING};

/* A random map. Strict: both columns ascending from small starts with
 * gaps of 1-4, so maps often share offsets; specials: the top entries'
 * offsets may become special values. Lenient: anything. */
static ilmap *random_map(prng *rng, map_kind kind, ilmap_entry *e, size_t *count)
{
    size_t n =
        prng_below(rng, 4) == 0 ? 0 : 1 + prng_below(rng, prng_below(rng, 2) ? 6 : 24);
    uint32_t o = prng_below(rng, 6), v = prng_below(rng, 6);
    for (size_t i = 0; i < n; i++) {
        if (kind.lenient) {
            e[i].old_offset = prng_below(rng, 40);
            e[i].new_offset = prng_below(rng, 40);
        } else {
            e[i].old_offset = o;
            e[i].new_offset = v;
            o += 1 + prng_below(rng, 4);
            v += 1 + prng_below(rng, 4);
        }
        e[i].accurate = 1;
        if (kind.specials && prng_below(rng, 8) == 0)
            e[i].new_offset = special_values[prng_below(rng, 3)];
        if (kind.specials && prng_below(rng, 10) == 0)
            e[i].old_offset = special_values[prng_below(rng, 3)];
    }
    if (kind.specials && !kind.lenient) {
        /* Keep it strict: specials only where they still ascend. */
        size_t w = 0;
        for (size_t i = 0; i < n; i++)
            if (w == 0 ||
                (e[i].old_offset > e[w - 1].old_offset && e[i].new_offset > e[w - 1].new_offset))
                e[w++] = e[i];
        n = w;
    }
    *count = n;
    ilmap *m = NULL;
    CHECK(ilmap_create(e, n, kind.lenient ? ILMAP_LENIENT : 0, &m) == ILMAP_OK);
    return m;
}

/* The runtime's two-step answer: B after A old -> new, A after B new -> old. */
static uint32_t two_step(const ilmap *a, const ilmap *b, unsigned dir, uint32_t x)
{
    return dir == ILMAP_DIR_OLD_TO_NEW ? look(b, dir, look(a, dir, x))
                                       : look(a, dir, look(b, dir, x));
}

static unsigned brute_exact(const ilmap *a, const ilmap *b, const ilmap *c)
{
    unsigned exact = 0;
    for (unsigned dir = 1; dir <= 4; dir <<= 1) {
        int ok = 1;
        for (size_t i = 0; i < npoints && ok; i++)
            ok = look(c, dir, points[i]) == two_step(a, b, dir, points[i]);
        exact |= ok ? dir : 0;
    }
    return exact;
}

/* Every A new offset is a B old offset (the stacked-rewriter case). */
static int covers(const ilmap_entry *a, size_t na, const ilmap_entry *b, size_t nb)
{
    for (size_t i = 0; i < na; i++) {
        int found = 0;
        for (size_t j = 0; j < nb && !found; j++)
            found = b[j].old_offset == a[i].new_offset;
        if (!found)
            return 0;
    }
    return 1;
}

static void compose_random(prng *rng, int rounds)
{
    ilmap_entry ea[32], eb[32];
    long exact_n2o = 0, covered = 0;

    for (int round = 0; round < rounds; round++) {
        map_kind ka = {prng_below(rng, 4) == 0, prng_below(rng, 6) == 0};
        map_kind kb = {prng_below(rng, 4) == 0, prng_below(rng, 6) == 0};
        size_t na, nb;
        ilmap *a = random_map(rng, ka, ea, &na);
        ilmap *b = random_map(rng, kb, eb, &nb);
        /* Half the time, make B cover A: B gets an entry at each A new offset. */
        if (!ka.specials && !ka.lenient && !kb.specials && !kb.lenient && prng_below(rng, 2)) {
            ilmap_free(b);
            uint32_t v = prng_below(rng, 5);
            nb = 0;
            for (uint32_t y = 0; y < SMALL / 2 && nb < 32; y++) {
                int need = 0;
                for (size_t i = 0; i < na; i++)
                    need |= ea[i].new_offset == y;
                if (need || prng_below(rng, 8) == 0) {
                    eb[nb++] = (ilmap_entry){y, v, 1};
                    v += 1 + prng_below(rng, 3);
                }
            }
            CHECK(ilmap_create(eb, nb, 0, &b) == ILMAP_OK);
        }

        ilmap *c = NULL;
        unsigned exact = 99;
        ilmap_status st = ilmap_compose(a, b, ILMAP_LENIENT, &c, &exact);
        CHECK(st == ILMAP_OK);
        if (st != ILMAP_OK)
            continue;
        unsigned brute = brute_exact(a, b, c);
        CHECK(exact == brute);
        int plain = !ka.specials && !kb.specials && !ka.lenient && !kb.lenient;
        int special_pair = ka.specials && kb.specials;
        if (!special_pair)
            CHECK(exact & ILMAP_DIR_OLD_TO_NEW);
        if (plain)
            CHECK(!(ilmap_get_flags(c) & ILMAP_LENIENT));
        if (plain && covers(ea, na, eb, nb)) {
            covered++;
            CHECK(exact == ILMAP_DIR_ALL);
        }
        exact_n2o += (exact & ILMAP_DIR_NEW_TO_OLD) != 0;

        /* Strict mode: the same map, or UNSORTED exactly when it would be lenient. */
        ilmap *strict = (ilmap *)1;
        st = ilmap_compose(a, b, 0, &strict, NULL);
        if (ilmap_get_flags(c) & ILMAP_LENIENT) {
            CHECK(st == ILMAP_E_UNSORTED && strict == NULL);
        } else {
            CHECK(st == ILMAP_OK);
            int eq = 0;
            CHECK(ilmap_equivalent(c, strict, ILMAP_DIR_ALL, UINT32_MAX, &eq, NULL) == ILMAP_OK &&
                  eq);
            ilmap_free(strict);
        }
        ilmap_free(a);
        ilmap_free(b);
        ilmap_free(c);
    }
    printf("compose: %d pairs, %ld exact new->old, %ld with B covering A\n", rounds, exact_n2o,
           covered);
    CHECK(covered > rounds / 8);
}

static void entries_of(const ilmap *m, ilmap_entry *e, size_t *n)
{
    CHECK(ilmap_export(m, 64, n, e) == ILMAP_OK);
}

static void associativity(prng *rng, int rounds)
{
    ilmap_entry e1[32], e2[32], e3[32], l[64], r[64];
    map_kind plain = {0, 0};
    long compared = 0;

    for (int round = 0; round < rounds; round++) {
        size_t n1, n2, n3, nl, nr;
        map_kind k = prng_below(rng, 5) == 0 ? (map_kind){1, 0} : plain;
        ilmap *a = random_map(rng, k, e1, &n1), *b = random_map(rng, k, e2, &n2),
              *d = random_map(rng, k, e3, &n3);
        ilmap *ab, *bd, *left, *right;
        unsigned x1 = 0, x2 = 0, x3 = 0, x4 = 0;
        CHECK(ilmap_compose(a, b, ILMAP_LENIENT, &ab, &x1) == ILMAP_OK);
        CHECK(ilmap_compose(b, d, ILMAP_LENIENT, &bd, &x2) == ILMAP_OK);
        CHECK(ilmap_compose(ab, d, ILMAP_LENIENT, &left, &x3) == ILMAP_OK);
        CHECK(ilmap_compose(a, bd, ILMAP_LENIENT, &right, &x4) == ILMAP_OK);
        /* The three-step answer, old -> new, for every point. */
        for (size_t i = 0; i < npoints; i++) {
            uint32_t want =
                ilmap_old_to_new(d, ilmap_old_to_new(b, ilmap_old_to_new(a, points[i])));
            if ((x1 & x3 & 1) && (x2 & x4 & 1)) {
                CHECK_EQ_U32(ilmap_old_to_new(left, points[i]), want);
                CHECK_EQ_U32(ilmap_old_to_new(right, points[i]), want);
            }
        }
        if ((x1 & x3 & 1) && (x2 & x4 & 1) && ilmap_get_flags(left) == 0 &&
            ilmap_get_flags(right) == 0) {
            entries_of(left, l, &nl);
            entries_of(right, r, &nr);
            CHECK(nl == nr && memcmp(l, r, nl * sizeof *l) == 0);
            compared++;
        }
        if (!k.specials)
            CHECK((x1 & x2 & x3 & x4 & 1) == 1);
        ilmap_free(a);
        ilmap_free(b);
        ilmap_free(d);
        ilmap_free(ab);
        ilmap_free(bd);
        ilmap_free(left);
        ilmap_free(right);
    }
    printf("associativity: %ld of %d triples compared entry for entry\n", compared, rounds);
    CHECK(compared > rounds / 2);
}

static void inversion(prng *rng, int rounds)
{
    ilmap_entry e[32], e2[32], back[64];

    for (int round = 0; round < rounds; round++) {
        map_kind k = {prng_below(rng, 3) == 0, prng_below(rng, 4) == 0};
        size_t n, n2, nb;
        ilmap *m = random_map(rng, k, e, &n);
        ilmap *inv, *inv2;
        CHECK(ilmap_invert(m, 0, &inv) == ILMAP_OK);
        CHECK(ilmap_get_flags(inv) == ilmap_get_flags(m));
        for (size_t i = 0; i < npoints; i++) {
            CHECK_EQ_U32(ilmap_old_to_new(inv, points[i]), ilmap_new_to_old(m, points[i]));
            CHECK_EQ_U32(ilmap_new_to_old(inv, points[i]), ilmap_old_to_new(m, points[i]));
        }
        CHECK(ilmap_invert(inv, ILMAP_PORTABLE, &inv2) == ILMAP_OK);
        entries_of(inv2, back, &nb);
        CHECK(nb == n && (n == 0 || memcmp(back, e, n * sizeof *e) == 0));

        /* compose(A, B) inverted = compose(inv B, inv A), old -> new, when
         * the composition is exact new -> old. */
        if (!k.lenient && !k.specials) {
            ilmap *b = random_map(rng, (map_kind){0, 0}, e2, &n2), *c, *ib, *lhs, *rhs;
            unsigned exact = 0;
            CHECK(ilmap_compose(m, b, 0, &c, &exact) == ILMAP_OK);
            CHECK(ilmap_invert(b, 0, &ib) == ILMAP_OK);
            CHECK(ilmap_invert(c, 0, &lhs) == ILMAP_OK);
            CHECK(ilmap_compose(ib, inv, ILMAP_LENIENT, &rhs, NULL) == ILMAP_OK);
            int eq = 0;
            CHECK(ilmap_equivalent(lhs, rhs, ILMAP_DIR_OLD_TO_NEW, UINT32_MAX, &eq, NULL) ==
                  ILMAP_OK);
            if (exact & ILMAP_DIR_NEW_TO_OLD)
                CHECK(eq);
            /* Round trip on A's own keys: back where they started. */
            ilmap *rt;
            CHECK(ilmap_compose(m, inv, ILMAP_LENIENT, &rt, NULL) == ILMAP_OK);
            for (size_t i = 0; i < n; i++)
                CHECK_EQ_U32(ilmap_old_to_new(rt, e[i].old_offset), e[i].old_offset);
            ilmap_free(rt);
            ilmap_free(b);
            ilmap_free(c);
            ilmap_free(ib);
            ilmap_free(lhs);
            ilmap_free(rhs);
        }
        ilmap_free(m);
        ilmap_free(inv);
        ilmap_free(inv2);
    }
    ilmap *out = (ilmap *)1;
    CHECK(ilmap_invert(NULL, 0, &out) == ILMAP_E_INVALID_ARG && out == NULL);
}

static void equivalence(prng *rng, int rounds)
{
    ilmap_entry ea[32], eb[32];
    long differ = 0;

    for (int round = 0; round < rounds; round++) {
        map_kind ka = {prng_below(rng, 3) == 0, prng_below(rng, 4) == 0};
        map_kind kb = ka;
        size_t na, nb;
        ilmap *a = random_map(rng, ka, ea, &na), *b;
        if (prng_below(rng, 3) == 0) {
            /* A near copy: one offset nudged, or nothing changed. */
            memcpy(eb, ea, na * sizeof *ea);
            nb = na;
            if (nb && prng_below(rng, 2)) {
                size_t i = prng_below(rng, (uint32_t)nb);
                if (eb[i].new_offset < SMALL &&
                    (i + 1 == nb || eb[i].new_offset + 1 < eb[i + 1].new_offset))
                    eb[i].new_offset++;
            }
            CHECK(ilmap_create(eb, nb, ka.lenient ? ILMAP_LENIENT : 0, &b) == ILMAP_OK);
        } else {
            b = random_map(rng, kb, eb, &nb);
        }
        uint32_t bound = prng_below(rng, 2) ? UINT32_MAX : prng_below(rng, SMALL);
        for (unsigned dir = 1; dir <= 4; dir <<= 1) {
            int eq = -1;
            ilmap_difference d;
            CHECK(ilmap_equivalent(a, b, dir, bound, &eq, &d) == ILMAP_OK);
            size_t first = npoints;
            for (size_t i = 0; i < npoints && first == npoints; i++)
                if (points[i] <= bound && look(a, dir, points[i]) != look(b, dir, points[i]))
                    first = i;
            CHECK(eq == (first == npoints));
            if (first < npoints) {
                differ++;
                CHECK(d.direction == dir);
                CHECK_EQ_U32(d.offset, points[first]);
                CHECK_EQ_U32(d.a_answer, look(a, dir, points[first]));
                CHECK_EQ_U32(d.b_answer, look(b, dir, points[first]));
            } else {
                CHECK(d.direction == 0);
            }
        }
        int self = 0;
        CHECK(ilmap_equivalent(a, a, ILMAP_DIR_ALL, UINT32_MAX, &self, NULL) == ILMAP_OK && self);
        ilmap_free(a);
        ilmap_free(b);
    }
    printf("equivalence: %ld differing directions found\n", differ);
    int eq = 5;
    CHECK(ilmap_equivalent(NULL, NULL, 0, 10, &eq, NULL) == ILMAP_E_INVALID_ARG && eq == 0);
    CHECK(ilmap_equivalent(NULL, NULL, 8, 10, &eq, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_equivalent(NULL, NULL, 1, 10, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_equivalent(NULL, NULL, ILMAP_DIR_ALL, UINT32_MAX, &eq, NULL) == ILMAP_OK && eq);
}

static void edits_examples(void)
{
    const uint32_t starts[] = {0, 1, 3, 8};
    ilmap_entry e[4];
    uint32_t at[4], size = 1;
    size_t bad = 7;
    /* Given out of order on purpose: the builder applies them by offset. */
    const ilmap_edit edits[] = {{ILMAP_EDIT_INSERT, 3, 4},
                                {ILMAP_EDIT_REPLACE, 8, 3},
                                {ILMAP_EDIT_INSERT, 10, 5},
                                {ILMAP_EDIT_INSERT, 0, 2}};
    CHECK(ilmap_edits_build(starts, 4, 10, edits, 4, e, at, &size, &bad) == ILMAP_OK);
    const ilmap_entry want[] = {{0, 0, 1}, {1, 3, 1}, {3, 5, 1}, {8, 14, 1}};
    const uint32_t want_at[] = {2, 3, 9, 14};
    CHECK(memcmp(e, want, sizeof want) == 0 && memcmp(at, want_at, sizeof at) == 0);
    CHECK(size == 22 && bad == ILMAP_NO_INDEX);

    /* The worked example's map (doc/il-maps.md#worked-example),
     * (0,0),(5,10),(9,20): instructions at 0, 5, 9 of a 12-byte method,
     * the first two rewritten into 10 bytes each. */
    const uint32_t s3[] = {0, 5, 9};
    const ilmap_edit seed[] = {{ILMAP_EDIT_REPLACE, 0, 10}, {ILMAP_EDIT_REPLACE, 5, 10}};
    CHECK(ilmap_edits_build(s3, 3, 12, seed, 2, e, NULL, &size, NULL) == ILMAP_OK);
    CHECK(e[0].new_offset == 0 && e[1].new_offset == 10 && e[2].new_offset == 20 && size == 23);
    ilmap *sm;
    CHECK(ilmap_create(e, 3, 0, &sm) == ILMAP_OK);
    for (uint32_t x = 0; x < 30; x++) {
        CHECK_EQ_U32(ilmap_old_to_new(sm, x), x < 5 ? 0 : x < 9 ? 10 : 20);
        CHECK_EQ_U32(ilmap_new_to_old(sm, x), x < 10 ? 0 : x < 20 ? 5 : 9);
    }
    ilmap_free(sm);

    const ilmap_edit bad_edits[][2] = {
        {{ILMAP_EDIT_INSERT, 2, 1}, {0, 0, 0}},   /* not a start */
        {{ILMAP_EDIT_REPLACE, 3, 0}, {0, 0, 0}},  /* deletes */
        {{ILMAP_EDIT_REPLACE, 10, 1}, {0, 0, 0}}, /* replaces the end */
        {{7, 0, 1}, {0, 0, 0}},                   /* unknown kind */
        {{ILMAP_EDIT_INSERT, 11, 1}, {0, 0, 0}},  /* past the end */
    };
    for (size_t i = 0; i < sizeof bad_edits / sizeof bad_edits[0]; i++) {
        e[0].old_offset = 99;
        CHECK(ilmap_edits_build(starts, 4, 10, bad_edits[i], 1, e, at, &size, &bad) ==
              ILMAP_E_EDIT);
        CHECK(bad == 0 && size == 0 && e[0].old_offset == 0 && at[0] == 0);
    }
    const ilmap_edit twice[] = {
        {ILMAP_EDIT_REPLACE, 3, 2}, {ILMAP_EDIT_INSERT, 3, 2}, {ILMAP_EDIT_REPLACE, 3, 1}};
    CHECK(ilmap_edits_build(starts, 4, 10, twice, 3, e, at, &size, &bad) == ILMAP_E_EDIT &&
          bad == 2);
    const ilmap_edit huge[] = {{ILMAP_EDIT_INSERT, 0, 0xFFFFFFF0u}, {ILMAP_EDIT_INSERT, 1, 0x20}};
    CHECK(ilmap_edits_build(starts, 4, 10, huge, 2, e, at, &size, &bad) == ILMAP_E_LIMIT);
    const uint32_t unsorted[] = {0, 3, 1}, no_zero[] = {1, 3};
    CHECK(ilmap_edits_build(unsorted, 3, 10, NULL, 0, e, NULL, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_edits_build(no_zero, 2, 10, NULL, 0, e, NULL, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_edits_build(starts, 4, 8, NULL, 0, e, NULL, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_edits_build(starts, 4, 10, NULL, 1, e, NULL, NULL, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_edits_build(NULL, 0, 0, NULL, 0, NULL, NULL, &size, NULL) == ILMAP_OK && size == 0);
    CHECK(ilmap_edits_build(NULL, 0, 3, NULL, 0, NULL, NULL, &size, NULL) == ILMAP_E_INVALID_ARG);
}

/* The worked example (doc/il-maps.md#worked-example) composes with a
 * second pass that inserts 3 bytes before v1 offset 10 (and maps every v1
 * instruction). */
static void compose_example(void)
{
    const ilmap_entry a_e[] = {{0, 0, 1}, {5, 10, 1}, {9, 20, 1}};
    const ilmap_entry b_e[] = {{0, 0, 1}, {4, 4, 1}, {10, 10, 1}, {12, 15, 1}, {20, 23, 1}};
    ilmap *a, *b, *c;
    unsigned exact;
    CHECK(ilmap_create(a_e, 3, 0, &a) == ILMAP_OK);
    CHECK(ilmap_create(b_e, 5, 0, &b) == ILMAP_OK);
    CHECK(ilmap_compose(a, b, 0, &c, &exact) == ILMAP_OK);
    ilmap_entry got[8];
    size_t n;
    entries_of(c, got, &n);
    const ilmap_entry want[] = {{0, 0, 1}, {5, 10, 1}, {9, 23, 1}};
    CHECK(n == 3 && memcmp(got, want, sizeof want) == 0);
    CHECK(exact == ILMAP_DIR_ALL);
    ilmap_free(c);

    /* An empty side is the identity. */
    ilmap *empty;
    CHECK(ilmap_create(NULL, 0, 0, &empty) == ILMAP_OK);
    CHECK(ilmap_compose(empty, b, 0, &c, &exact) == ILMAP_OK && exact == ILMAP_DIR_ALL);
    entries_of(c, got, &n);
    CHECK(n == 5 && memcmp(got, b_e, sizeof b_e) == 0);
    ilmap_free(c);
    CHECK(ilmap_compose(a, empty, 0, &c, &exact) == ILMAP_OK && exact == ILMAP_DIR_ALL);
    ilmap_free(c);

    /* B starts above all of A's offsets: everything is PROLOG, and the
     * result must not turn into the identity. */
    const ilmap_entry high[] = {{100, 0, 1}};
    ilmap *h;
    CHECK(ilmap_create(high, 1, 0, &h) == ILMAP_OK);
    CHECK(ilmap_compose(a, h, 0, &c, &exact) == ILMAP_OK && exact == ILMAP_DIR_OLD_TO_NEW);
    CHECK(ilmap_get_count(c) == 1 && ilmap_old_to_new(c, 7) == ILMAP_PROLOG);
    CHECK(ilmap_old_to_new(c, ILMAP_EPILOG) == ILMAP_EPILOG);
    ilmap_free(c);

    CHECK(ilmap_compose(a, NULL, 0, &c, NULL) == ILMAP_E_INVALID_ARG && c == NULL);
    CHECK(ilmap_compose(a, b, 1u << 20, &c, NULL) == ILMAP_E_INVALID_ARG);
    CHECK(ilmap_compose(a, b, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    ilmap_free(a);
    ilmap_free(b);
    ilmap_free(h);
    ilmap_free(empty);
}

/* Two rewriters, one after the other, on random bodies: the composed map
 * sends every original instruction to the first byte either pass
 * injected before it, and every byte from there to the instruction back. */
static void stacked_rewriters(prng *rng, int rounds)
{
    static uint8_t pad[200];
    ilmap_il_clause clauses[8];
    ilmap_il_insertion ins1[12], ins2[12];

    for (int round = 0; round < rounds; round++) {
        gen_code g;
        gen_code_make(rng, 1 + prng_below(rng, 120), &g);
        size_t size;
        uint32_t nc;
        int fat;
        uint8_t *body = gen_body(rng, &g, 3, &size, clauses, &nc, &fat);
        size_t n1 = gen_insertions(rng, &g, ins1, 12, pad, 200);
        ilmap_rewrite *r1, *r2;
        CHECK(ilmap_rewrite_create(body, size, ins1, n1, 1, 0, &r1, NULL) == ILMAP_OK);
        size_t s1, c1, c2;
        const uint8_t *v1 = ilmap_rewrite_get_body(r1, &s1);
        ilmap_il_body b1;
        CHECK(ilmap_il_body_parse(v1, s1, &b1) == ILMAP_OK);
        /* The second pass sees v1 as its original: draw its insertions on
         * v1's instruction starts. */
        gen_code g1 = {0};
        size_t nstarts;
        CHECK(ilmap_il_starts(b1.code, b1.code_size, 0, &nstarts, NULL, NULL) == ILMAP_OK);
        uint32_t *st1 = malloc((nstarts + 1) * sizeof *st1);
        ilmap_il_starts(b1.code, b1.code_size, nstarts, &nstarts, st1, NULL);
        g1.n = (uint32_t)nstarts;
        g1.size = b1.code_size;
        g1.ins = calloc(nstarts + 1, sizeof *g1.ins);
        for (size_t i = 0; i < nstarts; i++)
            g1.ins[i].offset = st1[i];
        size_t n2 = gen_insertions(rng, &g1, ins2, 12, pad, 200);
        CHECK(ilmap_rewrite_create(v1, s1, ins2, n2, 1, 0, &r2, NULL) == ILMAP_OK);

        ilmap *a, *b, *c;
        const ilmap_entry *ea = ilmap_rewrite_get_entries(r1, &c1);
        const ilmap_entry *eb = ilmap_rewrite_get_entries(r2, &c2);
        CHECK(ilmap_create(ea, c1, 0, &a) == ILMAP_OK);
        CHECK(ilmap_create(eb, c2, 0, &b) == ILMAP_OK);
        unsigned exact = 0;
        CHECK(ilmap_compose(a, b, 0, &c, &exact) == ILMAP_OK);
        CHECK(exact == ILMAP_DIR_ALL);
        CHECK(ilmap_get_count(c) == g.n);

        size_t s2;
        const uint8_t *v2 = ilmap_rewrite_get_body(r2, &s2);
        ilmap_il_body b2;
        CHECK(ilmap_il_body_parse(v2, s2, &b2) == ILMAP_OK);
        CHECK(b2.max_stack == b1.max_stack + 1);
        for (uint32_t i = 0; i < g.n; i++) {
            uint32_t o = g.ins[i].offset, p1, p2;
            CHECK(ilmap_rewrite_old_to_new(r1, o, &p1) == ILMAP_OK);
            CHECK(ilmap_rewrite_old_to_new(r2, p1, &p2) == ILMAP_OK);
            uint32_t first = ilmap_old_to_new(c, o);
            CHECK(first <= p2);
            for (uint32_t y = first; y <= p2; y++)
                CHECK_EQ_U32(ilmap_new_to_old(c, y), o);
            if (g.ins[i].kind != ILMAP_IL_BRANCH8 && g.ins[i].kind != ILMAP_IL_BRANCH32 &&
                g.ins[i].kind != ILMAP_IL_SWITCH)
                CHECK(memcmp(b2.code + p2, g.code + o, g.ins[i].length) == 0);
            /* The bytes before it that neither pass attributes elsewhere. */
            if (i > 0) {
                uint32_t prev_p1, prev_p2;
                ilmap_rewrite_old_to_new(r1, g.ins[i - 1].offset, &prev_p1);
                ilmap_rewrite_old_to_new(r2, prev_p1, &prev_p2);
                CHECK(first > prev_p2);
            }
        }
        free(st1);
        gen_code_free(&g1);
        ilmap_free(a);
        ilmap_free(b);
        ilmap_free(c);
        ilmap_rewrite_free(r1);
        ilmap_rewrite_free(r2);
        free(body);
        gen_code_free(&g);
    }
}

int main(int argc, char **argv)
{
    prng rng;

    rng = prng_init(test_seed(argc, argv, 0xA16EB2A));
    init_points();
    edits_examples();
    compose_example();
    compose_random(&rng, 3000);
    associativity(&rng, 1500);
    inversion(&rng, 1500);
    equivalence(&rng, 2000);
    stacked_rewriters(&rng, 200);
    return test_finish("algebra");
}
