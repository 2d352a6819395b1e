/*
 * The FunctionIDMapper (doc/function-ids.md#libilmap-mapper): FunctionID ->
 * client ID, decided once, answered the same ever after, by any number of
 * threads at once.
 *
 * An open-addressing table (linear probing) of fixed capacity, at least
 * twice the most FunctionIDs it may hold, so probes stay short and the
 * table never grows: readers need no reclamation at all. Each slot is a
 * key (0 = empty) and a value (0 = not decided yet), each set by CAS.
 *
 * Why nobody waits: the runtime calls the mapper on a JIT thread that may
 * hold runtime locks, and a filter commonly calls back into the profiling
 * API. If racing threads waited for the first one's decision, a filter
 * blocked on a lock another racer holds would deadlock them. So every
 * racer runs the filter itself, and the first decision to land in the
 * slot is the answer for all.
 *
 * Dense client IDs without holes, still without waiting: a "hook"
 * decision lands as PENDING, and the index is assigned afterwards by a
 * helping protocol. Position n of `functions` is claimed by CAS for one
 * FunctionID; whoever sees position n filled (its claimer, a racer for the
 * same FunctionID, or a thread assigning another one) finalizes the
 * owner's slot with client ID n + 1 and then moves `next_index` past n.
 * Since next_index moves past a position only after its owner's slot is
 * final, a thread that reads next_index and then still sees its slot
 * PENDING knows its FunctionID holds no earlier position: no FunctionID
 * is placed twice, and every index below next_index is used.
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-versions.h"
#include "platform/atomic.h"

#define MAX_FUNCTIONS ((size_t)1 << 24)

/* Slot values: 0 undecided; (client ID << 1) | 1 hooked; and: */
#define VALUE_UNHOOKED ((uintptr_t)2)
#define VALUE_FULL ((uintptr_t)4)    /* hooked, but no client ID was left */
#define VALUE_PENDING ((uintptr_t)6) /* hooked, client ID being assigned */

struct fid_slot {
    ilmap_atomic_uptr key;
    ilmap_atomic_uptr value;
};

struct ilmap_fid_mapper {
    size_t max_functions;
    size_t mask;
    struct fid_slot *slots;
    ilmap_atomic_uptr *functions; /* client ID - 1 -> FunctionID */
    ilmap_atomic_size claimed;    /* keys taken, bounded by max_functions */
    ilmap_atomic_size next_index;
    ilmap_atomic_size mapped, hooked, refused;
    ilmap_fid_filter_fn filter;
    void *context;
};

/* The library's one documented global: the mapper FunctionIDMapper (v1),
 * which gets no client data, answers with. */
static ilmap_atomic_ptr global_mapper; /* ilmap_fid_mapper * */

/* FunctionIDs are MethodDesc addresses: aligned, clustered. A 64-bit
 * finalizer (murmur3's) spreads them over the table. */
static size_t slot_of(uintptr_t fid, size_t mask)
{
    uint64_t x = (uint64_t)fid;

    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return (size_t)x & mask;
}

ilmap_status ilmap_fid_mapper_create(size_t max_functions, ilmap_fid_filter_fn filter,
                                     void *context, ilmap_fid_mapper **out)
{
    if (!out)
        return ILMAP_E_INVALID_ARG;
    *out = NULL;
    if (max_functions == 0 || max_functions > MAX_FUNCTIONS)
        return ILMAP_E_INVALID_ARG;

    size_t cap = 16;
    while (cap < 2 * max_functions)
        cap *= 2;

    ilmap_fid_mapper *m = calloc(1, sizeof *m);
    struct fid_slot *slots = malloc(cap * sizeof *slots);
    ilmap_atomic_uptr *functions = malloc(max_functions * sizeof *functions);
    if (!m || !slots || !functions) {
        free(m);
        free(slots);
        free(functions);
        return ILMAP_E_NOMEM;
    }
    for (size_t i = 0; i < cap; i++) {
        ilmap_atomic_init_uptr(&slots[i].key, 0);
        ilmap_atomic_init_uptr(&slots[i].value, 0);
    }
    for (size_t i = 0; i < max_functions; i++)
        ilmap_atomic_init_uptr(&functions[i], 0);
    m->max_functions = max_functions;
    m->mask = cap - 1;
    m->slots = slots;
    m->functions = functions;
    ilmap_atomic_init_size(&m->claimed, 0);
    ilmap_atomic_init_size(&m->next_index, 0);
    ilmap_atomic_init_size(&m->mapped, 0);
    ilmap_atomic_init_size(&m->hooked, 0);
    ilmap_atomic_init_size(&m->refused, 0);
    m->filter = filter;
    m->context = context;
    *out = m;
    return ILMAP_OK;
}

void ilmap_fid_mapper_free(ilmap_fid_mapper *mapper)
{
    if (!mapper)
        return;

    void *expected = mapper;
    ilmap_atomic_cas_ptr(&global_mapper, &expected, NULL, ilmap_mo_seq_cst, ilmap_mo_seq_cst);
    free(mapper->slots);
    free(mapper->functions);
    free(mapper);
}

static ilmap_status decode(uintptr_t value, uintptr_t *client_id, int *hook)
{
    if (value & 1) {
        *client_id = value >> 1;
        *hook = 1;
        return ILMAP_OK;
    }
    *client_id = 0;
    *hook = 0;
    return value == VALUE_FULL ? ILMAP_E_FULL : ILMAP_OK;
}

/* The slot holding fid, claiming an empty one if need be; NULL when the
 * mapper holds max_functions FunctionIDs already. With linear probing and
 * no deletions, fid is either on its probe path before the first empty
 * slot, or nowhere. */
static struct fid_slot *claim(ilmap_fid_mapper *m, uintptr_t fid)
{
    size_t i = slot_of(fid, m->mask);
    int reserved = 0;
    struct fid_slot *found = NULL;

    for (size_t probe = 0; probe <= m->mask; probe++, i = (i + 1) & m->mask) {
        struct fid_slot *slot = &m->slots[i];
        uintptr_t key = ilmap_atomic_load_uptr(&slot->key, ilmap_mo_acquire);
        if (key == fid) {
            found = slot;
            break;
        }
        if (key != 0)
            continue;

        /* A place for one more FunctionID, counted before taking it so
         * that racers never exceed max_functions. */
        if (!reserved) {
            if (ilmap_atomic_fetch_add_size(&m->claimed, 1, ilmap_mo_relaxed) >=
                m->max_functions) {
                ilmap_atomic_fetch_sub_size(&m->claimed, 1, ilmap_mo_relaxed);
                /* Full, unless a racer is claiming this very FunctionID. */
                key = ilmap_atomic_load_uptr(&slot->key, ilmap_mo_acquire);
                return key == fid ? slot : NULL;
            }
            reserved = 1;
        }
        if (ilmap_atomic_cas_uptr(&slot->key, &key, fid, ilmap_mo_acq_rel,
                                                    ilmap_mo_acquire))
            return slot; /* the reservation is used */
        if (key == fid) { /* a racer mapping the same FunctionID got there first */
            found = slot;
            break;
        }
    }
    if (reserved)
        ilmap_atomic_fetch_sub_size(&m->claimed, 1, ilmap_mo_relaxed);
    return found;
}

/* The slot of a FunctionID known to be in the table. */
static struct fid_slot *slot_holding(ilmap_fid_mapper *m, uintptr_t fid)
{
    size_t i = slot_of(fid, m->mask);

    while (ilmap_atomic_load_uptr(&m->slots[i].key, ilmap_mo_acquire) != fid)
        i = (i + 1) & m->mask;
    return &m->slots[i];
}

/* Turns a PENDING slot into its final value, helping whoever holds the
 * next position along the way (see the top of the file). */
static uintptr_t resolve(ilmap_fid_mapper *m, struct fid_slot *slot, uintptr_t fid)
{
    for (;;) {
        uintptr_t value = ilmap_atomic_load_uptr(&slot->value, ilmap_mo_acquire);
        if (value != VALUE_PENDING)
            return value;
        size_t n = ilmap_atomic_load_size(&m->next_index, ilmap_mo_acquire);
        /* Read after next_index: still PENDING means fid is at n or nowhere. */
        value = ilmap_atomic_load_uptr(&slot->value, ilmap_mo_acquire);
        if (value != VALUE_PENDING)
            return value;
        if (n >= m->max_functions) {
            ilmap_atomic_cas_uptr(&slot->value, &value, VALUE_FULL,
                                                    ilmap_mo_acq_rel, ilmap_mo_acquire);
            continue;
        }

        uintptr_t owner = ilmap_atomic_load_uptr(&m->functions[n], ilmap_mo_acquire);
        if (owner == 0) {
            if (!ilmap_atomic_cas_uptr(&m->functions[n], &owner, fid,
                                                         ilmap_mo_acq_rel,
                                                         ilmap_mo_acquire))
                continue; /* someone else took n: start over */
            owner = fid;
        }
        struct fid_slot *owner_slot = owner == fid ? slot : slot_holding(m, owner);
        uintptr_t pending = VALUE_PENDING;
        if (ilmap_atomic_cas_uptr(&owner_slot->value, &pending,
                                                    ((uintptr_t)(n + 1) << 1) | 1u,
                                                    ilmap_mo_acq_rel, ilmap_mo_acquire))
            ilmap_atomic_fetch_add_size(&m->hooked, 1, ilmap_mo_relaxed);
        size_t expected = n;
        ilmap_atomic_cas_size(&m->next_index, &expected, n + 1,
                                                ilmap_mo_acq_rel, ilmap_mo_acquire);
    }
}

/* Decides for fid (the filter) and publishes, unless a racer did first;
 * returns the final value either way. */
static uintptr_t decide(ilmap_fid_mapper *m, struct fid_slot *slot, uintptr_t fid)
{
    int hook = m->filter ? m->filter(m->context, fid) != 0 : 1;
    uintptr_t expected = 0;

    if (ilmap_atomic_cas_uptr(&slot->value, &expected,
                                                hook ? VALUE_PENDING : VALUE_UNHOOKED,
                                                ilmap_mo_acq_rel, ilmap_mo_acquire))
        ilmap_atomic_fetch_add_size(&m->mapped, 1, ilmap_mo_relaxed);
    return resolve(m, slot, fid);
}

ilmap_status ilmap_fid_mapper_map(ilmap_fid_mapper *mapper, ilmap_function_id function_id,
                                  uintptr_t *client_id, int *hook)
{
    if (client_id)
        *client_id = 0;
    if (hook)
        *hook = 0;
    if (!mapper || !client_id || !hook || function_id == 0)
        return ILMAP_E_INVALID_ARG;

    struct fid_slot *slot = claim(mapper, function_id);
    uintptr_t value = slot ? ilmap_atomic_load_uptr(&slot->value, ilmap_mo_acquire) : VALUE_FULL;
    if (value == 0)
        value = decide(mapper, slot, function_id);
    else if (value == VALUE_PENDING)
        value = resolve(mapper, slot, function_id);

    ilmap_status st = decode(value, client_id, hook);
    if (st == ILMAP_E_FULL)
        ilmap_atomic_fetch_add_size(&mapper->refused, 1, ilmap_mo_relaxed);
    return st;
}

ilmap_status ilmap_fid_mapper_lookup(const ilmap_fid_mapper *mapper, ilmap_function_id function_id,
                                     uintptr_t *client_id, int *hook)
{
    if (client_id)
        *client_id = 0;
    if (hook)
        *hook = 0;
    if (!mapper || !client_id || !hook)
        return ILMAP_E_INVALID_ARG;
    if (function_id == 0)
        return ILMAP_E_NOT_FOUND;

    size_t i = slot_of(function_id, mapper->mask);
    for (size_t probe = 0; probe <= mapper->mask; probe++, i = (i + 1) & mapper->mask) {
        const struct fid_slot *slot = &mapper->slots[i];
        uintptr_t key = ilmap_atomic_load_uptr(&slot->key, ilmap_mo_acquire);
        if (key == 0)
            break;
        if (key != function_id)
            continue;
        uintptr_t value = ilmap_atomic_load_uptr(&slot->value, ilmap_mo_acquire);
        if (value == 0 || value == VALUE_FULL || value == VALUE_PENDING)
            break;
        return decode(value, client_id, hook);
    }
    return ILMAP_E_NOT_FOUND;
}

ilmap_status ilmap_fid_mapper_get_function(const ilmap_fid_mapper *mapper, uintptr_t client_id,
                                           ilmap_function_id *function_id)
{
    if (function_id)
        *function_id = 0;
    if (!mapper || !function_id)
        return ILMAP_E_INVALID_ARG;
    if (client_id == 0 || client_id > mapper->max_functions)
        return ILMAP_E_NOT_FOUND;
    *function_id = ilmap_atomic_load_uptr(&mapper->functions[client_id - 1], ilmap_mo_acquire);
    return *function_id ? ILMAP_OK : ILMAP_E_NOT_FOUND;
}

ilmap_status ilmap_fid_mapper_get_stats(const ilmap_fid_mapper *mapper,
                                        ilmap_fid_mapper_stats *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!mapper || !out)
        return ILMAP_E_INVALID_ARG;

    /* The atomics are read-only here; the casts only drop const. */
    ilmap_fid_mapper *m = (ilmap_fid_mapper *)mapper;
    out->max_functions = m->max_functions;
    out->mapped = ilmap_atomic_load_size(&m->mapped, ilmap_mo_relaxed);
    out->hooked = ilmap_atomic_load_size(&m->hooked, ilmap_mo_relaxed);
    out->refused = ilmap_atomic_load_size(&m->refused, ilmap_mo_relaxed);
    return ILMAP_OK;
}

uintptr_t ILMAP_STDCALL ilmap_fid_mapper_callback2(ilmap_function_id function_id,
                                                   void *client_data, int32_t *hook_function)
{
    uintptr_t client_id;
    int hook;

    if (!hook_function)
        return function_id;
    if (!client_data ||
        ilmap_fid_mapper_map(client_data, function_id, &client_id, &hook) != ILMAP_OK || !hook) {
        /* Unhooked (by choice or failure): no probes, so the value is
         * unused; the FunctionID is what the runtime uses with no mapper. */
        *hook_function = 0;
        return function_id;
    }
    *hook_function = 1;
    return client_id;
}

uintptr_t ILMAP_STDCALL ilmap_fid_mapper_callback(ilmap_function_id function_id,
                                                  int32_t *hook_function)
{
    ilmap_fid_mapper *m = ilmap_atomic_load_ptr(&global_mapper, ilmap_mo_acquire);

    return ilmap_fid_mapper_callback2(function_id, m, hook_function);
}

ilmap_status ilmap_fid_mapper_set_global(ilmap_fid_mapper *mapper)
{
    ilmap_atomic_store_ptr(&global_mapper, mapper, ilmap_mo_release);
    return ILMAP_OK;
}
