/*
 * The indexed form with entry answers (native.h): what a map gets when
 * direct answers would not fit its memory bound. A bucket table over the
 * keys gives the interval of a native offset and the interval its entry
 * (exported index + 1), whose IL offset and start the runtime's rules
 * turn into the answer (answer.h); a bucket table over the IL column's
 * normal entries gives the floor of an IL offset, in this form and in
 * the direct one.
 */
#include "native/answer.h"
#include "native/buckets.h"
#include "native/forms.h"

/* The exported index + 1 of the first entry whose range holds x (0:
 * none), through the bucket table over the keys. flags is ix->flags, a
 * constant in the common shape's copy. */
ILMAP_ALWAYS_INLINE uint32_t indexed_answer(const ilmap_native *m, const native_index *ix,
                                      unsigned flags, uint32_t x)
{
    const uint32_t *keys = native_at(m, NATIVE_INDEXED_KEYS_OFF);
    uint32_t r = buckets_rank(keys, native_at(m, ix->native_first_off),
                              (flags & NATIVE_WIDE_NATIVE) != 0, ix->native_nb, ix->native_shift,
                              x, (flags & NATIVE_SIMD) != 0);
    if (flags & NATIVE_WIDE_ANSWERS)
        return ((const uint32_t *)native_at(m, ix->answers_off))[r];
    return ((const uint16_t *)native_at(m, ix->answers_off))[r];
}

/* The exported form of entry k of an indexed map with entry answers
 * (its start and end columns follow the IL column;
 * doc/native-maps.md#export, ExportILToNativeMap). */
ILMAP_ALWAYS_INLINE ilmap_native_entry exported_at(const ilmap_native *m, const uint32_t *il,
                                             uint32_t count, uint32_t k)
{
    const native_index *ix = native_index_of(m);
    unsigned mode = (m->info >> NATIVE_SRC_SHIFT) & 3u;
    ilmap_native_entry e;
    uint32_t source;

    e.il_offset = il[k];
    e.native_start = il[(size_t)count + k];
    e.native_end = il[2 * (size_t)count + k];
    switch (mode) {
    case NATIVE_SRC_ZERO: return e;
    case NATIVE_SRC_UNIFORM: source = ix->source; break;
    case NATIVE_SRC_U8: source = ((const uint8_t *)native_at(m, ix->sources_off))[k]; break;
    default: source = ((const uint32_t *)native_at(m, ix->sources_off))[k]; break;
    }
    if (source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
        e.native_end = m->code_size;
    return e;
}

/* indexed_answer() with the map's own flags: the common shape's copy
 * with its flags as constants, the rest with them read. */
ILMAP_ALWAYS_INLINE uint32_t indexed_answer_of(const ilmap_native *m, const native_index *ix, uint32_t x)
{
    return ix->flags == NATIVE_COMMON_FLAGS ? indexed_answer(m, ix, NATIVE_COMMON_FLAGS, x)
                                            : indexed_answer(m, ix, ix->flags, x);
}

uint32_t native_indexed_answer(const ilmap_native *m, uint32_t x)
{
    return indexed_answer_of(m, native_index_of(m), x);
}

/* The answer of a normal entry first: the specials (PROLOG, EPILOGs,
 * unmapped stubs) cover little of an indexed map's code. */
unsigned native_indexed_to_il(const ilmap_native *m, uint32_t x, uint32_t *il_offset)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
    return answer_normal_first(m, il, ix->count, indexed_answer_of(m, ix, x), x, il_offset);
}

uint32_t native_index_il_rank(const ilmap_native *m, uint32_t x, uint32_t *prolog_end)
{
    const native_index *ix = native_index_of(m);
    const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
    const void *first = native_at(m, ix->il_first_off);
    unsigned flags = ix->flags & (NATIVE_WIDE_IL | NATIVE_SIMD);

    *prolog_end = ix->prolog_end;
    if (flags == NATIVE_COMMON_FLAGS)
        return buckets_rank(il, first, 0, ix->il_nb, ix->il_shift, x, NATIVE_COMMON_FLAGS != 0);
    return buckets_rank(il, first, (flags & NATIVE_WIDE_IL) != 0, ix->il_nb, ix->il_shift, x,
                        (flags & NATIVE_SIMD) != 0);
}

/* The floor on the narrow IL table when it is its IL group's first; the
 * rest the general way. */
ilmap_status native_indexed_il_to_native(const ilmap_native *m, uint32_t il_offset,
                                         ilmap_native_entry *entry, size_t *index,
                                         int *il_matched)
{
    const native_index *ix = native_index_of(m);
    if ((ix->flags & (NATIVE_WIDE_IL | NATIVE_SIMD)) == NATIVE_COMMON_FLAGS) {
        const uint32_t *il = (const uint32_t *)native_at(m, NATIVE_INDEXED_KEYS_OFF) + ix->nkeys;
        uint32_t lo = ix->prolog_end;
        uint32_t p = buckets_rank(il, native_at(m, ix->il_first_off), 0, ix->il_nb, ix->il_shift,
                                  il_offset, NATIVE_COMMON_FLAGS != 0);
        if (NATIVE_LIKELY(p > lo)) {
            uint32_t k = group_start(il, lo, p - 1);
            if (entry)
                *entry = exported_at(m, il, ix->count, k);
            if (index)
                *index = k;
            if (il_matched)
                *il_matched = il[k] == il_offset;
            return ILMAP_OK;
        }
    }
    return native_il_to_native_any(m, il_offset, entry, index, il_matched);
}
