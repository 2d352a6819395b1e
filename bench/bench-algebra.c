/*
 * bench-algebra: throughput of the map algebra on method bodies of 64 B,
 * 1 KiB and 64 KiB of IL:
 *
 *   build        ilmap_il_starts + ilmap_edits_build: the COR_IL_MAP of an
 *                edit (a probe before every 8th instruction) from the IL
 *   rewrite      ilmap_rewrite_create with the same probes: parse, decode,
 *                retarget and widen branches, rebase EH, emit body and map
 *   wrap         ilmap_il_wrap_create: the whole method wrapped in Begin/End
 *                calls as a tracer does (doc/il-maps.md#wrap), with its map
 *   compose      ilmap_compose of the rewrite's map with the map of a
 *                second such pass (n = entries of the first map)
 *   deserialize  ilmap_deserialize of the composed map, checks included
 *                (n = entries)
 *
 * The bodies are synthetic but shaped like compiler output: loads, calls,
 * short branches reaching back close to their limit (so probes force
 * widening), switches, a try/finally. The table gives ns per operation,
 * operations (methods, for rewrite and wrap) and IL bytes per second;
 * --json prints one result per line:
 * {"op": "rewrite", "n": 1024, "impl": "ilmap", "ns": ...}.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ilmap-algebra.h"
#include "ilmap-il.h"
#include "ilmap-serial.h"

static volatile uint64_t bench_sink;

typedef struct options {
    int json;
    int quick;
    bench_budget budget;
} options;

static void usage(FILE *to, const char *argv0)
{
    fprintf(to,
            "usage: %s [--quick] [--json] [--help]\n"
            "  --quick  shorter timed runs, noisier numbers\n"
            "  --json   one JSON object per result line instead of the table:\n"
            "           {\"op\": \"rewrite\", \"n\": 1024, \"impl\": \"ilmap\", \"ns\": 1234.5}\n"
            "  --help   this text\n",
            argv0);
}

static void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "bench-algebra: out of memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16),
    p[3] = (uint8_t)(v >> 24);
}

/* code_size bytes of valid IL (ret at the end); *starts gets the offsets. */
static uint8_t *make_code(uint32_t code_size, prng *rng)
{
    uint8_t *c = xmalloc(code_size);
    uint32_t *starts = xmalloc(code_size * sizeof *starts);
    uint32_t n = 0, pos = 0;

    while (pos + 16 < code_size) {
        uint32_t r = prng_below(rng, 10);
        starts[n++] = pos;
        if (r < 3) {
            c[pos++] = 0x02; /* ldarg.0 */
        } else if (r < 5) {
            c[pos] = 0x28, put32(c + pos + 1, 0x0A000001u + r), pos += 5; /* call */
        } else if (r < 6) {
            c[pos] = 0x20, put32(c + pos + 1, r), pos += 5; /* ldc.i4 */
        } else if (r < 9 && n > 1) {
            /* brtrue.s back to the furthest start still in reach */
            uint32_t k = n - 1;
            while (k > 0 && (int64_t)starts[k - 1] - (pos + 2) >= -128)
                k--;
            c[pos] = 0x2D, c[pos + 1] = (uint8_t)(int8_t)((int64_t)starts[k] - (pos + 2));
            pos += 2;
        } else if (n > 2) {
            /* switch with two targets back */
            c[pos] = 0x45, put32(c + pos + 1, 2);
            uint32_t next = pos + 13;
            put32(c + pos + 5, (uint32_t)((int64_t)starts[n / 2] - next));
            put32(c + pos + 9, (uint32_t)((int64_t)starts[0] - next));
            pos += 13;
        } else {
            c[pos++] = 0x00;
        }
    }
    while (pos < code_size - 1)
        c[pos++] = 0x00;
    c[pos] = 0x2A;
    free(starts);
    return c;
}

/* A body: tiny for small code, else fat with one try/finally clause. */
static uint8_t *make_body(uint32_t body_size, size_t *size, prng *rng)
{
    if (body_size <= 64) {
        uint32_t code_size = body_size - 1;
        uint8_t *b = xmalloc(body_size);
        uint8_t *c = make_code(code_size, rng);
        b[0] = (uint8_t)(2 | code_size << 2);
        memcpy(b + 1, c, code_size);
        free(c);
        *size = body_size;
        return b;
    }
    uint32_t code_size = body_size - 12 - 28;
    code_size &= ~3u;
    uint8_t *c = make_code(code_size, rng);
    size_t total = 12 + code_size + 28;
    uint8_t *b = calloc(total, 1);
    b[0] = 0x1B, b[1] = 0x30, b[2] = 8;
    put32(b + 4, code_size);
    memcpy(b + 12, c, code_size);
    /* finally over the first instruction, handled by the second (both
     * starts in this generator: 0 and the first instruction's end). */
    ilmap_il_instr first;
    ilmap_il_decode_one(c, code_size, 0, &first);
    ilmap_il_instr second;
    ilmap_il_decode_one(c, code_size, first.length, &second);
    uint8_t *s = b + 12 + code_size;
    s[0] = 0x41, s[1] = 28;
    put32(s + 4, 2);
    put32(s + 8, 0);
    put32(s + 12, first.length);
    put32(s + 16, first.length);
    put32(s + 20, second.length);
    free(c);
    *size = total;
    return b;
}

typedef struct dataset {
    uint32_t body_bytes;
    uint8_t *body;
    size_t body_size;
    ilmap_il_body parsed;
    uint32_t *starts;
    size_t nstarts;
    ilmap_edit *edits;
    ilmap_il_insertion *ins;
    size_t nedits;
    ilmap_entry *entries;
    ilmap *a, *b, *c; /* first pass, second pass, composed */
    uint8_t *serialized;
    size_t serialized_size;
} dataset;

static const uint8_t probe[] = {0x28, 0x01, 0x00, 0x00, 0x0A}; /* call token */

/* The tokens and locals of a wrap (any: the IL does not resolve them). */
static const ilmap_il_wrap_spec wrap_spec = {
    0x0A000001u, 0x0A000002u, 0x01000003u, 0x06000004u, 0x11000005u, 1, 0, 0x01000006u, 0,
};

static void dataset_make(dataset *d, uint32_t body_bytes, prng *rng)
{
    memset(d, 0, sizeof *d);
    d->body_bytes = body_bytes;
    d->body = make_body(body_bytes, &d->body_size, rng);
    if (ilmap_il_body_parse(d->body, d->body_size, &d->parsed) != ILMAP_OK ||
        ilmap_il_body_validate(&d->parsed, NULL) != ILMAP_OK) {
        fprintf(stderr, "bench-algebra: generated body of %u bytes is invalid\n", body_bytes);
        exit(1);
    }
    ilmap_il_starts(d->parsed.code, d->parsed.code_size, 0, &d->nstarts, NULL, NULL);
    d->starts = xmalloc(d->nstarts * sizeof *d->starts);
    ilmap_il_starts(d->parsed.code, d->parsed.code_size, d->nstarts, &d->nstarts, d->starts, NULL);
    d->edits = xmalloc((d->nstarts / 8 + 1) * sizeof *d->edits);
    d->ins = xmalloc((d->nstarts / 8 + 1) * sizeof *d->ins);
    for (size_t i = 0; i < d->nstarts; i += 8, d->nedits++) {
        d->edits[d->nedits] = (ilmap_edit){ILMAP_EDIT_INSERT, d->starts[i], sizeof probe};
        d->ins[d->nedits] = (ilmap_il_insertion){d->starts[i], sizeof probe, probe};
    }
    d->entries = xmalloc(d->nstarts * sizeof *d->entries);

    /* Two stacked passes for compose and deserialize. */
    ilmap_rewrite *r1, *r2;
    if (ilmap_rewrite_create(d->body, d->body_size, d->ins, d->nedits, 1, 0, &r1, NULL) != ILMAP_OK) {
        fprintf(stderr, "bench-algebra: rewrite of %u bytes failed\n", body_bytes);
        exit(1);
    }
    size_t n1, s1;
    const ilmap_entry *e1 = ilmap_rewrite_get_entries(r1, &n1);
    ilmap_create(e1, n1, 0, &d->a);
    const uint8_t *v1 = ilmap_rewrite_get_body(r1, &s1);
    ilmap_il_insertion again = {0, sizeof probe, probe};
    if (ilmap_rewrite_create(v1, s1, &again, 1, 1, 0, &r2, NULL) != ILMAP_OK) {
        fprintf(stderr, "bench-algebra: second rewrite failed\n");
        exit(1);
    }
    size_t n2;
    const ilmap_entry *e2 = ilmap_rewrite_get_entries(r2, &n2);
    ilmap_create(e2, n2, 0, &d->b);
    ilmap_compose(d->a, d->b, 0, &d->c, NULL);
    ilmap_serialize(d->c, 0, &d->serialized_size, NULL);
    d->serialized = xmalloc(d->serialized_size);
    ilmap_serialize(d->c, d->serialized_size, &d->serialized_size, d->serialized);
    ilmap_rewrite_free(r1);
    ilmap_rewrite_free(r2);
    /* The wrap must take the body (its timing loop does not check). */
    ilmap_rewrite *w;
    if (ilmap_il_wrap_create(d->body, d->body_size, &wrap_spec, &w, NULL) != ILMAP_OK) {
        fprintf(stderr, "bench-algebra: wrap of %u bytes failed\n", body_bytes);
        exit(1);
    }
    ilmap_rewrite_free(w);
}

static void dataset_free(dataset *d)
{
    free(d->body);
    free(d->starts);
    free(d->edits);
    free(d->ins);
    free(d->entries);
    free(d->serialized);
    ilmap_free(d->a);
    ilmap_free(d->b);
    ilmap_free(d->c);
}

static uint64_t run_build(void *ctx, uint64_t units)
{
    dataset *d = ctx;
    uint64_t t0 = bench_now_ns();
    for (uint64_t u = 0; u < units; u++) {
        size_t n;
        uint32_t size;
        ilmap_il_starts(d->parsed.code, d->parsed.code_size, d->nstarts, &n, d->starts, NULL);
        ilmap_edits_build(d->starts, n, d->parsed.code_size, d->edits, d->nedits, d->entries, NULL,
                          &size, NULL);
        bench_sink += size;
    }
    return bench_now_ns() - t0;
}

static uint64_t run_rewrite(void *ctx, uint64_t units)
{
    dataset *d = ctx;
    uint64_t elapsed = 0;
    for (uint64_t u = 0; u < units; u++) {
        ilmap_rewrite *r;
        uint64_t t0 = bench_now_ns();
        ilmap_rewrite_create(d->body, d->body_size, d->ins, d->nedits, 1, 0, &r, NULL);
        elapsed += bench_now_ns() - t0;
        bench_sink += ilmap_rewrite_get_body(r, NULL)[0];
        ilmap_rewrite_free(r);
    }
    return elapsed;
}

static uint64_t run_wrap(void *ctx, uint64_t units)
{
    dataset *d = ctx;
    uint64_t elapsed = 0;
    for (uint64_t u = 0; u < units; u++) {
        ilmap_rewrite *r;
        uint64_t t0 = bench_now_ns();
        ilmap_il_wrap_create(d->body, d->body_size, &wrap_spec, &r, NULL);
        elapsed += bench_now_ns() - t0;
        bench_sink += ilmap_rewrite_get_body(r, NULL)[0];
        ilmap_rewrite_free(r);
    }
    return elapsed;
}

static uint64_t run_compose(void *ctx, uint64_t units)
{
    dataset *d = ctx;
    uint64_t elapsed = 0;
    for (uint64_t u = 0; u < units; u++) {
        ilmap *c;
        uint64_t t0 = bench_now_ns();
        ilmap_compose(d->a, d->b, 0, &c, NULL);
        elapsed += bench_now_ns() - t0;
        bench_sink += ilmap_get_count(c);
        ilmap_free(c);
    }
    return elapsed;
}

static uint64_t run_deserialize(void *ctx, uint64_t units)
{
    dataset *d = ctx;
    uint64_t elapsed = 0;
    for (uint64_t u = 0; u < units; u++) {
        ilmap *m;
        uint64_t t0 = bench_now_ns();
        ilmap_deserialize(d->serialized, d->serialized_size, 0, &m, NULL);
        elapsed += bench_now_ns() - t0;
        bench_sink += ilmap_get_count(m);
        ilmap_free(m);
    }
    return elapsed;
}

int main(int argc, char **argv)
{
    options opt;
    memset(&opt, 0, sizeof opt);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            opt.quick = 1;
        } else if (strcmp(argv[i], "--json") == 0) {
            opt.json = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[i]);
            usage(stderr, argv[0]);
            return 2;
        }
    }
    opt.budget.min_ns = opt.quick ? 5000000u : 40000000u;
    opt.budget.reps = opt.quick ? 3 : 5;

    static const uint32_t sizes[] = {64, 1024, 65536};
    static const struct {
        const char *op;
        bench_run_fn run;
        int per_byte; /* n is the body size; else the entry count */
    } ops[] = {{"build", run_build, 1},
               {"rewrite", run_rewrite, 1},
               {"wrap", run_wrap, 1},
               {"compose", run_compose, 0},
               {"deserialize", run_deserialize, 0}};
    prng rng = prng_init(0xA16EB2A);

    if (!opt.json)
        printf("bench-algebra: ns per operation, best of %d runs of %g ms; a probe before every "
               "8th instruction (rewrite); the whole method in Begin/End (wrap)\n"
               "%-12s %8s %8s %12s %12s %12s\n",
               opt.budget.reps, (double)opt.budget.min_ns / 1e6, "op", "body", "n", "ns/op",
               "ops/s", "IL MB/s");
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        dataset d;
        dataset_make(&d, sizes[s], &rng);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            double ns = bench_measure_one(ops[o].run, &d, &opt.budget);
            size_t n = ops[o].per_byte ? sizes[s] : ilmap_get_count(d.a);
            if (opt.json)
                printf("{\"op\": \"%s\", \"n\": %zu, \"impl\": \"ilmap\", \"ns\": %.1f}\n",
                       ops[o].op, n, ns);
            else
                printf("%-12s %8u %8zu %12.1f %12.0f %12.1f\n", ops[o].op, sizes[s], n, ns,
                       1e9 / ns, (double)d.body_size / ns * 1e3);
        }
        dataset_free(&d);
    }
    return bench_sink == 42 ? 1 : 0; /* keeps the sink alive; never 42 in practice */
}
