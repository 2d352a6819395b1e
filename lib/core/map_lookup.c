#include "core/map.h"
#include "common/search.h"

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

/* The DAC's scan below the first key (no PROLOG rule): the first stop
 * whose key exceeds x answers; stops at or under key[0] come first. */
static uint32_t dac_below_first_key(const struct ilmap_direction *d, uint32_t x)
{
    size_t lo = search_upper_u32(d->low_keys, sizeof *d->low_keys, d->low_count, x);
    return lo < d->low_count ? d->low_values[lo] : d->values[1];
}

uint32_t ilmap_new_to_old_dac(const ilmap *map, uint32_t new_offset)
{
    /* Negative as a signed 32-bit value passes through: specials too. */
    if (!map || new_offset >= 0x80000000u)
        return new_offset;
    const struct ilmap_direction *d = &map->new_to_old;
    if (new_offset < d->first_key)
        return dac_below_first_key(d, new_offset);
    return d->lookup(d, new_offset);
}
