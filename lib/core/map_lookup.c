#include "core/map.h"

uint32_t ilmap_old_to_new(const ilmap *map, uint32_t old_offset)
{
    if (!map)
        return old_offset;
    return direction_translate(&map->old_to_new, old_offset);
}

uint32_t ilmap_new_to_old(const ilmap *map, uint32_t new_offset)
{
    if (!map)
        return new_offset;
    return direction_translate(&map->new_to_old, new_offset);
}

uint32_t ilmap_new_to_old_dac(const ilmap *map, uint32_t new_offset)
{
    if (!map)
        return new_offset;
    return direction_translate_dac(&map->new_to_old, new_offset);
}
