#include "core/map.h"

uint32_t ilmap_old_to_new(const ilmap *map, uint32_t old_offset)
{
    if (!map || map->count == 0)
        return old_offset;
    return direction_translate(&map->old_to_new, old_offset);
}

uint32_t ilmap_new_to_old(const ilmap *map, uint32_t new_offset)
{
    if (!map || map->count == 0)
        return new_offset;
    return direction_translate(&map->new_to_old, new_offset);
}

uint32_t ilmap_new_to_old_dac(const ilmap *map, uint32_t new_offset)
{
    /* Negative as a signed 32-bit value passes through: specials too. */
    if (!map || map->count == 0 || new_offset >= 0x80000000u)
        return new_offset;
    const struct ilmap_direction *d = &map->new_to_old;
    return d->values[rank_index_count_le(&d->index, new_offset)];
}
