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

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Specials, 0, the signed boundary, near the top, around keys, random. */
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

static void check_batches(uint64_t seed, unsigned iteration, const ilmap *map,
                          const ilmap_entry *e, size_t n, unsigned flags, const query_set *qs,
                          const expectations *want, uint32_t *scratch, uint32_t *sorted)
{
    /* as given (random order) */
    ilmap_old_to_new_batch(map, qs->q, scratch, qs->n);
    for (size_t i = 0; i < qs->n; i++) {
        test_checks++;
        if (scratch[i] != want->o2n[i])
            report(seed, iteration, "old->new batch", e, n, flags, qs->q[i], scratch[i], want->o2n[i]);
    }
    /* sorted, in place */
    memcpy(sorted, qs->q, qs->n * sizeof *sorted);
    qsort(sorted, qs->n, sizeof *sorted, compare_u32);
    memcpy(scratch, sorted, qs->n * sizeof *sorted);
    ilmap_new_to_old_batch(map, scratch, scratch, qs->n);
    for (size_t i = 0; i < qs->n; i++) {
        uint32_t w = model_in_process(e, n, 1, sorted[i]);
        test_checks++;
        if (scratch[i] != w)
            report(seed, iteration, "new->old sorted batch", e, n, flags, sorted[i], scratch[i], w);
    }
    /* The orders a batch picks its path by (map_batch.c), each against the
     * model: descending; sorted runs of 5 to 40 (a method's samples, one
     * batch of several runs); and sorted with every query four times
     * (several per key: blocks inside one interval, or across one
     * boundary). old->new on a copy in place. */
    static const char *const orders[] = { "descending", "sorted runs", "sorted, repeated" };
    for (int o = 0; o < 3; o++) {
        size_t m = 0;
        if (o == 0) {
            for (size_t i = 0; i < qs->n; i++)
                scratch[m++] = sorted[qs->n - 1 - i];
        } else if (o == 1) {
            size_t run = 5 + (size_t)(iteration % 36);
            memcpy(scratch, qs->q, qs->n * sizeof *scratch);
            for (size_t at = 0; at < qs->n; at += run)
                qsort(scratch + at, qs->n - at < run ? qs->n - at : run, sizeof *scratch,
                      compare_u32);
            m = qs->n;
        } else {
            for (size_t i = 0; i < qs->n / 4; i++)
                for (int r = 0; r < 4; r++)
                    scratch[m++] = sorted[i];
        }
        uint32_t *copy = scratch + qs->cap; /* scratch holds 2 * cap */
        memcpy(copy, scratch, m * sizeof *copy);
        ilmap_old_to_new_batch(map, copy, copy, m);
        for (size_t i = 0; i < m; i++) {
            uint32_t w = model_in_process(e, n, 0, scratch[i]);
            test_checks++;
            if (copy[i] != w)
                report(seed, iteration, orders[o], e, n, flags, scratch[i], copy[i], w);
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
    query_set qs = { NULL, 0, 10 + 6 * around + 2 * (around + 16) };
    qs.q = malloc(qs.cap * sizeof *qs.q);
    expectations want = { malloc(qs.cap * 4), malloc(qs.cap * 4), malloc(qs.cap * 4) };
    uint32_t *scratch = malloc(qs.cap * 8), *sorted = malloc(qs.cap * 4);
    if (!e || !qs.q || !want.o2n || !want.n2o || !want.dac || !scratch || !sorted)
        exit(TEST_EXIT_SETUP_FAILURE);

    if (lenient)
        make_lenient(&rng, e, n, shape);
    else
        make_strict(&rng, e, n, shape);
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
        check_batches(seed, iteration, map, e, n, flags, &qs, &want, scratch, sorted);
        ilmap_free(map);
    }
    free(e);
    free(qs.q);
    free(want.o2n);
    free(want.n2o);
    free(want.dac);
    free(scratch);
    free(sorted);
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
