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
 * allocation, for a sampler's cold lookups: each interval's start and
 * answer in one 16-byte record (8 bytes where the body's offsets fit 16
 * bits, the narrow form), and a slot table over the body's code
 * (common/search.h) that leads to the one or two records to compare. The
 * slot table comes first, right behind the body's fields and ranges, in
 * the lines the address index's hint prefetches with them (at most 8), so
 * that a body whose slot table fits there costs its lookup one dependent
 * miss after the body's: the record's. The address index's record hints
 * (addr_index.h, answers_record_address()) take that one off the chain
 * too: the record's line is requested with the body's.
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

/* One interval: where it starts and its answer, 16 bytes (four per cache
 * line), so the start a search compares and the answer it then reads are
 * one load apart at most. */
typedef struct answer_record {
    uint32_t start;
    uint32_t il, original;
    uint32_t kind; /* ILMAP_MAPPING_* | ANSWER_EXACT_AT_START */
} answer_record;

/* The same in 8 bytes (eight per line), for a body whose code is at most
 * 64 KiB, with fewer than 65,536 intervals and every IL offset and
 * original IL offset below 65,536: most bodies (answers_narrow()). */
typedef struct answer_record16 {
    uint16_t start;
    uint16_t il, original;
    uint16_t kind;
} answer_record16;

/*
 * A body's answers: the intervals' records by start, and a slot table
 * over the body's code (search.h): about one slot per interval, so a
 * lookup reads the slot's two counts and then one or two records. Two
 * forms: wide (answer_record, 32-bit slot counts) and narrow
 * (answer_record16, 16-bit slot counts), half the bytes.
 */
typedef struct body_answers {
    uint32_t count;  /* intervals; 0: no native map (NO_INFO) */
    uint16_t shift;  /* slots of 2^shift bytes of code */
    uint16_t narrow; /* 1: the narrow form */
    const void *below;   /* per slot, intervals starting before it: uint32_t or uint16_t */
    const void *records; /* ascending starts, the first at 0: answer_record(16) */
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

/* Whether count intervals over code_size bytes of code can take the
 * narrow form. */
int answers_narrow(const answer_interval *iv, uint32_t count, uint32_t code_size);

/* Bytes answers_place() writes for count intervals over code_size bytes
 * of code, narrow (answers_narrow()'s answer) or not (overflow-checked:
 * SIZE_MAX when it does not fit). */
size_t answers_bytes(uint32_t count, uint32_t code_size, int narrow);

/* Lays the intervals out at mem (answers_bytes() bytes, 16-byte aligned),
 * in the form narrow says, and points out at them. */
void answers_place(void *mem, const answer_interval *iv, uint32_t count, uint32_t code_size,
                   int narrow, body_answers *out);

/* The index of the record whose interval holds native offset x (x < the
 * body's code size; a->count > 0): the first record starts at 0 <= x, so
 * the rank is at least 1. */
static inline uint32_t answers_index(const body_answers *a, uint32_t x)
{
    if (a->narrow) {
        const answer_record16 *rs = (const answer_record16 *)a->records;
        return search_slot_rank_u16(&rs[0].start, sizeof(answer_record16) / sizeof(uint16_t),
                                    (const uint16_t *)a->below, a->shift, (uint16_t)x) - 1;
    }
    const answer_record *rs = (const answer_record *)a->records;
    return search_slot_rank_u32(&rs[0].start, sizeof(answer_record) / sizeof(uint32_t),
                                (const uint32_t *)a->below, a->shift, x) - 1;
}

/* Where the record holding native offset x lies (x < the body's code
 * size), NULL without records: the address index's prefetch hint
 * (addr_index.h). */
static inline const void *answers_record_address(const body_answers *a, uint32_t x)
{
    if (a->count == 0)
        return NULL;
    size_t size = a->narrow ? sizeof(answer_record16) : sizeof(answer_record);
    return (const unsigned char *)a->records + (size_t)answers_index(a, x) * size;
}

/* The answer at native offset x (< the body's code size). */
static inline unsigned answers_at(const body_answers *a, uint32_t x, uint32_t *il,
                                  uint32_t *original)
{
    if (a->count == 0) {
        *il = *original = 0;
        return ILMAP_MAPPING_NO_INFO;
    }
    uint32_t i = answers_index(a, x), start, kind;
    if (a->narrow) {
        const answer_record16 *r = (const answer_record16 *)a->records + i;
        start = r->start;
        *il = r->il;
        *original = r->original;
        kind = r->kind;
    } else {
        const answer_record *r = (const answer_record *)a->records + i;
        start = r->start;
        *il = r->il;
        *original = r->original;
        kind = r->kind;
    }
    if ((kind & ANSWER_EXACT_AT_START) && x == start)
        return ILMAP_MAPPING_EXACT;
    return kind & ~ANSWER_EXACT_AT_START;
}

#endif
