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
 * function follows is named at its declaration with a reference into
 * the project's specification, doc/ (cited as doc/FILE.md#anchor).
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
 *  - libilmap has no global mutable state, with one documented exception:
 *    the global FunctionIDMapper pointer set by ilmap_fid_mapper_set_global()
 *    (ilmap-versions.h), an atomic pointer read only by
 *    ilmap_fid_mapper_callback().
 *  - Every call that copies items out to a caller's buffer follows one
 *    buffer protocol, (size_t cap, size_t *total, T *out), in that order
 *    after the object and any key arguments:
 *      * total must not be NULL (else ILMAP_E_INVALID_ARG);
 *      * *total receives the full item count on ILMAP_OK and on
 *        ILMAP_E_TRUNCATED, 0 on any other error;
 *      * cap 0 is a size query: out may be NULL, ILMAP_OK;
 *      * cap > 0 with out NULL is ILMAP_E_INVALID_ARG;
 *      * the first min(cap, *total) items are written to out, and nothing
 *        past them is touched;
 *      * cap >= *total gives ILMAP_OK, cap < *total ILMAP_E_TRUNCATED (the
 *        buffer holds the first cap items).
 *    Byte buffers (ilmap_serialize()) follow it with items = bytes.
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
#define ILMAP_VERSION_MINOR 2
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
     *  new_offset; ilmap_validate() says which column and how. */
    ILMAP_E_UNSORTED = 2,
    /** Memory allocation failed; nothing was built. */
    ILMAP_E_NOMEM = 3,
    /** A lookup found no entry (IL-to-native maps: no floor entry, no
     *  call site at that offset). */
    ILMAP_E_NOT_FOUND = 4,
    /** JIT boundaries are not in non-decreasing native order;
     *  ilmap_native_validate_boundaries() says where. */
    ILMAP_E_NATIVE_ORDER = 5,
    /** A native offset lies beyond the code size, or a native map's code
     *  size is not the body's (ilmap_store_add_body()). */
    ILMAP_E_CODE_SIZE = 6,
    /** A native range starts after its end. */
    ILMAP_E_BAD_RANGE = 7,
    /** Two native ranges overlap; ilmap_native_validate() says which. */
    ILMAP_E_OVERLAP = 8,
    /** IL code holds a byte that starts no ECMA-335 opcode (ilmap-il.h). */
    ILMAP_E_IL_OPCODE = 9,
    /** IL code, a method header, an EH section or an operand runs past
     *  the end of the bytes given (ilmap-il.h). */
    ILMAP_E_IL_TRUNCATED = 10,
    /** A branch or switch target is outside the code or not at an
     *  instruction start (ilmap-il.h). */
    ILMAP_E_IL_BRANCH = 11,
    /** A method header or data section is malformed or unsupported
     *  (ilmap-il.h). */
    ILMAP_E_IL_HEADER = 12,
    /** An EH clause lies outside the code or not on instruction starts
     *  (ilmap-il.h). */
    ILMAP_E_IL_EH = 13,
    /** An edit or insertion is not at an instruction start, deletes or
     *  duplicates original IL, or is malformed itself (ilmap-il.h). */
    ILMAP_E_EDIT = 14,
    /** A result would exceed a format's limit: code size, max stack, EH
     *  section size, 32-bit offsets (ilmap-il.h, ilmap-serial.h); a
     *  signature nested deeper than ILMAP_SIG_MAX_DEPTH (ilmap-sig.h). */
    ILMAP_E_LIMIT = 15,
    /** Malformed input, refused; the domain's error says what and where:
     *  serialized data (ilmap_serial_error, ilmap-serial.h), a metadata
     *  signature, or a field's metadata claiming two static kinds
     *  (ilmap_sig_defect, ilmap-sig.h), a Portable PDB or PE file, or a
     *  PDB that is not the assembly's own (ilmap_pdb_error,
     *  ilmap-pdb.h). */
    ILMAP_E_FORMAT = 16,
    /** The key is taken already: a version or FunctionID registered
     *  before, differently (ilmap-versions.h). */
    ILMAP_E_EXISTS = 17,
    /** A fixed capacity is exhausted: reader slots, FunctionIDMapper
     *  entries (ilmap-versions.h). */
    ILMAP_E_FULL = 18,
    /** The buffer holds the first cap items; *total says how many there
     *  are (the buffer protocol, see the top of this header). */
    ILMAP_E_TRUNCATED = 19,
    /** The input needs something this build lacks: an embedded Portable
     *  PDB in a library built without zlib (ilmap-pdb.h). */
    ILMAP_E_UNSUPPORTED = 20,
    /** A file the call was given could not be read: missing, not
     *  readable, or a read error (ilmap_pdb_open_for_assembly()'s
     *  assembly, ilmap-pdb.h). */
    ILMAP_E_IO = 21
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

/** Special IL offsets (doc/il-maps.md#specials, MappingTypes), as stored in
 *  unsigned 32-bit fields. */
#define ILMAP_NO_MAPPING 0xFFFFFFFFu
#define ILMAP_PROLOG     0xFFFFFFFEu
#define ILMAP_EPILOG     0xFFFFFFFDu

/** "No offending entry" in the bad_index outputs below. */
#define ILMAP_NO_INDEX ((size_t)-1)

/**
 * The largest entry count accepted: the runtime's own limit for
 * SetILInstrumentedCodeMap (a count >= 0x15555555 is E_INVALIDARG there,
 * doc/il-maps.md#count-limit), so every map libilmap accepts can be handed to
 * the runtime.
 */
#define ILMAP_MAX_ENTRIES 0x15555554u

/**
 * One COR_IL_MAP entry, byte for byte: a profiler's COR_IL_MAP array can be
 * passed as an ilmap_entry array without copying (doc/il-maps.md#entries).
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

/* Flags for ilmap_create(). */
/** Accept any array (unsorted, duplicate keys, non-monotone) and answer
 *  every lookup exactly as the runtime's linear scan does
 *  (doc/decisions.md#decision-2): for equal keys the last one wins. Also the
 *  bit ilmap_get_flags() reports. */
#define ILMAP_LENIENT (1u << 0)
/** Do not use AVX2 even where the CPU has it (testing, comparisons). */
#define ILMAP_NO_AVX2 (1u << 8)
/** Use only the portable scalar code (no SIMD at all). */
#define ILMAP_PORTABLE (1u << 9)

/** Why ilmap_validate() rejects an array as a strict map. */
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
 * old_offset AND in new_offset (doc/decisions.md#decision-2; what the runtime
 * assumes and never checks), and says why not: which column, and whether it
 * descends or repeats. The old column is checked before the new one at
 * each index, and the lowest offending index is reported. Keys equal to
 * the special values are allowed (doc/decisions.md#decision-7). An empty array
 * is valid.
 *
 * @param defect     optional; receives the reason: ILMAP_DEFECT_NONE when
 *                   the array is valid, ILMAP_DEFECT_BAD_ARGUMENT for a
 *                   bad argument, else the column and kind of the first
 *                   violation.
 * @param bad_index  optional; receives the first offending index (the
 *                   second of the two entries out of order), or
 *                   ILMAP_NO_INDEX when the array is valid or an argument
 *                   is bad.
 * @return ILMAP_OK; ILMAP_E_UNSORTED (order violated);
 *         ILMAP_E_INVALID_ARG (entries NULL with count > 0, or
 *         count > ILMAP_MAX_ENTRIES).
 * Pure function, thread-safe; reads entries only, owns nothing.
 */
ILMAP_EXPORT ilmap_status ilmap_validate(const ilmap_entry *entries, size_t count,
                                         ilmap_defect *defect, size_t *bad_index);

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
 * rules (TranslateToInstIL, doc/il-maps.md#translation), keyed on old_offset:
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
 *  ilmap_old_to_new() keyed on new_offset (doc/il-maps.md#translation). Same
 *  guarantees. */
ILMAP_EXPORT uint32_t ilmap_new_to_old(const ilmap *map, uint32_t new_offset);

/**
 * Instrumented -> original IL offset, the ICorDebug/DAC rules
 * (TranslateInstrumentedILOffsetToOriginal, doc/il-maps.md#dac): an empty
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

/** The batch form of ilmap_new_to_old_dac() (the ICorDebug/DAC rules):
 *  out[i] = ilmap_new_to_old_dac(map, in[i]) for i in [0, n); otherwise
 *  as ilmap_old_to_new_batch(). */
ILMAP_EXPORT void ilmap_new_to_old_dac_batch(const ilmap *map, const uint32_t *in,
                                             uint32_t *out, size_t n);

/** The number of entries the map was built from (0 for NULL).
 *  Thread-safe, lock-free, allocation-free. */
ILMAP_EXPORT size_t ilmap_get_count(const ilmap *map);

/** The map's flags: ILMAP_LENIENT when it was built lenient, else 0 (0 for
 *  NULL; the kernel-choice flags are not reported). Thread-safe. */
ILMAP_EXPORT unsigned ilmap_get_flags(const ilmap *map);

/**
 * The map's entries as given to ilmap_create() (same order, same
 * accurate values), copied to the caller's out with the buffer protocol
 * (top of this header): *total receives the entry count and the first
 * min(cap, count) entries are written; the caller owns out. A NULL map
 * has 0 entries.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap < count: the first cap
 *         entries written); ILMAP_E_INVALID_ARG (total NULL, or cap > 0
 *         with out NULL; nothing written, *total 0 when total is set).
 * Thread-safe, lock-free, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_export(const ilmap *map, size_t cap, size_t *total,
                                       ilmap_entry *out);

/** Bytes of memory the map holds, its own struct included (0 for NULL). */
ILMAP_EXPORT size_t ilmap_get_memory_bytes(const ilmap *map);

/** Which lookup code the map uses: "avx2", "sse2", "neon" (AArch64) or
 *  "portable" (static storage; for NULL, what a map built now would use). */
ILMAP_EXPORT const char *ilmap_get_implementation(const ilmap *map);

/* ---- IL-to-native maps (COR_DEBUG_IL_TO_NATIVE_MAP) ---- */

/*
 * What GetILToNativeMapping2 returns and what the JIT reports, built as the
 * runtime builds it (doc/native-maps.md#build), exported with its buffer
 * protocol (doc/buffer-protocol.md#libilmap), and looked up both ways
 * through indexes that answer exactly what the runtime's linear scans
 * answer (doc/native-to-il.md#scan).
 *
 * Two flavours (doc/decisions.md#decision-1): flags 0 = the in-process
 * debugger's rules (DebuggerJitInfo::SetBoundaries, the map a profiler's
 * GetILToNativeMapping2 returns); ILMAP_DAC = the ICorDebug/DAC rules
 * (DacDbiInterfaceImpl::GetSequencePoints). The same object type holds
 * either; each function says where the flavours differ.
 */

/**
 * One exported entry, byte for byte COR_DEBUG_IL_TO_NATIVE_MAP
 * (doc/native-maps.md#entry): an array returned by GetILToNativeMapping2 can be
 * passed as an ilmap_native_entry array without copying. il_offset may be one
 * of the special values ILMAP_PROLOG, ILMAP_EPILOG, ILMAP_NO_MAPPING.
 */
typedef struct ilmap_native_entry {
    uint32_t il_offset;    /**< ilOffset */
    uint32_t native_start; /**< nativeStartOffset */
    uint32_t native_end;   /**< nativeEndOffset (exclusive) */
} ilmap_native_entry;

/**
 * One JIT boundary, byte for byte ICorDebugInfo::OffsetMapping: where
 * native code for an IL offset starts, and why the JIT reported it
 * (ILMAP_SOURCE_* bits).
 */
typedef struct ilmap_boundary {
    uint32_t native_offset; /**< nativeOffset */
    uint32_t il_offset;     /**< ilOffset, instrumented coordinates */
    uint32_t source;        /**< ILMAP_SOURCE_* bits (SourceTypes) */
} ilmap_boundary;

#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(ilmap_native_entry) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP is 12 bytes");
static_assert(offsetof(ilmap_native_entry, il_offset) == 0, "ilOffset first");
static_assert(offsetof(ilmap_native_entry, native_start) == 4, "nativeStartOffset second");
static_assert(offsetof(ilmap_native_entry, native_end) == 8, "nativeEndOffset third");
static_assert(sizeof(ilmap_boundary) == 12, "OffsetMapping is 12 bytes");
static_assert(offsetof(ilmap_boundary, native_offset) == 0, "nativeOffset first");
static_assert(offsetof(ilmap_boundary, il_offset) == 4, "ilOffset second");
static_assert(offsetof(ilmap_boundary, source) == 8, "source third");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(ilmap_native_entry) == 12, "COR_DEBUG_IL_TO_NATIVE_MAP is 12 bytes");
_Static_assert(offsetof(ilmap_native_entry, il_offset) == 0, "ilOffset first");
_Static_assert(offsetof(ilmap_native_entry, native_start) == 4, "nativeStartOffset second");
_Static_assert(offsetof(ilmap_native_entry, native_end) == 8, "nativeEndOffset third");
_Static_assert(sizeof(ilmap_boundary) == 12, "OffsetMapping is 12 bytes");
_Static_assert(offsetof(ilmap_boundary, native_offset) == 0, "nativeOffset first");
_Static_assert(offsetof(ilmap_boundary, il_offset) == 4, "ilOffset second");
_Static_assert(offsetof(ilmap_boundary, source) == 8, "source third");
#endif

/** ilmap_boundary.source bits (ICorDebugInfo::SourceTypes,
 *  doc/native-maps.md#boundaries). Only two change how a map is built:
 *  CALL_INSTRUCTION (the second filter, end offsets, the sort, the call-site
 *  split) and NATIVE_END_OFFSET_UNKNOWN (export writes the code size as that
 *  entry's end). */
#define ILMAP_SOURCE_SEQUENCE_POINT           0x01u
#define ILMAP_SOURCE_STACK_EMPTY              0x02u
#define ILMAP_SOURCE_CALL_SITE                0x04u
#define ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN 0x08u
#define ILMAP_SOURCE_CALL_INSTRUCTION         0x10u
#define ILMAP_SOURCE_ASYNC                    0x20u

/** What a native offset maps to (CorDebugMappingResult values,
 *  doc/native-to-il.md#scan). ilmap_native_to_il() returns exactly one of
 *  them. */
#define ILMAP_MAPPING_PROLOG           0x01u
#define ILMAP_MAPPING_EPILOG           0x02u
#define ILMAP_MAPPING_NO_INFO          0x04u
#define ILMAP_MAPPING_UNMAPPED_ADDRESS 0x08u
#define ILMAP_MAPPING_EXACT            0x10u
#define ILMAP_MAPPING_APPROXIMATE      0x20u

/** Flag for ilmap_native_build() and ilmap_native_translate(): build with the
 *  ICorDebug/DAC rules instead of the in-process debugger's
 *  (doc/native-maps.md#dac; doc/decisions.md#decision-1). ILMAP_NO_AVX2 and
 *  ILMAP_PORTABLE are accepted there too and choose the lookup kernels as for
 *  ilmap_create(). */
#define ILMAP_DAC (1u << 1)

/**
 * The largest boundary or entry count accepted: the exported array's size
 * in bytes (12 per entry) must fit GetILToNativeMapping2's 32-bit world,
 * the same bound as ILMAP_MAX_ENTRIES. Larger counts are
 * ILMAP_E_INVALID_ARG.
 */
#define ILMAP_NATIVE_MAX_ENTRIES 0x15555554u

/** An immutable, indexed IL-to-native map. */
typedef struct ilmap_native ilmap_native;

/**
 * One entry as a built map keeps it (the runtime's DebuggerILToNativeMap):
 * the end as stored, 0 for the end-unknown entry (which export reports as
 * the code size), and the source bits, NATIVE_END_OFFSET_UNKNOWN included.
 */
typedef struct ilmap_native_record {
    uint32_t il_offset;    /**< original coordinates when a map was applied */
    uint32_t native_start;
    uint32_t native_end;   /**< as stored: 0 = "to the end of the method" */
    uint32_t source;       /**< ILMAP_SOURCE_* bits */
} ilmap_native_record;

/** Which list ilmap_native_export_records() reads. */
#define ILMAP_RECORDS_EXPORTED   0u /**< the sequence map: what export returns */
#define ILMAP_RECORDS_CALL_SITES 1u /**< the split-off CALL_INSTRUCTION entries */

/**
 * Checks JIT boundaries the way ilmap_native_build() does: native offsets
 * must be non-decreasing (equal ones are fine, doc/decisions.md#decision-7),
 * none may exceed code_size (an offset equal to code_size is accepted), and
 * no boundary may carry ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN: that bit is
 * the runtime's own, set by the build on the last entry in native order; a
 * JIT never reports it, and an input entry carrying it would be exported
 * with the code size as its end, over every later range
 * (doc/native-maps.md#boundaries). At each index the order is checked
 * first, then the code size, then the source bits; the lowest offending
 * index is reported.
 *
 * @param bad_index optional; receives the offending index, or
 *                  ILMAP_NO_INDEX when there is none or the arguments
 *                  themselves are bad (jit NULL, count too large).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (jit NULL with count > 0, count >
 *         ILMAP_NATIVE_MAX_ENTRIES: bad_index ILMAP_NO_INDEX; a boundary
 *         carrying NATIVE_END_OFFSET_UNKNOWN: bad_index is its index);
 *         ILMAP_E_NATIVE_ORDER (jit[i].native_offset <
 *         jit[i-1].native_offset); ILMAP_E_CODE_SIZE (jit[i].native_offset
 *         > code_size).
 * Pure function, thread-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_native_validate_boundaries(const ilmap_boundary *jit, size_t count,
                                                           uint32_t code_size, size_t *bad_index);

/**
 * Builds the map the runtime builds from the JIT's boundaries
 * (doc/native-maps.md#build, DebuggerJitInfo::SetBoundaries; with ILMAP_DAC,
 * the DAC's GetSequencePoints/ComposeMapping/CopyAndSortSequencePoints).
 *
 * @param jit          the JIT's boundaries in native order (checked as by
 *                     ilmap_native_validate_boundaries()), IL offsets in
 *                     instrumented coordinates. Copied: may be freed after.
 * @param instrumented the method's COR_IL_MAP, or NULL. A map with no
 *                     entries is the same as NULL (doc/il-maps.md#empty-map:
 *                     an empty map is "no map"). Read during the call only.
 * @param code_size    hot + cold code size: the exported end of the
 *                     end-unknown entry.
 * @param flags        0 (in-process), ILMAP_DAC, plus ILMAP_NO_AVX2 /
 *                     ILMAP_PORTABLE.
 *
 * In-process (flags 0), every quirk reproduced:
 *  1. With a map, each IL offset is translated new->old by
 *     ilmap_new_to_old() (doc/native-maps.md#translation-filter). An entry
 *     whose translation equals the tracker is dropped ("in-between" entries);
 *     otherwise it takes the translated offset and becomes the tracker. The
 *     tracker starts at -10 (0xFFFFFFF6), so a first entry translating to
 *     0xFFFFFFF6 is dropped too, as in the runtime. The tracker moves even when
 *     step 2 then drops the entry.
 *  2. Map or no map: a non-CALL_INSTRUCTION entry is dropped when the
 *     previous kept entry (or the one before it, if the previous kept one
 *     is a CALL_INSTRUCTION) is not a CALL_INSTRUCTION and has the same IL.
 *  3. End offsets: each kept entry ends where the next kept
 *     non-CALL_INSTRUCTION entry starts (the skip stops at the final
 *     entry); the last entry in native order ends at 0 and gains
 *     NATIVE_END_OFFSET_UNKNOWN (export: code_size). A CALL_INSTRUCTION
 *     entry's range therefore lies inside its predecessor's and ends
 *     where that one ends.
 *  4. lastIL (the EPILOG answer of ilmap_native_to_il()) = the signed
 *     maximum of the raw, untranslated JIT IL offsets (so in instrumented
 *     coordinates when a map is applied), 0 when none is >= 0.
 *  5. Sort: PROLOG entries first (even CALL_INSTRUCTION ones), then
 *     non-CALL_INSTRUCTION entries by IL (normal < EPILOG < NO_MAPPING),
 *     then CALL_INSTRUCTION entries by IL; ties by native start. Where the
 *     runtime's quicksort leaves the order open (same class, IL and
 *     start), libilmap keeps native order (doc/decisions.md#sort-ties).
 *  6. Trailing CALL_INSTRUCTION entries are split off into the call-site
 *     list (ilmap_native_export_records(), ilmap_native_find_call_site()): they
 *     are not exported and no lookup sees them. A CALL_INSTRUCTION entry
 *     whose IL offset is (or translates to) PROLOG sorts first and stays:
 *     the export then holds a PROLOG range nested in another range with
 *     the same end, which ilmap_native_validate() accepts
 *     (doc/native-maps.md#call-sites).
 * ILMAP_DAC differs: with a map, step 1 translates by
 * ilmap_new_to_old_dac() and its tracker starts at MAX_ILNUM
 * (0xFFFFFFFC); dropped entries are marked with that value and compacted
 * away, so every entry translating to 0xFFFFFFFC is dropped too (the
 * tracker still moves to it). There is no step 2. lastIL is the signed
 * maximum of the kept, translated, non-CALL_INSTRUCTION IL offsets (0
 * when none is >= 0). Steps 3, 5 and 6 are the same.
 *
 * count 0 gives an empty map (every lookup NO_INFO, nothing exported).
 * Building takes O(count log count) time and O(count) memory.
 *
 * @param out receives the map, or NULL on any failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, jit NULL with count >
 *         0, count > ILMAP_NATIVE_MAX_ENTRIES, unknown flag);
 *         ILMAP_E_NATIVE_ORDER; ILMAP_E_CODE_SIZE; ILMAP_E_NOMEM.
 * Thread-safe (no shared state).
 */
ILMAP_EXPORT ilmap_status ilmap_native_build(const ilmap_boundary *jit, size_t count,
                                             const ilmap *instrumented, uint32_t code_size,
                                             unsigned flags, ilmap_native **out);

/**
 * Checks an array as ilmap_native_from_entries() reads it and says what is
 * wrong. Only what the runtime never exports is refused; the rule and its
 * reasons are written up in doc/native-to-il.md. A native_end of 0 is not
 * a range end: the lookup reads it as open to the top (everything from
 * native_start up, past code_size too), or, on a PROLOG entry, as
 * matching nothing. Such entries are accepted wherever they start and
 * whatever they cover, and only their start is checked. Checks, in this
 * order:
 *  1. per entry, lowest index first: native_start beyond code_size, or a
 *     non-zero native_end beyond code_size -> ILMAP_E_CODE_SIZE;
 *     native_start > native_end with native_end != 0 ->
 *     ILMAP_E_BAD_RANGE;
 *  2. then overlaps among the ranges with a non-zero end that are not
 *     empty (start == end overlaps nothing; end-0 entries are left out).
 *     Two such ranges may share native offsets only as the runtime
 *     exports them: both end at the same offset, and the one starting
 *     later is a PROLOG entry (when they start together, at least one
 *     is). That is a CALL_INSTRUCTION boundary translated to PROLOG, e.g.
 *     a call in code a profiler injected before the first COR_IL_MAP
 *     entry (doc/native-to-il.md#accepts). Any other overlap is refused:
 *     sweeping the ranges by start (then by index), the first one that
 *     overlaps an earlier one in another way is bad_index, other_index
 *     the earlier-starting entry that reached furthest (the first of
 *     those) -> ILMAP_E_OVERLAP.
 * Entries may be in any order; IL offsets (specials included) are not
 * checked.
 *
 * @param bad_index, other_index optional; ILMAP_NO_INDEX when not
 *        applicable (other_index is set only for overlaps).
 * @return ILMAP_OK, ILMAP_E_INVALID_ARG (entries NULL with count > 0,
 *         count > ILMAP_NATIVE_MAX_ENTRIES), ILMAP_E_CODE_SIZE,
 *         ILMAP_E_BAD_RANGE, ILMAP_E_OVERLAP, ILMAP_E_NOMEM (the overlap
 *         check sorts a copy of the offsets).
 * Thread-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_native_validate(const ilmap_native_entry *entries, size_t count,
                                                uint32_t code_size, size_t *bad_index,
                                                size_t *other_index);

/**
 * Builds a map from an exported array, e.g. what GetILToNativeMapping2
 * returned, in any order (doc/native-to-il.md). The array must pass
 * ilmap_native_validate() (same statuses); every array the runtime
 * exports does. The entries are sorted as the runtime sorts
 * (doc/native-maps.md#sort-order; equal entries keep the caller's order) and
 * otherwise kept exactly as given: export returns them unchanged, a native_end
 * of 0 included, and every query of this header answers what the runtime's scan
 * (see ilmap_native_to_il()) answers on that sorted array. In particular an
 * entry with native_end 0 that is not a PROLOG matches every native
 * offset >= its start, at or past code_size as well, wherever it stands
 * in the table, and there wins over every entry after it; one that is a
 * PROLOG matches nothing (the scan still counts it in `which`). The
 * runtime exports such entries when several boundaries share native
 * offset 0: all but the last of them get end 0, e.g. (PROLOG 0..0)
 * (IL 0: 0..0) (EPILOG 0..6) for a body that is all epilog, where IL 0
 * answers every offset. Differences from a map built by
 * ilmap_native_build(), where the exported array holds less: no source
 * bits and no call sites; lastIL is the signed maximum of the entries' IL
 * offsets (0 when none is >= 0).
 *
 * @param out receives the map, or NULL on any failure.
 * @return as ilmap_native_validate() (ILMAP_E_INVALID_ARG also for out
 *         NULL), ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_native_from_entries(const ilmap_native_entry *entries, size_t count,
                                                    uint32_t code_size, ilmap_native **out);

/**
 * Translation for instrumented methods: from the map the runtime exported
 * for an instrumented method while no COR_IL_MAP was in force (IL offsets
 * in instrumented coordinates), and the method's COR_IL_MAP, the map the
 * runtime would have exported had that COR_IL_MAP been set before the
 * method was compiled (IL offsets in original coordinates).
 *
 * How: the exported entries are put back in native order (by start;
 * among equal starts, the empty ranges first, since only the last of
 * boundaries sharing a start has a non-empty range) and replayed through
 * ilmap_native_build() with the map, as JIT boundaries with source 0.
 * flags: 0 when the input came from the in-process build (what
 * GetILToNativeMapping2 returns) and the in-process result is wanted;
 * ILMAP_DAC for the DAC's. The result's lastIL is what that build gives
 * (in-process: instrumented coordinates, as in the runtime).
 *
 * When it is lossless: the result is entry for entry the runtime's
 * (export and every lookup), provided the JIT reported no
 * CALL_INSTRUCTION boundaries. Those are not exported, yet with a map they
 * move the duplicate tracker and can hide the second filter's previous
 * entry, so they can change which entries survive; nothing in the export
 * tells where they were. Everything else the export loses (entries the
 * second filter dropped, their order) provably does not change the
 * result: those entries have the IL offset of the entry they follow, so
 * they translate to it too and are dropped with a map as well.
 *
 * @param lossless optional; 1 when the input is consistent with that
 *        reconstruction (the ranges tile [first start, code_size) in
 *        native order, the last one ends at code_size or 0, no two empty
 *        ranges with different IL share a start, and, in-process, no two
 *        consecutive entries share an IL offset, which only call
 *        instructions can cause), 0 when the input shows that something
 *        was lost (then the result is a best effort) or on failure.
 * @param out receives the map, or NULL on any failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, exported NULL with
 *         count > 0, count > ILMAP_NATIVE_MAX_ENTRIES, unknown flag);
 *         ILMAP_E_CODE_SIZE (a start beyond code_size); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_native_translate(const ilmap_native_entry *exported, size_t count,
                                                 uint32_t code_size, const ilmap *instrumented,
                                                 unsigned flags, ilmap_native **out,
                                                 int *lossless);

/** Releases a map. NULL is a no-op. The map must not be in use. */
ILMAP_EXPORT void ilmap_native_free(ilmap_native *m);

/**
 * The exported map, entries in the runtime's sorted order, each as
 * ExportILToNativeMap writes it (an entry with NATIVE_END_OFFSET_UNKNOWN
 * gets native_end = code size), copied to the caller's out with the
 * buffer protocol (top of this header): *total receives the entry count,
 * the first min(cap, count) entries are written; the caller owns out.
 * Unlike GetILToNativeMapping2 (doc/buffer-protocol.md#why), which returns S_OK
 * for a short buffer, a short buffer is ILMAP_E_TRUNCATED.
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap < count: the first cap entries
 *         written); ILMAP_E_INVALID_ARG (m or total NULL, or cap > 0 with
 *         out NULL; nothing written, *total 0 when total is set).
 * Thread-safe, lock-free, allocation-free.
 */
ILMAP_EXPORT ilmap_status ilmap_native_export(const ilmap_native *m, size_t cap, size_t *total,
                                              ilmap_native_entry *out);

/**
 * The map's entries as stored, with their source bits and stored ends:
 * list ILMAP_RECORDS_EXPORTED (the entries export returns, same order) or
 * ILMAP_RECORDS_CALL_SITES (the CALL_INSTRUCTION entries split off by
 * step 6 of ilmap_native_build(), in the runtime's sorted order; empty
 * for maps from ilmap_native_from_entries()). Same buffer protocol,
 * statuses and guarantees as ilmap_native_export(); an unknown list is
 * ILMAP_E_INVALID_ARG.
 */
ILMAP_EXPORT ilmap_status ilmap_native_export_records(const ilmap_native *m, unsigned list,
                                                      size_t cap, size_t *total,
                                                      ilmap_native_record *out);

/**
 * The call-site entry (split off by the build) starting at native_offset:
 * the first such one in the call-site list's order. O(log n).
 * @param out receives it; zeroed when there is none.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no call site starts there);
 *         ILMAP_E_INVALID_ARG (m or out NULL).
 * Thread-safe, lock-free, allocation-free, async-signal-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_native_find_call_site(const ilmap_native *m,
                                                      uint32_t native_offset,
                                                      ilmap_native_record *out);

/**
 * Native offset -> IL offset, exactly MapNativeOffsetToIL
 * (doc/native-to-il.md#scan): the first exported entry, in sorted order, with
 * native_offset >= start and either native_offset < end or (end == 0 and the
 * entry is not a PROLOG) (so the end-unknown entry of a built map, and any
 * end-0 entry read by ilmap_native_from_entries(), matches everything from its
 * start up, past the code too; doc/native-to-il.md). Overlaps and duplicates
 * resolve by that order, not by native distance. Maps of 1 or 2 entries
 * (without call sites) test every entry at once; larger ones are answered
 * without a scan: every start and non-zero end is a breakpoint, the answer
 * is precomputed for each interval between consecutive breakpoints, and
 * the interval is found by counting the breakpoints (up to 32 entries) or
 * through a bucket table over the native axis (O(1) where breakpoints are
 * spread out) backed by a binary search (O(log n) where they crowd).
 *
 * | matched entry          | *il_offset | returns                        |
 * |------------------------|------------|--------------------------------|
 * | PROLOG                 | 0          | ILMAP_MAPPING_PROLOG           |
 * | NO_MAPPING             | 0          | ILMAP_MAPPING_UNMAPPED_ADDRESS |
 * | EPILOG                 | lastIL     | ILMAP_MAPPING_EPILOG           |
 * | normal, offset == start| il_offset  | ILMAP_MAPPING_EXACT            |
 * | normal, otherwise      | il_offset  | ILMAP_MAPPING_APPROXIMATE      |
 * | none, empty or NULL map| 0          | ILMAP_MAPPING_NO_INFO          |
 *
 * lastIL follows the flavour (see ilmap_native_build()). il_offset may
 * be NULL. Every uint32_t input is valid, 0xFFFFFFFF included.
 * Thread-safe, lock-free, allocation-free, async-signal-safe.
 */
ILMAP_EXPORT unsigned ilmap_native_to_il(const ilmap_native *m, uint32_t native_offset,
                                         uint32_t *il_offset);

/**
 * ilmap_native_to_il() plus where the answer came from.
 * @param entry optional; the matched entry's index in the exported order
 *        (as ilmap_native_export() lists it), ILMAP_NO_INDEX when none.
 * @param which optional; the runtime's `which` out-parameter (handed to
 *        MapSpecialToNative): how many special entries (PROLOG, EPILOG,
 *        NO_MAPPING) the scan visited, the matched one included; with no
 *        match, all the map's special entries (the scan visited them all).
 * Same guarantees as ilmap_native_to_il(), but O(n) when entry or which is
 * asked for of a map of 65,535 entries or more, or of one whose entry
 * column would not fit its memory bound: those keep the answer per
 * interval, not the entry, which is then found by the runtime's scan.
 * Small maps (up to 32 entries) keep both with each interval's answer
 * (doc/performance.md#native-memory).
 */
ILMAP_EXPORT unsigned ilmap_native_to_il_detail(const ilmap_native *m, uint32_t native_offset,
                                                uint32_t *il_offset, size_t *entry,
                                                uint32_t *which);

/**
 * IL offset -> native code, as MapILOffsetToMapEntry
 * (doc/native-maps.md#il-to-native): the floor entry, i.e. among the normal
 * (non-special) exported entries the one with the greatest IL offset <=
 * il_offset, and among entries with that IL offset (funclets, duplicated code)
 * the one with the lowest native start (the first in exported order).
 * *il_matched = 1 when its IL offset equals il_offset. A special il_offset
 * (ILMAP_PROLOG, ILMAP_EPILOG, ILMAP_NO_MAPPING) finds only an entry with that
 * value, lowest native start first, with *il_matched = 1. O(log n).
 *
 * @param entry optional; the entry as exported (end-unknown: code size).
 * @param index optional; its index in the exported order.
 * @param il_matched optional; 1 when the lookup found il_offset itself.
 * On failure: *entry zeroed, *index = ILMAP_NO_INDEX, *il_matched = 0.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no normal entry has an IL offset
 *         <= il_offset, or no entry has the special value);
 *         ILMAP_E_INVALID_ARG (m NULL).
 * Thread-safe, lock-free, allocation-free, async-signal-safe.
 */
ILMAP_EXPORT ilmap_status ilmap_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                             ilmap_native_entry *entry, size_t *index,
                                             int *il_matched);

/**
 * All native ranges of one IL offset (exact match, specials allowed): the
 * exported entries with that IL offset, lowest native start first, as
 * exported (end-unknown: code size). Several ranges come from EH
 * funclets, duplicated code (loop cloning, finally cloning), or empty
 * ranges where boundaries share a start. Same buffer protocol, statuses
 * and guarantees as ilmap_native_export() (ILMAP_E_TRUNCATED for a short
 * buffer); an IL offset with no entry gives *total = 0 and ILMAP_OK.
 * O(log n + copied entries).
 */
ILMAP_EXPORT ilmap_status ilmap_il_to_native_ranges(const ilmap_native *m, uint32_t il_offset,
                                                    size_t cap, size_t *total,
                                                    ilmap_native_entry *out);

/** The number of exported entries (0 for NULL). */
ILMAP_EXPORT size_t ilmap_native_get_count(const ilmap_native *m);

/** The code size the map was built with (0 for NULL). */
ILMAP_EXPORT uint32_t ilmap_native_get_code_size(const ilmap_native *m);

/** lastIL, the IL offset an EPILOG match answers (0 for NULL); see
 *  ilmap_native_build() and ilmap_native_from_entries(). */
ILMAP_EXPORT uint32_t ilmap_native_get_last_il(const ilmap_native *m);

/** The map's flags: ILMAP_DAC when it was built with the DAC's rules,
 *  else 0 (0 for NULL; the kernel-choice flags are not reported).
 *  Thread-safe. */
ILMAP_EXPORT unsigned ilmap_native_get_flags(const ilmap_native *m);

/** Bytes of memory the map holds, its own struct included (0 for NULL). */
ILMAP_EXPORT size_t ilmap_native_get_memory_bytes(const ilmap_native *m);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_H */
