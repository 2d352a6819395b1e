/*
 * The native -> IL answers. MapNativeOffsetToIL (doc/native-to-il.md#scan)
 * answers the first entry in sorted order whose range holds x, with overlaps,
 * end-0 entries and duplicates. Every start and non-zero end is a breakpoint,
 * and so is 0 (every stored start and end, 0 included, is then a key, and
 * every offset has a key at or below it);
 * within an elementary interval between two breakpoints every "x >=
 * start" and "x < end" test is constant, so the first match is too. The
 * entries are visited in sorted order and each claims the intervals it
 * covers that no earlier entry claimed; a "next unclaimed interval"
 * union-find keeps that near-linear after the O(n log n) sort.
 */
#include <stdlib.h>

#include "common/order.h"
#include "native/intervals.h"
#include "common/search.h"

/* The position of v in the strictly ascending bp[0, n); v is present. */
uint32_t intervals_position(const uint32_t *bp, uint32_t n, uint32_t v)
{
    return (uint32_t)search_upper_u32(bp, sizeof *bp, n, v) - 1;
}

/* The first unclaimed interval >= i (n when none), compressing paths. */
static uint32_t next_unclaimed(uint32_t *next, uint32_t i)
{
    uint32_t root = i;

    while (next[root] != root)
        root = next[root];
    while (next[i] != root) {
        uint32_t up = next[i];
        next[i] = root;
        i = up;
    }
    return root;
}

/* The sorted, distinct breakpoints of the exported entries, 0 first. */
uint32_t intervals_breakpoints(const ilmap_native_record *r, uint32_t count, uint32_t *bp)
{
    uint32_t n = 0, distinct = 0;

    bp[n++] = 0;
    for (uint32_t k = 0; k < count; k++) {
        bp[n++] = r[k].native_start;
        if (r[k].native_end != 0)
            bp[n++] = r[k].native_end;
    }
    qsort(bp, n, sizeof *bp, order_u32);
    for (uint32_t i = 0; i < n; i++)
        if (distinct == 0 || bp[i] != bp[distinct - 1])
            bp[distinct++] = bp[i];
    return distinct;
}

/* Each entry, in sorted order, claims the unclaimed intervals where the
 * runtime's match condition holds. Interval i is [bp[i-1], bp[i]), so
 * x >= start from interval pos(start) + 1 on and x < end up to interval
 * pos(end) included. */
void intervals_claim(const ilmap_native_record *r, uint32_t count, const uint32_t *bp,
                     uint32_t nbreaks, uint32_t *claim, uint32_t *next)
{
    uint32_t nintervals = nbreaks + 1;

    for (uint32_t i = 0; i <= nintervals; i++)
        next[i] = i;
    for (uint32_t i = 0; i < nintervals; i++)
        claim[i] = NATIVE_NONE;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t lo = intervals_position(bp, nbreaks, r[k].native_start) + 1;
        uint32_t hi;

        if (r[k].native_end == 0) {
            if (r[k].il_offset == ILMAP_PROLOG)
                continue; /* end 0 never matches a PROLOG (doc/native-to-il.md#end-zero) */
            hi = nintervals;
        } else {
            hi = intervals_position(bp, nbreaks, r[k].native_end) + 1;
        }
        for (uint32_t i = next_unclaimed(next, lo); i < hi; i = next_unclaimed(next, i)) {
            claim[i] = k;
            next[i] = i + 1;
        }
    }
}
