/*
 * Seeded randomized tests against a brute-force model of the runtime's
 * linear scan (doc/il-maps.md#lenient), for strict and lenient maps, every
 * lookup implementation (AVX2, SSE2, portable), single and batch lookups.
 *
 * Each iteration derives its own seed from the run's seed, so a failure
 * prints the one iteration to replay: `test-random-maps SEED ITERATION`.
 */
#include <string.h>

#include "ilmap.h"
#include "test.h"

#define P ILMAP_PROLOG
#define E ILMAP_EPILOG
#define N ILMAP_NO_MAPPING

/* ---- the model: the runtime's scan (doc/il-maps.md#lenient) ---- */

static uint32_t key_of(const ilmap_entry *e, int by_new) { return by_new ? e->new_offset : e->old_offset; }
static uint32_t value_of(const ilmap_entry *e, int by_new) { return by_new ? e->old_offset : e->new_offset; }

static uint32_t model_scan(const ilmap_entry *e, size_t n, int by_new, uint32_t x)
{
    for (size_t i = 1; i < n; i++)
        if (x < key_of(&e[i], by_new))
            return value_of(&e[i - 1], by_new);
    return value_of(&e[n - 1], by_new);
}

static uint32_t model_in_process(const ilmap_entry *e, size_t n, int by_new, uint32_t x)
{
    if (n == 0)
        return x;
    if (x < key_of(&e[0], by_new) || x == P)
        return P;
    if (x == E || x == N)
        return x;
    return model_scan(e, n, by_new, x);
}

static uint32_t model_dac(const ilmap_entry *e, size_t n, uint32_t x)
{
    if (n == 0 || (int32_t)x < 0)
        return x;
    return model_scan(e, n, 1, x);
}

/* ---- map shapes ---- */

enum shape { DENSE, SPARSE, AT_THE_TOP, FULL_RANGE, SHAPES };
static const char *const shape_names[] = { "dense", "sparse", "at-the-top", "full-range" };

static uint32_t gap(prng *rng, enum shape shape, size_t n)
{
    switch (shape) {
    case DENSE: return 1 + prng_below(rng, 4);
    case SPARSE: return 1 + prng_below(rng, (uint32_t)(n < 2048 ? 1u << 20 : 0x70000000u / n));
    case AT_THE_TOP: return 1 + prng_below(rng, 3);
    case FULL_RANGE: break;
    case SHAPES: break;
    }
    return 1 + prng_below(rng, (uint32_t)(0xFFFFFFF0u / (n + 1)));
}

/* Strictly ascending in both columns. AT_THE_TOP ends at 0xFFFFFFFF, so
 * keys equal to the special values occur. */
static void make_strict(prng *rng, ilmap_entry *e, size_t n, enum shape shape)
{
    uint32_t old_off = prng_below(rng, 8), new_off = prng_below(rng, 8);
    int top = shape == AT_THE_TOP;

    if (top) {
        old_off = 0xFFFFFFFFu - (uint32_t)n * 3u;
        new_off = 0xFFFFFFFFu - (uint32_t)n * 3u;
    }
    for (size_t i = 0; i < n; i++) {
        e[i] = (ilmap_entry){ old_off, new_off, 1 };
        uint32_t g = gap(rng, shape, n);
        /* probes: the new column sometimes moves further (never at the
         * top, where it must not wrap) */
        uint32_t probe = !top && prng_below(rng, 4) == 0 ? prng_below(rng, 16) : 0;
        old_off += g;
        new_off += g + probe;
        if (top && i + 2 == n) {
            old_off = 0xFFFFFFFFu;
            new_off = 0xFFFFFFFFu;
        }
    }
}

/* Anything: duplicates, disorder, non-monotone, sometimes sorted runs. */
static void make_lenient(prng *rng, ilmap_entry *e, size_t n, enum shape shape)
{
    uint32_t range = shape == DENSE ? (uint32_t)n + 3 : shape == SPARSE ? 1u << 24 : 0;

    make_strict(rng, e, n, shape);
    for (size_t i = 0; i < n; i++) {
        int what = (int)prng_below(rng, 6);
        size_t j = prng_below(rng, (uint32_t)n);
        ilmap_entry t;
        switch (what) {
        case 0: /* swap two entries */
            t = e[i];
            e[i] = e[j];
            e[j] = t;
            break;
        case 1: /* duplicate a key */
            e[i].old_offset = e[j].old_offset;
            break;
        case 2:
            e[i].new_offset = e[j].new_offset;
            break;
        case 3: /* a random key */
            e[i].new_offset = range ? prng_below(rng, range) : prng_u32(rng);
            break;
        default: /* keep */
            break;
        }
    }
}

/* ---- queries ---- */

typedef struct query_set {
    uint32_t *q;
    size_t n, cap;
} query_set;

static void add(query_set *s, uint32_t x)
{
    if (s->n < s->cap)
        s->q[s->n++] = x;
}

static void add_around(query_set *s, uint32_t k)
{
    add(s, k - 1);
    add(s, k);
    add(s, k + 1);
}

/* Sometimes the whole map moves up by as much as 2^20 (both columns, where
 * they do not wrap), so that many queries fall below the first key: the
 * in-process rules answer PROLOG there, the DAC's scan does not (a batch
 * answers them inside its kernels). */
static void maybe_lift(prng *rng, ilmap_entry *e, size_t n)
{
    uint32_t top = 0, lift = prng_below(rng, 3) == 0 ? prng_below(rng, 1u << 20) : 0;

    for (size_t i = 0; i < n; i++) {
        top = e[i].old_offset > top ? e[i].old_offset : top;
        top = e[i].new_offset > top ? e[i].new_offset : top;
    }
    if (lift == 0 || top > 0xFFFFFFFFu - lift)
        return;
    for (size_t i = 0; i < n; i++) {
        e[i].old_offset += lift;
        e[i].new_offset += lift;
    }
}

/* Specials, 0, the signed boundary, near the top, around keys, random,
 * below the first keys. */
static void make_queries(prng *rng, const ilmap_entry *e, size_t n, query_set *s, size_t around)
{
    static const uint32_t fixed[] = { P, E, N, 0, 1, 0x7FFFFFFFu, 0x80000000u, 0x80000001u,
                                      0xFFFFFFFCu, 0xFFFFFFFBu };
    s->n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        add(s, fixed[i]);
    for (size_t i = 0; i < around && n > 0; i++) {
        size_t j = around >= n ? i % n : prng_below(rng, (uint32_t)n);
        add_around(s, e[j].old_offset);
        add_around(s, e[j].new_offset);
    }
    uint32_t top = n ? e[n - 1].new_offset + 64 : 64;
    for (size_t i = 0; i < around + 16; i++) {
        add(s, prng_u32(rng));
        add(s, prng_below(rng, top ? top : 1));
    }
    for (size_t i = 0; i < around / 2 + 8 && n > 0; i++) {
        uint32_t first = i % 2 ? e[0].new_offset : e[0].old_offset;
        add(s, prng_below(rng, first ? first : 1));
    }
}

/* ---- one iteration ---- */

typedef struct expectations {
    uint32_t *o2n, *n2o, *dac;
} expectations;

static const unsigned impls[] = { 0, ILMAP_NO_AVX2, ILMAP_PORTABLE };
static int reported;

static void report(uint64_t seed, unsigned iteration, const char *what, const ilmap_entry *e,
                   size_t n, unsigned flags, uint32_t x, uint32_t got, uint32_t want)
{
    test_failures++;
    if (reported++ >= 10)
        return;
    fprintf(stderr,
            "FAIL seed 0x%" PRIX64 " iteration %u: %s, n=%zu, flags 0x%X: input 0x%08X -> 0x%08X,"
            " want 0x%08X\n",
            seed, iteration, what, n, flags, x, got, want);
    for (size_t i = 0; i < n && n <= 24; i++)
        fprintf(stderr, "    entry %zu: old 0x%08X new 0x%08X\n", i, e[i].old_offset,
                e[i].new_offset);
}

/* The batch lookups, each against the single lookups' expected answers
 * (the model), in every order a batch sees its queries in (the order
 * decides its path, map_batch.c): as generated (random), ascending,
 * descending, sorted runs of 5 to 40 (a method's samples, one batch of
 * several runs), and ascending with every query four times (several per
 * key: blocks inside one interval, or across one boundary). The orders
 * permute indices into the query set, so each query's expected answer is
 * computed once. Half of the calls run in place. */
typedef void (*batch_fn)(const ilmap *map, const uint32_t *in, uint32_t *out, size_t n);

enum { ORDERS = 5, REPEAT = 4 };
static const char *const order_names[ORDERS] = { "random", "ascending", "descending",
                                                 "sorted runs", "ascending, repeated" };

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* perm[0..return) for one order; keyed holds 2 * qs->n items. */
static size_t make_order(int order, unsigned iteration, const query_set *qs, uint64_t *keyed,
                         uint32_t *perm)
{
    size_t n = qs->n, m = 0;
    size_t run = order == 3 ? 5 + (size_t)(iteration % 36) : n;

    for (size_t i = 0; i < n; i++)
        keyed[i] = (uint64_t)qs->q[i] << 32 | i;
    if (order != 0)
        for (size_t at = 0; at < n; at += run)
            qsort(keyed + at, n - at < run ? n - at : run, sizeof *keyed, compare_u64);
    for (size_t i = 0; i < n; i++) {
        uint32_t idx = (uint32_t)keyed[order == 2 ? n - 1 - i : i];
        for (int r = 0; r < (order == 4 ? REPEAT : 1); r++)
            perm[m++] = idx;
    }
    return m;
}

static void check_batches(uint64_t seed, unsigned iteration, const ilmap *map,
                          const ilmap_entry *e, size_t n, unsigned flags, const query_set *qs,
                          const expectations *want, uint32_t *in, uint32_t *out, uint32_t *perm,
                          uint64_t *keyed)
{
    static const batch_fn batches[3] = { ilmap_old_to_new_batch, ilmap_new_to_old_batch,
                                         ilmap_new_to_old_dac_batch };
    static const char *const names[3] = { "old->new batch", "new->old batch",
                                          "new->old DAC batch" };
    const uint32_t *wants[3] = { want->o2n, want->n2o, want->dac };
    char what[64];

    for (int order = 0; order < ORDERS; order++) {
        size_t m = make_order(order, iteration, qs, keyed, perm);
        for (int b = 0; b < 3; b++) {
            int in_place = (order + b) % 2;
            uint32_t *dst = in_place ? in : out;
            for (size_t i = 0; i < m; i++)
                in[i] = qs->q[perm[i]];
            batches[b](map, in, dst, m);
            snprintf(what, sizeof what, "%s, %s%s", names[b], order_names[order],
                     in_place ? ", in place" : "");
            for (size_t i = 0; i < m; i++) {
                uint32_t w = wants[b][perm[i]];
                test_checks++;
                if (dst[i] != w)
                    report(seed, iteration, what, e, n, flags, qs->q[perm[i]], dst[i], w);
            }
        }
    }
}

static void run_iteration(uint64_t seed, unsigned iteration, long *queries)
{
    prng rng;
    rng = prng_init(seed ^ ((uint64_t)iteration * 0x9E3779B97F4A7C15ull));

    /* Mostly small maps (every layer boundary of the index is crossed by
     * sizes around 16, 272, 4624), sometimes large ones. */
    size_t n;
    uint32_t pick = prng_below(&rng, 100);
    if (pick < 60)
        n = prng_below(&rng, 40);
    else if (pick < 85)
        n = 240 + prng_below(&rng, 80);
    else if (pick < 97)
        n = 4560 + prng_below(&rng, 160);
    else
        n = 70000 + prng_below(&rng, 20000);
    enum shape shape = (enum shape)prng_below(&rng, SHAPES);
    int lenient = prng_below(&rng, 3) == 0;
    size_t around = n <= 400 ? n : 300;

    ilmap_entry *e = malloc((n ? n : 1) * sizeof *e);
    query_set qs = { NULL, 0, 10 + 6 * around + 2 * (around + 16) + around / 2 + 8 };
    qs.q = malloc(qs.cap * sizeof *qs.q);
    expectations want = { malloc(qs.cap * 4), malloc(qs.cap * 4), malloc(qs.cap * 4) };
    /* batch input, output and order: every query up to REPEAT times */
    uint32_t *in = malloc(qs.cap * REPEAT * 4), *out = malloc(qs.cap * REPEAT * 4);
    uint32_t *perm = malloc(qs.cap * REPEAT * 4);
    uint64_t *keyed = malloc(qs.cap * 8);
    if (!e || !qs.q || !want.o2n || !want.n2o || !want.dac || !in || !out || !perm || !keyed)
        exit(TEST_EXIT_SETUP_FAILURE);

    if (lenient)
        make_lenient(&rng, e, n, shape);
    else
        make_strict(&rng, e, n, shape);
    maybe_lift(&rng, e, n);
    make_queries(&rng, e, n, &qs, around);
    for (size_t i = 0; i < qs.n; i++) {
        want.o2n[i] = model_in_process(e, n, 0, qs.q[i]);
        want.n2o[i] = model_in_process(e, n, 1, qs.q[i]);
        want.dac[i] = model_dac(e, n, qs.q[i]);
    }

    for (size_t f = 0; f < sizeof impls / sizeof impls[0]; f++) {
        unsigned flags = impls[f] | (lenient ? ILMAP_LENIENT : 0);
        ilmap *map = NULL;
        ilmap_status st = ilmap_create(e, n, flags, &map);
        test_checks++;
        if (st != ILMAP_OK) {
            test_failures++;
            reported++;
            fprintf(stderr, "FAIL seed 0x%" PRIX64 " iteration %u: create %s (%s, n=%zu)\n", seed,
                    iteration, ilmap_status_str(st), shape_names[shape], n);
            continue;
        }
        for (size_t i = 0; i < qs.n; i++) {
            uint32_t x = qs.q[i], got;
            test_checks += 3;
            if ((got = ilmap_old_to_new(map, x)) != want.o2n[i])
                report(seed, iteration, "old->new", e, n, flags, x, got, want.o2n[i]);
            if ((got = ilmap_new_to_old(map, x)) != want.n2o[i])
                report(seed, iteration, "new->old", e, n, flags, x, got, want.n2o[i]);
            if ((got = ilmap_new_to_old_dac(map, x)) != want.dac[i])
                report(seed, iteration, "new->old DAC", e, n, flags, x, got, want.dac[i]);
        }
        *queries += (long)qs.n * 3;
        check_batches(seed, iteration, map, e, n, flags, &qs, &want, in, out, perm, keyed);
        ilmap_free(map);
    }
    free(e);
    free(qs.q);
    free(want.o2n);
    free(want.n2o);
    free(want.dac);
    free(in);
    free(out);
    free(perm);
    free(keyed);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x1A3A9D11ull);
    unsigned first = 0, iterations = 1500;
    long queries = 0;
    /* Fewer iterations of the same seed under an emulator (test.h). */
    iterations = (unsigned)test_iterations(iterations);

    if (argc > 2) { /* replay one iteration */
        first = (unsigned)strtoul(argv[2], NULL, 0);
        iterations = 1;
    }
    for (unsigned it = first; it < first + iterations && reported < 10; it++)
        run_iteration(seed, it, &queries);
    printf("%ld single-lookup queries checked against the model\n", queries);
    return test_finish("random-maps");
}
