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
 * allocation, for a sampler's cold lookups: the starts in blocks of one
 * cache line under a line of fences, each interval's answer in 12 bytes.
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
#include "platform/prefetch.h"

#define ANSWER_EXACT_AT_START 0x80u
/* Starts per block of the two-level search: 16 uint32_t, one cache line. */
#define ANSWER_BLOCK 16u

/* One interval's answer, 12 bytes: one cache line holds five. */
typedef struct answer_value {
    uint32_t il, original;
    uint32_t kind; /* ILMAP_MAPPING_* | ANSWER_EXACT_AT_START */
} answer_value;

/*
 * Where a lookup reads: the interval starts, searched in two levels when
 * there are more than a block of them (every ANSWER_BLOCK-th start in
 * `fences`, then one block: two or three cache lines instead of a binary
 * search's five to ten on a cold table), and the answers.
 */
typedef struct body_answers {
    uint32_t count;          /* intervals; 0: no native map (NO_INFO) */
    uint32_t nfences;        /* ceil(count / ANSWER_BLOCK) when count > ANSWER_BLOCK, else 0 */
    const uint32_t *fences;  /* starts[0], starts[16], ... */
    const uint32_t *starts;  /* ascending, starts[0] == 0 */
    const answer_value *values;
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
    /* starts[0] == 0 <= x: every rank below is at least 1. */
    uint32_t i;
    if (a->nfences == 0) {
        const answer_value *v = a->values;
        ILMAP_PREFETCH(v);
        ILMAP_PREFETCH(v + 5);
        ILMAP_PREFETCH(v + 10);
        ILMAP_PREFETCH(v + 15);
        i = search_rank_u32(a->starts, 1, a->count, x, 1) - 1;
    } else {
        uint32_t f = search_rank_u32(a->fences, 1, a->nfences, x, 1) - 1;
        uint32_t first = f * ANSWER_BLOCK, left = a->count - first;
        /* The block's answers (three or four lines) load while its
         * starts are searched. */
        const answer_value *v = &a->values[first];
        ILMAP_PREFETCH(v);
        ILMAP_PREFETCH(v + 5);
        ILMAP_PREFETCH(v + 10);
        ILMAP_PREFETCH(v + 15);
        i = first + search_rank_u32(a->starts + first, 1, left < ANSWER_BLOCK ? left : ANSWER_BLOCK,
                                    x, 1) - 1;
    }
    const answer_value *v = &a->values[i];
    *il = v->il;
    *original = v->original;
    if ((v->kind & ANSWER_EXACT_AT_START) && x == a->starts[i])
        return ILMAP_MAPPING_EXACT;
    return v->kind & ~ANSWER_EXACT_AT_START;
}

#endif
