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

static const vt_shape store_shapes[T_COUNT] = {
    [T_METHODS] = { 2, 3 },
    [T_FUNCTIONS] = { 1, 4 },
    [T_METHOD_FUNCS] = { 3, 3 },
    [T_VERSIONS] = { 2, 3 },
    [T_BODIES] = { 3, 4 },
    [T_MODULES] = { 1, 2 },
};

/*
 * An IL map as the store holds it. One map may be referenced by a
 * METHODS or VERSIONS record and by the bodies that captured it, so it is
 * counted; the count is read and written by writers only (under the
 * mutex), never by readers, who only read `map`.
 */
struct store_mapref {
    ilmap *map;
    uint64_t refs;
};

/*
 * A module's Portable PDB as the store holds it (ilmap_store_attach_pdb()):
 * referenced by one MODULES record only, so not counted. Retired
 * (RETIRE_PDB) when the record goes or points elsewhere; its reclamation
 * frees the PDB, then calls release(context).
 */
struct store_pdbref {
    ilmap_pdb *pdb;
    ilmap_release_fn release;
    void *context;
};

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
    ilmap_native *native;      /* owned; may be NULL */
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

/* A methodDef token: table 0x06, row not 0. */
static inline int is_method_def(uint32_t token)
{
    return (token >> 24) == 0x06u && (token & 0x00FFFFFFu) != 0;
}

#endif
