/*
 * bench-native: how fast libilmap answers IL-to-native map lookups,
 * measured in one run next to the runtime's own linear scans:
 *
 *   native_to_il  MapNativeOffsetToIL (doc/native-to-il.md#scan): the
 *                 first entry, in the sorted table, whose native range
 *                 holds the offset;
 *   il_to_native  the floor entry of an IL offset (greatest IL <= x,
 *                 lowest native start): the linear form walks the sorted
 *                 table and stops at the first larger IL offset;
 *   native_to_il_detail  native_to_il plus the matched entry's index and
 *                 the runtime's `which` (the special entries the scan
 *                 visited): the same scan, counting;
 *   il_to_native_ranges  every native range of one IL offset (up to
 *                 RANGES_CAP copied out): the linear form walks the
 *                 whole table.
 *
 * Both baselines are written here, inline, over the table as the runtime
 * keeps it (ilmap_native_export_records: the end-unknown entry's end is 0);
 * libilmap is called through its public API and shared library. Maps of
 * 8, 64, 512 and 4096 entries, shaped like a JIT's output: a prolog, IL
 * offsets mostly ascending with loops laid out out of order, unmapped
 * stubs and epilogs.
 *
 * The table marks each row PASS or MISS against the project's targets (at
 * least 5x the scan from 64 entries up for the three single lookups;
 * memory at most 2x the exported array); the ranges row has no target:
 * its scan compares one word per entry, and the row is there for the
 * --baseline comparison. --json prints one result per
 * line. The exit status reports only whether the benchmark ran and its
 * cross-check agreed, never the targets.
 *
 * --baseline LIB (POSIX): another build of libilmap (a shared library
 * with the same public API, e.g. main's) is loaded with dlopen, given the
 * same boundaries, cross-checked against this build, and timed in the
 * same run: both libraries' lookups are called through function
 * pointers, taking turns (bench_measure), and a second table gives their
 * ns per lookup and memory side by side.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif

#include "bench.h"
#include "ilmap.h"

#define JSON_EXAMPLE "{\"op\": \"native_to_il\", \"n\": 64, \"impl\": \"ilmap\", \"ns\": 1.23}"

#define QUERIES (1u << 14) /* per op and size; a power of two */
#define TARGET_SPEEDUP 5.0
#define TARGET_MIN_N 64u
#define TARGET_MEMORY 2.0 /* bytes held / exported array, every size */
#define RANGES_CAP 8        /* ranges copied out per query */

static const size_t sizes[] = { 8, 64, 512, 4096 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static volatile uint64_t bench_sink;

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (!p) {
        fprintf(stderr, "bench-native: out of memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------ */
/* Test data                                                           */
/* ------------------------------------------------------------------ */

/* The lookups of one build of the library, called through pointers. */
typedef struct lookup_api {
    ilmap_status (*build)(const ilmap_boundary *, size_t, const ilmap *, uint32_t, unsigned,
                          ilmap_native **);
    void (*release)(ilmap_native *);
    unsigned (*to_il)(const ilmap_native *, uint32_t, uint32_t *);
    ilmap_status (*il_to_native)(const ilmap_native *, uint32_t, ilmap_native_entry *, size_t *,
                                 int *);
    size_t (*memory)(const ilmap_native *);
    unsigned (*detail)(const ilmap_native *, uint32_t, uint32_t *, size_t *, uint32_t *);
    ilmap_status (*ranges)(const ilmap_native *, uint32_t, size_t, size_t *, ilmap_native_entry *);
} lookup_api;

static const lookup_api self_api = { ilmap_native_build,         ilmap_native_free,
                                     ilmap_native_to_il,         ilmap_il_to_native,
                                     ilmap_native_get_memory_bytes, ilmap_native_to_il_detail,
                                     ilmap_il_to_native_ranges };

/* The --baseline library's lookups; 0 when it cannot be loaded. */
static int load_baseline(const char *path, lookup_api *api)
{
#ifdef _WIN32
    (void)path;
    (void)api;
    fprintf(stderr, "bench-native: --baseline needs dlopen (not on Windows)\n");
    return 0;
#else
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "bench-native: %s\n", dlerror());
        return 0;
    }
    /* POSIX: a dlsym result converts to a function pointer through memcpy. */
    static const char *const names[] = { "ilmap_native_build", "ilmap_native_free",
                                         "ilmap_native_to_il", "ilmap_il_to_native",
                                         "ilmap_native_get_memory_bytes",
                                         "ilmap_native_to_il_detail",
                                         "ilmap_il_to_native_ranges" };
    void *sym[7];
    for (size_t i = 0; i < 7; i++) {
        sym[i] = dlsym(lib, names[i]);
        if (!sym[i]) {
            fprintf(stderr, "bench-native: %s: no %s\n", path, names[i]);
            return 0;
        }
    }
    memcpy(&api->build, &sym[0], sizeof sym[0]);
    memcpy(&api->release, &sym[1], sizeof sym[1]);
    memcpy(&api->to_il, &sym[2], sizeof sym[2]);
    memcpy(&api->il_to_native, &sym[3], sizeof sym[3]);
    memcpy(&api->memory, &sym[4], sizeof sym[4]);
    memcpy(&api->detail, &sym[5], sizeof sym[5]);
    memcpy(&api->ranges, &sym[6], sizeof sym[6]);
    return 1;
#endif
}

typedef struct dataset {
    size_t n;
    ilmap_native *map;
    const lookup_api *base_api; /* NULL without --baseline */
    ilmap_native *base_map;     /* the same boundaries, built by base_api */
    ilmap_native_record *table; /* the runtime's sorted table */
    uint32_t last_il;
    uint32_t code_size;
    uint32_t *native_queries;
    uint32_t *il_queries;
} dataset;

/*
 * n boundaries, none repeating its predecessor's IL offset, so that every
 * one is kept and the table has exactly n entries: a prolog at 0, then
 * code 1..12 bytes per boundary whose IL offset mostly grows, with one
 * in 16 a loop body placed again (an IL offset seen before), one in 32
 * an unmapped stub, and epilogs at the end.
 */
static ilmap_boundary *make_jit(size_t n, prng *rng, uint32_t *code_size)
{
    ilmap_boundary *jit = xmalloc(n * sizeof *jit);
    uint32_t native = 0, il = 0;

    for (size_t i = 0; i < n; i++) {
        uint32_t value;
        if (i == 0)
            value = ILMAP_PROLOG;
        else if (i + 2 >= n && n > 4)
            value = ILMAP_EPILOG;
        else if (prng_below(rng, 32) == 0)
            value = ILMAP_NO_MAPPING;
        else if (prng_below(rng, 16) == 0 && il > 0)
            value = prng_below(rng, il);
        else
            value = il += 1 + prng_below(rng, 6);
        if (i > 0 && value == jit[i - 1].il_offset)
            value = il += 1; /* keep every boundary */
        jit[i].native_offset = native;
        jit[i].il_offset = value;
        jit[i].source = ILMAP_SOURCE_SEQUENCE_POINT;
        native += 1 + prng_below(rng, 12);
    }
    *code_size = native;
    return jit;
}

static void dataset_init(dataset *ds, size_t n, const lookup_api *base_api)
{
    prng rng = prng_init(0x4E41544956450000u + n);
    uint32_t code_size, max_il = 0;
    size_t total = 0;
    ilmap_boundary *jit = make_jit(n, &rng, &code_size);

    memset(ds, 0, sizeof *ds);
    ds->n = n;
    if (ilmap_native_build(jit, n, NULL, code_size, 0, &ds->map) != ILMAP_OK ||
        ilmap_native_get_count(ds->map) != n) {
        fprintf(stderr, "bench-native: build failed for n = %zu\n", n);
        exit(1);
    }
    ds->base_api = base_api;
    if (base_api && base_api->build(jit, n, NULL, code_size, 0, &ds->base_map) != ILMAP_OK) {
        fprintf(stderr, "bench-native: the baseline's build failed for n = %zu\n", n);
        exit(1);
    }
    ds->table = xmalloc(n * sizeof *ds->table);
    ilmap_native_export_records(ds->map, ILMAP_RECORDS_EXPORTED, n, &total, ds->table);
    ds->last_il = ilmap_native_get_last_il(ds->map);
    ds->code_size = code_size;
    for (size_t i = 0; i < n; i++)
        if (jit[i].il_offset < ILMAP_EPILOG && jit[i].il_offset > max_il)
            max_il = jit[i].il_offset;
    free(jit);

    /* Native offsets over the code and a little past it; IL offsets over
     * the method's range. */
    ds->native_queries = xmalloc(QUERIES * sizeof *ds->native_queries);
    ds->il_queries = xmalloc(QUERIES * sizeof *ds->il_queries);
    for (size_t i = 0; i < QUERIES; i++) {
        ds->native_queries[i] = prng_below(&rng, code_size + 8);
        ds->il_queries[i] = prng_below(&rng, max_il + 4);
    }
}

static void dataset_free(dataset *ds)
{
    ilmap_native_free(ds->map);
    if (ds->base_map)
        ds->base_api->release(ds->base_map);
    free(ds->table);
    free(ds->native_queries);
    free(ds->il_queries);
}

/* ------------------------------------------------------------------ */
/* The baselines                                                       */
/* ------------------------------------------------------------------ */

/* MapNativeOffsetToIL: the first match in sorted order wins. */
static inline unsigned linear_to_il(const dataset *ds, uint32_t x, uint32_t *il)
{
    const ilmap_native_record *t = ds->table;

    for (size_t i = 0; i < ds->n; i++) {
        if (x >= t[i].native_start &&
            ((t[i].native_end == 0 && t[i].il_offset != ILMAP_PROLOG) || x < t[i].native_end)) {
            switch (t[i].il_offset) {
            case ILMAP_PROLOG: *il = 0; return ILMAP_MAPPING_PROLOG;
            case ILMAP_NO_MAPPING: *il = 0; return ILMAP_MAPPING_UNMAPPED_ADDRESS;
            case ILMAP_EPILOG: *il = ds->last_il; return ILMAP_MAPPING_EPILOG;
            default: break;
            }
            *il = t[i].il_offset;
            return x == t[i].native_start ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
        }
    }
    *il = 0;
    return ILMAP_MAPPING_NO_INFO;
}

/* The same scan with the matched entry's index (ILMAP_NO_INDEX: none)
 * and the runtime's `which`: the special entries visited, the matched
 * one included. */
static inline unsigned linear_detail(const dataset *ds, uint32_t x, uint32_t *il, size_t *entry,
                                     uint32_t *which)
{
    const ilmap_native_record *t = ds->table;
    uint32_t specials = 0;

    for (size_t i = 0; i < ds->n; i++) {
        specials += t[i].il_offset >= ILMAP_EPILOG;
        if (x >= t[i].native_start &&
            ((t[i].native_end == 0 && t[i].il_offset != ILMAP_PROLOG) || x < t[i].native_end)) {
            *entry = i;
            *which = specials;
            switch (t[i].il_offset) {
            case ILMAP_PROLOG: *il = 0; return ILMAP_MAPPING_PROLOG;
            case ILMAP_NO_MAPPING: *il = 0; return ILMAP_MAPPING_UNMAPPED_ADDRESS;
            case ILMAP_EPILOG: *il = ds->last_il; return ILMAP_MAPPING_EPILOG;
            default: break;
            }
            *il = t[i].il_offset;
            return x == t[i].native_start ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
        }
    }
    *il = 0;
    *entry = ILMAP_NO_INDEX;
    *which = specials;
    return ILMAP_MAPPING_NO_INFO;
}

/* Every entry of IL offset x in exported order, up to cap copied out
 * (the end-unknown entry's end is the code size); their number. */
static inline size_t linear_ranges(const dataset *ds, uint32_t x, size_t cap,
                                   ilmap_native_entry *out)
{
    const ilmap_native_record *t = ds->table;
    size_t total = 0;

    for (size_t i = 0; i < ds->n; i++) {
        if (t[i].il_offset != x)
            continue;
        if (total < cap) {
            out[total].il_offset = x;
            out[total].native_start = t[i].native_start;
            out[total].native_end = (t[i].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
                                        ? ds->code_size
                                        : t[i].native_end;
        }
        total++;
    }
    return total;
}

/* The floor entry's native start, or 0xFFFFFFFF: the first entry of the
 * last IL group <= x, found walking the sorted table. */
static inline uint32_t linear_floor(const dataset *ds, uint32_t x)
{
    const ilmap_native_record *t = ds->table;
    size_t best = (size_t)-1;

    for (size_t i = 0; i < ds->n; i++) {
        uint32_t il = t[i].il_offset;
        if (il == ILMAP_PROLOG)
            continue;
        if (il > x) /* specials sort after every normal offset */
            break;
        if (best == (size_t)-1 || t[best].il_offset != il)
            best = i;
    }
    return best == (size_t)-1 ? 0xFFFFFFFFu : t[best].native_start;
}

static inline uint32_t ilmap_floor(const dataset *ds, uint32_t x)
{
    ilmap_native_entry e;

    if (ilmap_il_to_native(ds->map, x, &e, NULL, NULL) != ILMAP_OK)
        return 0xFFFFFFFFu;
    return e.native_start;
}

/* ------------------------------------------------------------------ */
/* Workloads                                                           */
/* ------------------------------------------------------------------ */

/* The --baseline comparison calls both builds through pointers read
 * once per run, the same way. */
#define self_to_il to_il_fn
#define base_to_il to_il_fn
#define self_floor floor_fn
#define base_floor floor_fn
#define self_detail detail_fn
#define base_detail detail_fn
#define self_ranges ranges_fn
#define base_ranges ranges_fn

/* One sum per detail answer: kind, entry and which (il is summed by the
 * runner). */
static inline uint64_t detail_via(unsigned (*fn)(const ilmap_native *, uint32_t, uint32_t *,
                                                 size_t *, uint32_t *),
                                  const ilmap_native *m, uint32_t x, uint32_t *il)
{
    size_t entry;
    uint32_t which;
    unsigned kind = fn(m, x, il, &entry, &which);
    return kind + entry + which;
}

static inline uint64_t linear_detail_sum(const dataset *ds, uint32_t x, uint32_t *il)
{
    size_t entry;
    uint32_t which;
    unsigned kind = linear_detail(ds, x, il, &entry, &which);
    return kind + entry + which;
}

/* One sum per ranges answer: the total and the first range's start. */
static inline uint64_t ranges_via(ilmap_status (*fn)(const ilmap_native *, uint32_t, size_t,
                                                     size_t *, ilmap_native_entry *),
                                  const ilmap_native *m, uint32_t x)
{
    ilmap_native_entry out[RANGES_CAP];
    size_t total = 0;

    fn(m, x, RANGES_CAP, &total, out);
    return total ? total + out[0].native_start : 0;
}

static inline uint64_t linear_ranges_sum(const dataset *ds, uint32_t x)
{
    ilmap_native_entry out[RANGES_CAP];
    size_t total = linear_ranges(ds, x, RANGES_CAP, out);
    return total ? total + out[0].native_start : 0;
}

static inline uint32_t floor_via(ilmap_status (*fn)(const ilmap_native *, uint32_t,
                                                    ilmap_native_entry *, size_t *, int *),
                                 const ilmap_native *m, uint32_t x)
{
    ilmap_native_entry e;

    if (fn(m, x, &e, NULL, NULL) != ILMAP_OK)
        return 0xFFFFFFFFu;
    return e.native_start;
}

/* Independent lookups over the query array, every answer summed: the
 * same loop for both implementations, stamped out so each lookup is
 * inlined into its own loop as a hand-written caller has it. */
/* The API a runner calls through: the baseline's for run_base_*, this
 * build's otherwise. */
#define RUNNER_API(name) (strncmp(#name, "run_base", 8) == 0 ? ds->base_api : &self_api)

#define RUNNER(name, queries, expr)                                                \
    static uint64_t name(void *arg, uint64_t units)                                \
    {                                                                              \
        const dataset *ds = arg;                                                   \
        const uint32_t *q = ds->queries;                                           \
        const lookup_api *api = RUNNER_API(name);                                  \
        unsigned (*const to_il_fn)(const ilmap_native *, uint32_t, uint32_t *) =    \
            api->to_il;                                                            \
        ilmap_status (*const floor_fn)(const ilmap_native *, uint32_t,             \
                                       ilmap_native_entry *, size_t *, int *) =    \
            api->il_to_native;                                                     \
        unsigned (*const detail_fn)(const ilmap_native *, uint32_t, uint32_t *,     \
                                    size_t *, uint32_t *) = api->detail;           \
        ilmap_status (*const ranges_fn)(const ilmap_native *, uint32_t, size_t,    \
                                        size_t *, ilmap_native_entry *) =          \
            api->ranges;                                                           \
        (void)to_il_fn;                                                            \
        (void)floor_fn;                                                            \
        (void)detail_fn;                                                           \
        (void)ranges_fn;                                                           \
        uint64_t sum = 0;                                                          \
        uint64_t start = bench_now_ns();                                           \
        for (uint64_t u = 0; u < units; u++) {                                     \
            uint32_t x = q[u & (QUERIES - 1)];                                     \
            uint32_t il = 0;                                                       \
            sum += (expr) + il;                                                    \
        }                                                                          \
        uint64_t elapsed = bench_now_ns() - start;                                 \
        bench_sink += sum;                                                         \
        return elapsed;                                                            \
    }

RUNNER(run_ilmap_to_il, native_queries, ilmap_native_to_il(ds->map, x, &il))
RUNNER(run_self_to_il, native_queries, self_to_il(ds->map, x, &il))
RUNNER(run_base_to_il, native_queries, base_to_il(ds->base_map, x, &il))
RUNNER(run_self_floor, il_queries, floor_via(self_floor, ds->map, x))
RUNNER(run_base_floor, il_queries, floor_via(base_floor, ds->base_map, x))
RUNNER(run_linear_to_il, native_queries, linear_to_il(ds, x, &il))
RUNNER(run_ilmap_floor, il_queries, ilmap_floor(ds, x))
RUNNER(run_linear_floor, il_queries, linear_floor(ds, x))
RUNNER(run_ilmap_detail, native_queries, detail_via(ilmap_native_to_il_detail, ds->map, x, &il))
RUNNER(run_self_detail, native_queries, detail_via(self_detail, ds->map, x, &il))
RUNNER(run_base_detail, native_queries, detail_via(base_detail, ds->base_map, x, &il))
RUNNER(run_linear_detail, native_queries, linear_detail_sum(ds, x, &il))
RUNNER(run_ilmap_ranges, il_queries, ranges_via(ilmap_il_to_native_ranges, ds->map, x))
RUNNER(run_self_ranges, il_queries, ranges_via(self_ranges, ds->map, x))
RUNNER(run_base_ranges, il_queries, ranges_via(base_ranges, ds->base_map, x))
RUNNER(run_linear_ranges, il_queries, linear_ranges_sum(ds, x))

/* ------------------------------------------------------------------ */
/* Cross-check: a fast wrong answer is no result                       */
/* ------------------------------------------------------------------ */

/* The detail and ranges of one native and one IL query agree between
 * api's map m and the linear forms. */
static int check_more(const dataset *ds, const lookup_api *api, const ilmap_native *m,
                      const char *name, uint32_t x, uint32_t y)
{
    uint32_t a = 0, b = 0, wa = 0, wb = 0;
    size_t ea = 0, eb = 0;
    unsigned ra = api->detail(m, x, &a, &ea, &wa);
    unsigned rb = linear_detail(ds, x, &b, &eb, &wb);

    if (ra != rb || a != b || ea != eb || wa != wb) {
        fprintf(stderr,
                "bench-native: n = %zu, native %u: %s detail (0x%X, %u, entry %zu, which %u), "
                "scan (0x%X, %u, entry %zu, which %u)\n",
                ds->n, x, name, ra, a, ea, wa, rb, b, eb, wb);
        return 0;
    }
    ilmap_native_entry oa[RANGES_CAP], ob[RANGES_CAP];
    size_t ta = 0, tb = linear_ranges(ds, y, RANGES_CAP, ob);
    ilmap_status st = api->ranges(m, y, RANGES_CAP, &ta, oa);
    int ok = ta == tb && st == (tb > RANGES_CAP ? ILMAP_E_TRUNCATED : ILMAP_OK);
    for (size_t i = 0; ok && i < tb && i < RANGES_CAP; i++)
        ok = oa[i].il_offset == ob[i].il_offset && oa[i].native_start == ob[i].native_start &&
             oa[i].native_end == ob[i].native_end;
    if (!ok) {
        fprintf(stderr, "bench-native: n = %zu, IL %u: %s ranges (%d, %zu), scan %zu\n", ds->n, y,
                name, (int)st, ta, tb);
        return 0;
    }
    return 1;
}

static int check_dataset(const dataset *ds)
{
    for (size_t i = 0; i < QUERIES; i++) {
        uint32_t x = ds->native_queries[i], a = 0, b = 0;
        unsigned ra = ilmap_native_to_il(ds->map, x, &a);
        unsigned rb = linear_to_il(ds, x, &b);
        if (ra != rb || a != b) {
            fprintf(stderr, "bench-native: n = %zu, native %u: ilmap (0x%X, %u), scan (0x%X, %u)\n",
                    ds->n, x, ra, a, rb, b);
            return 0;
        }
        if (ds->base_map) {
            uint32_t c = 0;
            unsigned rc = ds->base_api->to_il(ds->base_map, x, &c);
            if (rc != ra || c != a) {
                fprintf(stderr, "bench-native: n = %zu, native %u: ilmap (0x%X, %u), baseline (0x%X, %u)\n",
                        ds->n, x, ra, a, rc, c);
                return 0;
            }
            uint32_t y = ds->il_queries[i];
            if (floor_via(ds->base_api->il_to_native, ds->base_map, y) != ilmap_floor(ds, y)) {
                fprintf(stderr, "bench-native: n = %zu, IL %u: ilmap and the baseline differ\n",
                        ds->n, y);
                return 0;
            }
        }
        if (!check_more(ds, &self_api, ds->map, "ilmap", x, ds->il_queries[i]) ||
            (ds->base_map &&
             !check_more(ds, ds->base_api, ds->base_map, "baseline", x, ds->il_queries[i])))
            return 0;
        x = ds->il_queries[i];
        if (ilmap_floor(ds, x) != linear_floor(ds, x)) {
            fprintf(stderr, "bench-native: n = %zu, IL %u: ilmap %u, scan %u\n", ds->n, x,
                    ilmap_floor(ds, x), linear_floor(ds, x));
            return 0;
        }
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static void emit_json(const char *op, size_t n, const char *impl, double ns)
{
    printf("{\"op\": \"%s\", \"n\": %zu, \"impl\": \"%s\", \"ns\": %.3f}\n", op, n, impl, ns);
}

int main(int argc, char **argv)
{
    bench_options opt;
    const char *baseline = NULL;
    lookup_api base_api = { 0 };
    int nargs = 0;

    /* --baseline LIB is this bench's own option; the rest are bench.h's. */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--baseline") == 0 && i + 1 < argc)
            baseline = argv[++i];
        else
            argv[++nargs] = argv[i];
    }
    int rc = bench_parse_options(nargs + 1, argv, JSON_EXAMPLE, &opt);
    if (rc == 0 && baseline && !load_baseline(baseline, &base_api))
        rc = 2;
    double base_ns[NSIZES][4][2]; /* [size][op][this, baseline] */
    size_t base_memory[NSIZES];
    static const struct {
        const char *op;
        bench_run_fn ilmap, linear;
        int targeted; /* held to TARGET_SPEEDUP */
    } ops[] = {
        { "native_to_il", run_ilmap_to_il, run_linear_to_il, 1 },
        { "il_to_native", run_ilmap_floor, run_linear_floor, 1 },
        { "native_to_il_detail", run_ilmap_detail, run_linear_detail, 1 },
        { "il_to_native_ranges", run_ilmap_ranges, run_linear_ranges, 0 },
    };
#define NOPS (sizeof ops / sizeof ops[0])
    int pass = 0, miss = 0;
    size_t memory[NSIZES];

    if (rc)
        return rc < 0 ? 0 : rc;
    if (!opt.json)
        printf("bench-native: ns per lookup, best of %d runs of %g ms; target >= %.0fx the "
               "scan at n >= %u (ranges: none)\n\n%-19s %6s %10s %10s %9s  %s\n",
               opt.budget.reps, (double)opt.budget.min_ns / 1e6, TARGET_SPEEDUP, TARGET_MIN_N,
               "op", "n", "ilmap", "linear", "speedup", "target");
    for (size_t s = 0; s < NSIZES; s++) {
        dataset ds;
        dataset_init(&ds, sizes[s], baseline ? &base_api : NULL);
        if (!check_dataset(&ds)) {
            dataset_free(&ds);
            return 1;
        }
        for (size_t o = 0; o < NOPS; o++) {
            bench_case cases[2] = { { ops[o].ilmap, &ds, 0, 0.0 },
                                    { ops[o].linear, &ds, 0, 0.0 } };
            bench_measure(cases, 2, &opt.budget);
            if (baseline) {
                static const bench_run_fn self_runs[] = { run_self_to_il, run_self_floor,
                                                          run_self_detail, run_self_ranges };
                static const bench_run_fn base_runs[] = { run_base_to_il, run_base_floor,
                                                          run_base_detail, run_base_ranges };
                bench_case ab[2] = { { self_runs[o], &ds, 0, 0.0 }, { base_runs[o], &ds, 0, 0.0 } };
                bench_measure(ab, 2, &opt.budget);
                base_ns[s][o][0] = ab[0].ns;
                base_ns[s][o][1] = ab[1].ns;
                if (opt.json) {
                    emit_json(ops[o].op, ds.n, "ilmap-pointer", ab[0].ns);
                    emit_json(ops[o].op, ds.n, "baseline", ab[1].ns);
                }
            }
            if (opt.json) {
                emit_json(ops[o].op, ds.n, "ilmap", cases[0].ns);
                emit_json(ops[o].op, ds.n, "linear", cases[1].ns);
                continue;
            }
            double speedup = cases[1].ns / cases[0].ns;
            const char *verdict = "-";
            if (ds.n >= TARGET_MIN_N && ops[o].targeted) {
                int met = speedup >= TARGET_SPEEDUP;
                verdict = met ? "PASS" : "MISS";
                pass += met;
                miss += !met;
            }
            printf("%-19s %6zu %10.2f %10.2f %8.1fx  %s\n", ops[o].op, ds.n, cases[0].ns,
                   cases[1].ns, speedup, verdict);
        }
        memory[s] = ilmap_native_get_memory_bytes(ds.map);
        base_memory[s] = ds.base_map ? base_api.memory(ds.base_map) : 0;
        dataset_free(&ds);
    }
    if (opt.json)
        return 0;
    printf("\nmemory (ilmap_native_get_memory_bytes) vs the exported array (n x 12 bytes); "
           "target <= %.1fx\n", TARGET_MEMORY);
    for (size_t s = 0; s < NSIZES; s++) {
        double ratio = (double)memory[s] / (double)(sizes[s] * sizeof(ilmap_native_entry));
        printf("  n = %4zu: %7zu bytes, %5.1f per entry (%.2fx the array, target %.1fx)  %s\n",
               sizes[s], memory[s], (double)memory[s] / (double)sizes[s], ratio, TARGET_MEMORY,
               ratio <= TARGET_MEMORY ? "PASS" : "MISS");
    }
    if (baseline) {
        printf("\nagainst the baseline %s, same run, both called through pointers, taking "
               "turns:\n%-19s %6s %10s %10s %11s %12s %12s\n",
               baseline, "op", "n", "this", "baseline", "this/base", "this bytes", "base bytes");
        for (size_t o = 0; o < NOPS; o++)
            for (size_t s = 0; s < NSIZES; s++)
                printf("%-19s %6zu %10.2f %10.2f %10.2fx %12zu %12zu\n", ops[o].op, sizes[s],
                       base_ns[s][o][0], base_ns[s][o][1], base_ns[s][o][0] / base_ns[s][o][1],
                       memory[s], base_memory[s]);
    }
    printf("\n%d PASS, %d MISS (implementation: %s)\n", pass, miss, ilmap_get_implementation(NULL));
    return 0;
}
