/*
 * The FunctionIDMapper under threads (doc/function-ids.md#when-called:
 * "multiple threads ... call the same method at the same time ... the profiler
 * should return the same values"): 2, 4 and 8 threads map, look up and reverse
 * FunctionIDs from one pool at random, then all race through the same
 * FunctionIDs in the same order (the worst case: every new FunctionID
 * contended). The sequential model: every call for one FunctionID answers the
 * same, the hook decision is the filter's, a hooked FunctionID never gets 0,
 * client IDs are distinct and reverse to their FunctionID, and the counters add
 * up.
 *
 * Sized by work, never by time: a fixed number of calls per thread and of
 * ordered rounds, an eighth of it where every instruction is slow (qemu-user,
 * sanitizers: test_light(), see work()). A slow or loaded machine makes the
 * test slower, never different; no check depends on speed. The racers of an
 * ordered round and the thread starting them wait for each other with polls
 * that yield (wait_until_set()), never a bare spin: where threads outnumber
 * cores (qemu-user on a loaded machine) a spin can take the CPU from the very
 * thread it waits for.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "ilmap-versions.h"
#include "test.h"

#include "test-tsan.h"

#define POOL 3000
#define MAX_THREADS 8
#define ORDERED 4000

/* The work of a scenario: `normal` where instructions run at full speed
 * (about 3 s for the whole test on 2 idle x86-64 cores), an eighth where
 * each one is slow (test_light(): under qemu-user, ILMAP_TEST_ITERATIONS
 * set by test/meson.build for cross builds, or with a sanitizer compiled
 * in). Fixed either way. */
#define LIGHT_DIVISOR 8

static long work(long normal)
{
    long n = test_light() ? normal / LIGHT_DIVISOR : normal;
    return n > 0 ? n : 1;
}

static atomic_long filter_calls;

static uintptr_t fid_at(size_t i)
{
    return TEST_ID_BASE(0x7F4000000000ull, 0x74000000u) + ((uintptr_t)i << 5);
}

/* Deterministic, so the model knows every decision. */
static int want_hook(uintptr_t fid)
{
    return ((fid >> 5) * 0x9E3779B1u >> 7) % 4 != 0;
}

static int filter(void *context, ilmap_function_id fid)
{
    (void)context;
    atomic_fetch_add_explicit(&filter_calls, 1, memory_order_relaxed);
    return want_hook(fid);
}

/* What a FunctionID's first answer was: 0 none yet; 1 unhooked;
 * client ID << 2 | 3 hooked. */
static _Atomic uintptr_t seen[POOL];

typedef struct worker {
    ilmap_fid_mapper *m;
    prng rng;
    long todo; /* calls to make */
    long calls, bad;
} worker;

static uintptr_t encode(uintptr_t cid, int hook)
{
    return hook ? (cid << 2) | 3u : 1u;
}

static void record(worker *t, size_t i, uintptr_t cid, int hook)
{
    uintptr_t fid = fid_at(i);

    if (hook != want_hook(fid) || (hook && cid == 0) || (!hook && cid != 0)) {
        t->bad++;
        return;
    }
    uintptr_t expected = 0, v = encode(cid, hook);
    if (!atomic_compare_exchange_strong(&seen[i], &expected, v) && expected != v)
        t->bad++;
}

static void *random_main(void *arg)
{
    worker *t = arg;
    uintptr_t cid, back;
    int hook;

    while (t->calls < t->todo) {
        size_t i = prng_below(&t->rng, POOL);
        uintptr_t fid = fid_at(i);
        uint32_t dice = prng_below(&t->rng, 10);
        t->calls++;
        if (dice < 5) {
            if (ilmap_fid_mapper_map(t->m, fid, &cid, &hook) != ILMAP_OK)
                t->bad++;
            else
                record(t, i, cid, hook);
        } else if (dice < 7) {
            int32_t bhook = 7;
            uintptr_t r = ilmap_fid_mapper_callback2(fid, t->m, &bhook);
            if (bhook != 0 && bhook != 1)
                t->bad++;
            else if (!bhook && r != fid)
                t->bad++;
            else
                record(t, i, bhook ? r : 0, bhook);
        } else {
            uintptr_t v = atomic_load(&seen[i]);
            ilmap_status st = ilmap_fid_mapper_lookup(t->m, fid, &cid, &hook);
            if (v == 0) {
                /* Maybe being mapped right now: either answer, but a
                 * found one must be right. */
                if (st == ILMAP_OK && (hook != want_hook(fid) || (hook && cid == 0)))
                    t->bad++;
                continue;
            }
            if (st != ILMAP_OK || encode(cid, hook) != v)
                t->bad++;
            if (hook &&
                (ilmap_fid_mapper_get_function(t->m, cid, &back) != ILMAP_OK || back != fid))
                t->bad++;
        }
    }
    return NULL;
}

static void spawn(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    if (pthread_create(thread, NULL, fn, arg) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(TEST_EXIT_SETUP_FAILURE);
    }
}

/* Client IDs: dense (each of 1..hooked exactly once), reversing to their
 * FunctionID; the counters agree with what the threads saw. */
static void check_ids(ilmap_fid_mapper *m, const uintptr_t *answers, size_t n, size_t max)
{
    ilmap_fid_mapper_stats stats;
    unsigned char *used = calloc(max + 1, 1);
    size_t mapped = 0, hooked = 0;

    CHECK(used != NULL && ilmap_fid_mapper_get_stats(m, &stats) == ILMAP_OK);
    if (!used)
        return;
    for (size_t i = 0; i < n; i++) {
        uintptr_t v = answers[i], cid = v >> 2, back;
        if (!v)
            continue;
        mapped++;
        if (v == 1)
            continue;
        hooked++;
        test_checks++;
        if (cid == 0 || cid > stats.hooked || used[cid] ||
            ilmap_fid_mapper_get_function(m, cid, &back) != ILMAP_OK || back != fid_at(i)) {
            test_failures++;
            fprintf(stderr, "FunctionID %zu: client ID %zu wrong or taken twice\n", i, (size_t)cid);
        } else {
            used[cid] = 1;
        }
    }
    CHECK(stats.mapped == mapped && stats.hooked == hooked && stats.refused == 0);
    for (size_t cid = 1; cid <= hooked && cid <= max; cid++) {
        if (!used[cid]) {
            CHECK(!"client IDs are dense");
            break;
        }
    }
    free(used);
}

/* `threads` threads of `calls_each` calls each. */
static void run_random(int threads, long calls_each, uint64_t seed)
{
    ilmap_fid_mapper *m;
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    uintptr_t answers[POOL];

    CHECK(ilmap_fid_mapper_create(4 * POOL, filter, NULL, &m) == ILMAP_OK);
    for (size_t i = 0; i < POOL; i++)
        atomic_store(&seen[i], 0);
    atomic_store(&filter_calls, 0);
    for (int i = 0; i < threads; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].m = m;
        w[i].rng = prng_init(seed + 31u * (uint64_t)(i + 1));
        w[i].todo = calls_each;
        spawn(&tid[i], random_main, &w[i]);
    }

    long calls = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        calls += w[i].calls;
        test_checks += w[i].calls;
        if (w[i].bad) {
            fprintf(stderr, "thread %d: %ld wrong answers\n", i, w[i].bad);
            test_failures++;
        }
    }
    CHECK(calls == (long)threads * calls_each);
    for (size_t i = 0; i < POOL; i++)
        answers[i] = atomic_load(&seen[i]);
    check_ids(m, answers, POOL, 4 * POOL);
    ilmap_fid_mapper_stats stats;
    ilmap_fid_mapper_get_stats(m, &stats);
    CHECK(atomic_load(&filter_calls) >= (long)stats.mapped);
    printf("random: %d threads, %ld calls, %zu mapped, %zu hooked, %ld filter calls\n", threads,
           calls, stats.mapped, stats.hooked, atomic_load(&filter_calls));
    ilmap_fid_mapper_free(m);
}

typedef struct racer {
    ilmap_fid_mapper *m;
    atomic_int *arrived, *go;
    uintptr_t *got; /* ORDERED answers, encoded */
    long bad;
} racer;

/* Until *flag is set by another thread: polls, to start the moment it is
 * set, and yields every few polls, so that the threads it waits for get a
 * CPU where threads outnumber cores. */
static void wait_until_set(atomic_int *flag)
{
    for (unsigned polls = 1; !atomic_load(flag); polls++) {
        if (polls % 64 == 0)
            sched_yield();
    }
}

static void *ordered_main(void *arg)
{
    racer *t = arg;

    /* The round starts once every racer is running: a racer still being
     * created (slow under qemu-user) would find the work done. */
    atomic_fetch_add(t->arrived, 1);
    wait_until_set(t->go);
    for (size_t i = 0; i < ORDERED; i++) {
        int32_t hook = 7;
        uintptr_t fid = fid_at(i), r = ilmap_fid_mapper_callback2(fid, t->m, &hook);
        if ((hook != 0 && hook != 1) || (hook && r == 0) || (!hook && r != fid))
            t->bad++;
        t->got[i] = hook ? encode(r, 1) : encode(0, 0);
    }
    return NULL;
}

/* Every thread maps the same new FunctionIDs in the same order, `rounds`
 * times, each time in a new mapper. */
static void run_ordered(int threads, long rounds)
{
    static uintptr_t got[MAX_THREADS][ORDERED];
    long doubled = 0;

    for (long round = 0; round < rounds; round++) {
        ilmap_fid_mapper *m;
        racer r[MAX_THREADS];
        pthread_t tid[MAX_THREADS];
        atomic_int arrived, go;

        /* Just enough room: ORDERED FunctionIDs, plus what racers may
         * reserve at once; none may be refused. */
        CHECK(ilmap_fid_mapper_create(ORDERED + MAX_THREADS, filter, NULL, &m) == ILMAP_OK);
        atomic_store(&filter_calls, 0);
        atomic_init(&arrived, 0);
        atomic_init(&go, 0);
        for (int i = 0; i < threads; i++) {
            r[i].m = m;
            r[i].arrived = &arrived;
            r[i].go = &go;
            r[i].got = got[i];
            r[i].bad = 0;
            spawn(&tid[i], ordered_main, &r[i]);
        }
        while (atomic_load(&arrived) < threads)
            sched_yield();
        atomic_store(&go, 1);
        for (int i = 0; i < threads; i++) {
            pthread_join(tid[i], NULL);
            CHECK(r[i].bad == 0);
        }
        for (size_t k = 0; k < ORDERED; k++) {
            test_checks++;
            for (int i = 1; i < threads; i++) {
                if (got[i][k] != got[0][k]) {
                    test_failures++;
                    fprintf(stderr, "FunctionID %zu: threads 0 and %d got different answers\n", k,
                            i);
                    break;
                }
            }
            if ((got[0][k] != 1) != want_hook(fid_at(k)))
                CHECK(!"the filter's decision");
        }
        check_ids(m, got[0], ORDERED, ORDERED + MAX_THREADS);
        doubled += atomic_load(&filter_calls) - ORDERED;
        ilmap_fid_mapper_free(m);
    }
    printf("ordered: %d threads, %ld rounds of %d FunctionIDs, %ld filter calls by racers\n",
           threads, rounds, ORDERED, doubled);
}

int main(int argc, char **argv)
{
    uint64_t seed = test_seed(argc, argv, 0x5EED0007u);

    /* For 2, 4 and 8 threads alike: the same number of random calls in all
     * (about half a second on 2 idle x86-64 cores), and the same number of
     * ordered calls in all (rounds x threads; a round costs a few
     * scheduler time slices more on a loaded machine: its racers start
     * together). */
    for (int threads = 2; threads <= 8; threads *= 2) {
        run_random(threads, work(40000000) / threads, seed + (uint64_t)threads);
        run_ordered(threads, work(480) / threads);
    }
    return test_finish("fid-mapper-stress");
}
