/*
 * Shared test helpers: checks that report file:line and keep going, a
 * seeded PRNG (pixman style: fixed default seed, ILMAP_TEST_SEED or argv
 * overrides it, the seed is printed so a failure can be replayed), and the
 * exit codes Meson understands (77 = skipped, 99 = setup failure).
 */
#ifndef ILMAP_TEST_H
#define ILMAP_TEST_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define TEST_EXIT_SKIP 77
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

/* Ends the test: prints a summary line and returns the exit code. */
static inline int test_finish(const char *name)
{
    printf("%s: %ld checks, %d failed\n", name, test_checks, test_failures);
    return test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* xorshift64*: small, fast, and the same on every platform. */
typedef struct test_rng {
    uint64_t state;
} test_rng;

static inline void test_rng_seed(test_rng *rng, uint64_t seed)
{
    rng->state = seed ? seed : 0x9E3779B97F4A7C15ull;
}

static inline uint64_t test_rng_next(test_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t test_rng_u32(test_rng *rng)
{
    return (uint32_t)(test_rng_next(rng) >> 32);
}

/* Uniform in [0, bound); bound > 0. */
static inline uint32_t test_rng_below(test_rng *rng, uint32_t bound)
{
    return (uint32_t)(((test_rng_next(rng) >> 32) * (uint64_t)bound) >> 32);
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

#endif
