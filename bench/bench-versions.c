/*
 * bench-versions: lookups from several threads while another installs
 * code versions, libilmap's lock-free structures against the classic
 * design behind one lock.
 *
 *   store_lookup   an instruction pointer -> function, version, IL offset,
 *                  original IL offset (what a sampler asks): ilmap_store's
 *                  one-shot ilmap_store_lookup() (read begin, lookup, read
 *                  end) against a sorted array of bodies with the same
 *                  maps (binary search, ilmap_native_to_il,
 *                  ilmap_new_to_old) behind a pthread mutex ("mutex") or
 *                  a pthread rwlock ("rwlock");
 *   mapper_lookup  FunctionID -> client ID (what an enter/leave hook
 *                  asks): ilmap_fid_mapper_lookup() against the same
 *                  open-addressing table behind a mutex.
 *
 *   store_source   the whole journey, ilmap_store_lookup_source(): the
 *                  same lookup, then the line of its original IL offset
 *                  through the module's Portable PDB (one built in memory:
 *                  8 methods of 32 sequence points, one every 4 bytes of
 *                  IL, so a query decodes ~16 points on average), next to
 *                  ilmap_store_lookup() on the same store and queries:
 *                  1 reader, no writer, 4,096 bodies, uniform queries;
 *                  the difference is the source step's cost, a binary
 *                  search over the lines the store decoded when the PDB
 *                  was attached (target: within 2x the lookup; the
 *                  ilmap_pdb_find_source() row is the decode per query
 *                  it replaced); then the bytes those lines take
 *                  (ILMAP_BENCH_SOURCE_ONLY=1 runs these rows alone).
 *
 * Each with 1 and 2 reader threads, without and with a writer thread that
 * keeps installing (store: a method's IL map, a function and a native
 * body, or the removal of one; mapper: a new FunctionID)
 * every WRITER_PAUSE_US, so the table's size stays put. ns is per lookup
 * and per reader thread (wall time / that thread's lookups); the best of
 * several runs counts, as noise only ever adds time.
 *
 * The project's targets, marked PASS/MISS in the table: with the writer,
 * libilmap's readers lose < 20% against the control thread (below), one
 * reader alone beats the mutex by >= 3x, and with 2 readers they beat it
 * by >= 3x. The store rows run at two sizes, 4,096 and 100,000 bodies
 * (512 bytes of code each, 16 native map entries; bench-store has bodies of
 * realistic shapes); the mapper's at 4,096. Besides wall time per lookup (ns), the
 * readers' CPU time per lookup (cpu ns) is reported, and a control row
 * ("idle": a thread that wakes exactly as often as the writer but writes
 * nothing) tells what the writes cost readers apart from what a third
 * thread costs when threads outnumber cores (2 readers + 1 writer on a
 * 2-core machine). --json prints one result per line instead (see
 * --help).
 * The exit status says only whether the benchmark ran and every
 * implementation gave the same answers (checked on every query before
 * timing), never whether targets were met.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ilmap-versions.h"

#include "../test/pdb/pdb-writer.h"

#define MAX_BODIES 100000u    /* the larger of the two store sizes below */
#define MAPPER_BODIES 4096u   /* FunctionIDs the mapper rows look up */
#define CHURN 256u            /* extra bodies the writer adds and removes */
#define QUERIES (1u << 16)    /* a power of two */
#define BODY_SIZE 0x200u
#define BODY_STRIDE 0x400u
#define CODE_BASE ((uintptr_t)0x40000000u)
#define CHURN_BASE ((uintptr_t)0x60000000u)
#define NATIVE_ENTRIES 16u
#define WRITER_PAUSE_US 50
#define MAX_READERS 2

#define JSON_EXAMPLE                                                                         \
    "{\"op\": \"store_lookup\", \"n\": 4096, \"impl\": \"ilmap\", \"queries\": \"zipf\", "        \
    "\"readers\": 2, \"writer\": \"installs\", \"ns\": 95.1, \"cpu_ns\": 94.8, "                 \
    "\"writes_per_s\": 6500, \"write_us\": 6.1, \"writer_cpu\": 0.14}\n"                        \
    "           (writer: none, installs, or idle: the control, wakes and writes nothing)"

/* Threads need longer runs than bench.h's budget: each run must span
 * many of the writer's wake-ups. */
typedef struct options {
    bench_options common;
    long run_ms;
    int reps;
} options;

static void die(const char *what, ilmap_status st)
{
    fprintf(stderr, "bench-versions: %s: %s\n", what, ilmap_status_str(st));
    exit(1);
}

static void sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* ---- The data: the same maps for every implementation -------------- */

static ilmap *make_il(uint32_t shift)
{
    ilmap_entry e[32];
    ilmap *m = NULL;

    for (uint32_t i = 0; i < 32; i++) {
        e[i].old_offset = i * 4;
        e[i].new_offset = i * 4 + (i ? shift : 0);
        e[i].accurate = 1;
    }
    ilmap_status st = ilmap_create(e, 32, 0, &m);
    if (st != ILMAP_OK)
        die("ilmap_create", st);
    return m;
}

static ilmap_native *make_native(uint32_t seed)
{
    ilmap_native_entry e[NATIVE_ENTRIES];
    ilmap_native *n = NULL;
    uint32_t step = BODY_SIZE / NATIVE_ENTRIES;

    for (uint32_t i = 0; i < NATIVE_ENTRIES; i++) {
        e[i].il_offset = i == 0 ? ILMAP_PROLOG : (i * 8 + seed % 5);
        e[i].native_start = i * step;
        e[i].native_end = (i + 1) * step;
    }
    ilmap_status st = ilmap_native_from_entries(e, NATIVE_ENTRIES, BODY_SIZE, &n);
    if (st != ILMAP_OK)
        die("ilmap_native_from_entries", st);
    return n;
}

/* The store's sizes: a mid-sized application, and a big one (the issue's
 * two points; bench-store has the realistic body shapes). */
static const uint32_t world_sizes[] = { 4096u, 100000u };

/* Two query mixes: uniform over every body (each lookup misses the cache:
 * 4096 bodies' maps are ~13 MB), and Zipf(1) over the bodies in a random
 * order, as a sampler's instruction pointers crowd into hot code. */
enum dist { DIST_UNIFORM, DIST_ZIPF };
static const char *const dist_names[] = { "uniform", "zipf" };
static uintptr_t queries[2][QUERIES];

static void make_queries(uint32_t bodies)
{
    prng rng = prng_init(0x5EED0009u);
    static double cdf[MAX_BODIES];
    static uint32_t order[MAX_BODIES];
    double total = 0.0;

    for (uint32_t i = 0; i < bodies; i++) {
        total += 1.0 / (double)(i + 1);
        cdf[i] = total;
        order[i] = i;
    }
    for (uint32_t i = bodies - 1; i > 0; i--) {
        uint32_t j = prng_below(&rng, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < QUERIES; i++) {
        queries[DIST_UNIFORM][i] = CODE_BASE +
                                   (uintptr_t)prng_below(&rng, bodies) * BODY_STRIDE +
                                   prng_below(&rng, BODY_SIZE);
        double u = (double)(prng_next(&rng) >> 11) * 0x1p-53 * total;
        uint32_t lo = 0, hi = bodies - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cdf[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        queries[DIST_ZIPF][i] = CODE_BASE + (uintptr_t)order[lo] * BODY_STRIDE +
                                prng_below(&rng, BODY_SIZE);
    }
}

/* ---- The baseline: bodies in a sorted array behind one lock -------- */

typedef struct locked_body {
    uintptr_t start, end;
    uintptr_t fid;
    ilmap_native *native;
    ilmap *il;
} locked_body;

typedef struct locked_store {
    int rw; /* 0 mutex, 1 rwlock */
    pthread_mutex_t mutex;
    pthread_rwlock_t rwlock;
    locked_body *bodies;
    size_t n, cap;
} locked_store;

static void lock_read(locked_store *s)
{
    if (s->rw)
        pthread_rwlock_rdlock(&s->rwlock);
    else
        pthread_mutex_lock(&s->mutex);
}

static void lock_write(locked_store *s)
{
    if (s->rw)
        pthread_rwlock_wrlock(&s->rwlock);
    else
        pthread_mutex_lock(&s->mutex);
}

static void unlock(locked_store *s)
{
    if (s->rw)
        pthread_rwlock_unlock(&s->rwlock);
    else
        pthread_mutex_unlock(&s->mutex);
}

static size_t locked_floor(const locked_store *s, uintptr_t addr)
{
    size_t lo = 0, hi = s->n;

    while (lo < hi) { /* bodies starting <= addr */
        size_t mid = lo + (hi - lo) / 2;
        if (s->bodies[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void locked_insert(locked_store *s, locked_body b)
{
    lock_write(s);
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->bodies = realloc(s->bodies, s->cap * sizeof *s->bodies);
        if (!s->bodies)
            die("realloc", ILMAP_E_NOMEM);
    }
    size_t at = locked_floor(s, b.start);
    memmove(&s->bodies[at + 1], &s->bodies[at], (s->n - at) * sizeof *s->bodies);
    s->bodies[at] = b;
    s->n++;
    unlock(s);
}

static void locked_remove(locked_store *s, uintptr_t start)
{
    locked_body gone = { 0, 0, 0, NULL, NULL };

    lock_write(s);
    size_t at = locked_floor(s, start);
    if (at > 0 && s->bodies[at - 1].start == start) {
        gone = s->bodies[at - 1];
        memmove(&s->bodies[at - 1], &s->bodies[at], (s->n - at) * sizeof *s->bodies);
        s->n--;
    }
    unlock(s);
    /* Nobody can be reading it: readers hold the lock while they do. */
    ilmap_native_free(gone.native);
    ilmap_free(gone.il);
}

/* The answer both implementations give: the original IL offset. */
static uint32_t locked_lookup(locked_store *s, uintptr_t addr)
{
    uint32_t orig = 0xFFFFFFFFu;

    lock_read(s);
    size_t at = locked_floor(s, addr);
    if (at > 0 && addr < s->bodies[at - 1].end) {
        const locked_body *b = &s->bodies[at - 1];
        uint32_t il;
        unsigned mapping = ilmap_native_to_il(b->native, (uint32_t)(addr - b->start), &il);
        orig = mapping == ILMAP_MAPPING_EXACT || mapping == ILMAP_MAPPING_APPROXIMATE ||
                       mapping == ILMAP_MAPPING_EPILOG
                   ? ilmap_new_to_old(b->il, il)
                   : il;
    }
    unlock(s);
    return orig;
}

/* ---- The runs ---------------------------------------------------------- */

enum impl { IMPL_ILMAP, IMPL_MUTEX, IMPL_RWLOCK };
static const char *const impl_names[] = { "ilmap", "mutex", "rwlock" };

typedef struct world {
    ilmap_store *store;
    locked_store locked[2]; /* mutex, rwlock */
    ilmap_fid_mapper *mapper;
    /* the mapper baseline: the same table, plain, behind a mutex */
    pthread_mutex_t map_lock;
    uintptr_t *map_keys, *map_values;
    size_t map_mask;
    uint32_t n;      /* bodies */
    uintptr_t *fids; /* n of them */
} world;

typedef struct run {
    world *w;
    int op; /* 0 store, 1 mapper */
    enum impl impl;
    const uintptr_t *queries;
    atomic_int go, stop;
    /* writer */
    int idle; /* wakes as the writer does, writes nothing: the control */
    long writes;
    uint64_t writer_ns, writer_cpu_ns, write_call_ns;
    uint32_t churn_next;
    uintptr_t mapper_next;
} run;

typedef struct reader_arg {
    run *r;
    int index;
    uint64_t lookups, ns, cpu_ns, sum;
} reader_arg;

static uintptr_t churn_fid(uint32_t i)
{
    return (uintptr_t)0x7E0000000000ull + ((uintptr_t)i << 6);
}

static size_t mix(uintptr_t fid, size_t mask)
{
    uint64_t x = fid;
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    return (size_t)x & mask;
}

static void baseline_map_insert(world *w, uintptr_t fid, uintptr_t value)
{
    pthread_mutex_lock(&w->map_lock);
    size_t i = mix(fid, w->map_mask);
    while (w->map_keys[i] != 0 && w->map_keys[i] != fid)
        i = (i + 1) & w->map_mask;
    w->map_keys[i] = fid;
    w->map_values[i] = value;
    pthread_mutex_unlock(&w->map_lock);
}

static uintptr_t baseline_map_lookup(world *w, uintptr_t fid)
{
    uintptr_t value = 0;

    pthread_mutex_lock(&w->map_lock);
    size_t i = mix(fid, w->map_mask);
    while (w->map_keys[i] != 0) {
        if (w->map_keys[i] == fid) {
            value = w->map_values[i];
            break;
        }
        i = (i + 1) & w->map_mask;
    }
    pthread_mutex_unlock(&w->map_lock);
    return value;
}

/* One write of the store workload: a churn slot is filled (a map, a
 * function, a body: 3 publications) or emptied (1), by turns. */
static void store_write(run *r)
{
    world *w = r->w;
    uint32_t slot = r->churn_next % CHURN;
    int filling = (r->churn_next / CHURN) % 2 == 0;
    uintptr_t start = CHURN_BASE + (uintptr_t)slot * BODY_STRIDE;
    ilmap_code_range code = { start, BODY_SIZE };
    ilmap_status st;

    r->churn_next++;
    if (r->impl == IMPL_ILMAP) {
        uintptr_t fid = churn_fid(slot);
        if (filling) {
            /* What a JIT compilation brings: the method's map (replacing
             * the last one), the function, its body. */
            uint32_t md = 0x06100001u + slot;
            if ((st = ilmap_store_set_il_map(w->store, 0x2000, md, make_il(3))) ||
                (st = ilmap_store_add_function(w->store, fid, 0x2000, md)) ||
                (st = ilmap_store_add_body(w->store, fid, 0, &code, 1, make_native(slot), 0)))
                die("store write", st);
        } else if ((st = ilmap_store_remove_body(w->store, start)) != ILMAP_OK) {
            die("ilmap_store_remove_body", st);
        }
    } else {
        locked_store *s = &w->locked[r->impl == IMPL_RWLOCK];
        if (filling) {
            locked_body b = { start, start + BODY_SIZE, churn_fid(slot), make_native(slot),
                              make_il(3) };
            locked_insert(s, b);
        } else {
            locked_remove(s, start);
        }
    }
}

static void mapper_write(run *r)
{
    uintptr_t fid = (uintptr_t)0x7D0000000000ull + (++r->mapper_next << 5);

    if (r->impl == IMPL_ILMAP) {
        uintptr_t cid;
        int hook;
        ilmap_status st = ilmap_fid_mapper_map(r->w->mapper, fid, &cid, &hook);
        if (st != ILMAP_OK && st != ILMAP_E_FULL) /* a very long run may fill it */
            die("ilmap_fid_mapper_map", st);
    } else {
        baseline_map_insert(r->w, fid, r->mapper_next);
    }
}

/* CPU time of the calling thread: what the writer takes from readers
 * when they share the cores. */
static uint64_t thread_cpu_ns(void)
{
    return ilmap_thread_cpu_ns();
}

static void *writer_main(void *arg)
{
    run *r = arg;

    while (!atomic_load_explicit(&r->go, memory_order_acquire)) {
    }
    uint64_t t0 = bench_now_ns(), cpu0 = thread_cpu_ns();
    while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
        uint64_t w0 = bench_now_ns();
        if (r->idle)
            ; /* the control: only the wake-ups' cost */
        else if (r->op == 0)
            store_write(r);
        else
            mapper_write(r);
        r->write_call_ns += bench_now_ns() - w0;
        r->writes++;
        sleep_us(WRITER_PAUSE_US);
    }
    r->writer_cpu_ns = thread_cpu_ns() - cpu0;
    r->writer_ns = bench_now_ns() - t0;
    return NULL;
}

static void *reader_main(void *arg)
{
    reader_arg *a = arg;
    run *r = a->r;
    world *w = r->w;
    ilmap_store_reader *slot = NULL;
    uint32_t q = (uint32_t)a->index * (QUERIES / 2);
    uint64_t sum = 0, n = 0;

    if (r->op == 0 && r->impl == IMPL_ILMAP) {
        ilmap_status st = ilmap_store_reader_register(w->store, &slot);
        if (st != ILMAP_OK)
            die("ilmap_store_reader_register", st);
    }
    while (!atomic_load_explicit(&r->go, memory_order_acquire)) {
    }
    uint64_t t0 = bench_now_ns(), cpu0 = thread_cpu_ns();
    do {
        /* 256 lookups between looks at the stop flag. */
        for (int i = 0; i < 256; i++, q = (q + 1) & (QUERIES - 1)) {
            if (r->op == 0) {
                if (r->impl == IMPL_ILMAP) {
                    ilmap_store_location loc;
                    ilmap_store_lookup(slot, r->queries[q], &loc);
                    sum += loc.original_il_offset;
                } else {
                    sum += locked_lookup(&w->locked[r->impl == IMPL_RWLOCK], r->queries[q]);
                }
            } else {
                uintptr_t fid = w->fids[r->queries[q] % w->n];
                if (r->impl == IMPL_ILMAP) {
                    uintptr_t cid;
                    int hook;
                    ilmap_fid_mapper_lookup(w->mapper, fid, &cid, &hook);
                    sum += cid;
                } else {
                    sum += baseline_map_lookup(w, fid);
                }
            }
        }
        n += 256;
    } while (!atomic_load_explicit(&r->stop, memory_order_relaxed));
    a->ns = bench_now_ns() - t0;
    a->cpu_ns = thread_cpu_ns() - cpu0;
    a->lookups = n;
    a->sum = sum;
    if (slot)
        ilmap_store_reader_unregister(slot);
    return NULL;
}

typedef struct result {
    double ns;           /* wall time per lookup per reader, best run */
    double cpu_ns;       /* the readers' CPU time per lookup, same run */
    double writes_per_s; /* of that run */
    double write_us;     /* time inside one write call */
    double writer_cpu;   /* writer thread CPU time / wall time (its sleeps' cost included) */
} result;

static result measure(world *w, int op, enum impl impl, enum dist dist, int readers,
                      int with_writer, const options *opt)
{
    result best = { -1.0, 0.0, 0.0, 0.0, 0.0 };

    for (int rep = 0; rep < opt->reps; rep++) {
        run r;
        memset(&r, 0, sizeof r);
        r.w = w;
        r.op = op;
        r.impl = impl;
        r.queries = queries[dist];
        r.idle = with_writer == 2;
        atomic_init(&r.go, 0);
        atomic_init(&r.stop, 0);
        reader_arg args[MAX_READERS];
        pthread_t tids[MAX_READERS], writer;

        for (int i = 0; i < readers; i++) {
            args[i] = (reader_arg){ &r, i, 0, 0, 0, 0 };
            pthread_create(&tids[i], NULL, reader_main, &args[i]);
        }
        if (with_writer)
            pthread_create(&writer, NULL, writer_main, &r);
        sleep_us(2000); /* let every thread reach the start line */
        atomic_store_explicit(&r.go, 1, memory_order_release);
        sleep_us(opt->run_ms * 1000);
        atomic_store_explicit(&r.stop, 1, memory_order_relaxed);
        for (int i = 0; i < readers; i++)
            pthread_join(tids[i], NULL);
        if (with_writer)
            pthread_join(writer, NULL);

        double ns = 0.0, cpu_ns = 0.0;
        for (int i = 0; i < readers; i++) {
            ns += (double)args[i].ns / (double)args[i].lookups;
            cpu_ns += (double)args[i].cpu_ns / (double)args[i].lookups;
        }
        ns /= readers;
        cpu_ns /= readers;
        if (best.ns < 0.0 || ns < best.ns) {
            best.ns = ns;
            best.cpu_ns = cpu_ns;
            best.writes_per_s = with_writer ? (double)r.writes * 1e9 / (double)r.writer_ns : 0.0;
            best.write_us = r.writes ? (double)r.write_call_ns / 1e3 / (double)r.writes : 0.0;
            best.writer_cpu = with_writer ? (double)r.writer_cpu_ns / (double)r.writer_ns : 0.0;
        }

        /* Leave the world as it was: the writer's churn bodies go. */
        for (uint32_t i = 0; i < CHURN && with_writer; i++) {
            uintptr_t start = CHURN_BASE + (uintptr_t)i * BODY_STRIDE;
            if (op == 0 && impl == IMPL_ILMAP)
                ilmap_store_remove_body(w->store, start); /* NOT_FOUND when empty */
            else if (op == 0)
                locked_remove(&w->locked[impl == IMPL_RWLOCK], start);
        }
    }
    return best;
}

static void build_world(world *w, uint32_t n)
{
    ilmap_status st;

    memset(w, 0, sizeof *w);
    w->n = n;
    w->fids = malloc(n * sizeof *w->fids);
    if (!w->fids)
        die("malloc", ILMAP_E_NOMEM);
    if ((st = ilmap_store_create(8, 0, &w->store)) != ILMAP_OK)
        die("ilmap_store_create", st);
    for (int k = 0; k < 2; k++) {
        w->locked[k].rw = k;
        pthread_mutex_init(&w->locked[k].mutex, NULL);
        pthread_rwlock_init(&w->locked[k].rwlock, NULL);
    }
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t fid = (uintptr_t)0x7F0000000000ull + ((uintptr_t)i << 6);
        uintptr_t start = CODE_BASE + (uintptr_t)i * BODY_STRIDE;
        ilmap_code_range code = { start, BODY_SIZE };
        uint32_t md = 0x06000001u + i;
        w->fids[i] = fid;
        if ((st = ilmap_store_add_function(w->store, fid, 0x1000, md)) ||
            (st = ilmap_store_set_il_map(w->store, 0x1000, md, make_il(i % 7 + 1))) ||
            (st = ilmap_store_add_body(w->store, fid, 0, &code, 1, make_native(i), 0)))
            die("store setup", st);
        for (int k = 0; k < 2; k++) {
            locked_body b = { start, start + BODY_SIZE, fid, make_native(i), make_il(i % 7 + 1) };
            locked_insert(&w->locked[k], b);
        }
    }

    /* A big application's worth (the writer's churn included): both
     * tables have the same 2^18 slots. */
    if ((st = ilmap_fid_mapper_create((size_t)1 << 17, NULL, NULL, &w->mapper)) != ILMAP_OK)
        die("ilmap_fid_mapper_create", st);
    w->map_mask = ((size_t)1 << 18) - 1;
    w->map_keys = calloc(w->map_mask + 1, sizeof *w->map_keys);
    w->map_values = calloc(w->map_mask + 1, sizeof *w->map_values);
    if (!w->map_keys || !w->map_values)
        die("calloc", ILMAP_E_NOMEM);
    pthread_mutex_init(&w->map_lock, NULL);
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t cid;
        int hook;
        if ((st = ilmap_fid_mapper_map(w->mapper, w->fids[i], &cid, &hook)) != ILMAP_OK)
            die("ilmap_fid_mapper_map", st);
        baseline_map_insert(w, w->fids[i], cid);
    }
}

/* Every implementation answers every query the same (before timing). */
static int answers_agree(world *w)
{
    ilmap_store_reader *slot;
    ilmap_status st = ilmap_store_reader_register(w->store, &slot);
    int ok = st == ILMAP_OK;

    for (uint32_t i = 0; ok && i < 2 * QUERIES; i++) {
        uintptr_t q = queries[i / QUERIES][i % QUERIES];
        ilmap_store_location loc;
        uintptr_t fid = w->fids[q % w->n], cid;
        int hook;
        ok = ilmap_store_lookup(slot, q, &loc) == ILMAP_OK &&
             loc.original_il_offset == locked_lookup(&w->locked[0], q) &&
             loc.original_il_offset == locked_lookup(&w->locked[1], q) &&
             ilmap_fid_mapper_lookup(w->mapper, fid, &cid, &hook) == ILMAP_OK &&
             cid == baseline_map_lookup(w, fid);
    }
    if (st == ILMAP_OK)
        ilmap_store_reader_unregister(slot);
    return ok;
}

static void free_world(world *w)
{
    ilmap_store_free(w->store);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < w->locked[k].n; i++) {
            ilmap_native_free(w->locked[k].bodies[i].native);
            ilmap_free(w->locked[k].bodies[i].il);
        }
        free(w->locked[k].bodies);
        pthread_mutex_destroy(&w->locked[k].mutex);
        pthread_rwlock_destroy(&w->locked[k].rwlock);
    }
    ilmap_fid_mapper_free(w->mapper);
    free(w->map_keys);
    free(w->map_values);
    free(w->fids);
    pthread_mutex_destroy(&w->map_lock);
}

static const char *const writer_names[] = { "none", "installs", "idle" };

static void report(const options *opt, const char *op, uint32_t n, int dist, int impl,
                   int readers, int wr, result res[3][3])
{
    const result *x = &res[impl][wr];

    if (opt->common.json) {
        printf("{\"op\": \"%s\", \"n\": %u, \"impl\": \"%s\", \"queries\": \"%s\", "
               "\"readers\": %d, \"writer\": \"%s\", \"ns\": %.2f, \"cpu_ns\": %.2f, "
               "\"writes_per_s\": %.0f, \"write_us\": %.2f, \"writer_cpu\": %.3f}\n",
               op, n, impl_names[impl], dist_names[dist], readers, writer_names[wr],
               x->ns, x->cpu_ns, x->writes_per_s, x->write_us, x->writer_cpu);
        return;
    }
    char target[96] = "";
    if (impl == IMPL_ILMAP && wr == 1) {
        /* Against the control (a thread waking as often, writing
         * nothing): what the writes themselves cost readers, apart from
         * what a third thread costs when threads outnumber cores. */
        double loss = x->ns / res[0][2].ns - 1.0;
        snprintf(target, sizeof target, "vs idle %+.0f%% %s; vs none %+.0f%%",
                 100.0 * loss, loss < 0.20 ? "PASS" : "MISS",
                 100.0 * (x->ns / res[0][0].ns - 1.0));
    } else if (impl == IMPL_ILMAP && wr == 2) {
        snprintf(target, sizeof target, "control: a thread waking as often, writing nothing");
    } else if (impl == IMPL_MUTEX && (readers == 2 || wr == 0)) {
        double speedup = x->ns / res[0][wr].ns;
        snprintf(target, sizeof target, "ilmap %.1fx faster %s", speedup,
                 speedup >= 3.0 ? "PASS" : "MISS");
    }
    printf("%-14s %7u %-8s %7d %8s %7s %8.1f %8.1f %9.0f %8.2f %7.2fx  %s\n", op, n,
           dist_names[dist], readers, writer_names[wr], impl_names[impl], x->ns, x->cpu_ns, x->writes_per_s,
           x->write_us, x->ns / res[0][wr].ns, target);
}

/* ---- The source step: ilmap_store_lookup_source() ------------------- */

#define SOURCE_METHODS 8u
#define SOURCE_POINTS 32u
#define SOURCE_MODULE ((uintptr_t)0x2000)

static void release_bytes(void *bytes)
{
    free(bytes);
}

/* The source step alone: ilmap_pdb_find_source() on the (method, original
 * IL offset) of each query, as the store's lookups answer them. */
static uint32_t source_token[QUERIES], source_il[QUERIES];

/* ns per lookup of one thread, one timed run: lookup (0), lookup_source
 * (1) or find_source alone (2, on pdb). */
static double time_source(ilmap_store_reader *slot, int kind, const ilmap_pdb *pdb,
                          const options *opt, uint64_t *answered)
{
    uint64_t n = 0, sum = 0, t0 = bench_now_ns(), deadline = t0 + (uint64_t)opt->run_ms * 1000000u;
    uint32_t q = 0;
    do {
        for (int i = 0; i < 256; i++, q = (q + 1) & (QUERIES - 1)) {
            ilmap_store_location loc;
            if (kind == 2) {
                ilmap_pdb_sequence_point sp;
                sum += ilmap_pdb_find_source(pdb, source_token[q], source_il[q], &sp, NULL) ==
                       ILMAP_OK;
                sum += sp.start_line;
            } else if (kind == 1) {
                ilmap_store_source src;
                sum += ilmap_store_lookup_source(slot, queries[DIST_UNIFORM][q], 0, &loc, &src) ==
                       ILMAP_OK;
                sum += src.point.start_line;
            } else {
                ilmap_store_lookup(slot, queries[DIST_UNIFORM][q], &loc);
                sum += loc.original_il_offset;
            }
        }
        n += 256;
    } while (bench_now_ns() < deadline);
    *answered += sum;
    return (double)(bench_now_ns() - t0) / (double)n;
}

/* The same bodies as the 4,096-body world, in a module with a PDB. */
static void source_figures(const options *opt)
{
    const uint32_t n = 4096u;
    ilmap_store *s;
    ilmap_status st;

    make_queries(n);
    if ((st = ilmap_store_create(8, 0, &s)) != ILMAP_OK)
        die("ilmap_store_create", st);
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t fid = (uintptr_t)0x7F0000000000ull + ((uintptr_t)i << 6);
        ilmap_code_range code = { CODE_BASE + (uintptr_t)i * BODY_STRIDE, BODY_SIZE };
        uint32_t md = 0x06000001u + i % SOURCE_METHODS;
        if ((st = ilmap_store_add_function(s, fid, SOURCE_MODULE, md)) ||
            (st = ilmap_store_set_il_map(s, SOURCE_MODULE, md, make_il(i % 7 + 1))) ||
            (st = ilmap_store_add_body(s, fid, 0, &code, 1, make_native(i), 0)))
            die("store setup", st);
    }

    static spec sp;
    static out heap;
    static built b;
    base_spec(&sp, &heap);
    sp.nmethods = (int)SOURCE_METHODS;
    for (uint32_t m = 0; m < SOURCE_METHODS; m++) {
        pdbw_point pts[SOURCE_POINTS];
        for (uint32_t i = 0; i < SOURCE_POINTS; i++) {
            pts[i].il = 4 * i;
            pts[i].line = 10 + 3 * i + (i % 5 == 4 ? 200 : 0);
            pts[i].column = 9 + i % 3;
            pts[i].hidden = i % 7 == 6;
        }
        sp.method_doc[m] = 1;
        pdbw_points(&sp.points[m], pts, SOURCE_POINTS);
    }
    build(&sp, &heap, &b);
    void *bytes = malloc(b.o.n);
    ilmap_pdb *pdb = NULL;
    if (!bytes)
        die("malloc", ILMAP_E_NOMEM);
    memcpy(bytes, b.o.d, b.o.n);
    if ((st = ilmap_pdb_open(bytes, b.o.n, &pdb, NULL)) != ILMAP_OK ||
        (st = ilmap_store_attach_pdb(s, SOURCE_MODULE, pdb, release_bytes, bytes)) != ILMAP_OK)
        die("PDB setup", st);

    ilmap_store_reader *slot;
    if ((st = ilmap_store_reader_register(s, &slot)) != ILMAP_OK)
        die("ilmap_store_reader_register", st);
    for (uint32_t q = 0; q < QUERIES; q++) {
        ilmap_store_location loc;
        if ((st = ilmap_store_lookup(slot, queries[DIST_UNIFORM][q], &loc)) != ILMAP_OK)
            die("ilmap_store_lookup", st);
        source_token[q] = loc.method_def;
        source_il[q] = loc.original_il_offset;
    }
    /* The three interleaved, best of each: load that comes and goes
     * hits them alike. */
    uint64_t sums[3] = { 0, 0, 0 };
    double best[3] = { -1.0, -1.0, -1.0 };
    for (int rep = 0; rep < 2 * opt->reps; rep++) {
        for (int kind = 0; kind < 3; kind++) {
            double ns = time_source(slot, kind, pdb, opt, &sums[kind]);
            if (best[kind] < 0.0 || ns < best[kind])
                best[kind] = ns;
        }
    }
    double plain = best[0], source = best[1], step = best[2];
    uint64_t lines = sums[1];
    if (opt->common.json) {
        printf("{\"op\": \"store_lookup\", \"n\": %u, \"impl\": \"ilmap\", \"queries\": "
               "\"uniform\", \"readers\": 1, \"writer\": \"none\", \"source\": 0, \"ns\": %.2f}\n",
               n, plain);
        printf("{\"op\": \"store_source\", \"n\": %u, \"impl\": \"ilmap\", \"queries\": "
               "\"uniform\", \"readers\": 1, \"writer\": \"none\", \"source\": 1, \"ns\": %.2f}\n",
               n, source);
        printf("{\"op\": \"pdb_find_source\", \"n\": %u, \"impl\": \"ilmap\", \"queries\": "
               "\"uniform\", \"readers\": 1, \"writer\": \"none\", \"source\": 1, \"ns\": %.2f}\n",
               n, step);
    } else {
        printf("\n%-14s %7s %-8s %7s %8s  %s\n", "op", "bodies", "queries", "readers", "ns",
               "note");
        printf("%-14s %7u %-8s %7d %8.1f  ilmap_store_lookup()\n", "store_lookup", n, "uniform",
               1, plain);
        printf("%-14s %7u %-8s %7d %8.1f  ilmap_store_lookup_source(): +%.1f ns for the line, "
               "%.2fx the lookup (target <= 2x: %s)\n",
               "store_source", n, "uniform", 1, source, source - plain, source / plain,
               source <= 2.0 * plain ? "PASS" : "MISS");
        printf("%-14s %7u %-8s %7d %8.1f  ilmap_pdb_find_source() alone on the same (method, "
               "original IL)\n", "pdb_find_src", n, "uniform", 1, step);
    }
    if (lines == 0)
        die("ilmap_store_lookup_source answered no line", ILMAP_E_NOT_FOUND);
    /* What the store keeps for it: the decoded lines of the methods with
     * bodies and a slot per method of the PDB (doc/source-lines.md#store). */
    ilmap_store_stats stats;
    if ((st = ilmap_store_get_stats(s, &stats)) != ILMAP_OK)
        die("ilmap_store_get_stats", st);
    if (stats.source_methods != SOURCE_METHODS)
        die("the store did not decode every method's lines", ILMAP_E_NOT_FOUND);
    if (opt->common.json)
        printf("{\"op\": \"store_source_memory\", \"methods\": %zu, \"bytes\": %zu}\n",
               stats.source_methods, stats.source_bytes);
    else
        printf("%-14s %7s %-8s %7s %8s  %zu B of decoded lines for %zu methods\n", "source_mem",
               "", "", "", "", stats.source_bytes, stats.source_methods);
    ilmap_store_reader_unregister(slot);
    ilmap_store_free(s);
}

int main(int argc, char **argv)
{
    options opt;
    int rc = bench_parse_options(argc, argv, JSON_EXAMPLE, &opt.common);
    if (rc)
        return rc < 0 ? 0 : rc;
    opt.run_ms = opt.common.quick ? 70 : 300;
    opt.reps = opt.common.quick ? 2 : 4;

    static const char *const ops[] = { "store_lookup", "mapper_lookup" };
    static const int nimpls[] = { 3, 2 };
    /* ILMAP_BENCH_SOURCE_ONLY=1: the store_source rows only. */
    const char *only = getenv("ILMAP_BENCH_SOURCE_ONLY");
    if (only && *only == '1') {
        source_figures(&opt);
        return 0;
    }
    if (!opt.common.json)
        printf("%-14s %7s %-8s %7s %8s %7s %8s %8s %9s %8s %8s  %s\n", "op", "bodies", "queries",
               "readers", "writer", "impl", "ns", "cpu ns", "writes/s", "write us", "vs ilmap",
               "target");
    for (size_t size = 0; size < sizeof world_sizes / sizeof world_sizes[0]; size++) {
        static world w;
        uint32_t n = world_sizes[size];
        make_queries(n);
        build_world(&w, n);
        if (!answers_agree(&w)) {
            fprintf(stderr, "bench-versions: implementations disagree on the answers (%u bodies)\n",
                    n);
            return 1;
        }
        /* The mapper's table is small and hashed: one size and one mix
         * say it all (MAPPER_BODIES FunctionIDs). */
        for (int op = 0; op < (n == MAPPER_BODIES ? 2 : 1); op++) {
            for (int dist = 0; dist < (op == 0 ? 2 : 1); dist++) {
                for (int readers = 1; readers <= MAX_READERS; readers++) {
                    result res[3][3];
                    for (int wr = 0; wr < 3; wr++)
                        for (int impl = 0; impl < (wr == 2 ? 1 : nimpls[op]); impl++)
                            res[impl][wr] = measure(&w, op, (enum impl)impl, (enum dist)dist,
                                                    readers, wr, &opt);
                    for (int wr = 0; wr < 3; wr++)
                        for (int impl = 0; impl < (wr == 2 ? 1 : nimpls[op]); impl++)
                            report(&opt, ops[op], n, dist, impl, readers, wr, res);
                }
            }
        }
        free_world(&w);
    }
    source_figures(&opt);
    return 0;
}
