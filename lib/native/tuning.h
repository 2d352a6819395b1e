/*
 * The native maps' tunables, in one place: which form a map gets and how
 * much memory its block may take. Each was measured
 * (doc/performance.md#native-memory); the limits that follow from a
 * field's width (6-bit counts, 16-bit answer words) stay with their
 * layouts in native.h, and the static assertions below tie the two.
 */
#ifndef ILMAP_NATIVE_TUNING_H
#define ILMAP_NATIVE_TUNING_H

#include <stdint.h>

#include "ilmap.h"

/* Entries up to which a map without call sites is scanned (every entry
 * tested), and up to which it keeps no bucket table (the small form). */
#define NATIVE_SCAN_MAX 2u
#define NATIVE_SMALL_MAX 32u

/* Keys, and normal entries, up to which a small map counts in one step
 * (NATIVE_SMALL_ONE: one count8_u32 of index/count.h), and normal
 * entries up to which it may keep a tiny IL -> native table (one
 * count8_u16). */
#define NATIVE_ONE_MAX 8u

/* Keys compared at once in a bucket window (one count4_u32). */
#define NATIVE_WINDOW 4u

/* A map's block, the allocator's rounding included, takes at most
 * NATIVE_MEMORY_FACTOR times the exported array of
 * COR_DEBUG_IL_TO_NATIVE_MAP entries (12 bytes each); a form or a table
 * that would take more is not chosen. */
#define NATIVE_MEMORY_FACTOR 2u

static inline uint64_t native_memory_bound(uint32_t count)
{
    return (uint64_t)NATIVE_MEMORY_FACTOR * sizeof(ilmap_native_entry) * count;
}

_Static_assert(sizeof(ilmap_native_entry) == 12, "an exported entry is three 32-bit words");
_Static_assert(NATIVE_SCAN_MAX < NATIVE_SMALL_MAX, "the scan form comes first");
_Static_assert(NATIVE_SMALL_MAX <= 32, "a scan map's hits are one 32-bit mask (scan.c)");
_Static_assert(NATIVE_ONE_MAX == 8, "one count8_u32 / count8_u16 step (index/count.h)");
_Static_assert(NATIVE_WINDOW == 4, "a bucket window is one count4_u32 (index/count.h)");

#endif
