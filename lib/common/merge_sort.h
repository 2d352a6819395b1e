/*
 * The library's one stable sort: a bottom-up merge sort of fixed-size
 * elements with a caller's order. qsort() is not stable, and where the
 * runtime's own sort leaves the order of equal elements open libilmap
 * promises the input's (doc/decisions.md#sort-ties).
 *
 * Inlined where it is used (ILMAP_ALWAYS_INLINE), so the order function and
 * the element size are constants there and the merge copies elements as
 * a hand-written loop over a typed array would.
 */
#ifndef ILMAP_COMMON_MERGE_SORT_H
#define ILMAP_COMMON_MERGE_SORT_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "platform/compiler.h"


/* Non-zero when element a must come before element b. */
typedef int (*merge_before_fn)(const void *ctx, const void *a, const void *b);

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst. Taking
 * from the left run unless the right element must come first keeps the
 * sort stable. */
ILMAP_ALWAYS_INLINE void merge_runs(const unsigned char *src, unsigned char *dst, size_t size,
                                  size_t lo, size_t mid, size_t hi, merge_before_fn before,
                                  const void *ctx)
{
    size_t i = lo, j = mid, k = lo;

    while (i < mid && j < hi) {
        size_t from = before(ctx, src + j * size, src + i * size) ? j++ : i++;
        memcpy(dst + k++ * size, src + from * size, size);
    }
    memcpy(dst + k * size, src + i * size, (mid - i) * size);
    k += mid - i;
    memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

/* Sorts the n elements of `size` bytes at base, stably, by before().
 * Returns 0 (base unchanged) when out of memory, else 1. */
ILMAP_ALWAYS_INLINE int merge_sort(void *base, size_t n, size_t size, merge_before_fn before,
                                 const void *ctx)
{
    if (n < 2)
        return 1;

    unsigned char *tmp = malloc(n * size);
    if (!tmp)
        return 0;

    unsigned char *src = base, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = width < n - lo ? lo + width : n;
            size_t hi = 2 * width < n - lo ? lo + 2 * width : n;
            merge_runs(src, dst, size, lo, mid, hi, before, ctx);
        }
        unsigned char *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != base)
        memcpy(base, src, n * size);
    free(tmp);
    return 1;
}

#endif
