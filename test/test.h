/*
 * Shared test helpers: checks that report file:line and keep going, the
 * seed of the PRNG (prng.h; pixman style: fixed default seed,
 * ILMAP_TEST_SEED or argv overrides it, the seed is printed so a failure
 * can be replayed), and the exit codes Meson understands (77 = skipped,
 * 99 = setup failure).
 */
#ifndef ILMAP_TEST_H
#define ILMAP_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

#define TEST_EXIT_SKIP 77

/* Pointer-like IDs (FunctionID, ModuleID) that fit uintptr_t: a high
 * address on 64-bit hosts, as the runtime's are; a base below 2^31 on
 * 32-bit hosts (i686), where the 64-bit constant would truncate to 0. */
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TEST_ID_BASE(base64, base32) ((uintptr_t)(base64))
#else
#define TEST_ID_BASE(base64, base32) ((uintptr_t)(base32))
#endif
#define TEST_EXIT_SETUP_FAILURE 99

static int test_failures;
static long test_checks;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        test_checks++;                                                                 \
        if (!(cond)) {                                                                 \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                              \
    } while (0)

#define CHECK_EQ_U32(got, want)                                                        \
    do {                                                                               \
        uint32_t got_ = (got), want_ = (want);                                         \
        test_checks++;                                                                 \
        if (got_ != want_) {                                                           \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: %s = 0x%08" PRIX32 ", want 0x%08" PRIX32 "\n",     \
                    __FILE__, __LINE__, #got, got_, want_);                            \
        }                                                                              \
    } while (0)

/* A call's status against the one wanted (for the tests that include
 * ilmap.h first). */
#define CHECK_ST(expr, want)                                                                 \
    do {                                                                                     \
        ilmap_status st_ = (expr);                                                           \
        test_checks++;                                                                       \
        if (st_ != (want)) {                                                                 \
            test_failures++;                                                                 \
            fprintf(stderr, "%s:%d: %s = %s, want %s\n", __FILE__, __LINE__, #expr,         \
                    ilmap_status_str(st_), ilmap_status_str(want));                          \
        }                                                                                    \
    } while (0)

/* Ends the test: prints a summary line and returns the exit code. */
static inline int test_finish(const char *name)
{
    printf("%s: %ld checks, %d failed\n", name, test_checks, test_failures);
    return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* The seed: argv[1] if given, else $ILMAP_TEST_SEED, else the default.
 * Printed so that any failure can be replayed. */
static inline uint64_t test_seed(int argc, char **argv, uint64_t fallback)
{
    const char *text = argc > 1 ? argv[1] : getenv("ILMAP_TEST_SEED");
    uint64_t seed = text && *text ? strtoull(text, NULL, 0) : fallback;
    printf("seed 0x%016" PRIX64 " (replay: pass it as argv[1] or ILMAP_TEST_SEED)\n", seed);
    return seed;
}

/* How many rounds a randomized test runs: its own count, or the cap in
 * ILMAP_TEST_ITERATIONS when smaller (test/meson.build sets it for cross
 * builds, run under an emulator). The seed, and so the cases, stay. */
static inline long test_iterations(long normal)
{
    const char *text = getenv("ILMAP_TEST_ITERATIONS");
    long cap = text ? strtol(text, NULL, 0) : 0;
    return cap > 0 && cap < normal ? cap : normal;
}

/* Whether to run the lighter sizes of a test: where every instruction is
 * slow (ILMAP_TEST_ITERATIONS set, or a sanitizer compiled in). */
static inline int test_light(void)
{
    int light = getenv("ILMAP_TEST_ITERATIONS") != NULL;
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    light = 1;
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
    light = 1;
#endif
#endif
    return light;
}

/* The buffer protocol's checks, for the tests that include ilmap.h first. */
#ifdef ILMAP_H

/* One copy-out call with the buffer protocol (ilmap.h): the call under
 * test with its object and keys bound in ctx. */
typedef ilmap_status (*test_copy_out_fn)(void *ctx, size_t cap, size_t *total, void *out);

#define TEST_SENTINEL 0xA5

static inline int test_untouched(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != TEST_SENTINEL)
            return 0;
    return 1;
}

#define CHECK_PROTOCOL(what, cond)                                                     \
    do {                                                                               \
        test_checks++;                                                                 \
        if (!(cond)) {                                                                 \
            test_failures++;                                                           \
            fprintf(stderr, "%s:%d: %s: cap %zu: check failed: %s\n", __FILE__,        \
                    __LINE__, what, cap, #cond);                                       \
        }                                                                              \
    } while (0)

/* Checks the buffer protocol on fn, which must give the `count` items of
 * `size` bytes at `want`: a size query, cap 0 with a buffer, exact and
 * larger fills, every truncated fill (ILMAP_E_TRUNCATED, exactly cap items
 * written, the rest of the buffer untouched), cap > 0 with a NULL buffer,
 * and a NULL total. */
static inline void test_copy_out_protocol(const char *what, test_copy_out_fn fn, void *ctx,
                                          const void *want, size_t count, size_t size)
{
    size_t room = (count + 2) * size;
    unsigned char *buf = malloc(room);
    size_t total, cap = 0;

    if (!buf)
        exit(TEST_EXIT_SETUP_FAILURE);
    /* size query */
    total = 12345;
    CHECK_PROTOCOL(what, fn(ctx, 0, &total, NULL) == ILMAP_OK && total == count);
    /* cap 0 with a buffer: nothing written */
    memset(buf, TEST_SENTINEL, room);
    total = 12345;
    CHECK_PROTOCOL(what, fn(ctx, 0, &total, buf) == ILMAP_OK && total == count);
    CHECK_PROTOCOL(what, test_untouched(buf, room));
    /* every cap from 1 to count + 2: truncated below count, complete from it */
    for (cap = 1; cap <= count + 2; cap++) {
        size_t n = cap < count ? cap : count;
        memset(buf, TEST_SENTINEL, room);
        total = 12345;
        ilmap_status st = fn(ctx, cap, &total, buf);
        CHECK_PROTOCOL(what, st == (cap < count ? ILMAP_E_TRUNCATED : ILMAP_OK));
        CHECK_PROTOCOL(what, total == count);
        CHECK_PROTOCOL(what, n == 0 || memcmp(buf, want, n * size) == 0);
        CHECK_PROTOCOL(what, test_untouched(buf + n * size, room - n * size));
        /* large counts: the first few caps and the last few suffice */
        if (cap == 8 && count > 24)
            cap = count - 8;
    }
    /* cap > 0 with a NULL buffer */
    cap = 1;
    total = 12345;
    CHECK_PROTOCOL(what, fn(ctx, 1, &total, NULL) == ILMAP_E_INVALID_ARG && total == 0);
    /* a NULL total, with and without a buffer */
    memset(buf, TEST_SENTINEL, room);
    cap = 0;
    CHECK_PROTOCOL(what, fn(ctx, 0, NULL, NULL) == ILMAP_E_INVALID_ARG);
    cap = count + 2;
    CHECK_PROTOCOL(what, fn(ctx, count + 2, NULL, buf) == ILMAP_E_INVALID_ARG);
    CHECK_PROTOCOL(what, test_untouched(buf, room));
    free(buf);
}

#endif /* ILMAP_H */

#endif
