/*
 * Small helpers for the benchmarks: a monotonic clock (the library's
 * platform layer, lib/platform/clock.h), the seeded PRNG of
 * test/prng.h (so every run measures the same maps and queries) and a
 * "best of several timed runs" driver.
 *
 * The including file must define _POSIX_C_SOURCE (>= 199309L) before its
 * first system header: the project builds with -std=c11, which hides
 * clock_gettime otherwise (Windows: QueryPerformanceCounter).
 */
#ifndef ILMAP_BENCH_H
#define ILMAP_BENCH_H

#include <stdint.h>
#include <string.h>
#include <stdio.h>

#include "../lib/platform/clock.h"
#include "../test/prng.h"

static inline uint64_t bench_now_ns(void)
{
    return ilmap_monotonic_ns();
}

/*
 * A workload runs `units` units of work (lookups, batch calls, builds) and
 * returns how many nanoseconds they took. The runner reads the clock
 * itself so that it can leave untimed work (freeing maps) out.
 */
typedef uint64_t (*bench_run_fn)(void *ctx, uint64_t units);

typedef struct bench_budget {
    uint64_t min_ns; /* each timed run lasts at least this long */
    int reps;        /* timed runs; the fastest one counts */
} bench_budget;

/* The options every bench takes: --quick, --loaded, --json, --help. */
typedef struct bench_options {
    int quick;
    int loaded;
    int json;
    bench_budget budget;
} bench_options;

static inline void bench_usage(FILE *to, const char *argv0, const char *json_example)
{
    fprintf(to,
            "usage: %s [--quick] [--loaded] [--json] [--help]\n"
            "  --quick  shorter timed runs (under 10 s in all), noisier numbers\n"
            "  --loaded many short timed runs (60 of 0.5 ms): on a busy machine the\n"
            "           fastest of them is steadier than the fastest of 5 long ones\n"
            "  --json   one JSON object per result line instead of the table:\n"
            "           %s\n"
            "  --help   this text\n",
            argv0, json_example);
}

/* Returns 0 and fills opt, -1 after --help, or 2 (the exit status) for an
 * unknown argument. About 5 timed runs of 40 ms per result keeps a full
 * run near 20 s; quick mode trades stability for a couple of seconds. */
static inline int bench_parse_options(int argc, char **argv, const char *json_example,
                                      bench_options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            opt->quick = 1;
        } else if (strcmp(argv[i], "--loaded") == 0) {
            opt->loaded = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            opt->json = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            bench_usage(stdout, argv[0], json_example);
            return -1;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[i]);
            bench_usage(stderr, argv[0], json_example);
            return 2;
        }
    }
    opt->budget.min_ns = opt->loaded ? 500000u : opt->quick ? 5000000u : 40000000u;
    opt->budget.reps = opt->loaded ? 60 : opt->quick ? 3 : 5;
    return 0;
}

/* One workload to measure and, once measured, its result. */
typedef struct bench_case {
    bench_run_fn run;
    void *ctx;
    uint64_t units; /* per timed run; set by the sizing */
    double ns;      /* best ns per unit */
} bench_case;

/* Units of c's work that take about min_ns. The sizing runs double as
 * warm-up (caches, page faults, branch history). */
static inline uint64_t bench_size(const bench_case *c, uint64_t min_ns)
{
    uint64_t units = 1;
    uint64_t elapsed = c->run(c->ctx, units);

    /* Doubling until a quarter of the target keeps the sizing cost under
     * half a timed run, however slow or fast one unit is. */
    while (elapsed < min_ns / 4) {
        units *= 2;
        elapsed = c->run(c->ctx, units);
    }
    if (elapsed < min_ns)
        units = (uint64_t)((double)units * (double)min_ns / (double)elapsed * 1.05) + 1;
    return units;
}

/*
 * Sets each case's ns per unit: the best of budget->reps runs of about
 * budget->min_ns. The best rather than the mean because noise (other
 * processes, interrupts, a busy VM host) only ever adds time. The cases
 * take turns, one run each per round, so that a slow spell lasting
 * longer than one run hits every case compared in a row, not just one.
 */
static inline void bench_measure(bench_case *cases, int count, const bench_budget *budget)
{
    for (int i = 0; i < count; i++) {
        cases[i].units = bench_size(&cases[i], budget->min_ns);
        cases[i].ns = -1.0;
    }
    for (int rep = 0; rep < budget->reps; rep++) {
        for (int i = 0; i < count; i++) {
            bench_case *c = &cases[i];
            double per_unit = (double)c->run(c->ctx, c->units) / (double)c->units;
            if (c->ns < 0.0 || per_unit < c->ns)
                c->ns = per_unit;
        }
    }
}

/* bench_measure() for a lone workload; returns its ns per unit. */
static inline double bench_measure_one(bench_run_fn run, void *ctx, const bench_budget *budget)
{
    bench_case c = { run, ctx, 0, 0.0 };

    bench_measure(&c, 1, budget);
    return c.ns;
}

#endif
