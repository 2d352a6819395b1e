/*
 * The runtime's sort order for IL-to-native tables
 * (doc/native-maps.md#sort-order): PROLOG entries first whatever their source,
 * then the other non-call entries by IL offset, then the CALL_INSTRUCTION
 * entries by IL offset; ties by native start. Comparing IL offsets as unsigned
 * values puts normal offsets before EPILOG (0xFFFFFFFD) before NO_MAPPING
 * (0xFFFFFFFF), which is the comparator's class order. A merge sort, because
 * the runtime's quicksort leaves equal entries in no particular order and
 * libilmap promises a deterministic one (doc/decisions.md#sort-ties): the
 * input's.
 */
#include "common/merge_sort.h"
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

static int record_before(const void *ctx, const void *a, const void *b)
{
    (void)ctx;
    return compare(a, b) < 0;
}

int native_sort(ilmap_native_record *records, uint32_t n)
{
    return merge_sort(records, n, sizeof *records, record_before, NULL);
}

uint32_t native_trailing_calls(const ilmap_native_record *records, uint32_t n)
{
    uint32_t calls = 0;

    while (calls < n && native_is_call(&records[n - 1 - calls]))
        calls++;
    return calls;
}
