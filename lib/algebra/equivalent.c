/* ilmap_equivalent: the two maps' step functions compared piece by piece. */
#include <string.h>

#include "algebra/pieces.h"

ilmap_status ilmap_equivalent(const ilmap *a, const ilmap *b, unsigned directions, uint32_t bound,
                              int *equal, ilmap_difference *diff)
{
    if (diff)
        memset(diff, 0, sizeof *diff);
    if (equal)
        *equal = 0;
    if (!equal || directions == 0 || (directions & ~(unsigned)ILMAP_DIR_ALL))
        return ILMAP_E_INVALID_ARG;

    for (unsigned dir = 1; dir <= ILMAP_DIR_NEW_TO_OLD_DAC; dir <<= 1) {
        if (!(directions & dir))
            continue;
        pieces pa, pb = { NULL, 0 };
        ilmap_status st = pieces_of(a, dir, &pa);
        if (st == ILMAP_OK)
            st = pieces_of(b, dir, &pb);
        uint32_t at, va, vb;
        int differ = st == ILMAP_OK && pieces_differ(&pa, &pb, bound, &at, &va, &vb);
        pieces_free(&pa);
        pieces_free(&pb);
        if (st != ILMAP_OK)
            return st;
        if (differ) {
            if (diff)
                *diff = (ilmap_difference){ dir, at, va, vb };
            return ILMAP_OK;
        }
    }
    *equal = 1;
    return ILMAP_OK;
}
