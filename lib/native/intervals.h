/* The elementary intervals of the native axis and the entry the runtime
 * answers for each (intervals.c). */
#ifndef ILMAP_NATIVE_INTERVALS_H
#define ILMAP_NATIVE_INTERVALS_H

#include "native/native.h"

/* The sorted, distinct breakpoints (0, the starts, the non-zero ends) of
 * r[0, count) into bp (2 * count + 1 slots); returns how many (at least
 * 1: bp[0] is 0). */
uint32_t intervals_breakpoints(const ilmap_native_record *r, uint32_t count, uint32_t *bp);

/* claim[i] = the first entry of r (sorted order) matching interval i of
 * the nbreaks + 1, or NATIVE_NONE; next has nbreaks + 2 slots. */
void intervals_claim(const ilmap_native_record *r, uint32_t count, const uint32_t *bp,
                     uint32_t nbreaks, uint32_t *claim, uint32_t *next);

/* The position of v, a breakpoint, in bp[0, n). */
uint32_t intervals_position(const uint32_t *bp, uint32_t n, uint32_t v);

#endif
