/*
 * The inside of an ilmap_store: its snapshots (ilmap_store_snapshot), the
 * tables a snapshot holds, and the objects records point to.
 *
 * A snapshot is a small struct of table pointers (each table the root of
 * a copy-on-write B+tree, table.h); tables' nodes and the objects their
 * records point to are immutable once published, and shared by every
 * snapshot that did not change them.
 *
 * Tables, their keys and payloads (64-bit words; pointers stored as
 * integers):
 *   METHODS         (module, methodDef)      -> mapref   IL-level maps (doc/il-maps.md#set-map)
 *   FUNCTIONS       (FunctionID)             -> module, methodDef, current ReJITID
 *   METHOD_FUNCS    (module, methodDef, FunctionID)      the instances of a method (revert)
 *   VERSIONS        (FunctionID, ReJITID)    -> mapref or 0 (ReJITID 0: uses METHODS)
 *   BODIES          (FunctionID, ReJITID, code start) -> body
 *   MODULES         (module)                 -> pdbref   the module's Portable PDB (source.c)
 * Besides the tables, a snapshot holds the address index (addr_index.h):
 * code address -> the body and which of its ranges, a radix tree over
 * 64 KiB pages. A body carries its answers (answers.h): native offset ->
 * mapping, IL offset and original IL offset, composed when it is
 * attached, in the same allocation. A sampler's lookup is thus the
 * index's few node loads, one page leaf, the body, and its answers.
 */
#ifndef ILMAP_VERSIONS_STORE_H
#define ILMAP_VERSIONS_STORE_H

#include "ilmap-versions.h"
#include "platform/atomic.h"
#include "platform/thread.h"
#include "versions/addr_index.h"
#include "versions/answers.h"
#include "versions/body_heap.h"
#include "versions/epoch.h"
#include "versions/packed.h"
#include "versions/table.h"

enum store_table {
    T_METHODS,
    T_FUNCTIONS,
    T_METHOD_FUNCS,
    T_VERSIONS,
    T_BODIES,
    T_MODULES,
    T_COUNT
};

/* Each table's words by name: the one place a record's layout is
 * written (keys first, then the payload). Records are read and built
 * through these names only. */
enum { METHOD_MODULE, METHOD_DEF, METHOD_MAP, METHOD_WORDS };              /* METHODS */
enum { FUNC_ID, FUNC_MODULE, FUNC_METHOD_DEF, FUNC_CURRENT, FUNC_WORDS };  /* FUNCTIONS */
enum { INST_MODULE, INST_METHOD_DEF, INST_FUNC, INST_WORDS };              /* METHOD_FUNCS */
enum { VER_FUNC, VER_REJIT, VER_MAP, VER_WORDS };                          /* VERSIONS */
enum { BODY_FUNC, BODY_REJIT, BODY_START, BODY_PTR, BODY_WORDS };          /* BODIES */
enum { MOD_ID, MOD_PDB, MOD_WORDS };                                       /* MODULES */

static const vt_shape store_shapes[T_COUNT] = {
    [T_METHODS] = { METHOD_MAP, METHOD_WORDS },
    [T_FUNCTIONS] = { FUNC_MODULE, FUNC_WORDS },
    [T_METHOD_FUNCS] = { INST_WORDS, INST_WORDS },
    [T_VERSIONS] = { VER_MAP, VER_WORDS },
    [T_BODIES] = { BODY_PTR, BODY_WORDS },
    [T_MODULES] = { MOD_PDB, MOD_WORDS },
};

/*
 * An IL map as the store holds it. One map may be referenced by a
 * METHODS or VERSIONS record and by the bodies that captured it, so it is
 * counted; the count is read and written by writers only (under the
 * mutex), never by readers. A store created with ILMAP_STORE_COMPACT_IL
 * keeps the map's entries packed (packed.h) in this allocation instead
 * of the map (map NULL); the other stores keep the map (packed empty).
 * Either way count is the map's entries, lenient ILMAP_LENIENT or 0 as
 * ilmap_get_flags() said.
 */
struct store_mapref {
    ilmap *map;
    uint64_t refs;
    uint32_t count;
    unsigned lenient;
    uint8_t packed[];
};

/*
 * A module's Portable PDB as the store holds it (ilmap_store_attach_pdb()):
 * referenced by one MODULES record only, so not counted. Retired
 * (RETIRE_PDB) when the record goes or points elsewhere; its reclamation
 * frees the decoded lines and the PDB, then calls release(context).
 *
 * lines: one slot per MethodDebugInformation row (methods of them), the
 * method's sequence points decoded once (ilmap_pdb_lines) or NULL. Writers
 * fill a slot, under the mutex, for every method that gets a body while
 * the PDB is attached (and, when it is attached, for the module's methods
 * already there); a slot goes from NULL to its lines once and never
 * changes again while the ref lives. The lines are a pure function of the
 * PDB, so a reader that finds a slot filled gets exactly the answer a
 * decode from the blob would give (ilmap_pdb_find_source(), which it
 * falls back to on NULL: a decode the writer could not allocate for).
 * decoded, bytes: the filled slots and their heap bytes, slots included
 * (writer-only; ilmap_store_get_stats()).
 */
struct store_pdbref {
    ilmap_pdb *pdb;
    ilmap_release_fn release;
    void *context;
    uint32_t methods;
    ilmap_atomic_ptr *lines;
    size_t decoded, bytes;
};

/* The slot of a MethodDef token's row, or NULL when the PDB has no such
 * row (readers load it with acquire, writers fill it: store.c). */
static inline ilmap_atomic_ptr *pdbref_slot(const struct store_pdbref *ref, uint32_t method_def)
{
    uint32_t row = method_def & 0x00FFFFFFu;
    return row == 0 || row > ref->methods ? NULL : &ref->lines[row - 1];
}

/* The decoded lines of a MethodDef token, or NULL: any thread (source.c). */
static inline const ilmap_pdb_lines *pdbref_lines(const struct store_pdbref *ref,
                                                  uint32_t method_def)
{
    ilmap_atomic_ptr *slot = pdbref_slot(ref, method_def);
    return slot ? ilmap_atomic_load_ptr(slot, ilmap_mo_acquire) : NULL;
}

struct store_range {
    uintptr_t start;
    size_t size;
    uint32_t base; /* native offset of the range's first byte */
};

struct store_body {
    ilmap_function_id function_id;
    ilmap_rejit_id rejit_id;
    ilmap_module_id module_id;
    uint32_t method_def;
    unsigned flags;
    body_answers answers;      /* in this allocation, after ranges[] */
    ilmap_native *native;      /* owned; NULL without a map, or in a compact store */
    const uint8_t *packed;     /* compact store: the exported entries (packed.h), in this
                                * allocation after the answers; NULL otherwise */
    uint32_t packed_count;     /* their number */
    struct store_mapref *il;   /* captured when attached; counted; may be NULL */
    const ilmap *il_map;       /* il->map */
    uint32_t code_size;
    uint32_t nranges;
    size_t bytes; /* its block's size in the store's body heap */
    struct store_range ranges[];
};

/* A snapshot. Immutable once published. */
struct ilmap_store_snapshot {
    uint64_t generation;
    vt_top *tables[T_COUNT];
    ax_root code; /* the address index */
};

/* Readers read `current` and epoch.global on every read; both sit on
 * lines of their own, away from the mutex and the writer-only fields. */
struct ilmap_store {
    _Alignas(64) ilmap_atomic_ptr current; /* struct ilmap_store_snapshot * */
    epoch_domain epoch;
    _Alignas(64) ilmap_mutex lock; /* writers */
    uint64_t next_gen;                 /* writer-only: transaction generations */
    unsigned flags;                    /* as created: ILMAP_STORE_* */
    body_heap bodies;                  /* writer-only: the bodies' blocks */
};

static inline uint64_t word_of_ptr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static inline void *ptr_of_word(uint64_t w)
{
    return (void *)(uintptr_t)w;
}

/* A module's PDB record in a snapshot, or NULL: any thread (source.c;
 * store.c's writers on the current snapshot). */
static inline struct store_pdbref *snapshot_pdbref(const struct ilmap_store_snapshot *v,
                                                   ilmap_module_id module)
{
    const uint64_t key[1] = { module };
    const uint64_t *r = vt_find(store_shapes[T_MODULES], v->tables[T_MODULES], key);
    return r ? ptr_of_word(r[MOD_PDB]) : NULL;
}

/* A methodDef token: table 0x06, row not 0. */
static inline int is_method_def(uint32_t token)
{
    return (token >> 24) == 0x06u && (token & 0x00FFFFFFu) != 0;
}

#endif
