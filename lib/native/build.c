/*
 * ilmap_native_build: the runtime's SetBoundaries (in-process) and
 * GetSequencePoints (DAC) over the JIT's boundaries (doc/native-maps.md#build).
 * The steps keep the runtime's order of operations, because its quirks (the
 * tracker moving on entries the second filter then drops, the end-offset skip
 * stopping at the final entry) depend on it.
 */
#include <stdlib.h>

#include "native/native.h"

#define KNOWN_FLAGS (ILMAP_DAC | ILMAP_NO_AVX2 | ILMAP_PORTABLE)

ilmap_status ilmap_native_validate_boundaries(const ilmap_boundary *jit, size_t count,
                                              uint32_t code_size, size_t *bad_index)
{
    if (bad_index)
        *bad_index = ILMAP_NO_INDEX;
    if ((jit == NULL && count > 0) || count > ILMAP_NATIVE_MAX_ENTRIES)
        return ILMAP_E_INVALID_ARG;
    for (size_t i = 0; i < count; i++) {
        ilmap_status status = ILMAP_OK;

        if (i > 0 && jit[i].native_offset < jit[i - 1].native_offset)
            status = ILMAP_E_NATIVE_ORDER;
        else if (jit[i].native_offset > code_size)
            status = ILMAP_E_CODE_SIZE;
        else if (jit[i].source & ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN)
            status = ILMAP_E_INVALID_ARG; /* the runtime's own bit: the build sets it */
        if (status != ILMAP_OK) {
            if (bad_index)
                *bad_index = i;
            return status;
        }
    }
    return ILMAP_OK;
}

/* Step 2's translation and first filter, in either flavour: *il becomes
 * its new -> old translation; 0 when that equals the tracker (the entry
 * is dropped, an "in-between" entry), else the tracker moves to it and 1.
 * The tracker moves even when a later filter drops the entry. */
static int translate_kept(const ilmap *map, int dac, uint32_t *tracker, uint32_t *il)
{
    *il = dac ? ilmap_new_to_old_dac(map, *il) : ilmap_new_to_old(map, *il);
    if (*il == *tracker)
        return 0;
    *tracker = *il;
    return 1;
}

/* The record a kept boundary becomes: its IL offset il (translated), its
 * native offset as the start, the end set by step 4. */
static ilmap_native_record record_of(const ilmap_boundary *b, uint32_t il)
{
    ilmap_native_record r = { il, b->native_offset, 0, b->source };
    return r;
}

/* In-process steps 2 and 3: translation with the tracker, then the second
 * filter. Returns how many records were kept; *last_il gets lastIL. */
static uint32_t filter_in_process(const ilmap_boundary *jit, uint32_t n, const ilmap *map,
                                  ilmap_native_record *kept, uint32_t *last_il)
{
    uint32_t tracker = NATIVE_TRACKER_START;
    uint32_t k = 0;

    *last_il = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t il = jit[i].il_offset;
        uint32_t source = jit[i].source;

        /* Raw offsets, dropped entries included: the runtime takes the
         * maximum before it filters anything. */
        *last_il = native_signed_max(*last_il, il);
        if (map && !translate_kept(map, 0, &tracker, &il))
            continue;
        if (!(source & ILMAP_SOURCE_CALL_INSTRUCTION) && k > 0) {
            const ilmap_native_record *prev = &kept[k - 1];
            if (native_is_call(prev))
                prev = k > 1 ? &kept[k - 2] : NULL;
            if (prev && !native_is_call(prev) && prev->il_offset == il)
                continue;
        }
        kept[k++] = record_of(&jit[i], il);
    }
    return k;
}

/* The DAC's ComposeMapping (with a map only) and its lastIL. Dropped
 * entries are marked MAX_ILNUM and compacted away, which removes genuine
 * MAX_ILNUM translations with them; the tracker still moves to them. */
static uint32_t filter_dac(const ilmap_boundary *jit, uint32_t n, const ilmap *map,
                           ilmap_native_record *kept, uint32_t *last_il)
{
    uint32_t tracker = NATIVE_MAX_ILNUM;
    uint32_t k = 0;

    *last_il = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t il = jit[i].il_offset;

        if (map && (!translate_kept(map, 1, &tracker, &il) || il == NATIVE_MAX_ILNUM))
            continue;
        kept[k] = record_of(&jit[i], il);
        if (!native_is_call(&kept[k]))
            *last_il = native_signed_max(*last_il, il);
        k++;
    }
    return k;
}

/* Step 4: end offsets, in native order, skipping call instructions up to
 * (not past) the final entry; the final entry's end is unknown. */
static void set_ends(ilmap_native_record *r, uint32_t k)
{
    if (k == 0)
        return;
    for (uint32_t i = 0; i + 1 < k; i++) {
        uint32_t j = i + 1;
        while (j < k - 1 && native_is_call(&r[j]))
            j++;
        r[i].native_end = r[j].native_start;
    }
    r[k - 1].native_end = 0;
    r[k - 1].source |= ILMAP_SOURCE_NATIVE_END_OFFSET_UNKNOWN;
}

ilmap_status ilmap_native_build(const ilmap_boundary *jit, size_t count, const ilmap *instrumented,
                                uint32_t code_size, unsigned flags, ilmap_native **out)
{
    if (out)
        *out = NULL;
    if (!out || (flags & ~(unsigned)KNOWN_FLAGS))
        return ILMAP_E_INVALID_ARG;

    ilmap_native_record *records;
    ilmap_status status = native_records_for(
        ilmap_native_validate_boundaries(jit, count, code_size, NULL), count, &records);
    if (status != ILMAP_OK)
        return status;
    uint32_t n = (uint32_t)count;

    /* A map with no entries is no map (doc/il-maps.md#empty-map). */
    const ilmap *map = ilmap_get_count(instrumented) > 0 ? instrumented : NULL;
    int dac = (flags & ILMAP_DAC) != 0;
    uint32_t last_il;
    uint32_t kept = dac ? filter_dac(jit, n, map, records, &last_il)
                        : filter_in_process(jit, n, map, records, &last_il);

    set_ends(records, kept);
    if (!native_sort(records, kept)) {
        free(records);
        return ILMAP_E_NOMEM;
    }

    uint32_t calls = native_trailing_calls(records, kept);
    native_table table = { records, kept - calls, calls, code_size, last_il, dac, flags };
    status = native_assemble(&table, out);
    free(records);
    return status;
}
