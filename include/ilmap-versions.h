/*
 * libilmap, code versions: which map applies to which code, safe to ask
 * from a sampler's signal handler while other threads install ReJIT
 * versions; and a ready FunctionIDMapper.
 *
 * Two independent objects:
 *
 *  - ilmap_store, the version store. It holds what a profiler learns
 *    about code versions (doc/rejit.md#store) and answers, for an
 *    instruction pointer, which function, ReJIT version and native body
 *    it is in, at which IL offset, and at which original IL offset:
 *      * IL-level maps keyed by (module, methodDef), as
 *        SetILInstrumentedCodeMap stores them: shared by every generic
 *        instance of the method, the last call wins, an empty map clears;
 *      * function instances (FunctionID), each with its versions keyed by
 *        ReJITID. ReJITID 0 is the original version and uses the
 *        method's IL-level map; every other version carries its own
 *        COR_IL_MAP (or none), with no fallback to the method's;
 *      * native bodies: each version may have several (tiering), each one
 *        or more code ranges (hot, cold: GetCodeInfo2) with its
 *        IL-to-native map;
 *      * which version of each instance is current; revert makes the
 *        original current again, and old versions stay readable because
 *        code may still run in them;
 *      * removal of what the runtime freed: a body, a ReJIT version, or
 *        everything of a module at unload, each in one publication
 *        (doc/rejit.md#removal);
 *      * each module's Portable PDB, once attached, so that an address
 *        answers with document, line and column too
 *        (ilmap_store_snapshot_lookup_source(), doc/source-lines.md#store).
 *
 *  - ilmap_fid_mapper, a FunctionIDMapper/FunctionIDMapper2
 *    (doc/function-ids.md#mapper): a thread-safe, idempotent FunctionID ->
 *    client ID map whose callbacks can be passed to SetFunctionIDMapper /
 *    SetFunctionIDMapper2 as they are.
 *
 * Concurrency contract of the store, in one paragraph. Writers (every
 * function that changes the store) may be called from any threads; they
 * serialize among themselves on one mutex, allocate, and are NOT
 * async-signal-safe. Readers never block and never allocate: a reader
 * thread registers once (ilmap_store_reader_register()), then brackets
 * its queries with ilmap_store_reader_begin() / ilmap_store_reader_end(),
 * which give it an immutable snapshot (an ilmap_store_snapshot) of the
 * whole store. Those two calls and every query on a snapshot take no
 * lock, make no system call and allocate nothing, so they are async-signal-safe: a
 * signal handler may use them, even one that interrupted the same thread
 * inside a read or inside a writer. Writers publish a new snapshot with one
 * atomic pointer swap and never wait for readers: what they replace is
 * freed later, once every reader that could still see it has left its
 * read (epoch-based reclamation; see ilmap_store_reader_begin()). A
 * snapshot and every pointer obtained through it stay valid until the
 * matching ilmap_store_reader_end().
 *
 * The conventions of ilmap.h hold: functions return an ilmap_status, check
 * every argument, never abort, and write every output on failure too.
 */
#ifndef ILMAP_VERSIONS_H
#define ILMAP_VERSIONS_H

#include "ilmap.h"
#include "ilmap-pdb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The profiling API's calling convention for callbacks: __stdcall on
 * Windows (it matters on 32-bit x86), the platform's default elsewhere. */
#if defined(_WIN32)
#  define ILMAP_STDCALL __stdcall
#else
#  define ILMAP_STDCALL
#endif

/** FunctionID, ModuleID and ReJITID are UINT_PTR in the profiling API. */
typedef uintptr_t ilmap_function_id;
typedef uintptr_t ilmap_module_id;
typedef uintptr_t ilmap_rejit_id;

/* ---------------------------------------------------------------------
 * The version store
 * ------------------------------------------------------------------ */

typedef struct ilmap_store ilmap_store;
/** A reader slot: one per reading thread, see ilmap_store_reader_register(). */
typedef struct ilmap_store_reader ilmap_store_reader;
/** An immutable snapshot of a store, valid inside one read. */
typedef struct ilmap_store_snapshot ilmap_store_snapshot;

/** One code range, byte for byte COR_PRF_CODE_INFO (startAddress, size):
 *  the array GetCodeInfo2 fills can be passed as it is. */
typedef struct ilmap_code_range {
    uintptr_t start; /**< startAddress */
    size_t size;     /**< size in bytes */
} ilmap_code_range;

/** Reader slots when ilmap_store_create() is given 0, and the most it
 *  accepts. */
#define ILMAP_STORE_DEFAULT_READERS 64u
#define ILMAP_STORE_MAX_READERS 4096u

/** The most code ranges one native body may have (GetCodeInfo2 reports
 *  two: hot and cold). */
#define ILMAP_STORE_MAX_RANGES 8u

/**
 * Flag for ilmap_store_create(): writers fence for the readers.
 *
 * A read announces itself and then loads the current snapshot; the store
 * needs those two ordered as the writers see them (doc/rejit.md#store-reads).
 * By default each read does it with a full fence of its own (~10 ns on
 * x86-64, a fifth of a cold lookup). With this flag a read announces with
 * a plain store, and the writer's reclamation instead makes every running
 * thread of the process execute a full fence (Linux membarrier(2),
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED: an inter-processor interrupt to each
 * CPU running one of the process's threads, a few microseconds), at most
 * once per 32 publications (reclamation waits for that many batches, or
 * ilmap_store_reclaim()). The trade: cheaper reads, costlier writes, and
 * brief interrupts of the application's threads while writers publish.
 * Worth it where reads far outnumber writes (a symbolizer, a sampler at a
 * high rate over a warmed-up process); not while a JIT is installing
 * thousands of bodies a second into a latency-sensitive application.
 * Where the OS has no such fence (other systems, an old kernel, a seccomp
 * filter) the flag changes nothing; ilmap_store_stats.writer_fence says
 * whether it is in effect. The first store created with it registers the
 * process with membarrier (once; harmless to other users of membarrier).
 */
#define ILMAP_STORE_WRITER_FENCE (1u << 0)

/**
 * Flag for ilmap_store_create(): keep each body's native map compactly.
 *
 * By default a body keeps the ilmap_native handed to
 * ilmap_store_add_body() (ilmap_store_body_info.native_map), besides the
 * answers its lookups read. With this flag the store keeps instead the
 * map's exported entries, packed (about 3-4 bytes an entry instead of the
 * map's ~20; doc/rejit.md#store-compact), and frees the map when
 * ilmap_store_add_body() succeeds: ilmap_store_body_info.native_map is
 * then NULL, and ilmap_store_snapshot_get_native_entries() gives the
 * exported array back, entry for entry. Lookups (ilmap_store_lookup(),
 * ilmap_store_lookup_source()) answer the same either way. For a sampler
 * over many bodies that needs the runtime's array at most, not an
 * ilmap_native per body.
 */
#define ILMAP_STORE_COMPACT_NATIVE (1u << 1)

/**
 * Flag for ilmap_store_create(): keep IL maps compactly.
 *
 * By default the store keeps each IL map handed to it
 * (ilmap_store_set_il_map(), ilmap_store_add_version()) and hands it out
 * (ilmap_store_snapshot_get_il_map(), ilmap_store_snapshot_get_method_map(),
 * ilmap_store_body_info.il_map). With this flag it keeps instead the map's
 * entries, packed (about 3 bytes an entry instead of the map's ~20 plus
 * ~600 fixed; doc/rejit.md#store-compact), and frees the map when the
 * writer succeeds: those calls then give NULL, and
 * ilmap_store_snapshot_get_il_entries(),
 * ilmap_store_snapshot_get_method_entries() and
 * ilmap_store_snapshot_get_body_il_entries() give the entries back, as
 * ilmap_export() would have. Lookups answer the same either way; attaching
 * a body through a map costs a rebuild of the map (ilmap_create(), freed
 * before the writer returns). With ILMAP_STORE_COMPACT_NATIVE, what a
 * sampler over many bodies needs: ~2x the runtime's exported native
 * arrays, every map included (doc/performance.md#store-compact).
 */
#define ILMAP_STORE_COMPACT_IL (1u << 2)

/**
 * Creates an empty store.
 *
 * @param max_readers reader slots (threads that may read at once, counted
 *        by registration): 0 for ILMAP_STORE_DEFAULT_READERS, at most
 *        ILMAP_STORE_MAX_READERS. Fixed for the store's life, so that
 *        registering never allocates; each slot costs 64 bytes and one
 *        step of every reclamation scan.
 * @param flags 0, or ILMAP_STORE_WRITER_FENCE, ILMAP_STORE_COMPACT_NATIVE
 *        and ILMAP_STORE_COMPACT_IL in any combination.
 * @param out receives the store, or NULL on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, max_readers too large,
 *         unknown flag); ILMAP_E_NOMEM (also when the mutex cannot be
 *         initialised).
 * Thread-safe (no shared state).
 */
ILMAP_EXPORT ilmap_status ilmap_store_create(uint32_t max_readers, unsigned flags,
                                             ilmap_store **out);

/**
 * Frees the store and everything it owns: the maps handed to it, every
 * snapshot, and the reader slots (handles from
 * ilmap_store_reader_register() become invalid). NULL is a no-op. No other
 * call on the store, and no read, may be in progress or follow.
 */
ILMAP_EXPORT void ilmap_store_free(ilmap_store *store);

/* ---- Writers ------------------------------------------------------
 *
 * Common to every writer below:
 *  - Thread-safe: writers serialize on the store's mutex. Not
 *    async-signal-safe (they lock and allocate); never call one from a
 *    signal handler. A thread may call a writer while it is inside a
 *    read: writers never wait for readers.
 *  - Atomic: on success the change is visible to every read that begins
 *    after the call returns, all at once; on failure nothing changed.
 *  - Ownership: a map handed to a writer (ilmap *, ilmap_native *) belongs
 *    to the store when the writer returns ILMAP_OK, which frees it when
 *    it is replaced or removed and no read can still see it, or in
 *    ilmap_store_free(). The caller must not use or free it after that
 *    (reads reach it through snapshots). On any failure the caller still owns
 *    it. A map must not be handed over twice.
 *  - A call that changes nothing (setting what is already set) returns
 *    ILMAP_OK and publishes nothing.
 */

/**
 * SetILInstrumentedCodeMap's store (doc/il-maps.md#set-map): sets the IL-level
 * map of (module, method_def), replacing any earlier one (the last call wins).
 * It applies to every generic instance of the method, and to the original
 * version (ReJITID 0) only: ReJIT versions carry their own map
 * (doc/rejit.md#store-maps). A map with 0 entries, or NULL, clears the method's
 * map (the runtime treats an empty map as no map: identity); an empty map
 * handed over is freed at once.
 *
 * Native bodies keep the map their version had when they were attached
 * (ilmap_store_add_body()): as in the runtime, where the debugger reads
 * the map once per code body, a later call changes what
 * ilmap_store_snapshot_get_il_map() answers and what bodies attached later use,
 * not the translation of code already attached.
 *
 * @param module ModuleID, not 0.
 * @param method_def a methodDef token: table 0x06 in the top byte, row
 *        not 0.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, module 0, not a
 *         methodDef token); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_set_il_map(ilmap_store *store, ilmap_module_id module,
                                                 uint32_t method_def, ilmap *map);

/**
 * ilmap_store_set_il_map() for the method of a registered function
 * instance: the profiling API's own entry point takes a FunctionID and
 * stores under its (module, methodDef), so the map reaches every instance
 * of the method (doc/il-maps.md#set-map).
 * @return as ilmap_store_set_il_map(); ILMAP_E_NOT_FOUND (function not
 *         registered); ILMAP_E_INVALID_ARG also for function_id 0.
 */
ILMAP_EXPORT ilmap_status ilmap_store_set_il_map_for_function(ilmap_store *store,
                                                              ilmap_function_id function_id,
                                                              ilmap *map);

/**
 * Registers a function instance (a FunctionID, e.g. from
 * JITCompilationStarted) as an instance of (module, method_def). Its
 * original version, ReJITID 0, exists from then on and is current.
 * Registering again with the same method is a no-op (ILMAP_OK): the
 * runtime reports one FunctionID several times (tiers, racing JITs).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, function_id 0,
 *         module 0, not a methodDef token); ILMAP_E_EXISTS (registered
 *         with another method); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_add_function(ilmap_store *store,
                                                   ilmap_function_id function_id,
                                                   ilmap_module_id module, uint32_t method_def);

/** Flag for ilmap_store_add_version(): make the new version current in
 *  the same publication (what ReJITCompilationFinished means). */
#define ILMAP_VERSION_CURRENT (1u << 0)

/**
 * Adds a ReJIT version (FunctionID, ReJITID), e.g. at
 * ReJITCompilationStarted, with its own COR_IL_MAP: the one
 * ICorProfilerFunctionControl::SetILInstrumentedCodeMap set in
 * GetReJITParameters (doc/il-maps.md#function-control). NULL or a map with 0
 * entries means the version has no map (identity), which is what the runtime
 * does when GetReJITParameters set none or failed; there is no fallback to the
 * method's IL-level map. The runtime sets one map per method for all
 * instances; the store needs one ilmap per version (ilmap_create() it
 * again from the same entries for each instance).
 *
 * @param rejit_id not 0 (0 is the original version, which always exists).
 * @param flags 0 or ILMAP_VERSION_CURRENT.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, function_id 0,
 *         rejit_id 0, unknown flag); ILMAP_E_NOT_FOUND (function not
 *         registered); ILMAP_E_EXISTS (the version exists already; its
 *         map is not replaced, and the caller keeps map); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_add_version(ilmap_store *store,
                                                  ilmap_function_id function_id,
                                                  ilmap_rejit_id rejit_id, ilmap *map,
                                                  unsigned flags);

/**
 * Makes (function_id, rejit_id) the instance's current version: the one
 * new calls run (doc/rejit.md#rejit-ids). rejit_id 0 reverts this one instance.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, function_id 0);
 *         ILMAP_E_NOT_FOUND (unknown function or version); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_set_current(ilmap_store *store,
                                                  ilmap_function_id function_id,
                                                  ilmap_rejit_id rejit_id);

/**
 * RequestRevert (doc/rejit.md#rejit-ids): makes the original version (ReJITID
 * 0) current for every registered instance of (module, method_def), as the
 * runtime reverts per method, all instantiations at once. ReJIT versions, their
 * maps and their native bodies stay: code may still be running in them,
 * and address lookups keep answering for them. Reverting a method with
 * no registered instance, or one already reverted, is ILMAP_OK.
 * @param reverted optional; receives how many instances changed (0 on
 *        failure).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, module 0, not a
 *         methodDef token); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_revert(ilmap_store *store, ilmap_module_id module,
                                             uint32_t method_def, size_t *reverted);

/** Flag for ilmap_store_add_body(): the native map's IL offsets are
 *  original already, as GetILToNativeMapping2 exports them for code
 *  compiled under a map (doc/rejit.md#store-maps); the body's IL map is then
 *  not applied again. Without it, the native map answers in the IL the body
 *  was compiled from (e.g. built from the JIT's boundaries with no map),
 *  and lookups translate through the version's map. */
#define ILMAP_BODY_ORIGINAL_IL (1u << 0)

/**
 * Attaches a native body to a version (e.g. at JITCompilationFinished or
 * ReJITCompilationFinished; tiering attaches several to one version).
 *
 * @param ranges the body's code, as GetCodeInfo2 returns it: hot range
 *        first, then cold. Native offsets run across the ranges laid end
 *        to end (an address in range i has offset sum of the earlier
 *        sizes + (address - ranges[i].start)), as the runtime counts them
 *        (code size = hot + cold). The body is identified by
 *        ranges[0].start, its code start. Copied.
 * @param map its IL-to-native map, or NULL (then lookups find the function
 *        and version but answer ILMAP_MAPPING_NO_INFO). Its code size, if
 *        not 0, must equal the ranges' total size.
 * @param flags 0 or ILMAP_BODY_ORIGINAL_IL.
 *
 * The body captures, now, the IL map its version has: for ReJITID 0 the
 * method's IL-level map, otherwise the version's own (see
 * ilmap_store_set_il_map()).
 *
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, function_id 0,
 *         ranges NULL, nranges 0 or above ILMAP_STORE_MAX_RANGES, unknown
 *         flag); ILMAP_E_BAD_RANGE (a range of size 0, or one that wraps
 *         around the address space); ILMAP_E_LIMIT (total size above
 *         0xFFFFFFFF: native offsets are 32-bit; or 65,535 ranges of the
 *         store already start in one of the 64 KiB-aligned blocks of
 *         addresses this body's ranges touch); ILMAP_E_CODE_SIZE (the
 *         map's code size differs from the total); ILMAP_E_OVERLAP (a
 *         range overlaps another of this body or of a body in the store:
 *         remove the old one first, see ilmap_store_remove_body());
 *         ILMAP_E_NOT_FOUND (unknown function or version); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_add_body(ilmap_store *store, ilmap_function_id function_id,
                                               ilmap_rejit_id rejit_id,
                                               const ilmap_code_range *ranges, size_t nranges,
                                               ilmap_native *map, unsigned flags);

/**
 * Removes the native body whose code starts at code_start (its first
 * range), for code the runtime has freed (collectible assemblies,
 * unloaded modules), so that its addresses can be attached again. Its
 * native map is freed once no read can see it.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL); ILMAP_E_NOT_FOUND
 *         (no body starts there); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_remove_body(ilmap_store *store, uintptr_t code_start);

/** What a removal took out (counts): ilmap_store_remove_module(),
 *  ilmap_store_remove_version(). All 0 when nothing was removed or the
 *  call failed. */
typedef struct ilmap_store_removed {
    size_t il_maps;    /**< IL-level maps, one per (module, methodDef) that had one */
    size_t functions;  /**< function instances (FunctionIDs) */
    size_t versions;   /**< ReJIT versions (ReJITID not 0); original versions leave
                            with their function and are not counted */
    size_t bodies;     /**< native bodies */
} ilmap_store_removed;

/**
 * Removes everything the store holds for a module, for
 * ModuleUnloadStarted (doc/rejit.md#removal): the IL-level maps of its
 * methods (ilmap_store_set_il_map()), every function instance registered
 * in it (ilmap_store_add_function()), all their versions, the original
 * included, all their native bodies, whose addresses can then be
 * attached again, and its Portable PDB (ilmap_store_attach_pdb(): freed,
 * and its release called, once no read can see it). One publication: a read sees the module whole or not at
 * all. Reads that began before keep seeing all of it, maps and bodies
 * included, until they end; the maps are freed once no read can see them
 * (see ilmap_store_reader_begin()). A module the store knows nothing about
 * is ILMAP_OK with zero counts, and publishes nothing.
 *
 * @param module ModuleID, not 0.
 * @param removed optional; receives what was removed (zeroed on failure).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, module 0);
 *         ILMAP_E_NOMEM (nothing changed).
 */
ILMAP_EXPORT ilmap_status ilmap_store_remove_module(ilmap_store *store, ilmap_module_id module,
                                                    ilmap_store_removed *removed);

/**
 * Removes one ReJIT version of a function instance (doc/rejit.md#removal):
 * its IL map (ilmap_store_add_version()) and all its native bodies, whose
 * addresses can then be attached again. If it was the instance's current
 * version, the original (ReJITID 0) becomes current in the same
 * publication. Reads that began before keep seeing the version until they
 * end, as for ilmap_store_remove_module(). The original version cannot be
 * removed alone: it leaves with its module.
 *
 * @param rejit_id not 0.
 * @param removed optional; receives what was removed: versions 1 and the
 *        bodies (zeroed on failure).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL, function_id 0,
 *         rejit_id 0); ILMAP_E_NOT_FOUND (unknown function or version);
 *         ILMAP_E_NOMEM (nothing changed).
 */
ILMAP_EXPORT ilmap_status ilmap_store_remove_version(ilmap_store *store,
                                                     ilmap_function_id function_id,
                                                     ilmap_rejit_id rejit_id,
                                                     ilmap_store_removed *removed);

/** Called once the store no longer needs what a PDB handed to
 *  ilmap_store_attach_pdb() points into (the caller's buffer). */
typedef void (*ilmap_release_fn)(void *context);

/**
 * Attaches a module's Portable PDB (ilmap-pdb.h: opened over the module's
 * standalone .pdb, or its embedded one inflated), so that lookups of the
 * module's code answer with document, line and column too
 * (ilmap_store_snapshot_lookup_source(), doc/source-lines.md#store). Any
 * ModuleID not 0 may have one, before or after its functions are added
 * (ModuleLoadFinished is the natural moment); attaching again replaces
 * the PDB, pdb NULL detaches it (release and context are then ignored).
 * One publication, like the other writers: a read sees the old PDB or the
 * new one, whole.
 *
 * Ownership: on ILMAP_OK the store owns pdb. Once no read can see it any
 * more (the module removed with ilmap_store_remove_module(), the PDB
 * replaced by another attach or detached, or the store freed) the store
 * calls ilmap_pdb_free(pdb) and then, if release is not NULL,
 * release(context), exactly once: the moment to free the buffer the PDB
 * points into. release runs on the thread of whichever writer (or
 * ilmap_store_reclaim(), ilmap_store_free()) reclaims it, with the
 * writers' mutex held: it must not call the store's writers. On failure
 * nothing changed, nothing is called, and pdb stays the caller's.
 * Attaching the PDB the module has already is ILMAP_OK and changes nothing
 * (the first release stays); a PDB must not be handed over twice
 * otherwise: one attached to another module is refused.
 *
 * @param module ModuleID, not 0.
 * @return ILMAP_OK (also a detach of a module without a PDB: nothing is
 *         published); ILMAP_E_INVALID_ARG (store NULL, module 0);
 *         ILMAP_E_EXISTS (pdb is attached to another module);
 *         ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_store_attach_pdb(ilmap_store *store, ilmap_module_id module,
                                                 ilmap_pdb *pdb, ilmap_release_fn release,
                                                 void *context);

/**
 * Frees now whatever no read can still see (every writer does this after
 * publishing; call it when writes stop but memory should come back).
 * Locks the writers' mutex.
 * @param pending optional; receives how many retired objects are still
 *        waiting for readers (0 on failure).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_reclaim(ilmap_store *store, size_t *pending);

/** Counters of a store (ilmap_store_get_stats()). */
typedef struct ilmap_store_stats {
    uint64_t generation;  /**< snapshots published so far */
    uint64_t retired;     /**< objects waiting for readers to leave */
    uint64_t reclaimed;   /**< objects freed after their grace period */
    uint32_t readers;     /**< registered reader slots */
    uint32_t max_readers; /**< reader slots in all */
    size_t functions;     /**< registered function instances */
    size_t versions;      /**< versions, the original ones included */
    size_t bodies;        /**< native bodies */
    size_t il_maps;       /**< (module, methodDef) with an IL-level map */
    /** 1 when ILMAP_STORE_WRITER_FENCE is in effect (asked for, and the
     *  OS has the process-wide fence), else 0. */
    uint32_t writer_fence;
    size_t pdbs;          /**< modules with a Portable PDB attached */
    /** Methods whose sequence points the store keeps decoded for
     *  ilmap_store_lookup_source() (each method with a body while its
     *  module's PDB is attached; doc/source-lines.md#store). */
    size_t source_methods;
    /** The heap bytes those take: 8 per method of each attached PDB, and
     *  per decoded method its ilmap_pdb_lines
     *  (ilmap_pdb_lines_get_memory_bytes(): 28 per visible point). */
    size_t source_bytes;
    /** The heap bytes of the bodies' blocks (each body's fields, ranges
     *  and precomposed answers; chunks of the store's own allocator, free
     *  blocks in them included), not their native and IL maps. */
    size_t body_bytes;
} ilmap_store_stats;

/**
 * The store's counters, under the writers' mutex (not async-signal-safe).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store or out NULL; *out zeroed
 *         when out is not NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_get_stats(ilmap_store *store, ilmap_store_stats *out);

/* ---- Readers --------------------------------------------------------
 *
 * How reclamation works (epoch-based). The store keeps a global epoch,
 * and each reader slot an announced epoch (0 = not reading). A read
 * begins by announcing the epoch it reads from the global one, then
 * loading the current snapshot; it ends by announcing 0. A writer
 * publishes by swapping the snapshot pointer, then advances the global
 * epoch and tags what it replaced with the new epoch: a reader that
 * announced that epoch or a later one began after the swap and cannot see
 * the replaced objects. After each publication the writer scans the slots
 * and frees every retired batch whose tag is at most the smallest epoch
 * announced. Besides bookkeeping on its own slot's cache line, a read
 * costs one sequentially consistent store and two loads of lines that
 * change only when a writer publishes. A stalled reader delays freeing
 * (memory grows) but never blocks anyone.
 */

/**
 * Claims a reader slot for the calling thread. Do it once per thread
 * (e.g. when a sampler thread starts or when the profiler sees a thread
 * created), before its first read, and keep the handle in thread-local
 * storage. Lock-free, allocation-free (the slots were allocated by
 * ilmap_store_create()), async-signal-safe.
 *
 * A slot must be used by one thread at a time. A signal handler running
 * on that thread may use the same slot, even while the interrupted code is
 * inside a read: reads nest (see ilmap_store_reader_begin()).
 *
 * @param out receives the slot, or NULL on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (store or out NULL); ILMAP_E_FULL
 *         (every slot is taken: create the store with more).
 */
ILMAP_EXPORT ilmap_status ilmap_store_reader_register(ilmap_store *store,
                                                      ilmap_store_reader **out);

/**
 * Gives a slot back (e.g. when its thread exits). Lock-free,
 * async-signal-safe. NULL is ILMAP_E_INVALID_ARG.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (reader NULL, or inside a read:
 *         end it first; the slot stays registered).
 */
ILMAP_EXPORT ilmap_status ilmap_store_reader_unregister(ilmap_store_reader *reader);

/**
 * Begins a read: *snapshot receives the store's current snapshot, which
 * no writer will change or free until the matching
 * ilmap_store_reader_end(); the store owns it (never free it). Every
 * query on it answers from that one consistent state.
 *
 * Wait-free, lock-free, allocation-free, async-signal-safe. Reads on one
 * slot nest: a begin inside a read (a signal handler that interrupted
 * it, or plain nesting) needs its own end, and only the outermost end
 * releases the snapshots; a nested begin returns the current snapshot,
 * which may be newer than the outer one's.
 *
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (reader or snapshot NULL;
 *         *snapshot NULL); ILMAP_E_LIMIT (nesting deeper than 2^31;
 *         *snapshot NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_reader_begin(ilmap_store_reader *reader,
                                                   const ilmap_store_snapshot **snapshot);

/**
 * Ends the innermost read begun on the slot. The snapshots and pointers it
 * gave must not be used afterwards. Same guarantees as
 * ilmap_store_reader_begin().
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (reader NULL, or not inside a
 *         read).
 */
ILMAP_EXPORT ilmap_status ilmap_store_reader_end(ilmap_store_reader *reader);

/* ---- Queries on a snapshot ------------------------------------------
 *
 * Common to every query below: lock-free, allocation-free,
 * async-signal-safe, O(log n) unless said otherwise; pointers they give
 * (maps) are valid until the read ends and must not be freed. A NULL
 * snapshot is ILMAP_E_INVALID_ARG.
 */

/** Where an address is (ilmap_store_snapshot_lookup()). */
typedef struct ilmap_store_location {
    ilmap_function_id function_id;
    ilmap_rejit_id rejit_id;   /**< the version the code belongs to */
    ilmap_module_id module_id;
    uint32_t method_def;
    uintptr_t code_start;      /**< the body's code start (first range) */
    uint32_t range_index;      /**< 0 = hot, 1 = cold, ... */
    uint32_t native_offset;    /**< offset in the body, ranges end to end */
    /** ilmap_native_to_il()'s answer on the body's native map: one
     *  ILMAP_MAPPING_* value; ILMAP_MAPPING_NO_INFO when it has none. */
    unsigned mapping;
    /** ilmap_native_to_il()'s IL offset (0 for PROLOG, NO_MAPPING,
     *  NO_INFO; lastIL for EPILOG): in the IL the body was compiled
     *  from, unless the body has ILMAP_BODY_ORIGINAL_IL. */
    uint32_t il_offset;
    /** The original IL offset: for EXACT, APPROXIMATE and EPILOG answers
     *  of a body without ILMAP_BODY_ORIGINAL_IL, ilmap_new_to_old()
     *  through the IL map the body captured (doc/rejit.md#store-lookup; no map:
     *  unchanged, so il_offset); otherwise il_offset as it is. */
    uint32_t original_il_offset;
} ilmap_store_location;

/**
 * An instruction pointer -> function, version, body, IL offset, original
 * IL offset: the body whose ranges hold address, then ilmap_native_to_il()
 * on its native map at the native offset, then ilmap_new_to_old() through
 * its captured IL map (doc/rejit.md#store-lookup). The store answers all
 * of it from structures built when the body was attached: an address
 * index (a radix tree over 64 KiB pages) and the body's composed answers,
 * so a lookup costs a few dependent loads whatever the number of bodies.
 * Bodies of old and reverted versions answer too; whether rejit_id is the
 * current version is ilmap_store_snapshot_get_function()'s answer (left
 * out here: it costs a second search, and a sampler rarely needs it).
 * @param out receives the location; zeroed (mapping NO_INFO) on failure.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (no body holds address);
 *         ILMAP_E_INVALID_ARG (snapshot or out NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_lookup(const ilmap_store_snapshot *snapshot,
                                                      uintptr_t address,
                                                      ilmap_store_location *out);

/**
 * ilmap_store_snapshot_lookup() in one call: begins a read on reader,
 * looks up, ends the read. out holds only values, so it stays valid. What a
 * sampler calls from its signal handler. Same guarantees.
 * @return as ilmap_store_snapshot_lookup(); ILMAP_E_INVALID_ARG also for
 *         reader NULL; ILMAP_E_LIMIT (nesting too deep).
 */
ILMAP_EXPORT ilmap_status ilmap_store_lookup(ilmap_store_reader *reader, uintptr_t address,
                                             ilmap_store_location *out);

/** Where an address is in the source (ilmap_store_snapshot_lookup_source()). */
typedef struct ilmap_store_source {
    /** The module's PDB (ilmap_store_attach_pdb()), NULL when it has none;
     *  valid until the read ends: for ilmap_pdb_get_document_name() on
     *  point.document, or ilmap_pdb_find_source() to learn a defect. */
    const ilmap_pdb *pdb;
    /** The sequence point that holds the address's original IL offset
     *  (document row, lines, columns, its own IL offset); zeroed unless
     *  ILMAP_OK. */
    ilmap_pdb_sequence_point point;
} ilmap_store_source;

/** Flag for ilmap_store_snapshot_lookup_source(): address is a return
 *  address (the IP of any frame but the innermost): look up address - 1,
 *  the last byte of the call instruction, as the runtime's stack traces
 *  do (doc/source-lines.md#return-address). */
#define ILMAP_STORE_RETURN_ADDRESS (1u << 0)

/**
 * The whole journey: an instruction pointer -> function, version, native
 * and IL offsets (ilmap_store_snapshot_lookup()), then the source of the
 * location's original IL offset through the module's PDB: the sequence
 * point ilmap_pdb_find_source() answers for method token
 * 0x06000000 | method_def at original_il_offset, by the runtime's rule
 * (doc/source-lines.md#store). Which IL offset gets a line, per mapping:
 * EXACT, APPROXIMATE, EPILOG, PROLOG and UNMAPPED_ADDRESS (the runtime's
 * NO_MAPPING) use original_il_offset as the location gives it (0 for
 * PROLOG and NO_MAPPING, as the runtime's stack traces use 0); NO_INFO (a
 * body attached without a native map) has no IL offset, so no source.
 * Lock-free, allocation-free, async-signal-safe like every query here:
 * the method's sequence points were decoded by the writer that attached
 * its body or the PDB (ilmap_pdb_lines, kept with the PDB; the store's
 * stats count them), so the source step is a search of the MODULES table
 * and a binary search; only a method whose decode could not allocate is
 * decoded from its blob per query, to the same answer
 * (doc/source-lines.md#store for the cost and the memory).
 *
 * @param flags 0 or ILMAP_STORE_RETURN_ADDRESS (then *location is that
 *        of address - 1).
 * @param location receives the location whenever a body holds the
 *        address, whatever the status (function_id is then not 0);
 *        zeroed (mapping NO_INFO) otherwise.
 * @param source receives the module's PDB whenever a body holds the
 *        address and the module has one, and the point on ILMAP_OK only;
 *        zeroed otherwise.
 * @return ILMAP_OK (location and source->point answered);
 *         ILMAP_E_NOT_FOUND with location->function_id 0 (no body holds
 *         the address) or not 0 (a body does, but there is no source: no
 *         PDB attached to its module, source->pdb NULL; or the mapping is
 *         NO_INFO, or the PDB has no visible sequence point at or before
 *         the offset, source->pdb set); ILMAP_E_FORMAT (the method's
 *         sequence-point blob is defective where the query read it;
 *         location and source->pdb set: ilmap_pdb_find_source() with an
 *         ilmap_pdb_error says what and where); ILMAP_E_INVALID_ARG
 *         (snapshot, location or source NULL, an unknown flag; the
 *         outputs given are zeroed).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_lookup_source(const ilmap_store_snapshot *snapshot,
                                                             uintptr_t address, unsigned flags,
                                                             ilmap_store_location *location,
                                                             ilmap_store_source *source);

/**
 * ilmap_store_snapshot_lookup_source() in one call: begins a read on
 * reader, looks up, ends the read. What a sampler calls from its signal
 * handler. The read has ended when it returns, so source->pdb may be used
 * only where the caller knows it is still attached, or inside a read it
 * began itself on the same slot around the call (reads nest: the PDB then
 * stays valid until that read ends); source->point holds only values.
 * Same guarantees.
 * @return as ilmap_store_snapshot_lookup_source(); ILMAP_E_INVALID_ARG
 *         also for reader NULL; ILMAP_E_LIMIT (nesting too deep; outputs
 *         zeroed).
 */
ILMAP_EXPORT ilmap_status ilmap_store_lookup_source(ilmap_store_reader *reader, uintptr_t address,
                                                    unsigned flags, ilmap_store_location *location,
                                                    ilmap_store_source *source);

/**
 * The IL map of a version (doc/rejit.md#store-maps): for rejit_id 0, the
 * method's current IL-level map (ilmap_store_set_il_map()); otherwise the
 * version's own. *map is NULL when there is none (translation is the identity),
 * and always in a store created with ILMAP_STORE_COMPACT_IL, which keeps
 * no map (ilmap_store_snapshot_get_il_entries() answers there).
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (unknown function or version; *map
 *         NULL); ILMAP_E_INVALID_ARG (snapshot or map NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_il_map(const ilmap_store_snapshot *snapshot,
                                                          ilmap_function_id function_id,
                                                          ilmap_rejit_id rejit_id,
                                                          const ilmap **map);

/**
 * The entries of the IL map ilmap_store_snapshot_get_il_map() names (the
 * version's, or for rejit_id 0 the method's), as ilmap_export() gives
 * them, with the buffer protocol (doc/buffer-protocol.md). Works in every
 * store: from the kept map, or in a store created with
 * ILMAP_STORE_COMPACT_IL from the packed entries. No map: *total 0.
 * Allocation-free and lock-free, like every read. O(count).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap below the count; the first cap
 *         entries written); ILMAP_E_NOT_FOUND (unknown function or
 *         version; *total 0); ILMAP_E_INVALID_ARG (snapshot or total
 *         NULL, out NULL with cap > 0; *total 0).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_il_entries(
    const ilmap_store_snapshot *snapshot, ilmap_function_id function_id, ilmap_rejit_id rejit_id,
    size_t cap, size_t *total, ilmap_entry *out);

/**
 * The IL-level map of (module, method_def); *map NULL when none is set
 * (or it was cleared), and always in a store created with
 * ILMAP_STORE_COMPACT_IL (ilmap_store_snapshot_get_method_entries()
 * answers there).
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (snapshot or map NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_method_map(const ilmap_store_snapshot *snapshot,
                                                              ilmap_module_id module,
                                                              uint32_t method_def,
                                                              const ilmap **map);

/**
 * The entries of the IL-level map of (module, method_def), as
 * ilmap_export() gives them, with the buffer protocol
 * (doc/buffer-protocol.md), in every store; *total 0 when none is set.
 * Allocation-free and lock-free. O(count).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (the first cap entries written);
 *         ILMAP_E_INVALID_ARG (snapshot or total NULL, out NULL with
 *         cap > 0; *total 0).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_method_entries(
    const ilmap_store_snapshot *snapshot, ilmap_module_id module, uint32_t method_def, size_t cap,
    size_t *total, ilmap_entry *out);

/** What the store knows of a function instance. */
typedef struct ilmap_store_function_info {
    ilmap_module_id module_id;
    uint32_t method_def;
    ilmap_rejit_id current_rejit_id; /**< 0 = the original version */
} ilmap_store_function_info;

/**
 * A function instance's method and current version.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (not registered; *out zeroed);
 *         ILMAP_E_INVALID_ARG (snapshot or out NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_function(const ilmap_store_snapshot *snapshot,
                                                            ilmap_function_id function_id,
                                                            ilmap_store_function_info *out);

/**
 * A function instance's versions, ReJITIDs ascending (0 first), copied to
 * the caller's out with the buffer protocol of ilmap.h: *total = the
 * count, the first min(cap, count) written; a size query is (cap 0, out
 * NULL). O(log n + count).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap < count: the first cap
 *         written); ILMAP_E_NOT_FOUND (not registered; *total 0);
 *         ILMAP_E_INVALID_ARG (snapshot or total NULL, or cap > 0 with out
 *         NULL; *total 0 when total is set).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_list_versions(const ilmap_store_snapshot *snapshot,
                                                             ilmap_function_id function_id,
                                                             size_t cap, size_t *total,
                                                             ilmap_rejit_id *out);

/**
 * The code starts of a version's native bodies, ascending, with the same
 * buffer protocol (GetNativeCodeStartAddresses' question).
 * O(log n + count).
 * @return ILMAP_OK (a version with no body: *total 0); ILMAP_E_TRUNCATED;
 *         ILMAP_E_NOT_FOUND (unknown function or version; *total 0);
 *         ILMAP_E_INVALID_ARG as ilmap_store_snapshot_list_versions().
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_list_bodies(const ilmap_store_snapshot *snapshot,
                                                           ilmap_function_id function_id,
                                                           ilmap_rejit_id rejit_id, size_t cap,
                                                           size_t *total, uintptr_t *out);

/** A native body (ilmap_store_snapshot_get_body()). */
typedef struct ilmap_store_body_info {
    ilmap_function_id function_id;
    ilmap_rejit_id rejit_id;
    ilmap_module_id module_id;
    uint32_t method_def;
    unsigned flags;                 /**< as given: ILMAP_BODY_ORIGINAL_IL */
    uint32_t code_size;             /**< the ranges' total size */
    size_t range_count;
    ilmap_code_range ranges[ILMAP_STORE_MAX_RANGES]; /**< as given */
    const ilmap_native *native_map; /**< NULL when attached without one, and
                                         in a store created with
                                         ILMAP_STORE_COMPACT_NATIVE */
    const ilmap *il_map;            /**< the IL map captured when attached;
                                         NULL without one, and in a store
                                         created with ILMAP_STORE_COMPACT_IL
                                         (see
                                         ilmap_store_snapshot_get_body_il_entries()) */
} ilmap_store_body_info;

/**
 * The native body holding address (its code start or any address in its
 * ranges), e.g. to answer GetILToNativeMapping3's question from
 * native_map. The maps in *out belong to the snapshot.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (*out zeroed); ILMAP_E_INVALID_ARG
 *         (snapshot or out NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_body(const ilmap_store_snapshot *snapshot,
                                                        uintptr_t address,
                                                        ilmap_store_body_info *out);

/**
 * The native map of the body holding address, as the runtime exports it
 * (GetILToNativeMapping2/3's array; ilmap_native_export() of the map
 * handed to ilmap_store_add_body()), with the buffer protocol
 * (doc/buffer-protocol.md). Works in every store: from the kept map, or
 * in a store created with ILMAP_STORE_COMPACT_NATIVE from the packed
 * entries. A body attached without a map has none (*total 0).
 * Allocation-free and lock-free, like every read. O(count).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (cap below the count; the first cap
 *         entries written); ILMAP_E_NOT_FOUND (no body holds address;
 *         *total 0); ILMAP_E_INVALID_ARG (snapshot or total NULL, out
 *         NULL with cap > 0; *total 0).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_native_entries(
    const ilmap_store_snapshot *snapshot, uintptr_t address, size_t cap, size_t *total,
    ilmap_native_entry *out);

/**
 * The entries of the IL map captured by the body holding address when it
 * was attached (ilmap_store_body_info.il_map: the map its answers were
 * composed through), as ilmap_export() gives them, with the buffer
 * protocol (doc/buffer-protocol.md). Works in every store: from the kept
 * map, or in a store created with ILMAP_STORE_COMPACT_IL from the packed
 * entries. A body attached without an IL map: *total 0.
 * Allocation-free and lock-free. O(count).
 * @return ILMAP_OK; ILMAP_E_TRUNCATED (the first cap entries written);
 *         ILMAP_E_NOT_FOUND (no body holds address; *total 0);
 *         ILMAP_E_INVALID_ARG (snapshot or total NULL, out NULL with
 *         cap > 0; *total 0).
 */
ILMAP_EXPORT ilmap_status ilmap_store_snapshot_get_body_il_entries(
    const ilmap_store_snapshot *snapshot, uintptr_t address, size_t cap, size_t *total,
    ilmap_entry *out);

/**
 * The snapshot's generation: how many snapshots the store had published
 * when this one was (0 for a new store). Equal generations mean equal
 * contents, so a reader can cache answers and check the generation.
 * Returns 0 for NULL.
 */
ILMAP_EXPORT uint64_t ilmap_store_snapshot_get_generation(const ilmap_store_snapshot *snapshot);

/* ---------------------------------------------------------------------
 * The FunctionIDMapper
 * ------------------------------------------------------------------ */

typedef struct ilmap_fid_mapper ilmap_fid_mapper;

/** The runtime's callbacks (corprof.idl: FunctionIDMapper,
 *  FunctionIDMapper2), with BOOL as int32_t, FunctionID as
 *  ilmap_function_id and the returned client ID (UINT_PTR) as uintptr_t.
 *  ilmap_function_id is uintptr_t, so these are the runtime's ABI. */
typedef uintptr_t(ILMAP_STDCALL *ilmap_function_id_mapper_fn)(ilmap_function_id function_id,
                                                             int32_t *hook_function);
typedef uintptr_t(ILMAP_STDCALL *ilmap_function_id_mapper2_fn)(ilmap_function_id function_id,
                                                              void *client_data,
                                                              int32_t *hook_function);

/**
 * The caller's decision for a FunctionID seen for the first time:
 * non-zero to hook it (enter/leave/tailcall probes), 0 not to. It runs on
 * the JIT's thread, possibly with runtime locks held
 * (doc/function-ids.md#when-called): keep it short and do not block on other
 * threads. It may run more than once for one FunctionID when threads race to
 * map it (the mapper never makes a thread wait for another, which could
 * deadlock on those locks); only the first published decision counts.
 */
typedef int (*ilmap_fid_filter_fn)(void *context, ilmap_function_id function_id);

/**
 * Creates a mapper for at most max_functions distinct FunctionIDs.
 *
 * Client IDs: a hooked FunctionID gets a dense index + 1 (1, 2, 3, ... in
 * the order first seen; never 0), so a profiler's hooks can index an
 * array of max_functions per-function records by client ID - 1. Every
 * later call for the same FunctionID answers the same (racing JITs,
 * re-JIT and each tier call it again: doc/function-ids.md#when-called). The
 * numbering has no holes, even when threads race to map new FunctionIDs: client
 * IDs 1..n are exactly the n hooked FunctionIDs.
 *
 * The table has a fixed capacity (twice max_functions, a power of two),
 * allocated here: it never grows, so lookups need no reclamation.
 *
 * @param filter NULL hooks every function.
 * @param context passed to filter.
 * @param out receives the mapper, or NULL on failure.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (out NULL, max_functions 0 or
 *         above 2^24); ILMAP_E_NOMEM.
 */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_create(size_t max_functions, ilmap_fid_filter_fn filter,
                                                  void *context, ilmap_fid_mapper **out);

/**
 * Frees the mapper; NULL is a no-op. If it is the global mapper
 * (ilmap_fid_mapper_set_global()) it is uninstalled first. The runtime
 * must no longer call its callbacks (it keeps calling the mapper for the
 * life of the process: free at shutdown only), and no other call may be
 * in progress.
 */
ILMAP_EXPORT void ilmap_fid_mapper_free(ilmap_fid_mapper *mapper);

/**
 * Maps a FunctionID, deciding on first sight (the filter) and answering the
 * same ever after. Lock-free: no thread waits for another (a thread that
 * finds a client ID being assigned helps assign it); an existing mapping
 * is found by probing the table, no write. Allocation-free.
 * Async-signal-safe if the filter is.
 *
 * @param client_id receives the client ID when hooked, 0 when not.
 * @param hook receives 1 to hook, 0 not to.
 * @return ILMAP_OK; ILMAP_E_INVALID_ARG (mapper, client_id or hook NULL,
 *         function_id 0); ILMAP_E_FULL (max_functions distinct FunctionIDs
 *         already mapped: the FunctionID is not mapped, and later calls
 *         answer ILMAP_E_FULL too. Racers reserve room before they claim,
 *         so within the last few places a FunctionID can be refused while
 *         others are being claimed at that instant; leave as much
 *         headroom as there are JIT threads). On failure *client_id = 0,
 *         *hook = 0.
 */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_map(ilmap_fid_mapper *mapper,
                                               ilmap_function_id function_id,
                                               uintptr_t *client_id, int *hook);

/**
 * The mapping of a FunctionID already mapped, never deciding: what an
 * enter/leave hook may call. Wait-free (a bounded probe), allocation-free,
 * async-signal-safe.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (not mapped yet, or being mapped
 *         right now; also for a FunctionID refused with ILMAP_E_FULL);
 *         ILMAP_E_INVALID_ARG (mapper, client_id or hook NULL). On failure
 *         *client_id = 0, *hook = 0.
 */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_lookup(const ilmap_fid_mapper *mapper,
                                                  ilmap_function_id function_id,
                                                  uintptr_t *client_id, int *hook);

/**
 * The FunctionID of a client ID (reverse of a hooked mapping), written to
 * the caller's *function_id: what an ELT3 hook, given the client ID,
 * needs to call back into the profiling API. Wait-free, allocation-free,
 * async-signal-safe.
 * @return ILMAP_OK; ILMAP_E_NOT_FOUND (0, or an index not handed out;
 *         *function_id 0); ILMAP_E_INVALID_ARG (mapper or function_id
 *         NULL).
 */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_get_function(const ilmap_fid_mapper *mapper,
                                                        uintptr_t client_id,
                                                        ilmap_function_id *function_id);

/** Counters of a mapper, read atomically one by one (not a snapshot). */
typedef struct ilmap_fid_mapper_stats {
    size_t max_functions;
    size_t mapped;   /**< distinct FunctionIDs with a published decision */
    size_t hooked;   /**< of which hooked with a client ID: IDs 1..hooked */
    size_t refused;  /**< calls answered ILMAP_E_FULL */
} ilmap_fid_mapper_stats;

/** The mapper's counters. Lock-free.
 *  @return ILMAP_OK; ILMAP_E_INVALID_ARG (mapper or out NULL; *out zeroed
 *          when out is not NULL). */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_get_stats(const ilmap_fid_mapper *mapper,
                                                     ilmap_fid_mapper_stats *out);

/**
 * A FunctionIDMapper2 (ilmap_function_id_mapper2_fn): pass it to
 * ICorProfilerInfo3::SetFunctionIDMapper2 with clientData = the mapper.
 * Answers ilmap_fid_mapper_map(): a hooked function gets *hook_function =
 * 1 and its client ID; an unhooked one *hook_function = 0 and its own
 * FunctionID back (never 0, though 0 would be legal:
 * doc/decisions.md#unhooked-id). On any failure (client_data NULL, function_id
 * 0, table full) the function is left unhooked: *hook_function = 0, the
 * FunctionID is returned, and the profiled process goes on. hook_function NULL:
 * nothing is written, the FunctionID is returned.
 */
ILMAP_EXPORT uintptr_t ILMAP_STDCALL ilmap_fid_mapper_callback2(ilmap_function_id function_id,
                                                                void *client_data,
                                                                int32_t *hook_function);

/**
 * A FunctionIDMapper (ilmap_function_id_mapper_fn) for
 * ICorProfilerInfo::SetFunctionIDMapper, which passes no client data: it
 * answers as ilmap_fid_mapper_callback2() with the global mapper, or
 * leaves the function unhooked when none is installed.
 */
ILMAP_EXPORT uintptr_t ILMAP_STDCALL ilmap_fid_mapper_callback(ilmap_function_id function_id,
                                                               int32_t *hook_function);

/**
 * Installs mapper as the process's global mapper (the library's one piece
 * of global mutable state, an atomic pointer used only by
 * ilmap_fid_mapper_callback()); NULL uninstalls. Thread-safe.
 * @return ILMAP_OK (always).
 */
ILMAP_EXPORT ilmap_status ilmap_fid_mapper_set_global(ilmap_fid_mapper *mapper);

#ifdef __cplusplus
}
#endif

#endif /* ILMAP_VERSIONS_H */
