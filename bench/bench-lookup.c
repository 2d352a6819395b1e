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
#include "best-search.h"
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
    uint32_t *chunked_queries; /* SORTED_QUERIES old offsets, ascending in runs of n */
    uint32_t *old_keys, *new_values; /* the map's columns, for best-search.h */
    best_keys best;                  /* over old_keys */
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
    /* A method's samples: batches of n queries (about one per key), each
     * sorted, SORTED_QUERIES in all. */
    ds->chunked_queries = make_queries(SORTED_QUERIES, old_bound, &rng);
    for (size_t at = 0; at < SORTED_QUERIES; at += n) {
        size_t len = SORTED_QUERIES - at < n ? SORTED_QUERIES - at : n;
        qsort(ds->chunked_queries + at, len, sizeof *ds->chunked_queries, compare_u32);
    }
    ds->old_keys = xmalloc(n * sizeof *ds->old_keys);
    ds->new_values = xmalloc(n * sizeof *ds->new_values);
    for (size_t i = 0; i < n; i++) {
        ds->old_keys[i] = ds->entries[i].old_offset;
        ds->new_values[i] = ds->entries[i].new_offset;
    }
    if (!best_init(&ds->best, ds->old_keys, (uint32_t)n)) {
        fprintf(stderr, "bench-lookup: out of memory (best-search.h, n = %zu)\n", n);
        exit(1);
    }
}

static void dataset_free(dataset *ds)
{
    ilmap_free(ds->map);
    free(ds->entries);
    free(ds->old_queries);
    free(ds->new_queries);
    free(ds->sorted_queries);
    free(ds->chunked_queries);
    free(ds->old_keys);
    free(ds->new_values);
    best_free(&ds->best);
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
    const best_keys *best;  /* old_to_new's keys, for best-search.h */
    const uint32_t *values; /* new offsets by rank - 1 */
} lookup_job;

static inline uint32_t ilmap_o2n(const lookup_job *j, uint32_t x)
{
    return ilmap_old_to_new(j->map, x);
}

static inline uint32_t ilmap_n2o(const lookup_job *j, uint32_t x)
{
    return ilmap_new_to_old(j->map, x);
}

static inline uint32_t ilmap_dac(const lookup_job *j, uint32_t x)
{
    return ilmap_new_to_old_dac(j->map, x);
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

/* best-search.h's techniques as old_to_new lookups: the same special
 * cases as the baselines above, then the value of the rank-th key. */
#define BEST_LOOKUP(attr, name, rank_of)                                             \
    attr static inline uint32_t name(const lookup_job *j, uint32_t x)                \
    {                                                                                \
        if (x < j->best->keys[0] || x == ILMAP_PROLOG)                               \
            return ILMAP_PROLOG;                                                     \
        if (x == ILMAP_EPILOG || x == ILMAP_NO_MAPPING)                              \
            return x;                                                                \
        return j->values[rank_of(j->best, x) - 1u];                                  \
    }

BEST_LOOKUP(, branchless_o2n, best_branchless)
BEST_LOOKUP(, eytzinger_o2n, best_eytzinger)
#ifdef BEST_X86
BEST_LOOKUP(BEST_AVX2, stree_o2n, best_stree)
BEST_LOOKUP(BEST_AVX2, count_o2n, best_count)
#endif

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
#define LOOKUP_RUNNER(name, lookup) LOOKUP_RUNNER_WITH(, name, lookup)
#define LOOKUP_RUNNER_WITH(attr, name, lookup)                                    \
    attr static uint64_t name(void *arg, uint64_t units)                          \
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
LOOKUP_RUNNER(run_ilmap_dac, ilmap_dac)
LOOKUP_RUNNER(run_bsearch_n2o, bsearch_n2o)
LOOKUP_RUNNER(run_branchless_o2n, branchless_o2n)
LOOKUP_RUNNER(run_eytzinger_o2n, eytzinger_o2n)
#ifdef BEST_X86
LOOKUP_RUNNER_WITH(BEST_AVX2, run_stree_o2n, stree_o2n)
LOOKUP_RUNNER_WITH(BEST_AVX2, run_count_o2n, count_o2n)
#endif

/* Ascending queries through a merge technique, restarting at rank 0 at
 * every run of `run` queries (one batch of all of them, or batches of n). */
typedef struct merge_job {
    const best_keys *best;
    const uint32_t *values;
    const uint32_t *in;
    size_t count, run;
    const ilmap *map; /* for the ilmap rows */
    uint32_t *out;
} merge_job;

#define MERGE_RUNNER(attr, name, step)                                             \
    attr static uint64_t name(void *arg, uint64_t units)                           \
    {                                                                              \
        const merge_job job = *(const merge_job *)arg;                             \
        uint64_t sum = 0;                                                          \
        uint64_t start = bench_now_ns();                                           \
        for (uint64_t u = 0; u < units; u++) {                                     \
            for (size_t at = 0; at < job.count; at += job.run) {                   \
                size_t end = job.count - at < job.run ? job.count : at + job.run;  \
                uint32_t r = 0;                                                    \
                for (size_t i = at; i < end; i++) {                                \
                    uint32_t x = job.in[i];                                        \
                    if (x < job.best->keys[0] || x >= ILMAP_EPILOG) {              \
                        sum += x < job.best->keys[0] || x == ILMAP_PROLOG          \
                                   ? ILMAP_PROLOG                                  \
                                   : x;                                            \
                        continue;                                                  \
                    }                                                              \
                    r = step(job.best, x, r);                                      \
                    sum += job.values[r - 1u];                                     \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        uint64_t elapsed = bench_now_ns() - start;                                 \
        bench_sink += sum;                                                         \
        return elapsed;                                                            \
    }

MERGE_RUNNER(, run_merge, best_merge)
MERGE_RUNNER(, run_gallop, best_gallop)
#ifdef BEST_X86
MERGE_RUNNER(BEST_AVX2, run_merge_avx2, best_merge_avx2)
#endif

/* The same runs through ilmap_old_to_new_batch, one call per run. */
static uint64_t run_batch_runs(void *arg, uint64_t units)
{
    const merge_job *job = arg;
    uint64_t start = bench_now_ns();

    for (uint64_t u = 0; u < units; u++)
        for (size_t at = 0; at < job->count; at += job->run)
            ilmap_old_to_new_batch(job->map, job->in + at, job->out + at,
                                   job->count - at < job->run ? job->count - at : job->run);
    uint64_t elapsed = bench_now_ns() - start;
    bench_sink += job->out[job->count - 1];
    return elapsed;
}

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

/* The new->old batches on the same queries, the DAC's and the in-process
 * one. */
static uint64_t run_dac_batch(void *arg, uint64_t units)
{
    const batch_job *job = arg;
    uint64_t start = bench_now_ns();

    for (uint64_t u = 0; u < units; u++)
        ilmap_new_to_old_dac_batch(job->map, job->in, job->out, job->n);
    uint64_t elapsed = bench_now_ns() - start;
    bench_sink += job->out[job->n - 1];
    return elapsed;
}

static uint64_t run_n2o_batch(void *arg, uint64_t units)
{
    const batch_job *job = arg;
    uint64_t start = bench_now_ns();

    for (uint64_t u = 0; u < units; u++)
        ilmap_new_to_old_batch(job->map, job->in, job->out, job->n);
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

/* A best-search.h technique against ilmap on the queries it is timed on
 * (merges: the sums over the sorted runs, which any wrong answer changes
 * unless errors cancel out, and every single answer of the first run). */
static int check_best(const dataset *ds)
{
    lookup_job j = { ds->map, ds->entries, ds->n, ds->old_queries, RANDOM_QUERIES, &ds->best,
                     ds->new_values };
    int avx2 = best_has_avx2();
    for (size_t i = 0; i < RANDOM_QUERIES; i++) {
        uint32_t x = ds->old_queries[i], want = ilmap_old_to_new(ds->map, x);
        int ok = branchless_o2n(&j, x) == want && eytzinger_o2n(&j, x) == want;
#ifdef BEST_X86
        if (avx2)
            ok = ok && stree_o2n(&j, x) == want && (ds->n > 4096 || count_o2n(&j, x) == want);
#endif
        if (!ok) {
            fprintf(stderr, "bench-lookup: n = %zu, old_to_new(%u): a best-search.h technique "
                            "differs from ilmap (%u)\n", ds->n, x, want);
            return 0;
        }
    }
    const uint32_t *runs[2] = { ds->sorted_queries, ds->chunked_queries };
    for (int k = 0; k < 2; k++) {
        size_t run = k == 0 ? SORTED_QUERIES : ds->n;
        uint32_t r[3] = { 0, 0, 0 };
        for (size_t i = 0; i < SORTED_QUERIES; i++) {
            uint32_t x = runs[k][i];
            if (i % run == 0)
                r[0] = r[1] = r[2] = 0;
            if (x < ds->best.keys[0])
                continue;
            uint32_t want = ilmap_old_to_new(ds->map, x);
            r[0] = best_merge(&ds->best, x, r[0]);
            r[1] = best_gallop(&ds->best, x, r[1]);
            int ok = ds->new_values[r[0] - 1u] == want && ds->new_values[r[1] - 1u] == want;
#ifdef BEST_X86
            if (avx2) {
                r[2] = best_merge_avx2(&ds->best, x, r[2]);
                ok = ok && ds->new_values[r[2] - 1u] == want;
            }
#endif
            if (!ok) {
                fprintf(stderr, "bench-lookup: n = %zu, sorted query %zu (%u): a merge differs "
                                "from ilmap (%u)\n", ds->n, i, x, want);
                return 0;
            }
        }
    }
    (void)avx2;
    return 1;
}

/* The DAC batch against the DAC's single lookups, on the new->old
 * queries in random and in ascending order (the orders it is timed on). */
static int check_dac_batch(const dataset *ds)
{
    uint32_t *in = xmalloc(RANDOM_QUERIES * sizeof *in);
    uint32_t *out = xmalloc(RANDOM_QUERIES * sizeof *out);
    int ok = 1;

    memcpy(in, ds->new_queries, RANDOM_QUERIES * sizeof *in);
    for (int sorted = 0; sorted < 2 && ok; sorted++) {
        if (sorted)
            qsort(in, RANDOM_QUERIES, sizeof *in, compare_u32);
        ilmap_new_to_old_dac_batch(ds->map, in, out, RANDOM_QUERIES);
        for (size_t i = 0; i < RANDOM_QUERIES && ok; i++) {
            uint32_t want = ilmap_new_to_old_dac(ds->map, in[i]);
            if (out[i] != want) {
                fprintf(stderr, "bench-lookup: n = %zu, new_to_old_dac_batch, %s query %zu (%u): "
                                "%u, single lookup %u\n", ds->n, sorted ? "sorted" : "random", i,
                        in[i], out[i], want);
                ok = 0;
            }
        }
    }
    free(in);
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
           check_batch(ds, ds->old_queries, RANDOM_QUERIES) && check_dac_batch(ds) &&
           check_best(ds);
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
    lookup_job job = { NULL, NULL, 0, queries, RANDOM_QUERIES, NULL, NULL };
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
                       d->by_new ? ds->new_queries : ds->old_queries, RANDOM_QUERIES,
                       &ds->best, ds->new_values };
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
    /* Random batches against single lookups: section_best(). */
    free(out);
}

/* ---- The DAC flavour's batch ------------------------------------------- */

static void dac_row(const bench_options *opt, const dataset *ds, uint32_t *sorted, uint32_t *out)
{
    lookup_job single = { ds->map, ds->entries, ds->n, ds->new_queries, RANDOM_QUERIES, NULL,
                          NULL };
    batch_job random = { ds->map, ds->new_queries, out, RANDOM_QUERIES };
    batch_job ascending = { ds->map, sorted, out, RANDOM_QUERIES };
    bench_case c[5] = {
        { run_ilmap_dac, &single, 0, 0.0 },    { run_dac_batch, &random, 0, 0.0 },
        { run_n2o_batch, &random, 0, 0.0 },    { run_dac_batch, &ascending, 0, 0.0 },
        { run_n2o_batch, &ascending, 0, 0.0 },
    };

    memcpy(sorted, ds->new_queries, RANDOM_QUERIES * sizeof *sorted);
    qsort(sorted, RANDOM_QUERIES, sizeof *sorted, compare_u32);
    bench_measure(c, 5, &opt->budget);
    for (size_t i = 1; i < 5; i++)
        c[i].ns /= RANDOM_QUERIES;
    if (opt->json) {
        emit_json("new_to_old_dac_random", ds->n, "ilmap", c[0].ns);
        emit_json("new_to_old_dac_random", ds->n, "ilmap_batch", c[1].ns);
        emit_json("new_to_old_random", ds->n, "ilmap_batch", c[2].ns);
        emit_json("new_to_old_dac_sorted", ds->n, "ilmap_batch", c[3].ns);
        emit_json("new_to_old_sorted", ds->n, "ilmap_batch", c[4].ns);
        return;
    }
    printf("%8zu %10.2f %10.2f %10.2f %10.3f %10.3f\n", ds->n, c[0].ns, c[1].ns, c[2].ns,
           c[3].ns, c[4].ns);
}

static void section_dac(const bench_options *opt, const dataset *all)
{
    uint32_t *sorted = xmalloc(RANDOM_QUERIES * sizeof *sorted);
    uint32_t *out = xmalloc(RANDOM_QUERIES * sizeof *out);

    if (!opt->json)
        printf("\nnew_to_old, the DAC flavour (ilmap_new_to_old_dac): ns per query, %u random "
               "new offsets, then the same ascending\n"
               "(no target; the in-process batch on the same queries for comparison)\n"
               "%8s %10s %10s %10s %10s %10s\n",
               RANDOM_QUERIES, "n", "dac single", "dac batch", "n2o batch", "dac sorted",
               "n2o sorted");
    for (size_t s = 0; s < NSIZES; s++)
        dac_row(opt, &all[s], sorted, out);
    free(sorted);
    free(out);
}

/* ---- Against the best known techniques (issue 15) ---------------------- */

#define TARGET_BATCH_VS_BEST 1.3     /* ilmap batch ns / best technique ns, at most */
#define TARGET_BATCH_VS_SINGLE 1.5   /* ilmap single ns / ilmap batch ns, at least */
#define TARGET_BATCH_VS_SINGLE_MIN_N 65536u

/* bench_measure() over the cases that have a run (the others, the AVX2
 * techniques on a CPU without it, keep ns 0), in one go. */
#define MAX_ROW_CASES 8
static void measure_present(bench_case *c, size_t n, const bench_options *opt)
{
    bench_case present[MAX_ROW_CASES];
    size_t at[MAX_ROW_CASES], np = 0;
    for (size_t i = 0; i < n && i < MAX_ROW_CASES; i++)
        if (c[i].run) {
            at[np] = i;
            present[np++] = c[i];
        }
    bench_measure(present, (int)np, &opt->budget);
    for (size_t k = 0; k < np; k++)
        c[at[k]].ns = present[k].ns;
}

/* The fastest of a row's measured cases (ns > 0); its index. */
static size_t fastest(const bench_case *c, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (c[i].ns > 0.0 && (c[best].ns <= 0.0 || c[i].ns < c[best].ns))
            best = i;
    return best;
}

static void best_random_row(const bench_options *opt, tally *t, const dataset *ds, uint32_t *out)
{
    static const char *const names[] = { "bsearch", "branchless", "eytzinger", "stree", "count" };
    lookup_job job = { ds->map, ds->entries, ds->n, ds->old_queries, RANDOM_QUERIES, &ds->best,
                       ds->new_values };
    batch_job batch = { ds->map, ds->old_queries, out, RANDOM_QUERIES };
    int avx2 = best_has_avx2();
    bench_case c[7] = {
        { run_bsearch_o2n, &job, 0, 0.0 },   { run_branchless_o2n, &job, 0, 0.0 },
        { run_eytzinger_o2n, &job, 0, 0.0 }, { NULL, &job, 0, 0.0 },
        { NULL, &job, 0, 0.0 },              { run_ilmap_o2n, &job, 0, 0.0 },
        { run_batch, &batch, 0, 0.0 },
    };
#ifdef BEST_X86
    if (avx2) {
        c[3].run = run_stree_o2n;
        if (ds->n <= 4096) /* O(n) per lookup: only where it can win */
            c[4].run = run_count_o2n;
    }
#endif
    (void)avx2;
    measure_present(c, 7, opt);
    c[6].ns /= RANDOM_QUERIES;

    size_t b = fastest(c, 5);
    double single = c[5].ns, batch_ns = c[6].ns;
    if (opt->json) {
        for (size_t i = 0; i < 5; i++)
            if (c[i].run)
                emit_json("old_to_new_random", ds->n, names[i], c[i].ns);
        emit_json("old_to_new_random", ds->n, "ilmap", single);
        emit_json("old_to_new_random", ds->n, "ilmap_batch", batch_ns);
        return;
    }
    double vs_best = batch_ns / c[b].ns, vs_single = single / batch_ns;
    const char *m1 = verdict(t, 1, vs_best <= TARGET_BATCH_VS_BEST,
                             "random batch n=%zu: %.2fx the best single (%s)", ds->n, vs_best,
                             names[b]);
    const char *m2 = verdict(t, ds->n >= TARGET_BATCH_VS_SINGLE_MIN_N,
                             vs_single >= TARGET_BATCH_VS_SINGLE,
                             "random batch n=%zu: only %.2fx faster than ilmap single", ds->n,
                             vs_single);
    printf("%8zu", ds->n);
    for (size_t i = 0; i < 5; i++) {
        if (c[i].run)
            printf(" %10.2f", c[i].ns);
        else
            printf(" %10s", "n/a");
    }
    printf(" %10s %8.2f %8.2f %7.2fx %-4s %7.2fx %s\n", names[b], single, batch_ns, vs_best, m1,
           vs_single, m2);
}

static void best_sorted_row(const bench_options *opt, tally *t, const dataset *ds, uint32_t *out,
                            int runs_of_n)
{
    /* The merges, and the single-lookup techniques on the same queries
     * (in order, they hit the cache and their branches predict: at one
     * query per key they are the ones to beat). */
    static const char *const names[] = { "merge", "gallop", "avx2merge", "branchless", "stree",
                                         "count" };
    const uint32_t *in = runs_of_n ? ds->chunked_queries : ds->sorted_queries;
    merge_job job = { &ds->best, ds->new_values, in, SORTED_QUERIES,
                      runs_of_n ? ds->n : SORTED_QUERIES, ds->map, out };
    lookup_job single = { ds->map, ds->entries, ds->n, in, SORTED_QUERIES, &ds->best,
                          ds->new_values };
    bench_case c[7] = {
        { run_merge, &job, 0, 0.0 },           { run_gallop, &job, 0, 0.0 },
        { NULL, &job, 0, 0.0 },                { run_branchless_o2n, &single, 0, 0.0 },
        { NULL, &single, 0, 0.0 },             { NULL, &single, 0, 0.0 },
        { run_batch_runs, &job, 0, 0.0 },
    };
#ifdef BEST_X86
    if (best_has_avx2()) {
        c[2].run = run_merge_avx2;
        c[4].run = run_stree_o2n;
        if (ds->n <= 4096)
            c[5].run = run_count_o2n;
    }
#endif
    measure_present(c, 7, opt);
    /* Merges and batches: ns per pass over all queries; singles: per query. */
    for (size_t i = 0; i < 7; i++)
        if (c[i].ctx == &job)
            c[i].ns /= SORTED_QUERIES;
    double batch_ns = c[6].ns;
    size_t b = fastest(c, 6);
    const char *op = runs_of_n ? "old_to_new_sorted_runs" : "old_to_new_sorted";
    if (opt->json) {
        for (size_t i = 0; i < 6; i++)
            if (c[i].run)
                emit_json(op, ds->n, names[i], c[i].ns);
        emit_json(op, ds->n, "ilmap_batch", batch_ns);
        return;
    }
    double vs_best = batch_ns / c[b].ns;
    const char *m = verdict(t, 1, vs_best <= TARGET_BATCH_VS_BEST,
                            "%s n=%zu: batch %.2fx the best (%s)", op, ds->n, vs_best, names[b]);
    printf("%8zu", ds->n);
    for (size_t i = 0; i < 6; i++) {
        if (c[i].run)
            printf(" %10.3f", c[i].ns);
        else
            printf(" %10s", "n/a");
    }
    printf(" %10s %11.3f %7.2fx %s\n", names[b], batch_ns, vs_best, m);
}

static void section_best(const bench_options *opt, tally *t, const dataset *all)
{
    uint32_t *out = xmalloc(SORTED_QUERIES * sizeof *out);

    if (!opt->json)
        printf("\nold_to_new against the best known techniques (bench/best-search.h), ns per "
               "query; %u random queries\n"
               "targets: ilmap batch <= %.1fx the best single technique at every n; "
               "ilmap single >= %.1fx the batch for n >= %u\n"
               "%8s %10s %10s %10s %10s %10s %10s %8s %8s %8s %-4s %8s\n",
               RANDOM_QUERIES, TARGET_BATCH_VS_BEST, TARGET_BATCH_VS_SINGLE,
               TARGET_BATCH_VS_SINGLE_MIN_N, "n", "bsearch", "branchless", "eytzinger", "stree",
               "count", "best", "single", "batch", "bat/best", "", "sgl/bat");
    for (size_t s = 0; s < NSIZES; s++)
        best_random_row(opt, t, &all[s], out);
    for (int runs = 0; runs < 2; runs++) {
        if (!opt->json)
            printf("\nsorted queries, %s; ns per query\n"
                   "target: ilmap batch <= %.1fx the best technique\n"
                   "%8s %10s %10s %10s %10s %10s %10s %10s %11s %8s\n",
                   runs ? "in sorted batches of n (a method's samples), one batch call each"
                        : "one batch of all of them",
                   TARGET_BATCH_VS_BEST, "n", "merge", "gallop", "avx2merge", "branchless",
                   "stree", "count", "best", "ilmap batch", "bat/best");
        for (size_t s = 0; s < NSIZES; s++)
            best_sorted_row(opt, t, &all[s], out, runs);
    }
    free(out);
}

static void print_header(const bench_options *opt, const dataset *all)
{
    printf("libilmap %s lookup benchmark, %s run: best of %d timed runs of >= %g ms each\n"
           "lookup code: %s (ilmap_get_implementation); maps: old gaps 1..8, new gaps >= old "
           "(probes), strict\n",
           ilmap_version(), opt->loaded ? "loaded" : opt->quick ? "quick" : "full", opt->budget.reps,
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
    section_best(&opt, &t, all);
    section_dac(&opt, all);
    if (!opt.json)
        print_footer(&t, (double)(bench_now_ns() - start) / 1e9);

    for (size_t s = 0; s < NSIZES; s++)
        dataset_free(&all[s]);
    return 0;
}
