/*
 * ilmap_invert: both lookups apply the same rules to a key column
 * (doc/il-maps.md#translation), so swapping the columns swaps the directions
 * exactly; the array order is kept so that a lenient map's scan sees the same
 * sequence.
 */
#include <stdlib.h>

#include "algebra/pieces.h"

ilmap_status ilmap_invert(const ilmap *m, unsigned flags, ilmap **out)
{
    if (out)
        *out = NULL;
    if (!m || !out || (flags & ~(unsigned)(ILMAP_NO_AVX2 | ILMAP_PORTABLE)))
        return ILMAP_E_INVALID_ARG;

    ilmap_entry *e;
    size_t n;
    ilmap_status st = copy_entries(m, &e, &n);
    if (st != ILMAP_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        uint32_t t = e[i].old_offset;
        e[i].old_offset = e[i].new_offset;
        e[i].new_offset = t;
    }
    st = ilmap_create(e, n, flags | (ilmap_get_flags(m) & ILMAP_LENIENT), out);
    free(e);
    return st;
}
