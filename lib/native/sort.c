/*
 * The runtime's sort order for IL-to-native tables (spec §3): PROLOG
 * entries first whatever their source, then the other non-call entries by
 * IL offset, then the CALL_INSTRUCTION entries by IL offset; ties by
 * native start. Comparing IL offsets as unsigned values puts normal
 * offsets before EPILOG (0xFFFFFFFD) before NO_MAPPING (0xFFFFFFFF),
 * which is the comparator's class order. A merge sort, because the
 * runtime's quicksort leaves equal entries in no particular order and
 * libilmap promises a deterministic one (decision 8): the input's.
 */
#include <stdlib.h>
#include <string.h>

#include "native/native.h"

/* Negative, zero or positive as a sorts before, with or after b. */
static int compare(const ilmap_native_record *a, const ilmap_native_record *b)
{
    unsigned ga = native_group(a), gb = native_group(b);

    if (ga != gb)
        return ga < gb ? -1 : 1;
    if (a->il_offset != b->il_offset)
        return a->il_offset < b->il_offset ? -1 : 1;
    if (a->native_start != b->native_start)
        return a->native_start < b->native_start ? -1 : 1;
    return 0;
}

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst. Taking
 * from the left run on ties keeps the sort stable. */
static void merge(const ilmap_native_record *src, ilmap_native_record *dst, uint32_t lo,
                  uint32_t mid, uint32_t hi)
{
    uint32_t i = lo, j = mid, k = lo;

    while (i < mid && j < hi)
        dst[k++] = compare(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

int native_sort(ilmap_native_record *records, uint32_t n)
{
    if (n < 2)
        return 1;

    ilmap_native_record *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return 0;

    ilmap_native_record *src = records, *dst = tmp;
    for (uint64_t width = 1; width < n; width *= 2) {
        for (uint64_t lo = 0; lo < n; lo += 2 * width) {
            uint64_t mid = lo + width < n ? lo + width : n;
            uint64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            merge(src, dst, (uint32_t)lo, (uint32_t)mid, (uint32_t)hi);
        }
        ilmap_native_record *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != records)
        memcpy(records, src, (size_t)n * sizeof *records);
    free(tmp);
    return 1;
}

uint32_t native_trailing_calls(const ilmap_native_record *records, uint32_t n)
{
    uint32_t calls = 0;

    while (calls < n && native_is_call(&records[n - 1 - calls]))
        calls++;
    return calls;
}
