#include <stdlib.h>
#include <string.h>

#include "core/map.h"

#define KNOWN_FLAGS (ILMAP_LENIENT | ILMAP_NO_AVX2 | ILMAP_PORTABLE)
#define ALIGN 64u

/* Plans one allocation holding the struct and every array. */
typedef struct plan {
    size_t size;
    int overflow;
} plan;

static size_t plan_add(plan *p, size_t count, size_t elem_size)
{
    size_t offset = (p->size + (ALIGN - 1)) & ~(size_t)(ALIGN - 1);

    if (offset < p->size || (elem_size && count > (SIZE_MAX - offset) / elem_size)) {
        p->overflow = 1;
        return 0;
    }
    p->size = offset + count * elem_size;
    return offset;
}

static uint32_t key_of(const ilmap_entry *e, int by_new)
{
    return by_new ? e->new_offset : e->old_offset;
}

static uint32_t value_of(const ilmap_entry *e, int by_new)
{
    return by_new ? e->old_offset : e->new_offset;
}

/* The entries that can stop the runtime's scan (see map.h): from index 1
 * on, each key greater than all earlier ones. Writes keys and values when
 * the arrays are given; returns how many there are. */
static uint32_t scan_stops(const ilmap_entry *entries, uint32_t count, int by_new,
                           uint32_t *keys, uint32_t *values)
{
    uint32_t stops = 0;
    uint32_t highest = 0;

    for (uint32_t i = 1; i < count; i++) {
        uint32_t key = key_of(&entries[i], by_new);
        if (i == 1 || key > highest) {
            if (keys) {
                keys[stops] = key;
                values[stops] = value_of(&entries[i - 1], by_new);
            }
            stops++;
            highest = key;
        }
    }
    if (values)
        values[stops] = value_of(&entries[count - 1], by_new);
    return stops;
}

static rank_count_fn kernel_for(cpu_level level)
{
#ifdef RANK_HAVE_X86
    if (level == CPU_AVX2)
        return rank_count_le_avx2;
    if (level == CPU_SSE2)
        return rank_count_le_sse2;
#endif
    (void)level;
    return rank_count_le_portable;
}

static cpu_level level_for(unsigned flags)
{
    cpu_level level = cpu_detect();

    if (flags & ILMAP_PORTABLE)
        return CPU_PORTABLE;
    if ((flags & ILMAP_NO_AVX2) && level > CPU_SSE2)
        return CPU_SSE2;
    return level;
}

struct direction_plan {
    uint32_t nkeys;
    size_t tree_offset;
    size_t values_offset; /* lenient only */
};

/* Builds one direction. Strict maps search key column[1..n) and answer
 * from the other column; lenient ones use the scan's stops. */
static int build_direction(struct ilmap_direction *d, const struct direction_plan *p,
                           unsigned char *base, const ilmap_entry *entries, uint32_t count,
                           int by_new, int lenient, const uint32_t *key_column,
                           const uint32_t *value_column, rank_count_fn kernel)
{
    int32_t *tree = (int32_t *)(void *)(base + p->tree_offset);

    d->first_key = key_of(&entries[0], by_new);
    if (!lenient) {
        d->values = value_column;
        rank_index_init(&d->index, key_column + 1, p->nkeys, tree, kernel);
        return 1;
    }

    uint32_t *values = (uint32_t *)(void *)(base + p->values_offset);
    uint32_t *keys = malloc((size_t)(p->nkeys ? p->nkeys : 1) * sizeof *keys);
    if (!keys)
        return 0;
    scan_stops(entries, count, by_new, keys, values);
    rank_index_init(&d->index, keys, p->nkeys, tree, kernel);
    free(keys);
    d->values = values;
    return 1;
}

ilmap_status ilmap_create(const ilmap_entry *entries, size_t count, unsigned flags, ilmap **out)
{
    if (out)
        *out = NULL;
    if (!out || (entries == NULL && count > 0) || count > ILMAP_MAX_ENTRIES ||
        (flags & ~(unsigned)KNOWN_FLAGS))
        return ILMAP_E_INVALID_ARG;

    int lenient = (flags & ILMAP_LENIENT) != 0;
    if (!lenient && ilmap_validate(entries, count, NULL) != ILMAP_OK)
        return ILMAP_E_UNSORTED;

    uint32_t n = (uint32_t)count;
    struct direction_plan dp[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    plan p = { 0, 0 };
    int overflow = 0;

    size_t struct_offset = plan_add(&p, 1, sizeof(ilmap));
    size_t old_offset = plan_add(&p, n, sizeof(uint32_t));
    size_t new_offset = plan_add(&p, n, sizeof(uint32_t));
    size_t accurate_offset = plan_add(&p, n, sizeof(int32_t));
    for (int by_new = 0; by_new < 2 && n > 0; by_new++) {
        struct direction_plan *d = &dp[by_new];
        int slot_overflow = 0;

        d->nkeys = lenient ? scan_stops(entries, n, by_new, NULL, NULL) : n - 1;
        d->tree_offset = plan_add(&p, rank_index_slots(d->nkeys, &slot_overflow), sizeof(int32_t));
        overflow |= slot_overflow;
        if (lenient)
            d->values_offset = plan_add(&p, (size_t)d->nkeys + 1, sizeof(uint32_t));
    }
    if (p.overflow || overflow || p.size > SIZE_MAX - ALIGN - sizeof(void *))
        return ILMAP_E_INVALID_ARG;

    size_t block_size = p.size + ALIGN + sizeof(void *);
    void *block = malloc(block_size);
    if (!block)
        return ILMAP_E_NOMEM;
    /* The struct sits at the first aligned address; the block pointer is
     * kept just before it so that ilmap_free can find it. */
    uintptr_t raw = (uintptr_t)block + sizeof(void *);
    unsigned char *base = (unsigned char *)((raw + (ALIGN - 1)) & ~(uintptr_t)(ALIGN - 1));
    memcpy(base - sizeof(void *), &block, sizeof block);

    ilmap *map = (ilmap *)(void *)(base + struct_offset);
    uint32_t *old_column = (uint32_t *)(void *)(base + old_offset);
    uint32_t *new_column = (uint32_t *)(void *)(base + new_offset);
    int32_t *accurate = (int32_t *)(void *)(base + accurate_offset);

    memset(map, 0, sizeof *map);
    for (uint32_t i = 0; i < n; i++) {
        old_column[i] = entries[i].old_offset;
        new_column[i] = entries[i].new_offset;
        accurate[i] = entries[i].accurate;
    }
    map->count = n;
    map->lenient = lenient;
    map->level = level_for(flags);
    map->old_column = old_column;
    map->new_column = new_column;
    map->accurate = accurate;
    map->bytes = block_size;

    if (n > 0) {
        rank_count_fn kernel = kernel_for(map->level);
        if (!build_direction(&map->old_to_new, &dp[0], base, entries, n, 0, lenient, old_column,
                             new_column, kernel) ||
            !build_direction(&map->new_to_old, &dp[1], base, entries, n, 1, lenient, new_column,
                             old_column, kernel)) {
            free(block);
            return ILMAP_E_NOMEM;
        }
    }
    *out = map;
    return ILMAP_OK;
}

void ilmap_free(ilmap *map)
{
    void *block;

    if (!map)
        return;
    memcpy(&block, (unsigned char *)map - sizeof(void *), sizeof block);
    free(block);
}

size_t ilmap_count(const ilmap *map)
{
    return map ? map->count : 0;
}

int ilmap_is_lenient(const ilmap *map)
{
    return map ? map->lenient : 0;
}

size_t ilmap_memory_bytes(const ilmap *map)
{
    return map ? map->bytes : 0;
}

const char *ilmap_implementation(const ilmap *map)
{
    return cpu_level_name(map ? map->level : cpu_detect());
}

ilmap_status ilmap_entries(const ilmap *map, size_t cap, size_t *total, ilmap_entry *out)
{
    size_t count = ilmap_count(map);

    if (total)
        *total = count;
    if (cap > 0 && (!out || !total))
        return ILMAP_E_INVALID_ARG;
    for (size_t i = 0; i < count && i < cap; i++) {
        out[i].old_offset = map->old_column[i];
        out[i].new_offset = map->new_column[i];
        out[i].accurate = map->accurate[i];
    }
    return ILMAP_OK;
}
