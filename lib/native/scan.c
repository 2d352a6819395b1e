/*
 * The scan form (native.h): at most NATIVE_SCAN_MAX entries, their IL,
 * start and end columns after the head; every lookup tests every entry,
 * as the runtime's MapNativeOffsetToIL does (doc/native-to-il.md#scan),
 * without a branch on the query.
 */
#include "index/count.h"
#include "native/answer.h"
#include "native/forms.h"

/* The exported index + 1 of the first entry of the columns whose range
 * holds x, 0 when none: each entry tested, the first hit picked. */
ILMAP_ALWAYS_INLINE uint32_t scan_answer(const uint32_t *il, uint32_t count, uint32_t x)
{
    const uint32_t *start = il + count, *end = start + count;
    uint32_t hits = 0;

    for (uint32_t i = 0; i < count; i++) {
        uint32_t open = (end[i] == 0) & (il[i] != ILMAP_PROLOG);
        hits |= (uint32_t)((x >= start[i]) & ((x < end[i]) | open)) << i;
    }
    return hits ? ILMAP_CTZ32(hits) + 1 : 0;
}

unsigned native_scan_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    const uint32_t *il = native_columns(m);
    uint32_t count = (m->info >> NATIVE_COUNT_SHIFT) & 0x3Fu;
    return answer_of(m, il, count, scan_answer(il, count, x), x, il_offset);
}

uint32_t native_scan_answer(const ilmap_native *m, uint32_t x)
{
    return scan_answer(native_columns(m), (m->info >> NATIVE_COUNT_SHIFT) & 0x3Fu, x);
}

/* PROLOGs lead, and every other special exceeds x. */
uint32_t native_scan_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end)
{
    const uint32_t *il = native_columns(m);
    uint32_t n = (m->info >> NATIVE_COUNT_SHIFT) & 0x3Fu, prologs = 0, below = 0;

    for (uint32_t i = 0; i < n; i++) {
        prologs += il[i] == ILMAP_PROLOG;
        below += il[i] <= x;
    }
    *prolog_end = prologs;
    return prologs + below;
}
