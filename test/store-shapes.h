/*
 * The shapes of a profiler's bodies, shared by bench-store (which times
 * them) and test-versions (which holds the compact store's memory bound
 * on them): a body of 32 B to 16 KiB of code (log-uniform), a native map
 * of one entry per ~24 bytes of code (2 to 400 entries: prolog, normal
 * entries, epilog), an IL map of 48 entries on 60% of versions.
 */
#ifndef ILMAP_TEST_STORE_SHAPES_H
#define ILMAP_TEST_STORE_SHAPES_H

#include <stdint.h>

#include "ilmap.h"
#include "prng.h"

#define SHAPE_MIN_BODY 32u
#define SHAPE_MAX_BODY 16384u
#define SHAPE_MAX_NATIVE 400u
#define SHAPE_IL_ENTRIES 48u

/* A body's code size: a random octave of [32, 16384), uniform inside. */
static inline uint32_t shape_body_size(prng *rng)
{
    uint32_t octave = SHAPE_MIN_BODY << prng_below(rng, 9);
    return octave + prng_below(rng, octave);
}

/* How many native map entries a body of size bytes has. */
static inline uint32_t shape_native_count(uint32_t size)
{
    uint32_t n = size / 24u;
    return n < 2 ? 2 : n > SHAPE_MAX_NATIVE ? SHAPE_MAX_NATIVE : n;
}

/* The body's native map entries into e (shape_native_count(size) of
 * them): prolog, normal entries over the code, epilog. */
static inline uint32_t shape_native_entries(uint32_t size, uint32_t seed, ilmap_native_entry *e)
{
    uint32_t n = shape_native_count(size), step = size / n;
    for (uint32_t i = 0; i < n; i++) {
        e[i].il_offset = i == 0 ? ILMAP_PROLOG : i == n - 1 ? ILMAP_EPILOG : i * 6 + seed % 5;
        e[i].native_start = i * step;
        e[i].native_end = i == n - 1 ? size : (i + 1) * step;
    }
    return n;
}

/* Function f's version rejit IL map into e: SHAPE_IL_ENTRIES entries for
 * 60% of versions, 0 (no map) for the rest. */
static inline uint32_t shape_il_entries(uint32_t f, uint32_t rejit, ilmap_entry *e)
{
    if ((f * 7u + rejit * 3u) % 10u >= 6u)
        return 0;
    uint32_t shift = 4 + (f + rejit) % 9;
    for (uint32_t i = 0; i < SHAPE_IL_ENTRIES; i++) {
        e[i].old_offset = i * 6;
        e[i].new_offset = i * 6 + (i ? shift + i / 8 : 0);
        e[i].accurate = 1;
    }
    return SHAPE_IL_ENTRIES;
}

#endif
