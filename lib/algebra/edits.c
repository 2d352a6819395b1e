/*
 * ilmap_edits_build: the layout and COR_IL_MAP of an edit. Only sizes
 * matter here. Each edit is resolved to the instruction it precedes, the
 * edits are sorted by that instruction, and one pass over the
 * instructions lays the new code out: memory in proportion to the edits,
 * not to the method (a probe every few instructions of a large method
 * should not pay for an array per instruction).
 */
#include <stdlib.h>
#include <string.h>

#include "ilmap-il.h"
#include "common/search.h"
#include "common/size_limits.h"

typedef struct resolved {
    uint32_t slot;  /* instruction index; n for the code size */
    uint32_t index; /* in the caller's array: the tie-break, and what bad_index reports */
} resolved;

/* The index of the instruction starting at `offset`, n for the code size
 * (INSERT only), or -1. */
static int64_t find_start(const uint32_t *starts, size_t n, uint32_t code_size, uint32_t offset)
{
    if (offset == code_size)
        return (int64_t)n;
    size_t lo = search_lower_u32(starts, sizeof *starts, n, offset);
    return lo < n && starts[lo] == offset ? (int64_t)lo : -1;
}

static int starts_valid(const uint32_t *starts, size_t n, uint32_t code_size)
{
    if (n == 0)
        return code_size == 0;
    if (starts[0] != 0 || starts[n - 1] >= code_size)
        return 0;
    for (size_t i = 1; i < n; i++)
        if (starts[i] <= starts[i - 1])
            return 0;
    return 1;
}

static int cmp_resolved(const void *a, const void *b)
{
    const resolved *x = a, *y = b;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

ilmap_status ilmap_edits_build(const uint32_t *starts, size_t n_starts, uint32_t code_size,
                               const ilmap_edit *edits, size_t n_edits, ilmap_entry *entries,
                               uint32_t *new_offsets, uint32_t *new_code_size, size_t *bad_index)
{
    ilmap_status st = ILMAP_OK;
    size_t bad = ILMAP_NO_INDEX;
    resolved *r = NULL;
    size_t nr = 0;

    if (new_code_size)
        *new_code_size = 0;
    /* Outputs sized for a count this large cannot be trusted to exist:
     * leave them alone. */
    if (((!starts || !entries) && n_starts > 0) || n_starts > ILMAP_MAX_ENTRIES ||
        size_exceeds_u32(n_edits)) {
        st = ILMAP_E_INVALID_ARG;
        goto out;
    }
    if ((!edits && n_edits > 0) || !starts_valid(starts, n_starts, code_size)) {
        st = ILMAP_E_INVALID_ARG;
        goto clear;
    }

    r = malloc((n_edits ? n_edits : 1) * sizeof *r);
    if (!r) {
        st = ILMAP_E_NOMEM;
        goto clear;
    }
    /* Each edit on its own first; the lowest offending index is reported,
     * whether the edit is wrong by itself or only next to another. */
    for (size_t e = 0; e < n_edits; e++) {
        const ilmap_edit *ed = &edits[e];
        int64_t at = find_start(starts, n_starts, code_size, ed->offset);
        if (at < 0 || ed->kind > ILMAP_EDIT_REPLACE ||
            (ed->kind == ILMAP_EDIT_REPLACE && ((size_t)at == n_starts || ed->size == 0))) {
            if (bad == ILMAP_NO_INDEX)
                bad = e;
            continue;
        }
        r[nr++] = (resolved){ (uint32_t)at, (uint32_t)e };
    }
    /* Callers usually list edits in order already; check before sorting. */
    int sorted = 1;
    for (size_t k = 1; k < nr && sorted; k++)
        sorted = r[k].slot >= r[k - 1].slot;
    if (!sorted)
        qsort(r, nr, sizeof *r, cmp_resolved);
    for (size_t k = 1; k < nr; k++) {
        /* A second REPLACE of one instruction: the later one is at fault. */
        if (r[k].slot != r[k - 1].slot || edits[r[k].index].kind != ILMAP_EDIT_REPLACE)
            continue;
        for (size_t j = k; j-- > 0 && r[j].slot == r[k].slot;)
            if (edits[r[j].index].kind == ILMAP_EDIT_REPLACE && r[k].index < bad) {
                bad = r[k].index;
                break;
            }
    }
    if (bad != ILMAP_NO_INDEX) {
        st = ILMAP_E_EDIT;
        goto clear;
    }

    uint64_t pos = 0;
    size_t k = 0;
    for (size_t i = 0; i <= n_starts; i++) {
        uint64_t first = pos;
        uint32_t replacement = 0;
        for (; k < nr && r[k].slot == i; k++) {
            const ilmap_edit *ed = &edits[r[k].index];
            if (ed->kind == ILMAP_EDIT_INSERT)
                pos += ed->size; /* 2^32 edits of < 2^32 bytes cannot wrap 64 bits */
            else
                replacement = ed->size;
        }
        if (pos > UINT32_MAX)
            break;
        if (i == n_starts)
            break;
        uint32_t end = i + 1 < n_starts ? starts[i + 1] : code_size;
        entries[i].old_offset = starts[i];
        entries[i].new_offset = (uint32_t)first;
        entries[i].accurate = 1;
        if (new_offsets)
            new_offsets[i] = (uint32_t)pos;
        pos += replacement ? replacement : end - starts[i];
    }
    if (pos > UINT32_MAX) {
        st = ILMAP_E_LIMIT;
        goto clear;
    }
    if (new_code_size)
        *new_code_size = (uint32_t)pos;
    goto out;

clear:
    if (entries)
        memset(entries, 0, n_starts * sizeof *entries);
    if (new_offsets)
        memset(new_offsets, 0, n_starts * sizeof *new_offsets);
out:
    free(r);
    if (bad_index)
        *bad_index = st == ILMAP_E_EDIT ? bad : ILMAP_NO_INDEX;
    return st;
}
