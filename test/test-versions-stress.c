/*
 * The version store under threads: writers racing installs, ReJIT
 * versions, reverts, map replacements, body, version and module removals;
 * readers racing lookups; a module loaded and unloaded over and over while
 * readers look up in it and in a stable one (run_unload); a signal handler reading on the slot of the thread it
 * interrupted (on Windows, which has no signals to interrupt a thread
 * with, a sampler that suspends the thread and reads on its slot: see
 * run_signals); Portable PDBs attached, replaced and detached, and a
 * module removed with its PDB, while readers ask for file and line
 * (run_sources: every answer one of the states a module can be in, the
 * PDB it hands out readable until the read ends, each release once).
 * Every answer a reader got is checked, after the run, against a
 * sequential model.
 *
 * How an answer is checked. Each writer owns its keys (its functions,
 * methods, address slots), numbers its operations 1, 2, ..., and
 * publishes two counters: `started` before an operation and `done` after
 * it. A reader notes done[w] before its read begins and started[w] after
 * it ends, so the snapshot it read reflects writer w's operations 1..p
 * for some p in that window (a write is visible when its call returns, and
 * not before it starts). The model keeps, per key, the list of
 * (operation number, value) changes; an answer passes if the model's
 * answer at some p in the window (the window's start or any change inside
 * it) equals it. Several keys of one writer are checked at the same p.
 *
 * Sized by work, never by time: each scenario does a fixed number of
 * operations per thread (writes, reads, load/unload rounds, PDB rounds,
 * samples), a fraction of them where every instruction is slow (qemu-user,
 * sanitizers: test_light(), see work()). A slow or loaded machine makes the
 * test slower, never different, and no check compares a count or a time
 * with a threshold that depends on speed: the counts checked are exact by
 * construction. Waits on another thread's progress sleep or yield
 * (pause_brief()), never spin: where threads outnumber cores (qemu-user on
 * a loaded machine) a spin can take the CPU from the very thread it waits
 * for.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#if defined(_WIN32)
#  define WIN32_LEAN_AND_MEAN
#  include <windows.h>
#endif

#include "ilmap-versions.h"
#include "test.h"

#include "test-tsan.h"

#include "pdb/pdb-writer.h"

#define MAX_WRITERS 2
#define MAX_READERS 8
#define FIDS 8              /* per writer; instances 2k and 2k+1 share a method */
#define METHODS (FIDS / 2)
#define SLOTS 4             /* body slots per function */
#define VERSIONS 40         /* ReJITIDs 0 and 2..VERSIONS-1 */
#define HOT 0x100u
#define COLD 0x40u
#define SPLIT 0x80u         /* the native maps' second entry starts here */
#define GAP 0x400u          /* hot + GAP is never code */
#define OBS_CAP 60000


/* Flags for the stores the scenarios create (main runs them twice). */
static unsigned store_flags;

/* The work of a scenario: `normal` where instructions run at full speed
 * (about 5 s for the whole test on 2 idle x86-64 cores), an eighth where
 * each one is slow (test_light(): under qemu-user, ILMAP_TEST_ITERATIONS
 * set by test/meson.build for cross builds, or with a sanitizer compiled
 * in). Fixed either way: the machine's speed changes how long it takes,
 * never what it does. */
#define LIGHT_DIVISOR 8

static long work(long normal)
{
    return test_light() ? normal / LIGHT_DIVISOR : normal;
}

/* Lets the other threads run while this one waits for their progress: a
 * short sleep on POSIX; on Windows a yield (MinGW's nanosleep counts whole
 * milliseconds: one of 20 us returns at once, as a spin would). */
static void pause_brief(void)
{
#if defined(_WIN32)
    sched_yield();
#else
    struct timespec ts = { 0, 20000 };
    nanosleep(&ts, NULL);
#endif
}

static int writer_fence_works(void)
{
    ilmap_store *s;
    ilmap_store_stats st;
    int works = 0;
    if (ilmap_store_create(1, ILMAP_STORE_WRITER_FENCE, &s) == ILMAP_OK) {
        works = ilmap_store_get_stats(s, &st) == ILMAP_OK && st.writer_fence == 1;
        ilmap_store_free(s);
    }
    return works;
}

static ilmap_function_id fid_of(int w, int f)
{
    return TEST_ID_BASE(0x7F1000000000ull, 0x71000000u) + ((ilmap_function_id)(w * 64 + f) << 6);
}

static ilmap_module_id module_of(int w)
{
    return TEST_ID_BASE(0x7F2000000000ull, 0x72000000u) + ((ilmap_module_id)(w + 1) << 12);
}

static uint32_t method_of(int f)
{
    return 0x06000001u + (uint32_t)(f / 2);
}

static uintptr_t hot_of(int w, int f, int b)
{
    return (uintptr_t)0x10000000u + ((uintptr_t)((w * 64 + f) * SLOTS + b) << 12);
}

static uintptr_t cold_of(int w, int f, int b)
{
    return hot_of(w, f, b) + 0x800u;
}

/* ---- The model ---------------------------------------------------------- */

typedef struct change {
    uint32_t p;
    int32_t v;
} change;

typedef struct history {
    change *c;
    size_t n, cap;
} history;

static void hist_push(history *h, uint32_t p, int32_t v)
{
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 16;
        h->c = realloc(h->c, h->cap * sizeof *h->c);
        if (!h->c) {
            fprintf(stderr, "out of memory\n");
            exit(TEST_EXIT_SETUP_FAILURE);
        }
    }
    h->c[h->n].p = p;
    h->c[h->n].v = v;
    h->n++;
}

/* The value after operations 1..p. */
static int32_t hist_at(const history *h, uint32_t p, int32_t initial)
{
    size_t lo = 0, hi = h->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->c[mid].p <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? h->c[lo - 1].v : initial;
}

/* Adds the change points of h in (lo, hi] to the candidate list. */
static size_t hist_points(const history *h, uint32_t lo, uint32_t hi, uint32_t *out, size_t n,
                          size_t cap)
{
    size_t a = 0, b = h->n;

    while (a < b) { /* the first change after lo */
        size_t mid = a + (b - a) / 2;
        if (h->c[mid].p <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i < h->n && h->c[i].p <= hi && n < cap; i++)
        out[n++] = h->c[i].p;
    return n;
}

/* Body slot values: -1 absent, else rejit | shift << 8 | cold << 16. */
#define BODY(r, k, cold) ((int32_t)((r) | ((k) << 8) | ((cold) << 16)))
#define BODY_R(v) ((v) & 0xFF)
#define BODY_K(v) (((v) >> 8) & 0xFF)
#define BODY_COLD(v) (((v) >> 16) & 1)

typedef struct writer {
    int w;
    ilmap_store *s;
    prng rng;
    _Atomic uint32_t started, done;
    /* Model state, the writer's alone while it runs. */
    uint32_t p;
    int current[FIDS];  /* -1 unregistered */
    int next_rejit[FIDS];
    int vshift[FIDS][VERSIONS];      /* -1: not in the store (ReJITIDs above 0) */
    int mshift[METHODS];             /* 0: no map */
    int32_t body[FIDS][SLOTS];
    history hcur[FIDS], hmeth[METHODS], hbody[FIDS][SLOTS], hver[FIDS][VERSIONS];
    long todo; /* operations to do */
    long ops, bad;
} writer;

/* The original offset for instrumented x through shift_map(k). */
static uint32_t model_translate(int k, uint32_t x)
{
    if (k == 0)
        return x;
    if (x < 1u + (uint32_t)k)
        return 0;
    return x - (uint32_t)k > 63 ? 63 : x - (uint32_t)k;
}

static ilmap *shift_map(int k)
{
    ilmap_entry e[64];
    ilmap *m = NULL;

    e[0].old_offset = e[0].new_offset = 0;
    e[0].accurate = 1;
    for (uint32_t o = 1; o < 64; o++) {
        e[o].old_offset = o;
        e[o].new_offset = o + (uint32_t)k;
        e[o].accurate = 1;
    }
    if (ilmap_create(e, 64, 0, &m) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    return m;
}

static uint32_t il_a(int r)
{
    return 20u + (uint32_t)(r % 8);
}

static uint32_t il_b(int b)
{
    return 30u + (uint32_t)b;
}

static ilmap_native *body_map(int r, int b, uint32_t size)
{
    const ilmap_native_entry e[] = { { il_a(r), 0, SPLIT }, { il_b(b), SPLIT, size } };
    ilmap_native *n = NULL;

    if (ilmap_native_from_entries(e, 2, size, &n) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    return n;
}

/* ---- Writers ------------------------------------------------------------ */

#define WANT(who, expr, want)                                                                  \
    do {                                                                                       \
        ilmap_status st_ = (expr);                                                             \
        if (st_ != (want)) {                                                                   \
            (who)->bad++;                                                                      \
            fprintf(stderr, "writer %d op %u: %s = %s, want %s\n", (who)->w, (who)->p, #expr, \
                    ilmap_status_str(st_), ilmap_status_str(want));                            \
        }                                                                                      \
    } while (0)

static void set_current_model(writer *wr, int f, int r)
{
    if (wr->current[f] != r) {
        wr->current[f] = r;
        hist_push(&wr->hcur[f], wr->p, r);
    }
}

static void set_version_model(writer *wr, int f, int r, int k)
{
    if (wr->vshift[f][r] != k) {
        wr->vshift[f][r] = k;
        hist_push(&wr->hver[f][r], wr->p, k);
    }
}

static void set_body_model(writer *wr, int f, int b, int32_t v)
{
    if (wr->body[f][b] != v) {
        wr->body[f][b] = v;
        hist_push(&wr->hbody[f][b], wr->p, v);
    }
}

/* A version in the store; ReJIT versions only when rejit_only (0 when
 * there is none). */
static int random_version(writer *wr, int f, int rejit_only)
{
    int n = 0, pick[VERSIONS];

    for (int r = rejit_only ? 1 : 0; r < VERSIONS; r++) {
        if (r == 0 || wr->vshift[f][r] >= 0)
            pick[n++] = r;
    }
    return n ? pick[prng_below(&wr->rng, (uint32_t)n)] : 0;
}

#define WANT_REMOVED(who, got, i, f, v, b)                                                     \
    do {                                                                                       \
        if ((got).il_maps != (size_t)(i) || (got).functions != (size_t)(f) ||                 \
            (got).versions != (size_t)(v) || (got).bodies != (size_t)(b)) {                    \
            (who)->bad++;                                                                      \
            fprintf(stderr, "writer %d op %u: removed %zu %zu %zu %zu, want %d %d %d %d\n",     \
                    (who)->w, (who)->p, (got).il_maps, (got).functions, (got).versions,        \
                    (got).bodies, (int)(i), (int)(f), (int)(v), (int)(b));                     \
        }                                                                                      \
    } while (0)

/* ilmap_store_remove_version() of a random ReJIT version of f, or of one
 * never added (NOT_FOUND). */
static void remove_version_op(writer *wr, int f)
{
    ilmap_store_removed got;
    int r = random_version(wr, f, 1);

    if (r == 0) {
        WANT(wr, ilmap_store_remove_version(wr->s, fid_of(wr->w, f), 1, &got), ILMAP_E_NOT_FOUND);
        WANT_REMOVED(wr, got, 0, 0, 0, 0);
        return;
    }
    WANT(wr, ilmap_store_remove_version(wr->s, fid_of(wr->w, f), (ilmap_rejit_id)r, &got),
         ILMAP_OK);
    int bodies = 0;
    for (int b = 0; b < SLOTS; b++) {
        if (wr->body[f][b] >= 0 && BODY_R(wr->body[f][b]) == r) {
            set_body_model(wr, f, b, -1);
            bodies++;
        }
    }
    WANT_REMOVED(wr, got, 0, 0, 1, bodies);
    set_version_model(wr, f, r, -1);
    if (wr->current[f] == r)
        set_current_model(wr, f, 0);
}

/* ilmap_store_remove_module() of the writer's module: all its keys. */
static void remove_module_op(writer *wr)
{
    ilmap_store_removed got;
    int maps = 0, functions = 0, versions = 0, bodies = 0;

    WANT(wr, ilmap_store_remove_module(wr->s, module_of(wr->w), &got), ILMAP_OK);
    for (int m = 0; m < METHODS; m++) {
        if (wr->mshift[m] != 0) {
            wr->mshift[m] = 0;
            hist_push(&wr->hmeth[m], wr->p, 0);
            maps++;
        }
    }
    for (int f = 0; f < FIDS; f++) {
        functions += wr->current[f] >= 0;
        set_current_model(wr, f, -1);
        wr->next_rejit[f] = 2;
        for (int r = 1; r < VERSIONS; r++) {
            versions += wr->vshift[f][r] >= 0;
            set_version_model(wr, f, r, -1);
        }
        for (int b = 0; b < SLOTS; b++) {
            bodies += wr->body[f][b] >= 0;
            set_body_model(wr, f, b, -1);
        }
    }
    WANT_REMOVED(wr, got, maps, functions, versions, bodies);
}

static void writer_op(writer *wr)
{
    int w = wr->w;
    int f = (int)prng_below(&wr->rng, FIDS);
    ilmap_function_id fid = fid_of(w, f);
    uint32_t dice = prng_below(&wr->rng, 100);

    atomic_store_explicit(&wr->started, ++wr->p, memory_order_seq_cst);
    if (wr->current[f] < 0) {
        WANT(wr, ilmap_store_add_function(wr->s, fid, module_of(w), method_of(f)), ILMAP_OK);
        set_current_model(wr, f, 0);
    } else if (dice < 15 && wr->next_rejit[f] < VERSIONS) {
        int r = wr->next_rejit[f]++;
        int k = r % 5 == 0 ? 0 : (int)prng_below(&wr->rng, 20) + 1;
        unsigned flags = prng_below(&wr->rng, 10) < 7 ? ILMAP_VERSION_CURRENT : 0;
        WANT(wr, ilmap_store_add_version(wr->s, fid, (ilmap_rejit_id)r, k ? shift_map(k) : NULL,
                                         flags),
             ILMAP_OK);
        set_version_model(wr, f, r, k);
        if (flags)
            set_current_model(wr, f, r);
    } else if (dice < 25) {
        int r = random_version(wr, f, 0);
        WANT(wr, ilmap_store_set_current(wr->s, fid, (ilmap_rejit_id)r), ILMAP_OK);
        set_current_model(wr, f, r);
    } else if (dice < 32) {
        size_t n = 99, want = 0;
        for (int g = f & ~1; g <= (f | 1); g++)
            want += wr->current[g] > 0;
        WANT(wr, ilmap_store_revert(wr->s, module_of(w), method_of(f), &n), ILMAP_OK);
        if (n != want) {
            wr->bad++;
            fprintf(stderr, "writer %d op %u: revert changed %zu, want %zu\n", w, wr->p, n, want);
        }
        for (int g = f & ~1; g <= (f | 1); g++) {
            if (wr->current[g] > 0)
                set_current_model(wr, g, 0);
        }
    } else if (dice < 45) {
        int m = f / 2;
        int k = prng_below(&wr->rng, 4) == 0 ? 0 : (int)prng_below(&wr->rng, 20) + 1;
        ilmap *map = NULL;
        if (k)
            map = shift_map(k);
        else if (prng_below(&wr->rng, 2) && ilmap_create(NULL, 0, 0, &map) != ILMAP_OK)
            exit(TEST_EXIT_SETUP_FAILURE); /* clear with an empty map, or with NULL */
        if (prng_below(&wr->rng, 2))
            WANT(wr, ilmap_store_set_il_map(wr->s, module_of(w), method_of(f), map), ILMAP_OK);
        else
            WANT(wr, ilmap_store_set_il_map_for_function(wr->s, fid, map), ILMAP_OK);
        if (wr->mshift[m] != k) {
            wr->mshift[m] = k;
            hist_push(&wr->hmeth[m], wr->p, k);
        }
    } else if (dice < 72) {
        int b = (int)prng_below(&wr->rng, SLOTS);
        int r = random_version(wr, f, 0);
        int cold = (int)prng_below(&wr->rng, 2);
        uint32_t size = HOT + (cold ? COLD : 0);
        const ilmap_code_range ranges[] = { { hot_of(w, f, b), HOT }, { cold_of(w, f, b), COLD } };
        ilmap_native *native = body_map(r, b, size);
        if (wr->body[f][b] >= 0) {
            /* Taken: refused, and the map stays ours. */
            WANT(wr, ilmap_store_add_body(wr->s, fid, (ilmap_rejit_id)r, ranges,
                                          (size_t)(1 + cold), native, 0),
                 ILMAP_E_OVERLAP);
            ilmap_native_free(native);
        } else {
            WANT(wr, ilmap_store_add_body(wr->s, fid, (ilmap_rejit_id)r, ranges,
                                          (size_t)(1 + cold), native, 0),
                 ILMAP_OK);
            int k = r == 0 ? wr->mshift[f / 2] : wr->vshift[f][r];
            set_body_model(wr, f, b, BODY(r, k, cold));
        }
    } else if (dice < 92) {
        int b = (int)prng_below(&wr->rng, SLOTS);
        if (wr->body[f][b] >= 0) {
            WANT(wr, ilmap_store_remove_body(wr->s, hot_of(w, f, b)), ILMAP_OK);
            set_body_model(wr, f, b, -1);
        } else {
            WANT(wr, ilmap_store_remove_body(wr->s, hot_of(w, f, b)), ILMAP_E_NOT_FOUND);
        }
    } else if (dice < 99) {
        remove_version_op(wr, f);
    } else {
        remove_module_op(wr); /* ModuleUnloadStarted: everything of the writer's */
    }
    atomic_store_explicit(&wr->done, wr->p, memory_order_release);
    wr->ops++;
}

static void *writer_main(void *arg)
{
    writer *wr = arg;

    for (long i = 0; i < wr->todo; i++)
        writer_op(wr);
    return NULL;
}

/* ---- Readers ------------------------------------------------------------ */

enum { Q_LOOKUP, Q_FUNCTION, Q_IL_MAP };

typedef struct obs {
    uint8_t kind, w, f, b;
    int8_t r;           /* Q_IL_MAP: the version asked */
    int8_t cold;        /* Q_LOOKUP: 0 hot, 1 cold, 2 gap */
    uint16_t offset;    /* Q_LOOKUP: from the range start */
    uint32_t lo, hi;
    int32_t st;
    /* the answer */
    uint32_t got_fid_w_f; /* Q_LOOKUP: w * 64 + f of the function found */
    int32_t rejit;        /* Q_LOOKUP, Q_FUNCTION */
    uint32_t native_offset, mapping, il, orig;
    int32_t is_current;
    int32_t shift;        /* Q_IL_MAP: the map's shift, 0 for none */
} obs;

typedef struct reader {
    int id;
    ilmap_store *s;
    writer *writers;
    int nwriters;
    prng rng;
    obs *o;
    size_t n;           /* kept, at most OBS_CAP */
    uint64_t made;      /* made in all: the reservoir samples the run */
    long todo;          /* reads to do */
    long reads, bad;
} reader;

/* Where the next observation goes: reservoir sampling keeps a uniform
 * sample of the whole run in OBS_CAP entries. */
static obs *next_obs(reader *rd, obs *scratch)
{
    uint64_t i = rd->made++;

    if (rd->n < OBS_CAP)
        return &rd->o[rd->n++];
    i = prng_next(&rd->rng) % (i + 1);
    return i < OBS_CAP ? &rd->o[i] : scratch;
}

/* The shift of one of our maps: it sends 1 to 1 + k. */
static int shift_of(const ilmap *m)
{
    return m ? (int)ilmap_old_to_new(m, 1) - 1 : 0;
}

static void query(reader *rd, const ilmap_store_snapshot *v, obs *o)
{
    int w = (int)prng_below(&rd->rng, (uint32_t)rd->nwriters);
    int f = (int)prng_below(&rd->rng, FIDS);
    uint32_t dice = prng_below(&rd->rng, 10);

    memset(o, 0, sizeof *o);
    o->w = (uint8_t)w;
    o->f = (uint8_t)f;
    if (dice < 6) {
        int b = (int)prng_below(&rd->rng, SLOTS);
        uint32_t where = prng_below(&rd->rng, 10);
        uintptr_t addr;
        o->kind = Q_LOOKUP;
        o->b = (uint8_t)b;
        if (where < 6) {
            o->offset = (uint16_t)(where == 0 ? 0 : where == 1 ? SPLIT : prng_below(&rd->rng, HOT));
            addr = hot_of(w, f, b) + o->offset;
        } else if (where < 9) {
            o->cold = 1;
            o->offset = (uint16_t)prng_below(&rd->rng, COLD);
            addr = cold_of(w, f, b) + o->offset;
        } else {
            o->cold = 2;
            addr = hot_of(w, f, b) + GAP;
        }
        ilmap_store_location loc;
        o->st = ilmap_store_snapshot_lookup(v, addr, &loc);
        if (o->st == ILMAP_OK) {
            o->got_fid_w_f = (uint32_t)((loc.function_id - fid_of(0, 0)) >> 6);
            o->rejit = (int32_t)loc.rejit_id;
            o->native_offset = loc.native_offset;
            o->mapping = loc.mapping;
            o->il = loc.il_offset;
            o->orig = loc.original_il_offset;
            ilmap_store_function_info info;
            o->is_current = ilmap_store_snapshot_get_function(v, loc.function_id, &info) == ILMAP_OK &&
                            info.current_rejit_id == loc.rejit_id;
            /* Touch what the body points to: freed memory would show. */
            ilmap_store_body_info body;
            if (ilmap_store_snapshot_get_body(v, addr, &body) != ILMAP_OK ||
                body.function_id != loc.function_id || ilmap_native_get_count(body.native_map) != 2 ||
                (body.il_map && ilmap_get_count(body.il_map) != 64))
                rd->bad++;
        }
    } else if (dice < 8) {
        ilmap_store_function_info info;
        o->kind = Q_FUNCTION;
        o->st = ilmap_store_snapshot_get_function(v, fid_of(w, f), &info);
        o->rejit = (int32_t)info.current_rejit_id;
    } else {
        const ilmap *m;
        int r = prng_below(&rd->rng, 2) ? 0 : (int)prng_below(&rd->rng, VERSIONS - 2) + 2;
        o->kind = Q_IL_MAP;
        o->r = (int8_t)r;
        o->st = ilmap_store_snapshot_get_il_map(v, fid_of(w, f), (ilmap_rejit_id)r, &m);
        o->shift = shift_of(m);
        if (m && ilmap_get_count(m) != 64)
            rd->bad++;
    }
}

static void *reader_main(void *arg)
{
    reader *rd = arg;
    ilmap_store_reader *slot = NULL;
    obs scratch;

    if (ilmap_store_reader_register(rd->s, &slot) != ILMAP_OK) {
        rd->bad++;
        return NULL;
    }
    while (rd->reads < rd->todo) {
        uint32_t lo[MAX_WRITERS];
        for (int w = 0; w < rd->nwriters; w++)
            lo[w] = atomic_load_explicit(&rd->writers[w].done, memory_order_acquire);

        const ilmap_store_snapshot *v;
        if (ilmap_store_reader_begin(slot, &v) != ILMAP_OK) {
            rd->bad++;
            break;
        }
        obs *made[6];
        int nmade = 0;
        int queries = 1 + (int)prng_below(&rd->rng, 4);
        for (int q = 0; q < queries; q++) {
            made[nmade] = next_obs(rd, &scratch);
            query(rd, v, made[nmade++]);
        }
        if (prng_below(&rd->rng, 20) == 0) {
            /* A nested read sees a snapshot at least as new: the same
             * window holds for it. */
            const ilmap_store_snapshot *inner;
            if (ilmap_store_reader_begin(slot, &inner) != ILMAP_OK ||
                ilmap_store_snapshot_get_generation(inner) < ilmap_store_snapshot_get_generation(v))
                rd->bad++;
            made[nmade] = next_obs(rd, &scratch);
            query(rd, inner, made[nmade++]);
            if (ilmap_store_reader_end(slot) != ILMAP_OK)
                rd->bad++;
        }
        if (ilmap_store_reader_end(slot) != ILMAP_OK)
            rd->bad++;

        uint32_t hi[MAX_WRITERS];
        for (int w = 0; w < rd->nwriters; w++)
            hi[w] = atomic_load_explicit(&rd->writers[w].started, memory_order_acquire);
        for (int i = 0; i < nmade; i++) {
            made[i]->lo = lo[made[i]->w];
            made[i]->hi = hi[made[i]->w];
        }
        rd->reads++;

        /* Slots come and go with threads. */
        if (prng_below(&rd->rng, 500) == 0) {
            if (ilmap_store_reader_unregister(slot) != ILMAP_OK ||
                ilmap_store_reader_register(rd->s, &slot) != ILMAP_OK) {
                rd->bad++;
                break;
            }
        }
    }
    if (slot && ilmap_store_reader_unregister(slot) != ILMAP_OK)
        rd->bad++;
    return NULL;
}

/* ---- The check ---------------------------------------------------------- */

/* The model's answer to o after operations 1..p of its writer: 1 if it
 * equals what the reader got. */
static int matches_at(const writer *wr, const obs *o, uint32_t p)
{
    int f = o->f;
    int cur = hist_at(&wr->hcur[f], p, -1);

    if (o->kind == Q_FUNCTION)
        return cur < 0 ? o->st == ILMAP_E_NOT_FOUND : o->st == ILMAP_OK && o->rejit == cur;

    if (o->kind == Q_IL_MAP) {
        if (cur < 0)
            return o->st == ILMAP_E_NOT_FOUND;
        if (o->r == 0)
            return o->st == ILMAP_OK && o->shift == hist_at(&wr->hmeth[f / 2], p, 0);
        int32_t k = hist_at(&wr->hver[f][(int)o->r], p, -1);
        if (k < 0)
            return o->st == ILMAP_E_NOT_FOUND;
        return o->st == ILMAP_OK && o->shift == k;
    }

    int32_t body = hist_at(&wr->hbody[f][o->b], p, -1);
    if (body < 0 || o->cold == 2 || (o->cold == 1 && !BODY_COLD(body)))
        return o->st == ILMAP_E_NOT_FOUND;
    int r = BODY_R(body);
    uint32_t off = o->cold ? HOT + o->offset : o->offset;
    uint32_t il = off < SPLIT ? il_a(r) : il_b(o->b);
    unsigned mapping = off == 0 || off == SPLIT ? ILMAP_MAPPING_EXACT : ILMAP_MAPPING_APPROXIMATE;
    return o->st == ILMAP_OK && o->got_fid_w_f == (uint32_t)(wr->w * 64 + f) && o->rejit == r &&
           o->native_offset == off && o->mapping == mapping && o->il == il &&
           o->orig == model_translate(BODY_K(body), il) && o->is_current == (cur == r);
}

static long check_reader(const reader *rd)
{
    long failures = 0;
    uint32_t points[256];

    for (size_t i = 0; i < rd->n; i++) {
        const obs *o = &rd->o[i];
        const writer *wr = &rd->writers[o->w];
        size_t n = 0;
        points[n++] = o->lo;
        n = hist_points(&wr->hcur[o->f], o->lo, o->hi, points, n, 256);
        if (o->kind == Q_LOOKUP)
            n = hist_points(&wr->hbody[o->f][o->b], o->lo, o->hi, points, n, 256);
        if (o->kind == Q_IL_MAP) {
            n = hist_points(&wr->hmeth[o->f / 2], o->lo, o->hi, points, n, 256);
            if (o->r)
                n = hist_points(&wr->hver[o->f][(int)o->r], o->lo, o->hi, points, n, 256);
        }
        int ok = 0;
        for (size_t j = 0; j < n && !ok; j++)
            ok = matches_at(wr, o, points[j]);
        if (!ok && n == 256) /* a very long window: try it all */
            for (uint32_t p = o->lo; p <= o->hi && !ok; p++)
                ok = matches_at(wr, o, p);
        if (!ok) {
            if (failures++ < 5)
                fprintf(stderr,
                        "reader %d obs %zu: kind %d writer %d fid %d slot %d r %d cold %d off %u "
                        "window [%u, %u]: status %s rejit %d off %u mapping 0x%x il %u orig %u "
                        "current %d shift %d\n",
                        rd->id, i, o->kind, o->w, o->f, o->b, o->r, o->cold, o->offset, o->lo,
                        o->hi, ilmap_status_str((ilmap_status)o->st), o->rejit, o->native_offset,
                        o->mapping, o->il, o->orig, o->is_current, o->shift);
        }
    }
    return failures;
}

/* After the run the store must hold exactly the model's final state. */
static void check_final(ilmap_store *s, writer *writers, int nwriters)
{
    ilmap_store_reader *slot;
    const ilmap_store_snapshot *v;
    size_t bodies = 0, pending = 1;

    CHECK(ilmap_store_reader_register(s, &slot) == ILMAP_OK);
    CHECK(ilmap_store_reader_begin(slot, &v) == ILMAP_OK);
    for (int w = 0; w < nwriters; w++) {
        writer *wr = &writers[w];
        for (int f = 0; f < FIDS; f++) {
            ilmap_store_function_info info;
            ilmap_status st = ilmap_store_snapshot_get_function(v, fid_of(w, f), &info);
            CHECK(wr->current[f] < 0 ? st == ILMAP_E_NOT_FOUND
                                     : st == ILMAP_OK &&
                                           info.current_rejit_id == (ilmap_rejit_id)wr->current[f]);
            for (int b = 0; b < SLOTS; b++) {
                ilmap_store_location loc;
                st = ilmap_store_snapshot_lookup(v, hot_of(w, f, b) + 1, &loc);
                CHECK(wr->body[f][b] < 0 ? st == ILMAP_E_NOT_FOUND
                                         : st == ILMAP_OK &&
                                               loc.rejit_id == (ilmap_rejit_id)BODY_R(wr->body[f][b]));
                bodies += wr->body[f][b] >= 0;
            }
        }
        for (int m = 0; m < METHODS; m++) {
            const ilmap *map;
            CHECK(ilmap_store_snapshot_get_method_map(v, module_of(w), method_of(2 * m), &map) == ILMAP_OK);
            CHECK(shift_of(map) == wr->mshift[m]);
        }
    }
    CHECK(ilmap_store_reader_end(slot) == ILMAP_OK);
    CHECK(ilmap_store_reader_unregister(slot) == ILMAP_OK);

    ilmap_store_stats stats;
    CHECK(ilmap_store_reclaim(s, &pending) == ILMAP_OK);
    CHECK(pending == 0); /* no reader left: everything retired is freed */
    CHECK(ilmap_store_get_stats(s, &stats) == ILMAP_OK);
    CHECK(stats.bodies == bodies && stats.readers == 0 && stats.retired == 0);
}

static void spawn(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    if (pthread_create(thread, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
}

/* nwriters writers of `writes` operations each race nreaders readers of
 * `reads_each` reads each. */
static void run_store(int nwriters, int nreaders, long writes, long reads_each, uint64_t seed)
{
    ilmap_store *s;
    static writer writers[MAX_WRITERS];
    static reader readers[MAX_READERS];
    pthread_t wt[MAX_WRITERS], rt[MAX_READERS];

    if (ilmap_store_create(16, store_flags, &s) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    memset(writers, 0, sizeof writers);
    for (int w = 0; w < nwriters; w++) {
        writer *wr = &writers[w];
        wr->w = w;
        wr->s = s;
        wr->rng = prng_init(seed + 101u * (uint64_t)(w + 1));
        wr->todo = writes;
        atomic_init(&wr->started, 0);
        atomic_init(&wr->done, 0);
        for (int f = 0; f < FIDS; f++) {
            wr->current[f] = -1;
            wr->next_rejit[f] = 2;
            for (int r = 0; r < VERSIONS; r++)
                wr->vshift[f][r] = -1;
            for (int b = 0; b < SLOTS; b++)
                wr->body[f][b] = -1;
        }
    }
    for (int i = 0; i < nreaders; i++) {
        reader *rd = &readers[i];
        memset(rd, 0, sizeof *rd);
        rd->id = i;
        rd->s = s;
        rd->writers = writers;
        rd->nwriters = nwriters;
        rd->rng = prng_init(seed + 7919u * (uint64_t)(i + 1));
        rd->todo = reads_each;
        rd->o = malloc(OBS_CAP * sizeof *rd->o);
        if (!rd->o)
            exit(TEST_EXIT_SETUP_FAILURE);
    }

    for (int w = 0; w < nwriters; w++)
        spawn(&wt[w], writer_main, &writers[w]);
    for (int i = 0; i < nreaders; i++)
        spawn(&rt[i], reader_main, &readers[i]);
    for (int w = 0; w < nwriters; w++)
        pthread_join(wt[w], NULL);
    for (int i = 0; i < nreaders; i++)
        pthread_join(rt[i], NULL);

    long ops = 0, reads = 0, observations = 0, failures = 0;
    for (int w = 0; w < nwriters; w++) {
        ops += writers[w].ops;
        test_checks += writers[w].ops;
        if (writers[w].bad)
            test_failures++;
    }
    for (int i = 0; i < nreaders; i++) {
        reads += readers[i].reads;
        observations += (long)readers[i].n;
        test_checks += (long)readers[i].n;
        failures += check_reader(&readers[i]);
        if (readers[i].bad) {
            fprintf(stderr, "reader %d: %ld inconsistent reads\n", i, readers[i].bad);
            test_failures++;
        }
        free(readers[i].o);
    }
    if (failures) {
        fprintf(stderr, "%ld answers match no state of the model in their window\n", failures);
        test_failures++;
    }
    /* Every thread did all its work (a reader that stopped early said so). */
    CHECK(ops == (long)nwriters * writes);
    CHECK(reads == (long)nreaders * reads_each);
    check_final(s, writers, nwriters);
    printf("store: %d writers, %d readers: %ld writes, %ld reads, %ld answers checked "
           "(sampled over the run)\n",
           nwriters, nreaders, ops, reads, observations);

    ilmap_store_free(s);
    for (int w = 0; w < nwriters; w++) {
        writer *wr = &writers[w];
        for (int f = 0; f < FIDS; f++) {
            free(wr->hcur[f].c);
            for (int b = 0; b < SLOTS; b++)
                free(wr->hbody[f][b].c);
            for (int r = 0; r < VERSIONS; r++)
                free(wr->hver[f][r].c);
        }
        for (int m = 0; m < METHODS; m++)
            free(wr->hmeth[m].c);
    }
}

/* ---- Reads from a signal handler ------------------------------------ */

/* A sampler: SIGUSR1 interrupts a thread, possibly inside a read on the
 * very slot the handler then reads with; only lock-free calls inside.
 *
 * Windows has no signal that interrupts a given thread (no pthread_kill
 * of SIGUSR1, no sigaction), and its sampling profilers do something
 * else: SuspendThread the target (GetThreadContext waits until it has
 * really stopped), read with the target's slot from the sampler's own
 * thread, ResumeThread. For the slot that is the same situation: a read
 * nested inside the owner's read, the owner frozen anywhere in begin,
 * lookup or end (epoch.h). So on Windows the test does that instead. */
#define STABLE_FID ((ilmap_function_id)TEST_ID_BASE(0x7F3000000040ull, 0x73000040u))
#define STABLE_CODE ((uintptr_t)0x20000000u)

static _Thread_local ilmap_store_reader *tls_slot;
static atomic_long handler_calls, handler_reads, handler_bad;
/* Set when the sampling is over: the sampled thread and the churn stop. */
static atomic_int stop;

static void sample_read(ilmap_store_reader *slot)
{
    ilmap_store_location loc;
    if (!slot)
        return;
    if (ilmap_store_lookup(slot, STABLE_CODE + 0x90, &loc) != ILMAP_OK ||
        loc.function_id != STABLE_FID || loc.il_offset != 31 || loc.original_il_offset != 31 - 5)
        atomic_fetch_add(&handler_bad, 1);
    atomic_fetch_add(&handler_reads, 1);
}

#if !defined(_WIN32)
static void on_signal(int sig)
{
    (void)sig;
    sample_read(tls_slot);
    atomic_fetch_add(&handler_calls, 1); /* last: the sampler waits for it */
}
#endif

typedef struct sampled {
    ilmap_store *s;
    atomic_int ready; /* 1 reading, 2 could not register */
    long reads, bad;
#if defined(_WIN32)
    ilmap_store_reader *slot; /* the sampled thread's */
    HANDLE thread;
#endif
} sampled;

static void *sampled_main(void *arg)
{
    sampled *t = arg;
    ilmap_store_location loc;

    if (ilmap_store_reader_register(t->s, &tls_slot) != ILMAP_OK) {
        t->bad++;
        atomic_store(&t->ready, 2);
        return NULL;
    }
#if defined(_WIN32)
    t->slot = tls_slot;
    if (!DuplicateHandle(GetCurrentProcess(), GetCurrentThread(), GetCurrentProcess(),
                         &t->thread, 0, FALSE, DUPLICATE_SAME_ACCESS))
        t->bad++;
#endif
    atomic_store(&t->ready, 1);
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        const ilmap_store_snapshot *v;
        if (ilmap_store_reader_begin(tls_slot, &v) != ILMAP_OK)
            t->bad++;
        for (int i = 0; i < 8; i++) {
            if (ilmap_store_snapshot_lookup(v, STABLE_CODE + (uintptr_t)i, &loc) != ILMAP_OK ||
                loc.il_offset != 21)
                t->bad++;
        }
        if (ilmap_store_reader_end(tls_slot) != ILMAP_OK)
            t->bad++;
        t->reads++;
    }
#if !defined(_WIN32)
    /* Block the signal before the slot goes away. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
#endif
    /* (Windows: the sampler stopped sampling before it set `stop`.) */
    ilmap_store_reader *slot = tls_slot;
    tls_slot = NULL;
    if (ilmap_store_reader_unregister(slot) != ILMAP_OK)
        t->bad++;
    return NULL;
}

static atomic_long churn_bad;

static void *churn_main(void *arg)
{
    ilmap_store *s = arg;
    const ilmap_code_range code[] = { { 0x30000000u, HOT } };

    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        /* Each call publishes and retires: the handler's reads race it. */
        if (ilmap_store_set_il_map(s, module_of(9), 0x06000001u, shift_map(3)) != ILMAP_OK ||
            ilmap_store_add_body(s, STABLE_FID, 0, code, 1, body_map(0, 0, HOT), 0) != ILMAP_OK ||
            ilmap_store_remove_body(s, code[0].start) != ILMAP_OK)
            atomic_fetch_add(&churn_bad, 1);
    }
    return NULL;
}

/* `samples` samples of the sampled thread, one at a time: each signal is
 * handled before the next is sent (signals of one kind pending together
 * would merge into one), so every sample is a handler read, exactly. */
static void run_signals(long samples)
{
    ilmap_store *s;
    sampled t;
    pthread_t sampler, churn;

    if (ilmap_store_create(4, store_flags, &s) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    const ilmap_code_range code[] = { { STABLE_CODE, HOT } };
    CHECK(ilmap_store_add_function(s, STABLE_FID, module_of(9), 0x06000002u) == ILMAP_OK);
    CHECK(ilmap_store_set_il_map(s, module_of(9), 0x06000002u, shift_map(5)) == ILMAP_OK);
    /* il_a(1) = 21 below SPLIT, il_b(1) = 31 above. */
    CHECK(ilmap_store_add_version(s, STABLE_FID, 2, shift_map(5), ILMAP_VERSION_CURRENT) ==
          ILMAP_OK);
    ilmap_native_entry e[] = { { 21, 0, SPLIT }, { 31, SPLIT, HOT } };
    ilmap_native *n = NULL;
    CHECK(ilmap_native_from_entries(e, 2, HOT, &n) == ILMAP_OK);
    CHECK(ilmap_store_add_body(s, STABLE_FID, 2, code, 1, n, 0) == ILMAP_OK);

#if !defined(_WIN32)
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
#endif

    memset(&t, 0, sizeof t);
    t.s = s;
    atomic_init(&t.ready, 0);
    atomic_store(&stop, 0);
    atomic_store(&handler_calls, 0);
    atomic_store(&handler_reads, 0);
    atomic_store(&handler_bad, 0);
    atomic_store(&churn_bad, 0);
    /* The sampled thread is created last, and no thread after it, for
     * qemu-i386 (linux-user): it keeps one emulated GDT for all threads,
     * each new thread writes its TLS base into the same entry, and the
     * return from a signal handler reloads %gs from that entry; a signalled
     * thread older than the newest then runs on the newest thread's TLS
     * (its thread-local slot reads NULL, so does its errno). Real kernels
     * keep the TLS base per thread, so the order changes nothing there.
     * Evidence: README, "Platforms". */
    spawn(&churn, churn_main, s);
    spawn(&sampler, sampled_main, &t);
    while (!atomic_load(&t.ready))
        pause_brief();

    long sent = 0, unsampled = 0;
    for (long i = 0; i < samples && atomic_load(&t.ready) == 1; i++) {
#if defined(_WIN32)
        if (t.thread && SuspendThread(t.thread) != (DWORD)-1) {
            CONTEXT ctx;
            memset(&ctx, 0, sizeof ctx);
            ctx.ContextFlags = CONTEXT_CONTROL;
            GetThreadContext(t.thread, &ctx); /* returns once it is stopped */
            sample_read(t.slot);
            ResumeThread(t.thread);
            atomic_fetch_add(&handler_calls, 1);
            sent++;
        } else {
            unsampled++;
        }
#else
        if (pthread_kill(sampler, SIGUSR1) == 0) {
            sent++;
            /* Until it is handled: the sampled thread runs the handler when
             * it next gets a CPU, which on a loaded machine takes a while. */
            while (atomic_load(&handler_calls) != sent)
                pause_brief();
        } else {
            unsampled++;
        }
#endif
        /* The sampled thread runs on into its reads before the next one. */
        struct timespec gap = { 0, 200000 };
        nanosleep(&gap, NULL);
    }
    atomic_store(&stop, 1);
    pthread_join(sampler, NULL);
    pthread_join(churn, NULL);

    long reads = atomic_load(&handler_reads), bad = atomic_load(&handler_bad);
    test_checks += reads + t.reads;
    CHECK(bad == 0 && t.bad == 0 && atomic_load(&churn_bad) == 0);
    /* Exact: every sample ran once, and each found its thread's slot. */
    CHECK(sent == samples && unsampled == 0);
    CHECK(atomic_load(&handler_calls) == sent && reads == sent);
    size_t pending = 1;
    CHECK(ilmap_store_reclaim(s, &pending) == ILMAP_OK && pending == 0);
    printf("signals: %ld sent, %ld handler reads, %ld thread reads\n", sent, reads, t.reads);
#if defined(_WIN32)
    if (t.thread)
        CloseHandle(t.thread);
#else
    signal(SIGUSR1, SIG_DFL);
#endif
    ilmap_store_free(s);
}

/* ---- A module unloaded while readers look up in it ------------------- */

/* One writer loads a module (its IL-level maps, UNLOAD_FIDS functions,
 * each with a body of the original version, a ReJIT version and a body of
 * it), then unloads it with ilmap_store_remove_module(), round after
 * round, each round with other maps (shift k, k + 1). Readers look up
 * every body's address in load order, in one read each time, and a
 * stable module's address. Each publication adds one thing in that order
 * and the unload takes all at once, so within one read the bodies found
 * are a prefix of the load order (none after the unload, never a hole),
 * every one found answers in full for the same round, and the stable
 * module always answers. */
#define UNLOAD_FIDS 8
#define UNLOAD_READERS 3
#define UNLOAD_MODULE ((ilmap_module_id)TEST_ID_BASE(0x7F4000001000ull, 0x74001000u))
#define UNLOAD_STABLE_MODULE ((ilmap_module_id)TEST_ID_BASE(0x7F4000002000ull, 0x74002000u))
#define UNLOAD_STABLE_FID ((ilmap_function_id)TEST_ID_BASE(0x7F4000100000ull, 0x74100000u))
#define UNLOAD_STABLE_CODE ((uintptr_t)0x40000000u)

static ilmap_function_id unload_fid(int f)
{
    return TEST_ID_BASE(0x7F4000200000ull, 0x74200000u) + ((ilmap_function_id)f << 6);
}

/* Body b (0: original version, 1: ReJIT version 2) of function f. */
static uintptr_t unload_code(int f, int b)
{
    return (uintptr_t)0x48000000u + ((uintptr_t)(2 * f + b) << 12);
}

static uint32_t unload_il(int f, int b)
{
    return 40u + (uint32_t)(10 * b + f);
}

static ilmap_native *flat_map(uint32_t il)
{
    const ilmap_native_entry e[] = { { il, 0, HOT } };
    ilmap_native *n = NULL;

    if (ilmap_native_from_entries(e, 1, HOT, &n) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    return n;
}

typedef struct unload_reader {
    ilmap_store *s;
    long todo; /* reads to do */
    long reads, loaded, empty, partial, bad;
} unload_reader;

typedef struct unload_writer {
    ilmap_store *s;
    long todo; /* rounds to do */
    long rounds, bad;
} unload_writer;

static void *unload_writer_main(void *arg)
{
    unload_writer *uw = arg;
    ilmap_store *s = uw->s;
    long bad = 0, rounds = 0;

    while (rounds < uw->todo) {
        int k = 1 + (int)(rounds % 19);
        for (int f = 0; f < UNLOAD_FIDS; f++) {
            ilmap_function_id fid = unload_fid(f);
            const ilmap_code_range b0[] = { { unload_code(f, 0), HOT } };
            const ilmap_code_range b1[] = { { unload_code(f, 1), HOT } };
            bad += ilmap_store_set_il_map(s, UNLOAD_MODULE, method_of(2 * f), shift_map(k)) !=
                   ILMAP_OK;
            bad += ilmap_store_add_function(s, fid, UNLOAD_MODULE, method_of(2 * f)) != ILMAP_OK;
            bad += ilmap_store_add_body(s, fid, 0, b0, 1, flat_map(unload_il(f, 0)), 0) != ILMAP_OK;
            bad += ilmap_store_add_version(s, fid, 2, shift_map(k + 1), ILMAP_VERSION_CURRENT) !=
                   ILMAP_OK;
            bad += ilmap_store_add_body(s, fid, 2, b1, 1, flat_map(unload_il(f, 1)), 0) != ILMAP_OK;
        }
        ilmap_store_removed got;
        if (ilmap_store_remove_module(s, UNLOAD_MODULE, &got) != ILMAP_OK ||
            got.il_maps != UNLOAD_FIDS || got.functions != UNLOAD_FIDS ||
            got.versions != UNLOAD_FIDS || got.bodies != 2 * UNLOAD_FIDS)
            bad++;
        rounds++;
    }
    uw->rounds = rounds;
    uw->bad = bad;
    return NULL;
}

/* One address of the module: 1 when found (answering in full for round
 * shift *k, which the first answer sets), 0 when not found, -1 when torn. */
static int unload_probe(const ilmap_store_snapshot *v, int f, int b, int *k)
{
    ilmap_store_location loc;
    ilmap_store_body_info body;
    ilmap_store_function_info info;
    uintptr_t addr = unload_code(f, b) + (uintptr_t)(f * 7 + 1);
    ilmap_status st = ilmap_store_snapshot_lookup(v, addr, &loc);

    if (st == ILMAP_E_NOT_FOUND)
        return 0;
    if (st != ILMAP_OK)
        return -1;
    uint32_t il = unload_il(f, b);
    int shift = (int)(il - loc.original_il_offset) - b;
    if (*k == 0)
        *k = shift;
    if (loc.function_id != unload_fid(f) || loc.rejit_id != (ilmap_rejit_id)(2 * b) ||
        loc.module_id != UNLOAD_MODULE || loc.method_def != method_of(2 * f) ||
        loc.code_start != unload_code(f, b) || loc.native_offset != (uint32_t)(f * 7 + 1) ||
        loc.il_offset != il || shift != *k || shift < 1 || shift > 19)
        return -1;
    /* What the answer points to is alive, and the function is there. */
    if (ilmap_store_snapshot_get_body(v, addr, &body) != ILMAP_OK ||
        ilmap_native_get_count(body.native_map) != 1 || !body.il_map ||
        ilmap_get_count(body.il_map) != 64 ||
        ilmap_store_snapshot_get_function(v, unload_fid(f), &info) != ILMAP_OK ||
        info.module_id != UNLOAD_MODULE)
        return -1;
    return 1;
}

static void *unload_reader_main(void *arg)
{
    unload_reader *rd = arg;
    ilmap_store_reader *slot;

    if (ilmap_store_reader_register(rd->s, &slot) != ILMAP_OK) {
        rd->bad++;
        return NULL;
    }
    while (rd->reads < rd->todo) {
        const ilmap_store_snapshot *v;
        ilmap_store_location loc;
        int found = 0, holes = 0, k = 0;

        if (ilmap_store_reader_begin(slot, &v) != ILMAP_OK) {
            rd->bad++;
            break;
        }
        for (int i = 0; i < 2 * UNLOAD_FIDS; i++) {
            int got = unload_probe(v, i / 2, i % 2, &k);
            if (got < 0)
                rd->bad++;
            else if (got == 1 && found++ != i)
                holes++; /* found after one that was not */
        }
        if (ilmap_store_snapshot_lookup(v, UNLOAD_STABLE_CODE + 0x10, &loc) != ILMAP_OK ||
            loc.function_id != UNLOAD_STABLE_FID || loc.il_offset != 31 ||
            loc.original_il_offset != 31 - 5)
            rd->bad++;
        if (ilmap_store_reader_end(slot) != ILMAP_OK)
            rd->bad++;
        rd->bad += holes != 0;
        rd->reads++;
        if (found == 2 * UNLOAD_FIDS)
            rd->loaded++;
        else if (found == 0)
            rd->empty++;
        else
            rd->partial++;
    }
    if (ilmap_store_reader_unregister(slot) != ILMAP_OK)
        rd->bad++;
    return NULL;
}

/* `rounds` load/unload rounds race UNLOAD_READERS readers of `reads_each`
 * reads. */
static void run_unload(long rounds, long reads_each)
{
    ilmap_store *s;
    pthread_t writer, readers[UNLOAD_READERS];
    unload_reader rd[UNLOAD_READERS];
    unload_writer uw;

    if (ilmap_store_create(8, store_flags, &s) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    const ilmap_code_range stable[] = { { UNLOAD_STABLE_CODE, HOT } };
    CHECK(ilmap_store_add_function(s, UNLOAD_STABLE_FID, UNLOAD_STABLE_MODULE, 0x06000001u) ==
          ILMAP_OK);
    CHECK(ilmap_store_set_il_map(s, UNLOAD_STABLE_MODULE, 0x06000001u, shift_map(5)) == ILMAP_OK);
    CHECK(ilmap_store_add_body(s, UNLOAD_STABLE_FID, 0, stable, 1, flat_map(31), 0) == ILMAP_OK);

    memset(rd, 0, sizeof rd);
    memset(&uw, 0, sizeof uw);
    uw.s = s;
    uw.todo = rounds;
    spawn(&writer, unload_writer_main, &uw);
    for (int i = 0; i < UNLOAD_READERS; i++) {
        rd[i].s = s;
        rd[i].todo = reads_each;
        spawn(&readers[i], unload_reader_main, &rd[i]);
    }
    pthread_join(writer, NULL);
    long reads = 0, loaded = 0, empty = 0, partial = 0;
    for (int i = 0; i < UNLOAD_READERS; i++) {
        pthread_join(readers[i], NULL);
        test_checks += rd[i].reads;
        reads += rd[i].reads;
        loaded += rd[i].loaded;
        empty += rd[i].empty;
        partial += rd[i].partial;
        if (rd[i].bad) {
            fprintf(stderr, "unload reader %d: %ld torn or wrong answers\n", i, rd[i].bad);
            test_failures++;
        }
    }
    CHECK(uw.bad == 0);
    CHECK(uw.rounds == rounds && reads == UNLOAD_READERS * reads_each);

    /* The last round was unloaded: only the stable module is left, and
     * with no reader left everything retired is freed. */
    ilmap_store_stats stats;
    size_t pending = 1;
    CHECK(ilmap_store_reclaim(s, &pending) == ILMAP_OK && pending == 0);
    CHECK(ilmap_store_get_stats(s, &stats) == ILMAP_OK);
    CHECK(stats.functions == 1 && stats.versions == 1 && stats.bodies == 1 && stats.il_maps == 1);
    printf("unload: %ld rounds, %ld reads (%ld loaded, %ld empty, %ld part-loaded)\n",
           uw.rounds, reads, loaded, empty, partial);
    ilmap_store_free(s);
}

/* ---- PDBs under readers ---------------------------------------------------
 *
 * Two modules, each with one function and one body of method 1, whose
 * native map gives IL 10 * (offset / 16). The writer builds PDB number k
 * (lines 1000 * k + i + 1, column i + 1 for the point at IL 10 * i) and
 * attaches it, replacing the last one, detaches it now and then, and for
 * the second module removes it all and adds it back. The PDB's bytes are
 * freed by its release, so a reader touching a PDB after reclamation is
 * an ASan error. A reader checks each answer is one of the states:
 * located with the right line for some k, located without a PDB, or (the
 * second module) not located at all; and reads the document name
 * through the PDB it was handed, inside its read. */
#define SRC_POINTS 4
#define SRC_MODULE(m) ((ilmap_module_id)TEST_ID_BASE(0x7F5000001000ull, 0x75001000u) + \
                       ((ilmap_module_id)(m) << 12))
#define SRC_FID(m) ((ilmap_function_id)TEST_ID_BASE(0x7F5000100000ull, 0x75100000u) + \
                    ((ilmap_function_id)(m) << 6))
#define SRC_CODE(m) ((uintptr_t)0x50000000u + ((uintptr_t)(m) << 12))
#define SRC_READERS 3

static atomic_long src_released;

static void src_release(void *bytes)
{
    free(bytes);
    atomic_fetch_add(&src_released, 1);
}

/* PDB number k: one method, SRC_POINTS points. NULL when out of memory. */
static ilmap_pdb *src_pdb(uint32_t k, void **bytes_out)
{
    struct parts {
        spec s;
        out heap;
        built b;
    } *p = malloc(sizeof *p);
    ilmap_pdb *pdb = NULL;

    *bytes_out = NULL;
    if (!p)
        return NULL;
    pdbw_point pts[SRC_POINTS];
    for (uint32_t i = 0; i < SRC_POINTS; i++) {
        pts[i].il = 10 * i;
        pts[i].line = 1000 * k + i + 1;
        pts[i].column = i + 1;
        pts[i].hidden = 0;
    }
    base_spec(&p->s, &p->heap);
    pdbw_points(&p->s.points[0], pts, SRC_POINTS);
    build(&p->s, &p->heap, &p->b);
    void *bytes = malloc(p->b.o.n);
    if (bytes) {
        memcpy(bytes, p->b.o.d, p->b.o.n);
        if (ilmap_pdb_open(bytes, p->b.o.n, &pdb, NULL) != ILMAP_OK) {
            free(bytes);
            bytes = NULL;
        }
    }
    free(p);
    *bytes_out = bytes;
    return pdb;
}

static ilmap_native *src_map(void)
{
    ilmap_native_entry e[SRC_POINTS];
    ilmap_native *n = NULL;
    for (uint32_t i = 0; i < SRC_POINTS; i++) {
        e[i].il_offset = 10 * i;
        e[i].native_start = 16 * i;
        e[i].native_end = 16 * (i + 1);
    }
    if (ilmap_native_from_entries(e, SRC_POINTS, 16 * SRC_POINTS, &n) != ILMAP_OK)
        exit(TEST_EXIT_SETUP_FAILURE);
    return n;
}

static int src_add_module(ilmap_store *s, int m)
{
    const ilmap_code_range r = { SRC_CODE(m), 16 * SRC_POINTS };
    return ilmap_store_add_function(s, SRC_FID(m), SRC_MODULE(m), 0x06000001u) == ILMAP_OK &&
           ilmap_store_add_body(s, SRC_FID(m), 0, &r, 1, src_map(), 0) == ILMAP_OK;
}

typedef struct src_writer {
    ilmap_store *s;
    uint32_t todo; /* rounds to do */
    long rounds, attached, bad;
} src_writer;

static void *src_writer_main(void *arg)
{
    src_writer *sw = arg;
    ilmap_store *s = sw->s;
    long bad = 0, attached = 0;
    uint32_t k = 0;

    while (k < sw->todo) {
        k++;
        int m = (int)(k % 2);
        if (k % 7 == 0) {
            bad += ilmap_store_attach_pdb(s, SRC_MODULE(m), NULL, NULL, NULL) != ILMAP_OK;
        } else {
            void *bytes;
            ilmap_pdb *pdb = src_pdb(k, &bytes);
            if (!pdb || ilmap_store_attach_pdb(s, SRC_MODULE(m), pdb, src_release, bytes) !=
                            ILMAP_OK) {
                bad++;
                ilmap_pdb_free(pdb);
                free(bytes);
            } else {
                attached++;
            }
        }
        if (k % 5 == 0) { /* module 1 unloads (its PDB with it) and comes back */
            ilmap_store_removed got;
            bad += ilmap_store_remove_module(s, SRC_MODULE(1), &got) != ILMAP_OK ||
                   got.functions != 1 || got.bodies != 1;
            bad += !src_add_module(s, 1);
        }
    }
    sw->attached = attached;
    sw->bad = bad;
    sw->rounds = (long)k;
    return NULL;
}

/* One answer: 0 when it is one of the states the module can be in. */
static int src_wrong(int m, uint32_t offset, ilmap_status st, const ilmap_store_location *loc,
                     const ilmap_store_source *src, int inside_read)
{
    uint32_t i = offset / 16;

    if (st == ILMAP_E_NOT_FOUND && loc->function_id == 0)
        return m == 0; /* only module 1 is ever unloaded */
    if (loc->function_id != SRC_FID(m) || loc->module_id != SRC_MODULE(m) ||
        loc->native_offset != offset || loc->original_il_offset != 10 * i)
        return 1;
    if (st == ILMAP_E_NOT_FOUND)
        return src->pdb != NULL || src->point.start_line != 0;
    if (st != ILMAP_OK || !src->pdb || src->point.start_line % 1000 != i + 1 ||
        src->point.start_line < 1000 || src->point.start_column != i + 1 ||
        src->point.il_offset != 10 * i || src->point.document != 1)
        return 1;
    if (inside_read) { /* the PDB handed out is alive until the read ends */
        char name[16];
        size_t total;
        if (ilmap_pdb_get_document_name(src->pdb, 1, sizeof name, &total, name, NULL) !=
                ILMAP_OK ||
            strcmp(name, "/src/a.cs") != 0)
            return 1;
    }
    return 0;
}

typedef struct src_reader {
    ilmap_store *s;
    long todo; /* reads to do */
    long reads, answered, bad;
} src_reader;

static void *src_reader_main(void *arg)
{
    src_reader *rd = arg;
    ilmap_store_reader *slot;
    uint32_t n = 0;

    if (ilmap_store_reader_register(rd->s, &slot) != ILMAP_OK) {
        rd->bad++;
        return NULL;
    }
    while (rd->reads < rd->todo) {
        int m = (int)(n % 2);
        uint32_t offset = (n * 7u) % (16 * SRC_POINTS);
        unsigned flags = (n / 2) % 2 ? ILMAP_STORE_RETURN_ADDRESS : 0;
        uintptr_t address = SRC_CODE(m) + offset + (flags ? 1u : 0u);
        ilmap_store_location loc;
        ilmap_store_source src;
        const ilmap_store_snapshot *v;
        ilmap_status st;
        int inside = (n / 4) % 2;

        if (inside) {
            if (ilmap_store_reader_begin(slot, &v) != ILMAP_OK) {
                rd->bad++;
                break;
            }
            st = ilmap_store_snapshot_lookup_source(v, address, flags, &loc, &src);
        } else {
            st = ilmap_store_lookup_source(slot, address, flags, &loc, &src);
        }
        if (src_wrong(m, offset, st, &loc, &src, inside)) {
            if (rd->bad++ == 0)
                fprintf(stderr, "source reader: module %d offset %u: %s, line %u\n", m, offset,
                        ilmap_status_str(st), src.point.start_line);
        }
        if (inside && ilmap_store_reader_end(slot) != ILMAP_OK)
            rd->bad++;
        rd->answered += st == ILMAP_OK;
        rd->reads++;
        n++;
    }
    if (ilmap_store_reader_unregister(slot) != ILMAP_OK)
        rd->bad++;
    return NULL;
}

/* `rounds` PDB rounds race SRC_READERS readers of `reads_each` reads. */
static void run_sources(long rounds, long reads_each)
{
    ilmap_store *s;
    pthread_t writer, readers[SRC_READERS];
    src_reader rd[SRC_READERS];
    src_writer sw;

    if (ilmap_store_create(8, store_flags, &s) != ILMAP_OK || !src_add_module(s, 0) ||
        !src_add_module(s, 1))
        exit(TEST_EXIT_SETUP_FAILURE);
    memset(rd, 0, sizeof rd);
    memset(&sw, 0, sizeof sw);
    sw.s = s;
    sw.todo = (uint32_t)rounds;
    atomic_store(&src_released, 0);
    spawn(&writer, src_writer_main, &sw);
    for (int i = 0; i < SRC_READERS; i++) {
        rd[i].s = s;
        rd[i].todo = reads_each;
        spawn(&readers[i], src_reader_main, &rd[i]);
    }
    pthread_join(writer, NULL);
    long reads = 0, answered = 0;
    for (int i = 0; i < SRC_READERS; i++) {
        pthread_join(readers[i], NULL);
        test_checks += rd[i].reads;
        reads += rd[i].reads;
        answered += rd[i].answered;
        if (rd[i].bad) {
            fprintf(stderr, "source reader %d: %ld wrong answers\n", i, rd[i].bad);
            test_failures++;
        }
    }
    CHECK(sw.bad == 0);
    CHECK(sw.rounds == rounds && reads == SRC_READERS * reads_each);
    ilmap_store_free(s);
    /* Every PDB handed over was released, once. */
    CHECK(atomic_load(&src_released) == sw.attached);
    printf("sources: %ld writer rounds, %ld PDBs attached, %ld reads (%ld with a line)\n",
           sw.rounds, sw.attached, reads, answered);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x5EED0005u);

    /* The counts: each scenario about half a second on 2 idle x86-64
     * cores, readers and writers finishing about together. */
    run_store(1, 1, work(100000), work(1300000), seed);
    run_store(2, 2, work(40000), work(900000), seed + 1);
    run_store(2, 6, work(18000), work(400000), seed + 2);
    run_signals(work(1600));
    run_unload(work(1000), work(300000));
    run_sources(work(20000), work(1500000));
    /* Again with the writers fencing for the readers (where the OS can:
     * otherwise the same as above, and said so). */
    store_flags = ILMAP_STORE_WRITER_FENCE;
    printf("again with ILMAP_STORE_WRITER_FENCE (%s here)\n",
           writer_fence_works() ? "in effect" : "not available: readers fence");
    run_store(2, 2, work(40000), work(900000), seed + 3);
    run_signals(work(1600));
    run_unload(work(1000), work(300000));
    run_sources(work(20000), work(1500000));
    return test_finish("versions-stress");
}
