/*
 * libilmap: where did this IL offset go?
 *
 * Exact, validated and fast answers to the questions a .NET profiler,
 * coverage tool, tracer or debugger back-end asks about IL offset maps:
 * COR_IL_MAP (original IL <-> instrumented IL, SetILInstrumentedCodeMap)
 * and COR_DEBUG_IL_TO_NATIVE_MAP (IL <-> native code,
 * GetILToNativeMapping2).
 *
 * Every answer is bit-exact with the .NET runtime's rules; the rule each
 * function follows is named at its declaration with a reference to
 * "runtime-semantics.md" (the project's specification, section numbers
 * given as "spec §N").
 *
 * Conventions for every function in this header:
 *  - Functions that can fail return an ilmap_status; ILMAP_OK is 0.
 *  - They check every argument and never abort. On failure every output
 *    parameter is still written with a defined value (NULL, 0, or
 *    ILMAP_NO_INDEX), as each declaration says.
 *  - Objects are opaque, created by a create or build function and released by
 *    the matching free function, which accepts NULL.
 *  - A built object is immutable: any number of threads may query it at
 *    once without locks. Queries allocate nothing and take no locks, so
 *    they are safe to call from a signal handler.
 *  - libilmap has no global mutable state.
 */
#ifndef ILMAP_H
#define ILMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------
 * Build plumbing
 * ------------------------------------------------------------------ */

#if defined(_WIN32) && !defined(ILMAP_STATIC)
#  if defined(ILMAP_BUILDING)
#    define ILMAP_EXPORT __declspec(dllexport)
#  else
#    define ILMAP_EXPORT __declspec(dllimport)
#  endif
#elif defined(__GNUC__) || defined(__clang__)
#  define ILMAP_EXPORT __attribute__((visibility("default")))
#else
#  define ILMAP_EXPORT
#endif

#define ILMAP_VERSION_MAJOR 0
#define ILMAP_VERSION_MINOR 1
#define ILMAP_VERSION_MICRO 0

/** The library's version as "MAJOR.MINOR.MICRO"; static storage. */
ILMAP_EXPORT const char *ilmap_version(void);

/* ---------------------------------------------------------------------
 * Status codes
 * ------------------------------------------------------------------ */

typedef enum ilmap_status {
    ILMAP_OK = 0,
    /** A NULL pointer where one is required, an unknown flag, or a count
     *  too large to index (see ILMAP_MAX_ENTRIES). */
    ILMAP_E_INVALID_ARG = 1,
    /** A strict map is not strictly ascending in old_offset and in
     *  new_offset; ilmap_diagnose() says which column and how. */
    ILMAP_E_UNSORTED = 2,
    /** Memory allocation failed; nothing was built. */
    ILMAP_E_NOMEM = 3
} ilmap_status;

/**
 * A short English description of a status ("invalid argument", ...).
 * Never NULL: an unknown value gives "unknown status". Static storage,
 * thread-safe.
 */
ILMAP_EXPORT const char *ilmap_status_str(ilmap_status status);

/* ---------------------------------------------------------------------
 * COR_IL_MAP: original IL <-> instrumented IL
 * ------------------------------------------------------------------ */

/** Special IL offsets (spec §1, MappingTypes), as stored in unsigned
 *  32-bit fields. */
#define ILMAP_NO_MAPPING 0xFFFFFFFFu
#define ILMAP_PROLOG     0xFFFFFFFEu
#define ILMAP_EPILOG     0xFFFFFFFDu

/** "No offending entry" in the bad_index outputs below. */
#define ILMAP_NO_INDEX ((size_t)-1)

/**
 * The largest entry count accepted: the runtime's own limit for
 * SetILInstrumentedCodeMap (a count >= 0x15555555 is E_INVALIDARG there,
 * spec §2), so every map libilmap accepts can be handed to the runtime.
 */
#define ILMAP_MAX_ENTRIES 0x15555554u

/**
 * One COR_IL_MAP entry, byte for byte: a profiler's COR_IL_MAP array can be
 * passed as an ilmap_entry array without copying (spec §1, layout).
 * `accurate` (fAccurate) is carried, never interpreted: the runtime reads
 * it nowhere.
 */
typedef struct ilmap_entry {
    uint32_t old_offset; /**< offset in the original IL */
    uint32_t new_offset; /**< offset in the instrumented IL */
    int32_t accurate;    /**< fAccurate (a Win32 BOOL) */
} ilmap_entry;

#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(ilmap_entry) == 12, "ilmap_entry must match COR_IL_MAP");
static_assert(offsetof(ilmap_entry, new_offset) == 4, "ilmap_entry must match COR_IL_MAP");
static_assert(offsetof(ilmap_entry, accurate) == 8, "ilmap_entry must match COR_IL_MAP");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(ilmap_entry) == 12, "ilmap_entry must match COR_IL_MAP");
_Static_assert(offsetof(ilmap_entry, new_offset) == 4, "ilmap_entry must match COR_IL_MAP");
_Static_assert(offsetof(ilmap_entry, accurate) == 8, "ilmap_entry must match COR_IL_MAP");
#endif

/** An immutable, indexed COR_IL_MAP. */
typedef struct ilmap ilmap;

/** Flags for ilmap_create(). */
enum ilmap_create_flags {
    /** Accept any array (unsorted, duplicate keys, non-monotone) and
     *  answer every lookup exactly as the runtime's linear scan does
     *  (spec decision 2): for equal keys the last one wins. */
    ILMAP_LENIENT = 1u << 0,
    /** Do not use AVX2 even where the CPU has it (testing, comparisons). */
    ILMAP_NO_AVX2 = 1u << 8,
    /** Use only the portable scalar code (no SIMD at all). */
    ILMAP_PORTABLE = 1u << 9
};

/** Why ilmap_diagnose() rejects an array as a strict map. */
typedef enum ilmap_defect {
    ILMAP_DEFECT_NONE = 0,
    /** old_offset[i] < old_offset[i-1] */
    ILMAP_DEFECT_OLD_DESCENDING = 1,
    /** old_offset[i] == old_offset[i-1] */
    ILMAP_DEFECT_OLD_DUPLICATE = 2,
    /** new_offset[i] < new_offset[i-1] */
    ILMAP_DEFECT_NEW_DESCENDING = 3,
    /** new_offset[i] == new_offset[i-1] */
    ILMAP_DEFECT_NEW_DUPLICATE = 4,
    /** entries is NULL with count > 0, or count > ILMAP_MAX_ENTRIES */
    ILMAP_DEFECT_BAD_ARGUMENT = 5
} ilmap_defect;

/** A one-line description of a defect; never NULL, static storage. */
ILMAP_EXPORT const char *ilmap_defect_str(ilmap_defect defect);

/**
 * Checks that entries[0..count) form a strict map: strictly ascending in
 * old_offset AND in new_offset (spec decision 2; what the runtime assumes
 * and never checks). Keys equal to the special values are allowed (spec
 * decision 7). An empty array is valid.
 *
 * @param bad_index  optional; receives the first offending index (the
 *                   second of the two entries out of order), or
 *                   ILMAP_NO_INDEX when the array is valid or an argument
 *                   is bad.
 * @return ILMAP_OK; ILMAP_E_UNSORTED (order violated);
 *         ILMAP_E_INVALID_ARG (entries NULL with count > 0, or
 *         count > ILMAP_MAX_ENTRIES).
 * Pure function, thread-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_validate(const ilmap_entry *entries, size_t count,
                                         size_t *bad_index);

/**
 * The same check as ilmap_validate(), telling why: which column and
 * whether it descends or repeats. The old column is checked before the new
 * one at each index, and the lowest offending index is reported.
 * @param bad_index optional, as for ilmap_validate().
 */
ILMAP_EXPORT ilmap_defect ilmap_diagnose(const ilmap_entry *entries, size_t count,
                                         size_t *bad_index);

/**
 * Builds an indexed map from entries[0..count).
 *
 * flags 0: strict. The array must pass ilmap_validate(), else
 * ILMAP_E_UNSORTED. ILMAP_LENIENT: any array is accepted and every lookup
 * answers what the runtime's linear scan answers for that array. count 0
 * is a valid empty map (identity). The map copies what it needs: the
 * caller's array may be freed as soon as this returns. Building takes
 * O(count) time and, for a strict map, less than 2x the input's bytes.
 *
 * @param out  receives the map, or NULL on any failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, entries NULL with
 *         count > 0, count > ILMAP_MAX_ENTRIES, unknown flag);
 *         ILMAP_E_UNSORTED (strict and not strictly ascending);
 *         ILMAP_E_NOMEM.
 * Thread-safe (no shared state).
 */
ILMAP_EXPORT ilmap_status ilmap_create(const ilmap_entry *entries, size_t count,
                                       unsigned flags, ilmap **out);

/** Releases a map. NULL is a no-op. The map must not be in use. */
ILMAP_EXPORT void ilmap_free(ilmap *map);

/**
 * Original IL offset -> instrumented IL offset, the in-process debugger's
 * rules (TranslateToInstIL, spec §1), keyed on old_offset:
 *  1. empty or NULL map: the input, unchanged;
 *  2. input below the first entry's old_offset, or ILMAP_PROLOG: PROLOG;
 *  3. ILMAP_EPILOG and ILMAP_NO_MAPPING: unchanged;
 *  4. otherwise the new_offset of the last entry (in scan order) before
 *     the first later entry whose key exceeds the input: for a strict map,
 *     the entry with the greatest old_offset <= input (round down, no
 *     interpolation; inputs past the last entry clamp to it).
 * Thread-safe, lock-free, allocation-free, async-signal-safe.
 */
ILMAP_EXPORT uint32_t ilmap_old_to_new(const ilmap *map, uint32_t old_offset);

/** Instrumented -> original IL offset, the in-process rules of
 *  ilmap_old_to_new() keyed on new_offset (spec §1). Same guarantees. */
ILMAP_EXPORT uint32_t ilmap_new_to_old(const ilmap *map, uint32_t new_offset);

/**
 * Instrumented -> original IL offset, the ICorDebug/DAC rules
 * (TranslateInstrumentedILOffsetToOriginal, spec §1, decision 1): an empty
 * or NULL map, or an input >= 0x80000000 (specials included), gives the
 * input unchanged; there is NO prolog rule, so an input below the first
 * entry's new_offset maps to the first entry's old_offset; otherwise the
 * scan of ilmap_new_to_old(). Same guarantees.
 */
ILMAP_EXPORT uint32_t ilmap_new_to_old_dac(const ilmap *map, uint32_t new_offset);

/**
 * out[i] = ilmap_old_to_new(map, in[i]) for i in [0, n). Any order of
 * queries is fine; runs of queries that fall between the same two keys
 * (as sorted queries do) are answered without searching. in and out may
 * be the same array (in place); otherwise they must not overlap. in or out
 * NULL with n > 0: nothing is done (there is nothing defined to write).
 * Same guarantees as the single lookups.
 */
ILMAP_EXPORT void ilmap_old_to_new_batch(const ilmap *map, const uint32_t *in,
                                         uint32_t *out, size_t n);

/** The batch form of ilmap_new_to_old(); as ilmap_old_to_new_batch(). */
ILMAP_EXPORT void ilmap_new_to_old_batch(const ilmap *map, const uint32_t *in,
                                         uint32_t *out, size_t n);

/** The number of entries the map was built from (0 for NULL). */
ILMAP_EXPORT size_t ilmap_count(const ilmap *map);

/** Non-zero when the map was built with ILMAP_LENIENT (0 for NULL). */
ILMAP_EXPORT int ilmap_is_lenient(const ilmap *map);

/**
 * The map's entries as given to ilmap_create() (same order, same
 * accurate values), with the two-call protocol of spec §4: *total
 * receives the entry count; min(cap, count) entries are copied.
 * A size query is (cap 0, out NULL); total may be NULL when cap is 0
 * (nothing reported), as the runtime allows.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG when cap > 0 and out or total is
 *         NULL (nothing is copied; *total is still written when total is
 *         not NULL). A NULL map has 0 entries.
 */
ILMAP_EXPORT ilmap_status ilmap_entries(const ilmap *map, size_t cap, size_t *total,
                                        ilmap_entry *out);

/** Bytes of memory the map holds, its own struct included (0 for NULL). */
ILMAP_EXPORT size_t ilmap_memory_bytes(const ilmap *map);

/** Which lookup code the map uses: "avx2", "sse2" or "portable". */
ILMAP_EXPORT const char *ilmap_implementation(const ilmap *map);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_H */
