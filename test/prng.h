/*
 * The one PRNG of the tests and the benchmarks: xorshift64* (Vigna).
 * Small, fast, and the same sequence on every platform, so that a seed
 * replays a test case or rebuilds a benchmark's maps and queries exactly.
 * Header-only and dependency-free: test/test.h and bench/bench.h both
 * include it (the benchmarks from test/, never the other way round).
 */
#ifndef ILMAP_PRNG_H
#define ILMAP_PRNG_H

#include <stdint.h>

typedef struct prng {
    uint64_t state;
} prng;

/* A generator seeded with seed; 0, a fixed point of xorshift, stands for
 * a fixed non-zero seed. */
static inline prng prng_init(uint64_t seed)
{
    prng rng = { seed ? seed : 0x9E3779B97F4A7C15ull };
    return rng;
}

static inline uint64_t prng_next(prng *rng)
{
    uint64_t x = rng->state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* The high 32 bits of the next value. */
static inline uint32_t prng_u32(prng *rng)
{
    return (uint32_t)(prng_next(rng) >> 32);
}

/* Uniform in [0, bound), bound > 0: a multiply-shift of the high bits,
 * which avoids the modulo's division and its bias toward small values. */
static inline uint32_t prng_below(prng *rng, uint32_t bound)
{
    return (uint32_t)(((uint64_t)prng_u32(rng) * bound) >> 32);
}

#endif
