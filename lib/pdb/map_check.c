/* The map-check rule: every visible sequence point needs an entry of its
 * own in the method's COR_IL_MAP (doc/source-lines.md#map-check). */
#include "common/search.h"
#include "pdb/pdb.h"

/* Whether some entry has old_offset il: a binary search when the entries
 * ascend in old_offset (strict maps do), else a scan. */
static int has_entry(const ilmap_entry *e, size_t n, int sorted, uint32_t il)
{
    if (!sorted) {
        for (size_t i = 0; i < n; i++)
            if (e[i].old_offset == il)
                return 1;
        return 0;
    }
    size_t lo = n ? search_lower_u32(&e[0].old_offset, sizeof e[0], n, il) : 0;
    return lo < n && e[lo].old_offset == il;
}

ilmap_status ilmap_pdb_check_map(const ilmap_pdb_sequence_point *points, size_t point_count,
                                 const ilmap_entry *entries, size_t entry_count, size_t cap,
                                 size_t *total, size_t *out)
{
    if (total)
        *total = 0;
    if (!total || (!points && point_count > 0) || (!entries && entry_count > 0) ||
        (cap > 0 && !out))
        return ILMAP_E_INVALID_ARG;
    int sorted = 1;
    for (size_t i = 1; i < entry_count && sorted; i++)
        sorted = entries[i - 1].old_offset <= entries[i].old_offset;
    size_t count = 0;
    for (size_t i = 0; i < point_count; i++) {
        if (points[i].start_line == ILMAP_PDB_HIDDEN_LINE ||
            has_entry(entries, entry_count, sorted, points[i].il_offset))
            continue;
        if (count < cap)
            out[count] = i;
        count++;
    }
    *total = count;
    return cap == 0 || cap >= count ? ILMAP_OK : ILMAP_E_TRUNCATED;
}
