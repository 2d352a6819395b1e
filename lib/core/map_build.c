#include <stdlib.h>
#include <string.h>

#include "common/copy_out.h"
#include "core/block_alloc.h"
#include "core/lookup_kernels.h"

#define KNOWN_FLAGS (ILMAP_LENIENT | ILMAP_NO_AVX2 | ILMAP_PORTABLE)
/* Plans one allocation holding the struct and every array. */
static uint32_t key_of(const ilmap_entry *e, int by_new)
{
    return by_new ? e->new_offset : e->old_offset;
}

static uint32_t value_of(const ilmap_entry *e, int by_new)
{
    return by_new ? e->old_offset : e->new_offset;
}

static uint32_t lookup_identity(const struct ilmap_direction *d, uint32_t x)
{
    (void)d;
    return x;
}

/*
 * What one direction searches (see map.h). A strict map searches its key
 * column as it is. A lenient map searches key[0] and the scan's stops
 * above it, kept here in a temporary array until the map is laid out:
 * keys[0..nkeys) and values[0..nkeys] in the final order, the stops at or
 * under key[0] in low_keys/low_values.
 */
typedef struct direction_source {
    uint32_t nkeys;
    uint32_t low_count;
    uint32_t *scratch; /* lenient: keys, values, low keys, low values */
    const uint32_t *keys;
    const uint32_t *values;
    const uint32_t *low_keys;
    const uint32_t *low_values;
    size_t tree_offset, values_offset, low_offset; /* in the map's block */
} direction_source;

static int find_stops(direction_source *src, const ilmap_entry *e, uint32_t n, int by_new)
{
    uint32_t first = key_of(&e[0], by_new);
    /* at most n keys, n + 1 values, n - 1 low keys and values */
    uint32_t *buf = malloc(((size_t)n * 4 + 1) * sizeof *buf);
    if (!buf)
        return 0;
    uint32_t *keys = buf, *values = buf + n, *low_keys = values + n + 1,
             *low_values = low_keys + n - 1;
    uint32_t nkeys = 1, low = 0, highest = 0;

    keys[0] = first;
    values[0] = ILMAP_PROLOG;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t key = key_of(&e[i], by_new);
        if (i > 1 && key <= highest)
            continue; /* cannot end the scan first */
        highest = key;
        if (key <= first) {
            low_keys[low] = key;
            low_values[low++] = value_of(&e[i - 1], by_new);
        } else {
            keys[nkeys] = key;
            values[nkeys++] = value_of(&e[i - 1], by_new);
        }
    }
    values[nkeys] = value_of(&e[n - 1], by_new);
    src->scratch = buf;
    src->nkeys = nkeys;
    src->low_count = low;
    src->keys = keys;
    src->values = values;
    src->low_keys = low_keys;
    src->low_values = low_values;
    return 1;
}

static void free_sources(direction_source src[2])
{
    free(src[0].scratch);
    free(src[1].scratch);
}

static void build_direction(struct ilmap_direction *d, const direction_source *src,
                            unsigned char *base, int lenient, uint32_t first_key,
                            const uint32_t *value_storage, cpu_level level)
{
    int32_t *tree = (int32_t *)(void *)(base + src->tree_offset);

    d->first_key = first_key;
    rank_index_init(&d->index, src->keys, src->nkeys, tree, rank_kernel_for(level));
    if (lenient) {
        uint32_t *values = (uint32_t *)(void *)(base + src->values_offset);
        uint32_t *low = (uint32_t *)(void *)(base + src->low_offset);
        memcpy(values, src->values, ((size_t)src->nkeys + 1) * sizeof *values);
        memcpy(low, src->low_keys, (size_t)src->low_count * sizeof *low);
        memcpy(low + src->low_count, src->low_values, (size_t)src->low_count * sizeof *low);
        d->values = values;
        d->low_count = src->low_count;
        d->low_keys = low;
        d->low_values = low + src->low_count;
    } else {
        d->values = value_storage; /* PROLOG, then the value column */
    }
    direction_kernels kernels = direction_kernels_for(level, d->index.nlayers);
    d->lookup = kernels.lookup;
    d->rank8 = kernels.rank8;
    d->batch = kernels.batch;
    d->batch_dac = kernels.batch_dac;
    if (level != CPU_PORTABLE && d->index.nlayers == 1) /* SSE2, AVX2 or NEON */
        d->inline_vectors = d->index.nkeys <= 4 ? 1 : 4;
}

ilmap_status ilmap_create(const ilmap_entry *entries, size_t count, unsigned flags, ilmap **out)
{
    if (out)
        *out = NULL;
    if (!out || (entries == NULL && count > 0) || count > ILMAP_MAX_ENTRIES ||
        (flags & ~(unsigned)KNOWN_FLAGS))
        return ILMAP_E_INVALID_ARG;

    int lenient = (flags & ILMAP_LENIENT) != 0;
    if (!lenient && ilmap_validate(entries, count, NULL, NULL) != ILMAP_OK)
        return ILMAP_E_UNSORTED;

    uint32_t n = (uint32_t)count;
    direction_source src[2];
    memset(src, 0, sizeof src);
    block_plan p = { 0, 0 };
    int overflow = 0;

    /* Each column is stored after a PROLOG slot: for a strict map the
     * other direction's answers are that slot and the column. */
    size_t struct_offset = block_plan_add(&p, 1, sizeof(ilmap)); /* 0: ilmap_free relies on it */
    size_t old_offset = block_plan_add(&p, (size_t)n + 1, sizeof(uint32_t));
    size_t new_offset = block_plan_add(&p, (size_t)n + 1, sizeof(uint32_t));
    size_t accurate_offset = block_plan_add(&p, n, sizeof(int32_t));
    for (int by_new = 0; by_new < 2 && n > 0; by_new++) {
        direction_source *d = &src[by_new];
        int slot_overflow = 0;

        if (lenient) {
            if (!find_stops(d, entries, n, by_new)) {
                free_sources(src);
                return ILMAP_E_NOMEM;
            }
            d->values_offset = block_plan_add(&p, (size_t)d->nkeys + 1, sizeof(uint32_t));
            d->low_offset = block_plan_add(&p, (size_t)d->low_count * 2, sizeof(uint32_t));
        } else {
            d->nkeys = n;
        }
        d->tree_offset = block_plan_add(&p, rank_index_slots(d->nkeys, &slot_overflow), sizeof(int32_t));
        overflow |= slot_overflow;
    }
    if (p.overflow || overflow) {
        free_sources(src);
        return ILMAP_E_INVALID_ARG;
    }

    size_t block_size = 0;
    unsigned char *base = block_alloc(p.size, &block_size);
    if (!base) {
        free_sources(src);
        return ILMAP_E_NOMEM;
    }

    ilmap *map = (ilmap *)(void *)(base + struct_offset);
    uint32_t *old_storage = (uint32_t *)(void *)(base + old_offset);
    uint32_t *new_storage = (uint32_t *)(void *)(base + new_offset);
    int32_t *accurate = (int32_t *)(void *)(base + accurate_offset);

    memset(map, 0, sizeof *map);
    old_storage[0] = ILMAP_PROLOG;
    new_storage[0] = ILMAP_PROLOG;
    for (uint32_t i = 0; i < n; i++) {
        old_storage[i + 1] = entries[i].old_offset;
        new_storage[i + 1] = entries[i].new_offset;
        accurate[i] = entries[i].accurate;
    }
    map->count = n;
    map->lenient = lenient;
    map->level = cpu_level_for_flags(flags);
    map->old_column = old_storage + 1;
    map->new_column = new_storage + 1;
    map->accurate = accurate;
    map->bytes = block_size;

    if (n == 0) {
        map->old_to_new.lookup = lookup_identity;
        map->new_to_old.lookup = lookup_identity;
    } else {
        if (!lenient) {
            src[0].keys = map->old_column;
            src[1].keys = map->new_column;
        }
        build_direction(&map->old_to_new, &src[0], base, lenient, entries[0].old_offset,
                        new_storage, map->level);
        build_direction(&map->new_to_old, &src[1], base, lenient, entries[0].new_offset,
                        old_storage, map->level);
    }
    free_sources(src);
    *out = map;
    return ILMAP_OK;
}

void ilmap_free(ilmap *map)
{
    block_free(map); /* the struct is at the start of its block */
}

size_t ilmap_get_count(const ilmap *map)
{
    return map ? map->count : 0;
}

unsigned ilmap_get_flags(const ilmap *map)
{
    return map && map->lenient ? ILMAP_LENIENT : 0u;
}

size_t ilmap_get_memory_bytes(const ilmap *map)
{
    return map ? map->bytes : 0;
}

const char *ilmap_get_implementation(const ilmap *map)
{
    return cpu_level_name(map ? map->level : cpu_detect());
}

ilmap_status ilmap_export(const ilmap *map, size_t cap, size_t *total, ilmap_entry *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;

    size_t count = ilmap_get_count(map);
    size_t n = copy_out_fit(cap, count);
    for (size_t i = 0; i < n; i++) {
        out[i].old_offset = map->old_column[i];
        out[i].new_offset = map->new_column[i];
        out[i].accurate = map->accurate[i];
    }
    return copy_out_done(cap, count, total);
}
