/*
 * The one buffer protocol of every copy-out call (ilmap.h, top):
 * (size_t cap, size_t *total, T *out).
 *
 *  - total must not be NULL (ILMAP_E_INVALID_ARG);
 *  - *total receives the full item count on ILMAP_OK and on
 *    ILMAP_E_TRUNCATED, 0 on any other error;
 *  - cap 0 is a size query (out may be NULL): ILMAP_OK;
 *  - cap > 0 with out NULL is ILMAP_E_INVALID_ARG;
 *  - the first min(cap, count) items are written, nothing past them;
 *  - cap >= count: ILMAP_OK; cap < count: ILMAP_E_TRUNCATED.
 *
 * Every copy-out implementation uses these helpers:
 *
 *     ilmap_status st = copy_out_check(cap, total, out);  // first
 *     if (st != ILMAP_OK) return st;                      // (*total is 0)
 *     ... other argument checks, computing count (on failure return the
 *         error: *total is still 0) ...
 *     size_t n = copy_out_fit(cap, count);                 // write n items
 *     ... write out[0, n) ...
 *     return copy_out_done(cap, count, total);             // *total, status
 *
 * or, when the items are one contiguous array, copy_out_array() for all
 * of it. Everything here is inline, pure and allocation-free.
 */
#ifndef ILMAP_COMMON_COPY_OUT_H
#define ILMAP_COMMON_COPY_OUT_H

#include <stddef.h>
#include <string.h>

#include "ilmap.h"

/* Checks the protocol's own arguments and zeroes *total (so every error
 * returned before copy_out_done() leaves it 0). */
static inline ilmap_status copy_out_check(size_t cap, size_t *total, const void *out)
{
    if (total)
        *total = 0;
    if (!total || (cap > 0 && !out))
        return ILMAP_E_INVALID_ARG;
    return ILMAP_OK;
}

/* How many of count items go into a buffer of cap: min(cap, count). */
static inline size_t copy_out_fit(size_t cap, size_t count)
{
    return cap < count ? cap : count;
}

/* After the first copy_out_fit(cap, count) items were written: reports
 * count and says whether everything fit (cap 0 is a size query, never a
 * truncation). */
static inline ilmap_status copy_out_done(size_t cap, size_t count, size_t *total)
{
    *total = count;
    return cap == 0 || cap >= count ? ILMAP_OK : ILMAP_E_TRUNCATED;
}

/* The whole protocol for count items of item_size bytes at src. */
static inline ilmap_status copy_out_array(const void *src, size_t count, size_t item_size,
                                          size_t cap, size_t *total, void *out)
{
    ilmap_status st = copy_out_check(cap, total, out);
    if (st != ILMAP_OK)
        return st;
    size_t n = copy_out_fit(cap, count);
    if (n > 0)
        memcpy(out, src, n * item_size);
    return copy_out_done(cap, count, total);
}

#endif /* ILMAP_COMMON_COPY_OUT_H */
