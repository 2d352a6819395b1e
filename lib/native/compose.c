/*
 * ilmap_native_translate: an exported map in instrumented coordinates plus
 * the COR_IL_MAP -> the map the runtime would have exported with that
 * COR_IL_MAP in force. The export kept every surviving boundary's start
 * and IL offset, so putting the entries back in native order and
 * replaying the build with the map reproduces the runtime's result; see
 * the header for why the lost entries do not matter and the call
 * instructions do.
 */
#include <stdlib.h>

#include "common/merge_sort.h"
#include "native/native.h"

#define KNOWN_FLAGS (ILMAP_DAC | ILMAP_NO_AVX2 | ILMAP_PORTABLE)

/* Empty for the native order, i.e. a boundary followed by another at the
 * same offset. That includes (0, 0): the end 0 the runtime exports when
 * several boundaries share offset 0, which the lookup reads as open to
 * the top but which here only says "the next boundary starts at 0". An
 * end 0 above a non-zero start is no such boundary; consistent() then
 * accepts it only as the last entry (an end left unset). */
static int is_empty(const ilmap_native_entry *e)
{
    return e->native_end == e->native_start;
}

/* Native order: by start; among equal starts the empty ranges first
 * (boundaries sharing a start all end where the next one starts, so only
 * the last has a non-empty range); then the caller's order. */
static int before(const ilmap_native_entry *e, uint32_t a, uint32_t b)
{
    if (e[a].native_start != e[b].native_start)
        return e[a].native_start < e[b].native_start;
    if (is_empty(&e[a]) != is_empty(&e[b]))
        return is_empty(&e[a]);
    return a < b;
}

static int index_before(const void *ctx, const void *a, const void *b)
{
    return before(ctx, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* Sorts idx[0, n) into native order. */
static int sort_indexes(const ilmap_native_entry *e, uint32_t *idx, uint32_t n)
{
    return merge_sort(idx, n, sizeof *idx, index_before, e);
}

/* Whether the entries in native order look exactly like a runtime export
 * made with no map (see the header's conditions). */
static int consistent(const ilmap_native_entry *e, const uint32_t *idx, uint32_t n,
                      uint32_t code_size, int dac)
{
    for (uint32_t i = 0; i < n; i++) {
        const ilmap_native_entry *cur = &e[idx[i]];

        if (i + 1 == n) {
            if (cur->native_end != code_size && cur->native_end != 0)
                return 0;
            break;
        }
        const ilmap_native_entry *next = &e[idx[i + 1]];
        if (cur->native_end != next->native_start)
            return 0;
        if (!dac && cur->il_offset == next->il_offset)
            return 0;
        /* Two empty ranges at one start: their order is lost. */
        if (is_empty(cur) && is_empty(next) && cur->native_start == next->native_start &&
            cur->il_offset != next->il_offset)
            return 0;
    }
    return 1;
}

ilmap_status ilmap_native_translate(const ilmap_native_entry *exported, size_t count,
                                    uint32_t code_size, const ilmap *instrumented, unsigned flags,
                                    ilmap_native **out, int *lossless)
{
    if (out)
        *out = NULL;
    if (lossless)
        *lossless = 0;
    if (!out || (exported == NULL && count > 0) || count > ILMAP_NATIVE_MAX_ENTRIES ||
        (flags & ~(unsigned)KNOWN_FLAGS))
        return ILMAP_E_INVALID_ARG;
    for (size_t i = 0; i < count; i++)
        if (exported[i].native_start > code_size)
            return ILMAP_E_CODE_SIZE;

    uint32_t n = (uint32_t)count;
    uint32_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    ilmap_boundary *jit = malloc((size_t)(n ? n : 1) * sizeof *jit);
    if (!idx || !jit) {
        free(idx);
        free(jit);
        return ILMAP_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    if (!sort_indexes(exported, idx, n)) {
        free(idx);
        free(jit);
        return ILMAP_E_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        jit[i].native_offset = exported[idx[i]].native_start;
        jit[i].il_offset = exported[idx[i]].il_offset;
        jit[i].source = 0;
    }

    int is_lossless = consistent(exported, idx, n, code_size, (flags & ILMAP_DAC) != 0);
    ilmap_status status = ilmap_native_build(jit, n, instrumented, code_size, flags, out);
    free(idx);
    free(jit);
    if (status == ILMAP_OK && lossless)
        *lossless = is_lossless;
    return status;
}
