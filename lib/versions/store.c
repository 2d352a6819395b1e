/*
 * The version store's writers: every change is one transaction that
 * copies what it touches (table.h), publishes the new snapshot with one
 * atomic swap, and retires what it replaced (epoch.h). Writers serialize
 * on one mutex; readers never see it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/size_limits.h"
#include "platform/memory.h"
#include "versions/store.h"


/* The snapshot writers build on and read, under the mutex (writers own it). */
static const struct ilmap_store_snapshot *current_snapshot(ilmap_store *s)
{
    return ilmap_atomic_load_ptr(&s->current, ilmap_mo_relaxed);
}

static void release_item(ilmap_store *store, const retire_item *item)
{
    switch (item->kind) {
    case RETIRE_MEMORY:
        free(item->ptr);
        break;
    case RETIRE_MAPREF: {
        struct store_mapref *mr = item->ptr;
        ilmap_free(mr->map);
        free(mr);
        break;
    }
    case RETIRE_BODY: {
        struct store_body *body = item->ptr;
        ilmap_native_free(body->native);
        bh_free(&store->bodies, body, body->bytes);
        break;
    }
    case RETIRE_PDB: {
        /* The lines, then the PDB: release frees the buffer it points into. */
        struct store_pdbref *ref = item->ptr;
        for (uint32_t i = 0; i < ref->methods; i++)
            ilmap_pdb_lines_free(ilmap_atomic_load_ptr(&ref->lines[i], ilmap_mo_relaxed));
        free((void *)ref->lines);
        ilmap_pdb_free(ref->pdb);
        if (ref->release)
            ref->release(ref->context);
        free(ref);
        break;
    }
    }
}

ilmap_status ilmap_store_create(uint32_t max_readers, unsigned flags, ilmap_store **out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    *out = NULL;
    if ((flags & ~(ILMAP_STORE_WRITER_FENCE | ILMAP_STORE_COMPACT_NATIVE |
                   ILMAP_STORE_COMPACT_IL)) ||
        max_readers > ILMAP_STORE_MAX_READERS)
        return ILMAP_E_INVALID_ARG;

    /* Over-aligned (cache lines): calloc does not promise that. */
    ilmap_store *s = ilmap_aligned_alloc(_Alignof(ilmap_store), sizeof *s);
    struct ilmap_store_snapshot *empty = calloc(1, sizeof *empty);
    if (s)
        memset(s, 0, sizeof *s);
    if (!s || !empty) {
        ilmap_aligned_free(s);
        free(empty);
        return ILMAP_E_NOMEM;
    }
    if (ilmap_mutex_init(&s->lock) != 0) {
        ilmap_aligned_free(s);
        free(empty);
        return ILMAP_E_NOMEM;
    }
    if (epoch_init(&s->epoch, max_readers ? max_readers : ILMAP_STORE_DEFAULT_READERS, s,
                   release_item, (flags & ILMAP_STORE_WRITER_FENCE) != 0) != 0) {
        ilmap_mutex_destroy(&s->lock);
        ilmap_aligned_free(s);
        free(empty);
        return ILMAP_E_NOMEM;
    }
    bh_init(&s->bodies);
    s->flags = flags;
    ilmap_atomic_init_ptr(&s->current, empty);
    *out = s;
    return ILMAP_OK;
}

/* Drops one reference at teardown, freeing the map with the last. */
static void teardown_unref(struct store_mapref *mr)
{
    if (mr && --mr->refs == 0) {
        retire_item item = { mr, RETIRE_MAPREF };
        release_item(NULL, &item); /* a map needs no store */
    }
}

void ilmap_store_free(ilmap_store *store)
{
    if (!store)
        return;

    struct ilmap_store_snapshot *snap = ilmap_atomic_load_ptr(&store->current, ilmap_mo_relaxed);
    const vt_shape *sh = store_shapes;
    vt_cursor cur;
    const uint64_t zero[3] = { 0, 0, 0 };

    for (const uint64_t *r = vt_seek(sh[T_BODIES], snap->tables[T_BODIES], zero, &cur); r;
         r = vt_next(sh[T_BODIES], &cur)) {
        struct store_body *body = ptr_of_word(r[BODY_PTR]);
        teardown_unref(body->il);
        retire_item item = { body, RETIRE_BODY };
        release_item(store, &item);
    }
    for (const uint64_t *r = vt_seek(sh[T_METHODS], snap->tables[T_METHODS], zero, &cur); r;
         r = vt_next(sh[T_METHODS], &cur))
        teardown_unref(ptr_of_word(r[METHOD_MAP]));
    for (const uint64_t *r = vt_seek(sh[T_VERSIONS], snap->tables[T_VERSIONS], zero, &cur); r;
         r = vt_next(sh[T_VERSIONS], &cur))
        teardown_unref(ptr_of_word(r[VER_MAP]));
    for (const uint64_t *r = vt_seek(sh[T_MODULES], snap->tables[T_MODULES], zero, &cur); r;
         r = vt_next(sh[T_MODULES], &cur)) {
        retire_item item = { ptr_of_word(r[MOD_PDB]), RETIRE_PDB };
        release_item(store, &item);
    }
    for (int t = 0; t < T_COUNT; t++)
        vt_destroy(snap->tables[t]);
    ax_destroy(snap->code);
    free(snap);

    epoch_destroy(&store->epoch); /* releases the bodies still pending */
    bh_destroy(&store->bodies);
    ilmap_mutex_destroy(&store->lock);
    ilmap_aligned_free(store);
}

/* ---- Transactions ---------------------------------------------------- */

typedef struct store_draft {
    ilmap_store *store;
    const struct ilmap_store_snapshot *base; /* the snapshot this change starts from */
    struct ilmap_store_snapshot draft;       /* its tables, copied on write */
    vt_txn vt;
    /* Reference changes, applied only once the change is certain: one
     * reference gained (a body capturing its version's map), and any
     * number lost, one entry per reference (a map may be listed several
     * times: a removal drops its record's and its bodies'). */
    struct store_mapref *gains;
    struct store_mapref **losses;
    size_t nlosses, losses_cap;
} store_draft;

static void draft_begin(ilmap_store *s, store_draft *t)
{
    t->store = s;
    t->base = current_snapshot(s);
    t->draft = *t->base;
    vt_txn_init(&t->vt, ++s->next_gen);
    t->gains = NULL;
    t->losses = NULL;
    t->nlosses = t->losses_cap = 0;
}

/* Notes that the change drops one reference to mr (NULL: none). The list
 * grows here, before the point of no return; draft_commit() applies it. */
static ilmap_status draft_lose(store_draft *t, struct store_mapref *mr)
{
    if (!mr)
        return ILMAP_OK;
    if (t->nlosses == t->losses_cap) {
        size_t cap = t->losses_cap ? 2 * t->losses_cap : 8;
        if (cap > SIZE_MAX / sizeof *t->losses || cap < t->losses_cap)
            return ILMAP_E_NOMEM;
        struct store_mapref **grown = realloc(t->losses, cap * sizeof *grown);
        if (!grown)
            return ILMAP_E_NOMEM;
        t->losses = grown;
        t->losses_cap = cap;
    }
    t->losses[t->nlosses++] = mr;
    return ILMAP_OK;
}

static void draft_forget_losses(store_draft *t)
{
    free(t->losses);
    t->losses = NULL;
    t->nlosses = t->losses_cap = 0;
}

static ilmap_status draft_fail(store_draft *t, ilmap_status st)
{
    vt_txn_abort(&t->vt);
    draft_forget_losses(t);
    return st;
}

/* Publishes the draft. On failure nothing changed (the transaction is
 * aborted); after the swap nothing can fail. */
static ilmap_status draft_commit(store_draft *t)
{
    ilmap_store *s = t->store;

    if (memcmp(t->draft.tables, t->base->tables, sizeof t->draft.tables) == 0 &&
        t->draft.code.node == t->base->code.node && !t->gains && t->nlosses == 0)
        return draft_fail(t, ILMAP_OK);

    /* Room for the old snapshot and every map that may lose its last
     * reference (at most one per reference lost). */
    if (t->nlosses > SIZE_MAX - 1 || vt_txn_reserve(&t->vt, 1 + t->nlosses) != ILMAP_OK)
        return draft_fail(t, ILMAP_E_NOMEM);
    retire_batch *batch = malloc(sizeof *batch);
    struct ilmap_store_snapshot *snap = malloc(sizeof *snap);
    if (!batch || !snap) {
        free(batch);
        free(snap);
        return draft_fail(t, ILMAP_E_NOMEM);
    }
    *snap = t->draft;
    snap->generation = t->base->generation + 1;

    /* seq_cst: ordered before the epoch increment in epoch_retire(). */
    ilmap_atomic_exchange_ptr(&s->current, snap, ilmap_mo_seq_cst);

    (void)vt_txn_retire(&t->vt, (void *)t->base, RETIRE_MEMORY); /* reserved */
    /* Gains first: a map gained and lost in one change stays counted. */
    if (t->gains)
        t->gains->refs++;
    for (size_t i = 0; i < t->nlosses; i++) {
        if (--t->losses[i]->refs == 0)
            (void)vt_txn_retire(&t->vt, t->losses[i], RETIRE_MAPREF); /* reserved */
    }
    draft_forget_losses(t);
    vt_txn_settle(&t->vt);
    batch->items = vt_txn_take_retired(&t->vt, &batch->count);
    epoch_retire(&s->epoch, batch);
    epoch_reclaim(&s->epoch, 0);
    return ILMAP_OK;
}

static const uint64_t *store_find(const store_draft *t, enum store_table table, const uint64_t *key)
{
    return vt_find(store_shapes[table], t->draft.tables[table], key);
}

static ilmap_status insert(store_draft *t, enum store_table table, const uint64_t *rec)
{
    return vt_insert(&t->vt, store_shapes[table], &t->draft.tables[table], rec);
}

static ilmap_status replace(store_draft *t, enum store_table table, const uint64_t *rec)
{
    return vt_replace(&t->vt, store_shapes[table], &t->draft.tables[table], rec);
}

static ilmap_status erase(store_draft *t, enum store_table table, const uint64_t *key)
{
    return vt_remove(&t->vt, store_shapes[table], &t->draft.tables[table], key);
}

/* A new reference-counted wrapper for map (fresh: freed by an abort, the
 * map itself is not), or NULL for "no map" (NULL or empty). A compact
 * store packs the map's entries into it and does not keep the map: the
 * caller frees the map once the change is published (map_kept()). */
static ilmap_status wrap_map(store_draft *t, ilmap *map, struct store_mapref **out)
{
    *out = NULL;
    size_t count = ilmap_get_count(map);
    if (count == 0)
        return ILMAP_OK;
    if (count > UINT32_MAX)
        return ILMAP_E_LIMIT;

    int compact = (t->store->flags & ILMAP_STORE_COMPACT_IL) != 0;
    ilmap_entry *entries = NULL;
    size_t packed = 0, bytes = sizeof(struct store_mapref);
    if (compact) {
        size_t ebytes, got = 0;
        if (!size_mul(count, sizeof *entries, &ebytes))
            return ILMAP_E_LIMIT;
        entries = malloc(ebytes);
        if (!entries || ilmap_export(map, count, &got, entries) != ILMAP_OK) {
            free(entries);
            return ILMAP_E_NOMEM;
        }
        packed = packed_il_bytes(entries, count);
        if (packed == SIZE_MAX || !size_add(bytes, packed, &bytes)) {
            free(entries);
            return ILMAP_E_LIMIT;
        }
    }
    struct store_mapref *mr = vt_txn_alloc(&t->vt, bytes);
    if (!mr) {
        free(entries);
        return ILMAP_E_NOMEM;
    }
    mr->map = compact ? NULL : map;
    mr->refs = 1; /* the record's */
    mr->count = (uint32_t)count;
    mr->lenient = ilmap_get_flags(map) & ILMAP_LENIENT;
    if (compact)
        packed_il_write(entries, count, mr->packed);
    free(entries);
    *out = mr;
    return ILMAP_OK;
}

/* Whether the store keeps map, handed over in a change that wrapped it
 * as mr (NULL: empty); if not, the writer frees it once the change is
 * published, as no read can see it. */
static int map_kept(const struct store_mapref *mr)
{
    return mr && mr->map;
}

/* The map to compose a body through: mr's own, or one built from its
 * packed entries into *built (the caller frees it; NULL otherwise). */
static ilmap_status mapref_open(const struct store_mapref *mr, ilmap **built, const ilmap **out)
{
    *built = NULL;
    *out = mr ? mr->map : NULL;
    if (!mr || mr->map)
        return ILMAP_OK;
    ilmap_entry *entries = malloc((size_t)mr->count * sizeof *entries); /* fitted when packed */
    if (!entries)
        return ILMAP_E_NOMEM;
    packed_il_read(mr->packed, mr->count, entries);
    ilmap_status st = ilmap_create(entries, mr->count, mr->lenient, built);
    free(entries);
    *out = *built;
    return st == ILMAP_OK ? ILMAP_OK : ILMAP_E_NOMEM; /* it was built once: only memory fails */
}

/* ---- Writers ----------------------------------------------------------- */

static ilmap_status set_il_map_locked(ilmap_store *s, ilmap_module_id module, uint32_t method_def,
                                      ilmap *map)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t key[2] = { module, method_def };
    const uint64_t *rec = store_find(&t, T_METHODS, key);
    struct store_mapref *old = rec ? ptr_of_word(rec[METHOD_MAP]) : NULL;

    if (old && old->map && old->map == map) /* handed over again: it is ours already */
        return draft_fail(&t, ILMAP_OK);

    struct store_mapref *mr;
    ilmap_status st = wrap_map(&t, map, &mr);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);

    if (mr) {
        const uint64_t next[METHOD_WORDS] = { [METHOD_MODULE] = module, [METHOD_DEF] = method_def,
                                             [METHOD_MAP] = word_of_ptr(mr) };
        st = old ? replace(&t, T_METHODS, next) : insert(&t, T_METHODS, next);
    } else if (old) {
        st = erase(&t, T_METHODS, key); /* an empty map clears (doc/il-maps.md#empty-map) */
    }
    if (st == ILMAP_OK)
        st = draft_lose(&t, old);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);
    st = draft_commit(&t);
    if (st == ILMAP_OK && !map_kept(mr))
        ilmap_free(map); /* handed over (maybe empty): ours, and not kept */
    return st;
}

ilmap_status ilmap_store_set_il_map(ilmap_store *store, ilmap_module_id module,
                                    uint32_t method_def, ilmap *map)
{
    if (!store || module == 0 || !is_method_def(method_def))
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = set_il_map_locked(store, module, method_def, map);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

ilmap_status ilmap_store_set_il_map_for_function(ilmap_store *store,
                                                 ilmap_function_id function_id, ilmap *map)
{
    if (!store || function_id == 0)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    const struct ilmap_store_snapshot *cur = current_snapshot(store);
    const uint64_t key[1] = { function_id };
    const uint64_t *fn = vt_find(store_shapes[T_FUNCTIONS], cur->tables[T_FUNCTIONS], key);
    ilmap_status st = fn ? set_il_map_locked(store, (ilmap_module_id)fn[FUNC_MODULE],
                                             (uint32_t)fn[FUNC_METHOD_DEF], map)
                         : ILMAP_E_NOT_FOUND;
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status add_function_locked(ilmap_store *s, ilmap_function_id fid,
                                        ilmap_module_id module, uint32_t method_def)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t key[1] = { fid };
    const uint64_t *fn = store_find(&t, T_FUNCTIONS, key);
    if (fn)
        return draft_fail(&t, fn[FUNC_MODULE] == module && fn[FUNC_METHOD_DEF] == method_def
                                 ? ILMAP_OK
                                 : ILMAP_E_EXISTS);

    const uint64_t function[FUNC_WORDS] = { [FUNC_ID] = fid, [FUNC_MODULE] = module,
                                            [FUNC_METHOD_DEF] = method_def, [FUNC_CURRENT] = 0 };
    const uint64_t instance[INST_WORDS] = { [INST_MODULE] = module, [INST_METHOD_DEF] = method_def,
                                            [INST_FUNC] = fid };
    const uint64_t original[VER_WORDS] = { [VER_FUNC] = fid, [VER_REJIT] = 0, [VER_MAP] = 0 };
    ilmap_status st = insert(&t, T_FUNCTIONS, function);
    if (st == ILMAP_OK)
        st = insert(&t, T_METHOD_FUNCS, instance);
    if (st == ILMAP_OK)
        st = insert(&t, T_VERSIONS, original);
    return st == ILMAP_OK ? draft_commit(&t) : draft_fail(&t, st);
}

ilmap_status ilmap_store_add_function(ilmap_store *store, ilmap_function_id function_id,
                                      ilmap_module_id module, uint32_t method_def)
{
    if (!store || function_id == 0 || module == 0 || !is_method_def(method_def))
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = add_function_locked(store, function_id, module, method_def);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status add_version_locked(ilmap_store *s, ilmap_function_id fid,
                                       ilmap_rejit_id rejit, ilmap *map, unsigned flags)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t fkey[1] = { fid };
    const uint64_t *fn = store_find(&t, T_FUNCTIONS, fkey);
    if (!fn)
        return draft_fail(&t, ILMAP_E_NOT_FOUND);
    const uint64_t vkey[2] = { fid, rejit };
    if (store_find(&t, T_VERSIONS, vkey))
        return draft_fail(&t, ILMAP_E_EXISTS);

    uint64_t function[FUNC_WORDS];
    memcpy(function, fn, sizeof function);
    function[FUNC_CURRENT] = rejit;
    struct store_mapref *mr;
    ilmap_status st = wrap_map(&t, map, &mr);
    if (st == ILMAP_OK) {
        const uint64_t version[VER_WORDS] = { [VER_FUNC] = fid, [VER_REJIT] = rejit,
                                               [VER_MAP] = word_of_ptr(mr) };
        st = insert(&t, T_VERSIONS, version);
    }
    if (st == ILMAP_OK && (flags & ILMAP_VERSION_CURRENT))
        st = replace(&t, T_FUNCTIONS, function);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);
    st = draft_commit(&t);
    if (st == ILMAP_OK && !map_kept(mr))
        ilmap_free(map); /* handed over (maybe empty): ours, and not kept */
    return st;
}

ilmap_status ilmap_store_add_version(ilmap_store *store, ilmap_function_id function_id,
                                     ilmap_rejit_id rejit_id, ilmap *map, unsigned flags)
{
    if (!store || function_id == 0 || rejit_id == 0 || (flags & ~ILMAP_VERSION_CURRENT))
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = add_version_locked(store, function_id, rejit_id, map, flags);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status set_current_locked(ilmap_store *s, ilmap_function_id fid, ilmap_rejit_id rejit)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t fkey[1] = { fid };
    const uint64_t vkey[2] = { fid, rejit };
    const uint64_t *fn = store_find(&t, T_FUNCTIONS, fkey);
    if (!fn || !store_find(&t, T_VERSIONS, vkey))
        return draft_fail(&t, ILMAP_E_NOT_FOUND);
    if (fn[FUNC_CURRENT] == rejit)
        return draft_fail(&t, ILMAP_OK);

    uint64_t function[FUNC_WORDS];
    memcpy(function, fn, sizeof function);
    function[FUNC_CURRENT] = rejit;
    ilmap_status st = replace(&t, T_FUNCTIONS, function);
    return st == ILMAP_OK ? draft_commit(&t) : draft_fail(&t, st);
}

ilmap_status ilmap_store_set_current(ilmap_store *store, ilmap_function_id function_id,
                                     ilmap_rejit_id rejit_id)
{
    if (!store || function_id == 0)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = set_current_locked(store, function_id, rejit_id);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status revert_locked(ilmap_store *s, ilmap_module_id module, uint32_t method_def,
                                  size_t *reverted)
{
    store_draft t;
    draft_begin(s, &t);

    const vt_shape sh = store_shapes[T_METHOD_FUNCS];
    const uint64_t from[3] = { module, method_def, 0 };
    vt_cursor cur;
    size_t changed = 0;
    ilmap_status st = ILMAP_OK;

    /* The instances table is only read here, so its cursor stays valid
     * while FUNCTIONS is copied on write. */
    for (const uint64_t *r = vt_seek(sh, t.draft.tables[T_METHOD_FUNCS], from, &cur);
         r && r[INST_MODULE] == module && r[INST_METHOD_DEF] == method_def;
         r = vt_next(sh, &cur)) {
        const uint64_t fkey[1] = { r[INST_FUNC] };
        const uint64_t *fn = store_find(&t, T_FUNCTIONS, fkey);
        if (!fn || fn[FUNC_CURRENT] == 0)
            continue;
        uint64_t function[FUNC_WORDS];
        memcpy(function, fn, sizeof function);
        function[FUNC_CURRENT] = 0;
        st = replace(&t, T_FUNCTIONS, function);
        if (st != ILMAP_OK)
            return draft_fail(&t, st);
        changed++;
    }
    st = draft_commit(&t);
    if (st == ILMAP_OK)
        *reverted = changed;
    return st;
}

ilmap_status ilmap_store_revert(ilmap_store *store, ilmap_module_id module, uint32_t method_def,
                                size_t *reverted)
{
    size_t dummy;

    if (!reverted)
        reverted = &dummy;
    *reverted = 0;
    if (!store || module == 0 || !is_method_def(method_def))
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = revert_locked(store, module, method_def, reverted);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

/* Checks what needs no lock: sizes, wrap-around, the ranges among
 * themselves, the map's code size. Fills the body's ranges. */
static ilmap_status check_ranges(const ilmap_code_range *ranges, size_t n,
                                 const ilmap_native *map, struct store_range *out,
                                 uint32_t *total_out)
{
    uint64_t total = 0;

    for (size_t i = 0; i < n; i++) {
        if (ranges[i].size == 0 || ranges[i].size > UINTPTR_MAX - ranges[i].start)
            return ILMAP_E_BAD_RANGE;
        if ((uint64_t)ranges[i].size > UINT32_MAX - total)
            return ILMAP_E_LIMIT;
        out[i].start = ranges[i].start;
        out[i].size = ranges[i].size;
        out[i].base = (uint32_t)total;
        total += ranges[i].size;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            if (ranges[i].start < ranges[j].start + ranges[j].size &&
                ranges[j].start < ranges[i].start + ranges[i].size)
                return ILMAP_E_OVERLAP;
        }
    }
    if (map && ilmap_native_get_code_size(map) != 0 && ilmap_native_get_code_size(map) != total)
        return ILMAP_E_CODE_SIZE;
    *total_out = (uint32_t)total;
    return ILMAP_OK;
}

/* A body's range in the address index: the body pointer tagged with the
 * range's index (addr_index.h). */
static uintptr_t range_ref(const struct store_body *body, uint32_t i)
{
    return (uintptr_t)body | i;
}

static void range_bounds(uintptr_t ref, uintptr_t *start, size_t *size)
{
    const struct store_body *body = (const struct store_body *)(ref & ~AX_TAG_MASK);
    *start = body->ranges[ref & AX_TAG_MASK].start;
    *size = body->ranges[ref & AX_TAG_MASK].size;
}

/* The address index's record hint (addr_index.h): where the answer
 * record for address, inside ref's range, lies. */
static uintptr_t range_record(uintptr_t ref, uintptr_t address)
{
    const struct store_body *body = (const struct store_body *)(ref & ~AX_TAG_MASK);
    const struct store_range *r = &body->ranges[ref & AX_TAG_MASK];
    uint32_t x = r->base + (uint32_t)(address - r->start);
    return (uintptr_t)answers_record_address(&body->answers, x);
}

/* Makes a body (fresh, filled in) reachable: its BODIES record and the
 * address index. The one place a body enters the tables. */
static ilmap_status link_body(store_draft *t, const struct store_body *body)
{
    /* The index's prefetch hint: the lines a lookup reads, the first few
     * or the whole body if small (up to its answers' end: a compact
     * store's packed entries come after them, lookups never read those). */
    size_t used = body->packed ? (size_t)(body->packed - (const uint8_t *)body) : body->bytes;
    size_t whole = (used + BH_LINE - 1u) / BH_LINE;
    uint32_t lines = (uint32_t)(whole < AX_MAX_LINES ? whole : AX_MAX_LINES);
    const uint64_t entry[BODY_WORDS] = { [BODY_FUNC] = body->function_id,
                                         [BODY_REJIT] = body->rejit_id,
                                         [BODY_START] = body->ranges[0].start,
                                         [BODY_PTR] = word_of_ptr(body) };
    ilmap_status st = insert(t, T_BODIES, entry);
    for (uint32_t i = 0; st == ILMAP_OK && i < body->nranges; i++)
        st = ax_insert(&t->vt, &t->draft.code, body->ranges[i].start, body->ranges[i].size,
                       range_ref(body, i), lines, range_record);
    return st;
}

/* Takes a published body out of the tables and retires it (with its
 * native map). The caller accounts for its IL map reference. The one
 * place a body leaves the tables. */
static ilmap_status unlink_body(store_draft *t, struct store_body *body)
{
    const uint64_t entry[BODY_PTR] = { [BODY_FUNC] = body->function_id,
                                       [BODY_REJIT] = body->rejit_id,
                                       [BODY_START] = body->ranges[0].start };
    ilmap_status st = erase(t, T_BODIES, entry);
    for (uint32_t i = 0; st == ILMAP_OK && i < body->nranges; i++)
        st = ax_remove(&t->vt, &t->draft.code, body->ranges[i].start, body->ranges[i].size,
                       range_ref(body, i));
    if (st == ILMAP_OK)
        st = vt_txn_retire(&t->vt, body, RETIRE_BODY);
    return st;
}

/* Decodes a method's sequence points into its slot of a PDB record
 * (store.h), once, after a commit (the ref is published: the slot's
 * release store publishes the lines). A decode that cannot allocate leaves
 * the slot empty: readers then decode from the blob, to the same answer. */
static void pdbref_decode(struct store_pdbref *ref, uint32_t method_def)
{
    ilmap_atomic_ptr *slot = ref ? pdbref_slot(ref, method_def) : NULL;
    if (!slot || ilmap_atomic_load_ptr(slot, ilmap_mo_relaxed))
        return;
    ilmap_pdb_lines *lines;
    if (ilmap_pdb_lines_create(ref->pdb, 0x06000000u | (method_def & 0x00FFFFFFu), &lines) !=
        ILMAP_OK)
        return;
    ref->decoded++;
    ref->bytes += ilmap_pdb_lines_get_memory_bytes(lines);
    ilmap_atomic_store_ptr(slot, lines, ilmap_mo_release);
}

static ilmap_status add_body_locked(ilmap_store *s, ilmap_function_id fid, ilmap_rejit_id rejit,
                                    const struct store_range *ranges, size_t n, uint32_t total,
                                    ilmap_native *map, unsigned flags)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t fkey[1] = { fid };
    const uint64_t vkey[2] = { fid, rejit };
    const uint64_t *fn = store_find(&t, T_FUNCTIONS, fkey);
    const uint64_t *ver = fn ? store_find(&t, T_VERSIONS, vkey) : NULL;
    if (!ver)
        return draft_fail(&t, ILMAP_E_NOT_FOUND);

    for (size_t i = 0; i < n; i++) {
        if (ax_overlaps(t.draft.code, ranges[i].start, ranges[i].size, range_bounds))
            return draft_fail(&t, ILMAP_E_OVERLAP);
    }

    /* The IL map in force for this version now (doc/rejit.md#store-maps): the
     * method's for the original version, the version's own otherwise. */
    struct store_mapref *il;
    if (rejit == 0) {
        const uint64_t mkey[2] = { fn[FUNC_MODULE], fn[FUNC_METHOD_DEF] };
        const uint64_t *m = store_find(&t, T_METHODS, mkey);
        il = m ? ptr_of_word(m[METHOD_MAP]) : NULL;
    } else {
        il = ptr_of_word(ver[VER_MAP]);
    }

    /* The answers (answers.h), laid out behind the ranges. */
    answer_interval *iv = NULL;
    uint32_t niv = 0;
    ilmap *built = NULL;
    const ilmap *il_map = NULL;
    ilmap_status st = mapref_open(il, &built, &il_map);
    if (st == ILMAP_OK)
        st = answers_compose(map, il_map, (flags & ILMAP_BODY_ORIGINAL_IL) != 0, total, &iv,
                             &niv);
    ilmap_free(built);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);
    /* A compact store keeps the map's exported entries, packed, after
     * the answers (packed.h), and not the map. */
    ilmap_native_entry *exported = NULL;
    size_t nexported = 0, packed = 0;
    if (map && (s->flags & ILMAP_STORE_COMPACT_NATIVE)) {
        nexported = ilmap_native_get_count(map);
        size_t ebytes;
        if (!size_mul(nexported, sizeof *exported, &ebytes)) {
            free(iv);
            return draft_fail(&t, ILMAP_E_LIMIT);
        }
        exported = malloc(ebytes ? ebytes : 1);
        size_t got = 0;
        if (!exported || ilmap_native_export(map, nexported, &got, exported) != ILMAP_OK) {
            free(exported);
            free(iv);
            return draft_fail(&t, ILMAP_E_NOMEM);
        }
        packed = packed_native_bytes(exported, nexported);
    }
    /* The records start 16-byte aligned: none straddles a cache line. */
    size_t head = (sizeof(struct store_body) + n * sizeof(struct store_range) + 15u) & ~(size_t)15u;
    int narrow = answers_narrow(iv, niv, total);
    size_t tail = answers_bytes(niv, total, narrow), bytes = 0;
    if (tail == SIZE_MAX || packed == SIZE_MAX || nexported > UINT32_MAX ||
        !size_add(head, tail, &bytes) || !size_add(bytes, packed, &bytes)) {
        free(exported);
        free(iv);
        return draft_fail(&t, ILMAP_E_LIMIT);
    }
    /* From the bodies' heap (body_heap.h), not the transaction's blocks:
     * freed here on every failure below. */
    struct store_body *body = bh_alloc(&s->bodies, bytes);
    if (!body) {
        free(exported);
        free(iv);
        return draft_fail(&t, ILMAP_E_NOMEM);
    }
    body->bytes = bytes;
    answers_place((unsigned char *)body + head, iv, niv, total, narrow, &body->answers);
    free(iv);
    body->packed = NULL;
    body->packed_count = (uint32_t)nexported;
    if (exported) {
        uint8_t *at = (uint8_t *)body + head + tail;
        packed_native_write(exported, nexported, at);
        body->packed = at;
        free(exported);
    }
    body->function_id = fid;
    body->rejit_id = rejit;
    body->module_id = (ilmap_module_id)fn[FUNC_MODULE];
    body->method_def = (uint32_t)fn[FUNC_METHOD_DEF];
    body->flags = flags;
    body->native = body->packed ? NULL : map;
    body->il = il;
    body->il_map = il ? il->map : NULL;
    body->code_size = total;
    body->nranges = (uint32_t)n;
    memcpy(body->ranges, ranges, n * sizeof ranges[0]);

    st = link_body(&t, body);
    if (st != ILMAP_OK) {
        bh_free(&s->bodies, body, bytes);
        return draft_fail(&t, st);
    }
    t.gains = il;
    st = draft_commit(&t);
    if (st != ILMAP_OK) { /* not published */
        bh_free(&s->bodies, body, bytes);
        return st;
    }
    /* Handed over, and in a compact store not kept: no read saw it. */
    if (body->packed)
        ilmap_native_free(map);
    /* The method's source lines, decoded here rather than per sample
     * (doc/source-lines.md#store). */
    pdbref_decode(snapshot_pdbref(current_snapshot(s), body->module_id), body->method_def);
    return ILMAP_OK;
}

ilmap_status ilmap_store_add_body(ilmap_store *store, ilmap_function_id function_id,
                                  ilmap_rejit_id rejit_id, const ilmap_code_range *ranges,
                                  size_t nranges, ilmap_native *map, unsigned flags)
{
    struct store_range checked[ILMAP_STORE_MAX_RANGES];
    uint32_t total = 0;

    if (!store || function_id == 0 || !ranges || nranges == 0 ||
        nranges > ILMAP_STORE_MAX_RANGES || (flags & ~ILMAP_BODY_ORIGINAL_IL))
        return ILMAP_E_INVALID_ARG;
    ilmap_status st = check_ranges(ranges, nranges, map, checked, &total);
    if (st != ILMAP_OK)
        return st;

    ilmap_mutex_lock(&store->lock);
    st = add_body_locked(store, function_id, rejit_id, checked, nranges, total, map, flags);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status remove_body_locked(ilmap_store *s, uintptr_t code_start)
{
    store_draft t;
    uint32_t lines;
    draft_begin(s, &t);

    struct store_body *body =
        (struct store_body *)(ax_candidate(t.draft.code, code_start, &lines) & ~AX_TAG_MASK);
    if (!body || body->ranges[0].start != code_start)
        return draft_fail(&t, ILMAP_E_NOT_FOUND);

    ilmap_status st = unlink_body(&t, body);
    if (st == ILMAP_OK)
        st = draft_lose(&t, body->il);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);
    return draft_commit(&t);
}

ilmap_status ilmap_store_remove_body(ilmap_store *store, uintptr_t code_start)
{
    if (!store)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = remove_body_locked(store, code_start);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

ilmap_status ilmap_store_reclaim(ilmap_store *store, size_t *pending)
{
    if (pending)
        *pending = 0;
    if (!store)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    uint64_t left = epoch_reclaim(&store->epoch, 1);
    ilmap_mutex_unlock(&store->lock);
    if (pending)
        *pending = left > SIZE_MAX ? SIZE_MAX : (size_t)left;
    return ILMAP_OK;
}

ilmap_status ilmap_store_get_stats(ilmap_store *store, ilmap_store_stats *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!store || !out)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    const struct ilmap_store_snapshot *cur = current_snapshot(store);
    out->generation = cur->generation;
    out->retired = store->epoch.pending;
    out->reclaimed = store->epoch.reclaimed;
    out->readers = epoch_registered(&store->epoch);
    out->max_readers = store->epoch.nslots;
    out->writer_fence = store->epoch.writer_fence;
    out->functions = (size_t)vt_records(cur->tables[T_FUNCTIONS]);
    out->versions = (size_t)vt_records(cur->tables[T_VERSIONS]);
    out->bodies = (size_t)vt_records(cur->tables[T_BODIES]);
    out->il_maps = (size_t)vt_records(cur->tables[T_METHODS]);
    out->pdbs = (size_t)vt_records(cur->tables[T_MODULES]);
    out->body_bytes = store->bodies.held;
    const uint64_t zero[1] = { 0 };
    vt_cursor c;
    for (const uint64_t *r = vt_seek(store_shapes[T_MODULES], cur->tables[T_MODULES], zero, &c); r;
         r = vt_next(store_shapes[T_MODULES], &c)) {
        const struct store_pdbref *ref = ptr_of_word(r[MOD_PDB]);
        out->source_methods += ref->decoded;
        out->source_bytes += ref->bytes;
    }
    ilmap_mutex_unlock(&store->lock);
    return ILMAP_OK;
}

/* ---- PDBs ---------------------------------------------------------------
 *
 * One MODULES record per module with a PDB, pointing at a store_pdbref
 * (store.h). Replacing or detaching retires the old ref; its reclamation
 * frees the PDB and calls its release, once no read can see it. */

/* Whether pdb is attached to a module other than `module` (an O(modules)
 * walk of the published table: writers only, and modules are few). */
static int attached_elsewhere(const store_draft *t, const ilmap_pdb *pdb, ilmap_module_id module)
{
    const vt_shape sh = store_shapes[T_MODULES];
    const uint64_t zero[1] = { 0 };
    vt_cursor cur;

    for (const uint64_t *r = vt_seek(sh, t->draft.tables[T_MODULES], zero, &cur); r;
         r = vt_next(sh, &cur)) {
        const struct store_pdbref *ref = ptr_of_word(r[MOD_PDB]);
        if (ref->pdb == pdb && r[MOD_ID] != module)
            return 1;
    }
    return 0;
}

static ilmap_status attach_pdb_locked(ilmap_store *s, ilmap_module_id module, ilmap_pdb *pdb,
                                      ilmap_release_fn release, void *context)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t key[1] = { module };
    const uint64_t *rec = store_find(&t, T_MODULES, key);
    struct store_pdbref *old = rec ? ptr_of_word(rec[MOD_PDB]) : NULL, *ref = NULL;
    ilmap_status st = ILMAP_OK;

    if (!pdb) {
        if (!old) /* nothing to detach */
            return draft_fail(&t, ILMAP_OK);
        st = erase(&t, T_MODULES, key);
    } else {
        if (old && old->pdb == pdb) /* attached already: ours */
            return draft_fail(&t, ILMAP_OK);
        if (attached_elsewhere(&t, pdb, module))
            return draft_fail(&t, ILMAP_E_EXISTS);
        ilmap_pdb_info info;
        (void)ilmap_pdb_get_info(pdb, &info); /* pdb is not NULL */
        ref = vt_txn_alloc(&t.vt, sizeof *ref); /* an abort frees it */
        ilmap_atomic_ptr *slots =
            info.method_count ? vt_txn_alloc(&t.vt, (size_t)info.method_count * sizeof *slots) : NULL;
        if (!ref || (info.method_count && !slots))
            return draft_fail(&t, ILMAP_E_NOMEM);
        for (uint32_t i = 0; i < info.method_count; i++)
            ilmap_atomic_init_ptr(&slots[i], NULL);
        ref->pdb = pdb;
        ref->release = release;
        ref->context = context;
        ref->methods = info.method_count;
        ref->lines = slots;
        ref->decoded = 0;
        ref->bytes = (size_t)info.method_count * sizeof *slots;
        const uint64_t next[MOD_WORDS] = { [MOD_ID] = module, [MOD_PDB] = word_of_ptr(ref) };
        st = old ? replace(&t, T_MODULES, next) : insert(&t, T_MODULES, next);
    }
    if (st == ILMAP_OK && old)
        st = vt_txn_retire(&t.vt, old, RETIRE_PDB);
    if (st != ILMAP_OK)
        return draft_fail(&t, st);
    st = draft_commit(&t);
    if (st != ILMAP_OK || !ref)
        return st;
    /* The source lines of the module's methods already in the store. */
    const struct ilmap_store_snapshot *cur = current_snapshot(s);
    const uint64_t from[3] = { module, 0, 0 };
    vt_cursor c;
    for (const uint64_t *r = vt_seek(store_shapes[T_METHOD_FUNCS], cur->tables[T_METHOD_FUNCS],
                                     from, &c);
         r && r[INST_MODULE] == module; r = vt_next(store_shapes[T_METHOD_FUNCS], &c))
        pdbref_decode(ref, (uint32_t)r[INST_METHOD_DEF]);
    return ILMAP_OK;
}

ilmap_status ilmap_store_attach_pdb(ilmap_store *store, ilmap_module_id module, ilmap_pdb *pdb,
                                    ilmap_release_fn release, void *context)
{
    if (!store || module == 0)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = attach_pdb_locked(store, module, pdb, release, context);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

/* ---- Removal ------------------------------------------------------------
 *
 * A removal walks the records to drop in the transaction's base snapshot
 * and erases them from the draft. The base is published, so never changed,
 * and cannot be freed while we hold the writers' mutex: its cursors stay
 * valid however the draft is copied on write. Every record found in the
 * base is still in the draft when reached, as only this walk erases. */

/* Drops one version: its record, its map reference, and every native
 * body attached to it (with the reference each holds). */
static ilmap_status drop_version(store_draft *t, const uint64_t *version, ilmap_store_removed *n)
{
    const vt_shape sh = store_shapes[T_BODIES];
    const uint64_t from[3] = { version[VER_FUNC], version[VER_REJIT], 0 };
    vt_cursor cur;

    ilmap_status st = erase(t, T_VERSIONS, version);
    if (st == ILMAP_OK)
        st = draft_lose(t, ptr_of_word(version[VER_MAP]));
    for (const uint64_t *r = vt_seek(sh, t->base->tables[T_BODIES], from, &cur);
         st == ILMAP_OK && r && r[BODY_FUNC] == version[VER_FUNC] &&
         r[BODY_REJIT] == version[VER_REJIT];
         r = vt_next(sh, &cur)) {
        struct store_body *body = ptr_of_word(r[BODY_PTR]);
        st = unlink_body(t, body);
        if (st == ILMAP_OK)
            st = draft_lose(t, body->il);
        n->bodies++;
    }
    if (version[VER_REJIT] != 0)
        n->versions++;
    return st;
}

/* A removal's end: publishes it if it went well (st), and only then
 * tells the caller what went (*counted into *removed). */
static ilmap_status finish_removal(store_draft *t, ilmap_status st,
                                   const ilmap_store_removed *counted,
                                   ilmap_store_removed *removed)
{
    if (st != ILMAP_OK)
        return draft_fail(t, st);
    st = draft_commit(t);
    if (st == ILMAP_OK)
        *removed = *counted;
    return st;
}

static ilmap_status remove_module_locked(ilmap_store *s, ilmap_module_id module,
                                         ilmap_store_removed *removed)
{
    store_draft t;
    draft_begin(s, &t);

    const vt_shape *sh = store_shapes;
    const uint64_t from[3] = { module, 0, 0 };
    ilmap_store_removed n = { 0, 0, 0, 0 };
    ilmap_status st = ILMAP_OK;
    vt_cursor cur;

    /* Its PDB, retired with the rest: reads that began before keep it. */
    const uint64_t mkey[1] = { module };
    const uint64_t *pdb = store_find(&t, T_MODULES, mkey);
    if (pdb) {
        st = erase(&t, T_MODULES, mkey);
        if (st == ILMAP_OK)
            st = vt_txn_retire(&t.vt, ptr_of_word(pdb[MOD_PDB]), RETIRE_PDB);
    }

    /* The IL-level maps of its methods. */
    for (const uint64_t *r = vt_seek(sh[T_METHODS], t.base->tables[T_METHODS], from, &cur);
         st == ILMAP_OK && r && r[METHOD_MODULE] == module; r = vt_next(sh[T_METHODS], &cur)) {
        st = erase(&t, T_METHODS, r);
        if (st == ILMAP_OK)
            st = draft_lose(&t, ptr_of_word(r[METHOD_MAP]));
        n.il_maps++;
    }
    /* Every function instance of its methods, with all their versions. */
    for (const uint64_t *r = vt_seek(sh[T_METHOD_FUNCS], t.base->tables[T_METHOD_FUNCS], from,
                                     &cur);
         st == ILMAP_OK && r && r[INST_MODULE] == module; r = vt_next(sh[T_METHOD_FUNCS], &cur)) {
        const uint64_t fkey[1] = { r[INST_FUNC] };
        const uint64_t vfrom[2] = { r[INST_FUNC], 0 };
        vt_cursor vcur;
        st = erase(&t, T_METHOD_FUNCS, r);
        if (st == ILMAP_OK)
            st = erase(&t, T_FUNCTIONS, fkey);
        for (const uint64_t *v = vt_seek(sh[T_VERSIONS], t.base->tables[T_VERSIONS], vfrom, &vcur);
             st == ILMAP_OK && v && v[VER_FUNC] == r[INST_FUNC];
             v = vt_next(sh[T_VERSIONS], &vcur))
            st = drop_version(&t, v, &n);
        n.functions++;
    }
    return finish_removal(&t, st, &n, removed);
}

ilmap_status ilmap_store_remove_module(ilmap_store *store, ilmap_module_id module,
                                       ilmap_store_removed *removed)
{
    ilmap_store_removed dummy;

    if (!removed)
        removed = &dummy;
    memset(removed, 0, sizeof *removed);
    if (!store || module == 0)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = remove_module_locked(store, module, removed);
    ilmap_mutex_unlock(&store->lock);
    return st;
}

static ilmap_status remove_version_locked(ilmap_store *s, ilmap_function_id fid,
                                          ilmap_rejit_id rejit, ilmap_store_removed *removed)
{
    store_draft t;
    draft_begin(s, &t);

    const uint64_t fkey[1] = { fid };
    const uint64_t vkey[2] = { fid, rejit };
    const uint64_t *fn = store_find(&t, T_FUNCTIONS, fkey);
    const uint64_t *ver = fn ? store_find(&t, T_VERSIONS, vkey) : NULL;
    if (!ver)
        return draft_fail(&t, ILMAP_E_NOT_FOUND);

    /* The current version goes: the original takes its place, in the same
     * publication (as after a revert of this instance). */
    uint64_t function[FUNC_WORDS], version[VER_WORDS];
    memcpy(function, fn, sizeof function);
    function[FUNC_CURRENT] = 0;
    memcpy(version, ver, sizeof version);
    const int was_current = fn[FUNC_CURRENT] == rejit;
    ilmap_store_removed n = { 0, 0, 0, 0 };
    ilmap_status st = drop_version(&t, version, &n);
    if (st == ILMAP_OK && was_current)
        st = replace(&t, T_FUNCTIONS, function);
    return finish_removal(&t, st, &n, removed);
}

ilmap_status ilmap_store_remove_version(ilmap_store *store, ilmap_function_id function_id,
                                        ilmap_rejit_id rejit_id, ilmap_store_removed *removed)
{
    ilmap_store_removed dummy;

    if (!removed)
        removed = &dummy;
    memset(removed, 0, sizeof *removed);
    if (!store || function_id == 0 || rejit_id == 0)
        return ILMAP_E_INVALID_ARG;

    ilmap_mutex_lock(&store->lock);
    ilmap_status st = remove_version_locked(store, function_id, rejit_id, removed);
    ilmap_mutex_unlock(&store->lock);
    return st;
}
