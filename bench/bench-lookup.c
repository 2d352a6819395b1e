/*
 * bench-lookup: how fast libilmap answers COR_IL_MAP lookups, measured in
 * one run next to the two ways a profiler answers them without it:
 *
 *   linear   the runtime's own scan (TranslateToInstIL), O(n) per lookup;
 *   bsearch  a textbook binary search over the same COR_IL_MAP array.
 *
 * Both baselines are written here, inline, reading the caller's
 * ilmap_entry array the way a profiler's code would; libilmap is called
 * through its public API and shared library, as users call it. Also
 * measured: the batch calls (sorted queries against a plain read of the
 * input, random queries against single lookups) and ilmap_create.
 *
 * The table marks each row PASS or MISS against the project's performance
 * targets; --json prints one result per line for tools. The exit status
 * reports only whether the benchmark ran (and its cross-check of all three
 * implementations agreed), never the targets.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ilmap.h"

#define JSON_EXAMPLE "{\"op\": \"old_to_new\", \"n\": 4096, \"impl\": \"ilmap\", \"ns\": 3.21}"

#define RANDOM_QUERIES (1u << 16) /* per direction */
#define SORTED_QUERIES (1u << 20) /* for the sorted batch */
#define QUERY_SLACK 16u           /* queries reach this far past the last key */

/* The performance targets (ratios are baseline ns / ilmap ns). */
#define TARGET_VS_LINEAR 5.0
#define TARGET_LINEAR_MIN_N 16u
#define TARGET_VS_BSEARCH 4.0
#define TARGET_BATCH_VS_READSUM 2.0 /* ilmap batch ns / readsum ns, at most */
#define TARGET_BATCH_MAX_N 4096u

/* Checking linear against bsearch costs n per query: cap the total. */
#define LINEAR_CHECK_WORK (1u << 25)
/* Maps alive at once while timing ilmap_create; they are freed off the
 * clock. Few enough that malloc hands the same memory back each time:
 * fresh memory per map would time the kernel's first-touch page faults
 * (25x the build itself in a VM), not ilmap_create. */
#define BUILD_CHUNK_BYTES (64u << 10)
#define BUILD_CHUNK_MAPS 64u

static const size_t sizes[] = { 4, 16, 64, 256, 4096, 65536, 1048576 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Every lookup result is summed into this, once per timed run: a store per
 * lookup would chain every iteration through memory and time the store. */
static volatile uint64_t bench_sink;

/* ------------------------------------------------------------------ */
/* Options and reporting                                               */
/* ------------------------------------------------------------------ */

#define MAX_MISSES 64

/* What the table's footer summarises. */
typedef struct tally {
    int pass;
    int miss;
    char misses[MAX_MISSES][96];
} tally;

static void emit_json(const char *op, size_t n, const char *impl, double ns)
{
    printf("{\"op\": \"%s\", \"n\": %zu, \"impl\": \"%s\", \"ns\": %.3f}\n", op, n, impl, ns);
}

/* "PASS"/"MISS" for a row with a target, "-" without; counts the verdict. */
static const char *verdict(tally *t, int has_target, int met, const char *fmt, ...)
{
    if (!has_target)
        return "-";
    if (met) {
        t->pass++;
        return "PASS";
    }
    if (t->miss < MAX_MISSES) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->misses[t->miss], sizeof t->misses[0], fmt, ap);
        va_end(ap);
    }
    t->miss++;
    return "MISS";
}

/* ------------------------------------------------------------------ */
/* Test data                                                           */
/* ------------------------------------------------------------------ */

/* One map size: the entries, the map and the queries every op uses. */
typedef struct dataset {
    size_t n;
    ilmap_entry *entries;
    ilmap *map;
    uint32_t *old_queries;    /* RANDOM_QUERIES, over [0, last old + slack) */
    uint32_t *new_queries;    /* RANDOM_QUERIES, over [0, last new + slack) */
    uint32_t *sorted_queries; /* SORTED_QUERIES old offsets, ascending */
} dataset;

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p) {
        fprintf(stderr, "bench-lookup: out of memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

/*
 * A map shaped like an instrumented method: original instructions 1..8
 * bytes apart, the same instructions in the new IL, plus a probe inserted
 * before one in four of them and a prologue probe before the first.
 */
static ilmap_entry *make_entries(size_t n, prng *rng)
{
    ilmap_entry *e = xmalloc(n * sizeof *e);
    uint32_t old_offset = 0;
    uint32_t new_offset = prng_below(rng, 17);

    for (size_t i = 0; i < n; i++) {
        e[i].old_offset = old_offset;
        e[i].new_offset = new_offset;
        e[i].accurate = 1;

        uint32_t gap = 1 + prng_below(rng, 8);
        uint32_t probe = prng_below(rng, 4) == 0 ? 1 + prng_below(rng, 16) : 0;
        old_offset += gap;
        new_offset += gap + probe;
    }
    return e;
}

static uint32_t *make_queries(size_t count, uint32_t bound, prng *rng)
{
    uint32_t *q = xmalloc(count * sizeof *q);

    for (size_t i = 0; i < count; i++)
        q[i] = prng_below(rng, bound);
    return q;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a;
    uint32_t y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void dataset_init(dataset *ds, size_t n)
{
    /* Seeded by size so that every run, quick or full, sees the same data. */
    prng rng = prng_init(0x5EED0000u + n);

    memset(ds, 0, sizeof *ds);
    ds->n = n;
    ds->entries = make_entries(n, &rng);
    if (ilmap_create(ds->entries, n, 0, &ds->map) != ILMAP_OK) {
        fprintf(stderr, "bench-lookup: ilmap_create failed for n = %zu\n", n);
        exit(1);
    }
    uint32_t old_bound = ds->entries[n - 1].old_offset + QUERY_SLACK;
    uint32_t new_bound = ds->entries[n - 1].new_offset + QUERY_SLACK;
    ds->old_queries = make_queries(RANDOM_QUERIES, old_bound, &rng);
    ds->new_queries = make_queries(RANDOM_QUERIES, new_bound, &rng);
    ds->sorted_queries = make_queries(SORTED_QUERIES, old_bound, &rng);
    qsort(ds->sorted_queries, SORTED_QUERIES, sizeof *ds->sorted_queries, compare_u32);
}

static void dataset_free(dataset *ds)
{
    ilmap_free(ds->map);
    free(ds->entries);
    free(ds->old_queries);
    free(ds->new_queries);
    free(ds->sorted_queries);
}

/* ------------------------------------------------------------------ */
/* The baselines                                                       */
/* ------------------------------------------------------------------ */

/* by_new selects the direction: old->new keys on old_offset and answers
 * new_offset, new->old the reverse. Callers pass a constant, so that
 * after inlining each baseline reads one fixed field. */
static inline uint32_t entry_key(const ilmap_entry *e, int by_new)
{
    return by_new ? e->new_offset : e->old_offset;
}

static inline uint32_t entry_value(const ilmap_entry *e, int by_new)
{
    return by_new ? e->old_offset : e->new_offset;
}

/* The runtime's TranslateToInstIL: the answer every other lookup here
 * must reproduce, and the cost libilmap replaces. */
static inline uint32_t linear_translate(const ilmap_entry *e, size_t n, uint32_t x, int by_new)
{
    if (n == 0)
        return x;
    if (x < entry_key(&e[0], by_new) || x == ILMAP_PROLOG)
        return ILMAP_PROLOG;
    if (x == ILMAP_EPILOG || x == ILMAP_NO_MAPPING)
        return x;
    for (size_t i = 1; i < n; i++)
        if (x < entry_key(&e[i], by_new))
            return entry_value(&e[i - 1], by_new);
    return entry_value(&e[n - 1], by_new);
}

/* What a profiler would write instead: the same special cases, then a
 * binary search for the greatest key <= x (equal to the scan's answer on
 * a strictly ascending map). */
static inline uint32_t bsearch_translate(const ilmap_entry *e, size_t n, uint32_t x, int by_new)
{
    if (n == 0)
        return x;
    if (x < entry_key(&e[0], by_new) || x == ILMAP_PROLOG)
        return ILMAP_PROLOG;
    if (x == ILMAP_EPILOG || x == ILMAP_NO_MAPPING)
        return x;

    size_t lo = 1, hi = n; /* the first key > x is in [lo, hi]; key[0] <= x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (entry_key(&e[mid], by_new) <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return entry_value(&e[lo - 1], by_new);
}

/* ------------------------------------------------------------------ */
/* Workloads                                                           */
/* ------------------------------------------------------------------ */

typedef struct lookup_job {
    const ilmap *map;
    const ilmap_entry *entries;
    size_t n;
    const uint32_t *queries;
    size_t nqueries;
} lookup_job;

static inline uint32_t ilmap_o2n(const lookup_job *j, uint32_t x)
{
    return ilmap_old_to_new(j->map, x);
}

static inline uint32_t ilmap_n2o(const lookup_job *j, uint32_t x)
{
    return ilmap_new_to_old(j->map, x);
}

static inline uint32_t linear_o2n(const lookup_job *j, uint32_t x)
{
    return linear_translate(j->entries, j->n, x, 0);
}

static inline uint32_t linear_n2o(const lookup_job *j, uint32_t x)
{
    return linear_translate(j->entries, j->n, x, 1);
}

static inline uint32_t bsearch_o2n(const lookup_job *j, uint32_t x)
{
    return bsearch_translate(j->entries, j->n, x, 0);
}

static inline uint32_t bsearch_n2o(const lookup_job *j, uint32_t x)
{
    return bsearch_translate(j->entries, j->n, x, 1);
}

/*
 * One runner per (implementation, direction), stamped out so that each
 * baseline is inlined into its own loop with a constant direction, as a
 * hand-written caller has it; a function pointer or a run-time direction
 * would slow the baselines and flatter libilmap. The lookups are
 * independent, so this measures throughput (lookups overlap in the
 * pipeline), the same way for all three. A run of more units than there
 * are queries goes round the queries again; a run of fewer (the linear
 * scan at large n) uses the first ones, which are as random as the rest.
 */
#define LOOKUP_RUNNER(name, lookup)                                               \
    static uint64_t name(void *arg, uint64_t units)                               \
    {                                                                             \
        const lookup_job job = *(const lookup_job *)arg;                          \
        uint64_t sum = 0;                                                         \
        uint64_t start = bench_now_ns();                                          \
        while (units > 0) {                                                       \
            size_t m = units < job.nqueries ? (size_t)units : job.nqueries;       \
            for (size_t i = 0; i < m; i++)                                        \
                sum += lookup(&job, job.queries[i]);                              \
            units -= m;                                                           \
        }                                                                         \
        uint64_t elapsed = bench_now_ns() - start;                                \
        bench_sink += sum;                                                        \
        return elapsed;                                                           \
    }

LOOKUP_RUNNER(run_ilmap_o2n, ilmap_o2n)
LOOKUP_RUNNER(run_ilmap_n2o, ilmap_n2o)
LOOKUP_RUNNER(run_linear_o2n, linear_o2n)
LOOKUP_RUNNER(run_linear_n2o, linear_n2o)
LOOKUP_RUNNER(run_bsearch_o2n, bsearch_o2n)
LOOKUP_RUNNER(run_bsearch_n2o, bsearch_n2o)

/* One unit: one batch call over all n queries. */
typedef struct batch_job {
    const ilmap *map;
    const uint32_t *in;
    uint32_t *out;
    size_t n;
} batch_job;

static uint64_t run_batch(void *arg, uint64_t units)
{
    const batch_job *job = arg;
    uint64_t start = bench_now_ns();

    for (uint64_t u = 0; u < units; u++)
        ilmap_old_to_new_batch(job->map, job->in, job->out, job->n);
    uint64_t elapsed = bench_now_ns() - start;
    bench_sink += job->out[job->n - 1];
    return elapsed;
}

/* The floor for any batch: read every query once, do nothing with it. */
static uint64_t run_readsum(void *arg, uint64_t units)
{
    const batch_job *job = arg;
    uint64_t sum = 0;
    uint64_t start = bench_now_ns();

    for (uint64_t u = 0; u < units; u++)
        for (size_t i = 0; i < job->n; i++)
            sum += job->in[i];
    uint64_t elapsed = bench_now_ns() - start;
    bench_sink += sum;
    return elapsed;
}

/* One unit: one ilmap_create. Maps are kept until a chunk is built, then
 * freed off the clock, so only building is timed. */
typedef struct build_job {
    const ilmap_entry *entries;
    size_t n;
    ilmap **maps;
    size_t chunk;
} build_job;

static void create_or_die(const ilmap_entry *entries, size_t n, ilmap **out)
{
    if (ilmap_create(entries, n, 0, out) != ILMAP_OK) {
        fprintf(stderr, "bench-lookup: ilmap_create failed for n = %zu\n", n);
        exit(1);
    }
}

static uint64_t run_build(void *arg, uint64_t units)
{
    const build_job *job = arg;
    uint64_t elapsed = 0;

    while (units > 0) {
        size_t m = units < job->chunk ? (size_t)units : job->chunk;
        uint64_t start = bench_now_ns();
        for (size_t i = 0; i < m; i++)
            create_or_die(job->entries, job->n, &job->maps[i]);
        elapsed += bench_now_ns() - start;
        for (size_t i = 0; i < m; i++)
            ilmap_free(job->maps[i]);
        units -= m;
    }
    return elapsed;
}

/* ------------------------------------------------------------------ */
/* Cross-check: a fast wrong answer is no result                       */
/* ------------------------------------------------------------------ */

static int check_one(const dataset *ds, uint32_t x, int by_new, int with_linear)
{
    uint32_t want = bsearch_translate(ds->entries, ds->n, x, by_new);
    uint32_t got = by_new ? ilmap_new_to_old(ds->map, x) : ilmap_old_to_new(ds->map, x);

    if (with_linear && linear_translate(ds->entries, ds->n, x, by_new) != want) {
        fprintf(stderr, "bench-lookup: n = %zu, %s(%u): linear and bsearch disagree\n", ds->n,
                by_new ? "new_to_old" : "old_to_new", x);
        return 0;
    }
    if (got != want) {
        fprintf(stderr, "bench-lookup: n = %zu, %s(%u): ilmap %u, expected %u\n", ds->n,
                by_new ? "new_to_old" : "old_to_new", x, got, want);
        return 0;
    }
    return 1;
}

static int check_batch(const dataset *ds, const uint32_t *in, size_t count)
{
    uint32_t *out = xmalloc(count * sizeof *out);
    int ok = 1;

    ilmap_old_to_new_batch(ds->map, in, out, count);
    for (size_t i = 0; i < count && ok; i++) {
        if (out[i] != ilmap_old_to_new(ds->map, in[i])) {
            fprintf(stderr, "bench-lookup: n = %zu, old_to_new_batch differs at %zu\n", ds->n, i);
            ok = 0;
        }
    }
    free(out);
    return ok;
}

/* All three implementations agree on every benchmark query (the linear
 * scan on as many as LINEAR_CHECK_WORK allows), the special values and
 * the map's edges, and the batch agrees with single lookups. */
static int check_dataset(const dataset *ds)
{
    size_t linear_checks = LINEAR_CHECK_WORK / ds->n;
    const ilmap_entry *last = &ds->entries[ds->n - 1];
    const uint32_t edges[] = {
        0, ILMAP_EPILOG, ILMAP_PROLOG, ILMAP_NO_MAPPING,
        ds->entries[0].old_offset, ds->entries[0].new_offset,
        last->old_offset, last->old_offset + 1, last->new_offset, last->new_offset + 1,
    };

    for (int by_new = 0; by_new < 2; by_new++) {
        const uint32_t *q = by_new ? ds->new_queries : ds->old_queries;
        for (size_t i = 0; i < RANDOM_QUERIES; i++)
            if (!check_one(ds, q[i], by_new, i < linear_checks))
                return 0;
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
            if (!check_one(ds, edges[i], by_new, 1))
                return 0;
    }
    return check_batch(ds, ds->sorted_queries, SORTED_QUERIES) &&
           check_batch(ds, ds->old_queries, RANDOM_QUERIES);
}

/* ------------------------------------------------------------------ */
/* The sections of the report                                          */
/* ------------------------------------------------------------------ */

static void section_build(const bench_options *opt, const dataset *all)
{
    if (!opt->json)
        printf("\nilmap_create (strict map), memory vs the input array (n x 12 bytes)\n"
               "%8s  %-8s %10s %12s %12s %12s %8s\n",
               "n", "code", "ns/entry", "total us", "map bytes", "input bytes", "ratio");
    for (size_t s = 0; s < NSIZES; s++) {
        const dataset *ds = &all[s];
        size_t bytes = ilmap_get_memory_bytes(ds->map);
        size_t input = ds->n * sizeof(ilmap_entry);
        size_t chunk = BUILD_CHUNK_BYTES / bytes;
        build_job job = { ds->entries, ds->n, NULL, 0 };

        job.chunk = chunk < 1 ? 1 : chunk > BUILD_CHUNK_MAPS ? BUILD_CHUNK_MAPS : chunk;
        job.maps = xmalloc(job.chunk * sizeof *job.maps);
        double ns = bench_measure_one(run_build, &job, &opt->budget);
        free(job.maps);

        if (opt->json) {
            emit_json("build", ds->n, "ilmap", ns / (double)ds->n);
            continue;
        }
        printf("%8zu  %-8s %10.2f %12.1f %12zu %12zu %7.2fx\n", ds->n,
               ilmap_get_implementation(ds->map), ns / (double)ds->n, ns / 1000.0, bytes, input,
               (double)bytes / (double)input);
    }
}

/* The cost of the cheapest call into the shared library, a NULL map
 * (the input comes back at the first test): the floor under every single
 * lookup, which no lookup through this API can beat. */
static void measure_call_overhead(const bench_options *opt)
{
    prng rng = prng_init(1);
    uint32_t *queries = make_queries(RANDOM_QUERIES, 1u << 20, &rng);
    lookup_job job = { NULL, NULL, 0, queries, RANDOM_QUERIES };
    double ns = bench_measure_one(run_ilmap_o2n, &job, &opt->budget);

    free(queries);
    if (opt->json)
        emit_json("call_overhead", 0, "ilmap", ns);
    else
        printf("\ncall floor: ilmap_old_to_new(NULL, x), a call through the PLT that "
               "returns at once: %.2f ns\n", ns);
}

typedef struct direction_runners {
    const char *op;
    int by_new;
    bench_run_fn ilmap, linear, bsearch;
} direction_runners;

static const direction_runners directions[] = {
    { "old_to_new", 0, run_ilmap_o2n, run_linear_o2n, run_bsearch_o2n },
    { "new_to_old", 1, run_ilmap_n2o, run_linear_n2o, run_bsearch_n2o },
};

static void lookup_row(const bench_options *opt, tally *t, const dataset *ds,
                       const direction_runners *d)
{
    lookup_job job = { ds->map, ds->entries, ds->n,
                       d->by_new ? ds->new_queries : ds->old_queries, RANDOM_QUERIES };
    bench_case cases[] = {
        { d->ilmap, &job, 0, 0.0 },
        { d->linear, &job, 0, 0.0 },
        { d->bsearch, &job, 0, 0.0 },
    };

    bench_measure(cases, 3, &opt->budget);
    double ilmap_ns = cases[0].ns, linear_ns = cases[1].ns, bsearch_ns = cases[2].ns;
    if (opt->json) {
        emit_json(d->op, ds->n, "ilmap", ilmap_ns);
        emit_json(d->op, ds->n, "linear", linear_ns);
        emit_json(d->op, ds->n, "bsearch", bsearch_ns);
        return;
    }
    double vs_linear = linear_ns / ilmap_ns;
    double vs_bsearch = bsearch_ns / ilmap_ns;
    const char *linear_mark = verdict(t, ds->n >= TARGET_LINEAR_MIN_N, vs_linear >= TARGET_VS_LINEAR,
                                      "%s n=%zu: linear/ilmap %.2fx < %.0fx", d->op, ds->n,
                                      vs_linear, TARGET_VS_LINEAR);
    const char *bsearch_mark = verdict(t, 1, vs_bsearch >= TARGET_VS_BSEARCH,
                                       "%s n=%zu: bsearch/ilmap %.2fx < %.0fx", d->op, ds->n,
                                       vs_bsearch, TARGET_VS_BSEARCH);
    printf("%-11s %8zu %9.2f %11.2f %10.2f %13.2fx %-4s %13.2fx %s\n", d->op, ds->n, ilmap_ns,
           linear_ns, bsearch_ns, vs_linear, linear_mark, vs_bsearch, bsearch_mark);
}

static void section_lookups(const bench_options *opt, tally *t, const dataset *all)
{
    if (!opt->json)
        printf("\nsingle lookups, ns per lookup (%u random queries, uniform over [0, last key + %u))\n"
               "targets: linear/ilmap >= %.0fx for n >= %u, bsearch/ilmap >= %.0fx for every n\n"
               "%-11s %8s %9s %11s %10s %14s %-4s %14s\n",
               RANDOM_QUERIES, QUERY_SLACK, TARGET_VS_LINEAR, TARGET_LINEAR_MIN_N,
               TARGET_VS_BSEARCH, "op", "n", "ilmap", "linear", "bsearch", "linear/ilmap", "",
               "bsearch/ilmap");
    for (size_t d = 0; d < sizeof directions / sizeof directions[0]; d++)
        for (size_t s = 0; s < NSIZES; s++)
            lookup_row(opt, t, &all[s], &directions[d]);
}

static void sorted_batch_row(const bench_options *opt, tally *t, const dataset *ds, uint32_t *out)
{
    batch_job job = { ds->map, ds->sorted_queries, out, SORTED_QUERIES };
    bench_case cases[] = {
        { run_batch, &job, 0, 0.0 },
        { run_readsum, &job, 0, 0.0 },
    };

    bench_measure(cases, 2, &opt->budget);
    double batch_ns = cases[0].ns / SORTED_QUERIES;
    double readsum_ns = cases[1].ns / SORTED_QUERIES;

    if (opt->json) {
        emit_json("old_to_new_batch", ds->n, "ilmap", batch_ns);
        emit_json("old_to_new_batch", ds->n, "readsum", readsum_ns);
        return;
    }
    double ratio = batch_ns / readsum_ns;
    const char *mark = verdict(t, ds->n <= TARGET_BATCH_MAX_N, ratio <= TARGET_BATCH_VS_READSUM,
                               "old_to_new_batch n=%zu: batch/readsum %.2fx > %.0fx", ds->n,
                               ratio, TARGET_BATCH_VS_READSUM);
    printf("%-23s %8zu %12.3f %12.3f %13.2fx %s\n", "old_to_new_batch", ds->n, batch_ns,
           readsum_ns, ratio, mark);
}

/* The single lookups are timed again beside the batch rather than taken
 * from the lookup table, so that both see the same machine conditions;
 * JSON already has them under "old_to_new". */
static void random_batch_row(const bench_options *opt, const dataset *ds, uint32_t *out)
{
    batch_job batch = { ds->map, ds->old_queries, out, RANDOM_QUERIES };
    lookup_job single = { ds->map, ds->entries, ds->n, ds->old_queries, RANDOM_QUERIES };
    bench_case cases[] = {
        { run_batch, &batch, 0, 0.0 },
        { run_ilmap_o2n, &single, 0, 0.0 },
    };

    bench_measure(cases, 2, &opt->budget);
    double batch_ns = cases[0].ns / RANDOM_QUERIES;
    double single_ns = cases[1].ns;
    if (opt->json) {
        emit_json("old_to_new_batch_random", ds->n, "ilmap", batch_ns);
        return;
    }
    printf("%-23s %8zu %12.3f %12.3f %13.2fx\n", "old_to_new_batch_random", ds->n, batch_ns,
           single_ns, batch_ns / single_ns);
}

static void section_batch(const bench_options *opt, tally *t, const dataset *all)
{
    uint32_t *out = xmalloc(SORTED_QUERIES * sizeof *out);

    if (!opt->json)
        printf("\nbatch, ns per query: %u sorted queries vs a plain read of them (readsum)\n"
               "target: batch/readsum <= %.0fx for n <= %u\n"
               "%-23s %8s %12s %12s %14s\n",
               SORTED_QUERIES, TARGET_BATCH_VS_READSUM, TARGET_BATCH_MAX_N, "op", "n",
               "ilmap_batch", "readsum", "batch/readsum");
    for (size_t s = 0; s < NSIZES; s++)
        sorted_batch_row(opt, t, &all[s], out);

    if (!opt->json)
        printf("\nbatch, ns per query: the %u random queries vs single ilmap lookups (no target)\n"
               "%-23s %8s %12s %12s %14s\n",
               RANDOM_QUERIES, "op", "n", "ilmap_batch", "ilmap single", "batch/single");
    for (size_t s = 0; s < NSIZES; s++)
        random_batch_row(opt, &all[s], out);
    free(out);
}

static void print_header(const bench_options *opt, const dataset *all)
{
    printf("libilmap %s lookup benchmark, %s run: best of %d timed runs of >= %.0f ms each\n"
           "lookup code: %s (ilmap_get_implementation); maps: old gaps 1..8, new gaps >= old "
           "(probes), strict\n",
           ilmap_version(), opt->quick ? "quick" : "full", opt->budget.reps,
           (double)opt->budget.min_ns / 1e6, ilmap_get_implementation(all[0].map));
}

static void print_footer(const tally *t, double seconds)
{
    printf("\ntargets: %d PASS, %d MISS\n", t->pass, t->miss);
    for (int i = 0; i < t->miss && i < MAX_MISSES; i++)
        printf("  MISS %s\n", t->misses[i]);
    printf("total time %.1f s\n", seconds);
}

int main(int argc, char **argv)
{
    bench_options opt;
    int status = bench_parse_options(argc, argv, JSON_EXAMPLE, &opt);
    if (status != 0)
        return status < 0 ? 0 : status;

    uint64_t start = bench_now_ns();
    dataset all[NSIZES];
    for (size_t s = 0; s < NSIZES; s++) {
        dataset_init(&all[s], sizes[s]);
        if (!check_dataset(&all[s])) {
            for (size_t k = 0; k <= s; k++)
                dataset_free(&all[k]);
            return 1;
        }
    }

    static tally t; /* static: zeroed, and too big to want on the stack */
    if (!opt.json)
        print_header(&opt, all);
    section_build(&opt, all);
    section_lookups(&opt, &t, all);
    measure_call_overhead(&opt);
    section_batch(&opt, &t, all);
    if (!opt.json)
        print_footer(&t, (double)(bench_now_ns() - start) / 1e9);

    for (size_t s = 0; s < NSIZES; s++)
        dataset_free(&all[s]);
    return 0;
}
