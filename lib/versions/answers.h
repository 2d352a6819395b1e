/*
 * A body's answers: native offset -> (mapping, IL offset, original IL
 * offset), composed once, when the body is attached.
 *
 * Why: a store lookup used to ask the body's native map
 * (ilmap_native_to_il()) and then its IL map (ilmap_new_to_old()), two
 * structures in two allocations, each a few dependent cache misses away.
 * Both are fixed for the body's life (the body captures its version's IL
 * map when attached: doc/rejit.md#store-maps), so their composition is
 * too. It is a step function of the native offset: between two
 * consecutive breakpoints of the native map (its entries' starts and
 * non-zero ends) every test of the runtime's scan is constant, so the
 * answer is too (doc/native-to-il.md), except that EXACT answers only at
 * the matched entry's start: the interval's first offset. So one sorted
 * array of interval starts, and per interval the IL offset, the original
 * IL offset and the mapping, with a flag for "EXACT at the start, the
 * mapping elsewhere". It is laid out right behind the body, in the same
 * allocation.
 *
 * The composition asks the native map and the IL map through their public
 * lookups only (at each interval's first and second offset), so it agrees
 * with them by construction, whatever their insides.
 */
#ifndef ILMAP_VERSIONS_ANSWERS_H
#define ILMAP_VERSIONS_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "common/search.h"
#include "ilmap.h"

#define ANSWER_EXACT_AT_START 0x80u

typedef struct body_answers {
    uint32_t count;         /* intervals; 0: no native map (NO_INFO) */
    const uint32_t *starts; /* ascending, starts[0] == 0 */
    const uint32_t *il;     /* per interval: IL offset, original IL offset */
    const uint8_t *kind;    /* ILMAP_MAPPING_* | ANSWER_EXACT_AT_START */
} body_answers;

/* One interval while composing. */
typedef struct answer_interval {
    uint32_t start, il, original;
    uint8_t kind;
} answer_interval;

/* The intervals of (native, il_map) over [0, code_size), merged where
 * neighbours answer alike: *out is malloc'd (NULL and 0 when native is
 * NULL). il_map may be NULL (no translation), as may original_il (the
 * native map answers in original IL already: ILMAP_BODY_ORIGINAL_IL). */
ilmap_status answers_compose(const ilmap_native *native, const ilmap *il_map, int original_il,
                             uint32_t code_size, answer_interval **out, uint32_t *count);

/* Bytes answers_place() writes for count intervals (overflow-checked:
 * SIZE_MAX when it would not fit). */
size_t answers_bytes(uint32_t count);

/* Lays the intervals out at mem (answers_bytes(count) bytes, aligned for
 * uint32_t) and points *out at them. */
void answers_place(void *mem, const answer_interval *iv, uint32_t count, body_answers *out);

/* The answer at native offset x (< the body's code size). */
static inline unsigned answers_at(const body_answers *a, uint32_t x, uint32_t *il,
                                  uint32_t *original)
{
    if (a->count == 0) {
        *il = *original = 0;
        return ILMAP_MAPPING_NO_INFO;
    }
    /* starts[0] == 0 <= x: the rank is at least 1. */
    uint32_t i = search_rank_u32(a->starts, 1, a->count, x, 1) - 1;
    unsigned kind = a->kind[i];
    *il = a->il[2 * (size_t)i];
    *original = a->il[2 * (size_t)i + 1];
    if ((kind & ANSWER_EXACT_AT_START) && x == a->starts[i])
        return ILMAP_MAPPING_EXACT;
    return kind & ~ANSWER_EXACT_AT_START;
}

#endif
